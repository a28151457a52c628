"""Placing, moving, deleting points; undo and redo; files."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from simulator.engine import Dataset, load_preset
from tests.ui.conftest import click, drag, view_pos


def test_left_click_adds_plus_one_and_right_click_minus_one(qtbot, window):
    view = window.plot
    with qtbot.waitSignal(view.point_requested) as blocker:
        click(qtbot, view, 1.0, 1.5)
    assert blocker.args[2] == 1
    assert blocker.args[0] == pytest.approx(1.0, abs=0.02)
    assert blocker.args[1] == pytest.approx(1.5, abs=0.02)
    click(qtbot, view, -1.0, -0.5, Qt.MouseButton.RightButton)
    ds = window.controller.dataset
    assert ds.labels.tolist() == [1, -1]
    np.testing.assert_allclose(ds.points, [[1.0, 1.5], [-1.0, -0.5]], atol=0.02)


def test_the_touchpad_toggle_swaps_the_classes(qtbot, window):
    window.controls.class_toggle.click()
    click(qtbot, window.plot, 0.5, 0.5)
    click(qtbot, window.plot, -0.5, 0.5, Qt.MouseButton.RightButton)
    assert window.controller.dataset.labels.tolist() == [-1, 1]


def test_clicking_a_point_selects_it_instead_of_adding_one(qtbot, window):
    click(qtbot, window.plot, 0.0, 0.0)
    click(qtbot, window.plot, 0.01, 0.0)
    assert len(window.controller.dataset) == 1
    assert window.plot.selected == 0


def test_drag_moves_a_point_in_one_undo_step(qtbot, window):
    window.controller.set_dataset(Dataset([[0.0, 0.0], [1.0, 1.0]], [1, -1]))
    window.plot.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    before = window.controller.undo_stack.count()
    drag(window.plot, (1.0, 1.0), (-1.0, 1.5))
    ds = window.controller.dataset
    np.testing.assert_allclose(ds.points[1], [-1.0, 1.5], atol=0.03)
    assert ds.points[0].tolist() == [0.0, 0.0] and len(ds) == 2
    assert window.controller.undo_stack.count() == before + 1
    window.controller.undo_stack.undo()
    assert window.controller.dataset.points[1].tolist() == [1.0, 1.0]


def test_dragging_empty_space_pans_and_adds_nothing(qtbot, window):
    window.plot.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    (before, _), _ = window.plot.getPlotItem().vb.viewRange()
    drag(window.plot, (0.5, 0.5), (1.0, 1.0))
    assert len(window.controller.dataset) == 0
    (after, _), _ = window.plot.getPlotItem().vb.viewRange()
    assert after - before == pytest.approx(-0.5, abs=0.05)  # the view followed the hand


def test_delete_key_and_context_menu_delete_points(qtbot, window):
    window.controller.set_dataset(Dataset([[0.0, 0.0], [1.0, 1.0], [-1.0, 1.0]], [1, -1, 1]))
    window.plot.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    click(qtbot, window.plot, 1.0, 1.0)
    assert window.plot.selected == 1
    qtbot.keyClick(window.plot, Qt.Key.Key_Delete)
    assert window.controller.dataset.points.tolist() == [[0.0, 0.0], [-1.0, 1.0]]
    menu = window.plot.point_menu(1)
    actions = {a.text(): a for a in menu.actions()}
    actions["Flip label"].trigger()
    assert window.controller.dataset.labels.tolist() == [1, -1]
    actions["Delete point"].trigger()
    assert window.controller.dataset.points.tolist() == [[0.0, 0.0]]


def test_right_click_on_a_point_opens_its_menu(qtbot, window, monkeypatch):
    window.controller.set_dataset(Dataset([[0.5, 0.5]], [1]))
    window.plot.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    opened = []
    monkeypatch.setattr(
        window.plot,
        "point_menu",
        lambda i: type("M", (), {"popup": lambda self, at: opened.append(i)})(),
    )
    click(qtbot, window.plot, 0.5, 0.5, Qt.MouseButton.RightButton)
    assert opened == [0] and len(window.controller.dataset) == 1


def test_undo_and_redo_with_the_keyboard(qtbot, window):
    click(qtbot, window.plot, 0.5, 0.5)
    click(qtbot, window.plot, -0.5, 0.5)
    assert len(window.controller.dataset) == 2
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(window.controller.dataset) == 1
    qtbot.keyClick(
        window,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert len(window.controller.dataset) == 2


def test_editing_keeps_the_weights_and_counters(window):
    c = window.controller
    c.set_dataset(load_preset("or"))
    for _ in range(5):
        c.step()
    weights, mistakes = c.simulation.weights, c.simulation.mistakes
    c.add_point(0.5, 0.5, 1)
    assert np.array_equal(c.simulation.weights, weights)
    assert (c.simulation.trials, c.simulation.mistakes) == (5, mistakes)
    c.undo_stack.undo()
    assert c.simulation.trials == 5 and len(c.dataset) == 4


def test_loading_a_preset_restarts_and_clear_is_undoable(window):
    c = window.controller
    window.findChild(type(window.new_action), "preset_xor").trigger()
    assert c.dataset == load_preset("xor") and c.simulation.trials == 0
    c.clear()
    assert len(c.dataset) == 0
    c.undo_stack.undo()
    assert c.dataset == load_preset("xor")


def test_save_is_atomic_csv_and_marks_clean(tmp_path, window):
    c = window.controller
    c.set_dataset(load_preset("and"))
    c.add_point(0.25, 0.75, -1)
    assert window.isWindowModified()
    path = tmp_path / "points.csv"
    assert window.save_to(path)
    assert path.read_text() == c.dataset.to_csv()
    assert not window.isWindowModified() and "points.csv" in window.windowTitle()
    assert list(tmp_path.iterdir()) == [path]  # no temporary left behind


def test_open_a_file(tmp_path, window):
    path = tmp_path / "mine.csv"
    path.write_text("x1,x2,label\n0,1,1\n2,3,0\n")
    assert window.open_file(path)
    assert window.controller.dataset.labels.tolist() == [1, -1]
    assert window.windowTitle().startswith("mine.csv")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("x1,x2,label\n0,1,1\n0,oops,1\n", "line 3: 'oops' in column 'x2' is not a number"),
        ("x1,x2\n0,1\n", "no 'label' column"),
        ("x1,x2,label\n0,1,5\n", "line 2: label '5'"),
    ],
)
def test_opening_a_bad_file_changes_nothing_and_says_why(
    tmp_path, window, dialogs, content, reason
):
    window.controller.set_dataset(load_preset("or"))
    window.controller.step()
    before = window.controller.dataset
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert not window.open_file(path)
    assert window.controller.dataset is before
    assert window.controller.simulation.trials == 1
    kind, _, text = dialogs.shown[-1]
    assert kind == "critical" and reason in text


def test_saving_to_an_unwritable_place_says_so(tmp_path, window, dialogs):
    window.controller.set_dataset(load_preset("or"))
    assert not window.save_to(tmp_path / "missing-folder" / "x.csv")
    assert dialogs.shown[-1][0] == "critical"
    assert window.controller.dataset == load_preset("or")


def test_closing_with_unsaved_points_asks(qtbot, window, dialogs):
    from PySide6.QtWidgets import QMessageBox

    window.controller.add_point(0.0, 0.0, 1)
    dialogs.answer = QMessageBox.StandardButton.Cancel
    window.close()
    assert window.isVisible() and dialogs.shown[-1][0] == "question"
    dialogs.answer = QMessageBox.StandardButton.Discard
    window.close()
    assert not window.isVisible()


def test_closing_with_saved_points_does_not_ask(tmp_path, window, dialogs):
    window.controller.add_point(0.0, 0.0, 1)
    window.save_to(tmp_path / "p.csv")
    window.close()
    assert not window.isVisible() and dialogs.shown == []


def test_view_pos_round_trip(window):
    vb = window.plot.getPlotItem().vb
    pos = view_pos(window.plot, 1.25, -0.5)
    back = vb.mapSceneToView(window.plot.mapToScene(pos))
    assert back.x() == pytest.approx(1.25, abs=0.02) and back.y() == pytest.approx(-0.5, abs=0.02)
