"""Crashes the random-action test (test_random_actions.py) found, each pinned by a small
test of its own."""

import numpy as np
import pytest

from simulator.engine import Settings, Simulation, load_preset
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
