"""The trial ledger: rows, a hand-worked trace, click to seek, mistakes only, copying."""

import csv
import io

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.numbers import format_number, parse_number
from simulator.engine.presets import noisy
from simulator.ui import MainWindow
from simulator.ui.ledger import COLUMNS
from tests.helpers.driven import deliver_posted_events

# Two points, perceptron, η = 1, bias, cyclic, w₀ = 0, worked by hand:
#   t  x          y   s = w·x  verdict        w after
#   1  (1, 0, 0)  -1  0        tie: mistake   (-1, 0, 0)
#   2  (1, 1, 1)  +1  -1       mistake        (0, 1, 1)
#   3  (1, 0, 0)  -1  0        tie: mistake   (-1, 1, 1)
#   4  (1, 1, 1)  +1  1        correct        (-1, 1, 1)
#   5  (1, 0, 0)  -1  -1       correct        (-1, 1, 1)
M = "\u2212"  # the true minus sign every number is written with
HAND = [
    ("1", "1", "#1", "(1, 0, 0)", f"{M}1", "0", "tie: mistake", f"({M}1, 0, 0)", f"({M}1, 0, 0)"),
    ("2", "1", "#2", "(1, 1, 1)", "+1", f"{M}1", "mistake", "(1, 1, 1)", "(0, 1, 1)"),
    ("3", "2", "#1", "(1, 0, 0)", f"{M}1", "0", "tie: mistake", f"({M}1, 0, 0)", f"({M}1, 1, 1)"),
    ("4", "2", "#2", "(1, 1, 1)", "+1", "1", "correct", "0", f"({M}1, 1, 1)"),
    ("5", "3", "#1", "(1, 0, 0)", f"{M}1", f"{M}1", "correct", "0", f"({M}1, 1, 1)"),
]


def make_window(qtbot, dataset, settings=None):
    win = MainWindow(dataset, settings or Settings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.time.area_action.setChecked(True)
    win.time.tabs.setCurrentWidget(win.time.ledger)
    return win


@pytest.fixture
def two_points(qtbot):
    win = make_window(qtbot, Dataset([[0.0, 0.0], [1.0, 1.0]], [-1, 1]))
    for _ in range(5):
        win.controller.step()
    yield win
    win.controller.undo_stack.setClean()


def cells(model, row):
    return tuple(model.index(row, c).data() for c in range(model.columnCount()))


def test_the_columns_and_a_trace_worked_by_hand(two_points):
    model = two_points.time.ledger.model
    view = two_points.findChild(type(two_points.time.ledger.view), "ledgerView")
    assert view is two_points.time.ledger.view
    header = tuple(model.headerData(c, Qt.Orientation.Horizontal) for c in range(len(COLUMNS)))
    assert header == ("trial", "epoch", "point", "x", "y", "s", "verdict", "Δw", "w")
    assert model.rowCount() == 5
    assert [cells(model, r) for r in range(5)] == HAND


def test_numbers_keep_four_significant_digits_as_the_panel_writes_them(qtbot):
    win = make_window(qtbot, Dataset([[0.123456789, -2.5e-7]], [1]))
    win.controller.step()
    row = cells(win.time.ledger.model, 0)
    assert row[3] == f"(1, 0.1235, {M}2.5e{M}7)"
    assert [parse_number(v) for v in row[3].strip("()").split(", ")] == pytest.approx(
        [1, 0.123456789, -2.5e-7], rel=5e-4
    )
    # The same digits as the panel's w and the strip's arithmetic.
    assert win.theory.weights.text() in row[8].strip("()")
    win.controller.undo_stack.setClean()


def test_rows_follow_the_history_and_the_future_is_grey(qtbot, two_points):
    c = two_points.controller
    model = two_points.time.ledger.model
    c.seek(2)
    assert model.rowCount() == 5  # the recorded future stays listed
    bold = model.index(1, 0).data(Qt.ItemDataRole.FontRole)
    assert bold is not None and bold.bold()
    assert model.index(3, 0).data(Qt.ItemDataRole.ForegroundRole) is not None  # grey
    assert model.index(0, 0).data(Qt.ItemDataRole.ForegroundRole) is None
    c.step()  # stepping on replaces the future
    assert model.rowCount() == 3
    assert cells(model, 2) == HAND[2]
    c.simulation.run(3)
    c.step()
    assert model.rowCount() == 7
    assert cells(model, 4) == HAND[4]


def test_clicking_a_row_seeks_to_its_trial(qtbot, two_points):
    c = two_points.controller
    view = two_points.time.ledger.view
    rect = view.visualRect(view.model().index(1, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert c.simulation.trials == 2
    assert c.simulation.weights.tolist() == [0.0, 1.0, 1.0]
    assert two_points.theory.trial.text() == "2"


def test_mistakes_only_lists_the_mistakes_and_seeks_to_them(qtbot):
    win = make_window(qtbot, load_preset("separable"))
    c = win.controller
    c.simulation.run(1000)
    c.step()
    ledger = win.time.ledger
    ledger.mistakes_only.setChecked(True)
    model = ledger.model
    reference = Simulation.from_settings(c.dataset, c.settings)
    mistakes = [
        t.number for t in (reference.step() for _ in range(c.simulation.trials)) if t.mistake
    ]
    assert model.rowCount() == len(mistakes) >= 5
    assert [int(model.index(r, 0).data()) for r in range(model.rowCount())] == mistakes
    assert {model.index(r, 6).data() for r in range(model.rowCount())} <= {
        "mistake",
        "tie: mistake",
    }
    rect = ledger.view.visualRect(model.index(3, 0))
    qtbot.mouseClick(ledger.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert c.simulation.trials == mistakes[3] and c.simulation.mistakes == 4
    ledger.mistakes_only.setChecked(False)
    assert model.rowCount() == c.simulation.history_length
    c.undo_stack.setClean()


def test_copy_selected_rows_as_tab_separated_text_and_csv(qtbot, two_points):
    view = two_points.time.ledger.view
    view.setFocus()
    view.selectRow(1)
    view.selectionModel().select(
        view.model().index(3, 0),
        view.selectionModel().SelectionFlag.Select | view.selectionModel().SelectionFlag.Rows,
    )
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    text = QApplication.clipboard().text()
    assert text.splitlines() == ["\t".join(COLUMNS), "\t".join(HAND[1]), "\t".join(HAND[3])]
    text = view.copy_rows(",")
    assert list(csv.reader(io.StringIO(text))) == [list(COLUMNS), list(HAND[1]), list(HAND[3])]
    assert '"(1, 1, 1)"' in text  # vectors are quoted for spreadsheets


def test_copy_with_nothing_selected_says_so(two_points):
    view = two_points.time.ledger.view
    messages = []
    view.message.connect(messages.append)
    view.clearSelection()
    assert view.copy_rows() == "" and messages


@pytest.mark.slow  # a million-trial history
def test_a_long_history_is_read_only_where_it_is_shown(qtbot):
    win = make_window(qtbot, noisy(n=200, seed=3))
    c = win.controller
    c.simulation.run(199_999, until_converged=False)
    c.step()
    model = win.time.ledger.model
    assert model.rowCount() == 200_000
    deliver_posted_events()  # the table paints the rows on screen
    view = win.time.ledger.view
    assert model.fetches <= 2  # only the rows on screen were replayed
    view.scrollToBottom()
    QApplication.processEvents()
    assert model.fetches <= 4
    last = view.model().index(199_999, 0)
    assert last.data() == "200000"
    assert (
        last.siblingAtColumn(8).data()
        == "(" + ", ".join(format_number(w) for w in c.simulation.weights.tolist()) + ")"
    )
    c.undo_stack.setClean()


def test_a_new_run_empties_the_ledger(two_points):
    two_points.controller.reset()
    assert two_points.time.ledger.model.rowCount() == 0
    two_points.controller.step()
    assert cells(two_points.time.ledger.model, 0) == HAND[0]


def test_the_ledger_keeps_the_current_trial_in_sight(qtbot):
    win = make_window(qtbot, noisy(n=100, seed=1))
    c = win.controller
    view = win.time.ledger.view
    win.time.tabs.setCurrentIndex(0)  # hidden while the run moves on
    c.simulation.run(2999, until_converged=False)
    c.step()
    win.time.tabs.setCurrentWidget(win.time.ledger)
    QApplication.processEvents()
    assert view.rowAt(view.viewport().height() - 2) >= 2990  # row of trial 3000 in sight
    c.seek(1500)
    QApplication.processEvents()
    rows = {view.rowAt(y) for y in range(0, view.viewport().height(), 4)}
    assert 1499 in rows
    c.undo_stack.setClean()
