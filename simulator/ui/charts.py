"""Charts of the run over time: mistakes, the convergence proof, the loss or the weights.

Each chart is a module of its own, importable from here as before:

- `MistakesChart` (`simulator.ui.mistakes_chart`): k against the trial, with the bound.
- `ProofChart` (`simulator.ui.proof_chart`): Novikoff's proof after each mistake k.
- `LossChart` (`simulator.ui.loss_chart`): Adaline's loss per epoch, or the Winnows' weights.

They share the base `Chart` (`simulator.ui.chart_base`: following, axes, saving) and draw
with `GrowingCurve` (`simulator.ui.chart_curve`: incremental, thinned curves). Here:
`ChartBox`, a chart with its caption beside it, and `ChartPanel`, the charts of an exported
frame."""

from __future__ import annotations

import html

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from simulator.presentation.frame import Frame
from simulator.ui import style
from simulator.ui.chart_base import Chart
from simulator.ui.chart_curve import GrowingCurve
from simulator.ui.loss_chart import LossChart
from simulator.ui.mistakes_chart import MistakesChart
from simulator.ui.proof_chart import ProofChart

__all__ = [
    "Chart",
    "ChartBox",
    "ChartPanel",
    "GrowingCurve",
    "LossChart",
    "MistakesChart",
    "ProofChart",
]


class ChartBox(QWidget):
    """A chart with its key above it and its heading and caption beside it: nothing is
    written over the curves, and both read in the caption's type (lecture-hall size in
    presentation mode)."""

    def __init__(self, chart: Chart, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = chart
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.setSpacing(6)
        # The key above the chart, never over its curves, in the caption's type.
        self.key = QLabel(objectName=f"{chart.objectName()}Key")
        self.key.setWordWrap(True)
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setContentsMargins(4, 2, 4, 0)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.key)
        column.addWidget(chart, 1)
        layout.addLayout(column, 5)
        chart.set_key_outside(True)
        chart.key_changed.connect(self._on_key)
        self.caption = QLabel(objectName=f"{chart.objectName()}Caption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidget(self.caption)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(180)
        layout.addWidget(scroll, 4)
        self.scroll = scroll
        self._layout = layout
        self._presentation = False
        chart.caption_changed.connect(self._on_caption)
        self._on_caption(chart.caption)
        self._on_key()

    def _on_key(self) -> None:
        entries = self.chart.key()
        self.key.setVisible(bool(entries))
        self.key.setText(key_html(entries))

    def _on_caption(self, text: str) -> None:
        """The heading, then the caption; on a projector the caption alone (the tab names
        the chart, and the room is short: what the caption concludes must show)."""
        if self._presentation:
            self.caption.setText(text)
        else:
            self.caption.setText(f"<b>{html.escape(self.chart.heading)}</b><br>{text}")

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type for the chart and its caption (the caption at
        `style.PRESENTATION_TICK_PX`, and as wide as the chart, to stay short)."""
        self._presentation = on
        self.chart.set_presentation(on)
        font = QFont(self.font())
        if on:
            font.setPixelSize(style.PRESENTATION_TICK_PX)
        self.caption.setFont(font)
        self.key.setFont(font)
        self._layout.setStretch(0, 1 if on else 5)
        self._layout.setStretch(1, 1 if on else 4)
        self._on_caption(self.chart.caption)


_SAMPLES = {
    Qt.PenStyle.SolidLine: "━━━",
    Qt.PenStyle.DashLine: "╺━╸╺━╸",
    Qt.PenStyle.DotLine: "┅┅┅",
    Qt.PenStyle.DashDotLine: "━ · ━",
}


def key_html(entries: tuple[tuple[str, Qt.PenStyle, str], ...]) -> str:
    """A chart's key as one wrapping line of rich text: each entry a short sample of its
    line (its colour, solid or dashed) and its name."""
    parts = []
    for colour, dash, text in entries:
        sample = _SAMPLES.get(dash, _SAMPLES[Qt.PenStyle.DashLine])
        parts.append(
            f'<span style="white-space:nowrap"><span style="color:{colour}">{sample}</span>'
            f"&nbsp;{html.escape(text)}</span>"
        )
    return "&nbsp;&nbsp;&nbsp; ".join(parts)


class ChartPanel(QWidget):
    """The charts of an exported frame, drawn by the window's chart classes: the mistakes
    chart above the proof chart where Novikoff's proof applies (the perceptron on
    separable data), else above the loss or weights chart. Offscreen, of a fixed size;
    `show_frame` each frame in turn (they draw incrementally), then `paint` into a frame.

    Each chart follows its trace completely (no budget: an export must not depend on
    time), and shows its heading as its title since there is no caption beside it.
    """

    def __init__(self, width: int, height: int, *, scale: float = 1.0) -> None:
        super().__init__()
        width, height = max(1, width), max(1, height)  # a widget has no negative size
        self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self.mistakes = MistakesChart(self)
        self.proof = ProofChart(self)
        self.loss = LossChart(self)
        self.charts: tuple[Chart, ...] = (self.mistakes, self.proof, self.loss)
        gap = min(round(6 * scale), height // 4)
        self._top = QRect(0, 0, width, max(1, (height - gap) // 2))
        self._bottom = QRect(
            0, self._top.height() + gap, width, max(1, height - self._top.height() - gap)
        )
        tick = QFont("DejaVu Sans")
        tick.setPixelSize(max(9, round(13 * scale)))
        for chart in self.charts:
            chart.follow_budget = None
            chart.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            rect = self._top if chart is self.mistakes else self._bottom
            chart.setGeometry(rect)
            chart.setFixedSize(rect.size())
            item = chart.getPlotItem()
            for side in ("left", "bottom"):
                item.getAxis(side).setStyle(tickFont=tick)
            chart.label_size = f"{tick.pixelSize()}px"
            chart.set_labels(item.getAxis("bottom").labelText, item.getAxis("left").labelText)
            chart.legend.setLabelTextSize(f"{max(9, round(12 * scale))}px")
        self._title_px = max(10, round(14 * scale))
        for chart in self.charts:  # the title row is laid out now; later only its text changes
            self._title(chart)
        self.setFixedSize(width, height)
        self.show()  # hidden from the screen, but laid out at its size

    def second(self, frame: Frame) -> Chart:
        """The chart under the mistakes chart for this frame."""
        proof = frame.bound is not None and frame.bound.proof and frame.report.separable
        return self.proof if proof else self.loss

    def show_frame(self, frame: Frame) -> None:
        second = self.second(frame)
        for chart in (self.proof, self.loss):
            chart.setVisible(chart is second)
        for chart in (self.mistakes, second):
            chart.show_frame(frame)
            self._title(chart)

    def _title(self, chart: Chart) -> None:
        if chart.getPlotItem().titleLabel.text != chart.heading:
            chart.getPlotItem().setTitle(chart.heading, size=f"{self._title_px}px", color="#111111")

    def paint(self, painter: QPainter, target: QRectF) -> None:
        """Draw the charts into `target` of `painter` (scaled if its size differs)."""
        shown = [chart for chart in self.charts if chart.isVisible()]
        if self.width() <= 0 or self.height() <= 0 or target.isEmpty():
            return  # nothing to draw into (and no size to scale by)
        sx, sy = target.width() / self.width(), target.height() / self.height()
        for chart in shown:
            # No event loop runs between frames of an export: lay out what changed (an axis
            # name, the width of tick labels) now, as the window's event loop would.
            chart.getPlotItem().layout.activate()
            rect = chart.geometry()
            where = QRectF(
                target.x() + rect.x() * sx,
                target.y() + rect.y() * sy,
                rect.width() * sx,
                rect.height() * sy,
            )
            chart.render(painter, where, chart.viewport().rect())

    def close_charts(self) -> None:
        """Free the offscreen charts (a leaked PlotWidget can abort Python at exit)."""
        for chart in self.charts:
            chart.close()
            chart.deleteLater()
        self.close()
        self.deleteLater()
