"""A curve's score found from an earlier one's values on the same grid (issue 18's frame
budget at hundreds of support vectors): the kernel perceptron's dual sum by the terms that
differ (`DualScore.since`), and the grid that keeps what it sampled (`SampledGrid`). The
values must equal the whole sum's, in every direction of time and after edits."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from simulator.engine import Dataset, Simulation, load_preset
from simulator.engine.drawables import Incremental
from simulator.presentation.level_sets import SampledGrid, sample

BOX = (-2.5, 2.5, -2.0, 2.0)


def states(sim, trials):
    """The learner's state after each of `trials` single steps."""
    found = []
    for _ in range(trials):
        sim.run(1, until_converged=False)
        found.append(sim.learner_state)
    return found


def score(sim, state):
    (drawable,) = sim.learner.drawables(state, sim.features)
    return drawable.score


def grid_points(cells=30):
    xs, ys = np.linspace(BOX[0], BOX[1], cells + 1), np.linspace(BOX[2], BOX[3], cells + 1)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack((gx.ravel(), gy.ravel()))


@pytest.mark.parametrize(
    "kernel", [{"kernel": "rbf"}, {"kernel": "rbf", "sigma": 0.4}, {"degree": 3, "coef0": 0.5}]
)
@pytest.mark.parametrize("bias", [True, False])
def test_a_sum_from_any_earlier_one_equals_the_whole_sum(kernel, bias):
    sim = Simulation(load_preset("ring"), "kernel-perceptron", bias=bias, learning_rate=0.5,
                     **kernel)  # fmt: skip
    found = states(sim, 120)
    points = grid_points()
    scores = [score(sim, s) for s in found]
    assert all(isinstance(s, Incremental) for s in scores)
    whole = [s(points) for s in scores]
    scale = max(float(np.max(np.abs(v))) for v in whole)
    checked = 0
    for a, b in [(0, 1), (10, 11), (30, 90), (90, 30), (119, 118), (50, 50)]:
        got = scores[b].since(scores[a], points, whole[a])
        if got is None:  # more than half the terms differ: the whole sum is asked for
            assert (a, b) in [(30, 90), (90, 30)]
            continue
        np.testing.assert_allclose(got, whole[b], rtol=0, atol=1e-12 * scale)
        checked += 1
    assert checked >= 4


def noisy_ring(n, seed=0):
    """One class inside a circle, 10 % of labels flipped: the support keeps growing."""
    rng = np.random.default_rng(seed)
    points = np.round(rng.uniform(-2, 2, size=(n, 2)), 2)
    labels = np.where(np.hypot(points[:, 0], points[:, 1]) < 1.2, 1, -1)
    return Dataset(points, np.where(rng.random(n) < 0.1, -labels, labels))


def test_one_mistake_costs_one_term():
    sim = Simulation(noisy_ring(100), "kernel-perceptron", kernel="rbf")
    sim.run(300, until_converged=False)
    before, mistakes = score(sim, sim.learner_state), sim.mistakes
    while sim.mistakes == mistakes:
        sim.run(1, until_converged=False)
    after = score(sim, sim.learner_state)
    asked = []
    learner = after.learner
    original = type(learner).decision

    def counting(self, state, X, *, trials=0):
        asked.append(state.counts.size)
        return original(self, state, X, trials=trials)

    type(learner).decision = counting
    try:
        after.since(before, grid_points(), before(grid_points()))
    finally:
        type(learner).decision = original
    assert asked[-1] == 1 and before.state.counts.size > 20


def test_a_sum_of_another_kernel_or_feature_map_is_not_used():
    data = load_preset("ring")
    rbf = Simulation(data, "kernel-perceptron", kernel="rbf")
    wide = Simulation(data, "kernel-perceptron", kernel="rbf", sigma=2.0)
    scaled = Simulation(data, "kernel-perceptron", kernel="rbf", preprocessing="standardize")
    for sim in (rbf, wide, scaled):
        sim.run(40, until_converged=False)
    points = grid_points()
    mine = score(rbf, rbf.learner_state)
    for other in (wide, scaled):
        theirs = score(other, other.learner_state)
        assert mine.since(theirs, points, theirs(points)) is None
    assert mine.since(lambda p: p[:, 0], points, points[:, 0]) is None


def test_after_an_edit_the_sum_is_found_from_the_last_one():
    ds = load_preset("ring")
    sim = Simulation(ds, "kernel-perceptron", kernel="rbf")
    sim.run(150, until_converged=False)
    before = score(sim, sim.learner_state)
    sim.replace_dataset(ds.moved(3, (0.31, -0.27)))
    after = score(sim, sim.learner_state)
    points = grid_points()
    got = after.since(before, points, before(points))
    assert got is not None
    np.testing.assert_allclose(got, after(points), rtol=0, atol=1e-12)


class Drifting:
    """f(p) = c·x, an `Incremental` score whose every update adds 1 (a rounding error made
    visible), counting whole evaluations."""

    calls = 0

    def __init__(self, c):
        self.c = c

    def __call__(self, points):
        Drifting.calls += 1
        return self.c * points[:, 0]

    def since(self, earlier, points, values):
        if not isinstance(earlier, Drifting):
            return None
        return values + (self.c - earlier.c) * points[:, 0] + 1.0


def test_the_grid_updates_a_chain_of_sums_and_bounds_its_drift():
    Drifting.calls = 0
    grid = SampledGrid()
    scores = [Drifting(float(c)) for c in range(200)]
    drift = []
    for s in scores:
        values = grid.sample(s, BOX, 40)[2]
        drift.append(float(np.max(np.abs(values - s(grid_points(40)).reshape(values.shape)))))
    whole = Drifting.calls - len(scores)  # less the checks' own calls
    assert 1 < whole <= len(scores) // SampledGrid.CHAIN + 1
    assert max(drift) == SampledGrid.CHAIN
    before = Drifting.calls
    grid.sample(scores[-1], BOX, 40)  # kept: not sampled again
    assert Drifting.calls == before
    grid.sample(scores[-1], (*BOX[:3], 2.1), 40)  # another view: sampled afresh
    assert Drifting.calls == before + 1


@hypothesis_settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    order=st.lists(st.integers(0, 59), min_size=3, max_size=12),
)
def test_the_grid_values_equal_the_whole_sum_in_any_order_of_frames(seed, order):
    """Frames asked in any order (stepping, time travel back and forth) show each state's
    own sum, whatever the chain of updates that led to it."""
    rng = np.random.default_rng(seed)
    points = np.round(rng.uniform(-2, 2, size=(40, 2)), 2)
    labels = np.where(np.hypot(points[:, 0], points[:, 1]) < 1.2, 1, -1)
    if len(set(labels.tolist())) < 2:
        labels[0] = -labels[0]
    sim = Simulation(Dataset(points, labels), "kernel-perceptron", kernel="rbf", sigma=0.6)
    found = states(sim, 60)
    grid = SampledGrid()
    for t in order:
        s = score(sim, found[t])
        values = grid.sample(s, BOX, 25)[2]
        expected = sample(s, BOX, 25)[2]
        scale = max(1.0, float(np.max(np.abs(expected))))
        np.testing.assert_allclose(values, expected, rtol=0, atol=1e-11 * scale)
