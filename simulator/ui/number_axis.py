"""`NumberAxis`: an axis whose ticks are written by the one formatter, with no multiplier.

pyqtgraph scales an axis with huge or tiny numbers by a power of ten it writes beside the
axis name ("weight (x1e+27)") and then still writes the scaled ticks with an exponent of
their own (3e+121): the reader has to multiply twice. Here the multiplier is off, and each
tick is the number itself, as `simulator.engine.numbers` writes it (3e121, −20, 0.5): the same
digits and the same minus sign as the panel and the captions. On a log axis the tick is
the value (1000), not its logarithm.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter

from simulator.engine.numbers import format_tick

__all__ = ["NameAxis", "NumberAxis", "number_axes"]


class NumberAxis(pg.AxisItem):
    """An axis item with ticks by `format_tick` and no SI or power-of-ten multiplier.

    `steady` (a left or right axis): the room for the tick labels fits `RESERVED` from the
    start and grows for wider labels, but never shrinks until `reset_room()`, so the plot
    beside it does not shift sideways as a run moves the view and its ticks change."""

    RESERVED = "−0.25"  # the labels a steady axis has room for from the start

    def __init__(self, orientation: str, *, steady: bool = False, **options: Any) -> None:
        super().__init__(orientation, **options)
        self.enableAutoSIPrefix(False)
        self.steady = steady and orientation in ("left", "right")
        if self.steady:
            self.setStyle(autoExpandTextSpace=False)
            self.reset_room()

    def reset_room(self) -> None:
        """Room for `RESERVED` only (new data: their labels may be narrower)."""
        if self.steady:
            self._reserve(self._metrics().horizontalAdvance(self.RESERVED))

    def _reserve(self, width: float) -> None:
        if self.style["tickTextWidth"] != math.ceil(width):
            self.setStyle(tickTextWidth=math.ceil(width))

    def setStyle(self, **options: Any) -> None:
        super().setStyle(**options)
        if "tickFont" in options and getattr(self, "steady", False):
            self.reset_room()  # measured afresh in the new type

    def _metrics(self) -> QFontMetricsF:
        font = self.style["tickFont"]
        return QFontMetricsF(font if font is not None else QFont())

    def generateDrawSpecs(self, p: QPainter) -> Any:
        """pyqtgraph's ticks, with labels thinned to the axis' length: a label that would
        touch one already placed (the larger ticks first) or stick out past the axis' ends
        is left out, so a short chart shows fewer labels, never overlapping ones."""
        specs = super().generateDrawSpecs(p)
        if specs is None:
            return specs
        axis, ticks, texts = specs
        vertical = self.orientation in ("left", "right")
        length = self.size().height() if vertical else self.size().width()
        gap = 2.0 if vertical else 6.0
        kept: list[QRectF] = []
        shown = []
        for rect, flags, text in texts:
            low, high = (rect.top(), rect.bottom()) if vertical else (rect.left(), rect.right())
            if low < -1 or high > length + 1:
                continue
            room = rect.adjusted(0, -gap, 0, gap) if vertical else rect.adjusted(-gap, 0, gap, 0)
            if any(room.intersects(other) for other in kept):
                continue
            kept.append(rect)
            shown.append((rect, flags, text))
        return axis, ticks, shown

    def resizeEvent(self, ev: Any = None) -> None:
        """An axis name longer than a vertical axis is not drawn (rather than cut off); it
        keeps its room, so the plot does not move as the chart grows or shrinks."""
        super().resizeEvent(ev)
        if self.label is not None and self.orientation in ("left", "right"):
            fits = self.label.boundingRect().width() <= self.size().height() + 1
            self.label.setOpacity(1.0 if fits else 0.0)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if self.logMode:
            texts = [format_tick(10.0**v, 10.0 ** (v - 1)) for v in values]
        else:
            texts = [format_tick(v * scale, spacing * scale) for v in values]
        if self.steady and texts:
            metrics = self._metrics()
            widest = max(metrics.horizontalAdvance(text) for text in texts) + 1
            if widest > self.style["tickTextWidth"]:
                self._reserve(widest)  # grow for these labels; never shrink on the way
        return texts


def number_axes(*, steady: bool = False) -> dict[str, NumberAxis]:
    """The axes of a plot (`PlotWidget(axisItems=number_axes())`): left and bottom;
    `steady`: the left one keeps its width as the ticks change (see `NumberAxis`)."""
    return {"left": NumberAxis("left", steady=steady), "bottom": NumberAxis("bottom")}


class NameAxis(NumberAxis):
    """A bottom axis that names bars at whole positions (a column's name under its bar).

    The names go horizontally while they fit between their bars, else turned upright
    (read from the bottom up, at most `MAX_NAME_EM` wide, longer ones elided), and when even
    upright ones would touch, every k-th bar is named, and the `marked` bars always (the
    variables of the data's OR). Without names it is a `NumberAxis`.
    """

    MAX_NAME_EM = 9  # an upright name's length, in widths of "M"

    def __init__(self, orientation: str = "bottom", **options: Any) -> None:
        super().__init__(orientation, **options)
        self.names: dict[int, str] = {}
        self.marked: tuple[int, ...] = ()
        self.longest: float | None = None  # an upright name's length at most, in pixels
        self.upright = False
        self.shown: list[int] = []  # the positions named in the last drawing

    def set_names(self, names: dict[int, str], marked: tuple[int, ...] = ()) -> None:
        """The name under the bar at each position (an empty dict: numbers again); the
        `marked` positions are named even when not every bar can be."""
        if names != self.names or marked != self.marked:
            self.names = dict(names)
            self.marked = tuple(sorted(p for p in marked if p in names))
            self.picture = None
            self._fit_height(self.upright)
            self.update()

    def set_longest(self, pixels: float | None) -> None:
        """Upright names at most this long (a short chart keeps room for its bars)."""
        if pixels != self.longest:
            self.longest = pixels
            self.picture = None
            self._fit_height(self.upright)
            self.update()

    def _upright_length(self) -> float:
        metrics = self._metrics()
        limit = self.MAX_NAME_EM * metrics.horizontalAdvance("M")
        if self.longest is not None:
            limit = min(limit, max(3 * metrics.horizontalAdvance("M"), self.longest))
        return min(
            limit, max((metrics.horizontalAdvance(n) for n in self.names.values()), default=0)
        )

    def _fit_height(self, upright: bool) -> None:
        """Room under the axis for upright names (else pyqtgraph's own measure)."""
        self.upright = upright
        if not (upright and self.names):
            if self.fixedHeight is not None:
                self.setHeight(None)
            return
        height = self._upright_length() + max(0, self.style["tickLength"]) + 8
        if self.label.isVisible():
            height += self.label.boundingRect().height() * 0.8
        if self.fixedHeight is None or abs(self.fixedHeight - height) > 0.5:
            self.setHeight(round(height))

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:
        if not self.names:
            return super().tickValues(minVal, maxVal, size)
        positions = sorted(p for p in self.names if minVal - 0.5 <= p <= maxVal + 0.5)
        if not positions or size <= 0 or maxVal <= minVal:
            return [(1.0, [])]
        per_bar = size / (maxVal - minVal)
        metrics = self._metrics()
        wide = max(metrics.horizontalAdvance(self.names[p]) for p in positions) + 8
        tall = metrics.height() * 1.15
        across = max(1, math.ceil(wide / per_bar))  # every k-th name fits lying down...
        upright = max(1, math.ceil(tall / per_bar))  # ...or standing up
        turn = upright < across
        self._fit_height(turn)
        step = upright if turn else across
        marked = [p for p in self.marked if p in positions]
        self.shown = sorted(
            {*marked}
            | {p for p in positions if p % step == 0 and all(abs(p - m) >= step for m in marked)}
        )
        return [(float(step), [float(p) for p in self.shown])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if not self.names:
            return super().tickStrings(values, scale, spacing)
        if self.upright:
            return ["" for _ in values]  # drawn turned, by `paint`
        return [self.names.get(round(v), "") for v in values]

    def paint(self, painter: QPainter, *args: Any) -> None:
        super().paint(painter, *args)
        view = self.linkedView()
        if not (self.upright and self.names and self.shown) or view is None:
            return
        metrics = self._metrics()
        length = self._upright_length()
        font = self.style["tickFont"]
        painter.save()
        if font is not None:
            painter.setFont(font)
        painter.setPen(self.textPen())
        top = max(0, self.style["tickLength"]) + 4
        for position in self.shown:
            x = self.mapFromScene(view.mapViewToScene(QPointF(position, 0.0))).x()
            if not 0 <= x <= self.boundingRect().width():
                continue
            name = metrics.elidedText(self.names[position], Qt.TextElideMode.ElideRight, length)
            painter.save()
            painter.translate(x, top)
            painter.rotate(-90)  # read from the bottom up; the name's end at the axis
            box = QRectF(-length, -metrics.height() / 2, length, metrics.height())
            painter.drawText(
                box, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), name
            )
            painter.restore()
        painter.restore()
