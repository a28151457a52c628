"""The view's toggles (the optimal separator, R, numbers, the legend, shading, w_LS, w at its
true length), snapping, Follow the learner and fitting the view to the data.

`ViewToggles` is a part of `PlotView` (its methods run on the view); it lives here so the
view's file stays about one thing."""

from __future__ import annotations

import numpy as np

from simulator.ui.plot_geometry import (
    Box,
    follow,
)
from simulator.ui.points_item import NUMBERS_LIMIT

FIT_ROOM = 0.1  # fitting the view leaves this share of the data's size free on each side


class ViewToggles:
    """The toggles part of `PlotView` (see the module docstring)."""

    def _repaint(self) -> None:
        if self._frame is not None:
            self.show_frame(self._frame)

    def set_show_separator(self, show: bool) -> None:
        self._show_separator = bool(show)
        self._repaint()

    def set_show_radius(self, show: bool) -> None:
        self._show_radius = bool(show)
        self._repaint()

    def set_show_numbers(self, show: bool) -> None:
        """Number the points 1…n beside their glyphs."""
        self._show_numbers = bool(show)
        n = len(self._shown_dataset) if self._shown_dataset is not None else 0
        self._numbers.setVisible(self._show_numbers and 0 < n <= NUMBERS_LIMIT)

    def numbered_points(self) -> np.ndarray:
        """The points that carry a number, in order (number k labels row k − 1)."""
        if not self._numbers.isVisible():
            return np.empty((0, 2))
        return self._numbers.shown_points()

    def set_show_legend(self, show: bool) -> None:
        self._show_legend = bool(show)
        self._legend.setVisible(self._show_legend)
        self._legend_key = None
        if self._show_legend:
            self._update_legend()
        else:
            self._keep_fit()

    def set_show_shading(self, show: bool) -> None:
        """Tint the half-planes where the score is positive and negative."""
        self._show_shading = bool(show)
        self._repaint()

    def set_show_least_squares(self, show: bool) -> None:
        """Draw the least-squares solution w_LS as a line (for a rule that has one)."""
        self._show_least_squares = bool(show)
        self._repaint()

    def set_true_length(self, on: bool) -> None:
        """Draw w at its true length in the plane instead of a fixed share of the view."""
        self._true_length = bool(on)
        self._repaint()

    def set_follow(self, on: bool) -> None:
        """Keep the points, the boundary and w in sight (see `plot_geometry.follow`)."""
        self._follow = bool(on)
        if self._follow and self._frame is not None:
            self.follow_learner()
            self._place_arrow()

    @property
    def following(self) -> bool:
        return self._follow

    def set_snap(self, step: float | None) -> None:
        """Round clicked and dragged positions to multiples of `step` (None: no snapping)."""
        self.snap_step = step if step is None or step > 0 else None

    def follow_learner(self) -> None:
        """Move the view if the points, the boundary or w would leave it."""
        frame = self._frame
        if frame is None:
            return
        line = frame.boundary
        true_length = (
            float(np.linalg.norm(np.asarray(line.normal, dtype=float)))
            if self._true_length and line is not None
            else None
        )
        target = follow(self.drawing_box(), self._data_box, line, true_length)
        if target is not None:
            self._show_box(target, relayout=False)

    def fit_view(self) -> None:
        """Frame the points (with room around them), or the square [-2, 2]² when empty;
        when following the learner, the boundary and w too."""
        box = self._data_box
        self.getPlotItem().getAxis("left").reset_room()  # new data: their own tick labels
        if box is None:
            self.setRange(xRange=(-2, 2), yRange=(-2, 2), padding=0)
            self._fitted = None
            return
        scale = max(box.width, box.height)
        if scale > 0:  # each axis its share of its own span (a flat cloud: of a quarter)
            room_x = FIT_ROOM * max(box.width, 0.25 * scale)
            room_y = FIT_ROOM * max(box.height, 0.25 * scale)
        else:
            room_x = room_y = 1.0  # a single point: a unit around it
        self._show_box(Box(box.x0 - room_x, box.x1 + room_x, box.y0 - room_y, box.y1 + room_y))
        if self._follow:
            self.follow_learner()
