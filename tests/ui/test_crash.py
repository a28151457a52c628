"""Never crash: failures are caught before they reach Qt, and the last resort shows one
dialog, keeps the points and writes a crash report."""

import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QSlider

from simulator.app.autosave import AUTOSAVE_NAME
from simulator.engine import Dataset, load_preset
from simulator.engine.session import load_session
from simulator.ui import controller as controller_module
from simulator.ui.safety import QUIET_SECONDS


@pytest.fixture
def last_resort(window):
    now = [0.0]
    handler = window.install_last_resort()
    handler.clock = lambda: now[0]
    handler.now = now
    yield handler
    handler.uninstall()


def _failing_frames(monkeypatch, when):
    """build_frame raises for the datasets `when` picks (as a theory bug would)."""
    real = controller_module.build_frame

    def build(sim):
        if when(sim.dataset):
            raise FloatingPointError("margin of a degenerate hull")
        return real(sim)

    monkeypatch.setattr(controller_module, "build_frame", build)


def test_a_point_whose_frame_fails_is_refused_and_the_rest_kept(qtbot, window, monkeypatch):
    c = window.controller
    c.add_point(0.0, 0.0, 1)
    c.add_point(1.0, 1.0, -1)
    before, count = c.dataset, c.undo_stack.count()
    _failing_frames(monkeypatch, lambda ds: len(ds) > 2)
    with qtbot.capture_exceptions() as raised, qtbot.waitSignal(c.problem) as told:
        c.add_point(2.0, 0.0, 1)  # returns: nothing escapes to the caller (or to Qt)
    assert [type(e[1]) for e in raised] == [FloatingPointError]  # reported once
    assert "nothing was changed" in told.args[0]
    assert c.dataset is before and c.undo_stack.count() == count
    assert window.plot.isVisible() and window.theory.trial.text() == "0"


def test_an_undo_that_fails_is_dropped_and_changes_nothing(qtbot, window, monkeypatch):
    c = window.controller
    c.add_point(0.0, 0.0, 1)
    c.add_point(1.0, 1.0, -1)
    c.add_point(2.0, 0.0, 1)
    _failing_frames(monkeypatch, lambda ds: len(ds) == 2)
    with qtbot.capture_exceptions() as raised:
        window.undo_action.trigger()  # called by Qt, as a key press would
    assert len(raised) == 1
    assert len(c.dataset) == 3 and c.undo_stack.count() == 2  # the failed step is gone
    window.undo_action.trigger()  # the steps before it still undo
    assert len(c.dataset) == 1


def test_tiny_coordinates_raise_nothing(qtbot, window):
    rng = np.random.default_rng(0)
    c = window.controller
    with qtbot.capture_exceptions() as raised:
        for _ in range(30):
            x, y = rng.normal(size=2) * 1e-8
            c.add_point(float(x), float(y), 1 if x + y > 0 else -1)
        c.run()
    assert len(c.dataset) == 30 and raised == []
    assert window.theory.gamma.text() not in ("", "—")


def test_one_dialog_for_a_burst_of_errors_and_a_report(
    qtbot, window, dialogs, last_resort, data_folder
):
    c = window.controller
    c.set_dataset(load_preset("noisy"))
    c.set_speed(1)
    c.run()
    # Only the last resort may write the autosave below: the run's trials may restart the
    # autosave timer until the storm stops the run, so it waits a day, not 2 s.
    window.autosaver.timer.stop()
    window.autosaver.timer.setInterval(24 * 3600 * 1000)
    errors = []

    def broken():
        errors.append(1)
        raise ZeroDivisionError("from a timer")

    storm = QTimer(window)
    storm.timeout.connect(broken)
    # The first error saves the points at once, on a worker: wait for that write to end.
    with qtbot.waitSignal(window.autosaver.written, timeout=10_000):
        for _ in range(150):
            storm.timeout.emit()  # as the event loop would, 150 times
    assert last_resort.errors == len(errors) == 150
    shown = [d for d in dialogs.shown if d[0] == "critical"]
    assert len(shown) == 1 and shown[0][1] == "Something went wrong"
    assert "ZeroDivisionError: from a timer" in shown[0][2] and "points are kept" in shown[0][2]
    assert not c.running  # a failing timer does not fail again and again
    assert c.dataset == load_preset("noisy")
    autosave = data_folder / AUTOSAVE_NAME  # the last resort saved the points
    assert load_session(autosave).dataset == load_preset("noisy")
    report = last_resort.report_path
    assert report is not None and report.parent == data_folder
    text = report.read_text()
    assert "Traceback" in text and "ZeroDivisionError: from a timer" in text
    assert "PySide6" in text and "NumPy" in text and "Python" in text
    assert text.count("Traceback") == 21  # the first, then 20 more: a storm adds little
    assert text.count("and another ZeroDivisionError") == 100
    assert "internal errors, the last ZeroDivisionError" in window.statusBar().currentMessage()
    # Later, once the quiet period is over, a new error gets a dialog and a report again.
    last_resort.now[0] += QUIET_SECONDS - 1
    late = QTimer(window)
    late.timeout.connect(lambda: c.simulation.run(-1))  # a ValueError from a timer
    late.timeout.emit()
    assert len([d for d in dialogs.shown if d[0] == "critical"]) == 1  # still quiet
    last_resort.now[0] += 2
    late.timeout.emit()
    assert len([d for d in dialogs.shown if d[0] == "critical"]) == 2
    assert last_resort.report_path != report


def test_an_error_in_the_run_pauses_with_one_dialog(qtbot, window, dialogs, last_resort):
    c = window.controller
    c.set_dataset(Dataset([[0.0, 1.0], [1.0, 0.0]], [1, -1]))
    c.step()

    def broken(*args, **kwargs):
        raise RuntimeError("engine bug")

    c.simulation.step = broken
    c.step()
    c.step()
    assert [d[0] for d in dialogs.shown] == ["critical"]
    assert c.simulation.trials == 1 and len(c.dataset) == 2


def test_a_reset_that_fails_keeps_the_run(qtbot, window, monkeypatch):
    c = window.controller
    c.set_dataset(load_preset("or"))
    for _ in range(3):
        c.step()
    weights = c.simulation.weights.copy()

    def broken(*args, **kwargs):
        raise MemoryError("no room for a new run")

    monkeypatch.setattr(controller_module.Simulation, "from_settings", broken)
    with qtbot.capture_exceptions() as raised, qtbot.waitSignal(c.problem) as told:
        window.reset_action.trigger()  # as Ctrl+R: called by Qt
    assert [type(e[1]) for e in raised] == [MemoryError]  # reported once, not raised
    assert told.args[0].startswith("Reset failed; the run stays as it was: MemoryError")
    assert c.simulation.trials == 3 and np.array_equal(c.simulation.weights, weights)
    assert window.theory.trial.text() == "3"


def test_a_seek_that_fails_leaves_the_learner_where_it_was(qtbot, window, monkeypatch):
    c = window.controller
    c.set_dataset(load_preset("or"))
    for _ in range(5):
        c.step()

    def broken(self, t):
        raise IndexError("history damaged")

    monkeypatch.setattr(controller_module.Simulation, "seek", broken)
    slider = window.findChild(QSlider, "timelineSlider")
    with qtbot.capture_exceptions() as raised, qtbot.waitSignal(c.problem) as told:
        c.seek(2)  # what the slider and the ledger ask for
    assert [type(e[1]) for e in raised] == [IndexError]
    assert "Cannot go to trial 2" in told.args[0]
    assert c.simulation.trials == 5 and window.theory.trial.text() == "5"
    assert slider.value() == 5  # the timeline shows the trial the learner is at


def test_an_autosave_that_cannot_be_removed_does_not_stop_closing(
    qtbot, window, monkeypatch, data_folder
):
    window.controller.set_dataset(load_preset("or"))
    with qtbot.waitSignal(window.autosaver.written, timeout=10_000):
        window.autosaver.timer.timeout.emit()

    def refused(self, missing_ok=False):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(type(data_folder), "unlink", refused)
    window.controller.undo_stack.setClean()
    with qtbot.capture_exceptions() as raised:
        assert window.close()  # closeEvent removes the autosave: it cannot, and says so
    assert raised == [] and not window.isVisible()
    assert (data_folder / AUTOSAVE_NAME).exists()  # the next start offers it


def test_an_unreadable_autosave_that_cannot_be_moved_aside_is_reported(
    qtbot, dialogs, data_folder, monkeypatch
):
    from simulator.ui import MainWindow

    leftover = data_folder / AUTOSAVE_NAME
    leftover.write_text("{half a file")
    window = MainWindow()
    qtbot.addWidget(window)

    def refused(self, target):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(type(leftover), "replace", refused)
    with qtbot.capture_exceptions() as raised:
        QTimer.singleShot(0, window.recover)  # as `--recover` runs it, from a timer
        qtbot.waitUntil(lambda: "stays where it is" in window.statusBar().currentMessage())
    assert raised == [] and leftover.read_text() == "{half a file"
