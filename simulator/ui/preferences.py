"""What the window remembers between runs (QSettings): the learner's settings, the view
toggles, the window's geometry and the last folder.

Kept: every checkable QAction of the window that has an objectName (the View toggles),
unless its `persistent` property is False. Settings that the engine refuses after an
update (a renamed rule) fall back to the defaults instead of failing the start.
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow

from simulator.engine import Dataset, Settings, Simulation

__all__ = [
    "last_folder",
    "remember_folder",
    "restore_learner",
    "restore_window",
    "save_learner",
    "save_window",
]

_LEARNER = "learner/settings"
_GEOMETRY = "window/geometry"
_STATE = "window/state"
_TOGGLES = "view/"
_FOLDER = "folder"


def save_learner(store: QSettings, settings: Settings) -> None:
    store.setValue(_LEARNER, json.dumps(asdict(settings)))


def restore_learner(store: QSettings) -> Settings | None:
    """The settings saved last time, or None if there are none or they no longer apply."""
    text = store.value(_LEARNER)
    if not isinstance(text, str):
        return None
    try:
        values = json.loads(text)
        known = {f.name for f in fields(Settings)}
        values = {k: v for k, v in values.items() if k in known}
        if isinstance(values.get("initial_weights"), list):
            values["initial_weights"] = tuple(float(v) for v in values["initial_weights"])
        settings = Settings(**values)
        Simulation.from_settings(Dataset.empty(), settings)  # the engine checks every value
    except (ValueError, TypeError, AttributeError):
        return None
    return settings


def _toggles(window: QMainWindow) -> list[QAction]:
    return [
        action
        for action in window.findChildren(QAction)
        if action.isCheckable()
        and action.objectName()
        and action.property("persistent") is not False
    ]


def save_window(store: QSettings, window: QMainWindow) -> None:
    store.setValue(_GEOMETRY, window.saveGeometry())
    store.setValue(_STATE, window.saveState())
    for action in _toggles(window):
        store.setValue(_TOGGLES + action.objectName(), action.isChecked())


def restore_window(store: QSettings, window: QMainWindow) -> None:
    """Geometry and toggles as they were; a toggle is triggered, so its slot runs."""
    geometry = store.value(_GEOMETRY)
    if isinstance(geometry, QByteArray | bytes):
        window.restoreGeometry(QByteArray(geometry))
    state = store.value(_STATE)
    if isinstance(state, QByteArray | bytes):
        window.restoreState(QByteArray(state))
    for action in _toggles(window):
        saved = store.value(_TOGGLES + action.objectName())
        if saved is None:
            continue
        checked = saved is True or str(saved).lower() == "true"
        if checked != action.isChecked() and action.isEnabled():
            action.trigger()


def last_folder(store: QSettings | None) -> str:
    default = str(Path.home())
    if store is None:
        return default
    folder = store.value(_FOLDER, default)
    return str(folder) if folder and Path(str(folder)).is_dir() else default


def remember_folder(store: QSettings | None, path: Path) -> None:
    if store is not None:
        store.setValue(_FOLDER, str(path.parent))
