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
  A setting that is refused (the engine's ranges; a number that is not finite, or a seed
  outside 0 … 2³¹−1, never even reaches the engine) gets one dialog and is not applied.
- Undo and redo bring back the points with the settings of now, unless those do not fit
  the points (a custom w₀ of another length, after data of another dimension): then the
  settings the points last had come back with them, and the status bar says so. Undoing
  an opened session brings back the settings from before it, as well as the points.
  The commands are `simulator.ui.undo_commands.DatasetCommand`s.
- Running is chunked on a QTimer: each tick runs the engine for at most `tick_budget`
  seconds, so the window always answers within a frame, and Pause is immediate.
  Below 62.5 trials/s (one per 16 ms frame) one trial runs per tick; above, as many as
  the speed asks for (measured with `clock`). `advance(n)` runs n ticks at once: tests
  drive time with it. The pace and one tick's work are `simulator.ui.run_pace`'s.
- A Run stops where w is found to cycle (non-separable data in cyclic order: w at the
  start of an epoch repeats one P epochs earlier) and says that it will never converge;
  Step and Next mistake still go on through the cycle.
- Nothing that fails reaches Qt. New data are applied (simulation and frame built) before
  the undo command is pushed, so a failure leaves the points as they were and nothing on
  the stack; an undo or redo that fails drops its command. A failure inside a timer tick
  pauses the run. Each one is reported to the last-resort handler (`safety`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from simulator.engine import Dataset, Settings, Simulation
from simulator.engine.learners import LEARNERS
from simulator.presentation.frame import Frame, build_frame
from simulator.ui.run_pace import FRAME_INTERVAL_MS as FRAME_INTERVAL_MS  # was defined here
from simulator.ui.run_pace import NEXT_MISTAKE_EPOCHS, TICK_BUDGET, RunPace, run_toward
from simulator.ui.safety import report_exception
from simulator.ui.settings_check import settings_problem
from simulator.ui.undo_commands import DatasetCommand

__all__ = ["SimulationController", "cycle_text", "settings_problem"]

MULTICLASS = "multiclass-perceptron"  # the learner K ≥ 3 classes switch to


def cycle_text(sim: Simulation) -> str:
    """What a found cycle means, in one line (a Run stops there)."""
    period = sim.cycle_period
    epochs = "1 epoch" if period == 1 else f"{period} epochs"
    return (
        f"w cycles with period {epochs} (found at trial {sim.cycle_found_at}): "
        f"{sim.rule.title} will never converge on these points."
    )


class SimulationController(QObject):
    """Drives a `Simulation` for the window (see the module docstring)."""

    frame_changed = Signal(object)  # Frame
    dataset_changed = Signal(object)  # Dataset
    settings_changed = Signal(object)  # Settings
    running_changed = Signal(bool)
    message = Signal(str)  # transient news for the status bar
    problem = Signal(str)  # something the user must read: refused input, divergence
    refused = Signal(str)  # settings that are not numbers the engine may see (one dialog)

    def __init__(
        self,
        dataset: Dataset | None = None,
        settings: Settings | None = None,
        parent: QObject | None = None,
        *,
        clock: Callable[[], float] = time.perf_counter,
        tick_budget: float = TICK_BUDGET,
    ) -> None:
        super().__init__(parent)
        self.clock = clock  # measures the time between ticks for a limited speed
        self.tick_budget = tick_budget  # seconds of engine work per tick
        self.undo_stack = QUndoStack(self)
        dataset = dataset if dataset is not None else Dataset.empty()
        # Settings from outside (a command line, a settings file) that cannot be used give
        # way to the defaults: the window must open. `start_problem` says why, once.
        self.start_problem: str | None = None
        if settings is not None:
            self.start_problem = settings_problem(settings)
        if settings is not None and self.start_problem is None:
            try:
                self._simulation = Simulation.from_settings(dataset, settings)
            except ValueError as exc:
                self.start_problem = str(exc)
        if settings is None or self.start_problem is not None:
            settings = Settings()
            self._simulation = Simulation.from_settings(dataset, settings)
        self._settings = settings
        self._frame = build_frame(self._simulation)
        self._goal: str | None = None
        self._goal_target = 0
        self._pace = RunPace()  # the speed, and the trials each tick may run
        self._generation = 0  # counts simulations; never hold an old one (its history)
        self._announced: tuple[int, int | None, int | None, int | None] | None = None
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
        return self._pace.speed

    # -- data ------------------------------------------------------------------------------

    def set_dataset(
        self, dataset: Dataset, text: str = "Load data", settings: Settings | None = None
    ) -> bool:
        """Replace all points (undoable) and restart the run; False if they cannot be shown.
        Any dimension: the window shows d ≠ 2 in its high-dimensional view. `settings`: the
        learner and settings that come with the points (a preset's), in the same undo step."""
        self._forget_message()
        return self._push(text, dataset, restart=True, settings=settings)

    def add_point(self, x: float, y: float, label: int) -> None:
        if math.isfinite(x) and math.isfinite(y):
            ds = self.dataset
            text = (
                f"Add {label:+d} point"
                if len(ds.classes) == 2
                else f"Add a point of class {ds.class_names[ds.classes.index(label)]}"
                if label in ds.classes
                else "Add point"
            )
            self._edit(text, lambda ds: ds.with_point((x, y), label))

    def move_point(self, index: int, x: float, y: float) -> None:
        if 0 <= index < len(self.dataset) and math.isfinite(x) and math.isfinite(y):
            self._edit("Move point", lambda ds: ds.moved(index, (x, y)))

    def delete_points(self, indices: list[int]) -> None:
        indices = sorted({i for i in indices if 0 <= i < len(self.dataset)})
        if indices:
            text = "Delete point" if len(indices) == 1 else f"Delete {len(indices)} points"
            self._edit(text, lambda ds: ds.without(indices))

    def flip_label(self, index: int) -> None:
        """The other class of two; of K classes, the next one (the last goes to the first)."""
        if 0 <= index < len(self.dataset):
            own, classes = int(self.dataset.labels[index]), self.dataset.classes
            label = classes[(classes.index(own) + 1) % len(classes)]
            self._edit("Flip label", lambda ds: ds.relabelled(index, label))

    def relabel(self, index: int, label: int) -> None:
        """Move point `index` to class `label`."""
        if 0 <= index < len(self.dataset) and label != int(self.dataset.labels[index]):
            self._edit("Change class", lambda ds: ds.relabelled(index, label))

    def use_classes(self, count: int) -> bool:
        """Make the data `count` classes (keys 3–9 on fewer): −1 becomes class 0, +1 class
        1; a two-class learner gives way to the multiclass perceptron. One undo step."""
        if count <= len(self.dataset.classes):
            return True
        return self._edit(f"Use {count} classes", lambda ds: ds.with_classes(count))

    def clear(self) -> None:
        if len(self.dataset):
            self._push("Clear", Dataset.empty(), restart=False)

    def _edit(self, text: str, change: Callable[[Dataset], Dataset]) -> bool:
        """One edit of the points; a point the data refuse (e.g. beyond ±1e150) is reported."""
        try:
            after = change(self.dataset)
        except ValueError as exc:
            self.problem.emit(f"Not changed: {exc}")
            return False
        return self._push(text, after)

    def _push(
        self,
        text: str,
        after: Dataset,
        restart: bool = False,
        simulation: Simulation | None = None,
        settings: Settings | None = None,
    ) -> bool:
        """Apply `after`, then record it on the undo stack; False if it could not be applied."""
        before = (self.dataset, self._settings)
        if simulation is not None:
            settings = simulation.settings
        elif settings is None:
            settings = self._fitting(after)
        if not self._apply_dataset(after, restart, simulation, settings):
            return False
        command = DatasetCommand(
            text,
            before,
            (after, settings),
            restart,
            settings=lambda: self.settings,
            revisit=self._revisit,
        )
        self.undo_stack.push(command)
        return True

    def _fitting(self, dataset: Dataset) -> Settings:
        """The settings for `dataset`: the current ones, unless their learner takes two
        classes and the data have more; then the multiclass perceptron (said in the status)."""
        settings = self._settings
        if LEARNERS[settings.algorithm].classes == "two" and len(dataset.classes) > 2:
            self.message.emit(
                f"{len(dataset.classes)} classes: the learner is now the multiclass perceptron."
            )
            return replace(settings, algorithm=MULTICLASS, learning_rate=None, tie=None)  # type: ignore[arg-type]
        return settings

    def _apply_dataset(
        self,
        dataset: Dataset,
        restart: bool,
        simulation: Simulation | None = None,
        settings: Settings | None = None,
    ) -> bool:
        """Show `dataset` (with `settings`, default the current ones): all or nothing. Build
        the simulation (unless given) and its frame first; only then replace what the
        window shows. On failure nothing changes (False)."""
        settings = self._settings if settings is None else settings
        try:
            if simulation is not None:
                frame = build_frame(simulation)
            else:
                simulation, frame = self._build(dataset, restart, settings)
        except Exception as exc:
            self.problem.emit(f"These points could not be shown ({exc}); nothing was changed.")
            report_exception(exc)
            return False
        self._show_data(dataset, settings, simulation, frame)
        return True

    def _build(
        self, dataset: Dataset, restart: bool, settings: Settings
    ) -> tuple[Simulation, Frame]:
        """The simulation for `dataset` and its frame; raises and changes nothing on failure.

        An edit (not `restart`) keeps the learner going over the new points, unless the
        settings, the number of coordinates or the number of classes change (a W of K rows
        cannot learn K + 1 classes): then the run starts afresh."""
        current = self._simulation
        if (
            restart
            or settings != self._settings
            or dataset.dimension != current.dataset.dimension
            or len(dataset.classes) != len(current.dataset.classes)
        ):
            simulation = Simulation.from_settings(dataset, settings)
            return simulation, build_frame(simulation)
        before = current.dataset
        current.replace_dataset(dataset)
        try:
            return current, build_frame(current)
        except Exception:
            current.replace_dataset(before)
            raise

    def _show_data(
        self, dataset: Dataset, settings: Settings, simulation: Simulation, frame: Frame
    ) -> None:
        if len(dataset) == 0:
            self.pause()
        changed = settings != self._settings
        self._settings = settings
        self._adopt(simulation)
        if changed:
            self.settings_changed.emit(settings)
        self.dataset_changed.emit(dataset)
        self._show(frame)

    def _revisit(
        self, dataset: Dataset, recorded: Settings, restart: bool, carries_settings: bool
    ) -> bool:
        """Undo or redo: show `dataset` with the settings of now, or with `recorded` (the
        settings it last had) when the command brought its own settings or the ones of
        now do not fit these points (a custom w₀ of another length). False (and one line)
        if neither can be shown."""
        now = self._settings
        choices = [recorded] if carries_settings else list(dict.fromkeys((now, recorded)))
        refusals: list[str] = []
        for settings in choices:
            try:
                simulation, frame = self._build(dataset, restart, settings)
            except ValueError as exc:  # the engine refusing these settings for these data
                refusals.append(str(exc))
                continue
            except Exception as exc:
                self.problem.emit(f"These points could not be shown ({exc}); nothing changed.")
                report_exception(exc)
                return False
            self._show_data(dataset, settings, simulation, frame)
            if settings != now and not carries_settings:
                self.message.emit(
                    f"The settings did not fit these points ({refusals[0]}); "
                    "the settings they had before are back."
                )
            return True
        self.problem.emit(f"These points could not be shown ({refusals[-1]}); nothing changed.")
        return False

    def _adopt(self, simulation: Simulation) -> None:
        if simulation is not self._simulation:
            self._generation += 1
        self._simulation = simulation

    # -- settings --------------------------------------------------------------------------------

    def set_settings(self, settings: Settings) -> bool:
        """Restart the run with new settings; False (and a `problem`) if the engine refuses."""
        if settings == self._settings:
            return True
        self._forget_message()
        problem = settings_problem(settings)
        if problem is not None:  # never passed to the engine
            self.refused.emit(f"Setting not applied: {problem}.")
            self.settings_changed.emit(self._settings)  # widgets go back
            return False
        try:
            # Same data: γ* and the other reports carry over (seconds in 8-D).
            simulation = Simulation.from_settings(self.dataset, settings, previous=self._simulation)
            frame = build_frame(simulation)
        except Exception as exc:
            self.problem.emit(f"Setting not applied: {exc}")
            self.settings_changed.emit(self._settings)  # widgets go back
            if not isinstance(exc, ValueError):  # the engine refusing a value is no bug
                report_exception(exc)
            return False
        self._settings = settings
        self._adopt(simulation)
        self.settings_changed.emit(settings)
        self._show(frame)
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
        try:
            self._simulation.step()
        except Exception as exc:
            self._fail(exc)
        self._after_run()

    def next_mistake(self) -> None:
        """Run to just after the next mistake."""
        if not self._can_run():
            return
        if self._simulation.converged:
            self.message.emit("Converged: no more mistakes to find.")
            return
        self._start(
            "mistake", self._simulation.trials + NEXT_MISTAKE_EPOCHS * self._simulation.epoch_length
        )

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
        if self._simulation.cycle_found_at is not None:
            self.message.emit(cycle_text(self._simulation) + " Step or Next mistake go on.")
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
        """Back to trial 0 with the current settings; the points stay.

        The old simulation and its history are dropped (nothing else holds them). If the
        new one cannot be made, the run stays as it was and the reason is reported."""
        self.pause()
        self._forget_message()
        try:
            simulation = Simulation.from_settings(
                self.dataset, self._settings, previous=self._simulation
            )
        except Exception as exc:
            self._fail(exc, "Reset failed; the run stays as it was")
            return
        self._adopt(simulation)
        self._publish()

    def seek(self, trial: int) -> None:
        """Show the learner as it was after `trial` (rewind); stepping on replaces the future.

        Pauses a run. A trial that was not recorded is clamped to 0 … history length. A
        seek that fails leaves the learner where it was (the slider and the ledger drive
        it, so nothing may reach Qt)."""
        self.pause()
        try:
            trial = min(max(0, int(trial)), self._simulation.history_length)
            if trial == self._simulation.trials:
                return
            self._simulation.seek(trial)
        except Exception as exc:
            self._fail(exc, f"Cannot go to trial {trial}; the learner stays where it was")
        self._publish()  # also after a failure: the timeline goes back to the trial shown

    def _forget_message(self) -> None:
        """Clear a message about the run that was ("Converged at trial 120.") as the run
        restarts; whatever this change has to say comes after it."""
        self.message.emit("")

    def step_back(self) -> None:
        """Back one trial (pauses a run)."""
        self.seek(self._simulation.trials - 1)

    def load_run(self, simulation: Simulation, text: str = "Open session") -> bool:
        """Show `simulation` as it is (a session replayed to its trial): its points (one
        undoable step, as loading data is), its settings and its trial."""
        self.pause()
        problem = settings_problem(simulation.settings)
        if problem is not None:  # a session file written elsewhere: refused, not shown
            self.refused.emit(f"{text}: not opened: {problem}.")
            return False
        if not self._push(text, simulation.dataset, restart=True, simulation=simulation):
            return False
        self._announce()
        return True

    def set_speed(self, trials_per_second: float) -> None:
        """Run speed, from 1 trial/s to math.inf (as fast as possible)."""
        self._pace.set_speed(trials_per_second)
        if self._goal == "run":
            self._timer.setInterval(self._pace.interval(self._goal))

    def advance(self, ticks: int = 1) -> int:
        """Do the work of `ticks` timer ticks now (while running); return the trials run.

        The timer does exactly this every frame; tests call it to drive a run without
        waiting for the clock."""
        start = self._simulation.trials
        for _ in range(ticks):
            if self._goal is None:
                break
            self._on_tick()
        return self._simulation.trials - start

    def _can_run(self) -> bool:
        if len(self.dataset) == 0:
            self.message.emit("Place some points first: left click +1, right click −1.")
            return False
        return True

    def _start(self, goal: str, target: int) -> None:
        was_running = self.running
        self._goal, self._goal_target = goal, target
        self._pace.start(self.clock())
        self._timer.start(self._pace.interval(goal))
        if not was_running:
            self.running_changed.emit(True)
        if goal != "run" or self._pace.speed == math.inf:
            self._on_tick()  # the short goals usually finish at once

    def _on_tick(self) -> None:
        if self._goal is None:
            return
        try:
            done = self._run_tick()
        except Exception as exc:
            self._fail(exc)
            done = True
        if done:
            self.pause()
        self._after_run()

    def _fail(self, exc: Exception, doing: str = "The run stopped") -> None:
        """The engine failed: stop, say so in one line, report it; the points and w stay."""
        self.pause()
        self.problem.emit(f"{doing}: {type(exc).__name__}: {exc}")
        report_exception(exc)

    def _run_tick(self) -> bool:
        """One tick of engine work toward the goal (`run_pace.run_toward`); True when the
        goal is reached."""
        goal = self._goal
        count = self._pace.trials(self.clock) if goal == "run" else 0
        done, news = run_toward(self._simulation, goal, self._goal_target, count, self.tick_budget)
        if news is not None:
            self.message.emit(news)
        return done

    def _after_run(self) -> None:
        self._publish()
        self._announce()

    def _announce(self) -> None:
        """Announce a divergence or convergence once, when it is new."""
        sim = self._simulation
        events = (self._generation, sim.converged_at, sim.diverged_at, sim.cycle_found_at)
        if events == self._announced:
            return
        self._announced = events
        if sim.diverged_at is not None:
            self.problem.emit(sim.divergence_reason or "The run diverged.")
        elif sim.converged_at is not None:
            self.message.emit(f"Converged at trial {sim.converged_at}.")
        elif sim.cycle_found_at is not None:
            self.problem.emit(cycle_text(sim))

    def _publish(self) -> None:
        try:
            frame = build_frame(self._simulation)
        except Exception as exc:
            self.pause()
            self.problem.emit(f"This state could not be drawn: {type(exc).__name__}: {exc}")
            report_exception(exc)
            return
        self._show(frame)

    def _show(self, frame: Frame) -> None:
        self._frame = frame
        self.frame_changed.emit(frame)
