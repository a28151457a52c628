"""The stage (issue 20): the secondary views at lecture size, in true words.

- The ledger: ≥ 20 px type in presentation mode; the verdict, Δw and w in sight at 1024 px
  wide (case 5).
- Words that are true (case 7): one formatter, true minus signs, the same digits in the
  panel, the strip and the ledger; each bound says whose it is.
- The theory box keeps no blank rows (case 9).
"""

import math
import re

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFontInfo, QFontMetrics

from simulator.engine import Settings, load_preset
from simulator.presentation.format import format_number, format_tick, format_vector, parse_number
from simulator.ui import MainWindow, style
from tests.helpers.driven import deliver_posted_events


def stage_window(qtbot, preset, settings=None, *, trials=0, size=(1024, 768), presentation=True):
    """A window as a teacher has it on a projector: `preset` run `trials` trials."""
    win = MainWindow(load_preset(preset), settings or Settings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.resize(*size)
    win.presentation_action.setChecked(presentation)
    if trials:
        win.controller.simulation.run(trials - 1, until_converged=False)
        win.controller.step()
    qtbot.waitUntil(lambda: win.size().width() == size[0])
    deliver_posted_events()
    return win


def close(win):
    win.controller.pause()
    win.controller.undo_stack.setClean()


# -- case 5: the ledger ------------------------------------------------------------------------


def show_ledger(win):
    win.time.area_action.setChecked(True)
    win.time.tabs.setCurrentWidget(win.time.ledger)
    deliver_posted_events()
    return win.time.ledger.view


def column_in_sight(view, name):
    """The column is shown and lies whole inside the viewport (no scrolling to see it)."""
    from simulator.ui.ledger import COLUMNS

    column = COLUMNS.index(name)
    if view.isColumnHidden(column):
        return False
    left = view.columnViewportPosition(column)
    return left >= 0 and left + view.columnWidth(column) <= view.viewport().width()


def cell_fits(view, row, name):
    """The cell's text fits its column, on as many lines as the ledger's rows have."""
    from simulator.ui.ledger import COLUMNS

    column = COLUMNS.index(name)
    text = view.model().index(row, column).data()
    bold = view.font()
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    room = view.columnWidth(column) - 6
    if view.lines > 1:
        wrapped = metrics.boundingRect(QRect(0, 0, room, 10_000), 0x1000, text)  # word wrap
        return wrapped.height() <= view.lines * metrics.height() and all(
            metrics.horizontalAdvance(word) <= room for word in text.split(" ")
        )
    return metrics.horizontalAdvance(text) <= room


@pytest.mark.parametrize(
    ("preset", "settings", "trials"),
    [
        ("iris", Settings(), 60),
        ("or", Settings(), 8),
        ("noisy", Settings("adaline"), 65),
        ("cmu", Settings(bias=False), 5),
    ],
)
def test_the_ledger_is_lecture_sized_and_shows_verdict_dw_and_w_at_1024(
    qtbot, preset, settings, trials
):
    win = stage_window(qtbot, preset, settings, trials=trials)
    view = show_ledger(win)
    assert QFontInfo(view.font()).pixelSize() >= 20
    assert QFontInfo(view.horizontalHeader().font()).pixelSize() >= 20
    current = view.model().row_of(trials)
    for name in ("trial", "verdict", "Δw", "w"):
        assert column_in_sight(view, name), (name, view.hidden_columns)
        for row in range(max(0, current - 2), current + 1):
            assert cell_fits(view, row, name), (name, view.model().index(row, 0).data())
    close(win)


def test_the_ledger_shows_every_column_where_there_is_room(qtbot):
    win = stage_window(qtbot, "iris", trials=60, size=(1920, 1080))
    view = show_ledger(win)
    assert view.hidden_columns == ()
    assert view.lines == 1
    from simulator.ui.ledger import COLUMNS

    for name in COLUMNS:
        assert column_in_sight(view, name), name
        assert cell_fits(view, view.model().row_of(60), name), name
    close(win)


def test_the_current_row_is_bold_in_the_ledger_s_own_type(qtbot):
    win = stage_window(qtbot, "or", trials=3)
    view = show_ledger(win)
    font = view.model().index(view.model().row_of(3), 0).data(6)  # Qt.FontRole
    assert font.bold() and QFontInfo(font).pixelSize() >= style.PRESENTATION_TICK_PX
    win.presentation_action.setChecked(False)
    deliver_posted_events()
    font = view.model().index(view.model().row_of(3), 0).data(6)
    assert font.bold() and QFontInfo(font).pixelSize() < style.PRESENTATION_TICK_PX
    close(win)


# -- case 9: the theory box keeps no blank rows ----------------------------------------------


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize(
    ("preset", "settings", "trials"),
    [("iris", Settings(), 60), ("or", Settings(features="cubic"), 1), ("xor", Settings(), 0)],
)
def test_the_theory_box_keeps_no_blank_rows(qtbot, size, presentation, preset, settings, trials):
    win = stage_window(qtbot, preset, settings, trials=trials, size=size, presentation=presentation)
    theory = win.theory
    box = theory.theory_box
    shown = [w for w in box.findChildren(type(theory.gamma)) if w.isVisible()]
    assert theory.weights in shown
    for label in shown:  # each value as tall as its text, not as a text it might once have
        metrics = QFontMetrics(label.font())
        room = QRect(0, 0, label.contentsRect().width(), 10_000)
        text = metrics.boundingRect(room, 0x1000, label.text()).height()  # word-wrapped
        assert label.height() <= max(text, metrics.height()) + 4, (label.objectName(), text)
    # Nothing under the last row but the box's own margin.
    bottom = max(QRect(w.mapTo(box, QPoint(0, 0)), w.size()).bottom() for w in shown)
    assert box.contentsRect().bottom() - bottom <= 16
    close(win)


# -- case 7: words that are true -------------------------------------------------------------

HYPHEN_MINUS = re.compile(r"(?<![\w)])-(?=[\d.∞])")  # "-1.5" written with an ASCII hyphen


def test_the_one_formatter_writes_true_minus_signs_and_four_digits():
    assert format_number(-5.10517) == "−5.105"
    assert format_number(51387.4) == "51387"  # every digit before the point
    assert format_number(0.0389225) == "0.03892"
    assert format_number(65.2013) == "65.2"
    assert format_number(3e121) == "3e121" and format_number(-1.2e-7) == "−1.2e−7"
    assert format_number(-math.inf) == "−∞" and format_number(math.nan) == "—"
    assert format_vector((0.0, -1.9, 0.3)) == "0, −1.9, 0.3"
    for value in (-5.10517, 3e121, -1.2e-7, 0.0001234, 123456.7, -0.5):
        assert parse_number(format_number(value)) == pytest.approx(value, rel=5e-4)
    assert format_tick(3e121, 1e121) == "3e121" and format_tick(-20.0, 10.0) == "−20"
    assert format_tick(0.30000000000000004, 0.1) == "0.3" and format_tick(1e-17, 0.5) == "0"


def test_panel_strip_and_ledger_write_the_same_numbers_with_true_minus_signs(qtbot):
    win = stage_window(qtbot, "noisy", Settings("adaline"), trials=65, presentation=False)
    view = show_ledger(win)
    weights = win.theory.weights.text()
    strip = win.explanation.text()
    ledger = view.model().index(view.model().row_of(65), 8).data()
    assert f"= ({weights})." in strip  # the strip's w after the update
    assert ledger == f"({weights})"
    assert "−" in weights + strip + ledger
    row = [view.model().index(view.model().row_of(65), c).data() for c in range(9)]
    panel = [w.text() for w in win.theory.findChildren(type(win.theory.gamma)) if w.isVisible()]
    for text in (strip, *row, *panel):
        assert not HYPHEN_MINUS.search(text), text
    close(win)


def test_each_bound_says_whose_it_is(qtbot):
    win = stage_window(qtbot, "disjunction", Settings("winnow", bias=False), trials=120)
    theory = win.theory
    assert theory.bound_label.text() == "Perceptron's bound R²/γ*²"  # the data's R²/γ*²
    assert theory.gauge.text().endswith("of at most 65 (Winnow's bound)")
    win.controller.update_settings(algorithm="perceptron", bias=True)
    deliver_posted_events()
    assert theory.bound_label.text() == "Bound R²/γ*²"  # one bound: the perceptron's own
    assert "bound)" not in theory.gauge.text()
    close(win)
