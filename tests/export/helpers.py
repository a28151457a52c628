"""Running `python main.py export` in a subprocess with no display at all."""

import os
import subprocess
import sys
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
