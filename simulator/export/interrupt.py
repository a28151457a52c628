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
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["StopFlag", "catch_signals", "exit_status", "ignore_signals", "raising"]

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


def catch_signals(flag: StopFlag) -> Callable[[], None]:
    """From now on SIGINT and SIGTERM set `flag` instead of interrupting; returns the
    function that puts the previous handlers back."""
    previous = {signum: signal.getsignal(signum) for signum in _SIGNALS}
    for signum in _SIGNALS:
        signal.signal(signum, lambda number, _frame: flag.set(number))

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore


@contextmanager
def raising(flag: StopFlag) -> Iterator[None]:
    """Inside, SIGINT and SIGTERM set `flag` and raise KeyboardInterrupt too: for long pure
    Python and NumPy work that reads no flag (the lab's exact γ*), where nothing of Qt or
    a writer thread can be cut short. Afterwards they only set the flag again."""
    if flag.is_set():
        raise KeyboardInterrupt
    previous = {signum: signal.getsignal(signum) for signum in _SIGNALS}

    def stop_now(number: int, _frame: object) -> None:
        flag.set(number)
        raise KeyboardInterrupt

    for signum in _SIGNALS:
        signal.signal(signum, stop_now)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def ignore_signals() -> None:
    """Ignore SIGINT and SIGTERM from now on: for a process whose exit status is decided.
    (Python puts back the default handlers while it shuts down, but not an ignore, so a
    late signal can no longer kill the process half-way through its exit.)"""
    for signum in _SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
