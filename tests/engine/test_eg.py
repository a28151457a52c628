"""EG± (UNL CSCE 970; Kivinen and Warmuth): against a float reference written here from the
formula, its normalization, its uncertain verdicts, its divergence in words, the compiled
and NumPy paths alike, and the learner through sessions and the command line."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.learners import EG
from simulator.presentation.explain import explain
from simulator.presentation.frame import build_frame
from tests.helpers.learners import (
    chunked_and_stepped,
    export_frames,
    session_round_trip,
    stepped_and_run,
    without_compiled_loops,
)


def eg_reference(X, y, indices, eta, total):
    """EG± from the formula in floats: w⁺ = w⁻ = U/(2D); on y·(w⁺ − w⁻)·x ≤ 0,
    rᵢ = exp(2ηU·y·xᵢ), Z = Σ (w⁺r + w⁻/r), w⁺ ← U·w⁺·r/Z, w⁻ ← U·w⁻/r/Z.
    (the mistakes, w⁺, w⁻, the normalizers Z)"""
    d = X.shape[1]
    plus = np.full(d, total / (2 * d))
    minus = plus.copy()
    mistakes, normalizers = [], []
    for t, i in enumerate(indices, 1):
        x = X[i]
        if y[i] * np.dot(plus - minus, x) <= 0:
            mistakes.append(t)
            r = np.exp(2 * eta * total * y[i] * x)
            z = np.sum(plus * r + minus / r)
            plus, minus = total * plus * r / z, total * minus / r / z
            normalizers.append(z)
    return mistakes, plus, minus, normalizers


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 30),
    eta=st.sampled_from([1.0, 0.5, 0.1, 3.0]),
    total=st.sampled_from([1.0, 2.0, 0.3]),
    order=st.sampled_from(["cyclic", "random"]),
)
def test_eg_follows_its_formula(seed, n, eta, total, order):
    rng = np.random.default_rng(seed)
    ds = Dataset(rng.uniform(-1, 1, size=(n, 2)), np.where(rng.random(n) < 0.5, 1, -1))
    sim = Simulation(ds, "eg", learning_rate=eta, total_weight=total, order=order, seed=seed)
    sim.run(300, until_converged=False)
    records = sim.trial_records(1, 300)
    stop = sim.diverged_at
    if stop is not None:
        # The run stopped where an update would underflow a weight to 0 (it could never
        # come back): the formula agrees up to there, and its update there underflows.
        before = [r.index for r in records[: stop - 1]]
        mistakes, *_ = eg_reference(sim.feature_matrix, ds.labels, before, eta, total)
        assert sim.mistake_trials().tolist()[: len(mistakes)] == mistakes
        _, plus, minus, _ = eg_reference(
            sim.feature_matrix, ds.labels, [*before, records[stop - 1].index], eta, total
        )
        assert min(np.min(plus), np.min(minus)) < 1e-300
        return
    mistakes, plus, minus, _ = eg_reference(
        sim.feature_matrix, ds.labels, [r.index for r in records], eta, total
    )
    assert sim.mistake_trials().tolist() == mistakes
    np.testing.assert_allclose(sim.companion("positive"), plus, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(sim.companion("negative"), minus, rtol=1e-9, atol=1e-15)
    np.testing.assert_array_equal(sim.weights, sim.state[0] - sim.state[1])
    for record in records:  # w⁺ and w⁻ together weigh U after every update
        assert record.states[1].w.sum() == pytest.approx(total, rel=1e-12)


def test_the_start_and_the_first_update_by_hand():
    """D = 3 with bias, U = 1: w⁺ = w⁻ = 1/6, s = 0 is a mistake; on x = (1, 1, 0), y = 1,
    η = 1: r = (e², e², 1), Z = (e² + e⁻² + e² + e⁻² + 2)/6."""
    sim = Simulation(Dataset([[1.0, 0.0]], [1]), "eg")
    np.testing.assert_array_equal(sim.state, np.full((2, 3), 1 / 6))
    trial = sim.step()
    assert trial.mistake and trial.score == 0.0 and trial.certain
    e2 = np.exp(2.0)
    z = (2 * e2 + 2 / e2 + 2) / 6
    np.testing.assert_allclose(sim.companion("positive"), np.array([e2, e2, 1]) / 6 / z)
    np.testing.assert_allclose(sim.companion("negative"), np.array([1 / e2, 1 / e2, 1]) / 6 / z)
    text = explain(build_frame(sim)).text()
    assert "r = exp(2ηU·y·x) = (7.389, 7.389, 1)" in text
    assert f"Z = Σ(w⁺r + w⁻/r) = {z:.4g}" in text
    assert sim.bound is None and sim.mistake_bound() is None
    assert EG.companions == ("positive", "negative")


def test_verdicts_floats_cannot_certify_are_marked_and_never_converge():
    """XOR with bias: w⁺ and w⁻ of the bias meet, and a score of 1e-16 on terms of 0.2 is
    uncertain ("≈" in the strip); no epoch with such a verdict counts as converged."""
    sim = Simulation(load_preset("xor"), "eg", learning_rate=0.3)
    records = [sim.step() for _ in range(300)]
    uncertain = [r for r in records if not r.certain]
    assert uncertain and all(abs(r.score) < 1e-9 for r in uncertain)
    assert sim.converged_at is None


def test_it_says_why_it_stopped():
    huge = Simulation(Dataset([[400.0, 1.0], [-400.0, 1.0]], [1, 1]), "eg")
    huge.run(10)
    assert huge.diverged and "overflowed" in huge.divergence_reason
    assert np.all(np.isfinite(huge.state))  # the last finite weights are kept
    far = Dataset([[22.0, -13.0], [6.0, 17.0], [13.0, 25.0], [22.0, 25.0]], [-1, -1, 1, -1])
    sim = Simulation(far, "eg", learning_rate=5.0)
    sim.run(100)
    assert sim.diverged_at == 3 and "weight 3 of w⁻ underflowed to 0" in sim.divergence_reason
    tiny = Simulation(load_preset("or"), "eg", total_weight=1e-100)  # U/(2D) still normal
    assert np.all(tiny.state > 0) and tiny.state.sum() == pytest.approx(1e-100)
    with pytest.raises(ValueError, match="U ≥ 1e-100"):
        Simulation(load_preset("or"), "eg", total_weight=1e-300)
    with pytest.raises(ValueError, match="positive initial weights"):
        Simulation(load_preset("or"), "eg", initial_weights=[0.5, 0.0, 0.5, 0.5, 0.5, 0.5])


@pytest.mark.parametrize("preset", ["noisy", "xor", "iris"])
@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_run_and_step_agree(preset, order):
    """The compiled loop's EG± updates and its uncertain verdicts are stepping's, bit for
    bit."""
    stepped, run, records = stepped_and_run(
        load_preset(preset), "eg", 900, (1, 20, 300), order=order, seed=6, learning_rate=0.3
    )
    assert np.array_equal(run.state, stepped.state)
    assert run.mistake_trials().tolist() == stepped.mistake_trials().tolist()
    assert run.trial_records(1, 900) == records
    assert [r.certain for r in run.trial_records(1, 900)] == [r.certain for r in records]
    for t in range(1, 900, 37):
        sim = Simulation(load_preset(preset), "eg", order=order, seed=6, learning_rate=0.3)
        sim.run(t, until_converged=False)  # the compiled stretch's last verdict, as stepped
        assert sim.last_trial.certain == records[t - 1].certain


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 40),
    order=st.sampled_from(["cyclic", "random"]),
    chunks=st.lists(st.integers(1, 90), min_size=1, max_size=6),
    decimals=st.sampled_from([None, 0, 1]),
)
def test_any_chunking_of_run_gives_the_stepped_trajectory(seed, n, order, chunks, decimals):
    """The compiled loop's stretches end anywhere: bit for bit the stepped run."""
    fast, _, records = chunked_and_stepped("eg", seed, n, order, chunks, decimals)
    assert fast.last_trial == records[-1]  # the compiled stretch's own verdict, certain or not


def test_the_numpy_path_gives_the_same_run(monkeypatch):
    ds = load_preset("noisy")
    compiled = Simulation(ds, "eg", total_weight=2.0)
    compiled.run(20_000, until_converged=False)
    without_compiled_loops(monkeypatch)
    plain = Simulation(ds, "eg", total_weight=2.0)
    plain.run(20_000, until_converged=False)
    assert plain.mistake_trials().tolist() == compiled.mistake_trials().tolist()
    assert np.array_equal(plain.state, compiled.state)


def test_a_session_keeps_it(tmp_path):
    settings = Settings("eg", total_weight=2.5, learning_rate=0.2, order="random", seed=3)
    sim, again = session_round_trip(tmp_path, load_preset("noisy"), settings, 500)
    np.testing.assert_array_equal(again.companion("negative"), sim.companion("negative"))


def test_the_command_line_exports_it(tmp_path):
    assert len(export_frames(tmp_path, "eg", "--total-weight", "2")) == 6
