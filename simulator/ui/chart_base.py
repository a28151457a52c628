"""`Chart`: the base of the charts of the run over time.

A chart is a pyqtgraph `PlotWidget` that paints the `Trace` of the frames it is shown,
with `GrowingCurve`s (`simulator.ui.chart_curve`). The axes move in round steps, as a
function of the data alone, so that their ticks and labels (cached as pixmaps) are redrawn
now and then, not every frame, and a picture does not depend on the frames before it. A
hidden chart does nothing until shown.

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
from pathlib import Path

import pyqtgraph as pg
from pyqtgraph import exporters
from PySide6.QtCore import QSaveFile, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QContextMenuEvent, QFont, QPainter, QShowEvent
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QGraphicsItem, QMenu, QWidget

from simulator.presentation.frame import Frame
from simulator.presentation.trace import Followed, Trace
from simulator.ui import style
from simulator.ui.chart_curve import BLACK, GREY, curve_pen
from simulator.ui.number_axis import number_axes

__all__ = [
    "FOLLOW_BATCH",
    "FOLLOW_BUDGET",
    "FOLLOW_EVERY",
    "Chart",
    "bound_line",
    "in_view",
    "unbroken",
]

FOLLOW_BUDGET = 256  # mistakes replayed per paint (~10 ms): a long history never freezes
FOLLOW_BATCH = 512  # during a fast run, new mistakes followed in batches of this many...
FOLLOW_EVERY = 0.25  # ...or after this many seconds, whichever comes first


def unbroken(text: str) -> str:
    """`text` for an HTML caption, never wrapped inside ("> 1.8e308" stays on one line)."""
    return html.escape(text).replace(" ", "&nbsp;")


class Chart(pg.PlotWidget):
    """A chart that paints traces, follows its data, and exports itself and its data."""

    message = Signal(str)
    caption_changed = Signal(str)  # HTML
    key_changed = Signal()  # the legend's entries (`key`) changed

    heading = ""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w", axisItems=number_axes())
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
        self.key_shown = True  # whether the chart's curves have a legend to show now
        self.key_outside = False  # drawn beside the chart (`ChartBox`), not over the curves
        self._key_entries: tuple[tuple[str, Qt.PenStyle, str], ...] = ()
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
            self._follow_key()
        else:
            self._stale = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale and self._frame is not None:
            self._stale = False
            self.paint_frame(self._frame)
            self._follow_key()

    def paint_frame(self, frame: Frame) -> None:
        raise NotImplementedError

    # -- the key (legend) ----------------------------------------------------------------------

    def show_key(self, on: bool) -> None:
        """Whether the curves' legend shows (over the chart, or beside it: `key_outside`)."""
        self.key_shown = on
        self.legend.setVisible(on and not self.key_outside)
        self._follow_key()

    def set_key_outside(self, on: bool) -> None:
        """Draw no legend over the curves: `ChartBox` writes `key()` beside the chart."""
        self.key_outside = on
        self.show_key(self.key_shown)

    def key(self) -> tuple[tuple[str, Qt.PenStyle, str], ...]:
        """The legend's entries as (colour, dash, text), in order; () while it has none."""
        if not self.key_shown:
            return ()
        entries = []
        for sample, label in self.legend.items:
            item = getattr(sample, "item", None)
            opts = getattr(item, "opts", {})
            pen = pg.mkPen(opts.get("pen", GREY))
            entries.append((pen.color().name(), pen.style(), str(label.text)))
        return tuple(entries)

    def _follow_key(self) -> None:
        key = self.key()
        if key != self._key_entries:
            self._key_entries = key
            self.key_changed.emit()

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
        """In the middle; not drawn where the chart is too short for it (the caption
        beside the chart says why it is empty too), rather than cut at the chart's edges."""
        rect = self.view_box.boundingRect()
        self.note.setTextWidth(max(80.0, rect.width() * 0.9))
        self.note.setPos(rect.center())
        self.note.setVisible(self.note.boundingRect().height() <= rect.height())

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
        self._place_note()

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


def bound_line(colour: QColor, angle: float = 0.0, position: float = 0.03) -> pg.InfiniteLine:
    """A dashed line across the chart with a label (set with `label.setFormat`): above a
    horizontal line at its left end, left of a vertical one."""
    anchor = [(0, 1), (0, 1)] if angle == 0 else [(1, 0.5), (1, 0.5)]
    return pg.InfiniteLine(
        angle=angle,
        pen=curve_pen(colour, 2.0, Qt.PenStyle.DashLine),
        label="",
        labelOpts={"position": position, "color": colour, "anchors": anchor},
    )


def in_view(bound: float | None, shown: float) -> bool:
    """Whether a bound is close enough to what is shown (within 10×, or up to 40) for the
    axes to reach it: the class sees k approach it, without a far bound squashing k."""
    return bound is not None and math.isfinite(bound) and 0 < bound <= max(40.0, 10.0 * shown)
