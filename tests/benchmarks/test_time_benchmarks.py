"""Time travel numbers to hold: what the charts add to a frame at 10k points (≤ 2 ms),
scrubbing through 10⁶ trials of history with 10k points (seek + repaint ≤ 33 ms median),
and a ledger of 10⁶ rows opening (≤ 100 ms).

A frame is what one tick of a run costs: the engine advances 100 trials, the controller
builds a Frame, every view takes it, and the event loop paints what changed (pyqtgraph
repaints a chart from the event loop, so a synchronous repaint of one widget would miss
it). What the time views add is timed inside such frames: their `show_frame` and their
paint events; the rest of the frame is the peer. A scrub is a seek through the
timeline's signal and the event loop's painting; its peer is a running frame.
Times are CPU time of the window's thread (time.thread_time), so that a loaded machine
measures what the window spends, not what others do meanwhile.

Run with: python -m pytest tests/benchmarks/test_time_benchmarks.py -s
"""

import statistics
import time

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtWidgets import QApplication, QTableView

from simulator.engine.presets import noisy, separable
from simulator.ui import MainWindow
from simulator.ui.charts import Chart
from simulator.ui.ledger import LedgerView
from simulator.ui.time_views import TimeViews
from simulator.ui.timeline import TimelineSlider

N = 10_000
HISTORY = 1_000_000
TABS = {"proof": 0, "mistakes": 1, "loss": 2, "ledger": 3}


def make_window(qtbot, dataset):
    window = MainWindow(dataset)
    qtbot.addWidget(window)
    window.resize(1280, 900)
    window.show()
    qtbot.waitExposed(window)
    window.time.area_action.setChecked(True)
    return window


def running_frame(window):
    controller = window.controller

    def frame():
        controller.simulation.run(100, until_converged=False)
        controller._publish()
        QApplication.processEvents()

    return frame


class Stopwatch:
    """CPU time of this thread spent in the wrapped methods during one frame (CPU time, so
    that other processes on a loaded machine do not count)."""

    def __init__(self):
        self.spent = 0.0

    def wrap(self, method):
        def timed(*args, **kwargs):
            start = time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.spent += time.thread_time() - start

        return timed


@pytest.mark.parametrize(
    ("tab", "data"),
    [
        ("proof", separable(n=N, margin=0.01, seed=1)),
        ("mistakes", noisy(n=N, seed=1)),
        ("loss", noisy(n=N, seed=1)),
        ("ledger", noisy(n=N, seed=1)),
    ],
)
def test_charts_add_at_most_2_ms_to_a_frame_at_10k_points(qtbot, benchmark, monkeypatch, tab, data):
    """The time views' share of real frames: their show_frame and their paint events
    (timeline, the chart or ledger on show), timed inside the frame; the rest of the frame
    (engine, plot, panels, Qt) is the peer."""
    watch = Stopwatch()
    monkeypatch.setattr(TimeViews, "show_frame", watch.wrap(TimeViews.show_frame))
    monkeypatch.setattr(TimelineSlider, "paintEvent", watch.wrap(TimelineSlider.paintEvent))
    monkeypatch.setattr(Chart, "paintEvent", watch.wrap(pg.GraphicsView.paintEvent))
    monkeypatch.setattr(LedgerView, "paintEvent", watch.wrap(QTableView.paintEvent))
    window = make_window(qtbot, data)
    window.time.tabs.setCurrentIndex(TABS[tab])
    controller = window.controller
    controller.simulation.run(20_000, until_converged=False)  # a history to draw on
    controller._publish()
    QApplication.processEvents()
    controller.set_speed(1)  # no tick at once when the run starts
    controller.run()  # running, as far as the views know; the frames are driven here
    controller._timer.stop()
    frame = running_frame(window)
    ours, whole = [], []
    for _ in range(60):
        watch.spent = 0.0
        start = time.thread_time()
        frame()
        whole.append(time.thread_time() - start)
        ours.append(watch.spent)
    mine = statistics.median(ours[10:]) * 1e3
    mean = statistics.fmean(ours[10:]) * 1e3  # the ledger takes every 8th frame of a run
    theirs = statistics.median(np.subtract(whole, ours)[10:]) * 1e3
    benchmark.extra_info.update(
        time_views_median_ms=round(mine, 3),
        time_views_mean_ms=round(mean, 3),
        rest_of_frame_median_ms=round(theirs, 3),
    )
    benchmark.pedantic(lambda: None, rounds=1)
    print(
        f"\n  {tab}: the time views take {mine:.2f} ms of a frame (mean {mean:.2f} ms); "
        f"the rest of the frame {theirs:.2f} ms, ratio {mine / theirs:.2f}"
    )
    controller.pause()
    controller.undo_stack.setClean()
    assert mine <= 2.0  # medians, as DESIGN.md asks; the mean is reported beside it


@pytest.fixture
def long_history(qtbot):
    window = make_window(qtbot, noisy(n=N, seed=1))
    sim = window.controller.simulation
    sim.run(HISTORY, until_converged=False)
    window.controller._publish()
    QApplication.processEvents()
    assert sim.history_length == HISTORY
    yield window
    window.controller.undo_stack.setClean()


def cpu_median(function, rounds):
    """Median CPU time of this thread per call, in seconds (after a warm-up call): what the
    window spends, whatever else the machine runs."""
    function()
    spent = []
    for _ in range(rounds):
        start = time.thread_time()
        function()
        spent.append(time.thread_time() - start)
    return statistics.median(spent)


@pytest.mark.parametrize("tab", ["proof", "mistakes", "loss"])
def test_scrubbing_a_million_trials_takes_at_most_33_ms(qtbot, benchmark, long_history, tab):
    window = long_history
    window.time.tabs.setCurrentIndex(TABS[tab])
    timeline = window.time.timeline
    targets = iter(np.random.default_rng(0).integers(0, HISTORY, size=1000).tolist())
    QApplication.processEvents()

    def scrub():
        timeline.seek_requested.emit(next(targets))
        QApplication.processEvents()

    peer_window = make_window(qtbot, noisy(n=N, seed=1))
    cold = None
    if tab == "loss":
        # w after each mistake: the first scrubs also catch up on the history, in slices;
        # a chart that was open during the run has it already. Both are reported.
        cold = cpu_median(scrub, 41)
        window.controller.seek(HISTORY)
        window.controller.frame.trace.followed()  # the whole history, as after a run
    mine = cpu_median(scrub, 41)
    theirs = cpu_median(running_frame(peer_window), 41)
    benchmark.extra_info.update(
        scrub_ms=round(mine * 1e3, 3),
        running_frame_ms=round(theirs * 1e3, 3),
        **({"cold_scrub_ms": round(cold * 1e3, 3)} if cold is not None else {}),
    )
    benchmark.pedantic(lambda: None, rounds=1)
    print(f"\n  {tab}: a scrub costs {mine * 1e3:.1f} ms, {mine / theirs:.2f} running frames")
    if cold is not None:
        print(f"  (while the weights are still being replayed: {cold * 1e3:.1f} ms)")
    peer_window.controller.undo_stack.setClean()
    assert mine * 1e3 <= 33.0


def test_a_ledger_of_a_million_rows_opens_within_100_ms(qtbot, benchmark, long_history):
    window = long_history
    tabs, ledger = window.time.tabs, window.time.ledger
    targets = iter(np.random.default_rng(1).integers(0, HISTORY, size=1000).tolist())

    def open_ledger():
        tabs.setCurrentIndex(0)
        window.controller.seek(next(targets))  # somewhere new: nothing cached there
        QApplication.processEvents()
        start = time.thread_time()
        ledger.model.set_mistakes_only(True)
        ledger.model.set_mistakes_only(False)  # a fresh model over the 10⁶ rows
        tabs.setCurrentWidget(ledger)
        QApplication.processEvents()
        return time.thread_time() - start

    opened = [open_ledger() for _ in range(15)]
    mine = statistics.median(opened)
    peer_window = make_window(qtbot, noisy(n=N, seed=1))
    frame = running_frame(peer_window)
    theirs = cpu_median(frame, 15)
    assert ledger.model.rowCount() == HISTORY
    print(
        f"\n  the ledger of {HISTORY:,} rows opens in {mine * 1e3:.1f} ms "
        f"({mine / theirs:.2f} running frames)"
    )
    benchmark.extra_info.update(
        open_ms=round(mine * 1e3, 3), running_frame_ms=round(theirs * 1e3, 3)
    )
    benchmark.pedantic(lambda: None, rounds=1)
    peer_window.controller.undo_stack.setClean()
    assert mine * 1e3 <= 100.0
