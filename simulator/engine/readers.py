"""Reading labelled points from CSV and JSON files, text or bytes, into a `Dataset`.

The readers map 0/1 labels to -1/+1 (a convenience for data from other tools); the
`Dataset` constructor does not, so a 0 that reaches it is an error, not a silent relabelling.

CSV: a header row, coordinate columns and a `label` column; the delimiter (comma,
semicolon or tab) is sniffed from the header; with a semicolon or tab, a decimal comma is
read as a decimal point (as European spreadsheets save them). Text is UTF-8 with or without
a byte-order mark, UTF-16 with one, or else Windows-1252. A path that is not a regular
file, or a file over 1 GB, is refused before anything is read. A CSV file is read in
pieces (`chunks`): its memory is about that of its numbers, a file whose numbers cannot fit
is refused before its body is parsed, and Cancel stops it between pieces. JSON is parsed
whole, so a JSON file (data or session) over `MAX_JSON_BYTES` (128 MB) is refused before
it is read. Every problem is a
`DataFileError` of one line naming the file, the line (or the JSON item) and the reason.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from simulator.engine.chunks import (
    BOMS,
    CHUNK_BYTES,
    MAX_FILE_BYTES,
    memory_problem,
    open_data_file,
    size_text,
    survey,
    text_pieces,
)
from simulator.engine.csv_table import CsvReader, map_labels, parse_csv
from simulator.engine.dataset import (
    MAX_CLASSES,
    DataFileError,
    Dataset,
    FloatArray,
    short_repr,
)

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_JSON_BYTES",
    "dataset_from_json",
    "decode",
    "json_document",
    "json_number",
    "load_csv",
    "load_dataset",
    "load_json",
    "parse_csv",
    "parse_json",
    "read_text",
]

MAX_JSON_BYTES = 128 << 20
"""JSON files (sessions and JSON data) larger than this (128 MB) are refused before they
are read. JSON is parsed whole, at about seven times its size in memory; 128 MB holds a
session of two million 2-D points, far more than a class's run, and larger data belong in
CSV, which is read in pieces."""
JSON_MEMORY_FACTOR = 8
"""Memory a JSON file of n bytes needs while it is parsed, as a multiple of n."""
CSV_WORK_BYTES = 12 * CHUNK_BYTES
"""Memory a CSV file needs for the piece being parsed (its text, its lines, their numbers),
besides the table."""


def read_text(
    path: str | Path,
    *,
    limit: int = MAX_FILE_BYTES,
    kind: str = "files",
    memory_factor: float = 2.0,
) -> str:
    """The text of a data, session or lesson file, decoded (see the module docstring).

    Refused at once, as a `DataFileError`: a missing path, a folder, anything that is not a
    regular file (a device such as /dev/zero, a pipe, a socket), a file over `limit` bytes
    (`kind` names such files in the message), one whose reading needs about
    `memory_factor` times its size of memory when less is available, and bytes that are
    not text.
    """
    path = Path(path)
    file, size = open_data_file(path)
    with file:
        if size > limit:
            raise DataFileError(
                f"{path}: is {size_text(size)}; {kind} over {size_text(limit)} are not read"
            )
        problem = memory_problem(int(size * memory_factor), f"{path.name} ({size_text(size)})")
        if problem is not None:
            raise DataFileError(problem)
        try:
            data = file.read(limit + 1)
        except OSError as exc:
            raise DataFileError(f"{path}: cannot be read ({exc.strerror})") from None
    if len(data) > limit:
        raise DataFileError(f"{path}: grew past {size_text(limit)} while being read; not read")
    return decode(data, path.name)


def decode(data: bytes, source: str) -> str:
    """Text from bytes: UTF-8 (a byte-order mark is dropped), UTF-16 with a byte-order
    mark, else Windows-1252; NUL bytes or undecodable bytes are not text."""
    for bom, codec in BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(codec)
            except UnicodeDecodeError as exc:
                line = data.count(b"\n", 0, exc.start) + 1
                raise DataFileError(
                    f"{source}, line {line}: not a text file (its byte-order mark says "
                    f"{codec.upper()}, but byte {exc.start} is not)"
                ) from None
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise DataFileError(f"{source}, line {line}: not a text file (it holds NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:  # what spreadsheets on Windows save
        return data.decode("cp1252")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataFileError(
            f"{source}, line {line}: not a text file (byte 0x{data[exc.start]:02x} is "
            "neither UTF-8 nor Windows-1252)"
        ) from None


def json_number(value: object, where: str) -> float:
    """A JSON number as a finite float, or a one-line `DataFileError`; `where` names the
    file and the item (data files and session files alike)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DataFileError(f"{where} ({short_repr(value)}) is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise DataFileError(f"{where} is too large a number") from None
    if not math.isfinite(number):
        raise DataFileError(f"{where} is not a finite number")
    return number


def _reject_constant(name: str) -> float:
    raise DataFileError(f"{name} is not a finite number")


def parse_json(text: str, source: str = "<text>") -> Dataset:
    """Read JSON text {"points": [[...], ...], "labels": [...], "names": [...] (optional)}.

    Items are named JSON-style in errors: points[3][1] is the second coordinate of the
    fourth point.
    """
    return dataset_from_json(json_document(text, source), source)


def json_document(text: str, source: str) -> object:
    """Parsed JSON, or a one-line `DataFileError` (bad syntax with its line, NaN or
    Infinity, nesting too deep, an integer too long)."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"{source}, line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except DataFileError as exc:
        raise DataFileError(f"{source}: {exc}") from None
    except RecursionError:
        raise DataFileError(f"{source}: nested too deeply to be a data file") from None
    except ValueError:  # an integer of more than 4300 digits
        raise DataFileError(f"{source}: holds a number too long to read") from None


def dataset_from_json(data: object, source: str) -> Dataset:
    """The dataset in parsed JSON (an object with points, labels and optional names and
    class_names; with three or more class names the labels are the classes 0 … K−1)."""
    points, labels, names, classes = _json_parts(data, source)
    count = 2 if classes is None else len(classes)
    mapped = _json_labels(labels, count, source)
    rows, dimension = _json_rows(points, names, source)
    labels_mapped = mapped if count > 2 else map_labels(mapped, source)
    try:
        return Dataset(
            np.array(rows, dtype=np.float64).reshape(len(rows), dimension),
            labels_mapped,
            names=names,
            class_names=classes,
        )
    except ValueError as exc:
        raise DataFileError(f"{source}: {exc}") from None


def _json_parts(
    data: object, source: str
) -> tuple[list[Any], list[Any], list[str] | None, list[str] | None]:
    """Points, labels, names and class names of a JSON data file, each of the right kind,
    one label per point."""
    if not isinstance(data, dict) or "points" not in data or "labels" not in data:
        raise DataFileError(f"{source}: expected an object with 'points' and 'labels'")
    points, labels, names = data["points"], data["labels"], data.get("names")
    if not isinstance(points, list):
        raise DataFileError(f"{source}: 'points' must be a list of points")
    if not isinstance(labels, list):
        raise DataFileError(f"{source}: 'labels' must be a list of -1/+1 (or 0/1)")
    if names is not None and not (
        isinstance(names, list) and all(isinstance(n, str) for n in names)
    ):
        raise DataFileError(f"{source}: 'names' must be a list of strings, one per coordinate")
    for j, name in enumerate(names or ()):
        if not _is_text(name):  # JSON's "\ud800": no file could be saved with it
            raise DataFileError(
                f"{source}: names[{j}] ({short_repr(name)}) holds a lone surrogate, which is "
                "not text (no file can hold it)"
            )
    if len(points) != len(labels):
        raise DataFileError(
            f"{source}: {len(points)} points but {len(labels)} labels; "
            "there must be one label per point"
        )
    classes = data.get("class_names")
    if classes is not None and not (
        isinstance(classes, list)
        and 2 <= len(classes) <= MAX_CLASSES
        and all(isinstance(n, str) for n in classes)
    ):
        raise DataFileError(
            f"{source}: 'class_names' must be a list of 2 … {MAX_CLASSES} strings, one per class"
        )
    return points, labels, names, classes


def _is_text(name: str) -> bool:
    """Whether `name` is text a file can hold (a JSON escape can make a lone surrogate)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json_labels(labels: list[Any], count: int, source: str) -> FloatArray:
    """The labels as numbers: -1, +1, 0 or 1 for two classes, else 0 … count − 1."""
    many = count > 2
    mapped = np.empty(len(labels))
    for i, value in enumerate(labels):
        where = f"{source}: labels[{i}]"
        mapped[i] = json_number(value, where)
        if many and not (mapped[i] == int(mapped[i]) and 0 <= mapped[i] < count):
            raise DataFileError(f"{where} ({short_repr(value)}) is not a class 0 … {count - 1}")
        if not many and mapped[i] not in (-1.0, 0.0, 1.0):
            raise DataFileError(f"{where} ({short_repr(value)}) is not -1, +1, 0 or 1")
    return mapped


def _json_rows(
    points: list[Any], names: list[str] | None, source: str
) -> tuple[list[list[float]], int]:
    """The points' coordinates, and their number (the names', else the first point's)."""
    if names:
        dimension = len(names)
    elif points and isinstance(points[0], list):
        dimension = len(points[0])
    else:
        dimension = 2
    rows = []
    for i, p in enumerate(points):
        if not isinstance(p, list):
            raise DataFileError(f"{source}: points[{i}] is not a list of coordinates")
        if len(p) != dimension:
            raise DataFileError(
                f"{source}: points[{i}] has {len(p)} coordinates, but "
                + (f"there are {dimension} names" if names else f"points[0] has {dimension}")
            )
        rows.append([json_number(v, f"{source}: points[{i}][{j}]") for j, v in enumerate(p)])
    return rows, dimension


def load_csv(path: str | Path, cancelled: Callable[[], bool] | None = None) -> Dataset:
    """Read a CSV file (see `parse_csv`) in pieces, so that it costs about its numbers'
    size in memory, not many times the file's; refused before its body is parsed when
    the numbers cannot fit in the memory available. `cancelled()` is asked between pieces:
    once true, `Cancelled` is raised."""
    path = Path(path)
    file, size = open_data_file(path)
    with file:
        try:
            found = survey(file, path.name, cancelled)

            def check_memory(columns: int) -> None:
                # The table is held twice for a moment (its pieces, then joined), and the
                # Dataset takes its own copy of the points.
                needed = 2 * 8 * found.lines * columns + min(size, CSV_WORK_BYTES)
                problem = memory_problem(
                    needed, f"{path.name} ({found.lines:,} lines of {columns} columns)"
                )
                if problem is not None:
                    raise DataFileError(problem)

            pieces = text_pieces(file, path.name, found.codec, found.bom, cancelled)
            return CsvReader(path.name, check_memory).read(pieces)
        except OSError as exc:
            raise DataFileError(f"{path}: cannot be read ({exc.strerror})") from None


def load_json(path: str | Path) -> Dataset:
    """Read a JSON file (see `parse_json`); a session file (.lab.json) gives its data.
    Over `MAX_JSON_BYTES` it is refused before it is read."""
    path = Path(path)
    return parse_json(read_json_text(path), source=path.name)


def read_json_text(path: Path) -> str:
    """The text of a JSON file (data or session), refused early when over `MAX_JSON_BYTES`
    or when its parsing could not fit in the memory available."""
    return read_text(
        path,
        limit=MAX_JSON_BYTES,
        kind="JSON files (save large data as CSV)",
        memory_factor=JSON_MEMORY_FACTOR,
    )


def load_dataset(path: str | Path, cancelled: Callable[[], bool] | None = None) -> Dataset:
    """Read a .json file as JSON and anything else as CSV (in pieces, which `cancelled`
    can stop between)."""
    path = Path(path)
    return load_json(path) if path.suffix.lower() == ".json" else load_csv(path, cancelled)
