"""Widrow–Hoff's Adaline, the LMS rule (online course ch. 3; UNL CSCE 970 lecture 3).

Online: every trial, w ← w + η_t (y − w·x) x. Batch: the trials of an epoch are scored
with the same w, and at its end one gradient step w ← w + η_t Σ (yᵢ − w·xᵢ) xᵢ is taken.
η_t = η (`schedule` "constant") or η/t at trial t (online) and η/k at the k-th epoch
(batch), "inverse", the decaying rate of UNL's LMS. Stable for η < 2/R² online and
η < 2/λ_max(XᵀX) in batch (sufficient, not necessary).

Its verdicts cannot follow exact arithmetic (the denominators of w grow with every
trial): a verdict whose score is within 1e-9 of its terms' size is marked uncertain.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_FLOOR, Decimal
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.base import EpochSteps, Parameter, State, Step
from simulator.engine.learners.exact import numpy_dot_rows, written
from simulator.engine.learners.linear import LinearLearner
from simulator.engine.theory import largest_gram_eigenvalue

__all__ = ["ADALINE_FALLBACK_RATE", "Adaline", "round_down"]

FloatArray = NDArray[np.float64]

ADALINE_FALLBACK_RATE = 0.1
"""Adaline's η when the data give no scale (no points, or all at the origin)."""
_GROWTH = 1e6  # diverged once its epoch loss grows this much over its minimum...
_LOSS_FLOOR = 1e-9  # ...counted from at least this (an exact fit has loss 0)

RATE = Parameter(
    "learning_rate",
    "η",
    "learning rate",
    default=None,
    minimum=0.0,
    maximum=1e6,
    exclusive_minimum=True,
    help="the step size η > 0 (η < 2/R² online, 2/λ_max(XᵀX) batch suffice for stability)",
    derived="from the data: 1/R² online, 1/λ_max(XᵀX) batch (half the stable bound), "
    "rounded down to 2 digits",
)
MODE = Parameter(
    "mode",
    "mode",
    "mode",
    default="online",
    choices=("online", "batch"),
    help="online: an LMS step per trial; batch: one gradient step per epoch",
)
SCHEDULE = Parameter(
    "schedule",
    "η_t",
    "rate schedule",
    default="constant",
    choices=("constant", "inverse"),
    help="constant: η_t = η; inverse: η_t = η/t at trial t (η/k at epoch k in batch)",
)


def round_down(value: float | Fraction, digits: int = 2) -> float:
    """`value` > 0 rounded down to `digits` significant digits (0.01652 -> 0.016)."""
    exact = (
        Decimal(value.numerator) / Decimal(value.denominator)
        if isinstance(value, Fraction)
        else Decimal(repr(value))
    )
    step = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    return float(exact.quantize(step, rounding=ROUND_FLOOR))


def _exact_radius_squared(features: FloatArray) -> Fraction:
    """R² = max ‖x‖² on the data as written, exactly: the rows whose float ‖x‖² is within
    1e-9 of the largest are summed again in fractions (1 + 0.5² is 1.25, not
    1.2500000000000002)."""
    squares = np.einsum("ij,ij->i", features, features)
    top = float(squares.max())
    rows = np.flatnonzero(squares >= top * (1 - 1e-9))
    return max(sum((written(v) ** 2 for v in features[i].tolist()), Fraction(0)) for i in rows)


class Adaline(LinearLearner):
    """Widrow–Hoff LMS: every trial (or once per epoch, batch), w ← w + η_t (y − w·x) x."""

    name: ClassVar[str] = "adaline"
    title: ClassVar[str] = "Adaline"
    source: ClassVar[str] = "online course ch. 3 (Adaline); UNL CSCE 970 lecture 3 (LMS)"
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = (RATE, MODE, SCHEDULE)
    least_squares: ClassVar[bool] = True
    exact: ClassVar[bool] = False
    update_formula: ClassVar[str] = "w ← w + η (y − s) x"
    overflow_word: ClassVar[str] = "diverged"
    learning_rate: float
    mode: str
    schedule: str

    @classmethod
    def build(cls, n_features: int, *, features: FloatArray | None = None, **values: Any) -> Any:
        """η defaults to `default_rate` of the features."""
        mode = MODE.check(values.get("mode") or MODE.default)
        rate = values.get("learning_rate")
        if rate is None:
            rate = cls.default_rate(features, batch=mode == "batch")
        return cls(learning_rate=rate, mode=mode, schedule=values.get("schedule"))

    @staticmethod
    def default_rate(features: FloatArray | None, *, batch: bool) -> float:
        """Half the sufficient stable bound, 1/R² online or 1/λ_max(XᵀX) batch, rounded
        down to two significant digits (a number a teacher can type): inside the stable
        range with room to spare, and as large as that allows. At most the largest η (1e6),
        which tiny data (R² < 1e-6) would exceed."""
        if features is None or features.shape[0] == 0:
            return ADALINE_FALLBACK_RATE
        largest = RATE.maximum
        assert largest is not None
        if batch:
            scale = largest_gram_eigenvalue(features)
            if scale == 0.0 and np.any(features):
                return largest  # squares that underflow: tiny data, not none
            if not (math.isfinite(scale) and scale > 0):
                return ADALINE_FALLBACK_RATE
            return largest if scale * largest <= 1.0 else round_down(1.0 / scale)
        if not np.any(features):
            return ADALINE_FALLBACK_RATE
        radius_squared = _exact_radius_squared(features)
        if radius_squared * Fraction(largest) <= 1:  # tiny data: 1/R² beyond the largest η
            return largest
        return round_down(1 / radius_squared)

    @property
    def cadence(self) -> str:  # type: ignore[override]
        return "epoch" if self.mode == "batch" else "trial"

    def rate_at(self, t: int) -> float:
        """η_t at trial t (online) or epoch t (batch)."""
        return self.learning_rate / t if self.schedule == "inverse" else self.learning_rate

    def learn(self, state: State, step: Step) -> State:
        """w ← w + η_t (y − s) x."""
        w = state.w + (self.rate_at(step.number) * (step.y - step.score)) * step.x
        w.setflags(write=False)
        return state.but(w=w)

    def end_epoch(self, state: State, steps: EpochSteps) -> State | None:
        """Batch: w ← w + η_k Σᵢ (yᵢ − w·xᵢ) xᵢ over the epoch's trials, in trial order
        (scored again with the w they were scored with: the same bits)."""
        scores = numpy_dot_rows(steps.X, state.w, self.threshold)
        gradient: FloatArray = np.add.reduce((steps.y - scores)[:, None] * steps.X, axis=0)
        w = state.w + self.rate_at(steps.epoch) * gradient
        w.setflags(write=False)
        return state.but(w=w)

    def settled(self, start: State, end: State, updates: int, tolerance: float) -> bool:
        """No weight moved by more than tolerance · max(1, max|w|) over the epoch."""
        change = float(np.max(np.abs(end.w - start.w)))
        return change <= tolerance * max(1.0, float(np.max(np.abs(end.w))))

    def epoch_divergence(self, loss: float, smallest: float) -> bool:
        """The epoch's mean squared error grew a millionfold over its smallest (or is not a
        number)."""
        return not math.isfinite(loss) or loss > _GROWTH * max(smallest, _LOSS_FLOOR)

    def divergence_advice(self, features: FloatArray) -> str:
        return self.stable_rate_text(features)

    def stable_rate_text(self, features: FloatArray) -> str:
        """The sufficient condition for stability on these data, in words."""
        batch = self.mode == "batch"
        if batch:
            scale = largest_gram_eigenvalue(features) if features.shape[0] else math.nan
        else:
            scale = (
                float(np.max(np.einsum("ij,ij->i", features, features)))
                if features.shape[0]
                else math.nan
            )
        limit = 2.0 / scale if scale > 0 else math.inf
        return (
            f"η = {self.learning_rate:g} is too large for these data; η < {limit:.4g} suffices "
            f"for {self.mode} stability (a sufficient condition, not a necessary one)"
        )

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        if self.mode == "batch":
            return f"End of epoch: w ← w + η Σ (y − w·x) x = ({vector(trial.weights_after)})."
        rate = self.rate_at(trial.number)
        eta = (
            f"η/t = {number(self.learning_rate)}/{trial.number}"
            if self.schedule == "inverse"
            else number(rate)
        )
        before, after = vector(trial.weights_before), vector(trial.weights_after)
        residual = number(trial.y - trial.score)
        return (
            f"{self.update_formula} = ({before}) + {eta}·({residual})·({vector(trial.x)}) "
            f"= ({after})."
        )

    def explain_no_update(self, trial: Any, vector: Callable[..., str]) -> str | None:
        if self.mode == "batch":
            return "Batch Adaline: the gradient step comes at the end of the epoch."
        return None

    def explain_stop(self, converged_at: int) -> str:
        """What stopped it: its steps, not a lack of updates (it updates on every trial
        online, at the end of every epoch in batch)."""
        when = "on every trial" if self.mode == "online" else "once an epoch, on all its trials"
        return (
            f"Converged at trial {converged_at}: over a whole epoch no weight moved by more "
            f"than the tolerance. Adaline still updates {when}; "
            + (
                "its steps shrink with η/t."
                if self.schedule == "inverse"
                else "w has settled where its steps cancel out."
            )
        )

    def describe(self) -> str:
        rate = f"η = {self.learning_rate:g}" + ("/t" if self.schedule == "inverse" else "")
        return f"{rate}, {self.mode}"
