"""The theory the side panel shows, computed exactly in feature space.

- R = maxᵢ |xᵢ|.
- γ* = max over unit u of minᵢ yᵢ u·xᵢ, the best margin of a separator through the origin
  of feature space. When the data are separable it is the distance from the origin to the
  convex hull of the zᵢ = yᵢ xᵢ, found by Wolfe's minimum-norm-point algorithm (P. Wolfe,
  "Finding the nearest point in a polytope", Math. Programming 11, 1976), a finite
  active-set method. When the origin lies in the hull the data are not separable and
  γ* <= 0: minus the distance from the origin to the hull's boundary, from the hull's facets
  (Qhull via SciPy) when the feature space has at most 8 dimensions; beyond that γ* is nan,
  "undefined". It is 0 when the points span less than the whole feature space.
- Block–Novikoff: from w₀ = 0 the perceptron makes k <= R²/γ*² mistakes. From any w₀,
  w₀·u + kηγ <= sqrt(|w₀|² + kη²R²), solved for the largest k.
- Winnow on boolean r-of-n disjunctions (α = 2, θ = n, w₀ = 1): k <= 2 + 3r(1 + log₂ n).
- Adaline: the least-squares w_LS and the stable learning rates
  (online η < 2/R², batch η < 2/λ_max(XᵀX)).

γ* and R are computed exactly by `simulator.engine.margin` (with the exact geometry of
`simulator.engine.exact_geometry`); this module adds the bounds and Adaline's numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from simulator.engine.margin import MarginReport, margin_report_for

__all__ = [
    "AdalineReport",
    "MarginReport",
    "adaline_report",
    "general_mistake_bound",
    "largest_gram_eigenvalue",
    "least_squares_solution",
    "margin_report_for",
    "monotone_disjunction",
    "signed_margin",
    "winnow_disjunction_bound",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class AdalineReport:
    """Least squares and learning rates sufficient for Adaline's stability, in feature space."""

    least_squares: tuple[float, ...] | None
    online_rate_limit: float
    batch_rate_limit: float


# -- margins and bounds --------------------------------------------------------------------


def signed_margin(signed_scores: FloatArray, w: FloatArray) -> float:
    """minᵢ yᵢ sᵢ / |w| from the signed scores yᵢ sᵢ already computed; nan if w = 0 or
    there are no points."""
    norm = float(np.linalg.norm(w))
    if signed_scores.shape[0] == 0 or norm == 0.0 or not math.isfinite(norm):
        return math.nan
    return float(np.min(signed_scores) / norm)


def general_mistake_bound(
    w0: FloatArray, separator: FloatArray, gamma: float, radius: float, learning_rate: float
) -> float:
    """The largest k with w₀·u + kηγ <= sqrt(|w₀|² + kη²R²), the perceptron's bound from w₀.

    Squaring a + bk <= sqrt(c + ek) (a = w₀·u, b = ηγ, c = |w₀|², e = η²R²) gives
    b²k² + (2ab − e)k + a² − c <= 0, whose larger root is the bound. With w₀ = 0 it is R²/γ².
    inf when γ <= 0, an input is not finite, or the bound is beyond floating point; never
    an exception (a tiny ηγ, whose square underflows, is solved in exact fractions).
    """
    values = (gamma, radius, learning_rate)
    if not gamma > 0 or not all(math.isfinite(v) for v in values) or not learning_rate > 0:
        return math.inf
    w0 = np.asarray(w0, dtype=np.float64)
    u = np.asarray(separator, dtype=np.float64)
    if not (np.all(np.isfinite(w0)) and np.all(np.isfinite(u))):
        return math.inf
    with np.errstate(all="ignore"):
        a = float(np.dot(w0, u))
        c = float(np.dot(w0, w0))
        b = learning_rate * gamma
        e = (learning_rate * radius) * (learning_rate * radius)
        discriminant = e * e - 4.0 * a * b * e + 4.0 * b * b * c
        terms = (a, c, b * b, e, discriminant)
        # Floats when every square is well inside their range (no subnormal lost digits).
        if all(math.isfinite(t) for t in terms) and min(b * b, e * e) >= 1e-280:
            # The larger root of b²k² + Bk + C, B = 2ab − e, C = a² − c, written so that
            # nothing cancels: (−B + √D)/2b² when B <= 0, else 2C/(−B − √D) (w₀ far along
            # u, where the first form is a tiny difference of huge numbers).
            big_b = 2.0 * a * b - e
            root_d = math.sqrt(max(discriminant, 0.0))
            if big_b <= 0:
                root = (root_d - big_b) / (2.0 * b * b)
            else:
                root = 2.0 * (a * a - c) / (-big_b - root_d)
            if math.isfinite(root):
                return max(root, 0.0) + 0.0  # never -0.0
    return _exact_general_bound(w0, u, gamma, radius, learning_rate)


def _exact_general_bound(
    w0: FloatArray, u: FloatArray, gamma: float, radius: float, learning_rate: float
) -> float:
    """`general_mistake_bound` in exact fractions (the floats overflowed or underflowed).

    Divided by b²: k² − Bk + C <= 0 with B = r² − 2s, C = s² − t² (r = R/γ, s = a/b,
    t² = c/b²); the larger root (B + √D)/2, or 2C/(B − √D) when B < 0 (no cancellation).
    """
    F = Fraction
    b = F(learning_rate) * F(gamma)
    a = sum((F(x) * F(y) for x, y in zip(w0.tolist(), u.tolist(), strict=True)), F(0))
    c = sum((F(x) * F(x) for x in w0.tolist()), F(0))
    r2 = (F(radius) / F(gamma)) ** 2
    s = a / b
    big_b = r2 - 2 * s
    big_c = s * s - c / (b * b)
    root_d = _fraction_sqrt(max(big_b * big_b - 4 * big_c, F(0)))
    if big_b >= 0:
        k = (big_b + root_d) / 2
    else:
        k = 2 * big_c / (big_b - root_d) if big_b != root_d else F(0)
    try:
        return max(float(k), 0.0)
    except OverflowError:
        return math.inf


def _fraction_sqrt(q: Fraction, bits: int = 80) -> Fraction:
    """√q to about `bits` significant bits, as a fraction (q >= 0, of any size)."""
    if q == 0:
        return Fraction(0)
    e = max(0, (2 * bits - (q.numerator.bit_length() - q.denominator.bit_length())) // 2)
    scaled = q * 4**e
    return Fraction(math.isqrt(scaled.numerator // scaled.denominator), 2**e)


def monotone_disjunction(X: FloatArray, y: NDArray[np.int8]) -> tuple[int, ...] | None:
    """The columns (from 0) of the largest monotone disjunction that labels boolean data,
    or None when no OR of their variables does; r is how many.

    The variables that are 0 in every negative example form the largest monotone
    disjunction the data allow; it is consistent iff every positive example has one of
    them set. (A smaller consistent one may exist; finding the smallest is set cover, and
    the bound holds for any consistent r, so the largest gives a valid bound.)
    """
    if X.shape[0] == 0 or not np.all((X == 0.0) | (X == 1.0)):
        return None
    negative = X[y < 0]
    candidates = (
        ~np.any(negative == 1.0, axis=0) if negative.shape[0] else np.ones(X.shape[1], bool)
    )
    positive = X[y > 0]
    if positive.shape[0] and not np.all(np.any(positive[:, candidates] == 1.0, axis=1)):
        return None
    return tuple(np.flatnonzero(candidates).tolist())


def winnow_disjunction_bound(relevant: int, n_features: int) -> float:
    """Winnow's mistake bound 2 + 3r(1 + log₂ n) for an r-of-n monotone disjunction."""
    if relevant < 0 or n_features < 1:
        raise ValueError("need r >= 0 relevant variables out of n >= 1")
    return 2.0 + 3.0 * relevant * (1.0 + math.log2(n_features))


def adaline_report(
    X: FloatArray, y: NDArray[np.int8], *, least_squares: bool = True
) -> AdalineReport:
    """The stable rates 2/R² (online) and 2/λ_max(XᵀX) (batch) and, when asked (it costs a
    factorisation of X), w_LS = argmin |Xw − y|², the one of least norm."""
    if X.shape[0] == 0:
        return AdalineReport(
            least_squares=None, online_rate_limit=math.nan, batch_rate_limit=math.nan
        )
    radius_squared = float(np.max(np.einsum("ij,ij->i", X, X)))
    largest_eigenvalue = largest_gram_eigenvalue(X)
    return AdalineReport(
        least_squares=least_squares_solution(X, y) if least_squares else None,
        online_rate_limit=2.0 / radius_squared if radius_squared > 0 else math.inf,
        batch_rate_limit=2.0 / largest_eigenvalue if largest_eigenvalue > 0 else math.inf,
    )


def least_squares_solution(X: FloatArray, y: NDArray[np.int8]) -> tuple[float, ...]:
    """w_LS = argmin |Xw − y|², the one of least norm (X has at least one row)."""
    from scipy.linalg import lstsq  # SciPy loads on first use, not at start-up

    # QR with column pivoting (LAPACK gelsy): the minimum-norm solution, as the SVD's gelsd
    # (NumPy's lstsq) gives it, five times sooner on wide data (2,000 x 4,097: 3 s, not 16).
    w = lstsq(X, y.astype(np.float64), lapack_driver="gelsy", check_finite=False)[0]
    return tuple(w.tolist())


_DENSE_GRAM = 512  # up to this many rows or columns, λ_max from the whole Gram matrix
_LANCZOS_RESTARTS = 16  # ARPACK restarts (about 20 products each) before LAPACK takes over


def largest_gram_eigenvalue(X: FloatArray) -> float:
    """λ_max(XᵀX), which is λ_max(XXᵀ): computed on the smaller side.

    Up to 512 rows or columns, all eigenvalues of the smaller Gram matrix (LAPACK). Beyond,
    Lanczos iteration (ARPACK) on products with X and Xᵀ to machine precision: boolean
    data have one eigenvalue far above the others and settle in about 20 products (2,000 x
    4,097: 0.2 s, where a full eigen-decomposition of XᵀX took 30 s). If the top
    eigenvalues crowd together and it does not settle, LAPACK finds the top one alone.
    """
    rows, columns = X.shape
    size = min(rows, columns)
    if size == 0 or not np.any(X):
        return 0.0
    A = np.ascontiguousarray(X, dtype=np.float64)
    wide = columns > rows

    def gram() -> FloatArray:
        result: FloatArray = A @ A.T if wide else A.T @ A
        return result

    if size <= _DENSE_GRAM:
        return float(np.linalg.eigvalsh(gram())[-1])
    from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh

    def product(v: FloatArray) -> FloatArray:
        result: FloatArray = A @ (A.T @ v) if wide else A.T @ (A @ v)
        return result

    start = np.random.default_rng(0).standard_normal(size)  # never orthogonal to the top
    try:
        top = eigsh(
            LinearOperator((size, size), matvec=product, dtype=np.float64),
            k=1,
            which="LA",
            v0=start,
            tol=0,
            maxiter=_LANCZOS_RESTARTS,
            return_eigenvectors=False,
        )
        return float(top[0])
    except ArpackError:  # ArpackNoConvergence is one
        from scipy.linalg import eigh

        return float(eigh(gram(), eigvals_only=True, subset_by_index=[size - 1, size - 1])[0])
