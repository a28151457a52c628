"""The plot's view box: pyqtgraph's, with the clicks left to the plot and the zoom and pan
kept within what floats can draw (`VIEW_LIMIT`, `NARROWEST_VIEW`, `VIEW_RESOLUTION`)."""

from __future__ import annotations

import math
from typing import Any, Protocol

import pyqtgraph as pg

__all__ = ["NARROWEST_VIEW", "VIEW_LIMIT", "VIEW_RESOLUTION", "EditViewBox"]

VIEW_LIMIT = 1e152
"""No edge of the view goes beyond ±VIEW_LIMIT (coordinates stop at ±1e150; squares of what
is drawn stay finite). Zooming out further or panning past it does nothing more."""
NARROWEST_VIEW = 1e-150  # the least width or height zooming in gives
VIEW_RESOLUTION = 1e-9  # nor less than this share of the view's distance from the origin


def _zoom_factor(factor: float, low: float, high: float) -> float:
    """`factor` (> 1 zooms out, < 1 in) bounded so that the span [low, high] stays at most
    2·VIEW_LIMIT wide and no narrower than the floats there can show; a span already
    beyond a bound may come back, never go further."""
    span = high - low
    if not (math.isfinite(factor) and factor > 0 and math.isfinite(span) and span > 0):
        return 1.0
    if factor > 1:
        return max(1.0, min(factor, 2 * VIEW_LIMIT / span))
    narrowest = max(NARROWEST_VIEW, VIEW_RESOLUTION * max(abs(low), abs(high)))
    return min(1.0, max(factor, narrowest / span))


def _zoomed(factor: float, low: float, high: float, centre: float) -> tuple[float, float]:
    """[low, high] zoomed by `factor` about `centre` (bounded: see `_zoom_factor`), then
    moved back inside ±VIEW_LIMIT if it left."""
    centre = min(max(centre, -VIEW_LIMIT), VIEW_LIMIT)
    low, high = centre + (low - centre) * factor, centre + (high - centre) * factor
    if high > VIEW_LIMIT:
        low, high = low - (high - VIEW_LIMIT), VIEW_LIMIT
    if low < -VIEW_LIMIT:
        low, high = -VIEW_LIMIT, high + (-VIEW_LIMIT - low)
    return low, min(high, VIEW_LIMIT)


def _shift(shift: float | None, low: float, high: float) -> float | None:
    """`shift` of the span [low, high] bounded to keep it within ±VIEW_LIMIT, and no
    further from the origin than the floats can show its width (see `VIEW_RESOLUTION`)."""
    if shift is None:
        return None
    if not math.isfinite(shift):
        return 0.0
    limit = min(VIEW_LIMIT, (high - low) / VIEW_RESOLUTION)
    if shift > 0:
        return max(0.0, min(shift, limit - high))
    return min(0.0, max(shift, -limit - low))


class PlaneEditor(Protocol):
    """What takes the clicks and drags first (the plot: `PointEditing`); True: handled."""

    def handle_click(self, ev: Any) -> bool: ...

    def handle_drag(self, ev: Any) -> bool: ...


class EditViewBox(pg.ViewBox):
    """A ViewBox that hands clicks and point drags to its PlotView before panning, and
    keeps the user's zoom and pan within `VIEW_LIMIT` (pyqtgraph refuses a range that
    overflows with an exception at every further wheel notch)."""

    def __init__(self) -> None:
        super().__init__(enableMenu=False)
        self.editor: PlaneEditor | None = None

    def scaleBy(self, s=None, center=None, x=None, y=None) -> None:
        """pyqtgraph's zoom (the wheel, a right drag), bounded (see `VIEW_LIMIT`)."""
        if s is not None:
            x, y = s[0], s[1]
        if x is None and y is None:
            return
        view = self.targetRect()
        middle = view.center() if center is None else pg.Point(center)
        spans = {
            "x": (view.left(), view.right(), middle.x(), x),
            "y": (min(view.top(), view.bottom()), max(view.top(), view.bottom()), middle.y(), y),
        }
        factors = {
            axis: _zoom_factor(f, low, high)
            for axis, (low, high, _, f) in spans.items()
            if f is not None
        }
        if self.state["aspectLocked"] is not False:  # both axes alike, as pyqtgraph does
            out = [f for f in factors.values() if f > 1]
            common = min(out) if out else max(factors.values())
            factors = dict.fromkeys(("x", "y"), common)
        ranges = {
            f"{axis}Range": _zoomed(factor, *spans[axis][:3]) for axis, factor in factors.items()
        }
        self.setRange(padding=0, **ranges)

    def translateBy(self, t=None, x=None, y=None) -> None:
        """pyqtgraph's pan (a drag), bounded (see `VIEW_LIMIT`)."""
        if t is not None:
            x, y = t[0], t[1]
        view = self.targetRect()
        x = _shift(x, view.left(), view.right())
        y = _shift(y, min(view.top(), view.bottom()), max(view.top(), view.bottom()))
        super().translateBy(x=x, y=y)

    def mouseClickEvent(self, ev) -> None:
        if self.editor is not None and self.editor.handle_click(ev):
            return
        super().mouseClickEvent(ev)

    def mouseDragEvent(self, ev, axis=None) -> None:
        if self.editor is not None and self.editor.handle_drag(ev):
            return
        super().mouseDragEvent(ev, axis)
