"""How a curved boundary is traced (`simulator.presentation.level_sets`): the segments
joined into polylines lose none and add none, and a score that jumps (a vote) has its
crossings where it jumps, not mid-edge."""

import numpy as np
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from simulator.engine import load_preset
from simulator.engine.simulation import Simulation
from simulator.presentation.level_sets import level_segments, polylines, sample

BOX = (-2.0, 2.0, -1.5, 1.5)


def as_pairs(segments):
    """The segments as a set of unordered pairs of end points."""
    return {frozenset((tuple(a), tuple(b))) for a, b in segments.tolist()}


def pairs_of(lines):
    """The segments of polylines written with NaN rows between them."""
    found = set()
    for a, b in zip(lines[:-1].tolist(), lines[1:].tolist(), strict=True):
        if np.all(np.isfinite(a)) and np.all(np.isfinite(b)):
            found.add(frozenset((tuple(a), tuple(b))))
    return found


@hypothesis_settings(max_examples=40, deadline=None)
@given(
    a=st.floats(-3, 3),
    b=st.floats(-3, 3),
    c=st.floats(-1, 1),
    r=st.floats(0.05, 2.0),
    cells=st.integers(8, 60),
)
def test_polylines_hold_every_segment_and_no_other(a, b, c, r, cells):
    def score(p):
        return np.sin(a * p[:, 0]) + np.cos(b * p[:, 1]) * c + p[:, 0] ** 2 + p[:, 1] ** 2 - r

    xs, ys, values = sample(score, BOX, cells)
    segments = level_segments(xs, ys, values)
    segments = segments[np.any(segments[:, 0] != segments[:, 1], axis=1)]  # no points
    lines = polylines(segments)
    assert pairs_of(lines) == as_pairs(segments)
    assert lines.shape[0] <= 3 * segments.shape[0]


def test_a_circle_off_the_grid_is_one_closed_polyline():
    xs, ys, values = sample(lambda p: p[:, 0] ** 2 + p[:, 1] ** 2 - 0.913, BOX, 40)
    segments = level_segments(xs, ys, values)
    lines = polylines(segments)
    assert np.count_nonzero(np.isnan(lines[:, 0])) == 1
    assert lines.shape[0] == segments.shape[0] + 2
    np.testing.assert_array_equal(lines[0], lines[-2])  # it closes


def test_a_jump_is_traced_where_it_is_not_mid_edge():
    """sign(x − 0.3137): linear interpolation puts the crossing mid-cell (0.3 or 0.4 on a
    grid of 0.1); bisection within 1/256 of a cell of 0.3137."""
    box = (-1.0, 1.0, -1.0, 1.0)

    def vote(p):
        return np.sign(p[:, 0] - 0.3137)

    xs, ys, values = sample(vote, box, 20)
    cell = xs[1] - xs[0]
    coarse = level_segments(xs, ys, values)
    fine = level_segments(xs, ys, values, stepped=vote)
    assert np.max(np.abs(coarse[:, :, 0] - 0.3137)) > cell / 4
    assert np.max(np.abs(fine[:, :, 0] - 0.3137)) <= cell / 256
    np.testing.assert_array_equal(fine[:, :, 1], coarse[:, :, 1])


def test_the_voted_perceptrons_curve_lies_on_its_votes_jumps():
    sim = Simulation(load_preset("moons"), "voted-perceptron")
    sim.run(40)
    (drawable,) = [d for d in sim.learner.drawables(sim.learner_state, sim.features)
                   if d.role == "vote"]  # fmt: skip
    assert drawable.stepped
    xs, ys, values = sample(drawable.score, BOX, 100)
    fine = level_segments(xs, ys, values, stepped=drawable.score)
    cell = xs[1] - xs[0]
    ends = fine.reshape(-1, 2)
    # Each end has the vote's two sides within 1/128 of a cell of it, along x or y.
    step = cell / 128
    sides = []
    for shift in (np.array([step, 0.0]), np.array([0.0, step])):
        sides.append(np.sign(drawable.score(ends + shift)) != np.sign(drawable.score(ends - shift)))
    assert np.all(sides[0] | sides[1])
