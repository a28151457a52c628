"""`MistakesChart` (`mistakesChart`): k against the trial, a step up at every mistake.

The mistake bound that applies (`frame.mistake_bound`, when finite) is a horizontal line.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from simulator.presentation.frame import Frame, format_bound, format_number
from simulator.ui.chart_base import Chart, bound_line, in_view, unbroken
from simulator.ui.chart_curve import (
    BLACK,
    VERMILLION,
    FloatArray,
    GrowingCurve,
    curve_pen,
    step_vertices,
    tip_vertices,
)

__all__ = ["MistakesChart"]


class MistakesChart(Chart):
    """k against the trial, with the bound that applies (see the module docstring)."""

    heading = "Mistakes k against the trial t"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("mistakesChart", parent)
        item = self.getPlotItem()
        self.set_labels("trial t", "mistakes k")
        self.show_key(False)  # one curve, and the bound is labelled on its line
        self.curve = GrowingCurve(item, BLACK, per_point=2, origin=(0.0, 0.0))
        self.tip = pg.PlotCurveItem(pen=curve_pen(BLACK))
        item.addItem(self.tip)
        self.bound_line = bound_line(VERMILLION)
        self.bound_line.setVisible(False)
        item.addItem(self.bound_line, ignoreBounds=True)
        self._key: tuple[int, int] | None = None

    def paint_frame(self, frame: Frame) -> None:
        trace = frame.trace
        self._trace = trace
        if trace.key != self._key:
            self.curve.clear()
            self._key = trace.key
        times = trace.mistake_trials
        m = trace.mistakes
        ks = np.arange(len(times) + 1, dtype=np.float64)

        def points(start: int, stop: int, stride: int) -> tuple[FloatArray, FloatArray]:
            return step_vertices(times, ks[1:], ks[:-1], start, stop, stride)

        self.curve.update(m, points)
        last = self.curve.last_point
        lead = (float(times[last]), float(last + 1)) if last >= 0 else (0.0, 0.0)
        self.tip.setData(*tip_vertices(last + 1, m, points, lead, (float(trace.trials), float(m))))
        self.tip.setPen(self.curve.pen)
        bound = frame.mistake_bound
        finite = bound is not None and math.isfinite(bound)
        self.bound_line.setVisible(finite)
        learner, general, own = frame.learner, frame.bound_is_general, frame.bound
        what = "bound" if general or own is None else own.formula
        if bound is not None and finite:
            self.bound_line.setValue(bound)
            self.bound_line.label.setFormat(f"{what} = {format_number(bound)}")
        top = max(float(m), 1.0)
        if bound is not None and in_view(bound, top):
            top = max(top, bound)
        self.set_axes((0.0, max(float(trace.trials), 1.0)), (0.0, top * 1.05))
        # No numbers that change every trial here: k and t are on the panel, and a caption
        # laid out again every frame would cost more than the chart.
        head = "k goes up by one at each mistake."
        title = html.escape(learner.title)
        if general:
            whose = f"{title}'s mistake bound from this w₀ ≠ 0"
        elif own is not None:
            whose = f"{title}'s mistake bound {html.escape(own.formula)} ({html.escape(own.owner)})"
        else:
            whose = f"{title}'s mistake bound on these data"
        separable = frame.report.separable
        if bound is not None and finite:
            tail = f"{whose} is {format_bound(bound, separable)} (dashed)."
        elif bound is None:
            tail = f"No mistake bound applies to {title} here."
        elif not len(frame.dataset):
            tail = ""
        elif separable:  # finite, but past the largest float: no line to draw
            shown = unbroken(format_bound(bound, separable))
            tail = f"{whose} is {shown}, far above the chart."
        else:
            tail = "The data are not linearly separable: k has no bound."
        self.set_caption(f"{head}<br>{tail}")
        self.set_note("" if len(frame.dataset) else "No points yet.")

    def table(self) -> tuple[Sequence[str], list[Sequence[object]]]:
        trace = self._trace
        if trace is None:
            return ("k", "trial"), []
        times = trace.mistake_trials[: trace.mistakes]
        return ("k", "trial"), [(k, int(t)) for k, t in enumerate(times.tolist(), start=1)]
