"""An exact oracle for γ*, by brute force over rationals (small sets only).

Separable data: the point p of conv{zᵢ} nearest the origin is the nearest point of the
affine hull of some subset S with positive weights, and it certifies itself: z·p >= |p|²
for every z. We try every subset, solving the Lagrange system [G 1; 1ᵀ 0][α; μ] = [0; 1]
(G = Z_S Z_Sᵀ) with fractions, and keep the p that certifies itself. γ*² = |p|².

Not separable (p = 0): γ* = 0 if the zᵢ span less than the whole space, else minus the
distance from the origin to the nearest facet of the hull; facets are the hyperplanes
through D of the points with every point on one side, found by trying every D-subset.

Everything is exact: floats are rationals and only +, −, ×, ÷ are used. The answers are
squares (γ*² as a Fraction) with a sign, so no square root is taken.
"""

from decimal import Context
from fractions import Fraction
from itertools import combinations

_DECIMAL = Context(prec=60, Emin=-999_999, Emax=999_999)


def sqrt(q):
    """√q of a Fraction q >= 0 as a float, through 60-digit decimals (no under- or overflow)."""
    root = _DECIMAL.sqrt(_DECIMAL.divide(q.numerator, q.denominator))
    return float(root)


def _solve(matrix, rhs):
    """x with matrix·x = rhs (Gauss–Jordan over Fractions), or None if singular."""
    m = len(matrix)
    a = [[Fraction(v) for v in row] + [Fraction(b)] for row, b in zip(matrix, rhs, strict=True)]
    for c in range(m):
        pivot = next((r for r in range(c, m) if a[r][c] != 0), None)
        if pivot is None:
            return None
        a[c], a[pivot] = a[pivot], a[c]
        for r in range(m):
            if r != c and a[r][c] != 0:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c], strict=True)]
    return [a[r][m] / a[r][r] for r in range(m)]


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b, strict=True)), Fraction(0))


def _rank(rows):
    a = [list(r) for r in rows]
    rank, cols = 0, len(a[0]) if a else 0
    for c in range(cols):
        pivot = next((r for r in range(rank, len(a)) if a[r][c] != 0), None)
        if pivot is None:
            continue
        a[rank], a[pivot] = a[pivot], a[rank]
        for r in range(len(a)):
            if r != rank and a[r][c] != 0:
                f = a[r][c] / a[rank][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[rank], strict=True)]
        rank += 1
    return rank


def nearest_point(Z):
    """The exact point of conv(rows of Z) nearest the origin (a list of Fractions)."""
    rows = [[Fraction(v) for v in row] for row in Z]
    D = len(rows[0])
    for size in range(1, D + 2):
        for subset in combinations(rows, size):
            k = len(subset)
            kkt = [[_dot(subset[i], subset[j]) for j in range(k)] + [Fraction(1)] for i in range(k)]
            kkt.append([Fraction(1)] * k + [Fraction(0)])
            solution = _solve(kkt, [Fraction(0)] * k + [Fraction(1)])
            if solution is None or min(solution[:k]) <= 0:
                continue
            p = [
                sum((a * z[j] for a, z in zip(solution[:k], subset, strict=True)), Fraction(0))
                for j in range(D)
            ]
            square = _dot(p, p)
            if all(_dot(z, p) >= square for z in rows):
                return p
    raise AssertionError("no subset certified itself; the oracle is wrong")


def _normal(points):
    """A nonzero normal of the hyperplane through D points in R^D, or None if they are dependent."""
    D = len(points[0])
    differences = [[b - a for a, b in zip(points[0], q, strict=True)] for q in points[1:]]
    for free in range(D):  # set coordinate `free` to 1, solve for the others
        others = [j for j in range(D) if j != free]
        matrix = [[d[j] for j in others] for d in differences]
        rhs = [-d[free] for d in differences]
        solution = _solve(matrix, rhs) if D > 1 else []
        if solution is not None:
            n = [Fraction(0)] * D
            n[free] = Fraction(1)
            for j, v in zip(others, solution, strict=True):
                n[j] = v
            if all(_dot(d, n) == 0 for d in differences):
                return n
    return None


def signed_gamma_squared(Z):
    """(sign, γ*²) exactly: sign +1 when separable, 0 when γ* = 0, -1 when γ* < 0."""
    rows = [[Fraction(v) for v in row] for row in Z]
    p = nearest_point(Z)
    square = _dot(p, p)
    if square > 0:
        return 1, square
    D = len(rows[0])
    if _rank(rows) < D:
        return 0, Fraction(0)
    best = None
    for subset in combinations(rows, D):
        n = _normal(list(subset))
        if n is None:
            continue
        c = _dot(n, subset[0])
        sides = [_dot(n, z) - c for z in rows]
        if all(s <= 0 for s in sides) or all(s >= 0 for s in sides):
            distance = c * c / _dot(n, n)
            best = distance if best is None else min(best, distance)
    assert best is not None, "a full-dimensional hull has facets"
    return (0, Fraction(0)) if best == 0 else (-1, best)
