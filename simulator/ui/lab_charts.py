"""The Winnow lab's charts, drawn by the window's lab and by `python main.py lab --plot`.

- `ScalingChart`: mistakes against n (n on a log scale), one line per rule, each rule's
  bound dashed in its colour. The mistakes on a linear scale first: Winnow's
  2 + 3r(1 + log₂ n) is then a straight line and the perceptron's (4r + 1)·R² (R² grows
  like n) shoots up, where log–log axes (`log_y`) draw both as straight lines.

Every legend is a row under its chart, never over a curve; it has as many columns as the
chart's width holds.
- `CumulativeChart`: the mistake count k against the trial for one n, one staircase per rule,
  with the bounds as horizontal dashed lines (those far above the curves are named in
  the legend with an arrow instead, so they do not squash the curves).
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
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from simulator.engine.lab import Race, RaceResult, WeightTrace
from simulator.presentation.frame import format_number
from simulator.ui import style
from simulator.ui.number_axis import number_axes

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
_HEADROOM = 1.12  # y range over the data's: a little air above the highest curve
LEGEND_PX = 13  # the legends' type at scale 1 (pixels)
MAX_BOUND_OVER_MISTAKES = 1.6  # a linear axis reaches at most this far over the mistakes
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

    def __init__(self, parent: QWidget | None, name: str, scale: float, columns: int = 2) -> None:
        super().__init__(parent, background=style.BACKGROUND, axisItems=number_axes())
        self.setObjectName(name)
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        item.setMenuEnabled(False)
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen("#444444"))
            item.getAxis(axis).setTextPen(pg.mkPen("#222222"))
        # The legend in a row of its own under the chart, never over a curve (at 1024 px
        # wide one inside the plot covered the points of n = 8 … 32). Items added with a
        # name join it, as with `addLegend`.
        self.legend = pg.LegendItem(
            labelTextSize=f"{LEGEND_PX}px", labelTextColor="#222222", verSpacing=-4
        )
        self._columns = columns
        self.legend.setColumnCount(columns)
        # Its width never widens the chart (`fit_legend` chooses the columns instead).
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        item.layout.addItem(self.legend, 4, 1)
        item.legend = self.legend
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
        self.legend.setLabelTextSize(f"{round(LEGEND_PX * legend)}px")
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
        """The y range over the data's: `_HEADROOM`, more when `lines` lines of notes at
        the top need more of the plot's height (large type). The legend is under the
        chart, not in it."""
        height = self.getPlotItem().getViewBox().height()
        if height <= 0 or not lines:
            return _HEADROOM
        text = 8 + lines * 1.4 * 12 * self.scale
        band = min(0.6, max(1.0 - 1.0 / _HEADROOM, text / height))
        return 1.0 / (1.0 - band)

    def _reset(self) -> None:
        self.getPlotItem().clear()
        self.legend.clear()

    def close(self) -> bool:
        """Take the legend out of the plot's layout and scene first: pyqtgraph's close
        clears the scene, and a layout's item deleted with it crashes Qt."""
        item = self.getPlotItem()
        legend = getattr(self, "legend", None)
        if item is not None and legend is not None:
            item.layout.removeItem(legend)
            if legend.scene() is not None:
                legend.scene().removeItem(legend)
            item.legend = None
        return bool(super().close())

    def fit_legend(self) -> None:
        """As many legend columns as the chart's width holds (at most `columns`): a legend
        wider than its chart would widen the chart past its room."""
        room = self.width() - 16
        entries = [
            sample.boundingRect().width() + label.itemRect().width() + 16
            for sample, label in self.legend.items
        ]

        def width(count: int) -> float:  # the legend fills its rows left to right
            return sum(max(entries[j::count], default=0.0) for j in range(count))

        count = next((c for c in range(self._columns, 1, -1) if width(c) <= room), 1)
        if count != self.legend.columnCount:
            self.legend.setColumnCount(count)

    def resizeEvent(self, event: QResizeEvent | None) -> None:
        super().resizeEvent(event)
        if getattr(self, "legend", None) is not None:
            self.fit_legend()

    def width_for(self, base: float) -> float:
        return base * self.scale


class ScalingChart(_Chart):
    """Mistakes against n (n on a log scale) for each rule, with the bounds dashed.

    The mistakes on a linear scale first (`log_y` False): there log n is a straight line
    and n a curve shooting up, the lesson; on log–log axes both are straight lines and
    look alike. `set_log_y` switches."""

    def __init__(
        self, parent: QWidget | None = None, *, scale: float = 1.0, log_y: bool = False
    ) -> None:
        super().__init__(parent, "labScalingChart", scale)
        self.log_y = log_y
        self.setLogMode(x=True, y=log_y)
        self._labels("Mistakes against n", "n (variables, log scale)", self._y_name())
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bounds: dict[str, pg.PlotDataItem] = {}
        self._shown: tuple[Sequence[Race], str | None] = ((), None)
        self._mistakes = 0.0  # the most mistakes drawn

    def _y_name(self) -> str:
        return "mistakes (log scale)" if self.log_y else "mistakes"

    def set_log_y(self, on: bool) -> None:
        """Mistakes on a log scale (or linear), redrawn."""
        if on != self.log_y:
            self.log_y = on
            self.setLogMode(x=True, y=on)
            title = self._texts[0] if self._texts is not None else "Mistakes against n"
            self._labels(title, "n (variables, log scale)", self._y_name())
            self.show_races(*self._shown)

    def show_races(self, races: Sequence[Race], title: str | None = None) -> None:
        """Draw the races so far (any order of n)."""
        self._shown = (tuple(races), title)
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
        self._mistakes = float(max(r.mistakes for race in ordered for r in race.results))
        for index, rule in enumerate(rules):
            self._plot_rule(index, rule, ordered, values, notes)
        self.fit_legend()
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
        shown = [(n, k) for n, k in points if k > 0 or not self.log_y]  # a log axis has no 0
        name = next(r.title for r in results if r is not None)
        if shown:
            x, y = (np.array(v) for v in zip(*shown, strict=True))
            values.extend(y.tolist())
            notes.append((x[-1], y[-1], count_text(y[-1]), colour, True))
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
            notes.append((x[-1], y[-1], count_text(y[-1]), colour, False))
            self.bounds[rule] = self.plot(
                x,
                y,
                pen=_pen(colour, self.width_for(2.0), dash=True),
                name=f"{name}'s bound {bounds[0][2]}",
            )

    def _fit_axes(self, sizes: Sequence[int], values: Sequence[float], notes: list[_Note]) -> None:
        """Ticks at the n raced (and on a log y axis at 1, 2, 5 × 10^k); the ranges; the
        values at the right."""
        item = self.getPlotItem()
        item.getAxis("bottom").setTicks([[(math.log10(n), f"{n:,}") for n in sizes]])
        positive = [v for v in values if v > 0]
        log = self.log_y and bool(positive)
        item.getAxis("left").setTicks(_decade_ticks(min(positive), max(positive)) if log else None)
        low, high = math.log10(sizes[0]), math.log10(sizes[-1])
        margin = max(0.08 * (high - low), 0.15)
        item.setXRange(low - margin, high + 2 * margin, padding=0)
        if not values:
            return
        if log:
            bottom, top = math.log10(min(positive)), math.log10(max(positive))
            item.setYRange(bottom - 0.1, top + 0.1, padding=0)
        else:
            # Linear: up to the mistakes, with room; a bound far above them (the
            # perceptron's, ~n) leaves the chart at the top rather than flatten them.
            bottom = 0.0
            top = min(max(values), MAX_BOUND_OVER_MISTAKES * max(self._mistakes, 1.0))
            top = max(top, 1.0) * _HEADROOM
            item.setYRange(0.0, top, padding=0)
        # Values at the right edge, a line of their type apart where lines end close
        # together; a value above the chart written at its top with an arrow. Where the
        # chart is too short for all of them, the mistakes keep theirs, the bounds give way.
        low, high = (bottom - 0.1, top + 0.1) if log else (0.0, top)
        height = item.getViewBox().height()
        line = 1.15 * round(13 * self.scale)
        gap = (high - low) * (line / height if height > 0 else 0.08)
        wanted = []
        for n, k, text, colour, bold in notes:
            y = math.log10(k) if log else k
            if y > high - gap / 2:
                y, text = high - gap / 2, f"↑ {text}" if not log else text
            wanted.append((n, y, text, colour, bold))
        room = int((high - low) / gap) if gap > 0 else len(wanted)
        if len(wanted) > room:  # the bounds give way to the mistakes
            wanted = sorted(wanted, key=lambda note: not note[4])[: max(room, 0)]
        for (n, _, text, colour, bold), y in zip(
            sorted(wanted, key=lambda note: note[1]),
            _spread([note[1] for note in sorted(wanted, key=lambda note: note[1])], gap, low, high),
            strict=True,
        ):
            self._annotate(n, y, text, colour, bold)

    def _annotate(self, n: float, y: float, text: str, colour: QColor, bold: bool) -> None:
        """A value beside the end of a line at n, at height y (on the y axis's scale)."""
        font = QFont()
        font.setPixelSize(round(13 * self.scale))
        font.setBold(bold)
        label = pg.TextItem(text, color=colour, anchor=(0, 0.5))
        label.setFont(font)
        label.setPos(math.log10(n) + 0.03, y)
        self.addItem(label)


def _sample_pen(item: pg.GraphicsObject) -> QPen:
    """The pen a legend's sample of `item` draws with (a curve's or a line's)."""
    if isinstance(item, pg.InfiniteLine):
        return QPen(item.pen)
    return pg.mkPen(item.opts.get("pen"))


def _spread(ys: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Heights near `ys` (ascending) at least `gap` apart, within low + gap/2 … high − gap/2
    where there is room: pushed up from below, then down from the top."""
    placed = list(ys)
    floor, ceiling = low + gap / 2, high - gap / 2
    for i, y in enumerate(placed):
        placed[i] = max(y, floor if i == 0 else placed[i - 1] + gap)
    for i in range(len(placed) - 1, -1, -1):
        limit = ceiling if i == len(placed) - 1 else placed[i + 1] - gap
        placed[i] = min(placed[i], limit)
    return placed


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
        super().__init__(parent, "labCumulativeChart", scale, columns=2)
        self._labels("Cumulative mistakes", "trial", "mistakes k")
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.bound_lines: dict[str, pg.InfiniteLine] = {}
        self.off_chart: list[str] = []  # the bounds named in the legend instead of drawn

    def show_race(self, race: Race | None) -> None:
        self._reset()
        self.curves, self.bound_lines, self.off_chart = {}, {}, []
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
        # The legend pairs each rule with its bound, a row each (two columns): the bound
        # is named there with its dash and its rule's colour, not written over the curves;
        # one far above the curves ("↑") is not drawn, so that it does not flatten them.
        entries: list[tuple[pg.GraphicsObject, str]] = []
        for index, result in enumerate(race.results):
            colour, _ = rule_style(index)
            x, y = staircase(result.mistake_trials, result.trials)
            curve = self.plot(x, y, pen=_pen(colour, self.width_for(2.5)))
            self.curves[result.rule] = curve
            entries.append((curve, result.title))
            bound = result.bound
            if bound is None:
                entries.append((pg.PlotDataItem(pen=pg.mkPen(None)), ""))  # its row's end
                continue
            dashed = _pen(colour, self.width_for(2.0), dash=True)
            if bound > ceiling:
                self.off_chart.append(f"{result.title}'s bound {count_text(bound)}")
                entries.append((pg.PlotDataItem(pen=dashed), f"bound {count_text(bound)} ↑"))
                continue
            line = pg.InfiniteLine(pos=bound, angle=0, pen=dashed)
            self.addItem(line)
            self.bound_lines[result.rule] = line
            entries.append((line, f"bound {count_text(bound)}"))
            top = max(top, bound)
        while entries and not entries[-1][1]:
            entries.pop()
        for item, text in entries:
            self.legend.addItem(pg.PlotDataItem(pen=_sample_pen(item)), text)
        self.getPlotItem().setXRange(0, max(end, 1.0), padding=0.02)
        self.getPlotItem().setYRange(0, max(top, 1.0) * self.headroom(), padding=0)
        self.fit_legend()


class WeightsChart(_Chart):
    """One run's weights after each mistake: relevant ones, irrelevant mean and range, θ."""

    def __init__(self, parent: QWidget | None = None, *, scale: float = 1.0) -> None:
        super().__init__(parent, "labWeightsChart", scale, columns=2)
        self._labels("Weights", "trial", "w")
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
        label = "w (log scale)" if self.log_scale else "w"
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
        self.fit_legend()
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
