"""Ties decided like a hand calculation: data written in decimals follow the trajectory of
exact rational arithmetic (`fractions.Fraction`), whatever η, and whatever the tie rule."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import TIES, Dataset, Simulation, load_preset

RATES = ["0.1", "0.3", "1", "7", "0.25", "2.5", "0.05", "1.7"]


def decimal_dataset(draw_points, labels, decimals):
    """Points given as decimal strings (what a CSV holds), parsed to floats."""
    text = [[f"{v / 10**decimals:.{decimals}f}" for v in p] for p in draw_points]
    return Dataset([[float(v) for v in p] for p in text], labels), text


@st.composite
def decimal_data(draw, max_points=10, dimension=2):
    decimals = draw(st.integers(1, 2))
    n = draw(st.integers(1, max_points))
    span = 5 * 10**decimals
    points = draw(
        st.lists(
            st.lists(st.integers(-span, span), min_size=dimension, max_size=dimension),
            min_size=n,
            max_size=n,
        )
    )
    labels = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    return (*decimal_dataset(points, labels, decimals), labels)


def predicts(score, tie):
    """The prediction for an exact score by a tie rule (0: undecided)."""
    if score != 0:
        return 1 if score > 0 else -1
    return {"mistake": 0, "positive": 1, "negative": -1}[tie]


def perceptron_oracle(text, labels, eta, tie, bias, indices):
    """The perceptron in exact rational arithmetic over the trials' rows; the mistakes."""
    rows = [[Fraction(v) for v in p] for p in text]
    if bias:
        rows = [[Fraction(1), *r] for r in rows]
    w = [Fraction(0)] * len(rows[0])
    mistakes = []
    for t, i in enumerate(indices, 1):
        x, y = rows[i], labels[i]
        score = sum(a * b for a, b in zip(w, x, strict=True))
        if predicts(score, tie) != y:
            mistakes.append(t)
            w = [a + eta * y * b for a, b in zip(w, x, strict=True)]
    return mistakes, w


@settings(max_examples=60, deadline=None)
@given(
    data=decimal_data(),
    rate=st.sampled_from(RATES),
    tie=st.sampled_from(TIES),
    bias=st.booleans(),
    order=st.sampled_from(["cyclic", "random"]),
)
def test_the_perceptron_follows_exact_rational_arithmetic(data, rate, tie, bias, order):
    ds, text, labels = data
    sim = Simulation(ds, learning_rate=float(rate), tie=tie, bias=bias, order=order, seed=1)
    sim.run(600, until_converged=False)
    indices = [trial.index for trial in sim.trial_records(1, 600)]
    mistakes, w = perceptron_oracle(text, labels, Fraction(rate), tie, bias, indices)
    assert sim.mistake_trials().tolist() == mistakes  # the same mistakes, trial by trial
    np.testing.assert_allclose(sim.weights, [float(v) for v in w], rtol=1e-9, atol=1e-9)


def winnow_oracle(rows, labels, alpha, theta, tie, indices, balanced):
    """(Balanced) Winnow in exact rational arithmetic: (the mistakes, the horizon).

    Past the horizon, an exact score was nonzero but below 1e-9 of the terms it sums:
    float64 weights that span that many orders of magnitude cannot tell it from 0 (for
    α = 3, θ = 3: w = (3⁻²⁸, 3) scores 3⁻²⁸ on x = (1, 1)), so no comparison is made there.
    """
    d = len(rows[0])
    plus, minus = [Fraction(1)] * d, [Fraction(1)] * d
    mistakes = []
    for t, i in enumerate(indices, 1):
        x, y = rows[i], labels[i]
        w = [p - m for p, m in zip(plus, minus, strict=True)] if balanced else plus
        score = sum(a * b for a, b in zip(w, x, strict=True)) - theta
        scale = sum(abs(a * b) for a, b in zip(plus + minus, x + x, strict=True)) + theta
        if score != 0 and abs(score) < scale / 10**9:
            return mistakes, t - 1
        if predicts(score, tie) != y:
            mistakes.append(t)
            plus = [p * alpha ** (y * v) for p, v in zip(plus, x, strict=True)]
            minus = [m * alpha ** (-y * v) for m, v in zip(minus, x, strict=True)]
    return mistakes, len(indices)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 8),
    rows=st.lists(st.lists(st.integers(0, 1), min_size=8, max_size=8), min_size=1, max_size=12),
    labels=st.lists(st.sampled_from([-1, 1]), min_size=12, max_size=12),
    alpha=st.sampled_from(["2", "1.5", "3", "1.25", "1.1"]),
    theta=st.sampled_from([None, "0.5", "2.5", "1.3", "3"]),
    tie=st.sampled_from(TIES),
    balanced=st.booleans(),
)
def test_winnow_follows_exact_rational_arithmetic(n, rows, labels, alpha, theta, tie, balanced):
    """Boolean data, α and θ in decimals: halving by 1.1 or 1.5 is inexact in binary, and
    ties at w·x = θ happen often."""
    X = np.array([r[:n] for r in rows], dtype=float)
    y = labels[: len(rows)]
    kwargs = {"algorithm": "balanced-winnow"} if balanced else {"algorithm": "winnow"}
    if not balanced and theta is not None:
        kwargs["threshold"] = float(theta)
    sim = Simulation(Dataset(X, y), promotion=float(alpha), tie=tie, bias=False, **kwargs)
    sim.run(300, until_converged=False)
    indices = [trial.index for trial in sim.trial_records(1, 300)]
    exact_theta = Fraction(0) if balanced else Fraction(theta or n)
    exact_rows = [[Fraction(int(v)) for v in r] for r in X]
    exact, horizon = winnow_oracle(
        exact_rows, y, Fraction(alpha), exact_theta, tie, indices, balanced
    )
    mistakes = sim.mistake_trials()
    assert mistakes[mistakes <= horizon].tolist() == exact


@settings(max_examples=40, deadline=None)
@given(data=decimal_data(max_points=8), rate=st.sampled_from(RATES))
def test_from_zero_the_perceptrons_mistakes_and_convergence_do_not_depend_on_eta(data, rate):
    """From w₀ = 0, w is η times an integer combination of the x's, so sign(w·x) and the
    whole run of mistakes are those of η = 1."""
    ds, _, _ = data
    one = Simulation(ds, learning_rate=1.0)
    other = Simulation(ds, learning_rate=float(rate))
    one.run(2000, until_converged=False)
    other.run(2000, until_converged=False)
    assert other.mistake_trials().tolist() == one.mistake_trials().tolist()
    assert other.converged_at == one.converged_at


@pytest.mark.parametrize("rate", [1.0, 0.1, 0.3, 7.0, 1e-100, 1e6])  # the smallest and largest η
def test_iris_follows_exact_arithmetic_for_any_eta(rate):
    """Iris (cyclic, bias): exact rationals make 1518 mistakes and converge at trial
    105,150; naive floats made 1562 at η = 1 (a true 0 computed as −2.67e-12)."""
    sim = Simulation(load_preset("iris"), learning_rate=rate)
    sim.run(10**6)
    assert sim.converged_at == 105_150 and sim.mistakes == 1518


@pytest.mark.parametrize("rate", [5e-324, 1e-320, 1e-101])
def test_an_eta_whose_products_would_be_subnormal_is_refused(rate):
    """At η = 5e-324 the `or` run made 52 mistakes against a bound of 27 (subnormal
    products round absolutely, not relatively); the smallest η is 1e-100."""
    with pytest.raises(ValueError, match="η ≥ 1e-100"):
        Simulation(load_preset("or"), learning_rate=rate)


def test_and_with_a_small_eta_makes_the_same_mistakes():
    sims = [Simulation(load_preset("and"), learning_rate=rate) for rate in (1.0, 0.1)]
    for sim in sims:
        sim.run(1000)
        assert sim.mistakes == 18 and sim.converged_at == 36
    assert sims[0].mistake_trials().tolist() == sims[1].mistake_trials().tolist()


def test_a_snapped_tie_is_recorded_as_an_exact_zero():
    # Iris, trial 38,167: exactly w = (55, -56, 86.2) and w·x = 0; floats hold
    # w₂ = 86.19999999999939 and compute w·x = -2.67e-12.
    sim = Simulation(load_preset("iris"))
    sim.run(38_167, until_converged=False)
    trial = sim.trial(38_167)
    assert trial.score == 0.0 and np.copysign(1.0, trial.score) == 1.0
    assert trial.prediction == 0 and trial.mistake
    exact_w = [Fraction(v).limit_denominator(1000) for v in trial.weights_before]
    assert exact_w == [55, -56, Fraction("86.2")]
    exact_x = [Fraction(str(v)) for v in trial.x]
    assert sum(a * b for a, b in zip(exact_w, exact_x, strict=True)) == 0
    assert abs(float(np.dot(trial.weights_before, trial.x))) > 1e-13  # floats alone miss it


def test_the_tie_rule_defaults_and_choices():
    ds = load_preset("or")
    assert Simulation(ds).tie == "mistake"
    assert Simulation(ds, "adaline").tie == "mistake"
    assert Simulation(ds, "winnow").tie == "positive"
    assert Simulation(ds, "balanced-winnow").tie == "positive"
    assert Simulation(ds, "winnow", tie="negative").tie == "negative"
    with pytest.raises(ValueError, match="unknown tie rule"):
        Simulation(ds, tie="coin")


def test_adaline_counts_ties_by_the_tie_rule_without_snapping():
    # Adaline's update does not depend on ties; an exact 0 (w = 0 at trial 1) is counted
    # by the tie rule.
    ds = Dataset([[2.0], [-1.0]], [1, -1])
    undecided = Simulation(ds, "adaline", learning_rate=0.1).step()
    positive = Simulation(ds, "adaline", learning_rate=0.1, tie="positive").step()
    assert undecided.mistake and undecided.prediction == 0
    assert not positive.mistake and positive.prediction == 1
    assert undecided.weights_after == positive.weights_after


def test_given_initial_weights_in_decimals_are_exact_too():
    # w₀ = (0.1, 0.2, -0.3): 0.1 + 0.2 - 0.3 is 5.55e-17 in floats, exactly 0 in decimals.
    ds = Dataset([[1.0, 1.0]], [1])
    trial = Simulation(ds, initial_weights=[0.1, 0.2, -0.3], tie="negative").step()
    assert trial.score == 0.0 and trial.prediction == -1 and trial.mistake


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ([["0.1", "0.2"], ["0.7", "0.3"], ["0.3", "0.9"], ["0.6", "0.6"]], [1, -1, -1, 1]),
        ([["0.1", "0.7"], ["0.2", "0.3"], ["0.3", "0.1"], ["0.9", "0.3"], ["0.5", "0.5"]],
         [1, -1, 1, -1, 1]),
    ],
)  # fmt: skip
@pytest.mark.parametrize("rate", ["1", "0.1"])
def test_a_cycle_only_exact_arithmetic_sees_is_found_and_is_a_cycle(text, labels, rate):
    """Decimal data that no line separates: in rationals the epoch-start weights repeat,
    while the floats drift by their rounding. The run must stop at the cycle, and the
    cycle must be one in exact arithmetic: the oracle's weights at its end equal those one
    period of epochs before."""
    ds = Dataset([[float(v) for v in row] for row in text], labels)
    sim = Simulation(ds, learning_rate=float(rate))
    sim.run(10**6)
    found, period = sim.cycle_found_at, sim.cycle_period
    assert found is not None and period is not None and not sim.converged
    n = len(labels)
    assert found % n == 0  # an epoch start
    _, now = perceptron_oracle(text, labels, Fraction(rate), "mistake", True, [
        t % n for t in range(found)
    ])  # fmt: skip
    _, before = perceptron_oracle(text, labels, Fraction(rate), "mistake", True, [
        t % n for t in range(found - period * n)
    ])  # fmt: skip
    assert now == before
    floats = [sim.trial(t).weights_after for t in (found, found - period * n)]
    assert floats[0] != floats[1]  # the floats alone would not have seen it
