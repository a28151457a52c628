"""Charts of the run over time: mistakes, the convergence proof, the loss or the weights.

Each chart is a pyqtgraph `PlotWidget` that paints the `Trace` of the frames it is shown.
It draws incrementally: a `GrowingCurve` keeps what it drew in chunks and appends only the
new points to the last one (no full redraw per trial); a rewind cuts the curve back; a new
run (or a replaced past) clears it. Past `GrowingCurve.budget` vertices it draws every
s-th point (s doubling): a chart is a few hundred pixels wide, and Qt strokes a 2-pixel
line at about 0.5 µs a vertex, so a run of 10⁶ mistakes stays about 1000 vertices; the
exact latest steps are drawn by a small "tip". The axes move in round steps, as a
function of the data alone, so that their ticks and labels (cached as pixmaps) are
redrawn now and then, not every frame, and a picture does not depend on the frames
before it. A hidden chart does nothing until shown.

- `MistakesChart` (`mistakesChart`): k against the trial, a step up at every mistake, with
  the mistake bound that applies (`frame.mistake_bound`, when finite) as a horizontal line.
- `ProofChart` (`proofChart`): Novikoff's proof after each mistake k: A_k = w·u*/ηγ* above
  the line k above B_k = ‖w‖²/η²R², under the ceiling C(k) = √k·R/γ* that meets the line k at
  the bound R²/γ*² (the general forms from w₀ ≠ 0; see `simulator.presentation.trace`). Its caption
  states the inequalities with this run's numbers, or why there is nothing to show.
- `LossChart` (`lossChart`): for a least-squares rule (Adaline), the mean squared error
  after each epoch, log scale, above the least-squares floor (the MSE of w_LS); for a
  mistake-driven rule without Novikoff's bound (the Winnows), w after each mistake against
  the trial (log scale while every weight is positive); otherwise, why it is empty.

The axes follow the data until the user zooms or pans; "View all" in the context menu
follows again. The context menu also saves the chart alone as PNG or SVG and its data as
CSV (the exact values, not the thinned curve).
"""

from __future__ import annotations

import csv
import html
import io
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from pyqtgraph import exporters
from PySide6.QtCore import QRect, QRectF, QSaveFile, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QContextMenuEvent, QFont, QPainter, QShowEvent
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QMenu,
    QScrollArea,
    QWidget,
)

from simulator.presentation.frame import Frame, format_bound, format_number
from simulator.presentation.trace import Followed, Proof, Trace, ceiling
from simulator.ui import style

__all__ = [
    "Chart",
    "ChartBox",
    "ChartPanel",
    "GrowingCurve",
    "LossChart",
    "MistakesChart",
    "ProofChart",
]

FloatArray = NDArray[np.float64]
FOLLOW_BUDGET = 256  # mistakes replayed per paint (~10 ms): a long history never freezes
FOLLOW_BATCH = 512  # during a fast run, new mistakes followed in batches of this many...
FOLLOW_EVERY = 0.25  # ...or after this many seconds, whichever comes first
Points = Callable[[int, int, int], tuple[FloatArray, FloatArray]]

BLACK = QColor("#000000")
ORANGE = QColor("#E69F00")
SKY = QColor("#56B4E9")
GREEN = QColor("#009E73")
BLUE = QColor("#0072B2")
VERMILLION = QColor("#D55E00")
PURPLE = QColor("#CC79A7")
GREY = QColor("#7F7F7F")
_SERIES = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, BLACK, GREY)
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _unbroken(text: str) -> str:
    """`text` for an HTML caption, never wrapped inside ("> 1.8e308" stays on one line)."""
    return html.escape(text).replace(" ", "&nbsp;")


def _pen(colour: QColor, width: float = 2.0, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> object:
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
        self.wide = _pen(colour, width)
        self.thin = _pen(colour, 1.0)
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


def _step_vertices(
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


class Chart(pg.PlotWidget):
    """A chart that paints traces, follows its data, and exports itself and its data."""

    message = Signal(str)
    caption_changed = Signal(str)  # HTML

    heading = ""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w")
        self.setObjectName(name)
        item = self.getPlotItem()
        item.setMenuEnabled(False)
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            axis.setTextPen(pg.mkPen(BLACK))
            axis.setPen(pg.mkPen(GREY))
            # Ticks and labels as a pixmap, repainted only when the range changes. (No grid:
            # it is drawn across the whole view by the axes, at a third of a chart's cost.)
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.legend = item.addLegend(
            offset=(6, 4), labelTextColor=BLACK, labelTextSize="8pt", verSpacing=-6
        )
        self.legend.setBrush(pg.mkBrush(255, 255, 255, 220))
        self.view_box = item.getViewBox()
        self.view_box.disableAutoRange()
        self.view_box.sigRangeChangedManually.connect(self._on_user_range)
        self.follow = True  # the axes follow the data until the user zooms or pans
        self.label_size = "9pt"
        self._shown: tuple[tuple[float, float], tuple[float, float]] | None = None
        self.caption = ""
        self.note = pg.TextItem(color=GREY, anchor=(0.5, 0.5))
        self.note.setParentItem(self.view_box)
        self.view_box.sigResized.connect(self._place_note)
        self._trace: Trace | None = None
        self._frame: Frame | None = None
        self._followed: Followed | None = None
        self._followed_key: tuple[object, ...] = ()
        self._running = False
        self.follow_budget: int | None = FOLLOW_BUDGET  # None: all at once (export)
        self.needs_weights = True  # False: only the proof (no replay where it does not apply)
        self.clock: Callable[[], float] = time.monotonic  # tests drive time with their own
        self._followed_at = -math.inf
        self._trials_followed = 0
        self._stale = False
        self._catching_up = False
        self.view_all_action = QAction("View all", self)
        self.view_all_action.triggered.connect(self.view_all)
        self.save_png_action = QAction("Save chart as PNG…", self)
        self.save_png_action.triggered.connect(lambda: self._save_dialog("png"))
        self.save_svg_action = QAction("Save chart as SVG…", self)
        self.save_svg_action.triggered.connect(lambda: self._save_dialog("svg"))
        self.save_csv_action = QAction("Save data as CSV…", self)
        self.save_csv_action.triggered.connect(lambda: self._save_dialog("csv"))

    # -- painting frames -----------------------------------------------------------------------

    def show_frame(self, frame: Frame, running: bool = False) -> None:
        """Paint `frame` now if visible; else remember it for when the chart is shown.

        `running`: a run is going. When it moves more than one trial a frame, the weights
        after the newest mistakes may wait for a batch (`FOLLOW_BATCH` of them, or
        `FOLLOW_EVERY` seconds): replaying a mistake costs as much as making it, each replay
        starts from the engine's checkpoint before them (up to 256 updates back), and a
        quarter of a second is nothing at thousands of trials a second. Show the frame
        again with running False when the run stops."""
        self._frame = frame
        self._running = running
        if self.isVisible():
            self._stale = False
            self.paint_frame(frame)
        else:
            self._stale = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale and self._frame is not None:
            self._stale = False
            self.paint_frame(self._frame)

    def paint_frame(self, frame: Frame) -> None:
        raise NotImplementedError

    def follow_trace(self, trace: Trace) -> Followed:
        """The proof and weights of `trace`, a bounded amount computed now; the rest is
        painted on the next turns of the event loop (the window stays responsive). During
        a run, the last ones until a batch is due (see `show_frame`)."""
        previous, key = self._followed, (trace.key, id(self._frame.report) if self._frame else 0)
        now = self.clock()
        fast = trace.trials - self._trials_followed > 1
        if (
            self._running
            and fast
            and previous is not None
            and previous.complete
            and key == self._followed_key
            and previous.weights is not None
            and len(previous.weights) <= trace.mistakes < len(previous.weights) + FOLLOW_BATCH
            and now - self._followed_at < FOLLOW_EVERY
        ):
            return previous
        followed = trace.followed(self.follow_budget, weights=self.needs_weights)
        self._followed, self._followed_key, self._followed_at = followed, key, now
        self._trials_followed = trace.trials
        if not followed.complete and not self._catching_up:
            self._catching_up = True
            QTimer.singleShot(0, self._catch_up)
        return followed

    def _catch_up(self) -> None:
        self._catching_up = False
        if self._frame is not None and self.isVisible():
            self.paint_frame(self._frame)
        elif self._frame is not None:
            self._stale = True

    def set_caption(self, text: str) -> None:
        """The caption beside the chart (HTML)."""
        if text != self.caption:
            self.caption = text
            self.caption_changed.emit(text)

    def set_note(self, text: str) -> None:
        """A message in the middle of the chart (why it is empty), or none."""
        if text != self.note.toPlainText():
            self.note.setText(text)
            self._place_note()

    def _place_note(self) -> None:
        rect = self.view_box.boundingRect()
        self.note.setTextWidth(max(80.0, rect.width() * 0.9))
        self.note.setPos(rect.center())

    def set_presentation(self, on: bool) -> None:
        """Tick labels and axis names in lecture-hall sizes (style.PRESENTATION_*)."""
        font = QFont(self.font())
        if on:
            font.setPixelSize(style.PRESENTATION_TICK_PX)
        item = self.getPlotItem()
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            axis.setStyle(tickFont=font)
        self.label_size = f"{style.PRESENTATION_AXIS_LABEL_PX}px" if on else "9pt"
        self.set_labels(item.getAxis("bottom").labelText, item.getAxis("left").labelText)
        legend_size = f"{style.PRESENTATION_TICK_PX}px" if on else "8pt"
        self.legend.setLabelTextSize(legend_size)  # for entries added later
        for _, label in self.legend.items:
            label.setText(label.text, size=legend_size)
        for line in item.items:
            if isinstance(line, pg.InfiniteLine) and line.label is not None:
                line.label.setFont(font)
        self.note.setFont(font)

    def set_labels(self, bottom: str, left: str) -> None:
        """The axes' names, in the chart's label size."""
        item = self.getPlotItem()
        for side, text in (("bottom", bottom), ("left", left)):
            if text:
                item.setLabel(side, text, **{"font-size": self.label_size})
            else:
                item.getAxis(side).showLabel(False)

    # -- axes --------------------------------------------------------------------------------

    def _on_user_range(self, *_: object) -> None:
        self.follow = False

    def view_all(self) -> None:
        """Follow the data again (after the user zoomed or panned)."""
        self.follow = True
        self._shown = None
        if self._frame is not None:
            self.paint_frame(self._frame)

    def set_axes(self, x: tuple[float, float], y: tuple[float, float]) -> None:
        """Show at least this data range (while following), widened to round steps: the
        axes change only when the data cross a step, so that their ticks (cached) are
        redrawn now and then, not every frame; and they depend on the data alone, not on
        which frames came before (an export every mistake shows what one every trial does)."""
        if not self.follow:
            return
        shown = (_nice(*x), _nice(*y))
        if shown != self._shown:
            self._shown = shown
            self.view_box.setRange(
                xRange=shown[0], yRange=shown[1], padding=0.02, disableAutoRange=False
            )

    # -- export ------------------------------------------------------------------------------

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        menu.addAction(self.view_all_action)
        menu.addSeparator()
        for action in (self.save_png_action, self.save_svg_action, self.save_csv_action):
            menu.addAction(action)
        menu.exec(event.globalPos())

    def table(self) -> tuple[Sequence[str], list[Sequence[object]]]:
        """The chart's data: a header and rows (the exact values, not the thinned curve)."""
        return (), []

    def save_image(self, path: str | Path) -> bool:
        """Save the chart alone as PNG or SVG (by the suffix); False (and a message) on failure."""
        path = Path(path)
        try:
            if path.suffix.lower() == ".svg":
                self._save_svg(path)
            else:
                exporter = exporters.ImageExporter(self.getPlotItem())
                exporter.parameters()["width"] = max(800, 2 * int(self.width()))
                exporter.export(str(path))
        except Exception as exc:  # a full disk, a folder we cannot write: say so, go on
            self.message.emit(f"Could not save {path}: {exc}")
            return False
        ok = path.is_file()
        self.message.emit(f"Saved {path}." if ok else f"Could not save {path}.")
        return ok

    def _save_svg(self, path: Path) -> None:
        """The chart as drawn, as vectors (Qt's SVG generator: pyqtgraph's SVG exporter
        fails on the coordinates Qt 6 writes)."""
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(self.size())
        generator.setViewBox(self.rect())
        generator.setTitle(self.heading)
        painter = QPainter()
        if not painter.begin(generator):
            raise OSError("cannot write there")
        try:
            self.render(painter)
        finally:
            painter.end()

    def csv_text(self) -> str:
        header, rows = self.table()
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return out.getvalue()

    def save_csv(self, path: str | Path) -> bool:
        """Save the chart's data as CSV, atomically; False (and a message) on failure."""
        path = Path(path)
        out = QSaveFile(str(path))
        if not out.open(QSaveFile.OpenModeFlag.WriteOnly):
            self.message.emit(f"Could not save {path}: {out.errorString()}")
            return False
        out.write(self.csv_text().encode("utf-8"))
        if not out.commit():
            self.message.emit(f"Could not save {path}: {out.errorString()}")
            return False
        self.message.emit(f"Saved {path}.")
        return True

    def _save_dialog(self, kind: str) -> None:
        filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV (*.csv)"}
        name = f"{self.objectName()}.{kind}"
        path, _ = QFileDialog.getSaveFileName(self, "Save", name, filters[kind])
        if not path:
            return
        if not path.lower().endswith("." + kind):
            path += "." + kind
        if kind == "csv":
            self.save_csv(path)
        else:
            self.save_image(path)


def _span(low: float, high: float) -> tuple[float, float]:
    """A range with some width (a single value gets ±0.5)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return (0.0, 1.0)
    if high - low < 1e-12 * max(1.0, abs(high)):
        return (low - 0.5, high + 0.5)
    return (low, high)


def _nice(low: float, high: float) -> tuple[float, float]:
    """`low…high` widened to multiples of a round step (1, 2 or 5 × 10ᵉ, about a quarter of
    the span), with a tenth of the span to spare at the top."""
    low, high = _span(low, high)
    span = high - low
    raw = span / 4
    scale = 10.0 ** math.floor(math.log10(raw))
    step = next(r * scale for r in (1.0, 2.0, 5.0, 10.0) if r * scale >= raw)
    return (math.floor(low / step) * step, math.ceil((high + 0.1 * span) / step) * step)


def _bound_line(colour: QColor, angle: float = 0.0, position: float = 0.03) -> pg.InfiniteLine:
    """A dashed line across the chart with a label (set with `label.setFormat`): above a
    horizontal line at its left end, left of a vertical one."""
    anchor = [(0, 1), (0, 1)] if angle == 0 else [(1, 0.5), (1, 0.5)]
    return pg.InfiniteLine(
        angle=angle,
        pen=_pen(colour, 2.0, Qt.PenStyle.DashLine),
        label="",
        labelOpts={"position": position, "color": colour, "anchors": anchor},
    )


def in_view(bound: float | None, shown: float) -> bool:
    """Whether a bound is close enough to what is shown (within 10×, or up to 40) for the
    axes to reach it: the class sees k approach it, without a far bound squashing k."""
    return bound is not None and math.isfinite(bound) and 0 < bound <= max(40.0, 10.0 * shown)


TIP_STEPS = 64  # source points a tip draws at most (the last always among them)


def _tip(
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


class MistakesChart(Chart):
    """k against the trial, with the bound that applies (see the module docstring)."""

    heading = "Mistakes k against the trial t"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("mistakesChart", parent)
        item = self.getPlotItem()
        self.set_labels("trial t", "mistakes k")
        self.legend.setVisible(False)  # one curve, and the bound is labelled on its line
        self.curve = GrowingCurve(item, BLACK, per_point=2, origin=(0.0, 0.0))
        self.tip = pg.PlotCurveItem(pen=_pen(BLACK))
        item.addItem(self.tip)
        self.bound_line = _bound_line(VERMILLION)
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
            return _step_vertices(times, ks[1:], ks[:-1], start, stop, stride)

        self.curve.update(m, points)
        last = self.curve.last_point
        lead = (float(times[last]), float(last + 1)) if last >= 0 else (0.0, 0.0)
        self.tip.setData(*_tip(last + 1, m, points, lead, (float(trace.trials), float(m))))
        self.tip.setPen(self.curve.pen)
        bound = frame.mistake_bound
        finite = bound is not None and math.isfinite(bound)
        self.bound_line.setVisible(finite)
        learner, general, own = frame.learner, frame.bound_is_general, frame.bound
        what = "bound" if general or own is None else own.formula
        if bound is not None and finite:
            self.bound_line.setValue(bound)
            self.bound_line.label.setFormat(f"{what} = {format_number(bound, 4)}")
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
            tail = f"{whose} is {format_bound(bound, separable, 4)} (dashed)."
        elif bound is None:
            tail = f"No mistake bound applies to {title} here."
        elif not len(frame.dataset):
            tail = ""
        elif separable:  # finite, but past the largest float: no line to draw
            shown = _unbroken(format_bound(bound, separable, 4))
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


A_NAME, B_NAME, CEILING_NAME = "w·u*/ηγ*", "‖w‖²/η²R²", "√k·R/γ*"
GENERAL_NAMES = ("(w−w₀)·u*/ηγ*", "(‖w‖²−‖w₀‖²)/η²R²", "C(k)")


class ProofChart(Chart):
    """A_k and B_k squeezing k, up to the bound (see the module docstring)."""

    heading = "Novikoff's proof, after each mistake k"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("proofChart", parent)
        self.needs_weights = False
        item = self.getPlotItem()
        self.set_labels("mistakes k", "")
        self.along = GrowingCurve(item, BLUE, 2.5, name=A_NAME)
        self.line = pg.PlotCurveItem(pen=_pen(BLACK, 1.5), name="k")
        item.addItem(self.line)
        self.norm = GrowingCurve(item, VERMILLION, 2.5, name=B_NAME)
        self.ceiling = pg.PlotCurveItem(
            pen=_pen(GREY, 1.5, Qt.PenStyle.DashLine), name=CEILING_NAME
        )
        item.addItem(self.ceiling)
        self.bound_line = _bound_line(GREEN, angle=90, position=0.5)
        item.addItem(self.bound_line, ignoreBounds=True)
        # Top left: above the ceiling, which starts at 0, the corner the curves leave empty.
        self.legend.setOffset((6, 4))
        self.legend.setColumnCount(2)
        self._names = (A_NAME, B_NAME, CEILING_NAME)
        self._key: tuple[object, ...] | None = None

    def curve_names(self) -> tuple[str, str, str, str]:
        """The names of A_k, B_k, the line k and the ceiling, as in the legend."""
        return self._names[0], self._names[1], "k", self._names[2]

    def _name(self, general: bool) -> None:
        """Name the curves for w₀ = 0 or the general form."""
        names = GENERAL_NAMES if general else (A_NAME, B_NAME, CEILING_NAME)
        if names == self._names:
            return
        self.along.clear()
        self.norm.clear()
        self.along.name, self.norm.name = names[0], names[1]
        self.ceiling.opts["name"] = names[2]
        self.legend.clear()
        self.legend.addItem(self.line, "k")
        self.legend.addItem(self.ceiling, names[2])
        self._names = names

    def paint_frame(self, frame: Frame) -> None:
        trace = frame.trace
        self._trace = trace
        followed = self.follow_trace(trace)
        proof = followed.proof
        self._name(proof.general)
        key = (trace.key, proof.key)
        if key != self._key:
            self.along.clear()
            self.norm.clear()
            self._key = key
        applies = proof.applies
        for curve in (self.along, self.norm):
            curve.set_visible(applies)
        for item in (self.line, self.ceiling, self.bound_line, self.legend):
            item.setVisible(applies)
        if not applies:
            self.set_note(proof.reason or "")
            self.set_caption(html.escape(proof.reason or ""))
            return
        self.set_note("")
        count = len(proof.along)  # k = 0 … m
        ks = np.arange(count, dtype=np.float64)

        def series(values: FloatArray) -> Points:
            return lambda a, b, s: (ks[a:b:s], values[a:b:s])

        self.along.update(count, series(proof.along))
        self.norm.update(count, series(proof.norm))
        m = count - 1
        right = max(float(m), 3.0) * 1.1
        if in_view(proof.bound, max(float(m), 1.0)):
            right = max(right, proof.bound * 1.08)
        self.line.setData([0.0, right], [0.0, right])
        grid = np.linspace(0.0, right, 200)
        heights = ceiling(proof, grid)
        self.ceiling.setData(grid, heights)
        finite = math.isfinite(proof.bound)
        self.bound_line.setVisible(finite)
        if finite:
            self.bound_line.setValue(proof.bound)
            what = "bound" if proof.general else "R²/γ*²"
            self.bound_line.label.setFormat(f"{what} = {format_bound(proof.bound, True, 4)}")
        top = max(right, float(np.max(proof.along)))
        bottom = min(0.0, float(np.min(proof.along)), float(np.min(proof.norm)))
        self.set_axes((0.0, right), (bottom, top))
        self.set_caption(self.explain(proof, m))

    @staticmethod
    def explain(proof: Proof, m: int) -> str:
        """The proof's steps with this run's numbers (HTML)."""

        def number(value: float) -> str:
            return format_number(value, 4)

        bound = _unbroken(format_bound(proof.bound, True, 4))  # the proof is of separable data
        given = (
            f"η = {number(proof.learning_rate)}, γ* = {number(proof.gamma)}, "
            f"R = {number(proof.radius)}"
        )
        if proof.general:
            lines = [
                f"From w₀ ≠ 0 ({given}, w₀·u* = {number(proof.start_along)}, "
                f"‖w₀‖² = {number(proof.start_norm2)}), after the k-th mistake:",
                "<b>A_k = (w−w₀)·u*/ηγ* ≥ k</b>: each mistake adds η y x·u* ≥ ηγ*.",
                "<b>B_k = (‖w‖²−‖w₀‖²)/η²R² ≤ k</b>: each adds 2η y w·x + η²‖x‖² ≤ η²R², "
                "as y w·x ≤ 0 on a mistake, whatever w₀.",
                "<b>w·u* ≤ ‖w‖</b> (Cauchy–Schwarz): w₀·u* + kηγ* ≤ √(‖w₀‖² + kη²R²), so A_k "
                "stays under C(k) = (√(‖w₀‖² + kη²R²) − w₀·u*)/ηγ*,",
                f"and k ≤ A_k ≤ C(k) holds only up to <b>k = {bound}</b>.",
            ]
        else:
            lines = [
                f"After the k-th mistake ({given}):",
                "<b>A_k = w·u*/ηγ* ≥ k</b>: each mistake adds η y x·u* ≥ ηγ*.",
                "<b>B_k = ‖w‖²/η²R² ≤ k</b>: each adds 2η y w·x + η²‖x‖² ≤ η²R², "
                "as y w·x ≤ 0 on a mistake.",
                "<b>A_k ≤ √B_k·R/γ*</b> (Cauchy–Schwarz: w·u* ≤ ‖w‖) ≤ √k·R/γ*.",
                f"So k ≤ √k·R/γ*: <b>k ≤ R²/γ*² = {bound}</b>.",
            ]
        if proof.truncated:
            lines.append(f"(Shown for the first {m} mistakes.)")
        return "<br>".join(lines)

    def table(self) -> tuple[Sequence[str], list[Sequence[object]]]:
        header = ("k", "A_k", "B_k", "ceiling C(k)")
        followed = self._followed
        if followed is None or not followed.proof.applies:
            return header, []
        proof = followed.proof
        ks = np.arange(len(proof.along), dtype=np.float64)
        rows = zip(
            proof.along.tolist(), proof.norm.tolist(), ceiling(proof, ks).tolist(), strict=True
        )
        return header, [(k, repr(a), repr(b), repr(c)) for k, (a, b, c) in enumerate(rows)]


def _same(values: FloatArray) -> FloatArray:
    return values


def _log10(values: FloatArray) -> FloatArray:
    """log10 where positive and finite; nan (not drawn) elsewhere."""
    out = np.full(values.shape, np.nan)
    ok = np.isfinite(values) & (values > 0)
    out[ok] = np.log10(values[ok])
    return out


class LossChart(Chart):
    """Adaline's loss per epoch, or the Winnows' weights over time (module docstring)."""

    heading = "Loss or weights over time"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("lossChart", parent)
        self.loss: GrowingCurve | None = None
        self.floor_line = _bound_line(GREEN)
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
            self.floor_line.label.setFormat(f"least squares: {format_number(floor, 4)}")
            values = np.append(values, math.log10(floor))
        low = float(values.min()) if values.size else -1.0
        high = float(values.max()) if values.size else 0.0
        if high - low < 0.5:
            low, high = low - 0.25, high + 0.25
        self.set_axes((0.0, max(1.0, float(len(losses)))), (low, high))
        self.set_note("" if len(losses) else "The first point comes when an epoch ends.")
        latest = format_number(float(losses[-1]), 4) if len(losses) else "—"
        self.set_caption(
            "MSE = (1/n) Σ (yᵢ − w·xᵢ)² with w at the end of each epoch (epoch 0: w₀, "
            f"{format_number(start, 4)}): <b>{latest}</b> after {len(losses)} epochs.<br>"
            f"The least-squares w_LS has <b>{format_number(floor, 4)}</b> (dashed), "
            "the least any w can have: LMS descends towards it when η is small enough."
        )

    def _paint_weights(self, trace: Trace, followed: Followed) -> None:
        weights = followed.weights
        assert weights is not None
        start = np.asarray(trace.initial_weights, dtype=np.float64)
        log = bool(np.all(start > 0) and np.all(weights > 0))
        n = min(len(start), len(_SERIES))
        key = ("weights", trace.key, log, n)
        item = self.getPlotItem()
        if key != self._key:
            self._start("weights", log, key)
            first = 0 if self._bias else 1
            for j in range(n):
                name = "w" + str(j + first).translate(_SUBSCRIPTS)
                self.weights.append(
                    GrowingCurve(item, _SERIES[j], name=name, per_point=2, budget=256)
                )
                tip = pg.PlotCurveItem(pen=_pen(_SERIES[j]))
                item.addItem(tip)
                self.tips.append(tip)
        m = len(weights)
        times = trace.mistake_trials[:m]
        transform = _log10 if log else _same
        firsts = transform(start)
        # Only the new stretch is transformed each frame (the rest is drawn already).
        for j, (curve, tip) in enumerate(zip(self.weights, self.tips, strict=True)):
            column = weights[:, j]
            first_value = float(firsts[j])
            curve.origin = (0.0, first_value)

            def points(
                a: int, b: int, s: int, column: FloatArray = column, first: float = first_value
            ) -> tuple[FloatArray, FloatArray]:
                idx = np.arange(a, b, s)
                y = np.empty(2 * len(idx))
                y[1::2] = transform(column[idx])
                y[0::2] = transform(column[np.maximum(idx - 1, 0)])
                if len(idx) and idx[0] == 0:
                    y[0] = first  # before the first mistake: w₀
                return np.repeat(times[idx].astype(np.float64), 2), y

            curve.update(m, points)
            last = curve.last_point
            lead = (
                (float(times[last]), float(transform(column[last : last + 1])[0]))
                if last >= 0
                else (0.0, first_value)
            )
            end = (float(trace.trials), float(transform(column[-1:])[0]) if m else first_value)
            tip.setData(*_tip(last + 1, m, points, lead, end))
            tip.setPen(curve.pen)
        # The transforms keep order, so the range is that of the raw numbers.
        extremes = np.array([start[:n].min(), start[:n].max()])
        if m:
            extremes = np.append(extremes, [weights[:, :n].min(), weights[:, :n].max()])
        ends = transform(extremes)
        ends = ends[np.isfinite(ends)]
        low, high = (float(ends.min()), float(ends.max())) if ends.size else (0.0, 1.0)
        if high - low < 1e-9:
            low, high = low - 0.5, high + 0.5
        self.set_axes((0.0, max(1.0, float(trace.trials))), (low, high))
        self.set_note("")
        caption = "A step at each mistake; flat in between (no update)."
        if log:
            caption += "<br>Log scale: a multiplicative update is one equal step."
        if not followed.complete:
            caption += f"<br>Replaying the run: {m:,} of {trace.mistakes:,} mistakes so far."
        elif m < trace.mistakes:
            caption += f"<br>Shown for the first {m:,} of {trace.mistakes:,} mistakes."
        self.set_caption(caption)

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


class ChartBox(QWidget):
    """A chart with its heading and caption beside it (the chart keeps the full height)."""

    def __init__(self, chart: Chart, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = chart
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.setSpacing(6)
        layout.addWidget(chart, 3)
        self.caption = QLabel(objectName=f"{chart.objectName()}Caption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidget(self.caption)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(180)
        layout.addWidget(scroll, 2)
        chart.caption_changed.connect(self._on_caption)
        self._on_caption(chart.caption)

    def _on_caption(self, text: str) -> None:
        self.caption.setText(f"<b>{html.escape(self.chart.heading)}</b><br>{text}")

    def set_presentation(self, on: bool) -> None:
        self.chart.set_presentation(on)
        font = QFont(self.font())
        if on:
            font.setPixelSize(style.PRESENTATION_LABEL_PX)
        self.caption.setFont(font)


class ChartPanel(QWidget):
    """The charts of an exported frame, drawn by the window's chart classes: the mistakes
    chart above the proof chart where Novikoff's proof applies (the perceptron on
    separable data), else above the loss or weights chart. Offscreen, of a fixed size;
    `show_frame` each frame in turn (they draw incrementally), then `paint` into a frame.

    Each chart follows its trace completely (no budget: an export must not depend on
    time), and shows its heading as its title since there is no caption beside it.
    """

    def __init__(self, width: int, height: int, *, scale: float = 1.0) -> None:
        super().__init__()
        self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self.mistakes = MistakesChart(self)
        self.proof = ProofChart(self)
        self.loss = LossChart(self)
        self.charts: tuple[Chart, ...] = (self.mistakes, self.proof, self.loss)
        gap = round(6 * scale)
        self._top = QRect(0, 0, width, (height - gap) // 2)
        self._bottom = QRect(0, self._top.height() + gap, width, height - self._top.height() - gap)
        tick = QFont("DejaVu Sans")
        tick.setPixelSize(max(9, round(13 * scale)))
        for chart in self.charts:
            chart.follow_budget = None
            chart.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            rect = self._top if chart is self.mistakes else self._bottom
            chart.setGeometry(rect)
            chart.setFixedSize(rect.size())
            item = chart.getPlotItem()
            for side in ("left", "bottom"):
                item.getAxis(side).setStyle(tickFont=tick)
            chart.label_size = f"{tick.pixelSize()}px"
            chart.set_labels(item.getAxis("bottom").labelText, item.getAxis("left").labelText)
            chart.legend.setLabelTextSize(f"{max(9, round(12 * scale))}px")
        self._title_px = max(10, round(14 * scale))
        for chart in self.charts:  # the title row is laid out now; later only its text changes
            self._title(chart)
        self.setFixedSize(width, height)
        self.show()  # hidden from the screen, but laid out at its size

    def second(self, frame: Frame) -> Chart:
        """The chart under the mistakes chart for this frame."""
        proof = frame.bound is not None and frame.bound.proof and frame.report.separable
        return self.proof if proof else self.loss

    def show_frame(self, frame: Frame) -> None:
        second = self.second(frame)
        for chart in (self.proof, self.loss):
            chart.setVisible(chart is second)
        for chart in (self.mistakes, second):
            chart.show_frame(frame)
            self._title(chart)

    def _title(self, chart: Chart) -> None:
        if chart.getPlotItem().titleLabel.text != chart.heading:
            chart.getPlotItem().setTitle(chart.heading, size=f"{self._title_px}px", color="#111111")

    def paint(self, painter: QPainter, target: QRectF) -> None:
        """Draw the charts into `target` of `painter` (scaled if its size differs)."""
        shown = [chart for chart in self.charts if chart.isVisible()]
        sx, sy = target.width() / self.width(), target.height() / self.height()
        for chart in shown:
            # No event loop runs between frames of an export: lay out what changed (an axis
            # name, the width of tick labels) now, as the window's event loop would.
            chart.getPlotItem().layout.activate()
            rect = chart.geometry()
            where = QRectF(
                target.x() + rect.x() * sx,
                target.y() + rect.y() * sy,
                rect.width() * sx,
                rect.height() * sy,
            )
            chart.render(painter, where, chart.viewport().rect())

    def close_charts(self) -> None:
        """Free the offscreen charts (a leaked PlotWidget can abort Python at exit)."""
        for chart in self.charts:
            chart.close()
            chart.deleteLater()
        self.close()
        self.deleteLater()
