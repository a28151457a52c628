"""The key numbers in a band across the window, for presentation mode: the plot takes the
whole width below it, and a lecture hall reads γ*, R, the bound, k, the trial and w at a
glance.

`NumbersBand` paints a `Frame` (as the side panel does, with the same formatter and the
learner's own names for its theory): a row of cells, each a small name over a large value,
then the status on a line of its own. Every cell keeps the room of the longest text it has
shown in this run, so values that change never move the others. w takes what is left of
the row: every entry where they fit, else an honest summary ("64 weights, from 1 to 8"),
every entry in its tooltip; Qt never elides a value.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from simulator.engine.numbers import bound_formula, format_bound, format_number
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


def weights_texts(weights: tuple[float, ...], rows: int) -> tuple[str, ...]:
    """What the band may show for w, longest first: every entry; then, for a vector too
    long for a projector's line, an honest summary (how many, the least and the largest,
    the non-zero count where some are zero); then the count alone. Never a cut vector."""
    texts = [_rows_text(weights, rows)]
    if not weights:
        return tuple(texts)
    finite = [v for v in weights if math.isfinite(v)]
    cols = len(weights) // max(rows, 1)
    count = f"{rows} × {cols} weights" if rows > 1 and cols else f"{len(weights)} weights"
    if finite:
        low, high = format_number(min(finite)), format_number(max(finite))
        spread = f"all {low}" if low == high else f"from {low} to {high}"
        zeros = sum(v == 0 for v in weights)
        nonzero = f", {len(weights) - zeros} non-zero" if 0 < zeros < len(weights) else ""
        texts.append(f"{count}{nonzero}, {spread}")
    texts.append(count)
    return tuple(texts)


class ChoiceLabel(QLabel):
    """A label that shows the longest of its texts that fits its width, chosen afresh
    whenever the width changes (so nothing is ever elided by Qt)."""

    def __init__(self, objectName: str = "") -> None:
        super().__init__(objectName=objectName)
        self.texts: tuple[str, ...] = ()

    def set_texts(self, texts: tuple[str, ...]) -> None:
        if texts[-1:] != self.texts[-1:]:
            self.texts = texts
            self.updateGeometry()
        self.texts = texts
        self.setToolTip(texts[0] if texts else "")
        self._choose()

    def minimumSizeHint(self) -> QSize:
        """Room for the shortest text at least (the count of weights)."""
        hint = super().minimumSizeHint()
        if not self.texts:
            return hint
        m = self.contentsMargins()
        need = self.fontMetrics().horizontalAdvance(self.texts[-1]) + m.left() + m.right() + 2
        return QSize(need, hint.height())

    def sizeHint(self) -> QSize:
        return QSize(self.minimumSizeHint().width(), super().sizeHint().height())

    def _choose(self) -> None:
        if not self.texts:
            return
        room = self.contentsRect().width()
        metrics = self.fontMetrics()
        fits = (t for t in self.texts if metrics.horizontalAdvance(t) <= room)
        text = next(fits, self.texts[-1])
        if text != self.text():
            self.setText(text)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._choose()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._choose()


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
            value = (ChoiceLabel if key == "weights" else QLabel)(objectName=f"band_{key}Value")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(name, 0, column)
            grid.addWidget(value, 1, column)
            self.names[key], self.values[key] = name, value
        grid.setColumnStretch(len(_CELLS) - 1, 1)  # w takes what is left
        # Its room is what the row leaves, at least its shortest text (see `ChoiceLabel`).
        self.values["weights"].setSizePolicy(
            QSizePolicy.Policy.MinimumExpanding, QSizePolicy.Policy.Fixed
        )
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
        """Paint `frame`'s numbers and status."""
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
            "weights": (frame.weights_name, weights_texts(s.weights, s.rows)),
        }
        key = (frame.dataset, frame.settings)
        if key != self._room_key:  # a new run: cells start from their own size again
            self._room_key, self._room = key, {}
        for cell, (name, value) in texts.items():
            self.names[cell].setText(name)
            self._set_value(cell, value)
        self.status.setText(frame.status)
        alarming = s.diverged or (not r.separable and r.decided and len(frame.dataset) > 0)
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

    def _set_value(self, cell: str, text: str | tuple[str, ...]) -> None:
        """The value; w as the longest of its texts that fits its cell (every entry in the
        tooltip); a cell never shrinks within a run, so the cells right of it stay put."""
        label = self.values[cell]
        if isinstance(text, tuple):
            assert isinstance(label, ChoiceLabel)
            label.set_texts(text)
            return
        else:
            need = label.fontMetrics().horizontalAdvance(text) + 4
            room = max(need, self._room.get(cell, 0), self.names[cell].sizeHint().width())
            if room != self._room.get(cell):
                self._room[cell] = room
                label.setMinimumWidth(room)
        label.setText(text)
