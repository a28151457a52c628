"""The engine's records: `Settings` (what defines a run), `Trial` (one trial), `Snapshot`
(the learner's state for views). Frozen, plain values: equality and reprs are predictable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.base import Parameters, State

__all__ = ["DEFAULTS", "Settings", "Snapshot", "Trial"]


@dataclass(frozen=True, slots=True)
class Trial:
    """One trial: the point shown, the verdict, and what the rule did about it.

    `x` is the feature vector (bias first), `point` the raw input coordinates; the
    weights are the effective w (feature order) before and after the trial. `score` is
    s = w·x − θ as decided: exactly 0.0 when the computed value lies within its rounding
    error bound (a tie). `prediction` (+1, −1, or 0 for an undecided tie) and `mistake`
    are the verdict the run acted on, by the run's tie rule. `certain`: the verdict is the
    exact one (floats with a proven bound, or exact arithmetic on the data as written);
    False where exactness cannot be had (Adaline, EG±) and the score is too close to 0 to
    trust its sign: the window marks it "≈". `states`: the learner's own states before and
    after the trial, for its explanation (not compared).
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
    certain: bool = True
    states: tuple[State, State] | None = field(default=None, compare=False, repr=False)

    @property
    def updated(self) -> bool:
        return self.weights_before != self.weights_after

    @property
    def delta(self) -> tuple[float, ...]:
        """Δw = weights_after − weights_before."""
        return tuple(a - b for a, b in zip(self.weights_after, self.weights_before, strict=True))


_FIELDS_BEFORE = ("algorithm", "parameters")


@dataclass(frozen=True, slots=True, init=False)
class Settings:
    """Everything that defines a run besides the data.

    `parameters` holds the learner's parameters by name, as set (one left out takes the
    learner's default, which may depend on the data: Adaline's η, Winnow's θ = n). They are
    given as keywords, `Settings("perceptron", learning_rate=0.5)`, or as a mapping; a
    parameter also reads as an attribute, `settings.learning_rate` (None: the default).
    `tie` is what a score of exactly 0 means (see TIES); None takes the learner's own.
    `features`: "linear" (x itself), "quadratic" or "cubic" (the monomials of 2-D points).
    """

    algorithm: str
    parameters: Parameters
    tie: str | None
    bias: bool
    preprocessing: str
    features: str
    order: str
    seed: int
    initial_weights: str | tuple[float, ...] | None
    tolerance: float

    def __init__(
        self,
        algorithm: str = "perceptron",
        parameters: Mapping[str, Any] | None = None,
        *,
        tie: str | None = None,
        bias: bool = True,
        preprocessing: str = "none",
        features: str = "linear",
        order: str = "cyclic",
        seed: int = 0,
        initial_weights: str | tuple[float, ...] | None = None,
        tolerance: float = 1e-6,
        **parameter_values: Any,
    ) -> None:
        values = {
            "algorithm": algorithm,
            "parameters": Parameters(parameters, **parameter_values),
            "tie": tie,
            "bias": bias,
            "preprocessing": preprocessing,
            "features": features,
            "order": order,
            "seed": seed,
            "initial_weights": initial_weights,
            "tolerance": tolerance,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        """A learner's parameter by name (None where the learner's default is taken)."""
        if name.startswith("__"):
            raise AttributeError(name)
        from simulator.engine.learners import all_parameters

        if name in all_parameters():
            return self.parameters.get(name)
        raise AttributeError(f"'Settings' object has no attribute {name!r}")

    def with_parameters(self, **values: Any) -> Settings:
        """A copy with these parameters set (None: back to the learner's default)."""
        return replace(self, parameters=self.parameters.with_values(**values))

    def as_kwargs(self) -> dict[str, Any]:
        """The keywords of `Simulation`: the settings, the parameters among them."""
        kwargs = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "parameters"}
        return {**kwargs, **dict(self.parameters)}


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
    rows: int = 1  # the weights are this many rows of a matrix (w_k of K classes), row-major
