"""The window in a lesson: paging with buttons and clicker keys, each step's run shown as
the engine plays it, the quiz's buttons and the boundary's clicks, a bad file in one
dialog, leaving to free play, and Save as lesson step."""

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from simulator.engine import Settings, Simulation, load_preset
from simulator.engine.lessons import SHIPPED, load_lesson, play
from simulator.ui import style
from tests.ui.conftest import click


def _shows(window, state, trial):
    """The controller holds the step's run at `trial`, with the step's data and settings."""
    sim = window.controller.simulation
    assert sim.dataset == state.dataset
    assert sim.settings == state.settings
    assert sim.trials == trial
    replay = Simulation.from_settings(state.dataset, state.settings)
    replay.run(trial, until_converged=False)
    assert np.array_equal(sim.weights, replay.weights)


def test_paging_through_a_lesson_with_buttons_and_clicker_keys(qtbot, window):
    lesson = load_lesson("cmu-worked-example")
    states = play(lesson)
    assert window.lessons.open(lesson)
    panel = window.lessons.panel
    assert panel.isVisible() and not window.explanation.isVisible()
    assert panel.progress.text() == f"step 1 of {len(states)}"
    assert panel.text.text() == " ".join(states[0].text.split())
    _shows(window, states[0], 0)

    qtbot.keyClick(window, Qt.Key.Key_PageDown)  # a clicker's "next"
    assert window.lessons.index == 1
    state = states[1]
    assert panel.yes.isVisible() and panel.no.isVisible()
    _shows(window, state, state.trial)

    truth = Simulation.from_settings(state.dataset, state.settings).step().mistake
    qtbot.mouseClick(panel.yes if truth else panel.no, Qt.MouseButton.LeftButton)
    assert window.lessons.quiz.score_text() == "Score 1 of 1"
    assert panel.score.text() == "Score 1 of 1"
    assert not panel.yes.isVisible()
    assert panel.answer.text().startswith("Right")
    _shows(window, state, state.reveal_trial)  # the answer: the trial is run

    panel.next.click()
    assert window.lessons.index == 2
    qtbot.keyClick(window, Qt.Key.Key_Right)  # on a question: the answer, not scored
    assert window.lessons.index == 2
    assert panel.answer.text().startswith("Answer:")
    assert window.lessons.quiz.answered == 1
    _shows(window, states[2], states[2].reveal_trial)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert window.lessons.index == 3
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    qtbot.keyClick(window, Qt.Key.Key_Left)
    assert window.lessons.index == 1
    assert panel.answer.text().startswith("Right")  # answered before: shown as it was

    for number in range(2, len(states) + 1):
        window.lessons.go_to(number)
        state = states[number - 1]
        revealed = window.lessons.quiz.revealed(number)
        _shows(window, state, state.reveal_trial if revealed else state.trial)
        assert panel.progress.text() == f"step {number} of {len(states)}"
    assert states[-1].question is not None and panel.next.isEnabled()  # it reveals first
    panel.next.click()
    assert window.lessons.index == len(states) - 1 and panel.answer.text().startswith("Answer:")
    assert not panel.next.isEnabled()  # the end


def test_a_lesson_s_last_question_and_its_choices(qtbot, window):
    lesson = load_lesson("cmu-worked-example")
    states = play(lesson)
    window.lessons.open(lesson, states)
    window.lessons.go_to(len(states))
    panel = window.lessons.panel
    last = states[-1]
    assert last.question.kind == "choice"
    buttons = [b for b in panel.choices if b.isVisible()]
    assert len(buttons) == len(last.choices)
    wrong = next(i for i in range(len(buttons)) if i != last.answer)
    qtbot.mouseClick(buttons[wrong], Qt.MouseButton.LeftButton)
    assert panel.answer.text().startswith("Not quite")
    assert window.lessons.quiz.score_text() == "Score 0 of 1"
    assert not any(b.isEnabled() for b in buttons)


def test_a_boundary_question_takes_two_clicks_and_adds_no_point(qtbot, window):
    lesson = load_lesson("cmu-worked-example")
    states = play(lesson)
    number = next(s.number for s in states if s.question and s.question.kind == "boundary")
    state = states[number - 1]
    window.lessons.open(lesson, states)
    window.lessons.go_to(number)
    points = len(window.controller.dataset)
    line = state.answer
    n1, n2 = line.normal
    # Two points on the true line, well inside the view.
    foot = -(line.offset - line.level) / (n1 * n1 + n2 * n2)
    p = (foot * n1, foot * n2)
    d = np.array((-n2, n1)) / math.hypot(n1, n2)
    for t in (-1.0, 1.0):
        click(qtbot, window.plot, p[0] + t * d[0], p[1] + t * d[1])
    assert len(window.controller.dataset) == points  # the clicks were the guess
    verdict = window.lessons.quiz.verdict(number)
    assert verdict is not None and verdict.right and verdict.angle < 2.0
    assert "°" in window.lessons.panel.answer.text()
    drawn = [i for i in window.plot.getPlotItem().items if isinstance(i, pg.InfiniteLine)]
    assert drawn  # the guessed line stays beside the true one
    _shows(window, state, state.reveal_trial)
    click(qtbot, window.plot, 1.5, 2.5)  # after the answer, clicks edit points again
    assert len(window.controller.dataset) == points + 1


def test_a_bad_lesson_file_is_one_dialog_and_changes_nothing(tmp_path, window, dialogs):
    window.load_preset("or")
    path = tmp_path / "bad.toml"
    path.write_text('[lesson]\ntitle = "T"\n[[step]]\ntext = "a"\ndata = "or"\ngoto = "x"\n')
    assert not window.lessons.open_spec(str(path))
    assert [d[0] for d in dialogs.shown] == ["critical"]
    assert "step 1" in dialogs.shown[0][2] and "goto" in dialogs.shown[0][2]
    assert not window.lessons.active
    assert window.controller.dataset == load_preset("or")


def test_leaving_returns_to_free_play_with_the_lesson_s_data(qtbot, window):
    window.separator_action.setChecked(False)
    window.lessons.open_named("or-bound")
    assert window.separator_action.isChecked()  # the lesson's first step shows it
    window.lessons.go_to(3)
    sim = window.controller.simulation
    window.leave_lesson_action.trigger()
    assert not window.lessons.active and not window.lessons.panel.isVisible()
    assert window.explanation.isVisible()
    assert not window.separator_action.isChecked()  # the view as it was
    assert window.controller.simulation is sim and window.controller.dataset == load_preset("or")
    window.controller.step()  # free play goes on from there
    assert window.controller.simulation.trials == sim.trials
    qtbot.keyClick(window, Qt.Key.Key_PageDown)  # no lesson: the key does nothing here
    assert not window.lessons.active


def test_the_lessons_menu_lists_the_shipped_lessons(window):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Lessons")
    names = [a.objectName() for a in menu.actions()]
    assert [n for n in names if n.startswith("lesson_")] == [f"lesson_{n}" for n in SHIPPED]
    window.findChild(type(menu.actions()[0]), "lesson_kessler").trigger()
    assert window.lessons.active and window.lessons.lesson.name == "kessler"


def test_a_lesson_of_many_coordinates_opens_in_the_high_dimensional_view(window):
    assert window.lessons.open_named("winnow-vs-perceptron")
    assert window.views.currentIndex() == 1 and window.lessons.panel.isVisible()
    window.lessons.go_to(4)
    assert window.controller.settings.algorithm == "perceptron"


def test_the_lesson_text_is_in_lecture_type(window):
    window.lessons.open_named("and-gate")
    window.presentation_action.setChecked(True)
    assert window.lessons.panel.text.font().pixelSize() == style.PRESENTATION_LABEL_PX


def test_save_as_lesson_step_appends_what_the_window_shows(tmp_path, window):
    window.load_preset("separable")
    window.controller.set_settings(Settings(learning_rate=0.5, order="random", seed=4))
    window.controller.simulation.run(17, until_converged=False)
    path = tmp_path / "mine.toml"
    assert window.lessons.save_step(str(path))
    assert window.lessons.save_step(str(path))
    states = play(load_lesson(path))
    assert len(states) == 2
    assert states[1].trial == 17
    assert np.array_equal(np.ravel(states[1].weights), window.controller.simulation.weights)


def test_save_as_lesson_step_refuses_a_file_that_is_no_lesson(tmp_path, window, dialogs):
    window.load_preset("or")
    path = tmp_path / "x.toml"
    path.write_text("x = 1\n")
    assert not window.lessons.save_step(str(path))
    assert [d[0] for d in dialogs.shown] == ["critical"]
    assert path.read_text() == "x = 1\n"


@pytest.mark.parametrize("name", ["adaline-learning-rate", "the-proof"])
def test_lessons_that_show_charts_and_losses_page_through(window, name):
    lesson = load_lesson(name)
    states = play(lesson)
    window.lessons.open(lesson, states)
    for number in range(1, len(states) + 1):
        window.lessons.go_to(number)
        _shows(window, states[number - 1], states[number - 1].trial)


def test_points_edited_in_a_lesson_give_way_to_the_lesson_s_own(qtbot, window):
    lesson = load_lesson("or-bound")
    states = play(lesson)
    window.lessons.open(lesson, states)
    window.controller.add_point(2.0, 2.0, 1)  # the teacher adds a point mid-lesson
    assert len(window.controller.dataset) == len(states[0].dataset) + 1
    window.lessons.go_to(3)
    _shows(window, states[2], states[2].trial)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_lesson_plays_in_the_window_to_its_end(qtbot, window, name):
    lesson = load_lesson(name)
    states = play(lesson)
    resort = window.install_last_resort()
    try:
        assert window.lessons.open_named(name)
        for _ in range(2 * len(states)):  # a question is revealed, then Next goes on
            qtbot.keyClick(window, Qt.Key.Key_PageDown)
        assert window.lessons.index == len(states) - 1
        _shows(window, states[-1], states[-1].trial)
        assert resort.errors == 0
    finally:
        resort.uninstall()
