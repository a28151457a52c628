"""Frames and the trial explanation (Qt-free: simulator.ui.frame imports no Qt)."""

from simulator.engine import Dataset, Simulation, load_preset
from simulator.ui.frame import build_frame, explain_trial


def test_the_explanation_uses_the_rules_own_eta():
    ds = Dataset([[2.0], [-1.0]], [1, -1])
    sim = Simulation(ds, "adaline")  # η by default 0.1; w = 0 + 0.1·(1 − 0)·(1, 2)
    sim.step()
    text = explain_trial(build_frame(sim))
    assert "w ← w + η (y − s) x = (0, 0) + 0.1·(1)·(1, 2) = (0.1, 0.2)." in text
    sim = Simulation(load_preset("or"), learning_rate=0.5)
    sim.step()
    assert "0.5·(−1)·(1, 0, 0) = (-0.5, 0, 0)" in explain_trial(build_frame(sim))


def test_the_explanation_of_winnow_shows_the_threshold_arithmetic():
    sim = Simulation(load_preset("or"), "winnow", bias=False)
    sim.step()
    sim.step()  # x = (0, 1), s = 1 − 2 = −1 < 0 on a positive: w2 doubles
    text = explain_trial(build_frame(sim))
    assert "s = w·x − θ = 1 − 2 = -1" in text and "mistake" in text
    assert "α = 2: (1, 1) → (1, 2)" in text
