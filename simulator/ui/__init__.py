"""The views: PySide6 and pyqtgraph widgets that paint `Frame`s, and the controller that
drives the engine and hands them frames.

Importing a module of this package loads no window. `simulator.ui.MainWindow` is the
round-1 public name of the window, which lives in the shell (`simulator.app`): it is
forwarded on first use (PEP 562), the one name of this package that reaches up a layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulator.app.main_window import MainWindow
    from simulator.ui.controller import SimulationController

__all__ = ["MainWindow", "SimulationController"]


def __getattr__(name: str) -> Any:
    if name == "MainWindow":
        from simulator.app.main_window import MainWindow

        return MainWindow
    if name == "SimulationController":
        from simulator.ui.controller import SimulationController

        return SimulationController
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
