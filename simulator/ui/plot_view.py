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
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsPolygonItem,
    QMenu,
    QWidget,
)

from simulator.engine import Dataset, InputLine
from simulator.presentation.frame import Frame
from simulator.presentation.level_sets import SampledGrid
from simulator.ui import style
from simulator.ui.arrow_item import VectorItem
from simulator.ui.class_points import ClassLayers, class_text
from simulator.ui.legend_item import LegendBox
from simulator.ui.number_axis import number_axes
from simulator.ui.plot_editing import PointEditing
from simulator.ui.plot_geometry import (
    ARROW_FRACTION,
    Box,
    arrow_placement,
    edge_marker,
)
from simulator.ui.plot_glide import BoundaryGlide
from simulator.ui.plot_legend import LegendLayout
from simulator.ui.plot_queries import PlotQueries
from simulator.ui.plot_shapes import PlaneShapes
from simulator.ui.plot_toggles import ViewToggles
from simulator.ui.plot_viewbox import VIEW_LIMIT, EditViewBox
from simulator.ui.points_item import NUMBERS_LIMIT, GlyphLayer, NumberLayer

__all__ = ["DEFAULT_SNAP", "SNAP_STEPS", "VIEW_LIMIT", "PlotView"]

FULL_DETAIL_POINTS = 2000  # up to this many points, full-size glyphs and rings
SNAP_STEPS = (0.5, 0.25, 0.1)
DEFAULT_SNAP = 0.5  # the window's clicks land on the board's grid (a view alone: no snap)
HALO_LEVELS = 4  # ring sizes for a point's α (dual form)


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


class PlotView(
    PointEditing, LegendLayout, PlaneShapes, BoundaryGlide, ViewToggles, PlotQueries, pg.PlotWidget
):
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
        viewbox = EditViewBox()
        super().__init__(
            parent,
            viewBox=viewbox,
            background=style.BACKGROUND,
            axisItems=number_axes(steady=True),  # the plot keeps its place as ticks change
        )
        viewbox.editor = self
        self.setObjectName("plotView")
        self._base_point_size = point_size
        self._base_line_scale = line_scale
        self._init_state()
        item = self.getPlotItem()
        item.setAspectLocked(True)
        item.hideButtons()
        self._make_items()
        self._stack_items(item)
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

    def _init_state(self) -> None:
        """What the view shows and how (before any graphics item exists)."""
        self._new_point_label = 1
        self.snap_step: float | None = None
        self._frame: Frame | None = None
        self._shown_dataset: Dataset | None = None
        self._data_box: Box | None = None
        self._shown_mask: np.ndarray | None = None
        self._selected: int | None = None
        self._dragging: int | None = None
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
        self._essential_count = 0  # the legend's first entries that are its essentials
        self._fitted: Box | None = None  # what the view last fitted, before the legend's room
        self._fitted_range: list[list[float]] | None = None  # the range set for it
        self._fitted_size = (0.0, 0.0)  # the plot's size in pixels then
        self._detail: tuple[float, bool] | None = None
        self._drawn: dict[int, InputLine | None] = {}
        self._grids = SampledGrid()  # the curves' scores sampled over the view
        self._axis_names: tuple[str, ...] | None = None
        self._menu: QMenu | None = None
        self._menu_point = 0
        self._focus_click = False  # the press took the keyboard from a field (plot_editing)
        self._init_glide()
        self._field_focused = False
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    def _make_items(self) -> None:
        """The graphics items: grid, shading, lines and curves per role, point layers,
        arrows and the hint (sizes and pens: `_apply_style`)."""
        point_size = self._base_point_size
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
        self._more_lines: dict[str, list[pg.InfiniteLine]] = {}
        self._halo_key: object = None
        self._curves = {role: pg.PlotCurveItem(connect="finite") for role in style.ROLES}
        self._regions = pg.ImageItem()
        self._band = [self._lines["margin-low"], self._lines["margin-high"]]
        self._separator = self._lines["separator"]
        self._previous = self._lines["previous"]
        self._least_squares = self._lines["least-squares"]
        self._boundary = self._lines["boundary"]
        # Glyphs, sizes and pens of the point layers: set by _set_detail and _apply_style.
        self._classes = ClassLayers(point_size)
        self._mistakes = GlyphLayer(style.disc(), point_size)
        # α of a learner in dual form, as a halo around each point: HALO_LEVELS sizes.
        self._halos = tuple(GlyphLayer(style.disc(), point_size) for _ in range(HALO_LEVELS))
        self._numbers = NumberLayer(style.NUMBER)
        self._current = GlyphLayer(style.disc(), point_size)
        self._selection = GlyphLayer(style.square(), point_size)
        self._ghost = GlyphLayer(style.disc(), point_size)
        self._previous_arrow = VectorItem(style.PREVIOUS)
        self._w_arrow = VectorItem(style.WEIGHT, "w")
        self._edge_marker = VectorItem(style.BOUNDARY, "boundary")
        self._class_arrows = tuple(VectorItem(colour) for colour in style.CLASS_COLOURS)
        self._hint = pg.TextItem("", color="#777777", anchor=(0.5, 0.5))

    def _stack_items(self, item: pg.PlotItem) -> None:
        """Add the items to the plot, bottom to top."""
        layer: dict[int, list[Any]] = {z: [] for z in (0, 1, 2)}
        for role, look in style.ROLES.items():
            layer[look.z] += [self._lines[role], self._curves[role]]
        # Bottom to top: grid, shading, points, mistakes, theory lines, the boundary and w
        # above the points (dense data cannot hide them), the trial and markers on top, and
        # the points' numbers over the trial's marker (which is wider than their offset).
        for z, graphics in enumerate(
            (
                (self._grid,),
                (self._shade_positive, self._shade_negative, self._regions),
                self._classes.layers,
                (*self._halos, self._mistakes),
                (self._radius, *layer[0]),
                (*layer[1], self._previous_arrow),
                tuple(layer[2]),
                (self._w_arrow, *self._class_arrows),
                (self._selection, self._current, self._ghost, self._numbers),
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
        self._radius.setPen(style.pen(style.RADIUS, 1.5 * k, style.RADIUS_DASH))
        for role in style.ROLES:
            self._lines[role].setPen(self._role_pen(role))
            for line in self._more_lines.get(role, []):
                line.setPen(self._role_pen(role))
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
            False: (style.disc(), 2.2 * size, style.pen(style.HIGHLIGHT, 3.5 * k)),
            True: (style.diamond(), 2.3 * size, style.pen(style.HIGHLIGHT, 4.5 * k)),
        }
        self._current.set_style(brush=QColor(230, 159, 0, 60))
        self._paint_current_style(False)
        self._selection.set_style(
            size=2.0 * size,
            pen=style.pen(QColor("#555555"), 1.5 * k, Qt.PenStyle.DashLine),
            brush=None,
        )
        self._ghost.set_style(
            size=size, pen=style.pen(QColor("#333333"), 1.5), brush=QColor(0, 0, 0, 40)
        )
        self._numbers.set_font_size(round(12 * k), offset=0.45 * size + 3)
        self._ring_pen = style.pen(style.MISTAKE, 1.4 * k)
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
        return style.pen(look.colour, look.width * self.line_scale, look.dash, look.dashes or None)

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
        halo = style.pen(style.HALO, 2.0 * self.line_scale)
        for level, layer in enumerate(self._halos, start=1):
            layer.set_style(size=size * (1.2 + 0.45 * level), pen=halo, brush=style.HALO_FILL)

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
            text = f"Left click: a {here} point\nRight click: a {other} point"
        else:
            text = f"Left click: a point of class {class_text(ds, label)}\nKeys 1–9: the class"
        self._hint.setText(text)

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
        self._start_glide(frame.boundary)
        for role, line in self._lines.items():
            drawn = frame.lines(role) if self._role_shown(role) else ()
            if role == "boundary" and drawn:
                drawn = (self._boundary_shown() or drawn[0], *drawn[1:])
            self._set_line(line, drawn[0] if drawn else None)
            self._place_more_lines(role, drawn[1:])
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
        self._place_halos(frame.dual)
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
        """The empty plot's hint in the middle of what the legend leaves free."""
        center = self.drawing_box().center
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

    def _place_halos(self, alpha: np.ndarray | None) -> None:
        """Ring each point with α > 0 (a learner in dual form): the larger α, the larger the
        ring, in HALO_LEVELS steps of α / max α."""
        ds = self._shown_dataset
        key = None if alpha is None or ds is None else (ds, alpha.tobytes())
        if key == self._halo_key:
            return
        self._halo_key = key
        levels = np.zeros(0, dtype=np.int64)
        if key is not None and alpha is not None and ds is not None and len(alpha) == len(ds):
            top = float(np.max(alpha)) if len(alpha) else 0.0
            if top > 0:
                levels = np.ceil(alpha / top * HALO_LEVELS).astype(np.int64)
        for level, layer in enumerate(self._halos, start=1):
            chosen = ds.points[levels == level] if ds is not None and levels.size else None
            layer.set_points(np.empty((0, 2)) if chosen is None else chosen)

    def _place_more_lines(self, role: str, lines: tuple[InputLine, ...]) -> None:
        """A role's second and later lines (the margin perceptron's band w·x = ±τ), each
        an extra line made the first time it is needed, in the role's pen and layer."""
        more = self._more_lines.setdefault(role, [])
        while len(more) < len(lines):
            line = pg.InfiniteLine(angle=0, pen=self._role_pen(role))
            line.setZValue(self._lines[role].zValue())
            self.getPlotItem().addItem(line, ignoreBounds=True)
            more.append(line)
        for k, line in enumerate(more):
            self._set_line(line, lines[k] if k < len(lines) else None)

    def arrow_length(self, line: InputLine, view: Box) -> float:
        """w's arrow in data units: a share of the view, or the plane part of w's length."""
        if self._true_length:
            return float(np.linalg.norm(np.asarray(line.normal, dtype=float)))
        return ARROW_FRACTION * view.diagonal

    def _place_arrow(self) -> None:
        """w's arrow on the visible boundary, or a marker pointing to a boundary off view."""
        frame = self._frame
        shown: set[VectorItem] = set()
        boundary = None if frame is None else self._boundary_shown() or frame.boundary
        if frame is not None and boundary is not None:
            view = self.drawing_box()
            length = self.arrow_length(boundary, self.view_box())
            shorten = not self._true_length
            placed = arrow_placement(boundary, view, length, shorten=shorten)
            if placed is None:
                marker = edge_marker(boundary, view)
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
