"""Files that appear whole or not at all: the one way sessions, exports and the lab write.

A file is written to a temporary file beside its target (the same folder, so that the
rename is atomic) and renamed over the target only when complete: a crash, a full disk or
a cancel leaves the old file or the new one, never half of one, and no temporary file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["temporary_beside", "write_atomically"]


def _new_file_mode() -> int:
    """The permissions `open()` gives a new file: 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def temporary_beside(target: str | Path) -> Path:
    """A new empty file next to `target`, with the permissions of any new file there
    (`mkstemp` makes it 0600, which a renamed session or frame must not keep).

    Raises OSError (no such folder, not writable)."""
    target = Path(target)
    handle, name = tempfile.mkstemp(
        prefix=f".{target.stem}-", suffix=f"{target.suffix}.tmp", dir=target.parent
    )
    os.close(handle)
    try:
        os.chmod(name, _new_file_mode())
    except OSError:
        os.unlink(name)
        raise
    return Path(name)


def write_atomically(path: str | Path, data: bytes | str, *, durable: bool = True) -> None:
    """Write `data` (text as UTF-8) to `path`, whole or not at all.

    `durable`: the data are flushed to the disk before the rename, and the rename itself
    after it, so that even a power cut leaves the old file or the new one (sessions; an
    export's frames skip it: they can be written again, and fsync per frame is slow).
    An existing file keeps its permissions. Raises OSError (no permission, disk full, a
    folder at `path`, ...); the target is then as it was and no temporary file stays.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        mode: int | None = path.stat().st_mode & 0o777
    except OSError:
        mode = None
    temporary = temporary_beside(path)
    try:
        with open(temporary, "wb") as file:
            file.write(payload)
            if durable:
                file.flush()
                os.fsync(file.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if durable:
        with contextlib.suppress(OSError):  # make the rename itself durable (POSIX)
            directory = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
