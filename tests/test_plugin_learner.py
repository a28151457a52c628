"""A learner is one class and one registration: defined here, outside the package, as a
subclass of a shipped learner with a parameter of its own name, it runs through the
engine, the command line, export, a session round trip and the window, with no other edit.
"""

from typing import ClassVar

import numpy as np
import pytest

from simulator.cli import build_parser, main, parse
from simulator.engine import LEARNERS, Settings, Simulation, load_preset
from simulator.engine.learners import Parameter, Perceptron, register
from simulator.engine.session import load_session, save_session


class Nudged(Perceptron):
    """The perceptron with its step stretched: w ← w + η(1 + ν) y x."""

    name: ClassVar[str] = "nudged"
    title: ClassVar[str] = "Nudged perceptron"
    parameters: ClassVar[tuple[Parameter, ...]] = (
        *Perceptron.parameters,
        Parameter("nudge", "ν", "nudge", default=0.5, minimum=0.0, maximum=4.0,
                  help="stretches every step by 1 + ν"),
    )  # fmt: skip
    nudge: float

    def step_size(self) -> float:
        return self.learning_rate * (1.0 + self.nudge)


@pytest.fixture
def nudged():
    register(Nudged)
    yield Nudged
    del LEARNERS[Nudged.name]


def _weights(ds, **kwargs):
    sim = Simulation(ds, **kwargs)
    sim.run(40, until_converged=False)
    return sim


def test_the_engine_runs_it_with_its_own_parameter(nudged):
    ds = load_preset("separable")
    sim = _weights(ds, algorithm="nudged", nudge=0.25)
    assert sim.settings.parameters == {"nudge": 0.25}
    assert sim.learner.value("nudge") == 0.25
    plain = _weights(ds, learning_rate=1.25)  # the same steps, so the same weights
    np.testing.assert_array_equal(sim.weights, plain.weights)
    assert sim.bound is not None and sim.bound.rate == 1.25  # its bound knows its η
    with pytest.raises(ValueError, match="ν ≤ 4"):
        Simulation(ds, "nudged", nudge=9)


def test_the_command_line_offers_and_checks_it(nudged, capsys):
    assert "--nudge" in build_parser().format_help()
    command = parse(["--dataset", "or", "--algorithm", "nudged", "--nudge", "0.75"])
    assert command.settings.algorithm == "nudged"
    assert command.settings.parameters["nudge"] == 0.75
    with pytest.raises(SystemExit) as exit_info:
        parse(["--dataset", "or", "--algorithm", "nudged", "--nudge", "-1"])
    assert exit_info.value.code == 2 and "ν" in capsys.readouterr().err


def test_export_draws_its_run(nudged, tmp_path):
    out = tmp_path / "frames"
    argv = ["export", "--dataset", "or", "--algorithm", "nudged", "--nudge", "0.25",
            "--trials", "4", "--out", str(out), "--size", "320x240"]  # fmt: skip
    assert main(argv) == 0
    assert sorted(p.name for p in out.iterdir())[:2] == ["frame_00000.png", "frame_00001.png"]
    assert len(list(out.glob("frame_*.png"))) == 5


def test_a_session_keeps_it_by_name(nudged, tmp_path):
    ds = load_preset("separable")
    settings = Settings("nudged", nudge=0.25, learning_rate=0.5)
    sim = Simulation.from_settings(ds, settings)
    sim.run(30, until_converged=False)
    path = tmp_path / "nudged.lab.json"
    save_session(path, ds, settings, sim.trials, state=sim.state)
    session = load_session(path)
    assert session.settings == settings
    again = session.simulation()
    assert session.verify(again) is None
    np.testing.assert_array_equal(again.weights, sim.weights)


def test_the_window_has_its_box(nudged, qtbot):
    from simulator.ui import MainWindow

    window = MainWindow(load_preset("or"), Settings("nudged", nudge=0.25))
    qtbot.addWidget(window)
    controls = window.controls
    assert controls.algorithm.findData("nudged") >= 0
    box = controls.boxes["nudge"]
    assert box.isVisibleTo(window) and box.value() == 0.25
    box.setValue(1.5)
    assert window.controller.settings.parameters["nudge"] == 1.5
    assert window.controller.simulation.learner.step_size() == 2.5
    window.controller.undo_stack.setClean()
