"""`python main.py lab ...`: the Winnow lab without a window.

Writes the CSV `n,rule,mistakes,bound` (plus `exact_bound` with --exact), optionally the
chart as a PNG (drawn by the window's own `ScalingChart`, on Qt's offscreen platform) and
each stream as `disjunction_n{n}.csv`. Qt is loaded only for --plot, after all the work.

Every file appears whole or not at all (written beside its target, then renamed). A write
that fails exits 1 with one line; the command line has checked the arguments already.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simulator.engine import Dataset
from simulator.engine.files import write_atomically
from simulator.engine.lab import LAB_RULES, LabCancelled, LabPlan, LabResult, Race, run_lab
from simulator.engine.numbers import format_number
from simulator.export.checks import check_file_target, path_argument, prepare_folder
from simulator.export.interrupt import StopFlag, exit_status, raising
from simulator.export.options import seed_problem

__all__ = [
    "PLOT_SIZE",
    "LabOptions",
    "add_lab_parser",
    "lab_main",
    "lab_options",
    "results_csv",
    "stream_csv",
    "stream_file_name",
]

PROG = "linear-classifier-lab lab"
PLOT_SIZE = (1280, 720)


@dataclass(frozen=True, slots=True)
class LabOptions:
    """A checked `lab` command: what to race and where the results go."""

    plan: LabPlan
    out: Path
    plot: Path | None = None
    save_data: Path | None = None
    quiet: bool = False
    log_y: bool = False  # the plot's mistakes on a log scale


# The `lab` subcommand's options, in the order of its help: (flags, add_argument's keywords).
_LAB_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (
        ("--n",),
        {
            "dest": "sizes",
            "default": "8,32,128,512,2048",
            "metavar": "N,N,...",
            "help": "numbers of variables, comma-separated (default 8,32,128,512,2048)",
        },
    ),
    (
        ("--r",),
        {
            "dest": "relevant",
            "default": "2",
            "metavar": "R",
            "help": "relevant variables (default 2)",
        },
    ),
    (
        ("--examples",),
        {"default": "2000", "metavar": "M", "help": "examples per stream (default 2000)"},
    ),
    (("--seed",), {"dest": "lab_seed", "default": "0", "metavar": "S", "help": "seed (default 0)"}),
    (
        ("--rules",),
        {
            "default": ",".join(LAB_RULES),
            "metavar": "RULE,...",
            "help": f"the rules to race (default {','.join(LAB_RULES)})",
        },
    ),
    (
        ("--until-converged",),
        {
            "action": "store_true",
            "help": "pass over the stream again and again until a pass has no mistake "
            "(the default; kept for older scripts)",
        },
    ),
    (
        ("--one-pass",),
        {
            "action": "store_true",
            "help": "one pass over the stream only (a slow learner is then stopped early: "
            "its mistakes are fewer than its bound counts)",
        },
    ),
    (
        ("--max-epochs",),
        {
            "default": "100",
            "metavar": "E",
            "help": "cap on the passes until converged (default 100)",
        },
    ),
    (
        ("--log-y",),
        {
            "action": "store_true",
            "help": "--plot: mistakes on a log scale (default linear, where log n and n "
            "look as different as they are)",
        },
    ),
    (
        ("--exact",),
        {
            "action": "store_true",
            "help": "also the perceptron's exact R²/γ*² (column exact_bound; slow beyond a few "
            "hundred variables)",
        },
    ),
    (
        ("--out",),
        {
            "required": True,
            "type": path_argument,
            "metavar": "CSV",
            "help": "results: n,rule,mistakes,bound",
        },
    ),
    (
        ("--plot",),
        {"type": path_argument, "metavar": "PNG", "help": "also draw mistakes against n"},
    ),
    (
        ("--save-data",),
        {
            "type": path_argument,
            "metavar": "DIR",
            "help": "also write each stream as DIR/disjunction_n{n}.csv (x1…xn,label)",
        },
    ),
    (("--quiet",), {"action": "store_true", "help": "no progress on stderr"}),
)


def add_lab_parser(add_parser: Callable[..., argparse.ArgumentParser]) -> None:
    """The `lab` subcommand and its options (checked by `lab_options`); `add_parser` is the
    subcommands' (`ArgumentParser.add_subparsers().add_parser`)."""
    lab = add_parser(
        "lab",
        help="race Winnow and the perceptron on r-of-n disjunctions (CSV, PNG)",
        description=(
            "Why Winnow wins when most features are irrelevant: for each n, a stream of "
            "boolean examples labelled by a hidden OR of r of the n variables; each rule passes "
            "over it until a pass has no mistake and its mistakes are written beside its bound "
            "(Winnow 2 + 3r(1 + log₂ n), the perceptron (4r + 1)·R²). Needs no display."
        ),
    )
    for flags, settings in _LAB_OPTIONS:
        lab.add_argument(*flags, **settings)


def _seed(text: str) -> int:
    """--seed: 0 … 2³¹ − 1, as everywhere else (the window's seed boxes hold no more)."""
    seed = _whole(text, "--seed")
    problem = seed_problem(seed)
    if problem is not None:
        raise ValueError(f"--seed {problem}")
    return seed


def _whole(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, not {text!r}") from None


def _file_target(path: Path, flag: str, suffix: str | None = None) -> None:
    """A ValueError (exit 2) unless a file can be written at `path` (see
    `checks.check_file_target`: a device, pipe or socket is refused, a link followed)."""
    try:
        check_file_target(path, suffix)
    except ValueError as exc:  # CannotWrite too: the lab refuses before it runs
        message = str(exc).replace("name the file to write", "give a file name")
        raise ValueError(f"{flag} {path}: {message}") from None


def lab_options(options: argparse.Namespace) -> LabOptions:
    """The checked `lab` command; a ValueError says, in one line, what is wrong."""
    sizes = tuple(
        _whole(part.strip(), "each n") for part in options.sizes.split(",") if part.strip()
    )
    rules = tuple(part.strip() for part in options.rules.split(",") if part.strip())
    plan = LabPlan(
        sizes=sizes,
        relevant=_whole(options.relevant, "--r"),
        examples=_whole(options.examples, "--examples"),
        seed=_seed(options.lab_seed),
        rules=rules,
        until_converged=not options.one_pass,
        max_epochs=_whole(options.max_epochs, "--max-epochs"),
        exact=options.exact,
    )
    _file_target(options.out, "--out")
    if options.until_converged and options.one_pass:
        raise ValueError("--until-converged and --one-pass contradict each other")
    if options.plot is not None:
        _file_target(options.plot, "--plot", ".png")
        if options.plot.resolve() == options.out.resolve():
            raise ValueError("--plot and --out name the same file")
    if options.save_data is not None:
        try:
            prepare_folder(options.save_data)
        except ValueError as exc:
            raise ValueError(f"--save-data {options.save_data}: {exc}") from None
    return LabOptions(
        plan=plan,
        out=options.out,
        plot=options.plot,
        save_data=options.save_data,
        quiet=options.quiet,
        log_y=options.log_y,
    )


class LabWriteError(Exception):
    """A result file could not be written; the message names it and says why."""


def stream_file_name(n: int) -> str:
    return f"disjunction_n{n}.csv"


def stream_csv(stream: Dataset) -> str:
    """The stream as CSV: header x1…xn,label, then 0/1 values and the label −1/+1."""
    if not np.all((stream.points == 0.0) | (stream.points == 1.0)):
        raise ValueError("a disjunction stream holds only 0 and 1")
    m, n = stream.points.shape
    # Each row is "b1,b2,…,bn," then the label: one character per bit and comma, in bulk.
    cells = np.full((m, 2 * n), ord(","), dtype=np.uint8)
    cells[:, 0::2] = stream.points.astype(np.uint8) + ord("0")
    rows = [
        line.decode("ascii") + f"{label}\n"
        for line, label in zip(map(bytes, cells), stream.labels.tolist(), strict=True)
    ]
    return ",".join((*stream.names, "label")) + "\n" + "".join(rows)


def _number(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def results_csv(result: LabResult) -> str:
    """CSV `n,rule,mistakes,bound` (and `exact_bound` when the plan asked for it).

    An empty bound means no bound applies to that rule (Balanced Winnow).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    exact = result.plan.exact
    writer.writerow(["n", "rule", "mistakes", "bound", *(["exact_bound"] if exact else [])])
    for n, rule, mistakes, bound, exact_bound in result.rows():
        row = [str(n), rule, str(mistakes), _number(bound)]
        writer.writerow(row + ([_number(exact_bound)] if exact else []))
    return out.getvalue()


def _write(path: Path, data: bytes | str, *, follow_links: bool = True) -> None:
    """Write `data` to `path` whole or not at all (`files.write_atomically`); a name made
    up here (a stream in --save-data) does not follow a link found there."""
    try:
        write_atomically(path, data, follow_links=follow_links)
    except OSError as exc:
        raise LabWriteError(f"cannot write {path}: {exc.strerror or exc}") from None


def _plot(result: LabResult, path: Path, log_y: bool = False) -> None:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt loads: same pixels, any machine
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from simulator.ui.style import painting_application

    app = painting_application()  # noqa: F841 - kept alive while the chart paints
    from simulator.ui.lab_charts import ScalingChart, render_chart

    width, height = PLOT_SIZE
    chart = ScalingChart(scale=height / 560, log_y=log_y)
    try:
        plan = result.plan
        chart.show_races(
            result.races,
            title=(
                f"Mistakes against n: r = {plan.relevant} relevant, "
                f"{plan.examples:,} examples, seed {plan.seed}"
            ),
        )
        image = render_chart(chart, width, height)
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG"):
            raise LabWriteError(f"cannot write {path}: the PNG could not be encoded")
        buffer.close()
        _write(path, data.data())
    finally:
        chart.close()
        chart.deleteLater()


def lab_main(options: LabOptions, *, stop: StopFlag | None = None) -> int:
    """Run the lab and write its files; 0 on success, 1 when a file cannot be written,
    128 + the signal when `stop` is set (by SIGINT or SIGTERM) before the end."""
    plan = options.plan

    def say(text: str) -> None:
        if not options.quiet:
            print(f"{PROG}: {text}", file=sys.stderr)

    def finished(race: Race, stream: Dataset) -> None:
        """Save the race's stream, then report it (what is reported is on disk)."""
        if options.save_data is not None:
            path = options.save_data / stream_file_name(race.n)
            _write(path, stream_csv(stream), follow_links=False)
        parts = [
            f"{r.title} {r.mistakes}"
            + (f" (bound {format_number(r.bound)})" if r.bound is not None else "")
            for r in race.results
        ]
        say(
            f"n = {race.n}: {', '.join(parts)}; hidden OR of "
            f"{' ∨ '.join(f'x{v}' for v in race.variables)} ({race.seconds:.2f} s)"
        )

    try:
        # The races read the flag between mistakes; the exact γ* reads none: a signal
        # raises there (no Qt runs until the plot).
        with raising(stop) if stop is not None else contextlib.nullcontext():
            result = run_lab(
                plan, on_race=finished, should_stop=None if stop is None else stop.is_set
            )
            _write(options.out, results_csv(result))
        say(f"wrote {options.out}")
        if options.plot is not None:
            _plot(result, options.plot, options.log_y)
            say(f"wrote {options.plot}")
    except LabWriteError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{PROG}: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except (LabCancelled, KeyboardInterrupt):
        print(f"{PROG}: stopped; the files written so far are whole", file=sys.stderr)
        signum = stop.signal if stop is not None else None
        return exit_status(signum or signal.SIGINT)
    return 0
