"""The plane: points, the boundary w·x = θ, the normal w, and the theory's geometry.

`PlotView` paints a `Frame` and turns mouse gestures into intent signals; it never
changes data itself. Left click on empty space asks for a point of the current class
(`new_point_label`, +1 unless the touchpad toggle says otherwise), right click for the
other class. Clicking a point selects it; dragging it moves it; right click on a point
opens a menu (delete, flip label).

The same class draws the exported frames (`overlay=True` adds the numbers a slide needs).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontMetricsF, QKeyEvent, QPen
from PySide6.QtWidgets import QGraphicsItem, QMenu, QWidget

from simulator.engine import InputLine
from simulator.ui import style
from simulator.ui.frame import Frame, format_number

__all__ = ["PlotView"]

HIT_RADIUS_PX = 10
FULL_DETAIL_POINTS = 2000  # up to this many points, full-size glyphs and rings


def nice_step(span: float, target: int = 10) -> float:
    """A step of 1, 2 or 5 × 10^k giving about `target` grid lines over `span`."""
    if not (span > 0 and math.isfinite(span)):
        return 1.0
    raw = span / target
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def point_size_for(n: int, full: float) -> float:
    """Glyph size for n points: full size up to FULL_DETAIL_POINTS, then shrinking as
    1/sqrt(n) (so the ink per area stays about the same), never below 5 px."""
    if n <= FULL_DETAIL_POINTS:
        return full
    return max(5.0, full * math.sqrt(FULL_DETAIL_POINTS / n))


def _pen(color, width: float, dash: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
    pen = pg.mkPen(color, width=width)
    pen.setStyle(dash)
    pen.setCosmetic(True)
    return pen


def _line_geometry(line: InputLine) -> tuple[np.ndarray, float] | None:
    """(a point on the line, its angle in degrees) for offset + n·p = level in 2-D."""
    normal = np.array(line.normal, dtype=float)
    squared = float(normal @ normal)
    if normal.shape != (2,) or squared == 0.0 or not math.isfinite(squared):
        return None
    point = (line.level - line.offset) * normal / squared
    if not np.all(np.isfinite(point)):
        return None
    return point, math.degrees(math.atan2(normal[1], normal[0])) + 90.0


class _Scatter(pg.ScatterPlotItem):
    """A scatter of one style that never takes clicks (they go to the ViewBox, which edits).

    pyqtgraph looks each new spot's style up in its symbol atlas one spot at a time, in
    Python; with 100,000 points that is 40 ms per `setData`. All our spots of one item share
    one style, so it is looked up once and broadcast. Showing a subset (the misclassified
    points) writes the visibility column in one NumPy operation: no per-point objects.
    """

    def mouseClickEvent(self, ev) -> None:
        ev.ignore()

    def updateSpots(self, dataSet=None) -> None:
        data = self.data if dataSet is None else dataSet
        if not (self.opts["pxMode"] and self.opts["useCache"] and len(data)):
            super().updateSpots(dataSet)
            return
        unset = data["sourceRect"]["w"] == 0
        if unset.any():
            style = next(
                zip(
                    *self._style(["symbol", "size", "pen", "brush"], data=data, idx=slice(0, 1)),
                    strict=True,
                )
            )
            data["sourceRect"][unset] = self.fragmentAtlas[[style]][0]
            self.invalidate()
        self._updateMaxSpotSizes(data=data)

    def show_only(self, mask: np.ndarray) -> None:
        """Show the spots where `mask` is True, hide the rest."""
        self.data["visible"] = mask
        self.invalidate()


class _EditViewBox(pg.ViewBox):
    """A ViewBox that hands clicks and point drags to its PlotView before panning."""

    def __init__(self) -> None:
        super().__init__(enableMenu=False)
        self.editor: PlotView | None = None

    def mouseClickEvent(self, ev) -> None:
        if self.editor is not None and self.editor._on_click(ev):
            return
        super().mouseClickEvent(ev)

    def mouseDragEvent(self, ev, axis=None) -> None:
        if self.editor is not None and self.editor._on_drag(ev):
            return
        super().mouseDragEvent(ev, axis)


class PlotView(pg.PlotWidget):
    """The plane of the data; paints `Frame`s, emits editing intent."""

    point_requested = Signal(float, float, int)  # x, y, label
    point_moved = Signal(int, float, float)  # index, x, y
    point_delete_requested = Signal(int)
    point_flip_requested = Signal(int)
    selection_changed = Signal(object)  # int | None

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        overlay: bool = False,
        point_size: float = style.POINT_SIZE,
        line_scale: float = 1.0,
    ) -> None:
        viewbox = _EditViewBox()
        super().__init__(parent, viewBox=viewbox, background=style.BACKGROUND)
        viewbox.editor = self
        self.setObjectName("plotView")
        self.new_point_label = 1
        self._frame: Frame | None = None
        self._shown_dataset = None
        self._shown_mask: np.ndarray | None = None
        self._selected: int | None = None
        self._dragging: int | None = None
        self._show_separator = False
        self._show_radius = False
        self._point_size = point_size
        k = line_scale

        item = self.getPlotItem()
        item.setAspectLocked(True)
        # A light solid grid at round steps: one polyline, cheap to paint (pyqtgraph's axis
        # grid is translucent and cost 26 ms a frame on the software renderer).
        self._grid = pg.PlotCurveItem(pen=pg.mkPen("#EBEBEB", width=1), connect="pairs")
        item.addItem(self._grid, ignoreBounds=True)
        self._grid.setZValue(-100)
        item.hideButtons()
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen("#444444"))
            item.getAxis(axis).setTextPen(pg.mkPen("#222222"))
        self.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)

        self._radius = pg.PlotCurveItem(pen=_pen(style.RADIUS, 1.5 * k, Qt.PenStyle.DotLine))
        self._band = [
            pg.InfiniteLine(angle=0, pen=_pen(style.SEPARATOR, 1.5 * k, Qt.PenStyle.DotLine))
            for _ in range(2)
        ]
        self._separator = pg.InfiniteLine(
            angle=0, pen=_pen(style.SEPARATOR, 2 * k, Qt.PenStyle.DashLine)
        )
        self._previous = pg.InfiniteLine(
            angle=0, pen=_pen(style.PREVIOUS, 2 * k, Qt.PenStyle.DashLine)
        )
        self._boundary = pg.InfiniteLine(angle=0, pen=_pen(style.BOUNDARY, 3 * k))
        # Symbols, sizes and pens of the class and mistake layers: set by _set_detail.
        self._positive = _Scatter(brush=pg.mkBrush(style.POSITIVE), name="+1")
        self._negative = _Scatter(brush=pg.mkBrush(style.NEGATIVE), name="−1")
        self._mistakes = _Scatter(symbol="o")
        self._ring_pen = _pen(style.MISTAKE, 1.4 * k)
        self._outline = pg.mkPen("#FFFFFF", width=0.8)
        self._dense: bool | None = None
        self._set_detail(0)
        self._current = _Scatter(
            symbol="o",
            size=point_size * 2.6,
            pen=_pen(style.HIGHLIGHT, 3.5 * k),
            brush=pg.mkBrush(230, 159, 0, 60),
        )
        self._selection = _Scatter(
            symbol="s",
            size=point_size * 2.0,
            pen=_pen("#555555", 1.5 * k, Qt.PenStyle.DashLine),
            brush=None,
        )
        self._ghost = _Scatter(
            symbol="o", size=point_size, pen=_pen("#333333", 1.5), brush=pg.mkBrush(0, 0, 0, 40)
        )
        self._previous_arrow = pg.PlotCurveItem(
            pen=_pen(style.PREVIOUS, 2 * k, Qt.PenStyle.DashLine)
        )
        self._arrow_shaft = pg.PlotCurveItem(pen=_pen(style.BOUNDARY, 3 * k))
        self._arrow_head = pg.ArrowItem(
            headLen=16 * k, tipAngle=32, tailLen=0, pen=None, brush=pg.mkBrush(style.BOUNDARY)
        )
        self._arrow_label = pg.TextItem("w", color=style.BOUNDARY, anchor=(0, 1))
        self._arrow_label.setFont(QFont("DejaVu Sans", int(13 * k), QFont.Weight.Bold))
        for graphic in (
            self._radius,
            *self._band,
            self._separator,
            self._previous,
            self._boundary,
            self._previous_arrow,
            self._arrow_shaft,
            self._arrow_head,
            self._arrow_label,
            self._positive,
            self._negative,
            self._mistakes,
            self._current,
            self._selection,
            self._ghost,
        ):
            item.addItem(graphic, ignoreBounds=True)
        self._hint = pg.TextItem(
            "Left click: a +1 point    Right click: a −1 point", color="#777777", anchor=(0.5, 0.5)
        )
        self._hint.setFont(QFont("DejaVu Sans", int(14 * k)))
        item.addItem(self._hint, ignoreBounds=True)
        # Lines and w above the points, so dense data cannot hide them; the trial on top.
        for z, graphics in enumerate(
            (
                (self._positive, self._negative),
                (self._mistakes,),
                (self._radius, *self._band),
                (self._separator, self._previous, self._previous_arrow),
                (self._boundary, self._arrow_shaft, self._arrow_head, self._arrow_label),
                (self._selection, self._current, self._ghost, self._hint),
            )
        ):
            for graphic in graphics:
                graphic.setZValue(z)
        # The numbers a slide needs go in a title row above the plot, never over the data.
        self._overlay = overlay
        self._title_points = max(8, round(13 * k))
        self._title_size = f"{self._title_points}pt"
        if overlay:
            item.titleLabel.setAttr("justify", "left")
            item.setTitle(" ", size=self._title_size)
            self._fix_title_height()
        item.vb.sigRangeChanged.connect(self._place_arrow)
        item.vb.sigRangeChanged.connect(self._place_hint)
        item.vb.sigRangeChanged.connect(self._place_grid)
        for layer in (self._positive, self._negative):
            # The class layers do not change while a run goes on: paint them once into a
            # pixmap and blit it every frame (redone on pan, zoom or a data change).
            layer.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._hide_geometry()

    # -- painting ---------------------------------------------------------------------------

    def show_frame(self, frame: Frame) -> None:
        """Paint `frame` (cheap when only the learner moved: points are set once per dataset)."""
        self._frame = frame
        ds = frame.dataset
        if ds is not self._shown_dataset:
            self._set_detail(len(ds))
            positive = ds.labels > 0
            self._positive.setData(x=ds.points[positive, 0], y=ds.points[positive, 1])
            self._negative.setData(x=ds.points[~positive, 0], y=ds.points[~positive, 1])
            self._mistakes.setData(x=ds.points[:, 0], y=ds.points[:, 1])
            self._shown_dataset = ds
            self._shown_mask = None
            self._hint.setVisible(len(ds) == 0 and not self._overlay)
            if self._selected is not None and self._selected >= len(ds):
                self.set_selected(None)
            else:
                self._paint_selection()
        mask = frame.snapshot.misclassified
        if self._shown_mask is None or not np.array_equal(mask, self._shown_mask):
            self._mistakes.show_only(mask)
            self._shown_mask = mask
        trial = frame.snapshot.last_trial
        if trial is not None and len(trial.point) == 2:
            self._current.setData(x=[trial.point[0]], y=[trial.point[1]])
        else:
            self._current.setData(x=[], y=[])
        self._set_line(self._boundary, frame.boundary)
        self._set_line(self._previous, frame.previous_boundary)
        self._set_line(self._separator, frame.separator if self._show_separator else None)
        for line, band in zip(self._band, frame.margin_lines or (None, None), strict=True):
            self._set_line(line, band if self._show_separator else None)
        curve = frame.radius_curve
        if self._show_radius and curve is not None:
            self._radius.setData(curve[:, 0], curve[:, 1])
            self._radius.show()
        else:
            self._radius.hide()
        self._place_arrow()
        if self._overlay:
            self.getPlotItem().setTitle(
                self._overlay_html(frame), color="#111111", size=self._title_size
            )
            self._fix_title_height()

    def _set_detail(self, n: int) -> None:
        """Glyph sizes for n points; past FULL_DETAIL_POINTS a mistake is a dark dot, not a
        ring (thousands of rings merge into a black blob that hides the points)."""
        size = point_size_for(n, self._point_size)
        dense = n > FULL_DETAIL_POINTS
        if size == self._positive.opts["size"] and dense == self._dense:
            return
        self._dense = dense
        for layer, symbol in (
            (self._positive, style.positive_symbol()),
            (self._negative, style.negative_symbol()),
        ):
            layer.setSize(size)
            # Small glyphs: solid disc and square (cut-outs and outlines would wash them out).
            layer.setSymbol(("o" if layer is self._positive else "s") if dense else symbol)
            layer.setPen(None if dense else self._outline)
        if dense:
            self._mistakes.setSize(max(2.5, 0.45 * size))
            self._mistakes.setPen(None)
            self._mistakes.setBrush(pg.mkBrush(0, 0, 0, 150))
        else:
            self._mistakes.setSize(1.6 * size)
            self._mistakes.setPen(self._ring_pen)
            self._mistakes.setBrush(None)

    def _hide_geometry(self) -> None:
        for graphic in (
            self._boundary,
            self._previous,
            self._separator,
            *self._band,
            self._radius,
            self._arrow_shaft,
            self._arrow_head,
            self._arrow_label,
            self._previous_arrow,
        ):
            graphic.hide()

    def _place_grid(self) -> None:
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        step = nice_step(max(x1 - x0, y1 - y0))
        xs = np.arange(math.ceil(x0 / step), math.floor(x1 / step) + 1) * step
        ys = np.arange(math.ceil(y0 / step), math.floor(y1 / step) + 1) * step
        if len(xs) + len(ys) > 200:  # a degenerate range; no grid rather than a slow one
            self._grid.setData([], [])
            return
        px = np.column_stack((xs, xs)).ravel()
        py = np.tile([y0, y1], len(xs))
        qx = np.tile([x0, x1], len(ys))
        qy = np.column_stack((ys, ys)).ravel()
        self._grid.setData(np.concatenate((px, qx)), np.concatenate((py, qy)))

    def _fix_title_height(self) -> None:
        """Room for five title lines, always the same (pyqtgraph fixes the row at 30 px on
        every setTitle), so the plot never jumps when a line comes or goes."""
        item = self.getPlotItem()
        font = QFont(item.titleLabel.item.font())  # its size comes from the HTML, so set it
        font.setPointSizeF(self._title_points)
        height = 5 * QFontMetricsF(font).lineSpacing() + 8
        item.titleLabel.setMaximumHeight(height)
        item.layout.setRowFixedHeight(0, height)
        item.layout.activate()

    def _place_hint(self) -> None:
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        self._hint.setPos(QPointF((x0 + x1) / 2, (y0 + y1) / 2))

    @staticmethod
    def _set_line(line: pg.InfiniteLine, geometry: InputLine | None) -> None:
        placed = _line_geometry(geometry) if geometry is not None else None
        if placed is None:
            line.hide()
            return
        point, angle = placed
        line.setPos(QPointF(float(point[0]), float(point[1])))
        line.setAngle(angle)
        line.show()

    def _place_arrow(self) -> None:
        """Draw w's direction from the boundary point nearest the view's centre."""
        frame = self._frame
        for graphic in (
            self._arrow_shaft,
            self._arrow_head,
            self._arrow_label,
            self._previous_arrow,
        ):
            graphic.hide()
        if frame is None or frame.boundary is None:
            return
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        center = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        length = 0.12 * math.hypot(x1 - x0, y1 - y0)
        tip = self._arrow(frame.boundary, center, length, self._arrow_shaft)
        if tip is None:
            return
        start, end = tip
        direction = end - start
        self._arrow_head.setPos(QPointF(float(end[0]), float(end[1])))
        self._arrow_head.setStyle(
            angle=180.0 - math.degrees(math.atan2(direction[1], direction[0]))
        )
        self._arrow_head.show()
        self._arrow_label.setPos(QPointF(float(end[0]), float(end[1])))
        self._arrow_label.show()
        if frame.previous_boundary is not None:
            self._arrow(frame.previous_boundary, center, length, self._previous_arrow)

    @staticmethod
    def _arrow(
        line: InputLine, center: np.ndarray, length: float, shaft: pg.PlotCurveItem
    ) -> tuple[np.ndarray, np.ndarray] | None:
        normal = np.array(line.normal, dtype=float)
        norm = float(np.linalg.norm(normal))
        if normal.shape != (2,) or norm == 0 or not math.isfinite(norm):
            return None
        unit = normal / norm
        # The foot of the perpendicular from the centre onto offset + n·p = level.
        foot = center - ((line.offset + normal @ center - line.level) / norm) * unit
        end = foot + length * unit
        if not np.all(np.isfinite(end)):
            return None
        shaft.setData([foot[0], end[0]], [foot[1], end[1]])
        shaft.show()
        return foot, end

    @staticmethod
    def _overlay_html(frame: Frame) -> str:
        s, r = frame.snapshot, frame.report
        bound = format_number(frame.mistake_bound if frame.rule.bound == "novikoff" else r.bound, 4)
        gamma = format_number(r.gamma, 4)
        rows = [
            f"<b>{frame.rule.title}</b> ({frame.rule.describe()})",
            f"trial {s.trials} · epoch {s.epoch} · mistakes k = {s.mistakes}",
            f"γ* = {gamma} · R = {format_number(r.radius, 4)} · R²/γ*² = {bound}",
        ]
        trial = s.last_trial
        if trial is not None:
            verdict = (
                "mistake, w updated"
                if trial.updated
                else ("mistake" if trial.mistake else "correct")
            )
            rows.append(
                f"this trial: point #{trial.index}, y = {trial.y:+d}, "
                f"s = {format_number(trial.score, 4)} → {verdict}"
            )
        if s.converged:
            rows.append(f"<b>converged at trial {s.converged_at}</b>")
        elif s.diverged:
            rows.append("<b>diverged</b>")
        elif not r.separable and len(frame.dataset):
            rows.append("<b>not linearly separable</b>")
        return "<br>".join(rows)

    # -- toggles and range -----------------------------------------------------------------------

    def set_show_separator(self, show: bool) -> None:
        self._show_separator = bool(show)
        if self._frame is not None:
            self.show_frame(self._frame)

    def set_show_radius(self, show: bool) -> None:
        self._show_radius = bool(show)
        if self._frame is not None:
            self.show_frame(self._frame)

    def fit_view(self) -> None:
        """Frame the points (with room around them), or the square [-2, 2]² when empty."""
        ds = self._frame.dataset if self._frame is not None else None
        if ds is None or len(ds) == 0:
            self.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
            return
        low, high = ds.points.min(axis=0), ds.points.max(axis=0)
        span = np.maximum(high - low, 1.0)
        self.setRange(
            xRange=(low[0] - 0.25 * span[0], high[0] + 0.25 * span[0]),
            yRange=(low[1] - 0.25 * span[1], high[1] + 0.25 * span[1]),
            padding=0,
        )

    # -- selection and editing -------------------------------------------------------------------

    @property
    def selected(self) -> int | None:
        return self._selected

    def set_selected(self, index: int | None) -> None:
        if index != self._selected:
            self._selected = index
            self._paint_selection()
            self.selection_changed.emit(index)

    def _paint_selection(self) -> None:
        ds = self._shown_dataset
        if self._selected is None or ds is None or self._selected >= len(ds):
            self._selection.setData(x=[], y=[])
        else:
            p = ds.points[self._selected]
            self._selection.setData(x=[p[0]], y=[p[1]])

    def hit_test(self, scene_pos: QPointF) -> int | None:
        """The point within HIT_RADIUS_PX pixels of `scene_pos`, nearest first."""
        ds = self._shown_dataset
        if ds is None or len(ds) == 0:
            return None
        vb = self.getPlotItem().vb
        here = vb.mapSceneToView(scene_pos)
        px, py = vb.viewPixelSize()
        dx = (ds.points[:, 0] - here.x()) / px
        dy = (ds.points[:, 1] - here.y()) / py
        distance = dx * dx + dy * dy
        nearest = int(np.argmin(distance))
        return nearest if distance[nearest] <= HIT_RADIUS_PX**2 else None

    def point_menu(self, index: int) -> QMenu:
        """The context menu of point `index` (shown by a right click on it)."""
        menu = QMenu(self)
        delete = QAction("Delete point", menu)
        delete.triggered.connect(lambda: self.point_delete_requested.emit(index))
        flip = QAction("Flip label", menu)
        flip.triggered.connect(lambda: self.point_flip_requested.emit(index))
        menu.addAction(delete)
        menu.addAction(flip)
        return menu

    def _on_click(self, ev) -> bool:
        button = ev.button()
        if button not in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            return False
        ev.accept()
        hit = self.hit_test(ev.scenePos())
        if button == Qt.MouseButton.LeftButton:
            if hit is not None:
                self.set_selected(hit)
            else:
                self.set_selected(None)
                p = self.getPlotItem().vb.mapSceneToView(ev.scenePos())
                self.point_requested.emit(p.x(), p.y(), self.new_point_label)
        elif hit is not None:
            self.set_selected(hit)
            self.point_menu(hit).popup(ev.screenPos().toPoint())
        else:
            p = self.getPlotItem().vb.mapSceneToView(ev.scenePos())
            self.point_requested.emit(p.x(), p.y(), -self.new_point_label)
        return True

    def _on_drag(self, ev) -> bool:
        if ev.button() != Qt.MouseButton.LeftButton:
            return False
        if ev.isStart():
            self._dragging = self.hit_test(ev.buttonDownScenePos())
        if self._dragging is None:
            return False
        ev.accept()
        p = self.getPlotItem().vb.mapSceneToView(ev.scenePos())
        if ev.isFinish():
            index, self._dragging = self._dragging, None
            self._ghost.setData(x=[], y=[])
            self.set_selected(index)
            self.point_moved.emit(index, p.x(), p.y())
        else:
            self._ghost.setData(x=[p.x()], y=[p.y()])
        return True

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        if ev.key() == Qt.Key.Key_Delete and self._selected is not None:
            self.point_delete_requested.emit(self._selected)
            ev.accept()
            return
        super().keyPressEvent(ev)
