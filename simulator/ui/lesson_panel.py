"""`LessonPanel`: a lesson's step under the plot — title, "step n of m", the text in lecture
type, the question's buttons, the verdict and the score, Back and Next.

It paints `StepView`s and emits intent (next, back, leave, an answer); the window's lesson
mode (`simulator.app.lesson_mode`) plays the lesson and judges the answers. Its buttons take
no keyboard focus, so Space still steps the learner and the clicker keys reach the window.
Its height is the most any step of the lesson needs at its width (`reserve`), so the plot
above does not jump from step to step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from simulator.engine.lessons import CHOICE_LETTERS, MAX_CHOICES
from simulator.ui import style

__all__ = ["LETTERS", "MAX_CHOICES", "LessonPanel", "StepView", "step_text"]

LETTERS = CHOICE_LETTERS
SPACING = 4
MIN_LAID_OUT = 320  # narrower than this, the panel is not laid out yet: measure its pane
MAX_SHARE = 0.5  # of the window's height at most (a longer text is cut, not the plot)


def step_text(text: str, choices: Sequence[str] = ()) -> str:
    """A step's text as the panel writes it: its lines joined, then the choices, a
    line each, lettered as their buttons."""
    body = " ".join(text.split())
    lines = [f"{LETTERS[i]}   {c}" for i, c in enumerate(choices[:MAX_CHOICES])]
    return "\n".join([body, *lines])


@dataclass(frozen=True, slots=True)
class StepView:
    """What the panel shows of a step. `kind`: None, "mistake", "boundary" or "choice";
    `answered`: the verdict and the answer's words once revealed ("" before)."""

    title: str
    number: int
    total: int
    text: str
    kind: str | None = None
    choices: tuple[str, ...] = ()
    answered: str = ""
    score: str = ""
    waiting_for_clicks: int = 0  # boundary: clicks still to come (2, 1, 0)


class LessonPanel(QWidget):
    """The lesson's step, its question and the way on (see the module docstring)."""

    next_requested = Signal()
    back_requested = Signal()
    leave_requested = Signal()
    mistake_answered = Signal(bool)
    choice_answered = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="lessonPanel")
        self.setAutoFillBackground(True)
        self.setStyleSheet(
            "#lessonPanel { background: #FBFBF8; border-top: 2px solid #BBBBBB; }"
            "#lessonAnswer { color: #444444; }"
        )
        self.title = QLabel(objectName="lessonTitle")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._title_text = ""
        self.progress = QLabel(objectName="lessonProgress")
        self.score = QLabel(objectName="lessonScore")
        self.leave = self._button("✕", "lessonLeaveButton")
        self.leave.setToolTip("Leave the lesson: free play with its data (Lessons → Leave lesson)")
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.leave)
        self.text = self._wrapped("lessonText")
        self.answer = self._wrapped("lessonAnswer")
        self.yes = self._button("Yes", "lessonYesButton")
        self.no = self._button("No", "lessonNoButton")
        self.yes.setToolTip("Yes: the next trial will be a mistake")
        self.no.setToolTip("No: the next trial will be classified right")
        self.yes.clicked.connect(lambda: self.mistake_answered.emit(True))
        self.no.clicked.connect(lambda: self.mistake_answered.emit(False))
        self.choices = [self._button("", f"lessonChoice_{i}") for i in range(MAX_CHOICES)]
        for i, button in enumerate(self.choices):
            button.clicked.connect(lambda _=False, i=i: self.choice_answered.emit(i))
        self.back = self._button("◀ Previous", "lessonBackButton")
        self.next = self._button("Next ▶", "lessonNextButton")
        self.back.setToolTip("The previous step (PageUp, Left)")
        self.next.setToolTip("The next step, or the answer first (PageDown, Right)")
        self.back.clicked.connect(self.back_requested)
        self.next.clicked.connect(self.next_requested)
        self.leave.clicked.connect(self.leave_requested)
        way = QHBoxLayout()
        for button in (self.yes, self.no, *self.choices):
            button.hide()  # until a step asks (hidden, they claim no width)
            way.addWidget(button)
        way.addStretch(1)
        way.addWidget(self.score)
        way.addSpacing(8)
        way.addWidget(self.progress)
        way.addSpacing(8)
        way.addWidget(self.back)
        way.addWidget(self.next)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 6)
        layout.setSpacing(SPACING)
        layout.addLayout(head)
        layout.addWidget(self.text)
        layout.addWidget(self.answer)
        layout.addStretch(1)
        layout.addLayout(way)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._view: StepView | None = None
        self._texts: tuple[str, ...] = ()
        self._answers: tuple[str, ...] = ()
        self._presentation = False
        self.set_presentation(False)

    def _wrapped(self, name: str) -> QLabel:
        label = QLabel(objectName=name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        return label

    @staticmethod
    def _button(text: str, name: str) -> QPushButton:
        button = QPushButton(text, objectName=name)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Space steps; clicker keys reach the window
        return button

    # -- type ----------------------------------------------------------------------------------

    def set_presentation(self, on: bool) -> None:
        """Lecture type: the text `style.PRESENTATION_LABEL_PX`, as the side panel's labels."""
        self._presentation = bool(on)
        text = QFont()
        small = QFont()
        if on:
            text.setPixelSize(style.PRESENTATION_LABEL_PX)
            small.setPixelSize(style.PRESENTATION_NOTE_PX)
        elif text.pointSizeF() > 0:
            text.setPointSizeF(text.pointSizeF() * 1.3)
        bold = QFont(small if on else QFont())
        bold.setBold(True)
        self.title.setFont(bold)
        for widget in (self.progress, self.score, self.answer):
            widget.setFont(small)
        self.text.setFont(text)
        for button in (self.yes, self.no, *self.choices, self.back, self.next, self.leave):
            button.setFont(small)
        # Short buttons only as wide as their text: the row must fit a narrow column.
        metrics = QFontMetrics(small)
        for button in (*self.choices, self.leave):
            button.setFixedWidth(metrics.horizontalAdvance("W") + 28)
        for button in (self.yes, self.no):
            button.setFixedWidth(metrics.horizontalAdvance("Yes") + 32)
        self._fit()

    def reserve(self, texts: Sequence[str], answers: Sequence[str] = ()) -> None:
        """Hold the room the longest of `texts` (every step's text) and of `answers` (what
        a revealed answer says) need at the panel's width."""
        self._texts, self._answers = tuple(texts), tuple(answers)
        self._fit()

    def _fit(self) -> None:
        margins = self.layout().contentsMargins()
        width = self.width()
        parent = self.parentWidget()
        if parent is not None and (not self.isVisible() or width < MIN_LAID_OUT):
            width = parent.width()  # not laid out yet: the pane it will fill
        width = max(MIN_LAID_OUT, width) - margins.left() - margins.right()
        flags = int(Qt.TextFlag.TextWordWrap)
        room = QRect(0, 0, width, 100_000)

        def tallest(label: QLabel, texts: Sequence[str], lines: int) -> int:
            metrics = QFontMetrics(label.font())
            least = lines * metrics.lineSpacing()
            return max([least, *(metrics.boundingRect(room, flags, t).height() for t in texts)])

        text = tallest(self.text, self._texts, 2)
        answer = tallest(self.answer, self._answers, 1)
        head = max(QFontMetrics(self.title.font()).lineSpacing(), self.leave.sizeHint().height())
        buttons = self.next.sizeHint().height()
        spacing = 4 * SPACING + margins.top() + margins.bottom()
        height = head + text + answer + buttons + spacing + 4
        window = self.window()
        if window is not self and window.height() > 0:
            height = min(height, round(MAX_SHARE * window.height()))  # the plot keeps room
        self.setFixedHeight(height)
        self._elide_title()

    def _elide_title(self) -> None:
        metrics = QFontMetrics(self.title.font())
        self.title.setText(
            metrics.elidedText(self._title_text, Qt.TextElideMode.ElideRight, self.title.width())
        )
        self.title.setToolTip(self._title_text)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    # -- painting ------------------------------------------------------------------------------

    def show_step(self, view: StepView) -> None:
        self._view = view
        self._title_text = view.title
        self._elide_title()
        self.progress.setText(f"step {view.number} of {view.total}")
        self.score.setVisible(bool(view.score))
        self.score.setText(view.score)
        self.text.setText(step_text(view.text, view.choices))
        asking = not view.answered
        self.yes.setVisible(view.kind == "mistake" and asking)
        self.no.setVisible(view.kind == "mistake" and asking)
        for i, button in enumerate(self.choices):
            shown = view.kind == "choice" and i < len(view.choices)
            button.setVisible(shown)
            button.setText(LETTERS[i])
            button.setToolTip(view.choices[i] if shown else "")
            button.setEnabled(asking)
        if view.answered:
            self.answer.setText(view.answered)
        elif view.kind == "boundary":
            left = view.waiting_for_clicks
            self.answer.setText(
                f"Click {'two points' if left == 2 else 'one more point'} on the plot where "
                "the line will be after the next update (Next shows it without a guess)."
            )
        elif view.kind is not None:
            self.answer.setText("Answer, or Next to reveal without scoring.")
        else:
            self.answer.setText("")
        self.back.setEnabled(view.number > 1)
        self.next.setEnabled(view.number < view.total or bool(view.kind and asking))

    @property
    def view(self) -> StepView | None:
        return self._view
