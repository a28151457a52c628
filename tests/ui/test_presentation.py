"""What the class came to see stays on screen and readable (DESIGN "Presentation").

At 1024×768 and 1920×1080, normal and presentation mode: every value of the side panel is
inside the window, inside the side panel's visible area (no scrolling), and shown whole
(its text fits its label), even with the longest numbers a run can produce; the panel does
not move as texts change; presentation type is lecture-hall size.
"""

from dataclasses import replace

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFontInfo, QFontMetrics
from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel

from simulator.engine import Settings, load_preset
from simulator.engine.numbers import format_vector
from simulator.ui import style
from simulator.ui.panels import ValueLabel
from tests.helpers.driven import deliver_posted_events, sized

SIZES = [(1024, 768), (1920, 1080)]
VALUES = (
    "gammaValue",
    "marginValue",
    "radiusValue",
    "boundValue",
    "mistakesValue",
    "gaugeValue",
    "trialValue",
    "epochValue",
    "weightsValue",
)


def longest_numbers(frame):
    """`frame` with the longest texts a long run can show (millions of Winnow trials)."""
    snapshot = replace(
        frame.snapshot,
        trials=1_234_567_890,
        mistakes=123_456_789,
        epoch=98_765_432,
        weights=(-1.23457e-300, -7387.12, -1.47788e300),
        margin=-1.23457e-300,
    )
    report = replace(frame.report, gamma=-1.23457e-300, radius=1.23457e300, bound=1.23457e300)
    bound = frame.bound and replace(frame.bound, value=1.23457e300)
    return replace(frame, snapshot=snapshot, report=report, bound=bound)


def shown_whole(label: QLabel) -> bool:
    """The label's text fits its room: no character cut off or elided."""
    metrics = QFontMetrics(label.font())
    room = label.contentsRect()
    words = label.text().replace("<br>", " ").split() if label.wordWrap() else [label.text()]
    if any(metrics.horizontalAdvance(word) > room.width() for word in words):
        return False
    if label.wordWrap():
        return label.heightForWidth(label.width()) <= label.height()
    return metrics.height() <= room.height()


def on_screen(window, widget) -> bool:
    """Inside the window and inside the side panel's visible area (no scrolling needed)."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    viewport = window.side_scroll.viewport()
    in_view = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    return window.rect().contains(rect) and viewport.rect().contains(in_view)


def settle(qtbot, window, size):
    sized(window, size)
    qtbot.waitUntil(lambda: window.size().width() == size[0])
    deliver_posted_events()


@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("preset", "settings", "trials"),
    [
        ("iris", Settings(), 1562),
        ("separable", Settings(algorithm="winnow"), 3000),
        ("or", Settings(algorithm="adaline"), 40),
    ],
)
def test_every_value_is_on_screen_and_whole(
    qtbot, window, size, presentation, preset, settings, trials
):
    window.controller.set_settings(settings)
    window.controller.set_dataset(load_preset(preset))
    window.controller.simulation.run(trials - 1, until_converged=False)
    window.controller.step()
    window.presentation_action.setChecked(presentation)
    for frame in (window.controller.frame, longest_numbers(window.controller.frame)):
        window.controller.frame_changed.emit(frame)
        settle(qtbot, window, size)
        if presentation:  # the numbers are in the band over the plot, the panel is hidden
            assert not window.side_scroll.isVisible()
            for cell in ("gamma", "radius", "bound", "mistakes", "trial", "epoch"):
                label = window.band.values[cell]
                place = QRect(label.mapTo(window, QPoint(0, 0)), label.size())
                assert label.isVisible() and window.rect().contains(place), cell
                assert shown_whole(label), (cell, label.text())
            weights = window.band.values["weights"]
            assert weights.toolTip().replace(" |", ",") == format_vector(frame.snapshot.weights)
        for name in () if presentation else VALUES:
            label = window.findChild(QLabel, name)
            if name == "gaugeValue" and frame.mistake_bound is None:
                assert not label.isVisible()
                continue
            assert label.isVisible(), name
            assert on_screen(window, label), (name, label.text())
            assert shown_whole(label), (name, label.text())
        explanation = window.explanation
        assert window.rect().contains(
            QRect(explanation.mapTo(window, QPoint(0, 0)), explanation.size())
        )
        assert shown_whole(explanation)


def test_the_panel_never_grows_wider_than_its_room(qtbot, window):
    """Millions of trials and huge weights: the side panel keeps its width."""
    window.controller.set_dataset(load_preset("separable"))
    settle(qtbot, window, (1024, 768))
    width = window.side_scroll.width()
    window.controller.frame_changed.emit(longest_numbers(window.controller.frame))
    settle(qtbot, window, (1024, 768))
    assert window.side_scroll.width() == width
    side = window.side_scroll.widget()
    assert side.width() <= window.side_scroll.viewport().width()


@pytest.mark.parametrize("presentation", [False, True])
def test_the_numbers_do_not_move_as_texts_change(qtbot, window, presentation):
    window.presentation_action.setChecked(presentation)
    window.controller.set_dataset(load_preset("or"))
    settle(qtbot, window, (1024, 768))

    def places():
        return {
            name: window.findChild(QLabel, name).mapTo(window, QPoint(0, 0))
            for name in VALUES
            if name != "gaugeValue"
        }

    first = places()
    status = window.theory.status.text()
    window.controller.simulation.run(23)  # OR converges at trial 24: a longer status
    window.controller.step()
    settle(qtbot, window, (1024, 768))
    assert window.theory.status.text() != status
    assert window.theory.weights.text() != "0, 0, 0"
    assert places() == first


def test_presentation_type_is_lecture_hall_size(qtbot, window):
    window.controller.set_dataset(load_preset("iris"))
    window.controller.step()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.presentation_action.isChecked()
    settle(qtbot, window, (1024, 768))
    side = window.run_row  # the run buttons and the speed
    shown = [
        w for w in side.findChildren(QLabel) + side.findChildren(QAbstractButton) if w.isVisible()
    ]
    shown += [window.settings_strip, window.band.status, *window.band.values.values()]
    assert len(shown) >= 16 and all(w.isVisible() for w in shown)
    for widget in shown:
        assert QFontInfo(widget.font()).pixelSize() >= 24, (widget.objectName(), widget.text())
    for box in side.findChildren(QGroupBox):
        assert not box.isVisible() or QFontInfo(box.font()).pixelSize() >= 24
    values = [w for w in side.findChildren(ValueLabel) if w.isVisible()]
    assert all(QFontInfo(w.font()).pixelSize() >= style.PRESENTATION_VALUE_PX for w in values)
    assert QFontInfo(window.explanation.font()).pixelSize() >= 24
    assert QFontInfo(window.plot.tick_font()).pixelSize() >= 18
    # The learner settings are hidden; the rule is named instead.
    assert not window.controls.learner_box.isVisible()
    assert window.settings_strip.toolTip().startswith("Perceptron (η = 1)")
    assert window.theory.rule_title.text().startswith("Perceptron")
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert not window.presentation_action.isChecked()
    assert window.controls.learner_box.isVisible() and not window.theory.rule_title.isVisible()
    assert QFontInfo(window.theory.gamma.font()).pixelSize() < 24


def test_presentation_mode_fills_the_screen_and_leaving_it_gives_the_window_back(qtbot, window):
    maximized = Qt.WindowState.WindowMaximized
    assert not window.windowState() & maximized
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.windowState() & maximized
    room = window.screen().availableGeometry()
    qtbot.waitUntil(lambda: window.width() >= room.width() - 8)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert not window.windowState() & maximized
    window.showMaximized()  # a teacher's own maximized window stays so
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.windowState() & maximized
