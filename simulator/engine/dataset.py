"""Labelled points: an immutable, validated `Dataset`, and CSV/JSON reading and writing.

A dataset is n points in d dimensions (d >= 1, n >= 0) with labels in {-1, +1}. It never
changes; editing returns a new dataset, so a `Simulation`, an undo stack and a view can all
hold the same one safely.

The file readers map 0/1 labels to -1/+1 (a convenience for data from other tools); the
constructor does not, so a 0 that reaches it is an error, not a silent relabelling.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["DataFileError", "Dataset", "load_csv", "load_dataset", "load_json", "parse_csv"]

FloatArray = NDArray[np.float64]
LabelArray = NDArray[np.int8]


class DataFileError(ValueError):
    """A data file that cannot be read; the message names the file, the line and the reason."""


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    array.setflags(write=False)
    return array


class Dataset:
    """n labelled points in d dimensions; immutable and validated.

    `points` is a read-only (n, d) float64 array, `labels` a read-only (n,) int8 array of
    -1/+1. `names` are the coordinate names used for CSV headers (x1, x2, ... by default).
    """

    __slots__ = ("_conflicts", "_labels", "_names", "_points")

    def __init__(
        self,
        points: ArrayLike,
        labels: ArrayLike,
        *,
        names: Sequence[str] | None = None,
    ) -> None:
        try:
            pts = np.array(points, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"points must be numbers: {exc}") from None
        if pts.ndim != 2:
            raise ValueError(f"points must be a 2-D array of shape (n, d); got shape {pts.shape}")
        if pts.shape[1] < 1:
            raise ValueError("points need at least one coordinate (d >= 1)")
        bad = ~np.isfinite(pts)
        if bad.any():
            row, col = (int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"point {row} has a non-finite coordinate ({float(pts[row, col])} "
                f"in column {col}); points must be finite numbers"
            )
        try:
            raw = np.array(labels, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"labels must be -1 or +1: {exc}") from None
        if raw.ndim != 1:
            raise ValueError(f"labels must be a 1-D array; got shape {raw.shape}")
        if raw.shape[0] != pts.shape[0]:
            raise ValueError(
                f"{pts.shape[0]} points but {raw.shape[0]} labels; "
                "there must be one label per point"
            )
        outside = ~np.isin(raw, (-1.0, 1.0))
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ValueError(f"label {float(raw[i]):g} of point {i} is not -1 or +1")
        if names is None:
            names = tuple(f"x{j + 1}" for j in range(pts.shape[1]))
        names = tuple(str(name) for name in names)
        if len(names) != pts.shape[1]:
            raise ValueError(f"{len(names)} coordinate names for {pts.shape[1]} coordinates")
        self._points: FloatArray = _read_only(pts)
        self._labels: LabelArray = _read_only(raw.astype(np.int8))
        self._names: tuple[str, ...] = names
        self._conflicts: list[tuple[int, int]] | None = None

    @classmethod
    def empty(cls, dimension: int = 2) -> Dataset:
        """A dataset with no points yet, in `dimension` coordinates."""
        return cls(np.empty((0, dimension)), np.empty(0))

    # -- reading ---------------------------------------------------------------------------

    @property
    def points(self) -> FloatArray:
        """The (n, d) coordinates, read-only."""
        return self._points

    @property
    def labels(self) -> LabelArray:
        """The (n,) labels in {-1, +1}, read-only."""
        return self._labels

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def dimension(self) -> int:
        return int(self._points.shape[1])

    def __len__(self) -> int:
        return int(self._points.shape[0])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dataset):
            return NotImplemented
        return (
            self._names == other._names
            and np.array_equal(self._points, other._points)
            and np.array_equal(self._labels, other._labels)
        )

    __hash__ = None  # type: ignore[assignment]  # equal datasets need not be the same object

    def __repr__(self) -> str:
        positives = int(np.count_nonzero(self._labels > 0))
        return (
            f"Dataset(n={len(self)}, d={self.dimension}, "
            f"+1: {positives}, -1: {len(self) - positives})"
        )

    def count(self, label: int) -> int:
        """How many points carry `label`."""
        return int(np.count_nonzero(self._labels == label))

    def conflicting_pairs(self) -> list[tuple[int, int]]:
        """Pairs (i, j), i < j, of points at the same place with opposite labels.

        Such data can never be separated, whatever the rule. Computed once per dataset.
        """
        if self._conflicts is None:
            self._conflicts = self._find_conflicts()
        return list(self._conflicts)

    def _find_conflicts(self) -> list[tuple[int, int]]:
        if len(self) < 2:
            return []
        order = np.lexsort(self._points.T[::-1])
        pts = self._points[order]
        same_as_next = np.all(pts[1:] == pts[:-1], axis=1)
        starts = np.flatnonzero(np.concatenate(([True], ~same_as_next)))
        ends = np.append(starts[1:], len(self))
        pairs: list[tuple[int, int]] = []
        for start, end in zip(starts[ends - starts > 1], ends[ends - starts > 1], strict=True):
            group = order[start:end]
            pos = [int(i) for i in group if self._labels[i] > 0]
            neg = [int(i) for i in group if self._labels[i] < 0]
            pairs.extend((min(a, b), max(a, b)) for a in pos for b in neg)
        return sorted(pairs)

    # -- editing (each returns a new dataset) -------------------------------------------------

    def with_point(self, point: ArrayLike, label: int, index: int | None = None) -> Dataset:
        """This dataset with one more point, appended or inserted before `index`."""
        p = np.asarray(point, dtype=np.float64).reshape(1, -1)
        at = len(self) if index is None else index
        return Dataset(
            np.insert(self._points, at, p, axis=0),
            np.insert(self._labels, at, label),
            names=self._names,
        )

    def without(self, indices: int | Iterable[int]) -> Dataset:
        """This dataset without the points at `indices`."""
        idx = [indices] if isinstance(indices, int | np.integer) else list(indices)
        self._check_indices(idx)
        return Dataset(
            np.delete(self._points, idx, axis=0),
            np.delete(self._labels, idx),
            names=self._names,
        )

    def moved(self, index: int, point: ArrayLike) -> Dataset:
        """This dataset with point `index` at a new place."""
        self._check_indices([index])
        pts = self._points.copy()
        pts[index] = np.asarray(point, dtype=np.float64)
        return Dataset(pts, self._labels, names=self._names)

    def relabelled(self, index: int, label: int) -> Dataset:
        """This dataset with point `index` given `label`."""
        self._check_indices([index])
        lab = self._labels.copy()
        lab[index] = label
        return Dataset(self._points, lab, names=self._names)

    def _check_indices(self, indices: Iterable[int]) -> None:
        for i in indices:
            if not 0 <= i < len(self):
                raise IndexError(f"no point {i}: the dataset has {len(self)} points")

    # -- writing ----------------------------------------------------------------------------

    def to_csv(self) -> str:
        """CSV text: a header `x1,...,label`, then one row per point (repr-exact floats)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([*self._names, "label"])
        for point, label in zip(self._points.tolist(), self._labels.tolist(), strict=True):
            writer.writerow([*(repr(v) for v in point), f"{label:+d}"])
        return out.getvalue()

    def to_json(self) -> str:
        """JSON text: {"names": [...], "points": [[...], ...], "labels": [...]}."""
        return json.dumps(
            {
                "names": list(self._names),
                "points": self._points.tolist(),
                "labels": self._labels.tolist(),
            },
            indent=1,
        )


# -- reading files ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    values: list[str]


def _parse_label(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DataFileError(f"{where}: label {text!r} is not a number (use -1/+1 or 0/1)") from None
    if value not in (-1.0, 0.0, 1.0):
        raise DataFileError(f"{where}: label {text!r} is not -1, +1, 0 or 1")
    return value


def _map_labels(values: list[float], source: str) -> list[float]:
    """-1/+1 stay; 0/1 become -1/+1; a file may not use both conventions."""
    seen = set(values)
    if 0.0 in seen and -1.0 in seen:
        raise DataFileError(
            f"{source}: labels mix 0 and -1; use either -1/+1 or 0/1 for the two classes"
        )
    if 0.0 in seen:
        return [1.0 if v == 1.0 else -1.0 for v in values]
    return values


def parse_csv(text: str, source: str = "<text>") -> Dataset:
    """Read CSV text with a header row, coordinate columns and a `label` column.

    Errors are `DataFileError`s that name `source`, the line and the reason.
    """
    reader = csv.reader(io.StringIO(text))
    rows: list[_Row] = []
    try:
        for values in reader:
            if values and any(v.strip() for v in values):
                rows.append(_Row(reader.line_num, [v.strip() for v in values]))
    except csv.Error as exc:
        raise DataFileError(f"{source}, line {reader.line_num}: {exc}") from None
    if not rows:
        raise DataFileError(f"{source}: the file is empty; expected a header such as x1,x2,label")
    header = rows[0]
    lowered = [name.lower() for name in header.values]
    if "label" not in lowered:
        raise DataFileError(
            f"{source}, line {header.line}: no 'label' column in the header "
            f"({','.join(header.values)}); expected e.g. x1,x2,label"
        )
    if lowered.count("label") > 1:
        raise DataFileError(f"{source}, line {header.line}: more than one 'label' column")
    label_col = lowered.index("label")
    coord_cols = [j for j in range(len(header.values)) if j != label_col]
    if not coord_cols:
        raise DataFileError(f"{source}, line {header.line}: no coordinate columns beside 'label'")
    names = [header.values[j] or f"x{k + 1}" for k, j in enumerate(coord_cols)]
    points: list[list[float]] = []
    labels: list[float] = []
    for row in rows[1:]:
        where = f"{source}, line {row.line}"
        if len(row.values) != len(header.values):
            raise DataFileError(
                f"{where}: {len(row.values)} values, "
                f"but the header has {len(header.values)} columns"
            )
        point = []
        for j in coord_cols:
            text = row.values[j]
            try:
                value = float(text)
            except ValueError:
                raise DataFileError(
                    f"{where}: {text!r} in column {header.values[j]!r} is not a number"
                ) from None
            if not math.isfinite(value):
                raise DataFileError(
                    f"{where}: {text!r} in column {header.values[j]!r} is not a finite number"
                )
            point.append(value)
        points.append(point)
        labels.append(_parse_label(row.values[label_col], where))
    labels = _map_labels(labels, source)
    array = np.array(points, dtype=np.float64).reshape(len(points), len(coord_cols))
    return Dataset(array, np.array(labels), names=names)


def parse_json(text: str, source: str = "<text>") -> Dataset:
    """Read JSON text {"points": [[...], ...], "labels": [...], "names": [...] (optional)}."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"{source}, line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or "points" not in data or "labels" not in data:
        raise DataFileError(f"{source}: expected an object with 'points' and 'labels'")
    points, labels = data["points"], data["labels"]
    if not isinstance(points, list) or not isinstance(labels, list):
        raise DataFileError(f"{source}: 'points' and 'labels' must be lists")
    for i, label in enumerate(labels):
        if isinstance(label, bool) or not isinstance(label, int | float):
            raise DataFileError(f"{source}: label {i} ({label!r}) is not -1, +1, 0 or 1")
    mapped = _map_labels(
        [_parse_label(str(v), f"{source}, label {i}") for i, v in enumerate(labels)], source
    )
    names = data.get("names")
    if not points:
        dimension = len(names) if isinstance(names, list) and names else 2
        return Dataset(np.empty((0, dimension)), np.empty(0), names=names)
    if not all(isinstance(p, list) and len(p) == len(points[0]) for p in points):
        raise DataFileError(f"{source}: every point must be a list of the same length")
    for i, p in enumerate(points):
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in p):
            raise DataFileError(f"{source}: point {i} ({p!r}) holds something that is not a number")
    try:
        return Dataset(points, mapped, names=names)
    except ValueError as exc:
        raise DataFileError(f"{source}: {exc}") from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DataFileError(f"{path}: is a folder, not a data file") from None
    except UnicodeDecodeError as exc:
        raise DataFileError(f"{path}: not a text file ({exc.reason})") from None
    except OSError as exc:
        raise DataFileError(f"{path}: cannot be read ({exc.strerror})") from None


def load_csv(path: str | Path) -> Dataset:
    """Read a CSV file (see `parse_csv`)."""
    path = Path(path)
    return parse_csv(_read_text(path), source=path.name)


def load_json(path: str | Path) -> Dataset:
    """Read a JSON file (see `parse_json`)."""
    path = Path(path)
    return parse_json(_read_text(path), source=path.name)


def load_dataset(path: str | Path) -> Dataset:
    """Read a .json file as JSON and anything else as CSV."""
    path = Path(path)
    return load_json(path) if path.suffix.lower() == ".json" else load_csv(path)
