"""Where frames go: a PNG sequence, an animated GIF (Pillow), an MP4 (imageio-ffmpeg).

Every file appears whole or not at all. PNG frames are written through QSaveFile; the GIF
and the MP4 are written to a temporary file beside the target and renamed over it only
when complete, so a cancelled or failed export leaves no half-written animation.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PIL import Image
from PySide6.QtCore import QSaveFile
from PySide6.QtGui import QImage

from simulator.export.checks import MP4_INSTALL_HINT, mp4_size_problem

__all__ = ["ExportError", "GifWriter", "Mp4Writer", "PngSequence", "frame_name"]


class ExportError(RuntimeError):
    """An export that could not be written; the message says what and why."""


def frame_name(index: int) -> str:
    return f"frame_{index:05d}.png"


def _temporary_beside(target: Path) -> Path:
    """An empty file next to `target`, readable like any new file (mkstemp makes it 0600)."""
    try:
        handle, name = tempfile.mkstemp(
            prefix=f".{target.stem}-", suffix=target.suffix, dir=target.parent
        )
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
    os.close(handle)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(name, 0o666 & ~umask)
    return Path(name)


def _rgb_bytes(image: QImage) -> bytes:
    """Tightly packed RGB bytes of `image` (rows without padding)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = rgb.width(), rgb.height(), rgb.bytesPerLine()
    data = bytes(rgb.constBits())
    if stride == 3 * width:
        return data
    return b"".join(data[row * stride : row * stride + 3 * width] for row in range(height))


class PngSequence:
    """frame_00000.png, frame_00001.png, ... in a folder, each written atomically.

    PNG encoding (zlib) is the slowest part of an export and Qt releases the GIL while it
    runs, so frames are encoded on two worker threads while the next one is rendered; at
    most `MAX_PENDING` frames wait in memory. `wait()` returns when every file is written
    (and raises the first error).
    """

    MAX_PENDING = 4

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.paths: list[Path] = []
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="png")
        self._pending: deque[Future[None]] = deque()

    def add(self, index: int, image: QImage) -> Path:
        path = self.folder / frame_name(index)
        while len(self._pending) >= self.MAX_PENDING:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(self._write, path, image))
        self.paths.append(path)
        return path

    @staticmethod
    def _write(path: Path, image: QImage) -> None:
        out = QSaveFile(str(path))
        if not out.open(QSaveFile.OpenModeFlag.WriteOnly) or not image.save(out, "PNG"):
            out.cancelWriting()
            raise ExportError(f"cannot write {path}: {out.errorString() or 'PNG encoding failed'}")
        if not out.commit():
            raise ExportError(f"cannot write {path}: {out.errorString()}")

    def wait(self) -> None:
        """Block until every frame added so far is on disk; raise the first failure."""
        try:
            while self._pending:
                self._pending.popleft().result()
        except ExportError:
            self.close()
            raise

    def close(self) -> None:
        """Finish what is being written, drop what has not started, stop the workers."""
        for future in self._pending:
            future.cancel()
        self._pool.shutdown(wait=True)
        self._pending.clear()

    def remove_stale(self) -> int:
        """Delete frame_NNNNN.png files numbered past this sequence (an older, longer export
        into the same folder); returns how many. Other files are never touched."""
        stale = 0
        for path in self.folder.glob("frame_*.png"):
            stem = path.stem.removeprefix("frame_")
            if len(stem) == 5 and stem.isdigit() and int(stem) >= len(self.paths):
                path.unlink()
                stale += 1
        return stale


class GifWriter:
    """An animated GIF assembled from PNG frames by Pillow (looping, 1/fps s per frame)."""

    def __init__(self, target: Path, fps: float) -> None:
        self.target = Path(target)
        self.duration_ms = max(20, round(1000 / fps))  # GIF delays are in 1/100 s; 2 at least

    def write(self, frames: list[Path], cancelled: threading.Event | None = None) -> Path:
        """Write the GIF from PNG files; if `cancelled` is set meanwhile, stop and remove it."""
        if not frames:
            raise ExportError("no frames to put in the GIF")
        temporary = _temporary_beside(self.target)

        def rest() -> Iterator[Image.Image]:
            for path in frames[1:]:
                if cancelled is not None and cancelled.is_set():
                    raise ExportError("cancelled")
                yield self._open(path)

        try:
            first = self._open(frames[0])
            first.save(
                temporary,
                format="GIF",
                save_all=True,
                append_images=rest(),
                duration=self.duration_ms,
                loop=0,
                optimize=False,
                disposal=1,
            )
            os.replace(temporary, self.target)
        except OSError as exc:
            raise ExportError(f"cannot write {self.target}: {exc.strerror or exc}") from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
        return self.target

    @staticmethod
    def _open(path: Path) -> Image.Image:
        with Image.open(path) as image:
            return image.convert("RGB").quantize(colors=255, method=Image.Quantize.FASTOCTREE)


class Mp4Writer:
    """An H.264 MP4 streamed to ffmpeg (imageio-ffmpeg) frame by frame."""

    def __init__(self, target: Path, width: int, height: int, fps: float) -> None:
        problem = mp4_size_problem(width, height)
        if problem is not None:
            raise ExportError(problem)
        try:
            import imageio_ffmpeg
        except ImportError:
            raise ExportError(MP4_INSTALL_HINT) from None
        self.target = Path(target)
        self._temporary = _temporary_beside(self.target)
        self._size = (width, height)
        self._writer: Iterator[Any] | None = imageio_ffmpeg.write_frames(
            str(self._temporary),
            (width, height),
            fps=fps,
            codec="libx264",
            pix_fmt_in="rgb24",
            pix_fmt_out="yuv420p",
            macro_block_size=2,
            quality=8,
            ffmpeg_log_level="error",
        )
        self._writer.send(None)  # start ffmpeg

    def add(self, image: QImage) -> None:
        if self._writer is None:
            raise ExportError("the MP4 is already closed")
        if (image.width(), image.height()) != self._size:
            raise ExportError("every MP4 frame must have the same size")
        self._writer.send(_rgb_bytes(image))

    def finish(self) -> Path:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        os.replace(self._temporary, self.target)
        return self.target

    def abort(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
            self._writer = None
        with contextlib.suppress(FileNotFoundError):
            self._temporary.unlink()
