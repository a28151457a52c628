"""`python main.py export ...`: frames without a window, on Qt's offscreen platform.

The offscreen platform is chosen always (not only without a display), so the same
arguments give the same pixels whether or not a screen is attached.

Exit status: 0 written; 1 a write failed (the reason in one line); 2 the job refused its
input; 128 + the signal's number when SIGINT (130) or SIGTERM (143) stopped it. A stop
keeps the complete PNG frames and removes the unfinished GIF and MP4.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from simulator.engine import Dataset, Settings, Simulation
from simulator.export.interrupt import StopFlag, exit_status
from simulator.export.options import ExportOptions

if TYPE_CHECKING:
    from simulator.export.job import ExportJob

__all__ = ["PROG", "export_main"]

PROG = "linear-classifier-lab export"
_QUIET_QT = ("propagateSizeHints",)  # the offscreen plugin's harmless complaint


def _qt_messages(mode: object, context: object, message: str) -> None:
    if not any(part in message for part in _QUIET_QT):
        print(f"{PROG}: qt: {message}", file=sys.stderr)


def _say(text: str) -> None:
    print(f"{PROG}: {text}", file=sys.stderr)


def export_main(
    dataset: Dataset,
    settings: Settings,
    options: ExportOptions,
    *,
    quiet: bool = False,
    stop: StopFlag | None = None,
) -> int:
    """Run the export; returns the exit status (see the module docstring).

    `stop` is read between frames (the command line sets it from SIGINT and SIGTERM).
    """
    stop = stop if stop is not None else StopFlag()
    if stop.is_set():
        return exit_status(stop.signal or 2)
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QCoreApplication, QEvent, qInstallMessageHandler

    from simulator.export.job import ExportJob
    from simulator.export.writers import ExportError

    qInstallMessageHandler(_qt_messages)
    from simulator.ui.style import painting_application

    app = painting_application()
    try:
        try:
            job = ExportJob(Simulation.from_settings(dataset, settings), options, stop=stop)
        except ValueError as exc:
            _say(f"error: {exc}")
            return 2
        except ExportError as exc:
            _say(f"error: {exc}")
            return 1
        return _run(job, quiet=quiet)
    finally:
        # Free the hidden views now, while Qt is whole (deleteLater needs an event loop).
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        del app


def _run(job: ExportJob, *, quiet: bool) -> int:
    from simulator.export.writers import ExportError

    options, stop = job.options, job.cancel_requested
    limit = options.trial_limit
    try:
        reported = 0
        while not job.advance(0.5):
            if not quiet and job.trials_run - reported >= max(1, limit // 10):
                reported = job.trials_run
                _say(f"trial {reported:,} of {limit:,}, {job.frames_written:,} frames...")
        if stop.is_set():
            result = job.cancel()
        else:
            if not quiet and (options.gif or options.mp4):
                _say(f"{job.frames_written:,} frames; completing the animation...")
            result = job.finish()
    except ExportError as exc:
        job.cancel()
        _say(f"error: {exc}")
        return 1
    if stop.is_set():
        _say(result.summary())
        return exit_status(stop.signal or 2)
    if result.capped:
        _say(
            f"warning: stopped at the cap of {options.max_trials:,} trials without converging "
            "(raise --max-trials, or use --trials N)"
        )
    if not quiet:
        _say(result.summary())
    return 0
