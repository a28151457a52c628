"""What the plot shows, as data: the declared query API of `PlotView`.

Tests, the screenshot tool and anything that must check the picture ask these instead of
reaching into pyqtgraph items: which lines are drawn and where, the arrow, the markers,
the glyphs of each class, the halos, the hint and the axis names. Every method only reads;
nothing here changes what is drawn. The items they read are made by `PlotView`. The parts
that draw more answer for it beside their code: `legend_rect` and `legend_texts`
(plot_legend), `shaded_regions` (plot_shapes), `numbered_points` and `following`
(plot_toggles), `gliding` and `glide_ms` (plot_glide), `selected` (plot_editing).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

__all__ = ["PlotQueries"]


class PlotQueries:
    """Read-only questions about what the plot draws (mixed into `PlotView`)."""

    if TYPE_CHECKING:  # the items PlotView makes
        _hint: Any
        _halos: Any
        _lines: dict[str, pg.InfiniteLine]
        _more_lines: dict[str, list[pg.InfiniteLine]]
        _current: Any
        _current_styles: Any
        _classes: Any
        _mistakes: Any
        _w_arrow: Any
        _edge_marker: Any

        def getPlotItem(self) -> Any: ...

    def hint_rect(self) -> QRectF:
        """The empty plot's hint, in scene coordinates."""
        return self._hint.mapRectToScene(self._hint.boundingRect())

    @property
    def hint_visible(self) -> bool:
        """Whether the "click to add points" hint shows (only on empty data)."""
        return self._hint.isVisible()

    def axis_names(self) -> tuple[str, str]:
        item = self.getPlotItem()
        return (item.getAxis("bottom").labelText, item.getAxis("left").labelText)

    def halo_points(self) -> dict[int, np.ndarray]:
        """The ringed points by ring size (1 … HALO_LEVELS, larger α larger)."""
        return {k: layer.shown_points() for k, layer in enumerate(self._halos, start=1)}

    def drawn_lines(self, role: str) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every line drawn under `role`, as `drawn_line` gives one."""
        shown = [self._lines[role], *self._more_lines.get(role, [])]
        return [_as_drawn(line) for line in shown if line.isVisible()]

    def trial_marker(self) -> tuple[str, np.ndarray] | None:
        """The current trial's marker: ("ring" or "diamond" (a mistake), its point)."""
        points = self._current.shown_points()
        if not len(points):
            return None
        shape = "diamond" if self._current.symbol is self._current_styles[True][0] else "ring"
        return shape, points[0]

    def drawn_line(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """A line as drawn, (a point on it, its unit direction), or None when hidden.
        `name`: a role ("boundary", "previous", "separator", "least-squares", …)."""
        line = self._lines[name.replace("_", "-")]
        return _as_drawn(line) if line.isVisible() else None

    def class_points(self) -> tuple[np.ndarray, np.ndarray]:
        """The points drawn as +1 and as −1 glyphs."""
        return self._classes.points(1), self._classes.points(-1)

    def points_of_class(self, label: int) -> np.ndarray:
        """The points drawn with class `label`'s glyph."""
        return self._classes.points(label)

    def marked_mistakes(self) -> np.ndarray:
        """The points drawn as misclassified."""
        return self._mistakes.shown_points()

    def arrow(self) -> tuple[np.ndarray, np.ndarray] | None:
        """w's arrow as drawn: (start, end) in data coordinates, or None if not shown."""
        return self._w_arrow.ends() if self._w_arrow.isVisible() else None

    def arrow_label(self) -> QRectF | None:
        """The box of w's label "w" as drawn, in data coordinates (None: no arrow)."""
        return self._w_arrow.label_rect() if self._w_arrow.isVisible() else None

    def edge_marker(self) -> np.ndarray | None:
        """Where the marker pointing to an off-view boundary has its tip (None: not shown)."""
        ends = self._edge_marker.ends()
        return ends[1] if ends is not None and self._edge_marker.isVisible() else None


def _as_drawn(line: pg.InfiniteLine) -> tuple[np.ndarray, np.ndarray]:
    """(a point on the line, its unit direction), as drawn."""
    angle = math.radians(line.angle)
    pos = line.pos()
    return np.array([pos.x(), pos.y()]), np.array([math.cos(angle), math.sin(angle)])
