"""Colours, glyphs and fonts shared by the window and the exported frames.

Colours are from the Okabe–Ito palette (safe for the common colour-vision deficiencies);
each class also has its own glyph, so the plot reads on a greyscale projector:
+1 is a blue disc with a plus cut out, -1 a vermillion square with a minus cut out.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPolygonF

POSITIVE = QColor("#0072B2")  # blue
NEGATIVE = QColor("#D55E00")  # vermillion
BOUNDARY = QColor("#111111")
PREVIOUS = QColor("#8C8C8C")
SEPARATOR = QColor("#009E73")  # bluish green
HIGHLIGHT = QColor("#E69F00")  # orange ring of the current trial
MISTAKE = QColor("#000000")
RADIUS = QColor("#7F7F7F")
BACKGROUND = QColor("#FFFFFF")

POINT_SIZE = 20  # pixels, in the window; export scales with the frame height


def _cross(half: float, arm: float) -> QPolygonF:
    """A plus sign: arms of half-length `half` and half-width `arm`, centred on 0."""
    h, a = half, arm
    corners = [
        (-a, -h),
        (a, -h),
        (a, -a),
        (h, -a),
        (h, a),
        (a, a),
        (a, h),
        (-a, h),
        (-a, a),
        (-h, a),
        (-h, -a),
        (-a, -a),
    ]
    return QPolygonF([QPointF(x, y) for x, y in corners])


def positive_symbol() -> QPainterPath:
    """A disc with a plus cut out."""
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.OddEvenFill)
    path.addEllipse(QRectF(-0.5, -0.5, 1.0, 1.0))
    path.addPolygon(_cross(0.3, 0.08))
    path.closeSubpath()
    return path


def negative_symbol() -> QPainterPath:
    """A square with a minus cut out."""
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.OddEvenFill)
    path.addRect(QRectF(-0.42, -0.42, 0.84, 0.84))
    path.addRect(QRectF(-0.28, -0.08, 0.56, 0.16))
    return path
