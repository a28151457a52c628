"""Every number on the side panel equals the engine's for the same data and settings."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox

from simulator.engine import (
    ALGORITHMS,
    TIES,
    Dataset,
    Settings,
    Simulation,
    load_preset,
    margin_report,
)
from simulator.engine.numbers import format_number, format_vector, parse_number
from tests.helpers.views import plot_views


def number(label):
    return parse_number(label.text())  # true minus signs, ∞ and — included


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
        (panel.bound, engine.mistake_bound() if engine.bound_is_general else report.bound),
        (panel.margin, engine.current_margin()),
    ):
        shown = number(label)
        if math.isnan(value):
            assert label.text() == "—"
        elif math.isinf(value):
            assert label.text() == "∞"
        else:
            # The one formatter's 4 significant digits: within half a unit of the 4th (27 is
            # 27.00), and exactly the text it writes for the engine's number.
            assert shown == pytest.approx(value, rel=5e-4, abs=1e-12)
            assert label.text() == format_number(value)
    assert int(panel.mistakes.text()) == engine.mistakes
    assert int(panel.trial.text()) == engine.trials == trials
    assert int(panel.epoch.text()) == engine.epoch
    weights = [parse_number(v) for v in panel.weights.text().split(",")]
    np.testing.assert_allclose(weights, engine.weights, rtol=5e-4, atol=1e-12)
    assert panel.weights.text() == format_vector(engine.weights)


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
    assert "R²/γ*², Novikoff's mistake bound for Perceptron" in window.theory.gauge.toolTip()
    window.controller.update_settings(algorithm="balanced-winnow")
    assert window.theory.bound_label.text() == "Bound R²/γ*²"  # a number of the data
    assert parse_number(window.theory.bound.text()) == pytest.approx(27.0)
    assert window.theory.gauge_note.text() == "No mistake bound applies to Balanced Winnow here."
    window.controller.set_dataset(load_preset("disjunction"))  # boolean, an OR: Winnow's own
    window.controller.update_settings(algorithm="winnow")
    assert "2 + 3r(1 + log₂ n), Winnow's mistake bound for Winnow" in window.theory.gauge.toolTip()


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
    assert bound == "51387"  # R²/γ*² on iris, 51387.4 in the one formatter's digits
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
    from typing import ClassVar

    from simulator.engine import ALGORITHMS, Parameter, register
    from simulator.engine.learners import Perceptron
    from simulator.ui import MainWindow

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

        def value(self, name):
            return "online" if name == "mode" else super().value(name)

        @property
        def mode(self):
            return "online"

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
    from simulator.presentation.frame import build_frame

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


def _allowed(parameter):
    """Any value `parameter` accepts, or None (the rule's own) where Settings allows it."""
    numbers = st.floats(
        min_value=parameter.minimum,
        max_value=parameter.maximum,
        exclude_min=parameter.exclusive_minimum,
        allow_nan=False,
        allow_infinity=False,
    )
    if parameter.integer:  # a whole number (a polynomial kernel's degree)
        low = math.ceil(parameter.minimum) + (
            parameter.exclusive_minimum and parameter.minimum % 1 == 0
        )
        numbers = st.integers(min_value=low, max_value=math.floor(parameter.maximum))
    return st.none() | numbers if getattr(Settings(), parameter.name) is None else numbers


_NUMERIC_RULES = [
    name for name, rule in ALGORITHMS.items() if any(not p.choices for p in rule.parameters)
]


@hypothesis_settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_every_number_box_shows_exactly_the_value_the_run_uses(qtbot, window, data):
    """For any value a rule's Parameter accepts, the box shows the number `frame.rule` uses
    (no clamping, no rounding), and Enter on it applies that very number: nothing changes."""
    c = window.controller
    if not len(c.dataset):
        c.set_dataset(load_preset("or"))
    name = data.draw(st.sampled_from(_NUMERIC_RULES), label="rule")
    numeric = [p for p in ALGORITHMS[name].parameters if not p.choices]
    values = {p.name: data.draw(_allowed(p), label=p.name) for p in numeric}
    assert c.set_settings(Settings(algorithm=name, **values))
    frame = c.frame
    for parameter in numeric:
        box = window.controls.boxes[parameter.name]
        used = frame.rule.value(parameter.name)
        assert box.isVisibleTo(window)
        assert box.value() == used and float(box.text()) == used
        assert (box.parameter.minimum, box.parameter.maximum) == (
            parameter.minimum,
            parameter.maximum,
        )
    before = c.settings
    for parameter in numeric:
        box = window.controls.boxes[parameter.name]
        box.setFocus()
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert c.settings == before and not c.running and c.simulation is not None


def test_the_finding_case_winnow_with_a_large_alpha_and_a_tiny_theta(window):
    window.controller.set_dataset(load_preset("or"))
    window.controller.set_settings(Settings(algorithm="winnow", promotion=200, threshold=0.0004))
    controls = window.controls
    assert (controls.promotion.text(), controls.threshold.text()) == ("200", "0.0004")
    assert "α > 1 and α ≤ 1e+06" in controls.promotion.toolTip()  # the Parameter's own range


def test_enter_in_a_number_box_applies_it_and_does_not_run(qtbot, window):
    c = window.controller
    c.set_dataset(load_preset("or"))
    box = window.controls.rate
    box.setFocus()
    box.lineEdit().setText("0.25")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert c.settings.learning_rate == 0.25 and c.simulation.trials == 0 and not c.running
    box.lineEdit().setText("-1")  # refused: back to the value in use
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert c.settings.learning_rate == 0.25 and box.text() == "0.25"
    box.lineEdit().setText("")  # empty: the rule's own
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert c.settings.learning_rate is None and box.value() == 1.0
    c.update_settings(algorithm="adaline")  # Adaline derives η from the data
    assert window.controls.parameter_labels["learning_rate"].text() == "η (auto)"
    assert box.value() == c.frame.rule.learning_rate


def test_the_arrows_step_within_the_parameters_range(qtbot, window):
    c = window.controller
    c.set_settings(Settings(algorithm="winnow", promotion=1.1))
    box = window.controls.promotion
    box.stepBy(1)
    assert c.settings.promotion == 1.2
    box.stepBy(-2)  # 1.0 is not allowed (α > 1): nothing happens
    assert c.settings.promotion == 1.2
    box.stepBy(-1)
    assert c.settings.promotion == 1.1 and box.text() == "1.1"
    assert not box.stepEnabled() & QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
    assert box.stepEnabled() & QAbstractSpinBox.StepEnabledFlag.StepUpEnabled


def test_the_tie_control_names_the_rules_default_and_sets_the_tie(window):
    c, combo = window.controller, window.controls.tie
    assert combo.objectName() == "tieCombo"
    assert [combo.itemData(i) for i in range(combo.count())] == [None, *TIES]
    assert combo.itemText(0) == "rule's default (mistake)"
    for tie, words in (
        ("mistake", "a mistake whatever y"),
        ("positive", "s ≥ 0"),
        ("negative", "s > 0"),
    ):
        assert words in combo.itemText(combo.findData(tie))
    c.set_dataset(Dataset([[1.0, 1.0]], [1]))  # from w = 0 the first score is 0: a tie
    c.step()
    assert c.frame.snapshot.last_trial.mistake  # the perceptron's own: a tie is a mistake
    combo.setCurrentIndex(combo.findData("positive"))
    assert c.settings.tie == "positive" and c.simulation.trials == 0
    c.step()
    assert not c.frame.snapshot.last_trial.mistake  # + iff s ≥ 0: predicts +1, right
    combo.setCurrentIndex(combo.findData("negative"))
    c.step()
    assert c.frame.snapshot.last_trial.mistake and c.frame.snapshot.last_trial.prediction == -1
    window.controls.algorithm.setCurrentIndex(window.controls.algorithm.findData("winnow"))
    assert c.settings.tie is None and combo.currentIndex() == 0  # a new rule: its own tie
    assert combo.itemText(0) == "rule's default (positive)"


def test_the_start_w0_names_the_rules_own_default(window):
    initial = window.controls.initial
    assert initial.itemText(initial.findData("default")) == "rule's default (0)"
    window.controller.update_settings(algorithm="winnow")
    assert initial.itemText(initial.findData("default")) == "rule's default (1)"


def test_a_gamma_not_computed_says_why_in_its_tooltip(window):
    """Random labels on 200 points in 9 coordinates: not separable, and beyond the 8
    features where the hull's facets are affordable, so γ* is "—" and the tooltip says why."""
    rng = np.random.default_rng(4)
    ds = Dataset(rng.normal(size=(200, 9)), rng.choice([-1, 1], size=200))
    report = margin_report(ds, bias=True)
    assert math.isnan(report.gamma) and report.reason  # the premise
    window.controller.set_dataset(ds)
    assert window.theory.gamma.text() == "—"
    assert report.reason in window.theory.gamma.toolTip()
    window.controller.set_dataset(load_preset("or"))  # a γ* that is shown: no reason
    assert "Shown as —" not in window.theory.gamma.toolTip()


def test_the_panel_shows_the_learners_own_numbers(window):
    window.controller.set_dataset(load_preset("noisy"))
    window.controller.request_setting("algorithm", "pocket")
    for _ in range(5):
        window.controller.step()
    frame = window.controller.frame
    text = window.theory.learner_numbers.text()
    assert window.theory.learner_numbers.isVisibleTo(window.theory)
    for label, value in frame.learner_numbers:
        assert f"{label}: {value}" in text
    assert "pocket's training errors" in text
    window.controller.request_setting("algorithm", "perceptron")
    assert not window.theory.learner_numbers.isVisibleTo(window.theory)
