"""Window fixtures and mouse helpers (modal message boxes are recorded: tests/conftest.py)."""

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from simulator.ui import MainWindow


@pytest.fixture(autouse=True)
def message_boxes(dialogs, monkeypatch):
    """A QMessageBox built by hand (custom button texts) is recorded like the static ones:
    `exec` returns `dialogs.answer` instead of waiting for a click."""
    from PySide6.QtWidgets import QMessageBox

    def answer(box):
        return dialogs.question(box.parentWidget(), box.windowTitle(), box.text())

    monkeypatch.setattr(QMessageBox, "exec", answer)


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    win.glide_ms = 0  # tests look at where the line ends; test_stage checks the glide itself
    win._update_glide()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.controller.pause()


def view_pos(view, x, y):
    """Widget coordinates of data point (x, y) in a PlotView."""
    vb = view.getPlotItem().vb
    return view.mapFromScene(vb.mapViewToScene(pg.Point(x, y)))


def click(qtbot, view, x, y, button=Qt.MouseButton.LeftButton):
    qtbot.mouseClick(view.viewport(), button, pos=view_pos(view, x, y))


def drag(view, start, end, steps=6):
    """Drag with the left button from data point `start` to `end` (button held while moving)."""
    viewport = view.viewport()
    a, b = view_pos(view, *start), view_pos(view, *end)

    def send(kind, pos, buttons):
        local = QPointF(pos)
        event = QMouseEvent(
            kind,
            local,
            viewport.mapToGlobal(local),
            Qt.MouseButton.LeftButton,
            buttons,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(viewport, event)

    held = Qt.MouseButton.LeftButton
    send(QEvent.Type.MouseButtonPress, a, held)
    for k in range(1, steps + 1):
        t = k / steps
        send(QEvent.Type.MouseMove, a + (b - a) * t, held)
    send(QEvent.Type.MouseButtonRelease, b, Qt.MouseButton.NoButton)


@pytest.fixture
def started(qtbot, tmp_path, monkeypatch):
    """`python main.py ARGS` in this process (the autosave and recovery tests):
    QApplication.exec waits until `ready(window)`, hands the window to `look(window)`,
    closes it (a clean exit: the last resort is uninstalled) and returns what `look`
    returned; QSettings are kept in tmp_path, not in the user's home."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from simulator.cli import main

    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))

    def start(argv, ready, look=lambda window: None):
        seen = []

        def exec_(app):
            # The app's window: the one whose errors go to the last resort.
            (window,) = [
                w
                for w in app.topLevelWidgets()
                if isinstance(w, MainWindow) and w.last_resort is not None
            ]
            qtbot.waitUntil(lambda: ready(window), timeout=10_000)
            seen.append(look(window))
            window.controller.undo_stack.setClean()
            window.close()
            assert window.last_resort is None  # uninstalled at a clean exit
            return 0

        monkeypatch.setattr(QApplication, "exec", exec_)
        assert main(argv) == 0
        return seen[0]

    return start
