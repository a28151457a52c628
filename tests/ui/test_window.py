"""Menus, file shortcuts, full screen, help, and starting with --dataset/--algorithm."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from simulator.cli import parse
from simulator.engine import load_preset
from simulator.ui import MainWindow


def test_ctrl_o_and_ctrl_s_go_through_the_file_dialogs(qtbot, window, tmp_path, monkeypatch):
    source = tmp_path / "in.csv"
    source.write_text("x1,x2,label\n0,0,-1\n1,1,1\n")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(source), ""))
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.dataset.labels.tolist() == [-1, 1]
    window.controller.add_point(0.5, 0.5, 1)
    target = tmp_path / "out"  # Save As adds .csv
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window._path = None
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    saved = tmp_path / "out.csv"
    assert saved.read_text() == window.controller.dataset.to_csv()
    window.controller.add_point(-0.5, 0.5, -1)
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)  # Save: same file
    assert saved.read_text().count("\n") == 5


def test_cancelled_dialogs_change_nothing(qtbot, window, monkeypatch):
    window.controller.set_dataset(load_preset("or"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    window.open_dialog()
    assert not window.save_as_dialog()
    assert window.controller.dataset == load_preset("or")


def test_f11_toggles_full_screen(qtbot, window):
    qtbot.keyClick(window, Qt.Key.Key_F11)
    assert window.fullscreen_action.isChecked()
    qtbot.waitUntil(window.isFullScreen)
    qtbot.keyClick(window, Qt.Key.Key_F11)
    qtbot.waitUntil(lambda: not window.isFullScreen())


def test_help_lists_the_shortcuts(window, dialogs):
    window.show_shortcuts()
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("information", "Shortcuts")
    for key in ("Space", "Enter", "N", "E", "Ctrl+Z", "Ctrl+O", "Ctrl+S", "F11"):
        assert key in text
    window.show_about()
    assert dialogs.shown[-1][0] == "about"


def test_menus_are_complete(window):
    titles = {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions()}
    assert list(titles) == ["File", "Edit", "View", "Run", "Tools", "Help"]
    file_items = [a.text().replace("&", "") for a in titles["File"].actions() if a.text()]
    for item in ("New", "Open…", "Save", "Save As…", "Presets", "Export frames…", "Quit"):
        assert item in file_items
    edit_items = [a.text().replace("&", "") for a in titles["Edit"].actions() if a.text()]
    assert edit_items[:2] == ["Undo", "Redo"] and "Clear all points" in edit_items


def test_view_toggles_show_the_separator_band_and_radius(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    plot = window.plot
    assert not plot._separator.isVisible() and not plot._radius.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_M)
    qtbot.keyClick(window, Qt.Key.Key_R)
    assert plot._separator.isVisible() and all(line.isVisible() for line in plot._band)
    assert plot._radius.isVisible()
    # The radius curve of OR with bias: |p| = sqrt(R² - 1) = sqrt(2).
    x, _ = plot._radius.getData()
    assert max(x) == pytest.approx(2**0.5, rel=1e-3)


def test_starting_with_dataset_and_algorithm(qtbot):
    invocation = parse(["--dataset", "iris", "--algorithm", "winnow"])
    window = MainWindow(invocation.dataset, invocation.settings)
    qtbot.addWidget(window)
    assert window.controller.dataset == load_preset("iris")
    assert window.controller.settings.algorithm == "winnow"
    assert window.controls.algorithm.currentData() == "winnow"
    assert not window.isWindowModified()  # opening data is not an unsaved change


def test_the_names_design_md_promises(window):
    from PySide6.QtWidgets import QWidget

    for name in (
        "plotView",
        "stepButton",
        "runButton",
        "resetButton",
        "algorithmCombo",
        "gammaValue",
        "radiusValue",
        "boundValue",
        "mistakesValue",
        "trialValue",
        "weightsValue",
    ):
        assert window.findChild(QWidget, name) is not None, name
    controller = window.controller
    for attribute in (
        "dataset",
        "simulation",
        "set_dataset",
        "step",
        "run",
        "pause",
        "reset",
        "frame_changed",
        "dataset_changed",
        "running_changed",
    ):
        assert hasattr(controller, attribute), attribute
