"""A lesson's text with its numbers filled from the engine: placeholders, values, formats.

A lesson's text never types a number the engine computes; it names it: ``{gamma}``,
``{k}``, ``{w}``. At each step the player asks the run for every value (`values_of`) and
fills the text (`fill`). The same name with ``@N`` is its value at step N (an earlier
step: ``{k@2}``), and a format after a colon sets the digits (``{gamma:.3f}``). ``{{`` and
``}}`` are literal braces. Names and formats are checked when the lesson loads
(`check_text`), so a typo is an error naming the step, not a blank on the screen.

A value that does not apply to the run (``{bound}`` for Adaline, ``{score}`` before the
first trial) is `NotApplicable`: the player reports the step and the reason.

Numbers are written for a lecture hall, as the panel and the strip write them
(`simulator.engine.numbers`): whole numbers as they are (``3``, ``−2``, a true minus
sign), others with 4 significant digits (``0.3333``), up to a million without an exponent
(``51387``); ∞ for an unbounded value, — for an undefined one. A vector is ``(1, −2)``,
K vectors ``[(…); (…)]``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator.engine.dataset import Dataset
from simulator.engine.lab import consistent_disjunction
from simulator.engine.numbers import MINUS, format_number
from simulator.engine.simulation import Simulation

__all__ = [
    "PLACEHOLDERS",
    "NotApplicable",
    "Placeholder",
    "check_text",
    "fill",
    "format_value",
    "label_value",
    "placeholders_in",
    "values_of",
]


@dataclass(frozen=True, slots=True)
class NotApplicable:
    """A value the run does not have, and why."""

    reason: str


Value = int | float | str | tuple[Any, ...] | NotApplicable

PLACEHOLDERS: dict[str, str] = {
    "trial": "the trials run so far",
    "epoch": "the epoch of the latest trial",
    "k": "the mistakes so far",
    "n": "the number of points",
    "d": "the coordinates of a point",
    "w": "the weight vector (bias first), or the K class vectors",
    "gamma": "γ*, the data's margin in the learner's feature space (≤ 0: not separable)",
    "R": "R, the largest length of a feature vector",
    "bound": "the learner's mistake bound (R²/γ*² for the perceptron, Winnow's own, …)",
    "margin": "the margin of the current w: minᵢ yᵢ(w·xᵢ − θ)/‖w‖",
    "errors": "training points the learner's own prediction gets wrong now",
    "w_errors": "training points the current w gets wrong now (the run's tie rule)",
    "point": "the number (from 1) of the latest trial's point",
    "x": "the latest trial's point, its coordinates",
    "y": "the latest trial's label",
    "score": "the latest trial's score s = w·x − θ",
    "vector": "the latest trial's feature vector as the learner sees it (bias first)",
    "next_point": "the number of the point the next trial shows",
    "next_x": "that point's coordinates",
    "next_y": "that point's label",
    "next_score": "the score the current w gives it",
    "relevant": "the variables (from 1) of the OR that labels boolean data",
    "r": "how many variables that OR has",
    "converged_at": "the trial at which the run converged",
    "diverged_at": "the trial at which the run diverged",
    "mse": "the mean squared error at the end of the latest epoch",
    "online_rate_limit": "the online learning rates below this are stable (2/R²)",
    "batch_rate_limit": "the batch learning rates below this are stable (2/λ_max)",
    "A": "Novikoff's A_k = (w − w₀)·u*/(ηγ*): at least k",
    "B": "Novikoff's B_k = (‖w‖² − ‖w₀‖²)/(η²R²): at most k",
}
"""The placeholders every run fills, with what they mean. Each parameter of the run's
learner is one too, by its name (``{learning_rate}``, ``{threshold}``, ``{degree}``)."""

_PLACEHOLDER = re.compile(
    r"\{\{|\}\}|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:@(?P<step>[0-9]+))?(?::(?P<spec>[^{}]*))?\}"
)
_LONE_BRACE = re.compile(r"[{}]")


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One placeholder of a text: its name, the earlier step it reads (None: this one),
    its format ("" for the default)."""

    name: str
    step: int | None
    spec: str
    source: str  # as written, for messages


def placeholders_in(text: str) -> list[Placeholder]:
    """The placeholders of `text`, in order; a ValueError for a brace that opens none."""
    found = []
    position = 0
    for match in _PLACEHOLDER.finditer(text):
        _check_no_lone_brace(text[position : match.start()])
        position = match.end()
        if match.group("name") is None:
            continue
        step = match.group("step")
        found.append(
            Placeholder(
                match.group("name"),
                None if step is None else int(step),
                match.group("spec") or "",
                match.group(0),
            )
        )
    _check_no_lone_brace(text[position:])
    return found


def _check_no_lone_brace(segment: str) -> None:
    lone = _LONE_BRACE.search(segment)
    if lone is not None:
        near = segment[max(0, lone.start() - 12) : lone.start() + 12].replace("\n", " ")
        raise ValueError(
            f"a brace that is no placeholder near {near!r}: write {{{{ or }}}} for a brace"
        )


def check_text(text: str, step: int, learner_parameters: Callable[[], set[str]]) -> None:
    """A ValueError naming the first placeholder `text` (of step number `step`) cannot
    have: an unknown name, a step that is not an earlier one, a format numbers refuse.
    `learner_parameters` gives the parameter names of every learner (asked only when a
    name is not one of `PLACEHOLDERS`)."""
    for placeholder in placeholders_in(text):
        name = placeholder.name
        if name not in PLACEHOLDERS and name not in learner_parameters():
            raise ValueError(
                f"unknown placeholder {placeholder.source}; use one of "
                + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS)
                + " or a learner parameter such as {learning_rate}"
            )
        if placeholder.step is not None and not 1 <= placeholder.step < step:
            raise ValueError(
                f"{placeholder.source} reads step {placeholder.step}, which is not an earlier step"
            )
        if placeholder.spec:
            try:
                format(1.5, placeholder.spec)
            except ValueError:
                raise ValueError(
                    f"{placeholder.source}: {placeholder.spec!r} is not a number format "
                    "(try .3f or .4g)"
                ) from None


def fill(
    text: str, values: Mapping[str, Value], earlier: Callable[[int], Mapping[str, Value]]
) -> str:
    """`text` with its placeholders replaced by `values` (those of an earlier step by
    `earlier(step)`). A `ValueError` for a value the run does not have."""

    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole in ("{{", "}}"):
            return whole[0]
        name, step = match.group("name"), match.group("step")
        table = values if step is None else earlier(int(step))
        if name not in table:
            raise ValueError(f"{whole}: this run's learner has no such parameter")
        value = table[name]
        if isinstance(value, NotApplicable):
            raise ValueError(f"{whole}: {value.reason}")
        return format_value(value, match.group("spec") or "")

    return _PLACEHOLDER.sub(replace, text)


def format_value(value: Any, spec: str = "") -> str:
    """A value as lesson text writes it (see the module docstring)."""
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):
            return "[" + "; ".join(format_value(row, spec) for row in value) + "]"
        return "(" + ", ".join(format_value(v, spec) for v in value) + ")"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return (format(value, spec) if spec else str(value)).replace("-", MINUS)
    number = float(value)
    if spec and math.isfinite(number):
        return format(number, spec).replace("-", MINUS)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number)).replace("-", MINUS)
    return format_number(number)  # the panel's and the strip's digits and signs


# -- the values of a run ---------------------------------------------------------------------


def _plain(array: Any) -> Any:
    """A weight array as plain, hashable values: a tuple, or a tuple of rows."""
    values = np.asarray(array, dtype=np.float64)
    if values.ndim == 2:
        return tuple(tuple(float(v) for v in row) for row in values)
    return tuple(float(v) for v in values.ravel())


def values_of(simulation: Simulation) -> dict[str, Value]:
    """Every placeholder's value for `simulation` at its current trial."""
    sim = simulation
    learner = sim.learner
    points, labels = sim.dataset.points, sim.dataset.labels
    report = sim.margin_report()
    bound = sim.bound
    values: dict[str, Value] = {
        "trial": sim.trials,
        "epoch": sim.epoch,
        "k": sim.mistakes,
        "n": len(sim.dataset),
        "d": sim.dataset.dimension,
        "w": _plain(sim.shown_weights()),
        "gamma": float(report.gamma),
        "R": float(report.radius),
        "bound": (
            NotApplicable(f"{learner.title} has no mistake bound here")
            if bound is None
            else float(bound.value)
        ),
        "margin": sim.current_margin(),
        "errors": int(np.count_nonzero(sim.predict(points) != labels)),
        "w_errors": int(np.count_nonzero(sim.snapshot().misclassified)),
        **_latest_trial(sim),
        **_next_trial(sim),
        **_disjunction(sim),
        "converged_at": (
            NotApplicable("the run has not converged (yet)")
            if sim.converged_at is None
            else sim.converged_at
        ),
        "diverged_at": (
            NotApplicable("the run has not diverged")
            if sim.diverged_at is None
            else sim.diverged_at
        ),
        "mse": _latest_loss(sim),
        **_rate_limits(sim),
        **_proof(sim),
    }
    for name, value in learner.values.items():
        values[name] = value if isinstance(value, int | float | str) else str(value)
    return values


def _latest_trial(sim: Simulation) -> dict[str, Value]:
    trial = sim.last_trial
    if trial is None:
        missing = NotApplicable("there is no trial yet (trial 0)")
        return dict.fromkeys(("point", "x", "y", "score", "vector"), missing)
    return {
        "point": trial.index + 1,
        "x": tuple(float(v) for v in trial.point),
        "y": label_value(sim.dataset, trial.y),
        "score": float(trial.score),
        "vector": tuple(float(v) for v in trial.x),
    }


def _next_trial(sim: Simulation) -> dict[str, Value]:
    """The next trial's point and its score, by running it and rewinding."""
    now = sim.trials
    trial = sim.step()
    sim.seek(now)
    return {
        "next_point": trial.index + 1,
        "next_x": tuple(float(v) for v in trial.point),
        "next_y": label_value(sim.dataset, trial.y),
        "next_score": float(trial.score),
    }


def label_value(dataset: Dataset, label: int) -> Value:
    """A label as the notes write it: +1 or -1 for two classes, else the class number."""
    return f"{label:+d}" if len(dataset.classes) == 2 else int(label)


def _disjunction(sim: Simulation) -> dict[str, Value]:
    variables = consistent_disjunction(sim.dataset)
    if variables is None:
        missing = NotApplicable("these are not boolean data labelled by an OR")
        return {"relevant": missing, "r": missing}
    return {"relevant": variables, "r": len(variables)}


def _latest_loss(sim: Simulation) -> Value:
    """The loss at the end of the latest epoch completed by the current trial (the history
    may hold later ones after a rewind)."""
    losses = sim.epoch_losses()
    if sim.trials == 0:
        return NotApplicable("no epoch has ended yet")
    ended = sim.trials_left_in_epoch == sim.epoch_length
    completed = min(sim.epoch if ended else sim.epoch - 1, len(losses))
    if completed <= 0:
        return NotApplicable("no epoch has ended yet")
    return float(losses[completed - 1])


def _rate_limits(sim: Simulation) -> dict[str, Value]:
    if sim.weights.ndim != 1:
        missing = NotApplicable("the stable learning rates are those of one weight vector")
        return dict.fromkeys(("online_rate_limit", "batch_rate_limit"), missing)
    report = sim.adaline_report(least_squares=False)
    return {
        "online_rate_limit": float(report.online_rate_limit),
        "batch_rate_limit": float(report.batch_rate_limit),
    }


def _proof(sim: Simulation) -> dict[str, Value]:
    """A_k and B_k of Novikoff's proof, where the learner's bound is proved by it."""
    bound = sim.bound
    report = sim.margin_report()
    why = None
    if bound is None or not bound.proof:
        why = f"{sim.learner.title}'s mistakes are not bounded by Novikoff's proof"
    elif not report.separable or report.separator is None or not report.gamma > 0:
        why = "the data are not linearly separable, so the proof has no u*"
    if why is not None:
        return dict.fromkeys(("A", "B"), NotApplicable(why))
    assert bound is not None and report.separator is not None
    w, w0 = sim.proof_weights(), sim.proof_weights(start=True)
    u = np.asarray(report.separator, dtype=np.float64)
    eta, gamma, radius = bound.rate, float(report.gamma), float(report.radius)
    return {
        "A": float(np.dot(w - w0, u) / (eta * gamma)),
        "B": float((np.dot(w, w) - np.dot(w0, w0)) / (eta * radius) ** 2),
    }
