"""The Winnow lab: the disjunction streams, the race, and the bounds it reports."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import Dataset, Simulation
from simulator.engine.lab import (
    LabCancelled,
    LabPlan,
    consistent_disjunction,
    disjunction_stream,
    hidden_disjunction,
    lab_settings,
    on_probability,
    race,
    run_lab,
)

# -- independent implementations of the notes' rules (plain Python, exact arithmetic) -----------


def notes_winnow(points, labels):
    """CMU 15-859(B): w = 1, predict + iff Σ wᵢxᵢ ≥ n; on a mistake double (y = +1) or halve
    (y = −1) the weights of the variables that are on. Returns the mistake trials."""
    n = len(points[0])
    w = [Fraction(1)] * n
    mistakes = []
    for t, (x, y) in enumerate(zip(points, labels, strict=True), start=1):
        total = sum((wi for wi, xi in zip(w, x, strict=True) if xi), Fraction(0))
        if (1 if total >= n else -1) != y:
            mistakes.append(t)
            factor = Fraction(2) if y > 0 else Fraction(1, 2)
            w = [wi * factor if xi else wi for wi, xi in zip(w, x, strict=True)]
    return mistakes


def notes_perceptron(points, labels):
    """Perceptron with bias, w₀ = 0, η = 1: on y·(w·x) ≤ 0, w ← w + y x (integers, exact)."""
    w = [0] * (len(points[0]) + 1)
    mistakes = []
    for t, (p, y) in enumerate(zip(points, labels, strict=True), start=1):
        x = [1, *p]
        if y * sum(wi * xi for wi, xi in zip(w, x, strict=True)) <= 0:
            mistakes.append(t)
            w = [wi + y * xi for wi, xi in zip(w, x, strict=True)]
    return mistakes


def as_lists(stream):
    return stream.points.astype(int).tolist(), stream.labels.tolist()


# -- the stream -----------------------------------------------------------------------------------


@given(
    n=st.integers(1, 300),
    r=st.integers(1, 6),
    examples=st.integers(1, 400),
    seed=st.integers(0, 2**32),
)
@settings(max_examples=40)
def test_the_stream_is_labelled_by_an_or_of_exactly_r_variables(n, r, examples, seed):
    r = min(r, n)
    stream = disjunction_stream(n, r, examples, seed)
    variables = hidden_disjunction(n, r, seed)
    assert len(set(variables)) == r and all(1 <= v <= n for v in variables)
    assert stream.names == tuple(f"x{j}" for j in range(1, n + 1))
    X = stream.points
    assert np.all((X == 0) | (X == 1))
    columns = [v - 1 for v in variables]
    expected = [1 if any(row[c] == 1 for c in columns) else -1 for row in X.tolist()]
    assert stream.labels.tolist() == expected
    found = consistent_disjunction(stream)  # the largest OR the data allow contains the target
    assert found is not None and set(variables) <= set(found)


def test_every_hidden_variable_is_needed_and_a_long_stream_reveals_exactly_them():
    n, r = 40, 3
    stream = disjunction_stream(n, r, 3000, seed=5)
    variables = hidden_disjunction(n, r, 5)
    assert consistent_disjunction(stream) == variables
    X, y = stream.points, stream.labels
    for v in variables:  # some positive example has v alone among the relevant ones
        others = [u - 1 for u in variables if u != v]
        alone = (X[:, v - 1] == 1) & ~X[:, others].any(axis=1)
        assert np.all(y[alone] == 1) and alone.any()


def test_same_seed_same_stream_and_a_longer_stream_starts_with_the_shorter():
    a = disjunction_stream(100, 2, 700, seed=3)
    assert a == disjunction_stream(100, 2, 700, seed=3)
    assert a != disjunction_stream(100, 2, 700, seed=4)
    longer = disjunction_stream(100, 2, 1500, seed=3)
    assert np.array_equal(longer.points[:700], a.points)
    assert hidden_disjunction(100, 2, 3) == hidden_disjunction(100, 2, 3)


@pytest.mark.parametrize("r", [1, 2, 3, 5])
def test_both_classes_are_about_equally_common(r):
    assert (1 - on_probability(r)) ** r == pytest.approx(0.5)
    stream = disjunction_stream(64, r, 20_000, seed=r)
    assert stream.count(1) / len(stream) == pytest.approx(0.5, abs=0.015)


def test_the_unl_example_x5_or_x9_or_x12_over_150_variables():
    stream = disjunction_stream(150, 3, 500, seed=0, variables=(12, 5, 9))
    X = stream.points
    assert np.array_equal(stream.labels == 1, (X[:, 4] + X[:, 8] + X[:, 11]) > 0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((4, 5, 10), "need n ≥ r"),
        ((4, 0, 10), "at least 1 relevant"),
        ((4, 2, 0), "number of examples"),
        ((10_000, 2, 5000), "at most 25,000,000"),
        ((4.5, 2, 10), "whole number"),
    ],
)
def test_bad_stream_sizes_are_refused_clearly(args, message):
    with pytest.raises(ValueError, match=message):
        disjunction_stream(*args)


def test_named_variables_must_fit():
    with pytest.raises(ValueError, match="numbered 1 … 10"):
        disjunction_stream(10, 2, 5, variables=(0, 3))
    with pytest.raises(ValueError, match="2 different"):
        disjunction_stream(10, 2, 5, variables=(3, 3))


# -- the race -------------------------------------------------------------------------------------


@given(n=st.integers(2, 64), r=st.integers(1, 4), seed=st.integers(0, 10_000))
@settings(max_examples=30)
def test_winnow_makes_the_mistakes_of_the_notes_rule(n, r, seed):
    r = min(r, n)
    stream = disjunction_stream(n, r, 150, seed)
    (result,) = race(stream, ("winnow",), variables=hidden_disjunction(n, r, seed))
    expected = notes_winnow(*as_lists(stream))
    assert result.mistake_trials == tuple(expected)
    assert result.mistakes == len(expected)


@given(n=st.integers(1, 40), r=st.integers(1, 4), seed=st.integers(0, 10_000))
@settings(max_examples=20)
def test_the_perceptron_makes_the_mistakes_of_the_notes_rule(n, r, seed):
    r = min(r, n)
    stream = disjunction_stream(n, r, 120, seed)
    (result,) = race(stream, ("perceptron",), variables=hidden_disjunction(n, r, seed))
    assert result.mistake_trials == tuple(notes_perceptron(*as_lists(stream)))


@given(
    n=st.sampled_from([1, 2, 3, 7, 8, 50, 100, 257, 1024]),
    r=st.integers(1, 5),
    seed=st.integers(0, 2**32),
    until_converged=st.booleans(),
)
@settings(max_examples=25)
def test_winnow_and_the_perceptron_stay_within_their_bounds(n, r, seed, until_converged):
    r = min(r, n)
    stream = disjunction_stream(n, r, 200, seed)
    variables = hidden_disjunction(n, r, seed)
    results = race(
        stream,
        ("winnow", "perceptron"),
        variables=variables,
        until_converged=until_converged,
        max_epochs=30,
    )
    winnow, perceptron = results
    assert winnow.bound == pytest.approx(2 + 3 * r * (1 + math.log2(n)), rel=1e-12)
    assert winnow.mistakes <= winnow.bound
    radius_squared = 1 + int(stream.points.sum(axis=1).max())
    assert perceptron.bound == (4 * r + 1) * radius_squared
    assert perceptron.mistakes <= perceptron.bound
    if until_converged:  # the bounds hold for any order, so also pass after pass
        assert winnow.converged and perceptron.converged


def test_the_exact_bound_is_never_above_the_targets_own():
    stream = disjunction_stream(12, 2, 150, seed=1)
    variables = hidden_disjunction(12, 2, 1)
    (perceptron,) = race(stream, ("perceptron",), variables=variables, exact=True)
    assert perceptron.exact_bound is not None and perceptron.bound is not None
    assert perceptron.mistakes <= perceptron.exact_bound <= perceptron.bound * (1 + 1e-9)


def test_balanced_winnow_has_no_bound_and_the_rules_run_as_the_notes_say():
    stream = disjunction_stream(16, 2, 100, seed=2)
    result = race(stream)
    assert [r.rule for r in result] == ["perceptron", "winnow", "balanced-winnow"]
    assert result[2].bound is None and result[2].bound_formula is None
    assert lab_settings("perceptron").bias and not lab_settings("winnow").bias
    assert lab_settings("balanced-winnow").bias  # its threshold is the bias weight
    winnow = Simulation.from_settings(stream, lab_settings("winnow"))
    assert (winnow.threshold, winnow.tie) == (16.0, "positive")
    assert np.all(winnow.weights == 1.0)
    with pytest.raises(ValueError, match="mistake-driven"):
        lab_settings("adaline")


def test_without_known_variables_the_bound_uses_the_largest_consistent_or():
    stream = disjunction_stream(10, 2, 30, seed=4)
    (winnow,) = race(stream, ("winnow",))
    r = len(consistent_disjunction(stream))
    assert r >= 2 and winnow.relevant == r
    assert winnow.bound == pytest.approx(2 + 3 * r * (1 + math.log2(10)))
    not_a_disjunction = Dataset([[0.0, 1.0], [0.5, 1.0]], [1, -1])
    (perceptron,) = race(not_a_disjunction, ("perceptron",))
    assert perceptron.bound is None and perceptron.relevant is None


def test_the_weight_trace_follows_the_run():
    stream = disjunction_stream(32, 2, 300, seed=6)
    variables = hidden_disjunction(32, 2, 6)
    (winnow,) = race(stream, ("winnow",), variables=variables, trace=True)
    trace = winnow.trace
    assert trace is not None and trace.variables == variables
    assert trace.trials == (0, *winnow.mistake_trials)
    sim = Simulation.from_settings(stream, lab_settings("winnow"))
    sim.run(len(stream), until_converged=False)
    final = sim.weights
    assert [series[-1] for series in trace.relevant] == [final[v - 1] for v in variables]
    irrelevant = np.delete(final, [v - 1 for v in variables])
    assert trace.irrelevant_mean[-1] == pytest.approx(irrelevant.mean())
    assert (trace.irrelevant_min[-1], trace.irrelevant_max[-1]) == (
        irrelevant.min(),
        irrelevant.max(),
    )
    assert trace.threshold == 32.0
    # Winnow's weights move only by doubling and halving: powers of two.
    for series in trace.relevant:
        assert all(math.log2(w).is_integer() for w in series)


def test_at_n_2048_winnow_makes_far_fewer_mistakes_than_the_perceptron():
    n, r = 2048, 2
    stream = disjunction_stream(n, r, 600, seed=0)
    perceptron, winnow = race(stream, ("perceptron", "winnow"), variables=hidden_disjunction(n, r))
    ratio = perceptron.mistakes / winnow.mistakes
    print(f"\n  n = 2048: perceptron {perceptron.mistakes}, winnow {winnow.mistakes}, {ratio:.1f}x")
    assert winnow.mistakes <= winnow.bound < perceptron.mistakes
    assert ratio > 5


# -- a whole lab ----------------------------------------------------------------------------------


def test_run_lab_races_every_n_and_reports_progress_in_order():
    plan = LabPlan(sizes=(8, 64), relevant=2, examples=200, seed=1)
    seen = []
    told = []
    result = run_lab(
        plan, progress=lambda f, text: told.append(f), on_race=lambda r, s: seen.append(s)
    )
    assert [race.n for race in result.races] == [8, 64]
    assert [s.dimension for s in seen] == [8, 64]
    assert seen[1] == disjunction_stream(64, 2, 200, 1)
    assert result.races[1].variables == hidden_disjunction(64, 2, 1)
    assert told == sorted(told) and told[-1] == 1.0
    rows = result.rows()
    assert [(n, rule) for n, rule, *_ in rows] == [
        (n, rule) for n in (8, 64) for rule in ("perceptron", "winnow", "balanced-winnow")
    ]
    again = race(  # a plan runs until converged by default
        disjunction_stream(64, 2, 200, 1),
        variables=hidden_disjunction(64, 2, 1),
        until_converged=True,
    )
    assert [r.mistakes for r in again] == [r.mistakes for r in result.races[1].results]
    assert all(r.converged for r in result.races[1].results)


def test_a_lab_can_be_cancelled_between_mistakes():
    plan = LabPlan(sizes=(256,), relevant=2, examples=400)
    asked = []

    def stop():
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(LabCancelled):
        run_lab(plan, should_stop=stop)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sizes": ()}, "at least one n"),
        ({"sizes": (8, 8)}, "each n once"),
        ({"sizes": (1,)}, "need n ≥ r"),
        ({"rules": ("adaline",)}, "mistake-driven"),
        ({"rules": ()}, "at least one rule"),
        ({"seed": -1}, "seed"),
        ({"max_epochs": 0}, "max_epochs"),
    ],
)
def test_bad_plans_are_refused_clearly(kwargs, message):
    base = {"sizes": (8, 16), "relevant": 2, "examples": 10}
    with pytest.raises(ValueError, match=message):
        LabPlan(**{**base, **kwargs})
