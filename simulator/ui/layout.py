"""Small layout helpers shared by the panels, the window and the export dialog."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

__all__ = ["column", "initial_geometry", "row"]


def row(*widgets: QWidget, stretch: int | None = None) -> QWidget:
    """Widgets side by side; the one at index `stretch` takes the spare room (default: a
    trailing space does)."""
    holder = QWidget()
    layout = QHBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    for index, widget in enumerate(widgets):
        layout.addWidget(widget, 1 if index == stretch else 0)
    if stretch is None:
        layout.addStretch(1)
    return holder


def column(*widgets: QWidget) -> QWidget:
    """Widgets one above the other."""
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    return holder


PREFERRED_SIZE = QSize(1280, 800)


def initial_geometry(
    available: QRect, preferred: QSize = PREFERRED_SIZE, title_bar: int = 32
) -> QRect:
    """Where the window first opens: inside the screen's available area (title bar
    included), at least the preferred size where the screen allows, four fifths of a larger
    screen, centred. So on 1366×768 the explanation under the plot stays on screen."""
    room_w = max(1, available.width())
    room_h = max(1, available.height() - title_bar)
    width = min(room_w, max(preferred.width(), round(0.8 * available.width())))
    height = min(room_h, max(preferred.height(), round(0.8 * available.height())))
    x = available.x() + (room_w - width) // 2
    y = available.y() + title_bar + (room_h - height) // 2
    return QRect(x, y, width, height)
