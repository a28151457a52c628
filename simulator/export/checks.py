"""Checks an export makes before it starts, shared by the command line (which runs them
before Qt is imported) and the window's export dialog. No Qt here."""

from __future__ import annotations

from pathlib import Path

__all__ = ["MP4_INSTALL_HINT", "mp4_available", "mp4_size_problem", "prepare_folder"]

MP4_INSTALL_HINT = (
    "MP4 needs imageio-ffmpeg: pip install 'linear-classifier-lab[mp4]' "
    "(or pip install imageio-ffmpeg)"
)


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


def prepare_folder(folder: Path) -> None:
    """Create `folder` if needed and make sure files can be written there.

    Raises ValueError saying what is wrong: not a folder, cannot be created, not writable.
    """
    if folder.exists() and not folder.is_dir():
        raise ValueError("exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the folder ({exc.strerror or exc})") from None
    probe = folder / ".write-test"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"the folder is not writable ({exc.strerror or exc})") from None
