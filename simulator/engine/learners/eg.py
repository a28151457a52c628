"""EG± (UNL CSCE 970 lecture 3; Kivinen and Warmuth 1997): exponentiated-gradient updates
on a positive and a negative weight vector, normalized to a total weight U.

w⁺, w⁻ ≥ 0 start at U/(2D) each (D features, the bias among them); s = (w⁺ − w⁻)·x, and
the effective weights are w = w⁺ − w⁻. On a mistake (the tie rule "mistake" by default:
s = 0 is one), with rᵢ = exp(2ηU·y·xᵢ) and Z = Σⱼ (w⁺ⱼ rⱼ + w⁻ⱼ/rⱼ),

    w⁺ᵢ ← U·w⁺ᵢ·rᵢ/Z,   w⁻ᵢ ← U·w⁻ᵢ/rᵢ/Z,

so Σ (w⁺ + w⁻) = U after every update. Its weights are exponentials, so its verdicts cannot
follow exact arithmetic: one within 1e-9 of its score's size is marked uncertain by the
run. No mistake bound is shown (Kivinen and Warmuth's needs the target's ℓ₁ norm and a
loss).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.base import Parameter, State, Step
from simulator.engine.learners.linear import LinearLearner
from simulator.engine.learners.perceptron import LEARNING_RATE

__all__ = ["EG", "TOTAL_WEIGHT"]

FloatArray = NDArray[np.float64]

TOTAL_WEIGHT = Parameter(
    "total_weight",
    "U",
    "total weight",
    default=1.0,
    # Not smaller: U/(2D), the start, would be a subnormal float or 0.
    minimum=1e-100,
    maximum=1e6,
    help="w⁺ and w⁻ together weigh U: they start at U/(2D) and are normalized to U",
)


class EG(LinearLearner):
    """EG±: on a mistake, w⁺ᵢ ← U·w⁺ᵢ·rᵢ/Z and w⁻ᵢ ← U·w⁻ᵢ/rᵢ/Z, rᵢ = exp(2ηU·y·xᵢ)."""

    name: ClassVar[str] = "eg"
    title: ClassVar[str] = "EG±"
    source: ClassVar[str] = "UNL CSCE 970 lecture 3 (Kivinen and Warmuth 1997)"
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE, TOTAL_WEIGHT)
    exact: ClassVar[bool] = False
    companions: ClassVar[tuple[str, ...]] = ("positive", "negative")
    start_text: ClassVar[str] = "w⁺ = w⁻ = U/(2D)"
    score_formula: ClassVar[str] = "s = (w⁺ − w⁻)·x"
    update_formula: ClassVar[str] = "w⁺ᵢ ← U·w⁺ᵢ·rᵢ/Z, w⁻ᵢ ← U·w⁻ᵢ/rᵢ/Z"
    learning_rate: float
    total_weight: float

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (2, n_features)

    def default_weights(self, n_features: int) -> FloatArray:
        """U/(2D) in each of the 2D weights."""
        return np.full(self.state_shape(n_features), self.total_weight / (2 * n_features))

    def random_weights(self, n_features: int, rng: np.random.Generator) -> FloatArray:
        """Seeded random positive start, log-uniform in [1/2, 2] and scaled to weigh U."""
        w = np.exp2(rng.uniform(-1.0, 1.0, size=self.state_shape(n_features)))
        result: FloatArray = w * (self.total_weight / float(w.sum()))
        return result

    def check_weights(self, w: FloatArray) -> None:
        super().check_weights(w)
        if np.any(w <= 0):
            raise ValueError(
                "EG± needs positive initial weights w⁺, w⁻ (a multiplicative update never "
                "moves a weight away from 0)"
            )

    def weights(self, state: State) -> FloatArray:
        """w = w⁺ − w⁻."""
        result: FloatArray = state.w[0] - state.w[1]
        return result

    def factors(self, x: FloatArray, y: int) -> FloatArray:
        """rᵢ = exp(2ηU·y·xᵢ), by the C library's exp (as the compiled loop computes them;
        NumPy's vectorised exp may round otherwise)."""
        f = 2.0 * self.learning_rate * self.total_weight * y
        return np.array([_exp(f * v) for v in x.tolist()])

    def learn(self, state: State, step: Step) -> State:
        """w⁺ᵢ ← U·w⁺ᵢ·rᵢ/Z, w⁻ᵢ ← U·w⁻ᵢ/rᵢ/Z, Z = Σⱼ (w⁺ⱼ rⱼ + w⁻ⱼ/rⱼ) (summed in order)."""
        plus, minus = state.w
        r = self.factors(step.x, step.y)
        U = self.total_weight
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            z = float(np.add.accumulate(plus * r + minus / r)[-1])
            w = np.stack((U * plus * r / z, U * minus / r / z))
        w.setflags(write=False)
        return state.but(w=w)

    def compiled_family(self) -> tuple[int, float, float] | None:
        """EG± (4) with rate 2ηU and scale U, for the compiled loop (None for a subclass
        that learns its own way)."""
        if type(self).learn is not EG.learn or type(self).factors is not EG.factors:
            return None
        return (4, 2.0 * self.learning_rate * self.total_weight, self.total_weight)

    def refuse(self, state: State) -> str | None:
        """A factor rᵢ that overflowed (weights not numbers), or a weight that underflowed
        to 0, which no factor could revive."""
        w = state.w
        if not np.all(np.isfinite(w)):
            return (
                "a factor rᵢ = exp(2ηU·y·xᵢ) overflowed (2ηU·|xᵢ| beyond 709); try a "
                "smaller η or U, or standardized or unit-length features"
            )
        dead = np.flatnonzero(w.ravel() == 0.0)
        if dead.size:
            half, j = divmod(int(dead[0]), w.shape[-1])
            return (
                f"weight {j + 1} of {'w⁻' if half else 'w⁺'} underflowed to 0 (below 1e-308), and "
                "a multiplicative update could never revive it; try a smaller η or U, or "
                "standardized or unit-length features"
            )
        return None

    def divergence_advice(self, features: FloatArray) -> str:
        return "try a smaller η or U, or standardized or unit-length features"

    def companion(self, state: State, role: str, *, trials: int = 0) -> FloatArray:
        """w⁺ ("positive") or w⁻ ("negative")."""
        if role in self.companions:
            result: FloatArray = state.w[self.companions.index(role)]
            return result
        return super().companion(state, role, trials=trials)

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        """The factors r, the normalizer Z, and w⁺, w⁻ and w after."""
        r = self.factors(np.asarray(trial.x), trial.y)
        head = f"r = exp(2ηU·y·x) = ({vector(r)})"
        if trial.states is None:
            return f"{head}; {self.update_formula}: w = ({vector(trial.weights_after)})."
        before, after = trial.states
        plus, minus = before.w
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            z = float(np.sum(plus * r + minus / r))
        return (
            f"{head}, Z = Σ(w⁺r + w⁻/r) = {number(z)}; w⁺ ← U·w⁺·r/Z = ({vector(after.w[0])}), "
            f"w⁻ ← U·w⁻/r/Z = ({vector(after.w[1])}); w = w⁺ − w⁻ = "
            f"({vector(trial.weights_after)})."
        )

    def explain_score(self, trial: Any, number: Any) -> str:
        return f"{self.score_formula} = {number(trial.score)}"

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}, U = {self.total_weight:g}"


def _exp(value: float) -> float:
    """exp(value), inf where it overflows (math.exp raises instead)."""
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf
