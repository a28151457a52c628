"""Start the window: `python main.py [--dataset ...] [--algorithm ...]`."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

from simulator.cli import Invocation

__all__ = ["run_app"]


class _FirstPaint(QObject):
    """Remembers the wall-clock time of the window's first paint (for --screenshot)."""

    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self.at is None and event.type() == QEvent.Type.Paint:
            self.at = time.time()
        return False


def run_app(invocation: Invocation) -> int:
    import pyqtgraph as pg

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Linear Classifier Lab")
    app.setOrganizationName("LinearClassifierLab")
    pg.setConfigOptions(antialias=True)
    font = app.font()
    font.setPointSizeF(max(font.pointSizeF(), 10.5))
    app.setFont(font)

    from simulator.ui.main_window import MainWindow

    window = MainWindow(invocation.dataset, invocation.settings, app_settings=QSettings())
    first_paint = _FirstPaint()
    window.installEventFilter(first_paint)
    window.show()
    options = invocation.options
    if options.screenshot is not None:
        QTimer.singleShot(
            int(options.screenshot_delay * 1000),
            lambda: _screenshot_and_quit(window, options.screenshot, first_paint.at),
        )
    return app.exec()


def _screenshot_and_quit(window: QMainWindow, path: Path, painted_at: float | None) -> None:
    """Grab what the screen shows of the window (not a re-render), save it, quit."""
    app = QApplication.instance()
    app.processEvents()
    pixmap = window.screen().grabWindow(0, window.x(), window.y(), window.width(), window.height())
    ok = pixmap.save(str(path))
    print(
        f"first painted at {painted_at}; screenshot {'saved to ' + str(path) if ok else 'FAILED'}",
        file=sys.stderr,
    )
    window.controller.undo_stack.setClean()  # no save prompt
    window.close()
    app.exit(0 if ok else 1)
