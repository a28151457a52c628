"""`python main.py export ...`: frames without a window, on Qt's offscreen platform.

The offscreen platform is chosen always (not only without a display), so the same
arguments give the same pixels whether or not a screen is attached.
"""

from __future__ import annotations

import os
import sys

from simulator.cli import Invocation

__all__ = ["export_main"]

_QUIET_QT = ("propagateSizeHints",)  # the offscreen plugin's harmless complaint


def _qt_messages(mode, context, message: str) -> None:
    if not any(part in message for part in _QUIET_QT):
        print(f"qt: {message}", file=sys.stderr)


def export_main(invocation: Invocation) -> int:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    qInstallMessageHandler(_qt_messages)
    app = QApplication.instance() or QApplication([sys.argv[0]])  # noqa: F841 - keep alive

    from simulator.engine import Simulation
    from simulator.export.job import ExportJob, ExportOptions
    from simulator.export.writers import ExportError

    o = invocation.options
    prog = "linear-classifier-lab export"
    assert invocation.dataset is not None  # parse() insists
    try:
        options = ExportOptions(
            folder=o.out,
            trials=o.trials,
            max_trials=o.max_trials,
            gif=o.gif,
            mp4=o.mp4,
            size=o.size,
            fps=o.fps,
        )
        job = ExportJob(Simulation.from_settings(invocation.dataset, invocation.settings), options)
    except (ValueError, ExportError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    expected = job.frames_expected
    try:
        reported = 0
        while not job.advance(0.5):
            if not o.quiet and job.frames_written - reported >= max(1, expected // 10):
                reported = job.frames_written
                print(f"{prog}: {reported} frames...", file=sys.stderr)
        if not o.quiet and (o.gif or o.mp4):
            print(
                f"{prog}: {job.frames_written} frames; encoding "
                f"{' and '.join(f for f in ('GIF' if o.gif else '', 'MP4' if o.mp4 else '') if f)}"
                "...",
                file=sys.stderr,
            )
        result = job.finish()
    except ExportError as exc:
        job.cancel()
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: {job.cancel().summary()}", file=sys.stderr)
        return 130
    if not o.quiet:
        print(f"{prog}: {result.summary()}", file=sys.stderr)
    return 0
