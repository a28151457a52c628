"""The window: PySide6 and pyqtgraph views, and the controller that drives the engine."""

from simulator.ui.controller import SimulationController
from simulator.ui.main_window import MainWindow

__all__ = ["MainWindow", "SimulationController"]
