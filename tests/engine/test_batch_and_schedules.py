"""The perceptron's batch mode (Duda–Hart; CMU's batch perceptron) against an oracle in
rational arithmetic, and Adaline's decaying rate η_t = η/t (UNL's LMS) against a float
reference written from the formula."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import TIES, Dataset, Simulation, load_preset
from simulator.presentation.explain import explain
from simulator.presentation.frame import build_frame
from tests.engine.test_ties import decimal_data
from tests.helpers.learners import dot, exact_rows, indices_of, predicts

RATES = ["1", "0.1", "0.3", "7", "2.5"]


def batch_oracle(rows, labels, eta, tie, indices, n):
    """Every trial of an epoch scored with the epoch-start w; after its last trial,
    w ← w + η Σ y·x over the epoch's mistakes. (the mistakes, w after each trial)"""
    w = [Fraction(0)] * len(rows[0])
    mistakes, after, step = [], [], [Fraction(0)] * len(w)
    for t, i in enumerate(indices, 1):
        x, y = rows[i], labels[i]
        if predicts(dot(w, x), tie) != y:
            mistakes.append(t)
            step = [s + eta * y * v for s, v in zip(step, x, strict=True)]
        if t % n == 0:
            w, step = [a + s for a, s in zip(w, step, strict=True)], [Fraction(0)] * len(w)
        after.append(w)
    return mistakes, after


@settings(max_examples=50, deadline=None)
@given(
    data=decimal_data(),
    rate=st.sampled_from(RATES),
    tie=st.sampled_from(TIES),
    bias=st.booleans(),
    order=st.sampled_from(["cyclic", "random"]),
    trials=st.integers(1, 200),
)
def test_the_batch_perceptron_follows_exact_rational_arithmetic(
    data, rate, tie, bias, order, trials
):
    ds, text, labels = data
    sim = Simulation(
        ds, "perceptron", mode="batch", learning_rate=float(rate), tie=tie, bias=bias,
        order=order, seed=2,
    )  # fmt: skip
    sim.run(trials, until_converged=False)
    mistakes, after = batch_oracle(
        exact_rows(text, bias), labels, Fraction(rate), tie, indices_of(sim, trials), len(ds)
    )
    assert sim.mistake_trials().tolist() == mistakes  # k counts misclassified trials
    np.testing.assert_allclose(sim.weights, [float(v) for v in after[-1]], atol=1e-9)


def test_an_epoch_is_scored_with_its_start_and_updated_after_its_last_trial():
    ds = load_preset("noisy")
    n = len(ds)
    sim = Simulation(ds, "perceptron", mode="batch", order="random", seed=1)
    records = [sim.step() for _ in range(3 * n)]
    for epoch in range(3):
        trials = records[epoch * n : (epoch + 1) * n]
        start = trials[0].weights_before
        assert all(t.weights_before == start for t in trials)  # scored with the start's w
        X = np.array([t.x for t in trials])
        np.testing.assert_allclose([t.score for t in trials], X @ np.array(start), atol=1e-12)
        assert not any(t.updated for t in trials[:-1])  # nothing moves before its last trial
        mistaken = [t for t in trials if t.mistake]
        change = sum(t.y * np.array(t.x) for t in mistaken)
        np.testing.assert_allclose(np.subtract(trials[-1].weights_after, start), change)
    mid = Simulation(ds, "perceptron", mode="batch", order="random", seed=1)
    mid.run(n + 17, until_converged=False)  # mid-epoch: the epoch-start w
    assert tuple(mid.weights.tolist()) == records[n].weights_before
    assert mid.bound is None
    assert "End of epoch: w ← w + η Σ y x over its mistakes" in explain(build_frame(_at(n))).text()


def _at(trials):
    sim = Simulation(load_preset("noisy"), "perceptron", mode="batch")
    sim.run(trials, until_converged=False)
    return sim


def test_the_batch_perceptron_converges_on_the_cmu_data():
    from tests.helpers.learners import cmu

    sim = Simulation(cmu(), "perceptron", mode="batch", bias=False, tie="positive")
    sim.run(1000)
    assert sim.converged
    X, y = sim.feature_matrix, sim.dataset.labels
    assert np.all(np.where(X @ sim.weights >= 0, 1, -1) == y)


def lms_reference(X, y, indices, eta, batch, n):
    """Adaline with η_t = η/t at trial t (online) or η/k at epoch k (batch)."""
    w = np.zeros(X.shape[1])
    out, gradient = [], np.zeros_like(w)
    for t, i in enumerate(indices, 1):
        residual = y[i] - X[i] @ w
        if batch:
            gradient = gradient + residual * X[i]
            if t % n == 0:
                w, gradient = w + eta / (t // n) * gradient, np.zeros_like(w)
        else:
            w = w + eta / t * residual * X[i]
        out.append(w)
    return out


@pytest.mark.parametrize("mode", ["online", "batch"])
@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_adaline_with_the_inverse_schedule_follows_its_formula(mode, order):
    ds = load_preset("iris")
    eta = 0.01 if mode == "online" else 0.0001
    sim = Simulation(ds, "adaline", schedule="inverse", learning_rate=eta, mode=mode, order=order)
    trials = 4 * len(ds)
    sim.run(trials, until_converged=False)
    records = sim.trial_records(1, trials)
    reference = lms_reference(
        sim.feature_matrix, ds.labels, [r.index for r in records], eta, mode == "batch", len(ds)
    )
    for t in (1, 2, 3, 150, 151, 300, trials):
        np.testing.assert_allclose(records[t - 1].weights_after, reference[t - 1], rtol=1e-10)
    constant = Simulation(ds, "adaline", learning_rate=eta, mode=mode, order=order)
    constant.run(trials, until_converged=False)
    assert not np.allclose(constant.weights, sim.weights)  # the schedule changes the run


def test_the_inverse_schedule_is_explained_and_its_steps_shrink():
    ds = Dataset([[1.0, 0.0]], [1])
    sim = Simulation(ds, "adaline", schedule="inverse", learning_rate=0.5, bias=False)
    steps = [sim.step() for _ in range(4)]
    # w_t = w_{t−1} + (η/t)(1 − w_{t−1}), η = 1/2: 1/2, 5/8, 11/16, 93/128
    np.testing.assert_allclose([t.weights_after[0] for t in steps], [0.5, 0.625, 0.6875, 93 / 128])
    text = explain(build_frame(sim)).text()
    assert "η/t = 0.5/4" in text
