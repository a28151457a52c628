"""Every verdict equals the exact verdict on the data as written, at every scale and η
(the cases an audit found, each against an exact oracle written here, independently of the
engine: rational arithmetic for the perceptron and whole-exponent Winnow, 80-digit decimal
arithmetic for Winnow's irrational weights)."""

import math
from decimal import Context
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simulator.engine import Dataset, Simulation
from simulator.engine.learners import Adaline
from tests.engine.test_ties import perceptron_oracle, predicts

SCALES = ["e-8", "e-4", "e0", "e5", "e13", "e14"]
RATES = ["1", "0.5", "0.1", "0.3", "7"]
_DECIMAL = Context(prec=80, Emin=-999_999, Emax=999_999)


def _text(mantissas, scale, dimension):
    return [[f"{m}{scale}" for m in row[:dimension]] for row in mantissas]


def _perceptron_case(text, labels, rate, bias, order="cyclic", trials=200):
    ds = Dataset([[float(v) for v in row] for row in text], labels)
    sim = Simulation(ds, learning_rate=float(rate), bias=bias, order=order, seed=3)
    sim.run(trials, until_converged=False)
    indices = [trial.index for trial in sim.trial_records(1, trials)]
    exact, w = perceptron_oracle(text, labels, Fraction(rate), "mistake", bias, indices)
    return sim, exact, w


@settings(max_examples=60, deadline=None)
@given(
    scale=st.sampled_from(SCALES),
    mantissas=st.lists(
        st.lists(st.integers(-30, 30), min_size=2, max_size=2), min_size=1, max_size=6
    ),
    labels=st.lists(st.sampled_from([-1, 1]), min_size=6, max_size=6),
    dimension=st.integers(1, 2),
    rate=st.sampled_from(RATES),
    bias=st.booleans(),
    order=st.sampled_from(["cyclic", "random"]),
)
@example(  # η = 0.1 with bias at 1e-8: it "converged" to a w that got a point wrong
    scale="e-8",
    mantissas=[[-7, 0], [23, 0], [-2, 0]],
    labels=[-1, 1, 1, -1, -1, -1],
    dimension=1,
    rate="0.1",
    bias=True,
    order="cyclic",
)
def test_the_perceptron_follows_exact_arithmetic_at_any_scale_and_eta(
    scale, mantissas, labels, dimension, rate, bias, order
):
    """Decimals m·10^e (|m| <= 30) at scales 1e-8 … 1e14, η ∈ {1, 0.5, 0.1, 0.3, 7}: the
    same mistakes, trial by trial, as rational arithmetic on the data as written. Inexact η
    (0.1, 0.3) leave a weight that is 0 in rationals a tiny float; that no longer decides."""
    text = _text(mantissas, scale, dimension)
    sim, exact, w = _perceptron_case(text, labels[: len(text)], rate, bias, order)
    assert sim.mistake_trials().tolist() == exact
    if sim.converged:  # converged means every point is right under the exact weights
        rows = [[Fraction(1)] * bias + [Fraction(v) for v in row] for row in text]
        for row, y in zip(rows, labels, strict=False):
            assert predicts(sum(a * b for a, b in zip(w, row, strict=True)), "mistake") == y


def test_an_exact_score_of_minus_one_at_1e13_is_not_a_tie():
    """η = 0.5 with bias at scale 1e13: the strip called an exact −1 "s = 0: a tie"."""
    rng = np.random.default_rng(13)
    differing = 0
    for _ in range(30):
        mantissas = rng.integers(-9, 10, size=(4, 1)).tolist()
        labels = rng.choice([-1, 1], size=4).tolist()
        text = _text(mantissas, "e13", 1)
        sim, exact, _ = _perceptron_case(text, labels, "0.5", True, trials=60)
        differing += sim.mistake_trials().tolist() != exact
        for trial in sim.trial_records(1, 60):
            assert trial.certain
    assert differing == 0


def winnow_oracle(rows, labels, alpha, theta, indices, balanced, number=Fraction):
    """(Balanced) Winnow as the rule says, w multiplied by α^(y x), "+ iff w·x ≥ θ": in
    rationals (`number` Fraction: whole data), or in 80-digit decimals (`number` the
    context's `create_decimal`: irrational weights), where a score within 1e-60 of its
    terms is called undecidable and the comparison stops there (the horizon, returned)."""
    d = len(rows[0])
    theta, a = number(theta), number(alpha)
    plus, minus = [number(1)] * d, [number(1)] * d
    mistakes = []
    for t, i in enumerate(indices, 1):
        x, y = [number(v) for v in rows[i]], labels[i]
        w = [p - m for p, m in zip(plus, minus, strict=True)] if balanced else plus
        terms = [wj * xj for wj, xj in zip(w, x, strict=True)]
        score = sum(terms, number(0)) - theta
        size = sum((abs(v) for v in terms), abs(theta))
        if number is not Fraction and score != 0 and abs(score) < size * number("1e-60"):
            return mistakes, t - 1
        if predicts(score, "positive") != y:
            mistakes.append(t)
            plus = [p * _power(a, y * v) for p, v in zip(plus, x, strict=True)]
            minus = [m * _power(a, -y * v) for m, v in zip(minus, x, strict=True)]
    return mistakes, len(indices)


def _power(base, exponent):
    if isinstance(base, Fraction):
        return base ** int(exponent)
    return _DECIMAL.power(base, exponent)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=1, max_size=8),
    labels=st.lists(st.sampled_from([-1, 1]), min_size=8, max_size=8),
    n=st.integers(1, 4),
    alpha=st.sampled_from(["2", "1.5", "3"]),
    balanced=st.booleans(),
)
@example(  # α = 2 on whole data: w = (2⁻⁴⁸, 1) scores −2⁻⁴⁷ on (1, 1), not a tie
    rows=[[1, 1, 0, 0], [1, 0, 0, 0]],
    labels=[-1, -1, 1, 1, 1, 1, 1, 1],
    n=2,
    alpha="2",
    balanced=False,
)
def test_winnow_follows_exact_arithmetic_with_no_horizon(rows, labels, n, alpha, balanced):
    """Whole data, α ∈ {2, 1.5, 3}: every verdict equals the rational one, however small the
    score against the weights it sums (the old float path called −2⁻⁴⁷ beside 1 a tie)."""
    X = np.array([r[:n] for r in rows], dtype=float)
    y = labels[: len(rows)]
    algorithm = "balanced-winnow" if balanced else "winnow"
    sim = Simulation(Dataset(X, y), algorithm, promotion=float(alpha), bias=False)
    sim.run(300, until_converged=False)
    indices = [trial.index for trial in sim.trial_records(1, 300)]
    theta = "0" if balanced else str(n)
    rows = [[int(v) for v in row] for row in X.tolist()]
    exact, _ = winnow_oracle(rows, y, Fraction(alpha), Fraction(theta), indices, balanced)
    assert sim.mistake_trials().tolist() == exact


def test_balanced_winnow_with_bias_at_1e_8_makes_the_exact_two_mistakes():
    """Inputs ~1e-8 beside the bias: α^(1e-8) is irrational; the float bound had grown over
    every score, and the run made 39 mistakes and never converged. Exact: 2, converged."""
    text = [["-7e-9"], ["23e-9"]]
    ds = Dataset([[float(v) for v in row] for row in text], [-1, 1])
    sim = Simulation(ds, "balanced-winnow")
    sim.run(10_000)
    indices = [trial.index for trial in sim.trial_records(1, sim.trials)]
    rows = [["1", *row] for row in text]
    decimal = _DECIMAL.create_decimal
    exact, horizon = winnow_oracle(rows, [-1, 1], "2", "0", indices, True, number=decimal)
    assert horizon == sim.trials
    assert sim.mistake_trials().tolist() == exact and sim.converged
    assert sim.mistakes == 2


@pytest.mark.parametrize(
    ("points", "rate"),
    [([[0.5]], 0.8), ([[0.5], [0.25]], 0.8), ([[3.0]], 0.1), ([[0.1, 0.2]], 0.95)],
)
def test_adalines_default_rate_is_one_over_r_squared_rounded_down_exactly(points, rate):
    """R² = 1 + 0.5² = 1.25 exactly: 1/R² = 0.8, which the float 1.2500000000000002 had
    rounded down to 0.79."""
    ds = Dataset(points, [1] * len(points))
    assert Simulation(ds, "adaline").learner.value("learning_rate") == rate
    assert Adaline.default_rate(np.array([[1.0, *p] for p in points]), batch=False) == rate


def test_a_verdict_floats_cannot_certify_is_marked_uncertain():
    """Adaline cannot be exact: a score a hair from 0 (here 1.1e-16 from terms of 1 and −1)
    is an uncertain verdict, and an epoch holding one is never called converged."""
    ds = Dataset([[1.0]], [1])
    start = (1.0, -0.9999999999999999)
    sim = Simulation(ds, "adaline", learning_rate=1e-30, initial_weights=start, tolerance=1)
    trial = sim.step()
    assert 0 < trial.score < 1e-15 and not trial.certain
    assert not sim.converged  # the weights barely moved, but the verdict was not certain
    sure = Simulation(ds, "adaline", learning_rate=0.5)
    sure.run(10)
    assert all(t.certain for t in sure.trial_records(1, sure.trials)) and sure.converged
    assert math.isfinite(sim.weights[0])
