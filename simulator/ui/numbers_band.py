"""The key numbers in a band across the window, for presentation mode: the plot takes the
whole width below it, and a lecture hall reads γ*, R, the bound, k, the trial and w at a
glance.

`NumbersBand` paints a `Frame` (as the side panel does, with the same formatter and the
learner's own names for its theory): a row of cells, each a small name over a large value,
then the status on a line of its own. Every cell keeps the room of the longest text it has
shown in this run, so values that change never move the others.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from simulator.presentation.format import bound_formula, format_bound, format_number
from simulator.presentation.frame import Frame, format_vector
from simulator.ui import style
from simulator.ui.value_label import label_font, value_font

__all__ = ["NumbersBand"]

# The cells: objectName suffix, and how the name reads (a function of the frame).
_CELLS = ("gamma", "radius", "bound", "mistakes", "trial", "epoch", "weights")


def _rows_text(weights: tuple[float, ...], rows: int) -> str:
    """w, or the rows of W with "|" between them."""
    width = len(weights) // max(rows, 1)
    if rows <= 1 or not width:
        return format_vector(weights)
    return " | ".join(format_vector(weights[k * width : (k + 1) * width]) for k in range(rows))


class NumbersBand(QWidget):
    """γ*, R, the bound, k (of at most B), trial, epoch and w, then the status."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("numbersBand")
        grid = QGridLayout(self)
        grid.setContentsMargins(8, 2, 8, 2)
        grid.setHorizontalSpacing(22)
        grid.setVerticalSpacing(0)
        self.names: dict[str, QLabel] = {}
        self.values: dict[str, QLabel] = {}
        for column, key in enumerate(_CELLS):
            name = QLabel(objectName=f"band_{key}Name")
            value = QLabel(objectName=f"band_{key}Value")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(name, 0, column)
            grid.addWidget(value, 1, column)
            self.names[key], self.values[key] = name, value
        grid.setColumnStretch(len(_CELLS) - 1, 1)  # w takes what is left
        self.values["weights"].setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.status = QLabel(objectName="band_status")
        self.status.setWordWrap(True)
        grid.addWidget(self.status, 2, 0, 1, len(_CELLS))
        self._room: dict[str, int] = {}
        self._room_key: object = None
        name_font = label_font(True)
        name_font.setPixelSize(style.PRESENTATION_NOTE_PX - 2)
        for label in self.names.values():
            label.setFont(name_font)
            label.setStyleSheet("color: #555555;")
        for label in self.values.values():
            label.setFont(value_font(True))
        self.status.setFont(label_font(True))

    def show_frame(self, frame: Frame) -> None:
        s, r = frame.snapshot, frame.report
        gamma, radius = frame.learner.symbols
        general = frame.bound_is_general
        bound = frame.mistake_bound if general else r.bound
        texts = {
            "gamma": (gamma, format_number(r.gamma)),
            "radius": (radius, format_number(r.radius)),
            "bound": (
                "bound from w₀" if general else bound_formula(frame),
                format_bound(bound, r.separable),
            ),
            "mistakes": ("mistakes k", self._mistakes_text(frame)),
            "trial": ("trial", str(s.trials)),
            "epoch": ("epoch", str(s.epoch)),
            "weights": ("W" if s.rows > 1 else "w", _rows_text(s.weights, s.rows)),
        }
        key = (frame.dataset, frame.settings)
        if key != self._room_key:  # a new run: cells start from their own size again
            self._room_key, self._room = key, {}
        for cell, (name, value) in texts.items():
            self.names[cell].setText(name)
            self._set_value(cell, value)
        self.status.setText(frame.status)
        alarming = s.diverged or (not r.separable and len(frame.dataset) > 0)
        colour = "#B03000" if alarming else "#1A5E20" if s.converged else "#222222"
        sheet = f"color: {colour};"
        if sheet != self.status.styleSheet():
            self.status.setStyleSheet(sheet)

    @staticmethod
    def _mistakes_text(frame: Frame) -> str:
        k = frame.snapshot.mistakes
        bound = frame.mistake_bound
        if bound is None or not len(frame.dataset) or not math.isfinite(bound):
            return str(k)
        return f"{k} of ≤ {format_bound(bound, True)}"

    def _set_value(self, cell: str, text: str) -> None:
        """The value, elided to its cell for w (its tooltip whole); a cell never shrinks
        within a run, so the cells right of it stay put."""
        label = self.values[cell]
        if cell == "weights":
            label.setToolTip(text)
            width = max(40, label.width())
            text = label.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, width)
        else:
            need = label.fontMetrics().horizontalAdvance(text) + 4
            room = max(need, self._room.get(cell, 0), self.names[cell].sizeHint().width())
            if room != self._room.get(cell):
                self._room[cell] = room
                label.setMinimumWidth(room)
        label.setText(text)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        tip = self.values["weights"].toolTip()
        if tip:
            self._set_value("weights", tip)
