"""Autosave: the window's points, settings and trial reached, written a moment after any
change, so a crash or a power cut loses at most `DELAY_MS` of work.

Where: `autosave.lab.json` (a session file) in `data_folder()`, which is
`$LINEAR_LAB_DATA_DIR` if set, else Qt's AppDataLocation. A clean exit removes the file;
if it is there at the next start, the last run did not end cleanly.

When: the first change starts a single-shot timer of `DELAY_MS`; changes while it runs
ride along. So a Run, which changes the trial every frame, is saved every `DELAY_MS`, and
nothing is written while nothing changes. The file is built and written on a worker thread
(a million points take seconds to write), atomically through QSaveFile, never two writes
at once. With very large data the wait grows to `COST_FACTOR` times what the last write
took (a million points: about a minute), so autosaving never takes more than a small
share of the machine from the class's run.

Where that cannot be (the folder is a file or cannot be written, or `autosave.lab.json`
is a folder), autosave is off and `problem` says why in one line, which the window shows
in its status bar at start; a write that fails later says so once (`failed`), not at
every retry.

Two windows: each running window holds a lock (`QLockFile`) on its own file; the first
takes `autosave.lab.json`, a second one `autosave-2.lab.json`, and so on. A lock whose
process died is stale and is taken over, so the next start finds the dead run's file.

The work of a run that crashed survives until the user answers for it. A window takes a
slot whose file a dead run left (`leftover`) before a free one, so that it can offer it;
that file stays "unsettled" until the user has been asked (`held`, around the question
and the restore) or discards it (`remove`). Until then nothing writes over it and a clean
exit does not delete it: a window that never asks (`--session`, `--screenshot`) moves its
own autosaves to a free slot at its first write, and leaves the dead run's file for the
next start to offer.

Autosave files are readable by their owner only (0600): they hold the class's work.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PySide6.QtCore import QLockFile, QObject, QStandardPaths, QTimer, Signal

from simulator.app.file_tasks import Job, Outcome, write_atomically
from simulator.engine import Dataset, Settings
from simulator.engine.session import session_to_json

__all__ = [
    "AUTOSAVE_NAME",
    "COST_FACTOR",
    "DELAY_MS",
    "REMOVE_WAIT_S",
    "Autosaver",
    "State",
    "data_folder",
    "session_text",
]

AUTOSAVE_NAME = "autosave.lab.json"
DELAY_MS = 2000
COST_FACTOR = 10
REMOVE_WAIT_S = 1.0  # how long closing waits for an autosave being written
_SLOTS = 16


def data_folder() -> Path:
    """`$LINEAR_LAB_DATA_DIR`, else Qt's AppDataLocation (e.g. ~/.local/share/...)."""
    folder = os.environ.get("LINEAR_LAB_DATA_DIR")
    if folder:
        return Path(folder)
    location = QStandardPaths.StandardLocation.AppDataLocation
    return Path(QStandardPaths.writableLocation(location))


@dataclass(frozen=True)
class State:
    """What a session keeps: immutable (`rule_state` is a copy), so a worker may write it.
    `rule_state` lets a restore check that the replay gave the same weights; `origin`
    (the autosave's) which file or preset the points were (`engine.session.ORIGIN_KINDS`),
    so a recovery gives back the name."""

    dataset: Dataset
    settings: Settings
    trial: int
    rule_state: NDArray[np.float64]
    origin: tuple[str, str] | None = None


def session_text(state: State) -> str:
    """The session file's text for `state` (engine's format, see `engine.session`)."""
    return session_to_json(
        state.dataset,
        state.settings,
        state.trial,
        state=state.rule_state,
        origin=state.origin,
    )


class Autosaver(QObject):
    """Writes `state()` to this window's autosave file a moment after `changed()`."""

    written = Signal(object)  # Path, after each write
    failed = Signal(str)  # why a write failed

    def __init__(
        self,
        state: Callable[[], State],
        folder: Path | None = None,
        parent: QObject | None = None,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(parent)
        self._state = state
        self.clock = clock  # times each write (on the worker) to space out costly ones
        self.folder = folder if folder is not None else data_folder()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DELAY_MS)
        self.timer.timeout.connect(self.save)
        self._lock: QLockFile | None = None
        self.path: Path | None = None
        self._written: State | None = None
        self._writing: Job | None = None
        self._failing = False
        self._again = False
        self._held = 0
        self._unsettled = False  # the slot's file is a dead run's, not yet answered for
        self._keep = False  # keep it so once the question is over (see `keep_leftover`)
        self.problem: str | None = None  # why autosave is off, in one line
        self._claim()

    @property
    def enabled(self) -> bool:
        """False when no autosave file could be claimed (an unwritable folder)."""
        return self.path is not None

    def _claim(self) -> None:
        """Take a slot: one whose file a dead run left (to offer it), else a free one."""
        off = "Autosave is off"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            why = "a file is in the way" if isinstance(exc, FileExistsError) else exc.strerror
            self.problem = f"{off}: its folder {self.folder} cannot be made ({why})."
            return
        taken = self._take_slot(leftovers_first=True)
        if taken is None:
            return
        lock, path = taken
        if path.exists() and not path.is_file():  # a folder, a pipe in the way
            lock.unlock()
            kind = "a folder" if path.is_dir() else "not a regular file"
            self.problem = f"{off}: {path} is {kind}."
            return
        self._lock, self.path = lock, path
        self._unsettled = path.is_file()

    def _take_slot(self, *, leftovers_first: bool) -> tuple[QLockFile, Path] | None:
        """Lock a slot: with `leftovers_first` the first holding a dead run's file, else the
        first free one; otherwise the first whose file does not exist. None (and `problem`
        says why) when there is none."""
        denied = False
        free: tuple[QLockFile, Path] | None = None
        for slot in range(1, _SLOTS + 1):
            suffix = "" if slot == 1 else f"-{slot}"
            lock = QLockFile(str(self.folder / f"autosave{suffix}.lock"))
            lock.setStaleLockTime(0)  # never stale while its process lives
            if not lock.tryLock(0):
                denied = denied or lock.error() != QLockFile.LockError.LockFailedError
                continue
            path = self.folder / AUTOSAVE_NAME.replace(".lab", f"{suffix}.lab")
            found = os.path.lexists(path)
            if leftovers_first and found:
                if free is not None:
                    free[0].unlock()
                return lock, path
            if free is None and (leftovers_first or not found):
                free = (lock, path)
                if not leftovers_first:
                    return free
                continue
            lock.unlock()
        if free is not None:
            return free
        off = "Autosave is off"
        self.problem = (
            f"{off}: the folder {self.folder} cannot be written."
            if denied
            else f"{off}: {_SLOTS} other windows autosave into {self.folder}."
        )
        return None

    def _step_aside(self) -> bool:
        """Leave this slot's unsettled file to the next start: take a free slot instead.
        False (and `failed` says why) if there is none."""
        taken = self._take_slot(leftovers_first=False)
        if taken is None:
            self.failed.emit(self.problem or "Autosave is off.")
            self._unsettled = False
            self.path = None
            if self._lock is not None:
                self._lock.unlock()
                self._lock = None
            return False
        if self._lock is not None:
            self._lock.unlock()
        self._lock, self.path = taken
        self._unsettled = False
        return True

    @property
    def writing(self) -> bool:
        """Whether a write is on its way to disk (a worker has it)."""
        return self._writing is not None

    def leftover(self) -> Path | None:
        """This slot's file from a run that did not end cleanly, if there is one."""
        if self.path is not None and self.path.is_file():
            return self.path
        return None

    # -- writing -------------------------------------------------------------------------------

    def changed(self) -> None:
        """Something a teacher would not want to lose changed: write it within DELAY_MS."""
        if self.enabled and not self.timer.isActive():
            self.timer.start()

    def keep_leftover(self) -> None:
        """The user did not answer for the dead run's file after all (a restore was
        cancelled): it stays unsettled, so no write replaces it and the next start offers
        it; this window's autosaves go to a free slot."""
        if self.path is not None and self.path.is_file():
            self._keep = True

    @contextmanager
    def held(self) -> Iterator[None]:
        """No writes inside (while the user decides about the leftover file); once out,
        the leftover is settled (restored, discarded or kept aside): writes may replace it."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held:
                self._unsettled, self._keep = self._keep, False
                if self._again:
                    self._again = False
                    self.changed()

    def save(self) -> None:
        """Write the current state now, on a worker (unless it is already on disk)."""
        if self.path is None:
            return
        if self._held or self._writing is not None:
            self._again = True  # once the hold ends or the write in flight finishes
            return
        state = self._state()
        if self._written is not None and _same(state, self._written):
            return
        if len(state.dataset) == 0:
            if not self._unsettled:  # the dead run's file stays for the next start
                self.remove()  # nothing to lose; an old file would only offer stale points
            self._written = state
            return
        if self._unsettled and not self._step_aside():
            return
        path, clock = self.path, self.clock
        assert path is not None

        def write(cancelled: Callable[[], bool]) -> float:
            start = clock()
            write_atomically(path, lambda: session_text(state), private=True)
            return clock() - start

        job = Job(write)
        job.signals.finished.connect(lambda outcome: self._done(job, state, outcome))
        self._writing = job
        job.start()

    def _done(self, job: Job, state: State, outcome: Outcome[float]) -> None:
        if job is not self._writing:
            return  # removed meanwhile (see `remove`)
        self._writing = None
        if outcome.error is not None:
            if not self._failing:  # say it once, not every DELAY_MS of a run
                self.failed.emit(f"Autosave failed: {outcome.error}")
            self._failing = True
        else:
            self._failing = False
            self._written = state
            cost_ms = 1000 * (outcome.value or 0.0)
            self.timer.setInterval(max(DELAY_MS, round(COST_FACTOR * cost_ms)))
            self.written.emit(self.path)
        if self._again:
            self._again = False
            self.changed()

    def remove(self) -> bool:
        """Delete this window's autosave file (a clean exit, or the user discarded it);
        True if it is gone.

        A write in flight is waited for first (at most `REMOVE_WAIT_S`), so it cannot
        bring the file back. A write that takes longer (huge data on a slow disk), or a
        file that cannot be deleted, is left as it is, with one line (`failed`): closing
        never hangs, and the next start offers that file, which is the work anyway."""
        self.timer.stop()
        if self._writing is not None:
            if not self._writing.done.wait(REMOVE_WAIT_S):
                self.failed.emit("Autosave still being written; it stays for the next start.")
                return False
            self._writing = None
        self._written = None
        if self.path is not None:
            try:
                self.path.unlink(missing_ok=True)
            except OSError as exc:  # from closeEvent or the recovery question: not into Qt
                self.failed.emit(f"Autosave not removed ({exc}); the next start offers it.")
                return False
        self._unsettled = False  # the user discarded it
        return True

    def release(self) -> None:
        """A clean exit: no file of this window, no lock. A dead run's file that nobody
        answered for stays, for the next start to offer."""
        if self._unsettled:
            self.timer.stop()
        else:
            self.remove()
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None


def _same(a: State, b: State) -> bool:
    return (
        a.dataset is b.dataset
        and a.settings == b.settings
        and a.trial == b.trial
        and a.origin == b.origin
    )
