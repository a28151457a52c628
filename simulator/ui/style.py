"""Colours, glyphs, line styles and type sizes shared by the window and the exported frames.

Colours are from the Okabe–Ito palette (safe for the common colour-vision deficiencies);
each class also has its own glyph, so the plot reads on a greyscale projector:
+1 is a blue disc with a plus cut out, -1 a vermillion square with a minus cut out.
Lines differ by dash pattern as well as colour, so they stay apart in greyscale too:
the boundary is solid black, the boundary before the update grey dashes, the optimal
separator green dash-dots with its margin band dotted, the circle of radius R grey
dash-dot-dots, Adaline's least-squares line sky-blue long dashes. w is a thick
reddish-purple arrow with a white edge, so dense points cannot swallow it. The current
trial is an orange ring when it was classified right and an orange diamond when it was a
mistake (a shape, not only a colour).
"""

from __future__ import annotations

import math
import sys

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QApplication

POSITIVE = QColor("#0072B2")  # blue
NEGATIVE = QColor("#D55E00")  # vermillion
BOUNDARY = QColor("#111111")
PREVIOUS = QColor("#8C8C8C")
SEPARATOR = QColor("#009E73")  # bluish green
HIGHLIGHT = QColor("#E69F00")  # orange ring of the current trial
MISTAKE = QColor("#000000")
RADIUS = QColor("#7F7F7F")
WEIGHT = QColor("#CC79A7")  # reddish purple: the arrow w
LEAST_SQUARES = QColor("#56B4E9")  # sky blue: Adaline's w_LS line
NUMBER = QColor("#333333")
HALO = QColor("#CC79A7")  # reddish purple, as w: a point's α in the sum f(x)
HALO_FILL = QColor(204, 121, 167, 40)
BACKGROUND = QColor("#FFFFFF")
POSITIVE_REGION = QColor(0, 114, 178, 30)  # where s > 0: a tint of the +1 blue
NEGATIVE_REGION = QColor(213, 94, 0, 30)  # where s < 0: a tint of the -1 vermillion

BOUNDARY_DASH = Qt.PenStyle.SolidLine
PREVIOUS_DASH = Qt.PenStyle.DashLine
SEPARATOR_DASH = Qt.PenStyle.DashDotLine
BAND_DASH = Qt.PenStyle.DotLine
RADIUS_DASH = Qt.PenStyle.DashDotDotLine
LEAST_SQUARES_DASHES = (7.0, 2.5)  # long dashes, in pen widths (Qt's custom dash pattern)

POINT_SIZE = 20  # pixels, in the window; export scales with the frame height

# Presentation mode (View → Presentation mode, F5): type for a lecture hall.
PRESENTATION_LABEL_PX = 24  # every label of the side panel and the explanation strip
PRESENTATION_VALUE_PX = 26  # the numbers, bold
PRESENTATION_TICK_PX = 20  # axis tick labels
PRESENTATION_AXIS_LABEL_PX = 22  # the axes' column names
PRESENTATION_NOTE_PX = 20  # the high-dimensional view's header (short, so the bars keep room)
PRESENTATION_LINE_SCALE = 1.6  # lines and the w arrow this much thicker
PRESENTATION_POINT_SCALE = 1.35  # glyphs this much larger


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


def disc() -> QPainterPath:
    path = QPainterPath()
    path.addEllipse(QRectF(-0.5, -0.5, 1.0, 1.0))
    return path


def square() -> QPainterPath:
    path = QPainterPath()
    path.addRect(QRectF(-0.42, -0.42, 0.84, 0.84))
    return path


def diamond() -> QPainterPath:
    """A square on its tip: the current trial when it was a mistake."""
    path = QPainterPath()
    path.addPolygon(
        QPolygonF([QPointF(0, -0.6), QPointF(0.6, 0), QPointF(0, 0.6), QPointF(-0.6, 0)])
    )
    path.closeSubpath()
    return path


# -- the roles of drawables (simulator.engine.drawables): a pen and a legend entry each --------

POCKET = QColor("#7A3DB8")  # purple: the pocket's line
AVERAGE = QColor("#8B5A00")  # brown: the averaged perceptron's w̄
VOTE = QColor("#8B5A00")  # brown too (never drawn beside w̄): the voted perceptron's vote
MARGIN_BAND = QColor("#444444")  # the margin perceptron's band y·w·x = τ


class Role:
    """How a role is drawn: colour, width (in line-scale units), dash, z-order among the
    lines (higher on top), its legend text, and the view toggle that shows it (None:
    always)."""

    __slots__ = ("colour", "dash", "dashes", "legend", "toggle", "width", "z")

    def __init__(
        self,
        colour: QColor,
        width: float,
        dash: Qt.PenStyle,
        legend: str,
        *,
        z: int = 0,
        toggle: str | None = None,
        dashes: tuple[float, ...] = (),
    ) -> None:
        self.colour, self.width, self.dash, self.legend = colour, width, dash, legend
        self.z, self.toggle, self.dashes = z, toggle, dashes


ROLES: dict[str, Role] = {
    "boundary": Role(BOUNDARY, 3.0, BOUNDARY_DASH, "boundary", z=2),
    "previous": Role(PREVIOUS, 2.0, PREVIOUS_DASH, "before the update", z=1),
    "pocket": Role(POCKET, 2.5, Qt.PenStyle.DashDotLine, "the pocket's boundary", z=1),
    "average": Role(AVERAGE, 2.5, Qt.PenStyle.DashLine, "averaged w̄", z=1),
    "vote": Role(VOTE, 3.0, Qt.PenStyle.SolidLine, "the vote Σ c_k sign(v_k·x) = 0", z=2),
    "margin-band": Role(MARGIN_BAND, 1.5, Qt.PenStyle.DotLine, "margin y·w·x = τ", z=1),
    "separator": Role(SEPARATOR, 2.5, SEPARATOR_DASH, "optimal separator u*", toggle="separator"),
    "margin-low": Role(SEPARATOR, 1.5, BAND_DASH, "margin band ±γ*", toggle="separator"),
    "margin-high": Role(SEPARATOR, 1.5, BAND_DASH, "", toggle="separator"),
    "least-squares": Role(
        LEAST_SQUARES,
        2.5,
        Qt.PenStyle.CustomDashLine,
        "least squares w_LS",
        toggle="least_squares",
        dashes=LEAST_SQUARES_DASHES,
    ),
}
"""The roles a learner's drawables take (a learner with a new role adds one here)."""

ROLES["class-weight"] = Role(WEIGHT, 3.0, BOUNDARY_DASH, "")  # K arrows w_k, in class colours

CLASS_COLOURS = (
    QColor("#0072B2"), QColor("#D55E00"), QColor("#009E73"), QColor("#CC79A7"),
    QColor("#E69F00"), QColor("#56B4E9"), QColor("#555555"), QColor("#B8A400"),
    QColor("#8C564B"),
)  # fmt: skip
"""Okabe–Ito's colours for classes 0 … 8 (they stay apart for colour-blind eyes); its black
and yellow darkened to grey and olive, so neither is taken for a mistake mark nor lost on
white."""

REGION_ALPHA = 30  # the tint of a class's region


def _regular(corners: int, radius: float, turn: float = 0.0, inner: float = 0.0) -> QPainterPath:
    """A regular polygon of `corners` corners (a star when `inner` > 0), centred on 0."""
    points = []
    steps = corners * (2 if inner else 1)
    for i in range(steps):
        angle = math.pi * 2 * i / steps + turn - math.pi / 2
        r = inner if inner and i % 2 else radius
        points.append(QPointF(r * math.cos(angle), r * math.sin(angle)))
    path = QPainterPath()
    path.addPolygon(QPolygonF(points))
    path.closeSubpath()
    return path


def class_symbols(count: int) -> tuple[QPainterPath, ...]:
    """One glyph per class, shapes apart so classes read in greyscale: two classes keep the
    +1 and −1 glyphs (in label order −1, +1); K classes get a disc, square, triangle,
    diamond, inverted triangle, hexagon, star, pentagon and cross."""
    if count == 2:
        return (negative_symbol(), positive_symbol())
    shapes = (
        disc(),
        square(),
        _regular(3, 0.58),
        _regular(4, 0.58),
        _regular(3, 0.58, math.pi),
        _regular(6, 0.52),
        _regular(5, 0.6, 0.0, 0.27),
        _regular(5, 0.52),
        _cross_path(),
    )
    return shapes[:count]


def _cross_path() -> QPainterPath:
    path = QPainterPath()
    path.addPolygon(_cross(0.5, 0.16))
    path.closeSubpath()
    return path


def class_colours(count: int) -> tuple[QColor, ...]:
    """The classes' colours in label order: −1 vermillion, +1 blue for two classes."""
    return (NEGATIVE, POSITIVE) if count == 2 else CLASS_COLOURS[:count]


def region_colour(colour: QColor) -> QColor:
    """A class's colour as its region's tint."""
    return QColor(colour.red(), colour.green(), colour.blue(), REGION_ALPHA)


def pen(
    color: QColor,
    width: float,
    dash: Qt.PenStyle = Qt.PenStyle.SolidLine,
    pattern: tuple[float, ...] | None = None,
) -> QPen:
    """A cosmetic pen (its width in pixels, whatever the zoom) with flat caps."""
    result = QPen(QColor(color), width)
    result.setStyle(dash)
    if pattern is not None:
        result.setDashPattern(list(pattern))
    result.setCosmetic(True)
    result.setCapStyle(Qt.PenCapStyle.FlatCap)
    return result


def painting_application() -> QApplication:
    """The running QApplication, or a new one, set up as the window's (`set_up_look`): what
    an export paints with, so that its pixels do not depend on where it is made."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication([sys.argv[0]])
    set_up_look(app)
    return app


def set_up_look(app: QApplication) -> None:
    """What the app looks like everywhere, the window and its exports alike: antialiased
    drawing and type of at least 10.5 pt (the tests and the tools set it up so too)."""
    import pyqtgraph as pg

    pg.setConfigOptions(antialias=True)
    font = app.font()
    font.setPointSizeF(max(font.pointSizeF(), 10.5))
    app.setFont(font)
