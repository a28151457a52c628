"""Opening a long session can be cancelled (issue 21, case 8): a session of `noisy` at
trial 10⁷ replays for half a minute or more; Cancel returns the window at once and stops
the replay itself, within an epoch, instead of leaving it to keep a core busy and the
quit waiting for it."""

import threading

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressDialog, QPushButton

from simulator.app.autosave import AUTOSAVE_NAME
from simulator.engine import Settings, Simulation, load_preset
from simulator.engine.files import Cancelled
from simulator.engine.session import Session, load_session, save_session
from simulator.ui import MainWindow

LONG = 10_000_000  # trials: ~40 s of replay for the perceptron on noisy


class Replays:
    """Watches `Simulation.run` on the worker: `started` once a replay runs, `ended` with
    the trials it reached once it returns."""

    def __init__(self, monkeypatch):
        self.started = threading.Event()
        self.ended = threading.Event()
        self.reached = None
        real = Simulation.run

        def run(sim, max_trials, **options):
            if threading.current_thread() is threading.main_thread():
                return real(sim, max_trials, **options)
            self.started.set()
            try:
                return real(sim, max_trials, **options)
            finally:
                self.reached = sim.trials
                self.ended.set()

        monkeypatch.setattr(Simulation, "run", run)


def cancel_once_replaying(window, replays):
    """Press the progress dialog's Cancel as soon as the replay runs (the user's click)."""

    def look():
        progress = window.findChild(QProgressDialog, "fileProgress")
        if replays.started.is_set() and progress is not None:
            progress.findChild(QPushButton).click()
        else:
            QTimer.singleShot(5, look)

    QTimer.singleShot(0, look)


@pytest.fixture
def long_session(tmp_path):
    path = tmp_path / "long.lab.json"
    save_session(path, load_preset("noisy"), Settings(), LONG)
    return path


def test_cancel_stops_the_replay_of_a_long_session(qtbot, monkeypatch, long_session, dialogs):
    window = MainWindow(load_preset("or"))
    qtbot.addWidget(window)
    replays = Replays(monkeypatch)
    cancel_once_replaying(window, replays)
    assert not window.open_session(long_session)
    assert window.controller.dataset == load_preset("or")  # nothing changed
    assert "cancelled" in window.statusBar().currentMessage() and dialogs.shown == []
    assert replays.ended.wait(60), "the replay went on after Cancel"
    assert replays.reached < LONG


def test_a_cancelled_recovery_keeps_the_autosave_for_the_next_start(
    qtbot, monkeypatch, data_folder, dialogs
):
    leftover = data_folder / AUTOSAVE_NAME
    save_session(leftover, load_preset("noisy"), Settings(), LONG)
    before = leftover.read_bytes()
    window = MainWindow()
    qtbot.addWidget(window)
    replays = Replays(monkeypatch)
    cancel_once_replaying(window, replays)
    assert not window.recover()
    assert replays.ended.wait(60) and replays.reached < LONG
    assert leftover.read_bytes() == before  # not set aside as unreadable, not replaced
    assert list(data_folder.glob("unreadable-*")) == []
    window.controller.set_dataset(load_preset("or"))  # the window's own work goes elsewhere
    with qtbot.waitSignal(window.autosaver.written, timeout=10_000):
        window.autosaver.timer.timeout.emit()
    assert window.autosaver.path != leftover and leftover.read_bytes() == before
    window.close()
    assert leftover.read_bytes() == before  # the clean exit leaves it: the next start asks
    window.controller.undo_stack.setClean()


def test_the_replay_asks_between_epochs_and_stops():
    session = Session(load_preset("noisy"), Settings(), LONG)
    asked = []

    def cancelled():
        asked.append(True)
        return len(asked) > 100

    with pytest.raises(Cancelled):
        session.simulation(cancelled)
    assert 101 <= len(asked) <= 102  # it stopped at the first true answer


def test_a_replay_not_cancelled_is_the_saved_run_bit_for_bit(tmp_path):
    reference = Simulation(load_preset("noisy"), order="random", seed=3)
    reference.run(5000, until_converged=False)
    path = tmp_path / "s.lab.json"
    save_session(path, load_preset("noisy"), reference.settings, 5000, state=reference.state)
    session = load_session(path)
    simulation = session.simulation(lambda: False)
    assert simulation.weights.tobytes() == reference.weights.tobytes()
    assert session.verify(simulation) is None
