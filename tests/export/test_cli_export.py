"""`python main.py export`: once in a subprocess with no display at all (frames, GIF, MP4,
and the same pixels as this process draws), the rest through `simulator.cli.main` in this
process (tests/export/helpers.py: `export_here`)."""

import sys

import numpy as np
import pytest
from PIL import Image

from simulator.engine import Simulation, load_preset
from tests.export.helpers import export, export_here, frames, pixels

pytestmark = pytest.mark.usefixtures("qapp")  # exports in this process draw with its Qt

SAME_RUN = (
    "--dataset", "separable", "--algorithm", "perceptron", "--order", "random", "--seed", 3,
    "--trials", 12, "--size", "640x360",
)  # fmt: skip


@pytest.fixture(scope="module")
def no_display_run(tmp_path_factory):
    """One export with GIF and MP4 by `python main.py export`, with no display at all."""
    folder = tmp_path_factory.mktemp("no-display")
    result = export(
        *SAME_RUN, "--out", folder / "frames", "--gif", folder / "run.gif",
        "--mp4", folder / "run.mp4", "--fps", 4,
    )  # fmt: skip
    return folder, result


def test_frames_gif_and_mp4_with_no_display(no_display_run):
    tmp_path, result = no_display_run
    assert result.returncode == 0, result.stderr
    paths = frames(tmp_path / "frames")
    assert [p.name for p in paths[:2]] == ["frame_00000.png", "frame_00001.png"]
    assert len(paths) == 13  # the initial state and one per trial
    assert pixels(paths[0]).shape == (360, 640, 3)
    with Image.open(tmp_path / "run.gif") as gif:
        assert gif.n_frames == 13 and gif.size == (640, 360)
        assert gif.info["duration"] == 250 and gif.info["loop"] == 0
    import imageio_ffmpeg

    count, seconds = imageio_ffmpeg.count_frames_and_secs(str(tmp_path / "run.mp4"))
    assert count == 13 and seconds == pytest.approx(13 / 4, abs=0.3)
    assert "Wrote 13 PNG frames" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frames", "run.gif", "run.mp4"]


def test_frames_change_where_the_line_moves(tmp_path):
    result = export_here(
        "--dataset", "or", "--trials", 8, "--out", tmp_path, "--size", "320x240", "--quiet"
    )
    assert result.returncode == 0, result.stderr
    sim = Simulation(load_preset("or"))
    updated = [sim.step().updated for _ in range(8)]  # t1, t2, t3 and t5 update (by hand)
    images = [pixels(p) for p in frames(tmp_path)]
    for t in range(1, 9):
        changed_pixels = np.count_nonzero(np.any(images[t] != images[t - 1], axis=2))
        assert changed_pixels > 0  # the numbers and the highlighted point change every trial
        if updated[t - 1]:
            assert changed_pixels > 2000  # the line itself moved
    assert result.stderr == ""  # --quiet


def test_same_arguments_give_the_same_pixels(no_display_run, tmp_path):
    """Here, after whatever this process drew before, and in a fresh process with no
    display: the same frames, pixel for pixel."""
    folder, result = no_display_run
    assert result.returncode == 0, result.stderr
    assert export_here(*SAME_RUN, "--out", tmp_path, "--quiet").returncode == 0
    a, b = frames(folder / "frames"), frames(tmp_path)
    assert len(a) == len(b) == 13
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(pixels(x), pixels(y)), x.name


@pytest.mark.parametrize("rule", ["perceptron", "winnow", "balanced-winnow", "adaline"])
def test_every_rule_exports_until_converged(tmp_path, rule):
    result = export_here(
        "--dataset",
        "or",
        "--algorithm",
        rule,
        "--until-converged",
        "--max-trials",
        60,
        "--out",
        tmp_path,
        "--size",
        "320x240",
    )
    assert result.returncode == 0, result.stderr
    sim = Simulation(load_preset("or"), rule)
    ran = sim.run(60)
    assert len(frames(tmp_path)) == ran + 1
    if sim.converged:
        assert f"converged at trial {sim.converged_at}" in result.stderr


def test_a_csv_file_and_learner_options(tmp_path):
    data = tmp_path / "points.csv"
    data.write_text("x1,x2,label\n0,0,0\n1,1,1\n2,0,1\n-1,2,0\n")
    result = export_here(
        "--dataset",
        data,
        "--algorithm",
        "adaline",
        "--learning-rate",
        0.05,
        "--mode",
        "batch",
        "--no-bias",
        "--preprocessing",
        "standardize",
        "--trials",
        8,
        "--out",
        tmp_path / "f",
        "--size",
        "320x240",
    )
    assert result.returncode == 0, result.stderr
    assert len(frames(tmp_path / "f")) == 9


def test_a_rerun_into_the_same_folder_removes_stale_frames(tmp_path):
    assert (
        export_here(
            "--dataset", "or", "--trials", 10, "--out", tmp_path, "--size", "200x150", "--quiet"
        ).returncode
        == 0
    )
    (tmp_path / "notes.txt").write_text("mine")
    assert (
        export_here(
            "--dataset", "or", "--trials", 3, "--out", tmp_path, "--size", "200x150", "--quiet"
        ).returncode
        == 0
    )
    assert len(frames(tmp_path)) == 4 and (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dataset", "circles", "--trials", 3], "unknown dataset 'circles'"),
        (["--dataset", "or", "--algorithm", "svm", "--trials", 3], "invalid choice: 'svm'"),
        (["--dataset", "BAD", "--trials", 3], "bad.csv, line 3: 'x' in column 'x2'"),
        (["--dataset", "or", "--trials", 0], "--trials: must be at least 1"),
        (["--dataset", "or", "--trials", -4], "--trials: must be at least 1"),
        (["--dataset", "or", "--trials", 3, "--size", "huge"], "is not WIDTHxHEIGHT"),
        (["--dataset", "or", "--trials", 3, "--size", "10x10"], "must be 64..7680"),
        (["--dataset", "or", "--trials", 3, "--out", "FILE"], "exists and is not a folder"),
        (["--dataset", "or", "--trials", 3, "--out", "FILE/sub"], "cannot create the folder"),
        (["--dataset", "or", "--trials", 3, "--gif", "x.png"], "must end in .gif"),
        (
            ["--dataset", "or", "--trials", 3, "--mp4", "x.mp4", "--size", "641x360"],
            "even width and height",
        ),
        (
            ["--dataset", "or", "--learning-rate", 0, "--trials", 3],
            "η must be a finite number with η ≥ 1e-100",
        ),
        (
            ["--dataset", "or", "--algorithm", "winnow", "--promotion", 1, "--trials", 3],
            "α must be a finite number with α > 1",
        ),
        (["--dataset", "or", "--fps", 0, "--trials", 3], "--fps: must be 0.1 … 120, not 0"),
        (
            ["--dataset", "or", "--seed", 2**31, "--trials", 3],
            "argument --seed: must be 0 … 2147483647, not 2147483648",
        ),
        (["--dataset", "or", "--seed", -1, "--trials", 3], "--seed: must be 0 … 2147483647"),
        (
            ["--dataset", "or", "--algorithm", "perceptron", "--alpha", "nan", "--trials", 3],
            "argument --promotion/--alpha: the promotion factor α must be a finite number",
        ),
        (
            ["--dataset", "or", "--algorithm", "adaline", "--theta", "0", "--trials", 3],
            "argument --threshold/--theta: the threshold θ must be a finite number",
        ),
        (["--dataset", "or", "--trials", 3, "--out", ""], "argument --out: an empty path"),
        (["--dataset", "or", "--trials", 3, "--gif", ""], "argument --gif: an empty path"),
        (["--dataset", "or"], "one of the arguments --trials --until-converged is required"),
        (["--trials", 3], "export needs --dataset"),
        (["--dataset", "THREE_D", "--trials", 3], "frames show 2-D data"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(tmp_path, args, message):
    bad = tmp_path / "bad.csv"
    bad.write_text("x1,x2,label\n0,0,1\n1,x,1\n")
    three = tmp_path / "three.csv"
    three.write_text("x1,x2,x3,label\n0,0,0,1\n")
    (tmp_path / "FILE").write_text("")  # nobody, not even root, makes a folder inside a file
    replace = {
        "BAD": bad,
        "THREE_D": three,
        "FILE": tmp_path / "FILE",
        "FILE/sub": tmp_path / "FILE" / "sub",
    }
    args = [replace.get(a, a) for a in args]
    if "--out" not in args:
        args += ["--out", tmp_path / "out"]
    result = export_here(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert message in lines[0]
    assert not frames(tmp_path / "out")


def test_missing_imageio_ffmpeg_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # `import` raises ImportError
    result = export_here(
        "--dataset", "or", "--trials", 2, "--out", tmp_path / "o", "--mp4", tmp_path / "a.mp4"
    )
    assert result.returncode == 2
    assert "pip install 'linear-classifier-lab[mp4]'" in result.stderr


def _trial_numbers(rule_events, trials):
    """The trial numbers after which `rule_events(trial)` holds, stepping the OR preset."""
    sim = Simulation(load_preset("or"))
    return [t.number for t in (sim.step() for _ in range(trials)) if rule_events(t)]


EVERY_RUN = ("--dataset", "or", "--trials", 24, "--size", "240x180", "--quiet")


@pytest.fixture(scope="module")
def every_trial_frames(qapp, tmp_path_factory):
    """The frames of EVERY_RUN taken after every trial."""
    folder = tmp_path_factory.mktemp("every-trial")
    assert export_here(*EVERY_RUN, "--out", folder).returncode == 0
    return frames(folder)


@pytest.mark.parametrize(
    ("every", "taken_after"),
    [
        ("mistake", lambda trial: trial.mistake),
        ("epoch", lambda trial: trial.number % 4 == 0),  # OR has 4 points: an epoch is 4 trials
    ],
)
def test_every_mistake_or_epoch_takes_those_frames_of_the_whole_run(
    tmp_path, every_trial_frames, every, taken_after
):
    result = export_here(*EVERY_RUN, "--every", every, "--out", tmp_path / every)
    assert result.returncode == 0, result.stderr
    after = _trial_numbers(taken_after, 24)
    assert len(after) == (9 if every == "mistake" else 6)  # OR: k = 9 by trial 24 (by hand)
    every_trial, chosen = every_trial_frames, frames(tmp_path / every)
    assert len(every_trial) == 25 and len(chosen) == 1 + len(after)  # frame 0: the start
    for frame, trial in zip(chosen, [0, *after], strict=True):
        assert np.array_equal(pixels(frame), pixels(every_trial[trial])), (frame.name, trial)


def test_every_epoch_until_converged_ends_with_the_converged_epoch(tmp_path):
    result = export_here(
        "--dataset", "or", "--until-converged", "--every", "epoch", "--out", tmp_path,
        "--size", "240x180",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(frames(tmp_path)) == 1 + 24 // 4  # converged at trial 24, the end of epoch 6
    assert "converged at trial 24" in result.stderr and "warning" not in result.stderr


def test_until_converged_warns_when_the_cap_stops_it(tmp_path):
    result = export_here(
        "--dataset", "noisy", "--until-converged", "--max-trials", 12, "--out", tmp_path,
        "--size", "200x150", "--quiet",
    )  # fmt: skip
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        "linear-classifier-lab export: warning: stopped at the cap of 12 trials without "
        "converging (raise --max-trials, or use --trials N)"
    ]
    assert len(frames(tmp_path)) == 13


def test_until_converged_ends_where_the_run_is_found_repeating_itself(tmp_path):
    from simulator.engine import Simulation, load_preset

    sim = Simulation(load_preset("xor"))
    sim.run(10_000)
    assert sim.cycle_found_at == 4  # the perceptron's updates on xor cancel over epoch 1
    result = export_here(
        "--dataset", "xor", "--until-converged", "--max-trials", 10_000, "--every", "epoch",
        "--out", tmp_path, "--size", "200x150",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(frames(tmp_path)) == 1 + sim.cycle_found_at // 4
    assert f"found at trial {sim.cycle_found_at}): no line separates" in result.stderr
    assert "warning" not in result.stderr


def test_kesslers_epochs_are_its_vectors_and_frames_follow_them(tmp_path):
    result = export_here(
        "--dataset", "blobs3", "--algorithm", "kessler", "--trials", 3 * 2 * 45,
        "--every", "epoch", "--out", tmp_path, "--size", "200x150",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(frames(tmp_path)) == 1 + 3  # blobs3: 45 points, K − 1 = 2 vectors each


@pytest.mark.slow  # a 61-frame GIF at 640x360
def test_the_gif_is_small_and_shows_the_frames(tmp_path):
    result = export_here(
        "--dataset", "separable", "--trials", 60, "--out", tmp_path / "f", "--size", "640x360",
        "--gif", tmp_path / "run.gif", "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    pngs = frames(tmp_path / "f")
    png_bytes = sum(p.stat().st_size for p in pngs)
    gif_bytes = (tmp_path / "run.gif").stat().st_size
    # One palette and only the changed rectangle per frame: 196 kB here, where whole
    # frames made 1 MB.
    assert gif_bytes < png_bytes / 8, (gif_bytes, png_bytes)
    with Image.open(tmp_path / "run.gif") as gif:
        assert gif.n_frames == 61 and gif.info["loop"] == 0
        for index in (0, 1, 30, 60):
            gif.seek(index)
            shown = np.asarray(gif.convert("RGB"), dtype=np.int16)
            drawn = pixels(pngs[index]).astype(np.int16)
            error = np.abs(shown - drawn).max(axis=2)
            assert error.mean() < 0.5 and np.mean(error > 24) < 0.001, index


def test_explain_paints_the_arithmetic_in_readable_lines_under_the_plot(tmp_path):
    result = export_here(
        "--dataset", "or", "--trials", 1, "--explain", "--out", tmp_path, "--quiet"
    )  # trial 1 on OR is a mistake with an update: three lines (trial, score, update)
    assert result.returncode == 0, result.stderr
    image = pixels(frames(tmp_path)[1])
    assert image.shape == (720, 1280, 3)
    strip_top, bands, _ = _text_bands(image)
    assert len(bands) == 3 and min(bands) >= 12, bands  # three lines of text, 12+ px tall
    assert 60 <= 720 - strip_top <= 110


def _text_bands(image):
    """The strip's top row (it is grey to its top edge, then the plot's white begins), the
    heights of its lines of text (rows of ink), and whether the last one ends before the
    frame's bottom edge."""
    strip_top = image.shape[0] - next(
        row for row in range(1, 300) if not np.array_equal(image[-row, 0], image[-1, 0])
    )
    ink = (image[strip_top + 2 :].min(axis=2) < 100).any(axis=1)
    bands, start = [], None
    for row, inked in enumerate([*ink, False]):
        if inked and start is None:
            start = row
        elif not inked and start is not None:
            bands.append(row - start)
            start = None
    return strip_top, bands, not ink[-1]


def test_explain_gives_the_kernel_perceptrons_fourth_line_its_room(tmp_path):
    """Its trial's f(x) with its terms and K_b's formula wraps: four lines, the last one
    whole (a helper session found it cut at the frame's bottom edge)."""
    result = export_here(
        "--dataset", "xor", "--algorithm", "kernel-perceptron", "--kernel", "rbf",
        "--sigma", 0.5, "--trials", 4, "--explain", "--out", tmp_path, "--quiet",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    _, bands, whole = _text_bands(pixels(frames(tmp_path)[4]))
    assert len(bands) == 4 and min(bands) >= 12 and whole, bands


def test_legend_draws_the_plot_legend_in_the_plot(tmp_path):
    common = ("--dataset", "or", "--trials", 2, "--size", "640x360", "--quiet")
    assert export_here(*common, "--out", tmp_path / "plain").returncode == 0
    assert export_here(*common, "--legend", "--out", tmp_path / "legend").returncode == 0
    for plain, legend in zip(frames(tmp_path / "plain"), frames(tmp_path / "legend"), strict=True):
        a, b = pixels(plain), pixels(legend)
        rule = np.flatnonzero((a == a[:, :1]).all(axis=(1, 2)) & (a[:, 0, 0] < 255))[0]
        assert 50 < rule < 120  # the line under the header of numbers
        assert np.array_equal(a[: rule + 1], b[: rule + 1])  # the numbers stay as they were
        corner = np.any(a[rule + 1 : rule + 150, :320] != b[rule + 1 : rule + 150, :320], axis=2)
        assert corner.sum() > 500  # a box naming the glyphs, in the plot's top-left corner


def test_tie_reaches_the_learner_of_the_export(tmp_path):
    from simulator.cli import parse

    command = parse(["export", "--dataset", "or", "--trials", "3", "--tie", "negative",
                     "--out", str(tmp_path / "f")])  # fmt: skip
    assert command.settings.tie == "negative"
    assert Simulation.from_settings(command.dataset, command.settings).tie == "negative"
    result = export_here(
        "--dataset", "or", "--trials", 3, "--tie", "positive", "--out", tmp_path / "g",
        "--size", "240x180", "--quiet",
    )  # fmt: skip
    assert result.returncode == 0 and len(frames(tmp_path / "g")) == 4
    bad = export_here("--dataset", "or", "--trials", 3, "--tie", "zero", "--out", tmp_path / "h")
    assert bad.returncode == 2 and "--tie: invalid choice: 'zero'" in bad.stderr
