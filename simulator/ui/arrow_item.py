"""An arrow with a label, drawn by one QGraphicsObject: w, w before the update, and the
marker that points to a boundary outside the view.

The arrow lives in data coordinates but is drawn in device pixels (the painter's own
transform maps its ends), so its head and label keep their size at any zoom. Moving it is
four numbers and one `update()`: cheaper per frame than a curve, a head and a text item.
Its tail can be given in data units (w from the boundary) or in pixels back from the tip
(the edge marker, whose length means nothing in data units).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTransform,
)
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

__all__ = ["VectorItem"]


class VectorItem(pg.GraphicsObject):
    """An arrow from `start` to `end` (data coordinates) with a text beside its tip."""

    def __init__(self, color: QColor, text: str = "") -> None:
        super().__init__()
        self._color = QColor(color)
        self._text = text
        self._width = 3.0
        self._head = 16.0
        self._halo = True
        self._dash: Qt.PenStyle = Qt.PenStyle.SolidLine
        self._font = QFont()
        self._font.setBold(True)
        self._font.setPixelSize(16)
        self._start: QPointF | None = None
        self._end: QPointF | None = None
        self._tail_px: float | None = None  # a tail this many pixels long, drawn back from end
        self._label_behind = False
        self._bounds: QRectF | None = None

    def set_style(
        self,
        *,
        width: float,
        head: float,
        font_px: int,
        halo: bool = True,
        dash: Qt.PenStyle = Qt.PenStyle.SolidLine,
        bold: bool = True,
    ) -> None:
        self._width, self._head, self._halo, self._dash = width, head, halo, dash
        self._font.setPixelSize(max(6, font_px))
        self._font.setBold(bold)
        self._changed()

    def set_colour(self, color: QColor) -> None:
        if color != self._color:
            self._color = QColor(color)
            self.update()

    def set_text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._changed()

    def set_vector(self, start: np.ndarray, end: np.ndarray) -> None:
        """An arrow from `start` to `end`, both in data coordinates."""
        self._tail_px = None
        self._label_behind = False
        self._place(
            QPointF(float(start[0]), float(start[1])), QPointF(float(end[0]), float(end[1]))
        )

    def set_pointer(self, tip: np.ndarray, direction: np.ndarray, tail_px: float) -> None:
        """An arrow `tail_px` pixels long ending at `tip` and pointing along `direction`
        (data coordinates); its text sits behind the tail."""
        self._tail_px = tail_px
        self._label_behind = True
        end = QPointF(float(tip[0]), float(tip[1]))
        # The start only fixes the direction; the tail length is set in pixels when painting.
        self._place(QPointF(end.x() - float(direction[0]), end.y() - float(direction[1])), end)

    def ends(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(start, end) in data coordinates, as set."""
        if self._start is None or self._end is None:
            return None
        return (
            np.array([self._start.x(), self._start.y()]),
            np.array([self._end.x(), self._end.y()]),
        )

    def _place(self, start: QPointF, end: QPointF) -> None:
        if start == self._start and end == self._end:
            return
        self._start, self._end = start, end
        self._changed()

    def _changed(self) -> None:
        self.prepareGeometryChange()
        self._bounds = None
        self.update()

    def viewTransformChanged(self) -> None:
        self.prepareGeometryChange()
        super().viewTransformChanged()
        self._bounds = None

    def _reach_px(self) -> float:
        """How far beyond its ends the drawing reaches, in pixels (head, label, tail)."""
        metrics = QFontMetricsF(self._font)
        label = metrics.horizontalAdvance(self._text) + metrics.height() if self._text else 0.0
        return self._head + self._width + 4.0 + label + (self._tail_px or 0.0)

    def boundingRect(self) -> QRectF:
        if self._bounds is None:
            if self._start is None or self._end is None:
                self._bounds = QRectF()
            else:
                rect = QRectF(self._start, self._end).normalized()
                px, py = self.pixelVectors()
                reach = self._reach_px()
                pad_x = reach * (abs(px.x()) + abs(py.x())) if px is not None else 0.0
                pad_y = reach * (abs(px.y()) + abs(py.y())) if py is not None else 0.0
                self._bounds = rect.adjusted(-pad_x, -pad_y, pad_x, pad_y)
        return self._bounds

    def _device_ends(self, transform: QTransform) -> tuple[QPointF, QPointF, float, float] | None:
        """(start, tip, ux, uy) in device pixels under `transform`, or None if degenerate."""
        if self._start is None or self._end is None:
            return None
        a, b = transform.map(self._start), transform.map(self._end)
        dx, dy = b.x() - a.x(), b.y() - a.y()
        length = math.hypot(dx, dy)
        if not (length > 0 and math.isfinite(length)):
            return None
        ux, uy = dx / length, dy / length
        if self._tail_px is not None:
            length = self._tail_px + self._head
            a = QPointF(b.x() - ux * length, b.y() - uy * length)
        return a, b, ux, uy

    def _label_box(self, transform: QTransform) -> QRectF | None:
        """Where the text goes, in device pixels: beyond the tip (or behind the tail), else
        beside the tip, else pushed inside; always inside the visible view, so an arrow
        that ends at the view's edge keeps its name."""
        ends = self._device_ends(transform)
        if ends is None or not self._text:
            return None
        a, b, ux, uy = ends
        metrics = QFontMetricsF(self._font)
        w, h = metrics.horizontalAdvance(self._text), metrics.height()
        gap = 0.35 * h
        along = (gap + w / 2, gap + h / 2)  # from a point to the centre of a box beside it
        if self._label_behind:  # behind the tail, on the line of the arrow
            first = (a.x() - ux * along[0], a.y() - uy * along[1])
            corner = a
        else:  # beyond the tip
            first = (b.x() + ux * along[0], b.y() + uy * along[1])
            corner = QPointF(b.x() - ux * 0.5 * self._head, b.y() - uy * 0.5 * self._head)
        candidates = [first]
        for side in (1.0, -1.0):  # beside the arrow, either way
            nx, ny = -uy * side, ux * side
            candidates.append((corner.x() + nx * along[0], corner.y() + ny * along[1]))
        boxes = [QRectF(cx - w / 2, cy - h / 2, w, h) for cx, cy in candidates]
        view = self.getViewBox()
        if not isinstance(view, pg.ViewBox):
            return boxes[0]
        inside = transform.mapRect(view.viewRect()).normalized()
        for box in boxes:
            if inside.contains(box):
                return box
        box = boxes[0]
        x = min(max(box.left(), inside.left()), inside.right() - w)
        y = min(max(box.top(), inside.top()), inside.bottom() - h)
        return QRectF(x, y, w, h)

    def label_rect(self) -> QRectF | None:
        """The text's box as drawn, in data coordinates (None: no text or not placed)."""
        widget = self.getViewWidget()
        if widget is None:
            return None
        transform = self.deviceTransform(widget.viewportTransform())
        box = self._label_box(transform)
        if box is None:
            return None
        inverse, ok = transform.inverted()
        return inverse.mapRect(box).normalized() if ok else None

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        transform = painter.transform()
        ends = self._device_ends(transform)
        if ends is None:
            return
        a, b, ux, uy = ends
        length = math.hypot(b.x() - a.x(), b.y() - a.y())
        head = min(self._head, 0.6 * length)
        neck = QPointF(b.x() - ux * head, b.y() - uy * head)
        spread = head * math.tan(math.radians(17))
        wing = QPointF(-uy * spread, ux * spread)
        tip = QPolygonF([b, neck + wing, neck - wing])
        label = self._label_box(transform)
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        shaft = QPainterPath(a)
        shaft.lineTo(neck)
        if self._halo:  # a white edge keeps the arrow apart from dense points
            halo = QPen(QColor(255, 255, 255, 230), self._width + 4)
            halo.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(halo)
            painter.drawPath(shaft)
            painter.setBrush(QColor(255, 255, 255, 230))
            painter.drawPolygon(tip)
        pen = QPen(self._color, self._width, self._dash, Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(shaft)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._color)
        painter.drawPolygon(tip)
        if label is not None:
            painter.setFont(self._font)
            painter.setPen(self._color)
            painter.drawText(label, int(Qt.AlignmentFlag.AlignCenter), self._text)
        painter.restore()
