"""The notes' other linear learners, each as a ratio to the perceptron in the same run:
one pass over 100,000 2-D points (the same data, the same order).

Run with: pytest tests/benchmarks/test_learner_benchmarks.py -s
"""

import numpy as np
import pytest

from simulator.engine import Simulation
from simulator.engine.learners import Pocket
from simulator.engine.learners.pocket import right_points
from simulator.engine.presets import noisy, separable

N = 100_000


def _data(name):
    return separable(n=N, margin=0.05, seed=0) if name == "separable" else noisy(n=N, seed=0)


def _one_pass(ds, algorithm):
    """A pass from the start (the simulation made once: the pass, not the copy of the data
    with bias)."""
    sim = Simulation(ds, algorithm)

    def go():
        sim.seek(0)
        sim.run(len(ds), until_converged=False)
        return sim

    return go


@pytest.mark.parametrize("data", ["separable", "noisy"])
@pytest.mark.parametrize("algorithm", ["averaged-perceptron", "margin-perceptron", "eg"])
def test_one_pass_against_the_perceptron(compare, algorithm, data):
    """The compiled loop makes their updates (the averaged perceptron's sum brought along
    in NumPy, EG±'s exponentials in C): at most twice the perceptron's time for the pass."""
    ds = _data(data)
    ours, peer = _one_pass(ds, algorithm), _one_pass(ds, "perceptron")
    print(f"\n  {algorithm} on {data}: {ours().mistakes} mistakes (perceptron {peer().mistakes})")
    _, _, ratio = compare(ours, peer, rounds=21)
    assert ratio <= 2.0


@pytest.mark.parametrize("data", ["separable", "noisy"])
def test_the_pockets_count_per_update(compare, data):
    """The pocket's count of right points (w's and the pocket's after every update) costs
    O(n·d): measured per update at 100,000 points against a plain float count of the
    same points (one matrix product and its signs, no exact verdicts), and reported with
    the cost of the pocket's whole pass against the perceptron's."""
    ds = _data(data)
    sim = Simulation(ds, "pocket")
    sim.run(200, until_converged=False)
    state, X, y = sim.learner_state, sim.feature_matrix, ds.labels
    learner = Pocket()

    def count():  # what one update costs: w's count and the pocket's
        right_points(learner, state.w, state.error, X, y, "mistake")
        right_points(learner, state.pocket, state.pocket_error, X, y, "mistake")

    def plain():
        for w in (state.w, state.pocket):
            np.count_nonzero(y * (X @ w) > 0)

    per_update, _, ratio = compare(count, plain, rounds=21)
    print(
        f"  pocket's count: {per_update * 1e3:.2f} ms per update at {N:,} points "
        f"({per_update / N * 1e9:.1f} ns a point), {ratio:.2f}x a plain float count"
    )
    assert ratio <= 10.0


def test_the_pockets_pass(compare):
    """The pocket's whole pass on the separable data against the perceptron's: reported,
    not held to a ratio (its count is O(n·d) an update by design)."""
    ds = _data("separable")
    pocket, perceptron = _one_pass(ds, "pocket"), _one_pass(ds, "perceptron")
    updates = pocket().mistakes
    mine, theirs, ratio = compare(pocket, perceptron, rounds=5)
    print(
        f"  pocket's pass: {mine * 1e3:.1f} ms, {updates} updates, "
        f"{(mine - theirs) / updates * 1e3:.2f} ms an update, {ratio:.0f}x the perceptron"
    )
