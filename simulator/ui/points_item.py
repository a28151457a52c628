"""Many points drawn fast with public Qt API: one cached glyph pixmap, stamped by the painter.

`GlyphLayer` paints one glyph style at many data points. The glyph is rendered once into a
pixmap (per style and device pixel ratio); each paint maps the points to device pixels with
the painter's own transform (one NumPy expression, cached while the view does not move) and
stamps the pixmap with `QPainter.drawPixmapFragments`, unscaled. A subset (say, the
misclassified points) is shown through a boolean mask: no per-point Python objects.

`NumberLayer` writes each point's number (1-based, as the notes' x₁…xₙ) beside it; it is
meant for the few dozen points of a hand-built example, so it draws at most
`NUMBERS_LIMIT` of them.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import shiboken6
from numpy.typing import NDArray
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

__all__ = ["NUMBERS_LIMIT", "GlyphLayer", "NumberLayer", "render_glyph"]

NUMBERS_LIMIT = 30  # numbers are for hand-built examples; past this they are only ink
_FRAGMENT_FIELDS = (
    10  # QPainter::PixmapFragment: x, y, sx, sy, sw, sh, scaleX, scaleY, rot, opacity
)
_CLIP = 2.0**30  # device coordinates beyond this make the raster engine misbehave


def render_glyph(
    symbol: QPainterPath, size: float, pen: QPen | None, brush: QBrush | None, ratio: float = 1.0
) -> QPixmap:
    """The glyph `symbol` (a path in the unit square around 0) at `size` device-independent
    pixels, on a transparent square pixmap of device pixel ratio `ratio`."""
    width = pen.widthF() if pen is not None and pen.style() != Qt.PenStyle.NoPen else 0.0
    side = max(1, math.ceil((size + width + 2.0) * ratio))
    pixmap = QPixmap(side, side)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.translate(side / 2.0, side / 2.0)
    painter.scale(size * ratio, size * ratio)
    if pen is None:
        painter.setPen(Qt.PenStyle.NoPen)
    else:
        scaled = QPen(pen)
        scaled.setCosmetic(True)
        scaled.setWidthF(pen.widthF() * ratio)
        painter.setPen(scaled)
    painter.setBrush(brush if brush is not None else QBrush(Qt.BrushStyle.NoBrush))
    painter.drawPath(symbol)
    painter.end()
    return pixmap


def _device_points(xy: NDArray[np.float64], transform: QTransform) -> NDArray[np.float64]:
    """Points (n, 2) in item coordinates → device pixels (n, 2), as the painter maps them."""
    out = np.empty_like(xy)
    x, y = xy[:, 0], xy[:, 1]
    out[:, 0] = transform.m11() * x + transform.m21() * y + transform.dx()
    out[:, 1] = transform.m12() * x + transform.m22() * y + transform.dy()
    np.clip(out, -_CLIP, _CLIP, out=out)
    return out


class _Points(pg.GraphicsObject):
    """Points in data coordinates, a mask of those shown, and their device positions."""

    def __init__(self) -> None:
        super().__init__()
        self._xy: NDArray[np.float64] = np.empty((0, 2))
        self._mask: NDArray[np.bool_] | None = None
        self._data_rect = QRectF()
        self._device: NDArray[np.float64] | None = None
        self._device_key: tuple[float, ...] | None = None
        self._padding: float = 0.0  # device pixels beyond the points' centres
        self._bounds: QRectF | None = None

    def set_points(self, xy: NDArray[np.float64]) -> None:
        """Show glyphs at the rows of `xy` (n, 2); the mask resets to all."""
        self.prepareGeometryChange()
        self._xy = np.ascontiguousarray(xy, dtype=np.float64).reshape(-1, 2)
        self._mask = None
        self._device = self._device_key = None
        self._bounds = None
        finite = self._xy[np.all(np.isfinite(self._xy), axis=1)]
        if len(finite):
            low, high = finite.min(axis=0), finite.max(axis=0)
            self._data_rect = QRectF(
                float(low[0]), float(low[1]), float(high[0] - low[0]), float(high[1] - low[1])
            )
        else:
            self._data_rect = QRectF()
        self.update()

    def set_mask(self, mask: NDArray[np.bool_] | None) -> None:
        """Show only the points where `mask` is True (None: all of them)."""
        self._mask = None if mask is None else np.asarray(mask, dtype=bool)
        self.update()

    @property
    def count(self) -> int:
        """How many points are shown."""
        if self._mask is None:
            return len(self._xy)
        return int(np.count_nonzero(self._mask))

    def shown_points(self) -> NDArray[np.float64]:
        """The shown points (data coordinates), for tests and hit testing."""
        return self._xy if self._mask is None else self._xy[self._mask]

    def viewTransformChanged(self) -> None:
        self.prepareGeometryChange()
        super().viewTransformChanged()
        self._bounds = None

    def boundingRect(self) -> QRectF:
        if self._bounds is None:
            if self._data_rect.isNull() and not len(self._xy):
                self._bounds = QRectF()
            else:
                px, py = self.pixelVectors()
                pad_x = self._padding * (abs(px.x()) + abs(py.x())) if px is not None else 0.0
                pad_y = self._padding * (abs(px.y()) + abs(py.y())) if py is not None else 0.0
                self._bounds = self._data_rect.adjusted(-pad_x, -pad_y, pad_x, pad_y)
        return self._bounds

    def _visible_device_points(self, painter: QPainter) -> NDArray[np.float64]:
        """Device positions of the shown points within reach of the painted area."""
        transform = painter.transform()
        key = (
            transform.m11(),
            transform.m12(),
            transform.m21(),
            transform.m22(),
            transform.dx(),
            transform.dy(),
        )
        if self._device is None or key != self._device_key:
            self._device = _device_points(self._xy, transform)
            self._device_key = key
        device = self._device if self._mask is None else self._device[self._mask]
        window = painter.window()
        pad = self._padding
        inside = (
            (device[:, 0] >= window.left() - pad)
            & (device[:, 0] <= window.right() + pad)
            & (device[:, 1] >= window.top() - pad)
            & (device[:, 1] <= window.bottom() + pad)
        )
        return device if inside.all() else device[inside]


class GlyphLayer(_Points):
    """One glyph style at many points (see the module docstring)."""

    def __init__(
        self,
        symbol: QPainterPath,
        size: float,
        pen: QPen | None = None,
        brush: QBrush | QColor | None = None,
    ) -> None:
        super().__init__()
        self._symbol = symbol
        self._size = float(size)
        self._pen: QPen | None = pen
        self._brush: QBrush | None = QBrush(brush) if brush is not None else None
        self._pixmap: QPixmap | None = None
        self._pixmap_ratio = 0.0
        self._fragments = np.zeros((0, _FRAGMENT_FIELDS))
        self._update_padding()

    @property
    def size(self) -> float:
        return self._size

    @property
    def symbol(self) -> QPainterPath:
        return self._symbol

    def set_style(
        self,
        *,
        symbol: QPainterPath | None = None,
        size: float | None = None,
        pen: QPen | bool | None = False,
        brush: QBrush | QColor | bool | None = False,
    ) -> None:
        """Change the glyph (False: keep that part; None: no pen / no brush)."""
        if symbol is not None:
            self._symbol = symbol
        if size is not None:
            self._size = float(size)
        if pen is not False:
            self._pen = pen if isinstance(pen, QPen) else None
        if brush is not False:
            self._brush = QBrush(brush) if isinstance(brush, QBrush | QColor) else None
        self._pixmap = None
        self.prepareGeometryChange()
        self._update_padding()
        self._bounds = None
        self.update()

    def _update_padding(self) -> None:
        width = self._pen.widthF() if self._pen is not None else 0.0
        self._padding = (self._size + width) / 2.0 + 2.0

    def glyph(self, ratio: float = 1.0) -> QPixmap:
        """The cached glyph pixmap for device pixel ratio `ratio`."""
        if self._pixmap is None or self._pixmap_ratio != ratio:
            self._pixmap = render_glyph(self._symbol, self._size, self._pen, self._brush, ratio)
            self._pixmap_ratio = ratio
        return self._pixmap

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not len(self._xy):
            return
        device = self._visible_device_points(painter)
        count = len(device)
        if count == 0:
            return
        ratio = painter.device().devicePixelRatioF() or 1.0
        pixmap = self.glyph(ratio)
        if self._fragments.shape[0] < count:
            self._fragments = np.zeros((max(count, 2 * self._fragments.shape[0]), _FRAGMENT_FIELDS))
        fragments = self._fragments[:count]
        fragments[:, 0:2] = device
        fragments[:, 2:6] = (0.0, 0.0, pixmap.width(), pixmap.height())
        fragments[:, 6:10] = (1.0 / ratio, 1.0 / ratio, 0.0, 1.0)
        painter.save()
        painter.resetTransform()
        # Qt takes a C array of fragments: wrap our contiguous rows (shiboken's public API).
        first = shiboken6.wrapInstance(fragments.ctypes.data, QPainter.PixmapFragment)
        painter.drawPixmapFragments(first, count, pixmap)
        painter.restore()


class NumberLayer(_Points):
    """Each point's number (1-based) beside its glyph; nothing past NUMBERS_LIMIT points."""

    def __init__(self, color: QColor, pixel_size: int = 12, offset: float = 10.0) -> None:
        super().__init__()
        self._color = QColor(color)
        self._font = QFont()
        self._offset = offset
        self.set_font_size(pixel_size)

    def set_font_size(self, pixel_size: int, offset: float | None = None) -> None:
        self._font.setPixelSize(max(6, int(pixel_size)))
        if offset is not None:
            self._offset = offset
        self.prepareGeometryChange()
        self._padding = self._offset + 5.0 * pixel_size
        self._bounds = None
        self.update()

    @property
    def pixel_size(self) -> int:
        return self._font.pixelSize()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        n = len(self._xy)
        if n == 0 or n > NUMBERS_LIMIT:
            return
        transform = painter.transform()
        device = _device_points(self._xy, transform)
        painter.save()
        painter.resetTransform()
        painter.setFont(self._font)
        halo = QPen(QColor(255, 255, 255, 220))
        ink = QPen(self._color)
        offset = self._offset
        for index, (x, y) in enumerate(device.tolist(), start=1):
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            at = QPointF(x + offset * 0.7, y - offset * 0.7)
            text = str(index)
            painter.setPen(halo)  # a light halo keeps the number legible over lines
            for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                painter.drawText(at + QPointF(dx, dy), text)
            painter.setPen(ink)
            painter.drawText(at, text)
        painter.restore()
