"""`python main.py lesson --list | NAME | FILE` and `python main.py export --lesson NAME`:
the list, a bad lesson in one line (exit 2, before any window or Qt), and slides: one PNG
per step with the step's text under the plot, and a GIF of them."""

import numpy as np
import pytest
from PIL import Image

from simulator.engine.lessons import SHIPPED, load_lesson, play
from simulator.export.slides import SlideRenderer
from tests.export.helpers import export_here, frames, main_here, main_py, pixels

pytestmark = pytest.mark.usefixtures("qapp")  # exports in this process draw with its Qt

BAD = (
    '[lesson]\ntitle = "T"\n[[step]]\ntext = "a"\ndata = "or"\n'
    '[[step]]\ntext = "b"\ngoto = "epoch:x"\n'
)


def test_lesson_list_names_each_shipped_lesson_with_its_title():
    result = main_here("lesson", "--list")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"{n}: {load_lesson(n).title}" for n in SHIPPED]


def test_lesson_list_needs_no_display_and_no_qt():
    result, qt = main_py("lesson", "--list")
    assert result.returncode == 0 and not qt
    assert result.stdout.splitlines()[0] == f"{SHIPPED[0]}: {load_lesson(SHIPPED[0]).title}"


def test_a_bad_lesson_file_exits_2_with_one_line_before_any_window(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD, encoding="utf-8")
    result, qt = main_py("lesson", path)  # no display: the file is checked first
    assert result.returncode == 2 and not qt
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "bad.toml: step 2: goto" in lines[0] and "epoch:x" in lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["lesson"], "name a lesson"),
        (["lesson", "no-such-lesson"], "no lesson called 'no-such-lesson'"),
        (["lesson", "--list", "and-gate"], "give --list or a lesson, not both"),
        (["lesson", "missing.toml"], "missing.toml"),
        (["export", "--lesson", "and-gate", "--out", "OUT", "--dataset", "or"], "--dataset"),
        (["export", "--lesson", "and-gate", "--out", "OUT", "--trials", 3], "--trials"),
        (
            ["export", "--lesson", "and-gate", "--out", "OUT", "--algorithm", "winnow"],
            "--algorithm",
        ),
        (["export", "--lesson", "BAD", "--out", "OUT"], "step 2: goto"),
        (["export", "--lesson", "and-gate", "--out", "OUT", "--gif", "x.png"], "must end in .gif"),
    ],
)
def test_bad_lesson_arguments_exit_2_with_one_line(tmp_path, args, message):
    (tmp_path / "bad.toml").write_text(BAD, encoding="utf-8")
    fill = {"OUT": tmp_path / "out", "BAD": tmp_path / "bad.toml"}
    result = main_here(*(fill.get(a, a) for a in args), cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not list(tmp_path.glob("out/*.png"))  # nothing drawn


def test_slides_one_png_per_step_with_the_text_under_the_plot(tmp_path):
    lesson = load_lesson("cmu-worked-example")
    states = play(lesson)
    result = export_here(
        "--lesson", "cmu-worked-example", "--out", tmp_path / "s", "--gif", tmp_path / "s.gif",
        "--size", "640x360", "--fps", 1,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    paths = frames(tmp_path / "s")
    assert len(paths) == len(states)
    images = [pixels(p) for p in paths]
    assert all(image.shape == (360, 640, 3) for image in images)
    renderer = SlideRenderer(lesson, states, 640, 360)
    band = renderer.band
    renderer.close()
    assert 0.1 * 360 < band <= 0.45 * 360
    for image in images:
        text = image[360 - band :]
        assert np.count_nonzero(text.max(axis=2) < 90) > 200  # dark type in the band
    # Steps with other texts differ in the band; the plot above moves with the run.
    assert not np.array_equal(images[0][360 - band :], images[1][360 - band :])
    assert not np.array_equal(images[1][: 360 - band], images[2][: 360 - band])
    with Image.open(tmp_path / "s.gif") as gif:
        assert gif.n_frames == len(states) and gif.size == (640, 360)
    assert f"wrote {len(states)} slides" in result.stderr


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_lesson_exports_as_slides(tmp_path, name):
    result = export_here("--lesson", name, "--out", tmp_path, "--size", "400x300", "--quiet")
    assert result.returncode == 0, result.stderr
    assert len(frames(tmp_path)) == len(load_lesson(name).steps)
    assert result.stderr == ""


def test_a_lesson_file_exports_and_a_rerun_removes_stale_slides(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        '[lesson]\ntitle = "Mine"\n[[step]]\ntext = "k = {k}"\ndata = "or"\n'
        '[[step]]\ntext = "k = {k}"\ngoto = "converged"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert export_here("--dataset", "or", "--trials", 5, "--out", out, "--quiet").returncode == 0
    assert export_here("--lesson", path, "--out", out, "--quiet").returncode == 0
    assert len(frames(out)) == 2
