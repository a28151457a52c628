"""Frames and the trial explanation (Qt-free: simulator.presentation.frame imports no Qt)."""

import numpy as np
import pytest

from simulator.engine import Dataset, Simulation, load_preset
from simulator.presentation.explain import explain
from simulator.presentation.frame import build_frame, explain_trial


def test_the_explanation_uses_the_rules_own_eta():
    ds = Dataset([[2.0], [-1.0]], [1, -1])
    sim = Simulation(ds, "adaline")  # η from the data: 1/R² = 1/5; w = 0 + 0.2·(1 − 0)·(1, 2)
    sim.step()
    text = explain_trial(build_frame(sim))
    assert "w ← w + η (y − s) x = (0, 0) + 0.2·(1)·(1, 2) = (0.2, 0.4)." in text
    sim = Simulation(load_preset("or"), learning_rate=0.5)
    sim.step()
    assert "0.5·(−1)·(1, 0, 0) = (−0.5, 0, 0)" in explain_trial(build_frame(sim))


def test_the_explanation_of_winnow_shows_the_threshold_arithmetic():
    sim = Simulation(load_preset("or"), "winnow", bias=False)
    sim.step()
    sim.step()  # x = (0, 1), s = 1 − 2 = −1 < 0 on a positive: w2 doubles
    text = explain_trial(build_frame(sim))
    assert "s = w·x − θ = 1 − 2 = −1" in text and "mistake" in text
    assert "α = 2: (1, 1) → (1, 2)" in text


def test_the_explanation_shows_a_snapped_tie_as_s_equal_0_with_its_tie_rule():
    # Iris, trial 38,167: the exact score is 0; floats compute -2.67e-12.
    sim = Simulation(load_preset("iris"))
    sim.run(38_167, until_converged=False)
    text = explain_trial(build_frame(sim))
    assert "s = w·x = 0: a tie, undecided (a mistake whatever y), <b>mistake</b>." in text
    assert "e-12" not in text
    winnow = Simulation(load_preset("and"), "winnow", bias=False)
    winnow.run(4)
    text = explain_trial(build_frame(winnow))
    assert "s = w·x − θ = 2 − 2 = 0: a tie, predicts +1 (+ iff s ≥ 0), correct." in text


def test_the_explanation_never_prints_a_refused_update_as_applied():
    # s = 1 + 300 - 1000 < 0 on a positive: w <- w * 10^(1, 300) would pass 1e150.
    sim = Simulation(Dataset([[300.0]], [1]), "winnow", promotion=10.0, threshold=1000.0)
    sim.step()
    text = explain_trial(build_frame(sim))
    assert "<b>mistake</b>" in text and "→" not in text
    assert "No update: the run stopped updating here (the status says why). w stays." in text
    assert "overflowed at trial 1" in build_frame(sim).status
    adaline = Simulation(load_preset("iris"), "adaline", learning_rate=0.5)
    adaline.run(10_000)
    adaline.step()  # after the divergence: Adaline no longer updates
    text = explain_trial(build_frame(adaline))
    assert "w ← w + η (y − s) x" not in text
    assert f"stopped updating at trial {adaline.diverged_at}" in text


def test_the_status_says_when_w_cycles():
    sim = Simulation(load_preset("xor"))
    sim.run(100)
    frame = build_frame(sim)
    assert frame.status == (
        "Cycling: w at the start of an epoch repeats every epoch (seen at trial 4), "
        "so it will never converge."
    )


def test_the_frame_carries_the_least_squares_line_of_a_least_squares_rule():
    from simulator.engine import FeatureMap

    ds = load_preset("separable")
    frame = build_frame(Simulation(ds, "adaline", preprocessing="standardize"))
    assert frame.least_squares is not None and frame.rule.least_squares
    w_ls = np.array(frame.least_squares.least_squares)
    expected = FeatureMap(ds, bias=True, preprocessing="standardize").input_line(w_ls)
    assert frame.least_squares_line == expected
    perceptron = build_frame(Simulation(ds))
    assert perceptron.least_squares is None and perceptron.least_squares_line is None


def test_the_status_names_the_first_conflict_without_listing_them_all(monkeypatch):

    points = [[0.0, 0.0]] * 6 + [[1.0, 1.0]] * 4
    labels = [1, -1, 1, -1, -1, 1, 1, -1, 1, -1]
    ds = Dataset(points, labels)
    assert ds.first_conflict() == ds.conflicting_pairs()[0] == (0, 1)
    assert Dataset([[0.0, 0.0], [1.0, 1.0]], [1, -1]).first_conflict() is None

    def listed(self):
        raise AssertionError("the frame asked for every conflicting pair")

    monkeypatch.setattr(Dataset, "conflicting_pairs", listed)
    frame = build_frame(Simulation(Dataset(points, labels)))
    assert "points 1 and 2 sit at the same place" in frame.status


@pytest.mark.parametrize(
    ("algorithm", "preset", "parameters"),
    [
        ("margin-perceptron", "separable", {"margin": 1.0}),
        ("perceptron", "noisy", {}),
        ("pocket", "noisy", {}),
        ("winnow", "or", {}),
        ("eg", "or", {}),
        ("kernel-perceptron", "ring", {"kernel": "rbf"}),
    ],
)
def test_a_trial_without_an_update_is_never_written_as_one(algorithm, preset, parameters):
    # The margin perceptron's 40th trial on `separable` (y·s = 2.269 > τ) was written as
    # "y·w·x ≤ τ: w ← w + η y x = …": the strip compared w before with the exact w shown.
    sim = Simulation(load_preset(preset), algorithm, **parameters)
    formula = sim.learner.update_formula
    for _ in range(80):
        trial = sim.step()
        text = explain(build_frame(sim)).update
        if not trial.updated:
            assert formula not in text, (trial.number, text)
