"""`Frame`: everything a view draws for one moment of a run, computed by the engine.

The controller builds a frame after every change and hands the same immutable record to
the plot, the side panel and the exporter; views only paint it. What is drawn is data
(`drawables`, each with a role the view maps to a pen and a legend entry); the trial's
arithmetic is one `explain()` (`presentation.explain`). This module does not import Qt,
so frames can be built and tested without a display.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator.engine import (
    AdalineReport,
    Bound,
    Dataset,
    InputLine,
    Learner,
    MarginReport,
    Settings,
    Simulation,
    Snapshot,
)
from simulator.engine.drawables import Drawable, Line
from simulator.engine.lab import disjunction_variables
from simulator.engine.numbers import (
    OVERFLOWED,
    format_bound,
    format_number,
    format_vector,
)
from simulator.presentation.explain import explain
from simulator.presentation.trace import Trace, trace_of

__all__ = [
    "OVERFLOWED",
    "Frame",
    "build_frame",
    "explain_trial",
    "format_bound",
    "format_number",
    "format_vector",
    "settings_line",
    "settings_parts",
    "status_text",
]


@dataclass(frozen=True, slots=True)
class Frame:
    """One moment of a run, as plain values (see the module docstring)."""

    dataset: Dataset
    settings: Settings
    learner: Learner  # the run's learner (frozen): its title, parameters, formulas
    snapshot: Snapshot
    report: MarginReport  # γ*, R, R²/γ*² in the learner's feature space
    bound: Bound | None  # the mistake bound that applies to this run; None: none does
    drawables: tuple[Drawable, ...]
    radius_curve: NDArray[np.float64] | None
    # Least squares (w_LS, the stable η) for a learner that descends the squared error.
    least_squares: AdalineReport | None
    status: str
    boundary_note: str | None
    trace: Trace  # the road here: mistakes, the proof's A_k and B_k, losses (trace.py)
    # d ≠ 2 (the high-dimensional view): the variables (from 1) of the largest OR the
    # boolean data allow, so their weights can stand out; None when there is no such OR.
    relevant: tuple[int, ...] | None = None
    # The trials (from 1) of the mistakes up to this moment, read-only (k against the trial).
    mistake_trials: NDArray[np.int64] | None = None
    # The learner's own numbers for the panel, (label, value) each (`Learner.numbers`).
    learner_numbers: tuple[tuple[str, str], ...] = ()
    # α of each point for a learner in dual form (the kernel perceptron), else None: the
    # plot rings each point by its α.
    dual: NDArray[np.float64] | None = None
    # The run's feature vectors (read-only, the simulation's own): the strip numbers the
    # terms of a score that sums over the data (`Learner.explain_terms`).
    feature_rows: NDArray[np.float64] | None = None

    @property
    def rule(self) -> Learner:
        """The round-2 name of `learner`."""
        return self.learner

    @property
    def mistake_bound(self) -> float | None:
        return None if self.bound is None else self.bound.value

    @property
    def bound_is_general(self) -> bool:
        return self.bound is not None and self.bound.general

    def line(self, role: str) -> InputLine | None:
        """The line drawn under `role`, if one is."""
        return next(
            (d.line for d in self.drawables if isinstance(d, Line) and d.role == role), None
        )

    def lines(self, role: str) -> tuple[InputLine, ...]:
        """Every line drawn under `role` (the margin perceptron's band has two)."""
        return tuple(d.line for d in self.drawables if isinstance(d, Line) and d.role == role)

    @property
    def weights_name(self) -> str:
        """What the band, the panel and the ledger call the weights: W for K rows, else
        the learner's name for them (`Learner.weights_name`)."""
        return "W" if self.snapshot.rows > 1 else self.learner.weights_name

    @property
    def curved(self) -> bool:
        """Whether the boundary is a curve in the plane (a feature map, a kernel, a vote)."""
        return (
            self.learner.curved
            or self.settings.features != "linear"
            or (self.settings.preprocessing == "unit" and self.learner.threshold != 0)
        )

    @property
    def boundary(self) -> InputLine | None:
        return self.line("boundary")

    @property
    def previous_boundary(self) -> InputLine | None:
        return self.line("previous")

    @property
    def separator(self) -> InputLine | None:
        return self.line("separator")

    @property
    def margin_lines(self) -> tuple[InputLine, InputLine] | None:
        low, high = self.line("margin-low"), self.line("margin-high")
        return None if low is None or high is None else (low, high)

    @property
    def least_squares_line(self) -> InputLine | None:
        return self.line("least-squares")


def status_text(sim: Simulation, snapshot: Snapshot, report: MarginReport) -> str:
    """The one-line status of the side panel."""
    ds = sim.dataset
    learner = sim.learner
    if len(ds) == 0:
        return "Empty data: place points (left click +1, right click −1)."
    if snapshot.diverged:
        return f"Diverged: {snapshot.divergence_reason}"
    if snapshot.converged and snapshot.converged_at is not None:
        return learner.explain_stop(snapshot.converged_at)
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
            "different labels."
        )
    if not report.separable and report.decided:
        if not learner.theory_in_plane or sim.settings.features != "linear":
            space = learner.theory_space if not learner.theory_in_plane else "feature space"
            return (
                f"Not separable in {space}: no hyperplane there splits the classes, so k "
                "has no bound."
            )
        where = "" if sim.features.bias else " through the origin (bias is off)"
        return f"Not linearly separable: no line{where} splits the classes, so k has no bound."
    if sum(1 for c in ds.classes if ds.count(c)) < 2:
        return "One class only: any line with every point on its side will do."
    if snapshot.trials == 0:
        return "Ready: press Step (Space) or Run (Enter)."
    return f"Not converged yet: trial {snapshot.trials}, epoch {snapshot.epoch}."


def _theory_drawables(sim: Simulation, report: MarginReport) -> list[Drawable]:
    """The optimal separator u* and its margin band, and Adaline's w_LS line."""
    features = sim.features
    drawn: list[Drawable] = []
    if report.separator is not None and sim.learner.theory_in_plane:
        u = np.array(report.separator)
        for role, level in (("separator", 0.0), ("margin-low", -report.gamma),
                            ("margin-high", report.gamma)):  # fmt: skip
            line = features.input_line(u, level)
            if line is not None:
                drawn.append(Line(role, line))
    if sim.learner.least_squares and len(sim.dataset):
        least = sim.adaline_report().least_squares
        if least is not None:
            line = features.input_line(np.array(least))
            if line is not None:
                drawn.append(Line("least-squares", line))
    return drawn


def _boundary_note(sim: Simulation) -> str | None:
    """Why the plane shows no boundary, when it shows none; None off the plane (d ≠ 2: the
    high-dimensional view draws bars, and has no line to miss)."""
    if sim.dataset.dimension != 2:
        return None
    if not len(sim.dataset) or any(d.role == "boundary" for d in _drawn(sim)):
        return None
    features = sim.features
    if not features.is_linear_in_input and sim.threshold and features.map == "linear":
        return "With unit-length features and θ ≠ 0 the boundary is not a straight line here."
    w = sim.weights
    if w.ndim == 1 and not np.any(w[1:] if features.bias else w):
        return (
            "w has no direction in the plane yet (its coordinate weights are 0): "
            "every point gets the same score, so there is no boundary to draw."
        )
    return None


def _drawn(sim: Simulation) -> tuple[Drawable, ...]:
    return tuple(sim.learner.drawables(sim.learner_state, sim.features))


def build_frame(sim: Simulation) -> Frame:
    """The frame for the simulation's current state."""
    snapshot = sim.snapshot()
    report = sim.margin_report()
    learner = sim.learner
    drawables: list[Drawable] = list(_drawn(sim))
    trial = snapshot.last_trial
    if trial is not None and trial.updated:
        before = sim.trial_state_before()
        if before is not None:
            drawables += learner.drawables(before, sim.features, role="previous")[:1]
    drawables += _theory_drawables(sim, report)
    radius_curve = (
        sim.features.input_radius_curve(report.radius)
        if math.isfinite(report.radius) and learner.theory_in_plane
        else None
    )
    return Frame(
        dataset=sim.dataset,
        settings=sim.settings,
        learner=learner,
        snapshot=snapshot,
        report=report,
        bound=sim.bound,
        drawables=tuple(drawables),
        radius_curve=radius_curve,
        least_squares=sim.adaline_report() if learner.least_squares else None,
        status=status_text(sim, snapshot, report),
        boundary_note=_boundary_note(sim),
        trace=trace_of(sim),
        relevant=disjunction_variables(sim.dataset) if sim.dataset.dimension != 2 else None,
        mistake_trials=sim.mistake_trials()[: snapshot.mistakes],
        learner_numbers=sim.learner_numbers(),
        dual=sim.dual,
        feature_rows=sim.feature_matrix,
    )


_TIE_SHORT = {"mistake": "s = 0 is a mistake", "positive": "s = 0 → +1", "negative": "s = 0 → −1"}


def settings_line(frame: Frame, learner: bool = True) -> str:
    """The run's settings on one line, as the presentation strip and the status say them:
    the learner with its parameters as used (`learner`: named first), bias, feature map,
    preprocessing, order and what a tie means."""
    return " · ".join(settings_parts(frame, learner))


def settings_parts(frame: Frame, learner: bool = True, short: bool = False) -> list[str]:
    """The parts of `settings_line`; `short`: without the words that only explain (no bias
    says "no bias", not "(lines through the origin)"), for a line that must fit a width."""
    settings, rule = frame.settings, frame.learner
    parts = []
    if learner or rule.describe():
        described = f"{rule.title} ({rule.describe()})" if rule.describe() else rule.title
        parts.append(described if learner else rule.describe())
    if settings.bias:
        parts.append("bias")
    else:
        parts.append("no bias" if short else "no bias (lines through the origin)")
    if settings.features != "linear":
        parts.append(f"{settings.features} features")
    if settings.preprocessing != "none":
        parts.append(settings.preprocessing)
    parts.append(f"{settings.order} order")
    parts.append(_TIE_SHORT[settings.tie or rule.tie])
    return parts


def explain_trial(frame: Frame) -> str:
    """The arithmetic of the latest trial in words, as the course notes write it (HTML)."""
    return explain(frame).html()
