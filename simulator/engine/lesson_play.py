"""Playing a lesson: each step's run, its numbers and its question's answer, computed by
the engine (the rules are described in `simulator.engine.lessons`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from simulator.engine.dataset import DataFileError, Dataset, short_repr
from simulator.engine.drawables import Line
from simulator.engine.features import InputLine
from simulator.engine.learners import LEARNERS, parameter_of
from simulator.engine.lesson_format import (
    CHOICE_LETTERS,
    MAX_LESSON_TRIALS,
    Goto,
    Lesson,
    LessonError,
    Question,
    Step,
)
from simulator.engine.lesson_text import Value, fill, format_value, label_value, values_of
from simulator.engine.presets import PRESET_SETTINGS, PRESETS, load_preset
from simulator.engine.readers import load_dataset
from simulator.engine.records import Settings, Trial
from simulator.engine.session import settings_from_json, settings_to_json
from simulator.engine.simulation import Simulation

__all__ = ["UPDATE_SEARCH_EPOCHS", "StepState", "play"]

UPDATE_SEARCH_EPOCHS = 10
"""`ask = "boundary"` looks this many epochs ahead for the next update."""


@dataclass(frozen=True, slots=True)
class StepState:
    """A step as the run shows it: the data and settings, the trial reached (where the
    question is asked), its numbers, and the text with its placeholders filled.

    A question's `answer` is the engine's: True/False (a mistake?), the boundary line
    after the next update, or the right choice's index; `answer_text` says it in one line;
    `reveal_trial` is the trial that shows it (the lesson goes on from there) and `reveal`
    the step's reveal text filled there.
    """

    number: int
    dataset: Dataset
    settings: Settings
    trial: int
    mistakes: int
    epoch: int
    weights: tuple[Any, ...]
    text: str
    question: Question | None = None
    choices: tuple[str, ...] = ()
    answer: bool | int | InputLine | None = None
    answer_text: str = ""
    reveal_trial: int = 0
    reveal: str = ""
    show: Mapping[str, bool] = field(default_factory=dict)
    new_run: bool = False
    values: Mapping[str, Value] = field(default_factory=dict)


def play(lesson: Lesson, *, max_trials: int = MAX_LESSON_TRIALS) -> list[StepState]:
    """Every step of `lesson` as it plays, in order (see the module docstring); a
    `LessonError` naming the step for one that cannot play."""
    return _Player(lesson, max_trials).states()


class _Player:
    def __init__(self, lesson: Lesson, max_trials: int) -> None:
        self.lesson = lesson
        self.max_trials = max_trials
        self.sim: Simulation | None = None
        self.played: list[StepState] = []

    def states(self) -> list[StepState]:
        for step in self.lesson.steps:
            where = f"{self.lesson.file}: step {step.number}"
            try:
                self.played.append(self._play(step, where))
            except LessonError:
                raise
            except ValueError as exc:
                raise LessonError(f"{where}: {exc}") from None
        return self.played

    def _earlier(self, number: int) -> Mapping[str, Value]:
        return self.played[number - 1].values

    def _play(self, step: Step, where: str) -> StepState:
        if step.starts_run or self.sim is None:
            dataset, settings = self._data_and_settings(step, where)
            try:
                self.sim = Simulation.from_settings(dataset, settings)
            except ValueError as exc:
                raise LessonError(f"{where}: settings: {exc}") from None
        sim = self.sim
        if step.goto is not None:
            self._goto(sim, step.goto, f"{where}: goto {str(step.goto)!r}")
        question_trial = sim.trials
        values = values_of(sim)
        text, choices = self._fill(step, values, where)
        state = StepState(
            number=step.number,
            dataset=sim.dataset,
            settings=sim.settings,
            trial=question_trial,
            mistakes=sim.mistakes,
            epoch=sim.epoch,
            weights=values["w"],  # type: ignore[arg-type]
            text=text,
            question=step.question,
            choices=choices,
            reveal_trial=question_trial,
            show=step.show,
            new_run=step.starts_run or not self.played,
            values=values,
        )
        if step.question is None:
            return state
        answer, answer_text = self._answer(sim, step.question, choices, f"{where}: ask")
        try:
            reveal = fill(step.reveal, values_of(sim), self._earlier) if step.reveal else ""
        except ValueError as exc:
            raise LessonError(f"{where}: reveal: {exc}") from None
        return _replace(
            state, answer=answer, answer_text=answer_text, reveal_trial=sim.trials, reveal=reveal
        )

    def _fill(
        self, step: Step, values: Mapping[str, Value], where: str
    ) -> tuple[str, tuple[str, ...]]:
        try:
            text = fill(step.text, values, self._earlier)
        except ValueError as exc:
            raise LessonError(f"{where}: text: {exc}") from None
        choices = []
        for i, choice in enumerate(step.question.choices if step.question else ()):
            try:
                choices.append(fill(choice, values, self._earlier))
            except ValueError as exc:
                raise LessonError(f"{where}: choices[{i}]: {exc}") from None
        return text, tuple(choices)

    def _data_and_settings(self, step: Step, where: str) -> tuple[Dataset, Settings]:
        """The data and settings of a new run: the step's, else the previous run's."""
        previous = self.sim
        base = previous.settings if previous is not None else Settings()
        if step.data is not None:
            dataset, base = self._data(step.data, base, f"{where}: data")
        elif step.points is not None:
            dataset = step.points
        elif previous is not None:
            dataset = previous.dataset
        else:  # parse_lesson makes step 1 name its data
            raise LessonError(f"{where}: no data: give data = PRESET or points = [...]")
        settings = _merged(base, step.settings, where)
        return dataset, settings

    def _data(self, name: str, base: Settings, where: str) -> tuple[Dataset, Settings]:
        if name in PRESETS:
            return load_preset(name), PRESET_SETTINGS.get(name, base)
        folder = self.lesson.folder
        path = Path(name) if folder is None else folder / name
        if not path.is_file():
            raise LessonError(
                f"{where}: {name!r} is neither a preset ({', '.join(PRESETS)}) nor a file "
                "beside the lesson"
            )
        try:
            return load_dataset(path), base
        except DataFileError as exc:
            raise LessonError(f"{where}: {exc}") from None

    # -- moving the run --------------------------------------------------------------------

    def _goto(self, sim: Simulation, goto: Goto, where: str) -> None:
        if goto.kind == "trial":
            _reach(sim, goto.count)
        elif goto.kind == "epoch":
            _reach(sim, goto.count * sim.epoch_length)
        elif goto.kind == "mistake":
            _reach(sim, self._mistake_trial(sim, goto.count, where))
        else:
            _reach(sim, self._converged_trial(sim, where))

    def _mistake_trial(self, sim: Simulation, count: int, where: str) -> int:
        """The trial of the count-th mistake, running on as far as needed."""
        known = sim.mistake_trials()
        if len(known) >= count:
            return int(known[count - 1])
        _reach(sim, sim.history_length)
        while sim.mistakes < count and sim.trials < self.max_trials:
            if sim.run(self.max_trials - sim.trials, stop_on_mistake=True) == 0:
                break
        if sim.mistakes < count:
            raise LessonError(f"{where}: {_why_stopped(sim, self.max_trials)}")
        return sim.trials

    def _converged_trial(self, sim: Simulation, where: str) -> int:
        _reach(sim, sim.history_length)
        if sim.converged_at is None:
            sim.run(max(0, self.max_trials - sim.trials))
        if sim.converged_at is None:
            raise LessonError(f"{where}: {_why_stopped(sim, self.max_trials)}")
        return sim.converged_at

    # -- questions -------------------------------------------------------------------------

    def _answer(
        self, sim: Simulation, question: Question, choices: tuple[str, ...], where: str
    ) -> tuple[bool | int | InputLine, str]:
        """The engine's answer and what it says; moves the run to the trial that shows it."""
        if question.kind == "choice":
            assert question.answer is not None
            return question.answer, f"{CHOICE_LETTERS[question.answer]}, {choices[question.answer]}"
        if question.kind == "mistake":
            return _next_verdict(sim)
        return _next_line(sim, where)


def _next_verdict(sim: Simulation) -> tuple[bool, str]:
    """Run the next trial: was it a mistake, in words."""
    trial = sim.step()
    verdict = "a mistake" if trial.mistake else "right"
    change = "w changes" if trial.updated else "w stays"
    label = format_value(label_value(sim.dataset, trial.y))
    return trial.mistake, (
        f"Trial {trial.number}: point #{trial.index + 1} (y = {label}) scores "
        f"s = {format_value(trial.score)}: {verdict}, so {change}."
    )


def _next_line(sim: Simulation, where: str) -> tuple[InputLine, str]:
    """Run to the next update: the boundary line the learner draws after it, in words."""
    if sim.dataset.dimension != 2:
        raise LessonError(f"{where}: a boundary question needs points in the plane")
    trial = _next_update(sim, UPDATE_SEARCH_EPOCHS * sim.epoch_length)
    if trial is None:
        raise LessonError(
            f"{where}: the line does not move in the next {UPDATE_SEARCH_EPOCHS} epochs "
            "(has the run converged?); ask about a step where it will"
        )
    drawn = sim.learner.drawables(sim.learner_state, sim.features)
    lines = [d.line for d in drawn if isinstance(d, Line) and d.role == "boundary"]
    if not lines or len(lines[0].normal) != 2:
        raise LessonError(
            f"{where}: a boundary question needs a straight boundary in the plane (a "
            "linear learner of two classes, linear features)"
        )
    w = tuple(float(v) for v in sim.shown_weights().ravel())
    return lines[0], (
        f"Trial {trial.number} (point #{trial.index + 1}) moved the line: w = {format_value(w)}."
    )


def _replace(state: StepState, **changes: Any) -> StepState:
    values = {f.name: getattr(state, f.name) for f in fields(StepState)}
    values.update(changes)
    return StepState(**values)


def _next_update(sim: Simulation, within: int) -> Trial | None:
    """Step to the next trial that changes w (within `within` trials); None, and the run
    back where it was, if there is none."""
    start = sim.trials
    while sim.trials < start + within:
        trial = sim.step()
        if trial.updated:
            return trial
    _reach(sim, start)
    return None


def _reach(sim: Simulation, trial: int) -> None:
    """Put the run at `trial`: back by replay, forward by running (past convergence too)."""
    trial = max(0, trial)
    if trial <= sim.history_length:
        sim.seek(trial)
        return
    sim.seek(sim.history_length)
    sim.run(trial - sim.trials, until_converged=False)


def _why_stopped(sim: Simulation, cap: int) -> str:
    """Why a run that was asked for more stops where it is, in words."""
    k = sim.mistakes
    mistakes = f"{k} mistake{'s' if k != 1 else ''}"
    if sim.converged_at is not None:
        return f"the run converged at trial {sim.converged_at} after {mistakes}"
    if sim.cycle_found_at is not None:
        period = sim.cycle_period
        return (
            f"the run never converges: w cycles with period {period} epoch"
            f"{'s' if period != 1 else ''} (found at trial {sim.cycle_found_at}, {mistakes})"
        )
    if sim.diverged_at is not None:
        return f"the run diverged at trial {sim.diverged_at}: {sim.divergence_reason}"
    return f"the run did not get there within {cap:,} trials ({mistakes})"


def _merged(base: Settings, table: Mapping[str, Any] | None, where: str) -> Settings:
    """`base` with what `table` names changed (see the module docstring)."""
    if table is None:
        return base
    document = {k: v for k, v in settings_to_json(base).items() if v is not None}
    parameters = dict(document.pop("parameters", {}))
    algorithm = table.get("algorithm", base.algorithm)
    if algorithm != base.algorithm:  # a new learner starts from its own defaults
        parameters = {}
        document.pop("tie", None)
    parameters = {k: v for k, v in parameters.items() if parameter_of(algorithm, k) is not None}
    document.update({k: v for k, v in table.items() if k != "parameters"})
    document["parameters"] = {**parameters, **table.get("parameters", {})}
    if algorithm not in LEARNERS:
        raise LessonError(
            f"{where}: unknown algorithm {short_repr(algorithm)}; choose one of "
            + ", ".join(LEARNERS)
        )
    try:
        return settings_from_json(document, where)
    except DataFileError as exc:
        raise LessonError(str(exc)) from None
