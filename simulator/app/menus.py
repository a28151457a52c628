"""The main window's menus as a table: each action's text, keys, name and slot, menu by menu.

`build_menus(window)` makes the actions in table order, keeps each in its window attribute,
connects it and lists it in its menu. The entries that are not one action of the window's
own (the presets, the snap grid, undo and redo, the time views' actions) are small
functions named in the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from simulator.app.lesson_mode import lessons_menu
from simulator.engine import PRESET_TITLES, PRESETS
from simulator.engine.dataset import MAX_CLASSES
from simulator.ui.plot_view import DEFAULT_SNAP, SNAP_STEPS

if TYPE_CHECKING:
    from simulator.app.main_window import MainWindow

__all__ = ["MENUS", "SEPARATOR", "Built", "Item", "build_menus", "make_action"]

Keys = str | QKeySequence.StandardKey | tuple[str, ...] | None
StandardKey = QKeySequence.StandardKey


@dataclass(frozen=True, slots=True)
class Item:
    """One action: `slot` is a path from the window (`"save"`, `"controller.step"`); a
    checkable action calls it with its state."""

    text: str
    slot: str
    keys: Keys = None
    attr: str | None = None  # the window attribute that keeps it
    name: str = ""  # objectName: a named toggle is remembered between runs (`preferences`)
    checkable: bool = False
    checked: bool = False


@dataclass(frozen=True, slots=True)
class Built:
    """Entries made by a function of the window and the menu (not one action each)."""

    build: Callable[[MainWindow, QMenu], None]


SEPARATOR = None
Entry = Item | Built | None


def make_action(
    window: MainWindow,
    text: str,
    slot: Callable[..., object],
    keys: Keys = None,
    *,
    checkable: bool = False,
    name: str = "",
) -> QAction:
    """An action of `window`, connected to `slot`, its keys working in the whole window."""
    action = QAction(text, window)
    if keys is not None:
        if isinstance(keys, tuple):
            action.setShortcuts([QKeySequence(k) for k in keys])
        else:
            action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setCheckable(checkable)
    if name:
        action.setObjectName(name)
    # A checkable action follows its state, however it changes (menu, key, setChecked).
    (action.toggled if checkable else action.triggered).connect(slot)
    window.addAction(action)  # shortcuts work even when the menu bar is hidden (full screen)
    return action


def _presets(window: MainWindow, menu: QMenu) -> None:
    presets = menu.addMenu("&Presets")
    for name in PRESETS:
        presets.addAction(
            make_action(
                window,
                PRESET_TITLES.get(name, name),
                lambda _=False, n=name: window.load_preset(n),
                name=f"preset_{name}",
            )
        )


def _undo_redo(window: MainWindow, menu: QMenu) -> None:
    """The undo stack's own actions, which follow what there is to undo."""
    stack = window.controller.undo_stack
    window.undo_action = stack.createUndoAction(window, "&Undo")
    window.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
    window.redo_action = stack.createRedoAction(window, "&Redo")
    window.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    window.addActions([window.undo_action, window.redo_action])
    menu.addActions([window.undo_action, window.redo_action])


def _snap_grid(window: MainWindow, menu: QMenu) -> None:
    """Off or one of `SNAP_STEPS`, one at a time."""
    snap_menu = menu.addMenu("S&nap clicks to a grid")
    window.snap_group = QActionGroup(window)
    for step, name in ((None, "Off"), *((s, f"{s:g}") for s in SNAP_STEPS)):
        action = QAction(name, window, checkable=True)
        action.setObjectName(f"snapAction_{name}")
        action.setData(step)
        action.setChecked(step == DEFAULT_SNAP)
        action.triggered.connect(lambda _=False, v=step: window.plot.set_snap(v))
        window.snap_group.addAction(action)
        snap_menu.addAction(action)


def _class_keys(window: MainWindow, menu: QMenu) -> None:
    """Keys 1–9: the class a left click adds (a key past the last class adds classes)."""
    classes = menu.addMenu("Class of &new points")
    for key in range(1, MAX_CLASSES + 1):
        classes.addAction(
            make_action(
                window,
                f"Class {key}",
                lambda _=False, k=key: window.choose_class(k),
                str(key),
                name=f"classAction_{key}",
            )
        )


def _step_back(window: MainWindow, menu: QMenu) -> None:
    """Step back is the time views' (it rewinds their history)."""
    window.step_back_action = window.time.step_back_action
    menu.addAction(window.step_back_action)


def _time_menu(window: MainWindow, menu: QMenu) -> None:
    menu.addMenu(window.time.menu)


MENUS: tuple[tuple[str, tuple[Entry, ...]], ...] = (
    (
        "&File",
        (
            Item("&New", "new_points", StandardKey.New, attr="new_action"),
            Item("&Open…", "open_dialog", StandardKey.Open, attr="open_action"),
            Item("&Save", "save", StandardKey.Save, attr="save_action"),
            Item("Save &As…", "save_as_dialog", StandardKey.SaveAs, attr="save_as_action"),
            SEPARATOR,
            Item(
                "Open Sess&ion…",
                "open_session_dialog",
                "Ctrl+Shift+O",
                attr="open_session_action",
                name="openSessionAction",
            ),
            Item(
                "Save Sessio&n…",
                "save_session_dialog",
                "Ctrl+Alt+S",
                attr="save_session_action",
                name="saveSessionAction",
            ),
            SEPARATOR,
            Built(_presets),
            SEPARATOR,
            Item(
                "&Export frames…",
                "export_dialog",
                "Ctrl+E",
                attr="export_action",
                name="exportAction",
            ),
            SEPARATOR,
            Item("&Quit", "close", StandardKey.Quit),
        ),
    ),
    (
        "&Edit",
        (
            Built(_undo_redo),
            SEPARATOR,
            Item("&Delete point", "delete_selected", StandardKey.Delete, attr="delete_action"),
            Item("&Flip label of point", "flip_selected", "F", attr="flip_action"),
            Built(_class_keys),
            Item("&Clear all points", "clear_points", attr="clear_action"),
        ),
    ),
    (
        "&View",
        (
            Item(
                "Optimal separator and &margin",
                "plot.set_show_separator",
                "M",
                attr="separator_action",
                name="separatorAction",
                checkable=True,
            ),
            Item(
                "&Radius R",
                "plot.set_show_radius",
                "R",
                attr="radius_action",
                name="radiusAction",
                checkable=True,
            ),
            Item(
                "Region &shading (sign of the score)",
                "plot.set_show_shading",
                "S",
                attr="shading_action",
                name="shadingAction",
                checkable=True,
            ),
            Item(
                "&Least-squares line w_LS",
                "plot.set_show_least_squares",
                "L",
                attr="least_squares_action",
                name="leastSquaresAction",
                checkable=True,
            ),
            Item(
                "w at its &true length",
                "plot.set_true_length",
                "W",
                attr="true_length_action",
                name="trueLengthAction",
                checkable=True,
            ),
            Item(
                "Point &numbers",
                "plot.set_show_numbers",
                "P",
                attr="numbers_action",
                name="numbersAction",
                checkable=True,
                checked=True,
            ),
            Item(
                "L&egend",
                "plot.set_show_legend",
                "G",
                attr="legend_action",
                name="legendAction",
                checkable=True,
                checked=True,
            ),
            SEPARATOR,
            Built(_snap_grid),
            Item(
                "F&ollow the learner",
                "plot.set_follow",
                "Ctrl+L",
                attr="follow_action",
                name="followAction",
                checkable=True,
                checked=True,
            ),
            Item("&Fit view to points", "plot.fit_view", "Ctrl+0", attr="fit_action"),
            SEPARATOR,
            Item(
                "&Presentation mode",
                "set_presentation",
                "F5",
                attr="presentation_action",
                name="presentationAction",
                checkable=True,
            ),
            # No name: full screen is not remembered between runs.
            Item(
                "&Full screen",
                "toggle_full_screen",
                "F11",
                attr="fullscreen_action",
                checkable=True,
            ),
            SEPARATOR,
            Built(_time_menu),
        ),
    ),
    (
        "&Run",
        (
            Item("&Step", "controller.step", "Space", attr="step_action"),
            Built(_step_back),
            Item("&Run / Pause", "controller.toggle_run", ("Return", "Enter"), attr="run_action"),
            Item("&Next mistake", "controller.next_mistake", "N", attr="next_mistake_action"),
            Item("&Epoch", "controller.run_epoch", "E", attr="epoch_action"),
            Item("Rese&t", "controller.reset", "Ctrl+R", attr="reset_action"),
        ),
    ),
    ("&Lessons", (Built(lessons_menu),)),
    (
        "&Tools",
        (Item("&Winnow vs Perceptron lab…", "open_lab", attr="lab_action", name="labAction"),),
    ),
    (
        "&Help",
        (
            Item(
                "&Shortcuts",
                "show_shortcuts",
                StandardKey.HelpContents,
                name="shortcutsAction",
            ),
            Item("&About", "show_about"),
        ),
    ),
)


def build_menus(window: MainWindow) -> None:
    """The menu bar of `window`, from `MENUS`."""
    bar = window.menuBar()
    for title, entries in MENUS:
        menu = bar.addMenu(title)
        for entry in entries:
            if entry is SEPARATOR:
                menu.addSeparator()
            elif isinstance(entry, Built):
                entry.build(window, menu)
            else:
                menu.addAction(_item_action(window, entry))


def _item_action(window: MainWindow, item: Item) -> QAction:
    slot = attrgetter(item.slot)(window)
    action = make_action(
        window, item.text, slot, item.keys, checkable=item.checkable, name=item.name
    )
    if item.checked:
        action.setChecked(True)
    if item.attr is not None:
        setattr(window, item.attr, action)
    return action
