"""CSV text into a table of points and labels: the header (names, delimiter), the body
parsed piece by piece by NumPy's reader (`np.loadtxt`), and, where NumPy refuses a piece,
a line-by-line reader that names the bad line with its true number. The file handling
(opening, decoding, pieces, memory) is `readers` and `chunks`."""

from __future__ import annotations

import csv
import io
import math
import re
import warnings
from collections.abc import Callable, Iterable, Iterator

import numpy as np
from numpy.typing import NDArray

from simulator.engine.chunks import CHUNK_BYTES
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

__all__ = ["CsvReader", "map_labels", "parse_csv"]


_LABELS = (-1.0, *(float(k) for k in range(MAX_CLASSES)))
"""The labels a file may hold: −1/+1 or 0/1 for two classes, 0 … K−1 for K ≥ 3."""


def _label(text: str, where: str, decimal_comma: bool = False) -> float:
    if not text:
        raise DataFileError(f"{where}: no label (use -1/+1 or 0/1)")
    try:
        value = _number(text, decimal_comma)
    except ValueError:
        raise DataFileError(
            f"{where}: label {short_repr(text)} is not a number (use -1/+1 or 0/1)"
        ) from None
    if value not in _LABELS:
        raise DataFileError(
            f"{where}: label {short_repr(text)} is not -1, +1, or a class 0 … {MAX_CLASSES - 1}"
        )
    return value


def file_labels(
    values: NDArray[np.float64], source: str
) -> tuple[NDArray[np.float64], tuple[str, ...] | None]:
    """A file's labels as the dataset takes them, and its class names: two classes as
    `map_labels` reads them; a label of 2 or more makes the labels the classes 0 … K−1
    (K = the largest + 1, named "0" … "K−1"), which no −1 may join."""
    if not values.size or float(np.max(values)) < 2.0:
        return map_labels(values, source), None
    if (values == -1.0).any():
        raise DataFileError(
            f"{source}: labels mix -1 and classes 2 or more; use -1/+1 for two classes, "
            f"0 … K−1 for K"
        )
    count = int(np.max(values)) + 1
    empty = sorted(set(range(count)) - set(np.unique(values).astype(int).tolist()))
    if empty:  # a typo in a file of two classes, more likely than an empty class
        first = int(np.flatnonzero(values >= 2.0)[0])
        raise DataFileError(
            f"{source}: label {values[first]:g} of point {first + 1} makes the labels the "
            f"classes 0 … {count - 1}, but class {', '.join(map(str, empty))} has no point; "
            "two classes are -1/+1 or 0/1"
        )
    return values, tuple(str(k) for k in range(count))


def map_labels(values: NDArray[np.float64], source: str) -> NDArray[np.float64]:
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
    return CsvReader(source).read(_cut(text))


def _cut(text: str) -> Iterator[str]:
    """`text` in pieces of about CHUNK_BYTES characters, each ending at a line break."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + CHUNK_BYTES) + 1 or len(text)
        yield text[start:end]
        start = end


class CsvReader:
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
        delimiter, header, label_col, coord_cols, names, columns = _columns(header_text, where)
        if self.check_memory is not None:
            self.check_memory(len(header))
        points: list[FloatArray] = []
        labels: list[FloatArray] = []
        body: str | None = text[body_start:]
        first = header_line + 1
        while body is not None:
            table = _fast_table(body, delimiter, len(header))
            if table is None or not np.isin(table[:, label_col], _LABELS).all():
                slow = _SlowReader(body, delimiter, header, columns, first - 1, source)
                table = slow.table()  # names the line, or reads what NumPy would not
            points.append(table[:, coord_cols])
            labels.append(table[:, label_col].copy())
            del table
            first += body.count("\n")
            body = next(pieces, None)
        mapped, classes = file_labels(_joined(labels), source)
        try:
            return Dataset(_joined(points), mapped, names=names, class_names=classes)
        except ValueError as exc:
            raise DataFileError(f"{source}: {exc}") from None


def _columns(
    header_text: str, where: str
) -> tuple[str, list[str], int, list[int], tuple[str, ...], list[str]]:
    """The header's delimiter, its cells, the label's column, the coordinates' columns,
    their names (checked) and the columns as named; a `DataFileError` naming `where`."""
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
    return delimiter, header, label_col, coord_cols, names, columns


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
