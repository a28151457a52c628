"""The command line's work: parse and check the arguments, then open the window, export or
run the lab (`run`, called by `simulator.cli.main` once the signal handlers are in place).

Every argument and data file is checked here, before any window or Qt object exists; a
bad argument exits with status 2 and one line on stderr, and a place the export cannot
write to exits 1. The CLI hands typed values down (`Settings`, `ExportOptions`, window
options as keywords); nothing below it imports it. The options themselves are tables in
`simulator.cli.parser`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from simulator.cli.parser import DEFAULTS, PROG, build_parser, names_a_learner_option
from simulator.engine import (
    ALGORITHMS,
    PRESETS,
    DataFileError,
    Dataset,
    Settings,
    Simulation,
    load_dataset,
    load_preset,
)
from simulator.engine.lessons import Lesson, LessonError, StepState, lesson_names, load_lesson, play
from simulator.engine.session import Session, load_session
from simulator.export.checks import (
    MP4_INSTALL_HINT,
    CannotWrite,
    check_animation_target,
    mp4_available,
    mp4_size_problem,
    plane_problem,
    prepare_folder,
)
from simulator.export.interrupt import StopFlag, exit_status, ignore_signals
from simulator.export.lab import LabOptions, lab_options
from simulator.export.options import ExportOptions

__all__ = ["Command", "build_parser", "display_problem", "parse", "run"]


class UsageError(Exception):
    """A bad argument or input file found after parsing; exits 2 with its message."""


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
    lesson: Lesson | None = None  # `lesson NAME` (the window) or `export --lesson NAME`
    lesson_states: tuple[StepState, ...] = ()  # the lesson played (checked before Qt)
    list_lessons: bool = False  # `lesson --list`


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
        features=options.features,
        order=options.order,
        seed=options.seed,
        initial_weights=initial,
    )
    # Building the simulation checks every parameter against the data.
    Simulation.from_settings(dataset if dataset is not None else Dataset.empty(), settings)
    return settings


def _export_options(
    options: argparse.Namespace, dataset: Dataset | None, *, lesson: bool = False
) -> ExportOptions:
    """The export's options, every path checked: UsageError for a bad argument,
    CannotWrite where the file system refuses. A lesson brings its own data."""
    if not lesson:
        if dataset is None:
            raise UsageError("export needs --dataset PRESET_OR_FILE (or --lesson NAME)")
        if options.trials is None and not options.until_converged:
            raise UsageError("one of the arguments --trials --until-converged is required")
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
            return Command(None, DEFAULTS, lab=lab_options(options))
        if options.command == "lesson":
            return _lesson_command(options)
        if exporting and options.lesson is not None:
            return _lesson_export(options, argv)
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


def _played(spec: str) -> tuple[Lesson, tuple[StepState, ...]]:
    """A lesson read and played to its end (a bad one is a UsageError of one line)."""
    try:
        lesson = load_lesson(spec)
        return lesson, tuple(play(lesson))
    except LessonError as exc:
        raise UsageError(str(exc)) from None


def _lesson_command(options: argparse.Namespace) -> Command:
    """`lesson --list` or `lesson NAME_OR_FILE`."""
    if options.list:
        if options.lesson is not None:
            raise UsageError("give --list or a lesson, not both")
        return Command(None, None, list_lessons=True)
    if options.lesson is None:
        raise UsageError(
            "name a lesson (python main.py lesson --list shows them) or a lesson .toml file"
        )
    lesson, states = _played(options.lesson)
    return Command(
        None,
        None,
        lesson=lesson,
        lesson_states=states,
        screenshot=options.screenshot,  # the window's options, given before `lesson`
        screenshot_delay=options.screenshot_delay,
    )


_NOT_WITH_LESSON = (
    "--dataset", "--trials", "--until-converged", "--max-trials", "--every", "--explain",
    "--charts",
)  # fmt: skip


def _lesson_export(options: argparse.Namespace, argv: Sequence[str]) -> Command:
    """`export --lesson NAME --out DIR`: checked like an export, the lesson played."""
    refused = set(_NOT_WITH_LESSON)
    refused.update(f for a in build_parser().learner_actions for f in a.option_strings)
    given = [a.split("=")[0] for a in argv if a.split("=")[0] in refused]
    if given:
        raise UsageError(f"--lesson brings its own data, settings and steps; leave out {given[0]}")
    lesson, states = _played(options.lesson)
    export = _export_options(options, None, lesson=True)
    return Command(None, None, export, quiet=options.quiet, lesson=lesson, lesson_states=states)


def print_lessons() -> int:
    """`lesson --list`: one line per shipped lesson, `name: title`."""
    for name in lesson_names():
        try:
            title = load_lesson(name).title
        except LessonError as exc:
            title = f"(cannot be read: {exc})"
        print(f"{name}: {title}")
    return 0


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


def _export_lesson(command: Command, stop: StopFlag) -> int:
    """`export --lesson`: the slides (see `simulator.export.slides`)."""
    from simulator.export.slides import export_lesson_main

    assert command.lesson is not None and command.export is not None  # parse() insists
    try:
        return export_lesson_main(
            command.lesson, command.lesson_states, command.export, quiet=command.quiet, stop=stop
        )
    finally:
        ignore_signals()  # what is left is exiting: a late signal must not cut it short


def run(argv: Sequence[str] | None, stop: StopFlag, restore_signals: Callable[[], None]) -> int:
    """Run the command line; returns the exit status. SIGINT and SIGTERM only set `stop`
    (since `simulator.cli.main` began), which the export and the lab read between frames
    and races (raising inside Qt's rendering or a writer thread has crashed the process);
    `restore_signals` puts back Python's handlers for the window."""
    try:
        command = parse(sys.argv[1:] if argv is None else argv)
    except SystemExit:
        ignore_signals()
        raise
    if stop.is_set():  # a signal while the arguments and data were read: nothing began
        ignore_signals()
        return _stopped(stop, command)
    if command.list_lessons:
        ignore_signals()
        return print_lessons()
    if command.lab is not None:
        from simulator.export.lab import lab_main

        try:
            return lab_main(command.lab, stop=stop)
        finally:
            ignore_signals()
    if command.export is not None and command.lesson is not None:
        return _export_lesson(command, stop)
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
        lesson=command.lesson,
        lesson_states=command.lesson_states,
    )


def _stopped(stop: StopFlag, command: Command) -> int:
    """One line for a program stopped by a signal before it began its work; the status."""
    signum = stop.signal or signal.SIGINT
    prog = f"{PROG} export" if command.export else f"{PROG} lab" if command.lab else PROG
    print(f"{prog}: stopped by {signal.Signals(signum).name}; nothing was written", file=sys.stderr)
    return exit_status(signum)
