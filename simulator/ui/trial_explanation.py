"""`TrialExplanation`: the arithmetic of the latest trial, in a strip under the plot.

Its text is the Qt-free `explain(frame)` that export writes too.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QWidget

from simulator.presentation.explain import explain, first_explanation
from simulator.presentation.frame import Frame
from simulator.ui import style

__all__ = ["TrialExplanation"]


class TrialExplanation(QLabel):
    """The arithmetic of the latest trial, under the plot where the class looks.

    Its height is the most its texts have needed since the data, the settings or the
    type size last changed (at least four lines, three in presentation mode, where it spans
    the window), so the plot above does not bob up and down from trial to trial, and no
    line is ever cut off.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="explanationValue")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setStyleSheet(
            "QLabel { background: #FFFFFF; border-top: 1px solid #CCCCCC; padding: 6px 10px; }"
        )
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._needed = self._longest = 0
        self._key: tuple[object, ...] | None = None
        self._first = ""  # the first trial's text, while the run is at trial 0
        self._floor_lines = 4
        self.set_presentation(False)

    def set_presentation(self, on: bool) -> None:
        font = QFont()
        if on:
            font.setPixelSize(style.PRESENTATION_LABEL_PX)
        elif font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 1.25)
        self.setFont(font)
        self._floor_lines = 3 if on else 4
        self._needed = self._longest = 0
        self._fit()

    def show_frame(self, frame: Frame) -> None:
        key = (frame.dataset, frame.settings)
        if key != self._key:
            self._key = key
            self._needed = self._longest = 0
            first = first_explanation(frame)
            self._first = first.html() if first is not None else ""
        self.setText(explain(frame).html())
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._needed = self._longest = 0  # a new width: measured afresh
            self._fit()

    def _fit(self) -> None:
        if not self.isVisible():
            return  # its width is not known yet
        # Measuring wrapped rich text costs about as much as a frame of the plot: measure
        # only a text longer than any measured since the last reset (a shorter one fits).
        size = max(len(self.text()), len(self._first))
        if self._needed and size <= self._longest:
            return
        self._longest = max(self._longest, size)
        lines = self._floor_lines * self.fontMetrics().lineSpacing() + 14
        self.setMinimumHeight(0)  # heightForWidth answers at least the minimum: measure free
        need = max(lines, self.heightForWidth(self.width()), self._first_height())
        self._needed = max(self._needed, need)
        self.setMinimumHeight(self._needed)

    def _first_height(self) -> int:
        """The height the first trial's text will need (the room is kept for it from
        trial 0 on, so the first Step does not shrink the plot and reflow its legend)."""
        if not self._first:
            return 0
        shown = self.text()
        self.setText(self._first)
        height = self.heightForWidth(self.width())
        self.setText(shown)
        return height

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit()
