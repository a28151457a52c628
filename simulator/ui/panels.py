"""The side of the window: the learner's controls and the theory panel.

`ControlPanel` turns each widget change into a request, `setting_requested(name, value)`
(the controller decides what follows, e.g. a new rule starting from its own defaults),
and shows the settings it is given; which parameters show is asked of the rule's class.
`TheoryPanel` paints a `Frame`: γ*, the margin of w, R, the bound, k against the bound,
trial, epoch, w and the status; `TrialExplanation` the arithmetic of the latest trial.
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
- Each parameter box is built from the rule's own `Parameter` (its range, an exclusive
  minimum, its help as the tooltip) and shows exactly the number the run uses (200, 0.0004,
  0.037500000000000006): never clamped or rounded, so Enter on it changes nothing. A value
  the rule derives (Adaline's η, Winnow's θ = n) shows as the value it uses, its label
  marked "(auto)"; emptying the box and pressing Enter goes back to the rule's own.
- Enter in a settings field applies what was typed there; it does not start a Run.
- The tie rule (what s = 0 means) is a control: the rule's default (named), or mistake,
  positive or negative; a new rule starts from its own again.
- Presentation mode (`set_presentation`): every label and value at least
  `style.PRESENTATION_LABEL_PX` pixels tall, the learner settings hidden.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QRect, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QValidator
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
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

from simulator.engine import LEARNERS, TIE_TEXT, TIES, Parameter, Settings
from simulator.engine.dataset import short_repr
from simulator.engine.learners import all_parameters
from simulator.engine.simulation import MAX_SEED
from simulator.presentation.explain import explain
from simulator.presentation.frame import (
    Frame,
    format_bound,
    format_number,
    format_vector,
)
from simulator.ui import style

__all__ = [
    "SPEEDS",
    "ControlPanel",
    "ParameterSpin",
    "TheoryPanel",
    "TrialExplanation",
    "ValueLabel",
    "exact_text",
    "label_font",
    "value_font",
]

WIDEST_NUMBER = "-8.88888e-888"  # the longest text format_number writes (6 digits)
WIDEST_COUNT = "8888888888"  # trials and mistakes: up to ten digits
GAUGE_RESERVE = "88888 of at most 888888"  # the gauge's room until a longer text comes


MAX_WEIGHTS_SHOWN = 12  # beyond (d > 2), the high-dimensional view's bars show them all


def _weights_text(weights: tuple[float, ...] | None, digits: int = 6) -> str:
    """w as numbers; past MAX_WEIGHTS_SHOWN, the first ones and how many there are."""
    if weights is None or len(weights) <= MAX_WEIGHTS_SHOWN:
        return format_vector(weights, digits)
    shown = format_vector(weights[:MAX_WEIGHTS_SHOWN], digits)
    return shown + f", … ({len(weights):,} in all)"


def _weights_reserve(n: int) -> str:
    """Room for n weights of six significant digits, until longer ones come."""
    shown = min(n, MAX_WEIGHTS_SHOWN)
    return ", ".join(["-8.88888"] * shown) + ("" if n == shown else f", … ({n:,} in all)")


def label_font(presentation: bool) -> QFont:
    """The font of the panel's labels: the application's, or lecture-hall size."""
    font = QFont()
    if presentation:
        font.setPixelSize(style.PRESENTATION_LABEL_PX)
    return font


def value_font(presentation: bool) -> QFont:
    """The font of the panel's numbers: bold, a little larger than the labels."""
    font = QFont()
    if presentation:
        font.setPixelSize(style.PRESENTATION_VALUE_PX)
    elif font.pointSizeF() > 0:
        font.setPointSizeF(font.pointSizeF() * 1.15)
    else:
        font.setPixelSize(round(font.pixelSize() * 1.15))
    font.setBold(True)
    return font


def _camel(name: str) -> str:
    """learning_rate -> learningRate (object names are camelCase, as Qt's)."""
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def exact_text(value: float) -> str:
    """The shortest text that reads back as exactly `value` (0.0004, 200, 1e-20)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _parse(text: str) -> float | None:
    try:
        return float(text.strip().replace(",", "."))
    except ValueError:
        return None


class ParameterSpin(QAbstractSpinBox):
    """A number box built from a rule's `Parameter`: its range (an exclusive minimum too),
    its help as the tooltip, and any value it allows shown exactly (`exact_text`), so the
    box shows the number the run uses and Enter applies that very number.

    Typing is applied on Enter or focus-out (`value_changed`); a value the parameter
    refuses goes back to the shown one. Where the setting may be None (`optional`), an
    empty box asks for the rule's own value (`value_changed(None)`). The arrows step
    by one unit of the value's second significant digit (1 → 1.1, 0.25 → 0.26).
    """

    value_changed = Signal(object)  # float, or None: the rule's own

    def __init__(self, parameter: Parameter, *, optional: bool = False) -> None:
        super().__init__(objectName=f"{_camel(parameter.name)}Spin")
        self._parameter = parameter
        self._optional = optional  # an empty box asks for the rule's own value
        self._value: float | None = None
        self.setKeyboardTracking(False)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        self.editingFinished.connect(self._commit)
        self.set_parameter(parameter)

    @property
    def parameter(self) -> Parameter:
        return self._parameter

    def set_parameter(self, parameter: Parameter) -> None:
        """Take range and help from `parameter` (each rule brings its own)."""
        self._parameter = parameter
        tip = f"{parameter.title} {parameter.symbol}: {parameter.help or parameter.title}."
        if parameter.range_text():
            tip += f" Allowed: {parameter.range_text()}."
        if self._optional:
            tip += f" Empty: the rule's own ({parameter.derived or parameter.default_text})."
        self.setToolTip(tip)
        if self._value is not None and not self.allows(self._value):
            self._value = None
            self.lineEdit().clear()

    def allows(self, value: float) -> bool:
        try:
            self._parameter.check(value)
        except ValueError:
            return False
        return True

    def value(self) -> float:
        return math.nan if self._value is None else self._value

    def setValue(self, value: float) -> None:
        """Show `value` and ask for it (`value_changed`); a refused value changes nothing."""
        if not self.allows(value) or float(value) == self._value:
            return
        self.show_value(float(value))
        self.value_changed.emit(self._value)

    def show_value(self, value: float | None) -> None:
        """Show `value` without asking for it (None: nothing known yet)."""
        self._value = value
        text = "" if value is None else exact_text(value)
        if self.lineEdit().text() != text:
            self.lineEdit().setText(text)
        self.update()

    def _commit(self) -> None:
        text = self.lineEdit().text()
        if not text.strip() and self._optional:
            self.value_changed.emit(None)
            return
        number = _parse(text)
        if number is not None and self.allows(number):
            if number != self._value:
                self.setValue(number)
            else:
                self.show_value(self._value)  # "1.0" typed for 1: written as shown
            return
        self.show_value(self._value)  # refused: back to the value in use

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        number = _parse(text)
        ok = number is not None and self.allows(number)
        ok = ok or (not text.strip() and self._optional)
        return (QValidator.State.Acceptable if ok else QValidator.State.Intermediate), text, pos

    def fixup(self, text: str) -> str:
        return "" if self._value is None else exact_text(self._value)

    def _stepped(self, steps: int) -> float | None:
        if self._value is None or not math.isfinite(self._value):
            return None
        magnitude = abs(self._value) or 1.0
        digits = 1 - math.floor(math.log10(magnitude))  # decimals of the 2nd significant digit
        value = round(self._value + steps * 10.0**-digits, max(0, digits))
        return value if self.allows(value) else None

    def stepBy(self, steps: int) -> None:
        value = self._stepped(steps)
        if value is not None:
            self.setValue(value)

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if self._stepped(1) is not None:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        if self._stepped(-1) is not None:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(
            max(hint.width(), self.fontMetrics().horizontalAdvance("8.8888888e-88") + 40),
            hint.height(),
        )


SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10_000, 100_000, math.inf)
_PREPROCESSING = {"none": "none", "standardize": "standardize (z-score)", "unit": "unit length"}
_INITIAL = {
    "default": "rule's default",  # the rule's own start is named beside it (`sync`)
    "zeros": "zeros",
    "ones": "ones",
    "random": "random (seeded)",
    "custom": "custom…",
}
_TIE_TIP = (
    "What a score s = 0 means. mistake: undecided, a mistake whatever y (y·s ≤ 0 "
    "updates, as in Novikoff's proof); positive: predicts +1 (+ iff s ≥ 0, i.e. "
    "+ iff w·x ≥ θ); negative: predicts −1 (+ iff s > 0). A new rule starts from its own."
)


class _EnterApplies(QObject):
    """Enter in a settings field applies what was typed there: the window's Enter
    shortcut (Run / Pause) does not take the key while such a field has the focus."""

    def eventFilter(self, target: QObject, event: QEvent) -> bool:
        enter = isinstance(event, QKeyEvent) and event.key() in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
        )
        if event.type() == QEvent.Type.ShortcutOverride and enter:
            event.accept()  # the field wants the key
            return True
        return False


def _derived_somewhere(name: str) -> bool:
    """Whether some learner derives parameter `name` from the data (its box may be left
    empty: "auto")."""
    return any(
        p.name == name and p.default is None for cls in LEARNERS.values() for p in cls.parameters
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class ControlPanel(QWidget):
    """Algorithm, parameters, run buttons and speed."""

    setting_requested = Signal(str, object)  # Settings field, value
    refused = Signal(str)  # input that is no setting at all (w₀ text that is not numbers)
    speed_changed = Signal(float)  # trials per second (inf: as fast as possible)
    new_point_label_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = Settings()
        self._frame: Frame | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        learner = QGroupBox("Learner")
        self.learner_box = learner
        form = QFormLayout(learner)
        self.algorithm = QComboBox(objectName="algorithmCombo")
        for name, rule in LEARNERS.items():
            self.algorithm.addItem(rule.title, name)
        form.addRow("Rule", self.algorithm)
        # One box per parameter name the rules have; each rule sets its range and help.
        self.boxes: dict[str, ParameterSpin | QComboBox] = {}
        self.parameter_labels: dict[str, QLabel] = {}
        for name, parameter in all_parameters().items():
            box: ParameterSpin | QComboBox
            if parameter.choices:
                box = QComboBox(objectName=f"{_camel(name)}Combo")
                for choice in parameter.choices:
                    box.addItem(choice, choice)
                box.setToolTip(parameter.help)
                label = QLabel(parameter.title.capitalize())
            else:
                box = ParameterSpin(parameter, optional=_derived_somewhere(name))
                label = QLabel(parameter.symbol)
            self.boxes[name] = box
            self.parameter_labels[name] = label
            form.addRow(label, box)
        self.rate = self._number_box("learning_rate")
        self.promotion = self._number_box("promotion")
        self.threshold = self._number_box("threshold")
        mode = self.boxes["mode"]
        assert isinstance(mode, QComboBox)
        self.mode = mode
        self.tie = QComboBox(objectName="tieCombo")
        self.tie.addItem("rule's default", None)
        for tie in TIES:
            self.tie.addItem(f"{tie}: s = 0 {TIE_TEXT[tie]}", tie)
            self.tie.setItemData(self.tie.count() - 1, TIE_TEXT[tie], Qt.ItemDataRole.ToolTipRole)
        self.tie.setToolTip(_TIE_TIP)
        self.tie.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.tie.setMinimumContentsLength(16)
        form.addRow("Tie s = 0", self.tie)
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
        self.seed.setRange(0, MAX_SEED)
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
        run = QGroupBox("Run")
        self.run_box = run
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
        self.speed_label = QLabel("Speed")
        self.speed = QSlider(Qt.Orientation.Horizontal, objectName="speedSlider")
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setValue(len(SPEEDS) - 1)
        self.speed.setToolTip("Trials per second while running")
        self.speed_text = QLabel(objectName="speedValue")
        self.speed_text.setMinimumWidth(90)
        speed_row.addWidget(self.speed_label)
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
        layout.addWidget(learner)

        self._on_speed(self.speed.value())
        self._on_class_toggled(False)
        self.sync(self._settings)
        requests = (
            (self.algorithm.currentIndexChanged, "algorithm", self.algorithm.currentData),
            (self.tie.currentIndexChanged, "tie", self.tie.currentData),
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
        for name, box in self.boxes.items():
            if isinstance(box, ParameterSpin):
                box.value_changed.connect(
                    lambda value, n=name: self.setting_requested.emit(n, value)
                )
            else:
                box.currentIndexChanged.connect(
                    lambda *_, n=name, b=box: self.setting_requested.emit(n, b.currentData())
                )
        self._enter_applies = _EnterApplies(self)
        for field in (*self.boxes.values(), self.seed, self.initial_edit):
            if isinstance(field, QAbstractSpinBox | QLineEdit):
                field.installEventFilter(self._enter_applies)
        self.initial.currentIndexChanged.connect(self._request_initial)
        self.initial_edit.editingFinished.connect(self._request_initial)
        self.speed.valueChanged.connect(self._on_speed)
        self.class_toggle.toggled.connect(self._on_class_toggled)

    def _number_box(self, name: str) -> ParameterSpin:
        box = self.boxes[name]
        assert isinstance(box, ParameterSpin)
        return box

    # -- settings <-> widgets -------------------------------------------------------------------

    def sync(self, settings: Settings) -> None:
        """Show `settings` without emitting requests; each parameter box takes the range and
        help of the rule's own `Parameter`. A value the rule derives shows once the frame
        says what it is (`show_frame`)."""
        self._settings = settings
        widgets = (
            self.algorithm,
            self.tie,
            *self.boxes.values(),
            self.bias,
            self.preprocessing,
            self.order,
            self.seed,
            self.initial,
            self.initial_edit,
        )
        blockers = [QSignalBlocker(w) for w in widgets]
        rule = LEARNERS[settings.algorithm]
        self.algorithm.setCurrentIndex(self.algorithm.findData(settings.algorithm))
        for name, box in self.boxes.items():
            parameter = rule.parameter(name)
            self.parameter_labels[name].setVisible(parameter is not None)
            box.setVisible(parameter is not None)
            if parameter is None:
                continue
            value = getattr(settings, name, None)
            if isinstance(box, ParameterSpin):
                box.set_parameter(parameter)
                derived = value is None and parameter.default is None
                label = parameter.symbol + (" (auto)" if derived else "")
                self.parameter_labels[name].setText(label)
                if value is None and parameter.default is not None:
                    value = parameter.default
                box.show_value(None if value is None else float(value))
            else:
                box.setToolTip(parameter.help)
                if value is not None:
                    box.setCurrentIndex(box.findData(value))
        self.tie.setItemText(0, f"rule's default ({rule.tie})")
        self.tie.setItemData(
            0, f"{rule.title}: s = 0 {TIE_TEXT[rule.tie]}", Qt.ItemDataRole.ToolTipRole
        )
        self.tie.setCurrentIndex(self.tie.findData(settings.tie))
        self.bias.setChecked(settings.bias)
        self.preprocessing.setCurrentIndex(self.preprocessing.findData(settings.preprocessing))
        self.order.setCurrentIndex(self.order.findData(settings.order))
        self.seed.setValue(settings.seed)
        self.initial.setItemText(0, f"rule's default ({rule.start_text})")
        initial = settings.initial_weights
        if initial is None or isinstance(initial, str):
            key = initial or "default"
        else:
            key = "custom"
            self.initial_edit.setText(", ".join(exact_text(v) for v in initial))
        self.initial.setCurrentIndex(self.initial.findData(key))
        del blockers
        self.initial_edit.setVisible(key == "custom")
        if self._frame is not None and self._frame.settings == settings:
            self.show_frame(self._frame)  # the values the rule derives, already known

    def show_frame(self, frame: Frame) -> None:
        """Show the parameters the run uses (the rule's own where it derives them). A frame
        of settings not shown yet waits for their `sync` (a session opens in that order)."""
        self._frame = frame
        if frame.settings != self._settings:
            return
        for parameter in frame.rule.parameters:
            box = self.boxes.get(parameter.name)
            used = frame.rule.value(parameter.name)
            if isinstance(box, ParameterSpin) and isinstance(used, int | float):
                if float(used) != box.value():
                    with QSignalBlocker(box):
                        box.show_value(float(used))
            elif isinstance(box, QComboBox) and box.currentData() != used:
                with QSignalBlocker(box):
                    box.setCurrentIndex(box.findData(used))

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type; the learner settings, speed and class toggle hidden."""
        self.learner_box.setVisible(not on)
        for widget in (self.speed_label, self.speed, self.speed_text, self.class_toggle):
            widget.setVisible(not on)
        font = label_font(on)
        for widget in self.findChildren(QWidget):
            if isinstance(widget, QLabel | QAbstractButton | QGroupBox):
                widget.setFont(font)

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
        fields = [v.strip() for v in text.split(",") if v.strip()]
        bad = next((v for v in fields if not _is_number(v)), None)
        if bad is not None:
            self.refused.emit(
                f"Setting not applied: w₀ is numbers separated by commas, and "
                f"{short_repr(bad)} is not a number."
            )
            return
        self.setting_requested.emit("initial_weights", tuple(float(v) for v in fields))

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


class ValueLabel(QLabel):
    """A value of the panel that keeps the room of its longest text, `reserve`.

    Unwrapped, it is never narrower than `reserve`; wrapped (word by word), never shorter
    than `reserve` needs at its width. So the panel does not jump as numbers change, and
    no number is cut off.
    """

    def __init__(self, name: str, tip: str, reserve: str = WIDEST_NUMBER, wrap: bool = False):
        super().__init__("—", objectName=name)
        self._reserve = reserve
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(wrap)
        if wrap:
            self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setFont(value_font(False))
        self.setToolTip(tip)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    @property
    def reserve(self) -> str:
        return self._reserve

    def set_reserve(self, reserve: str) -> None:
        if reserve != self._reserve:
            self._reserve = reserve
            self.updateGeometry()
            self._hold_height()

    def _margins(self) -> tuple[int, int]:
        m = self.contentsMargins()
        return m.left() + m.right() + 2 * max(0, self.indent()), m.top() + m.bottom()

    def _reserved_width(self) -> int:
        metrics = QFontMetrics(self.font())
        words = self._reserve.split() if self.wordWrap() else [self._reserve]
        widest = max((metrics.horizontalAdvance(w) for w in words), default=0)
        return widest + self._margins()[0] + 2

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self._reserved_width()), hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        width = max(hint.width(), self._reserved_width())
        if self.wordWrap():
            return QSize(width, max(hint.height(), self.heightForWidth(width)))
        return QSize(width, hint.height())

    def setText(self, text: str) -> None:
        super().setText(text)
        self._hold_height()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._hold_height()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._hold_height()

    def _hold_height(self) -> None:
        """A wrapped value asks for the height its width needs as a minimum: layouts do not
        all honour height-for-width (QFormLayout can misjudge a field's width)."""
        if self.wordWrap() and self.width() > 0:
            need = self.heightForWidth(self.width())
            if need != self.minimumHeight():
                self.setMinimumHeight(need)

    def heightForWidth(self, width: int) -> int:
        if not self.wordWrap():
            return super().heightForWidth(width)
        # Measured as QLabel draws plain wrapped text (its own measure can be stale after
        # a font change, and then asks for a line too many).
        across, down = self._margins()
        metrics = QFontMetrics(self.font())
        room = QRect(0, 0, max(1, width - across), 1_000_000)
        flags = int(Qt.TextFlag.TextWordWrap)
        return down + max(
            metrics.boundingRect(room, flags, self.text()).height(),
            metrics.boundingRect(room, flags, self._reserve).height(),
        )


class TheoryPanel(QWidget):
    """γ*, margin of w, R, the bound, k against the bound, trial, epoch, w and the status."""

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
        form = QFormLayout(theory)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        space = " (in feature space; with bias it includes the constant 1)"
        self._gamma_tip = (
            "γ* = max over unit u of min yᵢ u·xᵢ: the best margin of any separator through "
            "the origin" + space + ". ≤ 0 means not linearly separable."
        )
        self.gamma = ValueLabel("gammaValue", self._gamma_tip)
        self.margin = ValueLabel(
            "marginValue", "The current w's margin: min yᵢ (w·xᵢ − θ)/‖w‖, negative while it errs"
        )
        self.radius = ValueLabel("radiusValue", "R = max ‖xᵢ‖" + space)
        self.bound_label = QLabel("Bound R²/γ*²", objectName="boundLabel")
        self.bound_label.setWordWrap(True)  # "Bound from w₀" may take two lines
        self.bound = ValueLabel(
            "boundValue",
            "Block–Novikoff: from w₀ = 0 the perceptron "
            "makes at most R²/γ*² mistakes, in any order, for any η",
        )
        self.mistakes = ValueLabel("mistakesValue", "Mistakes k so far", WIDEST_COUNT)
        self.gauge = ValueLabel(
            "gaugeValue",
            "k against the mistake bound that applies to this rule",
            GAUGE_RESERVE,
            wrap=True,
        )
        self.mistakes_bar = QProgressBar(objectName="mistakesBar")
        self.mistakes_bar.setRange(0, 1000)
        self.mistakes_bar.setTextVisible(False)
        self.mistakes_bar.setFixedHeight(10)
        self.mistakes_bar.setMinimumWidth(40)
        self.mistakes_bar.setToolTip("k against the mistake bound")
        self.gauge_note = QLabel(objectName="gaugeNote")
        self.gauge_note.setWordWrap(True)
        self.trial = ValueLabel("trialValue", "Trials so far", WIDEST_COUNT)
        self.epoch = ValueLabel(
            "epochValue", "Epoch of the latest trial (one pass = one epoch)", WIDEST_COUNT
        )
        self.weights = ValueLabel(
            "weightsValue",
            "w in feature order (bias weight first)",
            _weights_reserve(3),
            wrap=True,
        )
        self._reserve_key: tuple[object, ...] | None = None
        self.labels = {
            "gamma": QLabel("Data margin γ*"),
            "margin": QLabel("Margin of w"),
            "radius": QLabel("Radius R"),
            "mistakes": QLabel("Mistakes k"),
            "trial": QLabel("Trial"),
            "epoch": QLabel("Epoch"),
            "weights": QLabel("w ="),
        }
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
        self.least_squares = ValueLabel(
            "leastSquaresValue",
            "Least squares, and learning rates sufficient (not necessary) for stability: online "
            "η < 2/R², batch η < 2/λ_max(XᵀX)",
            "Least squares: w_LS = (-8.888e-88, -8.888e-88, -8.888e-88)\n"
            "sufficient for stability: online η < 8.888e-88, batch η < 8.888e-88",
            wrap=True,
        )
        form.addRow(self.least_squares)  # the whole width: it is long
        layout.addWidget(theory)
        # Under the numbers, so a longer or shorter status never moves them.
        self.status = QLabel(objectName="statusValue")
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        self._presentation = False
        self.set_presentation(False)

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

    def show_frame(self, frame: Frame) -> None:
        s, r = frame.snapshot, frame.report
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
        self.bound_label.setText("Bound from w₀" if general else "Bound R²/γ*²")
        self.bound.setText(format_bound(frame.mistake_bound if general else r.bound, r.separable))
        self.mistakes.setText(str(s.mistakes))
        self._show_gauge(frame)
        self.trial.setText(str(s.trials))
        self.epoch.setText(str(s.epoch))
        self._hold_room(frame)
        self.weights.setText(_weights_text(s.weights))
        report = frame.least_squares
        self.least_squares.setVisible(report is not None)
        if report is not None:
            online = format_number(report.online_rate_limit, 4)
            batch = format_number(report.batch_rate_limit, 4)
            self.least_squares.setText(
                f"Least squares: w_LS = ({_weights_text(report.least_squares, 4)})\n"
                f"sufficient for stability: online η < {online}, batch η < {batch}"
            )
        status = frame.status + (f" {frame.boundary_note}" if frame.boundary_note else "")
        self.status.setText(status)
        alarming = s.diverged or (not r.separable and len(frame.dataset) > 0)
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
        or settings."""
        key = (frame.dataset, frame.settings, len(frame.snapshot.weights))
        weights = _weights_text(frame.snapshot.weights)
        gauge = self.gauge.text()
        if key != self._reserve_key:
            self._reserve_key = key
            self.weights.set_reserve(_weights_reserve(len(frame.snapshot.weights)))
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
        if math.isfinite(bound) and bound > 0:
            self.mistakes_bar.setEnabled(True)
            self.mistakes_bar.setValue(round(1000 * min(1.0, s.mistakes / bound)))
            self.gauge.setText(f"{s.mistakes} of at most {format_bound(bound, True)}")
        elif frame.report.separable and bound == math.inf:  # finite, past the largest float
            self.mistakes_bar.setEnabled(False)
            self.mistakes_bar.setValue(0)
            self.gauge.setText(f"{s.mistakes} of at most {format_bound(bound, True)}")
        else:
            self.mistakes_bar.setEnabled(False)
            self.mistakes_bar.setValue(0)
            self.gauge.setText(f"{s.mistakes}: no bound (not separable)")


class TrialExplanation(QLabel):
    """The arithmetic of the latest trial, under the plot where the class looks.

    Its height is the most its texts have needed since the data, the settings or the
    type size last changed (at least four lines), so the plot above does not bob up and
    down from trial to trial, and no line is ever cut off.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="explanationValue")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setStyleSheet(
            "QLabel { background: #FFFFFF; border-top: 1px solid #CCCCCC; padding: 6px 10px; }"
        )
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._needed = self._longest = 0
        self._key: tuple[object, ...] | None = None
        self.set_presentation(False)

    def set_presentation(self, on: bool) -> None:
        font = QFont()
        if on:
            font.setPixelSize(style.PRESENTATION_LABEL_PX)
        elif font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 1.25)
        self.setFont(font)
        self._needed = self._longest = 0
        self._fit()

    def show_frame(self, frame: Frame) -> None:
        key = (frame.dataset, frame.settings)
        if key != self._key:
            self._key = key
            self._needed = self._longest = 0
        self.setText(explain(frame).html())
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._needed = self._longest = 0  # a new width: measured afresh
            self._fit()

    def _fit(self) -> None:
        if not self.isVisible():
            return  # its width is not known yet
        # Measuring wrapped rich text costs about as much as a frame of the plot: measure
        # only a text longer than any measured since the last reset (a shorter one fits).
        size = len(self.text())
        if self._needed and size <= self._longest:
            return
        self._longest = max(self._longest, size)
        lines = 4 * self.fontMetrics().lineSpacing() + 14
        need = max(lines, self.heightForWidth(self.width()))
        self._needed = max(self._needed, need)
        if self.minimumHeight() != self._needed:
            self.setMinimumHeight(self._needed)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit()
