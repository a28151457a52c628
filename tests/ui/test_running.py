"""Step, Run, Pause, Reset, Next mistake, Epoch: buttons, keyboard, and the run loop."""

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.presets import separable
from tests.helpers.driven import finish


def test_defaults_of_a_new_window(window):
    s = window.controller.settings
    assert (s.algorithm, s.bias, s.order, s.initial_weights) == ("perceptron", True, "cyclic", None)
    assert window.controls.rate.value() == 1.0
    assert window.controller.simulation.weights.tolist() == [0.0, 0.0, 0.0]
    assert (
        window.findChild(type(window.controls.algorithm), "algorithmCombo").currentData()
        == "perceptron"
    )


def test_empty_data_disables_step_with_a_hint_and_keys_do_nothing(qtbot, window):
    assert not window.controls.step_button.isEnabled()
    assert "Place points" in window.controls.step_button.toolTip()
    qtbot.keyClick(window, Qt.Key.Key_Space)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert window.controller.simulation.trials == 0 and not window.controller.running
    assert "Empty data" in window.theory.status.text()


def test_step_button_and_space_run_one_trial_each(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    assert window.controls.step_button.isEnabled()
    qtbot.mouseClick(window.controls.step_button, Qt.MouseButton.LeftButton)
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert window.controller.simulation.trials == 2
    assert window.theory.trial.text() == "2"
    # The arithmetic of trial 2, x = (1, 0, 1), from w = (-1, 0, 0): s = -1, a mistake.
    text = window.explanation.text()
    assert "Trial 2" in text and "s = w·x = −1" in text and "mistake" in text
    assert "= (0, 0, 1)" in text


def test_run_until_converged_then_stops(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    qtbot.keyClick(window, Qt.Key.Key_Return)
    finish(window.controller)
    sim = window.controller.simulation
    assert sim.converged and sim.trials == 24 and sim.mistakes == 9
    assert window.controls.run_button.text() == "Run"
    assert "Converged at trial 24" in window.theory.status.text()


def test_pause_stops_a_long_run_and_run_returns_at_once(qtbot, window):
    c = window.controller
    c.set_dataset(load_preset("noisy"))  # never converges
    c.run()
    assert c.running and window.controls.run_button.text() == "Pause"
    c.advance(3)
    assert c.running and c.simulation.trials > 0
    qtbot.mouseClick(window.controls.run_button, Qt.MouseButton.LeftButton)
    assert not c.running and window.controls.run_button.text() == "Run"
    assert c.advance(10) == 0


def test_speed_limits_trials_per_tick(qtbot, window):
    c = window.controller
    c.set_dataset(load_preset("noisy"))
    window.controls.speed.setValue(0)  # 1 trial/s
    assert c.speed == 1.0 and window.controls.speed_text.text() == "1 /s"
    c.run()
    assert c.simulation.trials == 0  # the first trial comes after a second
    assert c.advance(2) == 2  # one trial per tick
    c.pause()
    assert c.advance(5) == 0  # paused: ticks do nothing
    window.controls.speed.setValue(window.controls.speed.maximum())
    assert math.isinf(c.speed) and window.controls.speed_text.text() == "max"


def test_a_fast_speed_runs_as_many_trials_as_the_clock_says(window):
    now = [0.0]  # seconds; binary fractions keep the arithmetic exact
    c = window.controller
    c.clock = lambda: now[0]
    c.set_dataset(load_preset("noisy"))
    c.set_speed(512)
    c.run()
    assert c.simulation.trials == 0  # no time has passed yet
    now[0] += 1 / 8
    assert c.advance(1) == 64
    now[0] += 1 / 1024  # half a trial: carried over to the next tick
    assert c.advance(1) == 0
    now[0] += 1 / 1024
    assert c.advance(1) == 1 and c.simulation.trials == 65


def test_next_mistake_and_epoch_keys(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    window.controller.step()  # trial 1 is a mistake; w = (-1, 0, 0)
    qtbot.keyClick(window, Qt.Key.Key_N)
    finish(window.controller)
    sim = window.controller.simulation
    assert sim.trials == 2 and sim.mistakes == 2
    qtbot.keyClick(window, Qt.Key.Key_E)
    finish(window.controller)
    assert sim.trials == 4  # the end of epoch 1
    qtbot.keyClick(window, Qt.Key.Key_N)
    finish(window.controller)
    assert sim.trials == 5 and sim.trial(5).mistake  # (0,0) is next wrong, by hand


def test_next_mistake_after_convergence_says_so(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    window.controller.simulation.run(1000)
    with qtbot.waitSignal(window.controller.message) as blocker:
        window.controller.next_mistake()
    assert "no more mistakes" in blocker.args[0]


def test_reset_goes_back_to_trial_zero_and_keeps_the_points(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    window.controller.simulation.run(10)
    window.controller.step()
    qtbot.mouseClick(window.controls.reset_button, Qt.MouseButton.LeftButton)
    assert window.controller.simulation.trials == 0
    assert window.controller.dataset == load_preset("or")
    assert window.theory.trial.text() == "0" and window.theory.weights.text() == "0, 0, 0"


def test_divergence_pauses_with_a_message(qtbot, window):
    window.controller.set_dataset(load_preset("iris"))
    window.controller.set_settings(Settings(algorithm="adaline", learning_rate=0.5))
    with qtbot.waitSignal(window.controller.problem) as blocker:  # told within the ticks
        window.controller.run()
        finish(window.controller)
    assert "diverged" in blocker.args[0] and "η = 0.5 is too large" in blocker.args[0]
    assert window.theory.status.text().startswith("Diverged")
    assert "diverged" in window.statusBar().currentMessage()
    assert len(window.controller.dataset) == 150


@pytest.mark.parametrize(
    ("widget", "change", "check"),
    [
        (
            "algorithm",
            lambda c: c.algorithm.setCurrentIndex(c.algorithm.findData("winnow")),
            lambda sim: sim.rule.name == "winnow" and sim.threshold == 3.0,
        ),
        ("rate", lambda c: c.rate.setValue(0.25), lambda sim: sim.rule.learning_rate == 0.25),
        ("bias", lambda c: c.bias.setChecked(False), lambda sim: sim.feature_matrix.shape[1] == 2),
        ("order", lambda c: c.order.setCurrentIndex(1), lambda sim: sim.settings.order == "random"),
        ("seed", lambda c: c.seed.setValue(42), lambda sim: sim.settings.seed == 42),
        (
            "preprocessing",
            lambda c: c.preprocessing.setCurrentIndex(1),
            lambda sim: sim.settings.preprocessing == "standardize",
        ),
        (
            "initial",
            lambda c: c.initial.setCurrentIndex(c.initial.findData("random")),
            lambda sim: np.any(sim.weights != 0),
        ),
    ],
)
def test_parameter_changes_take_effect_and_restart(window, widget, change, check):
    window.controller.set_dataset(load_preset("separable"))
    window.controller.step()
    change(window.controls)
    sim = window.controller.simulation
    assert check(sim)
    assert sim.trials == 0


def test_winnow_parameters_and_custom_initial_weights(window):
    controls, c = window.controls, window.controller
    c.set_dataset(load_preset("or"))
    controls.algorithm.setCurrentIndex(controls.algorithm.findData("winnow"))
    assert controls.promotion.isVisible() and controls.threshold.isVisible()
    assert not controls.rate.isVisible()
    controls.promotion.setValue(3.0)
    controls.threshold.setValue(1.5)
    assert c.simulation.rule.promotion == 3.0 and c.simulation.threshold == 1.5
    controls.algorithm.setCurrentIndex(controls.algorithm.findData("perceptron"))
    controls.initial.setCurrentIndex(controls.initial.findData("custom"))
    controls.initial_edit.setText("0.5, -1, 2")
    controls.initial_edit.editingFinished.emit()
    assert c.simulation.weights.tolist() == [0.5, -1.0, 2.0]
    assert window.theory.bound_label.text() == "Bound from w₀"


def test_refused_settings_are_reported_and_not_applied(qtbot, window):
    controls, c = window.controls, window.controller
    c.set_dataset(load_preset("or"))
    controls.initial.setCurrentIndex(controls.initial.findData("custom"))
    with qtbot.waitSignal(c.problem) as blocker:
        controls.initial_edit.setText("1, 2")  # three weights needed
        controls.initial_edit.editingFinished.emit()
    assert "shape (3,)" in blocker.args[0]
    assert c.settings.initial_weights is None
    assert controls.initial.currentData() == "default"  # the widgets went back


def test_widgets_refuse_absurd_values(window):
    controls = window.controls
    controls.rate.setValue(-3.0)
    assert controls.rate.value() > 0
    controls.algorithm.setCurrentIndex(controls.algorithm.findData("winnow"))
    controls.promotion.setValue(0.5)
    assert controls.promotion.value() > 1


def test_a_run_on_100k_points_is_chunked(window):
    big = separable(n=100_000, margin=0.002, seed=3)
    c = window.controller
    c.tick_budget = 0.0  # a tick ends at its first update, however fast the machine is
    c.set_speed(math.inf)
    c.set_dataset(big)
    c.run()
    assert c.running  # run() returned after one tick, not at the end
    first = c.simulation.trials
    assert 0 < first < len(big)
    assert 0 < c.advance(1) < len(big) and c.running
    c.tick_budget = 0.05
    finish(c)
    assert c.simulation.converged
    reference = Simulation(big)
    reference.run(10**9)
    assert np.array_equal(reference.weights, c.simulation.weights)


def test_run_stops_when_a_tick_fails_and_keeps_the_points(qtbot, window, monkeypatch):
    c = window.controller
    c.set_dataset(load_preset("noisy"))
    c.set_speed(1)
    c.run()

    def broken(*args, **kwargs):
        raise RuntimeError("engine bug")

    monkeypatch.setattr(c.simulation, "run", broken)
    with qtbot.capture_exceptions() as raised, qtbot.waitSignal(c.problem) as told:
        c.advance(1)
    assert [type(e[1]) for e in raised] == [RuntimeError]
    assert "engine bug" in told.args[0] and not c.running
    assert c.dataset == load_preset("noisy")


def test_one_class_alone_trains(window):
    window.controller.set_dataset(Dataset([[0.5, 0.5], [1.0, 0.2]], [1, 1]))
    window.controller.set_speed(math.inf)
    window.controller.run()
    assert window.controller.simulation.converged
    assert "One class" in window.theory.status.text() or "Converged" in window.theory.status.text()


@pytest.mark.slow  # a long run measured by tracemalloc
def test_reset_frees_the_old_history(window):
    import gc
    import weakref

    c = window.controller
    c.set_dataset(load_preset("noisy"))
    c.simulation.run(20_000)
    c.step()  # announces and publishes the long run, as a Run would
    old = weakref.ref(c.simulation)
    assert old().history_nbytes > 0
    c.reset()
    gc.collect()
    assert old() is None and c.simulation.trials == 0


def test_run_on_xor_stops_where_w_cycles_and_says_it_never_converges(qtbot, window):
    c = window.controller
    c.set_dataset(load_preset("xor"))
    with qtbot.waitSignal(c.problem) as told:
        c.run()
        finish(c)
    sim = c.simulation
    period, found = sim.cycle_period, sim.cycle_found_at
    assert period is not None and found is not None and sim.trials == found
    assert not sim.converged and sim.trials < 1000  # not 197,936 mistakes and counting
    epochs = "1 epoch" if period == 1 else f"{period} epochs"
    assert f"w cycles with period {epochs}" in told.args[0]
    assert "never converge" in told.args[0]
    assert "never converge" in window.theory.status.text()
    # By hand: w at the start of epoch e + P is w at the start of epoch e.
    n = len(c.dataset)
    assert sim.trials % n == 0
    earlier = sim.trial(sim.trials - period * n + 1).weights_before
    assert tuple(sim.weights.tolist()) == earlier
    with qtbot.waitSignal(c.message) as again:
        c.run()  # a second Run says so at once instead of spinning
    assert "never converge" in again.args[0] and not c.running
    mistakes = sim.mistakes
    c.next_mistake()  # the cycle goes on, mistakes included
    finish(c)
    assert sim.mistakes == mistakes + 1 and sim.trial(sim.trials).mistake


def test_a_settings_change_or_reset_does_not_compute_gamma_again(window, monkeypatch):
    """γ* of 300 points in 8-D takes seconds: the same data keep their report."""
    from simulator.engine import simulation as simulation_module

    controller = window.controller
    controller.set_dataset(separable(n=40, seed=3))
    report = controller.simulation.margin_report()
    asked = []
    real = simulation_module.margin_report_for
    monkeypatch.setattr(
        simulation_module, "margin_report_for", lambda *a, **k: asked.append(1) or real(*a, **k)
    )
    assert controller.update_settings(learning_rate=0.5, order="random", seed=5)
    controller.step()
    controller.reset()
    assert controller.simulation.margin_report() is report and asked == []
    assert controller.update_settings(bias=False)  # other features: computed again
    assert asked == [1] and controller.simulation.margin_report() is not report


@pytest.mark.parametrize("change", ["settings", "reset", "data"])
def test_news_of_the_old_run_goes_when_the_run_restarts(window, change):
    """ "Converged at trial 24." must not stay beside a panel that shows trial 0."""
    c = window.controller
    c.set_dataset(load_preset("or"))
    c.message.emit("Converged at trial 24.")  # as a finished run says it
    assert window.statusBar().currentMessage() == "Converged at trial 24."
    if change == "settings":
        c.set_settings(Settings(algorithm="balanced-winnow"))
    elif change == "reset":
        c.reset()
    else:
        c.set_dataset(load_preset("and"))
    assert window.statusBar().currentMessage() == ""
