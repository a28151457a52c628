"""Curves and regions of a score in the plane, for drawables that are not lines: the level
set {p : f(p) = level} by marching squares on a grid over the view, and the grid of the
classes f predicts (the regions). Qt-free: the view draws the segments and the image.

Marching squares: each grid cell's corners are above or below the level; the 16 patterns
say which cell edges the curve crosses, and where on each edge is found by linear
interpolation of f. Saddles (opposite corners alike) are resolved by the cell centre's
value. Vectorised over the whole grid: a 200 × 200 grid takes about 5 ms.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "GRID_MAX",
    "GRID_MIN",
    "SampledGrid",
    "grid_size",
    "level_segments",
    "partition_segments",
    "polylines",
    "region_classes",
    "sample",
]

FloatArray = NDArray[np.float64]
Score = Callable[[FloatArray], FloatArray]

GRID_MIN, GRID_MAX = 60, 200
"""The grid's side in cells: finer for a larger view in pixels, within these."""

# Edges of a cell: 0 bottom (c0→c1), 1 right (c1→c2), 2 top (c3→c2), 3 left (c0→c3), with
# corners c0 (x0, y0), c1 (x1, y0), c2 (x1, y1), c3 (x0, y1). The pattern's bit k is set
# when corner k is above the level. Two segments where a saddle needs them.
_SEGMENTS: dict[int, tuple[tuple[int, int], ...]] = {
    0: (), 15: (),
    1: ((3, 0),), 14: ((3, 0),),
    2: ((0, 1),), 13: ((0, 1),),
    3: ((3, 1),), 12: ((3, 1),),
    4: ((1, 2),), 11: ((1, 2),),
    6: ((0, 2),), 9: ((0, 2),),
    7: ((3, 2),), 8: ((3, 2),),
}  # fmt: skip
_SADDLES = {  # (centre above, centre below): the corners on the centre's other side cut off
    5: (((0, 1), (3, 2)), ((3, 0), (1, 2))),
    10: (((3, 0), (1, 2)), ((0, 1), (3, 2))),
}


def grid_size(pixels: float) -> int:
    """Cells per side for a view `pixels` wide: about one per 4 pixels, 60 … 200."""
    return int(min(GRID_MAX, max(GRID_MIN, pixels / 4)))


def sample(
    score: Score, box: tuple[float, float, float, float], cells: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(xs, ys, values): f on a (cells + 1)² grid over box (x0, x1, y0, y1); values[j, i]
    is f(xs[i], ys[j]), (.., K) for K scores."""
    (xs, ys), points = _grid(box, cells)
    values = _evaluated(score, points)
    shape = (ys.size, xs.size, *values.shape[1:])
    return xs, ys, values.reshape(shape)


class SampledGrid:
    """Scores sampled on one grid (a box and a number of cells), kept while the grid stays:
    a score asked for again is looked up, and an `Incremental` score (a sum of terms, such
    as the kernel perceptron's) is found from one sampled before by the terms that differ:
    a step's frame then costs one term over the grid, not one per support vector. At most
    `CHAIN` such updates follow one another before a score is sampled in full again (each
    adds a rounding of the order of an ulp of the terms)."""

    KEPT = 8
    CHAIN = 32

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._points = np.zeros((0, 2))
        self._axes: tuple[FloatArray, FloatArray] = (np.zeros(0), np.zeros(0))
        self._values: dict[object, tuple[FloatArray, int]] = {}  # score -> (values, chain)

    def sample(
        self, score: Score, box: tuple[float, float, float, float], cells: int
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(xs, ys, values) as `sample` gives them, from what is kept where it can."""
        key = (*box, cells)
        if key != self._key:
            self._key, self._values = key, {}
            self._axes, self._points = _grid(box, cells)
        xs, ys = self._axes
        found = self._values.get(score)
        if found is None:
            found = self._from_earlier(score) or (_evaluated(score, self._points), 0)
            self._values[score] = found
            while len(self._values) > self.KEPT:
                del self._values[next(iter(self._values))]
        values = found[0]
        return xs, ys, values.reshape((ys.size, xs.size, *values.shape[1:]))

    def _from_earlier(self, score: Score) -> tuple[FloatArray, int] | None:
        since = getattr(score, "since", None)
        if since is None:
            return None
        for earlier, (values, chain) in reversed(self._values.items()):
            if chain < self.CHAIN:
                found = since(earlier, self._points, values)
                if found is not None:
                    return np.asarray(found, dtype=np.float64), chain + 1
        return None


def _grid(
    box: tuple[float, float, float, float], cells: int
) -> tuple[tuple[FloatArray, FloatArray], FloatArray]:
    x0, x1, y0, y1 = box
    xs = np.linspace(x0, x1, cells + 1)
    ys = np.linspace(y0, y1, cells + 1)
    gx, gy = np.meshgrid(xs, ys)
    return (xs, ys), np.column_stack((gx.ravel(), gy.ravel()))


def _evaluated(score: Score, points: FloatArray) -> FloatArray:
    return np.asarray(score(points), dtype=np.float64)


def level_segments(
    xs: FloatArray,
    ys: FloatArray,
    values: FloatArray,
    level: float = 0.0,
    stepped: Score | None = None,
) -> FloatArray:
    """The level set as segments, an (m, 2, 2) array of end points (m may be 0).

    `stepped`: the score itself, for a score that jumps (a vote: a sum of signs). Linear
    interpolation would put every crossing mid-edge, a staircase along the grid; each is
    found instead by bisection along its edge, to 1/256 of a cell (the jumps' own lines).
    """
    v = values - level
    v = np.where(np.isfinite(v), v, np.nan)
    c0, c1, c2, c3 = v[:-1, :-1], v[:-1, 1:], v[1:, 1:], v[1:, :-1]
    above = [(c > 0).astype(np.int64) for c in (c0, c1, c2, c3)]
    pattern = above[0] | above[1] << 1 | above[2] << 2 | above[3] << 3
    valid = np.isfinite(c0) & np.isfinite(c1) & np.isfinite(c2) & np.isfinite(c3)
    x0, x1 = xs[:-1][None, :], xs[1:][None, :]
    y0, y1 = ys[:-1][:, None], ys[1:][:, None]
    corners = (c0, c1, c2, c3)
    pieces: list[tuple[_Crossing, _Crossing]] = []

    def add(cells: tuple[NDArray[np.intp], ...], pairs: tuple[tuple[int, int], ...]) -> None:
        for a, b in pairs:
            start = _edge_point(a, cells, corners, x0, x1, y0, y1)
            end = _edge_point(b, cells, corners, x0, x1, y0, y1)
            pieces.append((start, end))

    for case, pairs in _SEGMENTS.items():
        cells = np.nonzero((pattern == case) & valid)
        if cells[0].size:
            add(cells, pairs)
    for case, (high, low) in _SADDLES.items():
        cells = np.nonzero((pattern == case) & valid)
        if cells[0].size:
            above_centre = sum(c[cells] for c in corners) > 0
            add((cells[0][above_centre], cells[1][above_centre]), high)
            add((cells[0][~above_centre], cells[1][~above_centre]), low)
    if not pieces:
        return np.zeros((0, 2, 2))
    starts = _Crossing.joined([start for start, _ in pieces])
    ends = _Crossing.joined([end for _, end in pieces])
    if stepped is not None:
        starts, ends = _bisected(starts, stepped, level), _bisected(ends, stepped, level)
    return np.stack((starts.point, ends.point), axis=1)


class _Crossing:
    """Where the level crosses cell edges: the points, and each edge's two ends (p0 on the
    side `above` says)."""

    def __init__(self, point: FloatArray, p0: FloatArray, p1: FloatArray, above: NDArray[np.bool_]):
        self.point, self.p0, self.p1, self.above = point, p0, p1, above

    @staticmethod
    def joined(parts: list[_Crossing]) -> _Crossing:
        return _Crossing(
            *(
                np.concatenate([getattr(c, name) for c in parts])
                for name in ("point", "p0", "p1", "above")
            )
        )


_BISECTIONS = 8


def _bisected(crossing: _Crossing, score: Score, level: float) -> _Crossing:
    """The crossings found by bisection of the score along their edges."""
    low = np.zeros(crossing.point.shape[0])
    high = np.ones_like(low)
    step = crossing.p1 - crossing.p0
    for _ in range(_BISECTIONS):
        middle = 0.5 * (low + high)
        value = np.asarray(score(crossing.p0 + middle[:, None] * step), dtype=np.float64)
        same = (value - level > 0) == crossing.above
        low, high = np.where(same, middle, low), np.where(same, high, middle)
    t = 0.5 * (low + high)
    return _Crossing(crossing.p0 + t[:, None] * step, crossing.p0, crossing.p1, crossing.above)


def _edge_point(
    edge: int,
    cells: tuple[NDArray[np.intp], ...],
    corners: tuple[FloatArray, ...],
    x0: FloatArray,
    x1: FloatArray,
    y0: FloatArray,
    y1: FloatArray,
) -> _Crossing:
    """Where the level crosses `edge` of each cell, by linear interpolation."""
    rows, cols = cells
    ends = {0: (0, 1), 1: (1, 2), 2: (3, 2), 3: (0, 3)}[edge]
    a, b = corners[ends[0]][cells], corners[ends[1]][cells]
    t = np.clip(a / np.where(a == b, 1.0, a - b), 0.0, 1.0)
    left, right = x0[0, cols], x1[0, cols]
    bottom, top = y0[rows, 0], y1[rows, 0]
    if edge in (0, 2):
        y = bottom if edge == 0 else top
        p0, p1 = np.column_stack((left, y)), np.column_stack((right, y))
    else:
        x = left if edge == 3 else right
        p0, p1 = np.column_stack((x, bottom)), np.column_stack((x, top))
    return _Crossing(p0 + t[:, None] * (p1 - p0), p0, p1, a > 0)


def polylines(segments: FloatArray) -> FloatArray:
    """The segments joined into polylines where they share an end point (neighbouring cells
    compute a shared crossing alike, bit for bit), as (k, 2) vertices with a row of NaN
    after each polyline: drawn as lines, not as pairs, a curve has no seams at its joints
    and a dashed one keeps its dashes."""
    m = segments.shape[0]
    if not m:
        return np.zeros((0, 2))
    ends = np.ascontiguousarray(segments.reshape(-1, 2) + 0.0)
    keys = ends.view(np.dtype((np.void, 16))).ravel()
    _, node = np.unique(keys, return_inverse=True)
    node = node.ravel()
    # A node joins two segments (two cells share an edge), or more where the level passes
    # through a grid corner exactly.
    links: dict[int, list[int]] = {}
    for end, n in enumerate(node.tolist()):
        links.setdefault(n, []).append(end)
    used = np.zeros(m, dtype=bool)
    out: list[FloatArray] = []

    def walk(end: int) -> list[int]:
        """The ends visited from `end`, segment by segment, until the chain stops."""
        path = []
        while True:
            segment = end // 2
            if used[segment]:
                return path
            used[segment] = True
            far = end ^ 1
            path += [end, far]
            others = [e for e in links[int(node[far])] if not used[e // 2]]
            if not others:
                return path
            end = others[0]

    starts = [ends_[0] for ends_ in links.values() if len(ends_) == 1] + list(range(2 * m))
    for end in starts:
        if not used[end // 2]:
            path = walk(end)
            chain = ends[[*path[0::2], path[-1]]]
            out += [chain, np.full((1, 2), np.nan)]
    return np.concatenate(out)


def partition_segments(xs: FloatArray, ys: FloatArray, values: FloatArray) -> FloatArray:
    """The boundaries between the regions of K scores (values (.., K)): for each pair of
    classes i < j, the level set s_i − s_j = 0 over the cells whose corners all lie in
    region i or region j (so only the pieces of w_i·x = w_j·x that border both regions;
    cells where three regions meet are left out, a gap of one cell)."""
    count = values.shape[2]
    finite = np.all(np.isfinite(values), axis=2)
    safe = np.where(finite[..., None], values, 0.0)
    best = np.argmax(safe, axis=2)
    pieces = [np.zeros((0, 2, 2))]
    for i in range(count):
        for j in range(i + 1, count):
            here = finite & ((best == i) | (best == j))
            if np.any(here & (best == i)) and np.any(here & (best == j)):
                field = np.where(here, safe[..., i] - safe[..., j], np.nan)
                pieces.append(level_segments(xs, ys, field))
    return np.concatenate(pieces, axis=0)


def region_classes(values: FloatArray) -> NDArray[np.int64]:
    """The class f predicts at each grid point: the sign (−1, 0, +1) of a single score, or
    the argmax of K scores (0 … K−1)."""
    if values.ndim == 3:
        return np.argmax(values, axis=2).astype(np.int64)
    return np.sign(values).astype(np.int64)
