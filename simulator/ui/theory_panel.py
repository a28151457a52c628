"""`TheoryPanel`: the theory's numbers, k against the bound, trial, epoch, w and status.

It paints a `Frame`: γ*, the margin of w, R, the bound, k against the bound, trial, epoch,
w and the status.

Numbers are plain text a test can parse: at least 4 significant digits, ∞ where
unbounded, — where undefined; a bound past the largest float reads "> 1.8e308" (it is
finite: the data are separable), written by `frame.format_bound` here and in exports.

Decisions a teacher will notice:

- Every value keeps the room of its longest possible text (`ValueLabel`), so the panel
  neither jumps as numbers change nor cuts one off; the status line sits under the
  numbers, so its length never moves them.
- The gauge "k of at most B" shows only where a mistake bound applies to the rule
  (`Frame.mistake_bound` is not None), with B written exactly as the Bound row writes it;
  elsewhere one line says that no bound applies.
- Presentation mode (`set_presentation`): every label and value at least
  `style.PRESENTATION_LABEL_PX` pixels tall, the rule named on top.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from simulator.engine.numbers import DIGITS, bound_formula
from simulator.presentation.frame import Frame, format_bound, format_number, format_vector
from simulator.ui.value_label import WIDEST_COUNT, WIDEST_NUMBER, ValueLabel, label_font, value_font

__all__ = ["TheoryPanel"]

GAUGE_RESERVE = "88888 of at most 888888"  # the gauge's room until a longer text comes


MAX_WEIGHTS_SHOWN = 12  # beyond (d > 2), the high-dimensional view's bars show them all


def _weights_text(weights: tuple[float, ...] | None, digits: int = DIGITS, rows: int = 1) -> str:
    """w as numbers (the rows of W with "|" between them); past MAX_WEIGHTS_SHOWN, the
    first ones and how many there are."""
    if weights is not None and rows > 1 and len(weights) <= MAX_WEIGHTS_SHOWN:
        width = len(weights) // rows
        return " | ".join(
            format_vector(weights[k * width : (k + 1) * width], digits) for k in range(rows)
        )
    if weights is None or len(weights) <= MAX_WEIGHTS_SHOWN:
        return format_vector(weights, digits)
    shown = format_vector(weights[:MAX_WEIGHTS_SHOWN], digits)
    return shown + f", … ({len(weights):,} in all)"


WEIGHT_RESERVE = "−8.888,"  # the widest word of w's text (the panel's width does not jump)


_SPACE = " (in feature space; with bias it includes the constant 1)"
_GAMMA_TIP = (
    "γ* = max over unit u of min yᵢ u·xᵢ: the best margin of any separator through "
    "the origin" + _SPACE + ". ≤ 0 means not linearly separable."
)
# The values: attribute, objectName, tooltip, the room kept (`ValueLabel`), wrapped.
_VALUES = (
    ("gamma", "gammaValue", _GAMMA_TIP, WIDEST_NUMBER, False),
    (
        "margin",
        "marginValue",
        "The current w's margin: min yᵢ (w·xᵢ − θ)/‖w‖, negative while it errs",
        WIDEST_NUMBER,
        False,
    ),
    ("radius", "radiusValue", "R = max ‖xᵢ‖" + _SPACE, WIDEST_NUMBER, False),
    (
        "bound",
        "boundValue",
        "Block–Novikoff: from w₀ = 0 the perceptron "
        "makes at most R²/γ*² mistakes, in any order, for any η",
        WIDEST_NUMBER,
        False,
    ),
    ("mistakes", "mistakesValue", "Mistakes k so far", WIDEST_COUNT, False),
    (
        "gauge",
        "gaugeValue",
        "k against the mistake bound that applies to this rule",
        GAUGE_RESERVE,
        True,
    ),
    ("trial", "trialValue", "Trials so far", WIDEST_COUNT, False),
    (
        "epoch",
        "epochValue",
        "Epoch of the latest trial (one pass = one epoch)",
        WIDEST_COUNT,
        False,
    ),
    (
        "weights",
        "weightsValue",
        "w in feature order (bias weight first)",
        WEIGHT_RESERVE,
        True,
    ),
    (
        "least_squares",
        "leastSquaresValue",
        "Least squares, and learning rates sufficient (not necessary) for stability: online "
        "η < 2/R², batch η < 2/λ_max(XᵀX)",
        "Least squares: w_LS = (-8.888e-88, -8.888e-88, -8.888e-88)\n"
        "sufficient for stability: online η < 8.888e-88, batch η < 8.888e-88",
        True,
    ),
)
# The names of the values that have a label of their own.
_LABELS = {
    "gamma": "Data margin γ*",
    "margin": "Margin of w",
    "radius": "Radius R",
    "mistakes": "Mistakes k",
    "trial": "Trial",
    "epoch": "Epoch",
    "weights": "w =",
}


def _two_bounds(frame: Frame) -> bool:
    """Whether the panel shows two different bounds: the data's R²/γ*² (the perceptron's,
    Novikoff's) and the learner's own (Winnow's 2 + 3r(1 + log₂ n), …), which must then
    each say whose it is."""
    own = frame.bound
    return (
        own is not None
        and not own.general
        and own.formula != bound_formula(frame)
        and len(frame.dataset) > 0
    )


class TheoryPanel(QWidget):
    """γ*, margin of w, R, the bound, k against the bound, trial, epoch, w and the status."""

    # Made from `_VALUES`.
    gamma: ValueLabel
    margin: ValueLabel
    radius: ValueLabel
    bound: ValueLabel
    mistakes: ValueLabel
    gauge: ValueLabel
    trial: ValueLabel
    epoch: ValueLabel
    weights: ValueLabel
    least_squares: ValueLabel

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.rule_title = QLabel(objectName="ruleValue")
        self.rule_title.setWordWrap(True)
        self.rule_title.hide()  # presentation mode only: the learner settings are hidden
        layout.addWidget(self.rule_title)
        theory = QGroupBox("Theory (feature space)")
        self.theory_box = theory
        theory.setToolTip(
            "Numbers live in feature space: with bias x = (1, p₁, p₂), "
            "so R and γ include the constant 1."
        )
        self._gamma_tip = _GAMMA_TIP
        for attribute, name, tip, reserve, wrap in _VALUES:
            setattr(self, attribute, ValueLabel(name, tip, reserve, wrap=wrap))
        self.bound_label = QLabel("Bound R²/γ*²", objectName="boundLabel")
        self.bound_label.setWordWrap(True)  # "Bound from w₀" may take two lines
        self.mistakes_bar = QProgressBar(objectName="mistakesBar")
        self.mistakes_bar.setRange(0, 1000)
        self.mistakes_bar.setTextVisible(False)
        self.mistakes_bar.setFixedHeight(10)
        self.mistakes_bar.setMinimumWidth(40)
        self.mistakes_bar.setToolTip("k against the mistake bound")
        self.learner_numbers = QLabel(objectName="learnerNumbers")
        self.learner_numbers.setWordWrap(True)
        self.learner_numbers.hide()
        self.gauge_note = QLabel(objectName="gaugeNote")
        self.gauge_note.setWordWrap(True)
        self._reserve_key: tuple[object, ...] | None = None
        self.labels = {name: QLabel(text) for name, text in _LABELS.items()}
        self._lay_out(QFormLayout(theory))
        layout.addWidget(theory)
        # Under the numbers, so a longer or shorter status never moves them.
        self.status = QLabel(objectName="statusValue")
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        self._presentation = False
        self.set_presentation(False)

    def _lay_out(self, form: QFormLayout) -> None:
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.labels["gamma"], self.gamma)
        form.addRow(self.labels["margin"], self.margin)
        form.addRow(self.labels["radius"], self.radius)
        form.addRow(self.bound_label, self.bound)
        mistakes_row = QWidget()
        mistakes_layout = QHBoxLayout(mistakes_row)
        mistakes_layout.setContentsMargins(0, 0, 0, 0)
        mistakes_layout.addWidget(self.mistakes)
        mistakes_layout.addWidget(self.mistakes_bar, 1)
        form.addRow(self.labels["mistakes"], mistakes_row)
        form.addRow(self.gauge)  # "k of at most B", the whole width
        form.addRow(self.gauge_note)
        form.addRow(self.labels["trial"], self.trial)
        form.addRow(self.labels["epoch"], self.epoch)
        # w gets the panel's whole width: its three numbers then wrap less.
        weights_row = QWidget()
        weights_layout = QHBoxLayout(weights_row)
        weights_layout.setContentsMargins(0, 0, 0, 0)
        self.labels["weights"].setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        weights_layout.addWidget(self.labels["weights"], 0, Qt.AlignmentFlag.AlignTop)
        weights_layout.addWidget(self.weights, 1)
        form.addRow(weights_row)
        form.addRow(self.learner_numbers)  # the learner's own (the pocket's errors, …)
        form.addRow(self.least_squares)  # the whole width: it is long

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type (see the module docstring); the rule named on top."""
        self._presentation = bool(on)
        labels = label_font(on)
        values = value_font(on)
        for widget in self.findChildren(QWidget):
            if isinstance(widget, ValueLabel):
                widget.setFont(values)
            elif isinstance(widget, QLabel | QGroupBox):
                widget.setFont(labels)
        self.rule_title.setFont(values)
        self.rule_title.setVisible(on)
        lines = QFontMetrics(labels).lineSpacing()
        self.status.setMinimumHeight(3 * lines + 4)
        self.mistakes_bar.setFixedHeight(14 if on else 10)
        self.updateGeometry()

    def _name_theory(self, frame: Frame) -> None:
        """γ* and R, or the learner's own names for them (γ_K, R_K of Kessler's vectors)."""
        gamma, radius = frame.learner.symbols
        self.labels["gamma"].setText(f"Data margin {gamma}")
        self.labels["radius"].setText(f"Radius {radius}")
        self.theory_box.setTitle(f"Theory ({frame.learner.theory_space})")
        if frame.bound_is_general:
            self.bound_label.setText("Bound from w₀")
        elif _two_bounds(frame):  # R²/γ*² is the data's number, another learner's bound
            self.bound_label.setText(f"Perceptron's bound {bound_formula(frame)}")
        else:
            self.bound_label.setText(f"Bound {bound_formula(frame)}")

    def show_frame(self, frame: Frame) -> None:
        s, r = frame.snapshot, frame.report
        self._name_theory(frame)
        self.rule_title.setText(f"{frame.rule.title} ({frame.rule.describe()})")
        self.gamma.setText(format_number(r.gamma))
        # "—" says nothing by itself: the tooltip says why γ* was not computed
        why = f"\n\nShown as —: {r.reason}." if r.reason else ""
        self.gamma.setToolTip(self._gamma_tip + why)
        self.margin.setText(format_number(s.margin))
        self.radius.setText(format_number(r.radius))
        # R²/γ*² is a number of the data, like γ* and R (the gauge says which bound is the
        # rule's own); a run whose bound is the general one from w₀ shows that instead.
        general = frame.bound_is_general
        self.bound.setText(format_bound(frame.mistake_bound if general else r.bound, r.separable))
        self.mistakes.setText(str(s.mistakes))
        self._show_gauge(frame)
        self.trial.setText(str(s.trials))
        self.epoch.setText(str(s.epoch))
        self._hold_room(frame)
        self.weights.setText(_weights_text(s.weights, rows=s.rows))
        self.labels["weights"].setText(f"{frame.weights_name} =")
        own = frame.learner_numbers
        self.learner_numbers.setVisible(bool(own))
        self.learner_numbers.setText("\n".join(f"{label}: {value}" for label, value in own))
        report = frame.least_squares
        self.least_squares.setVisible(report is not None)
        if report is not None:
            online = format_number(report.online_rate_limit)
            batch = format_number(report.batch_rate_limit)
            self.least_squares.setText(
                f"Least squares: w_LS = ({_weights_text(report.least_squares, 4)})\n"
                f"sufficient for stability: online η < {online}, batch η < {batch}"
            )
        status = frame.status + (f" {frame.boundary_note}" if frame.boundary_note else "")
        self.status.setText(status)
        alarming = s.diverged or (not r.separable and r.decided and len(frame.dataset) > 0)
        sheet = (
            "color: #B03000; font-weight: bold;"
            if alarming
            else "color: #1A5E20;"
            if s.converged
            else ""
        )
        if sheet != self.status.styleSheet():  # a new style sheet re-polishes the label
            self.status.setStyleSheet(sheet)

    def _hold_room(self, frame: Frame) -> None:
        """Keep w's and the gauge's room for their longest text in this run: they grow when
        a longer one comes (rarely: numbers grow in digits), and start afresh with new data
        or settings. w starts from the room of one wide number, not of a whole vector of
        them: a reserve of three wide numbers took two lines where w needs one, a blank row
        under it for the whole run."""
        key = (frame.dataset, frame.settings, len(frame.snapshot.weights))
        weights = _weights_text(frame.snapshot.weights, rows=frame.snapshot.rows)
        gauge = self.gauge.text()
        if key != self._reserve_key:
            self._reserve_key = key
            self.weights.set_reserve(WEIGHT_RESERVE)
            self.gauge.set_reserve(GAUGE_RESERVE)
        for label, text in ((self.weights, weights), (self.gauge, gauge)):
            if len(text) > len(label.reserve):
                label.set_reserve(text)

    def _show_gauge(self, frame: Frame) -> None:
        """k of at most B where a bound applies to the rule; otherwise say that none does."""
        s = frame.snapshot
        bound = frame.mistake_bound
        applies = bound is not None and len(frame.dataset) > 0
        self.gauge.setVisible(applies)
        self.mistakes_bar.setVisible(applies)
        self.gauge_note.setVisible(not applies)
        if not applies:
            self.gauge_note.setText(
                "No points yet."
                if not len(frame.dataset)
                else f"No mistake bound applies to {frame.rule.title} here."
            )
            return
        assert bound is not None and frame.bound is not None
        name = "the bound from w₀" if frame.bound_is_general else frame.bound.formula
        self.gauge.setToolTip(
            f"k against {name}, {frame.bound.owner} mistake bound for {frame.learner.title} "
            f"({frame.bound.why})"
        )
        # Beside the perceptron's R²/γ*², the learner's own bound says whose it is.
        whose = f" ({frame.learner.title}'s bound)" if _two_bounds(frame) else ""
        if math.isfinite(bound) and bound > 0:
            self.mistakes_bar.setEnabled(True)
            self.mistakes_bar.setValue(round(1000 * min(1.0, s.mistakes / bound)))
            self.gauge.setText(f"{s.mistakes} of at most {format_bound(bound, True)}{whose}")
        elif frame.report.separable and bound == math.inf:  # finite, past the largest float
            self.mistakes_bar.setEnabled(False)
            self.mistakes_bar.setValue(0)
            self.gauge.setText(f"{s.mistakes} of at most {format_bound(bound, True)}{whose}")
        else:
            self.mistakes_bar.setEnabled(False)
            self.mistakes_bar.setValue(0)
            self.gauge.setText(f"{s.mistakes}: no bound (not separable)")
