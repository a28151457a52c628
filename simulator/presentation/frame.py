"""`Frame`: everything a view draws for one moment of a run, computed by the engine.

The controller builds a frame after every change and hands the same immutable record to
the plot, the side panel and the exporter; views only paint it. This module does not
import Qt, so frames can be built and tested without a display.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator.engine import (
    TIE_TEXT,
    AdalineReport,
    Dataset,
    InputLine,
    MarginReport,
    Rule,
    Settings,
    Simulation,
    Snapshot,
)
from simulator.engine.lab import disjunction_variables
from simulator.presentation.trace import Trace, trace_of

__all__ = [
    "Frame",
    "build_frame",
    "explain_trial",
    "format_bound",
    "format_number",
    "format_vector",
    "status_text",
]


@dataclass(frozen=True, slots=True)
class Frame:
    """One moment of a run, as plain values (see the module docstring)."""

    dataset: Dataset
    settings: Settings
    rule: Rule  # the run's rule (frozen): its title, parameters, formulas, bound
    snapshot: Snapshot
    report: MarginReport
    mistake_bound: float | None  # the bound that applies to this rule; None: none does
    bound_is_general: bool
    boundary: InputLine | None
    previous_boundary: InputLine | None
    separator: InputLine | None
    margin_lines: tuple[InputLine, InputLine] | None
    radius_curve: NDArray[np.float64] | None
    # Least squares (w_LS, the stable η) for a rule whose class says `least_squares`, and
    # w_LS as a line in the plane (None where it has no direction there).
    least_squares: AdalineReport | None
    least_squares_line: InputLine | None
    status: str
    boundary_note: str | None
    trace: Trace  # the road here: mistakes, the proof's A_k and B_k, losses (trace.py)
    # d ≠ 2 (the high-dimensional view): the variables (from 1) of the largest OR the
    # boolean data allow, so their weights can stand out; None when there is no such OR.
    relevant: tuple[int, ...] | None = None
    # The trials (from 1) of the mistakes up to this moment, read-only (k against the trial).
    mistake_trials: NDArray[np.int64] | None = None


def format_number(value: float | None, digits: int = 6) -> str:
    """A plain number a test can parse (at least 4 significant digits); ∞, or — if undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    return f"{value:.{digits}g}"


OVERFLOWED = f"> {sys.float_info.max:.1e}".replace("e+", "e")  # "> 1.8e308"


def format_bound(value: float | None, separable: bool, digits: int = 6) -> str:
    """A mistake bound as text: `format_number`'s, except that on separable data an infinite
    bound is one that overflowed (R/γ* beyond 1.3e154, R²/γ*² past the largest float): it is
    finite, so it reads "> 1.8e308", not ∞ (which says the data have no bound)."""
    if value is not None and value == math.inf and separable:
        return OVERFLOWED
    return format_number(value, digits)


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
    if snapshot.converged:
        return f"Converged at trial {snapshot.converged_at}: a whole epoch without an update."
    if snapshot.cycle_period is not None:
        epochs = "epoch" if snapshot.cycle_period == 1 else f"{snapshot.cycle_period} epochs"
        return (
            f"Cycling: w at the start of an epoch repeats every {epochs} (seen at trial "
            f"{snapshot.cycle_found_at}), so it will never converge."
        )
    conflict = ds.first_conflict()
    if conflict is not None:
        i, j = conflict
        return (
            f"Not linearly separable: points {i + 1} and {j + 1} sit at the same place with "
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
    least_squares = sim.adaline_report() if sim.rule.least_squares else None
    least_squares_line = None
    if least_squares is not None and least_squares.least_squares is not None:
        least_squares_line = features.input_line(np.array(least_squares.least_squares))
    settings = sim.settings
    return Frame(
        dataset=sim.dataset,
        settings=settings,
        rule=sim.rule,
        snapshot=snapshot,
        report=report,
        mistake_bound=sim.mistake_bound(),
        bound_is_general=sim.bound_is_general,
        boundary=boundary,
        previous_boundary=previous,
        separator=separator,
        margin_lines=margin_lines,
        radius_curve=radius_curve,
        least_squares=least_squares,
        least_squares_line=least_squares_line,
        status=status_text(sim, snapshot, report),
        boundary_note=note,
        trace=trace_of(sim),
        relevant=disjunction_variables(sim.dataset) if sim.dataset.dimension != 2 else None,
        mistake_trials=sim.mistake_trials()[: snapshot.mistakes],
    )


def explain_trial(frame: Frame) -> str:
    """The arithmetic of the latest trial in words, as the course notes write it (HTML).

    The rule writes its own score and update (`Rule.explain_score`, `Rule.explain_update`).
    """
    trial = frame.snapshot.last_trial
    if trial is None:
        return "No trial yet. Step (Space) shows one point to the learner and its update."
    rule = frame.rule

    def number(value: float) -> str:
        return format_number(value, 4)

    x, w0, w1 = (format_vector(v, 4) for v in (trial.x, trial.weights_before, trial.weights_after))
    if trial.score == 0.0:  # an exact tie (the engine records it as exactly 0)
        tie = frame.settings.tie or rule.tie
        verdict = f"a tie, {TIE_TEXT[tie]}"
    else:
        verdict = {1: "predicts +1", -1: "predicts −1", 0: "undecided"}[trial.prediction]
    outcome = "<b>mistake</b>" if trial.mistake else "correct"
    head = (
        f"Trial {trial.number} (epoch {trial.epoch}): point #{trial.index + 1}, "
        f"x = ({x}), y = {'+1' if trial.y > 0 else '−1'}."
    )
    lines = [head, f"{rule.explain_score(trial.score, number)}: {verdict}, {outcome}."]
    snapshot = frame.snapshot
    stopped = snapshot.diverged_at is not None and trial.number >= snapshot.diverged_at
    if trial.updated:
        lines.append(rule.explain_update(x, trial.y, trial.score, w0, w1, number))
    elif stopped:
        # The rule's update was refused (or no longer made): never print it as applied.
        when = (
            "here" if trial.number == snapshot.diverged_at else f"at trial {snapshot.diverged_at}"
        )
        lines.append(f"No update: the run stopped updating {when} (the status says why). w stays.")
    elif rule.explain_no_update() is not None:
        lines.append(rule.explain_no_update() or "")
    elif not trial.mistake:
        lines.append("No update: w stays.")
    else:
        lines.append("x = 0 here, so the update changes nothing.")
    return "<br>".join(lines)
