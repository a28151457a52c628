"""Command line: `python main.py [options]` opens the window; `python main.py export ...`
writes animation frames headless.

Every argument and data file is checked here, before any window or Qt object exists; a
problem exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
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
from simulator.export.checks import (
    MP4_INSTALL_HINT,
    mp4_available,
    mp4_size_problem,
    prepare_folder,
)
from simulator.export.lab import LabOptions, add_lab_parser, lab_options

__all__ = ["Invocation", "build_parser", "main", "parse"]

PROG = "linear-classifier-lab"
_DEFAULTS = Settings()


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (no usage block) and exits 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


class UsageError(Exception):
    """A bad argument or input file found after parsing; exits 2 with its message."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1280x720") from None
    if not (64 <= width <= 7680 and 64 <= height <= 4320):
        raise argparse.ArgumentTypeError(f"{text}: width and height must be 64..7680 and 64..4320")
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


def _add_rule_parameters(group: argparse._ArgumentGroup) -> None:
    """One option per rule parameter (asked of the rule classes, so a new rule's
    parameters appear here by themselves), with each rule's default in the help."""
    seen: dict[str, list[str]] = {}
    parameters = {}
    for rule in ALGORITHMS.values():
        for parameter in rule.parameters:
            parameters.setdefault(parameter.name, parameter)
            seen.setdefault(parameter.name, []).append(f"{rule.title} {parameter.default_text}")
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
            kwargs["type"] = _number
            kwargs["metavar"] = parameter.symbol
        group.add_argument(*flags, **kwargs)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def _add_learner_options(parser: argparse.ArgumentParser, *, dataset_default: str | None) -> None:
    data = parser.add_argument_group("data")
    data.add_argument(
        "--dataset",
        metavar="PRESET_OR_FILE",
        default=dataset_default,
        help=f"a preset ({', '.join(PRESETS)}) or a .csv/.json file (x1,x2,label)",
    )
    rule = parser.add_argument_group("learner")
    rule.add_argument(
        "--algorithm",
        choices=list(ALGORITHMS),
        default=_DEFAULTS.algorithm,
        help=f"the update rule (default {_DEFAULTS.algorithm})",
    )
    _add_rule_parameters(rule)
    rule.add_argument(
        "--tie",
        choices=TIES,
        help="what a score of exactly 0 means: an undecided mistake (the perceptron's "
        "default), +1 (Winnow's \"+ iff w·x >= θ\") or -1; default: the rule's own",
    )
    rule.add_argument(
        "--no-bias",
        dest="bias",
        action="store_false",
        help="no constant feature 1 (the boundary passes through the origin)",
    )
    rule.add_argument(
        "--preprocessing",
        choices=PREPROCESSINGS,
        default=_DEFAULTS.preprocessing,
        help=f"feature preprocessing (default {_DEFAULTS.preprocessing})",
    )
    rule.add_argument(
        "--order",
        choices=ORDERS,
        default=_DEFAULTS.order,
        help="cyclic: dataset order; random: a fresh permutation each epoch",
    )
    rule.add_argument(
        "--seed",
        type=_non_negative_int,
        default=_DEFAULTS.seed,
        help=f"seed for the random order and random initial weights (default {_DEFAULTS.seed})",
    )
    rule.add_argument(
        "--initial-weights",
        type=_initial_weights,
        default="default",
        metavar="W",
        help="default, zeros, ones, random, or numbers: 0.5,1,-1",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Linear Classifier Lab: watch the Perceptron, Winnow and Adaline learn.",
        epilog=f"Export frames without a window: {PROG} export --help",
    )
    _add_learner_options(parser, dataset_default=None)
    window = parser.add_argument_group("window")
    window.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="save a screenshot of the window after it is painted, then quit",
    )
    window.add_argument(
        "--screenshot-delay",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="wait this long before --screenshot (default 1)",
    )
    commands = parser.add_subparsers(dest="command", metavar="{export,lab}", parser_class=_Parser)
    export = commands.add_parser(
        "export",
        help="write animation frames (PNG, GIF, MP4) without a window",
        description=(
            "Run a learner and write one PNG per state (frame_00000.png is the start, then "
            "one per trial), optionally a GIF and an MP4. Needs no display."
        ),
    )
    _add_learner_options(export, dataset_default=None)
    length = export.add_mutually_exclusive_group(required=True)
    length.add_argument(
        "--trials",
        type=_positive_int,
        metavar="N",
        help="run exactly N trials (also past convergence)",
    )
    length.add_argument(
        "--until-converged", action="store_true", help="run until convergence (or --max-trials)"
    )
    export.add_argument(
        "--max-trials",
        type=_positive_int,
        default=1000,
        metavar="N",
        help="cap for --until-converged (default 1000)",
    )
    export.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR",
        help="folder for frame_00000.png, ... (created if missing)",
    )
    export.add_argument("--gif", type=Path, metavar="FILE", help="also write an animated GIF")
    export.add_argument(
        "--mp4", type=Path, metavar="FILE", help="also write an MP4 (needs imageio-ffmpeg)"
    )
    export.add_argument(
        "--size",
        type=_size,
        default=(1280, 720),
        metavar="WxH",
        help="frame size in pixels (default 1280x720)",
    )
    export.add_argument(
        "--fps",
        type=_positive_float,
        default=5.0,
        help="frames per second for GIF and MP4 (default 5)",
    )
    export.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_lab_parser(commands)
    return parser


@dataclass(frozen=True)
class Invocation:
    """Parsed and checked command line."""

    command: str | None
    dataset: Dataset | None
    settings: Settings
    options: argparse.Namespace
    lab: LabOptions | None = None


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


def parse(argv: Sequence[str] | None = None) -> Invocation:
    """Parse and check `argv`; exits 2 with one line on stderr when something is wrong."""
    parser = build_parser()
    options = parser.parse_args(argv)
    prog = f"{PROG} {options.command}" if options.command else PROG
    try:
        if options.command == "lab":
            return Invocation("lab", None, _DEFAULTS, options, lab_options(options))
        dataset = resolve_dataset(options.dataset) if options.dataset else None
        if options.command == "export" and dataset is None:
            raise UsageError("export needs --dataset PRESET_OR_FILE")
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
        if options.command == "export":
            assert dataset is not None
            if dataset.dimension != 2:
                raise UsageError(
                    f"frames show 2-D data; {options.dataset} has {dataset.dimension} coordinates"
                )
            if len(dataset) == 0:
                raise UsageError(f"{options.dataset} has no points to export")
            _check_export_paths(options)
    except (UsageError, ValueError) as exc:
        parser.exit(2, f"{prog}: error: {exc}\n")
    return Invocation(options.command, dataset, settings, options)


def _check_export_paths(options: argparse.Namespace) -> None:
    out: Path = options.out
    try:
        prepare_folder(out)
    except ValueError as exc:
        raise UsageError(f"--out {out}: {exc}") from None
    for flag, suffix in (("gif", ".gif"), ("mp4", ".mp4")):
        target: Path | None = getattr(options, flag)
        if target is None:
            continue
        if target.suffix.lower() != suffix:
            raise UsageError(f"--{flag} {target}: the file name must end in {suffix}")
        if not target.parent.exists() or not target.parent.is_dir():
            raise UsageError(f"--{flag} {target}: no such folder {target.parent}")
    if options.mp4 is not None:
        problem = mp4_size_problem(*options.size)
        if problem is not None:
            raise UsageError(f"--mp4: {problem}")
        if not mp4_available():
            raise UsageError(f"--mp4: {MP4_INSTALL_HINT}")


def main(argv: Sequence[str] | None = None) -> int:
    invocation = parse(sys.argv[1:] if argv is None else argv)
    if invocation.lab is not None:
        from simulator.export.lab import lab_main

        return lab_main(invocation.lab)
    if invocation.command == "export":
        from simulator.export.headless import export_main

        return export_main(invocation)
    from simulator.ui.app import run_app

    return run_app(invocation)
