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

import csv
import io
import json
import math
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

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
from simulator.engine.dataset import (
    MAX_CLASSES,
    MAX_COORDINATE,
    DataFileError,
    Dataset,
    FloatArray,
    check_names,
    one_line,
    short_repr,
    within_limit,
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


def _label(text: str, where: str, decimal_comma: bool = False) -> float:
    if not text:
        raise DataFileError(f"{where}: no label (use -1/+1 or 0/1)")
    try:
        value = _number(text, decimal_comma)
    except ValueError:
        raise DataFileError(
            f"{where}: label {short_repr(text)} is not a number (use -1/+1 or 0/1)"
        ) from None
    if value not in (-1.0, 0.0, 1.0):
        raise DataFileError(f"{where}: label {short_repr(text)} is not -1, +1, 0 or 1")
    return value


def _map_labels(values: NDArray[np.float64], source: str) -> NDArray[np.float64]:
    """-1/+1 stay; 0/1 become -1/+1; a file may not use both conventions."""
    zero = values == 0.0
    if zero.any() and (values == -1.0).any():
        raise DataFileError(
            f"{source}: labels mix 0 and -1; use either -1/+1 or 0/1 for the two classes"
        )
    return np.where(zero, -1.0, values) if zero.any() else values


_DELIMITERS = (",", ";", "\t")


def _csv_problem(exc: csv.Error, where: str) -> DataFileError:
    """The CSV reader's refusal in words, naming `where`."""
    if "field limit" in str(exc):
        limit = csv.field_size_limit()
        return DataFileError(
            f"{where}: a value longer than {limit:,} characters; not a data file, or a quote "
            '(") not closed?'
        )
    return DataFileError(f"{where}: cannot be read as CSV ({exc})")


def _split(line: str, delimiter: str, where: str) -> list[str]:
    """The fields of one line (a `DataFileError` naming `where` if the CSV reader refuses)."""
    try:
        return [v.strip() for v in next(csv.reader([line], delimiter=delimiter), [])]
    except csv.Error as exc:
        raise _csv_problem(exc, where) from None


def _sniff(header: str, where: str) -> str:
    """The delimiter that makes `header` a row with a 'label' field (the most fields wins)."""
    best: tuple[int, str] | None = None
    for delimiter in _DELIMITERS:
        fields = _split(header, delimiter, where)
        if any(f.lower() == "label" for f in fields) and (best is None or len(fields) > best[0]):
            best = (len(fields), delimiter)
    if best is not None:
        return best[1]
    return max(_DELIMITERS, key=header.count)  # no label: the error message will say so


def _header(text: str) -> tuple[int, int, str]:
    """(line number, offset just past it, text) of the first line that is not blank."""
    start, line = 0, 1
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        if text[start:end].strip():
            return line, end, text[start:end].rstrip("\n")
        start, line = end, line + 1
    raise DataFileError("the file is empty; expected a header such as x1,x2,label")


def _coordinate_names(values: list[str], coord_cols: list[int]) -> list[str]:
    """The header's names, a blank one called x<k> (the next free such name)."""
    taken = {values[j] for j in coord_cols}
    names = []
    for k, j in enumerate(coord_cols):
        name, m = values[j], k + 1
        while not name:
            candidate = f"x{m}"
            name = candidate if candidate not in taken else ""
            m += 1
        taken.add(name)
        names.append(name)
    return names


def _unix_lines(text: str) -> str:
    """`text` with every line ending a single \\n: Windows' \\r\\n and classic Mac OS's lone
    \\r (which the CSV reader refuses inside a line) alike."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_csv(text: str, source: str = "<text>") -> Dataset:
    """Read CSV text with a header row, coordinate columns and a `label` column.

    The body is read in pieces by NumPy's C reader; when it refuses a piece, a line-by-line
    reader finds the line to name. Errors are `DataFileError`s that name `source`, the line
    and the reason. Lines may end in \\n, \\r\\n or \\r. A quoted value may not span
    lines (a number never does, and NumPy would join the pieces: "-1⏎5" read as -15), and
    digits may not be grouped with "_" (Python reads 1_000 as 1000; a spreadsheet never
    writes it).
    """
    text = _unix_lines(text.removeprefix("\ufeff"))
    return _CsvReader(source).read(_cut(text))


def _cut(text: str) -> Iterator[str]:
    """`text` in pieces of about CHUNK_BYTES characters, each ending at a line break."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + CHUNK_BYTES) + 1 or len(text)
        yield text[start:end]
        start = end


class _CsvReader:
    """CSV text, given in pieces that end at line breaks, read into a `Dataset`: the header
    from the first lines, then each piece of the body by NumPy's C reader into arrays of
    its own, joined at the end. `check_memory(lines, columns)`, called once the header is
    known, may refuse the file before its body is parsed."""

    def __init__(self, source: str, check_memory: Callable[[int], None] | None = None) -> None:
        self.source = source
        self.check_memory = check_memory

    def read(self, pieces: Iterable[str]) -> Dataset:
        source = self.source
        pieces = iter(pieces)
        line = 1  # the number of the first line of `text`
        text = ""
        for text in pieces:
            if _NOT_BLANK.search(text) is not None:
                break
            line += text.count("\n")
        else:
            raise DataFileError(
                f"{source}: the file is empty; expected a header such as x1,x2,label"
            )
        header_line, body_start, header_text = _header(text)
        header_line += line - 1
        where = f"{source}, line {header_line}"
        if header_text.count('"') % 2:
            raise DataFileError(
                f'{where}: a quote (") in the header is not closed on its line '
                f"({short_repr(one_line(header_text))})"
            )
        delimiter = _sniff(header_text, where)
        header = _split(header_text, delimiter, where)
        lowered = [name.lower() for name in header]
        if "label" not in lowered:
            raise DataFileError(
                f"{where}: no 'label' column in the header "
                f"({short_repr(one_line(header_text))}); expected e.g. x1,x2,label"
            )
        if lowered.count("label") > 1:
            raise DataFileError(f"{where}: more than one 'label' column")
        label_col = lowered.index("label")
        coord_cols = [j for j in range(len(header)) if j != label_col]
        if not coord_cols:
            raise DataFileError(f"{where}: no coordinate columns beside 'label'")
        try:
            names = check_names(_coordinate_names(header, coord_cols), len(coord_cols))
        except ValueError as exc:
            raise DataFileError(f"{where}: {exc}") from None
        columns = list(header)
        for j, name in zip(coord_cols, names, strict=True):
            columns[j] = name
        if self.check_memory is not None:
            self.check_memory(len(header))
        points: list[FloatArray] = []
        labels: list[FloatArray] = []
        body: str | None = text[body_start:]
        first = header_line + 1
        while body is not None:
            table = _fast_table(body, delimiter, len(header))
            if table is None or not np.isin(table[:, label_col], (-1.0, 0.0, 1.0)).all():
                slow = _SlowReader(body, delimiter, header, columns, first - 1, source)
                table = slow.table()  # names the line, or reads what NumPy would not
            points.append(table[:, coord_cols])
            labels.append(table[:, label_col].copy())
            del table
            first += body.count("\n")
            body = next(pieces, None)
        mapped = _map_labels(_joined(labels), source)
        try:
            return Dataset(_joined(points), mapped, names=names)
        except ValueError as exc:
            raise DataFileError(f"{source}: {exc}") from None


def _joined(arrays: list[FloatArray]) -> FloatArray:
    """The arrays one after the other; the list is emptied, so that the pieces go as soon
    as they are copied."""
    joined = arrays.pop() if len(arrays) == 1 else np.concatenate(arrays)
    arrays.clear()
    return joined


_NOT_BLANK = re.compile(r"\S")


def _fast_table(body: str, delimiter: str, columns: int) -> FloatArray | None:
    """All rows as floats by NumPy's C reader, or None when anything is off (or a line holds
    an odd number of quotes: NumPy would join a quoted value across lines)."""
    if _NOT_BLANK.search(body) is None:
        return np.empty((0, columns))
    if delimiter != "," and "," in body:
        body = body.replace(",", ".")  # decimal commas
    lines = body.split("\n")  # only \n: str.splitlines also splits at \x1c, \x85, ...
    if '"' in body and any(line.count('"') % 2 for line in lines):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = np.loadtxt(
                lines,  # faster than a StringIO of the text
                delimiter=delimiter,
                quotechar='"',
                comments=None,
                ndmin=2,
                dtype=np.float64,
            )
    except (ValueError, TypeError, OverflowError):
        return None
    if table.shape[1] != columns or not within_limit(table):
        return None
    return table


def _number(text: str, decimal_comma: bool) -> float:
    """The number `text` writes, as Python reads it but without "_" between digits."""
    if "_" in text:
        raise ValueError(f"{text!r} groups digits with _")
    try:
        return float(text)
    except ValueError:
        if decimal_comma and text.count(",") == 1:
            return float(text.replace(",", "."))
        raise


class _SlowReader:
    """The body read row by row by the CSV reader, to name the first bad line (or give the
    table, if none is)."""

    def __init__(
        self,
        body: str,
        delimiter: str,
        header: list[str],
        columns: list[str],
        header_line: int,
        source: str,
    ) -> None:
        self.body, self.delimiter, self.header = body, delimiter, header
        self.columns, self.header_line, self.source = columns, header_line, source

    def _column(self, j: int) -> str:
        """Column j in words, for an error message."""
        if self.header[j]:
            return f"column {short_repr(self.columns[j])}"
        last = j == len(self.header) - 1
        stray = "; a delimiter at the end of the header?" if last else ""
        return f"column {j + 1} (unnamed in the header{stray})"

    def table(self) -> FloatArray:
        reader = csv.reader(io.StringIO(self.body), delimiter=self.delimiter)
        decimal_comma = self.delimiter != ","
        header, source = self.header, self.source
        label_col = [h.lower() for h in header].index("label")
        values: list[float] = []
        while True:
            line = self.header_line + reader.line_num + 1  # where the next row starts
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                where = f"{source}, line {self.header_line + reader.line_num}"
                raise _csv_problem(exc, where) from None
            if not any(v.strip() for v in row):
                continue
            where = f"{source}, line {line}"
            spanning = next((v for v in row if "\n" in v), None)
            if spanning is not None:
                raise DataFileError(
                    f"{where}: a quoted value runs over the end of the line "
                    f"({short_repr(spanning)}); is a quote not closed?"
                )
            if len(row) != len(header):
                raise DataFileError(
                    f"{where}: {len(row)} values, but the header has {len(header)} columns"
                )
            for j, raw in enumerate(row):
                cell = raw.strip()
                if j == label_col:
                    values.append(_label(cell, where, decimal_comma))
                    continue
                if not cell:
                    raise DataFileError(f"{where}: no value in {self._column(j)}")
                quoted = f"{short_repr(cell)} in {self._column(j)}"
                try:
                    number = _number(cell, decimal_comma)
                except ValueError:
                    hint = " (digits are not grouped with _)" if "_" in cell else ""
                    raise DataFileError(f"{where}: {quoted} is not a number{hint}") from None
                if math.isnan(number) or (math.isinf(number) and "inf" in cell.lower()):
                    raise DataFileError(f"{where}: {quoted} is not a finite number")
                if not abs(number) <= MAX_COORDINATE:  # infinite: too many digits for a float
                    raise DataFileError(
                        f"{where}: {quoted} is beyond ±{MAX_COORDINATE:g} (its square would "
                        "overflow); rescale the data"
                    )
                values.append(number)
        return np.array(values, dtype=np.float64).reshape(-1, len(header))


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
    labels_mapped = mapped if count > 2 else _map_labels(mapped, source)
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
            return _CsvReader(path.name, check_memory).read(pieces)
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
