"""`GrowingCurve`: a curve drawn incrementally, in chunks, thinned past a budget.

It keeps what it drew in chunks and appends only the new points to the last one (no full
redraw per trial); a rewind cuts the curve back; a new run (or a replaced past) clears it.
Past `GrowingCurve.budget` vertices it draws every s-th point (s doubling): a chart is a few
hundred pixels wide, and Qt strokes a 2-pixel line at about 0.5 µs a vertex, so a run of 10⁶
mistakes stays about 1000 vertices; the exact latest steps are drawn by a small "tip".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

__all__ = [
    "BLACK",
    "BLUE",
    "GREEN",
    "GREY",
    "ORANGE",
    "PURPLE",
    "SERIES",
    "SKY",
    "TIP_STEPS",
    "VERMILLION",
    "GrowingCurve",
    "Points",
    "curve_pen",
    "step_vertices",
    "tip_vertices",
]

FloatArray = NDArray[np.float64]
Points = Callable[[int, int, int], tuple[FloatArray, FloatArray]]

# Okabe–Ito colours: told apart with any colour vision.
BLACK = QColor("#000000")
ORANGE = QColor("#E69F00")
SKY = QColor("#56B4E9")
GREEN = QColor("#009E73")
BLUE = QColor("#0072B2")
VERMILLION = QColor("#D55E00")
PURPLE = QColor("#CC79A7")
GREY = QColor("#7F7F7F")
SERIES = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, BLACK, GREY)


def curve_pen(
    colour: QColor, width: float = 2.0, style: Qt.PenStyle = Qt.PenStyle.SolidLine
) -> object:
    return pg.mkPen(colour, width=width, style=style)


@dataclass
class _Chunk:
    item: pg.PlotCurveItem
    start: int  # the first source point whose vertices it holds
    x: FloatArray
    y: FloatArray
    seed: int  # leading vertices copied from the previous chunk (continuity)


class GrowingCurve:
    """A curve drawn in chunks of at most `chunk` vertices (see the module docstring).

    `update(count, points)` shows source points 0…count−1; `points(start, stop, stride)`
    gives the vertices of source points start, start + stride, … < stop (`per_point` each).
    """

    THIN_AFTER = 400  # vertices; Qt strokes 1-pixel lines several times faster than wider

    def __init__(
        self,
        plot: pg.PlotItem,
        colour: QColor,
        width: float = 2.0,
        *,
        name: str | None = None,
        per_point: int = 1,
        origin: tuple[float, float] | None = None,
        chunk: int = 128,
        budget: int = 1024,
    ) -> None:
        self.plot = plot
        self.wide = curve_pen(colour, width)
        self.thin = curve_pen(colour, 1.0)
        self.pen = self.wide
        self.name = name
        self.per_point = per_point
        self.origin = origin
        self.chunk = chunk - chunk % per_point
        self.budget = budget
        self.stride = 1
        self.drawn = 0  # source points consumed: the next one to draw is `drawn`
        self.chunks: list[_Chunk] = []
        self.appended = 0  # vertices handed to setData by the last update (for tests)

    @property
    def last_point(self) -> int:
        """The last source point drawn (-1: none); the ones after it belong to a tip."""
        return self.drawn - self.stride if self.drawn else -1

    @property
    def vertices(self) -> int:
        return sum(len(c.x) for c in self.chunks)

    def data(self) -> tuple[FloatArray, FloatArray]:
        """All drawn vertices, in order (the seeds counted once)."""
        if not self.chunks:
            return np.zeros(0), np.zeros(0)
        xs = [c.x[c.seed :] if i else c.x for i, c in enumerate(self.chunks)]
        ys = [c.y[c.seed :] if i else c.y for i, c in enumerate(self.chunks)]
        return np.concatenate(xs), np.concatenate(ys)

    def clear(self) -> None:
        for c in self.chunks:
            self.plot.removeItem(c.item)
        self.chunks = []
        self.drawn = 0
        self.stride = 1

    def set_visible(self, on: bool) -> None:
        for c in self.chunks:
            c.item.setVisible(on)

    def update(self, count: int, points: Points) -> None:
        self.appended = 0
        stride = self.stride
        while count * self.per_point > self.budget * stride:
            stride *= 2
        if stride != self.stride:
            self.clear()
            self.stride = stride
        if count <= self.last_point:
            self._cut(count, points)
        if count > self.drawn:
            start = self.drawn
            x, y = points(start, count, self.stride)
            self.drawn = start + -(-(count - start) // self.stride) * self.stride
            self._append(start, np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        pen = self.thin if self.vertices > self.THIN_AFTER else self.wide
        if pen is not self.pen:  # a dense curve needs no width to be seen, and costs less
            self.pen = pen
            for c in self.chunks:
                c.item.setPen(pen)

    def _cut(self, count: int, points: Points) -> None:
        """Keep source points 0…count−1: drop later chunks, redraw the last one kept."""
        while self.chunks and self.chunks[-1].start >= count and len(self.chunks) > 1:
            self.plot.removeItem(self.chunks.pop().item)
        last = self.chunks[-1] if self.chunks else None
        if last is None or (last.start >= count and len(self.chunks) == 1 and count == 0):
            self.clear()
            return
        x, y = points(last.start, count, self.stride)
        last.x = np.concatenate([last.x[: last.seed], x])
        last.y = np.concatenate([last.y[: last.seed], y])
        last.item.setData(last.x, last.y)
        self.drawn = last.start + -(-(count - last.start) // self.stride) * self.stride
        self.appended += len(last.x)

    def _new_chunk(self, start: int) -> _Chunk:
        if self.chunks:
            previous = self.chunks[-1]
            x, y = previous.x[-1:], previous.y[-1:]
        elif self.origin is not None:
            x, y = np.array([self.origin[0]]), np.array([self.origin[1]])
        else:
            x, y = np.zeros(0), np.zeros(0)
        item = pg.PlotCurveItem(pen=self.pen, name=self.name if not self.chunks else None)
        self.plot.addItem(item)
        chunk = _Chunk(item, start, x, y, len(x))
        self.chunks.append(chunk)
        return chunk

    def _append(self, start: int, x: FloatArray, y: FloatArray) -> None:
        per = self.per_point
        while len(x):
            chunk = self.chunks[-1] if self.chunks else None
            if chunk is None or len(chunk.x) - chunk.seed >= self.chunk:
                if chunk is not None:
                    start = chunk.start + (len(chunk.x) - chunk.seed) // per * self.stride
                chunk = self._new_chunk(start)
            room = self.chunk - (len(chunk.x) - chunk.seed)
            chunk.x = np.concatenate([chunk.x, x[:room]])
            chunk.y = np.concatenate([chunk.y, y[:room]])
            x, y = x[room:], y[room:]
            chunk.item.setData(chunk.x, chunk.y)
            self.appended += len(chunk.x)


def step_vertices(
    times: NDArray[np.int64],
    values: FloatArray,
    before: FloatArray,
    start: int,
    stop: int,
    stride: int,
) -> tuple[FloatArray, FloatArray]:
    """Vertices of a step curve: at times[i] the value goes from before[i] to values[i]."""
    idx = np.arange(start, stop, stride)
    x = np.repeat(times[idx].astype(np.float64), 2)
    y = np.empty(2 * len(idx))
    y[0::2] = before[idx]
    y[1::2] = values[idx]
    return x, y


TIP_STEPS = 64  # source points a tip draws at most (the last always among them)


def tip_vertices(
    after: int, count: int, points: Points, lead: tuple[float, float], end: tuple[float, float]
) -> tuple[FloatArray, FloatArray]:
    """From `lead` (the last point drawn) through source points after…count−1 to `end`:
    each of them while they are few, else `TIP_STEPS` of them and the last."""
    x, y = np.zeros(0), np.zeros(0)
    if after < count:
        step = max(1, -(-(count - after) // TIP_STEPS))
        x, y = points(after, count, step)
        if (count - 1 - after) % step:
            last_x, last_y = points(count - 1, count, 1)
            x, y = np.concatenate([x, last_x]), np.concatenate([y, last_y])
    return (
        np.concatenate([[lead[0]], x, [end[0]]]),
        np.concatenate([[lead[1]], y, [end[1]]]),
    )
