"""Exact geometry on a few points, and γ* of data that are not separable.

Exact arithmetic on float rows (floats are rationals): the nearest point of an affine hull,
a dot product, a correctly rounded square root, a rank, the hyperplane through D points.
When the origin lies in the hull of the zᵢ = yᵢ xᵢ, γ* is minus the distance from the
origin to the hull's boundary: from the hull's facets (Qhull via SciPy) in up to 8
dimensions, the nearest ones measured exactly (`negative_margin`).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

import flint
import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from scipy.spatial import ConvexHull

__all__ = [
    "exact_affine",
    "exact_dot",
    "exact_sqrt",
    "integers",
    "negative_margin",
    "project",
]

FloatArray = NDArray[np.float64]

_HULL_FEATURES = 8  # Qhull's cost grows as n^(D/2)
_HULL_ROWS = {4: 600, 5: 400, 6: 100, 7: 80, 8: 40}
"""The most points Qhull is given in k dimensions (none beyond 3): its facets grow as
n^⌊k/2⌋, and at these sizes points whose every one is a vertex with the most facets there
can be (on the moment curve: a cyclic polytope) take about a second; 135 points in 6-D took
2.4 s, 60 in 8-D 3.5 s. Round data in a polynomial kernel's space are like that (500
points of a ring with (x·z + 1)² froze the window for over a minute before this limit
applied to the candidates' search too). Random data have few vertices and pass."""


# -- exact arithmetic on a few points ------------------------------------------------------


def integers(rows: FloatArray) -> tuple[list[list[int]], int]:
    """Integers N and an exponent E with rows = N·2^E exactly."""
    mantissas, exponents = np.frexp(rows)
    ints = (mantissas * 2.0**53).astype(np.int64)  # exact: a double has 53 significant bits
    shifts = exponents.astype(np.int64) - 53
    nonzero = ints != 0
    exponent = int(shifts[nonzero].min()) if nonzero.any() else 0
    shifts = np.where(nonzero, shifts - exponent, 0)
    return [
        [int(m) << int(s) for m, s in zip(row_m, row_s, strict=True)]
        for row_m, row_s in zip(ints.tolist(), shifts.tolist(), strict=True)
    ], exponent


def _dot(a: list[int], b: list[int]) -> int:
    return sum(x * y for x, y in zip(a, b, strict=True))


def exact_affine(rows: FloatArray) -> tuple[list[Fraction], list[Fraction]] | None:
    """(α, p): the point p = Σ αᵢ rowᵢ (Σα = 1) of the rows' affine hull nearest the origin,
    in exact rational arithmetic; None when the rows are affinely dependent.

    p = P₀ + Σ βⱼ (Pⱼ − P₀) with (Pᵢ − P₀)·p = 0: a Gram system G β = r in integers, solved
    exactly by FLINT (python-flint), which takes milliseconds where fraction-free
    elimination in Python took 23 s for 128 rows of the Winnow lab's data.
    """
    ints, exponent = integers(rows)
    first = flint.fmpz_mat([ints[0]])
    differences = flint.fmpz_mat(
        [[b - a for a, b in zip(ints[0], row, strict=True)] for row in ints[1:]]
    )
    m = len(ints) - 1
    if m == 0:
        alpha, point = [Fraction(1)], flint.fmpq_mat(first)
    else:
        gram = differences * differences.transpose()
        try:  # G is positive semidefinite: singular iff the rows are affinely dependent
            beta = gram.solve(-(differences * first.transpose()))
        except ZeroDivisionError:
            return None
        betas = [_fraction(beta[i, 0]) for i in range(m)]
        alpha = [1 - sum(betas, Fraction(0)), *betas]
        row = flint.fmpq_mat(1, m, [beta[i, 0] for i in range(m)])
        point = flint.fmpq_mat(first) + row * flint.fmpq_mat(differences)
    scale = Fraction(2) ** exponent
    return alpha, [_fraction(point[0, j]) * scale for j in range(point.ncols())]


def _fraction(q: flint.fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def exact_sqrt(q: Fraction) -> float:
    """√q for a rational q >= 0, correctly rounded."""
    if q <= 0:
        return 0.0
    # Scale by 4^e so that the integer root has >= 60 bits; then a sticky bit rounds right.
    e = max(0, (130 - (q.numerator.bit_length() - q.denominator.bit_length())) // 2)
    scaled = q * 4**e
    whole = scaled.numerator // scaled.denominator
    root = math.isqrt(whole)
    exact = scaled.denominator == 1 and root * root == whole
    return float(Fraction(2 * root + (0 if exact else 1), 2 ** (e + 1)))


def exact_dot(z: list[float], p: list[Fraction]) -> Fraction:
    return sum((Fraction(a) * b for a, b in zip(z, p, strict=True)), Fraction(0))


def project(Z: FloatArray, v: FloatArray) -> FloatArray:
    """Z @ v. Z is column-major; for few columns a sum of scaled columns is several times
    faster than BLAS's matrix-vector product on a tall, narrow matrix."""
    if Z.shape[1] > 16:
        result: FloatArray = Z @ v
        return result
    total: FloatArray = Z[:, 0] * v[0]
    for j in range(1, Z.shape[1]):
        total += Z[:, j] * v[j]
    return total


def negative_margin(Z: FloatArray) -> tuple[float, str]:
    """γ* when the origin is in conv(Z): minus its distance to the hull's boundary, and
    why it is nan when it is.

    0 when the hull is flat (Z spans less than the feature space); nan beyond 8 dimensions
    or beyond `_HULL_ROWS` candidate vertices (the window must not freeze for minutes).
    The facets come from Qhull on columns scaled by powers of two (well conditioned, and
    exact); the nearest ones are then measured exactly.
    """
    D = Z.shape[1]
    if D == 1:
        return float(max(np.min(Z), -np.max(Z))) + 0.0, ""  # hull [a, b] with a <= 0 <= b
    # Imported here: SciPy's spatial module takes ~0.4 s to load, and only data that are
    # not separable need it (the window must paint fast).
    from scipy.spatial import ConvexHull, QhullError

    # Column by column: NumPy's axis-0 reductions over a narrow array are many times slower.
    column_max = np.array([max(-np.min(Z[:, j]), np.max(Z[:, j])) for j in range(D)])
    shifts = -np.frexp(column_max)[1]  # column j times 2^shifts[j] is within [0.5, 1)
    rows = _hull_candidates(Z, shifts) if D <= _HULL_FEATURES else np.arange(len(Z))
    W = np.ldexp(Z[rows], shifts)
    # The vertices span what all the points span; a rank that rounding calls deficient is
    # checked exactly (a nearly flat hull is not a flat one).
    if np.linalg.matrix_rank(W) < D and (len(rows) > 200 or _exact_rank(Z[rows]) < D):
        return 0.0, ""
    if D > _HULL_FEATURES:
        return (
            math.nan,
            f"γ* of data that are not separable is found up to {_HULL_FEATURES} features",
        )
    limit = _HULL_ROWS.get(D)
    if limit is not None and len(rows) > limit:
        return math.nan, (
            f"γ* of data that are not separable is found up to {limit:,} possible hull "
            f"vertices in {D} features; these have {len(rows):,}"
        )
    try:
        hull = ConvexHull(W, qhull_options="Qc")
    except QhullError:  # too flat for Qhull: every facet through the candidates, exactly
        ints, exponent = integers(Z[rows])
        flat = _all_facets(ints)
        if flat is None:
            return math.nan, "γ* not found: the hull is too flat for Qhull"
        return -exact_sqrt(flat * Fraction(4) ** exponent) + 0.0, ""
    return _nearest_facet(Z[rows], hull, shifts, column_max), ""


def _nearest_facet(
    Z: FloatArray, hull: ConvexHull, shifts: NDArray[np.intc], column_max: FloatArray
) -> float:
    """Minus the distance from the origin to the nearest facet of `hull`, Qhull's hull of
    the rows of Z with column j scaled by 2^shifts[j]: Qhull's nearest facets, measured
    exactly."""
    # Qhull's facets: unit normal n', offset c', n'·w + c' <= 0 inside; as w = z ⊙ 2^shifts,
    # the plane in z is (n' ⊙ 2^shifts)·z + c' = 0, at distance −c'/|n' ⊙ 2^shifts|
    # (computed as 2^-top (−c'/|n' ⊙ 2^(shifts − top)|), which cannot overflow).
    top = int(np.max(shifts))
    normals = np.ldexp(hull.equations[:, :-1], shifts - top)
    lengths = np.sqrt(np.einsum("ij,ij->i", normals, normals))
    distances = np.ldexp(-hull.equations[:, -1] / lengths, -top)
    distances[~np.isfinite(distances)] = np.inf  # a normal lost to underflow: measured below
    order = np.argsort(distances)
    nearest = float(distances[order[0]])
    window = nearest + 1e-6 * abs(nearest) + 1e-12 * float(np.max(column_max))
    # Points Qhull could not call inside or outside: its vertices and the points it found
    # coplanar with a facet. Every other point is inside by more than its rounding.
    doubtful = np.union1d(hull.vertices, hull.coplanar[:, 0])
    position = {int(w): i for i, w in enumerate(doubtful.tolist())}
    ints, exponent = integers(Z[doubtful])
    best: Fraction | None = None
    seen = set()  # Qhull splits a facet with many vertices into simplices of one plane
    for f in order[:256].tolist():
        if distances[f] > window:
            break
        plane = _plane([ints[position[int(v)]] for v in hull.simplices[f]])
        if plane is None:
            continue
        divisor = math.gcd(*plane[0], plane[1])  # nonzero, as the normal is
        divisor = divisor if next(c for c in plane[0] if c) > 0 else -divisor
        key = (*(c // divisor for c in plane[0]), plane[1] // divisor)
        if key not in seen and _supports(plane, ints):
            square = Fraction(plane[1] ** 2, _dot(plane[0], plane[0]))
            best = square if best is None else min(best, square)
        seen.add(key)
    if best is None:  # Qhull's nearest facets fail the exact test (nearly degenerate data)
        best = _all_facets(ints)
    if best is None:
        return -max(nearest, 0.0)
    return -exact_sqrt(best * Fraction(4) ** exponent) + 0.0


def _exact_rank(rows: FloatArray) -> int:
    """The rank of a few float rows, exactly."""
    matrix = [[Fraction(v) for v in row] for row in rows.tolist()]
    rank = 0
    for c in range(rows.shape[1]):
        pivot = next((r for r in range(rank, len(matrix)) if matrix[r][c] != 0), None)
        if pivot is None:
            continue
        matrix[rank], matrix[pivot] = matrix[pivot], matrix[rank]
        for r in range(rank + 1, len(matrix)):
            if matrix[r][c] != 0:
                factor = matrix[r][c] / matrix[rank][c]
                matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[rank], strict=True)]
        rank += 1
    return rank


def _supports(plane: tuple[list[int], int], points: list[list[int]]) -> bool:
    """Whether every point lies on the origin's side of the plane n·z = c, or on it."""
    normal, offset = plane
    sides = [_dot(normal, z) - offset for z in points]
    if offset > 0 or (offset == 0 and any(side < 0 for side in sides)):
        return all(side <= 0 for side in sides)
    return all(side >= 0 for side in sides)


def _all_facets(points: list[list[int]]) -> Fraction | None:
    """min over the supporting hyperplanes through D of the points of their squared
    distance to the origin, exactly, by trying them all; None if there are too many."""
    D = len(points[0])
    if math.comb(len(points), D) > 4000:
        return None
    best: Fraction | None = None
    for subset in itertools.combinations(points, D):
        plane = _plane(list(subset))
        if plane is not None and _supports(plane, points):
            square = Fraction(plane[1] ** 2, _dot(plane[0], plane[0]))
            best = square if best is None else min(best, square)
    return best


def _determinant(matrix: list[list[int]]) -> int:
    """det of an integer matrix, exactly (Bareiss' fraction-free elimination)."""
    a = [row[:] for row in matrix]
    n = len(a)
    sign, previous = 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((i for i in range(k + 1, n) if a[i][k] != 0), None)
            if swap is None:
                return 0
            a[k], a[swap] = a[swap], a[k]
            sign = -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) // previous
        previous = a[k][k]
    return sign * a[n - 1][n - 1]


def _plane(points: list[list[int]]) -> tuple[list[int], int] | None:
    """The hyperplane n·z = c through D integer points of R^D, exactly; None when they
    do not span one.

    n is the generalized cross product of the differences (cofactors); the squared
    distance from the origin is c²/|n|².
    """
    first = points[0]
    differences = [[b - a for a, b in zip(first, row, strict=True)] for row in points[1:]]
    normal = [
        (-1) ** j * _determinant([d[:j] + d[j + 1 :] for d in differences])
        for j in range(len(first))
    ]
    if not any(normal):
        return None
    return normal, _dot(normal, first)


def _directions(k: int) -> FloatArray:
    """Directions for finding extreme points: the axes and diagonals (all of {-1, 0, 1}^k
    up to 3 dimensions)."""
    if k <= 3:
        grid = np.array(np.meshgrid(*([[-1.0, 0.0, 1.0]] * k))).reshape(k, -1).T
        return grid[np.any(grid != 0, axis=1)]
    eye = np.eye(k)
    return np.vstack((eye, -eye, np.ones((1, k)), -np.ones((1, k))))


def _maybe_vertices(P: FloatArray) -> NDArray[np.intp]:
    """Rows of P that can be vertices of conv(P), a superset (Akl–Toussaint).

    The extreme points along a few directions span a polytope inside the hull; points
    strictly inside it are not vertices. Then Qhull on what is left.
    """
    from scipy.spatial import ConvexHull, QhullError  # loaded by negative_margin already

    n, k = P.shape
    everything = np.arange(n)
    if k == 1:
        return np.unique([int(np.argmin(P)), int(np.argmax(P))])
    if n <= k + 1:
        return everything
    candidates = everything
    limit = _HULL_ROWS.get(k, math.inf)  # Qhull is never given more (its time is n^⌊k/2⌋)
    if n > 64 * k:
        extremes = np.unique([int(np.argmax(project(P, d))) for d in _directions(k)])
        if extremes.size > limit:
            return everything
        try:
            inner = ConvexHull(P[extremes])
        except QhullError:
            return everything
        tolerance = 1e-9 * max(float(np.max(np.abs(P[extremes]))), 1e-300)
        outside = np.zeros(n, dtype=bool)
        for equation in inner.equations:  # one pass per facet: a matrix product is slower
            outside |= project(P, equation[:-1]) + equation[-1] >= -tolerance
        candidates = np.union1d(np.flatnonzero(outside), extremes)
    if candidates.size > limit:  # too many to sort out here: the caller says so
        return candidates
    try:  # its vertices, and the points it finds too close to a facet to call
        hull = ConvexHull(P[candidates], qhull_options="Qc")
        vertices: NDArray[np.intp] = candidates[np.union1d(hull.vertices, hull.coplanar[:, 0])]
        return vertices
    except QhullError:  # flat: keep them all
        return candidates


def _hull_candidates(Z: FloatArray, shifts: NDArray[np.intc]) -> NDArray[np.intp]:
    """Rows that can be vertices of conv(Z), found on column j scaled by 2^shifts[j].

    With bias the first feature is y = ±1: each class lies in a hyperplane, and the hull's
    vertices are among the vertices of each class's hull there, one dimension down (much
    faster for Qhull than all the points on the hyperplanes' facets).
    """
    first = Z[:, 0]
    low, high = float(np.min(first)), float(np.max(first))
    if low == high or not np.all((first == low) | (first == high)):
        scaled: FloatArray = np.empty(Z.shape, order="F")
        np.ldexp(Z, shifts, out=scaled)
        return _maybe_vertices(scaled)
    keep = []
    for group in (np.flatnonzero(first == low), np.flatnonzero(first == high)):
        P: FloatArray = np.empty((group.size, Z.shape[1] - 1), order="F")
        for j in range(Z.shape[1] - 1):
            np.take(Z[:, j + 1], group, out=P[:, j])
            np.ldexp(P[:, j], shifts[j + 1], out=P[:, j])
        keep.append(group[_maybe_vertices(P)])
    return np.unique(np.concatenate(keep))
