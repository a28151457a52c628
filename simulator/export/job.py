"""An export: replay a run frame by frame through the renderer into the writers.

Frame 0 is the state the export starts from; then one frame per trial. With a number of
trials the export runs exactly that many (also past convergence or divergence); "until
converged" stops at the trial that completes the first epoch without an update, or at
divergence, or at the cap.

`ExportJob.advance(budget)` renders frames for about `budget` seconds and returns, so the
window can drive it from a timer (and stay responsive, with a working Cancel) while the
command line simply loops. `finish()` then writes the GIF, closes the MP4, and removes frame
files left in the folder by an older, longer export; `cancel()` removes any partial
animation and keeps the PNG frames already written.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from simulator.engine import Simulation
from simulator.export.render import FrameRenderer
from simulator.export.writers import ExportError, GifWriter, Mp4Writer, PngSequence
from simulator.ui.frame import build_frame

__all__ = ["ExportJob", "ExportOptions", "ExportResult"]


@dataclass(frozen=True)
class ExportOptions:
    """What to export. `folder=None` renders PNGs to a temporary folder (for GIF/MP4 only)."""

    folder: Path | None
    trials: int | None = None  # exactly this many trials; None: until converged
    max_trials: int = 1000  # the cap for "until converged"
    gif: Path | None = None
    mp4: Path | None = None
    size: tuple[int, int] = (1280, 720)
    fps: float = 5.0
    separator: bool = True

    def __post_init__(self) -> None:
        if self.trials is not None and self.trials < 1:
            raise ValueError(f"the number of trials must be at least 1, not {self.trials}")
        if self.max_trials < 1:
            raise ValueError(f"the cap must be at least 1 trial, not {self.max_trials}")
        if not (self.fps > 0):
            raise ValueError(f"frames per second must be positive, not {self.fps}")
        width, height = self.size
        if not (64 <= width <= 7680 and 64 <= height <= 4320):
            raise ValueError(f"a frame of {width}x{height} is too small or too large")


@dataclass(frozen=True)
class ExportResult:
    frames: int
    trials: int
    folder: Path | None
    gif: Path | None
    mp4: Path | None
    cancelled: bool
    converged_at: int | None
    diverged_at: int | None

    def summary(self) -> str:
        """One sentence naming what was written."""
        written = []
        if self.folder is not None and self.frames:
            written.append(f"{self.frames} PNG frames in {self.folder}")
        if self.gif is not None:
            written.append(f"the GIF {self.gif}")
        if self.mp4 is not None:
            written.append(f"the MP4 {self.mp4}")
        what = ", ".join(written) if written else "nothing"
        if self.cancelled:
            return f"Cancelled after {self.frames} frames; wrote {what} (no GIF or MP4)."
        ending = ""
        if self.converged_at is not None:
            ending = f" The run converged at trial {self.converged_at}."
        elif self.diverged_at is not None:
            ending = f" The run diverged at trial {self.diverged_at}."
        return f"Wrote {what} ({self.trials} trials).{ending}"


class ExportJob:
    """Renders a simulation's run into PNG/GIF/MP4 (see the module docstring).

    The job advances `simulation` itself: pass a copy to keep the original untouched.
    """

    def __init__(self, simulation: Simulation, options: ExportOptions) -> None:
        if simulation.dataset.dimension != 2:
            raise ExportError(
                f"frames show 2-D data; these points have {simulation.dataset.dimension} "
                "coordinates"
            )
        if len(simulation.dataset) == 0:
            raise ExportError("there are no points to export")
        self.options = options
        self._simulation = simulation
        self._start_trial = simulation.trials
        self._temporary: Path | None = None
        folder = options.folder
        if folder is None:
            self._temporary = Path(tempfile.mkdtemp(prefix="lcl-frames-"))
            folder = self._temporary
        else:
            folder.mkdir(parents=True, exist_ok=True)
        self._png = PngSequence(folder)
        width, height = options.size
        self._mp4 = Mp4Writer(options.mp4, width, height, options.fps) if options.mp4 else None
        self._renderer: FrameRenderer | None = FrameRenderer(
            width, height, separator=options.separator
        )
        self._frames = 0
        self._done = False
        self._result: ExportResult | None = None
        self.cancel_requested = threading.Event()

    @property
    def frames_written(self) -> int:
        return self._frames

    @property
    def frames_expected(self) -> int:
        """Frames an uninterrupted export writes (an upper bound for "until converged")."""
        return 1 + (
            self.options.trials if self.options.trials is not None else self.options.max_trials
        )

    def _trials_run(self) -> int:
        return self._simulation.trials - self._start_trial

    def _finished_running(self) -> bool:
        sim, options = self._simulation, self.options
        if options.trials is not None:
            return self._trials_run() >= options.trials
        return sim.converged or sim.diverged or self._trials_run() >= options.max_trials

    def advance(self, budget_seconds: float = 0.05) -> bool:
        """Render frames for about `budget_seconds`; True once every frame is written."""
        deadline = time.perf_counter() + budget_seconds
        try:
            while not self._done:
                if self._frames > 0:
                    if self._finished_running():
                        self._png.wait()
                        self._done = True
                        self._close_renderer()  # here, on the thread that made it
                        break
                    self._simulation.step()
                assert self._renderer is not None
                image = self._renderer.render(build_frame(self._simulation))
                self._png.add(self._frames, image)
                if self._mp4 is not None:
                    self._mp4.add(image)
                self._frames += 1
                if time.perf_counter() >= deadline:
                    break
        except Exception:
            self._discard()
            self._close_renderer()
            self._png.close()
            raise
        return self._done

    def finish(self) -> ExportResult:
        """Write the GIF, close the MP4, and say what was written (call after `advance`).

        Touches no Qt object, so it may run on a worker thread.
        """
        if self._result is not None:
            return self._result
        if not self._done:
            raise ExportError("finish() before every frame was rendered")
        try:
            gif = None
            if self.options.gif is not None:
                gif = GifWriter(self.options.gif, self.options.fps).write(
                    self._png.paths, cancelled=self.cancel_requested
                )
            mp4 = self._mp4.finish() if self._mp4 is not None else None
            self._png.remove_stale()
            self._png.close()
        except ExportError:
            self._discard()
            if self.cancel_requested.is_set():
                return self._conclude(cancelled=True)
            raise
        return self._conclude(gif=gif, mp4=mp4)

    def cancel(self) -> ExportResult:
        """Stop: no GIF or MP4; the PNG frames already written stay. GUI thread only."""
        self.cancel_requested.set()
        self._discard()
        self._close_renderer()
        self._png.close()
        self._png.paths = [p for p in self._png.paths if p.exists()]
        self._frames = len(self._png.paths)
        return self._conclude(cancelled=True)

    def _conclude(
        self, *, cancelled: bool = False, gif: Path | None = None, mp4: Path | None = None
    ) -> ExportResult:
        sim = self._simulation
        keep_folder = self._temporary is None
        self._result = ExportResult(
            frames=self._frames if keep_folder else 0,
            trials=self._trials_run(),
            folder=self.options.folder if keep_folder else None,
            gif=gif,
            mp4=mp4,
            cancelled=cancelled,
            converged_at=sim.converged_at,
            diverged_at=sim.diverged_at,
        )
        self._close()
        return self._result

    def _discard(self) -> None:
        if self._mp4 is not None:
            self._mp4.abort()
            self._mp4 = None

    def _close_renderer(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def _close(self) -> None:
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None
