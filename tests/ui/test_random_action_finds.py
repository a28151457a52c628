"""Crashes the random-action test (test_random_actions.py) found, each pinned by a small
test of its own."""

import numpy as np
import pytest

from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.presentation.trace import trace_of


@pytest.mark.parametrize("algorithm", ["multiclass-perceptron", "kessler"])
def test_the_proof_chart_follows_a_multiclass_run_as_kesslers_vector(algorithm):
    """Charts shown, a multiclass learner on separable data: np.dot(W₀, u*) of a (K, n) W₀
    and Kessler's K·n-vector u* raised into Qt, and the followed weights did not fit a
    buffer n wide. W is followed as K·n numbers; A_k ≥ k, the proof's squeeze, holds."""
    simulation = Simulation.from_settings(load_preset("blobs3"), Settings(algorithm))
    simulation.run(50, until_converged=False)
    assert trace_of(simulation).followed(None, weights=False).proof.applies
    followed = trace_of(simulation).followed(None, weights=True)
    k, n = simulation.mistakes, simulation.initial_weights.size
    assert followed.weights.shape == (k, n) and n == 9
    along = followed.proof.along
    assert len(along) == k + 1 and np.all(along >= np.arange(k + 1) - 1e-9)


@pytest.mark.parametrize("tab", [0, 2])  # the proof chart, the loss-or-weights chart
def test_the_charts_of_a_multiclass_run_paint_with_no_error(qtbot, tab):
    """The weights chart took float() of a row of the (K, n) W₀: a TypeError into Qt."""
    from simulator.ui import MainWindow

    window = MainWindow(load_preset("blobs3"), Settings("multiclass-perceptron"))
    qtbot.addWidget(window)
    window.show()
    resort = window.install_last_resort()
    window.time.area_action.setChecked(True)
    window.time.tabs.setCurrentIndex(tab)
    window.controller.simulation.run(40)
    window.controller.step()
    qtbot.wait(20)
    resort.uninstall()
    window.controller.undo_stack.setClean()
    assert resort.errors == 0
    if tab == 2:
        chart = window.time.loss_chart
        assert chart.mode == "weights" and len(chart.weights) > 0


def test_a_point_of_a_new_class_under_a_multiclass_learner_starts_the_run_afresh(qtbot):
    """Multiclass perceptron on three classes, then Edit → Class of new points → Class 5:
    the edit kept the run of 3 rows going, `replace_dataset` refused 5 classes,
    and the refusal reached the last resort. A new number of classes starts a new run, as a
    new number of coordinates does; Undo brings back the three classes."""
    from simulator.ui import MainWindow

    window = MainWindow(load_preset("blobs3"), Settings("multiclass-perceptron"))
    qtbot.addWidget(window)
    resort = window.install_last_resort()
    c = window.controller
    c.step()
    assert c.use_classes(5)  # what Class 5 does before its first point
    resort.uninstall()
    assert resort.errors == 0
    assert c.dataset.classes == (0, 1, 2, 3, 4) and c.simulation.trials == 0
    assert c.simulation.state.shape[0] == 5
    c.undo_stack.undo()
    assert c.dataset == load_preset("blobs3") and c.simulation.state.shape[0] == 3
    c.undo_stack.setClean()


def test_the_voted_perceptron_is_followed_after_each_mistake():
    """Voted perceptron, the proof chart shown: its bound is Novikoff's (`proof`), but the
    trace followed only learners driven by mistakes (its counts grow on every trial), so
    the proof applied with no A_k at all and np.max of the empty A_k raised into Qt. Its v
    moves on mistakes only: v is followed, A_k ≥ k as for the perceptron."""
    simulation = Simulation.from_settings(load_preset("or"), Settings("voted-perceptron"))
    simulation.run(20, until_converged=False)
    followed = trace_of(simulation).followed(None, weights=False)
    k = simulation.mistakes
    assert followed.proof.applies and k > 0
    assert followed.weights is not None and followed.weights.shape == (k, 3)
    along = followed.proof.along
    assert len(along) == k + 1 and np.all(along >= np.arange(k + 1) - 1e-9)


def test_a_proof_of_a_learner_not_followed_does_not_apply(monkeypatch):
    """What is not followed has no A_k: the proof says so instead of applying empty."""
    from simulator.engine.learners.voted import VotedPerceptron

    monkeypatch.setattr(VotedPerceptron, "moves_on_mistakes_only", property(lambda _: False))
    simulation = Simulation.from_settings(load_preset("or"), Settings("voted-perceptron"))
    simulation.run(20, until_converged=False)
    followed = trace_of(simulation).followed(None)
    assert followed.weights is None and not followed.proof.applies
    assert "not followed" in (followed.proof.reason or "")


def test_the_proof_chart_of_the_voted_perceptron_paints_with_no_error(qtbot):
    from simulator.ui import MainWindow

    window = MainWindow(load_preset("or"), Settings("voted-perceptron"))
    qtbot.addWidget(window)
    window.show()
    resort = window.install_last_resort()
    window.time.area_action.setChecked(True)
    window.time.tabs.setCurrentIndex(0)
    window.controller.simulation.run(10, until_converged=False)
    window.controller.step()
    qtbot.wait(20)
    resort.uninstall()
    window.controller.undo_stack.setClean()
    assert resort.errors == 0
    assert len(window.time.proof_chart.table()[1]) == window.controller.simulation.mistakes + 1


@pytest.mark.parametrize("algorithm", ["multiclass-perceptron", "kessler"])
def test_a_multiclass_learner_from_a_random_w0_has_the_general_bound(algorithm):
    """Initial weights "random (seeded)" under a multiclass learner on three classes: the
    general bound took w₀·u* of the (K, n) W₀ and Kessler's K·n-vector u*, and the
    ValueError reached Qt at every change of the data. W₀ is read as K·n numbers."""
    settings = Settings(algorithm, initial_weights="random")
    simulation = Simulation.from_settings(load_preset("blobs3"), settings)
    bound = simulation.bound
    assert bound is not None and bound.general and np.isfinite(bound.value)
    simulation.run(10_000)
    assert simulation.converged and simulation.mistakes <= bound.value


@pytest.mark.parametrize("algorithm", ["winnow", "balanced-winnow"])
def test_a_winnow_promotion_that_overflows_stops_the_run_with_words(algorithm):
    # Random actions, shard 1, action 4220: α = 10⁶ and an input of 400 promote a weight
    # by 10²⁴⁰⁰; math.pow raised OverflowError (C's pow gives ∞) into Qt.
    parameters = {"promotion": 1e6} | ({"threshold": 1e12} if algorithm == "winnow" else {})
    ds = Dataset([[400.0, 1.0], [0.0, 1.0]], [1, -1])
    sim = Simulation(ds, algorithm, **parameters)
    sim.run(100)
    assert sim.diverged and "overflowed" in sim.divergence_reason
