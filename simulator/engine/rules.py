"""The update rules, each next to its formula from the course notes.

A rule is stateless: it maps (state, trial) to a new state. The state is a NumPy array
(the weights w; for Balanced Winnow the pair (w+, w-) as a (2, n) array), and `weights`
turns it into the effective w that defines the boundary w·x = θ.

Score s = w·x − θ (θ = 0 except classic Winnow); prediction sign(s); s = 0 is undecided
and counts as a mistake, so a mistake is y·s <= 0.

`scores` is exact and row-independent: the score of a point is the same bits whether it
is computed alone or in a block of a million (the columns are summed left to right with
elementwise NumPy operations, never a BLAS kernel whose order depends on the block).
That is what lets `Simulation.run` jump ahead through a block without changing the
trajectory that `Simulation.step` would take.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ALGORITHMS",
    "DEFAULT_LEARNING_RATES",
    "Adaline",
    "BalancedWinnow",
    "Perceptron",
    "Rule",
    "Winnow",
    "dot_columns",
    "make_rule",
]

FloatArray = NDArray[np.float64]


def dot_columns(columns: Sequence[FloatArray], w: Sequence[float]) -> FloatArray:
    """w·x for every point, given the feature columns, summed left to right.

    Elementwise IEEE operations in a fixed order, so each point's result does not depend on
    how many points are computed together.
    """
    total: FloatArray = columns[0] * w[0]
    for column, weight in zip(columns[1:], w[1:], strict=True):
        total += column * weight
    return total


def _check_positive(name: str, value: float) -> float:
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return value


class Rule:
    """Base of the update rules; see the module docstring for the contract."""

    name: ClassVar[str]
    title: ClassVar[str]
    mistake_driven: ClassVar[bool] = True
    batch: bool = False
    threshold: float = 0.0

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (n_features,)

    def default_state(self, n_features: int) -> FloatArray:
        return np.zeros(self.state_shape(n_features))

    def random_state(self, n_features: int, rng: np.random.Generator) -> FloatArray:
        """Seeded random start: uniform in [-1, 1]."""
        return rng.uniform(-1.0, 1.0, size=self.state_shape(n_features))

    def check_state(self, state: FloatArray) -> None:
        """Raise ValueError if `state` is not a valid starting point for this rule."""
        if not np.all(np.isfinite(state)):
            raise ValueError("initial weights must be finite numbers")

    def initial_state(
        self,
        n_features: int,
        initial_weights: str | ArrayLike | None,
        rng: np.random.Generator,
    ) -> FloatArray:
        """The state before trial 1: the rule's default, "zeros", "ones", "random" or given."""
        shape = self.state_shape(n_features)
        if initial_weights is None or (
            isinstance(initial_weights, str) and initial_weights == "default"
        ):
            state = self.default_state(n_features)
        elif isinstance(initial_weights, str):
            if initial_weights == "zeros":
                state = np.zeros(shape)
            elif initial_weights == "ones":
                state = np.ones(shape)
            elif initial_weights == "random":
                state = self.random_state(n_features, rng)
            else:
                raise ValueError(
                    f"unknown initial weights {initial_weights!r}; use 'zeros', 'ones', "
                    "'random' or a list of numbers"
                )
        else:
            try:
                state = np.array(initial_weights, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError("initial weights must be numbers") from None
            if state.shape != shape and state.size == math.prod(shape) and state.ndim == 1:
                state = state.reshape(shape)  # (w⁺, w⁻) given one after the other
            if state.shape != shape:
                raise ValueError(
                    f"{self.title} needs initial weights of shape {shape} "
                    f"({n_features} features); got shape {state.shape}"
                )
        self.check_state(state)
        return state

    def weights(self, state: FloatArray) -> FloatArray:
        """The effective w of the boundary w·x = θ."""
        return state

    def scores(self, state: FloatArray, X: FloatArray) -> FloatArray:
        """s = w·x − θ for each row x of X."""
        return self.signed_scores(state, list(X.T), 1.0)

    def signed_scores(
        self, state: FloatArray, columns: Sequence[FloatArray], signs: float | NDArray[Any]
    ) -> FloatArray:
        """w·c − θ·sign for each point, given its feature columns c (see `dot_columns`).

        With signs = 1 this is the score s; with the columns of z = y x and signs = y it is
        y·s, bit for bit (negating is exact and rounding is symmetric), which is how
        `Simulation.run` finds mistakes (y·s <= 0) in one pass.
        """
        s = dot_columns(columns, self.weights(state).tolist())
        if self.threshold:
            s -= self.threshold * signs
        return s

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        raise NotImplementedError

    def describe(self) -> str:
        """The parameters, for titles and reports."""
        raise NotImplementedError


@dataclass(frozen=True)
class Perceptron(Rule):
    """Rosenblatt's perceptron: predict sign(w·x); on a mistake, w <- w + η y x."""

    learning_rate: float = 1.0
    name: ClassVar[str] = "perceptron"
    title: ClassVar[str] = "Perceptron"

    def __post_init__(self) -> None:
        _check_positive("the learning rate η", self.learning_rate)

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        """w <- w + η y x."""
        return state + (self.learning_rate * y) * x

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}"


@dataclass(frozen=True)
class Winnow(Rule):
    """Littlestone's Winnow: predict sign(w·x − θ), w > 0; on a mistake, wᵢ <- wᵢ α^(y xᵢ).

    With boolean features and α = 2 a mistake doubles (y = +1) or halves (y = -1) the
    weights of the active features. Defaults: w = 1, θ = number of features.
    """

    promotion: float = 2.0
    threshold: float = 1.0
    name: ClassVar[str] = "winnow"
    title: ClassVar[str] = "Winnow"

    def __post_init__(self) -> None:
        if not math.isfinite(self.promotion) or self.promotion <= 1.0:
            raise ValueError(
                f"the promotion factor α must be a finite number > 1; got {self.promotion!r}"
            )
        _check_positive("the threshold θ", self.threshold)

    def default_state(self, n_features: int) -> FloatArray:
        return np.ones(self.state_shape(n_features))

    def random_state(self, n_features: int, rng: np.random.Generator) -> FloatArray:
        """Seeded random positive start: log-uniform in [1/2, 2]."""
        return np.exp2(rng.uniform(-1.0, 1.0, size=self.state_shape(n_features)))

    def check_state(self, state: FloatArray) -> None:
        super().check_state(state)
        if np.any(state <= 0):
            raise ValueError(
                f"{self.title} needs positive initial weights (a multiplicative update "
                "never moves a weight away from 0)"
            )

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        """wᵢ <- wᵢ · α^(y xᵢ)."""
        return state * self.promotion ** (y * x)

    def describe(self) -> str:
        return f"α = {self.promotion:g}, θ = {self.threshold:g}"


@dataclass(frozen=True)
class BalancedWinnow(Winnow):
    """Balanced Winnow: predict sign(w⁺·x − w⁻·x); on a mistake,
    wᵢ⁺ <- wᵢ⁺ α^(y xᵢ) and wᵢ⁻ <- wᵢ⁻ α^(−y xᵢ).

    The state is the (2, n) pair (w⁺, w⁻), both starting at 1, so the effective
    w = w⁺ − w⁻ starts at 0 and the first trial is undecided, as with the perceptron.
    """

    threshold: float = 0.0
    name: ClassVar[str] = "balanced-winnow"
    title: ClassVar[str] = "Balanced Winnow"

    def __post_init__(self) -> None:
        if not math.isfinite(self.promotion) or self.promotion <= 1.0:
            raise ValueError(
                f"the promotion factor α must be a finite number > 1; got {self.promotion!r}"
            )
        if self.threshold != 0.0:
            raise ValueError("Balanced Winnow has no threshold (θ = 0)")

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (2, n_features)

    def weights(self, state: FloatArray) -> FloatArray:
        """w = w⁺ − w⁻, so that w·x = w⁺·x − w⁻·x."""
        result: FloatArray = state[0] - state[1]
        return result

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        """wᵢ⁺ <- wᵢ⁺ α^(y xᵢ),  wᵢ⁻ <- wᵢ⁻ α^(−y xᵢ)."""
        return state * self.promotion ** np.stack((y * x, -y * x))

    def describe(self) -> str:
        return f"α = {self.promotion:g}"


@dataclass(frozen=True)
class Adaline(Rule):
    """Widrow–Hoff LMS. Online: every trial, w <- w + η (y − w·x) x.

    Batch: the trials of an epoch are scored with the same w, and at the end of the
    epoch one gradient step w <- w + η Σᵢ (yᵢ − w·xᵢ) xᵢ is taken.
    Stable for η < 2/R² online and η < 2/λ_max(XᵀX) in batch.
    """

    learning_rate: float = 0.1
    batch: bool = False
    name: ClassVar[str] = "adaline"
    title: ClassVar[str] = "Adaline"
    mistake_driven: ClassVar[bool] = False

    def __post_init__(self) -> None:
        _check_positive("the learning rate η", self.learning_rate)

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        """w <- w + η (y − w·x) x."""
        return state + (self.learning_rate * (y - score)) * x

    def update_batch(
        self, state: FloatArray, X: FloatArray, y: NDArray[np.int8], scores: FloatArray
    ) -> FloatArray:
        """w <- w + η Σᵢ (yᵢ − w·xᵢ) xᵢ over the epoch's trials, in trial order."""
        gradient: FloatArray = np.add.reduce((y - scores)[:, None] * X, axis=0)
        return state + self.learning_rate * gradient

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}, {'batch' if self.batch else 'online'}"


DEFAULT_LEARNING_RATES = {"perceptron": 1.0, "adaline": 0.1}
"""η when none is given: the perceptron's from the notes; Adaline's small enough to be
stable on data in a few units (online LMS needs η < 2/R²)."""

ALGORITHMS: dict[str, type[Rule]] = {
    rule.name: rule for rule in (Perceptron, Winnow, BalancedWinnow, Adaline)
}


def make_rule(
    algorithm: str,
    n_features: int,
    *,
    learning_rate: float | None = None,
    promotion: float = 2.0,
    threshold: float | None = None,
    mode: str = "online",
) -> Rule:
    """Build the rule named `algorithm` with its parameters (the others are ignored)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if mode not in ("online", "batch"):
        raise ValueError(f"unknown mode {mode!r}; use 'online' or 'batch'")
    if algorithm == "perceptron":
        rate = DEFAULT_LEARNING_RATES[algorithm] if learning_rate is None else learning_rate
        return Perceptron(learning_rate=float(rate))
    if algorithm == "winnow":
        theta = float(n_features) if threshold is None else float(threshold)
        return Winnow(promotion=float(promotion), threshold=theta)
    if algorithm == "balanced-winnow":
        if threshold not in (None, 0, 0.0):
            raise ValueError("Balanced Winnow has no threshold (θ = 0)")
        return BalancedWinnow(promotion=float(promotion))
    return Adaline(
        learning_rate=float(
            DEFAULT_LEARNING_RATES[algorithm] if learning_rate is None else learning_rate
        ),
        batch=mode == "batch",
    )
