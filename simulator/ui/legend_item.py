"""The plot's legend: a small box naming the glyphs and line styles on show.

Drawn by one QGraphicsObject in pixel coordinates (child of the ViewBox, so it stays put
while the data pan and zoom), in two columns so it takes little height: the plot keeps a
band free for it at the top when it fits or follows the view. It takes no clicks: they go
to the plot, which edits points. Entries change only with the View toggles, never from
trial to trial, so it does not jump.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget

__all__ = ["LegendBox", "LegendEntry"]


@dataclass(frozen=True)
class LegendEntry:
    """One row: a sample (a line pen, a glyph pixmap, an arrow colour or a swatch) and a text."""

    text: str
    pen: QPen | None = None  # a line sample
    glyphs: tuple[QPixmap, ...] = ()  # glyph samples, side by side
    arrow: QColor | None = None  # w's arrow
    swatch: QColor | None = None  # a shaded region


class LegendBox(QGraphicsObject):
    """A legend in the plot's top-left corner (see the module docstring)."""

    def __init__(self, pixel_size: int = 13, columns: int = 2) -> None:
        super().__init__()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._columns = columns
        self._entries: tuple[LegendEntry, ...] = ()
        self._font = QFont()
        self._font.setPixelSize(pixel_size)
        self._rect = QRectF()
        self._layout()

    @property
    def texts(self) -> list[str]:
        """The entries' texts, top to bottom."""
        return [entry.text for entry in self._entries]

    @property
    def pixel_size(self) -> int:
        return self._font.pixelSize()

    def set_entries(self, entries: tuple[LegendEntry, ...], pixel_size: int | None = None) -> None:
        if pixel_size is not None:
            self._font.setPixelSize(pixel_size)
        self._entries = entries
        self._layout()

    def fit_width(self, width: float) -> None:
        """Two columns when they fit in `width` pixels, else one (taller, but whole)."""
        columns = 2 if self._measure(2)[0] <= width else 1
        if columns != self._columns:
            self._columns = columns
            self._layout()

    def _measure(self, columns: int) -> tuple[float, float, list[float], list[float]]:
        """(width, height, text widths, column lefts) of the box with `columns` columns."""
        metrics = QFontMetricsF(self._font)
        columns = max(1, min(columns, len(self._entries)))
        texts = [
            max(
                (metrics.horizontalAdvance(e.text) for e in self._entries[c::columns]),
                default=0.0,
            )
            for c in range(columns)
        ]
        pad, sample = self._pad, self._sample
        cell = [pad + sample + pad + w for w in texts]
        lefts = [pad + sum(cell[:c]) + c * pad for c in range(columns)]
        rows = math.ceil(len(self._entries) / columns) if self._entries else 0
        if not self._entries:
            return 0.0, 0.0, texts, lefts
        return lefts[-1] + cell[-1] + pad, 2 * pad + rows * self._row, texts, lefts

    def _layout(self) -> None:
        """Rows filled left to right, `columns` entries a row, each column as wide as its
        widest text."""
        self.prepareGeometryChange()
        metrics = QFontMetricsF(self._font)
        tallest = max(
            (g.height() / (g.devicePixelRatio() or 1.0) for e in self._entries for g in e.glyphs),
            default=0.0,
        )
        self._row = max(metrics.height() + 4.0, tallest + 2.0)
        self._sample = 2.6 * metrics.height()
        self._pad = 0.5 * metrics.height()
        width, height, self._text_widths, self._lefts = self._measure(self._columns)
        self._rect = QRectF(0, 0, width, height) if self._entries else QRectF()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-1, -1, 1, 1)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not self._entries:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(QColor("#BBBBBB"), 1))
        painter.setBrush(QColor(255, 255, 255))  # opaque: a line under it reads as a second
        # line through a see-through key
        painter.drawRoundedRect(self._rect, 4, 4)
        painter.setFont(self._font)
        pad, row, sample = self._pad, self._row, self._sample
        columns = len(self._lefts)
        for k, entry in enumerate(self._entries):
            column = k % columns
            top = pad + (k // columns) * row
            middle = top + row / 2
            left = self._lefts[column]
            right = left + sample
            if entry.swatch is not None:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(entry.swatch)
                painter.drawRect(QRectF(left, top + 3, sample, row - 6))
            if entry.pen is not None:
                pen = QPen(entry.pen)
                pen.setCosmetic(True)
                painter.setPen(pen)
                painter.drawLine(QPointF(left, middle), QPointF(right, middle))
            if entry.arrow is not None:
                self._paint_arrow(painter, entry.arrow, left, right, middle, row)
            for k_glyph, glyph in enumerate(entry.glyphs):
                ratio = glyph.devicePixelRatio() or 1.0
                w, h = glyph.width() / ratio, glyph.height() / ratio
                center = left + sample * (k_glyph + 0.5) / len(entry.glyphs)
                painter.drawPixmap(
                    QRectF(center - w / 2, middle - h / 2, w, h),
                    glyph,
                    QRectF(0, 0, glyph.width(), glyph.height()),
                )
            painter.setPen(QColor("#111111"))
            painter.drawText(
                QRectF(right + pad, top, self._text_widths[column] + pad, row),
                int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                entry.text,
            )

    @staticmethod
    def _paint_arrow(
        painter: QPainter, color: QColor, left: float, right: float, middle: float, row: float
    ) -> None:
        head = min(0.45 * row, 0.4 * (right - left))
        width = max(2.0, row / 6)
        painter.setPen(QPen(color, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.FlatCap))
        painter.drawLine(QPointF(left, middle), QPointF(right - head, middle))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(color))
        spread = head * math.tan(math.radians(20))
        painter.drawPolygon(
            QPolygonF(
                [
                    QPointF(right, middle),
                    QPointF(right - head, middle - spread),
                    QPointF(right - head, middle + spread),
                ]
            )
        )
