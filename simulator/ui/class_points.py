"""The data's points, one glyph layer per class, and how the classes are named and drawn.

Two classes (labels ±1) keep the round-1 look: +1 a blue disc with a plus cut out, −1 a
vermillion square with a minus cut out. K ≥ 3 classes (labels 0 … K−1) each get a colour
of `style.CLASS_COLOURS` and a shape of `style.class_symbols`, so they stay apart in
greyscale and for colour-blind eyes. All `MAX_CLASSES` layers exist from the start (the
unused ones empty), so the plot's stacking order never changes with the data.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen, QPixmap

from simulator.engine import Dataset
from simulator.engine.dataset import MAX_CLASSES
from simulator.ui import style
from simulator.ui.points_item import GlyphLayer, render_glyph

__all__ = ["ClassLayers", "class_label", "class_text"]


def class_text(ds: Dataset, label: int) -> str:
    """How the window names class `label` of `ds`: "+1" / "−1" for two classes without
    names of their own, else the class's name."""
    names = ds.class_names
    index = ds.classes.index(label)
    if len(names) == 2 and names == ("-1", "+1"):
        return "+1" if label > 0 else "−1"
    return names[index]


def class_label(ds: Dataset, key: int) -> int | None:
    """The label key `key` (1 … 9) picks in `ds`: the key-th class (−1, +1 for two
    classes); None when `ds` has fewer classes (the key adds a class)."""
    classes = ds.classes
    return classes[key - 1] if 1 <= key <= len(classes) else None


class ClassLayers:
    """One `GlyphLayer` per class (see the module docstring)."""

    def __init__(self, point_size: float) -> None:
        self.layers = tuple(GlyphLayer(style.disc(), point_size) for _ in range(MAX_CLASSES))
        self._labels: tuple[int, ...] = (-1, 1)
        self._look: tuple[float, bool, QPen | None] | None = None

    def show(self, ds: Dataset) -> None:
        """Put `ds`'s points into the layers of their classes."""
        restyle = ds.classes != self._labels
        self._labels = ds.classes
        for layer, label in zip(self.layers, self._labels, strict=False):
            layer.set_points(ds.points[ds.labels == label])
        for layer in self.layers[len(self._labels) :]:
            layer.set_points(np.empty((0, 2)))
        if restyle and self._look is not None:
            self.set_detail(*self._look)

    def set_detail(self, size: float, dense: bool, outline: QPen | None) -> None:
        """Glyphs of `size` pixels; dense data get solid glyphs without an outline (cut-outs
        and outlines would wash small glyphs out)."""
        self._look = (size, dense, outline)
        count = len(self._labels)
        symbols = self.symbols(count, dense)
        for layer, symbol, colour in zip(
            self.layers, symbols, style.class_colours(count), strict=False
        ):
            layer.set_style(symbol=symbol, size=size, pen=None if dense else outline, brush=colour)

    @staticmethod
    def symbols(count: int, dense: bool = False) -> tuple[QPainterPath, ...]:
        if count == 2 and dense:
            return (style.square(), style.disc())
        return style.class_symbols(count)

    def points(self, label: int) -> np.ndarray:
        """The points drawn as class `label` (none for a label the data lack)."""
        if label not in self._labels:
            return np.empty((0, 2))
        return self.layers[self._labels.index(label)].shown_points()

    @staticmethod
    def glyphs(count: int, size: float) -> tuple[QPixmap, ...]:
        """Each class's glyph as the legend and the class button show it, in label order."""
        return tuple(
            render_glyph(symbol, size, None, QBrush(colour))
            for symbol, colour in zip(
                style.class_symbols(count), style.class_colours(count), strict=True
            )
        )

    @staticmethod
    def colour(count: int, label: int) -> QColor:
        """Class `label`'s colour among `count` classes."""
        index = (0 if label < 0 else 1) if count == 2 else label
        return style.class_colours(count)[index]
