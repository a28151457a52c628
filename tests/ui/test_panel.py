"""Every number on the side panel equals the engine's for the same data and settings."""

import math

import numpy as np
import pytest

from simulator.engine import Dataset, Settings, Simulation, load_preset, margin_report
from tests.helpers.views import plot_views


def number(label):
    text = label.text()
    return {"∞": math.inf, "—": math.nan}.get(text) if text in ("∞", "—") else float(text)


CASES = [
    ("or", Settings()),
    ("and", Settings(bias=False)),
    ("xor", Settings()),
    ("iris", Settings(preprocessing="standardize")),
    ("separable", Settings(algorithm="winnow")),
    ("noisy", Settings(algorithm="adaline", learning_rate=0.05)),
    ("separable", Settings(initial_weights=(0.5, -1.0, 2.0), learning_rate=0.5)),
    ("separable", Settings(preprocessing="unit", order="random", seed=3)),
]


@pytest.mark.parametrize(("preset", "settings"), CASES)
@pytest.mark.parametrize("trials", [0, 1, 7, 500])
def test_side_panel_numbers_equal_the_engine(window, preset, settings, trials):
    ds = load_preset(preset)
    window.controller.set_settings(settings)
    window.controller.set_dataset(ds)
    if trials:
        window.controller.simulation.run(trials - 1, until_converged=False)
        window.controller.step()
    engine = Simulation.from_settings(ds, settings)
    engine.run(trials, until_converged=False)
    report = margin_report(ds, bias=settings.bias, preprocessing=settings.preprocessing)
    panel = window.theory
    for label, value in (
        (panel.gamma, report.gamma),
        (panel.radius, report.radius),
        (panel.bound, engine.mistake_bound() if engine.rule.bound == "novikoff" else report.bound),
        (panel.margin, engine.current_margin()),
    ):
        shown = number(label)
        if math.isnan(value):
            assert label.text() == "—"
        elif math.isinf(value):
            assert label.text() == "∞"
        else:
            # Agreement to 1e-5 means at least 5 significant digits are shown (27 is 27.0000).
            assert shown == pytest.approx(value, rel=1e-5, abs=1e-12)
    assert int(panel.mistakes.text()) == engine.mistakes
    assert int(panel.trial.text()) == engine.trials == trials
    assert int(panel.epoch.text()) == engine.epoch
    weights = [float(v) for v in panel.weights.text().split(",")]
    np.testing.assert_allclose(weights, engine.weights, rtol=1e-5, atol=1e-12)


def test_infinite_bound_and_not_separable_status(window):
    window.controller.set_dataset(load_preset("xor"))
    assert window.theory.bound.text() == "∞"
    assert "Not linearly separable" in window.theory.status.text()
    assert not window.theory.mistakes_bar.isEnabled()


def test_duplicate_points_with_opposite_labels_are_named(window):
    window.controller.set_dataset(Dataset([[0, 0], [1, 1], [1, 1]], [1, -1, 1]))
    assert "points 2 and 3 sit at the same place" in window.theory.status.text()  # from 1


def test_bound_row_is_the_datas_and_the_gauge_names_the_rules_own_bound(window):
    window.controller.set_dataset(load_preset("or"))
    assert window.theory.bound_label.text() == "Bound R²/γ*²"
    assert "R²/γ*², the mistake bound of Perceptron" in window.theory.gauge.toolTip()
    window.controller.update_settings(algorithm="balanced-winnow")
    assert window.theory.bound_label.text() == "Bound R²/γ*²"  # a number of the data
    assert float(window.theory.bound.text()) == pytest.approx(27.0)
    assert window.theory.gauge_note.text() == "No mistake bound applies to Balanced Winnow here."
    window.controller.set_dataset(load_preset("disjunction"))  # boolean, an OR: Winnow's own
    window.controller.update_settings(algorithm="winnow")
    assert "2 + 3r(1 + log₂ n), the mistake bound of Winnow" in window.theory.gauge.toolTip()


def test_mistake_gauge_shows_k_against_the_bound(window):
    window.controller.set_dataset(load_preset("or"))
    window.controller.simulation.run(100)
    window.controller.step()
    bar = window.theory.mistakes_bar
    assert bar.isEnabled() and bar.value() == round(1000 * 9 / 27)
    assert window.theory.gauge.isVisible() and not window.theory.gauge_note.isVisible()
    assert window.theory.gauge.text() == "9 of at most 27"


def test_the_gauge_writes_the_bound_as_the_bound_row_does(window):
    window.controller.set_dataset(load_preset("iris"))
    window.controller.simulation.run(1561)
    window.controller.step()
    bound = window.theory.bound.text()
    assert bound == "51387.4"  # R²/γ*² on iris, six significant digits
    k = window.controller.simulation.mistakes
    assert window.theory.gauge.text() == f"{k} of at most {bound}"


def test_the_gauge_shows_only_where_a_mistake_bound_applies(window):
    window.controller.set_dataset(load_preset("separable"))
    window.controller.update_settings(algorithm="adaline")
    window.controller.simulation.run(22163)
    window.controller.step()
    assert window.controller.frame.mistake_bound is None
    assert not window.theory.gauge.isVisible() and not window.theory.mistakes_bar.isVisible()
    assert window.theory.gauge_note.isVisible()
    assert window.theory.gauge_note.text() == "No mistake bound applies to Adaline here."
    window.controller.update_settings(algorithm="perceptron")
    assert window.theory.gauge.isVisible()


def test_the_rate_spin_shows_the_rate_the_rule_uses(qtbot):
    """A rule that derives η (Settings.learning_rate None) shows the η it uses, not a
    default written in the window."""
    from dataclasses import dataclass
    from typing import ClassVar

    from simulator.engine import ALGORITHMS, Parameter, register
    from simulator.engine.rules import Perceptron
    from simulator.ui import MainWindow

    @dataclass(frozen=True)
    class Derived(Perceptron):
        name: ClassVar[str] = "derived-rate"
        title: ClassVar[str] = "Derived-rate perceptron"
        parameters: ClassVar[tuple[Parameter, ...]] = (
            Parameter(
                "learning_rate",
                "η",
                "learning rate",
                default=None,
                minimum=0.0,
                exclusive_minimum=True,
                derived="0.0125 per feature",
            ),
        )

        @classmethod
        def build(cls, n_features, **parameters):
            rate = parameters.get("learning_rate")
            return cls(learning_rate=0.0125 * n_features if rate is None else float(rate))

    register(Derived)
    try:
        window = MainWindow(load_preset("or"), Settings(algorithm="derived-rate"))
        qtbot.addWidget(window)
        window.show()
        assert window.controller.frame.rule.learning_rate == pytest.approx(0.0375)
        assert window.controls.rate.value() == pytest.approx(0.0375)
        # Exactly the η in use, 0.0125·3 rounded as floats round: not 0.0375 (whose Enter
        # would apply another η).
        assert float(window.controls.rate.text()) == window.controller.frame.rule.learning_rate
        assert window.controls.rate.text() == "0.037500000000000006"
        assert window.controller.settings.learning_rate is None  # showing it set nothing
        window.controls.rate.setValue(0.5)
        assert window.controller.settings.learning_rate == 0.5
        window.controller.undo_stack.setClean()
    finally:
        del ALGORITHMS[Derived.name]


def test_tooltips_say_which_space_numbers_live_in(window):
    assert "constant 1" in window.theory.radius.toolTip()
    assert "constant 1" in window.theory.gamma.toolTip()


def test_adaline_shows_least_squares_and_stable_rates(window):
    window.controller.set_dataset(load_preset("separable"))
    window.controller.update_settings(algorithm="adaline")
    report = window.controller.simulation.adaline_report()
    text = window.theory.least_squares.text()
    assert window.theory.least_squares.isVisible() and text.startswith("Least squares: w_LS")
    assert f"{report.online_rate_limit:.4g}" in text and f"{report.batch_rate_limit:.4g}" in text


def test_empty_data_shows_undefined_numbers(window):
    for label in (
        window.theory.gamma,
        window.theory.radius,
        window.theory.bound,
        window.theory.margin,
    ):
        assert label.text() == "—"
    assert window.plot.hint_visible
    window.controller.add_point(0.5, 0.5, 1)
    assert not window.plot.hint_visible


def _calls_to_repaint_mistakes(view, n):
    """Python-level calls made by the plot to show a frame whose mistakes changed."""
    import sys

    from simulator.engine.presets import noisy
    from simulator.ui.frame import build_frame

    sim = Simulation(noisy(n=n, seed=2))
    view.show_frame(build_frame(sim))
    sim.run(50, until_converged=False)
    frame = build_frame(sim)
    assert frame.snapshot.misclassified.sum() > n // 10  # plenty of recolouring to do
    calls = 0

    def count(frame_, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        view.show_frame(frame)
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("sizes", [(300, 1_500), (3_000, 30_000)])
def test_recolouring_builds_no_per_point_python_objects(sizes):
    with plot_views() as make:
        small, large = (_calls_to_repaint_mistakes(make(), n) for n in sizes)
    # Five times the points, the same Python work (give or take a branch, such as whether
    # the last trial left a ghost arrow); per-point work would add thousands of calls.
    assert abs(large - small) <= 30, (small, large)
