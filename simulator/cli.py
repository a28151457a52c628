"""Command line: `python main.py [options]` opens the window; `python main.py export ...`
writes animation frames headless.

Every argument and data file is checked here, before any window or Qt object exists; a
bad argument exits with status 2 and one line on stderr, and a place the export cannot
write to exits 1. The CLI hands typed values down (`Settings`, `ExportOptions`, window
options as keywords); nothing below it imports it.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NoReturn

from simulator.engine import (
    ALGORITHMS,
    ORDERS,
    PREPROCESSINGS,
    PRESETS,
    TIES,
    DataFileError,
    Dataset,
    Settings,
    Simulation,
    load_dataset,
    load_preset,
)
from simulator.engine.dataset import short_repr
from simulator.engine.rules import Parameter
from simulator.engine.session import Session, load_session
from simulator.export.checks import (
    MP4_INSTALL_HINT,
    CannotWrite,
    check_animation_target,
    mp4_available,
    mp4_size_problem,
    path_argument,
    plane_problem,
    prepare_folder,
)
from simulator.export.interrupt import StopFlag, catch_signals, exit_status, ignore_signals
from simulator.export.lab import LabOptions, add_lab_parser, lab_options
from simulator.export.options import (
    EVERY,
    FPS_RANGE,
    MAX_TRIALS,
    ExportOptions,
    fps_problem,
    seed_problem,
    size_problem,
    trials_problem,
)

__all__ = ["Command", "build_parser", "display_problem", "main", "parse"]

PROG = "linear-classifier-lab"
_DEFAULTS = Settings()


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


class UsageError(Exception):
    """A bad argument or input file found after parsing; exits 2 with its message."""


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


def _add_learner_options(
    parser: argparse.ArgumentParser, *, dataset_default: str | None
) -> list[argparse.Action]:
    """The data and learner options; returns the learner's actions."""
    data = parser.add_argument_group("data")
    data.add_argument(
        "--dataset",
        metavar="PRESET_OR_FILE",
        default=dataset_default,
        help=f"a preset ({', '.join(PRESETS)}) or a .csv/.json file (x1,x2,label)",
    )
    rule = parser.add_argument_group("learner")
    actions: list[argparse.Action] = []

    def add(*flags: str, **kwargs: Any) -> None:
        actions.append(rule.add_argument(*flags, **kwargs))

    add(
        "--algorithm",
        choices=list(ALGORITHMS),
        default=_DEFAULTS.algorithm,
        help=f"the update rule (default {_DEFAULTS.algorithm})",
    )
    actions.extend(_add_rule_parameters(rule.add_argument))
    add(
        "--tie",
        choices=TIES,
        help="what a score of exactly 0 means: an undecided mistake (the perceptron's "
        "default), +1 (Winnow's \"+ iff w·x >= θ\") or -1; default: the rule's own",
    )
    add(
        "--no-bias",
        dest="bias",
        action="store_false",
        help="no constant feature 1 (the boundary passes through the origin)",
    )
    add(
        "--preprocessing",
        choices=PREPROCESSINGS,
        default=_DEFAULTS.preprocessing,
        help=f"feature preprocessing (default {_DEFAULTS.preprocessing})",
    )
    add(
        "--order",
        choices=ORDERS,
        default=_DEFAULTS.order,
        help="cyclic: dataset order; random: a fresh permutation each epoch",
    )
    add(
        "--seed",
        type=_seed,
        default=_DEFAULTS.seed,
        help=f"seed for the random order and random initial weights (default {_DEFAULTS.seed})",
    )
    add(
        "--initial-weights",
        type=_initial_weights,
        default="default",
        metavar="W",
        help="default, zeros, ones, random, or numbers: 0.5,1,-1",
    )
    return actions


def build_parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description="Linear Classifier Lab: watch the Perceptron, Winnow and Adaline learn.",
        epilog=f"Export frames without a window: {PROG} export --help",
    )
    parser.learner_actions = _add_learner_options(parser, dataset_default=None)
    window = parser.add_argument_group("window")
    window.add_argument(
        "--screenshot",
        type=path_argument,
        metavar="PNG",
        help="save a screenshot of the window after it is painted, then quit",
    )
    window.add_argument(
        "--session",
        type=path_argument,
        metavar="FILE",
        help="open a session file (NAME.lab.json): its points, settings and trial reached",
    )
    window.add_argument(
        "--recover",
        action="store_true",
        help="restore the autosave of a run that did not end cleanly, without asking",
    )
    window.add_argument(
        "--screenshot-delay",
        type=_seconds,
        default=1.0,
        metavar="SECONDS",
        help="wait this long before --screenshot (default 1)",
    )
    commands = parser.add_subparsers(dest="command", metavar="{export,lab}", parser_class=_Parser)
    export = commands.add_parser(
        "export",
        help="write animation frames (PNG, GIF, MP4) without a window",
        description=(
            "Run a learner and write PNG frames (frame_00000.png is the start, then one per "
            "trial, per mistake or per epoch), optionally a GIF and an MP4. Needs no "
            "display. Ctrl-C (or SIGTERM) stops it cleanly: the frames written stay, an "
            "unfinished GIF or MP4 is removed. Exit status: 0 written, 1 a write failed, "
            "2 bad arguments, 130/143 stopped by SIGINT/SIGTERM."
        ),
    )
    _add_learner_options(export, dataset_default=None)
    length = export.add_mutually_exclusive_group(required=True)
    length.add_argument(
        "--trials",
        type=_trials,
        metavar="N",
        help=f"run exactly N trials, also past convergence (N at most {MAX_TRIALS:,})",
    )
    length.add_argument(
        "--until-converged",
        action="store_true",
        help="run until convergence, divergence or --max-trials (a warning if the cap stops it)",
    )
    export.add_argument(
        "--max-trials",
        type=_trials,
        default=1000,
        metavar="N",
        help=f"cap for --until-converged (default 1000, at most {MAX_TRIALS:,})",
    )
    export.add_argument(
        "--every",
        choices=EVERY,
        default="trial",
        help="a frame after each trial (default), after each mistake, or after each epoch; "
        "frame 0 is always the start",
    )
    export.add_argument(
        "--out",
        required=True,
        type=path_argument,
        metavar="DIR",
        help="folder for frame_00000.png, ... (created if missing)",
    )
    export.add_argument(
        "--gif", type=path_argument, metavar="FILE", help="also write an animated GIF"
    )
    export.add_argument(
        "--mp4", type=path_argument, metavar="FILE", help="also write an MP4 (needs imageio-ffmpeg)"
    )
    export.add_argument(
        "--size",
        type=_size,
        default=(1280, 720),
        metavar="WxH",
        help="frame size in pixels (default 1280x720)",
    )
    low, high = FPS_RANGE
    export.add_argument(
        "--fps",
        type=_fps,
        default=5.0,
        help=f"frames per second for GIF and MP4, {low:g} … {high:g} (default 5)",
    )
    export.add_argument(
        "--legend", action="store_true", help="show the plot's legend in every frame"
    )
    export.add_argument(
        "--explain",
        action="store_true",
        help="paint the arithmetic of each trial (score, verdict, update) under the plot",
    )
    export.add_argument(
        "--charts",
        action="store_true",
        help="draw the charts beside the plot: mistakes k against the trial with the bound, "
        "and Novikoff's proof (A_k >= k >= B_k) where it applies, else the loss or the weights",
    )
    export.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_lab_parser(commands.add_parser)
    return parser


@dataclass(frozen=True)
class Command:
    """A checked command line: what to run, as typed values."""

    dataset: Dataset | None
    settings: Settings | None  # None: the window's remembered settings (none were given)
    export: ExportOptions | None = None  # None: open the window
    quiet: bool = False
    screenshot: Path | None = None
    screenshot_delay: float = 1.0
    session_file: Path | None = None  # --session: the file, and what it holds
    session: Session | None = None
    recover: bool = False
    lab: LabOptions | None = None  # the Winnow lab (`lab`): no window, no dataset


def resolve_dataset(spec: str) -> Dataset:
    """A preset name or a data file; raises UsageError with one clear line."""
    if spec in PRESETS:
        return load_preset(spec)
    path = Path(spec)
    if path.suffix.lower() not in (".csv", ".json", ".txt") and not path.exists():
        raise UsageError(
            f"unknown dataset {spec!r}: not a preset ({', '.join(PRESETS)}) and no such file"
        )
    try:
        return load_dataset(path)
    except DataFileError as exc:
        raise UsageError(str(exc)) from None


def _settings(options: argparse.Namespace, dataset: Dataset | None) -> Settings:
    initial = None if options.initial_weights == "default" else options.initial_weights
    parameters = {
        p.name: getattr(options, p.name)
        for rule in ALGORITHMS.values()
        for p in rule.parameters
        if getattr(options, p.name, None) is not None
    }
    settings = Settings(
        algorithm=options.algorithm,
        **parameters,
        tie=options.tie,
        bias=options.bias,
        preprocessing=options.preprocessing,
        order=options.order,
        seed=options.seed,
        initial_weights=initial,
    )
    # Building the simulation checks every parameter against the data.
    Simulation.from_settings(dataset if dataset is not None else Dataset.empty(), settings)
    return settings


def _export_options(options: argparse.Namespace, dataset: Dataset | None) -> ExportOptions:
    """The export's options, every path checked: UsageError for a bad argument,
    CannotWrite where the file system refuses."""
    if dataset is None:
        raise UsageError("export needs --dataset PRESET_OR_FILE")
    problem = plane_problem(dataset)
    if problem is not None:
        raise UsageError(f"{options.dataset}: {problem}")
    export = ExportOptions(
        folder=options.out,
        trials=options.trials,
        max_trials=options.max_trials,
        every=options.every,
        gif=options.gif,
        mp4=options.mp4,
        size=options.size,
        fps=options.fps,
        legend=options.legend,
        explain=options.explain,
        charts=options.charts,
    )
    assert export.folder is not None
    places: list[tuple[str, Path, Callable[[Path], None]]] = [
        ("--out", export.folder, prepare_folder)
    ]
    for flag, target, suffix in (("--gif", export.gif, ".gif"), ("--mp4", export.mp4, ".mp4")):
        if target is not None:
            places.append((flag, target, partial(check_animation_target, suffix=suffix)))
    for flag, path, check in places:
        try:
            check(path)
        except CannotWrite as exc:
            raise CannotWrite(f"{flag} {path}: {exc}") from None
        except ValueError as exc:
            raise UsageError(f"{flag} {path}: {exc}") from None
    if export.mp4 is not None:
        problem = mp4_size_problem(*export.size)
        if problem is not None:
            raise UsageError(f"--mp4: {problem}")
        if not mp4_available():
            raise UsageError(f"--mp4: {MP4_INSTALL_HINT}")
    return export


def parse(argv: Sequence[str] | None = None) -> Command:
    """Parse and check `argv`; exits with one line on stderr when something is wrong
    (2 for a bad argument or data file, 1 for a place the export cannot write to)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    options = parser.parse_args(argv)
    exporting = options.command == "export"
    prog = f"{PROG} {options.command}" if options.command else PROG
    try:
        if options.command == "lab":
            return Command(None, _DEFAULTS, lab=lab_options(options))
        dataset = resolve_dataset(options.dataset) if options.dataset else None
        settings = _settings(options, dataset)
        if exporting:
            return Command(
                dataset, settings, _export_options(options, dataset), quiet=options.quiet
            )
        session = _session(options)
    except CannotWrite as exc:
        parser.exit(1, f"{prog}: error: {exc}\n")
    except (UsageError, ValueError) as exc:
        parser.exit(2, f"{prog}: error: {exc}\n")
    return Command(
        dataset,
        settings if names_a_learner_option(argv) else None,
        screenshot=options.screenshot,
        screenshot_delay=options.screenshot_delay,
        session_file=options.session,
        session=session,
        recover=options.recover,
    )


def _session(options: argparse.Namespace) -> Session | None:
    """--session FILE read and checked (its settings are the run's), --recover alone."""
    if options.recover and (options.session or options.dataset):
        raise UsageError("--recover restores the autosave; give it without --session or --dataset")
    if options.session is None:
        return None
    if options.dataset:
        raise UsageError("--session brings its own points; give --session or --dataset")
    try:
        session = load_session(options.session)
    except DataFileError as exc:
        raise UsageError(f"--session: {exc}") from None
    return session


def display_problem(environ: Mapping[str, str], platform: str) -> str | None:
    """Why the window cannot open here, found before Qt loads (Qt itself would abort with
    a screenful about its platform plugin), or None."""
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None  # Windows and macOS always have their own display
    if environ.get("QT_QPA_PLATFORM") or environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); "
        "use a virtual one: xvfb-run -a python main.py, "
        "or write frames without a window: python main.py export --help"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    stop = StopFlag()
    # From the start, SIGINT and SIGTERM only set a flag that the export reads between
    # frames (raising inside Qt's rendering or a writer thread has crashed the process).
    restore_signals = catch_signals(stop)
    try:
        command = parse(sys.argv[1:] if argv is None else argv)
    except SystemExit:
        ignore_signals()
        raise
    if command.lab is not None:
        from simulator.export.lab import lab_main

        try:
            return lab_main(command.lab, stop=stop)
        finally:
            ignore_signals()
    if command.export is not None:
        from simulator.export.headless import export_main

        assert command.dataset is not None and command.settings is not None  # parse() insists
        try:
            return export_main(
                command.dataset, command.settings, command.export, quiet=command.quiet, stop=stop
            )
        finally:
            ignore_signals()  # what is left is exiting: a late signal must not cut it short
    restore_signals()
    if stop.is_set():
        return exit_status(stop.signal or 2)
    problem = display_problem(os.environ, sys.platform)
    if problem is not None:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return 2
    from simulator.app.app import run_app

    return run_app(
        command.dataset,
        command.settings,
        screenshot=command.screenshot,
        screenshot_delay=command.screenshot_delay,
        session_file=command.session_file,
        session=command.session,
        recover=command.recover,
    )
