"""Command line: `python main.py [options]` opens the window; `python main.py export ...`
writes animation frames headless; `python main.py lab ...` runs the Winnow lab.

`main` first makes SIGINT and SIGTERM set a flag, and only then imports the command line's
work (`simulator.cli.commands`: NumPy, SciPy and the engine take a second or more to load),
so a signal at any moment after `main.py` starts ends it with one line and 130 or 143,
never a traceback. The names of `commands` (`parse`, `build_parser`, `Command`, ...) are
importable from here as before.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from simulator.export.interrupt import StopFlag, catch_signals

__all__ = ["Command", "build_parser", "display_problem", "main", "parse"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    stop = StopFlag()
    restore_signals = catch_signals(stop)
    from simulator.cli.commands import run

    return run(argv, stop, restore_signals)


def __getattr__(name: str) -> Any:
    """`simulator.cli.parse` and the rest of `commands`, loaded on first use."""
    if name.startswith("__"):  # what import machinery and tools ask of any module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    commands = importlib.import_module("simulator.cli.commands")
    if name == "commands":
        return commands
    try:
        return getattr(commands, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
