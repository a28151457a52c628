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
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow

from simulator.engine import (
    ALGORITHMS,
    ORDERS,
    PREPROCESSINGS,
    TIES,
    Dataset,
    Settings,
    Simulation,
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
    store.setValue(_LEARNER, json.dumps(asdict(settings)))


def restore_learner(store: QSettings, dropped: list[str] | None = None) -> Settings | None:
    """The settings saved last time, or None if there are none or they no longer apply.

    A field whose value cannot be used takes its default; its name goes into `dropped`."""
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
    kept: dict[str, Any] = {}
    for field in fields(Settings):
        if field.name not in values:
            continue
        value = _usable(field.name, values[field.name])
        if value is _UNUSABLE:
            dropped.append(field.name)
        else:
            kept[field.name] = value
    settings = Settings(**kept)
    try:
        Simulation.from_settings(Dataset.empty(), settings)  # the engine checks the rest
    except (ValueError, TypeError, AttributeError, OverflowError):
        dropped.append("all")
        return None
    return settings


_UNUSABLE = object()


def _usable(name: str, value: Any) -> Any:
    """`value` as a `Settings` field `name` may hold it, or _UNUSABLE."""
    if name == "initial_weights" and isinstance(value, list):
        value = tuple(value)
    trial = replace(Settings(), **{name: value})
    if settings_problem(trial) is not None:
        return _UNUSABLE  # not finite, not a number, a seed out of range
    default = getattr(Settings(), name)
    if isinstance(default, bool) or name == "bias":
        return value if isinstance(value, bool) else _UNUSABLE
    if isinstance(default, str) and not isinstance(value, str):
        return _UNUSABLE
    choices = {
        "algorithm": tuple(ALGORITHMS),
        "tie": (None, *TIES),
        "order": ORDERS,
        "preprocessing": PREPROCESSINGS,
    }.get(name)
    if choices is not None and value not in choices:
        return _UNUSABLE
    if name == "tolerance" and not value > 0:
        return _UNUSABLE
    if name == "initial_weights" and not (value is None or isinstance(value, str | tuple)):
        return _UNUSABLE
    # The ranges of every rule that has this parameter: a later switch of rule must work.
    for rule in ALGORITHMS.values():
        parameter = rule.parameter(name)
        if parameter is None or value is None:  # None: the rule's default
            continue
        try:
            parameter.check(value)
        except ValueError:
            return _UNUSABLE
    return value


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
