"""The stage (issue 20): the secondary views at lecture size, in true words.

- The ledger: ≥ 20 px type in presentation mode; the verdict, Δw and w in sight at 1024 px
  wide; the proof caption's conclusion without scrolling; the charts' keys readable and
  over no curve; dense mistake ticks merged on the timeline (case 5).
- Words that are true (case 7): one formatter, true minus signs, the same digits in the
  panel, the strip and the ledger; each bound says whose it is.
- Adaline's stop says what stopped it; the high-dimensional view never speaks of the
  plane; axis multipliers are applied once (case 7).
- The high-dimensional view names its bars by column (case 8).
- The theory box keeps no blank rows (case 9).
- The Winnow lab runs until converged, mistakes on a linear axis first, legends beside
  the data, the n field whole (case 10).
"""

import math
import re
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QFontInfo, QFontMetrics, QTextCursor, QTextDocument

from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.lab import LabPlan, run_lab
from simulator.engine.numbers import format_number, format_tick, format_vector, parse_number
from simulator.presentation.frame import build_frame
from simulator.ui import MainWindow, style
from tests.helpers.driven import deliver_posted_events, sized


def stage_window(qtbot, preset, settings=None, *, trials=0, size=(1024, 768), presentation=True):
    """A window as a teacher has it on a projector: `preset` run `trials` trials."""
    win = MainWindow(load_preset(preset), settings or Settings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.presentation_action.setChecked(presentation)
    sized(win, size)
    if trials:
        win.controller.simulation.run(trials - 1, until_converged=False)
        win.controller.step()
    qtbot.waitUntil(lambda: win.size().width() == size[0])
    deliver_posted_events()
    return win


def close(win):
    win.controller.pause()
    win.controller.undo_stack.setClean()


# -- case 5: the ledger ------------------------------------------------------------------------


def show_ledger(win):
    win.time.area_action.setChecked(True)
    win.time.tabs.setCurrentWidget(win.time.ledger)
    deliver_posted_events()
    return win.time.ledger.view


def column_in_sight(view, name):
    """The column is shown and lies whole inside the viewport (no scrolling to see it)."""
    from simulator.ui.ledger import COLUMNS

    column = COLUMNS.index(name)
    if view.isColumnHidden(column):
        return False
    left = view.columnViewportPosition(column)
    return left >= 0 and left + view.columnWidth(column) <= view.viewport().width()


def cell_fits(view, row, name):
    """The cell's text fits its column, on as many lines as the ledger's rows have."""
    from simulator.ui.ledger import COLUMNS

    column = COLUMNS.index(name)
    text = view.model().index(row, column).data()
    bold = view.font()
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    room = view.columnWidth(column) - 6
    if view.lines > 1:
        wrapped = metrics.boundingRect(QRect(0, 0, room, 10_000), 0x1000, text)  # word wrap
        return wrapped.height() <= view.lines * metrics.height() and all(
            metrics.horizontalAdvance(word) <= room for word in text.split(" ")
        )
    return metrics.horizontalAdvance(text) <= room


@pytest.mark.parametrize(
    ("preset", "settings", "trials"),
    [
        ("iris", Settings(), 60),
        ("or", Settings(), 8),
        ("noisy", Settings("adaline"), 65),
        ("cmu", Settings(bias=False), 5),
    ],
)
def test_the_ledger_is_lecture_sized_and_shows_verdict_dw_and_w_at_1024(
    qtbot, preset, settings, trials
):
    win = stage_window(qtbot, preset, settings, trials=trials)
    view = show_ledger(win)
    assert QFontInfo(view.font()).pixelSize() >= 20
    assert QFontInfo(view.horizontalHeader().font()).pixelSize() >= 20
    current = view.model().row_of(trials)
    for name in ("trial", "verdict", "Δw", "w"):
        assert column_in_sight(view, name), (name, view.hidden_columns)
        for row in range(max(0, current - 2), current + 1):
            assert cell_fits(view, row, name), (name, view.model().index(row, 0).data())
    close(win)


def test_the_ledger_shows_every_column_where_there_is_room(qtbot):
    win = stage_window(qtbot, "iris", trials=60, size=(1920, 1080))
    view = show_ledger(win)
    assert view.hidden_columns == ()
    assert view.lines == 1
    from simulator.ui.ledger import COLUMNS

    for name in COLUMNS:
        assert column_in_sight(view, name), name
        assert cell_fits(view, view.model().row_of(60), name), name
    close(win)


def test_the_current_row_is_bold_in_the_ledger_s_own_type(qtbot):
    win = stage_window(qtbot, "or", trials=3)
    view = show_ledger(win)
    font = view.model().index(view.model().row_of(3), 0).data(6)  # Qt.FontRole
    assert font.bold() and QFontInfo(font).pixelSize() >= style.PRESENTATION_TICK_PX
    win.presentation_action.setChecked(False)
    deliver_posted_events()
    font = view.model().index(view.model().row_of(3), 0).data(6)
    assert font.bold() and QFontInfo(font).pixelSize() < style.PRESENTATION_TICK_PX
    close(win)


# -- case 9: the theory box keeps no blank rows ----------------------------------------------


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
@pytest.mark.parametrize(
    ("preset", "settings", "trials"),
    [("iris", Settings(), 60), ("or", Settings(features="cubic"), 1), ("xor", Settings(), 0)],
)
def test_the_theory_box_keeps_no_blank_rows(qtbot, size, preset, settings, trials):
    # Normal mode only: in presentation the side panel gives way to the numbers band.
    win = stage_window(qtbot, preset, settings, trials=trials, size=size, presentation=False)
    theory = win.theory
    box = theory.theory_box
    shown = [w for w in box.findChildren(type(theory.gamma)) if w.isVisible()]
    assert theory.weights in shown
    for label in shown:  # each value as tall as its text, not as a text it might once have
        metrics = QFontMetrics(label.font())
        room = QRect(0, 0, label.contentsRect().width(), 10_000)
        text = metrics.boundingRect(room, 0x1000, label.text()).height()  # word-wrapped
        assert label.height() <= max(text, metrics.height()) + 4, (label.objectName(), text)
    # Nothing under the last row but the box's own margin.
    bottom = max(QRect(w.mapTo(box, QPoint(0, 0)), w.size()).bottom() for w in shown)
    assert box.contentsRect().bottom() - bottom <= 16
    close(win)


# -- case 7: words that are true -------------------------------------------------------------

HYPHEN_MINUS = re.compile(r"(?<![\w)])-(?=[\d.∞])")  # "-1.5" written with an ASCII hyphen


def test_the_one_formatter_writes_true_minus_signs_and_four_digits():
    assert format_number(-5.10517) == "−5.105"
    assert format_number(51387.4) == "51387"  # every digit before the point
    assert format_number(0.0389225) == "0.03892"
    assert format_number(65.2013) == "65.2"
    assert format_number(3e121) == "3e121" and format_number(-1.2e-7) == "−1.2e−7"
    assert format_number(-math.inf) == "−∞" and format_number(math.nan) == "—"
    assert format_vector((0.0, -1.9, 0.3)) == "0, −1.9, 0.3"
    for value in (-5.10517, 3e121, -1.2e-7, 0.0001234, 123456.7, -0.5):
        assert parse_number(format_number(value)) == pytest.approx(value, rel=5e-4)
    assert format_tick(3e121, 1e121) == "3e121" and format_tick(-20.0, 10.0) == "−20"
    assert format_tick(0.30000000000000004, 0.1) == "0.3" and format_tick(1e-17, 0.5) == "0"


def test_panel_strip_and_ledger_write_the_same_numbers_with_true_minus_signs(qtbot):
    win = stage_window(qtbot, "noisy", Settings("adaline"), trials=65, presentation=False)
    view = show_ledger(win)
    weights = win.theory.weights.text()
    strip = win.explanation.text()
    ledger = view.model().index(view.model().row_of(65), 8).data()
    assert f"= ({weights})." in strip  # the strip's w after the update
    assert ledger == f"({weights})"
    assert "−" in weights + strip + ledger
    row = [view.model().index(view.model().row_of(65), c).data() for c in range(9)]
    panel = [w.text() for w in win.theory.findChildren(type(win.theory.gamma)) if w.isVisible()]
    for text in (strip, *row, *panel):
        assert not HYPHEN_MINUS.search(text), text
    close(win)


def test_each_bound_says_whose_it_is(qtbot):
    win = stage_window(qtbot, "disjunction", Settings("winnow", bias=False), trials=120)
    theory = win.theory
    assert theory.bound_label.text() == "Perceptron's bound R²/γ*²"  # the data's R²/γ*²
    assert theory.gauge.text().endswith("of at most 65 (Winnow's bound)")
    win.controller.update_settings(algorithm="perceptron", bias=True)
    deliver_posted_events()
    assert theory.bound_label.text() == "Bound R²/γ*²"  # one bound: the perceptron's own
    assert "bound)" not in theory.gauge.text()
    close(win)


@pytest.mark.parametrize("mode", ["online", "batch"])
def test_adalines_stop_says_what_stopped_it(mode):
    sim = Simulation(load_preset("and"), "adaline", learning_rate=0.05, mode=mode)
    sim.run(10**6)
    assert sim.converged
    status = build_frame(sim).status
    assert "without an update" not in status  # it updates every trial (online) or epoch
    assert "no weight moved by more than the tolerance" in status
    every = "on every trial" if mode == "online" else "once an epoch"
    assert f"Adaline still updates {every}" in status
    assert ("on every trial" in status) == (mode == "online")


def test_the_high_dimensional_view_never_speaks_of_the_plane(qtbot):
    win = stage_window(qtbot, "disjunction", Settings(bias=False))  # w₀ = 0: no direction
    assert win.views.currentWidget() is win.high_dim
    frame = win.controller.frame
    assert frame.boundary_note is None
    assert "plane" not in win.theory.status.text()
    plane = Simulation(load_preset("or"))  # on the plane, w = 0 still says why
    assert "no direction in the plane" in build_frame(plane).boundary_note
    close(win)


def tick_texts(axis, size=400):
    """The tick labels an axis draws over its range, level by level."""
    low, high = axis.range
    levels = axis.tickValues(low, high, size)
    return [
        (values, axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing))
        for spacing, values in levels
    ]


def test_axis_multipliers_are_applied_once(qtbot):
    """Adaline with η = 1 on the 64-variable OR diverges to 1e148: the weight axis writes
    the weights themselves (3e148), no "(x1e+27)" beside ticks that read 3e+121."""
    win = stage_window(qtbot, "disjunction", Settings("adaline", learning_rate=1.0), trials=401)
    assert win.controller.frame.snapshot.diverged
    charts = [win.high_dim.bars, win.high_dim.mistakes_chart, *win.time.charts]
    for chart in charts:
        for side in ("left", "bottom"):
            axis = chart.getPlotItem().getAxis(side)
            assert "(x" not in axis.labelString(), (chart.objectName(), side)
    axis = win.high_dim.bars.getPlotItem().getAxis("left")
    assert max(abs(v) for v in axis.range) > 1e147
    for values, texts in tick_texts(axis):
        for value, text in zip(values, texts, strict=True):
            assert parse_number(text) == pytest.approx(value, rel=1e-3, abs=1e140), text
            assert not HYPHEN_MINUS.search(text) and "e+" not in text
    close(win)


# -- case 8: the high-dimensional view -------------------------------------------------------

NAMES = ("alcohol", "malic_acid", "ash", "magnesium", "phenols", "flavanoids", "hue", "proline")


@pytest.mark.parametrize("presentation", [False, True])
def test_the_bars_are_named_by_their_columns(qtbot, presentation):
    rng = np.random.default_rng(0)
    points = rng.normal(size=(40, len(NAMES)))
    labels = np.where(points @ rng.normal(size=len(NAMES)) > 0, 1, -1)
    win = MainWindow(Dataset(points, labels, names=NAMES), Settings())
    qtbot.addWidget(win)
    win.show()
    win.resize(1024, 768)
    win.presentation_action.setChecked(presentation)
    win.controller.step()
    deliver_posted_events()
    axis = win.high_dim.bars.getPlotItem().getAxis("bottom")
    assert axis.names == {0: "bias", **{j + 1: name for j, name in enumerate(NAMES)}}
    win.high_dim.bars.grab()  # draw, as the screen would
    assert axis.shown == list(range(len(NAMES) + 1))  # room for every name: each bar named
    drawn = [t for _, texts in tick_texts(axis, axis.width()) for t in texts]
    assert not any(t.isdigit() for t in drawn)  # no bar numbers
    close(win)


def test_many_bars_name_every_kth_and_always_the_ors_variables(qtbot):
    win = stage_window(qtbot, "disjunction", Settings("winnow", bias=False), trials=120)
    axis = win.high_dim.bars.getPlotItem().getAxis("bottom")
    win.high_dim.bars.grab()
    relevant = win.controller.frame.relevant
    assert set(relevant) <= set(axis.shown)  # x3, x10, x32: the OR's variables named
    assert 4 <= len(axis.shown) < 64
    assert axis.names[relevant[0]] == f"x{relevant[0]}"
    close(win)


# -- case 10: the Winnow lab -------------------------------------------------------------------


def test_the_lab_runs_until_converged_by_default():
    """One pass capped the perceptron at 749 mistakes at n = 2048 (1,427 converged)."""
    plan = LabPlan(sizes=(512,), relevant=2, examples=2000)
    assert plan.until_converged
    (race_,) = run_lab(plan).races
    perceptron = race_.result("perceptron")
    assert all(result.converged for result in race_.results)
    assert perceptron.mistakes == 624 and perceptron.trials == 12_000  # 6 passes
    one_pass = run_lab(replace(plan, until_converged=False)).races[0].result("perceptron")
    assert one_pass.mistakes == 495 < perceptron.mistakes  # cut short
    options = parse_lab("--n", "8", "--out", "x.csv")
    assert options.plan.until_converged
    assert not parse_lab("--n", "8", "--out", "x.csv", "--one-pass").plan.until_converged
    assert parse_lab("--n", "8", "--out", "x.csv", "--until-converged").plan.until_converged


def parse_lab(*args):
    from simulator.cli import parse

    return parse(["lab", *args]).lab


@pytest.fixture
def lab_window(qtbot):
    from simulator.app.lab_window import LabWindow

    lab = LabWindow()
    qtbot.addWidget(lab)
    lab.show()
    qtbot.waitExposed(lab)
    yield lab
    lab.close()


def run_default_lab(qtbot, lab, examples=300):
    lab.examples.setValue(examples)
    assert lab.until_converged.isChecked()  # the window's default too
    assert lab.start()
    qtbot.waitUntil(lambda: not lab.running, timeout=120_000)
    assert lab.plan().until_converged


def test_the_lab_draws_mistakes_on_a_linear_axis_first(qtbot, lab_window):
    lab = lab_window
    run_default_lab(qtbot, lab)
    left = lab.scaling.getPlotItem().getAxis("left")
    assert not left.logMode and not lab.scaling.log_y and not lab.log_scale.isChecked()
    race_ = lab.chosen_race()
    _, y = lab.scaling.curves["perceptron"].getData()
    assert y[-1] == race_.result("perceptron").mistakes  # the count itself, not its log
    lab.log_scale.setChecked(True)  # log–log on request
    assert left.logMode
    _, y = lab.scaling.curves["perceptron"].getData()
    assert y[-1] == pytest.approx(math.log10(race_.result("perceptron").mistakes))


@pytest.mark.parametrize("presentation", [False, True])
def test_at_1024_the_lab_legends_cover_no_point_and_the_n_field_is_whole(
    qtbot, lab_window, presentation
):
    lab = lab_window
    lab.set_presentation(presentation)
    lab.resize(1024, 740)
    qtbot.waitUntil(lambda: lab.width() == 1024)
    assert lab.sizes.text() == "8, 32, 128, 512, 2048"
    run_default_lab(qtbot, lab)
    deliver_posted_events()
    for chart in (lab.scaling, lab.cumulative, lab.weights):
        item = chart.getPlotItem()
        plot = item.vb.sceneBoundingRect()
        legend = chart.legend.sceneBoundingRect()
        assert chart.legend.items, chart.objectName()
        assert not legend.intersects(plot), chart.objectName()  # beside the data, not on it
        assert QRect(chart.mapTo(lab, QPoint(0, 0)), chart.size()).right() <= lab.width()
    # Every point of n = 8 … 2048 is inside the plot, none under a legend.
    for curve in lab.scaling.curves.values():
        for x, y in zip(*curve.getData(), strict=True):
            point = lab.scaling.getPlotItem().vb.mapViewToScene(QPointF(x, y))
            assert lab.scaling.getPlotItem().vb.sceneBoundingRect().contains(point)
    field = lab.sizes
    metrics = QFontMetrics(field.font())
    assert field.width() >= metrics.horizontalAdvance(field.text()) + 8  # not clipped
    assert QRect(field.mapTo(lab, QPoint(0, 0)), field.size()).right() <= lab.width()


# -- case 5: the proof caption, the charts' keys, the timeline ------------------------------


def phrase_bottom(label, phrase):
    """How far down `label` (rich text, word-wrapped) the line holding `phrase` ends."""
    doc = QTextDocument()
    doc.setDefaultFont(label.font())
    doc.setDocumentMargin(0)
    doc.setHtml(label.text())
    doc.setTextWidth(label.contentsRect().width())
    layout = doc.documentLayout()
    doc.size()  # laid out now
    cursor = doc.find(phrase)
    assert not cursor.isNull(), (phrase, doc.toPlainText())
    end = QTextCursor(doc)
    end.setPosition(cursor.selectionEnd())
    block = end.block()
    rect = layout.blockBoundingRect(block)
    lines = block.layout()
    line = lines.lineForTextPosition(end.position() - block.position())
    return label.contentsRect().top() + rect.top() + line.y() + line.height()


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize(
    ("preset", "settings", "trials", "conclusion"),
    [
        ("cmu", Settings(bias=False), 13, "so k ≤ R²/γ*² = 5."),
        ("ring", Settings("kernel-perceptron", kernel="rbf"), 30, "so k ≤ R²/γ*² = 53.07."),
    ],
)
def test_the_proof_caption_shows_its_conclusion_without_scrolling(
    qtbot, size, presentation, preset, settings, trials, conclusion
):
    """The whole argument, to its last line, in the kernel's longer names too."""
    win = stage_window(qtbot, preset, settings, trials=trials, size=size, presentation=presentation)
    win.time.area_action.setChecked(True)
    win.time.tabs.setCurrentIndex(0)
    deliver_posted_events()
    box = win.time.tabs.currentWidget()
    caption, scroll = box.caption, box.scroll
    assert scroll.verticalScrollBar().value() == 0
    assert phrase_bottom(caption, conclusion) <= scroll.viewport().height()
    if presentation:
        assert QFontInfo(caption.font()).pixelSize() >= style.PRESENTATION_TICK_PX
    close(win)


@pytest.mark.parametrize("presentation", [False, True])
def test_chart_keys_are_readable_and_cover_no_curve(qtbot, presentation):
    win = stage_window(qtbot, "cmu", Settings(bias=False), trials=13, presentation=presentation)
    win.time.area_action.setChecked(True)
    proof = ("k", "w·u*/ηγ*", "‖w‖²/η²R²", "√k·R/γ*")
    for index, names in ((0, proof), (1, ()), (2, ("w₁", "w₂"))):
        win.time.tabs.setCurrentIndex(index)
        deliver_posted_events()
        box = win.time.tabs.currentWidget()
        assert not box.chart.legend.isVisible()  # nothing written over the curves
        text = QTextDocument()
        text.setHtml(box.key.text())
        for name in names:
            assert name in text.toPlainText()
        assert box.key.isVisible() == bool(names)
        smallest = style.PRESENTATION_TICK_PX if presentation else 12
        assert QFontInfo(box.key.font()).pixelSize() >= smallest
    close(win)


def test_dense_mistake_ticks_are_merged_on_the_timeline(qtbot):
    """Iris: 1,518 mistakes in 105,150 trials were a solid black bar."""
    win = stage_window(qtbot, "iris", presentation=False)
    win.controller.simulation.run(10**6)
    win.controller.step()
    deliver_posted_events()
    assert win.controller.simulation.mistakes == 1518
    slider = win.time.timeline.slider
    counts, shades = slider.tick_columns(), slider.tick_shades()
    painted = shades[counts > 0]
    assert len(painted) > 0.8 * len(shades)  # mistakes all along the run...
    assert np.mean(painted >= 0.9) < 0.05  # ...as a light band, not a black bar
    assert painted.max() < 0.6
    close(win)


def test_sparse_mistake_ticks_stay_black_and_exact(qtbot):
    win = stage_window(qtbot, "or", trials=24, presentation=False)
    slider = win.time.timeline.slider
    counts, shades = slider.tick_columns(), slider.tick_shades()
    assert counts.sum() == win.controller.simulation.mistakes > 0
    assert np.all(shades[counts > 0] == 1.0) and np.all(shades[counts == 0] == 0.0)
    close(win)


@pytest.mark.parametrize(
    ("preset", "settings", "name"),
    [
        ("or", Settings(), "w"),
        ("ring", Settings("kernel-perceptron", kernel="rbf"), "Σαᵢyᵢxᵢ"),
        ("blobs3", Settings("multiclass-perceptron"), "W"),
    ],
)
def test_the_weights_are_named_for_what_they_are(qtbot, preset, settings, name):
    """The kernel perceptron's w = Σαᵢyᵢxᵢ does not score a point (f, the kernel sum,
    does): the band, the panel and the ledger call it that, not w (helper's review)."""
    win = stage_window(qtbot, preset, settings, trials=5)
    assert win.band.names["weights"].text() == name
    header = show_ledger(win).model().headerData
    assert (header(7, Qt.Orientation.Horizontal), header(8, Qt.Orientation.Horizontal)) == (
        f"Δ{name}",
        name,
    )
    win.presentation_action.setChecked(False)
    deliver_posted_events()
    assert win.theory.labels["weights"].text() == f"{name} ="
    close(win)
