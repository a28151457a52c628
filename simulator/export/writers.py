"""Where frames go: a PNG sequence, an animated GIF (Pillow), an MP4 (ffmpeg).

Every file appears whole or not at all: each is written to a temporary file beside its
target and renamed over it only when complete, so a cancelled or failed export leaves no
half-written frame or animation. A device, pipe or socket at a target is refused. A
symbolic link named as the GIF or MP4 is followed: its target is written (see
`files.regular_target`); a link found where a frame goes is replaced by the frame, never
followed (the frames' names are ours: nothing outside the folder is written). A failed
write raises `ExportError` naming the file and the system's reason ("No space left on
device"), never a traceback.

Memory stays bounded: PNG and GIF frames are encoded on worker threads while the next
frame is rendered, with at most a few frames waiting, and the GIF is streamed to disk
frame by frame.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

import numpy as np
from PIL import GifImagePlugin, Image
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QImage

from simulator.engine.files import regular_target, temporary_beside, write_atomically
from simulator.export.checks import MP4_INSTALL_HINT, mp4_size_problem

__all__ = ["ExportError", "GifWriter", "Mp4Writer", "PngSequence", "frame_name", "frame_pixels"]

RGB = tuple[int, int, int]
# Qt's RGB32 pixel 0xFFRRGGBB as bytes in memory, in the names of Pillow and ffmpeg.
_RGB32_PILLOW = "BGRX" if sys.byteorder == "little" else "XRGB"
_RGB32_FFMPEG = "bgr0" if sys.byteorder == "little" else "0rgb"


class ExportError(RuntimeError):
    """An export that could not be written; the message says what and why."""


def frame_name(index: int) -> str:
    return f"frame_{index:05d}.png"


def _cannot_write(target: Path, exc: OSError) -> ExportError:
    return ExportError(f"cannot write {target}: {exc.strerror or exc}")


def _destination(target: Path) -> Path:
    """Where `target` is written: itself or the file its symbolic link names (an
    `ExportError` for a device, pipe, socket or folder there)."""
    try:
        return regular_target(target)
    except OSError as exc:
        raise _cannot_write(target, exc) from None


def _temporary_beside(target: Path) -> Path:
    """An empty file next to `target` (see `files.temporary_beside`)."""
    try:
        return temporary_beside(target)
    except OSError as exc:
        raise _cannot_write(target, exc) from None


def _write_whole(target: Path, data: bytes) -> None:
    """Write `data` to `target` so that it appears whole or not at all (no fsync: a frame
    can be rendered again, and syncing each one would halve the frame rate); a link at
    `target` is replaced, not followed."""
    try:
        write_atomically(target, data, durable=False, follow_links=False)
    except OSError as exc:
        raise _cannot_write(target, exc) from None


def frame_pixels(image: QImage) -> np.ndarray:
    """A copy of `image`'s pixels as (height, width) integers 0xFFRRGGBB (Qt's RGB32)."""
    rgb32 = image.convertToFormat(QImage.Format.Format_RGB32)  # no copy if it already is
    pixels = np.frombuffer(rgb32.constBits(), dtype=np.uint32)
    return pixels.reshape(rgb32.height(), rgb32.bytesPerLine() // 4)[:, : rgb32.width()].copy()


class _Worker:
    """One or more threads doing `work` in submission order, with at most `limit` jobs
    waiting (so memory stays bounded); the first failure is raised on the next call."""

    def __init__(self, name: str, threads: int, limit: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
        self._pending: deque[Future[None]] = deque()
        self._limit = limit

    def submit(self, work: Callable[..., None], *args: Any) -> None:
        while len(self._pending) >= self._limit:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(work, *args))

    def wait(self) -> None:
        """Block until every job submitted so far is done; raise the first failure."""
        while self._pending:
            self._pending.popleft().result()

    def close(self) -> None:
        """Finish the jobs in hand, drop those not started, stop the threads."""
        for future in self._pending:
            future.cancel()
        self._pool.shutdown(wait=True)
        self._pending.clear()


class PngSequence:
    """frame_00000.png, frame_00001.png, ... in a folder, each written atomically.

    PNG encoding (zlib) is the slowest part of an export and Qt releases the GIL while it
    runs, so frames are encoded on two worker threads while the next one is rendered; at
    most `MAX_PENDING` frames wait in memory.
    """

    MAX_PENDING = 4
    # Qt's PNG quality 70 is zlib level 2: frames of flat colour encode in half the time of
    # the default level 6, and come out 3 % larger.
    QUALITY = 70

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.paths: list[Path] = []
        self._worker = _Worker("png", threads=2, limit=self.MAX_PENDING)

    def add(self, index: int, image: QImage) -> Path:
        path = self.folder / frame_name(index)
        self._worker.submit(self._write, path, image)
        self.paths.append(path)
        return path

    @classmethod
    def _write(cls, path: Path, image: QImage) -> None:
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG", cls.QUALITY):
            raise ExportError(f"cannot write {path}: PNG encoding failed")
        buffer.close()
        _write_whole(path, data.data())

    def wait(self) -> None:
        """Block until every frame added so far is on disk; raise the first failure."""
        self._worker.wait()

    def close(self) -> None:
        """Finish the frames in hand, drop those not started; `paths` keeps those on disk."""
        self._worker.close()
        self.paths = [p for p in self.paths if p.exists()]

    def remove_stale(self) -> int:
        """Delete frame_NNNNN.png files numbered past this sequence (an older, longer export
        into the same folder); returns how many. Other files are never touched, nor a folder,
        pipe or device of such a name; a link of such a name is removed, not followed."""
        stale = 0
        for path in self.folder.glob("frame_*.png"):
            stem = path.stem.removeprefix("frame_")
            if len(stem) == 5 and stem.isdigit() and int(stem) >= len(self.paths):
                try:
                    kind = os.lstat(path).st_mode
                    if not (stat.S_ISREG(kind) or stat.S_ISLNK(kind)):
                        continue
                    path.unlink()
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    raise ExportError(
                        f"cannot remove {path}, a frame of an older export: {exc.strerror or exc}"
                    ) from None
                stale += 1
        return stale


class GifWriter:
    """An animated GIF streamed to disk frame by frame (looping, 1/fps s per frame).

    Small, because the frames of a run differ little: one palette for the whole GIF (the
    drawing's own `colours` with their blends into the background, then the first frame's
    most common colours), and each later frame stores only the rectangle that changed, its
    unchanged pixels transparent. Each colour goes to its nearest palette entry (exactly:
    a lookup table filled as colours first appear), without dithering, so still areas stay
    still. Frames are encoded by Pillow on a worker thread.
    """

    TRANSPARENT = 255  # the palette index of "as in the previous frame"; never a colour
    MAX_PENDING = 4

    def __init__(
        self, target: Path, fps: float, size: tuple[int, int], colours: Sequence[RGB] = ()
    ) -> None:
        self.target = Path(target)
        self.duration_ms = max(20, round(1000 / fps))  # GIF delays are in 1/100 s; 2 at least
        self._size = size
        self._colours = list(colours)
        self._destination = _destination(self.target)
        self._temporary = _temporary_beside(self._destination)
        try:
            self._file: IO[bytes] | None = self._temporary.open("wb")
        except OSError as exc:
            self._temporary.unlink(missing_ok=True)
            raise _cannot_write(self.target, exc) from None
        self._palette = np.zeros((0, 3), dtype=np.int32)
        self._lookup: np.ndarray | None = None  # 0xRRGGBB -> palette index; TRANSPARENT: unknown
        self._shown: np.ndarray | None = None  # the pixels a viewer shows now (0xFFRRGGBB)
        self._worker = _Worker("gif", threads=1, limit=self.MAX_PENDING)

    def add(self, pixels: np.ndarray) -> None:
        """Queue one frame: (height, width) integers 0xFFRRGGBB (see `frame_pixels`)."""
        self._worker.submit(self._encode, pixels)

    def finish(self, keep: Callable[[], bool] = lambda: True) -> Path | None:
        """Write the last frames and the trailer, then put the GIF in place if `keep()`
        still says so (asked last: a cancel that comes meanwhile removes it)."""
        try:
            self._worker.wait()
            self._output(b";")
            file, self._file = self._file, None
            assert file is not None
            try:
                file.close()  # flushes: a full disk may only show here
            except OSError as exc:
                raise _cannot_write(self.target, exc) from None
        except BaseException:
            self.abort()
            raise
        self._worker.close()
        if not keep():
            self.abort()
            return None
        try:
            os.replace(self._temporary, self._destination)
        except OSError as exc:
            self.abort()
            raise _cannot_write(self.target, exc) from None
        return self.target

    def abort(self) -> None:
        """Stop and remove the partial GIF."""
        self._worker.close()
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        with contextlib.suppress(FileNotFoundError):
            self._temporary.unlink()

    def _output(self, data: bytes) -> None:
        if self._file is None:
            raise ExportError(f"the GIF {self.target} is already closed")
        try:
            self._file.write(data)
        except OSError as exc:
            raise _cannot_write(self.target, exc) from None

    def _encode(self, pixels: np.ndarray) -> None:
        shown = self._shown
        if shown is None:
            self._palette = self._make_palette(pixels)
            image = self._image(self._indices(pixels))
            header, _ = GifImagePlugin.getheader(image, info={"loop": 0})
            frame = GifImagePlugin.getdata(image, duration=self.duration_ms, disposal=1)
            self._output(b"".join(header) + b"".join(frame))
        else:
            changed = pixels != shown
            rows = np.flatnonzero(changed.any(axis=1))
            if rows.size == 0:  # still a frame, for its time on screen: one clear pixel
                patch, left, top = np.full((1, 1), self.TRANSPARENT, dtype=np.uint8), 0, 0
            else:
                columns = np.flatnonzero(changed.any(axis=0))
                top, left = int(rows[0]), int(columns[0])
                box = np.s_[top : rows[-1] + 1, left : columns[-1] + 1]
                patch = np.where(changed[box], self._indices(pixels[box]), self.TRANSPARENT)
            frame = GifImagePlugin.getdata(
                self._image(patch.astype(np.uint8)),
                offset=(left, top),
                duration=self.duration_ms,
                disposal=1,
                transparency=self.TRANSPARENT,
            )
            self._output(b"".join(frame))
        self._shown = pixels

    def _image(self, indices: np.ndarray) -> Image.Image:
        """A palette image of `indices` with the GIF's palette (256 entries)."""
        height, width = indices.shape
        image = Image.frombytes("P", (width, height), np.ascontiguousarray(indices).tobytes())
        palette = self._palette.astype(np.uint8).tobytes()
        image.putpalette(palette + bytes(768 - len(palette)))
        return image

    def _indices(self, pixels: np.ndarray) -> np.ndarray:
        """The palette index nearest to each pixel's colour."""
        assert self._lookup is not None
        keys = pixels & 0xFFFFFF
        indices = self._lookup[keys]
        unknown = indices == self.TRANSPARENT
        if unknown.any():
            new = np.unique(keys[unknown])
            colours = np.stack([(new >> 16) & 255, (new >> 8) & 255, new & 255], axis=1)
            distance = ((colours[:, None, :].astype(np.int32) - self._palette) ** 2).sum(axis=2)
            self._lookup[new] = distance.argmin(axis=1)
            indices = self._lookup[keys]
        return indices

    def _make_palette(self, first: np.ndarray) -> np.ndarray:
        """At most 255 colours (index 255 is transparency): the drawing's own colours (the
        background first) with their anti-aliased blends into the background, then the
        first frame's commonest."""
        background = self._colours[0] if self._colours else (255, 255, 255)
        wanted: list[RGB] = []
        for colour in self._colours:
            for t in (1.0, 0.75, 0.5, 0.25):
                r, g, b = (round(b + t * (c - b)) for c, b in zip(colour, background, strict=True))
                wanted.append((r, g, b))
        wanted = list(dict.fromkeys(wanted))[: self.TRANSPARENT // 2]
        room = self.TRANSPARENT - len(wanted)
        height, width = first.shape
        image = Image.frombytes("RGB", (width, height), first.tobytes(), "raw", _RGB32_PILLOW)
        found = image.quantize(colors=room, method=Image.Quantize.FASTOCTREE).getpalette() or []
        for i in range(0, min(len(found), 3 * room), 3):
            wanted.append((found[i], found[i + 1], found[i + 2]))
        self._lookup = np.full(1 << 24, self.TRANSPARENT, dtype=np.uint8)
        return np.array(list(dict.fromkeys(wanted))[: self.TRANSPARENT], dtype=np.int32)


class Mp4Writer:
    """An H.264 MP4 streamed to ffmpeg (the binary imageio-ffmpeg provides) frame by frame.

    ffmpeg runs in a session of its own, so a Ctrl-C in the terminal reaches only us (and
    we stop it); its messages go to a temporary log whose last line becomes our one-line
    error. (`imageio_ffmpeg.write_frames` would print ffmpeg's messages on our stderr and
    not check its exit status, so a full disk would pass for a written MP4.)
    """

    QUALITY_CRF = "10"  # H.264 constant quality: 0 lossless … 51 worst; 10 keeps text crisp

    def __init__(self, target: Path, width: int, height: int, fps: float) -> None:
        problem = mp4_size_problem(width, height)
        if problem is not None:
            raise ExportError(problem)
        try:
            import imageio_ffmpeg
        except ImportError:
            raise ExportError(MP4_INSTALL_HINT) from None
        self.target = Path(target)
        self._size = (width, height)
        self._destination = _destination(self.target)
        self._temporary = _temporary_beside(self._destination)
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finish() or abort()
        rate = Fraction(fps).limit_denominator(1000)
        command = [
            imageio_ffmpeg.get_ffmpeg_exe(),
            "-y",
            "-v",
            "error",
            "-f",
            "rawvideo",
            "-pix_fmt",
            _RGB32_FFMPEG,
            "-s",
            f"{width}x{height}",
            "-r",
            f"{rate.numerator}/{rate.denominator}",
            "-i",
            "-",
            "-an",
            "-vcodec",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-crf",
            self.QUALITY_CRF,
            "-f",
            "mp4",
            str(self._temporary),
        ]
        try:
            self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=self._log,
                start_new_session=True,
            )
        except OSError as exc:
            self._remove()
            raise ExportError(f"cannot start ffmpeg: {exc.strerror or exc}") from None

    def add(self, pixels: np.ndarray) -> None:
        """Send one frame: (height, width) integers 0xFFRRGGBB (see `frame_pixels`)."""
        process = self._process
        if process is None or process.stdin is None:
            raise ExportError(f"the MP4 {self.target} is already closed")
        if pixels.shape != (self._size[1], self._size[0]):
            raise ExportError("every MP4 frame must have the same size")
        try:
            process.stdin.write(memoryview(np.ascontiguousarray(pixels)).cast("B"))
        except OSError:
            raise self._failure() from None

    def finish(self, keep: Callable[[], bool] = lambda: True) -> Path | None:
        """Let ffmpeg write the file, then put it in place if `keep()` still says so."""
        process = self._process
        if process is None or process.stdin is None:
            raise ExportError(f"the MP4 {self.target} is already closed")
        try:
            process.stdin.close()
        except OSError:
            raise self._failure() from None
        if process.wait() != 0:
            raise self._failure()
        self._process = None
        self._log.close()
        if not keep():
            self._remove()
            return None
        try:
            os.replace(self._temporary, self._destination)
        except OSError as exc:
            self._remove()
            raise _cannot_write(self.target, exc) from None
        return self.target

    def abort(self) -> None:
        """Stop ffmpeg and remove the partial MP4."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            if self._process.stdin is not None:
                with contextlib.suppress(OSError):
                    self._process.stdin.close()
            self._process = None
        self._log.close()
        self._remove()

    def _remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._temporary.unlink()

    def _failure(self) -> ExportError:
        """ffmpeg stopped: stop it for good, remove the partial file, say why in one line."""
        process = self._process
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        self._log.seek(0)
        lines = [line.strip() for line in self._log.read().decode(errors="replace").splitlines()]
        reason = next((line for line in reversed(lines) if line), "ffmpeg stopped")
        if process is not None and process.returncode is not None and process.returncode < 0:
            reason = f"ffmpeg stopped: {signal.strsignal(-process.returncode)}"  # e.g. SIGXFSZ
        if reason.startswith("[") and "] " in reason:
            reason = reason.split("] ", 1)[1]  # ffmpeg's "[mp4 @ 0x55…] " prefix
        self.abort()
        return ExportError(f"cannot write {self.target}: {reason}")
