"""An export: replay a run frame by frame through the renderer into the writers.

Frame 0 is the state the export starts from; then a frame after every trial, after every
trial that was a mistake, or after every completed epoch (`ExportOptions.every`). With a
number of trials the export runs exactly that many (also past convergence or divergence);
"until converged" stops at the trial that completes the first epoch without an update, at
divergence, when the run is found repeating itself (a cycle: data no line separates), or
at the cap (`ExportResult.capped` then says so).

`ExportJob.advance(budget)` renders frames for about `budget` seconds and returns, so the
window can drive it from a timer (and stay responsive, with a working Cancel) while the
command line simply loops. The GIF and the MP4 are written as the frames come (memory
stays bounded); `finish()` completes them and removes frame files left in the folder by
an older, longer export; `cancel()` removes any partial animation and keeps the PNG
frames already written. A stop asked through `cancel_requested` (the dialog's Cancel, or
SIGINT/SIGTERM on the command line) takes effect at the next frame boundary.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from simulator.engine import Simulation
from simulator.export.checks import plane_problem
from simulator.export.interrupt import StopFlag
from simulator.export.options import ExportOptions
from simulator.export.render import FrameRenderer, drawing_colours
from simulator.export.writers import ExportError, GifWriter, Mp4Writer, PngSequence, frame_pixels
from simulator.presentation.frame import build_frame

__all__ = ["ExportJob", "ExportOptions", "ExportResult"]


@dataclass(frozen=True)
class ExportResult:
    frames: int  # the PNGs in `folder`; without a folder, the frames of the GIF/MP4
    trials: int
    folder: Path | None
    gif: Path | None
    mp4: Path | None
    cancelled: bool
    converged_at: int | None
    diverged_at: int | None
    capped: bool = False  # "until converged" stopped at the cap, not converged
    cycle: tuple[int, int] | None = None  # (trial found at, period in epochs) of a cycle

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
            missing = " (no GIF or MP4)" if self.gif is None and self.mp4 is None else ""
            return f"Cancelled after {self.frames} frames; wrote {what}{missing}."
        ending = ""
        if self.converged_at is not None:
            ending = f" The run converged at trial {self.converged_at}."
        elif self.diverged_at is not None:
            ending = f" The run diverged at trial {self.diverged_at}."
        elif self.cycle is not None:
            found, period = self.cycle
            epochs = "epoch" if period == 1 else f"{period} epochs"
            ending = (
                f" The run repeats itself every {epochs} (found at trial {found}): "
                "no line separates these data."
            )
        elif self.capped:
            ending = f" The run did not converge within the cap of {self.trials} trials."
        return f"Wrote {what} ({self.trials} trials).{ending}"


class ExportJob:
    """Renders a simulation's run into PNG/GIF/MP4 (see the module docstring).

    The job advances `simulation` itself: pass a copy to keep the original untouched.
    Everything that can fail before the first frame (the folder, the animation files,
    ffmpeg) fails here, in the constructor, with an `ExportError`.
    """

    def __init__(
        self, simulation: Simulation, options: ExportOptions, *, stop: StopFlag | None = None
    ) -> None:
        problem = plane_problem(simulation.dataset)
        if problem is not None:
            raise ExportError(problem)
        self.options = options
        self.cancel_requested = stop if stop is not None else StopFlag()
        self._simulation = simulation
        self._start_trial = simulation.trials
        self._frames = 0
        self._done = False
        self._result: ExportResult | None = None
        self._gif: GifWriter | None = None
        self._mp4: Mp4Writer | None = None
        self._renderer: FrameRenderer | None = None
        folder = options.folder
        if folder is not None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ExportError(f"cannot write to {folder}: {exc.strerror or exc}") from None
        width, height = options.size
        try:
            if options.gif is not None:
                self._gif = GifWriter(options.gif, options.fps, options.size, drawing_colours())
            if options.mp4 is not None:
                self._mp4 = Mp4Writer(options.mp4, width, height, options.fps)
        except ExportError:
            self._discard()
            raise
        # Without a folder only the GIF or the MP4 is written: no PNG at all.
        self._png = PngSequence(folder) if folder is not None else None
        self._renderer = FrameRenderer(
            width,
            height,
            separator=options.separator,
            legend=options.legend,
            explain=options.explain,
            charts=options.charts,
            explain_lines=simulation.learner.explain_lines,
        )

    @property
    def frames_written(self) -> int:
        return self._frames

    @property
    def trials_run(self) -> int:
        return self._simulation.trials - self._start_trial

    def _finished_running(self) -> bool:
        sim, options = self._simulation, self.options
        if options.trials is not None:
            return self.trials_run >= options.trials
        return (
            sim.converged
            or sim.diverged
            or sim.cycle_found_at is not None
            or self.trials_run >= options.max_trials
        )

    def _run_to_next_frame(self, deadline: float) -> bool:
        """Run the trials up to the next frame's state; True when a frame is due (False when
        the run ended first, or the time is up: call again)."""
        sim, every = self._simulation, self.options.every
        left = self.options.trial_limit - self.trials_run
        mistakes = sim.mistakes
        if every == "trial":
            return sim.run(1, until_converged=False) == 1
        if every == "epoch":
            left = min(left, sim.trials_left_in_epoch)
        ran = sim.run(
            left,
            until_converged=self.options.trials is None,
            stop_on_mistake=every == "mistake",
            budget_seconds=max(0.0, deadline - time.perf_counter()),
        )
        if every == "mistake":
            return sim.mistakes > mistakes
        return ran > 0 and sim.trials_left_in_epoch == sim.epoch_length

    def advance(self, budget_seconds: float = 0.05) -> bool:
        """Render frames for about `budget_seconds`; True once every frame is written, or
        once a stop was asked for (then call `cancel()`)."""
        deadline = time.perf_counter() + budget_seconds
        try:
            while not self._done:
                if self.cancel_requested.is_set():
                    return True
                if self._frames > 0:
                    if self._finished_running():
                        if self._png is not None:
                            self._png.wait()
                        self._done = True
                        self._close_renderer()  # here, on the thread that made it
                        break
                    if not self._run_to_next_frame(deadline):
                        if time.perf_counter() >= deadline:
                            break
                        continue
                self._write_frame()
                if time.perf_counter() >= deadline:
                    break
        except Exception:
            self._discard()
            self._close_renderer()
            self._close_png()
            raise
        return self._done

    def _write_frame(self) -> None:
        assert self._renderer is not None
        image = self._renderer.render(build_frame(self._simulation))
        if self._png is not None:
            self._png.add(self._frames, image)
        if self._gif is not None or self._mp4 is not None:
            pixels = frame_pixels(image)
            if self._gif is not None:
                self._gif.add(pixels)
            if self._mp4 is not None:
                self._mp4.add(pixels)
        self._frames += 1

    def finish(self) -> ExportResult:
        """Complete the GIF and the MP4, and say what was written (call after `advance`).

        Touches no Qt object, so it may run on a worker thread. A stop asked meanwhile
        removes the animations not yet in place and reports a cancelled export.
        """
        if self._result is not None:
            return self._result
        if self.cancel_requested.is_set():
            return self.cancel()
        if not self._done:
            raise ExportError("finish() before every frame was rendered")

        def keep() -> bool:
            return not self.cancel_requested.is_set()

        gif = mp4 = None
        try:
            if self._gif is not None:
                gif = self._gif.finish(keep)
                self._gif = None
            if self._mp4 is not None:
                mp4 = self._mp4.finish(keep)
                self._mp4 = None
            if self._png is not None:
                self._png.remove_stale()
            self._close_png()
        except ExportError:
            self._discard()
            self._close_png()
            raise
        if self.cancel_requested.is_set():
            return self._conclude(cancelled=True, gif=gif, mp4=mp4)
        return self._conclude(gif=gif, mp4=mp4)

    def cancel(self) -> ExportResult:
        """Stop: no GIF or MP4; the PNG frames already written stay. Not from a worker
        thread while `advance` runs (the renderer is freed on the thread that made it)."""
        if self._result is not None:
            return self._result
        self.cancel_requested.set()
        self._discard()
        self._close_renderer()
        self._close_png()  # the frames in hand are finished, the rest dropped
        if self._png is not None:
            self._frames = len(self._png.paths)
        return self._conclude(cancelled=True)

    def _conclude(
        self, *, cancelled: bool = False, gif: Path | None = None, mp4: Path | None = None
    ) -> ExportResult:
        sim = self._simulation
        capped = (
            self.options.trials is None
            and not (sim.converged or sim.diverged or sim.cycle_found_at is not None)
            and self.trials_run >= self.options.max_trials
        )
        self._result = ExportResult(
            frames=self._frames,
            trials=self.trials_run,
            folder=self.options.folder,
            gif=gif,
            mp4=mp4,
            cancelled=cancelled,
            converged_at=sim.converged_at,
            diverged_at=sim.diverged_at,
            capped=capped and not cancelled,
            cycle=(
                None
                if sim.cycle_found_at is None or sim.cycle_period is None
                else (sim.cycle_found_at, sim.cycle_period)
            ),
        )
        return self._result

    def _discard(self) -> None:
        """Remove the animations not yet in place (their temporary files)."""
        if self._gif is not None:
            self._gif.abort()
            self._gif = None
        if self._mp4 is not None:
            self._mp4.abort()
            self._mp4 = None

    def _close_renderer(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def _close_png(self) -> None:
        if self._png is not None:
            self._png.close()
