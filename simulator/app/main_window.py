"""The main window: plot in the middle, controls and theory on the right, menus, status bar.

It wires views to the controller and owns what only a window has: the menus (a table, in
`menus`), the points' and sessions' files and the question about unsaved points (its base
`DocumentWindow`, in `documents`), and the status bar. An internal error shows one dialog,
keeps the points and the window (see `safety`).
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from simulator import __version__
from simulator.app import preferences
from simulator.app.autosave import Autosaver
from simulator.app.documents import DocumentWindow
from simulator.app.lesson_mode import LessonMode
from simulator.app.menus import build_menus
from simulator.app.preset_bar import build_preset_bar
from simulator.app.view_menu import fit_side_panel, shortcuts_html
from simulator.engine import Dataset, Settings, Simulation
from simulator.engine.lessons import Lesson, StepState
from simulator.presentation.frame import Frame, settings_line, settings_parts
from simulator.ui.class_points import class_label
from simulator.ui.controller import SimulationController
from simulator.ui.highdim_view import HighDimView
from simulator.ui.layout import initial_geometry
from simulator.ui.numbers_band import NumbersBand
from simulator.ui.panels import ControlPanel, TheoryPanel, TrialExplanation
from simulator.ui.plot_view import DEFAULT_SNAP, PlotView
from simulator.ui.safety import LastResort
from simulator.ui.time_views import TimeViews
from simulator.ui.value_label import label_font

__all__ = ["GLIDE_MS", "MainWindow"]

GLIDE_MS = 300.0  # the boundary and w glide this long to a new w (0: they jump)
GLIDE_SPEED = 10.0  # trials a second: faster runs jump
# Presentation mode with the charts open: the plot (or the high-dimensional view's charts)
# keeps at least this height, and the charts at least CHARTS_MIN_PX; where the column is too
# short for both and the trial's explanation, the explanation gives way (the ledger tab
# shows each trial's arithmetic).
PLOT_MIN_PX = 240
CHARTS_MIN_PX = 200


def _lines_within(parts: list[str], width: int, metrics: QFontMetrics) -> list[str]:
    """`parts` joined by " · " into lines no wider than `width` where each part allows."""
    lines: list[str] = []
    for part in parts:
        joined = f"{lines[-1]} · {part}" if lines else part
        if lines and metrics.horizontalAdvance(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    return lines


class MainWindow(DocumentWindow):
    """The whole application window; `window.controller` drives the simulation."""

    # Made by `build_menus` from the table in `menus`.
    new_action: QAction
    open_action: QAction
    save_action: QAction
    save_as_action: QAction
    open_session_action: QAction
    save_session_action: QAction
    export_action: QAction
    undo_action: QAction
    redo_action: QAction
    delete_action: QAction
    flip_action: QAction
    clear_action: QAction
    separator_action: QAction
    radius_action: QAction
    shading_action: QAction
    least_squares_action: QAction
    true_length_action: QAction
    numbers_action: QAction
    legend_action: QAction
    snap_group: QActionGroup
    follow_action: QAction
    fit_action: QAction
    presentation_action: QAction
    fullscreen_action: QAction
    step_action: QAction
    step_back_action: QAction
    run_action: QAction
    next_mistake_action: QAction
    epoch_action: QAction
    reset_action: QAction
    lab_action: QAction
    # Made by `lesson_mode.lessons_menu` (the Lessons menu).
    lessons: LessonMode
    save_lesson_step_action: QAction
    leave_lesson_action: QAction

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
        self._path = None
        self._document = None
        self.last_resort: LastResort | None = None
        dropped: list[str] = []  # remembered settings that could not be used
        if settings is None and app_settings is not None:
            settings = preferences.restore_learner(app_settings, dropped)
        self.controller = SimulationController(parent=self, settings=settings)
        self.glide_ms = GLIDE_MS
        self.plot = PlotView(self)
        self.controls = ControlPanel(self)
        self.theory = TheoryPanel(self)
        self.time = TimeViews(self.controller, self)  # timeline, charts, ledger
        self._lay_out()
        build_menus(self)
        self.preset_bar = build_preset_bar(self)
        self.plot.set_snap(DEFAULT_SNAP)  # as the menu's checked grid says
        self._update_glide()
        self._on_selection(None)  # nothing selected yet: nothing to delete or flip
        self._connect()
        self._show_first(dataset)
        if app_settings is not None:
            preferences.restore_window(app_settings, self)
        self._start_autosave()
        self._say_at_start(dropped)

    def _lay_out(self) -> None:
        """The plot (or the high-dimensional view) with the time views, the panels beside."""
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.addWidget(self.theory)  # the numbers the class watches, on top
        side_layout.addWidget(self.controls)
        side_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Always there, so a status that grows or shrinks past the fold never changes the
        # panel's width (and rewraps, and moves the numbers).
        scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.side_scroll = scroll
        # The run buttons and the speed sit under the scrolling part, never scrolled away
        # (a long status or a small screen cannot push Step and Run off it).
        side_column = QWidget()
        column_layout = QVBoxLayout(side_column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.addWidget(scroll, 1)
        column_layout.addWidget(self.controls.run_box)
        self._side_layout = column_layout
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
        self._state_before_stage: Qt.WindowState | None = None  # see _fill_screen
        self.views = QStackedWidget(objectName="centralViews")
        self.views.addWidget(plot_column)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._stage(self.time.around(self.views)))  # charts, ledger below
        splitter.addWidget(side_column)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        splitter.setSizes([900, 400])
        self.splitter = splitter
        self.setCentralWidget(splitter)
        self.setGeometry(initial_geometry(self.screen().availableGeometry()))
        fit_side_panel(scroll, splitter)

    def _stage(self, views: QWidget) -> QWidget:
        """The views with what presentation mode adds around them: the settings strip and
        the key numbers above (the side panel is hidden, the plot takes the width), the run
        buttons and the speed in a row below."""
        self.settings_strip = QLabel(objectName="settingsStrip")
        self.settings_strip.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        # As wide as the window makes it, never wider (the text is broken into lines to fit,
        # and a setting longer than the line wraps at its words).
        self.settings_strip.setWordWrap(True)
        self.settings_strip.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.band = NumbersBand()
        self.run_row = QWidget(objectName="runRow")
        self._run_row_layout = QHBoxLayout(self.run_row)
        self._run_row_layout.setContentsMargins(4, 0, 4, 0)
        stage = QWidget()
        layout = QVBoxLayout(stage)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        for widget in (self.settings_strip, self.band, views, self.run_row):
            layout.addWidget(widget, 1 if widget is views else 0)
        for widget in (self.settings_strip, self.band, self.run_row):
            widget.hide()
        return stage

    def _show_first(self, dataset: Dataset | None) -> None:
        """The panels synced, the data loaded (as saved), the first frame painted."""
        self.controls.sync(self.controller.settings)
        self.controller.set_speed(self.controls.speed_value())
        if dataset is not None:
            self.controller.set_dataset(dataset, "Load data")
            self.controller.undo_stack.setClean()
        self.plot.set_show_legend(self.legend_action.isChecked())
        self._on_frame(self.controller.frame)
        self.plot.fit_view()
        self.plot.set_follow(self.follow_action.isChecked())
        self._update_title()
        self.plot.setFocus()

    def _start_autosave(self) -> None:
        c = self.controller
        self.autosaver = Autosaver(self.autosave_state, parent=self)
        self.autosaver.failed.connect(self._on_problem)
        for signal in (c.frame_changed, c.dataset_changed, c.settings_changed):
            signal.connect(self.autosaver.changed)
        if len(c.dataset):
            self.autosaver.changed()

    def _say_at_start(self, dropped: list[str]) -> None:
        """At most one status line at start: settings that could not be used, autosave."""
        notes = []
        if self.controller.start_problem is not None:
            notes.append(f"Started with the default settings: {self.controller.start_problem}.")
        elif dropped:
            names = "all" if "all" in dropped else ", ".join(dropped)
            notes.append(f"Remembered settings not used ({names}): the defaults stand in.")
        if self.autosaver.problem is not None:
            notes.append(self.autosaver.problem)
        if notes:
            self._on_problem(" ".join(notes))

    def _connect(self) -> None:
        c, plot, controls = self.controller, self.plot, self.controls
        c.frame_changed.connect(self._on_frame)
        self.time.area_action.toggled.connect(lambda *_: self._fit_stage())
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
        plot.point_relabel_requested.connect(c.relabel)
        plot.selection_changed.connect(self._on_selection)
        controls.setting_requested.connect(c.request_setting)
        controls.speed_changed.connect(c.set_speed)
        controls.speed_changed.connect(lambda *_: self._update_glide())
        c.running_changed.connect(lambda *_: self._update_glide())
        controls.new_point_label_changed.connect(self._set_new_point_label)
        controls.editing_done.connect(self._keys_to_the_view)
        controls.step_button.clicked.connect(c.step)
        controls.next_mistake_button.clicked.connect(c.next_mistake)
        controls.epoch_button.clicked.connect(c.run_epoch)
        controls.run_button.clicked.connect(c.toggle_run)
        controls.reset_button.clicked.connect(c.reset)

    def _update_glide(self) -> None:
        """The line glides to each new w over `glide_ms` for a Step, and while running at a
        pace the class follows (≤ GLIDE_SPEED trials a second) over most of a trial's time;
        faster, it jumps (the glide would lag behind the run)."""
        speed = self.controller.speed
        if not self.controller.running:
            duration = self.glide_ms
        elif speed <= GLIDE_SPEED:
            duration = min(self.glide_ms, 0.8 * 1000.0 / speed)
        else:
            duration = 0.0
        self.plot.set_glide(duration)

    def _keys_to_the_view(self) -> None:
        """The keyboard back to the data's view (Space steps, Enter runs)."""
        view = self.views.currentWidget()
        (self.plot if view is not None and view.isAncestorOf(self.plot) else view).setFocus()

    def _set_new_point_label(self, label: int) -> None:
        self.plot.new_point_label = label

    def choose_class(self, key: int) -> None:
        """Keys 1–9: the class a left click adds is the key-th; a key past the last class
        makes the data that many classes first (one undo step, see `use_classes`)."""
        if class_label(self.controller.dataset, key) is None and not self.controller.use_classes(
            key
        ):
            return
        label = class_label(self.controller.dataset, key)
        if label is not None:
            self.controls.set_new_point_label(label)

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
        self._show_settings_strip(frame)
        if self.band.isVisible():
            self.band.show_frame(frame)
        self.controls.set_can_run(
            len(frame.dataset) > 0, "Place points first: left click +1, right click −1"
        )

    def sync_run_row(self) -> None:
        """The run row shows in presentation mode, but not in a lesson: the lesson panel's
        Next drives it there (Space still steps), and the plot keeps the room."""
        on = self.presentation_action.isChecked()
        self.run_row.setVisible(on and not (hasattr(self, "lessons") and self.lessons.active))

    def _show_settings_strip(self, frame: Frame) -> None:
        """The run's settings, whole: in presentation mode the learner box is hidden, the
        class still sees them. One line where it fits; else without the words that only
        explain; else broken between settings onto as many lines as it takes."""
        strip = self.settings_strip
        metrics = strip.fontMetrics()
        margins = strip.contentsMargins()
        width = max(40, strip.width() - margins.left() - margins.right() - 2 * strip.margin())
        lines = [settings_line(frame)]
        if metrics.horizontalAdvance(lines[0]) > width:
            lines = _lines_within(settings_parts(frame, short=True), width, metrics)
        text = "\n".join(lines)
        if text != strip.text():
            strip.setText(text)
        strip.setToolTip(settings_line(frame))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.settings_strip.isVisible():
            self._show_settings_strip(self.controller.frame)
        self._fit_stage()

    def _fit_stage(self) -> None:
        """In presentation mode: the plot never squeezed below `PLOT_MIN_PX`; with the
        charts open on a short screen, the trial's explanation gives way to them."""
        on = self.presentation_action.isChecked()
        minimum = PLOT_MIN_PX if on else 0
        self.plot.setMinimumHeight(minimum)
        explanations = [self.explanation]
        if self._high_dim is not None:
            self._high_dim.charts.setMinimumHeight(minimum)
            explanations.append(self._high_dim.explanation)
        short = False
        if on and self.time.tabs.isVisibleTo(self):
            column = sum(self.time.splitter.sizes())
            timeline = self.time.timeline.sizeHint().height()
            explanation = max(
                max(e.minimumHeight(), 3 * e.fontMetrics().lineSpacing() + 14) for e in explanations
            )
            short = column < PLOT_MIN_PX + CHARTS_MIN_PX + timeline + explanation
        for label in explanations:
            if label.isVisibleTo(self) == short:
                label.setVisible(not short)
        self.time.share_area()

    @property
    def high_dim(self) -> HighDimView:
        """The view for data with d ≠ 2 coordinates (index 1 of `views`), built on first use."""
        if self._high_dim is None:
            self._high_dim = HighDimView(self)
            self._high_dim.set_presentation(self.presentation_action.isChecked())
            self.views.addWidget(self._high_dim)
            self._fit_stage()
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

    def _on_refused(self, text: str) -> None:
        """Settings refused before they reach the engine: one dialog, nothing changed."""
        self.controller.pause()
        QMessageBox.critical(self, "Settings refused", text)

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

    def open_lesson(self, lesson: Lesson, states: tuple[StepState, ...] = ()) -> bool:
        """Lessons → a lesson: the lesson panel under the plot, at step 1 (`lesson_mode`)."""
        return self.lessons.open(lesson, states)

    def show_lesson_run(self, simulation: Simulation, name: str) -> bool:
        """A lesson step's run shown as it is (one undo step); its points count as saved,
        as a preset's do (they are in the lesson file)."""
        if not self.controller.load_run(simulation, "Lesson step"):
            return False
        self._set_document(None, name)
        return True

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
        self.settings_strip.setFont(label_font(on))
        # The stage's own layout: the key numbers in a band over a full-width plot, the run
        # row under it; out of it, the side panel with the run box at its foot.
        run_box = self.controls.run_box
        if on:
            self._run_row_layout.addWidget(run_box)
        else:
            self._side_layout.addWidget(run_box)
        self.controls.arrange_run(row=on)
        for widget in (self.settings_strip, self.band):
            widget.setVisible(on)
        self.sync_run_row()
        self.splitter.widget(1).setVisible(not on)
        self.preset_bar.setVisible(not on)
        if on:
            self.band.show_frame(self.controller.frame)
        if self._high_dim is not None:
            self._high_dim.set_presentation(on)
        self._fit_stage()
        from simulator.app.lab_window import LabWindow

        lab = self.findChild(LabWindow, "labWindow")
        if lab is not None:
            lab.set_presentation(on)
        fit_side_panel(self.side_scroll, self.splitter)
        self._fill_screen(on)

    def _fill_screen(self, on: bool) -> None:
        """Presentation mode fills the screen (maximized: the title bar stays, F11 takes it
        too); leaving it brings the window back as it was."""
        maximized = Qt.WindowState.WindowMaximized
        if on and self._state_before_stage is None:
            self._state_before_stage = self.windowState()
            self.setWindowState(self.windowState() | maximized)
        elif not on and self._state_before_stage is not None:
            if not self._state_before_stage & maximized:
                self.setWindowState(self.windowState() & ~maximized)
            self._state_before_stage = None

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
