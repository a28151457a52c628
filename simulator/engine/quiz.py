"""The quiz of a lesson: is an answer right, and the session's score. No Qt: the window's
lesson panel asks it, and tests check it without a window.

A question is answered once: the first answer to a step counts (going back to the step and
answering again shows the verdict again but does not change the score). Revealing an
answer without giving one (a presentation clicker has only Next) counts as not asked.

- "mistake?": right when the class said what the engine did.
- multiple choice: right when the class picked the engine's choice.
- "boundary": the class clicks two points where the line will go; the verdict is the
  angle between that line and the true one after the next update, right within
  `BOUNDARY_TOLERANCE` degrees (the direction is what the update turns; where the line
  crosses depends on the bias, which the angle leaves to the picture).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from simulator.engine.features import InputLine
from simulator.engine.lessons import CHOICE_LETTERS, StepState

__all__ = [
    "BOUNDARY_TOLERANCE",
    "Quiz",
    "Verdict",
    "answer_text",
    "judge",
    "line_angle",
    "line_through",
]

BOUNDARY_TOLERANCE = 15.0
"""Degrees: a guessed line within this angle of the true one counts as right."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """An answer judged: `right`, what to say, and for a boundary the angle in degrees."""

    right: bool
    text: str
    angle: float | None = None


def line_through(p: Sequence[float], q: Sequence[float]) -> InputLine | None:
    """The line through points p and q of the plane as {x : offset + normal·x = 0}; None
    when they are the same point."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    if dx == 0 and dy == 0:
        return None
    normal = (-dy, dx)
    return InputLine(-(normal[0] * p[0] + normal[1] * p[1]), normal)


def line_angle(a: InputLine, b: InputLine) -> float:
    """The angle between two lines of the plane, in degrees, 0 … 90."""
    (a1, a2), (b1, b2) = a.normal[:2], b.normal[:2]
    cross = a1 * b2 - a2 * b1
    dot = a1 * b1 + a2 * b2
    angle = math.degrees(math.atan2(abs(cross), dot))
    return min(angle, 180.0 - angle)


def judge(state: StepState, response: object) -> Verdict:
    """The verdict on `response` to the question of `state`: a bool for "mistake?", a
    choice's index, or the two clicked points (p, q) for "boundary"."""
    question = state.question
    if question is None:
        raise ValueError(f"step {state.number} asks nothing")
    if question.kind == "mistake":
        if not isinstance(response, bool):
            raise TypeError("a mistake question takes True (a mistake) or False")
        right = response == state.answer
        said = "a mistake" if response else "no mistake"
        return Verdict(right, f"{'Right' if right else 'Not quite'}: you said {said}.")
    if question.kind == "choice":
        if isinstance(response, bool) or not isinstance(response, int):
            raise TypeError("a choice question takes the index of a choice")
        if not 0 <= response < len(state.choices):
            raise ValueError(f"choice {response} of {len(state.choices)}")
        right = response == state.answer
        said = f"{CHOICE_LETTERS[response]}, {state.choices[response]}"
        return Verdict(right, f"{'Right' if right else 'Not quite'}: you said {said}.")
    if not isinstance(response, tuple | list) or len(response) != 2:
        raise TypeError("a boundary question takes two points (p, q) on the guessed line")
    guess = line_through(response[0], response[1])
    if guess is None:
        raise ValueError("the two points of a line must differ")
    assert isinstance(state.answer, InputLine)
    angle = line_angle(guess, state.answer)
    right = angle <= BOUNDARY_TOLERANCE
    return Verdict(
        right,
        f"{'Close' if right else 'Not quite'}: your line is {angle:.0f}° from the true one.",
        angle,
    )


def answer_text(state: StepState, verdict: str = "") -> str:
    """What a revealed answer says: the verdict on the class's answer, or "Answer:" and
    the engine's answer when none was given; then the step's own reveal text (or, without
    one, the engine's words on the trial)."""
    if state.question is None:
        return ""
    reveal = " ".join(state.reveal.split())
    if verdict:
        return f"{verdict} {reveal or state.answer_text}"
    if not reveal:
        return f"Answer: {state.answer_text}"
    short = {"mistake": "a mistake." if state.answer else "no mistake, right."}.get(
        state.question.kind, state.answer_text + "."
    )
    return f"Answer: {short} {reveal}"


class Quiz:
    """The answers of one lesson session and its score (see the module docstring)."""

    def __init__(self) -> None:
        self._verdicts: dict[int, Verdict] = {}
        self._revealed: set[int] = set()

    def answer(self, state: StepState, response: object) -> Verdict:
        """Judge `response` to the step's question; the first answer to a step counts."""
        verdict = judge(state, response)
        self._verdicts.setdefault(state.number, verdict)
        self._revealed.add(state.number)
        return verdict

    def reveal(self, state: StepState) -> None:
        """The answer shown without one given (not scored)."""
        self._revealed.add(state.number)

    def verdict(self, number: int) -> Verdict | None:
        """The counted verdict of step `number`, if it was answered."""
        return self._verdicts.get(number)

    def revealed(self, number: int) -> bool:
        return number in self._revealed

    @property
    def right(self) -> int:
        return sum(v.right for v in self._verdicts.values())

    @property
    def answered(self) -> int:
        return len(self._verdicts)

    def score_text(self) -> str:
        """ "Score 2 of 3" (or "No answers yet")."""
        if not self._verdicts:
            return "No answers yet"
        return f"Score {self.right} of {self.answered}"
