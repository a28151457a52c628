"""The plane: points, the boundary w·x = θ, the normal w, and the theory's geometry.

`PlotView` paints a `Frame` and turns mouse gestures into intent signals; it never
changes data itself. Left click on empty space asks for a point of the current class
(`new_point_label`, +1 unless the touchpad toggle says otherwise), right click for the
other class; with a snap step set, clicked and dragged positions are rounded to it.
Clicking a point selects it; dragging it moves it; right click on a point opens a menu
(delete, flip label).

What it shows, and what a teacher will notice (see also `style` and `plot_geometry`):

- Points are numbered 1…n beside their glyphs (the notes' x₁…xₙ), up to
  `points_item.NUMBERS_LIMIT` points; the axes carry the data's column names.
- w's arrow starts on the visible part of the boundary, near the view's centre, and is a
  fixed share of the view (or w's true length in the plane, so ‖w‖ growing like √k shows).
  A boundary outside the view gets a marker at the view's edge pointing to it.
- Follow the learner moves the view only when a point, the boundary or w would leave it
  (with headroom, so it does not jitter), and only when the learner moved: placing points
  never pulls the view away. Off, the view never moves by itself.
- Region shading tints the half-planes s > 0 and s < 0 (two clipped polygons).
- Presentation mode: larger tick labels, thicker lines, larger glyphs.

The same class draws the exported frames (`simulator.export`), so it has no window state.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QKeyEvent, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPolygonItem, QMenu, QWidget

from simulator.engine import Dataset, InputLine
from simulator.engine.drawables import LevelSet, Line, Regions, Vector
from simulator.presentation.frame import Frame
from simulator.presentation.level_sets import (
    grid_size,
    level_segments,
    partition_segments,
    region_classes,
    sample,
)
from simulator.ui import style
from simulator.ui.arrow_item import VectorItem
from simulator.ui.class_points import ClassLayers, class_text
from simulator.ui.legend_item import LegendBox, LegendEntry
from simulator.ui.plot_geometry import (
    ARROW_FRACTION,
    Box,
    arrow_placement,
    edge_marker,
    follow,
    half_plane,
    snap,
)
from simulator.ui.points_item import NUMBERS_LIMIT, GlyphLayer, NumberLayer, render_glyph

__all__ = ["SNAP_STEPS", "PlotView"]

HIT_RADIUS_PX = 10
FULL_DETAIL_POINTS = 2000  # up to this many points, full-size glyphs and rings
SNAP_STEPS = (0.5, 0.25, 0.1)
# The legend's (text, sample glyph) pixel sizes, normal and presentation: full, then
# compact for a plot too small to keep half the data's size beside the full one.
LEGEND_TYPES = {False: ((13, 20.0), (11, 14.0)), True: ((16, 20.0), (14, 16.0))}


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


def _pen(
    color: QColor,
    width: float,
    dash: Qt.PenStyle = Qt.PenStyle.SolidLine,
    pattern: tuple[float, ...] | None = None,
) -> QPen:
    pen = QPen(QColor(color), width)
    pen.setStyle(dash)
    if pattern is not None:
        pen.setDashPattern(list(pattern))
    pen.setCosmetic(True)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
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
    point_relabel_requested = Signal(int, int)  # index, label (K classes)
    selection_changed = Signal(object)  # int | None

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        point_size: float = style.POINT_SIZE,
        line_scale: float = 1.0,
    ) -> None:
        viewbox = _EditViewBox()
        super().__init__(parent, viewBox=viewbox, background=style.BACKGROUND)
        viewbox.editor = self
        self.setObjectName("plotView")
        self._new_point_label = 1
        self.snap_step: float | None = None
        self._frame: Frame | None = None
        self._shown_dataset: Dataset | None = None
        self._data_box: Box | None = None
        self._shown_mask: np.ndarray | None = None
        self._selected: int | None = None
        self._dragging: int | None = None
        self._base_point_size = point_size
        self._base_line_scale = line_scale
        self._presentation = False
        self._show_separator = False
        self._show_radius = False
        self._show_numbers = True
        self._show_legend = False
        self._show_shading = False
        self._show_least_squares = False
        self._true_length = False
        self._follow = False
        self._followed: tuple[object, ...] | None = None
        self._legend_key: tuple[object, ...] | None = None
        self._legend_side = "top"  # or "left": see _choose_legend_side
        self._legend_type: int | None = None  # the LEGEND_TYPES level shown
        self._fitted: Box | None = None  # what the view last fitted, before the legend's room
        self._fitted_range: list[list[float]] | None = None  # the range set for it
        self._fitted_size = (0.0, 0.0)  # the plot's size in pixels then
        self._detail: tuple[float, bool] | None = None
        self._drawn: dict[int, InputLine | None] = {}
        self._sample_cache: tuple[object, dict[object, tuple[np.ndarray, ...]]] | None = None
        self._axis_names: tuple[str, ...] | None = None
        self._menu: QMenu | None = None
        self._menu_point = 0

        item = self.getPlotItem()
        item.setAspectLocked(True)
        item.hideButtons()
        # A light solid grid at round steps: one polyline, cheap to paint (pyqtgraph's axis
        # grid is translucent and cost 26 ms a frame on the software renderer).
        self._grid = pg.PlotCurveItem(pen=pg.mkPen("#EBEBEB", width=1), connect="pairs")
        self._shade_positive = QGraphicsPolygonItem()
        self._shade_negative = QGraphicsPolygonItem()
        for shade, colour in (
            (self._shade_positive, style.POSITIVE_REGION),
            (self._shade_negative, style.NEGATIVE_REGION),
        ):
            shade.setPen(QPen(Qt.PenStyle.NoPen))
            shade.setBrush(QBrush(colour))
        self._radius = pg.PlotCurveItem()
        # One line and one curve (a level set, drawn as segments) per role of a drawable.
        self._lines = {role: pg.InfiniteLine(angle=0) for role in style.ROLES}
        self._curves = {role: pg.PlotCurveItem(connect="pairs") for role in style.ROLES}
        self._regions = pg.ImageItem()
        self._band = [self._lines["margin-low"], self._lines["margin-high"]]
        self._separator = self._lines["separator"]
        self._previous = self._lines["previous"]
        self._least_squares = self._lines["least-squares"]
        self._boundary = self._lines["boundary"]
        layer = {z: [] for z in (0, 1, 2)}
        for role, look in style.ROLES.items():
            layer[look.z] += [self._lines[role], self._curves[role]]
        # Glyphs, sizes and pens of the point layers: set by _set_detail and _apply_style.
        self._classes = ClassLayers(point_size)
        self._mistakes = GlyphLayer(style.disc(), point_size)
        self._numbers = NumberLayer(style.NUMBER)
        self._current = GlyphLayer(style.disc(), point_size)
        self._selection = GlyphLayer(style.square(), point_size)
        self._ghost = GlyphLayer(style.disc(), point_size)
        self._previous_arrow = VectorItem(style.PREVIOUS)
        self._w_arrow = VectorItem(style.WEIGHT, "w")
        self._edge_marker = VectorItem(style.BOUNDARY, "boundary")
        self._class_arrows = tuple(VectorItem(colour) for colour in style.CLASS_COLOURS)
        self._hint = pg.TextItem("", color="#777777", anchor=(0.5, 0.5))
        # Bottom to top: grid, shading, points, mistakes, theory lines, the boundary and w
        # above the points (dense data cannot hide them), the trial and markers on top.
        for z, graphics in enumerate(
            (
                (self._grid,),
                (self._shade_positive, self._shade_negative, self._regions),
                self._classes.layers,
                (self._numbers, self._mistakes),
                (self._radius, *layer[0]),
                (*layer[1], self._previous_arrow),
                tuple(layer[2]),
                (self._w_arrow, *self._class_arrows),
                (self._selection, self._current, self._ghost),
                (self._hint, self._edge_marker),
            )
        ):
            for graphic in graphics:
                graphic.setZValue(z - 10)
                item.addItem(graphic, ignoreBounds=True)
        for layer in (*self._classes.layers, self._numbers):
            # These do not change while a run goes on: painted once into a pixmap and blitted
            # every frame (redone on pan, zoom or a data change).
            layer.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._legend = LegendBox()
        self._legend.setParentItem(item.vb)
        self._legend.setPos(8, 6)
        self._legend.setZValue(1000)
        self._legend.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._legend.hide()
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen("#444444"))
            item.getAxis(axis).setTextPen(pg.mkPen("#222222"))
        self.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
        item.vb.sigRangeChanged.connect(self._on_range_changed)
        item.vb.sigResized.connect(self._on_resized)
        self._apply_style()
        self._hide_geometry()

    # -- style ------------------------------------------------------------------------------

    @property
    def line_scale(self) -> float:
        return self._base_line_scale * (style.PRESENTATION_LINE_SCALE if self._presentation else 1)

    @property
    def point_size(self) -> float:
        """The full glyph size in pixels (before shrinking for dense data)."""
        scale = style.PRESENTATION_POINT_SCALE if self._presentation else 1.0
        return self._base_point_size * scale

    def _apply_style(self) -> None:
        """Pens, glyphs and fonts for the current scale (normal or presentation)."""
        k, size = self.line_scale, self.point_size
        self._radius.setPen(_pen(style.RADIUS, 1.5 * k, style.RADIUS_DASH))
        for role in style.ROLES:
            self._lines[role].setPen(self._role_pen(role))
            self._curves[role].setPen(self._role_pen(role))
        self._previous_arrow.set_style(
            width=2 * k, head=14 * k, font_px=0, halo=False, dash=style.PREVIOUS_DASH
        )
        self._w_arrow.set_style(width=4 * k, head=20 * k, font_px=round(17 * k))
        for arrow in self._class_arrows:
            arrow.set_style(width=3 * k, head=16 * k, font_px=round(15 * k))
        self._edge_marker.set_style(width=4 * k, head=16 * k, font_px=round(14 * k), bold=False)
        hint_font = QFont()
        hint_font.setPixelSize(round(18 * k))
        self._hint.setFont(hint_font)
        self._current_styles = {
            False: (style.disc(), 2.2 * size, _pen(style.HIGHLIGHT, 3.5 * k)),
            True: (style.diamond(), 2.3 * size, _pen(style.HIGHLIGHT, 4.5 * k)),
        }
        self._current.set_style(brush=QColor(230, 159, 0, 60))
        self._paint_current_style(False)
        self._selection.set_style(
            size=2.0 * size, pen=_pen(QColor("#555555"), 1.5 * k, Qt.PenStyle.DashLine), brush=None
        )
        self._ghost.set_style(
            size=size, pen=_pen(QColor("#333333"), 1.5), brush=QColor(0, 0, 0, 40)
        )
        self._numbers.set_font_size(round(12 * k), offset=0.45 * size + 3)
        self._ring_pen = _pen(style.MISTAKE, 1.4 * k)
        self._outline = QPen(QColor("#FFFFFF"), 0.8)
        self._detail = None
        self._set_detail(len(self._shown_dataset) if self._shown_dataset is not None else 0)
        item = self.getPlotItem()
        if self._presentation:
            tick = QFont()
            tick.setPixelSize(style.PRESENTATION_TICK_PX)
            for axis in ("left", "bottom"):
                item.getAxis(axis).setStyle(tickFont=tick, tickTextOffset=8)
        else:
            for axis in ("left", "bottom"):
                item.getAxis(axis).setStyle(tickFont=None, tickTextOffset=5)
        self._axis_names = None
        self._label_axes()
        self._legend_key = None
        if self._frame is not None:
            self.show_frame(self._frame)

    def _role_pen(self, role: str) -> QPen:
        look = style.ROLES[role]
        return _pen(look.colour, look.width * self.line_scale, look.dash, look.dashes or None)

    def _role_shown(self, role: str) -> bool:
        """Whether the view toggles let `role` show."""
        toggle = style.ROLES[role].toggle
        return toggle is None or bool(
            {"separator": self._show_separator, "least_squares": self._show_least_squares}[toggle]
        )

    def _paint_current_style(self, mistake: bool) -> None:
        symbol, size, pen = self._current_styles[mistake]
        if self._current.symbol is not symbol or self._current.size != size:
            self._current.set_style(symbol=symbol, size=size, pen=pen)

    def _set_detail(self, n: int) -> None:
        """Glyph sizes for n points; past FULL_DETAIL_POINTS a mistake is a dark dot, not a
        ring (thousands of rings merge into a black blob that hides the points)."""
        size = point_size_for(n, self.point_size)
        dense = n > FULL_DETAIL_POINTS
        if (size, dense) == self._detail:
            return
        self._detail = (size, dense)
        self._classes.set_detail(size, dense, self._outline)
        if dense:
            self._mistakes.set_style(
                size=max(2.5, 0.45 * size), pen=None, brush=QColor(0, 0, 0, 150)
            )
        else:
            self._mistakes.set_style(size=1.6 * size, pen=self._ring_pen, brush=None)

    def set_presentation(self, on: bool) -> None:
        """Type and lines for a lecture hall (see `style.PRESENTATION_*`)."""
        if bool(on) != self._presentation:
            self._presentation = bool(on)
            self._apply_style()

    @property
    def presentation(self) -> bool:
        return self._presentation

    def tick_font(self) -> QFont:
        """The font of the axis tick labels as shown."""
        font = self.getPlotItem().getAxis("bottom").style.get("tickFont")
        return QFont(font) if font is not None else QFont(self.font())

    # -- painting ---------------------------------------------------------------------------

    @property
    def new_point_label(self) -> int:
        """The class a left click on empty space adds (a right click: the other of two)."""
        return self._new_point_label

    @new_point_label.setter
    def new_point_label(self, label: int) -> None:
        self._new_point_label = int(label)
        self._write_hint()

    def _write_hint(self) -> None:
        ds = self._shown_dataset
        label = self._new_point_label
        if ds is None or len(ds.classes) == 2 or label not in ds.classes:
            here, other = ("+1", "−1") if label > 0 else ("−1", "+1")
            text = f"Left click: a {here} point    Right click: a {other} point"
        else:
            text = f"Left click: a point of class {class_text(ds, label)}    Keys 1–9: the class"
        self._hint.setText(text)

    @property
    def hint_visible(self) -> bool:
        """Whether the "click to add points" hint shows (only on empty data)."""
        return self._hint.isVisible()

    def show_frame(self, frame: Frame) -> None:
        """Paint `frame` (cheap when only the learner moved: points are set once per dataset)."""
        self._frame = frame
        ds = frame.dataset
        if ds is not self._shown_dataset:
            self._show_dataset(ds)
        mask = frame.snapshot.misclassified
        if self._shown_mask is None or not np.array_equal(mask, self._shown_mask):
            self._mistakes.set_mask(mask)
            self._shown_mask = mask
        trial = frame.snapshot.last_trial
        if trial is not None and len(trial.point) == 2:
            self._paint_current_style(trial.mistake)
            self._current.set_points(np.array([trial.point], dtype=float))
        else:
            self._current.set_points(np.empty((0, 2)))
        for role, line in self._lines.items():
            self._set_line(line, frame.line(role) if self._role_shown(role) else None)
        self._place_curves()
        curve = frame.radius_curve
        if self._show_radius and curve is not None:
            self._radius.setData(curve[:, 0], curve[:, 1])
            self._radius.show()
        else:
            self._radius.hide()
        learner = (frame.snapshot.trials, frame.snapshot.weights)
        if self._follow and learner != self._followed:
            # Only when the learner moved: editing points never pulls the view away.
            self.follow_learner()
        self._followed = learner
        self._place_arrow()
        self._place_class_arrows()
        self._place_shading()
        if self._show_legend:
            self._update_legend()

    def _show_dataset(self, ds: Dataset) -> None:
        self._set_detail(len(ds))
        self._classes.show(ds)
        self._mistakes.set_points(ds.points)
        self._numbers.set_points(ds.points)
        self._numbers.setVisible(self._show_numbers and 0 < len(ds) <= NUMBERS_LIMIT)
        self._shown_dataset = ds
        self._shown_mask = None
        finite = ds.points[np.all(np.isfinite(ds.points), axis=1)] if len(ds) else ds.points
        self._data_box = Box.around(finite) if len(finite) else None
        self._hint.setVisible(len(ds) == 0)
        self._write_hint()
        self._label_axes()
        if self._selected is not None and self._selected >= len(ds):
            self.set_selected(None)
        else:
            self._paint_selection()

    def _label_axes(self) -> None:
        """The axes carry the data's column names (x1, x2 unless the file named them)."""
        ds = self._shown_dataset
        names = ds.names if ds is not None and len(ds.names) == 2 else ("x1", "x2")
        if names == self._axis_names:
            return
        self._axis_names = names
        size = style.PRESENTATION_AXIS_LABEL_PX if self._presentation else 14
        item = self.getPlotItem()
        for axis, name in (("bottom", names[0]), ("left", names[1])):
            item.setLabel(axis, name, **{"font-size": f"{size}px", "color": "#222222"})

    def axis_names(self) -> tuple[str, str]:
        item = self.getPlotItem()
        return (item.getAxis("bottom").labelText, item.getAxis("left").labelText)

    def _hide_geometry(self) -> None:
        for graphic in (
            *self._lines.values(),
            *self._curves.values(),
            self._regions,
            self._radius,
            self._w_arrow,
            self._previous_arrow,
            self._edge_marker,
            *self._class_arrows,
            self._shade_positive,
            self._shade_negative,
        ):
            graphic.hide()

    def view_box(self) -> Box:
        """The visible range in data coordinates."""
        (x0, x1), (y0, y1) = self.getPlotItem().vb.viewRange()
        return Box(float(x0), float(x1), float(y0), float(y1))

    def _on_range_changed(self) -> None:
        self._place_grid()
        self._place_hint()
        self._place_arrow()
        self._place_curves()
        self._place_shading()

    def _place_grid(self) -> None:
        view = self.view_box()
        x0, x1, y0, y1 = view.x0, view.x1, view.y0, view.y1
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

    def _place_hint(self) -> None:
        center = self.view_box().center
        self._hint.setPos(QPointF(float(center[0]), float(center[1])))

    def _set_line(self, line: pg.InfiniteLine, geometry: InputLine | None) -> None:
        if self._drawn.get(id(line), False) == geometry:
            return  # unchanged: moving an InfiniteLine costs a repaint of its bounds
        self._drawn[id(line)] = geometry
        placed = _line_geometry(geometry) if geometry is not None else None
        if placed is None:
            line.hide()
            return
        point, angle = placed
        line.setPos(QPointF(float(point[0]), float(point[1])))
        line.setAngle(angle)
        line.show()

    def trial_marker(self) -> tuple[str, np.ndarray] | None:
        """The current trial's marker: ("ring" or "diamond" (a mistake), its point)."""
        points = self._current.shown_points()
        if not len(points):
            return None
        shape = "diamond" if self._current.symbol is self._current_styles[True][0] else "ring"
        return shape, points[0]

    def drawn_line(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """A line as drawn, (a point on it, its unit direction), or None when hidden.
        `name`: a role ("boundary", "previous", "separator", "least-squares", …)."""
        line = self._lines[name.replace("_", "-")]
        if not line.isVisible():
            return None
        angle = math.radians(line.angle)
        pos = line.pos()
        return np.array([pos.x(), pos.y()]), np.array([math.cos(angle), math.sin(angle)])

    def class_points(self) -> tuple[np.ndarray, np.ndarray]:
        """The points drawn as +1 and as −1 glyphs."""
        return self._classes.points(1), self._classes.points(-1)

    def points_of_class(self, label: int) -> np.ndarray:
        """The points drawn with class `label`'s glyph."""
        return self._classes.points(label)

    def marked_mistakes(self) -> np.ndarray:
        """The points drawn as misclassified."""
        return self._mistakes.shown_points()

    def arrow_length(self, line: InputLine, view: Box) -> float:
        """w's arrow in data units: a share of the view, or the plane part of w's length."""
        if self._true_length:
            return float(np.linalg.norm(np.asarray(line.normal, dtype=float)))
        return ARROW_FRACTION * view.diagonal

    def arrow(self) -> tuple[np.ndarray, np.ndarray] | None:
        """w's arrow as drawn: (start, end) in data coordinates, or None if not shown."""
        return self._w_arrow.ends() if self._w_arrow.isVisible() else None

    def arrow_label(self) -> QRectF | None:
        """The box of w's label "w" as drawn, in data coordinates (None: no arrow)."""
        return self._w_arrow.label_rect() if self._w_arrow.isVisible() else None

    def edge_marker(self) -> np.ndarray | None:
        """Where the marker pointing to an off-view boundary has its tip (None: not shown)."""
        ends = self._edge_marker.ends()
        return ends[1] if ends is not None and self._edge_marker.isVisible() else None

    def _place_arrow(self) -> None:
        """w's arrow on the visible boundary, or a marker pointing to a boundary off view."""
        frame = self._frame
        shown: set[VectorItem] = set()
        if frame is not None and frame.boundary is not None:
            view = self.drawing_box()
            length = self.arrow_length(frame.boundary, self.view_box())
            shorten = not self._true_length
            placed = arrow_placement(frame.boundary, view, length, shorten=shorten)
            if placed is None:
                marker = edge_marker(frame.boundary, view)
                if marker is not None:
                    self._edge_marker.set_pointer(*marker, tail_px=22 * self.line_scale)
                    shown.add(self._edge_marker)
            else:
                self._w_arrow.set_vector(*placed)
                shown.add(self._w_arrow)
                previous = frame.previous_boundary
                if previous is not None:
                    before = arrow_placement(
                        previous, view, self.arrow_length(previous, view), shorten=shorten
                    )
                    if before is not None:
                        self._previous_arrow.set_vector(*before)
                        shown.add(self._previous_arrow)
        for item in (self._w_arrow, self._previous_arrow, self._edge_marker):
            if item.isVisible() != (item in shown):
                item.setVisible(item in shown)

    def _level_sets(self) -> dict[str, list[LevelSet | Regions]]:
        """The frame's curved drawables by role (a partition into K regions draws its
        boundaries as curves too)."""
        found: dict[str, list[LevelSet | Regions]] = {}
        for d in self._frame.drawables if self._frame is not None else ():
            if isinstance(d, LevelSet) or (isinstance(d, Regions) and d.classes > 2):
                found.setdefault(d.role, []).append(d)
        return found

    def _sampled(self, drawable: LevelSet | Regions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The drawable's score on a grid over the view (and a little beyond), cached while
        neither the drawable nor the view changes (the regions and the curves of one
        drawable share a sampling)."""
        box = self.view_box().grown(0.05)
        cells = grid_size(self.getPlotItem().vb.width())
        key = (box, cells)
        if self._sample_cache is None or self._sample_cache[0] != key:
            self._sample_cache = (key, {})
        grids = self._sample_cache[1]
        if drawable not in grids:
            if len(grids) > 8:
                grids.clear()
            grids[drawable] = sample(drawable.score, (box.x0, box.x1, box.y0, box.y1), cells)
        return grids[drawable]

    def _place_curves(self) -> None:
        """The frame's curved drawables: each level set traced over the view."""
        wanted = self._level_sets()
        for role, curve in self._curves.items():
            drawables = wanted.get(role, [])
            if not drawables or not self._role_shown(role):
                if curve.isVisible():
                    curve.hide()
                continue
            pieces = []
            for drawable in drawables:
                xs, ys, values = self._sampled(drawable)
                if isinstance(drawable, Regions):
                    pieces.append(partition_segments(xs, ys, values))
                else:
                    pieces.append(level_segments(xs, ys, values, drawable.level))
            segments = np.concatenate(pieces, axis=0)
            curve.setData(segments[:, :, 0].ravel(), segments[:, :, 1].ravel())
            curve.show()

    def drawn_curve(self, role: str) -> np.ndarray | None:
        """A level set as drawn: its segments' end points, (m, 2), or None when hidden."""
        curve = self._curves[role]
        if not curve.isVisible():
            return None
        x, y = curve.getData()
        return np.column_stack((x, y)) if x is not None else np.zeros((0, 2))

    def _regions_to_draw(self) -> LevelSet | Regions | None:
        """What the plane is shaded by: a learner's partition into classes always (it is how
        K classes read), else the sign of a curved boundary while region shading is on."""
        frame = self._frame
        if frame is None:
            return None
        for d in frame.drawables:
            if isinstance(d, Regions):
                return d
        curves = self._level_sets().get("boundary", [])
        if self._show_shading and len(curves) == 1 and isinstance(curves[0], LevelSet):
            return curves[0]
        return None

    def _place_regions(self) -> bool:
        """Shade the plane by the class each grid point gets (the argmax of K scores, or
        the sign of one: −1 and +1 as classes 0 and 1, a score of 0 unshaded); whether it
        did."""
        drawable = self._regions_to_draw()
        if drawable is None:
            self._regions.hide()
            return False
        xs, ys, values = self._sampled(drawable)
        found = region_classes(values)
        if values.ndim == 3:
            count, shaded = values.shape[2], np.all(np.isfinite(values), axis=2)
        else:
            count, shaded = 2, found != 0
            found = (found > 0).astype(np.int64)
        image = np.zeros((*found.shape, 4), dtype=np.uint8)
        for index, colour in enumerate(style.class_colours(count)):
            tint = style.region_colour(colour)
            image[shaded & (found == index)] = (
                tint.red(), tint.green(), tint.blue(), tint.alpha()
            )  # fmt: skip
        self._regions.setImage(np.swapaxes(image, 0, 1), levels=None)
        self._regions.setRect(QRectF(xs[0], ys[0], xs[-1] - xs[0], ys[-1] - ys[0]))
        self._regions.show()
        return True

    def _place_class_arrows(self) -> None:
        """Each class's w_k (`Vector` drawables) as an arrow in its colour, from the middle
        of the class's points (the data's middle for a class without points), a share of
        the view long for the longest w_k and proportionally shorter for the others."""
        frame = self._frame
        vectors = [d for d in frame.drawables if isinstance(d, Vector)] if frame else []
        shown = set()
        if vectors and self._shown_dataset is not None:
            ds = self._shown_dataset
            view = self.drawing_box()
            norms = [math.hypot(*v.direction) for v in vectors]
            longest = max(norms)
            centre = view.center if self._data_box is None else self._data_box.center
            count = len(ds.classes)
            for vector, norm in zip(vectors, norms, strict=True):
                if not (longest > 0 and math.isfinite(longest)) or vector.klass >= count:
                    continue
                label = ds.classes[vector.klass]
                own = ds.points[ds.labels == label]
                start = own.mean(axis=0) if len(own) else centre
                length = ARROW_FRACTION * view.diagonal * max(0.25, norm / longest)
                direction = np.asarray(vector.direction, dtype=float) / norm if norm else None
                if direction is None or not np.all(np.isfinite(start)):
                    continue
                arrow = self._class_arrows[vector.klass]
                arrow.set_colour(ClassLayers.colour(count, label))
                arrow.set_text(vector.label)
                arrow.set_vector(start, start + length * direction)
                shown.add(vector.klass)
        for k, arrow in enumerate(self._class_arrows):
            if arrow.isVisible() != (k in shown):
                arrow.setVisible(k in shown)

    def class_arrows(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """The classes' w_k arrows as drawn: class index → (start, end)."""
        return {
            k: ends
            for k, arrow in enumerate(self._class_arrows)
            if arrow.isVisible() and (ends := arrow.ends()) is not None
        }

    def _place_shading(self) -> None:
        frame = self._frame
        line = frame.boundary if frame is not None else None
        curved = self._place_regions()
        if not self._show_shading or line is None or curved:
            self._shade_positive.hide()
            self._shade_negative.hide()
            return
        around = self.view_box().grown(0.5)  # beyond the edges, so a pan shows no seam
        for shade, sign in ((self._shade_positive, 1), (self._shade_negative, -1)):
            polygon = half_plane(line, around, sign)
            shade.setPolygon(QPolygonF([QPointF(float(x), float(y)) for x, y in polygon]))
            shade.setVisible(len(polygon) >= 3)

    def shaded_regions(self) -> dict[int, QPolygonF]:
        """The shaded half-planes as drawn: +1 → where s > 0, −1 → where s < 0."""
        return {
            sign: shade.polygon()
            for sign, shade in ((1, self._shade_positive), (-1, self._shade_negative))
            if shade.isVisible()
        }

    # -- the legend -------------------------------------------------------------------------

    def _drawn_roles(self) -> tuple[tuple[str, str], ...]:
        """The roles the legend names, each with how it is drawn ("line", "curve" or
        "partition"): the learner's own (whether drawn yet or not, so the legend does not
        reflow as a run starts) and the theory's the view toggles show."""
        frame = self._frame
        if frame is None:
            return ()
        own = set(frame.learner.roles)
        kinds: dict[str, str] = {}
        for d in frame.drawables:
            kind = "line" if isinstance(d, Line) else "curve"
            if isinstance(d, Regions) and d.classes > 2:
                kind = "partition"
            kinds.setdefault(d.role, kind)
        usual = "curve" if frame.curved else "line"
        return tuple(
            (role, kinds.get(role, usual))
            for role in style.ROLES
            if (role in own or role in kinds) and self._role_shown(role)
        )

    def _update_legend(self) -> None:
        ds = self._shown_dataset
        key = (
            self._presentation,
            None if ds is None else (ds.classes, ds.class_names),
            self._show_radius,
            self._show_shading,
            self._drawn_roles(),
            self._detail,
        )
        if key == self._legend_key:
            return
        self._legend_key = key
        self._legend_type = None
        self._set_legend_type(0)
        self._fit_legend()
        self._keep_fit()

    def _set_legend_type(self, level: int) -> None:
        """The legend at `LEGEND_TYPES` level (0 full, 1 compact)."""
        if level == self._legend_type:
            return
        self._legend_type = level
        text_px, glyph_px = LEGEND_TYPES[self._presentation][level]
        self._legend.set_entries(self._legend_entries(glyph_px), pixel_size=text_px)

    def _legend_entries(self, glyph_px: float) -> tuple[LegendEntry, ...]:
        """An entry for the classes, for each role drawn (named by `style.ROLES`), w when the
        boundary is a line, the marks, and the toggled geometry."""
        # Samples no taller than the text, so a column of them fits beside the data of a
        # short plot (the ring and diamond of the trial are larger on the plane itself).
        k, size = self.line_scale, min(self.point_size, glyph_px)
        entries = list(self._class_entries(size))
        boundary = {
            "line": "boundary w·x = θ",
            "curve": "boundary f(x) = 0",
            "partition": "boundaries w_i·x = w_j·x",
        }
        for role, kind in self._drawn_roles():
            text = boundary[kind] if role == "boundary" else style.ROLES[role].legend
            if text:
                entries.append(LegendEntry(text, pen=self._role_pen(role)))
            if role == "boundary" and kind == "line":
                entries.append(LegendEntry("w (normal)", arrow=style.WEIGHT))
        entries += [
            LegendEntry(
                "misclassified",
                glyphs=(render_glyph(style.disc(), 0.95 * size, self._ring_pen, None),),
            ),
            LegendEntry(
                "this trial: right / mistake",
                glyphs=(
                    render_glyph(style.disc(), 0.9 * size, _pen(style.HIGHLIGHT, 2.5 * k), None),
                    render_glyph(style.diamond(), 0.8 * size, _pen(style.HIGHLIGHT, 3 * k), None),
                ),
            ),
        ]
        if self._show_radius:
            entries.append(
                LegendEntry("radius R", pen=_pen(style.RADIUS, 1.5 * k, style.RADIUS_DASH))
            )
        if self._show_shading and not self._partitioned():
            entries.append(LegendEntry("s > 0: predicts +1", swatch=style.POSITIVE_REGION))
            entries.append(LegendEntry("s < 0: predicts −1", swatch=style.NEGATIVE_REGION))
        return tuple(entries)

    def _partitioned(self) -> bool:
        frame = self._frame
        return frame is not None and any(
            isinstance(d, Regions) and d.classes > 2 for d in frame.drawables
        )

    def _class_entries(self, size: float) -> tuple[LegendEntry, ...]:
        """Two classes: one entry "+1, −1" (or their names); K classes: one each, named
        (its arrow w_k and its region share the glyph's colour)."""
        ds = self._shown_dataset if self._shown_dataset is not None else Dataset.empty()
        glyphs = ClassLayers.glyphs(len(ds.classes), size)
        if len(ds.classes) == 2:
            text = f"{class_text(ds, 1)}, {class_text(ds, -1)}"
            return (LegendEntry(text, glyphs=(glyphs[1], glyphs[0])),)
        return tuple(
            LegendEntry(f"class {class_text(ds, label)}", glyphs=(glyph,))
            for label, glyph in zip(ds.classes, glyphs, strict=True)
        )

    def _fit_legend(self) -> None:
        """Columns for where the legend sits: as many as fit the width in the band on top,
        one in the column on the left (raised to the top edge when the plot is short)."""
        vb = self.getPlotItem().vb
        width = vb.width()
        if width > 0 and self.isVisible():  # not while the view is being torn down
            self._legend.fit_width(width - 16 if self._legend_side == "top" else 0.0)
            room = vb.height() - self._legend.boundingRect().height()
            self._legend.setPos(8, 6 if self._legend_side == "top" else max(1, min(6, room / 2)))

    def _on_resized(self) -> None:
        """Refit for a new size (charts shown, presentation, the window resized), but not
        for the few pixels the axes take or give as their tick labels change: that would
        loop (new range, new labels, new size) and move exported frames' axes."""
        self._fit_legend()
        vb = self.getPlotItem().vb
        width, height = self._fitted_size
        if abs(vb.width() - width) > 0.05 * width or abs(vb.height() - height) > 0.05 * height:
            self._keep_fit()

    def _keep_fit(self) -> None:
        """Refit to what the view last fitted, for the plot's new size or legend, unless the
        user (or a caller) moved the view since: the legend's room is in pixels, so a plot
        made shorter (charts shown, presentation type) needs more of it in data units."""
        if self._fitted is not None and self._fitted_range == self.getPlotItem().vb.targetRange():
            self._show_box(self._fitted)

    def _legend_gap(self) -> float:
        """Pixels kept between the legend and the data: the current trial's ring (its
        radius, 1.15 glyphs) at the data's edge stays clear of it."""
        return 1.15 * self.point_size + 4.0

    def legend_clearance(self, cap: float = 0.75) -> tuple[float, float]:
        """(pixels kept free at the top, at the left) for the legend; (0, 0) when hidden.
        At most `cap` of the plot either way, so the data always keep some room."""
        vb = self.getPlotItem().vb
        if not self._legend.isVisible() or not self._legend.texts:
            return 0.0, 0.0
        rect = self._legend.boundingRect()
        if self._legend_side == "top":
            bottom = rect.height() + self._legend.pos().y()
            return min(cap * vb.height(), bottom + self._legend_gap()), 0.0
        return 0.0, min(cap * vb.width(), rect.width() + 8.0 + self._legend_gap())

    def _choose_legend_side(self, box: Box) -> None:
        """The legend as a band on top or a column on the left, whichever shows `box`
        larger (a short, wide plot has room beside the data, a tall one above it); in
        compact type when the full type would leave the data less than half their size.
        Hidden while no layout leaves them a quarter of it: the points come first."""
        vb = self.getPlotItem().vb
        width, height = vb.width(), vb.height()
        if not self._show_legend or width <= 0 or height <= 0:
            return
        self._legend.show()
        edge = 2 * self._edge_px()
        bare = min((width - edge) / box.width, (height - edge) / box.height)
        best: tuple[float, int, str] | None = None
        for level in range(len(LEGEND_TYPES[self._presentation])):
            self._set_legend_type(level)
            for side in ("top", "left"):
                self._legend_side = side
                self._fit_legend()
                top, left = self.legend_clearance(cap=math.inf)
                if side == "left" and self._legend.boundingRect().height() + 2.0 > height:
                    continue  # the column would not fit the plot's height
                scale = min((width - left - edge) / box.width, (height - top - edge) / box.height)
                if best is None or scale > best[0]:
                    best = (scale, level, side)
            if best is not None and best[0] >= 0.5 * bare:
                break
        if best is not None:
            self._set_legend_type(best[1])
            self._legend_side = best[2]
        self._fit_legend()
        self._legend.setVisible(best is not None and best[0] >= 0.25 * bare)

    def _edge_px(self) -> float:
        """Pixels kept on each side of the fitted box: the trial's ring (1.2 glyphs), at
        most a tenth of the plot (a small exported frame keeps its data large)."""
        vb = self.getPlotItem().vb
        return min(1.2 * self.point_size, 0.1 * min(vb.width(), vb.height()))

    def _room_for_legend(self, box: Box) -> Box:
        """The view range showing `box` whole and as large as it can be, centred in what the
        legend leaves free, with the trial's ring more on each side (a ring at the edge of `box`
        stays whole); of the plot's own aspect, so the aspect lock adds nothing."""
        vb = self.getPlotItem().vb
        width, height = vb.width(), vb.height()
        if not (width > 0 and height > 0 and box.width > 0 and box.height > 0):
            return box
        self._choose_legend_side(box)
        top, left = self.legend_clearance()
        edge = self._edge_px()
        free_x, free_y = width - left - 2 * edge, height - top - 2 * edge
        scale = min(free_x / box.width, free_y / box.height)  # pixels a unit
        if not (scale > 0 and math.isfinite(scale)):
            return box
        x0 = box.x0 - (free_x / scale - box.width) / 2 - (left + edge) / scale
        y0 = box.y0 - (free_y / scale - box.height) / 2 - edge / scale
        view = Box(x0, x0 + width / scale, y0, y0 + height / scale)
        finite = all(math.isfinite(v) for v in (view.x0, view.x1, view.y0, view.y1))
        return view if finite and view.width > 0 and view.height > 0 else box

    def _show_box(self, box: Box) -> None:
        """Move the view to show `box` with the legend clear of it, and remember it."""
        target = self._room_for_legend(box)
        self.setRange(xRange=(target.x0, target.x1), yRange=(target.y0, target.y1), padding=0)
        vb = self.getPlotItem().vb
        self._fitted = box
        self._fitted_range = vb.targetRange()
        self._fitted_size = (vb.width(), vb.height())

    def drawing_box(self) -> Box:
        """The visible range less the legend's room (band on top or column on the left):
        where w's arrow and the marker of an off-view boundary go, and what Follow keeps
        things in."""
        view = self.view_box()
        top, left = self.legend_clearance()
        vb = self.getPlotItem().vb
        width, height = vb.width(), vb.height()
        if width <= 0 or height <= 0:
            return view
        x0 = view.x0 + left / width * view.width
        return Box(x0, view.x1, view.y0, view.y1 - top / height * view.height)

    def legend_rect(self) -> QRectF | None:
        """The legend's box in scene coordinates (None when hidden)."""
        if not self._legend.isVisible() or not self._legend.texts:
            return None
        return self._legend.sceneBoundingRect()

    def legend_texts(self) -> list[str]:
        """What the legend names, top to bottom (empty when it is hidden)."""
        return self._legend.texts if self._legend.isVisible() else []

    # -- toggles and range -----------------------------------------------------------------------

    def _repaint(self) -> None:
        if self._frame is not None:
            self.show_frame(self._frame)

    def set_show_separator(self, show: bool) -> None:
        self._show_separator = bool(show)
        self._repaint()

    def set_show_radius(self, show: bool) -> None:
        self._show_radius = bool(show)
        self._repaint()

    def set_show_numbers(self, show: bool) -> None:
        """Number the points 1…n beside their glyphs."""
        self._show_numbers = bool(show)
        n = len(self._shown_dataset) if self._shown_dataset is not None else 0
        self._numbers.setVisible(self._show_numbers and 0 < n <= NUMBERS_LIMIT)

    def numbered_points(self) -> np.ndarray:
        """The points that carry a number, in order (number k labels row k − 1)."""
        if not self._numbers.isVisible():
            return np.empty((0, 2))
        return self._numbers.shown_points()

    def set_show_legend(self, show: bool) -> None:
        self._show_legend = bool(show)
        self._legend.setVisible(self._show_legend)
        self._legend_key = None
        if self._show_legend:
            self._update_legend()
        else:
            self._keep_fit()

    def set_show_shading(self, show: bool) -> None:
        """Tint the half-planes where the score is positive and negative."""
        self._show_shading = bool(show)
        self._repaint()

    def set_show_least_squares(self, show: bool) -> None:
        """Draw the least-squares solution w_LS as a line (for a rule that has one)."""
        self._show_least_squares = bool(show)
        self._repaint()

    def set_true_length(self, on: bool) -> None:
        """Draw w at its true length in the plane instead of a fixed share of the view."""
        self._true_length = bool(on)
        self._repaint()

    def set_follow(self, on: bool) -> None:
        """Keep the points, the boundary and w in sight (see `plot_geometry.follow`)."""
        self._follow = bool(on)
        if self._follow and self._frame is not None:
            self.follow_learner()
            self._place_arrow()

    @property
    def following(self) -> bool:
        return self._follow

    def set_snap(self, step: float | None) -> None:
        """Round clicked and dragged positions to multiples of `step` (None: no snapping)."""
        self.snap_step = step if step is None or step > 0 else None

    def follow_learner(self) -> None:
        """Move the view if the points, the boundary or w would leave it."""
        frame = self._frame
        if frame is None:
            return
        line = frame.boundary
        true_length = (
            float(np.linalg.norm(np.asarray(line.normal, dtype=float)))
            if self._true_length and line is not None
            else None
        )
        target = follow(self.drawing_box(), self._data_box, line, true_length)
        if target is not None:
            self._show_box(target)

    def fit_view(self) -> None:
        """Frame the points (with room around them), or the square [-2, 2]² when empty;
        when following the learner, the boundary and w too."""
        box = self._data_box
        if box is None:
            self.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
            self._fitted = None
            return
        span_x, span_y = max(box.width, 1.0), max(box.height, 1.0)
        self._show_box(
            Box(
                box.x0 - 0.25 * span_x,
                box.x1 + 0.25 * span_x,
                box.y0 - 0.25 * span_y,
                box.y1 + 0.25 * span_y,
            )
        )
        if self._follow:
            self.follow_learner()

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
            self._selection.set_points(np.empty((0, 2)))
        else:
            self._selection.set_points(ds.points[self._selected : self._selected + 1])

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
        """The context menu of point `index` (shown by a right click on it): delete, and
        flip the label (two classes) or move the point to another class (K classes). One
        menu serves every point: a right click only says which point its actions act on."""
        if self._menu is None:
            self._menu = QMenu(self)
            delete = QAction("Delete point", self._menu)
            delete.triggered.connect(lambda: self.point_delete_requested.emit(self._menu_point))
            self._flip = QAction("Flip label", self._menu)
            self._flip.triggered.connect(lambda: self.point_flip_requested.emit(self._menu_point))
            self._menu.addAction(delete)
            self._menu.addAction(self._flip)
            self._class_menu = self._menu.addMenu("Class")
        self._menu_point = index
        ds = self._shown_dataset
        many = ds is not None and len(ds.classes) > 2
        self._flip.setVisible(not many)
        self._class_menu.menuAction().setVisible(many)
        self._class_menu.clear()
        if ds is not None and many:
            own = int(ds.labels[index]) if index < len(ds) else None
            for key, label in enumerate(ds.classes, start=1):
                action = self._class_menu.addAction(f"{key}: {class_text(ds, label)}")
                action.setEnabled(label != own)
                action.triggered.connect(
                    lambda _=False, c=label: self.point_relabel_requested.emit(self._menu_point, c)
                )
        return self._menu

    def _data_position(self, scene_pos: QPointF) -> tuple[float, float]:
        """The data coordinates under `scene_pos`, snapped to the grid step if one is set."""
        p = self.getPlotItem().vb.mapSceneToView(scene_pos)
        return snap(p.x(), self.snap_step), snap(p.y(), self.snap_step)

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
                self.point_requested.emit(*self._data_position(ev.scenePos()), self.new_point_label)
        elif hit is not None:
            self.set_selected(hit)
            self.point_menu(hit).popup(ev.screenPos().toPoint())
        elif self._shown_dataset is None or len(self._shown_dataset.classes) == 2:
            self.point_requested.emit(*self._data_position(ev.scenePos()), -self.new_point_label)
        return True

    def _on_drag(self, ev) -> bool:
        if ev.button() != Qt.MouseButton.LeftButton:
            return False
        if ev.isStart():
            self._dragging = self.hit_test(ev.buttonDownScenePos())
        if self._dragging is None:
            return False
        ev.accept()
        x, y = self._data_position(ev.scenePos())
        if ev.isFinish():
            index, self._dragging = self._dragging, None
            self._ghost.set_points(np.empty((0, 2)))
            self.set_selected(index)
            self.point_moved.emit(index, x, y)
        else:
            self._ghost.set_points(np.array([[x, y]]))
        return True

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        if ev.key() == Qt.Key.Key_Delete and self._selected is not None:
            self.point_delete_requested.emit(self._selected)
            ev.accept()
            return
        super().keyPressEvent(ev)
