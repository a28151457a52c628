"""A mistake bound past the largest float is finite: it reads "> 1.8e308" (panel, gauge,
charts and the export header), not ∞, which says the data have no bound. And the views
ask the learner what applies (its `bound`, an object with formula, owner and the proof's
η), never its name."""

import ast
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from simulator.engine import ALGORITHMS, Dataset, Settings, Simulation, load_preset, register
from simulator.engine.learners import Parameter, Perceptron
from simulator.engine.learners.perceptron import LEARNING_RATE, novikoff_bound
from simulator.export.render import _header
from simulator.presentation.frame import build_frame, format_bound
from simulator.ui import MainWindow

# Separable (u = (0, 1), γ* = 1e-10) with R = 1e150: R²/γ*² = 1e320 overflows.
HUGE = Dataset([[1e150, 1e-10], [1e150, -1e-10]], [1, -1])
UNBOUND = "> 1.8e308"


def plain(rich: str) -> str:
    """What a rich-text caption shows, spaces unbroken or not."""
    doc = QTextDocument()
    doc.setHtml(rich)
    return doc.toPlainText().replace("\u00a0", " ")


def test_format_bound_tells_an_overflow_from_no_bound():
    assert f"> {sys.float_info.max:.1e}".replace("e+", "e") == UNBOUND
    assert format_bound(math.inf, True) == UNBOUND
    assert format_bound(math.inf, False) == "∞"  # not separable: k has no bound
    assert format_bound(27.0, True) == "27"
    assert format_bound(None, True) == "—" and format_bound(math.nan, False) == "—"


@pytest.fixture
def huge(qtbot):
    win = MainWindow(HUGE, Settings(bias=False))
    qtbot.addWidget(win)
    win.show()
    win.time.area_action.setChecked(True)
    yield win
    win.controller.undo_stack.setClean()


def test_an_overflowing_bound_reads_greater_than_the_largest_float(huge):
    sim = huge.controller.simulation
    report = sim.margin_report()
    assert report.separable and report.gamma > 0 and sim.mistake_bound() == math.inf
    huge.controller.step()
    assert huge.theory.bound.text() == UNBOUND
    assert huge.theory.gauge.text() == f"1 of at most {UNBOUND}"
    assert "Not linearly separable" not in huge.theory.status.text()
    proof = plain(huge.findChild(QLabel, "proofChartCaption").text())  # the first tab
    assert UNBOUND in proof and "∞" not in proof  # separable: Novikoff's proof applies
    huge.time.tabs.setCurrentIndex(1)
    huge.controller.step()
    caption = plain(huge.time.mistakes_chart.caption)
    assert UNBOUND in caption and "not linearly separable" not in caption


def test_the_export_header_writes_the_same_text(huge):
    frame = build_frame(huge.controller.simulation)
    texts = " ".join(left + " " + right for left, right in _header(frame, wide=True))
    assert f"R²/γ*² = {UNBOUND}" in texts and "∞" not in texts
    xor = build_frame(Simulation.from_settings(load_preset("xor"), Settings()))
    texts = " ".join(left + " " + right for left, right in _header(xor, wide=True))
    assert "R²/γ*² = ∞" in texts  # no bound at all: ∞ stays


# -- the views ask the rule class -------------------------------------------------------------


class Stepped(Perceptron):
    """The perceptron with η kept as `step`: only its bound tells the proof what η is."""

    name: ClassVar[str] = "stepped"
    title: ClassVar[str] = "Stepped perceptron"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE,)
    mode: ClassVar[str] = "online"

    @classmethod
    def build(cls, n_features, *, features=None, **parameters):
        rate = parameters.get("learning_rate")
        learner = cls()
        object.__setattr__(learner, "step", float(1.0 if rate is None else rate))
        return learner

    def value(self, name):
        return self.step if name == "learning_rate" else super().value(name)

    def step_size(self):
        return self.step

    def bound(self, theory):
        own = novikoff_bound(self, theory, self.step)
        return replace(own, formula="R²/γ*² (stepped)")

    def describe(self) -> str:
        return f"η = {self.step:g}"


@pytest.fixture
def stepped():
    register(Stepped)
    yield Stepped
    del ALGORITHMS[Stepped.name]


def test_a_new_novikoff_rule_gets_the_proof_with_its_own_eta(stepped, qtbot):
    eta = 0.25
    win = MainWindow(load_preset("separable"), Settings(algorithm="stepped", learning_rate=eta))
    qtbot.addWidget(win)
    win.show()
    win.time.area_action.setChecked(True)
    c = win.controller
    for _ in range(60):
        c.step()
    proof_along = win.time.proof_chart.along.data()[1]
    assert len(proof_along) >= 4  # a few mistakes to compare
    win.time.tabs.setCurrentIndex(1)  # the mistakes chart
    c.step()
    sim = c.simulation
    report = sim.margin_report()
    u = np.asarray(report.separator)
    w = np.vstack([sim.initial_weights, sim.weights_after_mistakes(1, sim.mistakes)])
    along = w @ u / (eta * report.gamma)  # A_k by hand, with the rule's own η
    np.testing.assert_allclose(proof_along, along[: len(proof_along)], rtol=1e-12)
    assert np.all(along >= np.arange(len(along)) - 1e-9)  # Novikoff's A_k ≥ k
    label = win.time.mistakes_chart.bound_line.label.format
    assert label.startswith("R²/γ*² (stepped) = ")  # the rule's own formula
    caption = plain(win.time.mistakes_chart.caption)
    assert "Stepped perceptron's mistake bound R²/γ*² (stepped) (Novikoff's)" in caption
    c.undo_stack.setClean()


SIMULATOR = Path(__file__).resolve().parents[2] / "simulator"
OUTSIDE_THE_LEARNERS = sorted(
    str(path.relative_to(SIMULATOR))
    for folder in ("presentation", "ui", "app", "export")
    for path in (SIMULATOR / folder).glob("*.py")
)


def _is_words(node: ast.expr) -> bool:
    """A string, or a tuple, list or set of them: what a learner's name or kind is."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_words(e) for e in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


@pytest.mark.parametrize("name", OUTSIDE_THE_LEARNERS)
def test_no_view_compares_a_bound_kind_or_reads_a_parameter_by_getattr(name):
    tree = ast.parse((SIMULATOR / name).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = (node.left, *node.comparators)
            words = any(_is_words(s) for s in sides)
            for side in sides:
                assert not (
                    words and isinstance(side, ast.Attribute) and side.attr in ("bound", "name")
                ), f"{name}:{node.lineno} compares rule.{side.attr} with a name"
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
            names = [a.value for a in node.args if isinstance(a, ast.Constant)]
            assert not {"learning_rate", "promotion", "threshold"} & set(names), (
                f"{name}:{node.lineno} reads a parameter by getattr"
            )
