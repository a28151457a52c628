"""Export number to hold (DESIGN.md): at least 20 PNG frames per second at 1280x720.

Ours: ExportJob rendering and writing frame_*.png (simulation step, frame, render, PNG).
Peer: the same views written per frame by pyqtgraph's own ImageExporter.

Run with: pytest tests/benchmarks -s
"""

import time

import pyqtgraph.exporters as pg_exporters

from simulator.engine import Simulation
from simulator.engine.presets import separable
from simulator.export.job import ExportJob, ExportOptions
from simulator.export.render import FrameRenderer
from simulator.ui.frame import build_frame

FRAMES = 60


def test_png_frames_per_second_at_1280x720(qapp, benchmark, tmp_path):
    data = separable(n=200, margin=0.05, seed=4)

    def ours():
        job = ExportJob(
            Simulation(data), ExportOptions(folder=tmp_path / "ours", trials=FRAMES - 1)
        )
        start = time.perf_counter()
        while not job.advance(1.0):
            pass
        elapsed = time.perf_counter() - start
        job.finish()
        return elapsed

    def peer():
        renderer = FrameRenderer(1280, 720)
        sim = Simulation(data)
        (tmp_path / "peer").mkdir(exist_ok=True)
        start = time.perf_counter()
        for index in range(FRAMES):
            if index:
                sim.step()
            renderer.view.show_frame(build_frame(sim))
            exporter = pg_exporters.ImageExporter(renderer.view.getPlotItem())
            exporter.parameters()["width"] = 1280
            exporter.export(str(tmp_path / "peer" / f"frame_{index:05d}.png"))
        elapsed = time.perf_counter() - start
        renderer.close()
        return elapsed

    ours(), peer()  # warm up
    mine = sorted(ours() for _ in range(3))[1]
    theirs = sorted(peer() for _ in range(3))[1]
    fps = FRAMES / mine
    benchmark.extra_info.update(
        frames_per_second=round(fps, 1),
        peer_frames_per_second=round(FRAMES / theirs, 1),
        ratio=round(mine / theirs, 3),
    )
    benchmark.pedantic(lambda: None, rounds=1)
    print(
        f"\n  ours {fps:.1f} frames/s, pyqtgraph ImageExporter {FRAMES / theirs:.1f} frames/s, "
        f"time ratio {mine / theirs:.2f}"
    )
    assert len(list((tmp_path / "ours").glob("frame_*.png"))) == FRAMES
    assert fps >= 20
