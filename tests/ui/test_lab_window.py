"""Tools → Winnow vs Perceptron lab: it runs off the GUI thread, cancels, and draws."""

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

from simulator.app.lab_window import LabWindow
from simulator.engine.lab import (
    LabPlan,
    disjunction_stream,
    hidden_disjunction,
    race,
    run_lab,
)
from simulator.ui.lab_charts import CumulativeChart, ScalingChart, WeightsChart

WAIT_MS = 120_000  # a generous ceiling for a loaded machine; the tests never sleep


@pytest.fixture
def lab(qtbot, window):
    window.lab_action.trigger()
    found = window.findChild(LabWindow, "labWindow")
    qtbot.waitExposed(found)
    yield found
    found.close()


def finish(qtbot, lab):
    """Wait (event loop running) until the lab has taken its worker's `finished` signal.

    Not `waitSignal(worker.finished)` entered now: a small plan's thread may already have
    emitted it. `running` turns False only in the slot that signal reaches."""
    assert lab.worker is not None
    qtbot.waitUntil(lambda: not lab.running, timeout=WAIT_MS)


def test_the_tools_menu_opens_one_lab_window(qtbot, window, lab):
    tools = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Tools")
    assert window.lab_action in tools.actions() and window.lab_action.objectName() == "labAction"
    assert lab.isVisible() and lab.windowTitle() == "Winnow vs Perceptron lab"
    window.lab_action.trigger()  # asked again: the same window, raised
    assert window.findChildren(LabWindow) == [lab]


def test_the_lab_runs_and_draws_what_the_engine_computes(qtbot, lab):
    lab.sizes.setText("8, 16, 40")
    lab.relevant.setValue(2)
    lab.examples.setValue(150)
    lab.seed.setValue(3)
    qtbot.mouseClick(lab.run_button, Qt.MouseButton.LeftButton)
    assert lab.running and not lab.run_button.isEnabled() and lab.cancel_button.isEnabled()
    finish(qtbot, lab)
    assert lab.run_button.isEnabled() and not lab.cancel_button.isEnabled()
    assert lab.progress.value() == lab.progress.maximum()
    expected = {  # run until converged, the lab's default
        n: race(
            disjunction_stream(n, 2, 150, 3),
            variables=hidden_disjunction(n, 2, 3),
            until_converged=True,
        )
        for n in (8, 16, 40)
    }
    # Mistakes against n: one line per rule through the engine's counts (n on a log axis,
    # the mistakes on a linear one).
    for index, rule in enumerate(("perceptron", "winnow", "balanced-winnow")):
        x, y = lab.scaling.curves[rule].getData()
        assert np.allclose(10**x, [8, 16, 40])
        assert np.allclose(y, [expected[n][index].mistakes for n in (8, 16, 40)])
    x, y = lab.scaling.bounds["winnow"].getData()
    assert np.allclose(y, [2 + 6 * (1 + math.log2(n)) for n in (8, 16, 40)])
    assert "balanced-winnow" not in lab.scaling.bounds  # no bound applies to it
    # The lower charts show the largest n: cumulative k ends at each rule's count.
    assert lab.size_choice.currentData() == 40
    for result in expected[40]:
        x, y = lab.cumulative.curves[result.rule].getData()
        assert y[-1] == result.mistakes and x[-1] == result.trials
    # Weights: one line per relevant variable; Winnow's on a log axis, θ = n drawn.
    assert lab.rule_choice.currentData() == min(expected[40], key=lambda r: r.mistakes).rule
    lab.rule_choice.setCurrentIndex(lab.rule_choice.findData("winnow"))
    assert len(lab.weights.relevant_curves) == 2 and lab.weights.log_scale
    assert lab.weights.threshold_line.value() == pytest.approx(math.log2(40))
    assert "fewer mistakes" in lab.summary.text()


def test_choosing_another_n_redraws_the_lower_charts(qtbot, lab):
    lab.sizes.setText("8, 16")
    lab.examples.setValue(60)
    assert lab.start()
    finish(qtbot, lab)
    lab.size_choice.setCurrentIndex(lab.size_choice.findData(8))
    lab.size_choice.activated.emit(lab.size_choice.currentIndex())
    assert "n = 8" in lab.cumulative.getPlotItem().titleLabel.text
    lab.rule_choice.setCurrentIndex(lab.rule_choice.findData("perceptron"))
    assert not lab.weights.log_scale  # the perceptron's weights can be negative or 0
    assert lab.weights.threshold_line is None


def test_cancel_stops_the_run_and_keeps_the_window_usable(qtbot, lab):
    lab.sizes.setText("2048, 4096")
    lab.examples.setValue(4000)
    assert lab.start()
    worker = lab.worker
    with qtbot.waitSignal(worker.cancelled, timeout=WAIT_MS):
        qtbot.mouseClick(lab.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not lab.running, timeout=WAIT_MS)
    assert "Cancelled" in lab.status.text() and lab.run_button.isEnabled()
    assert lab.result is None


def test_a_bad_plan_is_refused_with_one_line_and_nothing_runs(qtbot, lab):
    lab.sizes.setText("8, many")
    assert not lab.start() and not lab.running
    assert "'many' is not" in lab.status.text()
    lab.sizes.setText("1")
    lab.relevant.setValue(3)
    assert not lab.start() and "need n ≥ r" in lab.status.text()


def test_closing_the_lab_mid_run_stops_its_thread(qtbot, lab):
    lab.sizes.setText("4096")
    lab.examples.setValue(4000)
    assert lab.start()
    worker = lab.worker
    lab.close()
    assert worker.isFinished()


def test_the_charts_paint_engine_records(qtbot):
    result = run_lab(LabPlan(sizes=(8, 64), relevant=1, examples=120, seed=2, trace=True))
    scaling, cumulative, weights = ScalingChart(), CumulativeChart(), WeightsChart()
    for chart in (scaling, cumulative, weights):
        qtbot.addWidget(chart)
    scaling.show_races(result.races[::-1])  # any order of n
    x, y = scaling.curves["winnow"].getData()
    assert np.allclose(10**x, [8, 64])
    assert np.allclose(y, [race.result("winnow").mistakes for race in result.races])
    cumulative.show_race(result.races[1])
    winnow = result.races[1].result("winnow")
    x, y = cumulative.curves["winnow"].getData()
    steps = [x[i] for i in range(1, len(y)) if y[i] > y[i - 1]]
    assert steps == list(winnow.mistake_trials)  # k rises by one at each mistake trial
    assert cumulative.bound_lines["winnow"].value() == pytest.approx(winnow.bound)
    weights.show_result(winnow)
    (curve,) = weights.relevant_curves
    _, y = curve.getData()
    assert sorted(set(np.round(2**y, 9))) == sorted(set(winnow.trace.relevant[0]))
    weights.show_result(None)
    assert weights.relevant_curves == []


def test_the_lab_follows_presentation_mode(qtbot, window, lab):
    from PySide6.QtGui import QFontInfo

    from simulator.ui import style

    def text_px():
        return min(QFontInfo(w.font()).pixelSize() for w in (lab.summary, lab.status))

    def tick_px(chart):
        return QFontInfo(chart.getPlotItem().getAxis("bottom").style["tickFont"]).pixelSize()

    charts = (lab.scaling, lab.cumulative, lab.weights)
    assert text_px() < style.PRESENTATION_LABEL_PX and all(tick_px(c) < 18 for c in charts)
    window.presentation_action.setChecked(True)  # the main window's F5 reaches the lab
    assert lab.presentation
    assert text_px() >= style.PRESENTATION_LABEL_PX and all(tick_px(c) >= 18 for c in charts)
    assert lab.screen().availableGeometry().contains(lab.frameGeometry().topLeft())
    window.presentation_action.setChecked(False)
    assert text_px() < style.PRESENTATION_LABEL_PX and tick_px(lab.scaling) < 18
    lab.close()
    window.presentation_action.setChecked(True)
    window.lab_action.trigger()  # opened in presentation mode: already large
    assert lab.presentation and text_px() >= style.PRESENTATION_LABEL_PX
