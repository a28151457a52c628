"""The main window: plot in the middle, controls and theory on the right, menus, status bar.

It wires views to the controller and owns what only a window has: menus, shortcuts,
file dialogs, and the question about unsaved points on close. Files are written through
QSaveFile (atomic: a crash mid-save never leaves half a file).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSaveFile, QSettings, Qt
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
from simulator.engine import PRESETS, DataFileError, Dataset, Settings, load_dataset, load_preset
from simulator.ui.controller import SimulationController
from simulator.ui.frame import Frame
from simulator.ui.highdim_view import HighDimView
from simulator.ui.layout import initial_geometry
from simulator.ui.panels import ControlPanel, TheoryPanel, TrialExplanation
from simulator.ui.plot_view import SNAP_STEPS, PlotView
from simulator.ui.view_menu import fit_side_panel, shortcuts_html

__all__ = ["MainWindow"]

_PRESET_TITLES = {
    "and": "AND (4 corners)",
    "or": "OR (4 corners)",
    "xor": "XOR (not separable)",
    "iris": "Iris: setosa vs the rest",
    "separable": "Random separable",
    "noisy": "Random noisy (not separable)",
    "disjunction": "Winnow: an OR of 3 of 64 variables (15-859)",
    "unl-disjunction": "Winnow: x5 ∨ x9 ∨ x12 of 150 variables (UNL)",
}


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
        self.controller = SimulationController(parent=self, settings=settings)
        self.plot = PlotView(self)
        self.controls = ControlPanel(self)
        self.theory = TheoryPanel(self)

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
        column.addWidget(self.explanation)
        # Data with d ≠ 2 coordinates cannot be drawn on the plane: they get their own view.
        self.high_dim = HighDimView(self)
        self.views = QStackedWidget(objectName="centralViews")
        self.views.addWidget(plot_column)
        self.views.addWidget(self.high_dim)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.views)
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
        self.plot.set_show_legend(self.legend_action.isChecked())
        self._on_frame(self.controller.frame)
        self.plot.fit_view()
        self.plot.set_follow(self.follow_action.isChecked())
        self._update_title()
        self.plot.setFocus()

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
        presets = file.addMenu("&Presets")
        for name in PRESETS:
            presets.addAction(
                self._action(
                    _PRESET_TITLES.get(name, name),
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
            "&Delete point", self.delete_selected, [QKeySequence.StandardKey.Delete, "Backspace"]
        )
        self.flip_action = self._action("&Flip label of point", self.flip_selected, "F")
        self.clear_action = self._action("&Clear all points", c.clear)
        edit.addActions([self.delete_action, self.flip_action, self.clear_action])

        view = bar.addMenu("&View")
        plot = self.plot
        self.separator_action = self._action(
            "Optimal separator and &margin", plot.set_show_separator, "M", checkable=True
        )
        self.radius_action = self._action("&Radius R", plot.set_show_radius, "R", checkable=True)
        self.shading_action = self._action(
            "Region &shading (sign of the score)",
            plot.set_show_shading,
            "S",
            checkable=True,
            name="shadingAction",
        )
        self.least_squares_action = self._action(
            "Adaline's &least-squares line w_LS",
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

        run = bar.addMenu("&Run")
        self.step_action = self._action("&Step", c.step, "Space")
        self.run_action = self._action("&Run / Pause", c.toggle_run, ["Return", "Enter"])
        self.next_mistake_action = self._action("&Next mistake", c.next_mistake, "N")
        self.epoch_action = self._action("&Epoch", c.run_epoch, "E")
        self.reset_action = self._action("Rese&t", c.reset, "Ctrl+R")
        run.addActions(
            [
                self.step_action,
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
        c.undo_stack.cleanChanged.connect(self._update_title)
        plot.point_requested.connect(c.add_point)
        plot.point_moved.connect(c.move_point)
        plot.point_delete_requested.connect(lambda i: c.delete_points([i]))
        plot.point_flip_requested.connect(c.flip_label)
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

    # -- painting ------------------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        plane = frame.dataset.dimension == 2
        self.views.setCurrentIndex(0 if plane else 1)
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

    def _on_problem(self, text: str) -> None:
        self.statusBar().showMessage(text, 15000)

    def _update_title(self, *_: object) -> None:
        name = self._path.name if self._path is not None else "untitled"
        self.setWindowTitle(f"{name}[*] — Linear Classifier Lab")
        self.setWindowModified(not self.controller.undo_stack.isClean())

    # -- data files -------------------------------------------------------------------------------

    def new_points(self) -> None:
        self.controller.set_dataset(Dataset.empty(), "New")
        self._path = None
        self.plot.fit_view()
        self._update_title()

    def load_preset(self, name: str) -> None:
        self.controller.set_dataset(load_preset(name), f"Preset {name}")
        self.plot.fit_view()
        self.statusBar().showMessage(f"Loaded the {name} preset.", 4000)

    def open_file(self, path: str | Path) -> bool:
        """Load points from a CSV or JSON file; on error show why and keep the current points."""
        path = Path(path)
        try:
            dataset = load_dataset(path)
            self.controller.set_dataset(dataset, f"Open {path.name}")
        except (DataFileError, ValueError) as exc:
            QMessageBox.critical(self, "Cannot open the file", str(exc))
            return False
        self._path = path
        self.controller.undo_stack.setClean()
        self._remember_folder(path)
        self.plot.fit_view()
        self._update_title()
        return True

    def save_to(self, path: str | Path) -> bool:
        """Write the points as CSV, atomically; on error say why."""
        path = Path(path)
        out = QSaveFile(str(path))
        if not out.open(QSaveFile.OpenModeFlag.WriteOnly):
            QMessageBox.critical(self, "Cannot save", f"{path}: {out.errorString()}")
            return False
        out.write(self.controller.dataset.to_csv().encode("utf-8"))
        if not out.commit():
            QMessageBox.critical(self, "Cannot save", f"{path}: {out.errorString()}")
            return False
        self._path = path
        self.controller.undo_stack.setClean()
        self._remember_folder(path)
        self._update_title()
        self.statusBar().showMessage(
            f"Saved {len(self.controller.dataset)} points to {path}.", 4000
        )
        return True

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open points", self._folder(), "Points (*.csv *.json);;All files (*)"
        )
        if path:
            self.open_file(path)

    def save(self) -> bool:
        return self.save_to(self._path) if self._path is not None else self.save_as_dialog()

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

        ExportDialog(self.controller, self).open()

    def open_lab(self) -> None:
        """Tools → Winnow vs Perceptron lab: one lab window, raised when asked again."""
        from simulator.ui.lab_window import LabWindow

        lab = self.findChild(LabWindow, "labWindow") or LabWindow(self)
        lab.show()
        lab.raise_()
        lab.activateWindow()

    def _folder(self) -> str:
        if self._app_settings is not None:
            return str(self._app_settings.value("folder", str(Path.home())))
        return str(Path.home())

    def _remember_folder(self, path: Path) -> None:
        if self._app_settings is not None:
            self._app_settings.setValue("folder", str(path.parent))

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
        for view in (self.plot, self.theory, self.controls, self.explanation):
            view.set_presentation(on)
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
        if self.controller.undo_stack.isClean() or len(self.controller.dataset) == 0:
            event.accept()
            return
        answer = QMessageBox.question(
            self,
            "Unsaved points",
            "Save the points before closing?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Discard or (
            answer == QMessageBox.StandardButton.Save and self.save()
        ):
            event.accept()
        else:
            event.ignore()
