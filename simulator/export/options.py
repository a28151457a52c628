"""What an export writes, as a plain frozen record (no Qt): built by the command line or
the export dialog, read by `ExportJob`.

The limits live here once: the command line, the dialog and the job all check against them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from simulator.engine.dataset import short_repr
from simulator.engine.simulation import MAX_SEED

__all__ = [
    "EVERY",
    "FPS_RANGE",
    "HEIGHT_RANGE",
    "MAX_TRIALS",
    "WIDTH_RANGE",
    "ExportOptions",
    "fps_problem",
    "seed_problem",
    "size_problem",
    "trials_problem",
]

EVERY = ("trial", "mistake", "epoch")  # when a frame is taken (after frame 0, the start)
MAX_TRIALS = 1_000_000  # ~1 GB of PNGs at 1280x720: a slide deck never needs more
FPS_RANGE = (0.1, 120.0)  # a frame per 10 s … the fastest a projector shows
WIDTH_RANGE = (64, 7680)
HEIGHT_RANGE = (64, 4320)


def fps_problem(fps: float) -> str | None:
    """Why `fps` is no frame rate for a GIF or MP4, or None."""
    low, high = FPS_RANGE
    if not (math.isfinite(fps) and low <= fps <= high):
        return f"frames per second must be {low:g} … {high:g}, not {fps:g}"
    return None


def trials_problem(trials: int) -> str | None:
    """Why `trials` is no length for an export, or None."""
    if trials < 1:
        return f"must be at least 1, not {trials}"
    if trials > MAX_TRIALS:
        return f"must be at most {MAX_TRIALS:,}, not {trials:,}"
    return None


def seed_problem(seed: int) -> str | None:
    """Why `seed` is no seed (0 … 2³¹ − 1, what the window's seed boxes and a session file
    hold), or None."""
    if not 0 <= seed <= MAX_SEED:
        return f"must be 0 … {MAX_SEED}, not {short_repr(seed)}"
    return None


def size_problem(width: int, height: int) -> str | None:
    """Why a frame cannot be `width` x `height` pixels, or None."""
    (w_low, w_high), (h_low, h_high) = WIDTH_RANGE, HEIGHT_RANGE
    if not (w_low <= width <= w_high and h_low <= height <= h_high):
        return f"{width}x{height}: width and height must be {w_low}..{w_high} and {h_low}..{h_high}"
    return None


@dataclass(frozen=True)
class ExportOptions:
    """What to export. `folder=None` writes no PNG frames (only the GIF or the MP4).

    `every`: "trial" (a frame after each trial), "mistake" (after each trial that was a
    mistake) or "epoch" (after each completed epoch); frame 0, the start, always comes first.
    `legend` draws the plot's legend; `explain` paints the arithmetic of the latest trial
    (`simulator.presentation.frame.explain_trial`) in a strip under the plot; `charts` draws the
    window's charts beside the plot (mistakes against the bound, Novikoff's proof or the
    loss or weights).
    """

    folder: Path | None
    trials: int | None = None  # exactly this many trials; None: until converged
    max_trials: int = 1000  # the cap for "until converged"
    every: str = "trial"
    gif: Path | None = None
    mp4: Path | None = None
    size: tuple[int, int] = (1280, 720)
    fps: float = 5.0
    separator: bool = True
    legend: bool = False
    explain: bool = False
    charts: bool = False

    def __post_init__(self) -> None:
        if self.trials is not None and (problem := trials_problem(self.trials)):
            raise ValueError(f"the number of trials {problem}")
        if problem := trials_problem(self.max_trials):
            raise ValueError(f"the cap on trials {problem}")
        if self.every not in EVERY:
            raise ValueError(f"a frame every {self.every!r}? Choose one of {', '.join(EVERY)}")
        if problem := fps_problem(self.fps):
            raise ValueError(problem)
        if problem := size_problem(*self.size):
            raise ValueError(f"a frame of {problem}")

    @property
    def trial_limit(self) -> int:
        """The most trials this export runs."""
        return self.trials if self.trials is not None else self.max_trials
