"""γ*, R and the perceptron's bound R²/γ*² of a dataset in feature space: `margin_report_for`.

γ* = max over unit u of minᵢ yᵢ u·xᵢ, the best margin of a separator through the origin
of feature space. When the data are separable it is the distance from the origin to the
convex hull of the zᵢ = yᵢ xᵢ, found by Wolfe's minimum-norm-point algorithm (P. Wolfe,
"Finding the nearest point in a polytope", Math. Programming 11, 1976), a finite
active-set method. When the origin lies in the hull the data are not separable and
γ* <= 0 (`simulator.engine.exact_geometry.negative_margin`).

Exactness. The nearest point p of conv{zᵢ} is the nearest point of the affine hull of a few
zᵢ (its support) with positive weights, and it proves itself: z·p >= |p|² for every z.
Floating point proposes a support fast; its weights and p are then solved exactly over
the rationals (floats are rationals), and z·p >= |p|² is checked for every point in
floating point with a rigorous error bound, the few points too close to call exactly. A
point that fails joins the support and the exact iteration goes on. So γ* = |p| is exact
up to its final rounding at any scale, and separable iff γ* > 0 without exception; the
same proof picks the facet that gives a negative γ*. This runs for up to 16 features
(exact arithmetic costs D³ operations on integers of D·100 bits); beyond, the floating-point
answer is checked by its duality gap (1e-9) and solved exactly only when that check fails
(up to 64 features; beyond, the margin its separator achieves is shown, or nan), and a
margin below 1e-12·R counts as none.
`exact=True` (the Winnow lab's --exact column) proves γ* exactly at any number of
features: FLINT solves the support's Gram system in milliseconds, so the cost is the
floating-point search and the exact check of the points nearest the plane (n = 256
variables with bias, 2,000 examples: 10 s).

Warm start. After an edit, `margin_report_for(X, y, previous)` first checks whether the
previous support is still there and still proves itself (one pass over the data), and
otherwise resumes Wolfe's iteration from the surviving support. The answer is the same as a
cold solve: p is unique.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from simulator.engine.exact_geometry import (
    exact_affine,
    exact_dot,
    exact_sqrt,
    negative_margin,
    project,
)

__all__ = ["MarginReport", "margin_report_for"]

FloatArray = NDArray[np.float64]

_UNIT_ROUNDOFF = 2.0**-53
_EXACT_FEATURES = 16  # exact proof up to this many (its cost grows as D³ with big integers)
_EXACT_FALLBACK_FEATURES = 64  # beyond, not even when floating point fails


@dataclass(frozen=True, slots=True)
class MarginReport:
    """The data's geometry in feature space.

    gamma: γ*, the optimal margin (> 0 iff separable; <= 0 or nan when not).
    radius: R = max |x|.
    bound: R²/γ*², the perceptron's mistake bound from w₀ = 0 (inf when not separable).
    separator: the optimal unit u (feature order), or None when not separable.
    support, support_weights: the zᵢ = yᵢ xᵢ whose convex combination with these weights is
        the hull's nearest point to the origin (the origin itself when not separable); what
        a warm start after an edit reuses. Not part of equality: a tie can have two supports.
    """

    gamma: float
    radius: float
    bound: float
    separator: tuple[float, ...] | None
    support: tuple[tuple[float, ...], ...] = field(default=(), compare=False, repr=False)
    support_weights: tuple[float, ...] = field(default=(), compare=False, repr=False)
    support_rows: tuple[int, ...] = field(default=(), compare=False, repr=False)
    """The support's places among the rows solved: the warm start after an edit that keeps
    the rows' places but not their coordinates (a kernel's Gram factor, after a move)."""
    reason: str = field(default="", compare=False)
    """Why γ* is nan when it is not computed (too many features or hull vertices), or ""."""
    decided: bool = field(default=True, compare=False)
    """False when whether the data are separable was not found (too many features for the
    proof, or the window's time budget ran out): `separable` is then no verdict."""

    @property
    def separable(self) -> bool:
        return self.separator is not None


# -- γ*: Wolfe's iteration -----------------------------------------------------------------


def _affine_minimizer(P: FloatArray) -> FloatArray:
    """Weights α (Σα = 1) of the point of the rows' affine hull nearest the origin.

    Least squares on the differences, p = P₀ + Σ βⱼ (Pⱼ − P₀) with |p| least: its condition
    is that of the differences, where the normal equations [PPᵀ 1; 1ᵀ 0] square it.
    """
    if P.shape[0] == 1:
        return np.ones(1)
    beta = np.linalg.lstsq((P[1:] - P[0]).T, -P[0], rcond=None)[0]
    return np.concatenate(([1.0 - beta.sum()], beta))


def _float_wolfe(
    Z: FloatArray,
    radius: float,
    corral: list[int],
    weights: FloatArray,
    max_iterations: int,
    deadline: float | None = None,
) -> tuple[list[int], FloatArray, str]:
    """Wolfe's iteration in floating point from `corral` with `weights`.

    Returns the last corral, its weights and "optimal", "origin" (the hull seems to hold
    the origin) or "unfinished". Fast, not a proof: `_exact_wolfe` proves or continues it.
    """
    eps = 1e-15
    x = weights @ Z[corral]
    last = corral, weights  # positive weights: a valid start for the exact iteration
    try:
        for _ in range(max_iterations):
            _check_time(deadline)
            last = corral, weights
            xx = float(x @ x)
            if xx <= (1e-12 * radius) ** 2:
                return corral, weights, "origin"
            projections = project(Z, x)
            j = int(np.argmin(projections))
            # Optimal when no point lies beyond the plane through x normal to x. A corral
            # point (or a duplicate) projects to |x|² and re-enters only by rounding.
            if projections[j] >= xx - 1e-14 * math.sqrt(xx) * radius or any(
                np.array_equal(Z[c], Z[j]) for c in corral
            ):
                return corral, weights, "optimal"
            corral = [*corral, j]
            weights = np.append(weights, 0.0)
            while True:  # minor cycle: toward the affine minimizer, dropping points on the way
                P = Z[corral]
                alpha = _affine_minimizer(P / radius)  # solved at unit scale
                if alpha.min() > eps:
                    weights = alpha
                    x = alpha @ P
                    break
                negative = alpha <= eps
                gaps = weights[negative] - alpha[negative]
                if not np.all(gaps > 0):  # rounding broke Wolfe's invariants
                    return *last, "unfinished"
                theta = float(np.min(weights[negative] / gaps))
                weights = theta * alpha + (1.0 - theta) * weights
                keep = weights > eps
                corral = [c for c, k in zip(corral, keep.tolist(), strict=True) if k]
                weights = weights[keep] / weights[keep].sum()
                x = weights @ Z[corral]
                if len(corral) == 1:
                    break
    except (np.linalg.LinAlgError, ArithmeticError, ValueError):
        pass
    return *last, "unfinished"


def _violator(Z: FloatArray, radius: float, p: list[Fraction], square: Fraction) -> int | None:
    """A row z with z·p < |p|² (the most violating one by floating point), or None.

    A floating-point z·p of D terms, with p rounded, is within
    (D + 3)·2⁻⁵³·|z||p| (+ underflow) of the exact value (Higham, Accuracy and Stability
    of Numerical Algorithms, §3.1); rows inside twice that band are decided exactly.
    """
    D = Z.shape[1]
    rounded = np.array([float(c) for c in p])
    threshold = float(square)
    scores = project(Z, rounded)
    band = 2.0 * (D + 3) * _UNIT_ROUNDOFF * radius * float(np.linalg.norm(rounded))
    band += D * 2.0**-1070
    lowest = int(np.argmin(scores))
    if scores[lowest] < threshold * (1.0 - 4 * _UNIT_ROUNDOFF) - band:
        return lowest
    close = np.flatnonzero(scores <= threshold * (1.0 + 4 * _UNIT_ROUNDOFF) + band)
    for i in close[np.argsort(scores[close], kind="stable")].tolist():
        if exact_dot(Z[i].tolist(), p) < square:
            return int(i)
    return None


def _exact_wolfe(
    Z: FloatArray,
    radius: float,
    corral: list[int],
    weights: list[Fraction],
    deadline: float | None = None,
) -> tuple[list[int], list[Fraction], list[Fraction]]:
    """Wolfe's iteration with every corral solved exactly: (support, weights, p).

    p is the exact point of conv(rows of Z) nearest the origin (all zeros iff the origin is
    in the hull). The start needs positive weights summing to 1.
    """
    for _ in range(100_000):  # finite in exact arithmetic; the cap only guards the loop
        _check_time(deadline)
        while True:  # minor cycle
            solved = exact_affine(Z[corral])
            if solved is None:  # a start from rounding can be dependent: keep its heaviest point
                heaviest = max(range(len(corral)), key=weights.__getitem__)
                corral, weights = [corral[heaviest]], [Fraction(1)]
                continue
            alpha, p = solved
            if min(alpha) > 0:
                weights = alpha
                break
            theta = min(
                (w / (w - a) for w, a in zip(weights, alpha, strict=True) if a <= 0 and w > a),
                default=Fraction(0),
            )
            weights = [theta * a + (1 - theta) * w for w, a in zip(weights, alpha, strict=True)]
            kept = [(c, w) for c, w in zip(corral, weights, strict=True) if w > 0]
            corral, weights = [c for c, _ in kept], [w for _, w in kept]
        square = sum((c * c for c in p), Fraction(0))
        if square == 0:
            return corral, weights, p
        j = _violator(Z, radius, p, square)
        if j is None or j in corral:
            return corral, weights, p
        corral = [*corral, j]
        weights = [*weights, Fraction(0)]
    return corral, weights, p


def _check_time(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise _OutOfTime


def _find_row(Z: FloatArray, row: tuple[float, ...]) -> int | None:
    """The index of a row of Z equal to `row`, or None; O(n), narrowing column by column."""
    candidates = np.flatnonzero(Z[:, -1] == row[-1])
    for j in range(Z.shape[1] - 2, -1, -1):
        if candidates.size == 0:
            return None
        candidates = candidates[Z[candidates, j] == row[j]]
    return int(candidates[0]) if candidates.size else None


def _warm_start(
    Z: FloatArray, previous: MarginReport | None, shift: int
) -> tuple[list[int], list[float]]:
    """The previous support's rows still in Z (which is scaled by 2^shift), with their
    weights; if none is, the rows in the previous support's places (any rows with positive
    weights are a valid start: the result is the same, the way to it shorter when the edit
    moved a point, and the rows are a Gram factor's whose coordinates all changed); empty
    if there is no previous support."""
    if previous is None or not previous.support:
        return [], []
    corral: list[int] = []
    weights: list[float] = []
    if len(previous.support[0]) == Z.shape[1]:
        for row, weight in zip(previous.support, previous.support_weights, strict=True):
            i = _find_row(Z, tuple(np.ldexp(row, shift).tolist()) if shift else row)
            if i is not None and i not in corral and weight > 0:
                corral.append(i)
                weights.append(weight)
    if corral:
        return corral, weights
    for i, weight in zip(previous.support_rows, previous.support_weights, strict=False):
        if i < Z.shape[0] and i not in corral and weight > 0:
            corral.append(i)
            weights.append(weight)
    return corral, weights


def _squared_norms(Z: FloatArray) -> FloatArray:
    norms = Z[:, 0] * Z[:, 0]
    for j in range(1, Z.shape[1]):
        norms += Z[:, j] * Z[:, j]
    return norms


def margin_report_for(
    X: FloatArray,
    y: NDArray[np.int8],
    previous: MarginReport | None = None,
    *,
    exact: bool = False,
    seconds: float | None = None,
) -> MarginReport:
    """R, γ*, R²/γ*² and the optimal separator for feature vectors X with labels y.

    `previous`, the report of the data before an edit, makes it a warm start (same result).
    `exact`: the exact proof whatever the number of features (the lab's --exact column;
    seconds at a few hundred features, where the window settles for a checked float).
    `seconds`: a time budget (the window's, which must not freeze); when it runs out, γ* is
    nan and the report `decided` False, with the reason. None: no budget.
    """
    if X.shape[0] == 0:
        return MarginReport(gamma=math.nan, radius=math.nan, bound=math.nan, separator=None)
    Z = np.empty(X.shape, order="F")  # column-major: see _project
    signs = y.astype(np.float64)
    for j in range(X.shape[1]):
        np.multiply(X[:, j], signs, out=Z[:, j])
    norms = _squared_norms(Z)  # |z|² = |x|², as y = ±1
    shift = 0
    if not 2.0**-800 <= float(np.max(norms)) <= 2.0**800:
        # Squares that underflow or overflow: solve on Z times a power of two (exact).
        biggest = max(max(-float(np.min(c)), float(np.max(c))) for c in Z.T)
        if biggest == 0.0:  # every point at the origin
            return MarginReport(gamma=0.0, radius=0.0, bound=math.inf, separator=None)
        shift = -int(np.frexp(biggest)[1])
        Z = np.ldexp(Z, shift)
        norms = _squared_norms(Z)
    deadline = None if seconds is None else time.perf_counter() + seconds
    try:
        with np.errstate(all="ignore"):  # rounding is accounted for: _violator, negative_margin
            report = _solve(Z, norms, _warm_start(Z, previous, shift), exact, deadline)
    except _OutOfTime:
        radius = math.sqrt(float(np.max(_squared_norms(X))))
        return _undefined(
            radius,
            f"not computed: {X.shape[1]} features × {X.shape[0]:,} rows take longer than "
            f"{seconds:g} s, and the window must not wait",
        )
    if shift == 0:
        return report
    return replace(
        report,
        gamma=math.ldexp(report.gamma, -shift),
        radius=math.ldexp(report.radius, -shift),
        support=tuple(tuple(np.ldexp(row, -shift).tolist()) for row in report.support),
    )


def _solve(
    Z: FloatArray,
    norms: FloatArray,
    warm: tuple[list[int], list[float]],
    exact: bool,
    deadline: float | None,
) -> MarginReport:
    """The report for the signed feature vectors Z (column-major), from a warm start or not;
    `exact`: proved exactly at any number of features."""
    radius = float(np.sqrt(np.max(norms)))
    D = Z.shape[1]
    wide = D > _EXACT_FEATURES and not exact  # floats first, exact only where they fail
    corral, start_weights = warm
    if corral:
        weights = np.array(start_weights) / math.fsum(start_weights)
        outcome = "warm"
    else:
        corral, weights = [int(np.argmin(norms))], np.ones(1)
        corral, weights, outcome = _float_wolfe(Z, radius, corral, weights, 100 + 10 * D, deadline)
    if wide and outcome == "warm":
        corral, weights, outcome = _float_wolfe(Z, radius, corral, weights, 100 + 10 * D, deadline)
    if wide and (outcome != "unfinished" or D > _EXACT_FALLBACK_FEATURES):
        report = _float_report(
            Z, norms, radius, corral, weights, outcome, strict=D <= _EXACT_FALLBACK_FEATURES
        )
        if report is not None:
            return report
    total = math.fsum(weights.tolist())
    start = [Fraction(w) / Fraction(total) for w in weights.tolist()]
    support, exact_weights, p = _exact_wolfe(Z, radius, corral, start, deadline)
    square = sum((c * c for c in p), Fraction(0))
    rows = tuple(tuple(row) for row in Z[support].tolist())
    kept = tuple(float(w) for w in exact_weights)
    if square == 0:
        return replace(_origin_report(Z, radius, rows, kept), support_rows=tuple(support))
    gamma = min(exact_sqrt(square), radius)
    separator = tuple(float(c) / gamma for c in p)
    # R²/γ*² from the exact squares, rounded once: 45, not the 45.00000000000001 of
    # (R/γ)² in floats (the lab's --exact column, a hand calculation's integer)
    top = float(np.max(norms))
    far = np.flatnonzero(norms >= top * (1.0 - 1e-12))[:64]  # the longest, to rounding
    radius_square = max(
        sum((Fraction(v) * Fraction(v) for v in Z[i].tolist()), Fraction(0)) for i in far
    )
    try:
        bound = float(max(radius_square / square, Fraction(1)))
    except OverflowError:
        bound = math.inf
    report = _separable_report(gamma, radius, separator, rows, kept, bound)
    return replace(report, support_rows=tuple(support))


def _origin_report(
    Z: FloatArray,
    radius: float,
    support: tuple[tuple[float, ...], ...],
    weights: tuple[float, ...],
) -> MarginReport:
    """The report when the hull holds the origin: not separable, γ* <= 0 (or nan)."""
    gamma, reason = negative_margin(Z)
    return MarginReport(
        gamma=gamma,
        radius=radius,
        bound=math.inf,
        separator=None,
        support=support,
        support_weights=weights,
        reason=reason,
    )


def _separable_report(
    gamma: float,
    radius: float,
    separator: tuple[float, ...],
    support: tuple[tuple[float, ...], ...],
    weights: tuple[float, ...],
    bound: float | None = None,
) -> MarginReport:
    """The report of separable data, with the bound R²/γ*² (from γ and R unless given)."""
    return MarginReport(
        gamma=gamma,
        radius=radius,
        bound=(radius / gamma) * (radius / gamma) if bound is None else bound,  # inf: overflow
        separator=separator,
        support=support,
        support_weights=weights,
    )


def _undefined(radius: float, reason: str = "") -> MarginReport:
    return MarginReport(
        gamma=math.nan, radius=radius, bound=math.nan, separator=None, reason=reason, decided=False
    )


class _OutOfTime(Exception):
    """The solve's time budget ran out (see `margin_report_for`'s `seconds`)."""


def _float_report(
    Z: FloatArray,
    norms: FloatArray,
    radius: float,
    corral: list[int],
    weights: FloatArray,
    outcome: str,
    *,
    strict: bool,
) -> MarginReport | None:
    """The report from a floating-point answer (many features).

    None when its duality gap is above 1e-9 and `strict`: the answer must be found exactly.
    Otherwise (too many features for exact arithmetic) the margin its separator achieves
    is reported, a lower bound on γ*, or nan ("undefined") when that is not positive.
    """
    if outcome == "optimal" and len(corral) > 1:
        # The support's minimizer solved afresh, its rows in order: the answer then depends
        # on the support alone, not on the way to it (a warm start's), and the weights of
        # the minor cycles' last step are refined (kept if rounding makes one negative).
        order = np.argsort(corral)
        corral, weights = [corral[i] for i in order.tolist()], weights[order]
        alpha = _affine_minimizer(Z[corral] / radius)
        if alpha.min() > 0:
            weights = alpha
    rows = tuple(tuple(row) for row in Z[corral].tolist())
    kept = tuple(weights.tolist())
    if outcome == "origin":
        return replace(_origin_report(Z, radius, rows, kept), support_rows=tuple(corral))
    p = weights @ Z[corral]
    length = float(np.linalg.norm(p))
    if length == 0.0:
        return None if strict else _undefined(radius)
    lowest = float(np.min(project(Z, p)))
    if not lowest / length >= length * (1.0 - 1e-9):
        if strict:
            return None
        if not lowest > 0:
            return _undefined(radius)
    # min z·u is a margin the separator achieves, within the gap of |p|, the upper bound.
    gamma = min(lowest / length, float(np.sqrt(np.min(norms))))
    report = _separable_report(gamma, radius, tuple((p / length).tolist()), rows, kept)
    return replace(report, support_rows=tuple(corral))
