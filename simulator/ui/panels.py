"""The side of the window: the learner's controls and the theory panel.

`ControlPanel` turns each widget change into a request, `setting_requested(name, value)`
(the controller decides what follows, e.g. a new rule starting from its own defaults),
and shows the settings it is given; which parameters show is asked of the rule's class.
`TheoryPanel` paints a `Frame`: γ*, the margin of w, R, the bound, k against the bound,
trial, epoch, w and the status; `TrialExplanation` the arithmetic of the latest trial.
Numbers are plain text a test can parse: at least 4 significant digits, ∞ where
unbounded, — where undefined.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from simulator.engine import ALGORITHMS, Settings
from simulator.ui.frame import Frame, explain_trial, format_number, format_vector
from simulator.ui.layout import row

__all__ = ["SPEEDS", "ControlPanel", "TheoryPanel", "TrialExplanation"]

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10_000, 100_000, math.inf)
_PREPROCESSING = {"none": "none", "standardize": "standardize (z-score)", "unit": "unit length"}
_INITIAL = {
    "default": "default (0; Winnow 1)",
    "zeros": "zeros",
    "ones": "ones",
    "random": "random (seeded)",
    "custom": "custom…",
}


class ControlPanel(QWidget):
    """Algorithm, parameters, run buttons and speed."""

    setting_requested = Signal(str, object)  # Settings field, value
    speed_changed = Signal(float)  # trials per second (inf: as fast as possible)
    new_point_label_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = Settings()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        learner = QGroupBox("Learner")
        form = QFormLayout(learner)
        self.algorithm = QComboBox(objectName="algorithmCombo")
        for name, rule in ALGORITHMS.items():
            self.algorithm.addItem(rule.title, name)
        form.addRow("Rule", self.algorithm)
        self.rate = self._spin(
            "rateSpin", 0.0001, 100.0, 4, 0.1, "Learning rate η > 0 (Perceptron, Adaline)"
        )
        self.rate_label = QLabel("η")
        form.addRow(self.rate_label, self.rate)
        self.promotion = self._spin(
            "promotionSpin",
            1.01,
            100.0,
            3,
            0.1,
            "Winnow's promotion factor α > 1: a mistake multiplies "
            "active weights by α (y = +1) or 1/α (y = −1)",
        )
        self.promotion_label = QLabel("α")
        form.addRow(self.promotion_label, self.promotion)
        self.threshold = self._spin(
            "thresholdSpin",
            0.0,
            1e6,
            3,
            0.5,
            "Classic Winnow's threshold θ; 'auto' is the number of features (the course's choice)",
        )
        self.threshold.setSpecialValueText("auto (n)")
        self.threshold_label = QLabel("θ")
        form.addRow(self.threshold_label, self.threshold)
        self.mode = QComboBox(objectName="modeCombo")
        self.mode.addItem("online (LMS)", "online")
        self.mode.addItem("batch (per epoch)", "batch")
        self.mode_label = QLabel("Mode")
        form.addRow(self.mode_label, self.mode)
        self.bias = QCheckBox("bias (constant feature 1)", objectName="biasCheck")
        self.bias.setToolTip("x = (1, p₁, p₂): the line need not pass through the origin")
        form.addRow("", self.bias)
        self.preprocessing = QComboBox(objectName="preprocessingCombo")
        for key, title in _PREPROCESSING.items():
            self.preprocessing.addItem(title, key)
        form.addRow("Features", self.preprocessing)
        self.order = QComboBox(objectName="orderCombo")
        self.order.addItem("cyclic (data order)", "cyclic")
        self.order.addItem("random (per epoch)", "random")
        form.addRow("Order", self.order)
        self.seed = QSpinBox(objectName="seedSpin")
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setKeyboardTracking(False)
        self.seed.setToolTip("Seeds the random order and random initial weights")
        form.addRow("Seed", self.seed)
        self.initial = QComboBox(objectName="initialCombo")
        for key, title in _INITIAL.items():
            self.initial.addItem(title, key)
        form.addRow("Start w₀", self.initial)
        self.initial_edit = QLineEdit(objectName="initialEdit")
        self.initial_edit.setPlaceholderText("w₀, bias first: 0.5, 1, -1")
        form.addRow("", self.initial_edit)
        layout.addWidget(learner)

        run = QGroupBox("Run")
        grid = QGridLayout(run)
        self.step_button = QPushButton("Step", objectName="stepButton")
        self.step_button.setToolTip("One trial (Space)")
        self.next_mistake_button = QPushButton("Next mistake", objectName="nextMistakeButton")
        self.next_mistake_button.setToolTip("Run to just after the next mistake (N)")
        self.epoch_button = QPushButton("Epoch", objectName="epochButton")
        self.epoch_button.setToolTip("Run to the end of this epoch (E)")
        self.run_button = QPushButton("Run", objectName="runButton")
        self.run_button.setCheckable(True)
        self.run_button.setToolTip("Run until converged, or pause (Enter)")
        self.reset_button = QPushButton("Reset", objectName="resetButton")
        self.reset_button.setToolTip(
            "Back to trial 0 with these settings; the points stay (Ctrl+R)"
        )
        for button in (
            self.step_button,
            self.next_mistake_button,
            self.epoch_button,
            self.run_button,
            self.reset_button,
        ):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keep Space and Enter for shortcuts
        grid.addWidget(self.step_button, 0, 0)
        grid.addWidget(self.next_mistake_button, 0, 1)
        grid.addWidget(self.epoch_button, 0, 2)
        grid.addWidget(self.run_button, 1, 0, 1, 2)
        grid.addWidget(self.reset_button, 1, 2)
        speed_row = QHBoxLayout()
        self.speed = QSlider(Qt.Orientation.Horizontal, objectName="speedSlider")
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setValue(len(SPEEDS) - 1)
        self.speed.setToolTip("Trials per second while running")
        self.speed_text = QLabel(objectName="speedValue")
        self.speed_text.setMinimumWidth(90)
        speed_row.addWidget(QLabel("Speed"))
        speed_row.addWidget(self.speed, 1)
        speed_row.addWidget(self.speed_text)
        grid.addLayout(speed_row, 2, 0, 1, 3)
        self.class_toggle = QPushButton(objectName="classToggle")
        self.class_toggle.setCheckable(True)
        self.class_toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.class_toggle.setToolTip(
            "For touchpads: which class a left click adds (right click adds the other)"
        )
        grid.addWidget(self.class_toggle, 3, 0, 1, 3)
        layout.addWidget(run)

        self._on_speed(self.speed.value())
        self._on_class_toggled(False)
        self.sync(self._settings)
        requests = (
            (self.algorithm.currentIndexChanged, "algorithm", self.algorithm.currentData),
            (self.rate.valueChanged, "learning_rate", self.rate.value),
            (self.promotion.valueChanged, "promotion", self.promotion.value),
            (self.threshold.valueChanged, "threshold", lambda: self.threshold.value() or None),
            (self.mode.currentIndexChanged, "mode", self.mode.currentData),
            (self.bias.toggled, "bias", self.bias.isChecked),
            (
                self.preprocessing.currentIndexChanged,
                "preprocessing",
                self.preprocessing.currentData,
            ),
            (self.order.currentIndexChanged, "order", self.order.currentData),
            (self.seed.valueChanged, "seed", self.seed.value),
        )
        for signal, name, value in requests:
            signal.connect(lambda *_, n=name, v=value: self.setting_requested.emit(n, v()))
        self.initial.currentIndexChanged.connect(self._request_initial)
        self.initial_edit.editingFinished.connect(self._request_initial)
        self.speed.valueChanged.connect(self._on_speed)
        self.class_toggle.toggled.connect(self._on_class_toggled)

    @staticmethod
    def _spin(
        name: str, low: float, high: float, decimals: int, step: float, tip: str
    ) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(objectName=name)
        spin.setRange(low, high)
        spin.setDecimals(decimals)
        spin.setSingleStep(step)
        spin.setKeyboardTracking(False)  # apply on Enter or focus-out, not on every digit
        spin.setToolTip(tip)
        return spin

    # -- settings <-> widgets -------------------------------------------------------------------

    def sync(self, settings: Settings) -> None:
        """Show `settings` without emitting requests."""
        self._settings = settings
        widgets = (
            self.algorithm,
            self.rate,
            self.promotion,
            self.threshold,
            self.mode,
            self.bias,
            self.preprocessing,
            self.order,
            self.seed,
            self.initial,
            self.initial_edit,
        )
        blockers = [QSignalBlocker(w) for w in widgets]
        rule = ALGORITHMS[settings.algorithm]
        self.algorithm.setCurrentIndex(self.algorithm.findData(settings.algorithm))
        rate = rule.parameter("learning_rate")
        if rate is not None:
            default = rate.default if isinstance(rate.default, float) else 1.0
            value = settings.learning_rate
            self.rate.setValue(value if value is not None else default)
        self.promotion.setValue(settings.promotion)
        self.threshold.setValue(settings.threshold or 0.0)
        self.mode.setCurrentIndex(self.mode.findData(settings.mode))
        self.bias.setChecked(settings.bias)
        self.preprocessing.setCurrentIndex(self.preprocessing.findData(settings.preprocessing))
        self.order.setCurrentIndex(self.order.findData(settings.order))
        self.seed.setValue(settings.seed)
        initial = settings.initial_weights
        if initial is None or isinstance(initial, str):
            key = initial or "default"
        else:
            key = "custom"
            self.initial_edit.setText(", ".join(f"{v:g}" for v in initial))
        self.initial.setCurrentIndex(self.initial.findData(key))
        del blockers
        for name, widgets in (
            ("learning_rate", (self.rate, self.rate_label)),
            ("promotion", (self.promotion, self.promotion_label)),
            ("threshold", (self.threshold, self.threshold_label)),
            ("mode", (self.mode, self.mode_label)),
        ):
            for widget in widgets:
                widget.setVisible(rule.parameter(name) is not None)
        self.initial_edit.setVisible(key == "custom")

    def _request_initial(self, *_: object) -> None:
        """Ask for the chosen start w₀ (custom numbers once they are typed)."""
        key = self.initial.currentData()
        if key != "custom":
            self.setting_requested.emit("initial_weights", None if key == "default" else key)
            return
        text = self.initial_edit.text().replace(";", ",")
        if not text.strip():
            self.initial_edit.setVisible(True)
            self.initial_edit.setFocus()
            return  # wait for the numbers
        try:
            numbers = tuple(float(v) for v in text.split(",") if v.strip())
        except ValueError:
            numbers = ()  # the engine refuses it with a message naming the shape it needs
        self.setting_requested.emit("initial_weights", numbers)

    # -- run state -----------------------------------------------------------------------------

    def set_running(self, running: bool) -> None:
        with QSignalBlocker(self.run_button):
            self.run_button.setChecked(running)
        self.run_button.setText("Pause" if running else "Run")

    def set_can_run(self, can_run: bool, hint: str) -> None:
        for button in (
            self.step_button,
            self.next_mistake_button,
            self.epoch_button,
            self.run_button,
        ):
            button.setEnabled(can_run)
        self.step_button.setToolTip("One trial (Space)" if can_run else hint)

    def speed_value(self) -> float:
        return float(SPEEDS[self.speed.value()])

    def _on_speed(self, position: int) -> None:
        value = SPEEDS[position]
        self.speed_text.setText("max" if math.isinf(value) else f"{value:,} /s")
        self.speed_changed.emit(float(value))

    def _on_class_toggled(self, negative: bool) -> None:
        self.class_toggle.setText(
            "Left click adds −1 (right: +1)" if negative else "Left click adds +1 (right: −1)"
        )
        self.new_point_label_changed.emit(-1 if negative else 1)


def _value_label(name: str, tip: str) -> QLabel:
    label = QLabel("—", objectName=name)
    font = QFont()
    font.setPointSizeF(font.pointSizeF() * 1.15)
    font.setBold(True)
    label.setFont(font)
    label.setToolTip(tip)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class TheoryPanel(QWidget):
    """γ*, margin of w, R, the bound, k, trial, epoch, w and the status."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.status = QLabel(objectName="statusValue")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        theory = QGroupBox("Theory (feature space)")
        theory.setToolTip(
            "Numbers live in feature space: with bias x = (1, p₁, p₂), "
            "so R and γ include the constant 1."
        )
        form = QFormLayout(theory)
        space = " (in feature space; with bias it includes the constant 1)"
        self.gamma = _value_label(
            "gammaValue",
            "γ* = max over unit u of min yᵢ u·xᵢ: the "
            "best margin of any separator through the origin"
            + space
            + ". ≤ 0 means not linearly separable.",
        )
        self.margin = _value_label(
            "marginValue", "The current w's margin: min yᵢ (w·xᵢ − θ)/‖w‖, negative while it errs"
        )
        self.radius = _value_label("radiusValue", "R = max ‖xᵢ‖" + space)
        self.bound_label = QLabel("Bound R²/γ*²", objectName="boundLabel")
        self.bound = _value_label(
            "boundValue",
            "Block–Novikoff: from w₀ = 0 the perceptron "
            "makes at most R²/γ*² mistakes, in any order, for any η",
        )
        self.mistakes = _value_label("mistakesValue", "Mistakes k so far")
        self.mistakes_bar = QProgressBar(objectName="mistakesBar")
        self.mistakes_bar.setRange(0, 1000)
        self.mistakes_bar.setTextVisible(True)
        self.mistakes_bar.setToolTip("k against the perceptron's mistake bound")
        self.trial = _value_label("trialValue", "Trials so far")
        self.epoch = _value_label("epochValue", "Epoch of the latest trial (one pass = one epoch)")
        self.weights = _value_label("weightsValue", "w in feature order (bias weight first)")
        self.weights.setWordWrap(True)
        form.addRow("Data margin γ*", self.gamma)
        form.addRow("Margin of w", self.margin)
        form.addRow("Radius R", self.radius)
        form.addRow(self.bound_label, self.bound)
        form.addRow("Mistakes k", row(self.mistakes, self.mistakes_bar, stretch=1))
        form.addRow("Trial", row(self.trial, QLabel("epoch"), self.epoch))
        form.addRow("w", self.weights)
        self.adaline_label = QLabel("Adaline")
        self.adaline = _value_label(
            "adalineValue",
            "Least squares and the stable learning rates: online η < 2/R², batch η < 2/λ_max(XᵀX)",
        )
        self.adaline.setWordWrap(True)
        form.addRow(self.adaline_label, self.adaline)
        layout.addWidget(theory)

    def show_frame(self, frame: Frame) -> None:
        s, r = frame.snapshot, frame.report
        self.gamma.setText(format_number(r.gamma))
        self.margin.setText(format_number(s.margin))
        self.radius.setText(format_number(r.radius))
        novikoff = frame.rule.bound == "novikoff"
        if not novikoff:
            self.bound_label.setText("Perceptron's bound R²/γ*²")
        elif frame.bound_is_general:
            self.bound_label.setText("Bound from w₀")
        else:
            self.bound_label.setText("Bound R²/γ*²")
        self.bound.setText(format_number(frame.mistake_bound if novikoff else r.bound))
        self.mistakes.setText(str(s.mistakes))
        bound = frame.mistake_bound
        if bound is not None and math.isfinite(bound) and bound > 0:
            self.mistakes_bar.setEnabled(True)
            self.mistakes_bar.setValue(round(1000 * min(1.0, s.mistakes / bound)))
            self.mistakes_bar.setFormat(f"{s.mistakes} of at most {format_number(bound)}")
        else:
            self.mistakes_bar.setEnabled(False)
            self.mistakes_bar.setValue(0)
            if not len(frame.dataset):
                why = "no data"
            elif bound is None:
                why = f"no mistake bound applies to {frame.rule.title} here"
            else:
                why = "no bound: not separable"
            self.mistakes_bar.setFormat(why)
        self.trial.setText(str(s.trials))
        self.epoch.setText(str(s.epoch))
        shown = s.weights if len(s.weights) <= 12 else s.weights[:12]  # d > 2: the bars show all
        more = "" if shown is s.weights else f", … ({len(s.weights):,} in all)"
        self.weights.setText(format_vector(shown) + more)
        adaline = frame.adaline
        self.adaline_label.setVisible(adaline is not None)
        self.adaline.setVisible(adaline is not None)
        if adaline is not None:
            self.adaline.setText(
                f"w_LS = ({format_vector(adaline.least_squares, 4)})<br>"
                f"stable: online η &lt; {format_number(adaline.online_rate_limit, 4)}, "
                f"batch η &lt; {format_number(adaline.batch_rate_limit, 4)}"
            )
        status = frame.status + (f" {frame.boundary_note}" if frame.boundary_note else "")
        self.status.setText(status)
        alarming = s.diverged or (not r.separable and len(frame.dataset) > 0)
        self.status.setStyleSheet(
            "color: #B03000; font-weight: bold;"
            if alarming
            else "color: #1A5E20;"
            if s.converged
            else ""
        )


class TrialExplanation(QLabel):
    """The arithmetic of the latest trial, under the plot where the class looks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="explanationValue")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.setFont(font)
        self.setMinimumHeight(4 * self.fontMetrics().lineSpacing() + 12)
        self.setStyleSheet(
            "QLabel { background: #FFFFFF; border-top: 1px solid #CCCCCC; padding: 6px 10px; }"
        )
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def show_frame(self, frame: Frame) -> None:
        self.setText(explain_trial(frame))
