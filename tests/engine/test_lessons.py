"""Lessons: every shipped lesson loads and plays to its end, and each number its text shows
equals what an independent run of the engine gives; the CMU lesson reaches the notes' θ;
bad files fail in one line naming the step and the key; saved steps replay.

The independent runs read the lesson's TOML here and drive `Simulation` directly (no
player code): data and settings as the module docstring of `simulator.engine.lessons`
defines them, each step's trial reached by running from trial 0.
"""

import math
import re
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from simulator.engine import Dataset, Settings, Simulation, load_dataset, load_preset
from simulator.engine.lab import consistent_disjunction
from simulator.engine.lessons import (
    SHIPPED,
    LessonError,
    append_step,
    lesson_names,
    load_lesson,
    parse_lesson,
    play,
    shipped_path,
)
from simulator.engine.presets import PRESET_SETTINGS

ROOT = Path(__file__).resolve().parents[2]
NOTES = (
    "cmu-10601-l10-perceptron.txt",
    "cmu-15859b-perceptron-winnow.txt",
    "online-course-ch3-perceptron-adaline.txt",
    "uiuc-cs446-l6-online-learning.txt",
    "unl-csce970-l3-linear-classifiers.txt",
)
SETTING_FIELDS = {
    "algorithm", "tie", "bias", "preprocessing", "features", "order", "seed",
    "initial_weights", "tolerance",
}  # fmt: skip
CAP = 1_000_000


# -- an independent reading of a lesson ------------------------------------------------------


def _settings(base: Settings, table: dict) -> Settings:
    """`base` changed by a step's settings table (a new algorithm: its own defaults)."""
    fields = {k: v for k, v in table.items() if k in SETTING_FIELDS}
    parameters = {k: v for k, v in table.items() if k not in SETTING_FIELDS}
    if "initial_weights" in fields and isinstance(fields["initial_weights"], list):
        fields["initial_weights"] = tuple(fields["initial_weights"])
    if fields.get("algorithm", base.algorithm) != base.algorithm:
        base = Settings(
            fields["algorithm"],
            bias=base.bias,
            preprocessing=base.preprocessing,
            features=base.features,
            order=base.order,
            seed=base.seed,
        )
    return replace(base, **fields).with_parameters(**parameters)


def _run_to(dataset, settings, goal):
    """A fresh run of the settings on the data, brought to `goal`: ("trial", N),
    ("mistake", N), ("epoch", N) or ("converged",)."""
    sim = Simulation.from_settings(dataset, settings)
    kind = goal[0]
    if kind == "trial":
        sim.run(goal[1], until_converged=False)
    elif kind == "epoch":
        sim.run(goal[1] * sim.epoch_length, until_converged=False)
    elif kind == "mistake":
        while sim.mistakes < goal[1]:
            assert sim.run(CAP, stop_on_mistake=True) > 0
    else:
        sim.run(CAP)
        assert sim.converged
    return sim


def independent_runs(name: str):
    """Per step: (run at the question's trial, run at the reveal's trial) of the lesson's
    TOML, read here."""
    path = shipped_path(name)
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    dataset = settings = None
    trial = 0
    runs = []
    for step in document["step"]:
        if "data" in step:
            if step["data"] in PRESET_SETTINGS:
                dataset, settings = load_preset(step["data"]), PRESET_SETTINGS[step["data"]]
            else:
                dataset = load_dataset(path.parent / step["data"])
        if "points" in step:
            table = np.array(step["points"], dtype=float)
            dataset = Dataset(table[:, :-1], table[:, -1])
            settings = settings or Settings()
        if "settings" in step:
            settings = _settings(settings or Settings(), step["settings"])
        if {"data", "points", "settings"} & set(step):
            trial = 0
        if "goto" in step:
            kind, _, count = step["goto"].partition(":")
            goal = (kind, int(count)) if count else (kind,)
            trial = _run_to(dataset, settings, goal).trials
        question = _run_to(dataset, settings, ("trial", trial))
        ask = step.get("ask")
        if ask == "mistake":
            trial += 1
        elif ask == "boundary":
            probe = _run_to(dataset, settings, ("trial", trial))
            while not probe.step().updated:
                pass
            trial = probe.trials
        runs.append((question, _run_to(dataset, settings, ("trial", trial))))
    return runs


def expected(sim: Simulation, name: str):
    """The value the placeholder `name` stands for, asked of `sim` by this test."""
    w = sim.shown_weights()
    report = sim.margin_report()
    last = sim.last_trial
    simple = {
        "trial": lambda: sim.trials,
        "epoch": lambda: sim.epoch,
        "k": lambda: sim.mistakes,
        "n": lambda: len(sim.dataset),
        "d": lambda: sim.dataset.dimension,
        "w": lambda: w.ravel(),
        "gamma": lambda: report.gamma,
        "R": lambda: report.radius,
        "bound": lambda: sim.mistake_bound(),
        "errors": lambda: np.count_nonzero(sim.predict(sim.dataset.points) != sim.dataset.labels),
        "w_errors": lambda: np.count_nonzero(sim.snapshot().misclassified),
        "point": lambda: last.index + 1,
        "x": lambda: last.point,
        "y": lambda: last.y,
        "score": lambda: last.score,
        "vector": lambda: last.x,
        "converged_at": lambda: sim.converged_at,
        "diverged_at": lambda: sim.diverged_at,
        "mse": lambda: sim.epoch_losses()[sim.epoch - 1],
        "batch_rate_limit": lambda: sim.adaline_report().batch_rate_limit,
        "online_rate_limit": lambda: sim.adaline_report().online_rate_limit,
        "relevant": lambda: consistent_disjunction(sim.dataset),
        "r": lambda: len(consistent_disjunction(sim.dataset)),
    }
    if name in simple:
        return simple[name]()
    if name.startswith("next_"):
        peek = Simulation.from_settings(sim.dataset, sim.settings)
        peek.run(sim.trials, until_converged=False)
        trial = peek.step()
        return {"point": trial.index + 1, "x": trial.point, "y": trial.y, "score": trial.score}[
            name[5:]
        ]
    if name in ("A", "B"):
        u = np.array(report.separator)
        eta = sim.learner.value("learning_rate")
        if name == "A":
            return np.dot(w.ravel(), u) / (eta * report.gamma)
        return np.dot(w.ravel(), w.ravel()) / (eta * report.radius) ** 2
    return sim.learner.value(name)  # a learner parameter


# -- reading filled text ---------------------------------------------------------------------

_SLOT = re.compile(r"\{\{|\}\}|\{([A-Za-z_]\w*)(?:@(\d+))?(?::[^{}]*)?\}")


def filled_values(raw: str, filled: str) -> list[tuple[str, int | None, str]]:
    """(name, step, text) for each placeholder of `raw`, read off `filled`."""
    pattern, names, position = "", [], 0
    for match in _SLOT.finditer(raw):
        pattern += re.escape(raw[position : match.start()])
        position = match.end()
        if match.group(1) is None:
            pattern += re.escape(match.group(0)[0])
            continue
        pattern += "(.+?)"
        names.append((match.group(1), None if match.group(2) is None else int(match.group(2))))
    pattern += re.escape(raw[position:])
    found = re.fullmatch(pattern, filled, flags=re.DOTALL)
    assert found is not None, f"{filled!r} is not {raw!r} filled"
    return [(name, step, text) for (name, step), text in zip(names, found.groups(), strict=True)]


def numbers_in(text: str) -> list[float]:
    text = text.replace("∞", "inf")
    text = text.replace("\u2212", "-")  # lesson text writes true minus signs
    return [float(v) for v in re.findall(r"[-+]?(?:inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)", text)]


def assert_shows(text: str, value, what: str) -> None:
    wanted = np.atleast_1d(np.asarray(value, dtype=float)).ravel()
    shown = numbers_in(text)
    assert len(shown) == len(wanted), f"{what}: {text!r} against {wanted}"
    for got, want in zip(shown, wanted, strict=True):
        if math.isinf(want):
            assert got == want, what
        else:
            assert got == pytest.approx(want, rel=6e-4, abs=1e-12), f"{what}: {text!r} vs {want}"


# -- the shipped lessons ---------------------------------------------------------------------


def test_the_shipped_lessons_are_the_design_s_ten_in_course_order():
    assert lesson_names() == list(SHIPPED)
    assert len(SHIPPED) == 10
    assert {p.stem for p in (ROOT / "simulator" / "lessons").glob("*.toml")} == set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_lesson_loads_with_title_and_the_note_it_is_from(name):
    lesson = load_lesson(name)
    assert lesson.title and lesson.summary and lesson.steps
    assert any(f"notes/{note}" in lesson.source for note in NOTES), lesson.source
    assert all(step.text.strip() for step in lesson.steps)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_lesson_plays_to_its_end_with_the_engine_s_numbers(name):
    lesson = load_lesson(name)
    states = play(lesson)
    assert [s.number for s in states] == [s.number for s in lesson.steps]
    runs = independent_runs(name)
    checked = 0
    for step, state, (question, revealed) in zip(lesson.steps, states, runs, strict=True):
        assert state.trial == question.trials, f"step {step.number}"
        assert state.mistakes == question.mistakes
        assert np.allclose(np.ravel(state.weights), question.shown_weights().ravel())
        assert state.reveal_trial == revealed.trials
        texts = [(step.text, state.text, question), (step.reveal, state.reveal, revealed)]
        if step.question is not None:
            pairs = zip(step.question.choices, state.choices, strict=True)
            texts += [(raw, filled, question) for raw, filled in pairs]
        for raw, filled, sim in texts:
            for name_, at, text in filled_values(raw, filled):
                source = sim if at is None else runs[at - 1][0]
                assert_shows(text, expected(source, name_), f"step {step.number} {{{name_}}}")
                checked += 1
    assert checked >= len(lesson.steps)


def test_every_shipped_number_is_a_placeholder():
    """The texts type no digits except the notes' own notation (subscripts, exponents,
    the constants of a formula): a digit in prose would drift from what the engine says."""
    allowed = re.compile(
        r"\{[^{}]*\}|x1|x2|w0|w1|w2|[²₀-₉]|sign\(0\)|\+1|-1|= 0|≥ 0|≤ 0|< 0|> 0|\b[01]\b"
        r"|log₂|2 \+ 3r\(1|2y"
    )
    for name in SHIPPED:
        for step in load_lesson(name).steps:
            texts = [step.text, step.reveal, *(step.question.choices if step.question else ())]
            for text in texts:
                stripped = allowed.sub("", text)
                assert not re.search(r"\d", stripped), f"{name} step {step.number}: {text!r}"


def test_the_cmu_lesson_reaches_the_notes_theta_values():
    """CMU 10-601 lecture 10, 'Perceptron Algorithm: Example': θ₁ = (0, 0), then
    (1, −2), (2, −1), (3, 1) after the mistakes on points 1, 3 and 5."""
    states = play(load_lesson("cmu-worked-example"))
    shown = "\n".join(s.text + "\n" + s.reveal for s in states)
    positions = [shown.index(theta) for theta in ("(0, 0)", "(1, −2)", "(2, −1)", "(3, 1)")]
    assert positions == sorted(positions)
    asked = [s.answer for s in states if s.question is not None and s.question.kind == "mistake"]
    assert asked == [True, False, True]  # ✗ on x1, ✓ on x2, ✗ on x3
    assert states[-1].weights == (3.0, 1.0)
    assert any(s.mistakes == 3 and s.weights == (3.0, 1.0) and s.trial == 5 for s in states)


# -- bad lesson files: one line naming the step and the key ----------------------------------

GOOD_HEAD = '[lesson]\ntitle = "T"\n\n[[step]]\ntext = "Start"\ndata = "or"\n\n'
BAD = [
    ("unknown key", '[[step]]\ntext = "a"\ngotoo = "trial:1"\n', "step 2", "gotoo"),
    ("bad goto", '[[step]]\ntext = "a"\ngoto = "trial:x"\n', "step 2", "goto"),
    ("bad setting", '[[step]]\ntext = "a"\nsettings = { learning_rate = -1 }\n', "step 2",
     "learning_rate"),
    ("unknown setting", '[[step]]\ntext = "a"\nsettings = { speed = 3 }\n', "step 2", "speed"),
    ("unknown preset", '[[step]]\ntext = "a"\ndata = "nope"\n', "step 2", "data"),
    ("unknown placeholder", '[[step]]\ntext = "γ = {gama}"\n', "step 2", "gama"),
    ("lone brace", '[[step]]\ntext = "a { b"\n', "step 2", "text"),
    ("later step", '[[step]]\ntext = "{k@3}"\n', "step 2", "k@3"),
    ("answer not a choice", '[[step]]\ntext = "a"\nchoices = ["x", "y"]\nanswer = "z"\n',
     "step 2", "answer"),
    ("bad ask", '[[step]]\ntext = "a"\nask = "maybe"\n', "step 2", "ask"),
    ("bad show", '[[step]]\ntext = "a"\nshow = { grid = true }\n', "step 2", "grid"),
    ("points", '[[step]]\ntext = "a"\npoints = [[1, 2, 1], [3, 4]]\n', "step 2", "points[1]"),
    ("unreachable mistake", '[[step]]\ntext = "a"\ngoto = "mistake:99"\n', "step 2",
     "mistake:99"),
    ("no bound", '[[step]]\ntext = "{bound}"\nsettings = { algorithm = "adaline" }\n',
     "step 2", "{bound}"),
    ("boundary of a kernel", '[[step]]\ntext = "a"\nask = "boundary"\n'
     'settings = { algorithm = "kernel-perceptron" }\n', "step 2", "boundary"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "tail", "step", "key"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_lesson_is_one_line_naming_the_step_and_key(tmp_path, case, tail, step, key):
    path = tmp_path / "bad.toml"
    path.write_text(GOOD_HEAD + tail, encoding="utf-8")
    with pytest.raises(LessonError) as caught:
        play(load_lesson(path))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("bad.toml: ")
    assert step in message and key in message, message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("title = ", "not valid TOML"),
        ('[lesson]\ntitle = "T"\n', "no steps"),
        ('[[step]]\ntext = "a"\ndata = "or"\n', "[lesson]"),
        ('[lesson]\ntitle = "T"\n[[step]]\ntext = "a"\n', "step 1: no data"),
        ('[lesson]\ntitle = "T"\ncolour = 1\n[[step]]\ntext = "a"\ndata = "or"\n', "colour"),
    ],
)
def test_a_file_that_is_no_lesson_says_why(text, words):
    with pytest.raises(LessonError, match=re.escape(words)):
        parse_lesson(text, source="x.toml")


def test_an_unknown_lesson_name_lists_the_shipped_ones():
    with pytest.raises(LessonError, match="cmu-worked-example"):
        load_lesson("no-such-lesson")


# -- how a lesson plays ----------------------------------------------------------------------


def test_steps_go_on_with_the_run_and_settings_restart_it():
    lesson = parse_lesson(
        GOOD_HEAD
        + '[[step]]\ntext = "{trial} {k}"\ngoto = "mistake:2"\n'
        + '[[step]]\ntext = "{trial} {k@2}"\n'
        + '[[step]]\ntext = "{trial} {learning_rate}"\nsettings = { learning_rate = 0.5 }\n'
        + '[[step]]\ntext = "{trial}"\nask = "mistake"\n'
        + '[[step]]\ntext = "{trial} {w}"\n'
    )
    states = play(lesson)
    second = Simulation.from_settings(load_preset("or"), Settings())
    while second.mistakes < 2:
        second.step()
    assert states[1].text == f"{second.trials} 2"
    assert states[2].text == f"{second.trials} 2"  # no goto: the run stays where it was
    assert states[3].text == "0 0.5" and states[3].new_run
    assert states[4].trial == 0 and states[4].reveal_trial == 1
    assert states[5].trial == 1  # the lesson goes on from the revealed trial


def test_a_boundary_question_s_answer_is_the_line_after_the_next_update():
    lesson = parse_lesson(
        GOOD_HEAD + '[[step]]\ntext = "where?"\nask = "boundary"\ngoto = "trial:1"\n'
    )
    state = play(lesson)[1]
    sim = Simulation.from_settings(load_preset("or"), Settings())
    sim.run(1, until_converged=False)
    while not sim.step().updated:
        pass
    w = sim.weights
    line = state.answer
    assert state.reveal_trial == sim.trials
    # The line is w's (up to scale): w0 + w1 x + w2 y = 0.
    v = np.array([line.offset - line.level, *line.normal])
    assert abs(np.dot(v / np.linalg.norm(v), w / np.linalg.norm(w))) == pytest.approx(1.0)


def test_placeholders_take_a_format_and_escaped_braces():
    lesson = parse_lesson(GOOD_HEAD + '[[step]]\ntext = "{{γ*}} = {gamma:.2f}"\n')
    gamma = Simulation.from_settings(load_preset("or"), Settings()).margin_report().gamma
    assert play(lesson)[1].text == f"{{γ*}} = {gamma:.2f}"


def test_a_data_file_beside_the_lesson(tmp_path):
    (tmp_path / "pts.csv").write_text("x1,x2,label\n0,0,-1\n1,1,1\n", encoding="utf-8")
    (tmp_path / "l.toml").write_text(
        '[lesson]\ntitle = "T"\n[[step]]\ntext = "{n} {converged_at}"\ndata = "pts.csv"\n'
        'goto = "converged"\n',
        encoding="utf-8",
    )
    sim = Simulation.from_settings(load_dataset(tmp_path / "pts.csv"), Settings())
    sim.run(1000)
    assert play(load_lesson(tmp_path / "l.toml"))[0].text == f"2 {sim.converged_at}"


# -- saving steps ----------------------------------------------------------------------------


def test_a_saved_step_replays_to_the_same_weights(tmp_path):
    path = tmp_path / "mine.toml"
    settings = Settings("perceptron", learning_rate=0.25, order="random", seed=7, tie="positive")
    data = load_preset("separable")
    assert append_step(path, data, settings, 33) == 1
    assert append_step(path, load_preset("blobs3"), Settings("kessler"), 5) == 2
    states = play(load_lesson(path))
    for state, (dataset, how, trial) in zip(
        states, [(data, settings, 33), (load_preset("blobs3"), Settings("kessler"), 5)], strict=True
    ):
        sim = Simulation.from_settings(dataset, how)
        sim.run(trial, until_converged=False)
        assert state.trial == trial
        assert np.array_equal(np.ravel(state.weights), sim.weights.ravel())
        assert state.settings == how


def test_a_step_is_not_appended_to_a_file_that_is_no_lesson(tmp_path):
    path = tmp_path / "notes.toml"
    path.write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(LessonError):
        append_step(path, load_preset("or"), Settings(), 3)
    assert path.read_text(encoding="utf-8") == "x = 1\n"


# -- the README's example --------------------------------------------------------------------


def test_the_readme_s_lesson_example_plays(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Lessons") :]
    example = re.search(r"```toml\n(.*?)```", section, flags=re.DOTALL).group(1)
    path = tmp_path / "example.toml"
    path.write_text(example, encoding="utf-8")
    states = play(load_lesson(path))
    assert states and all("{" not in s.text for s in states)


def test_the_lessons_are_package_data():
    """A wheel carries simulator/lessons/*.toml (setuptools copies only what is named)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["simulator"]
    found = {p.relative_to(ROOT / "simulator") for p in (ROOT / "simulator").glob("lessons/*")}
    assert found and all(any(f.match(p) for p in patterns) for f in found)
