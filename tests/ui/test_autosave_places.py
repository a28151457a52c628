"""An autosave folder that cannot be used (a file in its place, a folder where the file
goes) gives one status-bar line at start, never a traceback or a retry storm."""

import pytest

from simulator.app.autosave import AUTOSAVE_NAME
from simulator.engine import load_preset
from simulator.ui import MainWindow
from tests.helpers.driven import deliver_posted_events


def started(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    return win


def work_and_close(qtbot, win):
    """Changes that would be autosaved, the timer firing, then closing: nothing raises,
    nothing is written, and nothing is left to retry later."""
    c = win.controller
    c.set_dataset(load_preset("or"))
    for _ in range(3):
        c.step()
        win.autosaver.timer.timeout.emit()
        deliver_posted_events()
        assert not win.autosaver.writing and not win.autosaver.timer.isActive()
    c.undo_stack.setClean()
    win.close()


@pytest.mark.parametrize("place", ["file", "under-a-file"])
def test_a_data_folder_that_is_a_file_turns_autosave_off_with_one_line(
    qtbot, tmp_path, monkeypatch, dialogs, place
):
    blocker = tmp_path / "data"
    blocker.write_text("not a folder")
    folder = blocker if place == "file" else blocker / "lab"
    monkeypatch.setenv("LINEAR_LAB_DATA_DIR", str(folder))
    failures = []
    with qtbot.capture_exceptions() as raised:
        win = started(qtbot)
        win.autosaver.failed.connect(failures.append)
        assert not win.autosaver.enabled
        line = win.statusBar().currentMessage()
        assert line.startswith("Autosave is off") and str(folder) in line
        work_and_close(qtbot, win)
    assert not raised and not dialogs.shown and not failures
    assert blocker.read_text() == "not a folder"


def test_a_folder_where_the_autosave_file_goes_turns_autosave_off(qtbot, data_folder, dialogs):
    (data_folder / AUTOSAVE_NAME).mkdir()
    failures = []
    with qtbot.capture_exceptions() as raised:
        win = started(qtbot)
        win.autosaver.failed.connect(failures.append)
        assert not win.autosaver.enabled and win.autosaver.leftover() is None
        assert "is a folder" in win.statusBar().currentMessage()
        work_and_close(qtbot, win)
    assert not raised and not dialogs.shown and not failures
    assert (data_folder / AUTOSAVE_NAME).is_dir()


def test_an_autosave_that_fails_later_says_so_once(qtbot, data_folder, dialogs):
    win = started(qtbot)
    path = win.autosaver.path
    assert path == data_folder / AUTOSAVE_NAME
    path.mkdir()  # something takes the file's place while the window runs
    failures = []
    win.autosaver.failed.connect(failures.append)
    c = win.controller
    c.set_dataset(load_preset("or"))
    with qtbot.capture_exceptions() as raised:
        for _ in range(3):
            c.step()
            win.autosaver.timer.timeout.emit()
            qtbot.waitUntil(lambda: not win.autosaver.writing, timeout=10_000)
    assert not raised and not dialogs.shown
    assert len(failures) == 1 and "Autosave failed" in failures[0]
    assert "Autosave failed" in win.statusBar().currentMessage()
    path.rmdir()  # the place is free again: the next change is written
    c.step()
    with qtbot.waitSignal(win.autosaver.written, timeout=10_000):
        win.autosaver.timer.timeout.emit()
    assert path.is_file()
