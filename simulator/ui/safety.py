"""The last resort: no exception ends the program; the user sees one dialog, not a storm.

Every Python exception that nobody caught (in a slot, a timer, an undo command, a paint
event: PySide hands all of them to `sys.excepthook`; in a worker thread: to
`threading.excepthook`) comes here. The handler pauses the run (a failing timer would
otherwise fail again every 16 ms), saves the points at once (autosave), writes a crash
report beside the autosave, and shows one dialog. More exceptions while the dialog is open,
or within `QUIET_SECONDS` after it, are added to the same report and announced in the
status bar only.

Code that expects a failure (the controller applying new data, a file task) catches it
itself and calls `report_exception`, so a test under pytest-qt, which installs its own
`sys.excepthook`, still sees the bug.
"""

from __future__ import annotations

import os
import platform
import sys
import threading
import time
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QObject, Qt, Signal, qVersion
from PySide6.QtWidgets import QMessageBox, QWidget

__all__ = ["QUIET_SECONDS", "LastResort", "crash_report_text", "report_exception"]

QUIET_SECONDS = 30.0  # after a dialog, further errors only reach the status bar
_MAX_TRACEBACKS = 20  # per report: a storm adds a few lines, not megabytes
_MAX_LINES = 100  # one-line mentions after those; then only the count in the status bar


def report_exception(exc: BaseException) -> None:
    """Hand a caught exception to the last-resort handler (or to pytest-qt in tests)."""
    sys.excepthook(type(exc), exc, exc.__traceback__)


def versions() -> str:
    """The versions a bug report needs."""
    import numpy
    import pyqtgraph
    import PySide6

    from simulator import __version__

    return (
        f"Linear Classifier Lab {__version__}\n"
        f"Python {platform.python_version()} on {platform.platform()}\n"
        f"PySide6 {PySide6.__version__}, Qt {qVersion()}, pyqtgraph {pyqtgraph.__version__}, "
        f"NumPy {numpy.__version__}\n"
    )


def crash_report_text(
    etype: type[BaseException], value: BaseException, tb: TracebackType | None
) -> str:
    stamp = datetime.now().isoformat(timespec="seconds")
    lines = "".join(traceback.format_exception(etype, value, tb))
    return f"{stamp}\n{versions()}\n{lines}"


class _Relay(QObject):
    """Carries an exception from any thread to the GUI thread."""

    raised = Signal(object, object, object)


class LastResort(QObject):
    """The handler behind `sys.excepthook` (see the module docstring).

    `folder()` gives the folder for crash reports (the autosave's); `on_error()` is called
    first on every error (the window pauses the run and saves the points there);
    `announce(text)` shows a line in the status bar; `clock` measures the quiet period.
    """

    def __init__(
        self,
        parent: QWidget,
        folder: Callable[[], Path],
        on_error: Callable[[], None],
        announce: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self._parent = parent
        self._folder = folder
        self._on_error = on_error
        self._announce = announce
        self.clock = clock
        self._dialog_open = False
        self._quiet_until = -float("inf")
        self._report: Path | None = None
        self._in_report = 0
        self._handling = False
        self.dialogs = 0  # how many dialogs were shown
        self.errors = 0  # how many errors arrived
        self._previous: tuple[object, object] | None = None
        self._relay = _Relay()
        self._relay.raised.connect(self.handle, Qt.ConnectionType.QueuedConnection)

    @property
    def report_path(self) -> Path | None:
        """The crash report of the current burst of errors, once written."""
        return self._report

    def install(self) -> None:
        self._previous = (sys.excepthook, threading.excepthook)
        sys.excepthook = self._from_python
        threading.excepthook = self._from_thread

    def uninstall(self) -> None:
        if self._previous is not None:
            sys.excepthook, threading.excepthook = self._previous  # type: ignore[assignment]
            self._previous = None

    def _from_python(
        self, etype: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        if threading.current_thread() is threading.main_thread():
            self.handle(etype, value, tb)
        else:
            self._relay.raised.emit(etype, value, tb)

    def _from_thread(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            self._relay.raised.emit(args.exc_type, args.exc_value, args.exc_traceback)

    def handle(
        self, etype: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        """One error: pause and save, report, and show a dialog unless one was shown lately."""
        if issubclass(etype, KeyboardInterrupt | SystemExit):
            if self._previous is not None:
                self._previous[0](etype, value, tb)  # type: ignore[operator]
            return
        self.errors += 1
        if self._handling:  # an error while handling one: only keep its trace
            self._write(etype, value, tb)
            return
        self._handling = True
        try:
            try:
                self._on_error()
            except Exception as inner:
                self._write(type(inner), inner, inner.__traceback__)
            self._write(etype, value, tb)
            now = self.clock()
            if self._dialog_open or now < self._quiet_until:
                self._announce(
                    f"{self.errors} internal errors, the last {etype.__name__}: {value}; "
                    f"see {self._report}."
                )
                return
            self._dialog_open = True
        finally:
            self._handling = False
        try:
            self.dialogs += 1
            QMessageBox.critical(self._parent, "Something went wrong", self._message(value))
        finally:
            self._dialog_open = False
            self._quiet_until = self.clock() + QUIET_SECONDS

    def _message(self, value: BaseException) -> str:
        where = f"\n\nReport: {self._report}" if self._report else ""
        return (
            f"An internal error occurred: {type(value).__name__}: {value}\n\n"
            "Your points are kept (and autosaved beside the report); the run is paused. "
            f"You can go on working.{where}"
        )

    def _write(
        self, etype: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        """Start a report for a new burst; add to it within the burst (at most a few traces)."""
        now = self.clock()
        new_burst = self._report is None or not (self._dialog_open or now < self._quiet_until)
        try:
            if new_burst:
                folder = self._folder()
                folder.mkdir(parents=True, exist_ok=True)
                name = datetime.now().strftime("crash-%Y%m%d-%H%M%S-%f.txt")
                self._report = folder / name
                self._in_report = 0
                # Owner only (0600): a report quotes the user's paths and data.
                descriptor = os.open(self._report, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with open(descriptor, "w", encoding="utf-8") as out:
                    out.write(crash_report_text(etype, value, tb))
            elif self._report is not None:
                self._in_report += 1
                if self._in_report > _MAX_TRACEBACKS + _MAX_LINES:
                    return
                with self._report.open("a", encoding="utf-8") as out:
                    if self._in_report <= _MAX_TRACEBACKS:
                        out.write("\n---\n" + "".join(traceback.format_exception(etype, value, tb)))
                    else:
                        out.write(f"--- and another {etype.__name__}: {value}\n")
        except OSError:
            self._report = None  # nowhere to write: the dialog still tells what happened
