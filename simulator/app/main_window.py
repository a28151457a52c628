"""The main window: plot in the middle, controls and theory on the right, menus, status bar.

It wires views to the controller and owns what only a window has: menus, shortcuts,
file dialogs, and the question about unsaved points. Files are written through
QSaveFile (atomic: a crash mid-save never leaves half a file).

Never losing work, as a teacher meets it:

- New, Open, a preset, Clear and closing ask first when the points are unsaved
  (Save / Discard / Cancel); Cancel keeps everything as it was. Points are unsaved when
  they differ from the file they came from or were last saved to (loading a preset
  counts as saved: it can be loaded again). The learner's settings and the trial reached
  do not make the points unsaved; the autosave keeps them.
- Opening and saving run on a worker thread with a progress dialog and Cancel (see
  `file_tasks`): a million rows never freeze the window.
- An internal error shows one dialog, keeps the points and the window (see `safety`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from simulator import __version__
from simulator.app import preferences
from simulator.app.autosave import Autosaver, State, session_text
from simulator.app.file_tasks import Outcome, run_in_background, write_atomically
from simulator.app.view_menu import fit_side_panel, shortcuts_html
from simulator.engine import (
    PRESET_TITLES,
    PRESETS,
    DataFileError,
    Dataset,
    Settings,
    Simulation,
    load_dataset,
    load_preset,
)
from simulator.engine.session import Session, load_session
from simulator.presentation.frame import Frame
from simulator.ui.controller import SimulationController
from simulator.ui.highdim_view import HighDimView
from simulator.ui.layout import initial_geometry
from simulator.ui.panels import ControlPanel, TheoryPanel, TrialExplanation
from simulator.ui.plot_view import SNAP_STEPS, PlotView
from simulator.ui.safety import LastResort, report_exception
from simulator.ui.time_views import TimeViews

__all__ = ["MainWindow"]

T = TypeVar("T")
SESSION_SUFFIX = ".lab.json"
RESTORE = QMessageBox.StandardButton.Yes  # the recovery question's "Restore" button


class MainWindow(QMainWindow):
    """The whole application window; `window.controller` drives the simulation."""

    def __init__(
        self,
        dataset: Dataset | None = None,
        settings: Settings | None = None,
        *,
        app_settings: QSettings | None = None,
    ) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self._app_settings = app_settings
        self._path: Path | None = None
        self._document: str | None = None  # a name for data without a file (a preset)
        self.last_resort: LastResort | None = None
        dropped: list[str] = []  # remembered settings that could not be used
        if settings is None and app_settings is not None:
            settings = preferences.restore_learner(app_settings, dropped)
        self.controller = SimulationController(parent=self, settings=settings)
        self.plot = PlotView(self)
        self.controls = ControlPanel(self)
        self.theory = TheoryPanel(self)
        self.time = TimeViews(self.controller, self)  # timeline, charts, ledger

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.theory)  # the numbers the class watches, on top
        side_layout.addWidget(self.controls)
        side_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.side_scroll = scroll
        self.explanation = TrialExplanation(self)
        plot_column = QWidget()
        column = QVBoxLayout(plot_column)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.plot, 1)
        column.addWidget(self.time.timeline)  # under whichever view shows (`_show_view`)
        column.addWidget(self.explanation)
        self._plane_column = column
        # Data with d ≠ 2 coordinates cannot be drawn on the plane: they get their own view
        # (`high_dim`), built when first needed, so a window for the plane starts faster.
        self._high_dim: HighDimView | None = None
        self.views = QStackedWidget(objectName="centralViews")
        self.views.addWidget(plot_column)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.time.around(self.views))  # charts and ledger below either view
        splitter.addWidget(scroll)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        splitter.setSizes([900, 400])
        self.splitter = splitter
        self.setCentralWidget(splitter)
        self.setGeometry(initial_geometry(self.screen().availableGeometry()))
        fit_side_panel(scroll, splitter)

        self._build_actions()
        self._connect()
        self.controls.sync(self.controller.settings)
        self.controller.set_speed(self.controls.speed_value())
        if dataset is not None:
            self.controller.set_dataset(dataset, "Load data")
            self.controller.undo_stack.setClean()
        c = self.controller
        self.plot.set_show_legend(self.legend_action.isChecked())
        self._on_frame(c.frame)
        self.plot.fit_view()
        self.plot.set_follow(self.follow_action.isChecked())
        self._update_title()
        self.plot.setFocus()
        if app_settings is not None:
            preferences.restore_window(app_settings, self)
        self.autosaver = Autosaver(self.session_state, parent=self)
        self.autosaver.failed.connect(self._on_problem)
        for signal in (c.frame_changed, c.dataset_changed, c.settings_changed):
            signal.connect(self.autosaver.changed)
        if len(c.dataset):
            self.autosaver.changed()
        notes = []  # at most one status line at start
        if c.start_problem is not None:
            notes.append(f"Started with the default settings: {c.start_problem}.")
        elif dropped:
            names = "all" if "all" in dropped else ", ".join(dropped)
            notes.append(f"Remembered settings not used ({names}): the defaults stand in.")
        if self.autosaver.problem is not None:
            notes.append(self.autosaver.problem)
        if notes:
            self._on_problem(" ".join(notes))

    # -- actions and menus ---------------------------------------------------------------------

    def _action(
        self, text: str, slot, shortcut=None, *, checkable: bool = False, name: str | None = None
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, list | tuple):
                action.setShortcuts([QKeySequence(s) for s in shortcut])
            else:
                action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        if name:
            action.setObjectName(name)
        # A checkable action follows its state, however it changes (menu, key, setChecked).
        (action.toggled if checkable else action.triggered).connect(slot)
        self.addAction(action)  # shortcuts work even when the menu bar is hidden (full screen)
        return action

    def _build_actions(self) -> None:
        c = self.controller
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self.new_action = self._action("&New", self.new_points, QKeySequence.StandardKey.New)
        self.open_action = self._action("&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.save_action = self._action("&Save", self.save, QKeySequence.StandardKey.Save)
        self.save_as_action = self._action(
            "Save &As…", self.save_as_dialog, QKeySequence.StandardKey.SaveAs
        )
        file.addActions([self.new_action, self.open_action, self.save_action, self.save_as_action])
        file.addSeparator()
        self.open_session_action = self._action(
            "Open Sess&ion…", self.open_session_dialog, "Ctrl+Shift+O", name="openSessionAction"
        )
        self.save_session_action = self._action(
            "Save Sessio&n…", self.save_session_dialog, "Ctrl+Alt+S", name="saveSessionAction"
        )
        file.addActions([self.open_session_action, self.save_session_action])
        file.addSeparator()
        presets = file.addMenu("&Presets")
        for name in PRESETS:
            presets.addAction(
                self._action(
                    PRESET_TITLES.get(name, name),
                    lambda _=False, n=name: self.load_preset(n),
                    name=f"preset_{name}",
                )
            )
        file.addSeparator()
        self.export_action = self._action(
            "&Export frames…", self.export_dialog, "Ctrl+E", name="exportAction"
        )
        file.addAction(self.export_action)
        file.addSeparator()
        file.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

        edit = bar.addMenu("&Edit")
        self.undo_action = c.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = c.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.addActions([self.undo_action, self.redo_action])
        edit.addActions([self.undo_action, self.redo_action])
        edit.addSeparator()
        self.delete_action = self._action(
            "&Delete point", self.delete_selected, QKeySequence.StandardKey.Delete
        )
        self.flip_action = self._action("&Flip label of point", self.flip_selected, "F")
        self._on_selection(None)  # nothing selected yet: nothing to delete or flip
        self.clear_action = self._action("&Clear all points", self.clear_points)
        edit.addActions([self.delete_action, self.flip_action, self.clear_action])

        view = bar.addMenu("&View")
        plot = self.plot
        self.separator_action = self._action(
            "Optimal separator and &margin",
            plot.set_show_separator,
            "M",
            checkable=True,
            name="separatorAction",  # named toggles are remembered between runs
        )
        self.radius_action = self._action(
            "&Radius R", plot.set_show_radius, "R", checkable=True, name="radiusAction"
        )
        self.shading_action = self._action(
            "Region &shading (sign of the score)",
            plot.set_show_shading,
            "S",
            checkable=True,
            name="shadingAction",
        )
        self.least_squares_action = self._action(
            "&Least-squares line w_LS",
            plot.set_show_least_squares,
            "L",
            checkable=True,
            name="leastSquaresAction",
        )
        self.true_length_action = self._action(
            "w at its &true length",
            plot.set_true_length,
            "W",
            checkable=True,
            name="trueLengthAction",
        )
        self.numbers_action = self._action(
            "Point &numbers", plot.set_show_numbers, "P", checkable=True, name="numbersAction"
        )
        self.legend_action = self._action(
            "L&egend", plot.set_show_legend, "G", checkable=True, name="legendAction"
        )
        self.numbers_action.setChecked(True)
        self.legend_action.setChecked(True)
        view.addActions(
            [
                self.separator_action,
                self.radius_action,
                self.shading_action,
                self.least_squares_action,
                self.true_length_action,
                self.numbers_action,
                self.legend_action,
            ]
        )
        view.addSeparator()
        self.follow_action = self._action(
            "F&ollow the learner", plot.set_follow, "Ctrl+L", checkable=True, name="followAction"
        )
        self.follow_action.setChecked(True)
        self.fit_action = self._action("&Fit view to points", plot.fit_view, "Ctrl+0")
        snap_menu = view.addMenu("S&nap clicks to a grid")
        self.snap_group = QActionGroup(self)
        for step, name in ((None, "Off"), *((s, f"{s:g}") for s in SNAP_STEPS)):
            action = QAction(name, self, checkable=True)
            action.setObjectName(f"snapAction_{name}")
            action.setData(step)
            action.setChecked(step is None)
            action.triggered.connect(lambda _=False, v=step: plot.set_snap(v))
            self.snap_group.addAction(action)
            snap_menu.addAction(action)
        view.addActions([self.follow_action, self.fit_action])
        view.addSeparator()
        self.presentation_action = self._action(
            "&Presentation mode",
            self.set_presentation,
            "F5",
            checkable=True,
            name="presentationAction",
        )
        self.fullscreen_action = self._action(
            "&Full screen", self.toggle_full_screen, "F11", checkable=True
        )
        view.addActions([self.presentation_action, self.fullscreen_action])
        view.addSeparator()
        view.addMenu(self.time.menu)

        run = bar.addMenu("&Run")
        self.step_action = self._action("&Step", c.step, "Space")
        self.step_back_action = self.time.step_back_action
        self.run_action = self._action("&Run / Pause", c.toggle_run, ["Return", "Enter"])
        self.next_mistake_action = self._action("&Next mistake", c.next_mistake, "N")
        self.epoch_action = self._action("&Epoch", c.run_epoch, "E")
        self.reset_action = self._action("Rese&t", c.reset, "Ctrl+R")
        run.addActions(
            [
                self.step_action,
                self.step_back_action,
                self.run_action,
                self.next_mistake_action,
                self.epoch_action,
                self.reset_action,
            ]
        )

        tools = bar.addMenu("&Tools")
        self.lab_action = self._action(
            "&Winnow vs Perceptron lab…", self.open_lab, name="labAction"
        )
        tools.addAction(self.lab_action)

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(
            self._action(
                "&Shortcuts",
                self.show_shortcuts,
                QKeySequence.StandardKey.HelpContents,
                name="shortcutsAction",
            )
        )
        help_menu.addAction(self._action("&About", self.show_about))

    def _connect(self) -> None:
        c, plot, controls = self.controller, self.plot, self.controls
        c.frame_changed.connect(self._on_frame)
        c.settings_changed.connect(controls.sync)
        c.running_changed.connect(controls.set_running)
        c.message.connect(lambda text: self.statusBar().showMessage(text, 6000))
        c.problem.connect(self._on_problem)
        c.refused.connect(self._on_refused)
        controls.refused.connect(self._on_refused)
        c.undo_stack.cleanChanged.connect(self._update_title)
        plot.point_requested.connect(c.add_point)
        plot.point_moved.connect(c.move_point)
        plot.point_delete_requested.connect(lambda i: c.delete_points([i]))
        plot.point_flip_requested.connect(c.flip_label)
        plot.selection_changed.connect(self._on_selection)
        controls.setting_requested.connect(c.request_setting)
        controls.speed_changed.connect(c.set_speed)
        controls.new_point_label_changed.connect(self._set_new_point_label)
        controls.step_button.clicked.connect(c.step)
        controls.next_mistake_button.clicked.connect(c.next_mistake)
        controls.epoch_button.clicked.connect(c.run_epoch)
        controls.run_button.clicked.connect(c.toggle_run)
        controls.reset_button.clicked.connect(c.reset)

    def _set_new_point_label(self, label: int) -> None:
        self.plot.new_point_label = label

    def _on_selection(self, index: int | None) -> None:
        """Edit → Delete and Flip act on the selected point: enabled only while there is one."""
        for action in (self.delete_action, self.flip_action):
            action.setEnabled(index is not None)

    # -- painting ------------------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        plane = frame.dataset.dimension == 2
        self._show_view(plane)
        self.export_action.setEnabled(plane)  # frames are drawn on the plane
        if plane:
            self.plot.show_frame(frame)
            self.explanation.show_frame(frame)
        else:
            self.high_dim.show_frame(frame)
        self.theory.show_frame(frame)
        self.controls.show_frame(frame)
        self.controls.set_can_run(
            len(frame.dataset) > 0, "Place points first: left click +1, right click −1"
        )

    @property
    def high_dim(self) -> HighDimView:
        """The view for data with d ≠ 2 coordinates (index 1 of `views`), built on first use."""
        if self._high_dim is None:
            self._high_dim = HighDimView(self)
            self._high_dim.set_presentation(self.presentation_action.isChecked())
            self.views.addWidget(self._high_dim)
        return self._high_dim

    def _show_view(self, plane: bool) -> None:
        """The plane for 2-D data, else the high-dimensional view; the timeline goes along."""
        index = 0 if plane else 1
        if self.views.currentIndex() == index:
            return
        high_dim = None if plane else self.high_dim  # built before the stack shows it
        self.views.setCurrentIndex(index)
        if high_dim is None:
            self._plane_column.insertWidget(1, self.time.timeline)
        else:
            high_dim.hold_timeline(self.time.timeline)
        self.time.timeline.show()

    def _on_problem(self, text: str) -> None:
        self.statusBar().showMessage(text, 15000)

    def _on_refused(self, text: str) -> None:
        """Settings refused before they reach the engine: one dialog, nothing changed."""
        self.controller.pause()
        QMessageBox.critical(self, "Settings refused", text)

    def _update_title(self, *_: object) -> None:
        name = self._path.name if self._path is not None else self._document or "untitled"
        self.setWindowTitle(f"{name}[*] — Linear Classifier Lab")
        self.setWindowModified(not self.controller.undo_stack.isClean())

    # -- data files -------------------------------------------------------------------------------

    def has_unsaved_points(self) -> bool:
        """Points that are in no file: changed since they were opened or last saved."""
        return len(self.controller.dataset) > 0 and not self.controller.undo_stack.isClean()

    def confirm_discard(self, doing: str) -> bool:
        """May the current points go? Asks Save / Discard / Cancel when they are unsaved;
        True for Discard, or Save once the save succeeded."""
        if not self.has_unsaved_points():
            return True
        self.controller.pause()
        answer = QMessageBox.question(
            self,
            "Unsaved points",
            f"The points have unsaved changes. Save them before {doing}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Discard:
            return True
        return answer == QMessageBox.StandardButton.Save and self.save()

    def _set_document(self, path: Path | None, name: str | None = None) -> None:
        """The points now match `path` (or a preset called `name`): they count as saved."""
        self._path, self._document = path, name
        self.controller.undo_stack.setClean()
        if path is not None:
            preferences.remember_folder(self._app_settings, path)
        self._update_title()

    def new_points(self) -> bool:
        if not self.confirm_discard("starting anew"):
            return False
        self.controller.set_dataset(Dataset.empty(), "New")
        self._set_document(None)
        self.plot.fit_view()
        return True

    def load_preset(self, name: str) -> bool:
        title = PRESET_TITLES.get(name, name)
        if not self.confirm_discard(f"loading the preset {title}"):
            return False
        if not self.controller.set_dataset(load_preset(name), f"Preset {name}"):
            return False
        self._set_document(None, name)
        self.plot.fit_view()
        self.statusBar().showMessage(f"Loaded the {name} preset.", 4000)
        return True

    def clear_points(self) -> bool:
        """Edit → Clear: remove every point (undoable), after asking if they are unsaved."""
        if len(self.controller.dataset) == 0:
            return True
        if not self.confirm_discard("clearing them"):
            return False
        self.controller.clear()
        return True

    def open_file(self, path: str | Path) -> bool:
        """Load points from a CSV or JSON file on a worker; on error say why and keep the
        current points. A session file (NAME.lab.json) opens as a session."""
        path = Path(path)
        if path.name.endswith(SESSION_SUFFIX):
            return self.open_session(path)
        if not self.confirm_discard(f"opening {path.name}"):
            return False
        settings = self.controller.settings

        def load(cancelled: Callable[[], bool]) -> tuple[Dataset, Simulation | None]:
            dataset = load_dataset(path)
            if cancelled():
                return dataset, None
            # The costly first look at new data, done here rather than on the GUI thread.
            simulation = _simulation_for(dataset, settings)
            _first_look(simulation)
            return dataset, simulation

        outcome = run_in_background(self, f"Opening {path.name}…", load)
        loaded = self._finished(outcome, "Cannot open the file", f"Opening {path.name}")
        if loaded is None:
            return False
        _, simulation = loaded
        if simulation is None:  # cancelled
            return False
        if not self.controller.load_run(simulation, f"Open {path.name}"):
            return False
        self._set_document(path)
        self.plot.fit_view()
        if simulation.settings.initial_weights != settings.initial_weights:
            self.statusBar().showMessage(
                f"The custom start w₀ does not fit {path.name}: the rule's default start is "
                "used (Undo brings back the points before, with their w₀).",
                15000,
            )
        return True

    def save_to(self, path: str | Path) -> bool:
        """Write the points as CSV, atomically and on a worker; on error say why."""
        path = Path(path)
        dataset = self.controller.dataset
        outcome = run_in_background(
            self,
            f"Saving {path.name}…",
            lambda cancelled: write_atomically(path, dataset.to_csv, cancelled),
        )
        if not outcome.ok:
            self._finished(outcome, "Cannot save", f"Saving {path.name}")
            return False
        self._set_document(path)
        self.statusBar().showMessage(f"Saved {len(dataset)} points to {path}.", 4000)
        return True

    def _finished(self, outcome: Outcome[T], title: str, doing: str) -> T | None:
        """The value of finished file work; None (and the user told why) otherwise."""
        if outcome.cancelled:
            self.statusBar().showMessage(f"{doing} was cancelled; nothing changed.", 6000)
            return None
        error = outcome.error
        if error is None:
            return outcome.value
        if not isinstance(error, DataFileError | ValueError | OSError):
            report_exception(error)  # a bug, not a bad file: the last resort reports it
        QMessageBox.critical(self, title, str(error))
        return None

    # -- sessions -------------------------------------------------------------------------------

    def open_session(self, path: str | Path, *, session: Session | None = None) -> bool:
        """Restore a session file: its points, settings and the trial it reached (replayed on
        a worker, so w is bit for bit what it was). False, and a dialog, if it cannot.
        `session`: the file's content, already read (by the command line)."""
        path = Path(path)
        if not self.confirm_discard(f"opening {path.name}"):
            return False

        def load() -> Session:
            return session if session is not None else load_session(path)

        if not self._restore(load, path, f"Open {path.name}", "Cannot open the session"):
            return False
        self._set_document(path)
        return True

    def save_session(self, path: str | Path) -> bool:
        """Write points, settings and the trial reached to a session file, atomically."""
        path = Path(path)
        state = self.session_state()
        outcome = run_in_background(
            self,
            f"Saving {path.name}…",
            lambda cancelled: write_atomically(path, lambda: session_text(state), cancelled),
        )
        if not outcome.ok:
            self._finished(outcome, "Cannot save the session", f"Saving {path.name}")
            return False
        self._set_document(path)
        self.statusBar().showMessage(
            f"Saved the session (trial {state.trial}, {len(state.dataset)} points) to {path}.",
            4000,
        )
        return True

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open session", self._folder(), f"Sessions (*{SESSION_SUFFIX});;All files (*)"
        )
        if path:
            self.open_session(path)

    def save_session_dialog(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save session", self._folder(), f"Sessions (*{SESSION_SUFFIX})"
        )
        if not path:
            return False
        if not path.endswith(SESSION_SUFFIX):
            path = path.removesuffix(".json") + SESSION_SUFFIX
        return self.save_session(path)

    def _restore(self, load: Callable[[], Session], path: Path, text: str, title: str) -> bool:
        """Load a session on a worker, replay it there, and show it (one undo step)."""
        outcome = run_in_background(self, f"Opening {path.name}…", lambda _: _replayed(load()))
        replayed = self._finished(outcome, title, f"Opening {path.name}")
        if replayed is None:
            return False
        simulation, note = replayed
        if not self.controller.load_run(simulation, text):
            return False
        self.plot.fit_view()
        if note is not None:  # the points stay; the class should know w is not the saved one
            QMessageBox.information(self, "Restored by replaying", f"{path.name}: {note}")
        return True

    # -- autosave and recovery -------------------------------------------------------------------

    def session_state(self) -> State:
        """What a session file (and the autosave) keeps of this window, right now."""
        c = self.controller
        state = c.simulation.state
        state.setflags(write=False)
        return State(c.dataset, c.settings, c.simulation.trials, state)

    def offer_recovery(self) -> bool:
        """At start: if the last run did not end cleanly, ask whether to restore its
        autosave (Restore / Discard). True if it was restored."""
        leftover = self.autosaver.leftover()
        if leftover is None:
            return False
        when = datetime.fromtimestamp(leftover.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Restore your work?",
            "Linear Classifier Lab did not close properly last time. Restore the points, "
            f"the learner's settings and the trial reached, as autosaved at {when}?",
            RESTORE | QMessageBox.StandardButton.Discard,
            self,
        )
        box.setObjectName("recoveryQuestion")
        box.button(RESTORE).setText("&Restore")
        box.setDefaultButton(RESTORE)
        with self.autosaver.held():  # no new autosave may replace the file meanwhile
            answer = box.exec()
            box.deleteLater()
            if answer == RESTORE:
                return self.recover()
            self.autosaver.remove()
        return False

    def recover(self) -> bool:
        """Restore the autosave of a run that did not end cleanly, without asking
        (`python main.py --recover`). The points count as unsaved: they are in no file."""
        leftover = self.autosaver.leftover()
        if leftover is None:
            self.statusBar().showMessage("There is no autosave to recover.", 6000)
            return False
        with self.autosaver.held():
            load = partial(load_session, leftover)
            if self._restore(load, leftover, "Recover autosave", "Cannot restore the autosave"):
                self._path, self._document = None, "recovered"
                self._update_title()
                self.statusBar().showMessage(f"Restored the autosave {leftover}.", 6000)
                return True
            # Unreadable: keep it aside (not lost, not asked about at every start).
            kept = leftover.with_name(datetime.now().strftime("unreadable-%Y%m%d-%H%M%S.lab.json"))
            try:
                leftover.replace(kept)
            except OSError as exc:  # run from a timer at start: it must not reach Qt
                self._on_problem(f"The unreadable autosave {leftover} stays where it is: {exc}")
                return False
            self.statusBar().showMessage(f"The unreadable autosave was kept as {kept}.", 15000)
            return False

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open points",
            self._folder(),
            f"Points or sessions (*.csv *.json *{SESSION_SUFFIX});;All files (*)",
        )
        if path:
            self.open_file(path)

    def save(self) -> bool:
        """Save to the current file (a session file stays a session), or ask where."""
        if self._path is None:
            return self.save_as_dialog()
        if self._path.name.endswith(SESSION_SUFFIX):
            return self.save_session(self._path)
        return self.save_to(self._path)

    def save_as_dialog(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save points as CSV", self._folder(), "CSV (*.csv)"
        )
        if not path:
            return False
        if not path.lower().endswith(".csv"):
            path += ".csv"
        return self.save_to(path)

    def export_dialog(self) -> None:
        from simulator.export.dialog import ExportDialog

        dialog = ExportDialog(self.controller, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # one per Export, then freed
        dialog.open()

    def open_lab(self) -> None:
        """Tools → Winnow vs Perceptron lab: one lab window, raised when asked again."""
        from simulator.app.lab_window import LabWindow

        lab = self.findChild(LabWindow, "labWindow") or LabWindow(self)
        lab.set_presentation(self.presentation_action.isChecked())
        lab.show()
        lab.raise_()
        lab.activateWindow()

    def _folder(self) -> str:
        return preferences.last_folder(self._app_settings)

    # -- never crash -------------------------------------------------------------------------------

    def _on_internal_error(self) -> None:
        """First aid on any internal error: stop the run, save the points now."""
        self.controller.pause()
        self.autosaver.save()

    def install_last_resort(self) -> LastResort:
        """Route every uncaught exception to one dialog and a crash report (see `safety`)."""
        if self.last_resort is None:
            self.last_resort = LastResort(
                self,
                folder=lambda: self.autosaver.folder,
                on_error=self._on_internal_error,
                announce=lambda text: self.statusBar().showMessage(text, 15000),
            )
            self.last_resort.install()
        return self.last_resort

    # -- editing -----------------------------------------------------------------------------------

    def delete_selected(self) -> None:
        if self.plot.selected is not None:
            index = self.plot.selected
            self.plot.set_selected(None)
            self.controller.delete_points([index])

    def flip_selected(self) -> None:
        if self.plot.selected is not None:
            self.controller.flip_label(self.plot.selected)

    # -- window -----------------------------------------------------------------------------------

    def toggle_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def set_presentation(self, on: bool) -> None:
        """Type for a lecture hall; the learner settings hidden (View → Presentation mode)."""
        for view in (self.plot, self.theory, self.controls, self.explanation, self.time):
            view.set_presentation(on)
        if self._high_dim is not None:
            self._high_dim.set_presentation(on)
        from simulator.app.lab_window import LabWindow

        lab = self.findChild(LabWindow, "labWindow")
        if lab is not None:
            lab.set_presentation(on)
        fit_side_panel(self.side_scroll, self.splitter)

    def show_shortcuts(self) -> None:
        QMessageBox.information(self, "Shortcuts", shortcuts_html(self))

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            "About Linear Classifier Lab",
            f"<b>Linear Classifier Lab</b> {__version__}<br>"
            "Watch the Perceptron, Winnow and Adaline learn, with the data margin γ*, the "
            "radius R and the Block–Novikoff bound R²/γ*² beside them.",
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        self.controller.pause()
        if not self.confirm_discard("closing"):
            event.ignore()
            return
        if self._app_settings is not None:
            preferences.save_learner(self._app_settings, self.controller.settings)
            preferences.save_window(self._app_settings, self)
            self._app_settings.sync()
        if self.last_resort is not None:
            self.last_resort.uninstall()
            self.last_resort = None
        self.autosaver.release()  # a clean exit leaves no autosave behind
        event.accept()


def _simulation_for(dataset: Dataset, settings: Settings) -> Simulation:
    """A run of `settings` over new data; a custom w₀ that does not fit their number of
    features gives way to the rule's default start (opening data must not fail on it)."""
    try:
        return Simulation.from_settings(dataset, settings)
    except ValueError:
        custom = settings.initial_weights
        if custom is None or isinstance(custom, str):
            raise
    return Simulation.from_settings(dataset, replace(settings, initial_weights=None))


def _replayed(session: Session) -> tuple[Simulation, str | None]:
    """A session's run replayed to its trial, with its theory computed (worker side), and
    a line when the replay cannot be the saved run (see `Session.verify`)."""
    simulation = session.simulation()
    _first_look(simulation)
    return simulation, session.verify(simulation)


def _first_look(simulation: Simulation) -> None:
    """What the first frame of new data costs most (worker side): γ*, the first conflict,
    and least squares for a rule that has them; the frame then finds them cached."""
    simulation.margin_report()
    simulation.dataset.first_conflict()
    if simulation.rule.least_squares:
        simulation.adaline_report()
