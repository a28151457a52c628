"""The perceptron with a margin (UIUC CS446 lecture 6, "a linear classifier with margins"
for noisy data): update when y·w·x ≤ τ, not only on a wrong sign.

The run takes v = y·s − τ as the verdict (`margin_offset`; in the compiled loops and the
exact verdicts too), so y·s = τ is an update; `Trial.mistake` is True for every such
margin mistake and k counts them, while `Trial.prediction` stays the sign of s.

Its bound follows Novikoff's proof: each update still adds ηγ* to w·u*, but may add up to
2ητ + η²R² to ‖w‖², so from w₀ = 0, k ≤ (R² + 2τ/η)/γ*²; from w₀ ≠ 0, the largest k with
w₀·u* + kηγ* ≤ √(‖w₀‖² + k(η²R² + 2ητ)).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.drawables import LevelSet, Line
from simulator.engine.learners.base import Bound, Parameter, State, Theory
from simulator.engine.learners.exact import dot_rows
from simulator.engine.learners.perceptron import LEARNING_RATE, Perceptron
from simulator.engine.theory import general_mistake_bound

__all__ = ["MARGIN", "MarginPerceptron"]

FloatArray = NDArray[np.float64]

MARGIN = Parameter(
    "margin",
    "τ",
    "margin",
    default=1.0,
    minimum=0.0,
    maximum=1e9,
    help="update when y·w·x ≤ τ (τ = 0: the perceptron)",
)


class MarginPerceptron(Perceptron):
    """The margin perceptron: if y·w·x ≤ τ, w ← w + η y x."""

    name: ClassVar[str] = "margin-perceptron"
    title: ClassVar[str] = "Margin perceptron"
    source: ClassVar[str] = "UIUC CS446 lecture 6 (a linear classifier with margins)"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE, MARGIN)
    roles: ClassVar[tuple[str, ...]] = ("boundary", "previous", "margin-band")
    bound_formula: ClassVar[str | None] = "(R² + 2τ/η)/γ*²"
    update_formula: ClassVar[str] = "y·w·x ≤ τ: w ← w + η y x"
    margin: float

    def margin_offset(self) -> float:
        """τ: the run updates when v = y·s − τ ≤ 0."""
        return float(self.margin)

    def bound(self, theory: Theory) -> Bound | None:
        """(R² + 2τ/η)/γ*² from w₀ = 0 (see the module docstring); ∞ on data that are not
        separable, nan without data."""
        eta, tau = self.step_size(), float(self.margin)
        why = "on separable data, for every order: Novikoff's proof with updates at y·w·x ≤ τ"
        owner = "the margin perceptron's"
        if theory.empty:
            return Bound(math.nan, "(R² + 2τ/η)/γ*²", owner, why, rate=eta)
        report = theory.margin_report()
        w0 = self.weights(theory.initial)
        general = bool(np.any(w0))
        stretched = math.sqrt(report.radius**2 + 2.0 * tau / eta)  # R² + 2τ/η = R'²
        if not report.separable or report.separator is None:
            value = math.inf
        elif not general:
            value = stretched**2 / report.gamma**2
        else:
            u = np.asarray(report.separator)
            value = general_mistake_bound(w0, u, report.gamma, stretched, eta)
        formula = "max k: w₀·u* + kηγ* ≤ √(‖w₀‖² + k(η²R² + 2ητ))" if general else "(R² + 2τ/η)/γ*²"
        return Bound(value, formula, owner, why, general=general, rate=eta)

    def disjunction_bound(self, relevant: int, theory: Theory) -> Bound | None:
        return None

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """The boundary w·x = 0 (under `role`) and, for the current state and τ > 0, the
        band's two edges w·x = ±τ."""
        drawn = super().drawables(state, features, role)
        if role != "boundary" or not self.margin:
            return drawn
        w = self.weights(state)
        return drawn + tuple(
            edge
            for level in (self.margin, -self.margin)
            if (edge := _level_set(features, w, level, "margin-band")) is not None
        )

    def explain_score(self, trial: Any, number: Any) -> str:
        signed = trial.y * trial.score
        relation = "≤" if signed <= self.margin else ">"
        return (
            f"{self.score_formula} = {number(trial.score)}, y·s = {number(signed)} "
            f"{relation} τ = {number(self.margin)}"
        )

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}, τ = {self.margin:g}"


def _level_set(features: Any, w: FloatArray, level: float, role: str) -> Any:
    """{p : w·x(p) = level}: a line where it is one in the plane, else a level set."""
    line = features.input_line(w, level)
    if line is not None:
        return Line(role, line)
    if features.is_linear_in_input or not np.all(np.isfinite(w)) or not np.any(w):
        return None
    frozen = np.array(w)

    def score(points: FloatArray) -> FloatArray:
        return dot_rows(features.transform(points), frozen)

    return LevelSet(role, score, level)
