"""Reading a data file piece by piece: its bytes checked, decoded and cut at line breaks,
so that a file near the 1 GB limit costs a small multiple of its size, not many, and the
work can stop between pieces (`cancelled`).

- `open_data_file(path)`: the file, opened without following a pipe's wait, refused at
  once (a `DataFileError` of one line) when it is not a regular file or is over 1 GB.
- `text_pieces(file, source, codec)`: its text in pieces of about `CHUNK_BYTES` that end
  at a line break (`\\n`; Windows' `\\r\\n` and classic Mac OS's `\\r` become `\\n`).
- `survey(file, source)`: how the text is written (UTF-8, a byte-order mark dropped;
  UTF-16 or UTF-32 with a byte-order mark; else Windows-1252) and how many lines it has,
  in one pass over its bytes that holds one piece at a time; bytes that are not text (NUL,
  or neither UTF-8 nor Windows-1252) are a `DataFileError` naming the line.
- `memory_problem(needed, what)`: why `needed` bytes cannot be had now (more than the
  memory available to this process), or None: what cannot fit is refused before the work.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from simulator.engine.dataset import DataFileError
from simulator.engine.files import Cancelled

__all__ = [
    "BOMS",
    "CHUNK_BYTES",
    "MAX_FILE_BYTES",
    "Survey",
    "available_memory",
    "memory_problem",
    "open_data_file",
    "size_text",
    "survey",
    "text_pieces",
]

MAX_FILE_BYTES = 1 << 30
"""Data and session files larger than this (1 GB) are refused before they are read."""
CHUNK_BYTES = 1 << 23
"""How much of a file is decoded and parsed at a time (8 MB: its text, lines and numbers
take a few tens of MB, whatever the file's size)."""

BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16's: FF FE 00 00 starts with FF FE
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def open_data_file(path: str | Path) -> tuple[BinaryIO, int]:
    """The file at `path` opened for reading, and its size; a `DataFileError` for a missing
    path, a folder, anything that is not a regular file (a device such as /dev/zero, a
    pipe, a socket) and a file over 1 GB, before anything is read."""
    path = Path(path)
    try:  # O_NONBLOCK: opening a pipe must not wait for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise DataFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DataFileError(f"{path}: is a folder, not a data file") from None
    except OSError as exc:
        raise DataFileError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise DataFileError(f"{path}: is a folder, not a data file")
        if not stat.S_ISREG(info.st_mode):
            raise DataFileError(f"{path}: is not a regular file (a device, pipe or socket)")
        if info.st_size > MAX_FILE_BYTES:
            raise DataFileError(
                f"{path}: is {info.st_size / 2**30:.1f} GB; files over 1 GB are not read"
            )
        return os.fdopen(os.dup(fd), "rb"), info.st_size
    except OSError as exc:
        raise DataFileError(f"{path}: cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class Survey:
    """What one pass over a file's bytes found: its `codec`, the length of its byte-order
    mark (`bom`) and its number of `lines` (its line breaks, and one for a last line
    without one)."""

    codec: str
    bom: int
    lines: int


def survey(file: BinaryIO, source: str, cancelled: Callable[[], bool] | None = None) -> Survey:
    """The codec, byte-order mark and line count of the text in `file` (read from its
    start, piece by piece; the file is left at its start): a BOM's codec, else UTF-8 when
    every byte is, else Windows-1252. A `DataFileError` names the line of the first byte
    that is not text; `Cancelled` once `cancelled()` is true between pieces."""
    file.seek(0)
    head = file.read(4)
    file.seek(0)
    for bom, codec in BOMS:
        if head.startswith(bom):
            newline = "\n".encode(codec)
            lines, last = 0, newline
            for piece, _, _ in _raw_pieces(file, cancelled):
                lines += piece.count(newline)
                last = piece[-len(newline) :]
            file.seek(0)
            return Survey(codec, len(bom), lines + (last != newline))
    codec, line, last = "utf-8", 1, b"\n"
    for piece, _, line in _raw_pieces(file, cancelled):
        last = piece[-1:]
        if b"\x00" in piece:
            at = line + piece.count(b"\n", 0, piece.index(b"\x00"))
            raise DataFileError(f"{source}, line {at}: not a text file (it holds NUL bytes)")
        if codec == "utf-8" and not piece.isascii():
            try:
                piece.decode("utf-8")  # a piece ends at a line break: whole characters
            except UnicodeDecodeError:
                codec = "cp1252"
        if codec == "cp1252":
            try:
                piece.decode("cp1252")
            except UnicodeDecodeError as exc:
                at = line + piece.count(b"\n", 0, exc.start)
                raise DataFileError(
                    f"{source}, line {at}: not a text file (byte 0x{piece[exc.start]:02x} "
                    "is neither UTF-8 nor Windows-1252)"
                ) from None
        line += piece.count(b"\n")
    file.seek(0)
    return Survey(codec, 0, line - 1 + (last != b"\n"))


def _raw_pieces(
    file: BinaryIO, cancelled: Callable[[], bool] | None = None
) -> Iterator[tuple[bytes, int, int]]:
    """The bytes of `file` from where it is, in pieces of about CHUNK_BYTES that end just
    after a \\n (or at the end), each with its offset and the number of its first line."""
    carry, offset, line = b"", file.tell(), 1
    while True:
        if cancelled is not None and cancelled():
            raise Cancelled
        block = file.read(CHUNK_BYTES)
        data = carry + block
        if not block:
            if data:
                yield data, offset, line
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # no line break yet: read on (a line of megabytes is no data file)
            carry = data
            continue
        piece, carry = data[:cut], data[cut:]
        yield piece, offset, line
        offset += len(piece)
        line += piece.count(b"\n")


def text_pieces(
    file: BinaryIO,
    source: str,
    codec: str,
    bom: int = 0,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """The text of `file` (decoded by `codec`, after a byte-order mark of `bom` bytes) in
    pieces that each end at a line break, every line break written \\n. `cancelled()` is
    asked before each piece: once true, `Cancelled` is raised."""
    file.seek(bom)
    decoder = codecs.getincrementaldecoder(codec)()
    carry = ""
    while True:
        if cancelled is not None and cancelled():
            raise Cancelled
        block = file.read(CHUNK_BYTES)
        try:
            text = carry + decoder.decode(block, final=not block)
        except UnicodeDecodeError as exc:
            raise DataFileError(
                f"{source}: not a text file (its byte-order mark says {codec.upper()}, but "
                f"a byte near {file.tell() - len(block) + exc.start:,} is not)"
            ) from None
        if not block:
            if text:
                yield _unix_lines(text)
            return
        held = "\r" if text.endswith("\r") else ""  # perhaps the first half of \r\n
        text = _unix_lines(text[: len(text) - len(held)])
        cut = text.rfind("\n") + 1
        carry = text[cut:] + held
        if cut:
            yield text[:cut]


def _unix_lines(text: str) -> str:
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def available_memory() -> int | None:
    """Bytes of memory this process may still take, as far as the system says (Linux: the
    memory available, and the container's limit if one is set); None where unknown."""
    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError):
        pass
    try:  # cgroup v2: a container's own limit
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            found.append(max(0, int(limit) - int(used)))
    except (OSError, ValueError):
        pass
    if not found:
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, AttributeError):
            return None
    return min(found)


def memory_problem(needed: int, what: str) -> str | None:
    """Why `what`, which needs about `needed` bytes, cannot be done now, or None."""
    available = available_memory()
    if available is None or needed <= available:
        return None
    return (
        f"{what} needs about {size_text(needed)} of memory, and {size_text(available)} are "
        "available; not read"
    )


def size_text(count: float) -> str:
    """A number of bytes in words: 1.0 GB, 128 MB, 2 KB, 100 bytes."""
    if count >= 2**30:
        return f"{count / 2**30:.1f} GB"
    if count >= 2**20:
        return f"{count / 2**20:.0f} MB"
    return f"{count / 2**10:.0f} KB" if count >= 2**10 else f"{count:.0f} bytes"
