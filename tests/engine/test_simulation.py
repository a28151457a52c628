import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.linear_model import Perceptron as SklearnPerceptron

from simulator.engine import Dataset, Simulation, load_preset, margin_report

RULES = [
    {"algorithm": "perceptron"},
    {"algorithm": "perceptron", "learning_rate": 0.37, "initial_weights": "random"},
    {"algorithm": "winnow"},
    {"algorithm": "winnow", "promotion": 1.5, "preprocessing": "standardize"},
    {"algorithm": "balanced-winnow"},
    {"algorithm": "adaline", "learning_rate": 0.05},
    {"algorithm": "adaline", "learning_rate": 0.01, "mode": "batch"},
    {"algorithm": "perceptron", "bias": False, "preprocessing": "unit"},
]


def random_dataset(seed, n=60, d=2, separable=True):
    rng = np.random.default_rng(seed)
    points = rng.uniform(-1, 1, size=(n, d))
    w = rng.normal(size=d)
    labels = np.where(points @ w + 0.1 > 0, 1, -1)
    if not separable:
        flip = rng.choice(n, size=max(1, n // 10), replace=False)
        labels[flip] *= -1
    return Dataset(points, labels)


def trajectory_by_steps(sim, trials):
    return [sim.step() for _ in range(trials)]


# -- parity with scikit-learn ----------------------------------------------------------------


@pytest.mark.parametrize("separable", [True, False])
@pytest.mark.parametrize("epochs", [1, 3, 7])
def test_perceptron_matches_sklearn_epoch_for_epoch(separable, epochs):
    ds = random_dataset(11, n=200, separable=separable)
    sim = Simulation(ds, "perceptron", learning_rate=1.0)
    sim.run(epochs * len(ds), until_converged=False)
    peer = SklearnPerceptron(shuffle=False, eta0=1.0, tol=None, max_iter=epochs)
    peer.fit(ds.points, ds.labels)
    expected = np.concatenate((peer.intercept_, peer.coef_.ravel()))
    np.testing.assert_allclose(sim.weights, expected, rtol=1e-12, atol=1e-12)


def test_perceptron_matches_sklearn_without_bias_and_with_eta():
    ds = random_dataset(5, n=150, separable=False)
    sim = Simulation(ds, "perceptron", learning_rate=0.25, bias=False)
    sim.run(4 * len(ds), until_converged=False)
    peer = SklearnPerceptron(shuffle=False, eta0=0.25, tol=None, max_iter=4, fit_intercept=False)
    peer.fit(ds.points, ds.labels)
    np.testing.assert_allclose(sim.weights, peer.coef_.ravel(), rtol=1e-12, atol=1e-12)


# -- the fast path is the same trajectory as stepping --------------------------------------------


@pytest.mark.parametrize("params", RULES, ids=lambda p: "-".join(map(str, p.values())))
@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_run_follows_exactly_the_trajectory_of_step(params, order):
    ds = random_dataset(3, n=97, separable=params["algorithm"] != "perceptron")
    stepped = Simulation(ds, order=order, seed=7, **params)
    trials = trajectory_by_steps(stepped, 700)
    fast = Simulation(ds, order=order, seed=7, **params)
    assert fast.run(700, until_converged=False) == 700
    assert np.array_equal(fast.state, stepped.state)  # bit for bit
    assert (fast.trials, fast.mistakes, fast.epoch) == (
        stepped.trials,
        stepped.mistakes,
        stepped.epoch,
    )
    assert fast.converged_at == stepped.converged_at
    for t in (1, 2, 97, 98, 350, 700):
        assert fast.trial(t) == trials[t - 1]


@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 40),
    rule=st.sampled_from(RULES),
    order=st.sampled_from(["cyclic", "random"]),
    chunks=st.lists(st.integers(1, 90), min_size=1, max_size=6),
)
def test_any_chunking_of_run_gives_the_stepped_trajectory(seed, n, rule, order, chunks):
    ds = random_dataset(seed, n=n, separable=seed % 2 == 0)
    total = sum(chunks)
    stepped = Simulation(ds, order=order, seed=seed, **rule)
    trajectory_by_steps(stepped, total)
    fast = Simulation(ds, order=order, seed=seed, **rule)
    for chunk in chunks:
        fast.run(chunk, until_converged=False)
    assert np.array_equal(fast.state, stepped.state)
    assert fast.mistakes == stepped.mistakes and fast.converged_at == stepped.converged_at


def test_fast_path_is_exact_in_many_dimensions():
    rng = np.random.default_rng(0)
    X = (rng.random((300, 120)) < 0.2).astype(float)
    labels = np.where(X[:, :3].any(axis=1), 1, -1)
    ds = Dataset(X, labels)
    for algorithm in ("winnow", "perceptron"):
        stepped = Simulation(ds, algorithm, bias=False, order="random")
        trajectory_by_steps(stepped, 900)
        fast = Simulation(ds, algorithm, bias=False, order="random")
        fast.run(900, until_converged=False)
        assert np.array_equal(fast.state, stepped.state)


# -- determinism, order, history ----------------------------------------------------------------


def test_same_arguments_give_the_same_trajectory_and_seeds_differ():
    ds = random_dataset(1, separable=False)
    a = Simulation(ds, order="random", seed=5)
    b = Simulation(ds, order="random", seed=5)
    c = Simulation(ds, order="random", seed=6)
    ta, tb, tc = (trajectory_by_steps(s, 120) for s in (a, b, c))
    assert ta == tb
    assert [t.index for t in ta] != [t.index for t in tc]
    # Each epoch is a permutation of the data.
    assert sorted(t.index for t in ta[:60]) == list(range(60))
    assert [t.index for t in ta[:60]] != [t.index for t in ta[60:]]
    assert [t.epoch for t in ta[58:62]] == [1, 1, 2, 2]


def test_seek_restores_the_exact_state_and_stepping_on_replaces_the_future():
    ds = random_dataset(2, n=30, separable=False)
    sim = Simulation(ds, order="random", seed=1)
    trials = trajectory_by_steps(sim, 200)
    states = [t.weights_after for t in trials]
    for t in (0, 1, 29, 30, 31, 117, 200):
        sim.seek(t)
        assert sim.trials == t
        assert tuple(sim.weights.tolist()) == (states[t - 1] if t else (0.0, 0.0, 0.0))
        assert sim.mistakes == sum(tr.mistake for tr in trials[:t])
        assert sim.epoch == (trials[t - 1].epoch if t else 0)
        assert sim.history_length == 200
    sim.seek(117)
    assert trajectory_by_steps(sim, 83) == trials[117:]  # same data: the same future
    sim.seek(50)
    sim.step()
    assert sim.history_length == 51
    with pytest.raises(ValueError, match="cannot seek to trial 52"):
        sim.seek(52)


def test_seek_restores_convergence_and_divergence():
    sim = Simulation(load_preset("or"))
    sim.run(100)
    assert sim.converged_at == 24
    sim.seek(23)
    assert not sim.converged
    sim.seek(24)
    assert sim.converged
    bad = Simulation(load_preset("iris"), "adaline", learning_rate=0.5)
    bad.run(1000)
    at = bad.diverged_at
    bad.seek(at - 1)
    assert not bad.diverged and bad.divergence_reason is None
    bad.seek(at)
    assert bad.diverged


def test_seek_in_many_dimensions_replays_from_snapshots():
    rng = np.random.default_rng(4)
    ds = Dataset(rng.normal(size=(50, 40)), np.where(rng.random(50) > 0.5, 1, -1))
    sim = Simulation(ds, "adaline", learning_rate=0.001)
    trials = trajectory_by_steps(sim, 333)
    for t in (1, 17, 18, 200, 333):
        sim.seek(t)
        assert tuple(sim.weights.tolist()) == trials[t - 1].weights_after


def test_replacing_the_data_keeps_weights_and_counters_and_starts_an_epoch():
    sim = Simulation(load_preset("or"))
    sim.run(100)
    weights, trials, mistakes = sim.weights, sim.trials, sim.mistakes
    assert sim.converged
    sim.replace_dataset(sim.dataset.with_point((0.5, 0.5), -1))
    assert not sim.converged
    assert np.array_equal(sim.weights, weights)
    assert (sim.trials, sim.mistakes) == (trials, mistakes)
    trial = sim.step()
    assert trial.index == 0 and trial.epoch == 7 and trial.number == trials + 1
    sim.run(1000)
    assert sim.dataset.points[-1].tolist() == [0.5, 0.5]
    # Rewinding past the edit restores the learner; the data stay as they are now.
    sim.seek(10)
    assert len(sim.dataset) == 5
    assert sim.trial(10).epoch == 3


def test_empty_data_cannot_step_but_one_class_can():
    sim = Simulation(Dataset.empty())
    with pytest.raises(ValueError, match="the dataset is empty"):
        sim.step()
    with pytest.raises(ValueError, match="the dataset is empty"):
        sim.run(5)
    assert sim.trials == 0
    one = Simulation(Dataset([[1.0, 1.0], [2.0, 0.5]], [1, 1]))
    one.run(100)
    assert one.converged and one.mistakes == 1


def test_run_stops_at_convergence_unless_told_otherwise():
    sim = Simulation(load_preset("or"))
    assert sim.run(1000) == 24
    assert sim.run(10) == 0
    assert sim.run(10, until_converged=False) == 10 and sim.trials == 34
    assert sim.mistakes == 9


def test_adaline_converges_in_cyclic_order():
    sim = Simulation(load_preset("separable"), "adaline", learning_rate=0.05)
    sim.run(1_000_000)
    assert sim.converged and sim.converged_at % len(sim.dataset) == 0


def test_trial_is_a_frozen_record_of_plain_values():
    trial = Simulation(load_preset("or")).step()
    with pytest.raises(dataclasses.FrozenInstanceError):
        trial.score = 1.0
    assert isinstance(trial.x, tuple) and isinstance(trial.weights_after[0], float)
    assert trial.point == (0.0, 0.0) and trial.x == (1.0, 0.0, 0.0)


def test_snapshot_and_misclassified():
    sim = Simulation(load_preset("or"))
    sim.run(2)  # w = (0, 0, 1): wrong on (0,0) (s=0) and (1,0) (s=0)
    snap = sim.snapshot()
    assert snap.misclassified.tolist() == [True, False, True, False]
    assert snap.trials == 2 and snap.mistakes == 2 and snap.last_trial.number == 2
    assert snap.margin == pytest.approx(0.0)
    assert not snap.misclassified.flags.writeable


def test_bias_and_preprocessing_feature_space():
    ds = Dataset([[0.0, 3.0], [2.0, 5.0]], [1, -1])
    z = Simulation(ds, preprocessing="standardize").feature_matrix
    assert z.tolist() == [[1.0, -1.0, -1.0], [1.0, 1.0, 1.0]]
    u = Simulation(ds, preprocessing="unit").feature_matrix
    np.testing.assert_allclose(np.linalg.norm(u, axis=1), 1.0)
    assert Simulation(ds, bias=False).feature_matrix.tolist() == ds.points.tolist()
    assert margin_report(ds, preprocessing="unit").radius == pytest.approx(1.0)


def test_engine_never_imports_qt():
    code = (
        "import sys, simulator.engine; "
        "print([m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("params", RULES, ids=lambda p: "-".join(map(str, p.values())))
def test_stop_on_mistake_stops_right_after_the_next_mistake(params):
    ds = random_dataset(8, n=50, separable=False)
    stepped = Simulation(ds, **params)
    trials = trajectory_by_steps(stepped, 400)
    sim = Simulation(ds, **params)
    while sim.trials < 380:
        before = sim.trials
        ran = sim.run(10_000, stop_on_mistake=True, until_converged=False)
        assert ran >= 1
        assert trials[sim.trials - 1].mistake  # it stopped on a mistake...
        assert not any(t.mistake for t in trials[before : sim.trials - 1])  # ...the first one
    assert tuple(sim.weights.tolist()) == trials[sim.trials - 1].weights_after


def test_trials_left_in_epoch():
    sim = Simulation(load_preset("or"))
    assert sim.trials_left_in_epoch == 4
    sim.step()
    assert sim.trials_left_in_epoch == 3
    sim.run(3)
    assert sim.trials_left_in_epoch == 4 and sim.epoch == 1
    sim.replace_dataset(sim.dataset.with_point((2, 2), 1))
    sim.step()
    assert sim.trials_left_in_epoch == 4


@pytest.mark.parametrize("params", RULES, ids=lambda p: "-".join(map(str, p.values())))
@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_compiled_and_numpy_scans_give_the_same_bits(monkeypatch, params, order):
    """The compiled loops against NumPy. setup.py builds them wherever a C compiler is (CI
    installs gcc); without them this test would compare NumPy with itself, so it fails."""
    from simulator.engine import rules

    assert rules.compiled is not None, (
        "the compiled scan (simulator/engine/_scan.c) was not built: install a C compiler "
        'and run pip install -e ".[test]" again'
    )
    ds = random_dataset(9, n=300, separable=params["algorithm"] == "perceptron")
    compiled = Simulation(ds, order=order, seed=2, **params)
    compiled.run(5000, until_converged=False)
    monkeypatch.setattr(rules, "compiled", None)
    plain = Simulation(ds, order=order, seed=2, **params)
    plain.run(5000, until_converged=False)
    assert np.array_equal(compiled.state, plain.state)
    assert compiled.mistakes == plain.mistakes and compiled.converged_at == plain.converged_at
    for t in (1, 299, 300, 2500, 5000):
        assert compiled.trial(t) == plain.trial(t)
