"""Autosave: within 5 s of a change the window writes autosave.lab.json; a clean exit
removes it; after an unclean exit the next start offers it back."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox

from simulator.app.autosave import AUTOSAVE_NAME
from simulator.app.documents import RESTORE
from simulator.engine import Settings, Simulation, load_dataset, load_preset
from simulator.engine.session import load_session, save_session
from simulator.ui import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def written(qtbot, window):
    """Write the autosave now, as the timer would, and wait for the worker to finish."""
    with qtbot.waitSignal(window.autosaver.written, timeout=10_000):
        window.autosaver.timer.timeout.emit()
    return load_session(window.autosaver.path)


def test_a_change_is_autosaved_within_5_seconds(qtbot, window, data_folder):
    path = data_folder / AUTOSAVE_NAME
    assert window.autosaver.path == path and not path.exists()
    window.controller.add_point(0.5, 0.5, 1)
    timer = window.autosaver.timer
    assert timer.isActive() and timer.isSingleShot() and timer.interval() <= 5000
    assert not path.exists()  # nothing yet: the timer decides when (what `written` fires)
    assert written(qtbot, window).dataset == window.controller.dataset


def test_points_settings_and_the_trial_reached_are_autosaved(qtbot, window):
    c = window.controller
    c.set_dataset(load_preset("or"))
    c.set_settings(Settings(learning_rate=0.5, order="random", seed=4))
    for _ in range(7):
        c.step()
    session = written(qtbot, window)
    assert session.dataset == load_preset("or") and session.trial == 7
    assert session.settings == c.settings
    c.seek(3)  # rewinding is a change too: the trial reached is now 3
    assert window.autosaver.timer.isActive()
    assert written(qtbot, window).trial == 3


def test_a_run_is_saved_every_few_seconds_not_every_frame(qtbot, window):
    c = window.controller
    c.set_dataset(load_preset("noisy"))
    c.set_speed(1)
    c.run()
    timer = window.autosaver.timer
    remaining = []
    for _ in range(5):
        c.advance(1)  # each tick publishes a frame: a change
        remaining.append(timer.remainingTime())
    assert timer.isActive() and remaining == sorted(remaining, reverse=True)  # not restarted
    assert written(qtbot, window).trial == c.simulation.trials


def test_nothing_is_written_while_nothing_changes(qtbot, window):
    window.controller.set_dataset(load_preset("and"))
    written(qtbot, window)
    window.autosaver.timer.timeout.emit()
    assert not window.autosaver.writing  # the state on disk is the state now: no write
    window.controller.step()
    assert written(qtbot, window).trial == 1


def test_no_points_no_autosave(qtbot, window):
    c = window.controller
    c.set_dataset(load_preset("and"))
    written(qtbot, window)
    c.clear()
    window.autosaver.timer.timeout.emit()
    assert not window.autosaver.path.exists()  # an old file would offer stale points


def test_a_clean_exit_removes_the_autosave(qtbot, window, data_folder):
    window.controller.set_dataset(load_preset("or"))
    written(qtbot, window)
    assert (data_folder / AUTOSAVE_NAME).exists()
    window.close()
    assert not (data_folder / AUTOSAVE_NAME).exists()
    after = MainWindow()  # the next start finds nothing to restore
    qtbot.addWidget(after)
    assert after.autosaver.path == data_folder / AUTOSAVE_NAME
    assert after.autosaver.leftover() is None and not after.offer_recovery()


def test_two_windows_autosave_to_two_files(qtbot, window, other_window, data_folder):
    assert other_window.autosaver.path == data_folder / "autosave-2.lab.json"
    window.controller.set_dataset(load_preset("or"))
    other_window.controller.set_dataset(load_preset("xor"))
    assert written(qtbot, window).dataset == load_preset("or")
    assert written(qtbot, other_window).dataset == load_preset("xor")


@pytest.fixture
def other_window(qtbot, window):
    win = MainWindow()
    qtbot.addWidget(win)
    return win


@pytest.fixture
def leftover(data_folder):
    """An autosave left by a run that did not end cleanly (its process is gone)."""
    path = data_folder / AUTOSAVE_NAME
    save_session(path, load_preset("noisy"), Settings(learning_rate=0.25), 321)
    return path


def test_the_next_start_asks_and_restore_brings_the_work_back(qtbot, dialogs, leftover):
    dialogs.answer = RESTORE
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.offer_recovery()
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("question", "Restore your work?") and "trial" in text
    c = window.controller
    assert c.dataset == load_preset("noisy") and c.simulation.trials == 321
    assert c.settings.learning_rate == 0.25
    reference = Simulation(load_preset("noisy"), learning_rate=0.25)
    reference.run(321, until_converged=False)
    assert np.array_equal(reference.weights, c.simulation.weights)
    assert window.isWindowModified() and window.windowTitle().startswith("recovered")


def test_discard_removes_the_leftover(qtbot, dialogs, leftover):
    dialogs.answer = QMessageBox.StandardButton.Discard
    window = MainWindow()
    qtbot.addWidget(window)
    assert not window.offer_recovery()
    assert not leftover.exists() and len(window.controller.dataset) == 0


def test_the_leftover_is_not_overwritten_while_the_question_is_open(
    qtbot, dialogs, leftover, monkeypatch
):
    window = MainWindow(load_preset("or"))  # new data: an autosave is due
    qtbot.addWidget(window)
    before = leftover.read_bytes()
    seen = []

    def while_the_user_reads(box):
        window.autosaver.timer.timeout.emit()  # the timer fires meanwhile
        seen.append((window.autosaver.writing, leftover.read_bytes()))  # held, not started
        return RESTORE

    monkeypatch.setattr(QMessageBox, "exec", while_the_user_reads)
    assert window.offer_recovery()
    assert seen == [(False, before)]  # the file the user was asked about was still there
    assert window.autosaver.timer.isActive()  # the held write comes once the question is gone
    assert written(qtbot, window).dataset == load_preset("noisy")
    assert window.controller.dataset == load_preset("noisy")
    assert load_session(leftover).trial == 321


def test_an_unreadable_leftover_is_kept_aside(qtbot, dialogs, data_folder):
    (data_folder / AUTOSAVE_NAME).write_text("{half a file")
    window = MainWindow()
    qtbot.addWidget(window)
    assert not window.recover()
    kept = list(data_folder.glob("unreadable-*.lab.json"))
    assert len(kept) == 1 and kept[0].read_text() == "{half a file"
    assert window.autosaver.leftover() is None
    assert dialogs.shown[-1][0] == "critical"


_CRASHING_SESSION = textwrap.dedent(
    """
    import os, sys
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from simulator.engine import Settings, load_preset
    from simulator.ui import MainWindow
    window = MainWindow(load_preset("noisy"), Settings(order="random", seed=5))
    window.show()
    window.controller.add_point(0.25, -0.5, 1)
    window.controller.simulation.run(4321, until_converged=False)
    window.controller.step()
    timer = window.autosaver.timer
    assert timer.isActive() and timer.interval() <= 5000  # the changes armed it
    done = []
    window.autosaver.written.connect(done.append)
    timer.timeout.emit()  # what it does when it fires
    while not done:  # the write ends on a worker; its signal wakes this loop
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    print(window.controller.simulation.trials, flush=True)
    os._exit(1)  # a crash: no close, no cleanup
    """
)


@pytest.mark.slow
def test_a_crashed_run_is_recovered_with_its_points_and_trial(qtbot, data_folder, dialogs):
    env = {**os.environ, "LINEAR_LAB_DATA_DIR": str(data_folder), "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", _CRASHING_SESSION],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    trials = int(result.stdout.split()[-1])
    assert trials == 4322 and (data_folder / AUTOSAVE_NAME).exists()

    window = MainWindow()  # the next start, same folder: the dead process's lock is stale
    qtbot.addWidget(window)
    assert window.autosaver.path == data_folder / AUTOSAVE_NAME
    assert window.recover()  # what `python main.py --recover` does
    c = window.controller
    expected = load_preset("noisy").with_point((0.25, -0.5), 1)
    assert c.dataset == expected and c.simulation.trials == trials
    reference = Simulation(expected, order="random", seed=5)
    reference.run(trials, until_converged=False)
    assert reference.weights.tobytes() == c.simulation.weights.tobytes()


def test_a_costly_write_spaces_out_the_next_ones(qtbot, window):
    from simulator.app.autosave import COST_FACTOR, DELAY_MS

    ticks = iter([0.0, 7.5, 10.0, 10.001])  # seconds: a write of 7.5 s, then one of 1 ms
    window.autosaver.clock = lambda: next(ticks)
    window.controller.set_dataset(load_preset("or"))
    written(qtbot, window)
    assert window.autosaver.timer.interval() == COST_FACTOR * 7500  # 75 s for a 7.5 s write
    window.controller.step()
    written(qtbot, window)
    assert window.autosaver.timer.interval() == DELAY_MS


def test_main_recover_restores_the_autosave_without_asking(started, leftover, dialogs):
    dataset = started(
        ["--recover"],
        lambda w: w.controller.simulation.trials == 321,
        lambda w: w.controller.dataset,
    )
    assert dataset == load_preset("noisy") and dialogs.shown == []


def test_main_asks_about_a_leftover_autosave(started, leftover, dialogs):
    dialogs.answer = QMessageBox.StandardButton.Discard
    points = started([], lambda w: not leftover.exists(), lambda w: len(w.controller.dataset))
    assert [d[1] for d in dialogs.shown] == ["Restore your work?"] and points == 0


def test_main_session_opens_the_file(started, tmp_path):
    path = tmp_path / "lecture.lab.json"
    save_session(path, load_preset("or"), Settings(algorithm="winnow"), 6)
    trials, algorithm = started(
        ["--session", str(path)],
        lambda w: w.windowTitle().startswith("lecture.lab.json"),
        lambda w: (w.controller.simulation.trials, w.controller.settings.algorithm),
    )
    assert (trials, algorithm) == (6, "winnow")


def test_main_without_learner_options_starts_with_the_remembered_ones(started):
    def settings(window):
        return window.controller.settings

    first = started(["--algorithm", "adaline", "--eta", "0.02"], lambda w: True, settings)
    assert first.learning_rate == 0.02
    second = started([], lambda w: True, settings)
    assert (second.algorithm, second.learning_rate) == ("adaline", 0.02)
    third = started(["--algorithm", "winnow"], lambda w: True, settings)
    assert third.algorithm == "winnow"  # options given win


def test_closing_waits_at_most_a_moment_for_a_write_in_flight(
    qtbot, window, monkeypatch, data_folder
):
    """A write that does not finish (huge data, a slow disk) does not hold the window:
    closing waits REMOVE_WAIT_S, then leaves the file for the next start to offer."""
    import threading

    from simulator.app import autosave

    release = threading.Event()
    real = autosave.write_atomically

    def slow(path, make_text, cancelled=lambda: False, **options):
        release.wait(30)
        real(path, make_text, cancelled, **options)

    monkeypatch.setattr(autosave, "write_atomically", slow)
    monkeypatch.setattr(autosave, "REMOVE_WAIT_S", 0.05)
    window.controller.set_dataset(load_preset("or"))
    window.autosaver.timer.timeout.emit()
    assert window.autosaver.writing
    told = []
    window.autosaver.failed.connect(told.append)
    window.controller.undo_stack.setClean()
    assert window.close()  # returns though the write is still in flight
    assert told == ["Autosave still being written; it stays for the next start."]
    with qtbot.waitSignal(window.autosaver.written, timeout=10_000):
        release.set()  # the write ends on its worker
    assert (data_folder / AUTOSAVE_NAME).exists()


def _crash_and_recover(qtbot, window, data_folder):
    """Lose `window` as a crash would (its autosave stays), and recover the autosave in
    the next start's window."""
    path = window.autosaver.path
    text = path.read_text()
    window.controller.undo_stack.setClean()
    window.close()  # a clean exit removes the file; the crash's file is put back
    path.write_text(text)
    after = MainWindow()
    qtbot.addWidget(after)
    assert after.autosaver.leftover() == data_folder / AUTOSAVE_NAME
    assert after.recover()
    return after


def test_recovering_gives_back_the_file_the_points_came_from(qtbot, window, tmp_path, data_folder):
    path = tmp_path / "lecture 3.csv"
    path.write_text("x1,x2,label\n0,0,-1\n1,1,1\n2,0,1\n")
    assert window.open_file(path)
    window.controller.step()
    assert written(qtbot, window).origin == ("file", str(path.absolute()))
    after = _crash_and_recover(qtbot, window, data_folder)
    assert after.windowTitle().startswith("lecture 3.csv[*]")
    assert after.isWindowModified()  # the work is in no file until it is saved
    assert after.controller.simulation.trials == 1
    assert after.save()  # Save goes back to the file it came from, without asking
    assert not after.isWindowModified() and load_dataset(path) == after.controller.dataset


def test_recovering_gives_back_the_preset_s_name(qtbot, window, data_folder):
    window.load_preset("xor")
    window.controller.add_point(0.5, 0.5, 1)
    assert written(qtbot, window).origin == ("name", "xor")
    after = _crash_and_recover(qtbot, window, data_folder)
    assert after.windowTitle().startswith("xor[*]") and after.isWindowModified()
    assert len(after.controller.dataset) == len(load_preset("xor")) + 1
