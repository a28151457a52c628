"""Data with d ≠ 2 coordinates open in the window's high-dimensional view and run as usual."""

import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFontInfo

from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.lab import disjunction_stream, hidden_disjunction
from simulator.engine.numbers import format_number
from simulator.ui import MainWindow, style
from tests.helpers.driven import deliver_posted_events, finish


def twenty_coordinates(tmp_path):
    rng = np.random.default_rng(4)
    points = rng.normal(size=(40, 20))
    labels = np.where(points @ rng.normal(size=20) + 0.2 > 0, 1, -1)
    path = tmp_path / "twenty.csv"
    path.write_text(Dataset(points, labels).to_csv())
    return path, Dataset(points, labels)


def bar_heights(bars):
    """(x, height) of every bar item in the weights chart, sorted by x."""
    pairs = []
    for item in bars.getPlotItem().items:
        opts = getattr(item, "opts", {})
        if "height" in opts and item.isVisible() and opts["x"] is not None:
            xs, heights = np.asarray(opts["x"]).tolist(), np.asarray(opts["height"]).tolist()
            pairs += zip(xs, heights, strict=True)
    return sorted(pairs)


def test_a_20_coordinate_csv_opens_and_steps(qtbot, window, tmp_path, dialogs):
    path, data = twenty_coordinates(tmp_path)
    assert window.open_file(path)
    assert dialogs.shown == []  # no error dialog
    assert window.views.currentWidget() is window.high_dim
    assert not window.plot.isVisible() and window.high_dim.isVisible()
    note = window.high_dim.note.text()
    assert "plane shows 2-D data" in note and "20 coordinates" in note
    assert not window.export_action.isEnabled()  # frames are drawn on the plane
    for _ in range(3):
        qtbot.mouseClick(window.controls.step_button, Qt.MouseButton.LeftButton)
    qtbot.keyClick(window, Qt.Key.Key_Space)
    reference = Simulation(data)
    trials = [reference.step() for _ in range(4)]
    c = window.controller
    assert c.simulation.trials == 4 and window.theory.trial.text() == "4"
    assert window.theory.mistakes.text() == str(reference.mistakes)
    # Bars: the bias then x1…x20, as the engine's weights (linear: they can be negative).
    heights = bar_heights(window.high_dim.bars)
    assert [x for x, _ in heights] == list(range(21))
    assert np.allclose([h for _, h in heights], reference.weights)
    assert not window.high_dim.log_scale
    x, k = window.high_dim.k_curve.getData()  # k against the trial: a staircase
    assert (x[-1], k[-1]) == (4, reference.mistakes)
    assert [x[i] for i in range(1, len(k)) if k[i] > k[i - 1]] == [
        t.number for t in trials if t.mistake
    ]
    assert f"Trial 4 (epoch 1): point #{trials[-1].index + 1}" in window.high_dim.explanation.text()
    # The theory panel gives γ*, R and the bound in feature space, as for 2-D data.
    report = reference.margin_report()
    assert window.theory.gamma.text() == format_number(report.gamma)
    assert window.theory.radius.text() == format_number(report.radius)
    assert window.theory.bound.text() == format_number(report.bound)
    assert "… (21 in all)" in window.theory.weights.text()


def test_running_and_rewinding_in_the_high_dimensional_view(qtbot, window, tmp_path):
    path, _ = twenty_coordinates(tmp_path)
    window.open_file(path)
    c = window.controller
    c.run()
    finish(c)
    assert c.simulation.converged
    x, k = window.high_dim.k_curve.getData()
    assert (x[-1], k[-1]) == (c.simulation.trials, c.simulation.mistakes)
    steps = [x[i] for i in range(1, len(k)) if k[i] > k[i - 1]]
    assert steps == c.simulation.mistake_trials().tolist()  # every mistake, not every frame
    c.seek(3)
    x, k = window.high_dim.k_curve.getData()
    assert x[-1] == 3 and k[-1] == sum(1 for t in steps if t <= 3)  # a rewind redraws it


def test_the_presets_of_the_notes_are_in_the_menu(window):
    titles = {
        name: window.findChild(type(window.new_action), f"preset_{name}").text()
        for name in ("disjunction", "unl-disjunction")
    }
    assert "OR of 3 of 64 variables" in titles["disjunction"]
    assert "x5 ∨ x9 ∨ x12" in titles["unl-disjunction"]


def test_winnow_on_the_15_859_preset_shows_its_or_and_the_notes_bound(qtbot, window):
    c = window.controller
    c.set_settings(Settings(algorithm="winnow", bias=False))
    window.findChild(type(window.new_action), "preset_disjunction").trigger()
    assert window.views.currentWidget() is window.high_dim
    view = window.high_dim
    variables = hidden_disjunction(64, 3, 0)
    assert ", ".join(f"x{v}" for v in variables) in view.note.text()
    c.run()
    finish(c)
    sim = Simulation(load_preset("disjunction"), "winnow", bias=False)
    sim.run(10**6)
    assert c.simulation.converged and c.simulation.mistakes == sim.mistakes
    # Winnow's weights are powers of two: the bars are log₂ w, the OR's variables in blue.
    assert view.log_scale
    heights = dict(bar_heights(view.bars))
    assert sorted(heights) == list(range(1, 65))
    assert [heights[v] for v in variables] == [math.log2(sim.weights[v - 1]) for v in variables]
    assert view.threshold_line.isVisible() and view.threshold_line.value() == 6.0  # θ = 64
    assert view.bound_line.isVisible() and view.bound_line.value() == 65.0  # 2 + 9·(1 + 6)
    # Beside the perceptron's R²/γ*², Winnow's bound says whose it is.
    assert window.theory.gauge.text() == f"{sim.mistakes} of at most 65 (Winnow's bound)"
    assert window.theory.bound_label.text() == "Perceptron's bound R²/γ*²"


def test_back_to_two_dimensions_shows_the_plane_again(window):
    window.controller.set_dataset(disjunction_stream(12, 2, 30, seed=1))
    assert window.views.currentWidget() is window.high_dim
    window.load_preset("or")
    assert window.views.currentWidget() is window.plot.parentWidget()
    assert window.plot.isVisible() and window.export_action.isEnabled()
    window.controller.undo_stack.undo()  # undo brings the high-dimensional data back
    assert window.views.currentWidget() is window.high_dim


def test_one_coordinate_data_use_the_same_view(window):
    window.controller.set_dataset(Dataset([[0.0], [1.0], [3.0]], [-1, 1, 1]))
    window.controller.step()
    assert window.views.currentWidget() is window.high_dim
    assert [x for x, _ in bar_heights(window.high_dim.bars)] == [0, 1]


def test_a_window_can_start_on_high_dimensional_data(qtbot):
    stream = disjunction_stream(64, 3, 100, seed=2)
    window = MainWindow(stream, Settings(algorithm="winnow", bias=False))
    qtbot.addWidget(window)
    window.show()
    assert window.views.currentWidget() is window.high_dim
    variables = ", ".join(f"x{v}" for v in hidden_disjunction(64, 3, 2))
    assert variables in window.high_dim.note.text()


def test_a_high_dimensional_session_saves_and_reopens_at_its_trial(qtbot, window, tmp_path):
    stream = disjunction_stream(30, 2, 80, seed=5)
    c = window.controller
    c.set_settings(Settings(algorithm="winnow", bias=False))
    c.set_dataset(stream)
    for _ in range(9):
        c.step()
    weights = c.simulation.weights
    path = tmp_path / "winnow.lab.json"
    assert window.save_session(path)
    c.set_dataset(disjunction_stream(12, 1, 10, seed=1))
    assert window.open_session(path)
    assert window.views.currentWidget() is window.high_dim
    assert c.dataset == stream and c.simulation.trials == 9
    assert np.array_equal(c.simulation.weights, weights)  # replayed bit for bit


def test_the_timeline_goes_with_the_high_dimensional_view(qtbot, window):
    from PySide6.QtWidgets import QSlider

    window.controller.set_dataset(disjunction_stream(12, 2, 30, seed=1))
    slider = window.findChild(QSlider, "timelineSlider")
    assert window.high_dim.isAncestorOf(slider) and slider.isVisible()
    for _ in range(5):
        window.controller.step()
    assert slider.maximum() == 5 and slider.value() == 5
    slider.setValue(2)  # the timeline seeks here as under the plane, when its timer fires
    window.time.timeline.throttle.timer.timeout.emit()
    assert window.controller.simulation.trials == 2
    x, _ = window.high_dim.k_curve.getData()
    assert x[-1] == 2
    window.load_preset("or")
    assert window.plot.parentWidget().isAncestorOf(slider) and slider.isVisible()


def test_presentation_mode_enlarges_the_high_dimensional_view(qtbot, window):
    from PySide6.QtGui import QFontInfo

    from simulator.ui import style

    window.controller.set_dataset(disjunction_stream(12, 2, 30, seed=1))
    window.controller.step()
    view = window.high_dim
    assert QFontInfo(view.explanation.font()).pixelSize() < style.PRESENTATION_LABEL_PX
    window.presentation_action.setChecked(True)
    assert QFontInfo(view.explanation.font()).pixelSize() >= style.PRESENTATION_LABEL_PX
    for chart in (view.bars, view.mistakes_chart):
        for side in ("left", "bottom"):
            tick = chart.getPlotItem().getAxis(side).style["tickFont"]
            assert tick is not None and QFontInfo(tick).pixelSize() >= 18
    axis = view.bars.getPlotItem().getAxis("left")
    assert axis.labelStyle.get("font-size") == f"{style.PRESENTATION_AXIS_LABEL_PX}px"
    window.presentation_action.setChecked(False)
    assert QFontInfo(view.explanation.font()).pixelSize() < style.PRESENTATION_LABEL_PX


def test_least_squares_of_many_features_is_abbreviated_like_w(window):
    window.controller.set_settings(Settings(algorithm="adaline"))
    window.controller.set_dataset(disjunction_stream(40, 2, 60, seed=1))
    text = window.theory.least_squares.text()
    assert text.startswith("Least squares: w_LS = (") and "… (41 in all)" in text
    assert len(text) < 300


def _high_dim_window(qtbot, settings, presentation, charts):
    """The disjunction preset (64 coordinates, an OR of 3) at 1024×768, 40 trials on."""
    window = MainWindow(load_preset("disjunction"), settings)
    qtbot.addWidget(window)
    window.show()
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.size().width() == 1024)
    window.presentation_action.setChecked(presentation)
    window.time.area_action.setChecked(charts)
    window.controller.simulation.run(39)
    window.controller.step()
    deliver_posted_events()
    return window


def _whole(label):
    """A word-wrapped QLabel shows all its text (no line cut off below)."""
    return label.heightForWidth(label.width()) <= label.height()


@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_the_bars_key_is_in_the_header_whole_and_over_no_bar(qtbot, presentation, bias):
    """The tester's cases: the in-chart legend was cut off at the left in presentation
    mode and covered variable 3's bar in normal mode. The key is now in the header."""
    settings = Settings(algorithm="winnow", bias=bias)
    window = _high_dim_window(qtbot, settings, presentation, charts=True)
    view = window.high_dim
    assert window.views.currentWidget() is view
    note = view.note.text()
    variables = ", ".join(f"x{v}" for v in window.controller.frame.relevant)
    assert f"the data's OR ({variables})" in note and "other variables" in note
    assert ("■</span>&nbsp;bias" in note) == bias  # the bias bar is named "bias" too
    assert _whole(view.note)
    assert view.note.geometry().bottom() < view.bars.mapTo(view, QPoint(0, 0)).y()
    # Nothing but θ's label is drawn over the bars, and that inside the chart.
    plot = view.bars.getPlotItem()
    assert plot.legend is None
    area = plot.vb.sceneBoundingRect()
    for item in plot.vb.addedItems:
        if hasattr(item, "textItem") and item.isVisible():
            assert area.contains(item.sceneBoundingRect()), item.toPlainText()


def test_the_header_has_presentation_type_and_the_bars_keep_their_room(qtbot):
    window = _high_dim_window(qtbot, Settings(algorithm="winnow", bias=False), False, True)
    view = window.high_dim
    normal = QFontInfo(view.note.font()).pixelSize()
    window.presentation_action.setChecked(True)
    deliver_posted_events()
    assert QFontInfo(view.note.font()).pixelSize() == style.PRESENTATION_NOTE_PX > normal
    assert "64 coordinates" in view.note.text() and _whole(view.note)
    # At 1024×768 with the charts shown, the bars stay on screen, with room to read.
    bars = view.bars.getPlotItem().vb
    top_left = view.bars.mapTo(window, QPoint(0, 0))
    assert window.rect().contains(QRect(top_left, view.bars.size()))
    assert bars.height() >= 60
    window.presentation_action.setChecked(False)
    assert QFontInfo(view.note.font()).pixelSize() == normal
    assert "plane shows 2-D data" in view.note.text()
