"""`python main.py lab`: through `simulator.cli.main` in this process (`main_here`), and in a
subprocess with no display for what only a process shows (Qt not loaded, SIGINT)."""

import csv
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from simulator.engine import load_dataset
from simulator.engine.lab import disjunction_stream, hidden_disjunction, race
from tests.export.helpers import NO_DISPLAY, ROOT, main_here

pytestmark = pytest.mark.usefixtures("qapp")  # --plot draws with this process's Qt


def lab(*args, cwd=None):
    return main_here("lab", *args, cwd=cwd)


def test_csv_plot_and_streams_agree_with_the_engine(tmp_path):
    out, plot, data = tmp_path / "results.csv", tmp_path / "fig.png", tmp_path / "streams"
    result = lab(
        "--n",
        "8,32,128",
        "--r",
        2,
        "--examples",
        300,
        "--seed",
        7,
        "--out",
        out,
        "--plot",
        plot,
        "--save-data",
        data,
    )
    assert result.returncode == 0, result.stderr
    assert "n = 128" in result.stderr  # progress goes to stderr
    with out.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["n", "rule", "mistakes", "bound"]
    assert [(r["n"], r["rule"]) for r in rows] == [
        (str(n), rule) for n in (8, 32, 128) for rule in ("perceptron", "winnow", "balanced-winnow")
    ]
    for n in (8, 32, 128):
        stream = disjunction_stream(n, 2, 300, 7)
        saved = load_dataset(data / f"disjunction_n{n}.csv")
        assert saved == stream  # x1…xn, label: reloads to the very same stream
        # Until converged, the lab's default.
        expected = race(stream, variables=hidden_disjunction(n, 2, 7), until_converged=True)
        got = [r for r in rows if r["n"] == str(n)]
        for row, result_ in zip(got, expected, strict=True):
            assert int(row["mistakes"]) == result_.mistakes
            assert (float(row["bound"]) if row["bound"] else None) == result_.bound
    with Image.open(plot) as image:
        assert image.size == (1280, 720)
        pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
    packed = (pixels[:, 0].astype(np.uint32) << 16) | (pixels[:, 1].astype(np.uint32) << 8)
    colours, counts = np.unique(packed | pixels[:, 2], return_counts=True)  # axis=0 took 1 s
    assert len(colours) > 50 and counts.max() < 0.97 * len(pixels)  # not blank
    # The rules' colours are there: vermillion (perceptron) and blue (Winnow).
    for rgb in ((0xD5, 0x5E, 0x00), (0x00, 0x72, 0xB2)):
        assert np.any(np.all(np.abs(pixels.astype(int) - rgb) < 8, axis=1))


def test_exact_adds_the_exact_bound_column(tmp_path):
    out = tmp_path / "r.csv"
    result = lab("--n", "6", "--examples", 80, "--exact", "--quiet", "--out", out)
    assert result.returncode == 0 and result.stderr == ""
    with out.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["n", "rule", "mistakes", "bound", "exact_bound"]
    perceptron = next(r for r in rows if r["rule"] == "perceptron")
    assert int(perceptron["mistakes"]) <= float(perceptron["exact_bound"])
    assert float(perceptron["exact_bound"]) <= float(perceptron["bound"]) * (1 + 1e-9)
    assert next(r for r in rows if r["rule"] == "winnow")["exact_bound"] == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--n", "8,x"), "each n must be a whole number"),
        (("--n", "8,8"), "each n once"),
        (("--n", "1", "--r", "2"), "need n ≥ r"),
        (("--r", "0"), "at least 1 relevant"),
        (("--examples", "0"), "number of examples"),
        (("--n", "100000", "--examples", "1000"), "at most 25,000,000"),
        (("--rules", "perceptron,adaline"), "mistake-driven"),
        (("--seed", "-3"), "--seed must be 0 … 2147483647, not -3"),
        (("--seed", "2147483648"), "--seed must be 0 … 2147483647"),
        (("--plot", "fig.jpg"), "must end in .png"),
        (("--plot", "missing/fig.png"), "no such folder"),
    ],
)
def test_bad_arguments_exit_2_with_one_line_before_any_work(tmp_path, args, message):
    result = lab(*args, "--out", "results.csv", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_bad_output_paths_exit_2(tmp_path):
    (tmp_path / "afile").write_text("")
    for args, message in (
        (("--out", tmp_path), "is a folder"),
        (("--out", tmp_path / "no" / "r.csv"), "no such folder"),
        (("--out", tmp_path / "r.csv", "--save-data", tmp_path / "afile"), "not a folder"),
    ):
        result = lab("--n", "8", *args)
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1


def test_a_failed_write_exits_1_with_one_line(tmp_path):
    data = tmp_path / "streams"
    (data / "disjunction_n8.csv").mkdir(parents=True)  # a folder where the stream should go
    result = lab("--n", "8", "--examples", 20, "--out", tmp_path / "r.csv", "--save-data", data)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("linear-classifier-lab lab: error:")
    assert "disjunction_n8.csv" in result.stderr and "Traceback" not in result.stderr
    assert [p.name for p in data.iterdir()] == ["disjunction_n8.csv"]  # no temporary left


def test_bad_arguments_are_found_without_loading_qt():
    code = (
        "import sys\n"
        "from simulator.cli import parse\n"
        "try:\n"
        "    parse(['lab', '--n', '8,x', '--out', 'r.csv'])\n"
        "except SystemExit as exc:\n"
        "    qt = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]\n"
        "    print(exc.code, qt)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "2 []"


def test_sigint_stops_the_lab_between_mistakes_and_writes_no_results(tmp_path):
    out = tmp_path / "r.csv"
    args = ["lab", "--n", "8,4096", "--examples", "6000", "--out", out]
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), *map(str, args), "--save-data", tmp_path / "s"],
        stderr=subprocess.PIPE,
        text=True,
        env=NO_DISPLAY,
    )
    first = process.stderr.readline()  # n = 8 has finished: the n = 4096 race is under way
    assert "n = 8:" in first
    process.send_signal(signal.SIGINT)
    rest = process.communicate(timeout=120)[1]
    assert process.returncode == 130
    assert rest.strip().splitlines()[-1] == (
        "linear-classifier-lab lab: stopped; the files written so far are whole"
    )
    assert not out.exists()
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["disjunction_n8.csv"]


def test_a_pipe_is_refused_and_a_link_followed(tmp_path):
    pipe = tmp_path / "pipe.csv"
    os.mkfifo(pipe)
    for args in (("--out", pipe), ("--out", tmp_path / "r.csv", "--plot", tmp_path / "p.png")):
        if "--plot" in args:
            os.mkfifo(tmp_path / "p.png")
        result = lab("--n", "8", "--examples", 20, *args)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "is not a regular file (it is a pipe)" in result.stderr
    assert pipe.is_fifo() and (tmp_path / "p.png").is_fifo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png", "pipe.csv"]
    (tmp_path / "kept").mkdir()
    link = tmp_path / "results.csv"
    link.symlink_to(tmp_path / "kept" / "r.csv")
    assert lab("--n", "8", "--examples", 20, "--out", link).returncode == 0
    assert link.is_symlink() and (tmp_path / "kept" / "r.csv").read_text().startswith("n,rule")
