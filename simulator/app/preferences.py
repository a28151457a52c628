"""What the window remembers between runs (QSettings): the learner's settings, the view
toggles, the window's geometry and the last folder.

Kept: every checkable QAction of the window that has an objectName (the View toggles),
unless its `persistent` property is False.

A settings file may have been edited by hand, written by another version, or poisoned by
a session from elsewhere (a seed of 2³¹, a NaN α): every value read is checked (type,
range, finite) before anything uses it. A value that fails falls back to its default and
the others stay; settings the engine still refuses as a whole fall back to the defaults.
The window then says so in one status-bar line: a settings file never stops the start.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow

from simulator.engine import DataFileError, Dataset, Settings, Simulation
from simulator.engine.session import (
    VERSION,
    VERSION_1_PARAMETERS,
    settings_from_json,
    settings_to_json,
)
from simulator.ui.controller import settings_problem

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
    store.setValue(_LEARNER, json.dumps(settings_to_json(settings)))


def restore_learner(store: QSettings, dropped: list[str] | None = None) -> Settings | None:
    """The settings saved last time, or None if there are none or they no longer apply.

    Each value is checked as a session's is (`settings_from_json`), one at a time: one
    that cannot be used takes its default and its name goes into `dropped`. Settings saved
    by round 2 kept the parameters among the settings; they still read."""
    dropped = [] if dropped is None else dropped
    text = store.value(_LEARNER)
    if not isinstance(text, str):
        return None
    try:
        values = json.loads(text)
    except (ValueError, RecursionError):
        dropped.append("all")
        return None
    if not isinstance(values, dict):
        dropped.append("all")
        return None
    version = VERSION if "parameters" in values else 1
    parameters = values.get("parameters", {})
    fields = {k: v for k, v in values.items() if k != "parameters"}
    algorithm = fields.get("algorithm")
    kept = _usable_fields(fields, version, dropped)
    if isinstance(parameters, dict):
        context = {"algorithm": algorithm} if "algorithm" in kept else {}
        for name, value in parameters.items():
            if _readable({**context, "parameters": {name: value}}, VERSION):
                kept.setdefault("parameters", {})[name] = value
            else:
                dropped.append(name)
    else:
        dropped.append("parameters")
    try:
        settings = settings_from_json(kept, "preferences", VERSION)
        Simulation.from_settings(Dataset.empty(), settings)  # the engine checks the rest
    except (ValueError, TypeError, AttributeError, OverflowError):
        dropped.append("all")
        return None
    return settings


def _usable_fields(values: dict[str, Any], version: int, dropped: list[str]) -> dict[str, Any]:
    """The settings (parameters of version 1 among them) that read, one at a time."""
    kept: dict[str, Any] = {}
    for name, value in values.items():
        if version == 1 and name in VERSION_1_PARAMETERS:
            context = {"algorithm": values.get("algorithm")} if "algorithm" in values else {}
            if _readable({**context, "parameters": {name: value}}, VERSION):
                kept.setdefault("parameters", {})[name] = value
                continue
        elif _readable({name: value}, VERSION):
            kept[name] = value
            continue
        dropped.append(name)
    if "algorithm" in kept and not _readable({"algorithm": kept["algorithm"]}, VERSION):
        del kept["algorithm"]
    return kept


def _readable(values: dict[str, Any], version: int) -> bool:
    """Whether `values` read as settings (a session's checks, quietly)."""
    if values.get("algorithm", "perceptron") is None:
        values = {k: v for k, v in values.items() if k != "algorithm"}
    try:
        settings = settings_from_json(values, "preferences", version)
    except DataFileError:
        return False
    return settings_problem(settings) is None


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
    if not isinstance(folder, str) or not folder or "\0" in folder:
        return default
    return folder if Path(folder).is_dir() else default


def remember_folder(store: QSettings | None, path: Path) -> None:
    if store is not None:
        store.setValue(_FOLDER, str(path.parent))
