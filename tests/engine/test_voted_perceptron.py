"""The voted perceptron against a hand trace and a plain-loop Freund–Schapire written here
in exact arithmetic; its training verdicts against the perceptron's; its counts through
runs that jump, seeks, sessions and the command line."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from simulator.cli import main
from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.session import load_session, save_session


def as_written(v):
    return Fraction(Decimal(repr(float(v))))


def freund_schapire(points, labels, trials, rate=1, tie="mistake"):
    """v₁ = 0, c₁ = 0; right: c += 1; a mistake (y·v·x ≤ 0 by the tie rule): a new
    v + η y x with c = 1. Cyclic order, bias first, the data as written."""
    xs = [[Fraction(1)] + [as_written(v) for v in p] for p in points]
    eta = as_written(rate)
    vectors, counts = [[Fraction(0)] * len(xs[0])], [0]
    for t in range(trials):
        x, y = xs[t % len(xs)], labels[t % len(xs)]
        s = sum(a * b for a, b in zip(vectors[-1], x, strict=True))
        wrong = y * s < 0 or (
            s == 0 and {"mistake": True, "positive": y < 0, "negative": y > 0}[tie]
        )
        if wrong:
            vectors.append([a + eta * y * b for a, b in zip(vectors[-1], x, strict=True)])
            counts.append(1)
        else:
            counts[-1] += 1
    return vectors, counts


def vote(vectors, counts, point):
    x = [Fraction(1)] + [as_written(v) for v in point]
    total = 0
    for v, c in zip(vectors, counts, strict=True):
        s = sum(a * b for a, b in zip(v, x, strict=True))
        total += c * ((s > 0) - (s < 0))
    return total


def test_the_vote_by_hand_on_or():
    """OR, bias first, η = 1, from v₁ = 0: trial 1 (0,0) −1 is a tie, a mistake: v₂ =
    (−1,0,0); trial 2 (0,1) +1 scores −1: v₃ = (0,0,1); trial 3 (1,0) +1 scores 0: v₄ =
    (1,1,1); trial 4 (1,1) +1 scores 3, right: c₄ = 2. The vote at (0,0): v₂ says −1 once,
    v₄ +1 twice, v₃ nothing (v₃·x = 0): +1. At (0,1): −1 + 1 + 2 = 2. At (−1,−1):
    −1 − 1 − 2 = −4. At (0.5,−0.5): v₂
    −1, v₃ −1, v₄ +2: a tie, which the tie rule decides."""
    sim = Simulation(load_preset("or"), "voted-perceptron")
    sim.run(4, until_converged=False)
    vectors, counts = sim.votes
    np.testing.assert_array_equal(vectors, [[0, 0, 0], [-1, 0, 0], [0, 0, 1], [1, 1, 1]])
    np.testing.assert_array_equal(counts, [0, 1, 1, 2])
    points = [[0, 0], [0, 1], [-1, -1], [0.5, -0.5]]
    np.testing.assert_array_equal(sim.decision(points), [1, 2, -4, 0])
    np.testing.assert_array_equal(sim.predict(points), [1, 1, -1, 0])  # tie "mistake": 0
    np.testing.assert_array_equal(sim.weights, [1, 1, 1])  # w is the current v
    assert dict(sim.learner_numbers()) == {"vectors voting": "3 of 4"}
    assert sim.trial(4).weights_after == sim.trial(4).weights_before  # a right trial
    tied = sim.features.transform(np.array([[0.5, -0.5]]))
    for tie, label in (("positive", 1), ("negative", -1)):
        assert sim.learner.predict(sim.learner_state, tied, tie)[0] == label


@pytest.mark.parametrize("name", ["or", "xor", "iris", "moons"])
@pytest.mark.parametrize("rate", [1.0, 0.1, 0.3])
def test_it_is_freund_and_schapire(name, rate):
    ds = load_preset(name)
    trials = 3 * len(ds) + 5
    vectors, counts = freund_schapire(ds.points.tolist(), ds.labels.tolist(), trials, rate)
    sim = Simulation(ds, "voted-perceptron", learning_rate=rate)
    sim.run(trials, until_converged=False)
    got_vectors, got_counts = sim.votes
    assert got_counts.tolist() == counts and got_counts.sum() == trials
    np.testing.assert_allclose(got_vectors, np.array(vectors, dtype=float), rtol=1e-12, atol=1e-12)
    rng = np.random.default_rng(0)
    probes = np.round(rng.uniform(-3, 8, size=(60, 2)), 1)
    exact = [vote(vectors, counts, p) for p in probes.tolist()]
    sure = [k for k, v in enumerate(exact) if v != 0]  # float signs near a line aside
    np.testing.assert_array_equal(sim.predict(probes)[sure], np.sign(exact)[sure])


@hypothesis_settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.sampled_from([-1, 1])),
        min_size=2,
        max_size=7,
    ),
    rate=st.sampled_from([1.0, 0.1, 0.7]),
    tie=st.sampled_from(["mistake", "positive", "negative"]),
)
def test_its_training_verdicts_are_the_perceptrons(data, rate, tie):
    """Exact as the perceptron's: the same mistakes, trial by trial, on decimal data."""
    ds = Dataset(np.array([[a / 10, b / 10] for a, b, _ in data]), np.array([c for *_, c in data]))
    voted = Simulation(ds, "voted-perceptron", learning_rate=rate, tie=tie)
    plain = Simulation(ds, "perceptron", learning_rate=rate, tie=tie)
    voted.run(40, until_converged=False)
    plain.run(40, until_converged=False)
    assert np.array_equal(voted.mistake_trials(), plain.mistake_trials())
    assert np.array_equal(voted.weights, plain.weights)
    _, counts = freund_schapire(ds.points.tolist(), ds.labels.tolist(), 40, rate, tie)
    assert voted.votes[1].tolist() == counts


@pytest.mark.parametrize("name", ["or", "xor", "noisy"])
def test_runs_that_go_on_past_convergence_or_a_cycle_count_every_trial(name):
    """A converged run (or) and a cycling one (xor) repeat their epochs, but the vote does
    not: `run` must not jump over them, and a seek must land on the stepped state."""
    ds = load_preset(name)
    ran = Simulation(ds, "voted-perceptron")
    ran.run(500, until_converged=False)
    stepped = Simulation(ds, "voted-perceptron")
    for _ in range(500):
        stepped.step()
    for a, b in zip(ran.votes, stepped.votes, strict=True):
        assert np.array_equal(a, b)
    assert ran.votes[1].sum() == 500
    if name == "or":
        assert ran.converged
    if name == "xor":
        assert ran.cycle_period == 1
        assert Simulation(ds, "voted-perceptron").run(500) == 4  # Run stops at the cycle
    ran.seek(137)
    again = Simulation(ds, "voted-perceptron")
    again.run(137, until_converged=False)
    for a, b in zip(ran.votes, again.votes, strict=True):
        assert np.array_equal(a, b)


def test_many_voters_vote_as_the_plain_sum():
    """After a long cycle on xor the vote holds many equal vectors, merged before voting."""
    ds = load_preset("xor")
    sim = Simulation(ds, "voted-perceptron")
    sim.run(400, until_converged=False)
    vectors, counts = sim.votes
    assert len(counts) > 64
    probes = np.random.default_rng(2).uniform(-1, 2, size=(50, 2))
    X = np.column_stack((np.ones(50), probes))
    expected = [sum(c * np.sign(v @ x) for v, c in zip(vectors, counts, strict=True)) for x in X]
    np.testing.assert_array_equal(sim.decision(probes), expected)


def test_its_bound_is_novikoffs_for_the_perceptrons_mistakes():
    ds = load_preset("separable")
    voted, plain = Simulation(ds, "voted-perceptron"), Simulation(ds)
    assert voted.bound == plain.bound and voted.bound.owner == "Novikoff's"
    voted.run(100_000)
    assert voted.converged and voted.mistakes <= voted.mistake_bound()


def test_it_draws_v_s_line_and_the_vote_s_curve():
    """The line of v, whose verdicts the run shows (the strip, the marks), as the perceptron
    draws it; and the vote's boundary, a level set of the vote, what it predicts."""
    from simulator.engine.drawables import LevelSet, Line

    sim = Simulation(load_preset("moons"), "voted-perceptron")
    assert not sim.learner.curved and not sim.learner.drawables(sim.learner_state, sim.features)
    sim.run(120, until_converged=False)
    line, vote = sim.learner.drawables(sim.learner_state, sim.features)
    assert isinstance(line, Line) and line.role == "boundary"
    plain = Simulation(load_preset("moons"))
    plain.run(120, until_converged=False)
    assert line == plain.learner.drawables(plain.learner_state, plain.features)[0]
    assert isinstance(vote, LevelSet) and vote.role == "vote" and vote.stepped
    grid = np.random.default_rng(1).uniform(-1.5, 2.5, size=(100, 2))
    np.testing.assert_array_equal(vote.score(grid), sim.decision(grid))
    (before,) = sim.learner.drawables(sim.learner_state, sim.features, role="previous")
    assert isinstance(before, Line) and before.role == "previous"


def test_a_session_brings_its_vote_back(tmp_path):
    ds = load_preset("moons")
    settings = Settings("voted-perceptron", learning_rate=0.5)
    sim = Simulation.from_settings(ds, settings)
    sim.run(333, until_converged=False)
    path = tmp_path / "voted.lab.json"
    save_session(path, ds, sim.settings, sim.trials)
    session = load_session(path)
    again = Simulation.from_settings(session.dataset, session.settings)
    again.run(session.trial, until_converged=False)
    for a, b in zip(again.votes, sim.votes, strict=True):
        assert np.array_equal(a, b)


def test_export_draws_its_run(tmp_path):
    out = tmp_path / "frames"
    argv = ["export", "--dataset", "moons", "--algorithm", "voted-perceptron", "--trials", "6",
            "--out", str(out), "--size", "320x240", "--explain"]  # fmt: skip
    assert main(argv) == 0
    assert len(list(out.glob("frame_*.png"))) == 7
