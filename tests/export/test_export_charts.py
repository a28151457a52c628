"""`export --charts`: the window's charts beside the plot in every frame, drawn by the same
chart classes (pixel for pixel), and the same pictures whichever frames are taken. The
command line runs in this process (`export_here`: `simulator.cli.main`)."""

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from simulator.engine import Settings, Simulation, load_preset
from simulator.export.render import CHARTS_SHARE, FrameRenderer
from simulator.presentation.frame import build_frame
from simulator.ui import style
from simulator.ui.charts import ChartPanel
from tests.export.helpers import export_here, frames, pixels

SIZE = (640, 360)


def charts_drawn_directly(qapp, rect, frames_shown):
    """The charts of the last of `frames_shown`, drawn by a ChartPanel of our own."""
    panel = ChartPanel(rect.width(), rect.height(), scale=max(0.75, SIZE[1] / 720))
    for frame in frames_shown:  # each frame shown and painted, as an export does
        panel.show_frame(frame)
        image = QImage(*SIZE, QImage.Format.Format_RGB32)
        image.fill(QColor(style.BACKGROUND))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        panel.paint(painter, QRectF(rect))
        painter.end()
    panel.close_charts()
    data = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(SIZE[1], SIZE[0], 4)
    return data[..., [2, 1, 0]]  # BGRA in memory → RGB


def test_the_renderer_draws_the_windows_charts_pixel_for_pixel(qapp):
    renderer = FrameRenderer(*SIZE, charts=True)
    rect = renderer.charts_rect
    assert rect.left() >= round((1 - CHARTS_SHARE) * SIZE[0]) and rect.right() < SIZE[0]
    sim = Simulation(load_preset("separable"))
    shown = [build_frame(sim)]
    image = renderer.render(shown[0])
    for _ in range(30):
        sim.step()
        shown.append(build_frame(sim))
        image = renderer.render(shown[-1])
    renderer.close()
    data = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(SIZE[1], SIZE[0], 4)
    rendered = data[..., [2, 1, 0]]
    ours = charts_drawn_directly(qapp, rect, shown)
    box = (slice(rect.top(), rect.bottom() + 1), slice(rect.left(), rect.right() + 1))
    assert np.array_equal(rendered[box], ours[box])
    assert np.count_nonzero(np.any(rendered[box] != 255, axis=2)) > 5000  # something drawn


CHARTS_RUN = ("--dataset", "separable", "--trials", 30, "--charts", "--size", "640x360")


@pytest.fixture(scope="module")
def charts_every_trial(qapp, tmp_path_factory):
    """`export --charts` of CHARTS_RUN, a frame after every trial."""
    folder = tmp_path_factory.mktemp("charts")
    result = export_here(*CHARTS_RUN, "--out", folder, "--quiet")
    assert result.returncode == 0, result.stderr
    return frames(folder)


def test_export_charts_from_the_command_line(charts_every_trial):
    paths = charts_every_trial
    assert len(paths) == 31
    left = round((1 - CHARTS_SHARE) * SIZE[0])
    charts = pixels(paths[-1])[80:, left + 8 :]
    assert np.count_nonzero(np.any(charts != 255, axis=2)) > 5000  # the charts are drawn


def test_every_mistake_draws_the_same_charts_as_every_trial(charts_every_trial, tmp_path):
    """The charts draw what is new since the frame before, whatever was skipped."""
    every_mistake = export_here(*CHARTS_RUN, "--every", "mistake", "--out", tmp_path)
    assert every_mistake.returncode == 0, every_mistake.stderr
    sim = Simulation(load_preset("separable"))
    sim.run(30, until_converged=False)
    last_mistake = int(sim.mistake_trials()[-1])
    taken = frames(tmp_path)
    assert len(taken) == 1 + len(sim.mistake_trials())
    left = round((1 - CHARTS_SHARE) * SIZE[0])
    header = 60  # the header shows the trial, which differs; compare below it
    a = pixels(charts_every_trial[last_mistake])[header:, left:]
    b = pixels(taken[-1])[header:, left:]
    assert np.array_equal(a, b)


def test_without_charts_the_plot_has_the_whole_width(qapp):
    frame = build_frame(Simulation(load_preset("separable"), **Settings().as_kwargs()))
    plain, with_charts = FrameRenderer(*SIZE), FrameRenderer(*SIZE, charts=True)
    try:
        assert plain.charts_rect.isEmpty() and not with_charts.charts_rect.isEmpty()
        assert plain.view.width() == SIZE[0]
        assert with_charts.view.width() == SIZE[0] - round(CHARTS_SHARE * SIZE[0])
        image = with_charts.render(frame)
        assert (image.width(), image.height()) == SIZE
    finally:
        plain.close()
        with_charts.close()


def test_help_names_the_option():
    result = export_here("--help")
    assert result.returncode == 0 and "--charts" in result.stdout
