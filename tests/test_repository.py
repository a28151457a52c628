"""The README's promises about commands stay true."""

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text):
    return re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)


def test_ci_runs_the_readme_test_command_verbatim():
    blocks = _bash_blocks((ROOT / "README.md").read_text())
    test_command = next(b for b in blocks if "pytest" in b)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_readme_start_command_starts_main_py():
    blocks = _bash_blocks((ROOT / "README.md").read_text())
    assert any(b.endswith("python main.py") and "pip install -e ." in b for b in blocks)


def test_main_py_help_works_without_a_display():
    out = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "--dataset" in out.stdout and "export" in out.stdout


def test_readme_screenshot_exists():
    assert "assets/screenshot.png" in (ROOT / "README.md").read_text()
    assert (ROOT / "assets" / "screenshot.png").stat().st_size > 10_000


def test_the_command_line_checks_arguments_before_importing_qt():
    code = (
        "import sys, simulator.cli; "
        "print([m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_window_keeps_its_remembered_settings_unless_the_command_line_names_some():
    from simulator.cli import parse

    assert parse(["--dataset", "or"]).settings is None
    assert parse(["--dataset", "or", "--algorithm", "perceptron"]).settings is not None
    assert parse(["--no-bias"]).settings.bias is False
    assert parse(["--dataset", "or", "--eta", "0.5"]).settings.learning_rate == 0.5


def test_the_readme_start_command_installs_what_qt_needs_first():
    """`python main.py` on a bare Debian/Ubuntu needs Qt's X11 libraries (issue 20 case 12):
    the README's start line runs the script that installs them, and the script names those
    Qt's xcb platform plugin links to."""
    blocks = _bash_blocks((ROOT / "README.md").read_text())
    start = next(b for b in blocks if b.endswith("python main.py"))
    assert start.startswith("bash tools/install-system-packages && ")
    script = (ROOT / "tools" / "install-system-packages").read_text()
    listed = set(re.search(r"packages=\((.*?)\n\)", script, flags=re.S).group(1).split())
    for package in (
        "libxcb-cursor0",
        "libegl1",
        "libgl1",
        "libxkbcommon-x11-0",
        "libxkbcommon0",
        "libfontconfig1",
        "libdbus-1-3",
        "libglib2.0-0",
        "libx11-xcb1",
        "libxcb-icccm4",
        "libxcb-keysyms1",
        "libxcb-image0",
        "libxcb-render-util0",
        "libxcb-shape0",
        "libxcb-randr0",
        "libxcb-xfixes0",
        "libxcb-xkb1",
        "libxcb-sync1",
    ):
        assert package in listed, package


@pytest.mark.slow
def test_an_installed_wheel_has_the_data_the_presets_and_lessons_read(tmp_path):
    # A non-editable install: the presets' iris data and the lessons travel in the wheel,
    # and the package reads nothing from the repository beside it.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
         str(tmp_path), str(ROOT)],
        capture_output=True, check=True, timeout=300,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    code = (
        "from simulator.engine import PRESETS, load_preset; "
        "from simulator.engine.lessons import lesson_names, load_lesson, play; "
        "[load_preset(p) for p in PRESETS]; "
        "[list(play(load_lesson(n))) for n in lesson_names()]; "
        "import simulator; print(simulator.__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(site)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith(str(site))
