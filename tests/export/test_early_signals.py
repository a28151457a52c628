"""SIGINT and SIGTERM at any moment once main.py runs (issue 21, case 7): the handlers are
in place before the heavy imports, so a signal while NumPy, SciPy or Qt load ends the
program with one line and 130 or 143, never a traceback; and `lab --exact` stops in its
exact part too."""

import os
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.export.helpers import NO_DISPLAY, ROOT, main_here

# main.py run as a script, telling on stdout whether SIGTERM was already caught when the
# first heavy module began to load.
_WHEN_NUMPY_LOADS = """
import runpy, signal, sys

class Watch:
    seen = False
    def find_spec(self, name, path=None, target=None):
        if name in ("numpy", "scipy", "PySide6") and not Watch.seen:
            Watch.seen = True
            caught = signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
            print(f"{name} loads; SIGTERM caught: {caught}", flush=True)
        return None

sys.meta_path.insert(0, Watch())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("command", [["export", "--help"], ["lab", "--help"], ["--help"]])
def test_the_handlers_are_in_place_before_the_heavy_imports(command):
    result = subprocess.run(
        [sys.executable, "-c", _WHEN_NUMPY_LOADS, str(ROOT / "main.py"), *command],
        capture_output=True,
        text=True,
        timeout=120,
        env=NO_DISPLAY,
    )
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == "numpy loads; SIGTERM caught: True", result.stdout


@pytest.mark.usefixtures("qapp")
@pytest.mark.parametrize(
    ("signum", "command"),
    [
        (signal.SIGINT, ["export", "--trials", 3, "--out"]),
        (signal.SIGTERM, ["export", "--trials", 3, "--out"]),
        (signal.SIGTERM, ["lab", "--n", 8, "--examples", 10, "--out"]),
    ],
)
def test_a_signal_while_the_arguments_are_read_stops_with_one_line(
    tmp_path, monkeypatch, signum, command
):
    from simulator.cli import commands

    real = commands.resolve_dataset if command[0] == "export" else commands.lab_options

    def signalled(*args):
        os.kill(os.getpid(), signum)  # arrives while the data load
        return real(*args)

    name = "resolve_dataset" if command[0] == "export" else "lab_options"
    monkeypatch.setattr(commands, name, signalled)
    data = ["--dataset", "or"] if command[0] == "export" else []
    target = tmp_path / ("frames" if command[0] == "export" else "r.csv")
    result = main_here(command[0], *data, *command[1:], target)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 128 + signum, result.stderr
    assert len(lines) == 1 and f"stopped by {signal.Signals(signum).name}" in lines[0]
    assert not target.exists() or not any(target.iterdir())


def _caught_sigterm(pid):
    """Whether process `pid` catches SIGTERM (its handler is installed): /proc's SigCgt."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


def _start(args):
    return subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), *map(str, args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=NO_DISPLAY,
    )


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("command", ["export", "lab"])
def test_a_signal_as_soon_as_the_handlers_are_in_stops_with_one_line(tmp_path, signum, command):
    """Sent the moment the handlers are in (the heavy imports are still ahead), several
    times: each run ends with one line and 128 + the signal."""
    args = {
        "export": ["export", "--dataset", "noisy", "--trials", 50, "--size", "320x240",
                   "--out", tmp_path / "f", "--gif", tmp_path / "a.gif", "--quiet"],
        "lab": ["lab", "--n", "8,32", "--examples", 200, "--out", tmp_path / "r.csv"],
    }[command]  # fmt: skip
    for _ in range(3):
        process = _start(args)
        while not _caught_sigterm(process.pid):  # polled: the process has no other sign
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.001)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=120)
        lines = stderr.strip().splitlines()
        assert process.returncode == 128 + signum, stderr
        assert len(lines) == 1 and "Traceback" not in stderr and "PyCapsule" not in stderr
        assert not (tmp_path / "a.gif").exists()


@pytest.mark.slow
def test_lab_exact_stops_on_sigterm_in_its_exact_part(tmp_path):
    """R²/γ*² of 1,024 variables takes minutes, and read no stop flag: SIGTERM once the
    first (small) race is reported, while the large one runs, ends the lab."""
    process = _start(
        ["lab", "--n", "8,1024", "--r", 2, "--examples", 3000, "--exact", "--out",
         tmp_path / "r.csv"]
    )  # fmt: skip
    assert process.stderr is not None
    seen = ""
    while "n = 8:" not in seen:  # the first race is done: the large one is on
        ready, _, _ = select.select([process.stderr], [], [], 120)
        assert ready, "the first race never ended"
        line = process.stderr.readline()
        assert line, f"the lab ended first: {seen}"
        seen += line
    # The large race itself takes a fraction of a second, its exact part minutes: a moment
    # later it is in the exact part. (Were it still racing, it would stop all the same.)
    time.sleep(3)
    process.send_signal(signal.SIGTERM)
    _, rest = process.communicate(timeout=60)  # minutes without the fix
    assert process.returncode == 143, rest
    assert rest.strip().splitlines() == [
        "linear-classifier-lab lab: stopped; the files written so far are whole"
    ]
    assert not (tmp_path / "r.csv").exists()
