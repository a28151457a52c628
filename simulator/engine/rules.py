"""The update rules, each next to its formula from the course notes.

A rule is stateless: it maps (state, trial) to a new state. Everything that differs per
rule lives on its class: title, parameters with their defaults and ranges, the tie rule,
which mistake bound applies, and how a trial is explained. Views and the command line ask
the class; adding a learner is one class and one `register` call. The state is a NumPy array
(the weights w; for Balanced Winnow the pair (w+, w-) as a (2, n) array), and `weights`
turns it into the effective w that defines the boundary w·x = θ.

Score s = w·x − θ (θ = 0 except classic Winnow); prediction sign(s). What s = 0 means is
the run's tie rule (TIES).

Ties are decided as a hand calculation would. Inputs written in decimals are not exact in
binary, and every update rounds, so a score that is exactly 0 in rational arithmetic comes
out as, say, −2.67e-12. A rule that `tracks_error` keeps a running bound e on how far each
computed weight can be from the exact one (`propagate_error`, one line per rule, derived
in its docstring), and a computed score within its bound (`tie_terms`) is an exact 0.
Data written with a few decimals then follow the trajectory of exact rational arithmetic.

`scores` is exact and row-independent: the score of a point is the same bits whether it
is computed alone or in a block of a million (products rounded, then summed left to right,
never a BLAS kernel whose order depends on the block), in NumPy (`numpy_dot_rows`) or in
the compiled loop (`_scan.c`). That is what lets `Simulation.run` jump ahead through a
block without changing the trajectory that `Simulation.step` would take.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator.engine.theory import largest_gram_eigenvalue

__all__ = [
    "ADALINE_FALLBACK_RATE",
    "ALGORITHMS",
    "TIES",
    "TIE_TEXT",
    "UNIT_ROUNDOFF",
    "Adaline",
    "BalancedWinnow",
    "Parameter",
    "Perceptron",
    "Rule",
    "Winnow",
    "compiled",
    "dot2_rows",
    "dot_rows",
    "make_rule",
    "numpy_dot_rows",
    "refine_bounds",
    "refine_coefficients",
    "refine_theta",
    "register",
    "round_down",
    "squared_error",
    "tie_terms",
    "written_exactly",
]

TIES = ("mistake", "positive", "negative")
"""What a score s = 0 means: undecided, a mistake whatever y (the perceptron's y·s <= 0);
+1 (Winnow's "+ iff w·x >= θ"); or -1 ("+ iff w·x > 0")."""

TIE_TEXT = {
    "mistake": "undecided (a mistake whatever y)",
    "positive": "predicts +1 (+ iff s ≥ 0)",
    "negative": "predicts −1 (+ iff s > 0)",
}
"""What a tie (s = 0) predicts under each tie rule, in words for the explanation."""

FloatArray = NDArray[np.float64]


try:  # the compiled loops (setup.py builds them when a C compiler is there)
    from simulator.engine import _scan as compiled  # type: ignore[attr-defined]
except ImportError:  # the NumPy code gives the same bits, only slower
    compiled = None

_BLOCK_ELEMENTS = 1 << 20  # rows x features scored at once by NumPy (bounds the temporaries)


def numpy_dot_rows(X: FloatArray, w: FloatArray, theta: float = 0.0) -> FloatArray:
    """s = x·w − θ for every row x of X, in NumPy: products rounded, summed left to right.

    Elementwise IEEE operations in a fixed order (a few columns and many rows: one vector
    operation per column; else an accumulated sum along each row, which is sequential), so
    each row's result does not depend on how many rows are computed together, and equals
    the compiled loop's.
    """
    n, d = X.shape
    if n == 1:
        total: FloatArray = np.add.accumulate(X[0] * w)[-1:]
    elif d <= 8:
        total = X[:, 0] * w[0]
        for j in range(1, d):
            total += X[:, j] * w[j]
    else:
        total = np.empty(n)
        step = max(1, _BLOCK_ELEMENTS // d)
        for a in range(0, n, step):
            total[a : a + step] = np.add.accumulate(X[a : a + step] * w, axis=1)[:, -1]
    if theta:
        total -= theta
    return total


def dot_rows(X: FloatArray, w: FloatArray, theta: float = 0.0) -> FloatArray:
    """s = x·w − θ for every row x of X: the compiled loop when built, else NumPy (same bits)."""
    module = compiled
    if module is None or X.shape[0] == 0:
        return numpy_dot_rows(X, w, theta)
    out = np.empty(X.shape[0])
    module.dot(
        np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(w, np.float64), theta, out
    )
    return out


def squared_error(X: FloatArray, w: FloatArray, theta: float, y: NDArray[Any]) -> float:
    """Σ (yᵢ − sᵢ)² with s = x·w − θ, summed in row order (compiled or NumPy: same bits)."""
    module = compiled
    if module is not None and X.shape[0]:
        return float(
            module.squared_error(
                np.ascontiguousarray(X, dtype=np.float64),
                np.ascontiguousarray(w, np.float64),
                theta,
                np.ascontiguousarray(y, dtype=np.int8),
            )
        )
    residuals = y - numpy_dot_rows(X, w, theta)
    squares = residuals * residuals
    return float(np.cumsum(squares)[-1]) if squares.size else 0.0


UNIT_ROUNDOFF = 2.0**-53
"""u: a rounded float64 operation is off by at most u times its result's magnitude."""
_U = UNIT_ROUNDOFF


def tie_terms(w: FloatArray, error: FloatArray, theta: float) -> tuple[FloatArray, float]:
    """(c, θ_err): a computed score s is within b = Σ_j |x_j| c_j + θ_err of the exact score.

    The exact score is W·X − Θ over the exact inputs X (the decimals as written: a stored
    x is within u|x| of one), weights W with |w_j − W_j| <= e_j (`error`), and θ. The
    rounding of the d products and sums is at most γ_d Σ|w_j x_j|, γ_d = du/(1 − du);
    the inputs' own rounding adds u|w_j x_j|, the final − θ u(|w·x| + θ), θ's own uθ:
        |s − S| <= Σ_j |x_j| (e_j (1 + 2u) + (γ_d + 3u)|w_j|) + 2uθ.
    The coefficients are inflated by 1 + 4(d + 2)u and θ's term doubled, so that b as
    computed in floating point (left to right, as `numpy_dot_rows`) still bounds it.
    """
    d = w.shape[0]
    gamma = d * _U / (1.0 - d * _U)
    inflation = 1.0 + 4.0 * (d + 2) * _U
    c: FloatArray = error * ((1.0 + 2.0 * _U) * inflation)
    c += np.abs(w) * ((gamma + 3.0 * _U) * inflation)
    return c, 4.0 * _U * abs(theta) + (d + 2) * _TINY


_TINY = 2.0**-1074  # an underflowing operation is off by at most half of this, absolutely
_GRID = 16.0
_GRID_LIMIT = 2.0**36  # a multiple of 1/16 below this has at most 15 significant digits
_INTEGER_LIMIT = 2.0**53
_SUM_LIMIT = 2.0**43  # multiples of 1/256 below this add without rounding
_SPLIT = 134217729.0  # 2^27 + 1: Dekker's split of a double into two 26-bit halves


def _all_whole(x: FloatArray, state: FloatArray, new_state: FloatArray, eta: float) -> bool:
    """Whether x, w and w' are all whole numbers, |w|, |w'| and |η x| below 2^53 (η whole):
    then w' = w + ηyx was computed without rounding, entry by entry."""
    return bool(
        max(float(np.max(np.abs(state))), float(np.max(np.abs(new_state)))) < _INTEGER_LIMIT
        and float(np.max(np.abs(x))) * eta < _INTEGER_LIMIT
        and np.array_equal(x, np.floor(x))
        and np.array_equal(state, np.floor(state))
    )


def written_exactly(v: FloatArray) -> NDArray[np.bool_]:
    """Whether each float is exactly the decimal it is written as (repr): a multiple of 1/16
    below 2^36 in magnitude, or a whole number up to 2^53.

    Such a number has at most 16 significant digits and no other decimal that short reads
    back as it, so the decimal as written is the float itself (0.5, 3, 1.3e8, 0.0625; not
    0.1 or 7e-9). Inputs and η like these carry no rounding error of their own.
    """
    t = v * _GRID  # exact: a power of two
    whole = v == np.floor(v)
    result: NDArray[np.bool_] = (t == np.floor(t)) & (
        (np.abs(v) < _GRID_LIMIT) | (whole & (np.abs(v) <= _INTEGER_LIMIT))
    )
    return result


def _written_exactly(v: float) -> bool:
    """`written_exactly` for one number."""
    t = v * _GRID
    return (
        math.isfinite(t)
        and t == math.floor(t)
        and (abs(v) < _GRID_LIMIT or (v == math.floor(v) and abs(v) <= _INTEGER_LIMIT))
    )


def refine_coefficients(w: FloatArray, error: FloatArray) -> FloatArray:
    """r (2d numbers): the bound B = Σ_j |x_j| (r_j + [x_j not written exactly] r_{d+j}) + θ_r
    of the exact score around the compensated score `dot2_rows`, when that is 0.

    `dot2_rows` is within γ²_{d+1} (Σ|w_j x_j| + |θ|) of the exact w·x − θ of the stored
    floats, and not farther than u|result| (Ogita, Rump and Oishi 2005, Dot2); the exact
    score S of the decimals as written and exact weights differs from that by at most
    Σ_j e_j |x_j| (1 + 2u) + Σ_j u (1 + 2u) |w_j x_j| over the inputs not written exactly
    (`written_exactly`), plus u|θ| if θ is not. If S = 0, |dot2| <= B; if |dot2| > B, S ≠ 0
    has dot2's sign. B as computed is inflated by 1 + 4(d + 2)u to bound its own rounding.
    _scan.c computes r itself, with these operations, only for the rows that need it.
    """
    d = w.shape[0]
    gamma = (d + 1) * _U / (1.0 - (d + 1) * _U)
    square = gamma * gamma
    inflation = 1.0 + 4.0 * (d + 2) * _U
    size = np.abs(w)
    r = np.empty(2 * d)
    r[:d] = (error * (1.0 + 3.0 * _U) + size * square) * inflation
    r[d:] = size * (_U * (1.0 + 2.0 * _U) * inflation)
    return r


def refine_theta(theta: float, d: int) -> float:
    """θ_r of `refine_coefficients`: θ's share of the bound, and underflow's."""
    gamma = (d + 1) * _U / (1.0 - (d + 1) * _U)
    inflation = 1.0 + 4.0 * (d + 2) * _U
    size = abs(theta)
    own = 0.0 if _written_exactly(theta) else _U * (1.0 + 2.0 * _U) * size
    return (own + gamma * gamma * size) * inflation + (2 * d + 4) * _TINY


def _two_product(a: FloatArray, b: float) -> tuple[FloatArray, FloatArray]:
    """(p, e): p = fl(a·b), e = a·b − p exactly (Dekker; no fused multiply-add), unless it
    underflows."""
    p = a * b
    c = _SPLIT * a
    a_high = c - (c - a)
    a_low = a - a_high
    c2 = _SPLIT * b
    b_high = c2 - (c2 - b)
    b_low = b - b_high
    e = a_low * b_low - (((p - a_high * b_high) - a_low * b_high) - a_high * b_low)
    return p, e


def _two_sum(a: FloatArray, b: FloatArray | float) -> tuple[FloatArray, FloatArray]:
    """(s, e): s = fl(a + b), e = a + b − s exactly (Knuth)."""
    s = a + b
    z = s - a
    e = (a - (s - z)) + (b - z)
    return s, e


def dot2_rows(X: FloatArray, w: FloatArray, theta: float = 0.0) -> FloatArray:
    """x·w − θ for every row, as if computed in twice the precision (Ogita–Rump–Oishi Dot2:
    error-free products and sums, their errors summed apart), the same bits as _scan.c's."""
    p, s = _two_product(X[:, 0], float(w[0]))
    for j in range(1, w.shape[0]):
        h, r = _two_product(X[:, j], float(w[j]))
        p, q = _two_sum(p, h)
        s = s + (q + r)
    if theta:
        p, q = _two_sum(p, -theta)
        s = s + q
    result: FloatArray = p + s
    return result


def refine_bounds(X: FloatArray, r: FloatArray, theta_r: float) -> FloatArray:
    """B of `refine_coefficients` for every row of X, summed left to right as _scan.c does."""
    d = X.shape[1]
    loose = ~written_exactly(X)
    coefficients = np.where(loose, r[:d] + r[d:], r[:d])
    sizes = np.abs(X)
    total = sizes[:, 0] * coefficients[:, 0]
    for j in range(1, d):
        total = total + sizes[:, j] * coefficients[:, j]
    result: FloatArray = total + theta_r
    return result


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter of a rule, as `Settings`, the command line and the window see it.

    `name` is the keyword of `Simulation` and the field of `Settings`. A number lies in
    (minimum, maximum] when `exclusive_minimum`, else in [minimum, maximum]; a choice is one
    of `choices`. `default` None means the rule derives it (from the data, or θ = n).
    """

    name: str
    symbol: str
    title: str
    default: float | str | None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""
    derived: str = ""  # how the default is found when `default` is None

    @property
    def default_text(self) -> str:
        if self.default is None:
            return self.derived
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    @property
    def flag(self) -> str:
        """The command-line option, e.g. --learning-rate."""
        return "--" + self.name.replace("_", "-")

    def range_text(self) -> str:
        """The allowed values in words, for help texts and error messages."""
        if self.choices:
            return " or ".join(self.choices)
        low = high = ""
        if self.minimum is not None:
            low = f"{self.symbol} {'>' if self.exclusive_minimum else '≥'} {self.minimum:g}"
        if self.maximum is not None:
            high = f"{self.symbol} ≤ {self.maximum:g}"
        return " and ".join(t for t in (low, high) if t)

    def check(self, value: Any) -> Any:
        """`value` if it is allowed, else a ValueError that says what is."""
        if self.choices:
            if value not in self.choices:
                raise ValueError(f"unknown {self.title} {value!r}; use {self.range_text()}")
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"the {self.title} {self.symbol} must be a number; got {value!r}"
            ) from None
        low, high = self.minimum, self.maximum
        if not (
            math.isfinite(number)
            and (low is None or (number > low if self.exclusive_minimum else number >= low))
            and (high is None or number <= high)
        ):
            raise ValueError(
                f"the {self.title} {self.symbol} must be a finite number with "
                f"{self.range_text()}; got {value!r}"
            )
        return number


LEARNING_RATE = Parameter(
    "learning_rate",
    "η",
    "learning rate",
    default=1.0,
    # Not smaller: products ηx and scores would be subnormal floats, whose rounding is not
    # relative, and the exact-tie bound would no longer follow exact arithmetic (from w₀ = 0
    # the perceptron's mistakes do not depend on η anyway).
    minimum=1e-100,
    maximum=1e6,
    help="the step size η",
)
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

ADALINE_RATE = Parameter(
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
ADALINE_MODE = Parameter(
    "mode",
    "mode",
    "mode",
    default="online",
    choices=("online", "batch"),
    help="online: an LMS step per trial; batch: one gradient step per epoch",
)
ADALINE_FALLBACK_RATE = 0.1
"""Adaline's η when the data give no scale (no points, or all at the origin)."""


def round_down(value: float, digits: int = 2) -> float:
    """`value` > 0 rounded down to `digits` significant digits (0.01652 -> 0.016)."""
    exact = Decimal(repr(value))
    step = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    return float(exact.quantize(step, rounding=ROUND_FLOOR))


Formatter = Callable[[float], str]


class Rule:
    """Base of the update rules; see the module docstring for the contract.

    Class attributes every rule sets: `name` (the key in ALGORITHMS), `title`, `tie` (its
    default tie rule, one of TIES), `parameters`, `bound` (which mistake bound applies:
    "novikoff", "winnow-disjunction", or None) and `bound_formula` (that bound as the notes
    write it), `start_text` (the default start w₀ in words), `mistake_driven`,
    `least_squares` (it descends the squared error, so w_LS and the stable η apply), and the
    formulas the explanation prints (`score_formula`, `update_formula`).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    bound: ClassVar[str | None] = None
    bound_formula: ClassVar[str | None] = None
    start_text: ClassVar[str] = "0"
    mistake_driven: ClassVar[bool] = True
    least_squares: ClassVar[bool] = False
    tracks_error: ClassVar[bool] = False
    score_formula: ClassVar[str] = "s = w·x"
    update_formula: ClassVar[str] = ""
    batch: bool = False
    threshold: float = 0.0

    @classmethod
    def build(
        cls, n_features: int, *, features: FloatArray | None = None, **parameters: Any
    ) -> Rule:
        """This rule with `parameters` (None: the default), checked; the others ignored.

        `features` (the feature matrix of the data) is there for defaults derived from
        the data."""
        known = {p.name: parameters.get(p.name) for p in cls.parameters}
        values = {
            name: (p.default if known[name] is None else known[name])
            for name, p in ((p.name, p) for p in cls.parameters)
        }
        return cls(**values)

    @classmethod
    def parameter(cls, name: str) -> Parameter | None:
        return next((p for p in cls.parameters if p.name == name), None)

    def value(self, name: str) -> Any:
        """The value this rule uses for its parameter `name` (a derived default included)."""
        return getattr(self, name)

    @property
    def novikoff_bound(self) -> bool:
        """Whether Block–Novikoff's bound is this rule's (`bound` "novikoff"): then its proof,
        the squeeze A_k ≥ k ≥ B_k, applies on separable data. Views ask this."""
        return self.bound == "novikoff"

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

    def initial_error(self, state: FloatArray, given: bool) -> FloatArray:
        """The error bound of the initial state: u|w₀| for numbers typed in decimals (they
        are rounded once; 0 for those `written_exactly`), 0 for the defaults, "ones",
        "zeros" and "random" (exact)."""
        if not given:
            return np.zeros_like(state)
        return np.where(written_exactly(state), 0.0, _U * np.abs(state))

    def propagate_error(
        self, error: FloatArray, state: FloatArray, new_state: FloatArray, x: FloatArray, y: int
    ) -> FloatArray:
        """The error bound after `update` took `state` to `new_state` on (x, y)."""
        raise NotImplementedError

    def weight_error(self, state: FloatArray, error: FloatArray) -> FloatArray:
        """The error bound of the effective w, given that of the state."""
        return error

    def refuse(self, new_state: FloatArray) -> str | None:
        """Why the rule cannot go on from `new_state` (finite, within 1e150), or None."""
        return None

    def scores(self, state: FloatArray, X: FloatArray) -> FloatArray:
        """s = w·x − θ for each row x of X (see `dot_rows`: the same bits for any block)."""
        return dot_rows(X, self.weights(state), self.threshold)

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        raise NotImplementedError

    def describe(self) -> str:
        """The parameters, for titles and reports."""
        raise NotImplementedError

    # -- how a trial is explained (the arithmetic strip under the plot) --------------------

    def explain_score(self, score: float, number: Formatter) -> str:
        """The score of a trial as the notes write it, e.g. "s = w·x = 0.5"."""
        return f"{self.score_formula} = {number(score)}"

    def explain_update(
        self,
        x: str,
        y: int,
        score: float,
        before: str,
        after: str,
        number: Formatter,
    ) -> str:
        """The update of a trial that changed w (x, before, after already formatted)."""
        return f"{self.update_formula}: ({before}) → ({after})."

    def explain_no_update(self) -> str | None:
        """Why a trial did not change w, when that is the rule's normal behaviour (None:
        the usual reasons apply: no mistake, or the update was refused)."""
        return None


@dataclass(frozen=True)
class Perceptron(Rule):
    """Rosenblatt's perceptron: predict sign(w·x); on a mistake, w <- w + η y x."""

    learning_rate: float = 1.0
    name: ClassVar[str] = "perceptron"
    title: ClassVar[str] = "Perceptron"
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE,)
    bound: ClassVar[str | None] = "novikoff"
    bound_formula: ClassVar[str | None] = "R²/γ*²"
    tracks_error: ClassVar[bool] = True
    update_formula: ClassVar[str] = "w ← w + η y x"

    def __post_init__(self) -> None:
        LEARNING_RATE.check(self.learning_rate)

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        """w <- w + η y x."""
        return state + (self.learning_rate * y) * x

    def propagate_error(
        self, error: FloatArray, state: FloatArray, new_state: FloatArray, x: FloatArray, y: int
    ) -> FloatArray:
        """e' = e (1 + 4u) + 4u|ηx| + 2u|w'|; e' = e where nothing rounded.

        fl(ηy·x) is within u|ηx| of ηyx, which is within 2u|ηx| of the exact H·X (η and x
        each rounded once from decimals); the sum rounds by u|w'|. The spare u's cover the
        rounding of this very formula. Where η and x_j are written exactly (multiples of
        1/16, `written_exactly`), w_j is a multiple of 1/256 and |w_j|, |w'_j|, |η x_j| <
        2^43, the product and the sum are exact: the error stays e_j (the bias weight, whole
        or binary data, at any scale). So they are where η, x_j and w_j are whole numbers
        and |w_j|, |w'_j|, |η x_j| < 2^53 (whole data up to 9e15: 2e13 and 1e13).
        """
        eta = self.learning_rate
        exact_eta = _written_exactly(eta)
        whole_eta = exact_eta and eta == math.floor(eta)
        if x.size > 16:
            if whole_eta and _all_whole(x, state, new_state, eta):
                return error  # whole data, whole weights (boolean data, η = 1): nothing rounds
            # Where x_j = 0, w'_j = w_j + 0 is w_j itself: only the other entries can round
            # (boolean data in thousands of dimensions are mostly 0).
            nz = np.flatnonzero(x)
            xs, ws, ns, es = x[nz], state[nz], new_state[nz], error[nz]
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
                        & (np.abs(ns) < _INTEGER_LIMIT)  # rounding is monotone: the
                        & (np.abs(xs) * eta < _INTEGER_LIMIT)  # exact results are below 2^53
                    )
                grown = np.where(exact, es, grown)
            out_array = error.copy()
            out_array[nz] = grown
            return out_array
        # A few numbers: plain floats are quicker than NumPy (the same operations, bits).
        k1, k2, k3 = 4.0 * _U * eta, 2.0 * _U, 1.0 + 4.0 * _U
        out = []
        for xj, wj, nj, ej in zip(
            x.tolist(), state.tolist(), new_state.tolist(), error.tolist(), strict=True
        ):
            ax = abs(xj)
            if (
                xj == 0.0
                or (
                    exact_eta
                    and abs(wj) < _SUM_LIMIT
                    and abs(nj) < _SUM_LIMIT
                    and ax * eta < _SUM_LIMIT
                    and (wj * 256.0).is_integer()
                    and _written_exactly(xj)
                )
                or (
                    whole_eta
                    and abs(wj) < _INTEGER_LIMIT
                    and abs(nj) < _INTEGER_LIMIT
                    and ax * eta < _INTEGER_LIMIT
                    and wj.is_integer()
                    and xj.is_integer()
                )
            ):
                out.append(ej)
            else:
                out.append(ax * k1 + abs(nj) * k2 + ej * k3)
        return np.array(out)

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}"

    def explain_update(
        self, x: str, y: int, score: float, before: str, after: str, number: Formatter
    ) -> str:
        sign = "+1" if y > 0 else "−1"
        return (
            f"{self.update_formula} = ({before}) + {number(self.learning_rate)}·({sign})·({x})"
            f" = ({after})."
        )


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
    tie: ClassVar[str] = "positive"
    parameters: ClassVar[tuple[Parameter, ...]] = (
        PROMOTION,
        Parameter(
            "threshold",
            "θ",
            "threshold",
            default=None,
            minimum=0.0,
            maximum=1e12,
            exclusive_minimum=True,
            help="predict +1 iff w·x >= θ",
            derived="the number of features n, as in the notes",
        ),
    )
    bound: ClassVar[str | None] = "winnow-disjunction"
    bound_formula: ClassVar[str | None] = "2 + 3r(1 + log₂ n)"
    start_text: ClassVar[str] = "1"
    tracks_error: ClassVar[bool] = True
    score_formula: ClassVar[str] = "s = w·x − θ"
    update_formula: ClassVar[str] = "wᵢ ← wᵢ · α^(y xᵢ)"

    @classmethod
    def build(
        cls, n_features: int, *, features: FloatArray | None = None, **parameters: Any
    ) -> Rule:
        """θ defaults to the number of features n."""
        threshold = parameters.get("threshold")
        promotion = parameters.get("promotion")
        return cls(
            promotion=float(PROMOTION.default if promotion is None else promotion),  # type: ignore[arg-type]
            threshold=float(n_features if threshold is None else threshold),
        )

    def __post_init__(self) -> None:
        for parameter in self.parameters:
            parameter.check(getattr(self, parameter.name))

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

    def refuse(self, new_state: FloatArray) -> str | None:
        """A weight halved past the smallest float is 0, and no multiplication revives it."""
        dead = np.flatnonzero(new_state.ravel() == 0.0)
        if not dead.size:
            return None
        j = int(dead[0]) % new_state.shape[-1]
        return (
            f"weight {j + 1} would underflow to 0 (demoted below 1e-308), and a "
            "multiplicative update could never revive it. These data keep demoting it: try "
            "Balanced Winnow, standardized or unit-length features, or α closer to 1"
        )

    def factors(self, x: FloatArray, y: int) -> FloatArray:
        """α^(y x), the multipliers of a mistake on (x, y)."""
        result: FloatArray = self.promotion ** (y * x)
        return result

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        """wᵢ <- wᵢ · α^(y xᵢ)."""
        return state * self.factors(x, y)

    def propagate_error(
        self, error: FloatArray, state: FloatArray, new_state: FloatArray, x: FloatArray, y: int
    ) -> FloatArray:
        """e' = e·m (1 + 4u) + u|w'| (4 + |x| (2 + 2|ln α|)), m = fl(α^(y x)); e' = e where x = 0.

        m is within u(2 + |x| (1 + |ln α|)) relative of the exact A^(YX): pow rounds within
        an ulp (2u), and α and x each rounded once from decimals move the power by about
        |yx|u and |x ln α|u; the product rounds by u|w'|. Doubled where it is cheap.
        """
        factors = self.factors(x, y)
        log = abs(math.log(self.promotion))
        grown = error * factors * (1.0 + 4.0 * _U) + _U * np.abs(new_state) * (
            4.0 + np.abs(x) * (2.0 + 2.0 * log)
        )
        return np.where(x != 0.0, grown, error)

    def describe(self) -> str:
        return f"α = {self.promotion:g}, θ = {self.threshold:g}"

    def explain_score(self, score: float, number: Formatter) -> str:
        return (
            f"{self.score_formula} = {number(score + self.threshold)} − "
            f"{number(self.threshold)} = {number(score)}"
        )

    def explain_update(
        self, x: str, y: int, score: float, before: str, after: str, number: Formatter
    ) -> str:
        return f"{self.update_formula} with α = {number(self.promotion)}: ({before}) → ({after})."


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
    tie: ClassVar[str] = "positive"
    parameters: ClassVar[tuple[Parameter, ...]] = (PROMOTION,)
    bound: ClassVar[str | None] = None
    bound_formula: ClassVar[str | None] = None
    start_text: ClassVar[str] = "w⁺ = w⁻ = 1"
    score_formula: ClassVar[str] = "s = w⁺·x − w⁻·x"
    update_formula: ClassVar[str] = "wᵢ⁺ ← wᵢ⁺ α^(y xᵢ), wᵢ⁻ ← wᵢ⁻ α^(−y xᵢ)"

    @classmethod
    def build(
        cls, n_features: int, *, features: FloatArray | None = None, **parameters: Any
    ) -> Rule:
        if parameters.get("threshold") not in (None, 0, 0.0):
            raise ValueError("Balanced Winnow has no threshold (θ = 0)")
        promotion = parameters.get("promotion")
        return cls(promotion=float(PROMOTION.default if promotion is None else promotion))  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        PROMOTION.check(self.promotion)
        if self.threshold != 0.0:
            raise ValueError("Balanced Winnow has no threshold (θ = 0)")

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (2, n_features)

    def weights(self, state: FloatArray) -> FloatArray:
        """w = w⁺ − w⁻, so that w·x = w⁺·x − w⁻·x."""
        result: FloatArray = state[0] - state[1]
        return result

    def factors(self, x: FloatArray, y: int) -> FloatArray:
        """(α^(y x), α^(−y x)), the multipliers of w⁺ and w⁻."""
        result: FloatArray = self.promotion ** np.stack((y * x, -y * x))
        return result

    def update(self, state: FloatArray, x: FloatArray, y: int, score: float) -> FloatArray:
        """wᵢ⁺ <- wᵢ⁺ α^(y xᵢ),  wᵢ⁻ <- wᵢ⁻ α^(−y xᵢ)."""
        return state * self.factors(x, y)

    def weight_error(self, state: FloatArray, error: FloatArray) -> FloatArray:
        """e_w = (e⁺ + e⁻)(1 + 2u) + 2u|w⁺ − w⁻|: the subtraction rounds once."""
        result: FloatArray = (error[0] + error[1]) * (1.0 + 2.0 * _U) + 2.0 * _U * np.abs(
            state[0] - state[1]
        )
        return result

    def describe(self) -> str:
        return f"α = {self.promotion:g}"

    def explain_score(self, score: float, number: Formatter) -> str:
        return f"{self.score_formula} = {number(score)}"

    def explain_update(
        self, x: str, y: int, score: float, before: str, after: str, number: Formatter
    ) -> str:
        return (
            f"{self.update_formula}, α = {number(self.promotion)}: "
            f"w = w⁺ − w⁻ goes ({before}) → ({after})."
        )


@dataclass(frozen=True)
class Adaline(Rule):
    """Widrow–Hoff LMS. Online: every trial, w <- w + η (y − w·x) x.

    Batch: the trials of an epoch are scored with the same w, and at the end of the
    epoch one gradient step w <- w + η Σᵢ (yᵢ − w·xᵢ) xᵢ is taken.
    Stable for η < 2/R² online and η < 2/λ_max(XᵀX) in batch.
    """

    learning_rate: float = ADALINE_FALLBACK_RATE
    batch: bool = False
    name: ClassVar[str] = "adaline"
    title: ClassVar[str] = "Adaline"
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = (ADALINE_RATE, ADALINE_MODE)
    bound: ClassVar[str | None] = None
    mistake_driven: ClassVar[bool] = False
    least_squares: ClassVar[bool] = True
    update_formula: ClassVar[str] = "w ← w + η (y − s) x"

    @classmethod
    def build(
        cls, n_features: int, *, features: FloatArray | None = None, **parameters: Any
    ) -> Rule:
        """η defaults to `default_rate` of the features."""
        mode = ADALINE_MODE.check(parameters.get("mode") or ADALINE_MODE.default)
        rate = parameters.get("learning_rate")
        batch = mode == "batch"
        if rate is None:
            rate = cls.default_rate(features, batch=batch)
        return cls(learning_rate=float(rate), batch=batch)

    @staticmethod
    def default_rate(features: FloatArray | None, *, batch: bool) -> float:
        """Half the sufficient stable bound, 1/R² online or 1/λ_max(XᵀX) batch, rounded
        down to two significant digits (a number a teacher can type): inside the stable
        range with room to spare, and as large as that allows, so it learns quickly. At
        most the largest η (1e6), which tiny data (R² < 1e-6) would exceed."""
        if features is None or features.shape[0] == 0:
            return ADALINE_FALLBACK_RATE
        if batch:
            scale = largest_gram_eigenvalue(features)
        else:
            scale = float(np.max(np.einsum("ij,ij->i", features, features)))
        largest = ADALINE_RATE.maximum
        assert largest is not None
        if scale == 0.0 and np.any(features):
            return largest  # squares that underflow: tiny data, not none
        if not (math.isfinite(scale) and scale > 0):
            return ADALINE_FALLBACK_RATE
        if scale * largest <= 1.0:  # tiny data: 1/R² beyond the largest η (or a float)
            return largest
        return round_down(1.0 / scale)

    def __post_init__(self) -> None:
        ADALINE_RATE.check(self.learning_rate)

    def value(self, name: str) -> Any:
        """The parameter `name` as used; "mode" is kept as `batch`."""
        if name == "mode":
            return "batch" if self.batch else "online"
        return super().value(name)

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

    def explain_update(
        self, x: str, y: int, score: float, before: str, after: str, number: Formatter
    ) -> str:
        if self.batch:
            return f"End of epoch: w ← w + η Σ (y − w·x) x = ({after})."
        return (
            f"{self.update_formula} = ({before}) + {number(self.learning_rate)}·"
            f"({number(y - score)})·({x}) = ({after})."
        )

    def explain_no_update(self) -> str | None:
        """Why a trial did not change w, when that is the rule's normal behaviour."""
        if self.batch:
            return "Batch Adaline: the gradient step comes at the end of the epoch."
        return None


ALGORITHMS: dict[str, type[Rule]] = {}
"""The rules by name, in the order the window and the command line list them."""


def register(rule: type[Rule]) -> type[Rule]:
    """Make `rule` available by its name everywhere (engine, command line, window)."""
    if rule.tie not in TIES:
        raise ValueError(f"{rule.__name__}.tie must be one of {', '.join(TIES)}")
    ALGORITHMS[rule.name] = rule
    return rule


for _rule in (Perceptron, Winnow, BalancedWinnow, Adaline):
    register(_rule)


def make_rule(
    algorithm: str, n_features: int, *, features: FloatArray | None = None, **parameters: Any
) -> Rule:
    """Build the rule named `algorithm` with its parameters (others are ignored); defaults
    that depend on the data (Adaline's η) are derived from `features`."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[algorithm].build(n_features, features=features, **parameters)
