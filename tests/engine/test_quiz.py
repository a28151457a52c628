"""The quiz without a window: right and wrong answers to each kind of question, the angle
between a guessed line and the true one, and the score of a session."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.engine import Settings, Simulation, load_preset
from simulator.engine.features import InputLine
from simulator.engine.lessons import parse_lesson, play
from simulator.engine.quiz import BOUNDARY_TOLERANCE, Quiz, judge, line_angle, line_through

LESSON = """
[lesson]
title = "Quiz"

[[step]]
text = "OR"
data = "or"

[[step]]
text = "A mistake?"
ask = "mistake"

[[step]]
text = "And now?"
ask = "mistake"

[[step]]
text = "Pick"
choices = ["first", "second {k}", "third"]
answer = 2

[[step]]
text = "Where?"
ask = "boundary"
"""


@pytest.fixture(scope="module")
def states():
    return play(parse_lesson(LESSON))


def _truth(trials):
    """Whether each of the first `trials` trials of the perceptron on OR was a mistake,
    asked of the engine step by step."""
    sim = Simulation.from_settings(load_preset("or"), Settings())
    return [sim.step().mistake for _ in range(trials)]


def test_a_mistake_question_is_right_when_it_says_what_the_engine_did(states):
    first, second = _truth(2)
    for state, truth in ((states[1], first), (states[2], second)):
        assert judge(state, truth).right
        assert not judge(state, not truth).right


def test_a_choice_is_right_only_for_the_answer(states):
    state = states[3]
    assert [judge(state, i).right for i in range(3)] == [False, True, False]
    k = sum(_truth(2))  # the mistakes by then: the choice is filled with the run's k
    assert judge(state, 1).text.endswith(f"B, second {k}.")


def test_a_boundary_guess_is_judged_by_its_angle_to_the_true_line(states):
    state = states[4]
    line = state.answer
    n1, n2 = line.normal
    # Two points on the true line (offset + n·p = level).
    p = (
        (line.level - line.offset) * n1 / (n1 * n1 + n2 * n2),
        (line.level - line.offset) * n2 / (n1 * n1 + n2 * n2),
    )
    q = (p[0] - n2, p[1] + n1)
    exact = judge(state, (p, q))
    assert exact.right and exact.angle == pytest.approx(0.0, abs=1e-9)
    across = judge(state, (p, (p[0] + n1, p[1] + n2)))  # along the normal: perpendicular
    assert not across.right and across.angle == pytest.approx(90.0)
    turn = math.radians(BOUNDARY_TOLERANCE + 5)
    d = (-n2, n1)
    turned = (
        d[0] * math.cos(turn) - d[1] * math.sin(turn),
        d[0] * math.sin(turn) + d[1] * math.cos(turn),
    )
    outside = judge(state, (p, (p[0] + turned[0], p[1] + turned[1])))
    assert not outside.right and outside.angle == pytest.approx(BOUNDARY_TOLERANCE + 5)


def test_a_boundary_needs_two_different_points(states):
    with pytest.raises(ValueError):
        judge(states[4], ((0.0, 0.0), (0.0, 0.0)))


def test_a_step_without_a_question_cannot_be_judged(states):
    with pytest.raises(ValueError):
        judge(states[0], True)


finite = st.floats(-100, 100, allow_nan=False)


@given(finite, finite, finite, finite)
def test_the_angle_between_lines_is_symmetric_and_at_most_a_right_angle(a, b, c, d):
    if (a, b) == (0, 0) or (c, d) == (0, 0):
        return
    one, two = InputLine(0.0, (a, b)), InputLine(3.0, (c, d))
    angle = line_angle(one, two)
    assert 0.0 <= angle <= 90.0
    assert angle == pytest.approx(line_angle(two, one), abs=1e-9)
    assert line_angle(one, InputLine(-1.0, (-2 * a, -2 * b))) == pytest.approx(0.0, abs=1e-6)


def test_a_line_through_two_points_contains_both():
    line = line_through((1.0, 2.0), (4.0, -1.0))
    for x, y in ((1.0, 2.0), (4.0, -1.0), (2.5, 0.5)):
        assert line.offset + line.normal[0] * x + line.normal[1] * y == pytest.approx(0.0)


def test_the_score_counts_the_first_answer_to_each_question(states):
    first, second = _truth(2)
    quiz = Quiz()
    assert quiz.score_text() == "No answers yet"
    quiz.answer(states[1], first)  # right
    quiz.answer(states[1], not first)  # again, wrong: the first answer stands
    quiz.answer(states[2], not second)  # wrong
    quiz.reveal(states[3])  # shown without an answer: not scored
    assert (quiz.right, quiz.answered) == (1, 2)
    assert quiz.score_text() == "Score 1 of 2"
    assert quiz.verdict(1) is None and quiz.verdict(2).right and not quiz.verdict(3).right
    assert quiz.revealed(4) and not quiz.revealed(5)


def test_a_revealed_answer_says_the_engine_s_answer_then_the_reveal(states):
    from simulator.engine.quiz import answer_text

    first = states[1]  # "A mistake?" without a reveal text: the engine's words
    assert answer_text(first).startswith("Answer: Trial 1: point #1")
    assert answer_text(first, "Right: you said a mistake.").startswith("Right:")
    assert answer_text(states[3]) == f"Answer: B, {states[3].choices[1]}"
    assert answer_text(states[0]) == ""
