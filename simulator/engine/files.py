"""Files that appear whole or not at all: the one way sessions, exports and the lab write.

A file is written to a temporary file beside its target (the same folder, so that the
rename is atomic) and renamed over the target only when complete: a crash, a full disk or
a cancel leaves the old file or the new one, never half of one, and no temporary file.

The target must be a regular file or not exist yet: a device (/dev/null), a pipe or a socket
at the path is refused (renaming over it would replace the system's node with a file), and
a symbolic link is followed, so that its target gets the new content (written atomically in
the target's folder) and the link stays a link. That is for a name the user gave; a name
the program makes up inside a folder the user gave (an export's `frame_00002.png`, the
lab's streams) is written with `follow_links=False`: a link found there is replaced by the
file, never followed, so nothing outside the folder is ever written.

`private=True` makes a new file readable by its owner only (0600: autosaves, sessions);
an existing file keeps its permissions.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

__all__ = [
    "Cancelled",
    "NotARegularFile",
    "regular_target",
    "temporary_beside",
    "write_atomically",
]


class Cancelled(Exception):
    """The user stopped work on a file (reading it, replaying a session, writing it)."""


class NotARegularFile(OSError):
    """Something other than a regular file (a device, pipe or socket) is where a file would
    be written; `strerror` says so in words, `filename` is the path."""

    def __init__(self, path: str | Path, kind: str) -> None:
        super().__init__(errno.EEXIST, f"is not a regular file (it is {kind})", str(path))


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def regular_target(path: str | Path, *, follow_links: bool = True) -> Path:
    """Where writing `path` must go: the path itself, or the file a symbolic link (or a
    chain of them) names. Raises `NotARegularFile` when a device, pipe or socket is there,
    IsADirectoryError for a folder, OSError when it cannot be looked at (a loop of links);
    a missing target is fine (it will be created). With `follow_links=False` a link at
    `path` is where the file goes (the rename replaces the link itself)."""
    path = Path(path)
    if path.is_symlink():
        if not follow_links:
            return path
        path = Path(os.path.realpath(path))
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return path
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
    if not stat.S_ISREG(mode):
        raise NotARegularFile(path, _kind(mode))
    return path


def _new_file_mode() -> int:
    """The permissions `open()` gives a new file: 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def temporary_beside(target: str | Path, *, private: bool = False) -> Path:
    """A new empty file next to `target`, with the permissions of any new file there
    (`mkstemp` makes it 0600, which a renamed frame must not keep), or 0600 if `private`.

    Raises OSError (no such folder, not writable)."""
    target = Path(target)
    handle, name = tempfile.mkstemp(
        prefix=f".{target.stem}-", suffix=f"{target.suffix}.tmp", dir=target.parent
    )
    os.close(handle)
    try:
        os.chmod(name, 0o600 if private else _new_file_mode())
    except OSError:
        os.unlink(name)
        raise
    return Path(name)


def write_atomically(
    path: str | Path,
    data: bytes | str,
    *,
    durable: bool = True,
    follow_links: bool = True,
    private: bool = False,
) -> None:
    """Write `data` (text as UTF-8) to `path`, whole or not at all.

    `durable`: the data are flushed to the disk before the rename, and the rename itself
    after it, so that even a power cut leaves the old file or the new one (sessions; an
    export's frames skip it: they can be written again, and fsync per frame is slow).
    An existing file keeps its permissions (a new one is 0600 if `private`); a symbolic
    link is followed (its target is written) unless `follow_links` is False (see the
    module docstring). Raises OSError (no permission, disk full, a folder at `path`, ...),
    and `NotARegularFile` for a device, pipe or socket; the target is then as it was and no
    temporary file stays.
    """
    path = regular_target(path, follow_links=follow_links)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        found = os.lstat(path)  # a link here is replaced (`follow_links` False): a new file
        mode = None if stat.S_ISLNK(found.st_mode) else found.st_mode & 0o777
    except OSError:
        mode = None
    temporary = temporary_beside(path, private=private)
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
