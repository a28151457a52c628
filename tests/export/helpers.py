"""Running `python main.py export` in a subprocess with no display at all."""

import os
import random
import signal
import subprocess
import sys
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


def frames(folder):
    return sorted(Path(folder).glob("frame_*.png"))


def pixels(path):
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def hidden_files(folder):
    return sorted(p.name for p in Path(folder).rglob(".*"))


def interrupt_exports(base, runs, seed, trials=60, parallel=4):
    """Start an export with GIF and MP4 `runs` times (`parallel` at once); at a random
    moment of each, once its arguments are checked, send SIGINT or SIGTERM. Returns what
    went wrong (nothing, we hope) and how many the signal stopped."""
    rng = random.Random(seed)
    plans = [(run, rng.choice([signal.SIGINT, signal.SIGTERM]), rng.uniform(0, 2.0))
             for run in range(runs)]  # fmt: skip
    problems, interrupted = [], 0
    for first in range(0, runs, parallel):
        batch = []
        for run, signum, delay in plans[first : first + parallel]:
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
            batch.append([run, signum, delay, folder, process, None])
        give_up = time.monotonic() + 120
        while time.monotonic() < give_up and any(plan[5] != "sent" for plan in batch):
            for plan in batch:
                _, signum, delay, folder, process, due = plan
                if due is None and (folder / "f").exists():  # its arguments are checked
                    plan[5] = due = time.monotonic() + delay
                if due not in (None, "sent") and time.monotonic() >= due:
                    process.send_signal(signum)
                    plan[5] = "sent"
                elif due is None and process.poll() is not None:
                    plan[5] = "sent"  # it ended before: checked below like the others
            time.sleep(0.002)
        for run, signum, _, folder, process, _ in batch:
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
