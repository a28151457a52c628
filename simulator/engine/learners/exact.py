"""Exact arithmetic for the learners: floats with a proven error bound, and the exact
verdict where that bound cannot decide.

Two layers, used in this order for every verdict a class sees.

1. Floats with a running error bound. `scores` are computed row-independently (products
   rounded, summed left to right: `numpy_dot_rows`, the same bits as the compiled loop), and
   a learner that `tracks_error` keeps a bound e on how far each float weight can be from
   the exact one. A score farther from its threshold than `tie_terms`' bound has the exact
   sign; one within it is computed again in twice the precision (`dot2_rows`, Ogita–Rump–
   Oishi) and held to the far smaller bound of `refine_coefficients`.
2. The exact verdict. A score that even the refined bound cannot decide is decided from
   the learner's shadow state, in rational arithmetic on the data as written: each input
   is the shortest decimal that reads back as its float (`written`), and `ExactSum` keeps
   Σ amount·x over the updates in integers of those decimals. A perceptron's exact weight is
   w₀ + η·Σ y·x, Winnow's is w₀·α^(Σ y·x): one shadow serves both. It is never snapped to 0.

Weights built only from numbers binary holds exactly (whole numbers, halves, …) carry no
error bound at all, so the common classroom cases never reach layer 2.
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "UNIT_ROUNDOFF",
    "ExactSum",
    "Row",
    "compiled",
    "dot2_rows",
    "dot_rows",
    "exact_power_sum_sign",
    "learning",
    "numpy_dot_rows",
    "refine_bounds",
    "refine_coefficients",
    "refine_theta",
    "squared_error",
    "tie_terms",
    "written",
    "written_exactly",
    "written_row",
]

FloatArray = NDArray[np.float64]


try:  # the compiled loops (setup.py builds them when a C compiler is there)
    from simulator.engine import _learn as learning  # type: ignore[attr-defined]
    from simulator.engine import _scan as compiled  # type: ignore[attr-defined]
except ImportError:  # the NumPy code gives the same bits, only slower
    compiled = learning = None

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


# -- the exact verdict: the data as written, in rational arithmetic ---------------------------

Digits = tuple[int, int]
"""A decimal m·10^e as its integer mantissa m and exponent e."""
Entry = tuple[int, int, int]
"""One nonzero entry of a row: its index j, and its value as the decimal m·10^e."""
Row = tuple[Entry, ...]
"""A feature vector in exact decimals, sparse: its nonzero entries in index order."""


def digits_of(value: Decimal) -> Digits:
    """(m, e) of a finite decimal."""
    sign, digits, exponent = value.as_tuple()
    mantissa = int("".join(map(str, digits)) or "0")
    assert isinstance(exponent, int)  # finite: the data are checked finite
    return (-mantissa if sign else mantissa), exponent


def written(value: float) -> Fraction:
    """The decimal `value` is written as (its shortest repr, which reads back as it), exactly:
    0.1 is 1/10, not the binary 0.1000000000000000055…"""
    if value == int(value) and abs(value) < 2**53:
        return Fraction(int(value))
    return Fraction(Decimal(repr(float(value))))


def written_row(x: FloatArray, as_written: bool = True) -> Row:
    """The nonzero entries of x as the decimals they stand for: as written (data a person
    typed: the shortest decimal that reads back as each float), or, `as_written` False,
    their exact binary values (computed features, such as standardized ones, which no one
    wrote)."""
    out = []
    for j in np.flatnonzero(x).tolist():
        v = float(x[j])
        m, e = digits_of(Decimal(repr(v)) if as_written else Decimal(v))
        out.append((j, m, e))
    return tuple(out)


class ExactSum:
    """A vector of exact decimals kept as integers A_j with a decimal scale q_j (the value is
    A_j / 10^q_j): a learner's shadow, its weights (or Winnow's exponents) in rational
    arithmetic. Adding amount·x costs a few integer operations per nonzero entry of x (the
    scale grows only when an entry has more decimals than any before)."""

    __slots__ = ("numerators", "scales")

    def __init__(self, size: int) -> None:
        self.numerators = [0] * size
        self.scales = [0] * size

    @classmethod
    def of(cls, values: list[Fraction]) -> ExactSum:
        """The vector of `values`, each a finite decimal (a Fraction whose denominator
        divides a power of 10)."""
        result = cls(len(values))
        for j, value in enumerate(values):
            if value:
                m, e = digits_of(_decimal(value))
                result.add_value(j, m, e)
        return result

    def copy(self) -> ExactSum:
        other = ExactSum.__new__(ExactSum)
        other.numerators = list(self.numerators)
        other.scales = list(self.scales)
        return other

    def add_value(self, j: int, mantissa: int, exponent: int) -> None:
        """Add mantissa·10^exponent to entry j."""
        q = self.scales[j]
        if -exponent > q:  # more decimals than seen so far: rescale
            self.numerators[j] *= 10 ** (-exponent - q)
            q = self.scales[j] = -exponent
        self.numerators[j] += mantissa * 10 ** (exponent + q)

    def add(self, row: Row, amount: Digits, offset: int = 0) -> None:
        """Add amount · row to the entries from `offset` on, `amount` a decimal (m, e):
        y, or y·η."""
        a, b = amount
        for j, m, e in row:
            self.add_value(offset + j, a * m, b + e)

    def value(self, j: int) -> Fraction:
        return Fraction(self.numerators[j], 10 ** self.scales[j])

    @property
    def nbytes(self) -> int:
        """The memory it holds (its lists and the integers not shared)."""
        lists = sys.getsizeof(self.numerators) + sys.getsizeof(self.scales)
        numbers = self.numerators + self.scales
        return lists + sum(sys.getsizeof(v) for v in numbers if not -5 <= v <= 256)

    def values(self) -> tuple[Fraction, ...]:
        return tuple(self.value(j) for j in range(len(self.numerators)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExactSum) and self.values() == other.values()

    __hash__ = None  # type: ignore[assignment]


def _decimal(value: Fraction) -> Decimal:
    """A Fraction with a denominator 2^a 5^b as the Decimal it equals, exactly."""
    d = value.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        raise ValueError(f"{value} is not a finite decimal")
    k = max(twos, fives)
    scaled = value * 10**k
    assert scaled.denominator == 1
    return Decimal(scaled.numerator).scaleb(-k)


def as_fraction(mantissa: int, exponent: int) -> Fraction:
    """m·10^e as a Fraction."""
    return Fraction(mantissa * 10**exponent) if exponent >= 0 else Fraction(mantissa, 10**-exponent)


def decimal_digits(value: float) -> Digits:
    """(m, e) of the decimal a float is written as."""
    return digits_of(Decimal(repr(float(value))))


def exact_float(value: Fraction) -> float:
    """`value` rounded to a float that keeps its sign: an exact score never reads as a tie
    (a nonzero value below the smallest float becomes ±5e-324)."""
    result = float(value)
    if result == 0.0 and value:
        return math.copysign(5e-324, value)
    return result


def exact_power_sum_sign(
    terms: list[tuple[Fraction, Fraction, Fraction]], constant: Fraction
) -> float | None:
    """Σ c·b^e − k for terms (c, b, e), b > 0, decided exactly where it can be: rational
    when every exponent is whole; else in decimal arithmetic of growing precision (40 … 640
    digits), each term's error bounded, until the sign is certain. A float with the exact
    sign (0.0 for an exact zero), or None when no precision tried could decide it."""
    if all(e.denominator == 1 for _, _, e in terms):
        rational = sum((c * b ** int(e) for c, b, e in terms), Fraction(0)) - constant
        return exact_float(rational)
    for precision in (40, 80, 160, 320, 640):
        with localcontext() as context:
            context.prec = precision + 10
            context.Emax, context.Emin = 10**9, -(10**9)
            total = Decimal(0)
            size = abs(Decimal(constant.numerator) / Decimal(constant.denominator))
            for c, b, e in terms:
                base = Decimal(b.numerator) / Decimal(b.denominator)
                power = (Decimal(e.numerator) / Decimal(e.denominator) * base.ln()).exp()
                term = Decimal(c.numerator) / Decimal(c.denominator) * power
                total += term
                size += abs(term)
            total -= Decimal(constant.numerator) / Decimal(constant.denominator)
            # each of the few operations per term errs by under 10^-(prec) relatively
            error = size * Decimal(10) ** (-precision) * (4 * len(terms) + 4)
            if abs(total) > error:
                return math.copysign(max(abs(float(total)), 5e-324), float(total))
    return None
