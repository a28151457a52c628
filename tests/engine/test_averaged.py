"""The averaged perceptron: the perceptron's trials and the mean of its weights against an
oracle in rational arithmetic, w̄ as the mean of the recorded weights, its lazy sum through
the compiled loop, cycles and replay bit for bit, and the learner through sessions and the
command line."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import TIES, Dataset, Settings, Simulation, load_preset
from simulator.engine.learners import AveragedPerceptron
from simulator.presentation.explain import explain
from simulator.presentation.frame import build_frame
from tests.engine.test_replay_jumps import CYCLES
from tests.engine.test_ties import decimal_data
from tests.helpers.learners import (
    chunked_and_stepped,
    cmu,
    dot,
    exact_rows,
    export_frames,
    indices_of,
    predicts,
    session_round_trip,
    stepped_and_run,
    without_compiled_loops,
)

RATES = ["1", "0.1", "0.3", "7", "2.5"]


def averaged_oracle(rows, labels, eta, tie, indices):
    """The perceptron in fractions over the trials' rows, and w̄ = (w₁ + … + w_T)/T with
    w_t the weights after trial t. (the mistakes, w, w̄)"""
    w = [Fraction(0)] * len(rows[0])
    total = [Fraction(0)] * len(w)
    mistakes = []
    for t, i in enumerate(indices, 1):
        x, y = rows[i], labels[i]
        if predicts(dot(w, x), tie) != y:
            mistakes.append(t)
            w = [a + eta * y * b for a, b in zip(w, x, strict=True)]
        total = [s + a for s, a in zip(total, w, strict=True)]
    return mistakes, w, [s / len(indices) for s in total]


@settings(max_examples=50, deadline=None)
@given(
    data=decimal_data(),
    rate=st.sampled_from(RATES),
    tie=st.sampled_from(TIES),
    bias=st.booleans(),
    order=st.sampled_from(["cyclic", "random"]),
    trials=st.integers(1, 300),
)
def test_the_average_follows_exact_rational_arithmetic(data, rate, tie, bias, order, trials):
    ds, text, labels = data
    sim = Simulation(
        ds, "averaged-perceptron", learning_rate=float(rate), tie=tie, bias=bias, order=order
    )
    sim.run(trials, until_converged=False)
    rows = exact_rows(text, bias)
    mistakes, w, mean = averaged_oracle(rows, labels, Fraction(rate), tie, indices_of(sim, trials))
    assert sim.mistake_trials().tolist() == mistakes  # k: the online perceptron's mistakes
    np.testing.assert_allclose(sim.weights, [float(v) for v in w], rtol=1e-9, atol=1e-9)
    average = sim.companion("average")
    np.testing.assert_allclose(average, [float(v) for v in mean], rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 25),
    trials=st.integers(1, 400),
    order=st.sampled_from(["cyclic", "random"]),
    rate=st.sampled_from([1.0, 0.37]),
)
def test_the_average_is_the_mean_of_the_recorded_weights(seed, n, trials, order, rate):
    rng = np.random.default_rng(seed)
    ds = Dataset(rng.uniform(-1, 1, size=(n, 2)), np.where(rng.random(n) < 0.5, 1, -1))
    sim = Simulation(ds, "averaged-perceptron", order=order, seed=seed, learning_rate=rate)
    sim.run(trials, until_converged=False)
    recorded = np.array([t.weights_after for t in sim.trial_records(1, trials)])
    np.testing.assert_allclose(sim.companion("average"), recorded.mean(axis=0), atol=1e-12)
    sim.seek(trials // 2 + 1)
    t = sim.trials
    np.testing.assert_allclose(sim.companion("average"), recorded[:t].mean(axis=0), atol=1e-12)


def test_the_cmu_worked_example():
    """w after trials 1 … 6: (1, −2) twice, (2, −1) twice, (3, 1) twice: w̄₆ = (2, −2/3)."""
    sim = Simulation(cmu(), "averaged-perceptron", bias=False, tie="positive")
    assert np.array_equal(sim.companion("average"), [0, 0])  # w̄ = w₀ before trial 1
    sim.run(6, until_converged=False)
    assert sim.mistake_trials().tolist() == [1, 3, 5]
    np.testing.assert_allclose(sim.companion("average"), [2, -2 / 3], rtol=1e-15)
    assert "w̄ = (w₁ + … + w₆)/6 = (2, −0.6667)." in explain(build_frame(sim)).text()
    sim.run(6, until_converged=False)  # w stays (3, 1): w̄₁₂ = (12 + 18, −4 + 6)/12
    np.testing.assert_allclose(sim.companion("average"), [2.5, 1 / 6], rtol=1e-15)
    assert sim.learner_numbers() == (("w̄'s training errors", "0 of 6"),)


def test_it_predicts_with_the_average_and_draws_it():
    sim = Simulation(load_preset("noisy"), "averaged-perceptron")
    sim.run(555, until_converged=False)
    average = sim.companion("average")
    state = sim.learner_state  # brought up to the trials seen
    assert state.since == 555
    np.testing.assert_array_equal(state.total / 555, average)
    X = sim.feature_matrix
    np.testing.assert_allclose(sim.decision(sim.dataset.points), X @ average, atol=1e-12)
    frame = build_frame(sim)
    assert [d.role for d in frame.drawables][:2] == ["boundary", "average"]
    line = frame.line("average")
    np.testing.assert_allclose((line.offset, *line.normal, line.level), (*average, 0))
    assert AveragedPerceptron.companions == ("average",)
    assert sim.bound is not None and sim.bound.formula == "R²/γ*²"


@pytest.mark.parametrize("preset", ["noisy", "xor", "iris", "cycle-3", "cycle-19"])
@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_run_steps_and_replays_alike_past_cycles(preset, order):
    """The compiled loop's updates bring the sum along as stepping does, bit for bit; a
    run past a cycle runs its periods (the sum does not repeat) instead of jumping."""
    ds = CYCLES[preset] if preset in CYCLES else load_preset(preset)
    stepped, run, records = stepped_and_run(
        ds, "averaged-perceptron", 3000, (1, 7, 450), order=order, seed=5
    )
    a, b = stepped.learner_state, run.learner_state
    assert np.array_equal(a.w, b.w) and np.array_equal(a.total, b.total)
    assert run.mistake_trials().tolist() == stepped.mistake_trials().tolist()
    assert run.cycle_period == stepped.cycle_period
    assert run.trial_records(2990, 3000) == records[2989:]
    run.seek(1234)
    assert np.array_equal(run.companion("average"), _mean_after(ds, order, 1234))


def _mean_after(ds, order, trials):
    sim = Simulation(ds, "averaged-perceptron", order=order, seed=5)
    for _ in range(trials):
        sim.step()
    return sim.companion("average")


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
    fast, stepped, records = chunked_and_stepped(
        "averaged-perceptron", seed, n, order, chunks, decimals
    )
    assert np.array_equal(fast.learner_state.total, stepped.learner_state.total)
    assert fast.last_trial == records[-1]


def test_the_numpy_path_gives_the_same_run(monkeypatch):
    ds = load_preset("noisy")
    compiled = Simulation(ds, "averaged-perceptron", learning_rate=0.3, order="random")
    compiled.run(20_000, until_converged=False)
    without_compiled_loops(monkeypatch)
    plain = Simulation(ds, "averaged-perceptron", learning_rate=0.3, order="random")
    plain.run(20_000, until_converged=False)
    assert plain.mistake_trials().tolist() == compiled.mistake_trials().tolist()
    assert np.array_equal(plain.learner_state.total, compiled.learner_state.total)


def test_a_session_keeps_it(tmp_path):
    settings = Settings("averaged-perceptron", learning_rate=0.25)
    sim, again = session_round_trip(tmp_path, load_preset("iris"), settings, 2000)
    np.testing.assert_array_equal(again.companion("average"), sim.companion("average"))


def test_the_command_line_exports_it(tmp_path):
    assert len(export_frames(tmp_path, "averaged-perceptron")) == 6
