"""`ParameterSpin`: a number box built from a rule's `Parameter`.

It shows exactly the number the run uses (200, 0.0004, 0.037500000000000006): never
clamped or rounded, so Enter on it changes nothing. Where a rule may derive the value
(Adaline's η, Winnow's θ = n), an empty box and Enter go back to the rule's own.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QAbstractSpinBox

from simulator.engine import Parameter

__all__ = ["ParameterSpin", "camel_case", "exact_text"]


def camel_case(name: str) -> str:
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
        super().__init__(objectName=f"{camel_case(parameter.name)}Spin")
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
