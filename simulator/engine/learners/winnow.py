"""Littlestone's Winnow and Balanced Winnow (CMU 15-859(B), UIUC CS446): multiplicative
updates, and a mistake bound logarithmic in the number of irrelevant features.

Winnow: predict + iff w·x ≥ θ, w > 0 (default w = 1, θ = n); on a mistake
wᵢ ← wᵢ·α^(y xᵢ): with boolean features and α = 2 a mistake doubles (y = +1) or halves
(y = −1) the weights of the active features. Balanced Winnow keeps w⁺ and w⁻ and scores
(w⁺ − w⁻)·x.

Exact verdicts: a weight is w₀·α^S with S = Σ y·x over the mistakes (the shadow), so the
score is Σ w₀ᵢ xᵢ α^(Sᵢ) − θ: rational when every Sᵢ is whole (boolean or whole data),
else decided in decimal arithmetic of growing precision (`exact.exact_power_sum_sign`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.base import Bound, Parameter, State, Step, Theory
from simulator.engine.learners.exact import ExactSum, Row, as_fraction, written
from simulator.engine.learners.linear import LinearLearner
from simulator.engine.theory import monotone_disjunction, winnow_disjunction_bound

__all__ = ["PROMOTION", "BalancedWinnow", "Winnow"]

FloatArray = NDArray[np.float64]
_U = 2.0**-53
_SMALLEST_NORMAL = 2.0**-1022

PROMOTION = Parameter(
    "promotion",
    "α",
    "promotion factor",
    default=2.0,
    minimum=1.0,
    maximum=1e6,
    exclusive_minimum=True,
    help="a mistake multiplies the active weights by α (y = +1) or 1/α (y = -1)",
)
THRESHOLD = Parameter(
    "threshold",
    "θ",
    "threshold",
    default=None,
    minimum=0.0,
    maximum=1e12,
    exclusive_minimum=True,
    help="predict +1 iff w·x >= θ",
    derived="the number of features n, as in the notes",
)


def _powers(base: float, exponents: FloatArray) -> FloatArray:
    """base ** e for each e, by the C library's pow (as the compiled loop computes them;
    NumPy's vectorised power may round otherwise): once per distinct exponent."""
    values, inverse = np.unique(exponents, return_inverse=True)
    powers = np.array([_pow(base, v) for v in values.tolist()])
    result: FloatArray = powers[inverse].reshape(exponents.shape)
    return result


def _pow(base: float, exponent: float) -> float:
    """C's pow for a base > 0: ∞ where the result overflows (math.pow raises there, and the
    run's refusal of an overflowing update must see the ∞)."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf


def _power_of_two(value: float) -> bool:
    mantissa, _ = math.frexp(value)
    return mantissa == 0.5


class Winnow(LinearLearner):
    """Littlestone's Winnow: predict sign(w·x − θ), w > 0; on a mistake, wᵢ ← wᵢ α^(y xᵢ)."""

    name: ClassVar[str] = "winnow"
    title: ClassVar[str] = "Winnow"
    source: ClassVar[str] = "CMU 15-859(B) lecture 3; UIUC CS446 lecture 6"
    tie: ClassVar[str] = "positive"
    parameters: ClassVar[tuple[Parameter, ...]] = (PROMOTION, THRESHOLD)
    bound_formula: ClassVar[str | None] = "2 + 3r(1 + log₂ n)"
    start_text: ClassVar[str] = "1"
    wants_bias: ClassVar[bool] = False  # its threshold θ = n plays the bias's part
    score_formula: ClassVar[str] = "s = w·x − θ"
    update_formula: ClassVar[str] = "wᵢ ← wᵢ · α^(y xᵢ)"
    promotion: float
    threshold: float

    @classmethod
    def build(cls, n_features: int, *, features: FloatArray | None = None, **values: Any) -> Any:
        """θ defaults to the number of features n."""
        threshold = values.get("threshold")
        return cls(
            promotion=values.get("promotion"),
            threshold=float(n_features) if threshold is None else threshold,
        )

    def default_weights(self, n_features: int) -> FloatArray:
        return np.ones(self.state_shape(n_features))

    def random_weights(self, n_features: int, rng: np.random.Generator) -> FloatArray:
        """Seeded random positive start: log-uniform in [1/2, 2]."""
        return np.exp2(rng.uniform(-1.0, 1.0, size=self.state_shape(n_features)))

    def check_weights(self, w: FloatArray) -> None:
        super().check_weights(w)
        if np.any(w <= 0):
            raise ValueError(
                f"{self.title} needs positive initial weights (a multiplicative update "
                "never moves a weight away from 0)"
            )

    def shadow_unit(self) -> tuple[int, int]:
        """An update adds y·x to the exponents S of w = w₀·α^S."""
        return (1, 0)

    def start_shadow(self, state: State) -> ExactSum:
        """The exponents S = Σ y·x of w = w₀·α^S, one per feature: 0 at the start."""
        return ExactSum(state.w.shape[-1])

    def derive_shadow(self, state: State) -> ExactSum | None:
        """S from float weights with no error: each w/w₀ is a whole power of α (whole data),
        found and checked in fractions; None if one is not."""
        alpha = written(self.promotion)
        w = state.w.reshape(-1, state.w.shape[-1])[0]  # w (Winnow) or w⁺ (balanced)
        exponents = []
        for j, value in enumerate(w.tolist()):
            ratio = Fraction(value) / state.start[j]
            k = round(math.log(float(ratio)) / math.log(float(alpha))) if ratio > 0 else 0
            if alpha**k != ratio:
                return None
            exponents.append(Fraction(k))
        return ExactSum.of(exponents)

    def refuse(self, state: State) -> str | None:
        """Overflow, or a weight halved past the smallest float: 0, and no multiplication
        revives it."""
        if super().refuse(state) is not None:
            return "overflow"
        dead = np.flatnonzero(state.w.ravel() == 0.0)
        if not dead.size:
            return None
        j = int(dead[0]) % state.w.shape[-1]
        return (
            f"weight {j + 1} would underflow to 0 (demoted below 1e-308), and a "
            "multiplicative update could never revive it. These data keep demoting it: try "
            "Balanced Winnow, standardized or unit-length features, or α closer to 1"
        )

    def divergence_advice(self, features: FloatArray) -> str:
        return "try α closer to 1, or standardized or unit-length features"

    def factors(self, x: FloatArray, y: int) -> FloatArray:
        """α^(y x), the multipliers of a mistake on (x, y)."""
        return _powers(self.promotion, y * x)

    def compiled_family(self) -> tuple[int, float] | None:
        """Multiplicative (2) with α, for the compiled loop (None for a subclass that
        learns its own way)."""
        return (2, self.promotion) if type(self).learn is Winnow.learn else None

    def learn(self, state: State, step: Step) -> State:
        """wᵢ ← wᵢ · α^(y xᵢ)."""
        new_w = state.w * self.factors(step.x, step.y)
        new_w.setflags(write=False)
        error = self.propagate_error(state.error, new_w, step.x, step.y)
        error.setflags(write=False)
        return state.but(w=new_w, error=error)

    def propagate_error(
        self, error: FloatArray, new_w: FloatArray, x: FloatArray, y: int
    ) -> FloatArray:
        """e' = e·m (1 + 4u) + u|w'| (4 + |x| (2 + 2|ln α|)), m = fl(α^(y x)); e' = e·m where
        the product is exact: x = 0, or α a power of two and y x whole (m is a power of two
        then, and w' a normal float).

        Otherwise m is within u(2 + |x| (1 + |ln α|)) relative of the exact A^(YX): pow
        rounds within an ulp (2u), and α and x each rounded once from decimals move the power
        by about |yx|u and |x ln α|u; the product rounds by u|w'|. Doubled where it is cheap.
        """
        factors = self.factors(x, y)
        log = abs(math.log(self.promotion))
        grown = error * factors * (1.0 + 4.0 * _U) + _U * np.abs(new_w) * (
            4.0 + np.abs(x) * (2.0 + 2.0 * log)
        )
        exact = x == 0.0
        if _power_of_two(self.promotion):
            exact = exact | ((x == np.floor(x)) & (np.abs(new_w) >= _SMALLEST_NORMAL))
        result: FloatArray = np.where(exact, error * factors, grown)  # (w⁺, w⁻) broadcast
        return result

    def exact_terms(self, state: State, shadow: ExactSum, row: Row) -> Any:
        """Σᵢ w₀ᵢ xᵢ α^(Sᵢ) − θ."""
        alpha = written(self.promotion)
        terms = [(state.start[j] * as_fraction(m, e), alpha, shadow.value(j)) for j, m, e in row]
        return terms, written(self.threshold)

    def bound(self, theory: Theory) -> Bound | None:
        """2 + 3r(1 + log₂ n) when the data are boolean and labelled by a monotone
        disjunction of r variables and the run is the notes' Winnow (α = 2, θ = n, w₀ = 1,
        + iff w·x ≥ θ); None otherwise."""
        if theory.empty:
            return None
        n = theory.features.shape[1]
        notes_setting = (
            self.promotion == 2.0
            and self.threshold == float(n)
            and theory.tie == "positive"
            and bool(np.all(theory.initial.w == 1.0))
        )
        if not notes_setting:
            return None
        relevant = monotone_disjunction(theory.features, theory.labels)
        if relevant is None:
            return None
        return Bound(
            winnow_disjunction_bound(len(relevant), n),
            "2 + 3r(1 + log₂ n)",
            "Winnow's",
            f"the data are an OR of r = {len(relevant)} of n = {n} boolean variables, "
            "α = 2, θ = n, w₀ = 1",
        )

    def disjunction_bound(self, relevant: int, theory: Theory) -> Bound | None:
        """2 + 3r(1 + log₂ n), where the run is the notes' Winnow (`bound` says so)."""
        if self.bound(theory) is None:
            return None
        n = theory.features.shape[1]
        return Bound(
            winnow_disjunction_bound(relevant, n), "2 + 3r(1 + log₂ n)", "Winnow's",
            "an OR of r of n boolean variables, α = 2, θ = n, w₀ = 1",
        )  # fmt: skip

    def explain_score(self, trial: Any, number: Any) -> str:
        return (
            f"{self.score_formula} = {number(trial.score + self.threshold)} − "
            f"{number(self.threshold)} = {number(trial.score)}"
        )

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        return (
            f"{self.update_formula} with α = {number(self.promotion)}: "
            f"({vector(trial.weights_before)}) → ({vector(trial.weights_after)})."
        )

    def describe(self) -> str:
        return f"α = {self.promotion:g}, θ = {self.threshold:g}"


class BalancedWinnow(Winnow):
    """Balanced Winnow: predict sign(w⁺·x − w⁻·x); on a mistake, wᵢ⁺ ← wᵢ⁺ α^(y xᵢ) and
    wᵢ⁻ ← wᵢ⁻ α^(−y xᵢ). Both start at 1, so w = w⁺ − w⁻ starts at 0 and the first trial is
    undecided, as with the perceptron."""

    name: ClassVar[str] = "balanced-winnow"
    title: ClassVar[str] = "Balanced Winnow"
    source: ClassVar[str] = "UIUC CS446 lecture 6"
    parameters: ClassVar[tuple[Parameter, ...]] = (PROMOTION,)
    bound_formula: ClassVar[str | None] = None
    start_text: ClassVar[str] = "w⁺ = w⁻ = 1"
    score_formula: ClassVar[str] = "s = w⁺·x − w⁻·x"
    update_formula: ClassVar[str] = "wᵢ⁺ ← wᵢ⁺ α^(y xᵢ), wᵢ⁻ ← wᵢ⁻ α^(−y xᵢ)"
    threshold: float = 0.0
    wants_bias: ClassVar[bool] = True

    @classmethod
    def build(cls, n_features: int, *, features: FloatArray | None = None, **values: Any) -> Any:
        if values.get("threshold") not in (None, 0, 0.0):
            raise ValueError("Balanced Winnow has no threshold (θ = 0)")
        return cls(promotion=values.get("promotion"))

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (2, n_features)

    def weights(self, state: State) -> FloatArray:
        """w = w⁺ − w⁻, so that w·x = w⁺·x − w⁻·x."""
        result: FloatArray = state.w[0] - state.w[1]
        return result

    def factors(self, x: FloatArray, y: int) -> FloatArray:
        """(α^(y x), α^(−y x)), the multipliers of w⁺ and w⁻."""
        return _powers(self.promotion, np.stack((y * x, -y * x)))

    def compiled_family(self) -> tuple[int, float] | None:
        return (3, self.promotion) if type(self).learn is Winnow.learn else None

    def exact_parts(self, state: State) -> list[tuple[FloatArray, int]]:
        """w⁺ and w⁻ apart: their difference would round."""
        return [(state.w[0], 1), (state.w[1], -1)]

    def weight_error(self, state: State) -> FloatArray:
        """e_w = (e⁺ + e⁻)(1 + 2u) + 2u|w⁺ − w⁻|: the subtraction rounds once."""
        result: FloatArray = (state.error[0] + state.error[1]) * (1.0 + 2.0 * _U) + 2.0 * _U * (
            np.abs(state.w[0] - state.w[1])
        )
        return result

    def exact_terms(self, state: State, shadow: ExactSum, row: Row) -> Any:
        """Σᵢ xᵢ (w₀ᵢ⁺ α^(Sᵢ) − w₀ᵢ⁻ α^(−Sᵢ))."""
        alpha, n = written(self.promotion), state.w.shape[-1]
        terms = []
        for j, m, e in row:
            x, s = as_fraction(m, e), shadow.value(j)
            terms += [(state.start[j] * x, alpha, s), (-state.start[n + j] * x, alpha, -s)]
        return terms, Fraction(0)

    def bound(self, theory: Theory) -> Bound | None:
        return None

    def explain_score(self, trial: Any, number: Any) -> str:
        return f"{self.score_formula} = {number(trial.score)}"

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        return (
            f"{self.update_formula}, α = {number(self.promotion)}: "
            f"w = w⁺ − w⁻ goes ({vector(trial.weights_before)}) → ({vector(trial.weights_after)})."
        )

    def describe(self) -> str:
        return f"α = {self.promotion:g}"
