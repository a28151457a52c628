"""The engine's records: `Settings` (what defines a run), `Trial` (one trial), `Snapshot`
(the learner's state for views). Frozen, plain values: equality and reprs are predictable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["DEFAULTS", "Settings", "Snapshot", "Trial"]


@dataclass(frozen=True, slots=True)
class Trial:
    """One trial: the point shown, the verdict, and what the rule did about it.

    `x` is the feature vector (bias first), `point` the raw input coordinates; the
    weights are the effective w (feature order) before and after the trial. `score` is
    s = w·x − θ as decided: exactly 0.0 when the computed value lies within its rounding
    error bound (a tie). `prediction` (+1, −1, or 0 for an undecided tie) and `mistake`
    are the verdict the run acted on, by the run's tie rule.
    """

    number: int
    index: int
    epoch: int
    x: tuple[float, ...]
    y: int
    score: float
    prediction: int
    mistake: bool
    weights_before: tuple[float, ...]
    weights_after: tuple[float, ...]
    point: tuple[float, ...]

    @property
    def updated(self) -> bool:
        return self.weights_before != self.weights_after

    @property
    def delta(self) -> tuple[float, ...]:
        """Δw = weights_after − weights_before."""
        return tuple(a - b for a, b in zip(self.weights_after, self.weights_before, strict=True))


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything that defines a run besides the data. `None` means the rule's default.

    `tie` is what a score of exactly 0 means (see rules.TIES); None takes the rule's own:
    "mistake" for the perceptron and Adaline, "positive" (+ iff w·x >= θ) for the Winnows.
    """

    algorithm: str = "perceptron"
    learning_rate: float | None = None
    promotion: float = 2.0
    threshold: float | None = None
    mode: str = "online"
    tie: str | None = None
    bias: bool = True
    preprocessing: str = "none"
    order: str = "cyclic"
    seed: int = 0
    initial_weights: str | tuple[float, ...] | None = None
    tolerance: float = 1e-6

    def as_kwargs(self) -> dict[str, Any]:
        return asdict(self)


DEFAULTS = Settings()
"""The one place the defaults are written (Simulation and the CLI use it)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The learner's state after `trials` trials, as plain values for views.

    `misclassified` marks the current points the current w gets wrong, by the run's tie
    rule (read-only).
    """

    trials: int
    mistakes: int
    epoch: int
    weights: tuple[float, ...]
    threshold: float
    converged: bool
    converged_at: int | None
    diverged: bool
    divergence_reason: str | None
    last_trial: Trial | None
    margin: float
    misclassified: NDArray[np.bool_]
    diverged_at: int | None = None
    cycle_period: int | None = None
    cycle_found_at: int | None = None
