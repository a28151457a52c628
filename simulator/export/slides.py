"""A lesson as slides: `python main.py export --lesson NAME --out DIR [--gif FILE]`.

One PNG per step (``frame_00000.png`` is step 1), drawn by the same views as the window:
on top the frame of the step's run at the step's trial (the exporter's `FrameRenderer`
with its header; for data that are not points in the plane, the window's
high-dimensional view), and under it a band with the lesson's title, "step n of m" and
the step's text, filled with the engine's numbers. A question's slide shows the state it
is asked in, its choices, and the answer in grey below (a handout shows it; hide it in
the window instead). The step's view toggles (`show`) hold from that step on, as in the
window. The band is as tall as the longest step needs (at most `MAX_BAND` of the
slide), so the plot does not jump from slide to slide. Optional GIF and MP4 of the slides.

Exit status as the export's: 0 written, 1 a write failed, 2 the lesson cannot be shown,
130/143 stopped by SIGINT/SIGTERM (the slides written stay).
"""

from __future__ import annotations

import html
import os
import sys
from collections.abc import Sequence

from simulator.engine import Simulation
from simulator.engine.lessons import CHOICE_LETTERS, Lesson, StepState
from simulator.engine.quiz import answer_text
from simulator.export.interrupt import StopFlag, exit_status
from simulator.export.options import ExportOptions

__all__ = ["MAX_BAND", "SlideRenderer", "export_lesson_main", "slide_html"]

PROG = "linear-classifier-lab export"
TEXT_PIXELS = 22  # the band's type at 1280x720: a slide read from the back of the hall
MAX_BAND = 0.45  # of the slide's height, at most, for the text


def slide_html(lesson: Lesson, state: StepState, total: int) -> str:
    """The band's text: title and step, the text, a question's choices and answer."""
    parts = [
        f"<p><b>{html.escape(lesson.title)}</b>"
        f"<span style='color:#555555'> · step {state.number} of {total}</span></p>",
        f"<p>{html.escape(' '.join(state.text.split()))}</p>",
    ]
    if state.choices:
        letters = CHOICE_LETTERS
        items = " &nbsp; ".join(
            f"<b>{letters[i]}</b> {html.escape(c)}" for i, c in enumerate(state.choices)
        )
        parts.append(f"<p>{items}</p>")
    if state.question is not None:
        parts.append(f"<p style='color:#777777'>{html.escape(answer_text(state))}</p>")
    return "".join(parts)


class SlideRenderer:
    """Renders the steps of one lesson to QImages of width × height (needs a
    QApplication). `render(state)` runs the step's run to its trial and paints it."""

    def __init__(
        self,
        lesson: Lesson,
        states: Sequence[StepState],
        width: int,
        height: int,
        *,
        legend: bool = False,
    ) -> None:
        from PySide6.QtGui import QFont, QTextDocument

        from simulator.export.render import FONT_FAMILY

        self.lesson, self.states = lesson, list(states)
        self.width, self.height = int(width), int(height)
        scale = max(0.75, self.height / 720)
        self._margin = round(12 * scale)
        self._document = QTextDocument()
        font = QFont(FONT_FAMILY)
        font.setPixelSize(round(TEXT_PIXELS * scale))
        self._document.setDefaultFont(font)
        self._document.setDocumentMargin(0)
        self._document.setTextWidth(self.width - 2 * self._margin)
        self.band = self._band_height()
        self._views: dict[tuple[int, bool, bool], object] = {}
        self._run: tuple[int, Simulation] | None = None
        # The window's defaults (point numbers on); the legend as --legend says.
        self._show: dict[str, bool] = {"numbers": True, "legend": legend}

    def _band_height(self) -> int:
        tallest = 0.0
        for state in self.states:
            self._document.setHtml(slide_html(self.lesson, state, len(self.states)))
            tallest = max(tallest, self._document.size().height())
        return min(round(tallest + 2 * self._margin), round(MAX_BAND * self.height))

    def _simulation(self, state: StepState) -> Simulation:
        """The step's run at its trial (a run goes on from step to step, as in the window)."""
        if self._run is None or state.new_run:
            self._run = (state.number, Simulation.from_settings(state.dataset, state.settings))
        sim = self._run[1]
        if state.trial <= sim.history_length:
            sim.seek(state.trial)
        else:
            sim.seek(sim.history_length)
            sim.run(state.trial - sim.trials, until_converged=False)
        return sim

    def _view(self, state: StepState, plane: bool) -> object:
        """The renderer of this run and toggles (a new run is fitted afresh)."""
        assert self._run is not None
        charts = self._show.get("charts", False)
        key = (self._run[0], charts, plane)
        view = self._views.get(key)
        if view is None:
            self.close()
            view = (
                _PlaneView(self.width, self.height - self.band, charts)
                if plane
                else _HighDimView(self.width, self.height - self.band)
            )
            self._views[key] = view
        if isinstance(view, _PlaneView):
            view.apply(self._show)
        return view

    def render(self, state: StepState) -> object:
        """The slide of `state` as a QImage."""
        from PySide6.QtCore import QPointF, QRectF, QSizeF
        from PySide6.QtGui import QColor, QImage, QPainter, QPen

        from simulator.export.render import RULE_LINE, STRIP
        from simulator.presentation.frame import build_frame
        from simulator.ui import style

        self._show.update(state.show)
        sim = self._simulation(state)
        frame = build_frame(sim)
        view = self._view(state, sim.dataset.dimension == 2)
        plot = view.render(frame)
        image = QImage(self.width, self.height, QImage.Format.Format_RGB32)
        image.setDevicePixelRatio(1.0)
        image.fill(QColor(style.BACKGROUND))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.drawImage(0, 0, plot)
        top = self.height - self.band
        painter.fillRect(QRectF(0, top, self.width, self.band), STRIP)
        painter.setPen(QPen(RULE_LINE, 1))
        painter.drawLine(QPointF(0, top + 0.5), QPointF(self.width, top + 0.5))
        self._document.setHtml(slide_html(self.lesson, state, len(self.states)))
        painter.translate(self._margin, top + self._margin)
        room = QSizeF(self.width - 2 * self._margin, self.band - 2 * self._margin)
        self._document.drawContents(painter, QRectF(QPointF(0, 0), room))
        painter.end()
        return image

    def close(self) -> None:
        """Free the hidden views (a leaked PlotWidget can abort Python at exit)."""
        for view in self._views.values():
            view.close()  # type: ignore[attr-defined]
        self._views.clear()


class _PlaneView:
    """The exporter's frame renderer for points in the plane, with the step's toggles."""

    def __init__(self, width: int, height: int, charts: bool) -> None:
        from simulator.export.render import FrameRenderer

        self.renderer = FrameRenderer(width, height, separator=False, charts=charts)

    def apply(self, show: dict[str, bool]) -> None:
        view = self.renderer.view
        toggles = {
            "separator": view.set_show_separator,
            "radius": view.set_show_radius,
            "shading": view.set_show_shading,
            "least_squares": view.set_show_least_squares,
            "true_length": view.set_true_length,
            "numbers": view.set_show_numbers,
            "legend": view.set_show_legend,
        }
        for name, on in show.items():
            if name in toggles:
                toggles[name](on)

    def render(self, frame: object) -> object:
        return self.renderer.render(frame)  # type: ignore[arg-type]

    def close(self) -> None:
        self.renderer.close()


class _HighDimView:
    """The window's high-dimensional view, hidden, for data that are not in the plane."""

    def __init__(self, width: int, height: int) -> None:
        from PySide6.QtCore import Qt

        from simulator.ui.highdim_view import HighDimView

        self.view = HighDimView()
        self.view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self.view.setFixedSize(width, height)
        self.view.set_presentation(True)
        self.view.show()

    def render(self, frame: object) -> object:
        from PySide6.QtGui import QColor, QImage

        from simulator.ui import style

        self.view.show_frame(frame)  # type: ignore[arg-type]
        size = self.view.size()
        image = QImage(size.width(), size.height(), QImage.Format.Format_RGB32)
        image.setDevicePixelRatio(1.0)
        image.fill(QColor(style.BACKGROUND))
        self.view.render(image)
        return image

    def close(self) -> None:
        self.view.close()
        self.view.deleteLater()


def _say(text: str) -> None:
    print(f"{PROG}: {text}", file=sys.stderr)


def export_lesson_main(
    lesson: Lesson,
    states: Sequence[StepState],
    options: ExportOptions,
    *,
    quiet: bool = False,
    stop: StopFlag | None = None,
) -> int:
    """Write the lesson's slides (see the module docstring); returns the exit status."""
    stop = stop if stop is not None else StopFlag()
    if stop.is_set():
        return exit_status(stop.signal or 2)
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QCoreApplication, QEvent

    from simulator.export.writers import ExportError
    from simulator.ui.style import painting_application

    app = painting_application()
    try:
        try:
            written = _write(lesson, states, options, stop)
        except ExportError as exc:
            _say(f"error: {exc}")
            return 1
        if stop.is_set():
            _say(f"stopped after {written} slides")
            return exit_status(stop.signal or 2)
        if not quiet:
            places = [str(p) for p in (options.folder, options.gif, options.mp4) if p]
            _say(f"wrote {written} slides of {lesson.title!r} to {', '.join(places)}")
        return 0
    finally:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        del app


def _write(
    lesson: Lesson, states: Sequence[StepState], options: ExportOptions, stop: StopFlag
) -> int:
    """Render and write every slide; the number written (fewer when stopped)."""
    from simulator.export.render import drawing_colours
    from simulator.export.writers import (
        ExportError,
        GifWriter,
        Mp4Writer,
        PngSequence,
        frame_pixels,
    )

    width, height = options.size
    png = None
    if options.folder is not None:
        try:
            options.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ExportError(f"cannot write to {options.folder}: {exc.strerror or exc}") from None
        png = PngSequence(options.folder)
    colours = drawing_colours()
    gif = GifWriter(options.gif, options.fps, options.size, colours) if options.gif else None
    mp4 = Mp4Writer(options.mp4, width, height, options.fps) if options.mp4 else None
    renderer = SlideRenderer(lesson, states, width, height, legend=options.legend)
    written = 0
    try:
        for state in states:
            if stop.is_set():
                break
            image = renderer.render(state)
            if png is not None:
                png.add(written, image)  # type: ignore[arg-type]
            if gif is not None or mp4 is not None:
                pixels = frame_pixels(image)  # type: ignore[arg-type]
                for writer in (gif, mp4):
                    if writer is not None:
                        writer.add(pixels)
            written += 1
        if png is not None:
            png.wait()
        keep = not stop.is_set()
        for writer in (gif, mp4):
            if writer is not None:
                if keep:
                    writer.finish(lambda: not stop.is_set())
                else:
                    writer.abort()
        if png is not None and keep:
            png.remove_stale()
    except BaseException:
        for writer in (gif, mp4):
            if writer is not None:
                writer.abort()
        raise
    finally:
        renderer.close()
        if png is not None:
            png.close()
    return written
