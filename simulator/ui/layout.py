"""Small layout helpers shared by the panels and the export dialog."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

__all__ = ["column", "row"]


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
