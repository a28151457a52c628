"""Checks an export makes before it renders anything, shared by the command line (which
runs them before Qt is imported) and the window's export dialog. No Qt here.

Two kinds of problem: a `ValueError` when the arguments name no possible place (a file
where the folder should be, a missing folder, a wrong suffix, a device, pipe or socket
where a file should be), and `CannotWrite` when the place exists but the file system
refuses (not writable, a folder where the GIF should be). A symbolic link is followed: its
target is what is checked and written.
The command line exits 2 for the first and 1 for the second.
"""

from __future__ import annotations

import argparse
import errno
import os
import stat
import tempfile
from pathlib import Path

from simulator.engine import Dataset
from simulator.engine.files import NotARegularFile, regular_target

__all__ = [
    "MP4_INSTALL_HINT",
    "CannotWrite",
    "check_animation_target",
    "check_file_target",
    "mp4_available",
    "mp4_size_problem",
    "path_argument",
    "plane_problem",
    "prepare_folder",
]

MP4_INSTALL_HINT = (
    "MP4 needs imageio-ffmpeg: pip install 'linear-classifier-lab[mp4]' "
    "(or pip install imageio-ffmpeg)"
)


class CannotWrite(ValueError):
    """The file system refuses a write the export needs (see the module docstring)."""


def mp4_available() -> bool:
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        return False
    return True


def mp4_size_problem(width: int, height: int) -> str | None:
    """Why an MP4 (H.264, yuv420p) cannot have this frame size, or None."""
    if width % 2 or height % 2:
        return f"MP4 needs an even width and height, not {width}x{height}"
    return None


def plane_problem(dataset: Dataset) -> str | None:
    """Why the frames cannot show a run on `dataset`, or None.

    Frames draw the plane, so the points must have 2 coordinates (the window shows other
    data in its high-dimensional view, which an export does not draw); and with no points
    there is no run to show.
    """
    if dataset.dimension != 2:
        d = dataset.dimension
        return f"frames show 2-D data; these points have {d:,} coordinate{'s' if d != 1 else ''}"
    if len(dataset) == 0:
        return "there are no points to export"
    return None


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    if exc.errno == errno.ENAMETOOLONG:
        return "a name in the path is too long"
    return exc.strerror or str(exc)


def _look(path: Path) -> os.stat_result | None:
    """What is at `path` (links followed), None if nothing; the file system's refusal to
    look (a folder on the way that cannot be read, a name too long, a loop of links) is a
    `CannotWrite`, or a `ValueError` where the path itself names no possible place."""
    try:
        return path.stat()
    except FileNotFoundError:
        if os.path.lexists(path):
            raise ValueError("is a symbolic link to nothing (its target does not exist)") from None
        return None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:  # a file on the way: creating the folder says so
            return None
        kind = ValueError if exc.errno in (errno.ELOOP, errno.ENAMETOOLONG) else CannotWrite
        raise kind(f"cannot be looked at ({_reason(exc)})") from None


def _probe(folder: Path) -> None:
    """Raise CannotWrite unless a file can be created in `folder` (the probe leaves nothing:
    an unnamed temporary file where the system has them)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise CannotWrite(f"the folder {folder} is not writable ({_reason(exc)})") from None


def prepare_folder(folder: Path) -> None:
    """Create `folder` if needed and make sure files can be written there. Raises
    `ValueError` or `CannotWrite` (see the module docstring), never another OSError."""
    found = _look(folder)
    if found is not None and not stat.S_ISDIR(found.st_mode):
        raise ValueError("exists and is not a folder")
    if found is None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            invalid = (errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG, errno.EEXIST)
            kind = ValueError if exc.errno in invalid else CannotWrite
            raise kind(f"cannot create the folder ({_reason(exc)})") from None
    _probe(folder)


def path_argument(text: str) -> Path:
    """A command-line path; an empty one is refused (Path("") is ".", the current folder:
    `--out ''` would write frames there, or call the folder a file)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path; name a file or folder")
    return Path(text)


def check_file_target(target: Path, suffix: str | None = None) -> None:
    """Make sure the file `target` can be written (atomically: a new file in its folder,
    renamed over it), before any work is done; a symbolic link is checked at its target."""
    if suffix is not None and target.suffix.lower() != suffix:
        raise ValueError(f"the file name must end in {suffix}")
    try:
        destination = regular_target(target)
    except IsADirectoryError:
        raise CannotWrite("is a folder; name the file to write") from None
    except NotARegularFile as exc:
        raise ValueError(exc.strerror) from None
    except OSError as exc:
        raise CannotWrite(_reason(exc)) from None
    folder = _look(destination.parent)
    if folder is None or not stat.S_ISDIR(folder.st_mode):
        raise ValueError(f"no such folder {destination.parent}")
    _probe(destination.parent)


def check_animation_target(target: Path, suffix: str) -> None:
    """Make sure the GIF or MP4 `target` can be written, before any frame is rendered."""
    check_file_target(target, suffix)
