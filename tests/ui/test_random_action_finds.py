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
