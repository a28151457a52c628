"""The side of the window and the strip under the plot, importable from here as before.

- `ControlPanel` (`simulator.ui.control_panel`): the learner's controls, the run buttons.
- `TheoryPanel` (`simulator.ui.theory_panel`): γ*, R, the bound, k against it, w, status.
- `TrialExplanation` (`simulator.ui.trial_explanation`): the latest trial's arithmetic.
- `ParameterSpin` (`simulator.ui.parameter_spin`): a number box from a rule's `Parameter`.
- `ValueLabel`, `label_font`, `value_font` (`simulator.ui.value_label`): the panels' numbers
  and type.
"""

from __future__ import annotations

from simulator.ui.control_panel import SPEEDS, ControlPanel
from simulator.ui.parameter_spin import ParameterSpin, exact_text
from simulator.ui.theory_panel import TheoryPanel
from simulator.ui.trial_explanation import TrialExplanation
from simulator.ui.value_label import ValueLabel, label_font, value_font

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
