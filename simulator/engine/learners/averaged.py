"""The averaged perceptron (Freund and Schapire's average of the voted perceptron): the
perceptron runs, and w̄, the mean of its weights over the trials so far, predicts.

w̄ after trial T = (1/T)·Σ_{t=1..T} w_t, w_t the weights after trial t (w̄ = w₀ before the
first trial). The sum is kept lazily, since w changes only at updates: S, the sum through
the trial t_last of the last update; an update at trial t adds w_prev·(t − 1 − t_last) +
w_new; and w̄_T = (S + w·(T − t_last))/T. Its k counts the online perceptron's mistakes, so
Novikoff's bound holds for them. The compiled loop makes its updates; the sum is brought
along in NumPy, in the same order of operations (`take_compiled`).

The running sum never repeats: the cycle search compares w alone, and a run past a cycle
runs its periods instead of jumping over them (`State.periodic`). w̄'s training errors are
counted from its float scores; one within the rounding of its terms counts as a tie.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.base import Parameter, State, Step, Theory, Updates
from simulator.engine.learners.exact import UNIT_ROUNDOFF, dot_rows
from simulator.engine.learners.perceptron import Perceptron
from simulator.engine.learners.pocket import count_right, subscript

__all__ = ["AveragedPerceptron", "AveragedState"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class AveragedState(State):
    """The perceptron's w, and `total`, the sum of the weights after trials 1 … `since`
    (the trial of the last update; 0: none yet)."""

    total: FloatArray = field(default_factory=lambda: np.zeros(0))
    since: int = 0
    periodic: ClassVar[bool] = False


def _frozen(array: FloatArray) -> FloatArray:
    array.setflags(write=False)
    return array


class AveragedPerceptron(Perceptron):
    """The averaged perceptron: w ← w + η y x on a mistake; predict with w̄, the mean of w
    over the trials so far."""

    name: ClassVar[str] = "averaged-perceptron"
    title: ClassVar[str] = "Averaged perceptron"
    source: ClassVar[str] = "Freund and Schapire 1999 (the averaged perceptron)"
    parameters: ClassVar[tuple[Parameter, ...]] = Perceptron.parameters[:1]  # η
    companions: ClassVar[tuple[str, ...]] = ("average",)
    roles: ClassVar[tuple[str, ...]] = ("boundary", "previous", "average")

    def initial_state(self, w: FloatArray, given: bool) -> AveragedState:
        state = super().initial_state(w, given)
        return AveragedState(
            w=state.w, error=state.error, start=state.start,
            total=_frozen(np.zeros_like(state.w)),
        )  # fmt: skip

    def learn(self, state: State, step: Step) -> State:
        """w ← w + η y x, and S ← S + w_prev·(t − 1 − t_last) + w_new."""
        assert isinstance(state, AveragedState)
        new = self.add(state, step.x, step.y, step)
        total = state.total + state.w * float(step.number - 1 - state.since)
        total = total + new.w
        return new.but(total=_frozen(total), since=step.number)

    def compiled_family(self) -> tuple[int, float]:
        """The perceptron's family: `take_compiled` brings the sum along."""
        return (1, self.step_size())

    def take_compiled(self, state: State, updates: Updates) -> tuple[State, State]:
        """The sum brought along the compiled loop's updates as `learn` makes it, update by
        update: the weights after each, w_k = w_{k−1} + (η y)·x, and the sum's terms, each
        added in turn (`np.add.accumulate` adds in order: the same bits)."""
        assert isinstance(state, AveragedState)
        trials, rows = updates.trials, updates.rows
        X, labels = updates.data
        steps = (self.step_size() * labels[rows].astype(np.float64))[:, None] * X[rows]
        weights = np.add.accumulate(np.vstack((state.w[None, :], steps)), axis=0)
        gaps = trials - 1 - np.concatenate(([state.since], trials[:-1]))
        terms = np.empty((2 * trials.size + 1, state.w.shape[0]))
        terms[0] = state.total
        terms[1::2] = weights[:-1] * gaps.astype(np.float64)[:, None]
        terms[2::2] = weights[1:]
        sums = np.add.accumulate(terms, axis=0)  # row 2k: the sum after k updates
        since = (state.since, *trials[-2:].tolist())[-2:]
        after = state.but(w=updates.w, error=updates.error)
        before = state.but(w=updates.w_before, error=updates.error_before)
        return (
            after.but(total=_frozen(sums[-1].copy()), since=since[1]),
            before.but(total=_frozen(sums[-3].copy()), since=since[0]),
        )

    def mean(self, state: State, trials: int) -> FloatArray:
        """w̄ after `trials` trials: (S + w·(T − t_last))/T; w₀ before the first."""
        assert isinstance(state, AveragedState)
        if trials <= 0:
            return state.w
        total = state.total + state.w * float(trials - state.since)
        result: FloatArray = total / float(trials)
        return result

    def state_after(self, state: State, trials: int) -> State:
        """The sum brought up to trial `trials` (what w̄ is drawn from)."""
        assert isinstance(state, AveragedState)
        if trials <= state.since:
            return state
        total = state.total + state.w * float(trials - state.since)
        return state.but(total=_frozen(total), since=trials)

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        """Scores by w̄ after `trials` trials."""
        with np.errstate(over="ignore", invalid="ignore"):
            return dot_rows(np.ascontiguousarray(X, dtype=np.float64), self.mean(state, trials))

    def companion(self, state: State, role: str, *, trials: int = 0) -> FloatArray:
        if role == "average":
            return self.mean(state, trials)
        return super().companion(state, role, trials=trials)

    def numbers(self, state: State, theory: Theory, trials: int) -> tuple[tuple[str, str], ...]:
        """w̄'s training errors on the current data."""
        if theory.empty:
            return ()
        X, y = theory.features, theory.labels
        average = self.mean(state, trials)
        with np.errstate(over="ignore", invalid="ignore"):
            signed = y * dot_rows(X, average)
            size = dot_rows(np.abs(X), np.abs(average))
        signed[np.abs(signed) <= 4.0 * (X.shape[1] + 2) * UNIT_ROUNDOFF * size] = 0.0
        errors = X.shape[0] - count_right(signed, y, theory.tie)
        return (("w̄'s training errors", f"{errors} of {X.shape[0]}"),)

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """w's boundary (under `role`) and, for the current state, w̄'s."""
        drawn = super().drawables(state, features, role)
        if role != "boundary" or not isinstance(state, AveragedState):
            return drawn
        average = State(w=self.mean(state, state.since))
        return drawn + super().drawables(average, features, "average")

    def _average_words(self, trial: Any, vector: Any) -> str:
        after = trial.states[1] if trial.states is not None else None
        if not isinstance(after, AveragedState):
            return ""
        average = vector(self.mean(after, trial.number))
        return f" w̄ = (w₁ + … + w{subscript(trial.number)})/{trial.number} = ({average})."

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        return super().explain_update(trial, number, vector) + self._average_words(trial, vector)

    def explain_no_update(self, trial: Any, vector: Callable[..., str]) -> str | None:
        """w stays, but w̄ moves toward it: every trial counts in the mean."""
        words = self._average_words(trial, vector)
        return f"No update: w stays.{words}" if words else None

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}"
