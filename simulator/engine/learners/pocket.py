"""Gallant's pocket algorithm (UNL CSCE 970 lecture 3): the perceptron runs, and a pocket
keeps the best weights it has seen.

After w₀ and after every update, the pocket takes w if w classifies strictly more training
points right than the pocket does (by the run's tie rule, on the data of that trial). It
predicts with the pocket; the trials, mistakes, exact verdicts and Novikoff's bound are the
perceptron's. A w is named by the trial after which it holds: w₀ the start, w₁₂ the w
after trial 12.

Counting right points costs O(n·d) per update, in NumPy. A point's verdict is its float
score's sign where the score's rounding-error bound decides it; else the sign of the score
in twice the precision (`exact.dot2_rows`) where that one's bound decides; else the exact
sign from the floats where they are exact numbers (`LinearLearner.exact_float_signed`).
Where none decides (decimal data whose float weights carry rounding error, a score within
about 1e-30 of its terms' size), the point counts as a tie, by the tie rule: in exact
arithmetic such a score is almost always the tie it looks like. (The run decides its own
verdicts exactly from its exact shadow; the learner keeps none.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.base import Parameter, State, Step, Theory
from simulator.engine.learners.exact import (
    dot2_rows,
    dot_rows,
    numpy_dot_rows,
    refine_bounds,
    refine_coefficients,
    refine_theta,
    tie_terms,
)
from simulator.engine.learners.linear import LinearLearner
from simulator.engine.learners.perceptron import Perceptron

__all__ = ["Pocket", "PocketState", "count_right", "right_points", "subscript"]

FloatArray = NDArray[np.float64]
Labels = NDArray[np.int8]

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def subscript(number: int) -> str:
    """`number` in subscript digits: w₁₂."""
    return str(number).translate(_SUBSCRIPTS)


def count_right(signed: FloatArray, y: Labels, tie: str) -> int:
    """How many decided v = y·s are right: v > 0, or a tie (v = 0) the tie rule gets right
    ("positive" predicts +1, "negative" −1, "mistake" none); NaN is not right."""
    right = int(np.count_nonzero(signed > 0))
    if tie != "mistake":
        ties = signed == 0
        right += int(np.count_nonzero(ties & ((y > 0) if tie == "positive" else (y < 0))))
    return right


def right_points(
    learner: LinearLearner, w: FloatArray, error: FloatArray, X: FloatArray, y: Labels, tie: str
) -> int:
    """How many rows of X (labels y) the weights w, within `error` of the exact ones, get
    right by the tie rule `tie` (see the module docstring for how each verdict is taken)."""
    if not X.shape[0]:
        return 0
    if not np.any(w) and not np.any(error):  # w = 0 exactly: every score is exactly 0
        return count_right(np.zeros(X.shape[0]), y, tie)
    with np.errstate(over="ignore", invalid="ignore"):
        signed = y * dot_rows(X, w)
        if error.size:
            c, theta_err = tie_terms(w, error, 0.0)
            largest = max(float(X.max()), -float(X.min()))
            near = np.flatnonzero(np.abs(signed) <= 2.0 * (largest * float(c.sum()) + theta_err))
            if near.size:
                bound = numpy_dot_rows(np.abs(X[near]), c) + theta_err
                near = near[np.abs(signed[near]) <= bound]
            if near.size:
                signed[near] = _decided(learner, w, error, X[near], y[near])
    return count_right(signed, y, tie)


def _decided(
    learner: LinearLearner, w: FloatArray, error: FloatArray, rows: FloatArray, y: Labels
) -> FloatArray:
    """v of rows that floats could not decide: in twice the precision, else exactly from
    exact floats, else 0 (a tie)."""
    score = dot2_rows(rows, w)
    signed: FloatArray = np.where(y > 0, score, -score)
    r = refine_coefficients(w, error)
    undecided = np.flatnonzero(
        np.abs(signed) <= refine_bounds(rows, r, refine_theta(0.0, w.shape[0]))
    )
    if np.any(error):  # no exact floats to sum: a tie (see the module docstring)
        signed[undecided] = 0.0
        return signed
    state = State(w=w, error=error)
    for k in undecided.tolist():
        value = learner.exact_float_signed(state, rows[k], int(y[k]))
        signed[k] = 0.0 if value is None else value
    return signed


@dataclass(frozen=True, slots=True, eq=False)
class PocketState(State):
    """The perceptron's w and the pocket: its weights with their error bound, the trial
    after which it was taken (0: w₀), and the right points of the pocket and of w, of
    `points`, on the data of the latest update (None before the first update)."""

    pocket: FloatArray = field(default_factory=lambda: np.zeros(0))
    pocket_error: FloatArray = field(default_factory=lambda: np.zeros(0))
    pocket_trial: int = 0
    pocket_right: int | None = None
    w_right: int | None = None
    points: int | None = None
    repeating: ClassVar[tuple[str, ...]] = ("w", "pocket")


class Pocket(Perceptron):
    """Gallant's pocket algorithm: the perceptron, and a pocket that takes w when w gets
    strictly more training points right; it predicts with the pocket."""

    name: ClassVar[str] = "pocket"
    title: ClassVar[str] = "Pocket algorithm"
    source: ClassVar[str] = "UNL CSCE 970 lecture 3 (Gallant 1990)"
    parameters: ClassVar[tuple[Parameter, ...]] = Perceptron.parameters[:1]  # η
    companions: ClassVar[tuple[str, ...]] = ("pocket",)
    roles: ClassVar[tuple[str, ...]] = ("boundary", "previous", "pocket")
    update_formula: ClassVar[str] = "w ← w + η y x"

    def initial_state(self, w: FloatArray, given: bool) -> PocketState:
        """w₀, and the pocket holding it."""
        state = super().initial_state(w, given)
        return PocketState(
            w=state.w, error=state.error, start=state.start, pocket=state.w,
            pocket_error=state.error,
        )  # fmt: skip

    def learn(self, state: State, step: Step) -> State:
        """w ← w + η y x; then the pocket takes w if w gets strictly more points right."""
        assert isinstance(state, PocketState) and step.data is not None
        new = self.add(state, step.x, step.y, step)
        X, y = step.data
        right = right_points(self, new.w, new.error, X, y, step.tie)
        kept = right_points(self, state.pocket, state.pocket_error, X, y, step.tie)
        counts = {"w_right": right, "points": int(X.shape[0])}
        if right > kept:
            return new.but(
                pocket=new.w, pocket_error=new.error, pocket_trial=step.number,
                pocket_right=right, **counts,
            )  # fmt: skip
        return new.but(pocket_right=kept, **counts)

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        """Scores by the pocket, s = pocket·x."""
        assert isinstance(state, PocketState)
        with np.errstate(over="ignore", invalid="ignore"):
            return dot_rows(np.ascontiguousarray(X, dtype=np.float64), state.pocket)

    def companion(self, state: State, role: str, *, trials: int = 0) -> FloatArray:
        if role == "pocket" and isinstance(state, PocketState):
            return state.pocket
        return super().companion(state, role, trials=trials)

    def numbers(self, state: State, theory: Theory, trials: int) -> tuple[tuple[str, str], ...]:
        """The training errors of the pocket and of w on the current data."""
        assert isinstance(state, PocketState)
        if theory.empty:
            return ()
        X, y, n = theory.features, theory.labels, theory.features.shape[0]
        pocket = n - right_points(self, state.pocket, state.pocket_error, X, y, theory.tie)
        w = n - right_points(self, state.w, state.error, X, y, theory.tie)
        return (("pocket's training errors", f"{pocket} of {n}"),
                ("w's training errors", f"{w} of {n}"))  # fmt: skip

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """w's boundary (under `role`) and, for the current state, the pocket's."""
        drawn = super().drawables(state, features, role)
        if role != "boundary" or not isinstance(state, PocketState):
            return drawn
        return drawn + super().drawables(State(w=state.pocket), features, "pocket")

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        """The perceptron's update, and what the pocket did."""
        words = super().explain_update(trial, number, vector)
        after = trial.states[1] if trial.states is not None else None
        if not isinstance(after, PocketState) or after.pocket_right is None:
            return words
        w, of = f"w{subscript(trial.number)}", f"of {after.points}"
        if after.pocket_trial == trial.number:
            return f"{words} The pocket takes {w}: {after.w_right} {of} right, more than before."
        kept = f"w{subscript(after.pocket_trial)}"
        return (
            f"{words} The pocket keeps {kept}: {after.pocket_right} {of} right, "
            f"{w} gets {after.w_right}."
        )

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}"
