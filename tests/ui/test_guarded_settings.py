"""Settings that are not numbers the engine may see never reach it: a poisoned settings
file falls back to defaults, refused settings get one dialog, and undo across data of
another dimension brings back settings that fit."""

import json
import math

import pytest
from PySide6.QtCore import QSettings

from simulator.app import preferences
from simulator.engine import Dataset, Settings, load_preset
from simulator.engine.session import save_session
from simulator.ui import MainWindow
from simulator.ui import controller as controller_module

NAN, INF = math.nan, math.inf


@pytest.fixture
def store(tmp_path):
    return QSettings(str(tmp_path / "lab.ini"), QSettings.Format.IniFormat)


def start(qtbot, store):
    win = MainWindow(app_settings=store)
    qtbot.addWidget(win)
    win.show()
    return win


def remembered(store, **fields):
    good = {"algorithm": "adaline", "learning_rate": 0.0125, "order": "random", "seed": 9}
    store.setValue("learner/settings", json.dumps({**good, **fields}))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seed", 2**31),
        ("seed", -1),
        ("seed", 1.5),
        ("seed", "7"),
        ("promotion", NAN),
        ("promotion", 0.5),  # a later switch to Winnow must not fail
        ("learning_rate", INF),
        ("learning_rate", -1),
        ("threshold", NAN),
        ("tolerance", INF),
        ("tie", 5),
        ("bias", "yes"),
        ("mode", "sideways"),
        ("initial_weights", [1.0, "x"]),
        ("initial_weights", [1e308, NAN]),
    ],
)
def test_a_poisoned_remembered_value_falls_back_and_the_rest_stays(
    qtbot, store, dialogs, field, value
):
    remembered(store, **{field: value})
    with qtbot.capture_exceptions() as raised:
        win = start(qtbot, store)
    assert not raised and not dialogs.shown
    s = win.controller.settings
    assert getattr(s, field) == getattr(Settings(), field)
    assert (s.algorithm, s.learning_rate if field != "learning_rate" else 0.0125) == (
        "adaline",
        0.0125,
    )
    assert (s.order, s.seed if field != "seed" else 9) == ("random", 9)
    assert field in win.statusBar().currentMessage()  # one line says which
    for rule in ("winnow", "balanced-winnow", "perceptron"):  # every rule still starts
        assert win.controller.request_setting("algorithm", rule)
    win.controller.set_dataset(load_preset("or"))
    win.controller.step()
    assert win.controller.simulation.trials == 1


@pytest.mark.parametrize(
    "text", ["{not json", "[" * 100_000 + "]" * 100_000, "[1, 2]", '"perceptron"', "NaN"]
)
def test_an_unreadable_remembered_learner_gives_the_defaults(qtbot, store, text):
    store.setValue("learner/settings", text)
    with qtbot.capture_exceptions() as raised:
        win = start(qtbot, store)
    assert not raised and win.controller.settings == Settings()


def test_a_poisoned_last_folder_gives_the_home_folder(store):
    store.setValue("folder", "/tmp/\0nowhere")
    assert preferences.last_folder(store) == preferences.last_folder(None)
    store.setValue("folder", ["/tmp", "/usr"])
    assert preferences.last_folder(store) == preferences.last_folder(None)


def test_a_session_seed_beyond_2_31_does_not_poison_the_next_start(qtbot, store, tmp_path, dialogs):
    path = tmp_path / "big-seed.lab.json"
    save_session(path, load_preset("or"), Settings(), 0)
    content = json.loads(path.read_text())
    content["settings"]["seed"] = 2**31
    path.write_text(json.dumps(content))
    win = start(qtbot, store)
    with qtbot.capture_exceptions() as raised:
        assert not win.open_session(path)
    assert not raised
    assert len(dialogs.shown) == 1 and "2147483647" in dialogs.shown[0][2]
    assert win.controller.settings == Settings() and len(win.controller.dataset) == 0
    win.close()
    with qtbot.capture_exceptions() as raised:
        again = start(qtbot, store)
    assert not raised and again.controller.settings.seed == 0


BAD = [
    {"learning_rate": NAN},
    {"learning_rate": INF},
    {"promotion": NAN},  # the perceptron does not use α: still never passed on
    {"promotion": -INF},
    {"threshold": NAN},
    {"tolerance": INF},
    {"seed": 2**31},
    {"initial_weights": (0.5, NAN, 1.0)},
    {"initial_weights": (0.5, INF, 1.0)},
]


@pytest.mark.parametrize("change", BAD)
def test_non_finite_settings_get_one_dialog_and_never_reach_the_engine(
    qtbot, window, dialogs, monkeypatch, change
):
    c = window.controller
    c.set_dataset(load_preset("or"))
    c.step()
    simulation, settings = c.simulation, c.settings
    seen = []
    real = controller_module.Simulation.from_settings
    monkeypatch.setattr(
        controller_module.Simulation,
        "from_settings",
        lambda dataset, s: seen.append(s) or real(dataset, s),
    )
    with qtbot.capture_exceptions() as raised:
        assert not c.update_settings(**change)
    assert not raised and not seen  # the engine never saw them
    assert c.simulation is simulation and c.settings == settings and c.simulation.trials == 1
    assert [d[:2] for d in dialogs.shown] == [("critical", "Settings refused")]
    assert "finite" in dialogs.shown[0][2] or "2147483647" in dialogs.shown[0][2]


@pytest.mark.parametrize(
    ("text", "said", "shown"),
    [
        # numbers the engine may not have: the widgets show the settings in use again
        ("0.5, nan, 1", "finite", "default"),
        # not numbers at all (not the engine's "got shape (0,)"): the text stays to be fixed
        ("0.5, b, 1", "'b' is not a number", "custom"),
    ],
)
def test_a_custom_start_that_is_no_numbers_is_refused_with_one_dialog(
    window, dialogs, text, said, shown
):
    controls, c = window.controls, window.controller
    c.set_dataset(load_preset("or"))
    controls.initial.setCurrentIndex(controls.initial.findData("custom"))
    controls.initial_edit.setText(text)
    controls.initial_edit.editingFinished.emit()
    assert c.settings.initial_weights is None
    assert [d[:2] for d in dialogs.shown] == [("critical", "Settings refused")]
    assert said in dialogs.shown[0][2]
    assert controls.initial.currentData() == shown


def test_command_line_settings_that_are_not_finite_start_with_the_defaults(qtbot):
    win = MainWindow(settings=Settings(promotion=NAN))
    qtbot.addWidget(win)
    assert win.controller.settings == Settings()
    assert "promotion" in win.statusBar().currentMessage()


# -- undo across a change of dimension --------------------------------------------------------


HAND = [(0.0, 0.0, -1), (1.0, 2.0, 1), (2.0, 1.0, 1), (-1.0, 0.0, -1)]


@pytest.fixture
def three_d(tmp_path):
    path = tmp_path / "three.csv"
    path.write_text("a,b,c,label\n0,0,1,-1\n1,2,0,1\n2,1,1,1\n0,1,3,-1\n")
    return path


def state(c):
    return c.dataset.dimension, len(c.dataset), c.settings.initial_weights


def test_undo_past_opening_3d_data_with_a_custom_start_restores_points_and_settings(
    qtbot, window, dialogs, three_d
):
    c = window.controller
    for x, y, label in HAND:
        c.add_point(x, y, label)
    assert window.open_file(three_d)
    w0 = (0.5, 1.0, -1.0, 0.25)  # bias + 3 coordinates
    assert c.request_setting("initial_weights", w0)
    dialogs.shown.clear()
    with qtbot.capture_exceptions() as raised:
        window.undo_action.trigger()  # Undo Open: the 2-D points, with a start that fits
        assert state(c) == (2, 4, None)
        assert "did not fit" in window.statusBar().currentMessage()
        assert window.controls.initial.currentData() == "default"
        for count in (3, 2, 1, 0):  # the hand-placed points go one by one
            window.undo_action.trigger()
            assert state(c) == (2, count, None)
        assert not c.undo_stack.canUndo()
        for count in (1, 2, 3, 4):
            window.redo_action.trigger()
            assert state(c) == (2, count, None)
        window.redo_action.trigger()  # Redo Open: the 3-D data again
        assert state(c)[:2] == (3, 4)
        assert c.simulation.weights.shape == (4,)
    assert not raised and not dialogs.shown
    assert c.undo_stack.count() == 5 and not c.undo_stack.canRedo()  # nothing dropped


def test_data_of_another_dimension_open_with_the_default_start_and_undo_brings_it_back(
    qtbot, window, dialogs, three_d
):
    c = window.controller
    c.set_dataset(load_preset("or"))
    w0 = (0.5, -1.0, 2.0)  # fits the 2-D data (bias + 2), not the 3-D ones
    assert c.request_setting("initial_weights", w0)
    assert window.open_file(three_d)
    assert state(c) == (3, 4, None)
    assert [d[0] for d in dialogs.shown] == ["question"]  # unsaved points; no refusal
    assert "w₀" in window.statusBar().currentMessage()
    window.undo_action.trigger()
    assert state(c) == (2, len(load_preset("or")), w0)
    assert c.simulation.weights.tolist() == list(w0)
    window.redo_action.trigger()
    assert state(c) == (3, 4, None)


def test_clearing_3d_data_undoes_and_redoes(qtbot, window, three_d):
    c = window.controller
    assert window.open_file(three_d)
    c.step()
    with qtbot.capture_exceptions() as raised:
        c.clear()
        assert len(c.dataset) == 0
        window.undo_action.trigger()
        assert state(c)[:2] == (3, 4)
        window.redo_action.trigger()
        assert len(c.dataset) == 0
    assert not raised and c.undo_stack.count() == 2


def test_undoing_an_opened_session_brings_back_the_settings_from_before(qtbot, window, tmp_path):
    c = window.controller
    c.set_dataset(load_preset("or"))
    before = c.settings
    path = tmp_path / "s.lab.json"
    session_settings = Settings(algorithm="winnow", promotion=1.5)
    save_session(path, Dataset([[0, 1, 1], [1, 0, 0]], [1, -1]), session_settings, 1)
    assert window.open_session(path)
    assert c.settings.algorithm == "winnow" and c.dataset.dimension == 3
    window.undo_action.trigger()
    assert c.settings == before and c.dataset == load_preset("or")
    assert window.controls.algorithm.currentData() == "perceptron"
    window.redo_action.trigger()
    assert c.settings.algorithm == "winnow" and c.settings.promotion == 1.5
    assert c.dataset.dimension == 3
