"""Menus, file shortcuts, full screen, help generated from the actions, the View menu, the
window's first geometry, and starting with --dataset/--algorithm."""

import re
from html import escape

import numpy as np
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog

from simulator.cli import parse
from simulator.engine import load_preset
from simulator.ui import MainWindow
from simulator.ui.layout import initial_geometry


def test_ctrl_o_and_ctrl_s_go_through_the_file_dialogs(qtbot, window, tmp_path, monkeypatch):
    source = tmp_path / "in.csv"
    source.write_text("x1,x2,label\n0,0,-1\n1,1,1\n")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(source), ""))
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.dataset.labels.tolist() == [-1, 1]
    window.controller.add_point(0.5, 0.5, 1)
    target = tmp_path / "out"  # Save As adds .csv
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window, Qt.Key.Key_S, shift_ctrl)  # Save As: asks where
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


def test_help_lists_every_action_with_a_shortcut(qtbot, window, dialogs):
    qtbot.keyClick(window, Qt.Key.Key_F1)
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("information", "Shortcuts")
    listed = {k for cell in re.findall(r"<b>(.*?)</b>", text) for k in cell.split(" / ")}
    actions = [a for a in window.findChildren(QAction) if not a.shortcut().isEmpty()]
    assert len(actions) >= 20
    for action in actions:
        for key in action.shortcuts():
            assert escape(key.toString(QKeySequence.SequenceFormat.NativeText)) in listed
        assert escape(action.text().replace("&", "").rstrip("…")) in text, action.text()
    for key in ("Space", "Return", "M", "R", "Ctrl+E", "Ctrl+0", "F5", "F11", "F1", "Ctrl+Z"):
        assert key in listed, key
    assert "Left click" in text and "Drag a point" in text  # the mouse, which has no actions
    window.show_about()
    assert dialogs.shown[-1][0] == "about"


def test_a_new_action_is_listed_without_editing_the_help(window, dialogs):
    extra = QAction("Do a new thing", window)
    extra.setShortcut(QKeySequence("Ctrl+Shift+9"))
    window.addAction(extra)
    window.show_shortcuts()
    assert "Do a new thing" in dialogs.shown[-1][2] and "Ctrl+Shift+9" in dialogs.shown[-1][2]


def test_menus_are_complete(window):
    titles = {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions()}
    assert list(titles) == ["File", "Edit", "View", "Run", "Lessons", "Tools", "Help"]
    file_items = [a.text().replace("&", "") for a in titles["File"].actions() if a.text()]
    for item in ("New", "Open…", "Save", "Save As…", "Presets", "Export frames…", "Quit"):
        assert item in file_items
    edit_items = [a.text().replace("&", "") for a in titles["Edit"].actions() if a.text()]
    assert edit_items[:2] == ["Undo", "Redo"] and "Clear all points" in edit_items


def test_view_toggles_show_the_separator_band_and_radius(qtbot, window):
    window.controller.set_dataset(load_preset("or"))
    plot = window.plot
    assert plot.drawn_line("separator") is None
    assert "radius R" not in plot.legend_texts()
    qtbot.keyClick(window, Qt.Key.Key_M)
    qtbot.keyClick(window, Qt.Key.Key_R)
    separator = window.controller.frame.separator
    point, direction = plot.drawn_line("separator")
    assert abs(separator.offset + np.dot(separator.normal, point) - separator.level) < 1e-9
    assert abs(np.dot(separator.normal, direction)) < 1e-9
    assert "margin band ±γ*" in plot.legend_texts() and "radius R" in plot.legend_texts()


def test_the_view_menu(window):
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    names = {a.objectName() for a in view.actions()}
    assert {"followAction", "presentationAction", "legendAction", "numbersAction"} <= names
    assert {"shadingAction", "leastSquaresAction", "trueLengthAction"} <= names
    follow = window.findChild(QAction, "followAction")
    assert follow.isCheckable() and follow.isChecked() and window.plot.following
    follow.setChecked(False)
    assert not window.plot.following
    presentation = window.findChild(QAction, "presentationAction")
    assert presentation.isCheckable() and presentation.shortcut() == QKeySequence("F5")
    snaps = [a.data() for a in window.snap_group.actions()]
    assert snaps == [None, 0.5, 0.25, 0.1] and window.snap_group.isExclusive()


def test_the_window_opens_inside_the_available_screen(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    available = window.screen().availableGeometry()
    assert available.contains(window.geometry())


@pytest.mark.parametrize(
    ("screen", "expected"),
    [
        ((0, 0, 1024, 768), (1024, 736)),
        ((0, 0, 1366, 768), (1280, 736)),
        ((0, 0, 1920, 1080), (1536, 864)),
        ((0, 30, 1280, 770), (1280, 738)),  # a panel at the top
    ],
)
def test_initial_geometry(screen, expected):
    available = QRect(*screen)
    geometry = initial_geometry(available)
    assert (geometry.width(), geometry.height()) == expected
    assert available.contains(geometry)
    assert geometry.top() - available.top() >= 32  # room for the title bar


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


def test_each_export_dialog_is_freed_when_it_closes(qtbot, window):
    from PySide6.QtCore import QCoreApplication, QEvent

    from simulator.export.dialog import ExportDialog

    window.controller.set_dataset(load_preset("or"))
    for _ in range(3):
        window.export_action.trigger()
        (dialog,) = window.findChildren(ExportDialog)
        dialog.reject()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert window.findChildren(ExportDialog) == []
