"""The autosave of a run that crashed survives until the user answers for it (issue 21,
case 2): a start that does not ask (`--session`, `--screenshot`, a window that never
offers it) neither writes over it nor deletes it at exit; the next start that asks finds
it. And what holds the class's work is readable by its owner only."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from simulator.app.autosave import AUTOSAVE_NAME
from simulator.app.documents import RESTORE
from simulator.engine import Settings, load_preset
from simulator.engine.session import load_session, save_session
from simulator.ui import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def written(qtbot, window):
    """Write the autosave now, as the timer would, and wait for the worker to finish."""
    with qtbot.waitSignal(window.autosaver.written, timeout=10_000):
        window.autosaver.timer.timeout.emit()
    return window.autosaver.path


@pytest.fixture
def leftover(data_folder):
    """What a run killed with 28 points left behind (its process is gone)."""
    path = data_folder / AUTOSAVE_NAME
    points = load_preset("noisy").points[:28]
    labels = load_preset("noisy").labels[:28]
    from simulator.engine import Dataset

    save_session(path, Dataset(points, labels), Settings(learning_rate=0.25), 40)
    return path


def test_opening_a_session_writes_its_autosave_beside_the_crashed_one(
    qtbot, started, leftover, dialogs, tmp_path
):
    before = leftover.read_bytes()
    lesson = tmp_path / "lesson.lab.json"
    save_session(lesson, load_preset("or"), Settings(), 5)

    def work(window):
        window.controller.step()  # a change: its autosave is due
        path = written(qtbot, window)
        return path, load_session(path).dataset

    own, autosaved = started(
        ["--session", str(lesson)], lambda w: w.windowTitle().startswith("lesson.lab.json"), work
    )
    assert own != leftover and autosaved == load_preset("or")
    assert leftover.read_bytes() == before  # not written over
    assert not own.exists()  # its own autosave went at the clean exit; the dead run's stays
    assert dialogs.shown == []

    dialogs.answer = RESTORE  # the next plain start asks, and brings the work back
    restored = started(
        [], lambda w: w.controller.simulation.trials == 40, lambda w: len(w.controller.dataset)
    )
    assert restored == 28 and [d[1] for d in dialogs.shown] == ["Restore your work?"]


def test_a_window_that_never_asks_leaves_the_crashed_autosave_at_exit(qtbot, leftover):
    before = leftover.read_bytes()
    window = MainWindow(load_preset("iris"))  # as --screenshot: no question
    qtbot.addWidget(window)
    window.close()
    assert leftover.read_bytes() == before


def test_a_window_that_asks_takes_the_slot_of_a_crashed_run_after_a_free_one(
    qtbot, data_folder, dialogs
):
    """A dead run that had stepped aside left its file in slot 3: it is offered all the same."""
    aside = data_folder / "autosave-3.lab.json"
    save_session(aside, load_preset("xor"), Settings(), 2)
    dialogs.answer = RESTORE
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.autosaver.path == aside and window.offer_recovery()
    assert window.controller.dataset == load_preset("xor")
    window.controller.undo_stack.setClean()


def test_discard_settles_the_crashed_autosave(qtbot, leftover, dialogs):
    dialogs.answer = QMessageBox.StandardButton.Discard
    window = MainWindow()
    qtbot.addWidget(window)
    assert not window.offer_recovery() and not leftover.exists()
    window.controller.set_dataset(load_preset("or"))
    assert written(qtbot, window) == leftover  # the slot is the window's own now


def test_cleared_points_do_not_delete_an_unanswered_autosave(qtbot, leftover):
    window = MainWindow(load_preset("or"))
    qtbot.addWidget(window)
    window.controller.clear()
    window.autosaver.timer.timeout.emit()  # nothing to save: an old file of its own would go
    assert leftover.exists()
    window.controller.undo_stack.setClean()


@pytest.mark.slow
def test_a_screenshot_run_leaves_the_crashed_autosave(tmp_path, leftover, data_folder):
    """The reported command, as a process: `--dataset iris --screenshot x.png`."""
    before = leftover.read_bytes()
    env = {
        **os.environ,
        "LINEAR_LAB_DATA_DIR": str(data_folder),
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--dataset", "iris", "--screenshot",
         tmp_path / "x.png", "--screenshot-delay", "0.5"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    assert leftover.read_bytes() == before
    assert sorted(p.name for p in data_folder.glob("*.lab.json")) == [AUTOSAVE_NAME]


# -- owner only ------------------------------------------------------------------------------------


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_the_autosave_and_a_saved_session_are_owner_only(qtbot, window, tmp_path):
    window.controller.set_dataset(load_preset("or"))
    assert mode(written(qtbot, window)) == 0o600
    assert window.save_session(tmp_path / "lesson.lab.json")
    assert mode(tmp_path / "lesson.lab.json") == 0o600
    save_session(tmp_path / "engine.lab.json", load_preset("or"), Settings(), 0)
    assert mode(tmp_path / "engine.lab.json") == 0o600
    assert window.save_to(tmp_path / "points.csv")  # points are for sharing: as any file
    assert mode(tmp_path / "points.csv") == 0o666 & ~_umask()


def test_a_session_saved_over_a_shared_file_keeps_its_permissions(window, tmp_path):
    path = tmp_path / "lesson.lab.json"
    path.write_text("old")
    path.chmod(0o644)
    assert window.save_session(path)
    assert mode(path) == 0o644


def test_a_crash_report_is_owner_only(qtbot, window, data_folder, dialogs):
    resort = window.install_last_resort()
    try:
        resort.handle(RuntimeError, RuntimeError("boom"), None)
    finally:
        resort.uninstall()
    assert resort.report_path is not None and mode(resort.report_path) == 0o600


def test_the_configuration_is_owner_only(started, tmp_path):
    from PySide6.QtCore import QSettings

    started([], lambda w: True)
    path = Path(QSettings().fileName())
    assert path.is_relative_to(tmp_path) and path.exists() and mode(path) == 0o600


def _umask():
    current = os.umask(0)
    os.umask(current)
    return current
