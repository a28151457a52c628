"""The stage (issue 20): a demo works the first time, at a projector's size and a speed the
class can follow."""

import pytest

from simulator.engine import PRESET_SETTINGS, PRESETS, Settings, load_preset


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_brings_its_learner_and_settings_in_one_undo_step(window, name):
    window.controller.set_settings(Settings("adaline", learning_rate=1.0, bias=False))
    before = window.controller.undo_stack.count()
    assert window.load_preset(name)
    assert window.controller.settings == PRESET_SETTINGS[name]
    assert window.controller.undo_stack.count() == before + 1
    said = window.statusBar().currentMessage()
    assert f"Loaded the {name} preset: {window.controller.frame.learner.title}" in said
    window.controller.undo_stack.undo()
    assert window.controller.settings == Settings("adaline", learning_rate=1.0, bias=False)


def test_the_disjunction_preset_is_the_notes_winnow_with_theta_n_and_bound_65(window):
    window.controller.set_settings(Settings("adaline", learning_rate=1.0))
    window.load_preset("disjunction")
    frame = window.controller.frame
    assert frame.learner.name == "winnow" and frame.learner.threshold == 64
    assert frame.bound is not None and frame.bound.value == 65
    assert "no bias" in window.statusBar().currentMessage()


def test_or_after_cmu_without_bias_is_separable(window):
    window.load_preset("cmu")
    assert not window.controller.settings.bias
    window.load_preset("or")
    frame = window.controller.frame
    assert frame.settings.bias and frame.report.separable
    assert "Not linearly separable" not in frame.status
    assert len(load_preset("or")) == len(frame.dataset)


def _at(qtbot, window, size):
    from tests.helpers.driven import deliver_posted_events, sized

    sized(window, size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    for _ in range(3):
        deliver_posted_events()


def _on_screen(window, widget):
    from PySide6.QtCore import QPoint, QRect

    top_left = widget.mapTo(window, QPoint(0, 0))
    return widget.isVisible() and window.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize("size", [(1024, 768), (800, 600)])
@pytest.mark.parametrize("presentation", [False, True])
def test_step_and_run_stay_on_screen_whatever_the_status_says(qtbot, window, size, presentation):
    window.presentation_action.setChecked(presentation)
    window.load_preset("xor")
    window.controller.simulation.run(100)  # a cycle: the longest status there is
    window.controller.step()
    _at(qtbot, window, size)
    assert "Cycling" in window.theory.status.text()
    for button in (window.controls.step_button, window.controls.run_button):
        assert _on_screen(window, button), button.objectName()
    assert _on_screen(window, window.controls.speed)  # the pace stays in presentation too


def test_presentation_shows_the_settings_the_hidden_learner_box_holds(qtbot, window):
    window.load_preset("cmu")
    window.presentation_action.setChecked(True)
    _at(qtbot, window, (1024, 768))
    strip = window.settings_strip
    assert strip.isVisible() and not window.controls.learner_box.isVisible()
    assert "no bias" in strip.toolTip() and "s = 0 → +1" in strip.toolTip()
    assert strip.fontMetrics().horizontalAdvance(strip.text()) <= strip.width()
    window.presentation_action.setChecked(False)
    assert not strip.isVisible()


def test_run_starts_at_a_pace_the_class_can_follow(window):
    from simulator.ui.control_panel import DEFAULT_SPEED

    assert DEFAULT_SPEED <= 10
    assert window.controls.speed_value() == DEFAULT_SPEED
    assert window.controller.speed == DEFAULT_SPEED
    window.load_preset("or")
    window.controller.run()
    window.controller.advance(1)  # one frame's work at 5 trials a second: one trial
    assert window.controller.simulation.trials == 1
    window.controller.pause()


def test_enter_in_a_number_box_applies_it_and_gives_space_back_to_step(qtbot, window):
    from PySide6.QtCore import Qt

    from tests.helpers.driven import deliver_posted_events

    window.load_preset("or")
    box = window.controls.rate
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "0.5")
    qtbot.keyClick(box.lineEdit(), Qt.Key.Key_Return)
    deliver_posted_events()
    qtbot.wait(10)
    assert window.controller.settings.learning_rate == 0.5
    assert window.plot.hasFocus()
    qtbot.keyClick(window.plot, Qt.Key.Key_Space)
    assert window.controller.simulation.trials == 1
    assert window.controller.settings.learning_rate == 0.5 and box.value() == 0.5


def test_a_click_that_takes_the_keyboard_back_adds_no_point(qtbot, window):
    from tests.ui.conftest import click

    window.controls.rate.setFocus()
    assert window.controls.rate.hasFocus()
    click(qtbot, window.plot, 0.5, 0.5)
    assert len(window.controller.dataset) == 0 and window.plot.hasFocus()
    click(qtbot, window.plot, 0.5, 0.5)
    assert len(window.controller.dataset) == 1


def test_a_click_whose_snapped_place_holds_a_point_selects_it(qtbot, window):
    from PySide6.QtCore import Qt

    from simulator.engine import Dataset
    from tests.ui.conftest import click

    window.controller.set_dataset(Dataset([[-1.0, 2.0]], [1]))
    window.plot.setRange(xRange=(-20, 20), yRange=(-15, 15), padding=0)
    click(qtbot, window.plot, -1.0, 2.0)  # snapped: exactly (−1, 2), as on the board
    assert len(window.controller.dataset) == 1 and window.plot.selected == 0
    window.plot.set_selected(None)
    # 40 px from the point at this zoom, but snapping to it: no −1 point stacked on it
    scale = 40 / window.plot.getPlotItem().vb.width() * 40.0
    click(qtbot, window.plot, -1.0 + 0.6 * min(scale, 0.24), 2.0, Qt.MouseButton.RightButton)
    assert len(window.controller.dataset) == 1 and window.plot.selected == 0


def test_clicks_land_on_the_grid_so_the_numbers_match_the_board(qtbot, window):
    from tests.ui.conftest import click

    window.plot.setRange(xRange=(-4, 4), yRange=(-4, 4), padding=0)
    click(qtbot, window.plot, -0.9964, 2.02)
    click(
        qtbot,
        window.plot,
        1.03,
        -1.97,
    )
    assert window.controller.dataset.points.tolist() == [[-1.0, 2.0], [1.0, -2.0]]


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _angle(line):
    import math

    _, direction = line
    return math.degrees(math.atan2(direction[1], direction[0])) % 180


def test_a_step_glides_the_line_from_one_w_to_the_next(qtbot):
    import numpy as np

    from simulator.app.main_window import GLIDE_MS, MainWindow
    from simulator.presentation.frame import build_frame

    window = MainWindow(load_preset("cmu"), PRESET_SETTINGS["cmu"])
    qtbot.addWidget(window)
    window.show()
    clock = _Clock()
    c = window.controller
    c.step()  # w₀ = 0 → w₁: the first line
    window.plot.set_glide(GLIDE_MS, clock)
    clock.now += 1.0
    window.plot.advance_glide()
    start = window.plot.drawn_line("boundary")
    c.step()
    c.step()
    while not c.frame.snapshot.last_trial.updated:
        c.step()
    end_frame = build_frame(c.simulation)
    assert window.plot.gliding
    assert _angle(window.plot.drawn_line("boundary")) == _angle(start)  # not moved yet
    clock.now += GLIDE_MS / 2000  # half way: between the two lines
    window.plot.advance_glide()
    middle = _angle(window.plot.drawn_line("boundary"))
    window.plot.set_glide(GLIDE_MS, clock)
    clock.now += GLIDE_MS / 1000
    window.plot.advance_glide()
    assert not window.plot.gliding
    end = window.plot.drawn_line("boundary")
    normal = np.array(end_frame.boundary.normal)
    assert abs(float(np.dot(end[1], normal))) < 1e-9  # the new boundary, exactly
    low, high = sorted((_angle(start), _angle(end)))
    assert low < middle < high or (high - low > 90 and (middle > high or middle < low))


def test_a_fast_run_does_not_glide(qtbot, window):
    import math

    window.glide_ms = 300
    window.load_preset("noisy")  # not separable: the run goes on
    window.controls.speed.setValue(window.controls.speed.maximum())
    assert window.controller.speed == math.inf
    window.controller.run()
    assert window.controller.running
    assert not window.plot.gliding and window.plot.glide_ms == 0
    window.controller.pause()
    assert window.plot.glide_ms == 300


def _span(window):
    """The share of the plot's width and of its height the points span, as drawn."""
    import numpy as np

    plot = window.plot
    vb = plot.getPlotItem().vb
    points = window.controller.dataset.points
    (x0, x1), (y0, y1) = vb.viewRange()
    width = (np.ptp(points[:, 0]) / (x1 - x0)) if len(points) else 0.0
    height = (np.ptp(points[:, 1]) / (y1 - y0)) if len(points) else 0.0
    return float(width), float(height)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_fills_the_plot_at_1024_by_768_in_presentation(qtbot, window, name):
    window.presentation_action.setChecked(True)
    _at(qtbot, window, (1024, 768))
    window.load_preset(name)  # as loaded: the data fill the plot (Follow may zoom out later
    _at(qtbot, window, (1024, 768))  # to show a boundary far from them)
    if window.controller.dataset.dimension == 2:
        width, height = _span(window)
        assert max(width, height) >= 0.6, (width, height)
    for _ in range(5):
        window.controller.step()
    _at(qtbot, window, (1024, 768))
    for button in (window.controls.step_button, window.controls.run_button):
        assert _on_screen(window, button), button.objectName()
    for label in window.theory.findChildren(type(window.theory.gamma)):
        if label.isVisible() and not label.wordWrap():
            assert label.fontMetrics().horizontalAdvance(label.text()) <= label.width(), (
                label.objectName(),
                label.text(),
            )


def test_the_presets_are_one_click_away_with_thumbnails(qtbot, window):
    from PySide6.QtWidgets import QToolBar, QToolButton

    from tests.helpers.driven import deliver_posted_events

    bar = window.findChild(QToolBar, "presetBar")
    assert bar is not None and bar.isVisible()
    deliver_posted_events()
    presets = [a for a in bar.actions() if a.objectName().startswith("preset_")]
    qtbot.waitUntil(lambda: all(not a.icon().isNull() for a in presets))
    names = [a.objectName() for a in presets]
    assert names == [f"preset_{name}" for name in PRESETS]
    button = bar.widgetForAction(presets[names.index("preset_xor")])
    assert isinstance(button, QToolButton)
    button.click()
    assert len(window.controller.dataset) == len(load_preset("xor"))
    window.presentation_action.setChecked(True)
    assert not bar.isVisible()


def test_the_lessons_are_one_click_away_too(window):
    from PySide6.QtWidgets import QToolButton

    from simulator.engine.lessons import lesson_names

    button = window.findChild(QToolButton, "lessonsButton")
    assert button is not None and button.isVisible()
    actions = button.menu().actions()
    assert [a.objectName() for a in actions] == [f"lesson_{n}" for n in lesson_names()]
    actions[0].trigger()
    assert window.lessons.active and window.lessons.lesson.name == lesson_names()[0]


def test_a_thumbnail_draws_each_class_in_its_colour():
    from PySide6.QtGui import QColor

    from simulator.app.preset_bar import thumbnail
    from simulator.ui import style

    image = thumbnail(load_preset("xor"), 40).toImage()
    colours = {image.pixelColor(x, y).name() for x in range(40) for y in range(40)}
    for colour in style.class_colours(2):
        assert QColor(colour).name() in colours


def test_at_800_by_600_the_hint_is_clear_of_the_legend_and_the_timeline_keeps_room(qtbot, window):
    from PySide6.QtCore import QPointF

    _at(qtbot, window, (800, 600))
    plot = window.plot
    assert plot.hint_visible
    hint = plot.hint_rect()
    legend = plot.legend_rect()
    assert legend is None or not legend.intersects(hint)
    view = plot.getPlotItem().vb.sceneBoundingRect()
    assert view.contains(hint), (view, hint)
    assert QPointF(hint.center()) != QPointF(0, 0)
    assert window.time.timeline.slider.width() >= 60


# -- case 9: nothing on the stage jumps ------------------------------------------------------


@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_first_step_does_not_reflow_the_legend(qtbot, window, name, presentation):
    """The legend keeps its size and place through the first trial: the strip under the plot
    has the first trial's room from the start, the y axis keeps its width as the ticks
    change, and Follow moving the view does not re-choose the legend's layout."""
    window.presentation_action.setChecked(presentation)
    _at(qtbot, window, (1024, 768))
    window.load_preset(name)
    _at(qtbot, window, (1024, 768))
    before = window.plot.legend_rect(), window.plot.legend_texts()
    plot_before = window.plot.getPlotItem().vb.sceneBoundingRect()
    window.controller.step()
    _at(qtbot, window, (1024, 768))
    assert (window.plot.legend_rect(), window.plot.legend_texts()) == before
    if window.controller.dataset.dimension == 2:
        assert window.plot.getPlotItem().vb.sceneBoundingRect() == plot_before


def _button_places(window):
    from PySide6.QtCore import QPoint, QRect

    return [
        QRect(button.mapTo(window, QPoint(0, 0)), button.size())
        for button in (window.controls.step_button, window.controls.run_button)
    ]


@pytest.mark.parametrize("presentation", [False, True])
def test_the_status_length_does_not_move_step_and_run(qtbot, window, presentation):
    window.presentation_action.setChecked(presentation)
    window.load_preset("or")
    _at(qtbot, window, (1024, 768))
    window.statusBar().showMessage("Saved.")
    _at(qtbot, window, (1024, 768))
    short = _button_places(window)
    window.statusBar().showMessage(("A status that goes on and on. " * 10)[:299] + "!")
    _at(qtbot, window, (1024, 768))
    assert len(window.statusBar().currentMessage()) == 300
    assert _button_places(window) == short


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
def test_the_side_panel_is_as_wide_after_presentation_as_before(qtbot, window, size):
    window.load_preset("xor")
    _at(qtbot, window, size)
    side = window.splitter.widget(1)
    before = side.width(), window.splitter.sizes()
    window.presentation_action.setChecked(True)
    _at(qtbot, window, size)
    window.controller.simulation.run(100)  # a cycle: the panel's longest status, in F5's type
    window.controller.step()
    _at(qtbot, window, size)
    window.presentation_action.setChecked(False)
    _at(qtbot, window, size)
    assert (side.width(), window.splitter.sizes()) == before


def _whole(label) -> bool:
    """The label shows its text whole: every line within its width (and, wrapped, every
    line within its height); never an ellipsis Qt put there."""
    from PySide6.QtCore import QRect, Qt

    metrics = label.fontMetrics()
    room = label.contentsRect()
    if label.wordWrap():
        lines = label.text().split("\n")
        words = [w for line in lines for w in line.split()]
        if any(metrics.horizontalAdvance(w) > room.width() for w in words):
            return False
        flags = int(Qt.TextFlag.TextWordWrap)
        need = metrics.boundingRect(QRect(0, 0, room.width(), 10**6), flags, label.text())
        return need.height() <= room.height()
    return metrics.horizontalAdvance(label.text()) <= room.width() and not label.text().endswith(
        "…"
    )


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_no_value_of_the_band_or_the_strip_is_elided_at_1024_by_768(qtbot, window, name):
    from dataclasses import replace

    from PySide6.QtWidgets import QLabel

    window.presentation_action.setChecked(True)
    _at(qtbot, window, (1024, 768))
    window.load_preset(name)
    for _ in range(8):
        window.controller.step()
    _at(qtbot, window, (1024, 768))
    frame = window.controller.frame
    n = len(frame.snapshot.weights)
    diverged = replace(  # a long run that diverged: w's entries at their longest
        frame.snapshot,
        trials=1_234_567,
        mistakes=12_345,
        epoch=12_345,
        weights=tuple(-1.23457e148 * (-1) ** k for k in range(n)),
    )
    frames = [frame, replace(frame, snapshot=diverged)]
    for frame in frames:
        window.band.show_frame(frame)
        _at(qtbot, window, (1024, 768))
        labels = [window.settings_strip, *window.band.findChildren(QLabel)]
        for label in labels:
            assert label.isVisible() or (label is window.band.status and not label.text())
            if label.isVisible():
                assert _whole(label), (label.objectName(), label.text(), label.width())
        assert window.band.rect().contains(window.band.values["weights"].geometry())
        assert _on_screen(window, window.band.values["weights"])
        tip = window.band.values["weights"].toolTip()  # every entry, at least there
        assert tip.count(",") + tip.count("|") + 1 == len(frame.snapshot.weights)
    assert "\n" not in window.settings_strip.text() or name.endswith("disjunction")


def _labels_apart(axis) -> bool:
    """The axis' tick labels, as it draws them: none touches another, none past its ends."""
    from PySide6.QtGui import QPainter, QPicture

    picture = QPicture()
    painter = QPainter(picture)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    if specs is None:
        return True
    rects = [rect for rect, _, _ in specs[2]]
    vertical = axis.orientation in ("left", "right")
    length = axis.size().height() if vertical else axis.size().width()
    for k, rect in enumerate(rects):
        low, high = (rect.top(), rect.bottom()) if vertical else (rect.left(), rect.right())
        if low < -1 or high > length + 1:
            return False
        if any(rect.intersects(other) for other in rects[k + 1 :]):
            return False
    return True


@pytest.mark.parametrize("name", ["cmu", "disjunction", "blobs3", "iris3"])
def test_with_the_charts_open_at_1024_the_plot_and_the_charts_both_keep_room(qtbot, window, name):
    from simulator.app.main_window import CHARTS_MIN_PX, PLOT_MIN_PX

    window.presentation_action.setChecked(True)
    _at(qtbot, window, (1024, 768))
    window.load_preset(name)
    for _ in range(8):
        window.controller.step()
    window.time.area_action.setChecked(True)
    _at(qtbot, window, (1024, 768))
    view = window.views.currentWidget()
    data = window.plot if view.isAncestorOf(window.plot) else window.high_dim.charts
    assert data.height() >= PLOT_MIN_PX
    assert window.time.tabs.height() >= CHARTS_MIN_PX
    for button in (window.controls.step_button, window.controls.run_button):
        assert _on_screen(window, button), button.objectName()
    charts = [*window.time.charts]
    if view is not window.views.widget(0):
        charts += [window.high_dim.bars, window.high_dim.mistakes_chart]
    for index in range(3):
        window.time.tabs.setCurrentIndex(index)
        _at(qtbot, window, (1024, 768))
        for chart in charts:
            if not chart.isVisible():
                continue
            item = chart.getPlotItem()
            for side in ("left", "bottom"):
                assert _labels_apart(item.getAxis(side)), (chart.objectName(), side)
    note = window.time.proof_chart.note  # "Winnow makes no such promise": whole, or not drawn
    box = window.time.proof_chart.view_box.boundingRect()
    assert not note.isVisible() or note.boundingRect().height() <= box.height()
    window.time.area_action.setChecked(False)
    _at(qtbot, window, (1024, 768))
    assert window.explanation.isVisible() or view is not window.views.widget(0)


@pytest.mark.parametrize("name", ["moons", "cmu"])
def test_on_a_tall_screen_the_charts_leave_the_plot_the_larger_part(qtbot, window, name):
    """At 1920 × 1080 with the charts open, the plot (the thing the class watches) is
    taller than the charts, and the trial's explanation still shows."""
    window.presentation_action.setChecked(True)
    window.load_preset(name)
    window.controller.step()
    window.time.area_action.setChecked(True)
    _at(qtbot, window, (1920, 1080))
    assert window.plot.height() > window.time.tabs.height() >= 200
    assert window.explanation.isVisible()
