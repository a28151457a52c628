"""The controller: owns the `Simulation`, runs it on a timer, and tells views what to paint.

Views call the controller's slots (intent: add a point, step, run) and subscribe to its
signals, which carry immutable records (`Frame`, `Dataset`, `Settings`). They never touch
the simulation.

Decisions a teacher will notice, written down here:

- Editing points (add, move, delete, flip) keeps the learner's weights and counters: online
  learning goes on over the new data, starting a fresh pass. Loading data (New, Open, a
  preset) restarts the run. Every data change is one step on the undo stack.
- Changing a learner setting (rule, η, α, θ, bias, ...) restarts the run with the new
  setting; the points stay. A new rule starts from its own defaults (η, θ, tie rule).
  A setting the engine refuses is reported and not applied.
- Running is chunked on a QTimer: each tick runs the engine for at most `TICK_BUDGET`
  seconds, so the window always answers within a frame, and Pause is immediate.
  Below 60 trials/s one trial runs per tick; above, as many as the speed asks for.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from simulator.engine import Dataset, Settings, Simulation
from simulator.ui.frame import Frame, build_frame

__all__ = ["SimulationController"]

TICK_BUDGET = 0.008  # seconds of engine work per timer tick
FRAME_INTERVAL_MS = 16
NEXT_MISTAKE_EPOCHS = 1000  # give up looking for a mistake after this many epochs


class _DatasetCommand(QUndoCommand):
    """One data change, undoable: the controller swaps between two immutable datasets."""

    def __init__(
        self,
        controller: SimulationController,
        text: str,
        before: Dataset,
        after: Dataset,
        restart: bool,
    ) -> None:
        super().__init__(text)
        self._controller = controller
        self._before, self._after, self._restart = before, after, restart

    def redo(self) -> None:
        self._controller._apply_dataset(self._after, restart=self._restart)

    def undo(self) -> None:
        self._controller._apply_dataset(self._before, restart=self._restart)


class SimulationController(QObject):
    """Drives a `Simulation` for the window (see the module docstring)."""

    frame_changed = Signal(object)  # Frame
    dataset_changed = Signal(object)  # Dataset
    settings_changed = Signal(object)  # Settings
    running_changed = Signal(bool)
    message = Signal(str)  # transient news for the status bar
    problem = Signal(str)  # something the user must read: refused input, divergence

    def __init__(
        self,
        dataset: Dataset | None = None,
        settings: Settings | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self._settings = settings if settings is not None else Settings()
        self._simulation = Simulation.from_settings(
            dataset if dataset is not None else Dataset.empty(), self._settings
        )
        self._frame = build_frame(self._simulation)
        self._goal: str | None = None
        self._goal_target = 0
        self._speed = math.inf  # trials per second
        self._carry = 0.0
        self._last_tick = 0.0
        self._announced: tuple[Simulation, int | None, int | None] | None = None
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_tick)

    # -- state --------------------------------------------------------------------------------

    @property
    def dataset(self) -> Dataset:
        return self._simulation.dataset

    @property
    def simulation(self) -> Simulation:
        return self._simulation

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def frame(self) -> Frame:
        return self._frame

    @property
    def running(self) -> bool:
        return self._goal is not None

    @property
    def speed(self) -> float:
        return self._speed

    # -- data ------------------------------------------------------------------------------

    def set_dataset(self, dataset: Dataset, text: str = "Load data") -> None:
        """Replace all points (undoable) and restart the run (any dimension: the window
        shows d ≠ 2 in its high-dimensional view)."""
        self._push(text, dataset, restart=True)

    def add_point(self, x: float, y: float, label: int) -> None:
        if not (math.isfinite(x) and math.isfinite(y)):
            return
        self._push(f"Add {label:+d} point", self.dataset.with_point((x, y), label))

    def move_point(self, index: int, x: float, y: float) -> None:
        if not (0 <= index < len(self.dataset) and math.isfinite(x) and math.isfinite(y)):
            return
        self._push("Move point", self.dataset.moved(index, (x, y)))

    def delete_points(self, indices: list[int]) -> None:
        indices = sorted({i for i in indices if 0 <= i < len(self.dataset)})
        if indices:
            text = "Delete point" if len(indices) == 1 else f"Delete {len(indices)} points"
            self._push(text, self.dataset.without(indices))

    def flip_label(self, index: int) -> None:
        if 0 <= index < len(self.dataset):
            label = -int(self.dataset.labels[index])
            self._push("Flip label", self.dataset.relabelled(index, label))

    def clear(self) -> None:
        if len(self.dataset):
            self._push("Clear", Dataset.empty(), restart=False)

    def _push(self, text: str, after: Dataset, restart: bool = False) -> None:
        self.undo_stack.push(_DatasetCommand(self, text, self.dataset, after, restart))

    def _apply_dataset(self, dataset: Dataset, restart: bool) -> None:
        if restart:
            self._simulation = Simulation.from_settings(dataset, self._settings)
        else:
            self._simulation.replace_dataset(dataset)
        if len(dataset) == 0:
            self.pause()
        self.dataset_changed.emit(dataset)
        self._publish()

    # -- settings --------------------------------------------------------------------------------

    def set_settings(self, settings: Settings) -> bool:
        """Restart the run with new settings; False (and a `problem`) if the engine refuses."""
        if settings == self._settings:
            return True
        try:
            simulation = Simulation.from_settings(self.dataset, settings)
        except ValueError as exc:
            self.problem.emit(f"Setting not applied: {exc}")
            self.settings_changed.emit(self._settings)  # widgets go back
            return False
        self._settings = settings
        self._simulation = simulation
        self.settings_changed.emit(settings)
        self._publish()
        return True

    def update_settings(self, **changes: object) -> bool:
        return self.set_settings(replace(self._settings, **changes))  # type: ignore[arg-type]

    def request_setting(self, name: str, value: object) -> bool:
        """One setting changed in the window. A new rule starts from its own defaults
        (η, θ, the tie rule); any other change keeps the rest."""
        if name == "algorithm":
            return self.update_settings(
                algorithm=value, learning_rate=None, threshold=None, tie=None
            )
        return self.update_settings(**{name: value})

    # -- running ---------------------------------------------------------------------------------

    def step(self) -> None:
        """One trial."""
        if not self._can_run():
            return
        self.pause()
        self._simulation.step()
        self._after_run()

    def next_mistake(self) -> None:
        """Run to just after the next mistake."""
        if not self._can_run():
            return
        if self._simulation.converged:
            self.message.emit("Converged: no more mistakes to find.")
            return
        self._start("mistake", self._simulation.trials + NEXT_MISTAKE_EPOCHS * len(self.dataset))

    def run_epoch(self) -> None:
        """Run to the end of the current epoch."""
        if self._can_run():
            self._start("epoch", self._simulation.trials + self._simulation.trials_left_in_epoch)

    def run(self) -> None:
        """Run until converged, diverged or paused, at the current speed."""
        if not self._can_run():
            return
        if self._simulation.converged:
            self.message.emit(f"Already converged at trial {self._simulation.converged_at}.")
            return
        if self._simulation.diverged:
            self.message.emit("Diverged: press Reset (or change a setting) to start again.")
            return
        self._start("run", 0)

    def pause(self) -> None:
        if self._goal is not None:
            self._goal = None
            self._timer.stop()
            self.running_changed.emit(False)

    def toggle_run(self) -> None:
        if self.running:
            self.pause()
        else:
            self.run()

    def reset(self) -> None:
        """Back to trial 0 with the current settings; the points stay."""
        self.pause()
        self._simulation = Simulation.from_settings(self.dataset, self._settings)
        self._publish()

    def seek(self, trial: int) -> None:
        """Show the learner as it was after `trial` (rewind); stepping on replaces the future."""
        self.pause()
        self._simulation.seek(trial)
        self._publish()

    def set_speed(self, trials_per_second: float) -> None:
        """Run speed, from 1 trial/s to math.inf (as fast as possible)."""
        self._speed = max(1.0, float(trials_per_second))
        if self._goal == "run":
            self._timer.setInterval(self._interval())

    def _can_run(self) -> bool:
        if len(self.dataset) == 0:
            self.message.emit("Place some points first: left click +1, right click −1.")
            return False
        return True

    def _interval(self) -> int:
        if self._goal == "run" and self._speed < 1000 / FRAME_INTERVAL_MS:
            return round(1000 / self._speed)
        return FRAME_INTERVAL_MS

    def _start(self, goal: str, target: int) -> None:
        was_running = self.running
        self._goal, self._goal_target = goal, target
        self._carry = 0.0
        self._last_tick = time.perf_counter()
        self._timer.start(self._interval())
        if not was_running:
            self.running_changed.emit(True)
        if goal != "run" or self._speed == math.inf:
            self._on_tick()  # the short goals usually finish at once

    def _on_tick(self) -> None:
        sim, goal = self._simulation, self._goal
        if goal is None:
            return
        done = False
        if goal == "run":
            if self._speed < 1000 / FRAME_INTERVAL_MS:
                count = 1
            elif self._speed == math.inf:
                count = 1 << 62
            else:
                now = time.perf_counter()
                self._carry += self._speed * (now - self._last_tick)
                self._last_tick = now
                count = int(self._carry)
                self._carry -= count
            if count:
                sim.run(count, budget_seconds=TICK_BUDGET)
            done = sim.converged or sim.diverged or sim.cycle_period is not None
        elif goal == "mistake":
            mistakes = sim.mistakes
            sim.run(
                self._goal_target - sim.trials,
                stop_on_mistake=True,
                until_converged=True,
                budget_seconds=TICK_BUDGET,
            )
            found = sim.mistakes > mistakes
            done = found or sim.converged or sim.diverged or sim.trials >= self._goal_target
            done = done or sim.cycle_period is not None  # run() stops at a cycle
            if done and not found and not sim.diverged:
                self.message.emit(
                    "No further mistake: "
                    + ("converged." if sim.converged else f"none in {NEXT_MISTAKE_EPOCHS} epochs.")
                )
        else:  # epoch
            sim.run(
                self._goal_target - sim.trials, until_converged=False, budget_seconds=TICK_BUDGET
            )
            done = sim.trials >= self._goal_target
        if done:
            self.pause()
        self._after_run()

    def _after_run(self) -> None:
        """Publish the new state; announce a divergence or convergence once, when it is new."""
        sim = self._simulation
        self._publish()
        events = (sim, sim.converged_at, sim.diverged_at)
        if events == self._announced:
            return
        self._announced = events
        if sim.diverged_at is not None:
            self.problem.emit(sim.divergence_reason or "The run diverged.")
        elif sim.converged_at is not None:
            self.message.emit(f"Converged at trial {sim.converged_at}.")

    def _publish(self) -> None:
        self._frame = build_frame(self._simulation)
        self.frame_changed.emit(self._frame)
