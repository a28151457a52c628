"""Editing on the plane: selecting a point, its context menu, clicks that ask for new points
(left: the chosen class; right: the other of two), and dragging a point to move it. Every
gesture becomes an intent signal of `PlotView`; the data never change here.

`PointEditing` is a part of `PlotView` (its methods run on the view); it lives here so the
view's file stays about one thing."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QAction, QFocusEvent, QKeyEvent
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QMenu, QWidget

from simulator.ui.class_points import class_text
from simulator.ui.plot_geometry import (
    snap,
)

HIT_RADIUS_PX = 10


class PointEditing:
    """The editing part of `PlotView` (see the module docstring)."""

    @property
    def selected(self) -> int | None:
        return self._selected

    def set_selected(self, index: int | None) -> None:
        if index != self._selected:
            self._selected = index
            self._paint_selection()
            self.selection_changed.emit(index)

    def _paint_selection(self) -> None:
        ds = self._shown_dataset
        if self._selected is None or ds is None or self._selected >= len(ds):
            self._selection.set_points(np.empty((0, 2)))
        else:
            self._selection.set_points(ds.points[self._selected : self._selected + 1])

    def hit_test(self, scene_pos: QPointF) -> int | None:
        """The point within HIT_RADIUS_PX pixels of `scene_pos`, nearest first."""
        ds = self._shown_dataset
        if ds is None or len(ds) == 0:
            return None
        vb = self.getPlotItem().vb
        here = vb.mapSceneToView(scene_pos)
        px, py = vb.viewPixelSize()
        dx = (ds.points[:, 0] - here.x()) / px
        dy = (ds.points[:, 1] - here.y()) / py
        distance = dx * dx + dy * dy
        nearest = int(np.argmin(distance))
        return nearest if distance[nearest] <= HIT_RADIUS_PX**2 else None

    def point_menu(self, index: int) -> QMenu:
        """The context menu of point `index` (shown by a right click on it): delete, and
        flip the label (two classes) or move the point to another class (K classes). One
        menu serves every point: a right click only says which point its actions act on."""
        if self._menu is None:
            self._menu = QMenu(self)
            delete = QAction("Delete point", self._menu)
            delete.triggered.connect(lambda: self.point_delete_requested.emit(self._menu_point))
            self._flip = QAction("Flip label", self._menu)
            self._flip.triggered.connect(lambda: self.point_flip_requested.emit(self._menu_point))
            self._menu.addAction(delete)
            self._menu.addAction(self._flip)
            self._class_menu = self._menu.addMenu("Class")
        self._menu_point = index
        ds = self._shown_dataset
        many = ds is not None and len(ds.classes) > 2
        self._flip.setVisible(not many)
        self._class_menu.menuAction().setVisible(many)
        self._class_menu.clear()
        if ds is not None and many:
            own = int(ds.labels[index]) if index < len(ds) else None
            for key, label in enumerate(ds.classes, start=1):
                action = self._class_menu.addAction(f"{key}: {class_text(ds, label)}")
                action.setEnabled(label != own)
                action.triggered.connect(
                    lambda _=False, c=label: self.point_relabel_requested.emit(self._menu_point, c)
                )
        return self._menu

    def _data_position(self, scene_pos: QPointF) -> tuple[float, float]:
        """The data coordinates under `scene_pos`, snapped to the grid step if one is set."""
        p = self.getPlotItem().vb.mapSceneToView(scene_pos)
        return snap(p.x(), self.snap_step), snap(p.y(), self.snap_step)

    def handle_click(self, ev) -> bool:
        button = ev.button()
        if button not in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            return False
        ev.accept()
        if self._focus_click:  # a click that only took the keyboard back from a field
            self._focus_click = False
            return True
        hit = self.hit_test(ev.scenePos())
        if hit is None:  # a point where the snapped click would land: that point, not a twin
            hit = self._point_at(self._data_position(ev.scenePos()))
        if button == Qt.MouseButton.LeftButton:
            if hit is not None:
                self.set_selected(hit)
            else:
                self.set_selected(None)
                self.point_requested.emit(*self._data_position(ev.scenePos()), self.new_point_label)
        elif hit is not None:
            self.set_selected(hit)
            self.point_menu(hit).popup(ev.screenPos().toPoint())
        elif self._shown_dataset is None or len(self._shown_dataset.classes) == 2:
            self.point_requested.emit(*self._data_position(ev.scenePos()), -self.new_point_label)
        return True

    def _point_at(self, position: tuple[float, float]) -> int | None:
        """The first point at exactly `position` (a snapped click's place), if any."""
        ds = self._shown_dataset
        if ds is None or not len(ds):
            return None
        same = np.flatnonzero(np.all(ds.points == np.asarray(position), axis=1))
        return int(same[0]) if same.size else None

    def handle_drag(self, ev) -> bool:
        if ev.button() != Qt.MouseButton.LeftButton:
            return False
        if ev.isStart():
            self._dragging = self.hit_test(ev.buttonDownScenePos())
        if self._dragging is None:
            return False
        ev.accept()
        x, y = self._data_position(ev.scenePos())
        if ev.isFinish():
            index, self._dragging = self._dragging, None
            self._ghost.set_points(np.empty((0, 2)))
            self.set_selected(index)
            self.point_moved.emit(index, x, y)
        else:
            self._ghost.set_points(np.array([[x, y]]))
        return True

    def _on_focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        """Whether a field where values are typed holds the keyboard (until the plot takes
        it: `focusInEvent` comes before this signal, and reads the value still set)."""
        if new is not self:
            self._field_focused = isinstance(new, QAbstractSpinBox | QLineEdit)
        else:
            self._field_focused = False

    def focusInEvent(self, ev: QFocusEvent) -> None:
        """A click that takes the keyboard from such a field only gives the keys back: it
        adds no point (`handle_click` swallows it)."""
        mouse = ev.reason() == Qt.FocusReason.MouseFocusReason
        self._focus_click = mouse and self._field_focused
        super().focusInEvent(ev)  # type: ignore[misc]

    def keyPressEvent(self, ev: QKeyEvent) -> None:
        if ev.key() == Qt.Key.Key_Delete and self._selected is not None:
            self.point_delete_requested.emit(self._selected)
            ev.accept()
            return
        super().keyPressEvent(ev)
