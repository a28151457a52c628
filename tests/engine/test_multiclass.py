"""Three or more classes: the multiclass perceptron and Kessler's construction (UNL CSCE 970
lecture 3), against rules written out here in rational arithmetic, the notes' example, and
Novikoff's bound on Kessler's vectors as a property."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import Dataset, Simulation, kessler_points, load_preset
from simulator.engine.learners import exact
from simulator.engine.records import Settings
from simulator.engine.session import load_session, save_session
from tests.helpers.learners import without_compiled_loops


def test_the_notes_example_maps_a_point_to_its_kessler_vectors():
    """x = [2, 2] of class ω₁ (class 0 here), bias first: [1, 2, 2, −1, −2, −2, 0, 0, 0] and
    [1, 2, 2, 0, 0, 0, −1, −2, −2] (the notes write the bias last: [2, 2, 1, −2, −2, −1, …])."""
    ds = Dataset([[2.0, 2.0], [0.0, 1.0], [3.0, -1.0]], [0, 1, 2])
    Z = kessler_points(ds)
    assert Z[:2].tolist() == [[1, 2, 2, -1, -2, -2, 0, 0, 0], [1, 2, 2, 0, 0, 0, -1, -2, -2]]
    assert Z[2].tolist() == [-1, 0, -1, 1, 0, 1, 0, 0, 0]  # class 1 against class 0 first
    assert Z.shape == (6, 9) and not np.any(np.signbit(Z) & (Z == 0))
    assert kessler_points(ds, bias=False)[0].tolist() == [2, 2, -2, -2, 0, 0]


def multiclass_oracle(text, labels, classes, eta, bias, indices):
    """The multiclass perceptron in rationals: right only if w_y·x > w_k·x for all k ≠ y;
    else w_y += ηx, w_j −= ηx, j the best other class, the lowest index on ties."""
    rows = [[Fraction(1)] * bias + [Fraction(v) for v in p] for p in text]
    w = [[Fraction(0)] * len(rows[0]) for _ in range(classes)]
    mistakes = []
    for t, i in enumerate(indices, 1):
        x, y = rows[i], labels[i]
        s = [sum(a * b for a, b in zip(row, x, strict=True)) for row in w]
        others = [(s[k], -k) for k in range(classes) if k != y]
        best, negative_j = max(others)
        if s[y] > best:
            continue
        j = -negative_j
        mistakes.append(t)
        w[y] = [a + eta * b for a, b in zip(w[y], x, strict=True)]
        w[j] = [a - eta * b for a, b in zip(w[j], x, strict=True)]
    return mistakes, w


@st.composite
def classes_data(draw, max_points=9):
    k = draw(st.integers(3, 4))
    n = draw(st.integers(k, max_points))
    points = draw(
        st.lists(st.lists(st.integers(-20, 20), min_size=2, max_size=2), min_size=n, max_size=n)
    )
    labels = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    labels[:k] = range(k)  # every class present
    text = [[f"{v / 10:.1f}" for v in p] for p in points]
    return text, labels, k


@settings(max_examples=50, deadline=None)
@given(data=classes_data(), rate=st.sampled_from(["1", "0.1", "0.5"]), bias=st.booleans())
def test_the_multiclass_perceptron_follows_exact_arithmetic(data, rate, bias):
    text, labels, k = data
    ds = Dataset([[float(v) for v in p] for p in text], labels)
    sim = Simulation(ds, "multiclass-perceptron", learning_rate=float(rate), bias=bias)
    sim.run(300, until_converged=False)
    indices = [trial.index for trial in sim.trial_records(1, sim.trials)]
    mistakes, w = multiclass_oracle(text, labels, k, Fraction(rate), bias, indices)
    assert sim.mistake_trials().tolist() == mistakes
    np.testing.assert_allclose(sim.weights, np.array(w, dtype=float), rtol=1e-9, atol=1e-9)
    assert sim.weights.shape == (k, len(w[0]))


@settings(max_examples=40, deadline=None)
@given(
    data=classes_data(max_points=8), learner=st.sampled_from(["multiclass-perceptron", "kessler"])
)
def test_mistakes_never_exceed_the_kessler_bound_on_separable_classes(data, learner):
    """Novikoff's bound on Kessler's vectors holds for both learners: k ≤ R_K²/γ_K²."""
    text, labels, _ = data
    ds = Dataset([[float(v) for v in p] for p in text], labels)
    sim = Simulation(ds, learner)
    report = sim.margin_report()
    if not report.separable:
        assert sim.mistake_bound() == float("inf")
        return
    assert sim.mistake_bound() == pytest.approx(report.bound)
    # Each epoch before convergence holds a mistake: (bound + 2) epochs are enough.
    epochs = int(min(report.bound, 10**5)) + 2
    sim.run(epochs * sim.trials_left_in_epoch)
    assert sim.mistakes <= report.bound * (1 + 1e-9)
    assert sim.converged or report.bound > 10**5


def test_kessler_is_the_perceptron_on_kessler_vectors():
    """One trial per vector, labels all +1, no extra bias, a tie a mistake; the trial's
    index is the point's and its x the vector; w is the K rows of W."""
    ds = load_preset("blobs3")
    sim = Simulation(ds, "kessler")
    sim.run(600, until_converged=False)
    Z = kessler_points(ds)
    plain = Simulation(Dataset(Z, np.ones(len(Z), dtype=int)), bias=False)
    plain.run(600, until_converged=False)
    assert sim.mistake_trials().tolist() == plain.mistake_trials().tolist()
    np.testing.assert_array_equal(sim.weights.ravel(), plain.weights)
    trial = sim.trial(4)  # row 3: the second of point 1's K − 1 = 2 vectors
    assert trial.index == 1 and trial.x == tuple(Z[3]) and trial.y == int(ds.labels[1])
    assert sim.weights.shape == (3, 3) and sim.trials_left_in_epoch > 0


@pytest.mark.parametrize("learner", ["multiclass-perceptron", "kessler"])
def test_iris3_runs_to_its_cycle_and_blobs3_converges(learner):
    iris = Simulation(load_preset("iris3"), learner)
    iris.run(10**7)
    assert iris.cycle_period is not None or iris.converged  # not separable: it cycles
    blobs = Simulation(load_preset("blobs3"), learner)
    blobs.run(10**6)
    assert blobs.converged and blobs.mistakes <= blobs.mistake_bound()
    predicted = blobs.predict(load_preset("blobs3").points)
    assert predicted.tolist() == load_preset("blobs3").labels.tolist()


def test_two_class_learners_refuse_three_classes_in_one_line():
    with pytest.raises(ValueError, match="multiclass-perceptron or kessler") as info:
        Simulation(load_preset("iris3"))
    assert "\n" not in str(info.value)
    sim = Simulation(load_preset("blobs3"), "multiclass-perceptron")
    with pytest.raises(ValueError, match="this run learns 3"):
        sim.replace_dataset(load_preset("or"))


def test_a_session_keeps_the_classes_and_their_names(tmp_path):
    ds = load_preset("iris3")
    settings = Settings("multiclass-perceptron", learning_rate=0.5)
    sim = Simulation.from_settings(ds, settings)
    sim.run(500, until_converged=False)
    path = tmp_path / "iris3.lab.json"
    save_session(path, ds, settings, sim.trials, state=sim.state)
    session = load_session(path)
    assert session.dataset == ds and session.dataset.class_names == ds.class_names
    again = session.simulation()
    assert session.verify(again) is None
    np.testing.assert_array_equal(again.weights, sim.weights)


def overlapping_blobs(n, classes, seed, decimals=None):
    """n points in `classes` Gaussian blobs on a circle, close enough to overlap (every epoch
    errs), rounded to `decimals` if given (ties between classes' scores)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n)
    labels[:classes] = range(classes)
    angles = 2 * np.pi * labels / classes
    points = 1.5 * np.column_stack((np.cos(angles), np.sin(angles))) + rng.normal(0, 1, (n, 2))
    return Dataset(points if decimals is None else np.round(points, decimals), labels)


def trajectory(ds, trials, **kwargs):
    """(mistake trials, W after each of them, the run's last trial) of a run in one go, and
    the W after each mistake from a run stopped at every mistake."""
    sim = Simulation(ds, "multiclass-perceptron", **kwargs)
    sim.run(trials, until_converged=False)
    mistakes = sim.mistake_trials().tolist()
    stopping = Simulation(ds, "multiclass-perceptron", **kwargs)
    after = []
    for t in mistakes:
        stopping.run(t - stopping.trials, until_converged=False)
        after.append(stopping.weights.copy())
    assert np.array_equal(stopping.weights if not mistakes else after[-1], sim.weights)
    return mistakes, after, sim.weights.copy(), sim.last_trial


def compiled_and_numpy(monkeypatch, ds, trials, **kwargs):
    assert exact.learning is not None, "the compiled loop (_learn.c) was not built"
    compiled = trajectory(ds, trials, **kwargs)
    with monkeypatch.context() as patch:
        without_compiled_loops(patch)
        plain = trajectory(ds, trials, **kwargs)
    return compiled, plain


def assert_same_trajectory(compiled, plain):
    assert compiled[0] == plain[0]  # the mistakes
    assert len(compiled[1]) == len(plain[1])
    for a, b in zip(compiled[1], plain[1], strict=True):  # W after each, bit for bit
        assert np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))
    assert np.array_equal(compiled[2], plain[2])
    assert compiled[3] == plain[3]  # the last trial: its verdict, certain or not


DATASETS = {
    "iris3": lambda: load_preset("iris3"),
    "blobs3": lambda: load_preset("blobs3"),
    "blobs-3": lambda: overlapping_blobs(120, 3, 1),
    "blobs-4": lambda: overlapping_blobs(120, 4, 2),
    "blobs-5": lambda: overlapping_blobs(120, 5, 3),
}


@pytest.mark.parametrize("order", ["cyclic", "random"])
@pytest.mark.parametrize("rate", [1.0, 0.5, 0.1])
@pytest.mark.parametrize("data", sorted(DATASETS))
def test_the_compiled_loop_follows_the_numpy_path_bit_for_bit(monkeypatch, data, rate, order):
    """The compiled multiclass family (_learn.c, family 5) against the learner's NumPy
    path: the same mistakes and the same W after each of them."""
    ds = DATASETS[data]()
    compiled, plain = compiled_and_numpy(
        monkeypatch, ds, 1500, learning_rate=rate, order=order, seed=4
    )
    assert_same_trajectory(compiled, plain)
    assert compiled[0]  # it learned something


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    classes=st.integers(3, 5),
    decimals=st.sampled_from([None, 0, 1]),
    rate=st.sampled_from([1.0, 0.5, 0.1]),
    order=st.sampled_from(["cyclic", "random"]),
    bias=st.booleans(),
)
def test_the_compiled_loop_follows_it_on_random_blobs(seed, classes, decimals, rate, order, bias):
    """Random overlapping blobs of 3–5 classes, rounded or not (whole numbers tie classes'
    scores: verdicts and runner-ups that the floats cannot decide go to exact arithmetic)."""
    ds = overlapping_blobs(40, classes, seed, decimals)
    kwargs = {"learning_rate": rate, "order": order, "seed": seed, "bias": bias}
    with pytest.MonkeyPatch.context() as monkeypatch:
        compiled, plain = compiled_and_numpy(monkeypatch, ds, 400, **kwargs)
    assert_same_trajectory(compiled, plain)


def test_the_multiclass_family_reaches_python_only_where_floats_cannot_decide(monkeypatch):
    """On whole-number data the loop leaves ties (status 2) and undecided runner-ups
    (status 5) to the learner's exact shadow, and the run is the exact oracle's."""
    codes = []
    real = exact.learning

    class Spy:
        @staticmethod
        def learn(*args):
            scored = real.learn(*args)
            codes.append(int(args[21][0]))
            return scored

    monkeypatch.setattr(exact, "learning", Spy)
    ds = overlapping_blobs(60, 4, 7, decimals=0)
    sim = Simulation(ds, "multiclass-perceptron")
    sim.run(2000, until_converged=False)
    assert 2 in codes and 5 in codes
    text = [[repr(float(v)) for v in p] for p in ds.points]
    indices = [trial.index for trial in sim.trial_records(1, sim.trials)]
    mistakes, w = multiclass_oracle(text, ds.labels.tolist(), 4, Fraction(1), True, indices)
    assert sim.mistake_trials().tolist() == mistakes
    assert sim.weights.tolist() == [[float(v) for v in row] for row in w]
