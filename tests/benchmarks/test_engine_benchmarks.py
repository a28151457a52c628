"""Engine numbers to hold (DESIGN.md), as ratios against a peer in the same run.

Run with: pytest tests/benchmarks -s
"""

import random
import statistics
import time
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SklearnPerceptron

from simulator.engine import LEARNERS, Dataset, Simulation, load_preset, margin_report
from simulator.engine.learners import Perceptron, register
from simulator.engine.presets import noisy, separable
from tests.helpers.qp import slsqp_margin


def _race(margin):
    """100,000 separable 2-D points (the `separable` preset at this size and input margin);
    ours to convergence, scikit-learn's Perceptron for the same epochs in the same order."""
    ds = separable(n=100_000, margin=margin, seed=0)
    sim = Simulation(ds)
    sim.run(10**9)
    assert sim.converged

    def peer():
        return SklearnPerceptron(shuffle=False, eta0=1.0, tol=None, max_iter=sim.epoch).fit(
            ds.points, ds.labels
        )

    fitted = peer()
    np.testing.assert_allclose(
        sim.weights, np.concatenate((fitted.intercept_, fitted.coef_.ravel())), rtol=1e-12
    )
    return sim, (lambda: Simulation(ds).run(10**9)), peer


@pytest.mark.parametrize(("margin", "limit"), [(0.2, 0.7), (0.05, 1.0)])
def test_perceptron_to_convergence_vs_sklearn(compare, margin, limit):
    _, ours, peer = _race(margin)
    _, _, ratio = compare(ours, peer)
    assert ratio <= limit


def test_perceptron_with_many_mistakes_vs_sklearn(compare):
    """A hard case: margin 0.002, several hundred mistakes. The compiled learning loop
    (_learn.c) makes the updates itself, as scikit-learn's does (round 2, with a round trip
    through Python per mistake: 2.0x)."""
    sim, ours, peer = _race(0.002)
    _, _, ratio = compare(ours, peer, rounds=5)
    print(f"  mistakes {sim.mistakes}, epochs {sim.epoch}")
    assert ratio <= 1.0


class _Inexact(Perceptron):
    """The perceptron without its exact machinery: no error bound, no exact state."""

    name = "inexact-perceptron"
    exact = False


@pytest.mark.parametrize("preset", ["iris", "separable-100k", "noisy"])
def test_the_exact_machinery_costs_little(compare, preset):
    """The running error bounds, their per-row checks and the exact state's bookkeeping
    cost <= 15 % of a run on typical data (iris: 1518 mistakes to convergence; 100,000
    separable points; the noisy preset for 200,000 trials)."""
    register(_Inexact)
    try:
        ds = (
            separable(n=100_000, margin=0.05) if preset == "separable-100k" else load_preset(preset)
        )
        trials = 200_000 if preset == "noisy" else 10**7

        def run(name):
            def go():
                Simulation(ds, name).run(trials)

            return go

        _, _, ratio = compare(run("perceptron"), run(_Inexact.name))
    finally:
        del LEARNERS[_Inexact.name]
    assert ratio <= 1.15


def test_exact_margin_vs_general_qp(compare):
    """γ* on 10,000 points: the same value as SLSQP, at least 10x faster."""
    ds = separable(n=10_000, margin=0.05, seed=1)
    Z = ds.labels[:, None] * np.column_stack((np.ones(len(ds)), ds.points))
    gamma, result = slsqp_margin(Z)
    assert result.success
    assert margin_report(ds).gamma == pytest.approx(gamma, rel=1e-8)
    _, _, ratio = compare(lambda: margin_report(ds), lambda: slsqp_margin(Z))
    assert ratio <= 0.1


@pytest.mark.parametrize(
    ("algorithm", "trials", "kwargs"),
    [
        ("perceptron", 20_000_000, {}),
        ("adaline", 1_000_000, {"learning_rate": 0.01, "order": "random"}),
    ],
)
def test_history_memory_and_seek(benchmark, algorithm, trials, kwargs):
    """History costs memory per update and per checkpoint, not per trial: <= 64 MB after
    20,000,000 perceptron trials on the `noisy` preset (it keeps erring) and after
    1,000,000 trials of online Adaline (an update every trial); seek to any trial <= 50 ms.
    """
    ds = load_preset("noisy") if algorithm == "perceptron" else noisy(n=1000, seed=0)
    sim = Simulation(ds, algorithm, **kwargs)
    start = time.perf_counter()
    assert sim.run(trials, until_converged=False) == trials
    elapsed = time.perf_counter() - start
    megabytes = sim.history_nbytes / 2**20
    rng = random.Random(0)
    targets = [rng.randint(0, trials) for _ in range(50)] + [0, 1, trials - 1, trials]
    seeks = []
    for t in targets:
        begin = time.perf_counter()
        sim.seek(t)
        seeks.append(time.perf_counter() - begin)
    benchmark.extra_info.update(
        history_mb=round(megabytes, 1),
        seek_median_ms=round(statistics.median(seeks) * 1e3, 3),
        seek_max_ms=round(max(seeks) * 1e3, 3),
        run_seconds=round(elapsed, 2),
    )
    benchmark.pedantic(sim.seek, args=(trials * 7 // 9,), rounds=5, iterations=1)
    print(
        f"\n  {algorithm}: {trials:,} trials, {sim.mistakes:,} mistakes, history "
        f"{megabytes:.1f} MB, run {elapsed:.1f} s, seek median "
        f"{statistics.median(seeks) * 1e3:.2f} ms, max {max(seeks) * 1e3:.2f} ms"
    )
    assert megabytes <= 64
    assert max(seeks) <= 0.050


@pytest.mark.parametrize("preset", ["or", "and"])
def test_seek_far_past_convergence(benchmark, preset):
    """On a preset run 1,000,000 trials past its convergence (the timeline lets a teacher
    step on), seeking anywhere costs <= 50 ms: replay jumps over the converged stretch."""
    sim = Simulation(load_preset(preset))
    sim.run(1_000_000, until_converged=False)
    assert sim.converged_at is not None
    targets = np.random.default_rng(1).integers(1, 1_000_000, size=20).tolist()
    seeks = []
    for t in [*targets, 999_999, 1_000_000, sim.converged_at]:
        begin = time.perf_counter()
        sim.seek(int(t))
        seeks.append(time.perf_counter() - begin)
    median, worst = statistics.median(seeks), max(seeks)
    benchmark.extra_info.update(
        seek_median_ms=round(median * 1e3, 3), seek_max_ms=round(worst * 1e3, 3)
    )
    benchmark.pedantic(sim.seek, args=(777_777,), rounds=5, iterations=1)
    print(f"\n  {preset}: seek median {median * 1e3:.2f} ms, max {worst * 1e3:.2f} ms")
    assert worst <= 0.050


def _disjunctions(n=4096, r=2, examples=5000, seed=0):
    """Boolean examples labelled by an OR of the first r of n variables, each variable set
    with probability 1 - 2^(-1/r) so that about half are positive."""
    rng = np.random.default_rng(seed)
    X = (rng.random((examples, n)) < 1 - 0.5 ** (1 / r)).astype(np.float64)
    return Dataset(X, np.where(X[:, :r].any(axis=1), 1, -1))


@pytest.mark.parametrize(("algorithm", "bias"), [("perceptron", True), ("winnow", False)])
def test_one_pass_at_4096_features(compare, algorithm, bias):
    """One pass over 5,000 boolean examples with n = 4096 features, Perceptron (bias) and
    Winnow (no bias, θ = n), against scikit-learn's Perceptron doing the same pass (the
    same weights, for the perceptron). The fast path as in 2-D: no loop per feature."""
    ds = _disjunctions()
    sim = Simulation(ds, algorithm, bias=bias)
    sim.run(len(ds), until_converged=False)

    def sklearn_pass():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return SklearnPerceptron(shuffle=False, eta0=1.0, tol=None, max_iter=1).fit(
                ds.points, ds.labels
            )

    if algorithm == "perceptron":
        fitted = sklearn_pass()
        np.testing.assert_array_equal(
            sim.weights, np.concatenate((fitted.intercept_, fitted.coef_.ravel()))
        )
    print(f"\n  {algorithm}: {sim.mistakes} mistakes, history {sim.history_nbytes / 2**20:.2f} MB")

    def one_pass():  # from the start again: the pass, not the copy of the data with bias
        sim.seek(0)
        sim.run(len(ds), until_converged=False)

    mine, _, _ = compare(one_pass, sklearn_pass, rounds=5)
    assert mine < 2.0  # seconds; a per-feature Python loop would take far longer
