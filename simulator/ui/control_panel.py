"""`ControlPanel`: the learner's controls, the run buttons and the speed.

It turns each widget change into a request, `setting_requested(name, value)` (the
controller decides what follows, e.g. a new rule starting from its own defaults), and
shows the settings it is given; which parameters show is asked of the rule's class.

Decisions a teacher will notice:

- Each parameter box is built from the rule's own `Parameter` (its range, an exclusive
  minimum, its help as the tooltip) and shows exactly the number the run uses (200, 0.0004,
  0.037500000000000006): never clamped or rounded, so Enter on it changes nothing. A value
  the rule derives (Adaline's η, Winnow's θ = n) shows as the value it uses, its label
  marked "(auto)"; emptying the box and pressing Enter goes back to the rule's own.
- Enter in a settings field applies what was typed there; it does not start a Run.
- The tie rule (what s = 0 means) is a control: the rule's default (named), or mistake,
  positive or negative; a new rule starts from its own again.
- Presentation mode (`set_presentation`): every label at least
  `style.PRESENTATION_LABEL_PX` pixels tall, the learner settings hidden.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QIcon, QKeyEvent
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
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from simulator.engine import LEARNERS, TIE_TEXT, TIES, Dataset, Settings
from simulator.engine.dataset import short_repr
from simulator.engine.learners import all_parameters
from simulator.engine.simulation import MAX_SEED
from simulator.presentation.frame import Frame
from simulator.ui.class_points import ClassLayers, class_text
from simulator.ui.parameter_spin import ParameterSpin, camel_case, exact_text
from simulator.ui.value_label import label_font

__all__ = ["DEFAULT_SPEED", "SPEEDS", "ControlPanel"]

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10_000, 100_000, math.inf)
DEFAULT_SPEED = 5  # trials a second: a class can follow each one ("max" is a choice)
# A choice box's items: the setting's value and its text.
_PREPROCESSING = {"none": "none", "standardize": "standardize (z-score)", "unit": "unit length"}
_ORDER = {"cyclic": "cyclic (data order)", "random": "random (per epoch)"}
_INITIAL = {
    "default": "rule's default",  # the rule's own start is named beside it (`sync`)
    "zeros": "zeros",
    "ones": "ones",
    "random": "random (seeded)",
    "custom": "custom…",
}
# The run buttons: attribute, text, objectName, tooltip, grid cell (row, column, rows, columns).
_BUTTONS = (
    ("step_button", "Step", "stepButton", "One trial (Space)", (0, 0, 1, 1)),
    (
        "next_mistake_button",
        "Next mistake",
        "nextMistakeButton",
        "Run to just after the next mistake (N)",
        (1, 0, 1, 2),
    ),
    ("epoch_button", "Epoch", "epochButton", "Run to the end of this epoch (E)", (1, 2, 1, 1)),
    ("run_button", "Run", "runButton", "Run until converged, or pause (Enter)", (0, 1, 1, 1)),
    (
        "reset_button",
        "Reset",
        "resetButton",
        "Back to trial 0 with these settings; the points stay (Ctrl+R)",
        (0, 2, 1, 1),
    ),
)
# Step, Run and Reset on top, short words three abreast, so the panel stays narrow in a
# lecture hall's type and the plot keeps the room.
_TIE_TIP = (
    "What a score s = 0 means. mistake: undecided, a mistake whatever y (y·s ≤ 0 "
    "updates, as in Novikoff's proof); positive: predicts +1 (+ iff s ≥ 0, i.e. "
    "+ iff w·x ≥ θ); negative: predicts −1 (+ iff s > 0). A new rule starts from its own."
)


class _EnterApplies(QObject):
    """Enter in a settings field applies what was typed there: the window's Enter
    shortcut (Run / Pause) does not take the key while such a field has the focus. Once
    the field has applied it, the keyboard goes back to the window (`done`), so Space steps
    again instead of typing into the field."""

    def __init__(self, done: Callable[[], None], parent: QObject) -> None:
        super().__init__(parent)
        self._done = done

    def eventFilter(self, target: QObject, event: QEvent) -> bool:
        enter = isinstance(event, QKeyEvent) and event.key() in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
        )
        if event.type() == QEvent.Type.ShortcutOverride and enter:
            event.accept()  # the field wants the key
            return True
        if event.type() == QEvent.Type.KeyPress and enter:
            QTimer.singleShot(0, self._done)  # after the field has applied the value
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


def _choices(name: str, items: dict[str, str]) -> QComboBox:
    """A box `<name>Combo` of `items` (value: text), in their order."""
    box = QComboBox(objectName=f"{name}Combo")
    for value, text in items.items():
        box.addItem(text, value)
    return box


class ControlPanel(QWidget):
    """Algorithm, parameters, run buttons and speed."""

    setting_requested = Signal(str, object)  # Settings field, value
    refused = Signal(str)  # input that is no setting at all (w₀ text that is not numbers)
    speed_changed = Signal(float)  # trials per second (inf: as fast as possible)
    new_point_label_changed = Signal(int)
    editing_done = Signal()  # Enter applied a typed value: the keyboard goes back to the plot

    # Made from `_BUTTONS`.
    step_button: QPushButton
    next_mistake_button: QPushButton
    epoch_button: QPushButton
    run_button: QPushButton
    reset_button: QPushButton

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = Settings()
        self._frame: Frame | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        learner = self._learner_box()
        run = self._run_box()
        layout.addWidget(run)
        layout.addWidget(learner)
        self._on_speed(self.speed.value())
        self._classes: Dataset = Dataset.empty()
        self.set_new_point_label(1)
        self.sync(self._settings)
        self._connect()

    def _learner_box(self) -> QGroupBox:
        """Rule, its parameters, tie, bias, features, order, seed and start w₀."""
        learner = QGroupBox("Learner")
        self.learner_box = learner
        form = QFormLayout(learner)
        self.algorithm = QComboBox(objectName="algorithmCombo")
        for name, rule in LEARNERS.items():
            self.algorithm.addItem(rule.title, name)
        form.addRow("Rule", self.algorithm)
        self._add_parameter_boxes(form)
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
        self.preprocessing = _choices("preprocessing", _PREPROCESSING)
        form.addRow("Features", self.preprocessing)
        self.order = _choices("order", _ORDER)
        form.addRow("Order", self.order)
        self.seed = QSpinBox(objectName="seedSpin")
        self.seed.setRange(0, MAX_SEED)
        self.seed.setKeyboardTracking(False)
        self.seed.setToolTip("Seeds the random order and random initial weights")
        form.addRow("Seed", self.seed)
        self.initial = _choices("initial", _INITIAL)
        form.addRow("Start w₀", self.initial)
        self.initial_edit = QLineEdit(objectName="initialEdit")
        self.initial_edit.setPlaceholderText("w₀, bias first: 0.5, 1, -1")
        form.addRow("", self.initial_edit)
        return learner

    def _add_parameter_boxes(self, form: QFormLayout) -> None:
        """One box per parameter name the rules have; each rule sets its range and help."""
        self.boxes: dict[str, ParameterSpin | QComboBox] = {}
        self.parameter_labels: dict[str, QLabel] = {}
        for name, parameter in all_parameters().items():
            box: ParameterSpin | QComboBox
            if parameter.choices:
                box = _choices(camel_case(name), {c: c for c in parameter.choices})
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

    def _run_box(self) -> QGroupBox:
        """The run buttons (`_BUTTONS`), the speed and the class a left click adds."""
        run = QGroupBox("Run")
        self.run_box = run
        grid = QGridLayout(run)
        for attribute, text, name, tip, cell in _BUTTONS:
            button = QPushButton(text, objectName=name)
            button.setToolTip(tip)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keep Space and Enter for shortcuts
            setattr(self, attribute, button)
            grid.addWidget(button, *cell)
        self.run_button.setCheckable(True)
        speed_row = QHBoxLayout()
        self.speed_label = QLabel("Speed")
        self.speed = QSlider(Qt.Orientation.Horizontal, objectName="speedSlider")
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setValue(SPEEDS.index(DEFAULT_SPEED))
        self.speed.setToolTip("Trials per second while running")
        self.speed_text = QLabel(objectName="speedValue")
        self.speed_text.setMinimumWidth(90)
        speed_row.addWidget(self.speed_label)
        speed_row.addWidget(self.speed, 1)
        speed_row.addWidget(self.speed_text)
        self._speed_row = speed_row
        self._run_grid = grid
        grid.addLayout(speed_row, 2, 0, 1, 3)
        self.class_toggle = QPushButton(objectName="classToggle")
        self.class_toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.class_toggle.setToolTip(
            "Which class a left click adds (right click adds the other of two): click for "
            "the next class, or press 1–9 (a key past the last class adds classes)"
        )
        grid.addWidget(self.class_toggle, 3, 0, 1, 3)
        return run

    def arrange_run(self, row: bool) -> None:
        """The run box as a grid (the side panel: Step, Run, Reset over Next mistake and
        Epoch, the speed under them) or as one row (presentation's run row, under the
        plot: the five buttons, then the speed)."""
        grid = self._run_grid
        buttons = [getattr(self, attribute) for attribute, *_ in _BUTTONS]
        for button in buttons:
            grid.removeWidget(button)
        grid.removeItem(self._speed_row)
        order = ("step_button", "run_button", "reset_button", "next_mistake_button", "epoch_button")
        if row:
            for column, attribute in enumerate(order):
                grid.addWidget(getattr(self, attribute), 0, column)
            grid.addLayout(self._speed_row, 0, len(order), 1, 1)
            grid.setColumnStretch(len(order), 1)
        else:
            for (*_, cell), button in zip(_BUTTONS, buttons, strict=True):
                grid.addWidget(button, *cell)
            grid.addLayout(self._speed_row, 2, 0, 1, 3)
            grid.setColumnStretch(len(order), 0)
        self.run_box.setTitle("" if row else "Run")

    def _connect(self) -> None:
        """Every widget change becomes a request (`setting_requested`)."""
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
        self._enter_applies = _EnterApplies(self.editing_done.emit, self)
        for field in (*self.boxes.values(), self.seed, self.initial_edit):
            if isinstance(field, QAbstractSpinBox | QLineEdit):
                field.installEventFilter(self._enter_applies)
        self.initial.currentIndexChanged.connect(self._request_initial)
        self.initial_edit.editingFinished.connect(self._request_initial)
        self.speed.valueChanged.connect(self._on_speed)
        self.class_toggle.clicked.connect(self._next_class)

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
        self._show_classes(frame.dataset)
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
        """Lecture-hall type; the learner settings and the class toggle hidden (the speed
        stays: the class watches the pace). The run box may live elsewhere in the window."""
        self.learner_box.setVisible(not on)
        self.class_toggle.setVisible(not on)
        font = label_font(on)
        self.run_box.setFont(font)
        for widget in {*self.findChildren(QWidget), *self.run_box.findChildren(QWidget)}:
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

    @property
    def new_point_label(self) -> int:
        return self._new_point_label

    def set_new_point_label(self, label: int) -> None:
        """The class a left click adds: the button shows its glyph and name."""
        ds = self._classes
        if label not in ds.classes:
            label = 1 if len(ds.classes) == 2 else ds.classes[0]
        self._new_point_label = label
        count = len(ds.classes)
        index = ds.classes.index(label)
        glyph = ClassLayers.glyphs(count, 16.0)[index]
        self.class_toggle.setIcon(QIcon(glyph))
        if count == 2:
            here, other = ("+1", "−1") if label > 0 else ("−1", "+1")
            text = f"Left click adds {here} (right: {other})"
        else:
            text = f"Left click adds class {class_text(ds, label)} (key {index + 1})"
        self.class_toggle.setText(text)
        self.new_point_label_changed.emit(label)

    def _next_class(self) -> None:
        classes = self._classes.classes
        self.set_new_point_label(classes[(classes.index(self._new_point_label) + 1) % len(classes)])

    def _show_classes(self, ds: Dataset) -> None:
        """Keep the class button's choice among `ds`'s classes (their names may change)."""
        if (ds.classes, ds.class_names) != (self._classes.classes, self._classes.class_names):
            self._classes = ds
            self.set_new_point_label(self._new_point_label)
