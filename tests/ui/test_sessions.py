"""Session files (NAME.lab.json): points, labels, column names, learner settings and the
trial reached; restoring replays to that trial, bit for bit."""

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog

from simulator.app import preferences
from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.session import load_session, save_session
from simulator.ui import MainWindow


@pytest.fixture
def other(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    return win


@pytest.mark.parametrize(
    "settings",
    [
        Settings(order="random", seed=7, learning_rate=0.3),
        Settings(algorithm="balanced-winnow", promotion=1.5),
        Settings(algorithm="adaline", learning_rate=0.01, initial_weights="random", seed=3),
    ],
)
def test_a_session_round_trips_to_bit_identical_weights(tmp_path, window, other, settings):
    c = window.controller
    c.set_dataset(load_preset("noisy"))
    assert c.set_settings(settings)
    c.simulation.run(1234, until_converged=False)
    c.step()
    path = tmp_path / "lecture.lab.json"
    assert window.save_session(path)
    assert not window.isWindowModified() and window.windowTitle().startswith("lecture.lab.json")

    assert other.open_session(path)
    a, b = c.simulation, other.controller.simulation
    assert b.trials == a.trials == 1235 and b.mistakes == a.mistakes
    assert b.weights.tobytes() == a.weights.tobytes()
    assert b.settings == a.settings and other.controller.settings == c.settings
    assert other.controller.dataset == c.dataset
    assert other.theory.trial.text() == "1235"
    assert not other.isWindowModified()
    # The same run from scratch gives the same w: the replay is the run itself.
    fresh = Simulation.from_settings(load_preset("noisy"), settings)
    fresh.run(1235, until_converged=False)
    assert np.array_equal(fresh.weights, b.weights)


def test_a_session_keeps_column_names_and_the_engine_reads_it(tmp_path, window):
    names = ("sepal length", "petal width")
    dataset = Dataset([[5.1, 0.2], [7.0, 1.4], [6.3, 2.5]], [1, -1, -1], names=names)
    window.controller.set_dataset(dataset)
    window.controller.step()
    path = tmp_path / "iris-part.lab.json"
    assert window.save_session(path)
    session = load_session(path)
    assert session.dataset == dataset and session.dataset.names == names
    assert session.trial == 1 and session.settings == window.controller.settings


def test_a_session_written_by_the_engine_opens_in_the_window(tmp_path, window):
    path = tmp_path / "from-cli.lab.json"
    save_session(path, load_preset("or"), Settings(algorithm="winnow"), 6)
    assert window.open_session(path)
    c = window.controller
    assert c.dataset == load_preset("or") and c.simulation.trials == 6
    assert window.controls.algorithm.currentData() == "winnow"
    c.undo_stack.undo()  # opening a session is one step, like opening points
    assert len(c.dataset) == 0


def test_an_opened_session_shows_the_values_its_rule_derives(tmp_path, window):
    """Settings come after the frame when a session opens: the boxes still show the η and
    θ the rule derives (Adaline's from the data, Winnow's θ = n), not an empty box."""
    path = tmp_path / "derived.lab.json"
    save_session(path, load_preset("noisy"), Settings(algorithm="adaline"), 3)
    assert window.open_session(path)
    rule = window.controller.frame.rule
    assert window.controls.rate.value() == rule.learning_rate
    assert window.controls.rate.text() == repr(rule.learning_rate)
    save_session(path, load_preset("or"), Settings(algorithm="winnow"), 2)
    window.controller.undo_stack.setClean()
    assert window.open_session(path)
    assert window.controls.threshold.text() == "3"


def test_save_after_opening_a_session_writes_the_session(tmp_path, window):
    path = tmp_path / "s.lab.json"
    save_session(path, load_preset("and"), Settings(), 0)
    assert window.open_session(path)
    window.controller.add_point(0.5, 0.5, 1)
    window.controller.step()
    window.controller.step()
    assert window.save()
    session = load_session(path)
    assert len(session.dataset) == 5 and session.trial == 2


def test_the_menu_dialogs_add_the_suffix(tmp_path, window, monkeypatch):
    window.controller.set_dataset(load_preset("or"))
    target = tmp_path / "mine"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window.save_session_action.trigger()
    saved = tmp_path / "mine.lab.json"
    assert load_session(saved).dataset == load_preset("or")
    window.controller.set_dataset(load_preset("xor"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(saved), ""))
    window.open_session_action.trigger()
    assert window.controller.dataset == load_preset("or")


@pytest.mark.parametrize(
    "content", ["", "{not json", '{"points": [[0, 0]], "labels": [7]}', "[1, 2, 3]"]
)
def test_a_broken_session_changes_nothing_and_says_why(tmp_path, window, dialogs, content):
    window.controller.set_dataset(load_preset("or"))
    window.controller.step()
    before = window.controller.dataset
    path = tmp_path / "broken.lab.json"
    path.write_text(content)
    assert not window.open_session(path)
    assert window.controller.dataset is before and window.controller.simulation.trials == 1
    kind, title, text = dialogs.shown[-1]
    assert kind == "critical" and title == "Cannot open the session" and text


def test_a_session_cannot_be_saved_into_a_missing_folder(tmp_path, window, dialogs):
    window.controller.set_dataset(load_preset("or"))
    assert not window.save_session(tmp_path / "nowhere" / "s.lab.json")
    assert dialogs.shown[-1][0] == "critical" and window.isWindowModified()


def test_settings_toggles_geometry_and_folder_persist_between_runs(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    store = QSettings(str(tmp_path / "lab.ini"), QSettings.Format.IniFormat)

    def start(**kwargs):
        win = MainWindow(app_settings=store, **kwargs)
        qtbot.addWidget(win)
        return win

    first = start()
    assert not first.shading_action.isChecked() and first.numbers_action.isChecked()
    first.controls.algorithm.setCurrentIndex(first.controls.algorithm.findData("adaline"))
    first.controls.rate.setValue(0.0125)
    first.shading_action.trigger()  # View toggles, as a click in the menu would
    first.separator_action.trigger()
    first.numbers_action.trigger()
    first.resize(640, 480)  # inside the offscreen screen (800 x 800)
    assert first.save_to(tmp_path / "points.csv")
    first.close()

    second = start()
    assert second.controller.settings.algorithm == "adaline"
    assert second.controller.settings.learning_rate == 0.0125
    assert second.controls.algorithm.currentData() == "adaline"
    assert second.shading_action.isChecked() and second.separator_action.isChecked()
    assert not second.numbers_action.isChecked()
    second.controller.set_dataset(load_preset("or"))
    texts = second.plot.legend_texts()  # the toggles reached the plot through their slots
    assert "s > 0: predicts +1" in texts and "optimal separator u*" in texts
    assert len(second.plot.numbered_points()) == 0
    assert (second.width(), second.height()) == (640, 480)
    assert preferences.last_folder(store) == str(tmp_path)  # where the file dialogs start
    second.close()

    # Explicit settings (from the command line) win over the remembered ones.
    third = start(settings=Settings(algorithm="winnow"))
    assert third.controller.settings.algorithm == "winnow"


def test_remembered_settings_the_engine_refuses_fall_back_to_the_defaults(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    store = QSettings(str(tmp_path / "lab.ini"), QSettings.Format.IniFormat)
    store.setValue("learner/settings", '{"algorithm": "gone-rule", "learning_rate": -1}')
    window = MainWindow(app_settings=store)
    qtbot.addWidget(window)
    assert window.controller.settings == Settings()


def test_a_run_whose_points_were_edited_opens_replayed_and_says_so(
    tmp_path, window, other, dialogs
):
    c = window.controller
    c.set_dataset(load_preset("or"))
    for _ in range(3):
        c.step()
    c.add_point(-0.5, -0.5, 1)  # mid-run: the weights carry on over the new data
    c.step()
    path = tmp_path / "edited.lab.json"
    assert window.save_session(path)
    assert other.open_session(path)
    assert other.controller.dataset == c.dataset and other.controller.simulation.trials == 4
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("information", "Restored by replaying")
    assert "were points edited" in text


def test_open_takes_a_session_file_as_a_session(tmp_path, window):
    path = tmp_path / "s.lab.json"
    save_session(path, load_preset("or"), Settings(learning_rate=0.5), 3)
    assert window.open_file(path)
    assert window.controller.simulation.trials == 3
    assert window.controller.settings.learning_rate == 0.5


def test_the_command_line_reads_a_session_and_checks_it(tmp_path, capsys):
    from simulator.cli import parse

    path = tmp_path / "s.lab.json"
    save_session(path, load_preset("or"), Settings(algorithm="winnow"), 6)
    command = parse(["--session", str(path)])
    assert command.session_file == path and command.session == load_session(path)
    assert parse(["--recover"]).recover
    three = tmp_path / "three.lab.json"  # for the high-dimensional view
    save_session(three, Dataset([[0.0, 1.0, 2.0]], [1]), Settings(), 0)
    assert parse(["--session", str(three)]).session.dataset.dimension == 3

    broken = tmp_path / "broken.lab.json"
    broken.write_text("{}")
    for argv, reason in (
        (["--session", str(broken)], "--session: broken.lab.json: not a session file"),
        (["--session", str(tmp_path / "missing.lab.json")], "--session:"),
        (["--session", str(path), "--dataset", "or"], "give --session or --dataset"),
        (["--recover", "--session", str(path)], "--recover restores the autosave"),
    ):
        with pytest.raises(SystemExit) as exited:
            parse(argv)
        err = capsys.readouterr().err
        assert exited.value.code == 2 and reason in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        (
            {"parameters": {"mode": "nope"}},
            "settings.mode: unknown mode 'nope'; use online or batch",
        ),
        ({"order": "sorted"}, "unknown order 'sorted'; choose one of cyclic, random"),
        ({"seed": -1}, "settings.seed must be a whole number 0 … 2147483647"),
    ],
)
def test_file_open_of_a_session_with_a_bad_setting_says_so_once_and_keeps_the_points(
    tmp_path, window, dialogs, monkeypatch, setting, words
):
    """Case 9 (issue 21): a session with "mode": "nope" opened without a word, and every
    later switch to Adaline was refused. File → Open refuses it with one dialog naming the
    setting and its allowed values; the points and the run stay."""
    import json

    from simulator.engine.session import session_to_json

    document = json.loads(session_to_json(load_preset("and"), Settings("adaline"), 3))
    document["settings"].update(setting)
    path = tmp_path / "bad.lab.json"
    path.write_text(json.dumps(document))
    window.controller.set_dataset(load_preset("or"))
    window.controller.step()
    before, settings = window.controller.dataset, window.controller.settings
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    window.open_action.trigger()
    told = [d for d in dialogs.shown if d[1] != "Unsaved points"]  # Discard is answered
    assert [d[:2] for d in told] == [("critical", "Cannot open the session")]
    text = told[0][2]
    assert "\n" not in text and text.startswith("bad.lab.json") and words in text
    assert window.controller.dataset is before and window.controller.settings == settings
    assert window.controller.simulation.trials == 1
