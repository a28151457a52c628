"""`SimulationRun`: the run loop, one trial (`step`) or many (`run`).

`run` jumps over whole epochs where the run repeats itself (`Runner.skip_rest`), runs the
rest in legs between checkpoints, and stops at convergence, divergence, a cycle, a
mistake, a deadline or a cancellation; `step` runs one trial, converged or not.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from simulator.engine.live import Leg, Live
from simulator.engine.records import Trial
from simulator.engine.simulation_replay import SimulationReplay

__all__ = ["SimulationRun"]


class SimulationRun(SimulationReplay):
    """A `Simulation`'s trials: `step`, `run`, and why a run stopped updating."""

    # -- running -----------------------------------------------------------------------------------

    def step(self) -> Trial:
        """Run one trial and return its record."""
        segment = self._prepare()
        live = self._live
        with np.errstate(over="ignore", invalid="ignore"):
            self._runner.one_trial(live, segment, record=True)
        self._history.length = live.trials
        self._maybe_checkpoint()
        assert live.last is not None
        return self._make_trial(live.last)

    def run(
        self,
        max_trials: int,
        *,
        until_converged: bool = True,
        stop_on_mistake: bool = False,
        budget_seconds: float | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> int:
        """Run up to `max_trials` trials; return how many ran.

        Stops early once converged, diverged or found cycling (unless
        `until_converged=False`), right after a mistake (if `stop_on_mistake`), when
        `budget_seconds` of wall time have passed, or once `cancelled()` is true (both
        checked between blocks of at most an epoch; the trajectory never depends on them).
        """
        if max_trials < 0:
            raise ValueError(f"max_trials must be >= 0; got {max_trials}")
        deadline = None if budget_seconds is None else time.perf_counter() + budget_seconds
        done = 0
        live, runner = self._live, self._runner
        with np.errstate(over="ignore", invalid="ignore"):
            while done < max_trials:
                if until_converged and self._settled():
                    break
                if cancelled is not None and cancelled():
                    break
                segment = self._prepare()
                if not stop_on_mistake or not segment.rest_mistakes:
                    skipped = runner.skip_rest(live, segment, max_trials - done, record=True)
                    if skipped:
                        done += skipped
                        self._history.length = live.trials
                        self._history.add_checkpoint(live.copy())
                        continue
                trials_room, updates_room = self._checkpoint_room()
                mistakes = live.mistakes
                leg = Leg(
                    record=True,
                    stop_on_mistake=stop_on_mistake,
                    deadline=deadline,
                    update_budget=updates_room,
                )
                done += runner.advance(live, segment, min(max_trials - done, trials_room), leg)
                self._history.length = live.trials
                self._maybe_checkpoint()
                if stop_on_mistake and live.mistakes > mistakes:
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    break
        return done

    def _settled(self) -> bool:
        """Whether `run` has nothing more to do: converged, diverged, or cycling."""
        return self.converged or self.diverged or self.cycle_found_at is not None

    def _divergence_text(self, t: int, kind: str, detail: str, live: Live) -> str:
        """Why the run stopped updating at trial t, in one sentence with advice."""
        learner = self._learner
        advice = learner.divergence_advice(self._X)
        if kind == "score":
            return f"the score w·x overflowed at trial {t}, so it stopped updating ({advice})."
        if kind == "growth":
            low, high = detail.split("|")
            segment = live.segment
            epoch = segment.epoch_of(t) if segment is not None else self.epoch
            return (
                f"{learner.title} diverged at trial {t} (epoch {epoch}): its mean squared "
                f"error grew from {low} to {high}, over a millionfold, so it stopped "
                f"updating. {advice}"
            )
        if detail == "overflow":
            return (
                f"{learner.title} {learner.overflow_word} at trial {t}: a weight grew past "
                f"1e150, so it stopped updating ({advice})."
            )
        return f"{learner.title} stopped at trial {t}: {detail}."
