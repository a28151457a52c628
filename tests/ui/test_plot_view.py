"""The plot: glyph layers, Follow the learner, the edge marker, numbering, legend, the trial
marker, snapping, shading, w_LS and w at true length (through data coordinates and signals)."""

import itertools
import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFontInfo, QImage, QPainter

from simulator.engine import Dataset, FeatureMap, Settings, Simulation, load_preset
from simulator.presentation.frame import build_frame
from simulator.ui import style
from simulator.ui.plot_geometry import ARROW_FRACTION, MARGIN, Box, line_in_sight, snap
from simulator.ui.points_item import NUMBERS_LIMIT, GlyphLayer
from tests.helpers.views import plot_views
from tests.ui.conftest import click, view_pos


def score(line, point):
    """offset + normal·p − level: the sign of the score s at p (0 on the line)."""
    return line.offset + float(np.dot(line.normal, point)) - line.level


def on_line(line, drawn):
    """The drawn (point, direction) lies on `line`."""
    point, direction = drawn
    scale = math.hypot(*line.normal)
    return (
        abs(score(line, point)) / scale < 1e-6
        and abs(float(np.dot(line.normal, direction))) / scale < 1e-6
    )


def steps(window, count):
    for _ in range(count):
        window.controller.step()


# -- glyph layers --------------------------------------------------------------------------


def test_glyph_layer_paints_each_shown_point_where_the_painter_maps_it(qtbot):
    with plot_views() as make:
        view = make()
        view.resize(400, 400)
        view.setRange(xRange=(0, 10), yRange=(0, 10), padding=0)
        points = np.array([[2.0, 2.0], [5.0, 7.0], [8.0, 3.0]])
        layer = GlyphLayer(style.disc(), 14, None, QColor("#FF0000"))
        layer.set_points(points)
        view.getPlotItem().addItem(layer, ignoreBounds=True)
        layer.set_mask(np.array([True, False, True]))
        view.show()
        qtbot.waitExposed(view)
        image = view.grab().toImage()
        ratio = image.devicePixelRatio()

        def colour_at(x, y):
            pos = view_pos(view, x, y)
            return QColor(image.pixel(round(pos.x() * ratio), round(pos.y() * ratio)))

        assert colour_at(2, 2) == QColor("#FF0000") and colour_at(8, 3) == QColor("#FF0000")
        assert colour_at(5, 7) != QColor("#FF0000")  # masked out
        assert colour_at(5, 5) != QColor("#FF0000")  # nothing there
        np.testing.assert_array_equal(layer.shown_points(), points[[0, 2]])


def test_glyph_layer_draws_into_any_painter_device(qtbot):
    """Offscreen rendering (the exporter's path) paints the same glyphs."""
    with plot_views() as make:
        view = make()
        view.resize(300, 300)
        view.show()
        qtbot.waitExposed(view)
        view.show_frame(build_frame(Simulation(Dataset([[0.0, 0.0]], [-1]))))
        view.setRange(xRange=(-1, 1), yRange=(-1, 1), padding=0)
        image = QImage(300, 300, QImage.Format.Format_RGB32)
        image.fill(QColor("#FFFFFF"))
        painter = QPainter(image)
        view.render(painter)
        painter.end()
        centre = view_pos(view, 0.0, 0.0)
        # Above the minus bar the −1 square is solid vermillion; far from it, background.
        assert QColor(image.pixel(round(centre.x()), round(centre.y()) - 6)) == style.NEGATIVE
        assert QColor(image.pixel(round(centre.x()) + 40, round(centre.y()) - 40)) != style.NEGATIVE


def test_the_class_layers_and_mistakes_show_the_data(window):
    ds = load_preset("xor")
    window.controller.set_dataset(ds)
    steps(window, 3)
    positive, negative = window.plot.class_points()
    np.testing.assert_array_equal(positive, ds.points[ds.labels > 0])
    np.testing.assert_array_equal(negative, ds.points[ds.labels < 0])
    mask = window.controller.frame.snapshot.misclassified
    np.testing.assert_array_equal(window.plot.marked_mistakes(), ds.points[mask])


def test_no_pyqtgraph_internals_in_the_plot_code():
    """No private attribute of a library object: only our own `self._x` and module names."""
    import ast
    import inspect

    from simulator.ui import legend_item, plot_view, points_item

    for module in (plot_view, points_item, legend_item):
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                if node.attr.startswith("__"):
                    continue
                owner = node.value
                ours = isinstance(owner, ast.Name) and owner.id in ("self", "editor")
                ours = ours or (isinstance(owner, ast.Attribute) and owner.attr == "editor")
                assert ours, f"{module.__name__}: .{node.attr} on {ast.unparse(owner)}"


# -- follow the learner --------------------------------------------------------------------


def test_follow_keeps_the_or_boundary_and_w_in_sight_after_trial_3(window):
    window.controller.set_dataset(load_preset("or"))
    window.plot.fit_view()
    steps(window, 3)
    frame = window.controller.frame
    assert frame.snapshot.weights == (1.0, 1.0, 1.0)  # by hand: the line x + y = −1
    view = window.plot.view_box()
    assert view.contains(frame.dataset.points)
    assert line_in_sight(frame.boundary, view)
    start, end = window.plot.arrow()
    assert view.contains(np.array([start, end]))
    assert abs(score(frame.boundary, start)) < 1e-9  # the arrow starts on the boundary
    assert window.plot.edge_marker() is None


def test_follow_off_leaves_the_view_alone(window):
    window.follow_action.setChecked(False)
    window.controller.set_dataset(load_preset("or"))
    window.plot.fit_view()
    before = window.plot.view_box()
    steps(window, 3)
    assert window.plot.view_box() == before
    # The boundary x + y = −1 misses that view: a marker at its edge points to it.
    marker = window.plot.edge_marker()
    assert marker is not None and before.contains(marker)
    line = window.controller.frame.boundary
    assert score(line, marker) > 0 and not line_in_sight(line, before)
    nearer = marker + 0.1 * (np.array([-0.5, -0.5]) - marker)
    assert abs(score(line, nearer)) < abs(score(line, marker))  # it points towards the line


def test_follow_does_not_jitter_from_trial_to_trial(window):
    """Over a whole run the view moves a few times, never every trial, and never shrinks
    just after growing."""
    window.controller.set_dataset(load_preset("separable"))
    window.plot.fit_view()
    views = [window.plot.view_box()]
    for _ in range(60):
        window.controller.step()
        views.append(window.plot.view_box())
        frame = window.controller.frame
        assert views[-1].grown(0.01).contains(frame.dataset.points)
    moves = sum(a != b for a, b in itertools.pairwise(views))
    assert moves <= 6, moves
    shrinks = [k for k in range(1, len(views)) if views[k].width < views[k - 1].width * 0.999]
    for k in shrinks:  # a shrink is a refit to what is needed, not a wobble
        assert views[k].width < views[k - 1].width * 0.8


@pytest.mark.parametrize(
    ("preset", "settings", "always_line"),
    [
        ("iris", Settings(), True),  # w = (1, 5.1, 3.5) after trial 1: the line is far off
        ("iris", Settings(algorithm="adaline"), True),
        ("noisy", Settings(algorithm="adaline"), True),
        ("iris", Settings(algorithm="winnow"), False),  # at times 19 units away: a marker
    ],
)
def test_follow_shows_the_points_and_the_boundary_or_a_marker(
    window, preset, settings, always_line
):
    window.controller.set_settings(settings)
    window.controller.set_dataset(load_preset(preset))
    window.plot.fit_view()
    for _ in range(12):
        steps(window, 10)
        frame = window.controller.frame
        view = window.plot.drawing_box()
        assert view.contains(frame.dataset.points)
        if frame.boundary is None:
            continue
        shown = window.plot.arrow() is not None and line_in_sight(frame.boundary, view)
        assert shown or (not always_line and window.plot.edge_marker() is not None)


def test_editing_points_does_not_move_a_following_view(qtbot, window):
    window.plot.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    before = window.plot.view_box()
    click(qtbot, window.plot, 1.0, 1.5)
    click(qtbot, window.plot, -1.0, -0.5, Qt.MouseButton.RightButton)
    assert window.controller.dataset.labels.tolist() == [1, -1]
    assert window.plot.view_box() == before


# -- what the plot shows ---------------------------------------------------------------------


def test_points_are_numbered_from_1_on_the_plot_and_in_the_explanation(window):
    ds = load_preset("or")
    window.controller.set_dataset(ds)
    np.testing.assert_array_equal(window.plot.numbered_points(), ds.points)  # k labels row k−1
    steps(window, 2)
    assert "point #2," in window.explanation.text()  # trial 2 shows row 1, x₂
    window.numbers_action.setChecked(False)
    assert len(window.plot.numbered_points()) == 0
    window.numbers_action.setChecked(True)
    count = NUMBERS_LIMIT + 1
    many = Dataset(np.random.default_rng(0).normal(size=(count, 2)), [1] * count)
    window.controller.set_dataset(many)
    assert len(window.plot.numbered_points()) == 0  # too many to read


def test_axes_carry_the_column_names(window):
    window.controller.set_dataset(load_preset("iris"))
    assert window.plot.axis_names() == ("sepal_length", "sepal_width")
    window.controller.set_dataset(load_preset("or"))
    assert window.plot.axis_names() == ("x1", "x2")


def test_the_legend_names_what_is_drawn(window):
    window.controller.set_dataset(load_preset("or"))
    texts = window.plot.legend_texts()
    for name in ("boundary w·x = θ", "w (normal)", "before the update", "misclassified"):
        assert name in texts
    assert not any("separator" in t for t in texts)
    window.separator_action.setChecked(True)
    window.radius_action.setChecked(True)
    window.shading_action.setChecked(True)
    texts = window.plot.legend_texts()
    assert "optimal separator u*" in texts and "margin band ±γ*" in texts
    assert "radius R" in texts and "s > 0: predicts +1" in texts
    window.legend_action.setChecked(False)
    assert window.plot.legend_texts() == []


def test_the_legend_keeps_a_band_free_above_the_data(window):
    window.controller.set_dataset(load_preset("iris"))
    window.plot.fit_view()
    top = window.plot.drawing_box().y1
    assert top < window.plot.view_box().y1
    assert window.controller.dataset.points[:, 1].max() <= top


def test_a_mistake_is_marked_by_shape(window):
    window.controller.set_dataset(load_preset("or"))
    window.controller.step()  # trial 1: s = 0 on (0, 0), a mistake
    shape, point = window.plot.trial_marker()
    assert shape == "diamond" and point.tolist() == [0.0, 0.0]
    window.controller.simulation.run(23)
    window.controller.step()  # trial 25, after convergence: right
    assert not window.controller.frame.snapshot.last_trial.mistake
    shape, _ = window.plot.trial_marker()
    assert shape == "ring"


def test_snap_rounds_clicked_positions(qtbot, window):
    window.plot.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    assert window.plot.snap_step == 0.5  # on by default: clicks land on the board's grid
    off = next(a for a in window.snap_group.actions() if a.data() is None)
    off.trigger()
    assert window.plot.snap_step is None
    with qtbot.waitSignal(window.plot.point_requested) as blocker:
        click(qtbot, window.plot, 0.9553, 0.3)
    assert blocker.args[0] != 1.0  # unsnapped: where the mouse was
    half = next(a for a in window.snap_group.actions() if a.data() == 0.5)
    half.trigger()
    assert window.plot.snap_step == 0.5
    with qtbot.waitSignal(window.plot.point_requested) as blocker:
        click(qtbot, window.plot, -0.9553, -1.3)
    assert blocker.args[:2] == [-1.0, -1.5]
    tenth = next(a for a in window.snap_group.actions() if a.data() == 0.1)
    tenth.trigger()
    with qtbot.waitSignal(window.plot.point_requested) as blocker:
        click(qtbot, window.plot, 0.31, -0.69)
    assert blocker.args[:2] == [0.3, -0.7]  # the decimals typed, not 0.30000000000000004


@pytest.mark.parametrize(
    ("value", "step", "expected"),
    [
        (0.9553, 0.5, 1.0),
        (0.9553, 0.25, 1.0),
        (0.3, 0.1, 0.3),
        (-0.74, 0.25, -0.75),
        (2.0, None, 2.0),
    ],
)
def test_snap_values(value, step, expected):
    assert snap(value, step) == expected
    assert str(snap(value, step)) == str(expected)


def test_region_shading_tints_each_side_by_the_sign_of_the_score(window):
    window.controller.set_dataset(load_preset("or"))
    steps(window, 2)  # w = (0, 0, 1): s > 0 above y = 0
    assert window.plot.shaded_regions() == {}
    window.shading_action.setChecked(True)
    regions = window.plot.shaded_regions()
    line = window.controller.frame.boundary
    for p in ([0.3, 0.8], [0.9, -0.2], [-0.1, 0.05]):
        sign = 1 if score(line, p) > 0 else -1
        assert regions[sign].containsPoint(QPointF(*p), Qt.FillRule.OddEvenFill)
        assert not regions[-sign].containsPoint(QPointF(*p), Qt.FillRule.OddEvenFill)


def test_least_squares_line_is_adalines_w_ls(window):
    ds = load_preset("separable")
    window.controller.set_settings(Settings(algorithm="adaline", preprocessing="standardize"))
    window.controller.set_dataset(ds)
    assert window.plot.drawn_line("least_squares") is None
    window.least_squares_action.setChecked(True)
    frame = window.controller.frame
    w_ls = np.array(frame.least_squares.least_squares)
    expected = FeatureMap(ds, bias=True, preprocessing="standardize").input_line(w_ls)
    assert on_line(expected, window.plot.drawn_line("least_squares"))
    assert "least squares w_LS" in window.plot.legend_texts()
    window.controller.set_settings(Settings())  # the perceptron has no w_LS
    assert window.plot.drawn_line("least_squares") is None


def test_w_at_true_length(window):
    window.controller.set_dataset(load_preset("or"))
    steps(window, 3)  # w = (1, 1, 1)
    start, end = window.plot.arrow()
    view = window.plot.view_box()
    assert np.linalg.norm(end - start) <= ARROW_FRACTION * view.diagonal + 1e-9
    window.true_length_action.setChecked(True)
    start, end = window.plot.arrow()
    assert np.linalg.norm(end - start) == pytest.approx(math.sqrt(2))  # |(w1, w2)|
    assert np.allclose((end - start) / math.sqrt(2), [math.sqrt(0.5)] * 2)


def test_presentation_thickens_lines_and_glyphs_and_enlarges_ticks(qtbot):
    with plot_views() as make:
        view = make()
        view.show_frame(build_frame(Simulation(load_preset("or"))))
        normal = (view.line_scale, view.point_size)
        view.set_presentation(True)
        assert view.line_scale > normal[0] and view.point_size > normal[1]
        assert QFontInfo(view.tick_font()).pixelSize() >= 18
        view.set_presentation(False)
        assert (view.line_scale, view.point_size) == normal


def test_boxes():
    box = Box(0, 2, 0, 1)
    assert box.grown(0.5) == Box(-1, 3, -0.5, 1.5)
    assert box.grown(-0.25) == Box(0.5, 1.5, 0.25, 0.75)  # inward: a margin inside
    assert box.grown(-0.25, minimum=0.5) == Box(0.5, 1.5, 0.25, 0.75)  # minimum: outward only
    assert box.contains(np.array([[1, 0.5], [2, 1]])) and not box.contains(np.array([3, 0]))


@pytest.mark.parametrize("size", [(1024, 768), (1536, 864)])
@pytest.mark.parametrize("presentation", [False, True])
def test_the_w_label_stays_inside_the_view(qtbot, window, size, presentation):
    """On iris at trial 60, w points left towards the view's left edge: the arrow keeps
    the margin from the edge, and the label "w" stays inside the view (past the edge, it
    was cut off)."""
    window.resize(*size)
    window.presentation_action.setChecked(presentation)
    window.load_preset("iris")
    c = window.controller
    c.simulation.run(59)
    c.step()
    qtbot.waitUntil(lambda: window.plot.arrow() is not None)
    start, end = window.plot.arrow()
    view = window.plot.view_box()
    assert end[0] < start[0]  # w points left, towards the edge
    assert end[0] >= view.x0 + 0.9 * MARGIN * view.width  # not at the very edge
    label = window.plot.arrow_label()
    assert label is not None and label.width() > 0
    inside = (view.x0, view.y0, view.x1, view.y1)
    assert inside[0] <= label.left() and label.right() <= inside[2]
    assert inside[1] <= label.top() and label.bottom() <= inside[3]


@pytest.mark.parametrize(
    "tip", [(0.0, 5.0), (10.0, 5.0), (5.0, 10.0), (5.0, 0.0), (0.0, 10.0), (10.0, 0.0)]
)
def test_an_arrow_label_at_the_views_edge_moves_inside(qtbot, tip):
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    from simulator.ui.arrow_item import VectorItem

    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    widget.show()
    qtbot.waitExposed(widget)
    widget.setRange(xRange=(0, 10), yRange=(0, 10), padding=0)
    item = VectorItem(QColor("#CC79A7"), "w")
    item.set_style(width=4, head=20, font_px=28)
    widget.addItem(item)
    item.set_vector(np.array([5.0, 5.0]), np.array(tip))  # the tip on the edge
    QApplication.processEvents()  # the view applies its range and size
    label = item.label_rect()
    view = widget.getPlotItem().vb.viewRect()
    assert label is not None and label.width() > 0
    assert view.contains(label), (label, view)


def _hidden_by_legend(plot, points, radius_px=0.0):
    """The rows of `points` whose glyph (a disc of `radius_px` around the point) touches
    the legend's box, in scene pixels."""
    vb = plot.getPlotItem().vb
    legend = plot.legend_rect()
    if legend is None:
        return []
    grown = legend.adjusted(-radius_px, -radius_px, radius_px, radius_px)
    return [
        k
        for k, (x, y) in enumerate(points)
        if grown.contains(vb.mapViewToScene(QPointF(float(x), float(y))))
    ]


def _short_presentation_plot(qtbot, window):
    """1024×768, presentation type, the charts shown below the plot: a short, wide plot."""
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.size().width() == 1024)
    window.presentation_action.setChecked(True)
    window.time.area_action.setChecked(True)
    qtbot.wait(20)


@pytest.mark.parametrize("fit_first", [False, True])
def test_the_legend_hides_no_point_of_a_short_presentation_plot(qtbot, window, fit_first):
    """The tester's case: OR at trial 8, presentation mode, charts shown. Fitted before the
    plot became short too (the legend's room is in pixels, so it is refitted)."""
    window.controller.set_dataset(load_preset("or"))
    if fit_first:
        window.plot.fit_view()
    _short_presentation_plot(qtbot, window)
    if not fit_first:
        window.plot.fit_view()
    window.controller.simulation.run(7)
    window.controller.step()
    plot = window.plot
    assert plot.legend_rect() is not None
    points = window.controller.dataset.points
    ring = 1.15 * plot.point_size  # the current trial's ring, the largest glyph
    assert _hidden_by_legend(plot, points, ring) == []
    assert plot.drawing_box().contains(points)
    assert line_in_sight(window.controller.frame.boundary, plot.drawing_box())
    window.fit_action.trigger()
    assert _hidden_by_legend(plot, points, ring) == []


def test_the_legend_hides_no_point_in_any_plot_shape(qtbot, window):
    """Tall, square, wide and short plots, normal and presentation type, with every legend
    entry on: after a fit no point is under the legend (hidden while there is no room for
    it, as on the shortest plots with all 11 entries)."""
    window.follow_action.setChecked(False)
    for action in (window.separator_action, window.radius_action, window.shading_action):
        action.setChecked(True)
    window.controller.set_dataset(load_preset("separable"))
    points = window.controller.dataset.points
    for presentation in (False, True):
        window.presentation_action.setChecked(presentation)
        for size in ((500, 800), (700, 500), (900, 300), (500, 260)):
            window.plot.setFixedSize(*size)
            qtbot.waitUntil(lambda s=size: window.plot.size().width() == s[0])
            window.plot.fit_view()
            hidden = _hidden_by_legend(window.plot, points)
            assert hidden == [], (presentation, size, window.plot.legend_rect())
            if size[1] >= 500:  # its 11 entries fit; below, it may step aside
                assert window.plot.legend_rect() is not None, (presentation, size)


def test_a_panned_view_stays_put_when_the_plot_resizes(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    window.plot.fit_view()
    window.plot.setRange(xRange=(-3, 3), yRange=(-3, 3), padding=0)
    target = window.plot.getPlotItem().vb.targetRange()
    _short_presentation_plot(qtbot, window)
    assert window.plot.getPlotItem().vb.targetRange() == target


def test_the_margin_perceptron_draws_both_lines_of_its_band(qtbot):
    from simulator.engine import Simulation, load_preset
    from simulator.presentation.frame import build_frame
    from simulator.ui.plot_view import PlotView

    view = PlotView()
    qtbot.addWidget(view)
    view.resize(500, 400)
    sim = Simulation(load_preset("separable"), algorithm="margin-perceptron", margin=1.0)
    sim.run(3)
    frame = build_frame(sim)
    view.show_frame(frame)
    view.fit_view()
    drawn = view.drawn_lines("margin-band")
    assert len(drawn) == 2 == len(frame.lines("margin-band"))
    w = np.array(sim.weights)
    for point, _direction in drawn:  # w·x = ±τ along each drawn line
        assert abs(abs(w[0] + w[1:] @ point) - 1.0) < 1e-6


def test_a_kernel_run_rings_each_point_by_its_alpha_and_draws_no_plane_theory(qtbot):
    from simulator.engine import Simulation, load_preset
    from simulator.engine.presets import PRESET_SETTINGS
    from simulator.presentation.frame import build_frame
    from simulator.ui.plot_view import HALO_LEVELS, PlotView

    view = PlotView()
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.set_show_separator(True)
    view.set_show_radius(True)
    view.set_show_legend(True)
    sim = Simulation.from_settings(load_preset("ring"), PRESET_SETTINGS["ring"])
    sim.run(60)
    frame = build_frame(sim)
    view.show_frame(frame)
    alpha = sim.dual
    assert alpha is not None and np.count_nonzero(alpha) >= 2
    rings = view.halo_points()
    ringed = np.concatenate([rings[k] for k in range(1, HALO_LEVELS + 1)])
    assert len(ringed) == np.count_nonzero(alpha)
    top = sim.dataset.points[np.argmax(alpha)]
    assert any(np.allclose(p, top) for p in rings[HALO_LEVELS])  # the largest α, largest ring
    # γ*, u* and R live in the kernel's space: no separator, band or circle in the plane
    assert view.drawn_line("separator") is None and frame.radius_curve is None
    assert "optimal separator u*" not in view.legend_texts()
    assert "αᵢ (ring size)" in view.legend_texts()


def test_w_pointing_off_a_boundary_at_the_view_s_edge_still_shows_inside_the_view():
    # EG± on `or` at trial 6: the boundary x2 = 1 lies along the data's top edge and w
    # points up, off the view; a quarter arrow has no room there, so none was drawn.
    from simulator.engine.features import InputLine
    from simulator.ui.plot_geometry import arrow_placement

    view = Box(-3.0, 2.2, -0.2, 1.2)
    line = InputLine(offset=-0.4255, normal=(0.0, 0.4255), level=0.0)
    placed = arrow_placement(line, view, ARROW_FRACTION * view.diagonal)
    assert placed is not None
    start, end = placed
    assert abs(start[1] - 1.0) < 1e-12 and end[1] > start[1]  # on the line, pointing as w
    assert view.x0 < end[0] < view.x1 and view.y0 < end[1] < view.y1


def test_stepping_a_kernel_learner_samples_its_whole_sum_once(qtbot, monkeypatch):
    """Issue 18's frame budget: each step's curve and regions come from the last frame's
    grid by the one term a mistake adds (`SampledGrid`, `DualScore.since`), so a run of
    steps over a support of dozens evaluates the whole dual sum on the grid once at most
    (a frame whose curve is not where the grid says fails here too)."""
    from simulator.engine.learners.kernel import DualScore
    from simulator.ui import MainWindow
    from tests.engine.test_incremental_scores import noisy_ring

    window = MainWindow(noisy_ring(150), Settings("kernel-perceptron", kernel="rbf"))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.shading_action.setChecked(True)
    c = window.controller
    c.simulation.run(400, until_converged=False)
    c.step()
    assert c.simulation.learner_state.counts.size > 30
    whole = []
    original = DualScore.__call__
    monkeypatch.setattr(DualScore, "__call__", lambda self, p: whole.append(1) or original(self, p))
    mistakes = c.simulation.mistakes
    for _ in range(12):
        c.step()
        window.plot.viewport().repaint()
    assert c.simulation.mistakes > mistakes and len(whole) <= 1
    drawn = window.plot.drawn_curve("boundary")
    score = c.frame.drawables[0].score
    values, scale = original(score, drawn), np.max(np.abs(original(score, c.dataset.points)))
    assert drawn.shape[0] > 20 and np.max(np.abs(values)) < 0.05 * scale
    c.undo_stack.setClean()


@pytest.mark.parametrize("presentation", [False, True])
def test_the_trial_marker_does_not_hide_its_points_number(window, presentation):
    """Issue 20 case 2: a number sits beside its point, closer than the trial's marker
    reaches; it is drawn over the marker, as dark as the number of a point with none."""
    window.presentation_action.setChecked(presentation)
    window.controller.set_dataset(load_preset("or"))
    window.controller.simulation.run(2)
    window.controller.step()  # trial 3: point 3, (1, 0), under the trial's marker
    plot = window.plot
    plot.viewport().repaint()

    def darkest(x, y):
        """The darkest pixel where the number of the point at (x, y) is written (up and to
        the right of it, inside the marker's reach)."""
        centre = view_pos(plot, x, y)
        image = plot.viewport().grab(QRect(centre.x() + 3, centre.y() - 16, 14, 14)).toImage()
        return min(
            image.pixelColor(i, j).lightness()
            for i in range(image.width())
            for j in range(image.height())
        )

    assert darkest(1.0, 0.0) <= darkest(0.0, 1.0) + 5  # point 3 as dark as point 2
    window.numbers_action.setChecked(False)
    plot.viewport().repaint()
    assert darkest(1.0, 0.0) > darkest(0.0, 1.0) - 5 > 60  # no number: only light fills
