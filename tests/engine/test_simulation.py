import dataclasses
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Perceptron as SklearnPerceptron

from simulator.engine import Dataset, Settings, Simulation, load_preset, margin_report

RULES = [
    {"algorithm": "perceptron"},
    {"algorithm": "perceptron", "learning_rate": 0.37, "initial_weights": "random"},
    {"algorithm": "winnow"},
    {"algorithm": "winnow", "promotion": 1.5, "preprocessing": "standardize"},
    {"algorithm": "balanced-winnow"},
    {"algorithm": "adaline", "learning_rate": 0.05},
    {"algorithm": "adaline", "learning_rate": 0.01, "mode": "batch"},
    {"algorithm": "perceptron", "bias": False, "preprocessing": "unit"},
    {"algorithm": "perceptron", "tie": "positive", "learning_rate": 0.1},
    {"algorithm": "perceptron", "tie": "negative"},
    {"algorithm": "winnow", "tie": "negative", "promotion": 1.1},
    {"algorithm": "balanced-winnow", "tie": "mistake", "promotion": 1.5},
    {"algorithm": "adaline", "learning_rate": 0.05, "tie": "positive"},
]


def random_dataset(seed, n=60, d=2, separable=True, decimals=None):
    """Random points; with `decimals`, rounded so (as in a CSV) that exact ties happen."""
    rng = np.random.default_rng(seed)
    points = rng.uniform(-1, 1, size=(n, d))
    if decimals is not None:
        points = np.round(points, decimals)
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
    ds = random_dataset(3, n=97, separable=params["algorithm"] != "perceptron", decimals=1)
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
    decimals=st.sampled_from([None, 0, 1]),
)
def test_any_chunking_of_run_gives_the_stepped_trajectory(seed, n, rule, order, chunks, decimals):
    """Bit for bit, whatever the chunks; with data in decimals, ties decided alike."""
    ds = random_dataset(seed, n=n, separable=seed % 2 == 0, decimals=decimals)
    total = sum(chunks)
    stepped = Simulation(ds, order=order, seed=seed, **rule)
    trajectory_by_steps(stepped, total)
    fast = Simulation(ds, order=order, seed=seed, **rule)
    for chunk in chunks:
        fast.run(chunk, until_converged=False)
    assert np.array_equal(fast.state, stepped.state)
    assert fast.mistakes == stepped.mistakes and fast.converged_at == stepped.converged_at
    assert fast.mistake_trials().tolist() == stepped.mistake_trials().tolist()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    d=st.integers(60, 140),
    rows=st.integers(1, 60),
    rule=st.sampled_from(
        [
            {"algorithm": "perceptron"},
            {"algorithm": "perceptron", "learning_rate": 0.3, "tie": "positive"},
            {"algorithm": "winnow"},
            {"algorithm": "winnow", "promotion": 1.5, "tie": "negative"},
            {"algorithm": "balanced-winnow"},
            {"algorithm": "adaline", "learning_rate": 0.001},
        ]
    ),
    boolean=st.booleans(),
    chunks=st.lists(st.integers(1, 150), min_size=1, max_size=4),
)
def test_the_fast_path_is_exact_in_about_a_hundred_dimensions(seed, d, rows, rule, boolean, chunks):
    rng = np.random.default_rng(seed)
    X = (
        (rng.random((rows, d)) < 0.2).astype(float)
        if boolean
        else np.round(rng.normal(size=(rows, d)), 1)
    )
    labels = np.where(X[:, :3].sum(axis=1) > 0, 1, -1)
    ds = Dataset(X, labels)
    stepped = Simulation(ds, bias=False, order="random", **rule)
    trajectory_by_steps(stepped, sum(chunks))
    fast = Simulation(ds, bias=False, order="random", **rule)
    for chunk in chunks:
        fast.run(chunk, until_converged=False)
    assert np.array_equal(fast.state, stepped.state)
    assert fast.mistake_trials().tolist() == stepped.mistake_trials().tolist()


@pytest.mark.parametrize("algorithm", ["perceptron", "winnow"])
def test_the_fast_path_is_exact_at_4096_features(monkeypatch, algorithm):
    """Few rows, many features: step (NumPy, one row), run (compiled) and run without the
    compiled loops (NumPy blocks) agree bit for bit."""
    from simulator.engine import rules

    rng = np.random.default_rng(1)
    X = (rng.random((24, 4096)) < 0.3).astype(float)
    labels = np.where(X[:, :2].any(axis=1), 1, -1)
    ds = Dataset(X, labels)
    stepped = Simulation(ds, algorithm, bias=algorithm == "perceptron")
    trials = trajectory_by_steps(stepped, 150)
    fast = Simulation(ds, algorithm, bias=algorithm == "perceptron")
    fast.run(150, until_converged=False)
    monkeypatch.setattr(rules, "compiled", None)
    plain = Simulation(ds, algorithm, bias=algorithm == "perceptron")
    plain.run(150, until_converged=False)
    assert np.array_equal(fast.state, stepped.state) and np.array_equal(plain.state, fast.state)
    assert fast.mistakes == sum(t.mistake for t in trials) > 0
    assert fast.mistake_trials().tolist() == plain.mistake_trials().tolist()


@settings(max_examples=30, deadline=None)
@given(
    rows=st.integers(1, 40),
    d=st.sampled_from([1, 2, 3, 8, 9, 50, 4096]),
    seed=st.integers(0, 1000),
    theta=st.sampled_from([0.0, 2.5]),
)
def test_every_dot_product_is_the_left_to_right_sum_of_rounded_products(rows, d, seed, theta):
    """NumPy (one row, a few columns, row blocks) and the compiled loops: the same bits as
    summing x_j·w_j one by one in Python floats (random floats: any other order differs)."""
    from simulator.engine import rules

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, d)) * 10.0 ** rng.integers(-3, 4, size=d)
    w = rng.normal(size=d)
    expected = []
    for x in X.tolist():
        total = x[0] * w[0]
        for a, b in zip(x[1:], w[1:].tolist(), strict=True):
            total += a * b
        expected.append(total - theta if theta else total)
    assert rules.numpy_dot_rows(X, w, theta).tolist() == expected
    assert [rules.numpy_dot_rows(X[i : i + 1], w, theta)[0] for i in range(rows)] == expected
    assert rules.compiled is not None
    assert rules.dot_rows(X, w, theta).tolist() == expected
    y = np.where(rng.random(rows) < 0.5, 1, -1).astype(np.int8)
    squares = 0.0
    for label, s in zip(y.tolist(), expected, strict=True):
        squares += (label - s) * (label - s)
    assert rules.squared_error(X, w, theta, y) == squares


def test_many_features_are_not_copied_more_than_needed():
    rng = np.random.default_rng(2)
    ds = Dataset(
        (rng.random((200, 4096)) < 0.3).astype(float), np.where(rng.random(200) < 0.5, 1, -1)
    )
    winnow = Simulation(ds, "winnow", bias=False)
    assert np.shares_memory(winnow.feature_matrix, ds.points)  # the points themselves
    winnow.run(2000, until_converged=False)
    perceptron = Simulation(ds)  # with bias: one feature matrix, nothing else per row
    perceptron.run(2000, until_converged=False)
    for sim in (winnow, perceptron):
        assert sim.history_nbytes < 0.1 * ds.points.nbytes


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
    ds = random_dataset(9, n=300, separable=params["algorithm"] == "perceptron", decimals=1)
    compiled = Simulation(ds, order=order, seed=2, **params)
    compiled.run(5000, until_converged=False)
    compiled_snapshot = compiled.snapshot()
    monkeypatch.setattr(rules, "compiled", None)
    plain = Simulation(ds, order=order, seed=2, **params)
    plain.run(5000, until_converged=False)
    assert np.array_equal(compiled.state, plain.state)
    assert compiled.mistakes == plain.mistakes and compiled.converged_at == plain.converged_at
    assert np.array_equal(compiled.epoch_losses(), plain.epoch_losses())
    assert np.array_equal(compiled_snapshot.misclassified, plain.snapshot().misclassified)
    assert compiled_snapshot.margin == plain.snapshot().margin
    for t in (1, 299, 300, 2500, 5000):
        assert compiled.trial(t) == plain.trial(t)


# -- cycles (cyclic order, non-separable data) ---------------------------------------------------


def test_xor_cycles_with_period_one_epoch():
    # From w = 0 the perceptron errs on all four points of XOR and the four updates cancel:
    # (-1,0,0), (0,0,1), (1,1,1), (0,0,0). w at every epoch start is 0.
    sim = Simulation(load_preset("xor"))
    assert sim.run(1000) == 4
    assert (sim.cycle_period, sim.cycle_found_at) == (1, 4)
    assert not sim.converged and sim.weights.tolist() == [0.0, 0.0, 0.0]
    snap = sim.snapshot()
    assert (snap.cycle_period, snap.cycle_found_at) == (1, 4)
    sim.seek(3)
    assert sim.cycle_period is None
    assert sim.run(10, until_converged=False) == 10  # it can still be stepped on


def test_a_longer_cycle_is_found_and_its_period_is_exact():
    ds = Dataset(
        [[3.0, -2.0], [-2.0, 2.0], [2.0, 0.0], [-2.0, 2.0], [0.0, -2.0], [-3.0, -1.0]],
        [1, -1, 1, -1, -1, 1],
    )
    sim = Simulation(ds)
    sim.run(100_000)
    assert (sim.cycle_period, sim.cycle_found_at) == (9, 144)
    starts = [w.weights_after for w in sim.trial_records(6, 144)[::6]]  # epochs 1..24
    assert starts[-1] == starts[-1 - 9] and all(starts[-1] != s for s in starts[-9:-1])
    sim.replace_dataset(ds.with_point((0.0, 0.0), 1))
    assert sim.cycle_period is None  # new data: looked for afresh


@settings(max_examples=40, deadline=None)
@given(
    points=st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=2, max_size=6),
    labels=st.lists(st.sampled_from([-1, 1]), min_size=6, max_size=6),
    rule=st.sampled_from(["perceptron", "balanced-winnow"]),
)
def test_brent_finds_the_period_of_the_epoch_start_states(points, labels, rule):
    """Against the epoch-start states recorded naively: the period is the smallest P with
    x_E = x_(E−P) at the epoch E where it was found, and a repeat among the first epochs
    is always found (Brent's search finds it within three times its index)."""
    ds = Dataset(np.array(points, float), labels[: len(points)])
    n, cap = len(points), 600
    sim = Simulation(ds, rule)
    sim.run(cap * n)
    reference = Simulation(ds, rule)
    starts = [reference.state.tobytes()]
    for _ in range(min(sim.trials, cap * n) // n):
        for _ in range(n):
            reference.step()
        starts.append(reference.state.tobytes())
    if sim.cycle_period is not None:
        epoch = sim.cycle_found_at // n
        period = sim.cycle_period
        assert starts[epoch] == starts[epoch - period]
        assert all(starts[epoch] != starts[epoch - p] for p in range(1, period))
        assert sim.converged_at is None
    else:
        first_repeat = next((j for j in range(1, len(starts)) if starts[j] in starts[:j]), None)
        assert first_repeat is None or 3 * first_repeat > cap or sim.converged


def test_random_order_never_reports_a_cycle():
    sim = Simulation(load_preset("xor"), order="random")
    sim.run(2000)
    assert sim.trials == 2000 and sim.cycle_period is None


# -- Adaline: divergence, and a default η from the data --------------------------------------


@pytest.mark.parametrize(
    ("mode", "rate", "epoch", "limit"),
    [("batch", 0.01, 2, "0.0002962"), ("online", 0.05, 1, "0.02569")],
)
def test_adaline_divergence_is_caught_when_the_loss_grows_a_millionfold(mode, rate, epoch, limit):
    """Raw iris: batch η = 0.01 was flagged at epoch 83 (loss 5e179 at epoch 50), online
    η = 0.05 at epoch 13, when the weights passed 1e150; the epoch loss catches it early."""
    sim = Simulation(load_preset("iris"), "adaline", learning_rate=rate, mode=mode)
    sim.run(10**6)
    assert sim.diverged and sim.diverged_at == 150 * epoch and sim.epoch == epoch
    losses = sim.epoch_losses()
    assert losses[-1] > 1e6 and all(loss <= 1e6 for loss in losses[:-1])  # w₀ = 0: loss 1
    reason = sim.divergence_reason
    assert f"η = {rate:g} is too large" in reason and f"η < {limit} suffices" in reason
    assert "sufficient condition, not a necessary one" in reason
    assert np.all(np.isfinite(sim.weights))


def test_adaline_divergence_test_counts_from_the_smallest_loss_so_far():
    ds = Dataset([[2.0], [-1.0]], [1, -1])
    sim = Simulation(ds, "adaline", learning_rate=0.7, mode="batch")
    sim.run(10**5)
    losses = sim.epoch_losses()
    smallest = np.minimum.accumulate(np.concatenate(([1.0], losses)))
    grown = np.flatnonzero(losses > 1e6 * np.maximum(smallest[:-1], 1e-9))
    assert sim.diverged and sim.diverged_at == 2 * (int(grown[0]) + 1)


@pytest.mark.parametrize(("mode", "rate"), [("online", 0.012), ("batch", 0.00014)])
def test_adalines_default_rate_is_derived_from_the_data_and_stable_on_iris(mode, rate):
    """Half the sufficient bound (1/R² = 1/77.85 online, 1/λ_max = 1/6752 batch), rounded
    down to two significant digits."""
    sim = Simulation(load_preset("iris"), "adaline", mode=mode)
    assert sim.rule.learning_rate == rate and sim.settings.learning_rate is None
    sim.run(200_000)
    assert not sim.diverged and np.all(sim.epoch_losses() < 1.2)
    # Batch descends to w_LS's loss (0.1886); online in cyclic order settles where the
    # last, all negative, points of each epoch pull it (iris lists setosa first).
    assert sim.epoch_losses()[-1] < (1.0 if mode == "online" else 0.19)
    assert sim.converged == (mode == "online")


def test_the_default_rate_follows_the_data_until_the_first_trial():
    ds = Dataset([[1.0, 0.0]], [1])  # R² = 2: η = 0.5
    sim = Simulation(ds, "adaline")
    assert sim.rule.learning_rate == 0.5
    sim.replace_dataset(ds.with_point((3.0, 0.0), -1))  # R² = 10: η = 0.1
    assert sim.rule.learning_rate == 0.1
    sim.step()
    sim.replace_dataset(ds.with_point((9.0, 0.0), -1))
    assert sim.rule.learning_rate == 0.1  # the run has started: η stays
    assert Simulation(Dataset.empty(2), "adaline").rule.learning_rate == 0.1
    assert Simulation(ds, "adaline", learning_rate=0.3).rule.learning_rate == 0.3


@pytest.mark.parametrize("mode", ["online", "batch"])
@pytest.mark.parametrize(
    ("x", "rate"), [(0.01, 1e4), (1e-3, 1e6), (1e-155, 1e6), (1e-170, 1e6), (0.0, 0.1)]
)
def test_the_default_rate_of_tiny_data_is_the_largest_eta_not_an_error(mode, x, rate):
    """1/R² beyond 1e6 (R² = x² when x is the only coordinate), beyond floats, or with R²
    underflowing to 0: η is the largest allowed, 1e6; no points off the origin: 0.1."""
    ds = Dataset([[x, 0.0], [0.0, -x]], [1, -1])
    sim = Simulation(ds, "adaline", bias=False, mode=mode)
    assert sim.rule.learning_rate == rate


def test_round_down_to_two_significant_digits():
    from simulator.engine.rules import round_down

    assert round_down(0.012845) == 0.012
    assert round_down(0.000148) == 0.00014
    assert round_down(0.5) == 0.5 and round_down(0.1) == 0.1
    assert round_down(1 / 3) == 0.33 and round_down(123.9) == 120.0
    assert round_down(0.0999999999) == 0.099


# -- Winnow: a weight that underflows -----------------------------------------------------------


def test_a_winnow_weight_that_would_underflow_stops_the_run():
    # Raw iris, θ = 3: the sepal length weight is halved on every false positive until,
    # at trial 53,060, it would reach 0.
    sim = Simulation(load_preset("iris"), "winnow")
    sim.run(10**6)
    assert sim.diverged and sim.diverged_at == 53_060 and sim.trials == 53_060
    assert np.all(sim.weights > 0)
    assert "weight 2 would underflow to 0" in sim.divergence_reason
    assert "try Balanced Winnow" in sim.divergence_reason
    trial = sim.trial(53_060)
    assert trial.mistake and not trial.updated


def test_an_edit_reuses_the_previous_margin_report_and_gets_the_same_answer():
    ds = load_preset("separable")
    sim = Simulation(ds)
    sim.margin_report()
    for edited in (
        ds.with_point((0.9, 0.9), 1),
        ds.moved(3, (0.0, 0.05)),
        ds.without([0, 1]),
    ):
        sim.replace_dataset(edited)
        assert sim.margin_report() == margin_report(edited)


def _counting_reports(monkeypatch):
    """The feature matrices margin_report_for is asked about, in order."""
    from simulator.engine import simulation as simulation_module

    asked = []
    real = simulation_module.margin_report_for

    def counting(X, labels, previous=None, **options):
        asked.append(X.shape)
        return real(X, labels, previous, **options)

    monkeypatch.setattr(simulation_module, "margin_report_for", counting)
    return asked


def test_a_settings_change_keeps_the_margin_report_of_the_same_features(monkeypatch):
    asked = _counting_reports(monkeypatch)
    ds = random_dataset(4, n=30)
    first = Simulation.from_settings(ds, Settings())
    report = first.margin_report()
    adaline = first.adaline_report()
    for change in (
        {"algorithm": "adaline"},
        {"learning_rate": 0.25, "order": "random", "seed": 9},
        {"tie": "positive", "initial_weights": "random"},
    ):
        sim = Simulation.from_settings(ds, replace(Settings(), **change), previous=first)
        assert sim.margin_report() is report and sim.adaline_report() is adaline
    assert asked == [(30, 3)]
    # Other features: the report is the new data's, computed again.
    other = Simulation.from_settings(ds, Settings(bias=False), previous=first)
    assert other.margin_report() == margin_report(ds, bias=False) and asked[-1] == (30, 2)
    scaled = Simulation.from_settings(ds, Settings(preprocessing="unit"), previous=first)
    assert scaled.margin_report() == margin_report(ds, preprocessing="unit")
    flipped = Dataset(ds.points, -ds.labels)
    again = Simulation.from_settings(flipped, Settings(), previous=first)
    assert again.margin_report() == margin_report(flipped) and len(asked) == 4
