"""The real app in a real window: start `python main.py` on an X server (Xvfb), wait for
the window, grab the screen, check the picture is not blank, quit.

Needs Xvfb and Qt's X11 libraries (`bash tools/install-system-packages`); without them
the test fails and says so, rather than pretending.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def x_display():
    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb is not installed: run `bash tools/install-system-packages`")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    try:
        assert number, "Xvfb did not report a display"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_main_py_opens_a_painted_window(tmp_path, x_display):
    shot = tmp_path / "window.png"
    env = {
        **os.environ,
        "DISPLAY": x_display,
        "QT_QPA_PLATFORM": "xcb",
        "XDG_CONFIG_HOME": str(tmp_path),
    }
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "--dataset",
            "separable",
            "--algorithm",
            "perceptron",
            "--screenshot",
            str(shot),
            "--screenshot-delay",
            "1.5",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "first painted at 1" in result.stderr  # an epoch time, so it did paint
    image = np.asarray(Image.open(shot).convert("RGB"))
    assert image.shape[0] >= 600 and image.shape[1] >= 1000
    colours = np.unique(image.reshape(-1, 3), axis=0)
    assert len(colours) > 100, "the screenshot is (nearly) blank"
    # Both class colours are on screen: blue (+1) and vermillion (-1) points.
    for rgb in ((0x00, 0x72, 0xB2), (0xD5, 0x5E, 0x00)):
        assert np.any(np.all(np.abs(image.astype(int) - rgb) <= 8, axis=2)), rgb
