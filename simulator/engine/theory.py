"""The theory the side panel shows, computed exactly in feature space.

- R = maxᵢ |xᵢ|.
- γ* = max over unit u of minᵢ yᵢ u·xᵢ, the best margin of a separator through the origin
  of feature space. When the data are separable it equals the distance from the origin
  to the convex hull of {yᵢ xᵢ}, found exactly by Wolfe's minimum-norm-point algorithm
  (P. Wolfe, "Finding the nearest point in a polytope", Math. Programming 11, 1976), a
  finite active-set method. When the origin lies in the hull the data are not separable
  and γ* <= 0: it is minus the distance from the origin to the hull's boundary, which we
  compute from the hull's facets (Qhull via SciPy) when the feature space has at most 8
  dimensions; beyond that γ* is reported as nan, "undefined".
- Block–Novikoff: from w₀ = 0 the perceptron makes k <= R²/γ*² mistakes. From any w₀,
  w₀·u + kηγ <= sqrt(|w₀|² + kη²R²), solved for the largest k.
- Winnow on boolean r-of-n disjunctions (α = 2, θ = n, w₀ = 1): k <= 2 + 3r(1 + log₂ n).
- Adaline: the least-squares w_LS and the stable learning rates
  (online η < 2/R², batch η < 2/λ_max(XᵀX)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "AdalineReport",
    "MarginReport",
    "adaline_report",
    "general_mistake_bound",
    "margin_of",
    "margin_report_for",
    "min_norm_point",
    "monotone_disjunction",
    "signed_margin",
    "winnow_disjunction_bound",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class MarginReport:
    """The data's geometry in feature space.

    gamma: γ*, the optimal margin (> 0 iff separable; <= 0 or nan when not).
    radius: R = max |x|.
    bound: R²/γ*², the perceptron's mistake bound from w₀ = 0 (inf when not separable).
    separator: the optimal unit u (feature order), or None when not separable.
    """

    gamma: float
    radius: float
    bound: float
    separator: tuple[float, ...] | None

    @property
    def separable(self) -> bool:
        return self.separator is not None


@dataclass(frozen=True, slots=True)
class AdalineReport:
    """Least squares and Adaline's stable learning rates in feature space."""

    least_squares: tuple[float, ...] | None
    online_rate_limit: float
    batch_rate_limit: float


# -- γ* ------------------------------------------------------------------------------------


def _affine_minimizer(P: FloatArray) -> FloatArray:
    """Coefficients α (Σα = 1) of the point of minimum norm in the affine hull of P's rows.

    Solves [P Pᵀ 1; 1ᵀ 0] [α; μ] = [0; 1], nonsingular for affinely independent rows.
    """
    m = P.shape[0]
    A = np.empty((m + 1, m + 1))
    A[:m, :m] = P @ P.T
    A[:m, m] = 1.0
    A[m, :m] = 1.0
    A[m, m] = 0.0
    b = np.zeros(m + 1)
    b[m] = 1.0
    try:
        solution: FloatArray = np.linalg.solve(A, b)[:m]
    except np.linalg.LinAlgError:  # dependent rows (by rounding): the least-squares answer
        solution = np.linalg.lstsq(A, b, rcond=None)[0][:m]
    return solution


def min_norm_point(
    Z: FloatArray, *, norms: FloatArray | None = None, max_iterations: int = 10_000
) -> tuple[FloatArray, bool, float]:
    """The point p of conv(rows of Z) nearest the origin, by Wolfe's algorithm.

    Returns (p, contains_origin, min_z z·p). The origin counts as inside the hull when p is
    closer than 1e-12·max|z| (rounding cannot tell such a margin from none). `norms`, the
    squared row norms, may be passed in when the caller has them.
    """
    D = Z.shape[1]
    if norms is None:
        norms = np.einsum("ij,ij->i", Z, Z)
    scale = float(np.sqrt(np.max(norms)))
    if scale == 0.0:
        return np.zeros(D), True, 0.0
    first = int(np.argmin(norms))
    corral = [first]
    lam = np.array([1.0])
    x = Z[first].copy()
    eps = 1e-15
    for _ in range(max_iterations):
        xx = float(x @ x)
        if xx <= (1e-12 * scale) ** 2:
            return np.zeros(D), True, 0.0
        projections = Z @ x
        j = int(np.argmin(projections))
        lowest = float(projections[j])
        # Optimal when no point lies beyond the plane through x normal to x. A corral point
        # (or a duplicate of one) projects to |x|² and so never re-enters, except by
        # rounding, which the second test catches: it would make the corral dependent.
        if lowest >= xx - 1e-14 * math.sqrt(xx) * scale or any(
            np.array_equal(Z[c], Z[j]) for c in corral
        ):
            return x, False, lowest
        corral.append(j)
        lam = np.append(lam, 0.0)
        while True:  # minor cycle: move to the affine minimizer, dropping points on the way
            P = Z[corral]
            alpha = _affine_minimizer(P / scale)  # solved at unit scale
            if alpha.min() > eps:
                lam = alpha
                x = alpha @ P
                break
            negative = alpha <= eps
            theta = float(np.min(lam[negative] / (lam[negative] - alpha[negative])))
            lam = theta * alpha + (1.0 - theta) * lam
            keep = lam > eps
            corral = [c for c, k in zip(corral, keep.tolist(), strict=True) if k]
            lam = lam[keep] / lam[keep].sum()
            x = lam @ Z[corral]
            if len(corral) == 1:
                break
    raise RuntimeError("the minimum-norm-point iteration did not finish; please report this data")


def _negative_margin(Z: FloatArray) -> float:
    """γ* when the origin is in conv(Z): minus its distance to the hull's boundary.

    0 when the hull is flat (Z spans a lower-dimensional space through the origin).
    nan when it cannot be computed here (no SciPy, or more than 8 dimensions).
    """
    D = Z.shape[1]
    if np.linalg.matrix_rank(Z) < D:
        return 0.0
    if D == 1:
        return float(max(np.min(Z), -np.max(Z)))  # hull [a, b] with a < 0 < b
    if D > 8:
        return math.nan  # Qhull's cost grows as n^(D/2); report "undefined"
    from scipy.spatial import ConvexHull, QhullError  # lazy: only for non-separable data

    try:
        hull = ConvexHull(Z)
    except QhullError:
        return math.nan
    # Qhull facets: unit normal n, offset c, with n·z + c <= 0 inside; the origin's
    # distance to a facet's plane is -c, and the nearest facet gives the boundary.
    return float(np.max(hull.equations[:, -1]))


def margin_report_for(X: FloatArray, y: NDArray[np.int8]) -> MarginReport:
    """R, γ*, R²/γ*² and the optimal separator for feature vectors X with labels y."""
    if X.shape[0] == 0:
        return MarginReport(gamma=math.nan, radius=math.nan, bound=math.nan, separator=None)
    Z = y[:, None] * X
    norms = np.einsum("ij,ij->i", Z, Z)  # |z| = |x|, as y = ±1
    radius = float(np.sqrt(np.max(norms)))
    p, contains_origin, lowest = min_norm_point(Z, norms=norms)
    if contains_origin:
        return MarginReport(
            gamma=_negative_margin(Z), radius=radius, bound=math.inf, separator=None
        )
    length = float(np.linalg.norm(p))
    u = p / length
    # Report the margin the separator really achieves, min z·u (a lower bound on γ* that
    # meets the upper bound |p| at the optimum, to rounding). γ* <= minᵢ |zᵢ| always
    # (u·z <= |z|); clamping keeps rounding from pushing γ* past it (one point: γ* = R).
    gamma = min(lowest / length, float(np.sqrt(np.min(norms))))
    return MarginReport(
        gamma=gamma,
        radius=radius,
        bound=(radius / gamma) ** 2,
        separator=tuple(u.tolist()),
    )


# -- margins and bounds --------------------------------------------------------------------


def margin_of(w: FloatArray, X: FloatArray, y: NDArray[np.int8], threshold: float = 0.0) -> float:
    """minᵢ yᵢ (w·xᵢ − θ)/|w|: the current w's margin (negative while it errs); nan if w = 0."""
    if X.shape[0] == 0:
        return math.nan
    return signed_margin(y * (X @ w - threshold), w)


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
    """
    if not gamma > 0:
        return math.inf
    a = float(np.dot(w0, separator))
    b = learning_rate * gamma
    c = float(np.dot(w0, w0))
    e = (learning_rate * radius) ** 2
    discriminant = e * e - 4.0 * a * b * e + 4.0 * b * b * c
    return (e - 2.0 * a * b + math.sqrt(max(discriminant, 0.0))) / (2.0 * b * b)


def monotone_disjunction(X: FloatArray, y: NDArray[np.int8]) -> int | None:
    """r, if boolean data are labelled by an OR of r of their variables, else None.

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
    return int(np.count_nonzero(candidates))


def winnow_disjunction_bound(relevant: int, n_features: int) -> float:
    """Winnow's mistake bound 2 + 3r(1 + log₂ n) for an r-of-n monotone disjunction."""
    if relevant < 0 or n_features < 1:
        raise ValueError("need r >= 0 relevant variables out of n >= 1")
    return 2.0 + 3.0 * relevant * (1.0 + math.log2(n_features))


def adaline_report(X: FloatArray, y: NDArray[np.int8]) -> AdalineReport:
    """w_LS = argmin |Xw − y|² (minimum norm), and the stable rates 2/R², 2/λ_max(XᵀX)."""
    if X.shape[0] == 0:
        return AdalineReport(
            least_squares=None, online_rate_limit=math.nan, batch_rate_limit=math.nan
        )
    least_squares = np.linalg.lstsq(X, y.astype(np.float64), rcond=None)[0]
    radius_squared = float(np.max(np.einsum("ij,ij->i", X, X)))
    largest_eigenvalue = float(np.linalg.eigvalsh(X.T @ X)[-1])
    return AdalineReport(
        least_squares=tuple(least_squares.tolist()),
        online_rate_limit=2.0 / radius_squared if radius_squared > 0 else math.inf,
        batch_rate_limit=2.0 / largest_eigenvalue if largest_eigenvalue > 0 else math.inf,
    )
