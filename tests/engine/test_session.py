"""Sessions: exact round trips, replays to the same weights bit for bit, atomic saves, and
one-line errors for every field a file can get wrong."""

import json
import math
import os
import re
from dataclasses import replace

import numpy as np
import pytest

from simulator.engine import DataFileError, Dataset, Settings, Simulation, load_dataset
from simulator.engine import dataset as dataset_module
from simulator.engine import session as session_module
from simulator.engine.presets import load_preset, noisy, separable
from simulator.engine.session import (
    Session,
    load_session,
    save_session,
    session_from_json,
    session_to_json,
    settings_from_json,
    settings_to_json,
)


def _run(dataset, settings, trials):
    simulation = Simulation.from_settings(dataset, settings)
    simulation.run(trials, until_converged=False)
    return simulation


CASES = [
    ("perceptron cyclic", noisy(n=30, seed=2), Settings(), 137),
    (
        "perceptron random order, eta, w0 random, tie positive",
        noisy(n=25, seed=5),
        Settings(
            learning_rate=0.37, order="random", seed=11, initial_weights="random", tie="positive"
        ),
        250,
    ),
    ("winnow", separable(n=20, seed=3), Settings(algorithm="winnow", bias=False), 90),
    (
        "balanced winnow, random order, standardized",
        noisy(n=20, seed=1),
        Settings(
            algorithm="balanced-winnow",
            promotion=1.5,
            order="random",
            seed=4,
            preprocessing="standardize",
        ),
        120,
    ),
    (
        "adaline online",
        load_preset("iris"),
        Settings(algorithm="adaline", learning_rate=0.003),
        333,
    ),
    (
        "adaline batch, unit length, given w0",
        noisy(n=15, seed=9),
        Settings(
            algorithm="adaline",
            mode="batch",
            learning_rate=0.05,
            preprocessing="unit",
            initial_weights=(0.1, -0.2, 0.3),
        ),
        150,
    ),
]


@pytest.mark.parametrize(
    ("name", "dataset", "settings", "trials"), CASES, ids=[c[0] for c in CASES]
)
def test_a_session_replays_to_the_same_weights_bit_for_bit(
    tmp_path, name, dataset, settings, trials
):
    original = _run(dataset, settings, trials)
    path = tmp_path / "run.lab.json"
    save_session(path, dataset, original.settings, original.trials, state=original.state)
    session = load_session(path)
    assert session.dataset == dataset and session.settings == original.settings
    assert session.trial == trials
    restored = session.simulation()
    assert restored.trials == original.trials and restored.mistakes == original.mistakes
    assert np.array_equal(restored.state, original.state)
    assert np.array_equal(restored.weights, original.weights)
    assert session.verify(restored) is None
    # the history came back too: any trial can be revisited
    assert restored.trial(trials // 2) == original.trial(trials // 2)


def test_points_and_settings_are_exact(tmp_path):
    dataset = Dataset([[0.1, 1 / 3], [-2.5e-300, 1e150]], [1, -1], names=("a", 'b, "c"'))
    settings = Settings(learning_rate=0.1 + 0.2, threshold=1 / 7, tolerance=1e-9)
    session = session_from_json(session_to_json(dataset, settings, 0), "s.lab.json")
    assert session.dataset == dataset and session.settings == settings
    assert session == Session(dataset, settings, 0)
    path = tmp_path / "s.lab.json"
    save_session(path, dataset, settings, 0)
    assert load_dataset(path) == dataset  # a session is also a data file


def test_every_setting_is_saved():
    text = session_to_json(Dataset.empty(), Settings(), 0)
    saved = json.loads(text)["settings"]
    assert set(saved) == {
        "algorithm",
        "parameters",
        "features",
        "tie",
        "bias",
        "preprocessing",
        "order",
        "seed",
        "initial_weights",
        "tolerance",
    }


def test_a_run_edited_midway_is_replayed_and_the_difference_is_said():
    dataset = noisy(n=20, seed=0)
    simulation = Simulation(dataset)
    simulation.run(30, until_converged=False)
    simulation.replace_dataset(dataset.with_point((0.5, 0.5), -1))
    simulation.run(30, until_converged=False)
    text = session_to_json(simulation.dataset, simulation.settings, 60, state=simulation.state)
    session = session_from_json(text, "edited.lab.json")
    replay = session.simulation()
    assert replay.trials == 60 and not np.array_equal(replay.state, simulation.state)
    assert "does not give the saved weights" in session.verify(replay)


def test_no_points_open_at_trial_zero():
    session = session_from_json(session_to_json(Dataset.empty(3), Settings(), 12), "e.lab.json")
    replay = session.simulation()
    assert replay.trials == 0 and replay.dataset.dimension == 3
    assert session.verify(replay) == (
        "the session was saved at trial 12; it opens at trial 0 (there are no points)"
    )


def test_a_trial_beyond_the_replay_limit_opens_at_the_limit(monkeypatch):
    monkeypatch.setattr(session_module, "MAX_REPLAY_TRIALS", 40)
    session = session_from_json(session_to_json(noisy(n=10), Settings(), 1000), "far.lab.json")
    replay = session.simulation()
    assert replay.trials == 40
    assert "opens at trial 40 (replays stop there)" in session.verify(replay)


def test_saves_are_atomic(tmp_path, monkeypatch):
    path = tmp_path / "keep.lab.json"
    save_session(path, load_preset("and"), Settings(), 0)
    before = path.read_bytes()

    def broken(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="No space left"):
        save_session(path, load_preset("or"), Settings(), 3)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.lab.json"]  # no temporary left
    monkeypatch.undo()
    save_session(path, load_preset("or"), Settings(), 3)
    assert load_session(path).trial == 3
    with pytest.raises(OSError):
        save_session(tmp_path, load_preset("or"), Settings(), 3)  # a folder is in the way
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.lab.json"]


def test_settings_from_json_reads_what_settings_to_json_wrote_and_names_the_source():
    """The parser the window's preferences reuse: JSON text of the settings back."""
    settings = Settings(
        algorithm="adaline",
        learning_rate=0.125,
        mode="batch",
        tie="negative",
        bias=False,
        order="random",
        seed=7,
        initial_weights=(0.5, -1.0, 1e-300),
        tolerance=1e-3,
    )
    text = json.dumps(settings_to_json(settings))
    assert settings_from_json(json.loads(text), "prefs") == settings
    assert settings_from_json({}, "prefs") == Settings()
    with pytest.raises(DataFileError, match=r"^prefs: settings\.seed must be a whole number"):
        settings_from_json({"seed": "7"}, "prefs")
    with pytest.raises(DataFileError, match=r"^prefs: unknown setting 'colour'"):
        settings_from_json({"colour": "red"}, "prefs")


@pytest.mark.parametrize("n", [0, 5, 6])
def test_session_text_written_in_chunks_is_jsons_bit_for_bit(monkeypatch, n):
    monkeypatch.setattr(dataset_module, "CHUNK_ROWS", 3)
    ds = separable(n=max(n, 1))
    ds = ds if n else Dataset.empty()
    settings = Settings(algorithm="winnow", initial_weights=(1.0, 2.0, 0.5), threshold=2.5)
    text = session_to_json(ds, settings, 7, state=[1.0, 2.0, 0.25])
    document = {
        "format": session_module.FORMAT,
        "version": session_module.VERSION,
        "names": list(ds.names),
        "points": ds.points.tolist(),
        "labels": ds.labels.tolist(),
        "class_names": list(ds.class_names),
        "settings": settings_to_json(settings),
        "trial": 7,
        "state": [1.0, 2.0, 0.25],
    }
    assert text == json.dumps(document, indent=1, allow_nan=False) + "\n"


def _valid():
    return json.loads(session_to_json(load_preset("and"), Settings(), 4, state=[0.0, 1.0, 2.0]))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("format"), "not a session file"),
        (lambda d: d.update(format="something else"), "not a session file"),
        (lambda d: d.update(version=3), "newer version \\(session format 3\\)"),
        (lambda d: d.update(version="1"), "'version' must be a whole number"),
        (lambda d: d.pop("points"), "expected an object with 'points' and 'labels'"),
        (lambda d: d.update(labels=[1, 1, 1]), "4 points but 3 labels"),
        (lambda d: d.update(names=["x", "label"]), "may not be called 'label'"),
        (lambda d: d.update(settings=[]), "'settings' must be an object"),
        (lambda d: d["settings"].update(colour="red"), "unknown setting 'colour'"),
        (lambda d: d["settings"].update(algorithm=3), "settings.algorithm must be text"),
        (lambda d: d["settings"].update(algorithm="svm"), "settings: unknown algorithm 'svm'"),
        (
            lambda d: d["settings"]["parameters"].update(learning_rate="fast"),
            "settings.learning_rate \\('fast'\\) is not a number",
        ),
        (
            lambda d: d["settings"]["parameters"].update(learning_rate=-1),
            "settings.learning_rate: the learning rate η must be a finite number",
        ),
        (
            lambda d: d["settings"]["parameters"].update(mode="nope"),
            "settings.mode: unknown mode 'nope'; use online or batch",
        ),
        (
            lambda d: d["settings"]["parameters"].update(nudge=1),
            "unknown setting 'nudge'",
        ),
        (lambda d: d["settings"].update(parameters=[1]), "settings.parameters must be an object"),
        (lambda d: d["settings"].update(features="bent"), "settings: unknown features 'bent'"),
        (lambda d: d["settings"].update(bias=1), "settings.bias must be true or false"),
        (lambda d: d["settings"].update(seed=1.5), "settings.seed must be a whole number"),
        (lambda d: d["settings"].update(seed=-1), "settings.seed must be a whole number 0 …"),
        (
            lambda d: d["settings"].update(seed=2**31),
            "settings.seed must be a whole number 0 … 2147483647; got 2147483648$",
        ),
        (lambda d: d["settings"].update(seed=10**300), "got 1" + "0" * 39 + "…$"),
        (
            lambda d: d["settings"]["parameters"].update(threshold=-1e999),
            "-Infinity is not a finite number",
        ),
        (
            lambda d: d.update(version=0),
            "session format 0 does not exist; this one reads format 1, 2",
        ),
        (lambda d: d.update(version=-1), "session format -1 does not exist"),
        (lambda d: d["settings"].update(algorithm="x" * 100_000), "settings: unknown algorithm"),
        (lambda d: d["settings"].update(tie=False), "settings.tie must be text or null"),
        (lambda d: d["settings"].update(tie="maybe"), "settings: unknown tie rule 'maybe'"),
        (lambda d: d["settings"].update(order="sorted"), "settings: unknown order"),
        (
            lambda d: d["settings"].update(initial_weights=[1, "a", 3]),
            "initial_weights\\[1\\] \\('a'\\) is not a number",
        ),
        (lambda d: d["settings"].update(initial_weights=[1, 2]), "settings: .*shape"),
        (
            lambda d: d["settings"].update(initial_weights={"w": 1}),
            "must be null, a name or a list",
        ),
        (
            lambda d: d["settings"].update(tolerance=1e999),
            "Infinity is not a finite number",
        ),
        (lambda d: d.update(trial=-1), "'trial' must be a whole number >= 0"),
        (lambda d: d.update(trial=2.0), "'trial' must be a whole number >= 0"),
        (lambda d: d.update(trial=True), "'trial' must be a whole number >= 0"),
        (lambda d: d.update(state=[1, 2]), "'state' must be finite numbers of shape \\(3,\\)"),
        (lambda d: d.update(state="w"), "'state' must be finite numbers"),
    ],
)
def test_every_field_is_validated_in_one_line(tmp_path, change, message):
    document = _valid()
    change(document)
    path = tmp_path / "bad.lab.json"
    path.write_text(json.dumps(document))
    with pytest.raises(DataFileError) as info:
        load_session(path)
    text = str(info.value)
    assert "\n" not in text and text.startswith("bad.lab.json") and re.search(message, text)


def test_files_that_are_no_sessions_are_refused(tmp_path):
    path = tmp_path / "x.lab.json"
    path.write_text("{not json")
    with pytest.raises(DataFileError, match=r"x\.lab\.json, line 1: not valid JSON"):
        load_session(path)
    with pytest.raises(DataFileError, match="not a regular file"):
        load_session("/dev/zero")
    with pytest.raises(DataFileError, match="no such file"):
        load_session(tmp_path / "missing.lab.json")


def test_a_session_with_missing_settings_takes_the_defaults():
    document = _valid()
    document["settings"] = {"algorithm": "winnow"}
    del document["state"]
    session = session_from_json(json.dumps(document), "old.lab.json")
    assert session.settings == replace(Settings(), algorithm="winnow")
    assert session.state is None and session.verify(session.simulation()) is None


def test_a_round_two_session_still_opens():
    """Format 1 kept the learner's parameters among the settings."""
    document = _valid()
    document["version"] = 1
    document["settings"] = {
        "algorithm": "adaline", "learning_rate": 0.25, "promotion": 2.0, "threshold": None,
        "mode": "batch", "tie": None, "bias": True, "preprocessing": "none", "order": "cyclic",
        "seed": 0, "initial_weights": None, "tolerance": 1e-6,
    }  # fmt: skip
    del document["class_names"], document["state"]
    session = session_from_json(json.dumps(document), "old.lab.json")
    assert session.settings == Settings("adaline", learning_rate=0.25, mode="batch", promotion=2.0)
    simulation = session.simulation()
    assert simulation.learner.value("learning_rate") == 0.25 and simulation.trials == 4


def test_the_trial_must_be_a_whole_number_when_saving():
    with pytest.raises(ValueError, match="whole number"):
        session_to_json(Dataset.empty(), Settings(), -3)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (Settings(algorithm="perceptron", promotion=math.nan), "settings.promotion is nan"),
        (Settings(threshold=math.inf), "settings.threshold is inf"),
        (Settings(initial_weights=(1.0, math.nan, 0.0)), "initial_weights are not all finite"),
        (Settings(seed=2**31), "settings.seed must be a whole number 0 … 2147483647"),
    ],
)
def test_a_setting_that_would_not_read_back_is_refused_when_saving(settings, message):
    with pytest.raises(ValueError, match=message):
        session_to_json(Dataset.empty(), settings, 0)


def test_a_session_may_say_which_document_its_points_were():
    """Autosaves name the file or preset (issue 20 case 11); a session without it (all of
    round 2's, and every saved one) opens as before, with no origin."""
    ds = load_preset("or")
    for origin in (("file", "/home/teacher/points.csv"), ("name", "or")):
        text = session_to_json(ds, Settings(), 3, origin=origin)
        assert json.loads(text)["origin"] == {origin[0]: origin[1]}
        assert session_from_json(text).origin == origin
    plain = session_to_json(ds, Settings(), 3)
    assert "origin" not in json.loads(plain) and session_from_json(plain).origin is None
    for bad in ({"url": "x"}, {"file": 3}, {"file": ""}, "points.csv", {"file": "a", "name": "b"}):
        document = {**json.loads(plain), "origin": bad}
        with pytest.raises(DataFileError, match="'origin' must be an object"):
            session_from_json(json.dumps(document), "autosave.lab.json")


def _bad_values():
    """(setting, bad value, words the refusal must hold, the command-line arguments that
    carry the same value, or None where the command line has no such option): one per
    setting of `Settings` and one or two per parameter any learner declares."""
    from simulator.engine.learners import LEARNERS

    choices = {
        name: ", ".join(found())
        for name, (_, found) in session_module._FIELDS.items()
        if found is not None
    }
    cases = [
        ("algorithm", "nope", choices["algorithm"], ["--algorithm", "nope"]),
        ("tie", "nope", choices["tie"], ["--tie", "nope"]),
        ("bias", "yes", "true or false", None),
        ("preprocessing", "nope", choices["preprocessing"], ["--preprocessing", "nope"]),
        ("features", "nope", choices["features"], ["--features", "nope"]),
        ("order", "nope", choices["order"], ["--order", "nope"]),
        ("seed", -1, "0 … 2147483647", ["--seed", "-1"]),
        ("seed", 2**31, "0 … 2147483647", ["--seed", str(2**31)]),
        ("initial_weights", "nope", "'zeros', 'ones', 'random'", ["--initial-weights", "nope"]),
        ("tolerance", -1, "positive number", None),
    ]
    assert {c[0] for c in cases} == set(session_module._FIELDS)
    for learner in LEARNERS.values():
        for p in learner.parameters:
            if p.choices:
                bad = ["nope"]
            else:
                bad = [p.minimum - 1 if p.minimum is not None else -1e300]
                bad.append(p.maximum * 10 if p.maximum is not None else 1e300)
                if p.integer:
                    bad.append(p.minimum + 0.5)
            for value in bad:
                cases.append(
                    (f"{learner.name}.{p.name}", value, p.range_text(), [p.flag, str(value)])
                )
    return cases


@pytest.mark.parametrize(("key", "value", "allowed", "argv"), _bad_values())
def test_every_setting_with_a_value_the_command_line_refuses_is_refused(
    tmp_path, key, value, allowed, argv
):
    """Case 9 (issue 21): "mode": "nope" opened without a word. Every setting and every
    declared parameter, given a value out of its range, is refused by `load_session` with
    one line that names the key and the allowed values; the command line refuses the same
    value (one declaration of the ranges serves both)."""
    from simulator.cli.parser import build_parser

    document = _valid()
    algorithm, _, name = key.rpartition(".")
    if algorithm:
        document["settings"]["algorithm"] = algorithm
        document["settings"]["parameters"] = {name: value}
    else:
        document["settings"][name] = value
    path = tmp_path / "bad.lab.json"
    path.write_text(json.dumps(document))
    with pytest.raises(DataFileError) as info:
        load_session(path)
    text = str(info.value)
    assert "\n" not in text and text.startswith("bad.lab.json: settings")
    assert name in text or name.replace("_", " ") in text, text  # settings.mode, initial weights
    assert allowed in text, text
    if argv is not None:
        with pytest.raises(SystemExit) as refused:
            build_parser().parse_args(argv)
        assert refused.value.code == 2
