"""The margin perceptron (UIUC CS446: a linear classifier with margins): its updates at
y·w·x ≤ τ against an oracle in rational arithmetic, its bound (R² + 2τ/η)/γ*² as a theorem
on separable data, its band drawn, the compiled and NumPy paths alike, and the learner
through sessions and the command line."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import TIES, Dataset, Settings, Simulation, load_preset
from simulator.engine.learners import MarginPerceptron
from simulator.presentation.frame import build_frame
from tests.engine.test_ties import decimal_data
from tests.helpers.learners import (
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
MARGINS = ["0", "0.5", "1", "2", "0.3", "1.7"]


def margin_oracle(rows, labels, eta, tau, tie, indices):
    """The rule in fractions: update when y·w·x ≤ τ (τ = 0: the perceptron, ties by the
    tie rule). (the trials of the updates, w)"""
    w = [Fraction(0)] * len(rows[0])
    mistakes = []
    for t, i in enumerate(indices, 1):
        x, y = rows[i], labels[i]
        score = dot(w, x)
        if (y * score <= tau) if tau > 0 else predicts(score, tie) != y:
            mistakes.append(t)
            w = [a + eta * y * b for a, b in zip(w, x, strict=True)]
    return mistakes, w


@settings(max_examples=60, deadline=None)
@given(
    data=decimal_data(),
    rate=st.sampled_from(RATES),
    margin=st.sampled_from(MARGINS),
    tie=st.sampled_from(TIES),
    bias=st.booleans(),
    order=st.sampled_from(["cyclic", "random"]),
)
def test_the_margin_perceptron_follows_exact_rational_arithmetic(
    data, rate, margin, tie, bias, order
):
    """Decimal data, η and τ that binary may not hold: the same margin mistakes trial by
    trial (y·w·x = τ among them) and the same weights as the oracle."""
    ds, text, labels = data
    sim = Simulation(
        ds, "margin-perceptron", learning_rate=float(rate), margin=float(margin), tie=tie,
        bias=bias, order=order,
    )  # fmt: skip
    sim.run(300, until_converged=False)
    rows = exact_rows(text, bias)
    mistakes, w = margin_oracle(
        rows, labels, Fraction(rate), Fraction(margin), tie, indices_of(sim, 300)
    )
    assert sim.mistake_trials().tolist() == mistakes
    np.testing.assert_allclose(sim.weights, [float(v) for v in w], rtol=1e-9, atol=1e-9)


def test_a_margin_mistake_is_a_mistake_with_the_right_sign():
    """k counts the updates at 0 < y·w·x ≤ τ too; the prediction stays sign(s)."""
    sim = Simulation(load_preset("separable"), "margin-perceptron", margin=2.0)
    records = [sim.step() for _ in range(200)]
    margin_mistakes = [r for r in records if r.mistake and r.prediction == r.y]
    assert margin_mistakes and all(0 < r.y * r.score <= 2.0 for r in margin_mistakes)
    assert all(r.updated for r in margin_mistakes)
    assert sim.mistakes == sum(r.mistake for r in records)
    whole = Simulation(Dataset([[1.0, 0.0]], [1]), "margin-perceptron", bias=False)
    trials = [whole.step() for _ in range(3)]  # y·s = 0, then 1 = τ, then 2
    assert [(t.score, t.prediction, t.mistake) for t in trials] == [
        (0.0, 0, True), (1.0, 1, True), (2.0, 1, False)
    ]  # fmt: skip


def _separable(seed, n):
    rng = np.random.default_rng(seed)
    points = np.round(rng.uniform(-2, 2, size=(n, 2)), 2)
    u = rng.normal(size=3)
    scores = u[0] + points @ u[1:]
    keep = np.abs(scores) > 0.05 * np.linalg.norm(u)
    if not keep.any():
        keep[0] = True
        scores[0] = scores[0] or 1.0
    return Dataset(points[keep], np.where(scores[keep] > 0, 1, -1))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 30),
    margin=st.sampled_from([0.0, 0.25, 1.0, 3.0]),
    rate=st.sampled_from([1.0, 0.5, 2.0]),
    order=st.sampled_from(["cyclic", "random"]),
)
def test_the_mistakes_never_exceed_the_bound_on_separable_data(seed, n, margin, rate, order):
    """From w₀ = 0: k ≤ (R² + 2τ/η)/γ*², γ* and R of the data in feature space."""
    ds = _separable(seed, n)
    sim = Simulation(
        ds, "margin-perceptron", margin=margin, learning_rate=rate, order=order, seed=seed
    )
    sim.run(200_000)
    assert sim.converged
    report = sim.margin_report()
    bound = (report.radius**2 + 2 * margin / rate) / report.gamma**2
    assert sim.bound.value == pytest.approx(bound, rel=1e-12)
    assert sim.bound.formula == "(R² + 2τ/η)/γ*²" and sim.mistake_bound() == sim.bound.value
    assert sim.mistakes <= bound * (1 + 1e-9)


def test_the_general_bound_holds_from_a_start_that_is_not_zero():
    ds = _separable(7, 25)
    sim = Simulation(ds, "margin-perceptron", initial_weights=[2.0, -1.0, 0.5], margin=0.5)
    sim.run(100_000)
    bound = sim.bound
    assert bound.general and bound.formula.startswith("max k")
    assert sim.converged and sim.mistakes <= bound.value


def test_a_zero_margin_is_the_perceptron():
    ds = load_preset("noisy")
    for tie in TIES:
        margin = Simulation(ds, "margin-perceptron", margin=0.0, tie=tie)
        plain = Simulation(ds, "perceptron", tie=tie)
        margin.run(5000, until_converged=False)
        plain.run(5000, until_converged=False)
        assert np.array_equal(margin.weights, plain.weights)
        assert margin.mistake_trials().tolist() == plain.mistake_trials().tolist()


def test_it_draws_the_band():
    sim = Simulation(load_preset("separable"), "margin-perceptron", margin=1.5)
    sim.run(100)
    w = sim.weights
    lines = [d.line for d in build_frame(sim).drawables if d.role == "margin-band"]
    assert sorted(line.level for line in lines) == [-1.5, 1.5]
    for line in lines:  # w·x = ±τ: offset + normal·p = level
        np.testing.assert_allclose((line.offset, *line.normal), w)
    assert MarginPerceptron.roles == ("boundary", "previous", "margin-band")
    unit = Simulation(load_preset("separable"), "margin-perceptron", preprocessing="unit")
    unit.run(100)  # unit length: the band's edges are curves in the plane
    curves = [d for d in build_frame(unit).drawables if d.role == "margin-band"]
    assert sorted(c.level for c in curves) == [-1.0, 1.0]


@pytest.mark.parametrize("preset", ["noisy", "iris", "xor"])
@pytest.mark.parametrize("order", ["cyclic", "random"])
def test_run_and_step_agree(preset, order):
    stepped, run, records = stepped_and_run(
        load_preset(preset), "margin-perceptron", 900, (3, 100), order=order, seed=4,
        learning_rate=0.3, margin=0.7,
    )  # fmt: skip
    assert np.array_equal(run.state, stepped.state)
    assert run.mistake_trials().tolist() == stepped.mistake_trials().tolist()
    assert run.trial_records(850, 900) == records[849:]


def test_the_numpy_path_gives_the_same_run(monkeypatch):
    ds = load_preset("iris")
    compiled = Simulation(ds, "margin-perceptron", learning_rate=0.1, margin=0.3)
    compiled.run(30_000, until_converged=False)
    without_compiled_loops(monkeypatch)
    plain = Simulation(ds, "margin-perceptron", learning_rate=0.1, margin=0.3)
    plain.run(30_000, until_converged=False)
    assert plain.mistake_trials().tolist() == compiled.mistake_trials().tolist()
    assert np.array_equal(plain.state, compiled.state)


def test_a_session_keeps_it(tmp_path):
    settings = Settings("margin-perceptron", margin=0.75, learning_rate=0.5)
    sim, again = session_round_trip(tmp_path, load_preset("noisy"), settings, 400)
    assert again.learner.value("margin") == 0.75
    assert again.mistakes == sim.mistakes


def test_the_command_line_exports_it(tmp_path):
    assert len(export_frames(tmp_path, "margin-perceptron", "--margin", "0.5")) == 6
