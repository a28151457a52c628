"""Shared test setup: Qt renders offscreen; modal message boxes are replaced by a recorder
(so no test can ever block on one); the window's autosave goes to a folder per test;
benchmarks run only when asked for by path."""

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

_BENCHMARKS = Path(__file__).parent / "benchmarks"


def _asks_for_benchmarks(config) -> bool:
    asked = (Path(str(arg).split("::")[0]).resolve() for arg in config.args)
    return any(a == _BENCHMARKS or _BENCHMARKS in a.parents for a in asked)


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Skip tests/benchmarks unless a command-line argument points into it."""
    if _BENCHMARKS not in (collection_path, *collection_path.parents):
        return None
    return None if _asks_for_benchmarks(config) else True


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config) -> int | None:
    """`-n auto` (pyproject.toml) runs a worker per core, but none (all in this process)
    for benchmarks, which time themselves against a peer and must have the machine to
    themselves (pytest-benchmark also refuses to time under xdist), and none with `-s`,
    whose output a worker would swallow."""
    if _asks_for_benchmarks(config) or config.getoption("capture") == "no":
        return 0
    return None  # xdist's own count: the cores this process may use


class Dialogs:
    """What the window asked or told the user; `answer` is returned to questions."""

    def __init__(self):
        from PySide6.QtWidgets import QMessageBox

        self.ok = QMessageBox.StandardButton.Ok
        self.shown = []
        self.answer = QMessageBox.StandardButton.Discard

    def question(self, parent, title, text, *args, **kwargs):
        self.shown.append(("question", title, text))
        return self.answer

    def critical(self, parent, title, text, *args, **kwargs):
        self.shown.append(("critical", title, text))
        return self.ok

    def information(self, parent, title, text, *args, **kwargs):
        self.shown.append(("information", title, text))
        return self.ok

    def about(self, parent, title, text):
        self.shown.append(("about", title, text))


@pytest.fixture(autouse=True)
def data_folder(tmp_path_factory, monkeypatch):
    """Each test's own folder for the window's autosave and crash reports."""
    folder = tmp_path_factory.mktemp("lab-data")
    monkeypatch.setenv("LINEAR_LAB_DATA_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def dialogs(monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    recorder = Dialogs()
    for name in ("question", "critical", "information", "about"):
        monkeypatch.setattr(QMessageBox, name, getattr(recorder, name))
    return recorder


@pytest.fixture(autouse=True, scope="session")
def _the_apps_look():
    """Tests see the type and drawing the app sets up (`set_up_look`): a layout measured
    here is the one users get, whatever test ran first in this process."""
    from PySide6.QtWidgets import QApplication

    from simulator.ui.style import set_up_look

    set_up_look(QApplication.instance() or QApplication([]))
