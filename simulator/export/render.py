"""Frames for slides, drawn by the window's own `PlotView` (one renderer, not two).

`FrameRenderer` keeps a hidden PlotView of the requested size, with the overlay of numbers a
slide needs (rule, trial, epoch, k, γ*, R, R²/γ*²), glyphs and lines scaled to the frame
height so they read from the back of a lecture hall, and a view fixed on the data so the
line moves and the axes do not. `render(frame)` returns a QImage of exactly that size at
device pixel ratio 1, so the same frame gives the same pixels on any screen.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter

from simulator.ui import style
from simulator.ui.frame import Frame
from simulator.ui.plot_view import PlotView

__all__ = ["FrameRenderer"]


class FrameRenderer:
    """Renders `Frame`s to QImages of a fixed size (needs a QApplication)."""

    def __init__(self, width: int = 1280, height: int = 720, *, separator: bool = True) -> None:
        self.width, self.height = int(width), int(height)
        # Sized for a 1280x720 slide; smaller frames shrink less, so they stay readable.
        scale = max(0.75, self.height / 720)
        self.view = PlotView(point_size=style.POINT_SIZE * 1.1 * scale, line_scale=1.3 * scale)
        self.view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self.view.setFixedSize(self.width, self.height)
        tick_font = QFont("DejaVu Sans", max(8, round(12 * scale)))
        for axis in ("left", "bottom"):
            self.view.getPlotItem().getAxis(axis).setStyle(
                tickFont=tick_font, tickTextOffset=round(6 * scale)
            )
        # Room for labels such as "-0.5" at the larger font (they are dropped if they clip).
        self.view.getPlotItem().getAxis("left").setWidth(round(64 * scale))
        self.view.getPlotItem().getAxis("bottom").setHeight(round(40 * scale))
        self.view.set_show_separator(separator)
        self.view.show()  # hidden from the screen, but laid out at its size
        self._fitted = False

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
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.view.render(painter)
        painter.end()
        return image

    def close(self) -> None:
        """Free the hidden view (a leaked PlotWidget can abort Python at exit)."""
        self.view.close()
        self.view.deleteLater()
