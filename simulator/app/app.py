"""Start the window: `python main.py [--dataset ...] [--algorithm ...]`."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QMainWindow

from simulator.engine import Dataset, Settings, Simulation
from simulator.engine.lessons import Lesson, StepState
from simulator.engine.session import Session
from simulator.ui import style

__all__ = ["run_app"]

PROG = "linear-classifier-lab"
THEORY_SECONDS = 3.0
"""The window's time budget for γ*: data whose margin would take longer show "—" (the
reason in its tooltip) rather than freeze the lecture (see `Simulation.theory_seconds`)."""


class _FirstPaint(QObject):
    """Remembers the wall-clock time of the window's first paint (for --screenshot)."""

    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None
        self.started = time.time()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self.at is None and event.type() == QEvent.Type.Paint:
            self.at = time.time()
        return False


class _StartupMessages:
    """Holds Qt's messages while the application starts. If Qt cannot open a display it
    says so in a fatal message and aborts the process; we say it in one line and exit 2
    instead. Otherwise the held messages are printed as Qt would have."""

    def __init__(self) -> None:
        self.held: list[str] = []

    def __call__(self, mode: QtMsgType, context: object, message: str) -> None:
        if mode != QtMsgType.QtFatalMsg:
            self.held.append(message)
            return
        display = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY") or "none"
        detail = next((m for m in self.held if "display" in m.lower()), message.splitlines()[0])
        print(
            f"{PROG}: error: Qt could not open a window on display {display!r} ({detail}); "
            "use a virtual display: xvfb-run -a python main.py",
            file=sys.stderr,
            flush=True,
        )
        os._exit(2)  # Qt would abort() right after this handler returns

    def release(self) -> None:
        qInstallMessageHandler(None)
        for message in self.held:
            print(message, file=sys.stderr)


def run_app(
    dataset: Dataset | None = None,
    settings: Settings | None = None,
    *,
    screenshot: Path | None = None,
    screenshot_delay: float = 1.0,
    session_file: Path | None = None,
    session: Session | None = None,
    recover: bool = False,
    lesson: Lesson | None = None,
    lesson_states: tuple[StepState, ...] = (),
) -> int:
    """Open the window on `dataset` with `settings`; returns the exit status.

    `screenshot`: save what the screen shows of the window after `screenshot_delay`
    seconds, then quit. `session` (read from `session_file`): open it. `recover`: restore
    the autosave of a run that did not end cleanly; without it the window asks (unless
    it only takes a screenshot). `settings` None means none were given: the window
    starts with the settings it remembers from last time. `lesson` (played as
    `lesson_states`): open the window in it.
    """
    Simulation.theory_seconds = THEORY_SECONDS  # γ* never freezes the window
    startup = _StartupMessages()
    qInstallMessageHandler(startup)
    app = QApplication.instance() or QApplication(sys.argv)
    startup.release()
    app.setApplicationName("Linear Classifier Lab")
    app.setOrganizationName("LinearClassifierLab")
    style.set_up_look(app)

    from simulator.app.main_window import MainWindow

    app_settings = QSettings()
    _owner_only(app_settings)
    window = MainWindow(dataset, settings, app_settings=app_settings)
    window.install_last_resort()
    first_paint = _FirstPaint()
    window.installEventFilter(first_paint)
    window.show()
    if recover:
        QTimer.singleShot(0, window.recover)
    elif session is not None and session_file is not None:
        QTimer.singleShot(0, lambda: window.open_session(session_file, session=session))
    elif lesson is not None:
        QTimer.singleShot(0, lambda: window.open_lesson(lesson, lesson_states))
    elif screenshot is None:
        QTimer.singleShot(0, window.offer_recovery)
    if screenshot is not None:
        QTimer.singleShot(
            int(screenshot_delay * 1000),
            lambda: _screenshot_when_painted(window, screenshot, first_paint),
        )
    return app.exec()


def _owner_only(settings: QSettings) -> None:
    """Make the configuration file readable by its owner only (0600), before Qt first
    writes it (QSettings keeps a file's permissions when it rewrites it). Where the
    settings are no file (the Windows registry), or the file cannot be made, nothing."""
    if sys.platform == "win32":
        return
    path = Path(settings.fileName())
    if not path.is_absolute():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        os.chmod(path, 0o600)
    except OSError:
        pass  # the app works without remembered settings


def _screenshot_when_painted(window: QMainWindow, path: Path, first_paint: _FirstPaint) -> None:
    """The screenshot once the window has been painted (on a loaded machine the delay can
    pass before it is): a grab before that would be of nothing. Waits at most 30 s."""
    waited = time.time() - (first_paint.started)
    if first_paint.at is None and waited < 30.0:
        QTimer.singleShot(50, lambda: _screenshot_when_painted(window, path, first_paint))
        return
    _screenshot_and_quit(window, path, first_paint.at)


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
