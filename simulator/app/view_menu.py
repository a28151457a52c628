"""What the View and Help menus need beyond wiring: the side panel's width, the shortcut list.

The shortcut list (F1) is generated from the window's own actions, menu by menu, so it
cannot drift from what the keys do; only the mouse gestures, which are not actions, are
written here.
"""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QScrollArea, QSplitter

__all__ = ["MOUSE_GESTURES", "fit_side_panel", "shortcut_rows", "shortcuts_html"]

MOUSE_GESTURES = (
    ("Left click", "Add a point of the chosen class (+1 unless keys 1–9 or the button say)"),
    ("Right click", "Add a point of the other class (two classes); on a point: its menu"),
    ("Drag a point", "Move it"),
    ("Drag the plane / wheel", "Pan / zoom"),
)

SIDE_PANEL_MINIMUM = 380


def _title(action: QAction) -> str:
    return action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str]]:
    """(keys, what they do) for every action of `window` that has a shortcut: the menus'
    in menu order (named by their menu path), then any others."""
    rows: list[tuple[str, str]] = []
    seen: set[int] = set()

    def add(action: QAction, path: list[str]) -> None:
        if id(action) in seen:
            return
        seen.add(id(action))
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        keys = [k for k in keys if k]
        if keys:
            rows.append((" / ".join(keys), " → ".join([*path, _title(action)])))

    def visit(menu: QMenu, path: list[str]) -> None:
        for action in menu.actions():
            if action.isSeparator():
                continue
            if action.menu() is not None:
                visit(action.menu(), [*path, _title(action)])
            else:
                add(action, path)

    for top in window.menuBar().actions():
        if top.menu() is not None:
            visit(top.menu(), [_title(top)])
    for action in window.findChildren(QAction):
        add(action, [])
    return rows


def shortcuts_html(window: QMainWindow) -> str:
    """The F1 list: every key shortcut of the window's actions, then the mouse gestures."""
    rows = [*shortcut_rows(window), *MOUSE_GESTURES]
    cells = "".join(
        f"<tr><td><b>{escape(keys)}</b></td><td>&nbsp;&nbsp;{escape(what)}</td></tr>"
        for keys, what in rows
    )
    return f"<table>{cells}</table>"


def fit_side_panel(scroll: QScrollArea, splitter: QSplitter) -> None:
    """Give the side panel the width its content needs (so nothing in it is cut off: every
    value keeps the room of its longest text), and the plot the rest."""
    side = scroll.widget()
    if side is None:
        return
    side.layout().activate()
    need = (
        side.minimumSizeHint().width()
        + scroll.verticalScrollBar().sizeHint().width()
        + 2 * scroll.frameWidth()
    )
    width = max(SIDE_PANEL_MINIMUM, need)
    scroll.setMinimumWidth(width)
    sizes = splitter.sizes()
    total = sum(sizes)
    if total > width and len(sizes) == 2:
        splitter.setSizes([total - width, width])
