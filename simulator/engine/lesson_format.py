"""The lesson file: its keys, checked when it loads, as the records `Lesson` and `Step`
(the format is described in `simulator.engine.lessons`)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from simulator.engine.dataset import DataFileError, Dataset, short_repr
from simulator.engine.learners import all_parameters
from simulator.engine.lesson_text import check_text
from simulator.engine.readers import read_text
from simulator.engine.records import Settings
from simulator.engine.session import settings_from_json

__all__ = [
    "ASKS",
    "CHOICE_LETTERS",
    "GOTOS",
    "MAX_CHOICES",
    "MAX_LESSON_TRIALS",
    "SHIPPED",
    "SHOW",
    "Goto",
    "Lesson",
    "LessonError",
    "Question",
    "Step",
    "lesson_names",
    "lesson_title",
    "load_lesson",
    "parse_lesson",
    "shipped_path",
]

SHIPPED = (
    "cmu-worked-example",
    "and-gate",
    "or-bound",
    "iris-standardize",
    "adaline-learning-rate",
    "xor-and-the-kernel-trick",
    "winnow-vs-perceptron",
    "the-proof",
    "pocket-on-noisy-data",
    "kessler",
)
"""The lessons shipped in `simulator/lessons/`, in the order of the course."""

SHOW = (
    "separator",
    "radius",
    "shading",
    "least_squares",
    "true_length",
    "numbers",
    "legend",
    "charts",
)
"""The view toggles a step may set (each true or false; the others stay as they are)."""

ASKS = ("mistake", "boundary")
MAX_CHOICES = 6
CHOICE_LETTERS = "ABCDEF"
"""Choices are lettered in this order, in the window and on slides."""
GOTOS = ("trial", "mistake", "epoch", "converged")
MAX_LESSON_TRIALS = 1_000_000
"""The furthest a lesson's run goes to find a goto's trial."""

_LESSON_KEYS = ("title", "source", "summary")
_STEP_KEYS = (
    "text", "data", "points", "settings", "goto", "ask", "choices", "answer", "reveal", "show",
)  # fmt: skip
_SETTING_NAMES = tuple(f.name for f in fields(Settings) if f.name != "parameters")


class LessonError(ValueError):
    """A lesson that cannot be read or played: one line naming the file, step and key."""


@dataclass(frozen=True, slots=True)
class Goto:
    """Where a step moves the run: `kind` one of GOTOS, `count` its N (0 for converged)."""

    kind: str
    count: int = 0

    def __str__(self) -> str:
        return self.kind if self.kind == "converged" else f"{self.kind}:{self.count}"


@dataclass(frozen=True, slots=True)
class Question:
    """What a step asks: `kind` "mistake", "boundary" or "choice"; a choice question's
    `choices` (as written) and `answer` (the index of the right one)."""

    kind: str
    choices: tuple[str, ...] = ()
    answer: int | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One step as written: `text` keeps its placeholders; `data` is a preset or a file,
    `points` the points given in the step; `settings` the raw table."""

    number: int
    text: str
    data: str | None = None
    points: Dataset | None = None
    settings: Mapping[str, Any] | None = None
    goto: Goto | None = None
    question: Question | None = None
    reveal: str = ""
    show: Mapping[str, bool] = field(default_factory=dict)

    @property
    def starts_run(self) -> bool:
        return self.data is not None or self.points is not None or self.settings is not None


@dataclass(frozen=True, slots=True)
class Lesson:
    name: str
    title: str
    source: str
    summary: str
    steps: tuple[Step, ...]
    folder: Path | None = None  # where data files named by steps are looked for
    file: str = "<lesson>"  # the file's name, for messages


# -- finding and reading -----------------------------------------------------------------


def shipped_path(name: str) -> Path:
    """The file of a shipped lesson (it may not exist)."""
    return Path(str(resources.files("simulator") / "lessons" / f"{name}.toml"))


def lesson_names() -> list[str]:
    """The shipped lessons: `SHIPPED` in its order, then any other file there by name."""
    folder = Path(str(resources.files("simulator") / "lessons"))
    found = sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []
    return [n for n in SHIPPED if n in found] + [n for n in found if n not in SHIPPED]


def lesson_title(name: str) -> str:
    """A shipped lesson's title (its file's [lesson] title)."""
    return load_lesson(name).title


def load_lesson(path_or_name: str | Path) -> Lesson:
    """A shipped lesson by name, or a lesson file; every key checked (`LessonError`)."""
    spec = str(path_or_name)
    if isinstance(path_or_name, str) and "/" not in spec and not spec.endswith(".toml"):
        path = shipped_path(spec)
        if not path.is_file():
            raise LessonError(
                f"no lesson called {spec!r}: give a .toml file or one of "
                + ", ".join(lesson_names())
            )
    else:
        path = Path(path_or_name)
    try:
        text = read_text(path)
    except DataFileError as exc:
        raise LessonError(str(exc)) from None
    return parse_lesson(text, source=path.name, name=path.stem, folder=path.parent)


def parse_lesson(
    text: str, source: str = "<lesson>", name: str = "lesson", folder: Path | None = None
) -> Lesson:
    """The lesson in a lesson file's text (see the module docstring)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LessonError(f"{source}: not valid TOML: {exc}") from None
    unknown = sorted(set(document) - {"lesson", "step"})
    if unknown:
        raise LessonError(
            f"{source}: unknown table {unknown[0]!r}; a lesson has [lesson] and [[step]]s"
        )
    head = document.get("lesson")
    if not isinstance(head, dict):
        raise LessonError(f"{source}: no [lesson] table with the lesson's title")
    _check_keys(head, _LESSON_KEYS, f"{source}: [lesson]")
    for key in _LESSON_KEYS:
        if key in head and not isinstance(head[key], str):
            raise LessonError(f"{source}: [lesson] {key} must be text")
    title = head.get("title", "").strip()
    if not title:
        raise LessonError(f"{source}: [lesson] needs a title")
    raw_steps = document.get("step")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise LessonError(f"{source}: no steps: add [[step]] tables, each with a text")
    steps = tuple(_step(raw, number, source) for number, raw in enumerate(raw_steps, start=1))
    if steps[0].data is None and steps[0].points is None:
        raise LessonError(f"{source}: step 1: no data: give data = PRESET or points = [...]")
    return Lesson(
        name=name,
        title=title,
        source=head.get("source", ""),
        summary=head.get("summary", ""),
        steps=steps,
        folder=folder,
        file=source,
    )


def _check_keys(table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise LessonError(f"{where}: unknown key {key!r}; use one of {', '.join(allowed)}")


def _step(raw: object, number: int, source: str) -> Step:
    where = f"{source}: step {number}"
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: a step must be a table")
    _check_keys(raw, _STEP_KEYS, where)
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise LessonError(f"{where}: text: every step needs a text")
    data = raw.get("data")
    if data is not None and not (isinstance(data, str) and data.strip()):
        raise LessonError(f"{where}: data must be a preset name or a data file's name")
    if data is not None and "points" in raw:
        raise LessonError(f"{where}: give data or points, not both")
    question = _question(raw, where)
    reveal = raw.get("reveal", "")
    if not isinstance(reveal, str):
        raise LessonError(f"{where}: reveal must be text")
    texts = [("text", text), ("reveal", reveal)]
    texts += [(f"choices[{i}]", c) for i, c in enumerate(question.choices if question else ())]
    for key, value in texts:
        try:
            check_text(value, number, lambda: set(all_parameters()))
        except ValueError as exc:
            raise LessonError(f"{where}: {key}: {exc}") from None
    return Step(
        number=number,
        text=text,
        data=data,
        points=_points(raw["points"], where) if "points" in raw else None,
        settings=_settings_table(raw["settings"], where) if "settings" in raw else None,
        goto=_goto(raw["goto"], where) if "goto" in raw else None,
        question=question,
        reveal=reveal,
        show=_show(raw.get("show", {}), where),
    )


def _points(raw: object, where: str) -> Dataset:
    """`points = [[x, y, label], ...]`: coordinates then the label, every row as long."""
    if not isinstance(raw, list) or not raw:
        raise LessonError(f"{where}: points must be a list of [x, y, label] rows")
    width = None
    for i, row in enumerate(raw):
        if not isinstance(row, list) or len(row) < 2:
            raise LessonError(f"{where}: points[{i}] must be [x, y, label] (label last)")
        if width is not None and len(row) != width:
            raise LessonError(f"{where}: points[{i}] has {len(row)} numbers; points[0] {width}")
        width = len(row)
        for value in row:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise LessonError(f"{where}: points[{i}]: {short_repr(value)} is not a number")
    table = np.array(raw, dtype=np.float64)
    try:
        return Dataset(table[:, :-1], table[:, -1])
    except ValueError as exc:
        raise LessonError(f"{where}: points: {exc}") from None


def _settings_table(raw: object, where: str) -> dict[str, Any]:
    """The step's settings as written, checked alone (a parameter against the learner it
    names, else any learner's); they are merged with the run's when the step plays."""
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: settings must be a table, e.g. {{ bias = false }}")
    table = _session_shape(raw)
    try:
        settings_from_json(table, f"{where}")
    except DataFileError as exc:
        raise LessonError(str(exc)) from None
    return table


def _session_shape(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A settings table as a session writes it: the learner's parameters in `parameters`
    (a lesson may also write them beside the other settings)."""
    table = {k: v for k, v in raw.items() if k in _SETTING_NAMES}
    parameters = dict(raw.get("parameters", {})) if isinstance(raw.get("parameters"), dict) else {}
    if "parameters" in raw and not isinstance(raw["parameters"], dict):
        table["parameters"] = raw["parameters"]  # refused by settings_from_json
        return table
    parameters.update({k: v for k, v in raw.items() if k not in (*_SETTING_NAMES, "parameters")})
    table["parameters"] = parameters
    return table


def _goto(raw: object, where: str) -> Goto:
    usage = '"trial:N", "mistake:N", "epoch:N" or "converged"'
    if not isinstance(raw, str):
        raise LessonError(f"{where}: goto must be {usage}")
    kind, _, count = raw.strip().partition(":")
    if kind == "converged" and not count:
        return Goto("converged")
    if kind not in GOTOS[:3] or not count.strip().isdigit():
        raise LessonError(f"{where}: goto {raw!r:.40}: use {usage}")
    number = int(count)
    if number < (0 if kind == "trial" else 1):
        raise LessonError(f"{where}: goto {raw!r:.40}: N must be at least 1")
    if number > MAX_LESSON_TRIALS:
        raise LessonError(f"{where}: goto {raw!r:.40}: N must be at most {MAX_LESSON_TRIALS:,}")
    return Goto(kind, number)


def _question(raw: Mapping[str, Any], where: str) -> Question | None:
    ask, choices, answer = raw.get("ask"), raw.get("choices"), raw.get("answer")
    if choices is None:
        if answer is not None:
            raise LessonError(f"{where}: answer needs choices = [...]")
        if ask is None:
            return None
        if ask not in ASKS:
            raise LessonError(
                f'{where}: ask {short_repr(ask)}: use "mistake", "boundary", or choices with answer'
            )
        return Question(ask)
    if ask is not None:
        raise LessonError(f"{where}: give ask or choices, not both")
    if (
        not isinstance(choices, list)
        or len(choices) < 2
        or not all(isinstance(c, str) and c.strip() for c in choices)
    ):
        raise LessonError(f"{where}: choices must be two or more texts")
    if len(choices) > MAX_CHOICES:
        raise LessonError(f"{where}: choices: at most {MAX_CHOICES}")
    if isinstance(answer, bool) or answer is None:
        raise LessonError(f"{where}: answer: give the right choice's text or its number")
    if isinstance(answer, int):
        if not 1 <= answer <= len(choices):
            raise LessonError(f"{where}: answer {answer}: choose 1 … {len(choices)}")
        index = answer - 1
    elif isinstance(answer, str) and choices.count(answer) == 1:
        index = choices.index(answer)
    else:
        raise LessonError(f"{where}: answer {short_repr(answer)} is not one of the choices")
    return Question("choice", tuple(choices), index)


def _show(raw: object, where: str) -> dict[str, bool]:
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: show must be a table, e.g. {{ separator = true }}")
    _check_keys(raw, SHOW, f"{where}: show")
    for key, value in raw.items():
        if not isinstance(value, bool):
            raise LessonError(f"{where}: show.{key} must be true or false")
    return dict(raw)
