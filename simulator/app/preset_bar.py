"""The presets and lessons one click away: a toolbar of thumbnails (as TensorFlow
Playground puts its data sets in view), each the same action as File → Presets → its
title, led by a Lessons button whose menu holds the Lessons menu's lessons (the app has
no start page: this bar is where a class starts).

A thumbnail is the preset's points drawn small in their class colours (data with d ≠ 2
coordinates get a few bars instead). They are drawn after the window first shows, so
startup does not wait for the presets to load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QLabel, QMenu, QToolBar, QToolButton

from simulator.engine import PRESETS, Dataset, load_preset
from simulator.ui import style

if TYPE_CHECKING:
    from simulator.app.main_window import MainWindow

__all__ = ["THUMBNAIL_PX", "build_preset_bar", "thumbnail"]

THUMBNAIL_PX = 34


def thumbnail(ds: Dataset, size: int = THUMBNAIL_PX) -> QPixmap:
    """The points of `ds` on a white square, each a dot in its class's colour."""
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor("#FFFFFF"))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor("#BBBBBB"))
    painter.drawRect(QRectF(0.5, 0.5, size - 1, size - 1))
    colours = style.class_colours(len(ds.classes))
    if ds.dimension != 2 or not len(ds):
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("#888888"))
        for k, height in enumerate((0.5, 0.2, 0.8, 0.3, 0.6, 0.25)):
            h = height * (size - 8)
            painter.drawRect(QRectF(4 + k * (size - 8) / 6, size - 4 - h, (size - 10) / 6, h))
    else:
        points = ds.points
        low, high = points.min(axis=0), points.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        scale = (size - 8) / float(np.max(span))
        centre = (low + high) / 2
        radius = 2.4 if len(ds) <= 60 else 1.5
        painter.setPen(Qt.PenStyle.NoPen)
        for label, colour in zip(ds.classes, colours, strict=True):
            painter.setBrush(colour)
            for x, y in points[ds.labels == label]:
                px = size / 2 + (x - centre[0]) * scale
                py = size / 2 - (y - centre[1]) * scale
                painter.drawEllipse(QPointF(px, py), radius, radius)
    painter.end()
    return pixmap


def build_preset_bar(window: MainWindow) -> QToolBar:
    """The toolbar of presets (the menu's own actions), its thumbnails drawn once the event
    loop runs. Hidden in presentation mode (the plot takes the room)."""
    bar = QToolBar("Presets", window)
    bar.setObjectName("presetBar")
    bar.setIconSize(QSize(THUMBNAIL_PX, THUMBNAIL_PX))
    bar.setMovable(False)
    bar.addWidget(_lessons_button(window, bar))
    bar.addSeparator()
    bar.addWidget(QLabel(" Presets: "))
    actions = []
    for name in PRESETS:
        action = window.findChild(QAction, f"preset_{name}")
        if action is not None:
            bar.addAction(action)
            action.setToolTip(action.text())
            actions.append((name, action))
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)

    def draw() -> None:
        for name, action in actions:
            try:
                action.setIcon(QIcon(thumbnail(load_preset(name))))
            except ValueError:  # a preset whose file is missing: its title stays
                continue

    QTimer.singleShot(0, draw)
    return bar


def _lessons_button(window: MainWindow, bar: QToolBar) -> QToolButton:
    """ "Lessons ▾": the shipped lessons (the Lessons menu's own actions), one click away."""
    button = QToolButton(bar)
    button.setObjectName("lessonsButton")
    button.setText("Lessons")
    button.setToolTip("Start a guided lesson from the course notes")
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    menu = QMenu(button)
    for action in window.findChildren(QAction):
        if action.objectName().startswith("lesson_"):
            menu.addAction(action)
    button.setMenu(menu)
    return button
