"""File → Export frames…: choose what to export, watch it progress, cancel at any time.

The export runs on a copy of the window's simulation (from the start, or from the current
state), so the window's own run is untouched. Frames are rendered on the GUI thread in
short timer-driven chunks (PNG and GIF frames are encoded on worker threads); the GIF and
the MP4 are completed on a worker thread. Either way the window keeps answering, Cancel
leaves no half-written GIF or MP4, and a failure (a full disk) is reported once, as a
failure, with what was kept.
"""

from __future__ import annotations

import copy
import threading
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from simulator.engine import Simulation
from simulator.export.checks import (
    MP4_INSTALL_HINT,
    check_animation_target,
    mp4_available,
    mp4_size_problem,
    prepare_folder,
)
from simulator.export.job import ExportJob, ExportResult
from simulator.export.options import (
    EVERY,
    FPS_RANGE,
    HEIGHT_RANGE,
    MAX_TRIALS,
    WIDTH_RANGE,
    ExportOptions,
)
from simulator.export.writers import ExportError
from simulator.ui.controller import SimulationController
from simulator.ui.layout import column, row

__all__ = ["ExportDialog"]

_TICK_SECONDS = 0.03
_ENCODER_POLL_MS = 50  # while ffmpeg completes the animation: look now and then, not spin


_EVERY_TEXTS = ("after every trial", "after every mistake", "after every epoch")  # of EVERY

# The form's check boxes, by row: (the dialog's attribute, text, object name, checked).
_CHECK_BOXES: dict[str, tuple[tuple[str, str, str, bool], ...]] = {
    "Show": (
        ("legend", "the plot's legend", "legendCheck", True),
        ("explain", "the arithmetic of each trial, under the plot", "explainCheck", True),
        ("charts", "the charts beside the plot (mistakes, the proof)", "chartsCheck", False),
    ),
    "Write": (
        ("png", "PNG frames (frame_00000.png, …)", "pngCheck", True),
        ("gif", "animated GIF (animation.gif)", "gifCheck", True),
        ("mp4", "MP4 video (animation.mp4)", "mp4Check", False),
    ),
}


def _spin_box(name: str, limits: tuple[int, int], value: int) -> QSpinBox:
    box = QSpinBox(objectName=name)
    box.setRange(*limits)
    box.setValue(value)
    return box


class ExportDialog(QDialog):
    """Asks what to export, then runs it with a progress dialog (Cancel works throughout)."""

    finished_export = Signal(object)  # ExportResult
    # Made from `_CHECK_BOXES`:
    legend: QCheckBox
    explain: QCheckBox
    charts: QCheckBox
    png: QCheckBox
    gif: QCheckBox
    mp4: QCheckBox

    def __init__(self, controller: SimulationController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export frames")
        self.setObjectName("exportDialog")
        self._controller = controller
        self._job: ExportJob | None = None
        self._progress: QProgressDialog | None = None
        self._encoder: threading.Thread | None = None
        self._outcome: ExportResult | Exception | None = None
        sim = controller.simulation

        form = QFormLayout()
        self._add_start(form, sim.trials)
        self._add_length(form, len(controller.dataset))
        self._add_frames(form)
        self._add_files(form)

        self.error = QLabel(objectName="exportError")
        self.error.setStyleSheet("color: #B03000;")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_button.setObjectName("exportButton")
        buttons.accepted.connect(self.start)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def _add_start(self, form: QFormLayout, trial: int) -> None:
        """Start from: the start, or the current state (trial `trial`)."""
        self.from_start = QRadioButton("the start (trial 0)", objectName="fromStart")
        self.from_current = QRadioButton(
            f"the current state (trial {trial})", objectName="fromCurrent"
        )
        self.from_start.setChecked(True)
        start_group = QButtonGroup(self)
        start_group.addButton(self.from_start)
        start_group.addButton(self.from_current)
        form.addRow("Start from", column(self.from_start, self.from_current))

    def _add_length(self, form: QFormLayout, points: int) -> None:
        """Run: a number of trials (5 per point, 200 at most), or until converged (capped)."""
        self.by_trials = QRadioButton("a number of trials:", objectName="byTrials")
        self.trials = _spin_box("trialsSpin", (1, MAX_TRIALS), max(1, min(200, 5 * max(1, points))))
        self.until_converged = QRadioButton(
            "until converged, at most:", objectName="untilConverged"
        )
        self.cap = _spin_box("capSpin", (1, MAX_TRIALS), 1000)
        self.until_converged.setChecked(True)
        length_group = QButtonGroup(self)
        length_group.addButton(self.by_trials)
        length_group.addButton(self.until_converged)
        form.addRow(
            "Run",
            column(
                row(self.by_trials, self.trials),
                row(self.until_converged, self.cap, QLabel("trials")),
            ),
        )

    def _add_frames(self, form: QFormLayout) -> None:
        """A frame after every trial, mistake or epoch; its size; what it shows."""
        self.width_spin = _spin_box("widthSpin", WIDTH_RANGE, 1280)
        self.height_spin = _spin_box("heightSpin", HEIGHT_RANGE, 720)
        self.every = QComboBox(objectName="everyCombo")
        for value, text in zip(EVERY, _EVERY_TEXTS, strict=True):
            self.every.addItem(text, value)
        form.addRow("A frame", column(self.every, QLabel("(frame 0 is always the start)")))
        form.addRow(
            "Frame size", row(self.width_spin, QLabel("×"), self.height_spin, QLabel("pixels"))
        )
        form.addRow("Show", column(*self._check_boxes("Show")))

    def _add_files(self, form: QFormLayout) -> None:
        """The folder, the files to write (MP4 only with ffmpeg) and the animation's speed."""
        self.folder = QLineEdit(
            str(Path.home() / "linear-classifier-frames"), objectName="folderEdit"
        )
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        form.addRow("Folder", row(self.folder, browse, stretch=0))
        form.addRow("Write", column(*self._check_boxes("Write")))
        if not mp4_available():
            self.mp4.setEnabled(False)
            self.mp4.setToolTip(MP4_INSTALL_HINT)
        self.fps = QDoubleSpinBox(objectName="fpsSpin")
        self.fps.setRange(*FPS_RANGE)
        self.fps.setDecimals(1)
        self.fps.setValue(5.0)
        self.fps.setSuffix(" frames/s")
        form.addRow("Speed", self.fps)

    def _check_boxes(self, row_label: str) -> list[QCheckBox]:
        """The check boxes of the form row `row_label` (`_CHECK_BOXES`), each also the
        dialog's attribute of its name."""
        boxes = []
        for attribute, text, name, checked in _CHECK_BOXES[row_label]:
            box = QCheckBox(text, objectName=name)
            box.setChecked(checked)
            setattr(self, attribute, box)
            boxes.append(box)
        return boxes

    # -- choosing ------------------------------------------------------------------------------

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for the frames", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def options(self) -> ExportOptions:
        folder = Path(self.folder.text()).expanduser()
        return ExportOptions(
            folder=folder if self.png.isChecked() else None,
            trials=self.trials.value() if self.by_trials.isChecked() else None,
            max_trials=self.cap.value(),
            every=self.every.currentData(),
            gif=folder / "animation.gif" if self.gif.isChecked() else None,
            mp4=folder / "animation.mp4" if self.mp4.isChecked() and self.mp4.isEnabled() else None,
            size=(self.width_spin.value(), self.height_spin.value()),
            fps=self.fps.value(),
            legend=self.legend.isChecked(),
            explain=self.explain.isChecked(),
            charts=self.charts.isChecked(),
        )

    def _problem(self, options: ExportOptions) -> str | None:
        """What stops this export before any frame is rendered, in one sentence, or None."""
        folder = Path(self.folder.text()).expanduser()
        try:
            prepare_folder(folder)
            for target, suffix in ((options.gif, ".gif"), (options.mp4, ".mp4")):
                if target is not None:
                    try:
                        check_animation_target(target, suffix)
                    except ValueError as exc:
                        return f"Cannot write {target}: {exc}."
        except ValueError as exc:
            return f"Cannot write to {folder}: {exc}."
        if options.mp4 is not None:
            return mp4_size_problem(*options.size)
        return None

    # -- running ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Check the choices, then export with a progress dialog."""
        if not (self.png.isChecked() or self.gif.isChecked() or self.mp4.isChecked()):
            self.error.setText("Choose at least one of PNG, GIF or MP4.")
            return
        options = self.options()
        problem = self._problem(options)
        if problem is not None:
            self.error.setText(problem)
            return
        source = self._controller.simulation
        simulation = (
            copy.deepcopy(source)
            if self.from_current.isChecked()
            else Simulation.from_settings(source.dataset, source.settings)
        )
        try:
            self._job = ExportJob(simulation, options)
        except (ExportError, ValueError) as exc:
            self.error.setText(str(exc))
            return
        self.error.clear()
        self._controller.pause()
        progress = QProgressDialog("Rendering frames…", "Cancel", 0, options.trial_limit, self)
        progress.setObjectName("exportProgress")
        progress.setWindowTitle("Exporting")
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.canceled.connect(self.cancel)
        progress.show()
        self._progress = progress
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self._timer.start(0)

    def _tick(self) -> None:
        job, progress = self._job, self._progress
        if job is None or progress is None:
            return
        if self._encoder is None:
            try:
                done = job.advance(_TICK_SECONDS)
            except Exception as exc:  # a failed write: reported once, never raised into Qt
                self._end(exc)
                return
            if job.cancel_requested.is_set():
                self._end(job.cancel())
                return
            progress.setValue(min(job.trials_run, progress.maximum()))
            progress.setLabelText(
                f"Rendering: trial {job.trials_run:,} of {job.options.trial_limit:,}, "
                f"{job.frames_written:,} frames…"
            )
            if done:
                progress.setLabelText("Completing the animation…")
                progress.setRange(0, 0)  # busy: ffmpeg does not report progress
                self._encoder = threading.Thread(target=self._encode, daemon=True)
                self._encoder.start()
                self._timer.setInterval(_ENCODER_POLL_MS)
        elif not self._encoder.is_alive():
            self._encoder = None
            self._end(self._outcome)

    def _encode(self) -> None:
        assert self._job is not None
        try:
            self._outcome = self._job.finish()
        except Exception as exc:  # reported on the GUI thread
            self._outcome = exc

    def reject(self) -> None:
        """Cancel, Esc or closing: while an export runs, they cancel it (the result is
        reported as for the progress dialog's Cancel); otherwise the dialog closes."""
        if self.exporting:
            self.cancel()
            return
        super().reject()

    @property
    def exporting(self) -> bool:
        """Whether an export is under way (rendering or completing the animation)."""
        return self._job is not None

    def cancel(self) -> None:
        """Stop now; partial GIF/MP4 files are removed, frames written so far stay."""
        if self._job is None:
            return
        job = self._job
        if self._encoder is not None:
            job.cancel_requested.set()
            return  # _tick collects the result when the encoder thread stops
        self._end(job.cancel())

    def _end(self, outcome: ExportResult | Exception | None) -> None:
        self._timer.stop()
        if self._progress is not None:
            self._progress.hide()
            self._progress.deleteLater()
            self._progress = None
        job, self._job = self._job, None
        if isinstance(outcome, ExportResult):
            QMessageBox.information(self, "Export", outcome.summary())
            self.finished_export.emit(outcome)
            self.accept()
            return
        kept = ""
        if job is not None:
            result = job.cancel()  # removes the unfinished GIF and MP4; the whole frames stay
            if result.folder is not None and result.frames:
                kept = (
                    f" The {result.frames} PNG frames written before the failure are whole; "
                    f"they stay in {result.folder}."
                )
        QMessageBox.critical(self, "Export failed", f"{outcome}.{kept}")
