"""The window's export: the job's cancel, the dialog with its progress and Cancel."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtWidgets import QProgressDialog, QPushButton

from simulator.engine import Dataset, Simulation, load_preset
from simulator.export.job import ExportJob, ExportOptions
from simulator.export.render import FrameRenderer
from simulator.export.writers import ExportError, frame_pixels
from simulator.presentation.frame import build_frame
from simulator.ui import MainWindow
from tests.export.helpers import ROOT, pixels


@pytest.fixture
def told(dialogs):
    """(kind, text) of each message box the dialog showed."""

    class Told:
        def __getitem__(self, index):
            kind, _, text = dialogs.shown[index]
            return kind, text

        @property
        def count(self):
            return len(dialogs.shown)

    return Told()


def leftovers(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith("."))


def rendered(sim, size=(320, 240)):
    """The frame a fresh renderer draws for `sim`'s state, as RGB (what an export's first
    frame must be)."""
    renderer = FrameRenderer(*size)
    try:
        argb = frame_pixels(renderer.render(build_frame(sim)))
    finally:
        renderer.close()
    return np.stack([(argb >> shift) & 255 for shift in (16, 8, 0)], axis=2).astype(np.uint8)


def test_cancel_leaves_no_gif_or_mp4_and_keeps_whole_frames(qapp, tmp_path):
    job = ExportJob(
        Simulation(load_preset("noisy")),
        ExportOptions(
            folder=tmp_path,
            trials=200,
            gif=tmp_path / "a.gif",
            mp4=tmp_path / "a.mp4",
            size=(320, 240),
        ),
    )
    for _ in range(5):
        assert not job.advance(0.0)  # no time at all: one frame a call, however fast
    written = job.frames_written
    assert written == 5
    result = job.cancel()
    assert result.cancelled and result.gif is None and result.mp4 is None
    assert "Cancelled after" in result.summary() and "no GIF or MP4" in result.summary()
    assert not (tmp_path / "a.gif").exists() and not (tmp_path / "a.mp4").exists()
    assert leftovers(tmp_path) == []  # no temporary animation files either
    assert len(list(tmp_path.glob("frame_*.png"))) == written
    for path in tmp_path.glob("frame_*.png"):
        with Image.open(path) as image:
            image.verify()  # every frame that exists is whole


def test_cancel_during_gif_encoding_removes_the_partial_gif(qapp, tmp_path):
    job = ExportJob(
        Simulation(load_preset("or")),
        ExportOptions(folder=tmp_path, trials=20, gif=tmp_path / "a.gif", size=(200, 150)),
    )
    while not job.advance(1.0):
        pass
    job.cancel_requested.set()  # as the dialog's Cancel does while Pillow encodes
    result = job.finish()
    assert result.cancelled and not (tmp_path / "a.gif").exists()
    assert leftovers(tmp_path) == []


def test_job_refuses_what_it_cannot_draw(qapp, tmp_path):
    with pytest.raises(ExportError, match="2-D data"):
        ExportJob(Simulation(Dataset([[1.0, 2.0, 3.0]], [1])), ExportOptions(folder=tmp_path))
    with pytest.raises(ExportError, match="no points"):
        ExportJob(Simulation(Dataset.empty()), ExportOptions(folder=tmp_path))
    with pytest.raises(ValueError, match="at least 1"):
        ExportOptions(folder=tmp_path, trials=0)


def test_frames_match_the_window_state(qapp, tmp_path):
    """From the current state: frame 0 shows the window's learner at its current trial."""
    sim = Simulation(load_preset("separable"))
    sim.run(30)
    job = ExportJob(sim, ExportOptions(folder=tmp_path, trials=3, size=(320, 240)))
    while not job.advance(1.0):
        pass
    result = job.finish()
    assert result.trials == 3 and sim.trials == 33 and result.frames == 4
    reference = Simulation(load_preset("separable"))
    reference.run(30)
    assert np.array_equal(pixels(tmp_path / "frame_00000.png"), rendered(reference))
    reference.run(3)
    assert np.array_equal(pixels(tmp_path / "frame_00003.png"), rendered(reference))


@pytest.fixture
def window(qtbot):
    win = MainWindow(load_preset("or"))
    qtbot.addWidget(win)
    win.show()
    yield win
    win.controller.undo_stack.setClean()


def _dialog(window, qtbot):
    from simulator.export.dialog import ExportDialog

    dialog = ExportDialog(window.controller, window)
    qtbot.addWidget(dialog)
    return dialog


def test_dialog_exports_from_the_start_and_names_what_it_wrote(qtbot, window, tmp_path, told):
    window.controller.simulation.run(7)
    dialog = _dialog(window, qtbot)
    dialog.folder.setText(str(tmp_path))
    dialog.width_spin.setValue(320)
    dialog.height_spin.setValue(240)
    dialog.mp4.setChecked(True)
    with qtbot.waitSignal(dialog.finished_export, timeout=60_000) as blocker:
        dialog.export_button.click()
    result = blocker.args[0]
    assert result.frames == 25 and result.converged_at == 24  # OR converges at 24, by hand
    assert (tmp_path / "animation.gif").exists() and (tmp_path / "animation.mp4").exists()
    assert told[-1][0] == "information" and "Wrote 25 PNG frames" in told[-1][1]
    assert window.controller.simulation.trials == 7  # the window's own run is untouched


def test_dialog_from_the_current_state_for_a_number_of_trials(qtbot, window, tmp_path, told):
    window.controller.simulation.run(5)
    window.controller.step()
    dialog = _dialog(window, qtbot)
    dialog.from_current.setChecked(True)
    dialog.by_trials.setChecked(True)
    dialog.trials.setValue(4)
    dialog.folder.setText(str(tmp_path))
    dialog.gif.setChecked(False)
    dialog.legend.setChecked(False)  # the plot alone, as `rendered` draws it
    dialog.explain.setChecked(False)
    dialog.width_spin.setValue(320)
    dialog.height_spin.setValue(240)
    with qtbot.waitSignal(dialog.finished_export, timeout=60_000) as blocker:
        dialog.export_button.click()
    assert blocker.args[0].frames == 5 and blocker.args[0].trials == 4
    assert not (tmp_path / "animation.gif").exists()
    # Frame 0 is the window's state at trial 6, numbers and all, not the start.
    reference = Simulation(load_preset("or"))
    assert not np.array_equal(pixels(tmp_path / "frame_00000.png"), rendered(reference))
    reference.run(6)
    assert window.controller.simulation.trials == 6
    assert np.array_equal(pixels(tmp_path / "frame_00000.png"), rendered(reference))


def test_dialog_cancel_while_rendering(qtbot, window, tmp_path, told):
    window.controller.set_dataset(load_preset("noisy"))
    dialog = _dialog(window, qtbot)
    dialog.folder.setText(str(tmp_path))
    dialog.by_trials.setChecked(True)
    dialog.trials.setValue(5000)
    dialog.width_spin.setValue(320)
    dialog.height_spin.setValue(240)
    dialog.export_button.click()
    qtbot.waitUntil(lambda: len(list(tmp_path.glob("frame_*.png"))) >= 3, timeout=30_000)
    progress = dialog.findChild(QProgressDialog, "exportProgress")
    ended = []
    dialog.finished_export.connect(ended.append)
    progress.findChild(QPushButton).click()  # the user's Cancel
    assert len(ended) == 1  # at once, not at a later tick
    assert told[-1][0] == "information" and "Cancelled after" in told[-1][1]
    assert not (tmp_path / "animation.gif").exists() and leftovers(tmp_path) == []
    # It really stopped: no job left to render another frame, and the frames on disk are
    # exactly the whole ones the result counts.
    assert ended[0].cancelled and not dialog.exporting
    assert len(list(tmp_path.glob("frame_*.png"))) == ended[0].frames


def test_dialog_reports_an_unwritable_folder_and_needs_a_format(qtbot, window, tmp_path):
    dialog = _dialog(window, qtbot)
    (tmp_path / "file").write_text("")
    dialog.folder.setText(str(tmp_path / "file" / "frames"))
    dialog.export_button.click()
    assert "Cannot write to" in dialog.error.text()
    for box in (dialog.png, dialog.gif, dialog.mp4):
        box.setChecked(False)
    dialog.folder.setText(str(tmp_path))
    dialog.export_button.click()
    assert "Choose at least one" in dialog.error.text()
    assert list(tmp_path.glob("frame_*.png")) == []


def test_file_menu_opens_the_export_dialog(qtbot, window, monkeypatch):
    from simulator.export.dialog import ExportDialog

    opened = []
    monkeypatch.setattr(ExportDialog, "open", lambda self: opened.append(self))
    window.export_action.trigger()
    assert len(opened) == 1 and opened[0].parent() is window


def test_the_dialog_starts_with_the_legend_and_the_arithmetic_ticked(qtbot, window):
    """What the class sees in the window is what the export shows, unless unticked (issue 20
    case 12); the command line's defaults stay as they were."""
    from simulator.export.options import ExportOptions

    dialog = _dialog(window, qtbot)
    assert dialog.legend.isChecked() and dialog.explain.isChecked()
    assert not dialog.charts.isChecked()
    options = dialog.options()
    assert options.legend and options.explain
    assert not ExportOptions(None).legend and not ExportOptions(None).explain


def test_dialog_offers_every_legend_and_explain(qtbot, window, tmp_path, told):
    dialog = _dialog(window, qtbot)
    dialog.folder.setText(str(tmp_path))
    dialog.gif.setChecked(False)
    dialog.by_trials.setChecked(True)
    dialog.trials.setValue(24)
    dialog.every.setCurrentIndex(dialog.every.findData("mistake"))
    dialog.width_spin.setValue(320)
    dialog.height_spin.setValue(240)
    options = dialog.options()
    assert (options.every, options.legend, options.explain) == ("mistake", True, True)
    with qtbot.waitSignal(dialog.finished_export, timeout=60_000) as blocker:
        dialog.export_button.click()
    assert blocker.args[0].frames == 1 + 9  # OR: 9 mistakes in 24 trials (by hand)
    assert len(list(tmp_path.glob("frame_*.png"))) == 10


def test_dialog_checks_the_animation_target_before_rendering(qtbot, window, tmp_path, told):
    (tmp_path / "animation.gif").mkdir()  # a folder where the GIF should go
    dialog = _dialog(window, qtbot)
    dialog.folder.setText(str(tmp_path))
    dialog.export_button.click()
    assert "animation.gif: is a folder" in dialog.error.text()
    assert list(tmp_path.glob("frame_*.png")) == [] and told.count == 0


_FULL_DISK = """
import json, os, resource, signal, sys
from PySide6.QtWidgets import QApplication, QMessageBox
app = QApplication([])
from simulator.engine import load_preset
from simulator.export.dialog import ExportDialog
from simulator.app.main_window import MainWindow

shown = []
def record(kind):
    return lambda parent, title, text, *a, **k: shown.append([kind, text]) or QMessageBox.Ok
QMessageBox.critical = staticmethod(record("critical"))
QMessageBox.information = staticmethod(record("information"))
QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
window = MainWindow(load_preset("noisy"))
results = {}
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
for name, limit, gif in (("png", 5_000, False), ("gif", 60_000, True)):
    folder = os.path.join(sys.argv[1], name)
    dialog = ExportDialog(window.controller, window)
    dialog.folder.setText(folder)
    dialog.by_trials.setChecked(True)
    dialog.trials.setValue(150)
    dialog.gif.setChecked(gif)
    dialog.width_spin.setValue(320)
    dialog.height_spin.setValue(240)
    os.makedirs(folder)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    del shown[:]
    dialog.export_button.click()
    while not shown:
        app.processEvents()
    for _ in range(50):  # anything more to say?
        app.processEvents()
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    results[name] = list(shown)
window.controller.undo_stack.setClean()
print(json.dumps(results))
"""


@pytest.mark.slow
def test_dialog_reports_a_full_disk_once_as_a_failure(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "c")}
    env["LINEAR_LAB_DATA_DIR"] = str(tmp_path / "data")
    result = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    shown = json.loads(result.stdout.strip().splitlines()[-1])
    for name, reason in (("png", "frame_00000.png: File too large"), ("gif", "animation.gif")):
        assert len(shown[name]) == 1, shown  # once
        kind, text = shown[name][0]
        assert kind == "critical" and "cannot write" in text and reason in text, text
        assert "Wrote" not in text
        assert leftovers(tmp_path / "out" / name) == []


def test_an_animation_alone_writes_no_png_anywhere(qapp, tmp_path, monkeypatch):
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where hidden PNGs would go
    job = ExportJob(
        Simulation(load_preset("or")),
        ExportOptions(folder=None, trials=5, gif=tmp_path / "a.gif", size=(200, 150)),
    )
    while not job.advance(1.0):
        pass
    result = job.finish()
    assert result.frames == 6 and result.folder is None and result.gif == tmp_path / "a.gif"
    assert "Wrote the GIF" in result.summary()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.gif", "tmp"]
    with Image.open(tmp_path / "a.gif") as gif:
        assert gif.n_frames == 6
