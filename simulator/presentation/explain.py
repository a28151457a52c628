"""The arithmetic of a trial in words, as the course notes write it: one Qt-free
`explain()` serves the window's strip, the high-dimensional view and export.

The learner writes its own score and update (`Learner.explain_score`, `explain_update`,
`explain_no_update`); this module adds the head (trial, epoch, point numbered from 1 as in
the notes, x, y), the verdict by the run's tie rule, and why nothing changed when nothing
did. A verdict floats could not certify (`Trial.certain` False) is marked "≈".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from html import escape
from typing import Any

from simulator.engine import TIE_TEXT, Simulation
from simulator.engine.numbers import format_number, format_vector

__all__ = [
    "BRIEF",
    "LONG",
    "NO_TRIAL",
    "PREVIEW_POINTS",
    "Explanation",
    "explain",
    "first_explanation",
    "label_text",
]

NO_TRIAL = "No trial yet. Step (Space) shows one point to the learner and its update."


@dataclass(frozen=True, slots=True)
class Explanation:
    """A trial explained: `head` (which point), `verdict` (score, prediction, right or
    wrong), `update` (what changed), each a sentence; `mistake` and `certain` as the run
    decided them. `lines()` in order; `html()` for rich text, `text()` plain."""

    head: str
    verdict: str
    update: str
    mistake: bool = False
    certain: bool = True

    def lines(self) -> tuple[str, ...]:
        return tuple(part for part in (self.head, self.verdict, self.update) if part)

    def text(self) -> str:
        return "\n".join(self.lines())

    def html(self, separator: str = "<br>") -> str:
        parts = [escape(part, quote=False) for part in self.lines()]
        if self.mistake and len(parts) > 1:
            parts[1] = parts[1].replace("mistake.", "<b>mistake</b>.")
        return separator.join(parts)


def _number(value: float) -> str:
    return format_number(value)


LONG = 10  # longer vectors are written as their first and last entries
BRIEF = 4  # ...or, where room is short (the high-dimensional view on a projector), these


def _vectors(longest: int) -> Callable[[Any], str]:
    """How the strip writes a vector: one longer than `longest` (many features) as its
    first entries and its last, with how many there are."""
    head_count = max(1, round(0.6 * longest))
    tail_count = max(1, longest - head_count - 2)

    def vector(values: Any) -> str:
        values = tuple(values)
        if len(values) <= longest:
            return format_vector(values)
        head, tail = format_vector(values[:head_count]), format_vector(values[-tail_count:])
        return f"{head}, …, {tail} ({len(values)} numbers)"

    return vector


def explain(frame: Any, *, longest: int = LONG) -> Explanation:
    """The latest trial of `frame` (see the module docstring); vectors longer than
    `longest` abbreviated."""
    vector = _vectors(longest)
    trial = frame.snapshot.last_trial
    if trial is None:
        return Explanation(NO_TRIAL, "", "")
    updated = trial.updated  # the engine's record says; the weights shown below may differ
    if len(trial.weights_after) == len(frame.snapshot.weights):
        # The weights now, as the panel writes them (exact where the engine has them).
        trial = replace(trial, weights_after=frame.snapshot.weights)
    learner = frame.learner
    classes = frame.dataset.class_names
    label = label_text(trial.y, frame.dataset)
    if len(trial.point) > longest:
        active = sum(1 for v in trial.point if v != 0)
        shown = f"{active} of {len(trial.point)} coordinates non-zero"
    else:
        shown = learner.explain_input(trial, frame.dataset, vector)
    where = f"Trial {trial.number} (epoch {trial.epoch}): point #{trial.index + 1}"
    head = f"{where}, {shown}, y = {label}."
    if trial.score == 0.0:  # an exact tie (the engine records it as exactly 0)
        tie = frame.settings.tie or learner.tie
        verdict = f"a tie, {TIE_TEXT[tie]}"
    elif (own := learner.explain_verdict(trial, frame.dataset)) is not None:
        verdict = own
    elif len(classes) == 2:
        verdict = {1: "predicts +1", -1: "predicts −1", 0: "undecided"}[trial.prediction]
    else:
        verdict = f"predicts {label_text(trial.prediction, frame.dataset)}"
    if not trial.certain:
        verdict = "≈ " + verdict + " (too close to 0 for floats to certify)"
    outcome = "mistake" if trial.mistake else "correct"
    rows = getattr(frame, "feature_rows", None)
    terms = (
        None if rows is None else learner.explain_terms(trial, rows, frame.dataset.labels, _number)
    )
    score = f"{terms or learner.explain_score(trial, _number)}: {verdict}, {outcome}."
    update = _update(frame, trial, vector, updated)
    return Explanation(head, score, update, trial.mistake, trial.certain)


def label_text(y: int, dataset: Any) -> str:
    """Label `y` as the strip writes it: +1 or −1 of two classes, else the class's index
    with its name when it has one, "2 (virginica)"."""
    if len(dataset.classes) == 2:
        return "+1" if y > 0 else "−1"
    return f"{y} ({dataset.class_names[y]})" if dataset.class_names[y] != str(y) else str(y)


PREVIEW_POINTS = 20_000
"""Up to this many points, `first_explanation` runs the first trial aside to measure it."""


def first_explanation(frame: Any, *, longest: int = LONG) -> Explanation | None:
    """What `explain` will say after the first trial of `frame`'s run, while the run is at
    trial 0 (else None, and None for more than `PREVIEW_POINTS` points): the strip keeps
    room for it from the start, so the first Step moves nothing on the stage. The trial is
    run on a run of its own, from the frame's data and settings (the frame's is not
    touched)."""
    if frame.snapshot.last_trial is not None or not 0 < len(frame.dataset) <= PREVIEW_POINTS:
        return None
    try:
        run = Simulation.from_settings(frame.dataset, frame.settings)
        run.step()
    except (ValueError, ArithmeticError):  # settings the window refuses on its own
        return None
    ahead = replace(frame, snapshot=run.snapshot(), feature_rows=run.feature_matrix)
    return explain(ahead, longest=longest)


def _update(frame: Any, trial: Any, vector: Callable[[Any], str], updated: bool) -> str:
    learner = frame.learner
    snapshot = frame.snapshot
    stopped = snapshot.diverged_at is not None and trial.number >= snapshot.diverged_at
    if updated:
        return str(learner.explain_update(trial, _number, vector))
    if stopped:
        # The learner's update was refused (or no longer made): never print it as applied.
        when = (
            "here" if trial.number == snapshot.diverged_at else f"at trial {snapshot.diverged_at}"
        )
        return f"No update: the run stopped updating {when} (the status says why). w stays."
    own = learner.explain_no_update(trial, vector)
    if own is not None:
        return str(own)
    if not trial.mistake:
        return "No update: w stays."
    return "x = 0 here, so the update changes nothing."
