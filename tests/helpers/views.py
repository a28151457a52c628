"""PlotViews made by a test and freed by Qt at its end (STYLE rule 8).

A parentless view left to Python's garbage collector is torn down in the middle of event
processing, and pyqtgraph's items then run Python code on half-deleted C++ objects (seen to
abort pytest). `plot_views()` closes and deletes what it made, in Qt's order.
"""

from contextlib import contextmanager

from PySide6.QtCore import QCoreApplication, QEvent


@contextmanager
def plot_views():
    from simulator.ui.plot_view import PlotView

    views = []

    def make(**options):
        view = PlotView(**options)
        views.append(view)
        return view

    try:
        yield make
    finally:
        for view in views:
            view.close()
            view.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
