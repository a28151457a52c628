"""The command line never crashes: one line and an exit status for every failure, a clean
stop on SIGINT and SIGTERM (DESIGN.md, "Never crash").

What only a process shows runs `python main.py` in a subprocess (exit statuses of main.py
itself, no display, signals, a file-size limit); the rest runs `simulator.cli.main` in
this process (tests/export/helpers.py: `export_here`).
"""

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from simulator.cli import parse
from tests.export.helpers import (
    NO_DISPLAY,
    ROOT,
    STARTING,
    export_here,
    frames,
    hidden_files,
    interrupt_exports,
    main_py,
)

PROG = "linear-classifier-lab export: error: "

pytestmark = pytest.mark.usefixtures("qapp")  # exports in this process draw with its Qt


def one_line(result, status, *parts):
    """The result exited with `status` and said so in one line holding every part."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == status, result.stderr
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def unwritable(tmp_path):
    """A folder nobody may create files in (root ignores permissions; not sysfs)."""
    if os.geteuid() == 0:
        return Path("/sys")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


# -- the window without a display -------------------------------------------------------------


def test_the_window_without_a_display_says_so_in_one_line():
    result, qt_loaded = main_py()
    line = one_line(result, 2, "no display", "xvfb-run -a python main.py")
    assert line.startswith("linear-classifier-lab: error: ")
    assert not qt_loaded  # said before Qt loads, not after Qt gave up on the display


@pytest.mark.slow
def test_a_display_qt_cannot_open_is_one_line_too():
    env = {**NO_DISPLAY, "DISPLAY": ":987"}  # no X server there
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py")], capture_output=True, text=True, timeout=60, env=env
    )
    one_line(result, 2, "Qt could not open a window on display ':987'", "xvfb-run")


def test_a_data_file_with_three_coordinates_is_for_the_high_dimensional_view(tmp_path):
    three = tmp_path / "three.csv"
    three.write_text("x1,x2,x3,label\n0,0,0,1\n1,1,1,-1\n")
    assert parse(["--dataset", str(three)]).dataset.dimension == 3  # the window takes it
    result, qt_loaded = main_py("--dataset", three)
    one_line(result, 2, "no display")  # only the display is missing
    assert not qt_loaded


def test_main_py_refuses_a_bad_export_with_status_2_before_loading_qt(tmp_path):
    """The other refusals are checked in this process (`export_here`): here main.py's own
    exit status, and that Qt has not been loaded to say it."""
    result, qt_loaded = main_py(
        "export", "--dataset", "or", "--trials", 3, "--fps", "nan", "--out", tmp_path / "out"
    )
    one_line(result, 2, PROG + "argument --fps: must be 0.1 … 120, not nan")
    assert not qt_loaded and not (tmp_path / "out").exists()


# -- ranges and places, checked before anything is rendered -----------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fps", "1e-9", "--gif", "a.gif"], "--fps: must be 0.1 … 120, not 1e-09"),
        (["--fps", "1e9", "--mp4", "a.mp4"], "--fps: must be 0.1 … 120, not 1e+09"),
        (["--fps", "nan"], "--fps: must be 0.1 … 120, not nan"),
        (["--fps", "inf"], "--fps: must be 0.1 … 120, not inf"),
        (["--trials", "1000000000000"], "--trials: must be at most 1,000,000"),
        (["--until-converged", "--max-trials", "1000001"], "--max-trials: must be at most"),
        (["--trials", "3", "--every", "second"], "invalid choice: 'second'"),
    ],
)
def test_out_of_range_exits_2_before_rendering(tmp_path, args, message):
    if "--trials" not in args and "--until-converged" not in args:
        args = [*args, "--trials", "3"]
    result = export_here("--dataset", "or", "--out", tmp_path / "out", *args, cwd=tmp_path)
    one_line(result, 2, message)
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.glob("*.gif")) and not list(tmp_path.glob("*.mp4"))


@pytest.mark.parametrize("kind", ["gif", "mp4"])
def test_an_animation_named_like_a_folder_exits_1_before_rendering(tmp_path, kind):
    (tmp_path / f"taken.{kind}").mkdir()
    result = export_here(
        "--dataset", "or", "--trials", 3, "--out", tmp_path / "out",
        f"--{kind}", tmp_path / f"taken.{kind}",
    )  # fmt: skip
    one_line(result, 1, f"--{kind} {tmp_path / f'taken.{kind}'}: is a folder")
    assert not frames(tmp_path / "out") and hidden_files(tmp_path) == []


@pytest.mark.parametrize("kind", ["gif", "mp4"])
def test_an_animation_at_a_pipe_exits_2_and_the_pipe_stays(tmp_path, kind):
    pipe = tmp_path / f"pipe.{kind}"
    os.mkfifo(pipe)
    result = export_here(
        "--dataset", "or", "--trials", 3, "--out", tmp_path / "out", f"--{kind}", pipe
    )  # fmt: skip
    one_line(result, 2, f"--{kind} {pipe}: is not a regular file (it is a pipe)")
    assert pipe.is_fifo() and not frames(tmp_path / "out")


def test_an_animation_through_a_link_writes_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    link = tmp_path / "movie.gif"
    link.symlink_to(tmp_path / "real" / "movie.gif")
    result = export_here("--dataset", "or", "--trials", 3, "--out", tmp_path / "out", "--gif", link)
    assert result.returncode == 0, result.stderr
    with Image.open(tmp_path / "real" / "movie.gif") as gif:
        assert gif.format == "GIF" and gif.size == (1280, 720)
    assert link.is_symlink()
    assert hidden_files(tmp_path) == [] and hidden_files(tmp_path / "real") == []


def test_a_pipe_among_the_frames_is_refused_and_stays(tmp_path):
    (tmp_path / "out").mkdir()
    pipe = tmp_path / "out" / "frame_00002.png"
    os.mkfifo(pipe)
    result = export_here("--dataset", "or", "--trials", 3, "--out", tmp_path / "out")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "frame_00002.png" in lines[-1] and "not a regular file" in lines[-1]
    assert pipe.is_fifo()


def test_an_animation_in_an_unwritable_folder_exits_1_before_rendering(tmp_path, unwritable):
    result = export_here(
        "--dataset", "or", "--trials", 3, "--out", tmp_path / "out", "--gif", unwritable / "a.gif"
    )
    one_line(result, 1, f"--gif {unwritable / 'a.gif'}: the folder {unwritable} is not writable")
    assert not frames(tmp_path / "out")


def test_an_unwritable_out_folder_exits_1(tmp_path, unwritable):
    result = export_here("--dataset", "or", "--trials", 3, "--out", unwritable / "frames")
    one_line(result, 1, f"--out {unwritable / 'frames'}: ")


# -- a full disk while writing -----------------------------------------------------------------


def _file_size_limit(limit):
    """Files larger than `limit` bytes fail to write with EFBIG, as on a full disk."""

    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _export_with_limit(limit, *args):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "export", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=NO_DISPLAY,
        preexec_fn=_file_size_limit(limit),
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("limit", "kind", "reason"),
    [
        (5_000, "png", "frame_00000.png: File too large"),  # not "canceled by application"
        (60_000, "gif", "a.gif: File too large"),
        (60_000, "mp4", "a.mp4: ffmpeg stopped"),
    ],
)
def test_a_full_disk_exits_1_with_one_line_and_leaves_no_temporary_file(
    tmp_path, limit, kind, reason
):
    extra = [] if kind == "png" else [f"--{kind}", tmp_path / f"a.{kind}"]
    result = _export_with_limit(
        limit, "--dataset", "noisy", "--trials", 150, "--size", "320x240", "--quiet",
        "--out", tmp_path, *extra,
    )  # fmt: skip
    one_line(result, 1, PROG + "cannot write", reason)
    assert hidden_files(tmp_path) == []
    assert not (tmp_path / f"a.{kind}").exists()
    for path in frames(tmp_path):  # the frames written before the failure are whole
        with Image.open(path) as image:
            image.load()


# -- SIGINT and SIGTERM --------------------------------------------------------------------------


@pytest.mark.slow
def test_sigint_and_sigterm_stop_an_export_cleanly(tmp_path):
    """SIGINT while Qt loads, SIGTERM once frame 17 is written (while frames, the GIF and
    the MP4 are being written); tests/benchmarks/test_export_benchmarks.py runs forty at
    random moments."""
    plans = [(signal.SIGINT, STARTING), (signal.SIGTERM, 17)]
    problems, interrupted = interrupt_exports(tmp_path, plans, parallel=2)
    assert problems == []
    assert interrupted == 2  # neither had finished: 43 frames, the GIF and the MP4 were left
    assert len(frames(tmp_path / "run1" / "f")) >= 18  # what was written stays


@pytest.mark.parametrize(
    ("environ", "platform", "refused"),
    [
        ({}, "linux", True),
        ({"DISPLAY": ":0"}, "linux", False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),  # the user chose a platform
        ({}, "freebsd14", True),
        ({}, "darwin", False),  # macOS and Windows always have their own display
        ({}, "win32", False),
    ],
)
def test_which_machines_have_no_display(environ, platform, refused):
    from simulator.cli import display_problem

    problem = display_problem(environ, platform)
    assert (problem is not None) == refused
    if refused:
        assert "xvfb-run" in problem
