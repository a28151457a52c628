"""The timeline: the slider seeks to the exact state, step back, Backspace, mistake ticks."""

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor

from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.ui import MainWindow
from simulator.ui.timeline import SeekThrottle, tick_counts
from tests.helpers.driven import ManualClock, deliver_posted_events


@pytest.fixture
def lesson(qtbot):
    """A window on the separable preset, run 100 trials (past several mistakes)."""
    win = MainWindow(load_preset("separable"), Settings())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.controller.simulation.run(99)
    win.controller.step()
    yield win
    win.controller.pause()
    win.controller.undo_stack.setClean()


def replayed(dataset, settings, t):
    """An independent run: a fresh simulation stepped t times."""
    sim = Simulation.from_settings(dataset, settings)
    for _ in range(t):
        sim.step()
    return sim


def drag_to(window, t):
    """Move the timeline as a user would (pressed, moved, released)."""
    slider = window.time.timeline.slider
    slider.setSliderDown(True)
    slider.setValue(t)
    slider.setSliderDown(False)  # emits sliderReleased: the last position is sought


@pytest.mark.parametrize("t", [0, 1, 17, 63, 99])
def test_the_slider_seeks_to_the_exact_state_of_an_independent_run(lesson, t):
    c = lesson.controller
    drag_to(lesson, t)
    sim = c.simulation
    reference = replayed(c.dataset, c.settings, t)
    assert sim.trials == t and sim.history_length == 100
    assert sim.weights.tolist() == reference.weights.tolist()  # bit for bit
    assert sim.mistakes == reference.mistakes
    assert sim.snapshot().misclassified.tolist() == reference.snapshot().misclassified.tolist()
    assert lesson.theory.trial.text() == str(t)
    assert lesson.time.timeline.slider.maximum() == 100
    label = lesson.time.timeline.position.text()
    assert label == (f"t = {t} of 100" if t < 100 else "t = 100")


def test_a_burst_of_slider_moves_seeks_once_and_the_last_position_wins(qtbot, lesson):
    c = lesson.controller
    frames = []
    c.frame_changed.connect(frames.append)
    slider = lesson.time.timeline.slider
    slider.setSliderDown(True)
    for t in range(90, 10, -3):  # many moves before the event loop runs
        slider.setValue(t)
    assert frames == [] and lesson.time.timeline.throttle.pending == 12
    slider.setValue(37)
    slider.setSliderDown(False)
    assert len(frames) == 1 and c.simulation.trials == 37
    assert c.simulation.weights.tolist() == replayed(c.dataset, c.settings, 37).weights.tolist()
    deliver_posted_events()
    throttle = lesson.time.timeline.throttle
    assert not throttle.timer.isActive() and throttle.pending is None  # nothing fires later
    assert len(frames) == 1 and slider.value() == 37


def test_while_dragging_a_seek_fires_from_the_timer_and_frames_leave_the_handle(lesson):
    c = lesson.controller
    throttle = lesson.time.timeline.throttle
    slider = lesson.time.timeline.slider
    slider.setSliderDown(True)
    slider.setValue(50)
    assert c.simulation.trials == 100 and throttle.timer.isActive()  # not yet: the timer's
    throttle.timer.timeout.emit()  # as the event loop does, still dragging
    assert c.simulation.trials == 50
    slider.setValue(20)  # the user moved on; a frame for 50 must not pull the handle back
    lesson.time.show_frame(c.frame)
    assert slider.value() == 20
    slider.setSliderDown(False)
    assert c.simulation.trials == 20


def test_the_throttle_coalesces_requests_and_fires_the_last():
    throttle = SeekThrottle(interval_ms=1000)
    fired = []
    throttle.fired.connect(fired.append)
    for value in (5, 9, 2):
        throttle.request(value)
    throttle.flush()
    throttle.flush()  # nothing pending: nothing fires
    assert fired == [2]


def test_the_throttle_fires_at_most_once_an_interval_by_its_clock(qapp):
    clock = ManualClock()
    throttle = SeekThrottle(interval_ms=32, clock=clock)
    fired = []
    throttle.fired.connect(fired.append)
    throttle.request(5)
    assert throttle.timer.isActive() and throttle.timer.interval() == 0  # the first: at once
    throttle.timer.timeout.emit()
    assert fired == [5] and not throttle.timer.isActive()
    clock.advance(1 / 128)  # 7.8 ms later: 24.2 ms to go
    throttle.request(6)
    throttle.request(7)
    assert throttle.timer.isActive() and throttle.timer.interval() == 25
    throttle.timer.timeout.emit()  # woken early: waits on, nothing fires
    assert fired == [5] and throttle.timer.isActive() and throttle.pending == 7
    clock.advance(3 / 128)  # 31.25 ms after the first: still not due
    throttle.timer.timeout.emit()
    assert fired == [5] and throttle.timer.interval() == 1
    clock.advance(1 / 128)
    throttle.timer.timeout.emit()
    assert fired == [5, 7] and not throttle.timer.isActive() and throttle.pending is None
    throttle.timer.timeout.emit()  # nothing pending: nothing fires
    assert fired == [5, 7]
    throttle.timer.stop()


def test_seeking_pauses_a_run(lesson):
    c = lesson.controller
    c.set_dataset(load_preset("noisy"))
    c.clock, c.tick_budget = ManualClock(), math.inf  # exactly the trials the clock allows
    c.set_speed(1024)
    c.run()
    c.clock.advance(1 / 4)
    assert c.advance(1) == 256 and c.running
    drag_to(lesson, 50)
    assert not c.running and c.simulation.trials == 50
    assert not lesson.controls.run_button.isChecked()


def test_step_back_button_and_backspace_go_back_one_trial(qtbot, lesson):
    c = lesson.controller
    button = lesson.findChild(type(lesson.time.timeline.back_button), "stepBackButton")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert c.simulation.trials == 99
    qtbot.keyClick(lesson, Qt.Key.Key_Backspace)
    assert c.simulation.trials == 98
    assert c.simulation.weights.tolist() == replayed(c.dataset, c.settings, 98).weights.tolist()
    assert lesson.time.timeline.slider.value() == 98
    drag_to(lesson, 0)
    assert not button.isEnabled()
    qtbot.keyClick(lesson, Qt.Key.Key_Backspace)  # nothing before trial 0
    assert c.simulation.trials == 0


def test_backspace_steps_back_and_delete_deletes_the_selected_point(qtbot, lesson):
    c = lesson.controller
    points = len(c.dataset)
    lesson.plot.set_selected(3)
    lesson.plot.setFocus()
    qtbot.keyClick(lesson.plot, Qt.Key.Key_Backspace)
    assert len(c.dataset) == points and c.simulation.trials == 99
    qtbot.keyClick(lesson.plot, Qt.Key.Key_Delete)
    assert len(c.dataset) == points - 1


def test_stepping_on_from_a_rewound_state_replaces_the_future(qtbot, lesson):
    c = lesson.controller
    drag_to(lesson, 30)
    c.add_point(0.1, 0.2, 1)  # other data from here on
    qtbot.keyClick(lesson, Qt.Key.Key_Space)
    assert c.simulation.trials == 31 and c.simulation.history_length == 31
    slider = lesson.time.timeline.slider
    assert slider.maximum() == 31 and slider.value() == 31
    assert lesson.time.timeline.position.text() == "t = 31"


def test_an_unrecorded_trial_is_clamped_not_raised(lesson):
    c = lesson.controller
    c.seek(10**9)
    assert c.simulation.trials == 100
    c.seek(-5)
    assert c.simulation.trials == 0


@settings(max_examples=60)
@given(
    mistakes=st.lists(st.integers(1, 5000), max_size=60, unique=True).map(sorted),
    last=st.integers(1, 5000),
    columns=st.integers(1, 400),
)
def test_tick_columns_count_each_mistake_in_the_column_it_rounds_to(mistakes, last, columns):
    array = np.array(mistakes, dtype=np.int64)
    counts = tick_counts(array, 0, last, columns)
    expected = [0] * columns
    step = last / max(1, columns - 1)
    for t in mistakes:
        column = math.floor(t / step + 0.5)
        if 0 <= column < columns:
            expected[column] += 1
    assert counts.tolist() == expected


def test_the_ticks_are_painted_where_the_mistakes_are(qtbot, lesson):
    """Past mistakes black, the recorded future grey, nothing in between (above the groove)."""
    c = lesson.controller
    drag_to(lesson, 50)
    slider = lesson.time.timeline.slider
    image = slider.grab().toImage()
    mistakes = c.simulation.mistake_trials().tolist()
    assert min(mistakes) < 50 < max(mistakes)
    rows = range(image.height() // 2 - 8, image.height() // 2 - 4)  # ticks, not the groove
    handle = slider.x_of(50)

    def darkest(t):
        x = round(slider.x_of(t))
        return min(QColor(image.pixel(x + dx, y)).lightness() for dx in (-1, 0, 1) for y in rows)

    def clear_of_handle(t):
        return abs(slider.x_of(t) - handle) > 20

    past = [t for t in mistakes if t <= 50 and clear_of_handle(t)]
    future = [t for t in mistakes if t > 50 and clear_of_handle(t)]
    gaps = [
        (a + b) // 2
        for a, b in itertools.pairwise(mistakes)
        if slider.x_of(b) - slider.x_of(a) > 12 and clear_of_handle((a + b) // 2)
    ]
    assert past and future and gaps
    assert all(darkest(t) < 60 for t in past)
    assert all(120 < darkest(t) < 200 for t in future)
    assert all(darkest(t) > 220 for t in gaps)


def test_the_timeline_follows_the_run_and_a_new_run_starts_empty(qtbot, lesson):
    c = lesson.controller
    slider = lesson.time.timeline.slider
    assert slider.maximum() == 100 and slider.value() == 100
    assert slider.tick_columns().sum() == len(c.simulation.mistake_trials())
    c.reset()
    assert slider.maximum() == 0 and slider.tick_columns().sum() == 0
    c.set_dataset(Dataset([[0.0, 0.0], [1.0, 1.0]], [-1, 1]))
    c.step()
    assert slider.maximum() == 1 and slider.tick_columns().sum() == 1  # trial 1: a tie, a mistake


@pytest.mark.parametrize("presentation", [False, True])
def test_the_position_is_never_clipped_at_1024x768(qtbot, lesson, presentation):
    lesson.presentation_action.setChecked(presentation)
    frame = lesson.controller.frame
    long = replace(frame, trace=replace(frame.trace, trials=1_234_567, length=2_345_678))
    lesson.controller.frame_changed.emit(long)
    lesson.resize(1024, 768)
    qtbot.waitUntil(lambda: lesson.width() == 1024)
    label = lesson.time.timeline.position
    assert label.text() == "t = 1234567 of 2345678"
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
    assert lesson.rect().contains(QRect(label.mapTo(lesson, QPoint(0, 0)), label.size()))
    lesson.controller.frame_changed.emit(frame)
