"""`ValueLabel`, a number that keeps the room of its longest text, and the panels' type.

Every value keeps the room of its longest possible text, so a panel neither jumps as
numbers change nor cuts one off. Numbers are plain text a test can parse.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QLabel

from simulator.ui import style

__all__ = ["WIDEST_COUNT", "WIDEST_NUMBER", "ValueLabel", "label_font", "value_font"]

WIDEST_NUMBER = "−8.888e−308"  # the longest text format_number writes
WIDEST_COUNT = "8888888888"  # trials and mistakes: up to ten digits


def label_font(presentation: bool) -> QFont:
    """The font of the panel's labels: the application's, or lecture-hall size."""
    font = QFont()
    if presentation:
        font.setPixelSize(style.PRESENTATION_LABEL_PX)
    return font


def value_font(presentation: bool) -> QFont:
    """The font of the panel's numbers: bold, a little larger than the labels."""
    font = QFont()
    if presentation:
        font.setPixelSize(style.PRESENTATION_VALUE_PX)
    elif font.pointSizeF() > 0:
        font.setPointSizeF(font.pointSizeF() * 1.15)
    else:
        font.setPixelSize(round(font.pixelSize() * 1.15))
    font.setBold(True)
    return font


class ValueLabel(QLabel):
    """A value of the panel that keeps the room of its longest text, `reserve`.

    Unwrapped, it is never narrower than `reserve`; wrapped (word by word), never shorter
    than `reserve` needs at its width. So the panel does not jump as numbers change, and
    no number is cut off.
    """

    def __init__(self, name: str, tip: str, reserve: str = WIDEST_NUMBER, wrap: bool = False):
        super().__init__("—", objectName=name)
        self._reserve = reserve
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(wrap)
        if wrap:
            self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setFont(value_font(False))
        self.setToolTip(tip)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    @property
    def reserve(self) -> str:
        return self._reserve

    def set_reserve(self, reserve: str) -> None:
        if reserve != self._reserve:
            self._reserve = reserve
            self.updateGeometry()
            self._hold_height()

    def _margins(self) -> tuple[int, int]:
        m = self.contentsMargins()
        return m.left() + m.right() + 2 * max(0, self.indent()), m.top() + m.bottom()

    def _reserved_width(self) -> int:
        metrics = QFontMetrics(self.font())
        words = self._reserve.split() if self.wordWrap() else [self._reserve]
        widest = max((metrics.horizontalAdvance(w) for w in words), default=0)
        return widest + self._margins()[0] + 2

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self._reserved_width()), hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        width = max(hint.width(), self._reserved_width())
        if self.wordWrap():
            return QSize(width, max(hint.height(), self.heightForWidth(width)))
        return QSize(width, hint.height())

    def setText(self, text: str) -> None:
        super().setText(text)
        self._hold_height()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._hold_height()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._hold_height()

    def _hold_height(self) -> None:
        """A wrapped value asks for the height its width needs as a minimum: layouts do not
        all honour height-for-width (QFormLayout can misjudge a field's width)."""
        if self.wordWrap() and self.width() > 0:
            need = self.heightForWidth(self.width())
            if need != self.minimumHeight():
                self.setMinimumHeight(need)

    def heightForWidth(self, width: int) -> int:
        if not self.wordWrap():
            return super().heightForWidth(width)
        # Measured as QLabel draws plain wrapped text (its own measure can be stale after
        # a font change, and then asks for a line too many).
        across, down = self._margins()
        metrics = QFontMetrics(self.font())
        room = QRect(0, 0, max(1, width - across), 1_000_000)
        flags = int(Qt.TextFlag.TextWordWrap)
        return down + max(
            metrics.boundingRect(room, flags, self.text()).height(),
            metrics.boundingRect(room, flags, self._reserve).height(),
        )
