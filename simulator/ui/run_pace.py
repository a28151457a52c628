"""How the controller's Run keeps time: the timer's interval, the trials each tick may run
at the chosen speed, and one tick of engine work toward a goal.

Running is chunked on a QTimer (the controller's): each tick runs the engine for at most
`TICK_BUDGET` seconds, so the window always answers within a frame. Below 62.5 trials/s
(one per 16 ms frame) one trial runs per tick, the ticks 1/speed apart; above, as many as
the speed asks for, measured with the controller's clock; at math.inf, as many as the
budget allows. Nothing here holds Qt objects: the controller owns the timer and the signals.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from simulator.engine import Simulation

__all__ = [
    "FRAME_INTERVAL_MS",
    "NEXT_MISTAKE_EPOCHS",
    "TICK_BUDGET",
    "RunPace",
    "run_toward",
]

TICK_BUDGET = 0.008  # seconds of engine work per timer tick
FRAME_INTERVAL_MS = 16
NEXT_MISTAKE_EPOCHS = 1000  # give up looking for a mistake after this many epochs
_AS_MANY_AS_FIT = 1 << 62  # trials asked of a tick at math.inf: the budget ends it


class RunPace:
    """The speed of a Run (trials per second, math.inf: as fast as possible) and what it
    means for the timer: its interval, and the trials each tick may run."""

    def __init__(self) -> None:
        self.speed = math.inf
        self._carry = 0.0  # the fraction of a trial owed to the next tick
        self._last_tick = 0.0

    def set_speed(self, trials_per_second: float) -> None:
        """From 1 trial/s to math.inf."""
        self.speed = max(1.0, float(trials_per_second))

    def interval(self, goal: str | None) -> int:
        """The timer's interval in ms while running toward `goal`."""
        if goal == "run" and self.speed < 1000 / FRAME_INTERVAL_MS:
            return round(1000 / self.speed)
        return FRAME_INTERVAL_MS

    def start(self, now: float) -> None:
        """A run starts at time `now`: nothing is owed yet."""
        self._carry = 0.0
        self._last_tick = now

    def trials(self, clock: Callable[[], float]) -> int:
        """The trials this tick of a Run may run (`clock` is read only when the speed is
        limited and above one trial per frame)."""
        if self.speed < 1000 / FRAME_INTERVAL_MS:
            return 1
        if self.speed == math.inf:
            return _AS_MANY_AS_FIT
        now = clock()
        self._carry += self.speed * (now - self._last_tick)
        self._last_tick = now
        count = int(self._carry)
        self._carry -= count
        return count


def run_toward(
    sim: Simulation, goal: str | None, target: int, count: int, budget: float
) -> tuple[bool, str | None]:
    """One tick of engine work, at most `budget` seconds: `count` trials of a Run (`goal`
    "run"), on to the next mistake ("mistake", giving up at trial `target`), or on to trial
    `target` (an epoch's end). Whether the goal is reached, and news for the status bar."""
    if goal == "run":
        if count:
            sim.run(count, budget_seconds=budget)
        return sim.converged or sim.diverged or sim.cycle_found_at is not None, None
    if goal == "mistake":
        mistakes = sim.mistakes
        sim.run(
            target - sim.trials,
            stop_on_mistake=True,
            # Past a cycle the run repeats itself, mistakes too: go on to the next one.
            until_converged=sim.cycle_found_at is None,
            budget_seconds=budget,
        )
        found = sim.mistakes > mistakes
        done = found or sim.converged or sim.diverged or sim.trials >= target
        news = None
        if done and not found and not sim.diverged:
            news = "No further mistake: " + (
                "converged." if sim.converged else f"none in {NEXT_MISTAKE_EPOCHS} epochs."
            )
        return done, news
    sim.run(target - sim.trials, until_converged=False, budget_seconds=budget)
    return sim.trials >= target, None
