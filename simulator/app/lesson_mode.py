"""The window in a lesson: the lesson panel under the plot, each step's run shown through
the controller, the class's answers judged, and the Lessons menu.

- Opening a lesson (Lessons → a lesson or a file, or `python main.py lesson NAME`) asks
  first about unsaved points, plays the lesson (a bad file: one dialog, nothing changed)
  and shows step 1. Each step's run is the engine's (`simulator.engine.lessons.play`):
  its points, settings and trial are loaded into the controller as a session is (one
  undo step); the points count as saved (they are in the lesson file).
- Next / Back, PageDown / PageUp and Right / Left (what presentation clickers send) go
  through the steps. On a question Next first reveals the answer without scoring it; the
  panel's buttons score it (`simulator.engine.quiz`). A boundary question takes two
  clicks on the plot (they add no points meanwhile); the guessed line stays drawn (orange
  dashes) beside the true one, with the angle between them.
- The step's `show` toggles set the View menu's; leaving restores them. Leaving (the
  panel's button, Lessons → Leave lesson) keeps the run as it is: free play with the
  lesson's data and learner.
- Lessons → Save as lesson step… appends the current points, settings and trial to a
  lesson file (`simulator.engine.lesson_writer`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QAction, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QVBoxLayout, QWidget

from simulator.engine import Simulation
from simulator.engine.lessons import (
    Lesson,
    LessonError,
    StepState,
    append_step,
    lesson_names,
    load_lesson,
    play,
)
from simulator.engine.quiz import Quiz, answer_text
from simulator.ui import style
from simulator.ui.highdim_view import HighDimView
from simulator.ui.lesson_panel import LessonPanel, StepView, step_text

if TYPE_CHECKING:
    from simulator.app.main_window import MainWindow

__all__ = ["SHOW_ACTIONS", "LessonMode", "lessons_menu"]

SHOW_ACTIONS = {
    "separator": "separator_action",
    "radius": "radius_action",
    "shading": "shading_action",
    "least_squares": "least_squares_action",
    "true_length": "true_length_action",
    "numbers": "numbers_action",
    "legend": "legend_action",
}
"""A step's `show` toggles and the window's actions they set ("charts": the time views')."""
GUESS = "#E69F00"  # the guessed line: the orange of the current trial, dashed


class LessonMode(QObject):
    """The lessons of one window (see the module docstring)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.panel: LessonPanel | None = None
        self.lesson: Lesson | None = None
        self.states: list[StepState] = []
        self.index = 0
        self.quiz = Quiz()
        self._run: tuple[int, Simulation] | None = None  # (first step of the run, its run)
        self._clicks: list[tuple[float, float]] = []
        self._guesses: dict[int, tuple[tuple[float, float], tuple[float, float]]] = {}
        self._verdicts: dict[int, str] = {}
        self._overlay: list[pg.GraphicsObject] = []
        self._toggles_before: dict[str, bool] = {}
        self._catcher = _ClickCatcher(self)
        self._column: QWidget | None = None
        self.next_action = self._key_action("Next lesson step", ("PgDown", "Right"), self.next)
        self.back_action = self._key_action("Previous lesson step", ("PgUp", "Left"), self.back)

    def _key_action(self, text: str, keys: tuple[str, ...], slot: object) -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setEnabled(False)  # only in a lesson: else the timeline keeps PageUp/PageDown
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    @property
    def active(self) -> bool:
        return self.lesson is not None

    @property
    def state(self) -> StepState:
        return self.states[self.index]

    # -- opening and leaving -------------------------------------------------------------

    def open_named(self, name: str) -> bool:
        return self.open_spec(name)

    def open_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open lesson", "", "Lessons (*.toml);;All files (*)"
        )
        if path:
            self.open_spec(path)

    def open_spec(self, spec: str) -> bool:
        """A shipped lesson by name or a lesson file: read, played, opened (else one
        dialog, nothing changed)."""
        try:
            lesson = load_lesson(spec)
        except LessonError as exc:
            QMessageBox.critical(self.window, "Cannot open the lesson", str(exc))
            return False
        return self.open(lesson)

    def open(self, lesson: Lesson, states: tuple[StepState, ...] | list[StepState] = ()) -> bool:
        """Open `lesson` at step 1 (`states`: it played already)."""
        if not self.window.confirm_discard(f"opening the lesson {lesson.title!r}"):
            return False
        if not states:
            try:
                states = play(lesson)
            except LessonError as exc:
                QMessageBox.critical(self.window, "Cannot open the lesson", str(exc))
                return False
        if self.active:
            self.leave()
        self.lesson, self.states, self.index = lesson, list(states), 0
        self.quiz = Quiz()
        self._run = None
        self._guesses.clear()
        self._verdicts.clear()
        self._toggles_before = {
            name: action.isChecked() for name, action in self._toggle_actions().items()
        }
        panel = self._panel()
        longest_verdict = "Not quite: your line is 90° from the true one."
        panel.reserve(
            [step_text(s.text, s.choices) for s in self.states],
            [self._answer_text(s, longest_verdict) for s in self.states],
        )
        for action in (self.next_action, self.back_action):
            action.setEnabled(True)
        self.window.leave_lesson_action.setEnabled(True)
        self._go(0)  # painted before it shows: its first layout is the step's
        panel.show()
        self.window.sync_run_row()
        self._show_explanations(False)  # the lesson's text takes their place
        self.window.statusBar().showMessage(f"Lesson: {lesson.title}", 6000)
        return True

    def leave(self) -> None:
        """Back to free play: the run stays as it is, the view toggles as they were."""
        if not self.active:
            return
        self._stop_catching()
        self._clear_overlay()
        for name, on in self._toggles_before.items():
            self._toggle_actions()[name].setChecked(on)
        if self.panel is not None:
            self.panel.hide()
        self._show_explanations(True)
        for action in (self.next_action, self.back_action):
            action.setEnabled(False)
        self.window.leave_lesson_action.setEnabled(False)
        title = self.lesson.title if self.lesson else ""
        self.lesson, self.states = None, []
        self.window.sync_run_row()
        self.window.statusBar().showMessage(f"Left the lesson {title!r}: free play.", 6000)

    def _show_explanations(self, on: bool) -> None:
        """The trial's arithmetic under the plane and in the high-dimensional view."""
        self.window.explanation.setVisible(on)
        high_dim = self.window.findChild(HighDimView)
        if high_dim is not None:
            high_dim.explanation.setVisible(on)

    def _panel(self) -> LessonPanel:
        if self.panel is None:
            panel = LessonPanel()
            panel.next_requested.connect(self.next)
            panel.back_requested.connect(self.back)
            panel.leave_requested.connect(self.leave)
            panel.mistake_answered.connect(self.answer)
            panel.choice_answered.connect(self.answer)
            # Under the views (plane or high-dimensional), above the charts: the views'
            # pane of the time splitter becomes the views and the panel in a column.
            splitter = self.window.time.splitter
            views = self.window.views
            column = QWidget(objectName="lessonColumn")
            layout = QVBoxLayout(column)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.setSpacing(0)
            splitter.replaceWidget(splitter.indexOf(views), column)
            layout.addWidget(views, 1)
            layout.addWidget(panel)
            views.show()
            self._column = column  # PySide's replaceWidget leaves the new pane to Python
            presentation = self.window.presentation_action
            panel.set_presentation(presentation.isChecked())
            presentation.toggled.connect(panel.set_presentation)
            self.panel = panel
        return self.panel

    def _toggle_actions(self) -> dict[str, QAction]:
        actions = {name: getattr(self.window, attr) for name, attr in SHOW_ACTIONS.items()}
        actions["charts"] = self.window.time.area_action
        return actions

    # -- going through the steps ---------------------------------------------------------

    def next(self) -> None:
        """Reveal an unanswered question (not scored); else the next step."""
        if not self.active:
            return
        state = self.state
        if state.question is not None and not self.quiz.revealed(state.number):
            self.quiz.reveal(state)
            self._reveal()
        elif self.index + 1 < len(self.states):
            self._go(self.index + 1)

    def back(self) -> None:
        if self.active and self.index > 0:
            self._go(self.index - 1)

    def go_to(self, number: int) -> None:
        """Step `number` (from 1)."""
        if self.active and 1 <= number <= len(self.states):
            self._go(number - 1)

    def _go(self, index: int) -> None:
        self.index = index
        state = self.state
        self._stop_catching()
        self._clear_overlay()
        for name, on in state.show.items():
            self._toggle_actions()[name].setChecked(on)
        revealed = self.quiz.revealed(state.number)
        fresh = self._show_run(state, state.reveal_trial if revealed else state.trial)
        self._show_explanations(False)  # the high-dimensional view may be new
        if fresh:
            self.window.plot.fit_view()
        if revealed:
            self._draw_guess(state.number)
        elif state.question is not None and state.question.kind == "boundary":
            self._clicks = []
            self._start_catching()
        self._paint()

    def _show_run(self, state: StepState, trial: int) -> bool:
        """The step's run at `trial` in the window; True when it is a new run."""
        fresh = (
            self._run is None
            or self._run_start(state) != self._run[0]
            # Points edited meanwhile (the run went on over them): the lesson's own again.
            or self._run[1].dataset != state.dataset
        )
        if fresh:
            run = Simulation.from_settings(state.dataset, state.settings)
            self._run = (self._run_start(state), run)
        assert self._run is not None
        sim = self._run[1]
        if trial <= sim.history_length:
            sim.seek(trial)
        else:
            sim.seek(sim.history_length)
            sim.run(trial - sim.trials, until_converged=False)
        assert self.lesson is not None
        self.window.show_lesson_run(sim, f"lesson {self.lesson.name}")
        return fresh

    def _run_start(self, state: StepState) -> int:
        """The number of the step that started `state`'s run."""
        number = state.number
        while number > 1 and not self.states[number - 1].new_run:
            number -= 1
        return number

    def _paint(self) -> None:
        assert self.lesson is not None and self.panel is not None
        state = self.state
        kind = state.question.kind if state.question is not None else None
        answered = ""
        if self.quiz.revealed(state.number):
            answered = self._answer_text(state, self._verdicts.get(state.number, ""))
        self.panel.show_step(
            StepView(
                title=self.lesson.title,
                number=state.number,
                total=len(self.states),
                text=state.text,
                kind=kind,
                choices=state.choices,
                answered=answered,
                score=self.quiz.score_text() if self.quiz.answered else "",
                waiting_for_clicks=2 - len(self._clicks),
            )
        )

    @staticmethod
    def _answer_text(state: StepState, verdict: str) -> str:
        return answer_text(state, verdict)

    # -- answers -------------------------------------------------------------------------

    def answer(self, response: object) -> None:
        """The class's answer to the step's question (a bool, a choice's index, or the two
        points of a guessed line)."""
        if not self.active or self.state.question is None:
            return
        state = self.state
        if self.quiz.revealed(state.number):
            return
        verdict = self.quiz.answer(state, response)
        self._verdicts[state.number] = verdict.text
        self._reveal()

    def _reveal(self) -> None:
        state = self.state
        self._stop_catching()
        self._show_run(state, state.reveal_trial)
        self._clear_overlay()
        self._draw_guess(state.number)
        self._paint()

    def clicked(self, x: float, y: float) -> None:
        """A click on the plot while a boundary question waits: two make the guess."""
        if not (math.isfinite(x) and math.isfinite(y)):
            return
        self._clicks.append((x, y))
        if len(self._clicks) == 2 and self._clicks[0] == self._clicks[1]:
            self._clicks.pop()  # the same point twice is no line
        self._draw_clicks()
        if len(self._clicks) == 2:
            p, q = self._clicks
            self._guesses[self.state.number] = (p, q)
            self.answer((p, q))
        else:
            self._paint()

    def _start_catching(self) -> None:
        self.window.plot.viewport().installEventFilter(self._catcher)

    def _stop_catching(self) -> None:
        self.window.plot.viewport().removeEventFilter(self._catcher)

    # -- the guessed line on the plot ----------------------------------------------------

    def _pen_width(self) -> float:
        presentation = self.window.presentation_action.isChecked()
        return 3.0 * (style.PRESENTATION_LINE_SCALE if presentation else 1.0)

    def _draw_clicks(self) -> None:
        self._clear_overlay()
        if self._clicks:
            dots = pg.ScatterPlotItem(
                pos=self._clicks, size=14, brush=pg.mkBrush(GUESS), pen=pg.mkPen("#000000")
            )
            self._add(dots)

    def _draw_guess(self, number: int) -> None:
        guess = self._guesses.get(number)
        if guess is None:
            return
        (x1, y1), (x2, y2) = guess
        pen = pg.mkPen(GUESS, width=self._pen_width(), style=Qt.PenStyle.DashLine)
        angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
        self._add(pg.InfiniteLine(pos=QPointF(x1, y1), angle=angle, pen=pen))
        self._add(pg.ScatterPlotItem(pos=list(guess), size=12, brush=pg.mkBrush(GUESS)))

    def _add(self, item: pg.GraphicsObject) -> None:
        item.setZValue(50)
        self.window.plot.getPlotItem().addItem(item, ignoreBounds=True)
        self._overlay.append(item)

    def _clear_overlay(self) -> None:
        plot = self.window.plot.getPlotItem()
        for item in self._overlay:
            plot.removeItem(item)
        self._overlay.clear()

    # -- saving a step -------------------------------------------------------------------

    def save_step_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window,
            "Save as lesson step (appends to a lesson file)",
            "",
            "Lessons (*.toml)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.save_step(path if path.endswith(".toml") else path + ".toml")

    def save_step(self, path: str) -> bool:
        """Append the current points, settings and trial to the lesson file at `path`."""
        c = self.window.controller
        try:
            number = append_step(path, c.dataset, c.settings, c.simulation.trials)
        except (LessonError, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            QMessageBox.critical(self.window, "Cannot save the lesson step", f"{path}: {reason}")
            return False
        self.window.statusBar().showMessage(
            f"Saved trial {c.simulation.trials} as step {number} of {path}; edit its text there.",
            8000,
        )
        return True


class _ClickCatcher(QObject):
    """Takes the plot's left clicks while a boundary question waits (no point is added),
    and hands their data coordinates to the lesson mode."""

    def __init__(self, mode: LessonMode) -> None:
        super().__init__(mode)
        self.mode = mode

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (
            QEvent.Type.MouseButtonPress,
            QEvent.Type.MouseButtonRelease,
            QEvent.Type.MouseButtonDblClick,
        ):
            return False
        assert isinstance(event, QMouseEvent)
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            plot = self.mode.window.plot
            scene = plot.mapToScene(event.position().toPoint())
            point = plot.getPlotItem().vb.mapSceneToView(scene)
            self.mode.clicked(point.x(), point.y())
        return True


def _action(window: MainWindow, text: str, slot: object, name: str = "") -> QAction:
    action = QAction(text, window)
    if name:
        action.setObjectName(name)
    action.triggered.connect(slot)
    window.addAction(action)
    return action


def lessons_menu(window: MainWindow, menu: QMenu) -> None:
    """The Lessons menu (a `Built` entry of `menus.MENUS`): the shipped lessons, a file,
    Save as lesson step, Leave lesson. Makes the window's `lessons` (`LessonMode`)."""
    lessons = window.lessons = LessonMode(window)
    for name in lesson_names():
        try:
            title = load_lesson(name).title
        except LessonError:
            continue  # a broken file in the package: its own test fails, the menu stays
        opener = lambda _=False, n=name: lessons.open_named(n)  # noqa: E731
        menu.addAction(_action(window, title, opener, f"lesson_{name}"))
    menu.addSeparator()
    menu.addAction(_action(window, "Open lesson &file…", lessons.open_file_dialog))
    window.save_lesson_step_action = _action(
        window, "&Save as lesson step…", lessons.save_step_dialog, "saveLessonStepAction"
    )
    menu.addAction(window.save_lesson_step_action)
    menu.addSeparator()
    window.leave_lesson_action = _action(
        window, "&Leave lesson", lessons.leave, "leaveLessonAction"
    )
    window.leave_lesson_action.setEnabled(False)
    menu.addAction(window.leave_lesson_action)
