"""The view for data with d ≠ 2 coordinates, where the plane cannot show the points.

It paints `Frame`s like the plane does: the weights as bars (bias first when there is
one), the variables of the data's OR, if any, in their own colour so they stand out; the
mistake count k against the trial with the bound that applies; and the latest trial in one
line. Stepping and running go on as usual through the side panel.

The header above the charts says why there is no plane and is the bars' key (a coloured
square before each kind of bar): as text in the widget's layout it wraps, so it is never
cut off and never covers a bar, as a legend inside the chart did. In presentation mode it
is shorter and in `style.PRESENTATION_NOTE_PX` type, so the bars keep their room.

When every weight is positive (Winnow from w₀ = 1) the bars show log₂ w, rising from
w = 1 for a promoted variable and falling for a demoted one, with θ as a dashed line;
otherwise they show w from 0. The mistakes chart draws the frame's mistake trials
exactly: k steps up by one at each mistake trial.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from simulator.engine import Dataset
from simulator.presentation.explain import BRIEF, LONG, explain
from simulator.presentation.frame import Frame, format_number
from simulator.ui import style
from simulator.ui.lab_charts import staircase
from simulator.ui.number_axis import NameAxis, number_axes

__all__ = ["HighDimView"]

RELEVANT = "#0072B2"
OTHER = "#9A9A9A"
BIAS = "#111111"


def _pen(colour: str, width: float, dash: bool = False) -> pg.QtGui.QPen:
    pen = pg.mkPen(colour, width=width)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen


class _Chart(pg.PlotWidget):
    def __init__(self, name: str, bottom: str, left: str, *, named: bool = False) -> None:
        axes: dict[str, pg.AxisItem] = dict(number_axes())
        if named:
            axes["bottom"] = NameAxis("bottom")
        super().__init__(background=style.BACKGROUND, axisItems=axes)
        self.setObjectName(name)
        item = self.getPlotItem()
        item.showGrid(x=False, y=True, alpha=0.25)
        item.setMenuEnabled(False)
        item.hideButtons()
        labels = {"color": "#222222", "font-size": "13px"}
        for side, text in (("bottom", bottom), ("left", left)):
            if text:
                item.setLabel(side, text, **labels)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen("#444444"))
            item.getAxis(axis).setTextPen(pg.mkPen("#222222"))

    def resizeEvent(self, event: QResizeEvent | None) -> None:
        super().resizeEvent(event)
        item = self.getPlotItem()  # None while pyqtgraph builds the widget
        axis = item.getAxis("bottom") if item is not None else None
        if isinstance(axis, NameAxis):  # upright column names: at most a quarter of the chart
            axis.set_longest(self.height() / 4)


class HighDimView(QWidget):
    """Weights as bars, k against the trial, and the latest trial, for d ≠ 2."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("highDimView")
        self.note = QLabel(objectName="highDimNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self._note_key: tuple[object, ...] | None = None
        self.note.setStyleSheet("QLabel { color: #333333; padding: 4px 8px; }")

        # The bars' own names say what they are: no axis title under them.
        self.bars = _Chart("weightsBars", "", "weight w", named=True)
        self._relevant_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=RELEVANT, pen=None)
        self._other_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=OTHER, pen=None)
        self._bias_bar = pg.BarGraphItem(x=[], height=[], width=0.8, brush=BIAS, pen=None)
        self.threshold_line = pg.InfiniteLine(angle=0, pen=_pen("#111111", 1.5, dash=True))
        self._threshold_label = pg.TextItem("", color="#111111", anchor=(0, 1))
        for graphic in (self._other_bars, self._relevant_bars, self._bias_bar):
            self.bars.addItem(graphic)
        self._axis_key: tuple[object, ...] | None = None
        self.bars.addItem(self.threshold_line, ignoreBounds=True)
        self.bars.addItem(self._threshold_label, ignoreBounds=True)
        self.bars.getPlotItem().addLine(y=0, pen=pg.mkPen("#444444", width=1))

        self.mistakes_chart = _Chart("highDimMistakesChart", "trial", "mistakes k")
        self.k_curve = self.mistakes_chart.plot([], [], pen=_pen("#D55E00", 2.5))
        self.bound_line = pg.InfiniteLine(angle=0, pen=_pen("#D55E00", 1.5, dash=True))
        self._bound_label = pg.TextItem("", color="#D55E00", anchor=(1, 1))
        self.mistakes_chart.addItem(self.bound_line, ignoreBounds=True)
        self.mistakes_chart.addItem(self._bound_label, ignoreBounds=True)

        self.explanation = QLabel(objectName="highDimExplanation")
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.RichText)
        self.explanation.setStyleSheet(
            "QLabel { background: #FFFFFF; border-top: 1px solid #CCCCCC; padding: 6px 10px; }"
        )
        self._label_px = 13
        self._presentation = False
        self._frame: Frame | None = None
        self.set_presentation(False)

        charts = QSplitter(Qt.Orientation.Vertical, objectName="highDimCharts")
        self.charts = charts  # the window keeps them a minimum height (`MainWindow._fit_stage`)
        charts.addWidget(self.bars)
        charts.addWidget(self.mistakes_chart)
        charts.setStretchFactor(0, 3)
        charts.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.note)
        layout.addWidget(charts, 1)
        layout.addWidget(self.explanation)
        self._layout = layout

        self._dataset: Dataset | None = None
        self.log_scale = False

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type, as the plane's: the latest trial at least
        `style.PRESENTATION_LABEL_PX`, tick labels `PRESENTATION_TICK_PX`, axis names
        `PRESENTATION_AXIS_LABEL_PX`, thicker lines, the header shorter in
        `PRESENTATION_NOTE_PX` (the whole note would take the charts' room)."""
        self._presentation = bool(on)
        note = QFont()
        if on:
            note.setPixelSize(style.PRESENTATION_NOTE_PX)
        self.note.setFont(note)
        self._note_key = None
        text = QFont()
        if on:
            text.setPixelSize(style.PRESENTATION_LABEL_PX)
        elif text.pointSizeF() > 0:
            text.setPointSizeF(text.pointSizeF() * 1.15)
        self.explanation.setFont(text)
        self.explanation.setMinimumHeight(3 * self.explanation.fontMetrics().lineSpacing() + 12)
        self._label_px = style.PRESENTATION_AXIS_LABEL_PX if on else 13
        tick = QFont()
        if on:
            tick.setPixelSize(style.PRESENTATION_TICK_PX)
        small = QFont()
        small.setPixelSize(style.PRESENTATION_TICK_PX if on else 12)
        k = style.PRESENTATION_LINE_SCALE if on else 1.0
        for chart in (self.bars, self.mistakes_chart):
            item = chart.getPlotItem()
            for side in ("left", "bottom"):
                item.getAxis(side).setStyle(tickFont=tick if on else None)
                axis = item.getAxis(side)
                if axis.labelText:
                    item.setLabel(
                        side,
                        axis.labelText,
                        **{"color": "#222222", "font-size": f"{self._label_px}px"},
                    )
        for label in (self._threshold_label, self._bound_label):
            label.setFont(small)
        self.k_curve.setPen(_pen("#D55E00", 2.5 * k))
        self.bound_line.setPen(_pen("#D55E00", 1.5 * k, dash=True))
        self.threshold_line.setPen(_pen("#111111", 1.5 * k, dash=True))
        if self._frame is not None:
            self.show_frame(self._frame)  # the axis names and ranges for this size

    def _weight_label(self) -> str:
        """The bars' axis name; short in presentation mode, where the chart is short."""
        if self._presentation:
            return "w (log₂)" if self.log_scale else "w"
        return "weight w (log₂: bars rise from w = 1)" if self.log_scale else "weight w"

    def hold_timeline(self, timeline: QWidget) -> None:
        """Show the window's timeline (it paints frames too) under the charts."""
        self._layout.insertWidget(self._layout.indexOf(self.explanation), timeline)

    # -- painting ------------------------------------------------------------------------------

    def show_frame(self, frame: Frame) -> None:
        """Paint `frame` (the controller's; this view never asks the simulation)."""
        self._frame = frame
        ds = frame.dataset
        self._dataset = ds
        key = (ds, frame.relevant, frame.settings.bias, self._presentation)
        if key != self._note_key:
            self._note_key = key
            self.note.setText(self._note_text(frame, self._presentation))
        self._paint_bars(frame)
        self._paint_mistakes(frame)
        # On a projector the bars need the room: long vectors shortened in the strip.
        self.explanation.setText(
            explain(frame, longest=BRIEF if self._presentation else LONG).html()
        )

    @staticmethod
    def _note_text(frame: Frame, short: bool = False) -> str:
        """Why there is no plane, then the bars' key; `short` for presentation mode."""
        ds = frame.dataset
        if short:
            head = (
                f"{len(ds):,} points with {ds.dimension:,} coordinates, "
                "shown by their weights and mistakes."
            )
        else:
            head = (
                f"The plane shows 2-D data; these {len(ds):,} points have {ds.dimension:,} "
                "coordinates, so they are shown by their weights and mistakes instead."
            )
        relevant = frame.relevant is not None and len(frame.relevant) > 0
        keys = []
        if relevant and frame.relevant is not None:
            named = ", ".join(ds.names[v - 1] for v in frame.relevant[:8])
            named += ", …" if len(frame.relevant) > 8 else ""
            keys.append((RELEVANT, f"the data's OR ({named})"))
        keys.append((OTHER, "other variables" if relevant else "variables"))
        if frame.settings.bias:
            keys.append((BIAS, "bias"))
        key = "&nbsp;&nbsp; ".join(
            f'<span style="color:{colour}">■</span>&nbsp;{html.escape(text, quote=False)}'
            for colour, text in keys
        )
        return f"{html.escape(head, quote=False)} Bars: {key}"

    def _paint_bars(self, frame: Frame) -> None:
        weights = np.asarray(frame.snapshot.weights, dtype=float)
        bias = frame.settings.bias
        d = frame.dataset.dimension
        positions = np.arange(0 if bias else 1, d + 1, dtype=float)
        if weights.shape[0] != positions.shape[0]:  # a frame of another shape: draw nothing
            weights = np.zeros(positions.shape[0])
        finite = weights[np.isfinite(weights)]
        self.log_scale = bool(finite.size) and bool(np.all(finite > 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            heights = np.log2(weights) if self.log_scale else weights.copy()
        heights[~np.isfinite(heights)] = 0.0
        relevant = np.zeros(positions.shape[0], dtype=bool)
        if frame.relevant is not None:
            relevant[[v - (0 if bias else 1) for v in frame.relevant]] = True
        variable = positions > 0
        self._relevant_bars.setOpts(x=positions[relevant], height=heights[relevant])
        rest = variable & ~relevant
        self._other_bars.setOpts(x=positions[rest], height=heights[rest])
        self._bias_bar.setOpts(x=positions[~variable], height=heights[~variable])
        self._relevant_bars.setVisible(bool(relevant.any()))
        self._set_axis_name(frame.dataset, bias, frame.relevant or ())
        plot = self.bars.getPlotItem()
        plot.setLabel(
            "left",
            self._weight_label(),
            **{"color": "#222222", "font-size": f"{self._label_px}px"},
        )
        theta = frame.snapshot.threshold
        show_theta = theta > 0 and self.log_scale
        self.threshold_line.setVisible(show_theta)
        self._threshold_label.setVisible(show_theta)
        if show_theta:
            self.threshold_line.setValue(math.log2(theta))
            self._threshold_label.setText(f"θ = {format_number(theta)}")
            self._threshold_label.setPos(float(positions[0]) - 0.5, math.log2(theta))
        top = max(float(heights.max(initial=0.0)), math.log2(theta) if show_theta else 0.0)
        low = min(float(heights.min(initial=0.0)), 0.0)
        span = max(top - low, 1.0)
        plot.getAxis("left").setTicks(_power_ticks(low, top) if self.log_scale else None)
        plot.setXRange(positions[0] - 0.6, positions[-1] + 0.6, padding=0)
        # Headroom above the tallest bar, and for θ's label above its line (the bars' key is
        # in the header, not in the chart).
        bottom = low - 0.05 * span
        height = plot.vb.height()
        text_px = 1.6 * self._label_px + 8 if show_theta else 0.0
        band = min(0.4, max(0.08, text_px / height)) if height > 0 else 0.15
        plot.setYRange(bottom, top + band * (top - bottom) / (1.0 - band), padding=0)

    def _set_axis_name(self, dataset: Dataset, bias: bool, relevant: tuple[int, ...]) -> None:
        """Name each bar by its column (and the bias bar "bias"), the OR's variables always;
        set only when the columns or the bias change."""
        key = (dataset.names, bias, relevant, self._label_px)
        if self._axis_key == key:
            return
        self._axis_key = key
        axis = self.bars.getPlotItem().getAxis("bottom")
        assert isinstance(axis, NameAxis)
        names = {j + 1: name for j, name in enumerate(dataset.names)}
        if bias:
            names[0] = "bias"
        axis.set_names(names, relevant)

    def _paint_mistakes(self, frame: Frame) -> None:
        s = frame.snapshot
        mistakes = frame.mistake_trials
        if mistakes is None:  # a frame made without the run's history: k is not known
            mistakes = np.zeros(0, dtype=np.int64)
        self.k_curve.setData(*staircase(mistakes, s.trials))
        bound = frame.mistake_bound
        shown = bound is not None and math.isfinite(bound) and bound > 0
        self._bound_label.setVisible(shown)
        # k stays readable: a bound far above it is named at the top instead of drawn there.
        right = max(float(s.trials), 10.0)
        drawn = shown and bound is not None and bound <= 5.0 * max(s.mistakes, 4)
        top = 1.12 * max(bound, s.mistakes) if drawn and bound is not None else 1.15 * s.mistakes
        top = max(top, 10.0)
        height = self.mistakes_chart.getPlotItem().vb.height()
        if drawn and bound is not None and height > 0:  # room above the line for its label
            room = min(0.5, (1.6 * self._label_px + 6) / height)
            top = max(top, bound / (1.0 - room))
        self.bound_line.setVisible(drawn)
        if shown and bound is not None:
            self.bound_line.setValue(bound)
            whose = "bound from w₀" if frame.bound_is_general else f"{frame.learner.title}'s bound"
            self._bound_label.setText(
                f"{whose} {format_number(bound)}" + ("" if drawn else " (above the chart)")
            )
            # On its line at the right; above the chart, at the top left, where k is low.
            self._bound_label.setPos(right if drawn else 0.0, bound if drawn else top)
            self._bound_label.setAnchor((1, 1) if drawn else (0, 0))
        plot = self.mistakes_chart.getPlotItem()
        plot.setXRange(0, right, padding=0.02)
        plot.setYRange(0, top, padding=0)


def _power_ticks(bottom: float, top: float) -> list[list[tuple[float, str]]]:
    """Ticks at powers of 2 from 2^bottom to 2^top, for an axis of log₂ w."""
    low, high = math.floor(bottom), math.ceil(top)
    step = max(1, math.ceil((high - low) / 8))
    ticks = []
    for e in range(low - low % step, high + 1, step):
        ticks.append((float(e), format_number(2.0**e) if -6 <= e <= 16 else f"2^{e}"))
    return [ticks]
