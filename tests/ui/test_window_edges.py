"""The window at the edges an attack found (issue 21): a preset that a custom w₀ does not
fit, a wheel zoom of many notches, a session with a setting the engine would refuse.
Each gets one clear message or none; no exception reaches the last resort."""

import json

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from simulator.engine import PRESET_SETTINGS, Settings, load_preset
from simulator.engine.session import session_to_json
from simulator.ui import MainWindow
from simulator.ui.plot_view import VIEW_LIMIT


@pytest.fixture
def guarded(qtbot):
    """A window on OR whose errors go to its last resort (as `python main.py` does)."""
    window = MainWindow(load_preset("or"))
    qtbot.addWidget(window)
    window.show()
    resort = window.install_last_resort()
    yield window
    resort.uninstall()
    window.controller.pause()
    window.controller.undo_stack.setClean()


# -- case 4: a custom w₀, then a preset it does not fit --------------------------------------------
# A preset brings its whole settings (issue 20), w₀ included: the custom start gives way.


@pytest.mark.parametrize("preset", ["disjunction", "iris3", "unl-disjunction"])
def test_a_preset_that_the_custom_start_does_not_fit_loads_with_its_own_settings(
    guarded, dialogs, preset
):
    c = guarded.controller
    assert c.update_settings(initial_weights=(0.5, 1.0, -1.0))
    assert guarded.load_preset(preset)
    assert c.dataset == load_preset(preset) and c.settings == PRESET_SETTINGS[preset]
    assert guarded.last_resort.errors == 0 and dialogs.shown == []
    assert guarded.statusBar().currentMessage().startswith(f"Loaded the {preset} preset")
    c.step()  # and it runs


def test_undo_after_such_a_preset_brings_back_the_points_with_their_start(guarded):
    c = guarded.controller
    c.update_settings(initial_weights=(0.5, 1.0, -1.0))
    guarded.load_preset("disjunction")
    c.undo_stack.undo()
    assert c.dataset == load_preset("or") and c.settings.initial_weights == (0.5, 1.0, -1.0)


# -- case 6: the wheel by many notches at once ----------------------------------------------------


def wheel(view, notches):
    """One wheel event of `notches` notches (negative: away from the user, zooming out)."""
    viewport = view.viewport()
    centre = QPointF(viewport.width() / 2, viewport.height() / 3)
    event = QWheelEvent(
        centre,
        viewport.mapToGlobal(centre),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, event)


def view_range(window):
    return np.array(window.plot.getPlotItem().vb.viewRange())


@pytest.mark.parametrize("notches", [-12, -40, 12, 40])
def test_a_burst_of_wheel_notches_stops_at_the_limits(guarded, notches):
    """Zooming out by ≥ 10 notches at once reached 1e307, then pyqtgraph raised "Cannot set
    range [-inf, -inf]" at every further notch (121 errors in one burst)."""
    for _ in range(150):
        wheel(guarded.plot, notches)
    ranges = view_range(guarded)
    assert np.isfinite(ranges).all() and (ranges[:, 1] > ranges[:, 0]).all()
    if notches < 0:  # as far out as it goes: a view of the width of all there is
        assert np.abs(ranges).max() <= 4 * VIEW_LIMIT
        assert (ranges[:, 1] - ranges[:, 0]).max() >= VIEW_LIMIT
    assert guarded.last_resort.errors == 0
    for _ in range(150):  # and back
        wheel(guarded.plot, -notches)
    assert np.isfinite(view_range(guarded)).all() and guarded.last_resort.errors == 0
    guarded.controller.step()  # the boundary and w drawn at any zoom, without a warning


def test_panning_far_keeps_the_view_finite(guarded):
    box = guarded.plot.getPlotItem().vb
    for _ in range(100):
        box.scaleBy([1e3, 1e3])
        box.translateBy(x=1e155, y=-1e155)
    ranges = view_range(guarded)
    assert np.isfinite(ranges).all() and np.abs(ranges).max() <= 4 * VIEW_LIMIT
    for _ in range(100):
        box.scaleBy([1e-3, 1e-3])
        box.translateBy(x=1e10, y=1e10)
    ranges = view_range(guarded)
    assert np.isfinite(ranges).all() and (ranges[:, 1] > ranges[:, 0]).all()
    assert guarded.last_resort.errors == 0


def test_ordinary_zoom_is_as_before(guarded):
    box = guarded.plot.getPlotItem().vb
    before = view_range(guarded)
    box.scaleBy([2.0, 2.0], center=pg.Point(*before.mean(axis=1)))
    after = view_range(guarded)
    assert np.allclose(after[:, 1] - after[:, 0], 2 * (before[:, 1] - before[:, 0]))


# -- case 9: a session with a setting the engine would refuse ----------------------------------


def test_a_session_with_mode_nope_is_refused_with_one_dialog(guarded, dialogs, tmp_path):
    """It opened without a word, and every later switch to Adaline was refused."""
    document = json.loads(session_to_json(load_preset("xor"), Settings(), 3))
    document["settings"]["parameters"]["mode"] = "nope"
    path = tmp_path / "bad.lab.json"
    path.write_text(json.dumps(document))
    assert not guarded.open_session(path)
    assert [(kind, title) for kind, title, _ in dialogs.shown] == [
        ("critical", "Cannot open the session")
    ]
    assert "settings.mode: unknown mode 'nope'" in dialogs.shown[0][2]
    c = guarded.controller
    assert c.dataset == load_preset("or") and guarded.last_resort.errors == 0
    assert c.request_setting("algorithm", "adaline") and c.settings.algorithm == "adaline"
