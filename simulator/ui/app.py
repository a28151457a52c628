"""Start the window: `python main.py [--dataset ...] [--algorithm ...]`."""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from simulator.cli import Invocation

_STARTED = time.perf_counter()


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
    options = invocation.options
    window.show()
    if options.screenshot is not None:
        QTimer.singleShot(
            int(options.screenshot_delay * 1000),
            lambda: _screenshot_and_quit(window, options.screenshot),
        )
    return app.exec()


def _screenshot_and_quit(window, path) -> None:
    """Grab what the screen shows of the window (not a re-render), save it, quit."""
    app = QApplication.instance()
    app.processEvents()
    screen = window.screen()
    pixmap = screen.grabWindow(0, window.x(), window.y(), window.width(), window.height())
    ok = pixmap.save(str(path))
    print(
        f"painted after {time.perf_counter() - _STARTED:.2f} s; screenshot "
        f"{'saved to ' + str(path) if ok else 'FAILED'}",
        file=sys.stderr,
    )
    window.controller.undo_stack.setClean()  # no save prompt
    window.close()
    app.exit(0 if ok else 1)


__all__ = ["run_app"]
