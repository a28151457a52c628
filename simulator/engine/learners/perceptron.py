"""Rosenblatt's perceptron (every note): predict sign(w·x); on a mistake, w ← w + η y x.

`mode="batch"` is the batch view of the CMU and online-course notes (Duda–Hart): every
point of an epoch is scored with the epoch-start w, then w ← w + η Σ y·x over that epoch's
mistakes, after its last trial. Its k counts misclassified trials; Novikoff's bound is for
the online rule, so none is shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.base import Bound, EpochSteps, Parameter, State, Step, Theory
from simulator.engine.learners.exact import (
    ExactSum,
    Row,
    decimal_digits,
    written_exactly,
)
from simulator.engine.learners.linear import LinearLearner, additive_terms
from simulator.engine.theory import general_mistake_bound

__all__ = ["LEARNING_RATE", "Perceptron", "novikoff_bound", "propagate_additive_error"]

FloatArray = NDArray[np.float64]

_U = 2.0**-53
_SUM_LIMIT = 2.0**43  # multiples of 1/256 below this add without rounding
_INTEGER_LIMIT = 2.0**53

LEARNING_RATE = Parameter(
    "learning_rate",
    "η",
    "learning rate",
    default=1.0,
    # Not smaller: products ηx and scores would be subnormal floats, whose rounding is not
    # relative, and the error bound would no longer hold (from w₀ = 0 the perceptron's
    # mistakes do not depend on η anyway).
    minimum=1e-100,
    maximum=1e6,
    help="the step size η",
)
MODE = Parameter(
    "mode",
    "mode",
    "mode",
    default="online",
    choices=("online", "batch"),
    help="online: an update after each mistake; batch: the epoch's mistakes summed, once",
)


def _written_exactly(v: float) -> bool:
    return bool(written_exactly(np.array([v]))[0])


def _all_whole(x: FloatArray, w: FloatArray, new_w: FloatArray, eta: float) -> bool:
    """Whether x, w and w' are whole numbers, |w|, |w'| and |η x| below 2^53 (η whole):
    then w' = w + ηyx was computed without rounding, entry by entry."""
    return bool(
        max(float(np.max(np.abs(w))), float(np.max(np.abs(new_w)))) < _INTEGER_LIMIT
        and float(np.max(np.abs(x))) * eta < _INTEGER_LIMIT
        and np.array_equal(x, np.floor(x))
        and np.array_equal(w, np.floor(w))
    )


def propagate_additive_error(
    error: FloatArray, w: FloatArray, new_w: FloatArray, x: FloatArray, eta: float
) -> FloatArray:
    """The error bound after w' = w + η y x: e' = e (1 + 4u) + 4u|ηx| + 2u|w'|, and e' = e
    where nothing rounded.

    fl(ηy·x) is within u|ηx| of ηyx, which is within 2u|ηx| of the exact H·X (η and x each
    rounded once from decimals); the sum rounds by u|w'|. The spare u's cover the rounding
    of this very formula. Where η and x_j are written exactly (multiples of 1/16), w_j is a
    multiple of 1/256 and |w_j|, |w'_j|, |η x_j| < 2^43, the product and the sum are exact:
    e_j stays (the bias weight, whole or binary data, at any scale). So where η, x_j and w_j
    are whole numbers and |w_j|, |w'_j|, |η x_j| < 2^53 (whole data up to 9e15).
    """
    exact_eta = _written_exactly(eta)
    whole_eta = exact_eta and eta == math.floor(eta)
    if x.size > 16:
        return _propagate_many(error, w, new_w, x, eta, exact_eta, whole_eta)
    # A few numbers: plain floats are quicker than NumPy (the same operations, bits).
    k1, k2, k3 = 4.0 * _U * eta, 2.0 * _U, 1.0 + 4.0 * _U
    out = []
    for xj, wj, nj, ej in zip(x.tolist(), w.tolist(), new_w.tolist(), error.tolist(), strict=True):
        ax = abs(xj)
        exact = xj == 0.0 or (
            exact_eta
            and abs(wj) < _SUM_LIMIT
            and abs(nj) < _SUM_LIMIT
            and ax * eta < _SUM_LIMIT
            and (wj * 256.0).is_integer()
            and _written_exactly(xj)
        )
        exact = exact or (
            whole_eta
            and abs(wj) < _INTEGER_LIMIT
            and abs(nj) < _INTEGER_LIMIT
            and ax * eta < _INTEGER_LIMIT
            and wj.is_integer()
            and xj.is_integer()
        )
        out.append(ej if exact else ax * k1 + abs(nj) * k2 + ej * k3)
    return np.array(out)


def _propagate_many(
    error: FloatArray,
    w: FloatArray,
    new_w: FloatArray,
    x: FloatArray,
    eta: float,
    exact_eta: bool,
    whole_eta: bool,
) -> FloatArray:
    """`propagate_additive_error` on many features, in NumPy, only where x_j ≠ 0 (w_j + 0
    is w_j: boolean data in thousands of dimensions are mostly 0)."""
    if whole_eta and _all_whole(x, w, new_w, eta):
        return error  # whole data, whole weights (boolean data, η = 1): nothing rounds
    nz = np.flatnonzero(x)
    xs, ws, ns, es = x[nz], w[nz], new_w[nz], error[nz]
    grown: FloatArray = np.abs(xs) * (4.0 * _U * eta)
    grown += np.abs(ns) * (2.0 * _U)
    grown += es * (1.0 + 4.0 * _U)
    if exact_eta:
        scaled = ws * 256.0
        exact = (
            written_exactly(xs)
            & (scaled == np.floor(scaled))
            & (np.abs(ws) < _SUM_LIMIT)
            & (np.abs(ns) < _SUM_LIMIT)
            & (np.abs(xs) * eta < _SUM_LIMIT)
        )
        if whole_eta:
            exact |= (
                (xs == np.floor(xs))
                & (ws == np.floor(ws))
                & (np.abs(ws) < _INTEGER_LIMIT)
                & (np.abs(ns) < _INTEGER_LIMIT)  # rounding is monotone: the exact
                & (np.abs(xs) * eta < _INTEGER_LIMIT)  # results are below 2^53
            )
        grown = np.where(exact, es, grown)
    out = error.copy()
    out[nz] = grown
    return out


def novikoff_bound(learner: Any, theory: Theory, rate: float) -> Bound:
    """Block–Novikoff's bound for a perceptron's mistakes on these data: R²/γ*² from
    w₀ = 0, the general bound from w₀·u + kηγ* ≤ √(‖w₀‖² + kη²R²) otherwise; ∞ when the
    data are not separable, nan without data."""
    why = "on separable data, for every order of the points and every η > 0"
    if theory.empty:
        return Bound(math.nan, "R²/γ*²", "Novikoff's", why, proof=True, rate=rate)
    report = theory.margin_report()
    w0 = np.ravel(learner.weights(theory.initial))  # K classes: W's rows in a row, as u* is
    general = bool(np.any(w0))
    if not report.separable or report.separator is None:
        value = math.inf
    elif not general:
        value = report.bound
    else:
        value = general_mistake_bound(
            w0, np.asarray(report.separator), report.gamma, report.radius, rate
        )
    formula = "max k: w₀·u* + kηγ* ≤ √(‖w₀‖² + kη²R²)" if general else "R²/γ*²"
    return Bound(value, formula, "Novikoff's", why, general=general, proof=True, rate=rate)


class Perceptron(LinearLearner):
    """Rosenblatt's perceptron: predict sign(w·x); on a mistake, w ← w + η y x."""

    name: ClassVar[str] = "perceptron"
    title: ClassVar[str] = "Perceptron"
    source: ClassVar[str] = "every note (Rosenblatt 1958; Block–Novikoff's bound)"
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE, MODE)
    bound_formula: ClassVar[str | None] = "R²/γ*²"
    update_formula: ClassVar[str] = "w ← w + η y x"
    learning_rate: float = 1.0  # the defaults of a subclass that declares fewer parameters
    mode: str = "online"

    @property
    def cadence(self) -> str:  # type: ignore[override]
        return "epoch" if self.mode == "batch" else "mistake"

    def step_size(self) -> float:
        """The η of its update w ← w + η y x (a subclass may derive it from its own
        parameters: the update, its exact shadow, the bound and the words all follow)."""
        return float(self.learning_rate)

    def shadow_unit(self) -> tuple[int, int]:
        """η as written: an update adds η·y·x to the exact weights."""
        return decimal_digits(self.step_size())

    def start_shadow(self, state: State) -> ExactSum:
        """The exact weights: w₀ as written."""
        return ExactSum.of(list(state.start))

    def exact_weights(self, exact: ExactSum) -> tuple[Fraction, ...] | None:
        """The exact state is w itself (w₀ + η Σ y x)."""
        return exact.values()

    def derive_shadow(self, state: State) -> ExactSum:
        """Float weights with no error are the exact weights."""
        return ExactSum.of([Fraction(v) for v in state.w.tolist()])

    def exact_terms(self, state: State, shadow: ExactSum, row: Row) -> Any:
        return additive_terms(shadow, row, Fraction(0))

    def add(self, state: State, x: FloatArray, y: int, step: Step) -> State:
        """w ← w + η y x, with its error bound and exact shadow carried along."""
        eta = self.step_size()
        new_w = state.w + (eta * y) * x
        new_w.setflags(write=False)
        error = state.error
        if error.size:
            error = propagate_additive_error(error, state.w, new_w, x, eta)
            error.setflags(write=False)
        return state.but(w=new_w, error=error)

    def learn(self, state: State, step: Step) -> State:
        """w ← w + η y x."""
        return self.add(state, step.x, step.y, step)

    def compiled_family(self) -> tuple[int, float] | None:
        """Additive (1) with its step η, for the compiled loop (None in batch mode, or for a
        subclass that learns its own way)."""
        own = type(self).learn is Perceptron.learn and type(self).add is Perceptron.add
        return (1, self.step_size()) if own and self.cadence == "mistake" else None

    def end_epoch(self, state: State, steps: EpochSteps) -> State | None:
        """Batch: w ← w + η Σ y·x over the epoch's mistakes, added in trial order."""
        rows = np.flatnonzero(steps.mistakes)
        if not rows.size:
            return None
        for k in rows.tolist():
            y = int(steps.y[k])
            step = Step(
                0,
                int(steps.rows[k]),
                steps.X[k],
                y,
                0.0,
                True,
                _digits_of(steps.digits, int(steps.rows[k])),
            )
            state = self.add(state, steps.X[k], y, step)
        return state

    def bound(self, theory: Theory) -> Bound | None:
        if self.cadence == "epoch":
            return None
        return novikoff_bound(self, theory, self.step_size())

    def disjunction_bound(self, relevant: int, theory: Theory) -> Bound | None:
        """Novikoff's bound with the target's own separator u = (−½, 1 on the r relevant
        variables): margin ≥ ½/‖u‖, so k ≤ (4r + 1)·R² (with bias, from w₀ = 0)."""
        if self.cadence == "epoch" or not theory.bias or np.any(theory.initial.w):
            return None
        X = theory.features
        radius_squared = float(np.max(np.einsum("ij,ij->i", X, X)))
        return Bound(
            (4 * relevant + 1) * radius_squared,
            "(4r + 1)·R²",
            "Novikoff's",
            "with the target's own separator u = (−½, 1 on the r relevant variables)",
        )

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        if self.cadence == "epoch":
            after = vector(trial.weights_after)
            return f"End of epoch: w ← w + η Σ y x over its mistakes = ({after})."
        sign = "+1" if trial.y > 0 else "−1"
        return (
            f"{self.update_formula} = ({vector(trial.weights_before)}) + "
            f"{number(self.step_size())}·({sign})·({vector(trial.x)}) = "
            f"({vector(trial.weights_after)})."
        )

    def explain_no_update(self, trial: Any, vector: Callable[..., str]) -> str | None:
        if self.cadence == "epoch":
            return "Batch perceptron: the epoch's mistakes are added at its end."
        return None

    def describe(self) -> str:
        batch = ", batch" if self.mode == "batch" else ""
        return f"η = {self.learning_rate:g}{batch}"


def _digits_of(digits: Callable[[int], Row], row: int) -> Callable[[], Row]:
    return lambda: digits(row)
