"""The command line's options, as tables, and the parser built from them.

Each option is an `Option` (flags and `add_argument`'s keywords) in a table per group
(data, learner, window, export); `build_parser` adds the tables with one loop. A rule
parameter's option is made from the rule classes' `Parameter`s, so a newly registered
rule's parameters appear by themselves. The argument types check values as they are
parsed: a bad one exits 2 with one line.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NoReturn

from simulator.engine import (
    ALGORITHMS,
    FEATURE_MAPS,
    ORDERS,
    PREPROCESSINGS,
    PRESETS,
    TIES,
    Settings,
)
from simulator.engine.dataset import short_repr
from simulator.engine.rules import Parameter
from simulator.export.checks import path_argument
from simulator.export.lab import add_lab_parser
from simulator.export.options import (
    EVERY,
    FPS_RANGE,
    MAX_TRIALS,
    fps_problem,
    seed_problem,
    size_problem,
    trials_problem,
)

__all__ = ["DEFAULTS", "PROG", "Later", "Option", "build_parser", "names_a_learner_option"]

PROG = "linear-classifier-lab"
DEFAULTS = Settings()


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (no usage block) and exits 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.learner_actions: list[argparse.Action] = []  # the window's learner options

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def names_a_learner_option(argv: Sequence[str]) -> bool:
    """Whether the window's command line names any learner option (if it does not, the
    window starts with the learner settings it remembers from last time)."""
    parser = build_parser()
    for action in parser.learner_actions:
        action.default = argparse.SUPPRESS
    probe = parser.parse_args(argv)
    return any(hasattr(probe, action.dest) for action in parser.learner_actions)


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{short_repr(text)} is not a whole number") from None


def _trials(text: str) -> int:
    value = _whole_number(text)
    problem = trials_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def _seed(text: str) -> int:
    """A seed 0 … 2³¹ − 1 (what the window's seed box and a session file hold)."""
    value = _whole_number(text)
    problem = seed_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{short_repr(text)} is not a number") from None


def _rule_number(parameters: Sequence[Parameter], text: str) -> float:
    """A rule parameter's value, checked even when the chosen rule does not use it (a NaN α
    given with the perceptron would reach the session file): it must suit a rule that
    has the parameter."""
    value = _number(text)
    problems = []
    for parameter in parameters:
        try:
            return float(parameter.check(value))
        except ValueError as exc:
            problems.append(str(exc))
    raise argparse.ArgumentTypeError(problems[0])


def _fps(text: str) -> float:
    value = _number(text)
    problem = fps_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem.replace("frames per second must be", "must be"))
    return value


def _seconds(text: str) -> float:
    value = _number(text)
    if not (math.isfinite(value) and 0 <= value <= 3600):
        raise argparse.ArgumentTypeError(f"must be 0 … 3600 seconds, not {text}")
    return value


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1280x720") from None
    problem = size_problem(width, height)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return width, height


def _initial_weights(text: str) -> str | tuple[float, ...]:
    if text in ("default", "zeros", "ones", "random"):
        return text
    try:
        return tuple(float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: use zeros, ones, random or comma-separated numbers"
        ) from None


_ALIASES = {"η": "--eta", "α": "--alpha", "θ": "--theta"}


def _add_rule_parameters(add_argument: Callable[..., argparse.Action]) -> list[argparse.Action]:
    """One option per rule parameter (asked of the rule classes, so a new rule's
    parameters appear here by themselves), with each rule's default in the help;
    `add_argument` is the argument group's."""
    seen: dict[str, list[str]] = {}
    parameters = {}
    every: dict[str, list[Parameter]] = {}
    for rule in ALGORITHMS.values():
        for parameter in rule.parameters:
            parameters.setdefault(parameter.name, parameter)
            every.setdefault(parameter.name, []).append(parameter)
            seen.setdefault(parameter.name, []).append(f"{rule.title} {parameter.default_text}")
    actions = []
    for name, parameter in parameters.items():
        defaults = ", ".join(seen[name])
        flags = [parameter.flag]
        if parameter.symbol in _ALIASES:
            flags.append(_ALIASES[parameter.symbol])
        kwargs: dict[str, Any] = {
            "dest": name,
            "help": f"{parameter.help} (default: {defaults})",
        }
        if parameter.choices:
            kwargs["choices"] = parameter.choices
        else:
            kwargs["type"] = partial(_rule_number, every[name])
            kwargs["metavar"] = parameter.symbol
        actions.append(add_argument(*flags, **kwargs))
    return actions


@dataclass(frozen=True, slots=True)
class Later:
    """A keyword of an `Option` computed when the parser is built: the learners and
    presets registered by then (a plug-in registers its learner after this module loads)."""

    value: Callable[[], object]


@dataclass(frozen=True, slots=True)
class Option:
    """One option: `add_argument`'s flags and keywords."""

    flags: tuple[str, ...]
    keywords: dict[str, Any]


def _option(*flags: str, **keywords: Any) -> Option:
    return Option(flags, keywords)


def _add(add_argument: Callable[..., argparse.Action], options: Sequence[Option]) -> list[Any]:
    """Add `options` with `add_argument` (a parser's or a group's); returns their actions."""
    return [
        add_argument(
            *option.flags,
            **{k: v.value() if isinstance(v, Later) else v for k, v in option.keywords.items()},
        )
        for option in options
    ]


_DATA_OPTIONS = (
    _option(
        "--dataset",
        metavar="PRESET_OR_FILE",
        default=None,
        help=Later(lambda: f"a preset ({', '.join(PRESETS)}) or a .csv/.json file (x1,x2,label)"),
    ),
)
_ALGORITHM_OPTION = _option(
    "--algorithm",
    choices=Later(lambda: list(ALGORITHMS)),
    default=DEFAULTS.algorithm,
    help=f"the update rule (default {DEFAULTS.algorithm})",
)
# After the algorithm and its parameters (`_add_rule_parameters`):
_LEARNER_OPTIONS = (
    _option(
        "--tie",
        choices=TIES,
        help="what a score of exactly 0 means: an undecided mistake (the perceptron's "
        "default), +1 (Winnow's \"+ iff w·x >= θ\") or -1; default: the rule's own",
    ),
    _option(
        "--no-bias",
        dest="bias",
        action="store_false",
        help="no constant feature 1 (the boundary passes through the origin)",
    ),
    _option(
        "--preprocessing",
        choices=PREPROCESSINGS,
        default=DEFAULTS.preprocessing,
        help=f"feature preprocessing (default {DEFAULTS.preprocessing})",
    ),
    _option(
        "--features",
        choices=tuple(FEATURE_MAPS),
        default=DEFAULTS.features,
        help="linear: x itself; quadratic or cubic: the monomials of 2-D points, so the "
        f"boundary is a curve (default {DEFAULTS.features})",
    ),
    _option(
        "--order",
        choices=ORDERS,
        default=DEFAULTS.order,
        help="cyclic: dataset order; random: a fresh permutation each epoch",
    ),
    _option(
        "--seed",
        type=_seed,
        default=DEFAULTS.seed,
        help=f"seed for the random order and random initial weights (default {DEFAULTS.seed})",
    ),
    _option(
        "--initial-weights",
        type=_initial_weights,
        default="default",
        metavar="W",
        help="default, zeros, ones, random, or numbers: 0.5,1,-1",
    ),
)
_WINDOW_OPTIONS = (
    _option(
        "--screenshot",
        type=path_argument,
        metavar="PNG",
        help="save a screenshot of the window after it is painted, then quit",
    ),
    _option(
        "--session",
        type=path_argument,
        metavar="FILE",
        help="open a session file (NAME.lab.json): its points, settings and trial reached",
    ),
    _option(
        "--recover",
        action="store_true",
        help="restore the autosave of a run that did not end cleanly, without asking",
    ),
    _option(
        "--screenshot-delay",
        type=_seconds,
        default=1.0,
        metavar="SECONDS",
        help="wait this long before --screenshot (default 1)",
    ),
)
_EXPORT_HELP = "write animation frames (PNG, GIF, MP4) without a window"
_EXPORT_DESCRIPTION = (
    "Run a learner and write PNG frames (frame_00000.png is the start, then one per "
    "trial, per mistake or per epoch), optionally a GIF and an MP4. Needs no "
    "display. Ctrl-C (or SIGTERM) stops it cleanly: the frames written stay, an "
    "unfinished GIF or MP4 is removed. Exit status: 0 written, 1 a write failed, "
    "2 bad arguments, 130/143 stopped by SIGINT/SIGTERM."
)
# One of these is required.
_EXPORT_LENGTH = (
    _option(
        "--trials",
        type=_trials,
        metavar="N",
        help=f"run exactly N trials, also past convergence (N at most {MAX_TRIALS:,})",
    ),
    _option(
        "--until-converged",
        action="store_true",
        help="run until convergence, divergence or --max-trials (a warning if the cap stops it)",
    ),
)
_EXPORT_OPTIONS = (
    _option(
        "--max-trials",
        type=_trials,
        default=1000,
        metavar="N",
        help=f"cap for --until-converged (default 1000, at most {MAX_TRIALS:,})",
    ),
    _option(
        "--every",
        choices=EVERY,
        default="trial",
        help="a frame after each trial (default), after each mistake, or after each epoch; "
        "frame 0 is always the start",
    ),
    _option(
        "--out",
        required=True,
        type=path_argument,
        metavar="DIR",
        help="folder for frame_00000.png, ... (created if missing)",
    ),
    _option("--gif", type=path_argument, metavar="FILE", help="also write an animated GIF"),
    _option(
        "--mp4", type=path_argument, metavar="FILE", help="also write an MP4 (needs imageio-ffmpeg)"
    ),
    _option(
        "--size",
        type=_size,
        default=(1280, 720),
        metavar="WxH",
        help="frame size in pixels (default 1280x720)",
    ),
    _option(
        "--fps",
        type=_fps,
        default=5.0,
        help="frames per second for GIF and MP4, {:g} … {:g} (default 5)".format(*FPS_RANGE),
    ),
    _option("--legend", action="store_true", help="show the plot's legend in every frame"),
    _option(
        "--explain",
        action="store_true",
        help="paint the arithmetic of each trial (score, verdict, update) under the plot",
    ),
    _option(
        "--charts",
        action="store_true",
        help="draw the charts beside the plot: mistakes k against the trial with the bound, "
        "and Novikoff's proof (A_k >= k >= B_k) where it applies, else the loss or the weights",
    ),
    _option("--quiet", action="store_true", help="no progress on stderr"),
    _option(
        "--lesson",
        metavar="NAME_OR_FILE",
        help="write one slide per step of a lesson (a shipped one, see lesson --list, or a "
        ".toml file) instead of a run: the plot with the step's text under it; it brings "
        "its own data and settings, so no --dataset, learner options, --trials or --every",
    ),
)
_LESSON_HELP = "open the window in a lesson (or list the shipped lessons)"
_LESSON_DESCRIPTION = (
    "A lesson goes step by step through runs written from the course notes, its text "
    "filled with the engine's numbers, some steps asking the class first. NAME is a "
    "shipped lesson (--list shows them), FILE a lesson .toml of your own (the README "
    "describes the format). A bad lesson file exits 2 with one line naming the step and "
    "the key."
)
_LESSON_OPTIONS = (
    _option(
        "lesson",
        nargs="?",
        metavar="NAME_OR_FILE",
        help="a shipped lesson's name or a lesson file (.toml)",
    ),
    _option(
        "--list", action="store_true", help="list the shipped lessons, one 'name: title' a line"
    ),
)


def _add_learner_options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The data and learner options; returns the learner's actions."""
    _add(parser.add_argument_group("data").add_argument, _DATA_OPTIONS)
    add = parser.add_argument_group("learner").add_argument
    actions = _add(add, (_ALGORITHM_OPTION,))
    actions += _add_rule_parameters(add)
    actions += _add(add, _LEARNER_OPTIONS)
    return actions


def build_parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description="Linear Classifier Lab: watch the Perceptron, Winnow and Adaline learn.",
        epilog=f"Export frames without a window: {PROG} export --help",
    )
    parser.learner_actions = _add_learner_options(parser)
    _add(parser.add_argument_group("window").add_argument, _WINDOW_OPTIONS)
    commands = parser.add_subparsers(
        dest="command", metavar="{export,lab,lesson}", parser_class=_Parser
    )
    export = commands.add_parser("export", help=_EXPORT_HELP, description=_EXPORT_DESCRIPTION)
    _add_learner_options(export)
    # One of them is required, unless --lesson (checked in `simulator.cli`).
    _add(export.add_mutually_exclusive_group().add_argument, _EXPORT_LENGTH)
    _add(export.add_argument, _EXPORT_OPTIONS)
    add_lab_parser(commands.add_parser)
    lesson = commands.add_parser("lesson", help=_LESSON_HELP, description=_LESSON_DESCRIPTION)
    _add(lesson.add_argument, _LESSON_OPTIONS)
    return parser
