"""The controller's undo commands: each data change is one step on its `QUndoStack`.

A command holds two immutable datasets, each with the settings it last had, and asks the
controller to show one or the other (`SimulationController._revisit`, handed in as
`revisit`). What undo and redo bring back is decided there (see the controller's module
docstring); the command only swaps and remembers.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from simulator.engine import Dataset, Settings

__all__ = ["DatasetCommand", "Revisit"]

Revisit = Callable[[Dataset, Settings, bool, bool], bool]
"""Show (dataset, recorded settings, restart, carries settings); False if it could not."""


class DatasetCommand(QUndoCommand):
    """One data change, undoable: the controller swaps between two immutable datasets,
    each with the settings it last had.

    The controller applies the change before pushing (so a failure pushes nothing); the
    push's own first `redo` therefore does nothing. A later undo or redo that fails marks
    the command obsolete, and QUndoStack drops it: the stack never claims a state the
    window does not show. `carries_settings`: the change brought its own settings (an
    opened session), so undo and redo bring back exactly the settings of each side.
    `settings()` is the controller's settings of now, `revisit` shows a side.
    """

    def __init__(
        self,
        text: str,
        before: tuple[Dataset, Settings],
        after: tuple[Dataset, Settings],
        restart: bool,
        *,
        settings: Callable[[], Settings],
        revisit: Revisit,
    ) -> None:
        super().__init__(text)
        self._settings, self._revisit = settings, revisit
        self._before, self._after, self._restart = before, after, restart
        self._carries = before[1] != after[1]
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self._before = (self._before[0], self._settings())  # what it had last
        if not self._revisit(*self._after, self._restart, self._carries):
            self.setObsolete(True)

    def undo(self) -> None:
        self._after = (self._after[0], self._settings())
        if not self._revisit(*self._before, self._restart, self._carries):
            self.setObsolete(True)
