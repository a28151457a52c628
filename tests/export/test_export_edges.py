"""Exports at the edges of what they accept (issue 21): frame sizes at the ends of the
allowed ranges, links planted among the frames, folder names the file system refuses.
Each gets its frames or one line, never a traceback or a crash."""

import errno
import os

import pytest
from PIL import Image

from simulator.engine import Simulation, load_preset
from simulator.export.render import FrameRenderer
from simulator.presentation.frame import build_frame
from tests.export.helpers import export_here, frames, hidden_files, main_here

pytestmark = pytest.mark.usefixtures("qapp")  # exports in this process draw with its Qt

LONG_NAME = "a" * 300  # more than the 255 bytes a file name may have


def one_line(result, status, *parts):
    lines = result.stderr.strip().splitlines()
    assert result.returncode == status, result.stderr
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# -- case 1: tall, narrow frames with charts ------------------------------------------------------


@pytest.mark.parametrize(
    "size", [(64, 4320), (100, 3000), (160, 2500), (64, 64), (7680, 64), (64, 720)]
)
def test_frames_of_every_allowed_shape_render_with_charts_and_the_rest(size, qtlog):
    """The charts' share of a 64-pixel width, less margins that grow with the height, was
    negative: a division by zero mid-paint, then a segfault."""
    sim = Simulation(load_preset("or"))
    renderer = FrameRenderer(*size, legend=True, explain=True, charts=True)
    try:
        for _ in range(3):
            image = renderer.render(build_frame(sim))
            assert (image.width(), image.height()) == size
            sim.step()
        assert renderer.charts_rect.width() >= 1 and renderer.charts_rect.height() >= 1
    finally:
        renderer.close()
    negative = [r.message for r in qtlog.records if "Negative sizes" in r.message]
    assert negative == []


def test_the_reported_command_writes_its_frames(tmp_path):
    result = export_here(
        "--dataset", "or", "--trials", 2, "--charts", "--size", "64x4320", "--out", tmp_path,
        "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "Negative sizes" not in result.stderr
    written = frames(tmp_path)
    assert len(written) == 3
    with Image.open(written[-1]) as image:
        assert image.size == (64, 4320)


# -- case 3: a link among the frames is replaced, never followed -------------------------------


def test_a_link_planted_among_the_frames_is_not_followed(tmp_path):
    (tmp_path / "out").mkdir()
    victim = tmp_path / "elsewhere.txt"
    victim.write_text("precious")
    (tmp_path / "out" / "frame_00002.png").symlink_to(victim)
    result = export_here("--dataset", "or", "--trials", 3, "--out", tmp_path / "out", "--quiet")
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "precious"
    frame = tmp_path / "out" / "frame_00002.png"
    assert not frame.is_symlink() and frame.is_file()
    with Image.open(frame) as image:
        assert image.format == "PNG"
    assert hidden_files(tmp_path) == []


def test_a_stale_frame_that_is_a_link_or_a_folder_stays_outside_untouched(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "elsewhere.png"
    victim.write_text("precious")
    (out / "frame_00008.png").symlink_to(victim)  # past the 4 frames written: stale
    (out / "frame_00009.png").mkdir()  # not a frame at all
    result = export_here("--dataset", "or", "--trials", 3, "--out", out, "--quiet")
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "precious"
    assert not os.path.lexists(out / "frame_00008.png")  # the link went, not its target
    assert (out / "frame_00009.png").is_dir()
    assert [p.name for p in frames(out)] == [f"frame_0000{k}.png" for k in range(4)] + [
        "frame_00009.png"
    ]


def test_a_link_planted_among_the_lab_streams_is_not_followed(tmp_path):
    streams = tmp_path / "streams"
    streams.mkdir()
    victim = tmp_path / "elsewhere.csv"
    victim.write_text("precious")
    (streams / "disjunction_n8.csv").symlink_to(victim)
    result = main_here(
        "lab", "--n", 8, "--r", 2, "--examples", 20, "--out", tmp_path / "r.csv",
        "--save-data", streams, "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "precious"
    stream = streams / "disjunction_n8.csv"
    assert not stream.is_symlink() and stream.read_text().startswith("x1,x2,")


def test_a_gif_named_through_a_link_still_writes_the_links_target(tmp_path):
    """A name the user gave is followed, as before: only made-up names are not."""
    (tmp_path / "real").mkdir()
    link = tmp_path / "movie.gif"
    link.symlink_to(tmp_path / "real" / "movie.gif")
    result = export_here(
        "--dataset", "or", "--trials", 2, "--out", tmp_path / "f", "--gif", link, "--quiet"
    )
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and (tmp_path / "real" / "movie.gif").stat().st_size > 0


# -- case 5: folders the file system refuses to look at -----------------------------------------


@pytest.fixture
def unreadable(tmp_path, monkeypatch):
    """A folder whose entries cannot be looked at (EACCES). Root reads any folder, so for
    root the system calls say so, as they would to anyone else."""
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0)
        yield locked
        locked.chmod(0o700)
        return
    inside = str(locked) + os.sep

    def refusing(real):
        def call(path, *args, **kwargs):
            if os.fspath(path).startswith(inside):
                raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
            return real(path, *args, **kwargs)

        return call

    for name in ("stat", "lstat", "mkdir"):
        monkeypatch.setattr(os, name, refusing(getattr(os, name)))
    yield locked


def test_an_out_folder_with_a_name_too_long_is_one_line(tmp_path):
    result = export_here("--dataset", "or", "--trials", 2, "--out", tmp_path / LONG_NAME)
    one_line(result, 2, "--out", "a name in the path is too long")


def test_an_out_folder_inside_an_unreadable_folder_is_one_line(tmp_path, unreadable):
    result = export_here("--dataset", "or", "--trials", 2, "--out", unreadable / "frames")
    one_line(result, 1, "--out", "Permission denied")


def test_lab_save_data_with_a_name_too_long_is_one_line(tmp_path):
    result = main_here(
        "lab", "--n", 8, "--examples", 10, "--out", tmp_path / "r.csv",
        "--save-data", tmp_path / LONG_NAME,
    )  # fmt: skip
    one_line(result, 2, "--save-data", "too long")


def test_lab_save_data_inside_an_unreadable_folder_is_one_line(tmp_path, unreadable):
    result = main_here(
        "lab", "--n", 8, "--examples", 10, "--out", tmp_path / "r.csv",
        "--save-data", unreadable / "streams",
    )  # fmt: skip
    one_line(result, 2, "--save-data", "Permission denied")


def test_an_out_folder_at_a_loop_of_links_says_so(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    result = export_here("--dataset", "or", "--trials", 2, "--out", tmp_path / "a")
    line = one_line(result, 2, "--out", "a loop of symbolic links")
    assert "File exists" not in line


def test_an_out_folder_at_a_link_to_nothing_says_so(tmp_path):
    (tmp_path / "frames").symlink_to(tmp_path / "missing")
    result = export_here("--dataset", "or", "--trials", 2, "--out", tmp_path / "frames")
    one_line(result, 2, "--out", "a symbolic link to nothing")


@pytest.mark.parametrize("folder", ["too long", "unreadable"])
def test_the_export_dialog_says_what_is_wrong_with_the_folder(
    qtbot, tmp_path, unreadable, dialogs, folder
):
    from simulator.export.dialog import ExportDialog
    from simulator.ui import MainWindow

    window = MainWindow(load_preset("or"))
    qtbot.addWidget(window)
    window.install_last_resort()
    try:
        dialog = ExportDialog(window.controller, window)
        qtbot.addWidget(dialog)
        target = tmp_path / LONG_NAME if folder == "too long" else unreadable / "frames"
        dialog.folder.setText(str(target))
        dialog.export_button.click()
        assert dialog.error.text().startswith(f"Cannot write to {target}")
        assert not dialog.exporting and window.last_resort.errors == 0
        assert dialogs.shown == []
    finally:
        window.last_resort.uninstall()
        window.controller.undo_stack.setClean()


# -- small items: weights beyond ±1e150 -----------------------------------------------------------


def test_initial_weights_that_would_overflow_are_refused_in_one_line(tmp_path):
    result = export_here(
        "--dataset", "or", "--trials", 2, "--initial-weights", "1e308,0,0", "--out", tmp_path
    )
    one_line(result, 2, "initial weights must be within ±1e150")
    assert "RuntimeWarning" not in result.stderr and frames(tmp_path) == []
