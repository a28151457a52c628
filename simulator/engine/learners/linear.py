"""What every learner with a linear score s = w·x − θ shares: the fast path's scorer with
its rounding-error bound, the decision values, the loss, and the exact verdict from the
shadow state (see `exact`).

Subclasses say what their exact shadow holds and how the score follows from it
(`exact_terms`): the exact weights for the perceptron family, the exponents S = Σ y·x of
w₀·α^S for Winnow; and how the shadow follows from float weights that carry no error
(`derive_shadow`), so that runs whose floats stay exact (whole or binary data) keep none.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.drawables import LevelSet, Line
from simulator.engine.learners.base import Learner, LinearScorer, State
from simulator.engine.learners.exact import (
    ExactSum,
    Row,
    as_fraction,
    dot_rows,
    exact_power_sum_sign,
    refine_theta,
    squared_error,
    tie_terms,
    written,
    written_exactly,
)

__all__ = ["OVERFLOW", "LinearLearner"]

FloatArray = NDArray[np.float64]

OVERFLOW = 1e150
"""A weight beyond this would overflow when squared: the run stops updating there."""


class LinearLearner(Learner):
    """A learner that scores s = w·x − θ with one weight vector (see the module docstring).

    `margin_offset` is τ of a learner that updates when y·s <= τ (0: on mistakes)."""

    exact: ClassVar[bool] = True

    def score_weights(self, state: State) -> FloatArray:
        """The vector its scores are w·x − θ of: the effective w (flat; Kessler's learner
        shows it as K rows)."""
        return self.weights(state)

    def weight_error(self, state: State) -> FloatArray:
        """The error bound of the effective w, given the state's."""
        return state.error

    def scorer(self, state: State) -> LinearScorer:
        w = np.ascontiguousarray(self.score_weights(state), dtype=np.float64)
        theta = float(self.threshold)
        if not state.error.size:
            return LinearScorer(w, theta, offset=self.margin_offset())
        error = np.ascontiguousarray(self.weight_error(state), dtype=np.float64)
        c, theta_err = tie_terms(w, error, theta)
        return LinearScorer(
            w, theta, c, theta_err, error, refine_theta(theta, w.shape[0]), self.margin_offset()
        )

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        with np.errstate(over="ignore", invalid="ignore"):
            return dot_rows(
                np.ascontiguousarray(X, dtype=np.float64),
                self.score_weights(state),
                float(self.threshold),
            )

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """The boundary w·x = θ: a line where the features are linear in the plane, else the
        level set of the score (a curve)."""
        w = self.weights(state)
        line = features.input_line(w, self.threshold)
        if line is not None:
            return (Line(role, line),)
        if features.is_linear_in_input or not np.all(np.isfinite(w)) or not np.any(w):
            return ()
        frozen = np.array(w)

        def score(points: FloatArray) -> FloatArray:
            return dot_rows(features.transform(points), frozen, float(self.threshold))

        return (LevelSet(role, score),)

    def loss(self, state: State, X: FloatArray, y: NDArray[np.int8]) -> float:
        if not X.shape[0]:
            return math.nan
        return float(
            squared_error(X, self.score_weights(state), float(self.threshold), y) / X.shape[0]
        )

    def refuse(self, state: State) -> str | None:
        """Overflow: a weight beyond 1e150 (or not a number) stops the run."""
        w = state.w
        if w.size <= 16:  # plain floats are quicker than NumPy for a few numbers
            within = all(-OVERFLOW <= v <= OVERFLOW for v in w.ravel().tolist())
        else:
            within = bool(np.abs(w).max() <= OVERFLOW)
        return None if within else "overflow"

    # -- the exact verdict ---------------------------------------------------------------

    def exact_terms(
        self, state: State, exact: ExactSum, row: Row
    ) -> tuple[list[tuple[Fraction, Fraction, Fraction]], Fraction]:
        """The exact score w·x − θ of `row` as Σ c·b^e − k: the terms (c, b, e) and k."""
        raise NotImplementedError

    def derive_shadow(self, state: State) -> ExactSum | None:
        """The exact state from float weights that carry no error (so are exact)."""
        raise NotImplementedError

    def exact_state(self, state: State) -> ExactSum | None:
        if not self.exact or not state.error.size or np.any(state.error):
            return None
        return self.derive_shadow(state)

    def exact_float_signed(self, state: State, x: FloatArray, y: int) -> float | None:
        """v = y·(w·x − θ) − τ exactly from the floats, where they are the exact numbers:
        weights with no error, inputs, θ and τ that binary holds exactly (whole numbers,
        halves…); products split exactly (Dekker) and summed correctly rounded (fsum), so
        the sign is the exact one. None where that does not hold."""
        if not self.exact or not state.error.size or np.any(state.error):
            return None
        parts = self.exact_parts(state)
        theta, offset = float(self.threshold), self.margin_offset()
        nonzero = x[x != 0.0]
        if not (
            np.all(written_exactly(nonzero)) and written_exactly(np.array([theta, offset])).all()
        ):
            return None
        terms = [-y * theta, -offset]
        for weights, sign in parts:
            p, e = _two_products(weights, x)
            if np.any((p == 0.0) & (weights * x != 0.0)) or np.any(np.abs(p[p != 0]) < 2.0**-969):
                return None  # an underflowing product is not split exactly
            terms += (y * sign * p).tolist() + (y * sign * e).tolist()
        return math.fsum(terms)

    def exact_parts(self, state: State) -> list[tuple[FloatArray, int]]:
        """The weight vectors whose signed sum scores (w, +1), or (w⁺, +1), (w⁻, −1)."""
        return [(self.score_weights(state), 1)]

    def exact_signed(self, state: State, exact: ExactSum, digits: Row, y: int) -> float | None:
        """v = y·s − τ in exact arithmetic: y·(Σ c·b^e − k) − τ = Σ y·c·b^e − (y·k + τ)."""
        if not self.exact:
            return None
        terms, constant = self.exact_terms(state, exact, digits)
        return exact_power_sum_sign(
            [(y * c, b, e) for c, b, e in terms], y * constant + written(self.margin_offset())
        )


def _two_products(w: FloatArray, x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(p, e): p = fl(w·x) entrywise and e = w·x − p exactly (Dekker's split, no FMA)."""
    split = 134217729.0
    p = w * x
    c = split * w
    w_high = c - (c - w)
    w_low = w - w_high
    c2 = split * x
    x_high = c2 - (c2 - x)
    x_low = x - x_high
    e = w_low * x_low - (((p - w_high * x_high) - w_low * x_high) - w_high * x_low)
    return p, e


def additive_terms(
    shadow: ExactSum, row: Row, theta: Fraction
) -> tuple[list[tuple[Fraction, Fraction, Fraction]], Fraction]:
    """w·x − θ with the exact weights w of `shadow`: one rational term."""
    total = Fraction(0)
    for j, m, e in row:
        total += shadow.value(j) * as_fraction(m, e)
    return [(total, Fraction(1), Fraction(0))], theta
