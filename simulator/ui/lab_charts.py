"""The Winnow lab's charts, drawn by the window's lab and by `python main.py lab --plot`.

- `ScalingChart`: mistakes against n, both axes logarithmic, one line per rule, each
  rule's bound dashed in its colour. On these axes Winnow's 2 + 3r(1 + log₂ n) bends over
  while the perceptron's (4r + 1)·R² climbs with slope 1 (R² grows like n).
- `CumulativeChart`: the mistake count k against the trial for one n, one staircase per rule,
  with the bounds as horizontal dashed lines (those far above the curves are named in
  the legend instead, so they do not squash the curves).
- `WeightsChart`: one run's weights after each mistake: each relevant variable's weight, the
  irrelevant ones' mean and range, and θ when the rule has one. When every weight is
  positive (Winnow) the axis is log₂, so a promotion (×2) and a demotion (÷2) are steps of
  one and the same height.

Rules are told apart by colour and by glyph (readable in greyscale), in the order raced.
Charts paint engine records (`Race`, `RaceResult`); they never run anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

from simulator.engine.lab import Race, RaceResult, WeightTrace
from simulator.presentation.frame import format_number
from simulator.ui import style

__all__ = [
    "CumulativeChart",
    "ScalingChart",
    "WeightsChart",
    "count_text",
    "render_chart",
    "rule_style",
    "staircase",
]

_COLOURS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
_SYMBOLS = ("s", "o", "t", "d", "star", "h")
_RELEVANT_COLOURS = ("#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#D55E00")
_HEADROOM = 1.7  # y range over the data's, leaving the top of the plot to the legend
MAX_RELEVANT_LINES = 6  # beyond this many relevant variables, their mean and range instead

_Note = tuple[float, float, str, QColor, bool]  # a value at a line's end: n, k, text, colour, bold


def rule_style(index: int) -> tuple[QColor, str]:
    """(colour, glyph) of the `index`-th rule raced."""
    return QColor(_COLOURS[index % len(_COLOURS)]), _SYMBOLS[index % len(_SYMBOLS)]


def _pen(colour: QColor | str, width: float, dash: bool = False) -> QPen:
    pen = pg.mkPen(colour, width=width)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen


def count_text(value: float) -> str:
    if not math.isfinite(value):
        return format_number(value)
    return f"{value:,.0f}" if abs(value) >= 1000 else format_number(value)


class _Chart(pg.PlotWidget):
    """A PlotWidget with our background, grid, fonts and legend, scaled by `scale`."""

    def __init__(
        self,
        parent: QWidget | None,
        name: str,
        scale: float,
        corner: tuple[float, float] = (0.0, 0.0),
        legend_points: float = 10,
    ) -> None:
        super().__init__(parent, background=style.BACKGROUND)
        self.setObjectName(name)
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setMenuEnabled(False)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen("#444444"))
            item.getAxis(axis).setTextPen(pg.mkPen("#222222"))
        self._legend_points = legend_points
        # The legend sits in `corner` of the plot, (0, 0) top left to (1, 1) bottom right.
        self.legend = item.addLegend(
            offset=(10, 10),
            labelTextSize=f"{round(legend_points * scale)}pt",
            labelTextColor="#222222",
            verSpacing=-4,
        )
        margin = (10 if corner[0] < 0.5 else -10, 10 if corner[1] < 0.5 else -10)
        self.legend.anchor(itemPos=corner, parentPos=corner, offset=margin)
        self.legend.setBrush(pg.mkBrush(255, 255, 255, 225))
        self.legend.setPen(pg.mkPen("#BBBBBB"))
        self._texts: tuple[str, str, str] | None = None
        self.set_scale(scale)

    def set_scale(self, scale: float, legend_scale: float | None = None) -> None:
        """Type and lines `scale` times their normal size (presentation mode: larger), the
        legend's `legend_scale` (default: the same). What is drawn now keeps its size until
        it is drawn again (the lab window redraws)."""
        self.scale = scale
        item = self.getPlotItem()
        tick_font = QFont()
        tick_font.setPixelSize(round(12 * scale))
        for axis in ("left", "bottom"):
            item.getAxis(axis).setStyle(tickFont=tick_font, tickTextOffset=round(5 * scale))
        item.getAxis("left").setWidth(round(58 * scale))
        legend = scale if legend_scale is None else legend_scale
        self.legend.setLabelTextSize(f"{round(self._legend_points * legend)}pt")
        self._label_style = {"color": "#222222", "font-size": f"{round(13 * scale)}px"}
        if self._texts is not None:
            self._labels(*self._texts)

    def _labels(self, title: str, bottom: str, left: str) -> None:
        self._texts = (title, bottom, left)
        item = self.getPlotItem()
        item.setTitle(title, color="#111111", size=f"{round(14 * self.scale)}px")
        item.setLabel("bottom", bottom, **self._label_style)
        item.setLabel("left", left, **self._label_style)

    def headroom(self, lines: int = 0) -> float:
        """The y range over the data's: at least `_HEADROOM`, more when the legend and
        `lines` lines of notes under it need more of the plot's height (large type)."""
        height = self.getPlotItem().getViewBox().height()
        if height <= 0:
            return _HEADROOM
        text = self.legend.boundingRect().height() + 14 + lines * 1.4 * 12 * self.scale
        band = min(0.7, max(1.0 - 1.0 / _HEADROOM, text / height))
        return 1.0 / (1.0 - band)

    def _reset(self) -> None:
        self.getPlotItem().clear()
        self.legend.clear()

    def width_for(self, base: float) -> float:
        return base * self.scale


class ScalingChart(_Chart):
    """Mistakes against n (log–log) for each rule, with the bounds dashed."""

    def __init__(self, parent: QWidget | None = None, *, scale: float = 1.0) -> None:
        super().__init__(parent, "labScalingChart", scale)
        self.setLogMode(x=True, y=True)
        self._labels("Mistakes against n", "n (variables, log scale)", "mistakes (log scale)")
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bounds: dict[str, pg.PlotDataItem] = {}

    def show_races(self, races: Sequence[Race], title: str | None = None) -> None:
        """Draw the races so far (any order of n)."""
        self._reset()
        self.curves, self.bounds = {}, {}
        if title is not None:
            self.getPlotItem().setTitle(title, color="#111111", size=f"{round(14 * self.scale)}px")
        ordered = sorted(races, key=lambda race: race.n)
        if not ordered:
            return
        values: list[float] = []
        notes: list[_Note] = []  # the values at the right
        rules = [r.rule for r in ordered[0].results]
        for index, rule in enumerate(rules):
            self._plot_rule(index, rule, ordered, values, notes)
        self._fit_axes([race.n for race in ordered], values, notes)

    def _plot_rule(
        self,
        index: int,
        rule: str,
        ordered: Sequence[Race],
        values: list[float],
        notes: list[_Note],
    ) -> None:
        """The `index`-th rule's mistakes (with glyphs) and bound (dashed) against n; what
        is drawn goes to `values` (for the y range), each line's last value to `notes`."""
        colour, symbol = rule_style(index)
        results = [race.result(rule) for race in ordered]
        points = [(float(r.n), float(r.mistakes)) for r in results if r is not None]
        shown = [(n, k) for n, k in points if k > 0]  # a log axis has no 0
        name = next(r.title for r in results if r is not None)
        if shown:
            x, y = (np.array(v) for v in zip(*shown, strict=True))
            values.extend(y.tolist())
            notes.append((x[-1], y[-1], f"{y[-1]:,.0f}", colour, True))
            self.curves[rule] = self.plot(
                x,
                y,
                pen=_pen(colour, self.width_for(2.5)),
                symbol=symbol,
                symbolSize=self.width_for(11),
                symbolBrush=colour,
                symbolPen=pg.mkPen("#FFFFFF", width=1),
                name=f"{name}: mistakes",
            )
        bounds = [
            (float(r.n), float(r.bound), r.bound_formula)
            for r in results
            if r is not None and r.bound is not None and r.bound > 0
        ]
        if bounds:
            x = np.array([b[0] for b in bounds])
            y = np.array([b[1] for b in bounds])
            values.extend(y.tolist())
            notes.append((x[-1], y[-1], f"{y[-1]:,.0f}", colour, False))
            self.bounds[rule] = self.plot(
                x,
                y,
                pen=_pen(colour, self.width_for(2.0), dash=True),
                name=f"{name}'s bound {bounds[0][2]}",
            )

    def _fit_axes(self, sizes: Sequence[int], values: Sequence[float], notes: list[_Note]) -> None:
        """Ticks at the n raced and at 1, 2, 5 × 10^k; the ranges; the values at the right."""
        item = self.getPlotItem()
        item.getAxis("bottom").setTicks([[(math.log10(n), f"{n:,}") for n in sizes]])
        if values:
            item.getAxis("left").setTicks(_decade_ticks(min(values), max(values)))
        low, high = math.log10(sizes[0]), math.log10(sizes[-1])
        margin = max(0.08 * (high - low), 0.15)
        item.setXRange(low - margin, high + 2 * margin, padding=0)
        if values:
            bottom, top = math.log10(min(values)), math.log10(max(values))
            item.setYRange(bottom - 0.1, top + 0.1, padding=0)
            # Values at the right edge, nudged apart where lines end close together.
            gap = 0.045 * (top - bottom + 0.2)
            placed: list[float] = []
            for n, k, text, colour, bold in sorted(notes, key=lambda note: note[1]):
                y = math.log10(k)
                if placed and y < placed[-1] + gap:
                    y = placed[-1] + gap
                placed.append(y)
                self._annotate(n, y, text, colour, bold)

    def _annotate(self, n: float, y: float, text: str, colour: QColor, bold: bool) -> None:
        """A value beside the end of a line at n, at height y (log₁₀ of the value)."""
        font = QFont()
        font.setPixelSize(round(13 * self.scale))
        font.setBold(bold)
        label = pg.TextItem(text, color=colour, anchor=(0, 0.5))
        label.setFont(font)
        label.setPos(math.log10(n) + 0.03, y)
        self.addItem(label)


def _decade_ticks(low: float, high: float) -> list[list[tuple[float, str]]]:
    """Ticks at 1, 2, 5 × 10^k between low and high (positions in log₁₀), labelled plainly."""
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for m in (1, 2, 5):
            value = m * 10.0**exponent
            if low / 1.3 <= value <= high * 1.3:
                ticks.append((math.log10(value), f"{value:,.0f}" if value >= 1 else f"{value:g}"))
    return [ticks]


def staircase(trials: Sequence[int], end: int) -> tuple[np.ndarray, np.ndarray]:
    """The points of k against the trial: k steps up by one at each mistake trial."""
    t = np.asarray(trials, dtype=float)
    k = np.arange(1, len(t) + 1, dtype=float)
    x = np.empty(2 * len(t) + 2)
    y = np.empty_like(x)
    x[0], y[0] = 0.0, 0.0
    x[1:-1:2], y[1:-1:2] = t, k - 1
    x[2:-1:2], y[2:-1:2] = t, k
    x[-1], y[-1] = float(max(end, t[-1] if len(t) else 0)), float(len(t))
    return x, y


class CumulativeChart(_Chart):
    """Cumulative mistakes k against the trial for one n, one staircase per rule."""

    def __init__(self, parent: QWidget | None = None, *, scale: float = 1.0) -> None:
        super().__init__(parent, "labCumulativeChart", scale, legend_points=9)
        self._labels("Cumulative mistakes", "trial", "mistakes k")
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bound_lines: dict[str, pg.InfiniteLine] = {}
        self.notes: list[pg.TextItem] = []

    def set_scale(self, scale: float, legend_scale: float | None = None) -> None:
        super().set_scale(scale, legend_scale)
        self.legend.setColumnCount(3 if scale <= 1.0 else 2)  # large type: two columns fit

    def show_race(self, race: Race | None) -> None:
        self._reset()
        self.curves, self.bound_lines, self.notes = {}, {}, []
        if race is None:
            return
        self.getPlotItem().setTitle(
            f"Cumulative mistakes, n = {race.n:,}",
            color="#111111",
            size=f"{round(14 * self.scale)}px",
        )
        top = float(max((r.mistakes for r in race.results), default=0))
        end = float(max((r.trials for r in race.results), default=0))
        ceiling = 1.5 * max(top, 1.0)
        off_chart = []
        for index, result in enumerate(race.results):
            colour, _ = rule_style(index)
            x, y = staircase(result.mistake_trials, result.trials)
            self.curves[result.rule] = self.plot(
                x, y, pen=_pen(colour, self.width_for(2.5)), name=result.title
            )
            bound = result.bound
            if bound is None:
                continue
            label = f"{result.title}'s bound {count_text(bound)}"
            if bound > ceiling:  # it would squash the curves: say it instead of drawing it
                off_chart.append((label, colour))
                continue
            line = pg.InfiniteLine(
                pos=bound, angle=0, pen=_pen(colour, self.width_for(2.0), dash=True)
            )
            self.addItem(line)
            self.bound_lines[result.rule] = line
            self.notes.append(self._note(label, colour, end, bound, anchor=(1.0, 1.0)))
            top = max(top, bound)
        y_top = max(top, 1.0) * self.headroom(len(off_chart))
        for k, (label, colour) in enumerate(off_chart):  # below the legend, above the start
            self.notes.append(
                self._note(
                    f"{label}: off the chart", colour, 0.02 * end, top * 1.1, anchor=(0.0, 1.0 + k)
                )
            )
        self.getPlotItem().setXRange(0, max(end, 1.0), padding=0.02)
        self.getPlotItem().setYRange(0, y_top, padding=0)  # room for the legend

    def _note(
        self, text: str, colour: QColor, x: float, y: float, anchor: tuple[float, float]
    ) -> pg.TextItem:
        font = QFont()
        font.setPixelSize(round(12 * self.scale))
        note = pg.TextItem(text, color=colour, anchor=anchor)
        note.setFont(font)
        note.setPos(x, y)
        self.addItem(note)
        return note


class WeightsChart(_Chart):
    """One run's weights after each mistake: relevant ones, irrelevant mean and range, θ."""

    def __init__(self, parent: QWidget | None = None, *, scale: float = 1.0) -> None:
        super().__init__(parent, "labWeightsChart", scale, legend_points=9)
        self.legend.setColumnCount(2)
        self._labels("Weights", "trial", "weight")
        self.relevant_curves: list[pg.PlotDataItem] = []
        self.irrelevant_curve: pg.PlotDataItem | None = None
        self.threshold_line: pg.InfiniteLine | None = None
        self.log_scale = False

    def show_result(self, result: RaceResult | None) -> None:
        self._reset()
        self.relevant_curves, self.irrelevant_curve, self.threshold_line = [], None, None
        item = self.getPlotItem()
        trace = None if result is None else result.trace
        if result is None or trace is None:
            item.setTitle("Weights", color="#111111", size=f"{round(14 * self.scale)}px")
            return
        values = [v for series in trace.relevant for v in series]
        values += [v for v in trace.irrelevant_min + trace.irrelevant_max if math.isfinite(v)]
        # All positive (Winnow): draw log₂ w, so ×2 and ÷2 are steps of the same height.
        self.log_scale = bool(values) and min(values) > 0
        label = "weight (log scale)" if self.log_scale else "weight"
        item.setLabel("left", label, **self._label_style)
        item.setTitle(
            f"{result.title}'s weights, n = {result.n:,}",
            color="#111111",
            size=f"{round(14 * self.scale)}px",
        )
        x = _hold(trace.trials, result.trials)
        entries = self._draw_irrelevant(x, trace)  # the legend, relevant ones first
        self._draw_relevant(x, trace, entries)
        for entry, text in entries:
            self.legend.addItem(entry, text)
        if trace.threshold > 0:
            self.threshold_line = pg.InfiniteLine(
                pos=self._level(trace.threshold),
                angle=0,
                pen=_pen("#111111", self.width_for(1.5), dash=True),
            )
            self.addItem(self.threshold_line)
        right = self._fit(values, trace, result)
        if self.threshold_line is not None:
            font = QFont()
            font.setPixelSize(round(12 * self.scale))
            note = pg.TextItem(f"θ = {format_number(trace.threshold)}", "#111111", anchor=(1, 1))
            note.setFont(font)
            note.setPos(right, self.threshold_line.value())
            self.addItem(note)

    def _y(self, series: Sequence[float]) -> np.ndarray:
        """y of a staircase holding each value of `series` (log₂ on a log scale)."""
        held = np.repeat(np.asarray(series, dtype=float), 2)
        return np.log2(held) if self.log_scale else held

    def _level(self, value: float) -> float:
        """Where `value` is drawn on the y axis (log₂ on a log scale)."""
        return math.log2(value) if self.log_scale else value

    def _draw_irrelevant(
        self, x: np.ndarray, trace: WeightTrace
    ) -> list[tuple[pg.GraphicsObject, str]]:
        """The irrelevant weights' range (a band) and mean; their legend entries."""
        if not all(math.isfinite(v) for v in trace.irrelevant_mean):
            return []
        low = pg.PlotDataItem(x, self._y(trace.irrelevant_min), pen=pg.mkPen(None))
        high = pg.PlotDataItem(x, self._y(trace.irrelevant_max), pen=pg.mkPen(None))
        band = pg.FillBetweenItem(low, high, brush=pg.mkBrush(120, 120, 120, 45))
        for part in (low, high, band):
            self.addItem(part)
        width = self.width_for(2.2)
        self.irrelevant_curve = self.plot(
            x, self._y(trace.irrelevant_mean), pen=_pen("#555555", width)
        )
        # The legend draws a sample from an item's options: a bar of the band's brush.
        sample = pg.BarGraphItem(x=[0], height=[1], width=1, brush=band.brush(), pen=None)
        return [(self.irrelevant_curve, "irrelevant: mean"), (sample, "irrelevant: range")]

    def _draw_relevant(
        self, x: np.ndarray, trace: WeightTrace, entries: list[tuple[pg.GraphicsObject, str]]
    ) -> None:
        """Each relevant weight (or, beyond `MAX_RELEVANT_LINES`, their mean); their legend
        entries go first in `entries`."""
        width = self.width_for(2.2)
        if len(trace.variables) <= MAX_RELEVANT_LINES:
            for k, (variable, series) in enumerate(
                zip(trace.variables, trace.relevant, strict=True)
            ):
                colour = _RELEVANT_COLOURS[k % len(_RELEVANT_COLOURS)]
                curve = self.plot(x, self._y(series), pen=_pen(colour, width))
                self.relevant_curves.append(curve)
                entries.insert(k, (curve, f"relevant x{variable}"))
        else:
            mean = np.mean(np.array(trace.relevant), axis=0)
            curve = self.plot(x, self._y(mean.tolist()), pen=_pen("#0072B2", width))
            self.relevant_curves.append(curve)
            entries.insert(0, (curve, f"relevant ({len(trace.variables)}): mean"))

    def _fit(self, values: Sequence[float], trace: WeightTrace, result: RaceResult) -> float:
        """The y range and ticks, the x range; the right end of the x range."""
        item = self.getPlotItem()
        log_scale = self.log_scale
        # Room above the data for the legend; the trials up to a little past the last mistake,
        # where the weights move (they are constant after it).
        drawn = [v for v in values if not log_scale or v > 0]
        if log_scale:
            drawn = [math.log2(v) for v in drawn]
        drawn += [self._level(trace.threshold)]
        bottom, top = min(drawn), max(drawn)
        span = max(top - bottom, 1.0)
        headroom = self.headroom(lines=1)  # the legend and θ's label
        item.setYRange(bottom - 0.05 * span, top + (headroom - 1) * span, padding=0)
        # As many ticks as the data's part of the axis has room for, each label about 1.5
        # text lines apart.
        room = item.getViewBox().height() / headroom
        most = max(3, int(room / (18 * self.scale))) if room > 0 else 10
        item.getAxis("left").setTicks(_power_of_two_ticks(values, most) if log_scale else None)
        last = trace.trials[-1] if len(trace.trials) > 1 else result.trials
        right = max(1.0, min(float(result.trials), 1.2 * last + 10))
        item.setXRange(0, right, padding=0.02)
        return right


def _hold(trials: Sequence[int], end: int) -> np.ndarray:
    """x of a staircase that holds each value from its trial to the next (and to `end`)."""
    t = np.asarray(trials, dtype=float)
    x = np.repeat(t, 2)[1:]
    return np.append(x, float(max(end, t[-1])))


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_two_ticks(values: Sequence[float], most: int = 10) -> list[list[tuple[float, str]]]:
    """Ticks at powers of 2 for an axis of log₂ w, labelled with w itself (at most about
    `most` of them, so their labels do not overlap)."""
    low = math.floor(math.log2(min(values)))
    high = math.ceil(math.log2(max(values)))
    step = max(1, math.ceil((high - low) / max(1, most)))
    major = []
    for e in range(low - low % step, high + 1, step):
        text = format_number(2.0**e) if -4 <= e <= 16 else "2" + str(e).translate(_SUPERSCRIPT)
        major.append((float(e), text))
    return [major]


def render_chart(chart: pg.PlotWidget, width: int, height: int) -> QImage:
    """`chart` drawn into a width × height image at device pixel ratio 1 (needs a QApplication).

    The chart is laid out at that size hidden from the screen, as the export's frames are.
    """
    chart.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    chart.setFixedSize(width, height)
    chart.show()
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.setDevicePixelRatio(1.0)
    image.fill(QColor(style.BACKGROUND))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    chart.render(painter)
    painter.end()
    return image
