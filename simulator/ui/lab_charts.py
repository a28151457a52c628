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

from simulator.engine.lab import Race, RaceResult
from simulator.ui import style
from simulator.ui.frame import format_number

__all__ = ["CumulativeChart", "ScalingChart", "WeightsChart", "render_chart", "rule_style"]

_COLOURS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
_SYMBOLS = ("s", "o", "t", "d", "star", "h")
_RELEVANT_COLOURS = ("#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#D55E00")
MAX_RELEVANT_LINES = 6  # beyond this many relevant variables, their mean and range instead


def rule_style(index: int) -> tuple[QColor, str]:
    """(colour, glyph) of the `index`-th rule raced."""
    return QColor(_COLOURS[index % len(_COLOURS)]), _SYMBOLS[index % len(_SYMBOLS)]


def _pen(colour: QColor | str, width: float, dash: bool = False) -> QPen:
    pen = pg.mkPen(colour, width=width)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen


def _thousands(value: float) -> str:
    if not math.isfinite(value):
        return format_number(value)
    return f"{value:,.0f}" if abs(value) >= 1000 else format_number(value, 4)


class _Chart(pg.PlotWidget):
    """A PlotWidget with our background, grid, fonts and legend, scaled by `scale`."""

    def __init__(self, parent: QWidget | None, name: str, scale: float) -> None:
        super().__init__(parent, background=style.BACKGROUND)
        self.setObjectName(name)
        self.scale = scale
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setMenuEnabled(False)
        tick_font = QFont()
        tick_font.setPixelSize(round(12 * scale))
        for axis in ("left", "bottom"):
            item.getAxis(axis).setStyle(tickFont=tick_font, tickTextOffset=round(5 * scale))
            item.getAxis(axis).setPen(pg.mkPen("#444444"))
            item.getAxis(axis).setTextPen(pg.mkPen("#222222"))
        item.getAxis("left").setWidth(round(58 * scale))
        self.legend = item.addLegend(
            offset=(10, 10), labelTextSize=f"{round(11 * scale)}pt", labelTextColor="#222222"
        )
        self.legend.setBrush(pg.mkBrush(255, 255, 255, 225))
        self.legend.setPen(pg.mkPen("#BBBBBB"))
        self._label_style = {"color": "#222222", "font-size": f"{round(13 * scale)}px"}

    def _labels(self, title: str, bottom: str, left: str) -> None:
        item = self.getPlotItem()
        item.setTitle(title, color="#111111", size=f"{round(14 * self.scale)}px")
        item.setLabel("bottom", bottom, **self._label_style)
        item.setLabel("left", left, **self._label_style)

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
        rules = [r.rule for r in ordered[0].results]
        for index, rule in enumerate(rules):
            colour, symbol = rule_style(index)
            results = [race.result(rule) for race in ordered]
            points = [(float(r.n), float(r.mistakes)) for r in results if r is not None]
            shown = [(n, k) for n, k in points if k > 0]  # a log axis has no 0
            name = next(r.title for r in results if r is not None)
            if shown:
                x, y = (np.array(v) for v in zip(*shown, strict=True))
                values.extend(y.tolist())
                self._annotate(x[-1], y[-1], f"{y[-1]:,.0f}", colour)
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
                self._annotate(x[-1], y[-1], f"{y[-1]:,.0f}", colour, bold=False)
                self.bounds[rule] = self.plot(
                    x,
                    y,
                    pen=_pen(colour, self.width_for(2.0), dash=True),
                    name=f"{name}'s bound {bounds[0][2]}",
                )
        sizes = [race.n for race in ordered]
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

    def _annotate(self, n: float, k: float, text: str, colour: QColor, bold: bool = True) -> None:
        """The value beside the last point of a line (in log coordinates)."""
        font = QFont()
        font.setPixelSize(round(13 * self.scale))
        font.setBold(bold)
        label = pg.TextItem(text, color=colour, anchor=(0, 0.5))
        label.setFont(font)
        label.setPos(math.log10(n) + 0.03, math.log10(k))
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


def _staircase(trials: Sequence[int], end: int) -> tuple[np.ndarray, np.ndarray]:
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
        super().__init__(parent, "labCumulativeChart", scale)
        self._labels("Cumulative mistakes", "trial", "mistakes k")
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bound_lines: dict[str, pg.InfiniteLine] = {}

    def show_race(self, race: Race | None) -> None:
        self._reset()
        self.curves, self.bound_lines = {}, {}
        if race is None:
            return
        self.getPlotItem().setTitle(
            f"Cumulative mistakes, n = {race.n:,}",
            color="#111111",
            size=f"{round(14 * self.scale)}px",
        )
        top = max((r.mistakes for r in race.results), default=0)
        end = max((r.trials for r in race.results), default=0)
        ceiling = 1.5 * max(top, 1)
        for index, result in enumerate(race.results):
            colour, _ = rule_style(index)
            x, y = _staircase(result.mistake_trials, result.trials)
            self.curves[result.rule] = self.plot(
                x, y, pen=_pen(colour, self.width_for(2.5)), name=f"{result.title}: k"
            )
            bound = result.bound
            if bound is None:
                continue
            label = f"{result.title}'s bound {_thousands(bound)}"
            if bound <= ceiling:
                line = pg.InfiniteLine(
                    pos=bound, angle=0, pen=_pen(colour, self.width_for(2.0), dash=True)
                )
                self.addItem(line)
                self.bound_lines[result.rule] = line
                # A legend entry for the dashed line (InfiniteLines have none of their own).
                self.legend.addItem(
                    pg.PlotDataItem(pen=_pen(colour, self.width_for(2.0), dash=True)), label
                )
                top = max(top, bound)
            else:
                self.legend.addItem(
                    pg.PlotDataItem(pen=_pen(colour, self.width_for(2.0), dash=True)),
                    label + " (above the chart)",
                )
        self.getPlotItem().setXRange(0, max(end, 1), padding=0.02)
        self.getPlotItem().setYRange(0, max(top, 1) * 1.08, padding=0)


class WeightsChart(_Chart):
    """One run's weights after each mistake: relevant ones, irrelevant mean and range, θ."""

    def __init__(self, parent: QWidget | None = None, *, scale: float = 1.0) -> None:
        super().__init__(parent, "labWeightsChart", scale)
        self._labels("Weights", "trial", "weight")
        self.relevant_curves: list[pg.PlotDataItem] = []
        self.irrelevant_curve: pg.PlotDataItem | None = None
        self.threshold_line: pg.InfiniteLine | None = None
        self.log_scale = False

    def show_result(self, result: RaceResult | None) -> None:
        self._reset()
        self.relevant_curves, self.irrelevant_curve, self.threshold_line = [], None, None
        trace = None if result is None else result.trace
        if result is None or trace is None:
            self.getPlotItem().setTitle("Weights", color="#111111")
            return
        values = [v for series in trace.relevant for v in series]
        values += [v for v in trace.irrelevant_min + trace.irrelevant_max if math.isfinite(v)]
        self.log_scale = bool(values) and min(values) > 0
        self.setLogMode(x=False, y=self.log_scale)
        self.getPlotItem().setLabel(
            "left", "weight (log₂ scale)" if self.log_scale else "weight", **self._label_style
        )
        self.getPlotItem().setTitle(
            f"{result.title}'s weights, n = {result.n:,}",
            color="#111111",
            size=f"{round(14 * self.scale)}px",
        )
        if self.log_scale:
            self.getPlotItem().getAxis("left").setTicks(_log2_ticks(values))
        else:
            self.getPlotItem().getAxis("left").setTicks(None)
        x = _hold(trace.trials, result.trials)
        width = self.width_for(2.2)
        if len(trace.variables) <= MAX_RELEVANT_LINES:
            for k, (variable, series) in enumerate(
                zip(trace.variables, trace.relevant, strict=True)
            ):
                colour = _RELEVANT_COLOURS[k % len(_RELEVANT_COLOURS)]
                self.relevant_curves.append(
                    self.plot(
                        x,
                        _hold_values(series),
                        pen=_pen(colour, width),
                        name=f"x{variable} (relevant)",
                    )
                )
        else:
            mean = np.mean(np.array(trace.relevant), axis=0)
            self.relevant_curves.append(
                self.plot(
                    x,
                    _hold_values(mean.tolist()),
                    pen=_pen("#0072B2", width),
                    name=f"relevant ({len(trace.variables)}): mean",
                )
            )
        if all(math.isfinite(v) for v in trace.irrelevant_mean):
            low = pg.PlotDataItem(x, _hold_values(trace.irrelevant_min), pen=pg.mkPen(None))
            high = pg.PlotDataItem(x, _hold_values(trace.irrelevant_max), pen=pg.mkPen(None))
            band = pg.FillBetweenItem(low, high, brush=pg.mkBrush(120, 120, 120, 60))
            for item in (low, high, band):
                self.addItem(item)
            self.legend.addItem(band, "irrelevant: range")
            self.irrelevant_curve = self.plot(
                x,
                _hold_values(trace.irrelevant_mean),
                pen=_pen("#555555", width),
                name="irrelevant: mean",
            )
        if trace.threshold > 0:
            position = math.log10(trace.threshold) if self.log_scale else trace.threshold
            self.threshold_line = pg.InfiniteLine(
                pos=position, angle=0, pen=_pen("#111111", self.width_for(1.5), dash=True)
            )
            self.addItem(self.threshold_line)
            self.legend.addItem(
                pg.PlotDataItem(pen=_pen("#111111", self.width_for(1.5), dash=True)),
                f"θ = {format_number(trace.threshold)}",
            )
        self.getPlotItem().enableAutoRange()


def _hold(trials: Sequence[int], end: int) -> np.ndarray:
    """x of a staircase that holds each value from its trial to the next (and to `end`)."""
    t = np.asarray(trials, dtype=float)
    x = np.repeat(t, 2)[1:]
    return np.append(x, float(max(end, t[-1])))


def _hold_values(values: Sequence[float]) -> np.ndarray:
    return np.repeat(np.asarray(values, dtype=float), 2)


def _log2_ticks(values: Sequence[float]) -> list[list[tuple[float, str]]]:
    """Ticks at powers of 2 (positions in log₁₀, as pyqtgraph's log mode expects)."""
    low = math.floor(math.log2(min(values)))
    high = math.ceil(math.log2(max(values)))
    step = max(1, math.ceil((high - low) / 10))
    major = []
    for e in range(low - low % step, high + 1, step):
        text = f"2^{e}" if abs(e) > 6 else format_number(2.0**e)
        major.append((e * math.log10(2.0), text))
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
