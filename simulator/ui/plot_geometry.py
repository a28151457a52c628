"""Plane geometry for the plot, without Qt: lines in a view, half-planes, following the learner.

A view is a `Box` (x0, x1, y0, y1) in data coordinates; a line is the engine's `InputLine`
{p : offset + normal·p = level}. Everything here is a few NumPy operations on a handful of
numbers, so the plot can call it every frame.

Following the learner (View → Follow the learner) is a decision with hysteresis, so the
view never jitters from trial to trial:

- It moves only when something would leave it: a point, or the boundary with its w arrow
  (a fair stretch of the boundary must cross the view, not just a corner, with room for
  the arrow).
- When it moves, it grows to take in what left with `HEADROOM` to spare, keeping what it
  showed (so it moves rarely, and only outwards).
- It shrinks only when what it must show fits in `SHRINK_BELOW` of it in both directions
  (say, after a far-away boundary came back to the data), and then to that with headroom.
- It follows a boundary only as far as `FAR` times the data's size: beyond that the points
  would become specks, so the view stays on the data and a marker at its edge points to
  the boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator.engine import InputLine

__all__ = [
    "ARROW_FRACTION",
    "FAR",
    "HEADROOM",
    "SHRINK_BELOW",
    "Box",
    "arrow_placement",
    "clip_line",
    "edge_marker",
    "follow",
    "half_plane",
    "line_in_sight",
    "snap",
]

ARROW_FRACTION = 0.12  # w's arrow, when not at true length: this share of the view diagonal
HEADROOM = 0.12  # room added on each side when the view grows or refits
SHRINK_BELOW = 0.4  # refit (shrink) once everything needed spans less than this share
FAR = 4.0  # follow a boundary at most this many data sizes away
MARGIN = 0.03  # "inside" means this share of the span away from the edges
STRETCH = 0.2  # follow this much of the boundary each side of its point nearest the data
VISIBLE = 0.1  # a boundary is in sight when this share of the view's side of it shows

Vector = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned rectangle [x0, x1] × [y0, y1] in data coordinates."""

    x0: float
    x1: float
    y0: float
    y1: float

    @classmethod
    def around(cls, points: Vector) -> Box:
        """The smallest box holding the rows of `points` (n ≥ 1, 2)."""
        low, high = points.min(axis=0), points.max(axis=0)
        return cls(float(low[0]), float(high[0]), float(low[1]), float(high[1]))

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def center(self) -> Vector:
        return np.array([(self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2])

    @property
    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def grown(self, fraction: float, minimum: float = 0.0) -> Box:
        """Each side moved out by `fraction` of the span (at least `minimum`); a negative
        `fraction` moves them in (the margin "inside" keeps from the edges)."""
        dx, dy = fraction * self.width, fraction * self.height
        if fraction >= 0:
            dx, dy = max(dx, minimum), max(dy, minimum)
        return Box(self.x0 - dx, self.x1 + dx, self.y0 - dy, self.y1 + dy)

    def union(self, other: Box) -> Box:
        return Box(
            min(self.x0, other.x0),
            max(self.x1, other.x1),
            min(self.y0, other.y0),
            max(self.y1, other.y1),
        )

    def including(self, points: Vector) -> Box:
        return self.union(Box.around(np.asarray(points, dtype=float).reshape(-1, 2)))

    def contains(self, points: Vector) -> bool:
        p = np.asarray(points, dtype=float).reshape(-1, 2)
        return bool(
            np.all(p[:, 0] >= self.x0)
            and np.all(p[:, 0] <= self.x1)
            and np.all(p[:, 1] >= self.y0)
            and np.all(p[:, 1] <= self.y1)
        )

    def corners(self) -> Vector:
        return np.array(
            [[self.x0, self.y0], [self.x1, self.y0], [self.x1, self.y1], [self.x0, self.y1]]
        )


def _unit_normal(line: InputLine) -> tuple[Vector, float] | None:
    """(unit normal n̂, signed distance c) with the line written n̂·p = c."""
    normal = np.asarray(line.normal, dtype=float)
    norm = float(np.linalg.norm(normal))
    if normal.shape != (2,) or not (norm > 0 and math.isfinite(norm)):
        return None
    c = (line.level - line.offset) / norm
    if not math.isfinite(c):
        return None
    return normal / norm, c


def project(line: InputLine, point: Vector) -> Vector | None:
    """The point of `line` nearest to `point`."""
    placed = _unit_normal(line)
    if placed is None:
        return None
    unit, c = placed
    return point - (float(unit @ point) - c) * unit


def clip_line(line: InputLine, box: Box) -> tuple[Vector, Vector] | None:
    """The stretch of `line` inside `box` (its two ends), or None if it misses the box."""
    placed = _unit_normal(line)
    if placed is None or box.width <= 0 or box.height <= 0:
        return None
    unit, c = placed
    foot = unit * c
    direction = np.array([-unit[1], unit[0]])
    low, high = -math.inf, math.inf
    for axis, (lo, hi) in enumerate(((box.x0, box.x1), (box.y0, box.y1))):
        d, f = direction[axis], foot[axis]
        if abs(d) < 1e-15:
            if not lo <= f <= hi:
                return None
            continue
        t0, t1 = sorted(((lo - f) / d, (hi - f) / d))
        low, high = max(low, t0), min(high, t1)
    if not low <= high:
        return None
    return foot + low * direction, foot + high * direction


def arrow_placement(
    line: InputLine, view: Box, length: float, *, shorten: bool = True
) -> tuple[Vector, Vector] | None:
    """Where w's arrow goes: (start on the line, end), both inside `view` (a margin from the
    edges), the start as near the view's centre as allowed. With `shorten`, an arrow with no
    room is halved (twice at most) before giving up; without, it keeps its length and starts
    from the line's visible stretch. None if the line misses the view."""
    placed = _unit_normal(line)
    if placed is None:
        return None
    unit, _ = placed
    inner = view.grown(-MARGIN)
    foot = project(line, view.center)
    if foot is None:
        return None
    for scale in (1.0, 0.5, 0.25) if shorten else (1.0,):
        vector = unit * (length * scale)
        # Starts s with s and s + v both inside: the line clipped to inner ∩ (inner − v).
        room = Box(
            max(inner.x0, inner.x0 - vector[0]),
            min(inner.x1, inner.x1 - vector[0]),
            max(inner.y0, inner.y0 - vector[1]),
            min(inner.y1, inner.y1 - vector[1]),
        )
        stretch = clip_line(line, room)
        if stretch is not None:
            break
    else:
        stretch = clip_line(line, inner)
        if stretch is None:
            return None
        if shorten:  # no room for a quarter arrow: as long as the room allows, if it shows
            return _fitted_arrow(stretch, unit, inner, foot)
    a, b = stretch
    ab = b - a
    span = float(ab @ ab)
    t = 0.0 if span == 0 else min(1.0, max(0.0, float((foot - a) @ ab) / span))
    start = a + t * ab
    return start, start + vector


SHORTEST_ARROW = 0.03  # of the view's diagonal: an arrow shorter than this is not drawn


def _fitted_arrow(
    stretch: tuple[Vector, Vector], unit: Vector, inner: Box, foot: Vector
) -> tuple[Vector, Vector] | None:
    """The longest arrow along `unit` from the line's visible `stretch` that stays inside
    `inner` (a boundary along the data's edge, w pointing off the view), or None when it
    would be too short to read."""
    best: tuple[float, Vector, float] | None = None
    a, b = stretch
    for t in np.linspace(0.0, 1.0, 9):
        start = a + t * (b - a)
        room = math.inf
        for k, (low, high) in enumerate(((inner.x0, inner.x1), (inner.y0, inner.y1))):
            if unit[k] > 0:
                room = min(room, (high - start[k]) / unit[k])
            elif unit[k] < 0:
                room = min(room, (low - start[k]) / unit[k])
        near = float((start - foot) @ (start - foot))
        if best is None or room > best[0] * 1.05 or (room >= best[0] * 0.95 and near < best[2]):
            best = (room, start, near)
    if best is None or best[0] < SHORTEST_ARROW * inner.diagonal:
        return None
    length, start, _ = best
    return start, start + unit * length


def edge_marker(line: InputLine, view: Box, inset: float = 0.06) -> tuple[Vector, Vector] | None:
    """For a boundary that misses the view: (a point just inside the view's edge, the unit
    direction from it towards the line). None when the line crosses the view."""
    if clip_line(line, view) is not None:
        return None
    center = view.center
    foot = project(line, center)
    if foot is None:
        return None
    direction = foot - center
    distance = float(np.linalg.norm(direction))
    if not (distance > 0 and math.isfinite(distance)):
        return None
    direction = direction / distance
    inner = view.grown(-inset)
    reach = []
    for axis, (lo, hi) in enumerate(((inner.x0, inner.x1), (inner.y0, inner.y1))):
        d = direction[axis]
        if abs(d) > 1e-15:
            reach.append(((hi if d > 0 else lo) - center[axis]) / d)
    t = max(0.0, min(reach)) if reach else 0.0
    return center + t * direction, direction


def half_plane(line: InputLine, box: Box, sign: int) -> Vector:
    """The part of `box` where sign·(offset + normal·p − level) ≥ 0, as a polygon (k, 2);
    empty (0, 2) when there is none. Sutherland–Hodgman against one edge."""
    normal = np.asarray(line.normal, dtype=float)
    corners = box.corners()
    values = sign * (line.offset + corners @ normal - line.level)
    if not np.all(np.isfinite(values)):
        return np.empty((0, 2))
    out: list[Vector] = []
    for k in range(4):
        p, q = corners[k], corners[(k + 1) % 4]
        vp, vq = values[k], values[(k + 1) % 4]
        if vp >= 0:
            out.append(p)
        if (vp >= 0) != (vq >= 0):
            out.append(p + (vp / (vp - vq)) * (q - p))
    return np.array(out) if len(out) >= 3 else np.empty((0, 2))


def snap(value: float, step: float | None) -> float:
    """`value` rounded to a multiple of `step` (None: unchanged), written as the decimal
    a teacher typed (0.3, not 0.30000000000000004)."""
    if step is None or not (step > 0 and math.isfinite(value)):
        return value
    decimals = max(0, -math.floor(math.log10(step)) + 1)
    return round(round(value / step) * step, decimals) + 0.0  # + 0.0: no -0.0


def _arrow_length(view: Box, true_length: float | None) -> float:
    return true_length if true_length is not None else ARROW_FRACTION * view.diagonal


def _needs(
    data: Box, line: InputLine | None, view: Box, true_length: float | None
) -> tuple[Box, str]:
    """The least box holding the data and what of the boundary can be followed: a stretch
    of it (around its point nearest the data's centre) with w's arrow, only that stretch
    (the arrow is too long), or nothing (the line is too far). The second item says which."""
    if line is None:
        return data, "data"
    anchor = project(line, data.center)
    placed = _unit_normal(line)
    if anchor is None or placed is None:
        return data, "data"
    unit, _ = placed
    along = np.array([-unit[1], unit[0]])
    reach = FAR * max(data.width, data.height, 1.0)
    with_anchor = data.including(anchor)
    if max(with_anchor.width, with_anchor.height) > reach:
        return data, "data"  # too far: stay on the data; the edge marker shows the way
    half = STRETCH * max(with_anchor.width, with_anchor.height)
    with_line = with_anchor.including(np.array([anchor - half * along, anchor + half * along]))
    length = _arrow_length(with_line.grown(HEADROOM), true_length)
    with_arrow = with_line.including(anchor + unit * length)
    if max(with_arrow.width, with_arrow.height) > reach:
        return with_line, "line"
    return with_arrow, "arrow"


def line_in_sight(line: InputLine, view: Box) -> bool:
    """Whether a fair stretch of `line` crosses `view` (not just a corner)."""
    stretch = clip_line(line, view.grown(-MARGIN))
    if stretch is None:
        return False
    length = float(np.linalg.norm(stretch[1] - stretch[0]))
    return length >= VISIBLE * min(view.width, view.height)


def follow(
    view: Box,
    data: Box | None,
    line: InputLine | None,
    true_length: float | None = None,
) -> Box | None:
    """The view the plot should move to, or None to stay (see the module docstring).

    `data` is the box around the points (None: no points), `line` the current boundary,
    `true_length` the arrow's length in data units when w is drawn at its true length
    (None: a share of the view's diagonal).
    """
    if data is None or not all(math.isfinite(v) for v in (data.x0, data.x1, data.y0, data.y1)):
        return None
    needs, what = _needs(data, line, view, true_length)
    scale = max(needs.width, needs.height)
    padded = needs.grown(HEADROOM, minimum=HEADROOM * scale if scale > 0 else 0.5)
    if not (padded.width > 0 and padded.height > 0):
        return None  # spans too small for floats at these coordinates (1e150 ± 1e-10): stay
    inner = view.grown(-MARGIN)
    in_sight = inner.contains(np.array([[data.x0, data.y0], [data.x1, data.y1]]))
    if in_sight and line is not None and what != "data":
        in_sight = line_in_sight(line, view)
    if in_sight and line is not None and what == "arrow":
        # As drawn (arrow_placement), allowing the arrow to shorten: growth to take in a
        # full-length arrow then always passes this test, so the view never ratchets.
        length = _arrow_length(view, true_length)
        placed = arrow_placement(line, view, length, shorten=true_length is None)
        in_sight = placed is not None and (true_length is None or inner.contains(placed[1]))
    if in_sight:
        small = (
            padded.width < SHRINK_BELOW * view.width and padded.height < SHRINK_BELOW * view.height
        )
        return padded if small else None
    grown = view.union(padded)
    # Far from what it must show (the user panned away): go there rather than stretch.
    overlap_x = max(0.0, min(view.x1, padded.x1) - max(view.x0, padded.x0))
    overlap_y = max(0.0, min(view.y1, padded.y1) - max(view.y0, padded.y0))
    if overlap_x * overlap_y < 0.5 * padded.width * padded.height:
        return padded
    if max(grown.width / padded.width, grown.height / padded.height) > 1.0 / SHRINK_BELOW:
        return padded  # growing would leave so much empty room that it would refit next
    return grown
