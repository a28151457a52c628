"""What the plane shows besides points and lines: level sets traced over the view, regions
shaded by the class a learner predicts (K classes by argmax, with the boundaries between
them), each class's w_k as an arrow, and the two half-planes of a linear boundary.

`PlaneShapes` is a part of `PlotView` (its methods run on the view, with the view's graphics
items and state); it lives here so the view's file stays about one thing."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPolygonF

from simulator.engine.drawables import LevelSet, Regions, Vector
from simulator.presentation.level_sets import (
    grid_size,
    level_segments,
    partition_segments,
    polylines,
    region_classes,
)
from simulator.ui import style
from simulator.ui.class_points import ClassLayers
from simulator.ui.plot_geometry import (
    ARROW_FRACTION,
    half_plane,
)


class PlaneShapes:
    """The shapes part of `PlotView` (see the module docstring)."""

    def _level_sets(self) -> dict[str, list[LevelSet | Regions]]:
        """The frame's curved drawables by role (a partition into K regions draws its
        boundaries as curves too)."""
        found: dict[str, list[LevelSet | Regions]] = {}
        for d in self._frame.drawables if self._frame is not None else ():
            if isinstance(d, LevelSet) or (isinstance(d, Regions) and d.classes > 2):
                found.setdefault(d.role, []).append(d)
        return found

    def _sampled(self, drawable: LevelSet | Regions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The drawable's score on a grid over the view (and a little beyond), kept while
        neither the score nor the view changes (the regions and the curves of one drawable
        share a sampling; a step's new sum is found from the last one, `SampledGrid`)."""
        box = self.view_box().grown(0.05)
        cells = grid_size(self.getPlotItem().vb.width())
        return self._grids.sample(drawable.score, (box.x0, box.x1, box.y0, box.y1), cells)

    def _place_curves(self) -> None:
        """The frame's curved drawables: each level set traced over the view."""
        wanted = self._level_sets()
        for role, curve in self._curves.items():
            drawables = wanted.get(role, [])
            if not drawables or not self._role_shown(role):
                if curve.isVisible():
                    curve.hide()
                continue
            pieces = []
            for drawable in drawables:
                xs, ys, values = self._sampled(drawable)
                if isinstance(drawable, Regions):
                    pieces.append(partition_segments(xs, ys, values))
                else:
                    stepped = drawable.score if drawable.stepped else None
                    pieces.append(level_segments(xs, ys, values, drawable.level, stepped))
            lines = polylines(np.concatenate(pieces, axis=0))
            curve.setData(lines[:, 0], lines[:, 1])
            curve.show()

    def drawn_curve(self, role: str) -> np.ndarray | None:
        """A level set as drawn: the vertices of its polylines, (m, 2), or None when hidden."""
        curve = self._curves[role]
        if not curve.isVisible():
            return None
        x, y = curve.getData()
        if x is None:
            return np.zeros((0, 2))
        vertices = np.column_stack((x, y))
        return vertices[np.isfinite(x)]

    def _regions_to_draw(self) -> LevelSet | Regions | None:
        """What the plane is shaded by: a learner's partition into classes always (it is how
        K classes read), else the sign of a curved boundary while region shading is on."""
        frame = self._frame
        if frame is None:
            return None
        for d in frame.drawables:
            if isinstance(d, Regions):
                return d
        curves = self._level_sets().get("boundary", [])
        if self._show_shading and len(curves) == 1 and isinstance(curves[0], LevelSet):
            return curves[0]
        return None

    def _place_regions(self) -> bool:
        """Shade the plane by the class each grid point gets (the argmax of K scores, or
        the sign of one: −1 and +1 as classes 0 and 1, a score of 0 unshaded); whether it
        did."""
        drawable = self._regions_to_draw()
        if drawable is None:
            self._regions.hide()
            return False
        xs, ys, values = self._sampled(drawable)
        found = region_classes(values)
        if values.ndim == 3:
            count, shaded = values.shape[2], np.all(np.isfinite(values), axis=2)
        else:
            count, shaded = 2, found != 0
            found = (found > 0).astype(np.int64)
        image = np.zeros((*found.shape, 4), dtype=np.uint8)
        for index, colour in enumerate(style.class_colours(count)):
            tint = style.region_colour(colour)
            image[shaded & (found == index)] = (
                tint.red(), tint.green(), tint.blue(), tint.alpha()
            )  # fmt: skip
        self._regions.setImage(np.swapaxes(image, 0, 1), levels=None)
        self._regions.setRect(QRectF(xs[0], ys[0], xs[-1] - xs[0], ys[-1] - ys[0]))
        self._regions.show()
        return True

    def _place_class_arrows(self) -> None:
        """Each class's w_k (`Vector` drawables) as an arrow in its colour, from the middle
        of the class's points (the data's middle for a class without points), a share of
        the view long for the longest w_k and proportionally shorter for the others."""
        frame = self._frame
        vectors = [d for d in frame.drawables if isinstance(d, Vector)] if frame else []
        shown = set()
        if vectors and self._shown_dataset is not None:
            ds = self._shown_dataset
            view = self.drawing_box()
            norms = [math.hypot(*v.direction) for v in vectors]
            longest = max(norms)
            centre = view.center if self._data_box is None else self._data_box.center
            count = len(ds.classes)
            for vector, norm in zip(vectors, norms, strict=True):
                if not (longest > 0 and math.isfinite(longest)) or vector.klass >= count:
                    continue
                label = ds.classes[vector.klass]
                own = ds.points[ds.labels == label]
                start = own.mean(axis=0) if len(own) else centre
                length = ARROW_FRACTION * view.diagonal * max(0.25, norm / longest)
                direction = np.asarray(vector.direction, dtype=float) / norm if norm else None
                if direction is None or not np.all(np.isfinite(start)):
                    continue
                arrow = self._class_arrows[vector.klass]
                arrow.set_colour(ClassLayers.colour(count, label))
                arrow.set_text(vector.label)
                arrow.set_vector(start, start + length * direction)
                shown.add(vector.klass)
        for k, arrow in enumerate(self._class_arrows):
            if arrow.isVisible() != (k in shown):
                arrow.setVisible(k in shown)

    def class_arrows(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """The classes' w_k arrows as drawn: class index → (start, end)."""
        return {
            k: ends
            for k, arrow in enumerate(self._class_arrows)
            if arrow.isVisible() and (ends := arrow.ends()) is not None
        }

    def _place_shading(self) -> None:
        frame = self._frame
        line = frame.boundary if frame is not None else None
        curved = self._place_regions()
        if not self._show_shading or line is None or curved:
            self._shade_positive.hide()
            self._shade_negative.hide()
            return
        around = self.view_box().grown(0.5)  # beyond the edges, so a pan shows no seam
        for shade, sign in ((self._shade_positive, 1), (self._shade_negative, -1)):
            polygon = half_plane(line, around, sign)
            shade.setPolygon(QPolygonF([QPointF(float(x), float(y)) for x, y in polygon]))
            shade.setVisible(len(polygon) >= 3)

    def shaded_regions(self) -> dict[int, QPolygonF]:
        """The shaded half-planes as drawn: +1 → where s > 0, −1 → where s < 0."""
        return {
            sign: shade.polygon()
            for sign, shade in ((1, self._shade_positive), (-1, self._shade_negative))
            if shade.isVisible()
        }
