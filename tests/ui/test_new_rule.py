"""Adding a learner is one class and one registration: it then appears in the engine, the
command line and the window without touching them."""

from typing import ClassVar

import numpy as np
import pytest

from simulator.cli import build_parser, parse
from simulator.engine import ALGORITHMS, Dataset, Parameter, Simulation, register
from simulator.engine.learners import Perceptron


class HalfStep(Perceptron):
    """A toy learner: the perceptron with half its step, w <- w + (η/2) y x."""

    name: ClassVar[str] = "half-step"
    title: ClassVar[str] = "Half-step perceptron"
    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter(
            "learning_rate", "η", "learning rate", default=1.0, minimum=0.0, exclusive_minimum=True
        ),
    )
    update_formula: ClassVar[str] = "w ← w + (η/2) y x"

    def step_size(self):
        return 0.5 * self.learning_rate


@pytest.fixture
def half_step():
    register(HalfStep)
    yield HalfStep
    del ALGORITHMS[HalfStep.name]


def test_a_registered_rule_runs_in_the_engine(half_step):
    sim = Simulation(Dataset([[1.0, 0.0]], [1]), "half-step", learning_rate=2.0)
    trial = sim.step()
    assert trial.mistake and np.array_equal(sim.weights, [1.0, 1.0, 0.0])


def test_a_registered_rule_is_offered_by_the_command_line(half_step):
    assert "half-step" in build_parser().format_help()
    invocation = parse(["--dataset", "or", "--algorithm", "half-step", "--eta", "0.5"])
    assert invocation.settings.algorithm == "half-step"
    assert invocation.settings.learning_rate == 0.5


def test_a_registered_rule_is_in_the_combo_box_with_its_parameters(half_step, qtbot):
    from simulator.ui import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    combo = window.controls.algorithm
    assert combo.findData("half-step") >= 0
    assert combo.itemText(combo.findData("half-step")) == "Half-step perceptron"
    combo.setCurrentIndex(combo.findData("half-step"))
    assert window.controller.settings.algorithm == "half-step"
    assert window.controls.rate.isVisible() and not window.controls.promotion.isVisible()
    window.controller.set_dataset(Dataset([[1.0, 0.0]], [1]))
    window.controller.step()
    assert "w ← w + (η/2) y x" in window.explanation.text()
    window.controller.undo_stack.setClean()
