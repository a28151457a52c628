"""Long file work off the GUI thread: reading and writing run on a worker while the window
keeps answering, with a progress dialog and Cancel.

`run_in_background(parent, text, work)` starts `work(cancelled)` on Qt's global thread
pool and waits in a local event loop, so the caller reads like a plain function call
(`open_file` still returns True or False) while paints, timers and the Cancel button go
on. The progress dialog is window-modal (the points cannot change under a save) and
appears only if the work takes longer than `SHOW_AFTER_MS`: small files show nothing.
Until then, and while the work lasts, the window takes no input (`InputBlock`: keys,
clicks, the wheel, shortcuts and closing it are dropped, while paints and timers go on),
so a second Open, a Step or a close cannot run inside the first Open's wait.

What is handed to a worker is immutable (a `Dataset`, `Settings`) or made by the worker
and handed back whole (a `Simulation` nobody else holds yet), so no lock is needed.

Cancel returns at once. A load's result is then dropped when the worker finishes; a save
checks `cancelled()` before it commits, so a cancelled save leaves the old file as it was
(QSaveFile writes a temporary file and renames it only on commit).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QEventLoop,
    QFileDevice,
    QObject,
    QRunnable,
    QSaveFile,
    Qt,
    QThreadPool,
    Signal,
)
from PySide6.QtGui import QWindow
from PySide6.QtWidgets import QProgressDialog, QWidget

from simulator.engine.files import Cancelled, regular_target

__all__ = [
    "SHOW_AFTER_MS",
    "Cancelled",
    "InputBlock",
    "Job",
    "Outcome",
    "run_in_background",
    "write_atomically",
]

SHOW_AFTER_MS = 300

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """How background work ended: `value` when done, `error` when it failed."""

    value: T | None = None
    error: BaseException | None = None
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return not self.cancelled and self.error is None


class _Signals(QObject):
    finished = Signal(object)  # Outcome


class Job(QRunnable):
    """`work(cancelled)` on a worker thread; `signals.finished` carries its `Outcome` back
    (queued to the thread that made the job); `done` is set when it has returned."""

    def __init__(
        self,
        work: Callable[[Callable[[], bool]], object],
        cancel: threading.Event | None = None,
    ) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self.signals = _Signals()
        self.done = threading.Event()
        self._work = work
        self._cancel = cancel if cancel is not None else threading.Event()

    def run(self) -> None:
        try:
            outcome: Outcome[object] = Outcome(value=self._work(self._cancel.is_set))
        except Cancelled:
            outcome = Outcome(cancelled=True)
        except BaseException as exc:  # handed to the GUI thread, which decides what to say
            outcome = Outcome(error=exc)
        self.done.set()
        with contextlib.suppress(RuntimeError):  # the receiver is gone (the app quit)
            self.signals.finished.emit(outcome)

    def start(self) -> None:
        QThreadPool.globalInstance().start(self)


_USER_INPUT = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.KeyRelease,
        QEvent.Type.ShortcutOverride,
        QEvent.Type.Shortcut,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseButtonDblClick,
        QEvent.Type.Wheel,
        QEvent.Type.ContextMenu,
        QEvent.Type.TouchBegin,
        QEvent.Type.TouchUpdate,
        QEvent.Type.TouchEnd,
        QEvent.Type.TabletPress,
        QEvent.Type.TabletRelease,
        QEvent.Type.Drop,
        QEvent.Type.Close,
    }
)


class InputBlock(QObject):
    """While installed (a context manager), the user's input to `window` goes nowhere.

    An application-wide event filter drops keys, clicks, the wheel, shortcuts and the
    request to close for `window` and its widgets (other windows, such as the progress
    dialog, still get theirs); the event loop itself runs on, so paints and timers do.
    A dropped shortcut override is accepted, which tells Qt not to fire the shortcut.
    """

    def __init__(self, window: QWidget) -> None:
        super().__init__()
        self._window = window

    def __enter__(self) -> InputBlock:
        app = QCoreApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        return self

    def __exit__(self, *_: object) -> None:
        app = QCoreApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def _inside(self, target: QObject) -> bool:
        if isinstance(target, QWidget):
            return target.window() is self._window
        if isinstance(target, QWindow):
            return target is self._window.windowHandle()
        owner = target.parent()  # an action's shortcut: the action belongs to a widget
        while owner is not None and not isinstance(owner, QWidget):
            owner = owner.parent()
        return owner is not None and owner.window() is self._window

    def eventFilter(self, target: QObject, event: QEvent) -> bool:
        if event.type() not in _USER_INPUT or not self._inside(target):
            return False
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # "the widget wants the key": no shortcut fires
        else:
            event.ignore()  # a close that is ignored leaves the window open
        return True


def run_in_background(
    parent: QWidget | None,
    text: str,
    work: Callable[[Callable[[], bool]], T],
    *,
    show_after_ms: int | None = None,
) -> Outcome[T]:
    """Run `work(cancelled)` on a worker thread; return its `Outcome` (see the module doc).

    `cancelled()` tells the work that the user pressed Cancel; it may raise `Cancelled`.
    """
    cancel = threading.Event()
    task = Job(work, cancel)
    signals = task.signals  # lives in this thread: its signal reaches us queued
    result: list[Outcome[T]] = []
    loop = QEventLoop()

    def finished(outcome: Outcome[T]) -> None:
        if not result:
            result.append(outcome)
        loop.quit()

    def cancelled() -> None:
        cancel.set()
        finished(Outcome(cancelled=True))

    signals.finished.connect(finished, Qt.ConnectionType.QueuedConnection)
    dialog = QProgressDialog(text, "Cancel", 0, 0, parent)  # 0..0: a busy indicator
    dialog.setObjectName("fileProgress")
    dialog.setWindowTitle("Linear Classifier Lab")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(SHOW_AFTER_MS if show_after_ms is None else show_after_ms)
    dialog.setValue(0)  # starts the clock after which the dialog shows itself
    dialog.setAutoReset(False)
    dialog.setAutoClose(False)
    dialog.canceled.connect(cancelled)
    task.start()
    if not result:
        if parent is None:
            loop.exec()
        else:
            with InputBlock(parent.window()):
                loop.exec()
    dialog.canceled.disconnect(cancelled)
    signals.finished.disconnect(finished)
    shown = dialog.isVisible()
    dialog.close()
    dialog.deleteLater()
    if shown and parent is not None:
        # Keys go back to the window at once, as before the dialog (activation is an event).
        parent.window().activateWindow()
        loop.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    return result[0]


def write_atomically(
    path: Path,
    make_text: Callable[[], str],
    cancelled: Callable[[], bool] = lambda: False,
    *,
    private: bool = False,
) -> None:
    """Write `make_text()` to `path` through QSaveFile: all of it, or the old file stays.

    A symbolic link is followed (its target written), a device, pipe or socket refused.
    An existing file keeps its permissions; a new one is 0600 if `private` (sessions and
    the autosave hold the class's work). Raises OSError with the reason, or `Cancelled`
    (before the commit) if asked to."""
    try:  # QSaveFile would replace a pipe or device (/dev/null, as root) with a file
        path = regular_target(path)
    except OSError as exc:
        raise OSError(f"{path}: {exc.strerror or exc}") from None
    text = make_text()
    if cancelled():
        raise Cancelled
    new = not os.path.lexists(path)
    out = QSaveFile(str(path))
    if not out.open(QSaveFile.OpenModeFlag.WriteOnly):
        raise OSError(f"{path}: {out.errorString()}")
    if private and new:
        owner = QFileDevice.Permission.ReadOwner | QFileDevice.Permission.WriteOwner
        out.setPermissions(owner)
    data = text.encode("utf-8")
    if out.write(data) != len(data):
        reason = out.errorString()
        out.cancelWriting()
        out.commit()
        raise OSError(f"{path}: {reason}")
    if cancelled():
        out.cancelWriting()
        out.commit()  # discards the temporary file
        raise Cancelled
    if not out.commit():
        raise OSError(f"{path}: {out.errorString()}")
