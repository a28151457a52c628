"""Placing, moving, deleting points; undo and redo; files."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from simulator.engine import Dataset, load_preset
from tests.helpers.driven import deliver_posted_events
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
        ("x1,x2,label\n0,1,5\n", "label 5 of point 1 makes the labels the classes"),
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


def _replace_points(window, how, tmp_path):
    if how == "new":
        return window.new_points()
    if how == "open":
        path = tmp_path / "other.csv"
        path.write_text("x1,x2,label\n5,5,1\n6,6,-1\n")
        return window.open_file(path)
    if how == "preset":
        window.findChild(type(window.new_action), "preset_xor").trigger()
        return window.controller.dataset == load_preset("xor")
    window.clear_action.trigger()
    return len(window.controller.dataset) == 0


@pytest.mark.parametrize("how", ["new", "open", "preset", "clear"])
def test_replacing_unsaved_points_asks_and_cancel_keeps_them(tmp_path, window, dialogs, how):
    from PySide6.QtWidgets import QMessageBox

    c = window.controller
    c.add_point(0.5, 0.5, 1)
    c.add_point(-0.5, 0.5, -1)
    mine = c.dataset
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert not _replace_points(window, how, tmp_path)
    kind, title, _ = dialogs.shown[-1]
    assert (kind, title) == ("question", "Unsaved points")
    assert c.dataset is mine and window.isWindowModified()
    dialogs.answer = QMessageBox.StandardButton.Discard
    assert _replace_points(window, how, tmp_path)
    assert c.dataset != mine and len(dialogs.shown) == 2


@pytest.mark.parametrize("how", ["new", "open", "preset", "clear"])
def test_saved_points_are_replaced_without_a_question(tmp_path, window, dialogs, how):
    window.controller.add_point(0.5, 0.5, 1)
    assert window.save_to(tmp_path / "mine.csv")
    assert _replace_points(window, how, tmp_path)
    assert dialogs.shown == []


def test_answering_save_saves_first_then_replaces(tmp_path, window, dialogs, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    c = window.controller
    c.add_point(0.5, 0.5, 1)
    mine = c.dataset
    target = tmp_path / "kept.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    dialogs.answer = QMessageBox.StandardButton.Save
    assert window.load_preset("and")
    assert target.read_text() == mine.to_csv()
    assert c.dataset == load_preset("and")
    # A Save that is cancelled in its file dialog cancels the whole action.
    c.add_point(0.1, 0.1, -1)  # to the preset, which has no file: Save asks where
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    before = c.dataset
    assert not window.new_points()
    assert c.dataset is before


def test_opened_points_then_edited_ask_on_close_and_on_open(tmp_path, window, dialogs):
    from PySide6.QtWidgets import QMessageBox

    path = tmp_path / "mine.csv"
    path.write_text("x1,x2,label\n0,1,1\n2,3,0\n")
    assert window.open_file(path)
    window.close()  # unchanged since opened: no question
    assert dialogs.shown == []
    window.show()
    window.controller.add_point(1.0, 1.0, 1)
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert not window.open_file(path)
    assert len(window.controller.dataset) == 3
    window.close()
    assert window.isVisible() and [k for k, *_ in dialogs.shown] == ["question", "question"]


def test_undo_back_to_the_saved_points_counts_as_saved(tmp_path, window, dialogs):
    c = window.controller
    c.add_point(0.5, 0.5, 1)
    window.save_to(tmp_path / "p.csv")
    c.add_point(0.2, 0.5, -1)
    assert window.has_unsaved_points()
    c.undo_stack.undo()
    assert not window.has_unsaved_points()
    assert window.new_points() and dialogs.shown == []


def _progress_dialog(window):
    from PySide6.QtWidgets import QProgressDialog

    return window.findChild(QProgressDialog, "fileProgress")


def _while_busy(qtbot, window, action):
    """Call `action(dialog)` from inside the nested event loop once the progress dialog
    shows, and count the timer ticks the window answered meanwhile."""
    from PySide6.QtCore import QTimer

    seen = {"ticks": 0, "done": False}

    def poll():
        seen["ticks"] += 1
        dialog = _progress_dialog(window)
        if not seen["done"] and dialog is not None and dialog.isVisible():
            seen["done"] = True
            action(dialog)

    timer = QTimer(window)
    timer.timeout.connect(poll)
    timer.start(5)
    return seen, timer


def _click_cancel(dialog):
    from PySide6.QtWidgets import QPushButton

    dialog.findChild(QPushButton).click()


def test_opening_runs_on_a_worker_and_cancel_keeps_the_points(qtbot, tmp_path, window, monkeypatch):
    import threading

    from PySide6.QtCore import QThreadPool

    from simulator.app import documents, file_tasks

    gate = threading.Event()

    def slow_load(path, cancelled=None):
        assert threading.current_thread() is not threading.main_thread()
        gate.wait(30)
        return load_preset("and")

    monkeypatch.setattr(documents, "load_dataset", slow_load)
    monkeypatch.setattr(file_tasks, "SHOW_AFTER_MS", 0)
    window.controller.set_dataset(load_preset("or"))
    path = tmp_path / "big.csv"
    path.write_text("x1,x2,label\n0,0,1\n")
    seen, timer = _while_busy(qtbot, window, _click_cancel)
    assert not window.open_file(path)  # returns at Cancel, while the worker still waits
    timer.stop()
    assert seen["done"] and seen["ticks"] >= 1  # the event loop ran during the load
    assert window.controller.dataset == load_preset("or")
    assert "cancelled" in window.statusBar().currentMessage()
    gate.set()
    QThreadPool.globalInstance().waitForDone()  # the worker has returned its result
    deliver_posted_events()  # what it posted arrives, and is dropped
    assert window.controller.dataset == load_preset("or")


def test_a_slow_open_finishes_with_the_new_points(qtbot, tmp_path, window, monkeypatch):
    import threading

    from simulator.app import documents, file_tasks

    gate = threading.Event()
    real = documents.load_dataset

    def slow_load(path, cancelled=None):
        gate.wait(30)
        return real(path)

    monkeypatch.setattr(documents, "load_dataset", slow_load)
    monkeypatch.setattr(file_tasks, "SHOW_AFTER_MS", 0)
    path = tmp_path / "mine.csv"
    path.write_text("x1,x2,label\n0,1,1\n2,3,0\n")
    seen, timer = _while_busy(qtbot, window, lambda dialog: gate.set())
    assert window.open_file(path)
    timer.stop()
    assert seen["done"]
    assert window.controller.dataset.labels.tolist() == [1, -1]
    assert _progress_dialog(window) is None or not _progress_dialog(window).isVisible()


def test_input_during_a_slow_open_does_nothing(qtbot, tmp_path, window, monkeypatch):
    """Before the progress dialog is up (SHOW_AFTER_MS), the window takes no input: a
    second Open, a Step, a click on the plot and closing are dropped, not run mid-open."""
    import threading

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QFileDialog

    from simulator.app import documents

    gate = threading.Event()
    real = documents.load_dataset
    loads, asked = [], []

    def slow_load(path, cancelled=None):
        loads.append(path)
        gate.wait(30)
        return real(path)

    monkeypatch.setattr(documents, "load_dataset", slow_load)
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    first.write_text("x1,x2,label\n0,1,1\n2,3,0\n")
    second.write_text("x1,x2,label\n5,5,1\n")
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: asked.append(1) or (str(second), "")
    )
    closed = []

    def meanwhile():  # inside the first Open's wait, before the dialog shows
        qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(window, Qt.Key.Key_Space)
        click(qtbot, window.plot, 0.5, 0.5)
        closed.append(window.close())
        gate.set()

    QTimer.singleShot(0, meanwhile)
    assert window.open_file(first)
    assert loads == [first] and asked == [] and closed == [False]
    c = window.controller
    assert c.dataset.labels.tolist() == [1, -1] and c.simulation.trials == 0
    assert window.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_Space)  # afterwards, input works again
    assert c.simulation.trials == 1


def test_a_cancelled_save_leaves_the_old_file(qtbot, tmp_path, window, monkeypatch):
    import threading

    from PySide6.QtCore import QThreadPool

    from simulator.app import file_tasks
    from simulator.engine import Dataset

    gate = threading.Event()
    real = Dataset.to_csv

    def slow_csv(self):
        gate.wait(30)
        return real(self)

    monkeypatch.setattr(Dataset, "to_csv", slow_csv)
    monkeypatch.setattr(file_tasks, "SHOW_AFTER_MS", 0)
    path = tmp_path / "p.csv"
    path.write_text("old contents\n")
    window.controller.set_dataset(load_preset("or"))
    window.controller.add_point(0.5, 0.5, 1)
    seen, timer = _while_busy(qtbot, window, _click_cancel)
    assert not window.save_to(path)
    timer.stop()
    assert seen["done"]
    gate.set()
    QThreadPool.globalInstance().waitForDone()
    assert path.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]  # no temporary left
    assert window.isWindowModified()


def test_starting_with_3d_data_opens_the_high_dimensional_view(qtbot, dialogs):
    from simulator.ui import MainWindow

    window = MainWindow(Dataset([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0]], [1, -1]))
    qtbot.addWidget(window)
    assert window.views.currentWidget() is window.high_dim
    assert len(window.controller.dataset) == 2 and dialogs.shown == []


def test_view_pos_round_trip(window):
    vb = window.plot.getPlotItem().vb
    pos = view_pos(window.plot, 1.25, -0.5)
    back = vb.mapSceneToView(window.plot.mapToScene(pos))
    assert back.x() == pytest.approx(1.25, abs=0.02) and back.y() == pytest.approx(-0.5, abs=0.02)


def test_one_point_menu_serves_every_right_click(qtbot, window):
    from PySide6.QtWidgets import QMenu

    window.controller.set_dataset(Dataset([[0.0, 0.0], [1.0, 1.0]], [1, -1]))
    window.plot.point_menu(0)
    made = len(window.plot.findChildren(QMenu))  # the menu and its (hidden) Class submenu
    menus = {id(window.plot.point_menu(i)) for i in (0, 1, 0, 1)}
    assert len(menus) == 1 and len(window.plot.findChildren(QMenu)) == made == 2
    actions = {a.text(): a for a in window.plot.point_menu(1).actions()}
    actions["Flip label"].trigger()  # acts on the point it was opened for
    assert window.controller.dataset.labels.tolist() == [1, 1]


def test_delete_and_flip_are_enabled_only_while_a_point_is_selected(qtbot, window):
    window.controller.set_dataset(Dataset([[0.0, 0.0], [1.0, 1.0]], [1, -1]))
    window.plot.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
    assert not window.delete_action.isEnabled() and not window.flip_action.isEnabled()
    click(qtbot, window.plot, 1.0, 1.0)
    assert window.plot.selected == 1
    assert window.delete_action.isEnabled() and window.flip_action.isEnabled()
    window.delete_action.trigger()
    assert len(window.controller.dataset) == 1
    assert not window.delete_action.isEnabled() and not window.flip_action.isEnabled()
