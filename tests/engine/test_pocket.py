"""Gallant's pocket algorithm: the perceptron's trials and an exact pocket (an oracle in
rational arithmetic), a pocket that never gets worse, the CMU worked example, the compiled
and NumPy paths alike, and the learner through sessions and the command line."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import TIES, Dataset, Settings, Simulation, load_preset
from simulator.engine.learners import Pocket
from simulator.engine.learners.pocket import PocketState
from simulator.presentation.explain import explain
from simulator.presentation.frame import build_frame
from tests.engine.test_ties import decimal_data
from tests.helpers.learners import (
    cmu,
    dot,
    exact_rows,
    export_frames,
    indices_of,
    predicts,
    right_count,
    session_round_trip,
    stepped_and_run,
    without_compiled_loops,
)

RATES = ["1", "0.1", "0.3", "7", "2.5"]


def pocket_oracle(rows, labels, eta, tie, indices):
    """The pocket algorithm as the notes say, in fractions: the perceptron over the trials'
    rows; after w₀ and after each update, the pocket takes w if w gets strictly more points
    right. (the mistakes, w, the pocket, the trial it was taken at, its right points)"""
    w = [Fraction(0)] * len(rows[0])
    pocket, taken, best = w, 0, right_count(w, rows, labels, tie)
    mistakes = []
    for t, i in enumerate(indices, 1):
        x, y = rows[i], labels[i]
        if predicts(dot(w, x), tie) != y:
            mistakes.append(t)
            w = [a + eta * y * b for a, b in zip(w, x, strict=True)]
            right = right_count(w, rows, labels, tie)
            if right > best:
                pocket, taken, best = w, t, right
    return mistakes, w, pocket, taken, best


@settings(max_examples=50, deadline=None)
@given(
    data=decimal_data(),
    rate=st.sampled_from(RATES),
    tie=st.sampled_from(TIES),
    bias=st.booleans(),
    order=st.sampled_from(["cyclic", "random"]),
)
def test_the_pocket_follows_exact_rational_arithmetic(data, rate, tie, bias, order):
    """Decimal data, η that binary cannot hold: the same mistakes trial by trial and the
    same w and pocket as the oracle; the pocket's count is the exact one."""
    ds, text, labels = data
    sim = Simulation(ds, "pocket", learning_rate=float(rate), tie=tie, bias=bias, order=order)
    sim.run(300, until_converged=False)
    indices = indices_of(sim, 300)
    rows = exact_rows(text, bias)
    mistakes, w, pocket, taken, best = pocket_oracle(rows, labels, Fraction(rate), tie, indices)
    assert sim.mistake_trials().tolist() == mistakes
    np.testing.assert_allclose(sim.weights, [float(v) for v in w], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(sim.companion("pocket"), [float(v) for v in pocket], atol=1e-9)
    state = sim.learner_state
    assert isinstance(state, PocketState)
    assert state.pocket_trial == taken
    if mistakes:
        assert (state.pocket_right, state.points) == (best, len(labels))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 30),
    tie=st.sampled_from(TIES),
    order=st.sampled_from(["cyclic", "random"]),
)
def test_the_pocket_never_gets_worse(seed, n, tie, order):
    """On unchanged data the pocket's right points never fall, and after every update the
    pocket gets at least as many right as w."""
    rng = np.random.default_rng(seed)
    points = np.round(rng.uniform(-2, 2, size=(n, 2)), 1)
    labels = np.where(rng.random(n) < 0.5, 1, -1)
    sim = Simulation(Dataset(points, labels), "pocket", tie=tie, order=order, seed=seed)
    sim.run(8 * n, until_converged=False)
    best = -1
    for trial in sim.trial_records(1, sim.trials):
        after = trial.states[1]
        if after.pocket_right is None:
            continue
        assert after.pocket_right >= best
        assert after.pocket_right >= after.w_right
        best = after.pocket_right
    if best >= 0:  # its count on these data is the panel's number
        assert dict(sim.learner_numbers())["pocket's training errors"] == f"{n - best} of {n}"


def test_the_cmu_worked_example():
    """CMU 10-601: θ₁ = (0, 0), mistakes on (−1, 2), (1, 1) and (−1, −2) give (1, −2),
    (2, −1) and (3, 1); each gets more points right (4, 5, then all 6 of 6), so the pocket
    takes each one."""
    sim = Simulation(cmu(), "pocket", bias=False, tie="positive")
    records = [sim.step() for _ in range(6)]
    assert sim.mistake_trials().tolist() == [1, 3, 5]
    assert [records[t - 1].weights_after for t in (1, 3, 5)] == [(1, -2), (2, -1), (3, 1)]
    states = [records[t - 1].states[1] for t in (1, 3, 5)]
    assert [(s.pocket_trial, s.pocket_right, s.points) for s in states] == [
        (1, 4, 6), (3, 5, 6), (5, 6, 6)
    ]  # fmt: skip
    np.testing.assert_array_equal(sim.companion("pocket"), [3, 1])
    assert sim.learner_numbers() == (
        ("pocket's training errors", "0 of 6"),
        ("w's training errors", "0 of 6"),
    )
    sim.run(100)
    assert sim.converged_at == 12
    frame_text = explain(build_frame(_at(cmu(), 3))).text()
    assert "The pocket takes w₃: 5 of 6 right" in frame_text


def _at(ds, trials, **kwargs):
    sim = Simulation(ds, "pocket", bias=False, tie="positive", **kwargs)
    sim.run(trials, until_converged=False)
    return sim


def test_the_pocket_keeps_a_better_w_and_says_so():
    """XOR: w₁ = (−1, 0, 0) gets 2 of 4 right; later w's get fewer, and the strip says the
    pocket keeps w₁."""
    sim = Simulation(load_preset("xor"), "pocket")
    sim.run(8, until_converged=False)
    state = sim.learner_state
    assert (state.pocket_trial, state.pocket_right) == (1, 2)
    text = explain(build_frame(sim)).text()
    assert "The pocket keeps w₁: 2 of 4 right, w₈ gets 0." in text
    assert sim.cycle_period == 1  # w cycles, and the pocket with it: the run says so


def test_it_predicts_and_scores_with_the_pocket_and_draws_both_lines():
    sim = Simulation(load_preset("noisy"), "pocket", seed=1, order="random")
    sim.run(400, until_converged=False)
    pocket = sim.companion("pocket")
    assert not np.array_equal(pocket, sim.weights)
    X = sim.feature_matrix
    scores = sim.decision(sim.dataset.points)
    np.testing.assert_allclose(scores, X @ pocket, rtol=1e-12, atol=1e-12)
    expected = np.where(scores > 0, 1, np.where(scores < 0, -1, 0))
    np.testing.assert_array_equal(sim.predict(sim.dataset.points), expected)
    roles = [d.role for d in build_frame(sim).drawables]
    assert roles[:2] == ["boundary", "pocket"]
    assert Pocket.roles == ("boundary", "previous", "pocket")
    assert sim.bound is not None and sim.bound.owner == "Novikoff's"
    text = dict(sim.learner_numbers())
    errors = int(np.sum(np.where(X @ pocket > 0, 1, -1) != sim.dataset.labels))
    assert text["pocket's training errors"] == f"{errors} of {len(sim.dataset)}"


def test_new_data_are_counted_afresh():
    """After an edit the pocket is compared on the new data: its count is recounted there."""
    ds = load_preset("noisy")
    sim = Simulation(ds, "pocket")
    sim.run(60, until_converged=False)
    more = Dataset(np.vstack((ds.points, [[3.0, 3.0], [-3.0, -3.0]])), [*ds.labels, -1, 1])
    sim.replace_dataset(more)
    before = sim.mistakes
    while sim.mistakes == before:
        sim.step()
    state = sim.learner_state
    assert state.points == len(more)
    rows = [[Fraction(1), *map(Fraction, p)] for p in more.points.tolist()]
    pocket = [Fraction(v) for v in state.pocket.tolist()]
    assert state.pocket_right == right_count(pocket, rows, more.labels.tolist(), "mistake")


@pytest.mark.parametrize("preset", ["noisy", "xor", "iris"])
@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_run_steps_and_replays_alike(preset, order):
    """Run (in chunks, past any cycle) and step give the same states, bit for bit, and
    replay gives the same trials."""
    stepped, run, records = stepped_and_run(
        load_preset(preset), "pocket", 700, (1, 33, 200), order=order, seed=3
    )
    a, b = stepped.learner_state, run.learner_state
    for name in ("w", "pocket", "error"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert (a.pocket_trial, a.pocket_right, a.w_right) == (
        b.pocket_trial,
        b.pocket_right,
        b.w_right,
    )
    assert run.mistake_trials().tolist() == stepped.mistake_trials().tolist()
    assert run.trial_records(1, 700) == records
    run.seek(350)
    assert np.array_equal(run.companion("pocket"), records[349].states[1].pocket)


def test_the_numpy_path_gives_the_same_run(monkeypatch):
    ds = load_preset("iris")
    compiled = Simulation(ds, "pocket", learning_rate=0.1)
    compiled.run(3000, until_converged=False)
    without_compiled_loops(monkeypatch)
    plain = Simulation(ds, "pocket", learning_rate=0.1)
    plain.run(3000, until_converged=False)
    assert plain.mistake_trials().tolist() == compiled.mistake_trials().tolist()
    for name in ("w", "pocket", "pocket_trial", "pocket_right", "w_right"):
        assert np.array_equal(
            getattr(plain.learner_state, name), getattr(compiled.learner_state, name)
        )


def test_a_session_keeps_it(tmp_path):
    settings = Settings("pocket", learning_rate=0.5, order="random", seed=2)
    sim, again = session_round_trip(tmp_path, load_preset("noisy"), settings, 300)
    np.testing.assert_array_equal(again.companion("pocket"), sim.companion("pocket"))


def test_the_command_line_exports_it(tmp_path):
    assert len(export_frames(tmp_path, "pocket", "--learning-rate", "0.5")) == 6
