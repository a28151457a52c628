"""The plot's legend and the room it takes: its entries (the classes, each drawn role, the
marks, the toggled geometry), a band on top or a column on the left, in full or compact
type, whichever leaves the data larger, and fitting the view to the data beside it.

`LegendLayout` is a part of `PlotView` (its methods run on the view); it lives here so the
view's file stays about one thing."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF

from simulator.engine import Dataset
from simulator.engine.drawables import Line, Regions
from simulator.ui import style
from simulator.ui.class_points import ClassLayers, class_text
from simulator.ui.legend_item import LegendEntry
from simulator.ui.plot_geometry import (
    Box,
)
from simulator.ui.points_item import render_glyph

# The legend's (text, sample glyph) pixel sizes, normal and presentation: full, then
# compact for a plot too small to keep half the data's size beside the full one.
# Presentation adds a third: the essentials (the classes, the boundary, w) on one line, for
# a projector's small plot where the data come first.
LEGEND_TYPES = {
    False: ((13, 20.0), (11, 14.0)),
    True: ((16, 20.0), (14, 16.0), (14, 16.0)),
}
ESSENTIALS = 2  # the LEGEND_TYPES level with the essential entries only
# A legend type is taken when it leaves the data this share of their size without it (a
# lecture hall wants the data larger).
LEGEND_KEEPS = {False: 0.5, True: 0.9}


class LegendLayout:
    """The legend part of `PlotView` (see the module docstring)."""

    def _drawn_roles(self) -> tuple[tuple[str, str], ...]:
        """The roles the legend names, each with how it is drawn ("line", "curve" or
        "partition"): the learner's own (whether drawn yet or not, so the legend does not
        reflow as a run starts) and the theory's the view toggles show."""
        frame = self._frame
        if frame is None:
            return ()
        own = set(frame.learner.roles)
        kinds: dict[str, str] = {}
        for d in frame.drawables:
            kind = "line" if isinstance(d, Line) else "curve"
            if isinstance(d, Regions) and d.classes > 2:
                kind = "partition"
            kinds.setdefault(d.role, kind)
        usual = "curve" if frame.curved else "line"
        return tuple(
            (role, kinds.get(role, usual))
            for role in style.ROLES
            if (role in own or role in kinds) and self._role_shown(role)
        )

    def _update_legend(self) -> None:
        ds = self._shown_dataset
        key = (
            self._presentation,
            None if ds is None else (ds.classes, ds.class_names),
            self._show_radius,
            self._show_shading,
            self._drawn_roles(),
            self._detail,
            self._frame is not None and self._frame.dual is not None,
        )
        if key == self._legend_key:
            return
        self._legend_key = key
        self._legend_type = None
        self._set_legend_type(0)
        self._fit_legend()
        self._keep_fit()

    def _set_legend_type(self, level: int) -> None:
        """The legend at `LEGEND_TYPES` level (0 full, 1 compact, 2 the essentials)."""
        if level == self._legend_type:
            return
        self._legend_type = level
        text_px, glyph_px = LEGEND_TYPES[self._presentation][level]
        entries = self._legend_entries(glyph_px)
        if level == ESSENTIALS:
            entries = entries[: self._essential_count]
        self._legend.set_entries(entries, pixel_size=text_px)

    def _legend_entries(self, glyph_px: float) -> tuple[LegendEntry, ...]:
        """An entry for the classes, for each role drawn (named by `style.ROLES`), w when the
        boundary is a line, the marks, and the toggled geometry. The first
        `_essential_count` are the essentials: the classes, the boundary and w."""
        # Samples no taller than the text, so a column of them fits beside the data of a
        # short plot (the ring and diamond of the trial are larger on the plane itself).
        k, size = self.line_scale, min(self.point_size, glyph_px)
        entries = list(self._class_entries(size))
        self._essential_count = len(entries)
        boundary = {
            "line": "boundary w·x = θ",
            "curve": "boundary f(x) = 0",
            "partition": "boundaries w_i·x = w_j·x",
        }
        for role, kind in self._drawn_roles():
            text = boundary[kind] if role == "boundary" else style.ROLES[role].legend
            if text:
                entries.append(LegendEntry(text, pen=self._role_pen(role)))
            if role == "boundary" and kind == "line":
                entries.append(LegendEntry("w (normal)", arrow=style.WEIGHT))
            if role == "boundary":
                self._essential_count = len(entries)
        entries += [
            LegendEntry(
                "misclassified",
                glyphs=(render_glyph(style.disc(), 0.95 * size, self._ring_pen, None),),
            ),
            LegendEntry(
                "this trial: right / mistake",
                glyphs=(
                    render_glyph(
                        style.disc(), 0.9 * size, style.pen(style.HIGHLIGHT, 2.5 * k), None
                    ),
                    render_glyph(
                        style.diamond(), 0.8 * size, style.pen(style.HIGHLIGHT, 3 * k), None
                    ),
                ),
            ),
        ]
        if self._frame is not None and self._frame.dual is not None:
            entries.append(
                LegendEntry(
                    "αᵢ (ring size)",
                    glyphs=(
                        render_glyph(style.disc(), 0.95 * size, style.pen(style.HALO, 2 * k), None),
                    ),
                )
            )
        if self._show_radius:
            entries.append(
                LegendEntry("radius R", pen=style.pen(style.RADIUS, 1.5 * k, style.RADIUS_DASH))
            )
        if self._show_shading and not self._partitioned():
            entries.append(LegendEntry("s > 0: predicts +1", swatch=style.POSITIVE_REGION))
            entries.append(LegendEntry("s < 0: predicts −1", swatch=style.NEGATIVE_REGION))
        return tuple(entries)

    def _partitioned(self) -> bool:
        frame = self._frame
        return frame is not None and any(
            isinstance(d, Regions) and d.classes > 2 for d in frame.drawables
        )

    def _class_entries(self, size: float) -> tuple[LegendEntry, ...]:
        """Two classes: one entry "+1, −1" (or their names); K classes: one each, named
        (its arrow w_k and its region share the glyph's colour)."""
        ds = self._shown_dataset if self._shown_dataset is not None else Dataset.empty()
        glyphs = ClassLayers.glyphs(len(ds.classes), size)
        if len(ds.classes) == 2:
            text = f"{class_text(ds, 1)}, {class_text(ds, -1)}"
            return (LegendEntry(text, glyphs=(glyphs[1], glyphs[0])),)
        return tuple(
            LegendEntry(f"class {class_text(ds, label)}", glyphs=(glyph,))
            for label, glyph in zip(ds.classes, glyphs, strict=True)
        )

    def _fit_legend(self) -> None:
        """Columns for where the legend sits: as many as fit the width in the band on top,
        one in the column on the left (raised to the top edge when the plot is short)."""
        vb = self.getPlotItem().vb
        width = vb.width()
        if width > 0 and self.isVisible():  # not while the view is being torn down
            self._legend.fit_width(width - 16 if self._legend_side == "top" else 0.0)
            room = vb.height() - self._legend.boundingRect().height()
            self._legend.setPos(8, 6 if self._legend_side == "top" else max(1, min(6, room / 2)))

    def _on_resized(self) -> None:
        """Refit for a new size (charts shown, presentation, the window resized), but not
        for the few pixels the axes take or give as their tick labels change: that would
        loop (new range, new labels, new size) and move exported frames' axes."""
        self._fit_legend()
        vb = self.getPlotItem().vb
        width, height = self._fitted_size
        if abs(vb.width() - width) > 0.05 * width or abs(vb.height() - height) > 0.05 * height:
            self._keep_fit()

    def _keep_fit(self) -> None:
        """Refit to what the view last fitted, for the plot's new size or legend, unless the
        user (or a caller) moved the view since: the legend's room is in pixels, so a plot
        made shorter (charts shown, presentation type) needs more of it in data units."""
        if self._fitted is not None and self._fitted_range == self.getPlotItem().vb.targetRange():
            self._show_box(self._fitted)

    def _legend_gap(self) -> float:
        """Pixels kept between the legend and the data: the current trial's ring (its
        radius, 1.15 glyphs) at the data's edge stays clear of it."""
        return 1.15 * self.point_size + 4.0

    def legend_clearance(self, cap: float = 0.75) -> tuple[float, float]:
        """(pixels kept free at the top, at the left) for the legend; (0, 0) when hidden.
        At most `cap` of the plot either way, so the data always keep some room."""
        vb = self.getPlotItem().vb
        if not self._legend.isVisible() or not self._legend.texts:
            return 0.0, 0.0
        rect = self._legend.boundingRect()
        if self._legend_side == "top":
            bottom = rect.height() + self._legend.pos().y()
            return min(cap * vb.height(), bottom + self._legend_gap()), 0.0
        return 0.0, min(cap * vb.width(), rect.width() + 8.0 + self._legend_gap())

    def _choose_legend_side(self, box: Box) -> None:
        """The legend as a band on top or a column on the left, whichever shows `box`
        larger (a short, wide plot has room beside the data, a tall one above it); in
        compact type when the full type would leave the data less than half their size.
        Hidden while no layout leaves them a quarter of it: the points come first."""
        vb = self.getPlotItem().vb
        width, height = vb.width(), vb.height()
        if not self._show_legend or width <= 0 or height <= 0:
            return
        self._legend.show()
        edge = 2 * self._edge_px()
        bare = min((width - edge) / box.width, (height - edge) / box.height)
        best: tuple[float, int, str] | None = None
        for level in range(len(LEGEND_TYPES[self._presentation])):
            self._set_legend_type(level)
            for side in ("top", "left"):
                self._legend_side = side
                self._fit_legend()
                top, left = self.legend_clearance(cap=math.inf)
                if side == "left" and self._legend.boundingRect().height() + 2.0 > height:
                    continue  # the column would not fit the plot's height
                scale = min((width - left - edge) / box.width, (height - top - edge) / box.height)
                if best is None or scale > best[0]:
                    best = (scale, level, side)
            if best is not None and best[0] >= LEGEND_KEEPS[self._presentation] * bare:
                break
        if best is not None:
            self._set_legend_type(best[1])
            self._legend_side = best[2]
        self._fit_legend()
        self._legend.setVisible(best is not None and best[0] >= 0.25 * bare)

    def _edge_px(self) -> float:
        """Pixels kept on each side of the fitted box: with the fitted box's own room
        (`FIT_ROOM`), enough for the trial's ring at the edge of the data (0.7 glyphs here), at
        most 6 % of the plot (a small plot keeps its data large)."""
        vb = self.getPlotItem().vb
        return min(0.7 * self.point_size, 0.06 * min(vb.width(), vb.height()))

    def _room_for_legend(self, box: Box, relayout: bool = True) -> Box:
        """The view range showing `box` whole and as large as it can be, centred in what the
        legend leaves free, with the trial's ring more on each side (a ring at the edge of `box`
        stays whole); of the plot's own aspect, so the aspect lock adds nothing. `relayout`:
        the legend's side and type are chosen for `box` (else they stay as they are)."""
        vb = self.getPlotItem().vb
        width, height = vb.width(), vb.height()
        if not (width > 0 and height > 0 and box.width > 0 and box.height > 0):
            return box
        if relayout:
            self._choose_legend_side(box)
        top, left = self.legend_clearance()
        edge = self._edge_px()
        free_x, free_y = width - left - 2 * edge, height - top - 2 * edge
        scale = min(free_x / box.width, free_y / box.height)  # pixels a unit
        if not (scale > 0 and math.isfinite(scale)):
            return box
        x0 = box.x0 - (free_x / scale - box.width) / 2 - (left + edge) / scale
        y0 = box.y0 - (free_y / scale - box.height) / 2 - edge / scale
        view = Box(x0, x0 + width / scale, y0, y0 + height / scale)
        finite = all(math.isfinite(v) for v in (view.x0, view.x1, view.y0, view.y1))
        return view if finite and view.width > 0 and view.height > 0 else box

    def _show_box(self, box: Box, relayout: bool = True) -> None:
        """Move the view to show `box` with the legend clear of it, and remember it.
        `relayout` False (Follow, as a run moves): the legend keeps its side and type, so
        it does not reflow from trial to trial."""
        target = self._room_for_legend(box, relayout)
        self.setRange(xRange=(target.x0, target.x1), yRange=(target.y0, target.y1), padding=0)
        vb = self.getPlotItem().vb
        self._fitted = box
        self._fitted_range = vb.targetRange()
        self._fitted_size = (vb.width(), vb.height())

    def drawing_box(self) -> Box:
        """The visible range less the legend's room (band on top or column on the left):
        where w's arrow and the marker of an off-view boundary go, and what Follow keeps
        things in."""
        view = self.view_box()
        top, left = self.legend_clearance()
        vb = self.getPlotItem().vb
        width, height = vb.width(), vb.height()
        if width <= 0 or height <= 0:
            return view
        x0 = view.x0 + left / width * view.width
        return Box(x0, view.x1, view.y0, view.y1 - top / height * view.height)

    def legend_rect(self) -> QRectF | None:
        """The legend's box in scene coordinates (None when hidden)."""
        if not self._legend.isVisible() or not self._legend.texts:
            return None
        return self._legend.sceneBoundingRect()

    def legend_texts(self) -> list[str]:
        """What the legend names, top to bottom (empty when it is hidden)."""
        return self._legend.texts if self._legend.isVisible() else []
