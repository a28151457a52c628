"""`LossChart` (`lossChart`): the loss, or the weights, over time.

For a least-squares rule (Adaline), the mean squared error after each epoch, log scale,
above the least-squares floor (the MSE of w_LS); for a mistake-driven rule without
Novikoff's bound (the Winnows), w after each mistake against the trial (log scale while
every weight is positive); otherwise, why it is empty.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtWidgets import QWidget

from simulator.presentation.frame import Frame, format_number
from simulator.presentation.trace import Followed, Trace
from simulator.ui.chart_base import Chart, bound_line
from simulator.ui.chart_curve import (
    BLUE,
    GREEN,
    SERIES,
    FloatArray,
    GrowingCurve,
    Points,
    curve_pen,
    tip_vertices,
)

__all__ = ["LossChart"]

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _same(values: FloatArray) -> FloatArray:
    return values


def _log10(values: FloatArray) -> FloatArray:
    """log10 where positive and finite; nan (not drawn) elsewhere."""
    out = np.full(values.shape, np.nan)
    ok = np.isfinite(values) & (values > 0)
    out[ok] = np.log10(values[ok])
    return out


Transform = Callable[[FloatArray], FloatArray]


def _weight_steps(
    times: NDArray[np.int64], column: FloatArray, first: float, transform: Transform
) -> Points:
    """The vertices of one weight's step curve: at each mistake's trial, from the weight
    before it to the weight after (before the first mistake: w₀, `first`)."""

    def points(a: int, b: int, s: int) -> tuple[FloatArray, FloatArray]:
        idx = np.arange(a, b, s)
        y = np.empty(2 * len(idx))
        y[1::2] = transform(column[idx])
        y[0::2] = transform(column[np.maximum(idx - 1, 0)])
        if len(idx) and idx[0] == 0:
            y[0] = first
        return np.repeat(times[idx].astype(np.float64), 2), y

    return points


def _weights_range(
    start: FloatArray, weights: FloatArray, n: int, transform: Transform
) -> tuple[float, float]:
    """The y range of the first `n` weights, w₀ included."""
    # The transforms keep order, so the range is that of the raw numbers.
    extremes = np.array([start[:n].min(), start[:n].max()])
    if len(weights):
        extremes = np.append(extremes, [weights[:, :n].min(), weights[:, :n].max()])
    ends = transform(extremes)
    ends = ends[np.isfinite(ends)]
    low, high = (float(ends.min()), float(ends.max())) if ends.size else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    return low, high


class LossChart(Chart):
    """Adaline's loss per epoch, or the Winnows' weights over time (module docstring)."""

    heading = "Loss or weights over time"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("lossChart", parent)
        self.loss: GrowingCurve | None = None
        self.floor_line = bound_line(GREEN)
        self.floor_line.setVisible(False)
        self.getPlotItem().addItem(self.floor_line, ignoreBounds=True)
        self.weights: list[GrowingCurve] = []
        self.tips: list[pg.PlotCurveItem] = []
        self.mode = ""  # "loss", "weights" or "" (nothing to show)
        self.log = False
        self._key: tuple[object, ...] | None = None
        self._bias = True

    def _start(self, mode: str, log: bool, key: tuple[object, ...]) -> None:
        """Clear, and set the axes up for `mode`."""
        item = self.getPlotItem()
        if self.loss is not None:
            self.loss.clear()
            self.loss = None
        for curve in self.weights:
            curve.clear()
        for tip in self.tips:
            item.removeItem(tip)
        self.weights, self.tips = [], []
        self.legend.clear()
        labels = {
            "loss": ("Mean squared error per epoch", "epoch", "MSE"),
            "weights": ("w after each mistake", "trial t", "weight"),
            "": ("Loss or weights over time", "", ""),
        }[mode]
        self.heading = labels[0] + (" (log scale)" if log else "")
        self.set_labels(labels[1], labels[2])
        item.getAxis("left").setLogMode(log)
        self.floor_line.setVisible(False)
        self.mode, self.log, self._key = mode, log, key

    def paint_frame(self, frame: Frame) -> None:
        trace = frame.trace
        self._trace = trace
        self._bias = frame.settings.bias
        if trace.losses is not None:
            self._paint_loss(trace)
            return
        followed = self.follow_trace(trace)
        if followed.weights is not None:
            self._paint_weights(trace, followed)
        else:
            if self.mode or self._key is None:
                self._start("", False, ("none",))
            why = f"{frame.rule.title} has no loss per epoch and no mistakes to follow."
            self.set_note(why)
            self.set_caption(html.escape(why))

    def _paint_loss(self, trace: Trace) -> None:
        assert trace.losses is not None
        start = trace.start_loss
        key = ("loss", trace.key, start)
        if key != self._key:
            self._start("loss", True, key)
            self.loss = GrowingCurve(self.getPlotItem(), BLUE, 2.5, name="MSE per epoch")
            if start is not None and math.isfinite(start) and start > 0:
                self.loss.origin = (0.0, math.log10(start))  # epoch 0: w₀
        assert self.loss is not None
        losses = np.asarray(trace.losses, dtype=np.float64)
        logs = _log10(losses)
        epochs = np.arange(1, len(losses) + 1, dtype=np.float64)
        self.loss.update(len(losses), lambda a, b, s: (epochs[a:b:s], logs[a:b:s]))
        floor = trace.loss_floor
        has_floor = floor is not None and math.isfinite(floor) and floor > 0
        self.floor_line.setVisible(has_floor)
        values = logs[np.isfinite(logs)]
        if self.loss.origin is not None:
            values = np.append(values, self.loss.origin[1])
        if floor is not None and has_floor:
            self.floor_line.setValue(math.log10(floor))
            self.floor_line.label.setFormat(f"least squares: {format_number(floor)}")
            values = np.append(values, math.log10(floor))
        low = float(values.min()) if values.size else -1.0
        high = float(values.max()) if values.size else 0.0
        if high - low < 0.5:
            low, high = low - 0.25, high + 0.25
        self.set_axes((0.0, max(1.0, float(len(losses)))), (low, high))
        self.set_note("" if len(losses) else "The first point comes when an epoch ends.")
        latest = format_number(float(losses[-1])) if len(losses) else "—"
        self.set_caption(
            "MSE = (1/n) Σ (yᵢ − w·xᵢ)² with w at the end of each epoch (epoch 0: w₀, "
            f"{format_number(start)}): <b>{latest}</b> after {len(losses)} epochs.<br>"
            f"The least-squares w_LS has <b>{format_number(floor)}</b> (dashed), "
            "the least any w can have: LMS descends towards it when η is small enough."
        )

    def _paint_weights(self, trace: Trace, followed: Followed) -> None:
        weights = followed.weights
        assert weights is not None
        # A multiclass W (K, n) is drawn as Kessler's K·n numbers, as `trace` follows it.
        start = np.asarray(trace.initial_weights, dtype=np.float64).ravel()
        log = bool(np.all(start > 0) and np.all(weights > 0))
        n = min(len(start), len(SERIES))
        key = ("weights", trace.key, log, n)
        if key != self._key:
            self._start_weights(log, key, n)
        m = len(weights)
        times = trace.mistake_trials[:m]
        transform = _log10 if log else _same
        firsts = transform(start)
        # Only the new stretch is transformed each frame (the rest is drawn already).
        for j, (curve, tip) in enumerate(zip(self.weights, self.tips, strict=True)):
            column = weights[:, j]
            first_value = float(firsts[j])
            curve.origin = (0.0, first_value)
            points = _weight_steps(times, column, first_value, transform)
            curve.update(m, points)
            last = curve.last_point
            lead = (
                (float(times[last]), float(transform(column[last : last + 1])[0]))
                if last >= 0
                else (0.0, first_value)
            )
            end = (float(trace.trials), float(transform(column[-1:])[0]) if m else first_value)
            tip.setData(*tip_vertices(last + 1, m, points, lead, end))
            tip.setPen(curve.pen)
        self.set_axes(
            (0.0, max(1.0, float(trace.trials))), _weights_range(start, weights, n, transform)
        )
        self.set_note("")
        caption = "A step at each mistake; flat in between (no update)."
        if log:
            caption += "<br>Log scale: a multiplicative update is one equal step."
        if not followed.complete:
            caption += f"<br>Replaying the run: {m:,} of {trace.mistakes:,} mistakes so far."
        elif m < trace.mistakes:
            caption += f"<br>Shown for the first {m:,} of {trace.mistakes:,} mistakes."
        self.set_caption(caption)

    def _start_weights(self, log: bool, key: tuple[object, ...], n: int) -> None:
        """Clear, and add a curve and a tip for each of the first `n` weights."""
        self._start("weights", log, key)
        item = self.getPlotItem()
        first = 0 if self._bias else 1
        for j in range(n):
            name = "w" + str(j + first).translate(_SUBSCRIPTS)
            self.weights.append(GrowingCurve(item, SERIES[j], name=name, per_point=2, budget=256))
            tip = pg.PlotCurveItem(pen=curve_pen(SERIES[j]))
            item.addItem(tip)
            self.tips.append(tip)

    def table(self) -> tuple[Sequence[str], list[Sequence[object]]]:
        trace = self._trace
        if trace is None:
            return (), []
        if trace.losses is not None:
            return ("epoch", "MSE"), [(e, repr(v)) for e, v in enumerate(trace.losses.tolist(), 1)]
        weights = self._followed.weights if self._followed is not None else None
        if weights is None:
            return (), []
        first = 0 if self._bias else 1
        header = ("k", "trial", *(f"w{j + first}" for j in range(weights.shape[1])))
        rows: list[Sequence[object]] = [(0, 0, *(repr(v) for v in trace.initial_weights))]
        times = trace.mistake_trials[: len(weights)].tolist()
        for k, (t, w) in enumerate(zip(times, weights.tolist(), strict=True), 1):
            rows.append((k, t, *(repr(v) for v in w)))
        return header, rows
