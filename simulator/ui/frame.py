"""`Frame`: everything a view draws for one moment of a run, computed by the engine.

The controller builds a frame after every change and hands the same immutable record to
the plot, the side panel and the exporter; views only paint it. This module does not
import Qt, so frames can be built and tested without a display.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator.engine import (
    AdalineReport,
    Dataset,
    InputLine,
    MarginReport,
    Settings,
    Simulation,
    Snapshot,
)

__all__ = [
    "RULE_TITLES",
    "Frame",
    "build_frame",
    "explain_trial",
    "format_number",
    "format_vector",
    "status_text",
]

RULE_TITLES = {
    "perceptron": "Perceptron",
    "winnow": "Winnow",
    "balanced-winnow": "Balanced Winnow",
    "adaline": "Adaline",
}


@dataclass(frozen=True, slots=True)
class Frame:
    """One moment of a run, as plain values (see the module docstring)."""

    dataset: Dataset
    settings: Settings
    rule_title: str
    rule_parameters: str
    learning_rate: float | None  # the rule's η (None for the Winnows)
    promotion: float | None  # the rule's α (None for the perceptron and Adaline)
    snapshot: Snapshot
    report: MarginReport
    mistake_bound: float
    bound_is_general: bool
    boundary: InputLine | None
    previous_boundary: InputLine | None
    separator: InputLine | None
    margin_lines: tuple[InputLine, InputLine] | None
    radius_curve: NDArray[np.float64] | None
    adaline: AdalineReport | None
    status: str
    boundary_note: str | None


def format_number(value: float | None, digits: int = 6) -> str:
    """A plain number a test can parse (at least 4 significant digits); ∞, or — if undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    return f"{value:.{digits}g}"


def format_vector(values: tuple[float, ...] | None, digits: int = 6) -> str:
    if values is None:
        return "—"
    return ", ".join(format_number(v, digits) for v in values)


def status_text(sim: Simulation, snapshot: Snapshot, report: MarginReport) -> str:
    """The one-line status of the side panel."""
    ds = sim.dataset
    if len(ds) == 0:
        return "Empty data: place points (left click +1, right click −1)."
    if snapshot.diverged:
        return f"Diverged: {snapshot.divergence_reason}"
    conflicts = ds.conflicting_pairs()
    if snapshot.converged:
        return f"Converged at trial {snapshot.converged_at}: a whole epoch without an update."
    if conflicts:
        i, j = conflicts[0]
        return (
            f"Not linearly separable: points {i} and {j} sit at the same place with "
            "opposite labels."
        )
    if not report.separable:
        return "Not linearly separable: no line splits the classes, so k has no bound."
    if ds.count(1) == 0 or ds.count(-1) == 0:
        return "One class only: any line with every point on its side will do."
    if snapshot.trials == 0:
        return "Ready: press Step (Space) or Run (Enter)."
    return f"Not converged yet: trial {snapshot.trials}, epoch {snapshot.epoch}."


def build_frame(sim: Simulation) -> Frame:
    """The frame for the simulation's current state."""
    snapshot = sim.snapshot()
    report = sim.margin_report()
    features = sim.features
    trial = snapshot.last_trial
    previous = None
    if trial is not None and trial.updated:
        previous = features.input_line(np.array(trial.weights_before), sim.threshold)
    separator = margin_lines = None
    if report.separator is not None:
        u = np.array(report.separator)
        separator = features.input_line(u)
        low, high = features.input_line(u, -report.gamma), features.input_line(u, report.gamma)
        if low is not None and high is not None:
            margin_lines = (low, high)
    boundary = sim.boundary()
    note = None
    if boundary is None and len(sim.dataset):
        if not features.is_linear_in_input and sim.threshold:
            note = "With unit-length features and θ ≠ 0 the boundary is not a straight line here."
        elif not np.any(sim.weights[1:] if features.bias else sim.weights):
            note = (
                "w has no direction in the plane yet (its coordinate weights are 0): "
                "every point gets the same score, so there is no boundary to draw."
            )
    radius_curve = (
        features.input_radius_curve(report.radius) if math.isfinite(report.radius) else None
    )
    settings = sim.settings
    return Frame(
        dataset=sim.dataset,
        settings=settings,
        rule_title=RULE_TITLES[settings.algorithm],
        rule_parameters=sim.rule.describe(),
        learning_rate=getattr(sim.rule, "learning_rate", None),
        promotion=getattr(sim.rule, "promotion", None),
        snapshot=snapshot,
        report=report,
        mistake_bound=sim.mistake_bound(),
        bound_is_general=settings.algorithm == "perceptron" and bool(np.any(sim.initial_weights)),
        boundary=boundary,
        previous_boundary=previous,
        separator=separator,
        margin_lines=margin_lines,
        radius_curve=radius_curve,
        adaline=sim.adaline_report() if settings.algorithm == "adaline" else None,
        status=status_text(sim, snapshot, report),
        boundary_note=note,
    )


def _signed(label: int) -> str:
    return "+1" if label > 0 else "−1"


def explain_trial(frame: Frame) -> str:
    """The arithmetic of the latest trial in words, as the course notes write it (HTML)."""
    trial = frame.snapshot.last_trial
    if trial is None:
        return "No trial yet. Step (Space) shows one point to the learner and its update."
    algorithm = frame.settings.algorithm
    eta, alpha = frame.learning_rate, frame.promotion
    theta = frame.snapshot.threshold
    x, w0, w1 = (format_vector(v, 4) for v in (trial.x, trial.weights_before, trial.weights_after))
    s = format_number(trial.score, 4)
    verdict = {1: "predicts +1", -1: "predicts −1", 0: "undecided (s = 0)"}[trial.prediction]
    outcome = "<b>mistake</b>" if trial.mistake else "correct"
    head = (
        f"Trial {trial.number} (epoch {trial.epoch}): point #{trial.index}, "
        f"x = ({x}), y = {_signed(trial.y)}."
    )
    if algorithm == "winnow":
        score = f"s = w·x − θ = {format_number(trial.score + theta, 4)} − {format_number(theta, 4)}"
        score += f" = {s}"
    elif algorithm == "balanced-winnow":
        score = f"s = w⁺·x − w⁻·x = {s}"
    else:
        score = f"s = w·x = {s}"
    lines = [head, f"{score}: {verdict}, {outcome}."]
    if algorithm == "adaline" and frame.settings.mode == "batch":
        if trial.updated:
            lines.append(f"End of epoch: w ← w + η Σ (y − w·x) x = ({w1}).")
        else:
            lines.append("Batch Adaline: the gradient step comes at the end of the epoch.")
    elif algorithm == "adaline":
        lines.append(
            f"w ← w + η (y − s) x = ({w0}) + {format_number(eta, 4)}·"
            f"({format_number(trial.y - trial.score, 4)})·({x}) = ({w1})."
        )
    elif not trial.mistake:
        lines.append("No update: w stays.")
    elif not trial.updated:
        lines.append(
            "No update: the weights would overflow, so they stay (diverged)."
            if frame.snapshot.diverged
            else "x = 0 here, so the update changes nothing."
        )
    elif algorithm == "perceptron":
        lines.append(
            f"w ← w + η y x = ({w0}) + {format_number(eta, 4)}·({_signed(trial.y)})·({x}) = ({w1})."
        )
    elif algorithm == "winnow":
        lines.append(f"wᵢ ← wᵢ · α^(y xᵢ) with α = {format_number(alpha, 4)}: ({w0}) → ({w1}).")
    else:
        lines.append(
            f"wᵢ⁺ ← wᵢ⁺ α^(y xᵢ), wᵢ⁻ ← wᵢ⁻ α^(−y xᵢ), α = {format_number(alpha, 4)}: "
            f"w = w⁺ − w⁻ goes ({w0}) → ({w1})."
        )
    return "<br>".join(lines)
