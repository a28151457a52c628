"""Lessons: the course notes as guided steps over live runs, read from TOML files.

A lesson file (``NAME.toml``)::

    [lesson]
    title = "The perceptron, step by step"
    source = "CMU 10-601 lecture 10, slide 'Perceptron Algorithm: Example'"
    summary = "One line on what the class will see."

    [[step]]
    text = "γ* = {gamma}; after {k} mistakes w = {w}."
    data = "cmu"                    # a preset, or a data file beside the lesson, or:
    # points = [[-1, 2, -1], [1, 0, 1]]   # x, y, label per point (label last)
    settings = { bias = false, tie = "positive" }
    goto = "mistake:1"              # "trial:N", "mistake:N", "epoch:N" or "converged"
    ask = "mistake"                 # or "boundary", or choices = [...] with answer
    reveal = "Shown after the answer: s = {score}."
    show = { separator = true }     # view toggles (SHOW)

How a lesson plays (`play`):

- Step 1 names its data. A step with ``data``, ``points`` or ``settings`` starts a new run at
  trial 0; a step without them goes on with the run where the previous step left it.
- A preset brings its own settings (`PRESET_SETTINGS`); a step's ``settings`` table (the
  keys of a session's settings, a learner's parameters among them or in ``parameters``)
  changes only what it names. Naming another ``algorithm`` starts that learner from its own
  defaults (its parameters and tie rule) unless the table gives them.
- ``goto`` moves the run: to trial N; to just after the N-th mistake; to the end of epoch
  N; to the trial where it converged. Without it the step stays where the run is.
- ``ask`` makes the step a question about what happens next, asked at the step's trial:
  ``"mistake"``: will the next trial be a mistake? ``"boundary"``: where will the line be
  after the next update? ``choices`` with ``answer`` (a choice's text or its number from
  1): multiple choice about the step. The answer is the engine's; revealing it moves the
  run to the trial that answers it (the next trial, the next update), and the lesson goes
  on from there.
- ``text`` (and ``choices`` and ``reveal``) name the numbers they show: ``{gamma}``,
  ``{R}``, ``{bound}``, ``{k}``, ``{w}``, ``{trial}``, ``{epoch}`` and more
  (`lesson_text.PLACEHOLDERS`), filled from the run at that step; ``reveal`` is filled
  after the answer.

Everything in a file is checked when it loads, and a step's run when it plays; each problem
is one `LessonError` line naming the file, the step and the key.
"""

from __future__ import annotations

from simulator.engine.lesson_format import (
    ASKS,
    CHOICE_LETTERS,
    GOTOS,
    MAX_CHOICES,
    MAX_LESSON_TRIALS,
    SHIPPED,
    SHOW,
    Goto,
    Lesson,
    LessonError,
    Question,
    Step,
    lesson_names,
    lesson_title,
    load_lesson,
    parse_lesson,
    shipped_path,
)
from simulator.engine.lesson_play import StepState, play
from simulator.engine.lesson_text import PLACEHOLDERS
from simulator.engine.lesson_writer import append_step

__all__ = [
    "ASKS",
    "CHOICE_LETTERS",
    "GOTOS",
    "MAX_CHOICES",
    "MAX_LESSON_TRIALS",
    "PLACEHOLDERS",
    "SHIPPED",
    "SHOW",
    "Goto",
    "Lesson",
    "LessonError",
    "Question",
    "Step",
    "StepState",
    "append_step",
    "lesson_names",
    "lesson_title",
    "load_lesson",
    "parse_lesson",
    "play",
    "shipped_path",
]
