"""The timeline under the plot: a slider over the recorded trials with the mistakes marked.

It paints frames and emits intent: moving the slider asks to seek (`seek_requested`), the
back button asks to step back one trial (`step_back_requested`); the controller seeks and
pauses. While the slider is dragged, seeks are throttled: at most one per `SEEK_INTERVAL_MS`,
and the position the slider is left at always wins. PageUp/PageDown move one epoch.

The ticks are binned per pixel column (a binary search per column, not a loop over the
mistakes), so a history of 10⁶ trials costs no more to paint than one of 100. Mistakes up to
the current trial are black; those of the recorded future (after a rewind) grey.

Dense ticks are merged (`tick_shades`): where mistakes crowd closer than the eye can tell
apart, a column is shaded by the share of its trials that were mistakes, so 1,518 mistakes
spread over 105,150 trials (iris) read as a light band at a 1.4 % error rate, and a burst of
mistakes early in a run as a dark patch, instead of one solid black bar. A mistake with room
around it keeps its black tick: a single late mistake is never lost.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from PySide6.QtCore import (
    QObject,
    QRect,
    QRectF,
    QSignalBlocker,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QWidget,
)

from simulator.presentation.frame import Frame
from simulator.ui import style

__all__ = ["SEEK_INTERVAL_MS", "SeekThrottle", "Timeline", "TimelineSlider", "tick_counts"]

SEEK_INTERVAL_MS = 30
_PAST = 0xFF000000  # ARGB: black
_FUTURE = 0xFFA8A8A8  # grey
_TRACK = QColor("#D6D6D6")
_PLAYED = QColor("#7A9CC6")  # the trials up to the current one


DENSE_PX = 2  # a column with more than DENSE_MISTAKES within ±DENSE_PX is in a crowd
DENSE_MISTAKES = 2
_LIGHTEST = 0.25  # the shade of a crowd's column with few mistakes (1 is the tick's own)
_DARK_RATE = 0.25  # ...and of one where a quarter or more of the trials were mistakes


def tick_shades(counts: NDArray[np.int64], trials_per_column: float) -> NDArray[np.float64]:
    """How dark each column's tick is, 0 (none) to 1 (black): 1 for a mistake with room
    around it; in a crowd of ticks, the share of the column's trials that were mistakes
    (a quarter or more: black), never lighter than `_LIGHTEST`."""
    counts = np.asarray(counts, dtype=np.int64)
    shades = np.zeros(len(counts))
    if not len(counts):
        return shades
    window = np.convolve(counts, np.ones(2 * DENSE_PX + 1, dtype=np.int64), mode="same")
    crowded = window > DENSE_MISTAKES
    rate = counts / max(1.0, trials_per_column)
    dense = _LIGHTEST + (1 - _LIGHTEST) * np.minimum(1.0, rate / _DARK_RATE)
    shades[counts > 0] = 1.0
    merged = crowded & (counts > 0)
    shades[merged] = dense[merged]
    return shades


def tick_counts(
    mistakes: NDArray[np.int64], first: int, last: int, columns: int
) -> NDArray[np.int64]:
    """How many mistakes fall in each of `columns` pixel columns spanning trials first…last.

    Column p holds the trials whose slider position rounds to p.
    """
    if columns <= 0:
        return np.zeros(0, dtype=np.int64)
    if last <= first:
        counts = np.zeros(columns, dtype=np.int64)
        counts[0] = int(np.count_nonzero(mistakes == first))
        return counts
    per_column = (last - first) / max(1, columns - 1)
    edges = first + (np.arange(columns + 1) - 0.5) * per_column
    positions = np.searchsorted(mistakes, edges, side="left")
    return np.diff(positions).astype(np.int64)


class SeekThrottle(QObject):
    """Coalesces a burst of requests: at most one per interval; the last value always wins.

    `timer` only wakes the throttle; whether a request is due is read from `clock`
    (seconds), so a test drives time with its own clock and `timer.timeout.emit()`."""

    fired = Signal(int)

    def __init__(
        self,
        interval_ms: int = SEEK_INTERVAL_MS,
        parent: QObject | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.clock = clock
        self._pending: int | None = None
        self._fired_at: float | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._on_timeout)

    @property
    def pending(self) -> int | None:
        return self._pending

    def wait_ms(self) -> int:
        """How long the next request must wait for its turn (0: it may fire now)."""
        if self._fired_at is None:
            return 0
        left = self.interval_ms / 1000 - (self.clock() - self._fired_at)
        return max(0, math.ceil(left * 1000))

    def request(self, value: int) -> None:
        self._pending = value
        if not self.timer.isActive():
            self.timer.start(self.wait_ms())

    def flush(self) -> None:
        """Fire the pending request now (e.g. when the slider is released)."""
        self.timer.stop()
        self._fire()

    def _on_timeout(self) -> None:
        self.timer.stop()  # as after a real timeout, also when a test emits it
        wait = self.wait_ms()
        if wait and self._pending is not None:
            self.timer.start(wait)  # woken early (a coarse timer, or a test's own clock)
        else:
            self._fire()

    def _fire(self) -> None:
        value, self._pending = self._pending, None
        if value is not None:
            self._fired_at = self.clock()
            self.fired.emit(value)


class TimelineSlider(QSlider):
    """A horizontal slider over trials 0…L that paints the recorded mistakes on its groove."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("timelineSlider")
        self.setRange(0, 0)
        self.setSingleStep(1)
        self.setMinimumHeight(30)
        self.setToolTip(
            "The trials so far: drag to go back to any of them (← → one trial, "
            "PageUp/PageDown one epoch). Ticks mark the mistakes."
        )
        self._mistakes = np.zeros(0, dtype=np.int64)
        self._image: QImage | None = None
        self._image_key: tuple[int, ...] | None = None
        self._row = np.zeros(0, dtype=np.uint32)

    def set_mistakes(self, mistakes: NDArray[np.int64]) -> None:
        if mistakes is not self._mistakes:
            self._mistakes = mistakes
            self.update()

    def _rects(self) -> tuple[QRect, QRect]:
        """The style's groove and handle rectangles (where the mouse grabs them)."""
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        style = self.style()
        control = QStyle.ComplexControl.CC_Slider
        groove = style.subControlRect(control, option, QStyle.SubControl.SC_SliderGroove, self)
        handle = style.subControlRect(control, option, QStyle.SubControl.SC_SliderHandle, self)
        return groove, handle

    def groove_span(self) -> tuple[float, int]:
        """(x of value `minimum`, pixels from minimum to maximum): where values are drawn."""
        groove, handle = self._rects()
        return groove.x() + handle.width() / 2, max(1, groove.width() - handle.width())

    def x_of(self, trial: int) -> float:
        """The x of `trial` on the groove (widget coordinates)."""
        left, span = self.groove_span()
        low, high = self.minimum(), self.maximum()
        return left + (0.0 if high <= low else (trial - low) / (high - low) * span)

    def tick_columns(self) -> NDArray[np.int64]:
        """Mistakes per pixel column of the groove, as painted."""
        _, span = self.groove_span()
        return tick_counts(self._mistakes, self.minimum(), self.maximum(), span + 1)

    def trials_per_column(self) -> float:
        _, span = self.groove_span()
        return (self.maximum() - self.minimum()) / max(1, span)

    def tick_shades(self) -> NDArray[np.float64]:
        """Each column's darkness as painted (see `tick_shades`)."""
        return tick_shades(self.tick_columns(), self.trials_per_column())

    def _ticks(self, span: int) -> QImage:
        key = (id(self._mistakes), len(self._mistakes), self.maximum(), self.value(), span)
        if self._image is None or key != self._image_key:
            counts = self.tick_columns()
            current = int(np.searchsorted(self._mistakes, self.value(), side="right"))
            past = tick_counts(self._mistakes[:current], self.minimum(), self.maximum(), span + 1)
            shades = tick_shades(counts, self.trials_per_column())
            alpha = (np.round(255 * shades).astype(np.uint32)) << 24
            colour = np.where(past > 0, _PAST & 0xFFFFFF, _FUTURE & 0xFFFFFF).astype(np.uint32)
            row = np.where(counts > 0, alpha | colour, 0).astype(np.uint32)
            self._row = np.ascontiguousarray(row)  # the image reads this memory
            self._image = QImage(
                self._row.data, span + 1, 1, (span + 1) * 4, QImage.Format.Format_ARGB32
            )
            self._image_key = key
        return self._image

    def paintEvent(self, event: QPaintEvent) -> None:
        """Drawn here rather than by the style (twice as fast, every frame of a run): the
        groove, darker up to the current trial, the ticks, and the handle where the style
        puts it, so that the mouse grabs what it sees."""
        groove, handle = self._rects()
        painter = QPainter(self)
        palette = self.palette()
        left, span = groove.x() + handle.width() / 2, max(1, groove.width() - handle.width())
        middle = groove.center().y() + 0.5
        track = QRectF(left, middle - 2.5, span, 5)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_TRACK)
        painter.drawRect(track)
        painter.setBrush(_PLAYED)
        painter.drawRect(QRectF(left, middle - 2.5, handle.center().x() - left, 5))
        if len(self._mistakes):
            height = self.height() * 0.7
            target = QRectF(left - 0.5, (self.height() - height) / 2, span + 1, height)
            painter.drawImage(target, self._ticks(span))
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Dark), 1.0))
        painter.setBrush(
            palette.color(
                QPalette.ColorRole.Highlight if self.isSliderDown() else QPalette.ColorRole.Button
            )
        )
        painter.drawRect(QRectF(handle).adjusted(0.5, 0.5, -0.5, -0.5))
        if self.hasFocus():
            painter.setPen(QPen(palette.color(QPalette.ColorRole.Highlight), 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(handle).adjusted(-1, -1, 1, 1))
        painter.end()


class Timeline(QWidget):
    """Step back, the timeline slider, and where the run stands (trial t of L)."""

    seek_requested = Signal(int)
    step_back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timeline")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        self.back_button = QPushButton("◀ Back", objectName="stepBackButton")
        self.back_button.setToolTip("Back one trial (Backspace); stepping on replaces the future")
        self.back_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.slider = TimelineSlider(self)
        self.position = QLabel(objectName="timelineValue")
        self.position.setMinimumWidth(self.fontMetrics().horizontalAdvance("t = 0000000"))
        self.position.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # Never clipped: the slider gives way first.
        self.position.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Preferred)
        self.charts_button = QToolButton(objectName="chartsButton")
        self.charts_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.charts_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        layout.addWidget(self.back_button)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.position)
        layout.addWidget(self.charts_button)
        self.throttle = SeekThrottle(parent=self)
        self.throttle.fired.connect(self.seek_requested)
        self.back_button.clicked.connect(self.step_back_requested)
        self.slider.valueChanged.connect(self.throttle.request)
        self.slider.sliderReleased.connect(self.throttle.flush)
        self._trials = 0

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type for the position (style.PRESENTATION_*)."""
        font = QFont(self.font())
        if on:
            font.setPixelSize(style.PRESENTATION_LABEL_PX)
        self.position.setFont(font)  # the buttons keep their size: 1024 pixels must do
        metrics = self.position.fontMetrics()
        self.position.setMinimumWidth(metrics.horizontalAdvance("t = 0000000"))
        self.slider.setMinimumHeight(44 if on else 30)

    def show_frame(self, frame: Frame) -> None:
        trace = frame.trace
        slider = self.slider
        with QSignalBlocker(slider):
            slider.setMaximum(trace.length)
            slider.setPageStep(max(1, len(frame.dataset)))
            if not slider.isSliderDown() and self.throttle.pending is None:
                slider.setValue(trace.trials)
        slider.set_mistakes(trace.mistake_trials)
        self._trials = trace.trials
        self.back_button.setEnabled(trace.trials > 0)
        ahead = f" of {trace.length}" if trace.length != trace.trials else ""
        text = f"t = {trace.trials}{ahead}"
        need = self.position.fontMetrics().horizontalAdvance(text) + 6
        if need > self.position.minimumWidth():  # grows now and then, never shrinks: no jumps
            self.position.setMinimumWidth(need)
        self.position.setText(text)
        self.position.setToolTip(
            f"{trace.mistakes} mistakes by trial {trace.trials}; "
            f"{len(trace.mistake_trials)} in the {trace.length} trials recorded"
        )
