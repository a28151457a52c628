"""`ProofChart` (`proofChart`): Novikoff's proof after each mistake k.

A_k = w·u*/ηγ* above the line k above B_k = ‖w‖²/η²R², under the ceiling C(k) = √k·R/γ*
that meets the line k at the bound R²/γ*² (the general forms from w₀ ≠ 0; see
`simulator.presentation.trace`). Its caption states the inequalities with this run's
numbers, or why there is nothing to show.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from simulator.presentation.frame import Frame, format_bound, format_number
from simulator.presentation.trace import Proof, ceiling
from simulator.ui.chart_base import Chart, bound_line, in_view, unbroken
from simulator.ui.chart_curve import (
    BLACK,
    BLUE,
    GREEN,
    GREY,
    VERMILLION,
    FloatArray,
    GrowingCurve,
    Points,
    curve_pen,
)

__all__ = ["A_NAME", "B_NAME", "CEILING_NAME", "GENERAL_NAMES", "ProofChart"]

A_NAME, B_NAME, CEILING_NAME = "w·u*/ηγ*", "‖w‖²/η²R²", "√k·R/γ*"
GENERAL_NAMES = ("(w−w₀)·u*/ηγ*", "(‖w‖²−‖w₀‖²)/η²R²", "C(k)")


class ProofChart(Chart):
    """A_k and B_k squeezing k, up to the bound (see the module docstring)."""

    heading = "Novikoff's proof"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("proofChart", parent)
        self.needs_weights = False
        item = self.getPlotItem()
        self.set_labels("mistakes k", "")
        self.along = GrowingCurve(item, BLUE, 2.5, name=A_NAME)
        self.line = pg.PlotCurveItem(pen=curve_pen(BLACK, 1.5), name="k")
        item.addItem(self.line)
        self.norm = GrowingCurve(item, VERMILLION, 2.5, name=B_NAME)
        self.ceiling = pg.PlotCurveItem(
            pen=curve_pen(GREY, 1.5, Qt.PenStyle.DashLine), name=CEILING_NAME
        )
        item.addItem(self.ceiling)
        self.bound_line = bound_line(GREEN, angle=90, position=0.5)
        item.addItem(self.bound_line, ignoreBounds=True)
        # Top left: above the ceiling, which starts at 0, the corner the curves leave empty.
        self.legend.setOffset((6, 4))
        self.legend.setColumnCount(2)
        self._names = (A_NAME, B_NAME, CEILING_NAME)
        self._key: tuple[object, ...] | None = None

    def curve_names(self) -> tuple[str, str, str, str]:
        """The names of A_k, B_k, the line k and the ceiling, as in the legend."""
        return self._names[0], self._names[1], "k", self._names[2]

    def _name(self, general: bool) -> None:
        """Name the curves for w₀ = 0 or the general form."""
        names = GENERAL_NAMES if general else (A_NAME, B_NAME, CEILING_NAME)
        if names == self._names:
            return
        self.along.clear()
        self.norm.clear()
        self.along.name, self.norm.name = names[0], names[1]
        self.ceiling.opts["name"] = names[2]
        self.legend.clear()
        self.legend.addItem(self.line, "k")
        self.legend.addItem(self.ceiling, names[2])
        self._names = names

    def paint_frame(self, frame: Frame) -> None:
        trace = frame.trace
        self._trace = trace
        followed = self.follow_trace(trace)
        proof = followed.proof
        self._name(proof.general)
        key = (trace.key, proof.key)
        if key != self._key:
            self.along.clear()
            self.norm.clear()
            self._key = key
        applies = proof.applies
        for curve in (self.along, self.norm):
            curve.set_visible(applies)
        for item in (self.line, self.ceiling, self.bound_line):
            item.setVisible(applies)
        self.show_key(applies)
        if not applies:
            self.set_note(proof.reason or "")
            self.set_caption(html.escape(proof.reason or ""))
            return
        self.set_note("")
        count = len(proof.along)  # k = 0 … m
        ks = np.arange(count, dtype=np.float64)

        def series(values: FloatArray) -> Points:
            return lambda a, b, s: (ks[a:b:s], values[a:b:s])

        self.along.update(count, series(proof.along))
        self.norm.update(count, series(proof.norm))
        m = count - 1
        right = max(float(m), 3.0) * 1.1
        if in_view(proof.bound, max(float(m), 1.0)):
            right = max(right, proof.bound * 1.08)
        self.line.setData([0.0, right], [0.0, right])
        grid = np.linspace(0.0, right, 200)
        heights = ceiling(proof, grid)
        self.ceiling.setData(grid, heights)
        finite = math.isfinite(proof.bound)
        self.bound_line.setVisible(finite)
        if finite:
            self.bound_line.setValue(proof.bound)
            what = "bound" if proof.general else "R²/γ*²"
            self.bound_line.label.setFormat(f"{what} = {format_bound(proof.bound, True)}")
        top = max(right, float(np.max(proof.along)))
        bottom = min(0.0, float(np.min(proof.along)), float(np.min(proof.norm)))
        self.set_axes((0.0, right), (bottom, top))
        self.set_caption(self.explain(proof, m))

    @staticmethod
    def explain(proof: Proof, m: int) -> str:
        """The proof's steps with this run's numbers (HTML)."""

        def number(value: float) -> str:
            return format_number(value)

        bound = unbroken(format_bound(proof.bound, True))  # the proof is of separable data
        g, r, x = *proof.symbols, proof.vector
        given = (
            f"η = {number(proof.learning_rate)}, {g} = {number(proof.gamma)}, "
            f"{r} = {number(proof.radius)}" + (f", in {proof.space}" if proof.space else "")
        )
        adds = f"each mistake adds η y {x}·u* ≥ η{g}"
        grows = f"each adds 2η y w·{x} + η²‖{x}‖² ≤ η²{r}², as y w·{x} ≤ 0"
        # The conclusion first: a narrow caption on a projector shows it without scrolling.
        if proof.general:
            lines = [
                f"<b>k ≤ {bound}</b>, from w₀ ≠ 0 ({given}, w₀·u* = "
                f"{number(proof.start_along)}, ‖w₀‖² = {number(proof.start_norm2)}).",
                f"<b>A_k = (w−w₀)·u*/η{g} ≥ k</b>: {adds}.",
                f"<b>B_k = (‖w‖²−‖w₀‖²)/η²{r}² ≤ k</b>: {grows}, whatever w₀.",
                f"<b>w·u* ≤ ‖w‖</b> (Cauchy–Schwarz): w₀·u* + kη{g} ≤ √(‖w₀‖² + kη²{r}²), "
                f"so A_k stays under C(k) = (√(‖w₀‖² + kη²{r}²) − w₀·u*)/η{g},",
                f"and k ≤ A_k ≤ C(k) holds only up to k = {bound}.",
            ]
        else:
            lines = [
                f"<b>k ≤ {r}²/{g}² = {bound}</b> ({given}).",
                f"<b>A_k = w·u*/η{g} ≥ k</b>: {adds}.",
                f"<b>B_k = ‖w‖²/η²{r}² ≤ k</b>: {grows}.",
                f"<b>A_k ≤ √B_k·{r}/{g} ≤ √k·{r}/{g}</b> (Cauchy–Schwarz), "
                f"so k ≤ {r}²/{g}² = {bound}.",
            ]
        if proof.truncated:
            lines.append(f"(Shown for the first {m} mistakes.)")
        return "<br>".join(lines)

    def table(self) -> tuple[Sequence[str], list[Sequence[object]]]:
        header = ("k", "A_k", "B_k", "ceiling C(k)")
        followed = self._followed
        if followed is None or not followed.proof.applies:
            return header, []
        proof = followed.proof
        ks = np.arange(len(proof.along), dtype=np.float64)
        rows = zip(
            proof.along.tolist(), proof.norm.tolist(), ceiling(proof, ks).tolist(), strict=True
        )
        return header, [(k, repr(a), repr(b), repr(c)) for k, (a, b, c) in enumerate(rows)]
