"""Frames for slides, drawn by the window's own `PlotView` (one renderer, not two).

A frame is three bands, painted with QPainter into one image:

- the header: the rule and its parameters, the trial, epoch and mistakes k, γ*, R and
  R²/γ*², this trial's verdict, and whether the run converged or diverged;
- the plot: a hidden PlotView of the remaining size, with glyphs and lines scaled to the
  frame height so they read from the back of a lecture hall, and a view fixed on the data
  (fitted to the first frame) so the line moves and the axes do not;
- with `explain`, a strip under the plot with the arithmetic of the latest trial
  (`explain_trial`, as the window's explanation shows it).

With `charts`, the plot band is shared: the plot on the left, and on the right (`CHARTS_SHARE`
of the width) the window's own charts (`simulator.ui.charts.ChartPanel`): k against the
trial with the mistake bound, and under it Novikoff's proof where it applies (else the loss
or the weights). They draw incrementally, so any `--every` gives the same pictures.

With `legend`, the plot's legend is shown inside the plot. `render(frame)` returns a QImage
of exactly the requested size at device pixel ratio 1, so the same frame gives the same
pixels on any screen. Text lines that do not fit end in "…"; the bands never move.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
    QTextDocument,
)

from simulator.engine.numbers import bound_formula
from simulator.presentation.explain import label_text
from simulator.presentation.frame import Frame, explain_trial, format_bound, format_number
from simulator.ui import style
from simulator.ui.charts import ChartPanel
from simulator.ui.plot_view import PlotView

__all__ = ["FrameRenderer", "drawing_colours"]

TEXT = QColor("#111111")
QUIET = QColor("#555555")
STRIP = QColor("#F4F4F4")
RULE_LINE = QColor("#BBBBBB")
FONT_FAMILY = "DejaVu Sans"
HEADER_PIXELS = 18  # text height at 1280x720: readable from the back of a lecture hall
EXPLAIN_PIXELS = 17
EXPLAIN_LINES = 3  # the trial, its score and verdict, its update
CHARTS_SHARE = 0.38  # of the frame's width, for the charts beside the plot


def _header(frame: Frame, *, wide: bool) -> list[tuple[str, str]]:
    """The header's lines, each (left text, right text); the first line is bold. Narrow
    frames give the theory a line of its own."""
    s, r = frame.snapshot, frame.report
    status = ""
    if s.converged:
        status = f"converged at trial {s.converged_at}"
    elif s.diverged:
        status = "diverged"
    elif not r.separable and r.decided and len(frame.dataset):
        status = "not linearly separable"
    gamma, radius = frame.learner.symbols
    theory = (
        f"{gamma} = {format_number(r.gamma, 4)} · {radius} = {format_number(r.radius, 4)} · "
        f"{bound_formula(frame)} = {format_bound(r.bound, r.separable, 4)}"
    )
    if frame.bound_is_general and frame.mistake_bound is not None:
        theory += f" · bound from w₀ = {format_bound(frame.mistake_bound, r.separable, 4)}"
    trial = s.last_trial
    if trial is None:
        verdict = "the start: no trial yet"
    else:
        outcome = ("mistake" if trial.mistake else "correct") + (
            ", w updated" if trial.updated else ""
        )
        verdict = (
            f"this trial: point #{trial.index + 1}, y = {label_text(trial.y, frame.dataset)}, "
            f"s = {format_number(trial.score, 4)} → {outcome}"
        )
    title = f"{frame.rule.title} ({frame.rule.describe()})"
    progress = f"trial {s.trials} · epoch {s.epoch} · mistakes k = {s.mistakes}"
    if wide:
        return [(title, status), (progress, theory), (verdict, "")]
    return [(title, status), (progress, ""), (theory, ""), (verdict, "")]


def drawing_colours() -> list[tuple[int, int, int]]:
    """The colours frames are drawn with, as they appear on the background (translucent
    ones blended into it), the background first: a GIF keeps them in its palette."""
    background = style.BACKGROUND
    colours = [background, *(v for v in vars(style).values() if isinstance(v, QColor))]
    colours += [TEXT, QUIET, STRIP, RULE_LINE]
    under = (background.red(), background.green(), background.blue())
    drawn = []
    for colour in colours:
        a, rgb = colour.alphaF(), (colour.red(), colour.green(), colour.blue())
        r, g, b = (round(a * c + (1 - a) * u) for c, u in zip(rgb, under, strict=True))
        drawn.append((r, g, b))
    return list(dict.fromkeys(drawn))


class FrameRenderer:
    """Renders `Frame`s to QImages of a fixed size (needs a QApplication)."""

    def __init__(
        self,
        width: int = 1280,
        height: int = 720,
        *,
        separator: bool = True,
        legend: bool = False,
        explain: bool = False,
        charts: bool = False,
        explain_lines: int = EXPLAIN_LINES,
    ) -> None:
        self.width, self.height = int(width), int(height)
        self._explain_lines = explain_lines  # the learner's (`Learner.explain_lines`)
        # Sized for a 1280x720 slide; smaller frames shrink less, so they stay readable.
        scale = max(0.75, self.height / 720)
        self._margin = round(12 * scale)
        self._header_height = self._size_header(scale)
        self._explain: QTextDocument | None = None
        self._strip_height = 0
        if explain:
            self._explain, self._strip_height = self._make_explanation(scale)
        plot_height = max(1, self.height - self._header_height - self._strip_height)
        charts_width = round(CHARTS_SHARE * self.width) if charts else 0
        plot_width = self.width - charts_width
        self._plot_rect = QRect(0, self._header_height, plot_width, plot_height)
        self._charts: ChartPanel | None = None
        self._charts_rect = QRect()
        if charts:
            # The gap scales with the height: on a tall, narrow frame it must not eat the
            # charts' whole width (a chart of negative width crashed the renderer).
            gap = min(self._margin // 2, charts_width // 4, plot_height // 4)
            self._charts_rect = QRect(
                plot_width + gap,
                self._header_height + gap,
                max(1, charts_width - 2 * gap),
                max(1, plot_height - 2 * gap),
            )
            self._charts = ChartPanel(
                self._charts_rect.width(), self._charts_rect.height(), scale=scale
            )
        self.view = self._make_view(plot_width, plot_height, scale, separator, legend)
        self._fitted = False

    def _size_header(self, scale: float) -> int:
        """Make the header's fonts; whether it is wide enough for the progress and the
        theory side by side (`_wide`); its height."""
        self._font = QFont(FONT_FAMILY)
        self._font.setPixelSize(round(HEADER_PIXELS * scale))
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._line = QFontMetricsF(self._bold).lineSpacing()
        # Wide enough for the progress and the theory side by side (typical long values)?
        sample = "trial 10000 · epoch 100 · mistakes k = 1000    γ* = 0.03892 · R = 8.823 · "
        sample += "R²/γ*² = 5.139e+04"
        room = self.width - 3 * self._margin
        self._wide = QFontMetricsF(self._font).horizontalAdvance(sample) < room
        header = round((3 if self._wide else 4) * self._line + 1.2 * self._margin)
        return min(header, self.height // 2)

    def _make_explanation(self, scale: float) -> tuple[QTextDocument, int]:
        """The document the explanation strip is drawn with, and the strip's height."""
        document = QTextDocument()
        font = QFont(FONT_FAMILY)
        font.setPixelSize(round(EXPLAIN_PIXELS * scale))
        document.setDefaultFont(font)
        document.setDocumentMargin(0)
        document.setTextWidth(self.width - 2 * self._margin)
        lines = self._explain_lines + (0 if self._wide else 1)  # narrow: lines wrap
        strip = round(lines * QFontMetricsF(font).lineSpacing() + 1.2 * self._margin)
        return document, min(strip, self.height // 4)

    @staticmethod
    def _make_view(
        width: int, height: int, scale: float, separator: bool, legend: bool
    ) -> PlotView:
        """The hidden PlotView the plot is drawn by, laid out at width × height, its glyphs,
        lines and type scaled by `scale`."""
        view = PlotView(point_size=style.POINT_SIZE * 1.1 * scale, line_scale=1.3 * scale)
        view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        view.setFixedSize(width, height)
        plot = view.getPlotItem()
        tick_font = QFont(FONT_FAMILY, max(8, round(12 * scale)))
        for axis in ("left", "bottom"):
            plot.getAxis(axis).setStyle(tickFont=tick_font, tickTextOffset=round(6 * scale))
        # Room for labels such as "-0.5" at the larger font (they are dropped if they clip).
        plot.getAxis("left").setWidth(round(64 * scale))
        plot.getAxis("bottom").setHeight(round(40 * scale))
        # Room above the plot for its top tick label, which would touch the header's rule.
        plot.setContentsMargins(0, round(8 * scale), round(8 * scale), 0)
        view.set_show_separator(separator)
        view.set_show_legend(legend)
        view.show()  # hidden from the screen, but laid out at its size
        return view

    def render(self, frame: Frame) -> QImage:
        """The frame as an RGB image of width × height."""
        self.view.show_frame(frame)
        if not self._fitted:  # fit once, to the first frame's data: the axes stay put
            self.view.fit_view()
            self._fitted = True
        image = QImage(self.width, self.height, QImage.Format.Format_RGB32)
        image.setDevicePixelRatio(1.0)
        image.fill(QColor(style.BACKGROUND))
        painter = QPainter(image)
        try:  # the painter ends whatever happens: an image destroyed mid-paint segfaults
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            self._paint_header(painter, frame)
            self.view.render(painter, QRectF(self._plot_rect), self.view.viewport().rect())
            if self._charts is not None:
                self._charts.show_frame(frame)
                self._charts.paint(painter, QRectF(self._charts_rect))
            if self._explain is not None:
                self._paint_explanation(painter, frame)
        finally:
            painter.end()
        return image

    def _paint_header(self, painter: QPainter, frame: Frame) -> None:
        margin, width = self._margin, self.width - 2 * self._margin
        painter.save()
        painter.setClipRect(0, 0, self.width, self._header_height)
        top = margin * 0.6
        lines = _header(frame, wide=self._wide)
        for number, (left, right) in enumerate(lines):
            font = self._bold if number == 0 else self._font
            metrics = QFontMetricsF(font)
            painter.setFont(font)
            painter.setPen(QUIET if number == len(lines) - 1 else TEXT)  # the verdict
            right_width = 0.0
            if right:
                right = metrics.elidedText(right, Qt.TextElideMode.ElideRight, 0.6 * width)
                right_width = metrics.horizontalAdvance(right)
                painter.drawText(
                    QRectF(margin, top, width, self._line),
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                    right,
                )
            room = width - right_width - (2 * margin if right else 0)
            left = metrics.elidedText(left, Qt.TextElideMode.ElideRight, max(0.0, room))
            painter.drawText(
                QRectF(margin, top, room, self._line),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                left,
            )
            top += self._line
        painter.setPen(QPen(RULE_LINE, 1))
        bottom = self._header_height - 0.5
        painter.drawLine(QPointF(0, bottom), QPointF(self.width, bottom))
        painter.restore()

    def _paint_explanation(self, painter: QPainter, frame: Frame) -> None:
        assert self._explain is not None
        top = self.height - self._strip_height
        painter.save()
        painter.fillRect(QRectF(0, top, self.width, self._strip_height), STRIP)
        painter.setPen(QPen(RULE_LINE, 1))
        painter.drawLine(QPointF(0, top + 0.5), QPointF(self.width, top + 0.5))
        self._explain.setHtml(explain_trial(frame))
        painter.translate(self._margin, top + 0.6 * self._margin)
        self._explain.drawContents(
            painter, QRectF(QPointF(0, 0), QSizeF(self.width, self._strip_height))
        )
        painter.restore()

    @property
    def charts_rect(self) -> QRect:
        """Where the charts are drawn (empty without `charts`)."""
        return QRect(self._charts_rect)

    def close(self) -> None:
        """Free the hidden views (a leaked PlotWidget can abort Python at exit)."""
        self.view.close()
        self.view.deleteLater()
        if self._charts is not None:
            self._charts.close_charts()
            self._charts = None
