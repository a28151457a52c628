"""Writing lessons: "Save as lesson step" appends the window's data, settings and trial to a
lesson file as one more ``[[step]]``.

The step is self-contained: its ``points``, its full ``settings`` and ``goto = "trial:N"``,
so it replays to the same w wherever it lands in the lesson (as a session does). Its text
names a few numbers through placeholders, for the teacher to rewrite. A file that does
not exist yet gets a ``[lesson]`` table first. The whole new file is checked as a lesson
before it is written, atomically: a failure leaves the old file as it was.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simulator.engine.dataset import DataFileError, Dataset
from simulator.engine.files import write_atomically
from simulator.engine.lesson_format import LessonError, parse_lesson
from simulator.engine.readers import read_text
from simulator.engine.records import Settings
from simulator.engine.session import settings_to_json

__all__ = ["DEFAULT_STEP_TEXT", "append_step", "step_toml", "toml_value"]

DEFAULT_STEP_TEXT = "Trial {trial}: k = {k} mistakes, w = {w}; γ* = {gamma}, R = {R}."
"""The text of a saved step until the teacher writes one."""


def toml_value(value: Any) -> str:
    """`value` (text, truth, number, or a list of them) as TOML writes it."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {type(value).__name__}")


def _number(value: float) -> str:
    """A coordinate: a whole number without its ".0", else the float's shortest repr."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)


def step_toml(
    dataset: Dataset, settings: Settings, trial: int, *, text: str = DEFAULT_STEP_TEXT
) -> str:
    """A ``[[step]]`` table that shows `dataset` with `settings` at `trial`."""
    values = {k: v for k, v in settings_to_json(settings).items() if v is not None}
    parameters = {k: v for k, v in values.pop("parameters", {}).items() if v is not None}
    table = ", ".join(f"{k} = {toml_value(v)}" for k, v in {**values, **parameters}.items())
    rows = ",\n".join(
        "  [" + ", ".join([*(_number(float(c)) for c in point), str(int(label))]) + "]"
        for point, label in zip(dataset.points, dataset.labels, strict=True)
    )
    return (
        "\n[[step]]\n"
        f"text = {toml_value(text)}\n"
        f"points = [\n{rows},\n]\n"
        f"settings = {{ {table} }}\n"
        f'goto = "trial:{int(trial)}"\n'
    )


def append_step(
    path: str | Path,
    dataset: Dataset,
    settings: Settings,
    trial: int,
    *,
    title: str | None = None,
    text: str = DEFAULT_STEP_TEXT,
) -> int:
    """Append a step to the lesson file at `path` (created with `title` if missing);
    returns the new step's number. A `LessonError` (and the file as it was) when the
    file is no lesson or the result would not read back; OSError when it cannot be
    written."""
    path = Path(path)
    if len(dataset) == 0:
        raise LessonError("there are no points to save in a lesson step")
    if path.exists():
        try:
            old = read_text(path)
        except DataFileError as exc:
            raise LessonError(str(exc)) from None
        parse_lesson(old, source=path.name)  # refuses to add to a file that is no lesson
        head = old if old.endswith("\n") else old + "\n"
    else:
        name = title or path.stem.replace("-", " ").replace("_", " ").capitalize()
        head = f'[lesson]\ntitle = {toml_value(name)}\nsource = ""\nsummary = ""\n'
    new = head + step_toml(dataset, settings, trial, text=text)
    lesson = parse_lesson(new, source=path.name, folder=path.parent)
    write_atomically(path, new)
    return len(lesson.steps)
