"""The window: PySide6 and pyqtgraph views, and the controller that drives the engine.

`MainWindow` and `SimulationController` load on first use (PEP 562), so importing a
Qt-free module of this package, such as `simulator.ui.frame`, loads no Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulator.ui.controller import SimulationController
    from simulator.ui.main_window import MainWindow

__all__ = ["MainWindow", "SimulationController"]


def __getattr__(name: str) -> Any:
    if name == "MainWindow":
        from simulator.ui.main_window import MainWindow

        return MainWindow
    if name == "SimulationController":
        from simulator.ui.controller import SimulationController

        return SimulationController
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
