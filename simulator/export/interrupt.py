"""Stopping an export cleanly: a flag that Cancel, SIGINT or SIGTERM sets and the export
loop reads between frames. No Qt here.

A signal handler must not raise into whatever the main thread is doing: inside Qt's
rendering or while a worker thread writes a file, a KeyboardInterrupt has been seen to
crash the process. So the handlers only record the signal; the export stops at the next
frame boundary, lets the workers finish the file in hand, and removes its temporaries.
The flag is a plain attribute (no lock), so a handler can never deadlock on it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["StopFlag", "exit_status", "stop_on_signals"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopFlag:
    """Set once to ask for a stop; `signal` names the signal that asked, if one did."""

    def __init__(self) -> None:
        self._set = False
        self.signal: int | None = None

    def set(self, signum: int | None = None) -> None:
        if not self._set:
            self.signal = signum
        self._set = True

    def is_set(self) -> bool:
        return self._set


def exit_status(signum: int) -> int:
    """The shell's convention for a process stopped by a signal: 128 + its number."""
    return 128 + signum


@contextmanager
def stop_on_signals(flag: StopFlag) -> Iterator[StopFlag]:
    """While inside, SIGINT and SIGTERM set `flag` instead of interrupting."""
    previous = {signum: signal.getsignal(signum) for signum in _SIGNALS}
    for signum in _SIGNALS:
        signal.signal(signum, lambda number, _frame: flag.set(number))
    try:
        yield flag
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
