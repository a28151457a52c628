"""Running `python main.py export` (and `lab`): in a subprocess with no display at all, or
in this process through the same `simulator.cli.main` (much cheaper: no Python and Qt to
start). A subprocess is kept for what only a process shows: main.py itself, no display,
signals, file-size limits."""

import contextlib
import ctypes
import io
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
NO_DISPLAY = {
    k: v
    for k, v in os.environ.items()
    if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
}


def export(*args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "export", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env if env is not None else NO_DISPLAY,
        cwd=cwd,
    )


def main_here(*args, cwd=None):
    """`python main.py ARGS` run by this process: `simulator.cli.main`, the function main.py
    calls (the same checks, the same `export_main` or `lab_main`, the same exit status).

    Returns a CompletedProcess like `export()`. stderr is caught at the file descriptor,
    so whatever C code (Qt, ffmpeg's pipe) writes there shows too. The SIGINT and SIGTERM
    handlers that `main` sets are put back afterwards. Use with the `qapp` fixture: the
    test's QApplication must outlive the export (`export_main` uses the one it finds).
    """
    from simulator.cli import main

    argv = [str(a) for a in args]
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    stdout = io.StringIO()
    with tempfile.TemporaryFile() as sink, contextlib.ExitStack() as stack:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        stack.callback(os.close, saved)
        stack.callback(os.dup2, saved, 2)  # runs before the close above
        text = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False), encoding="utf-8", write_through=True
        )
        stack.callback(text.close)
        stack.enter_context(contextlib.redirect_stderr(text))
        stack.enter_context(contextlib.redirect_stdout(stdout))
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse: --help, or a bad argument
            status = exc.code if isinstance(exc.code, int) else 1
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
        stack.close()
        sink.seek(0)
        stderr = sink.read().decode("utf-8", errors="replace")
    return subprocess.CompletedProcess(argv, status, stdout.getvalue(), stderr)


def export_here(*args, cwd=None):
    """`python main.py export ARGS`, run by this process (see `main_here`)."""
    return main_here("export", *args, cwd=cwd)


# main.py run as a script, reporting on stdout whether it imported Qt by the time it ended.
_MAIN_PY_AND_ITS_QT = """
import runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    print("qt loaded:", sorted({m.split(".")[0] for m in sys.modules} & {"PySide6", "pyqtgraph"}))
"""


def main_py(*args, env=None):
    """`python main.py ARGS` in a subprocess with no display; returns the CompletedProcess
    and whether Qt (PySide6 or pyqtgraph) had been imported when it ended."""
    result = subprocess.run(
        [sys.executable, "-c", _MAIN_PY_AND_ITS_QT, str(ROOT / "main.py"), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env if env is not None else NO_DISPLAY,
    )
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("qt loaded: "), result.stdout
    return result, last != "qt loaded: []"


def frames(folder):
    return sorted(Path(folder).glob("frame_*.png"))


def pixels(path):
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def hidden_files(folder):
    return sorted(p.name for p in Path(folder).rglob(".*"))


STARTING = -1  # a moment for `interrupt_exports`: once the arguments are checked


def random_moments(runs, seed, trials=60):
    """`runs` plans for `interrupt_exports`: SIGINT and SIGTERM in turn, each sent at a
    random moment: while it starts (STARTING), once frame k is written (0 … trials - 1),
    or once the last frame is (while the GIF and MP4 are completed)."""
    rng = random.Random(seed)
    signals = (signal.SIGINT, signal.SIGTERM)
    return [(signals[run % 2], rng.randint(STARTING, trials)) for run in range(runs)]


def interrupt_exports(base, plans, trials=60, parallel=4):
    """Start an export with GIF and MP4 for each (signal, moment) of `plans` (`parallel`
    at once) and send it that signal at that moment: STARTING (once its arguments are
    checked, while Qt loads) or once frame_{moment}.png is written. Moments are counted in
    frames, not seconds, so a fast machine and a loaded one stop the same exports at the
    same place. Returns what went wrong (nothing, we hope) and how many the signal stopped."""
    problems, interrupted = [], 0
    numbered = list(enumerate(plans))
    for first in range(0, len(numbered), parallel):
        batch = []
        for run, (signum, moment) in numbered[first : first + parallel]:
            folder = base / f"run{run}"
            folder.mkdir()
            process = subprocess.Popen(
                [
                    sys.executable, str(ROOT / "main.py"), "export", "--dataset", "noisy",
                    "--trials", str(trials), "--size", "320x240", "--out", str(folder / "f"),
                    "--gif", str(folder / "a.gif"), "--mp4", str(folder / "a.mp4"), "--quiet",
                ],
                stderr=subprocess.PIPE,
                text=True,
                env=NO_DISPLAY,
            )  # fmt: skip
            sign = folder / "f" if moment == STARTING else folder / "f" / f"frame_{moment:05d}.png"
            batch.append([run, signum, sign, process, False])
        _signal_at_moments(batch)
        for run, signum, _, process, _ in batch:
            folder = base / f"run{run}"
            try:
                _, stderr = process.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                problems.append(f"run {run}: hung after {signum.name}")
                continue
            interrupted += process.returncode == 128 + signum
            problems += _check_interrupted(run, signum, process.returncode, stderr, folder, trials)
    return problems, interrupted


def _signal_at_moments(batch, give_up=120.0):
    """Send each plan [run, signum, sign, process, sent] its signal once its sign (a folder
    or a frame) exists; a process that ends first is marked sent and checked like the
    others. Woken by the kernel, never by a clock: inotify says a file appeared in a
    watched folder (the run folder, then its frame folder), a pidfd that a process ended.
    `give_up` seconds is only a safety net. Linux, as are these signal tests."""
    with contextlib.ExitStack() as stack:
        notify = _inotify_init()
        stack.callback(os.close, notify)
        ends = {}
        for plan in batch:
            ends[id(plan)] = os.pidfd_open(plan[3].pid)
            stack.callback(os.close, ends[id(plan)])
        watched = set()
        deadline = time.monotonic() + give_up
        while True:
            waiting = [plan for plan in batch if not plan[4]]
            for plan in waiting:
                _, signum, sign, process, _ = plan
                for folder in (sign.parent, sign.parent.parent):
                    if folder not in watched and folder.is_dir():
                        _inotify_watch(notify, folder)  # before looking: no appearance missed
                        watched.add(folder)
                if sign.exists():
                    process.send_signal(signum)
                    plan[4] = True
                elif process.poll() is not None:
                    plan[4] = True  # it ended before
            waiting = [plan for plan in waiting if not plan[4]]
            left = deadline - time.monotonic()
            if not waiting or left <= 0:
                return
            ready, _, _ = select.select([notify, *(ends[id(p)] for p in waiting)], [], [], left)
            if notify in ready:
                _inotify_drain(notify)


_IN_MOVED_TO, _IN_CREATE = 0x80, 0x100
_libc = ctypes.CDLL(None, use_errno=True)


def _inotify_init():
    fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
    return fd


def _inotify_watch(fd, folder):
    """Events on `fd` when a file or folder is created in, or renamed into, `folder`."""
    if _libc.inotify_add_watch(fd, os.fsencode(folder), _IN_CREATE | _IN_MOVED_TO) < 0:
        raise OSError(ctypes.get_errno(), f"inotify_add_watch {folder}")


def _inotify_drain(fd):
    with contextlib.suppress(BlockingIOError):
        while os.read(fd, 65536):
            pass


def _check_interrupted(run, signum, status, stderr, folder, trials):
    """What is wrong with what an export stopped by `signum` left in `folder`."""
    pngs = frames(folder / "f")
    what = f"run {run} ({signum.name}, status {status}, {len(pngs)} frames)"
    problems = []
    if status not in (0, 128 + signum):
        problems.append(f"{what}: {stderr.strip()[-300:]}")
    if "Traceback" in stderr or "Fatal Python error" in stderr:
        problems.append(f"{what}: {stderr.strip()[-300:]}")
    if hidden_files(folder):
        problems.append(f"{what}: temporary files {hidden_files(folder)}")
    if [p.name for p in pngs] != [f"frame_{i:05d}.png" for i in range(len(pngs))]:
        problems.append(f"{what}: frames missing in the sequence")
    for path in pngs:
        try:
            with Image.open(path) as image:
                image.load()
        except OSError as exc:
            problems.append(f"{what}: {path.name} is not whole ({exc})")
    if (folder / "a.gif").exists():  # only ever complete
        with Image.open(folder / "a.gif") as gif:
            if gif.n_frames != trials + 1:
                problems.append(f"{what}: a GIF of {gif.n_frames} frames")
    elif status == 0:
        problems.append(f"{what}: finished without its GIF")
    return problems
