"""Labelled points: an immutable, validated `Dataset`, and its CSV and JSON text.

A dataset is n points in d dimensions (d >= 1, n >= 0) with a class per point. Labels are
classes: ±1 for two classes (the binary view every two-class learner takes), or 0 … K−1
for K ≥ 3 classes (at most `MAX_CLASSES`); `classes` lists the labels of the dataset's
classes and `class_names` names them (a file's own names, in the order they first appear,
or the labels written out). It never changes; editing returns a new dataset, so a
`Simulation`, an undo stack and a view can all hold the same one safely. An edit costs
O(n): the child inherits its parent's conflicting pairs and checks only the edited point.

Coordinates are finite and within ±1e150 (beyond, their squares overflow and R, γ* and
the bounds could not be computed). Coordinate names are what a CSV header can hold and
give back: not empty, not "label" (the label column's name), no two alike, no line breaks;
surrounding spaces are dropped (the CSV reader drops them too).

Reading files is `simulator.engine.readers`; every problem with a file is a
`DataFileError` of one line naming the file, the line (or the JSON item) and the reason.
"""

from __future__ import annotations

import csv
import io
import json
import math
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "CHUNK_ROWS",
    "MAX_CLASSES",
    "MAX_COORDINATE",
    "DataFileError",
    "Dataset",
    "check_class_names",
    "check_names",
    "json_text",
    "one_line",
    "short_repr",
    "within_limit",
]

FloatArray = NDArray[np.float64]
LabelArray = NDArray[np.int8]

MAX_COORDINATE = 1e150
"""The largest coordinate magnitude a dataset holds: its square, 1e300, still fits a double."""


class DataFileError(ValueError):
    """A data file that cannot be read; the message names the file, the line and the reason."""


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    array.setflags(write=False)
    return array


def check_names(names: Iterable[object], dimension: int) -> tuple[str, ...]:
    """The coordinate names, stripped, or a ValueError saying why a CSV header could not
    hold them (empty, "label", duplicated, a line break or control character)."""
    result = tuple(str(name).strip() for name in names)
    if len(result) != dimension:
        raise ValueError(f"{len(result)} coordinate names for {dimension} coordinates")
    seen: set[str] = set()
    for j, name in enumerate(result):
        if not name:
            raise ValueError(f"coordinate {j + 1} has an empty name")
        if name.lower() == "label":
            raise ValueError(
                f"a coordinate may not be called {short_repr(name)}: that is the label "
                "column's name"
            )
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise ValueError(
                f"coordinate name {short_repr(name)} holds a line break or control character"
            )
        if name in seen:
            raise ValueError(f"two coordinates are called {short_repr(name)}; names must differ")
        seen.add(name)
    return result


def check_class_names(names: Iterable[object]) -> tuple[str, ...]:
    """The classes' names, stripped, or a ValueError saying why (empty, alike, a line
    break or control character, or a lone surrogate that no file can hold)."""
    result = tuple(str(name).strip() for name in names)
    if len(set(result)) != len(result):
        raise ValueError("two classes have the same name; names must differ")
    for name in result:
        if not name or any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise ValueError(f"class name {short_repr(name)} is empty or holds a control character")
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"class name {short_repr(name)} is not text a file can hold") from None
    return result


def _labels_of(count: int) -> tuple[int, ...]:
    return (-1, 1) if count == 2 else tuple(range(count))


def within_limit(values: FloatArray) -> bool:
    """Whether every value is finite and within ±1e150: two reductions, no temporary array
    (a NaN makes max and min NaN, which fails both comparisons)."""
    return values.size == 0 or (
        float(values.max()) <= MAX_COORDINATE and float(values.min()) >= -MAX_COORDINATE
    )


def _first_bad_coordinate(pts: FloatArray) -> str | None:
    """Why the coordinates cannot be a dataset's (non-finite or beyond ±1e150), or None.

    The bad cell is searched for only when the cheap test fails."""
    if within_limit(pts):
        return None
    bad = ~np.isfinite(pts)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        return (
            f"point {row + 1} has a non-finite coordinate ({float(pts[row, col])} "
            f"in column {col + 1}); points must be finite numbers"
        )
    big = np.abs(pts) > MAX_COORDINATE
    if big.any():
        row, col = (int(i) for i in np.argwhere(big)[0])
        return (
            f"point {row + 1} has coordinate {float(pts[row, col]):g} in column {col + 1}, beyond "
            f"±{MAX_COORDINATE:g} (its square would overflow); rescale the data"
        )
    return None


def _equal_rows(points: FloatArray, point: FloatArray) -> NDArray[np.intp]:
    """Indices of the rows equal to `point`; O(n), narrowing one column at a time."""
    candidates: NDArray[np.intp] = np.flatnonzero(points[:, -1] == point[-1])
    for j in range(points.shape[1] - 2, -1, -1):
        if candidates.size == 0:
            break
        candidates = candidates[points[candidates, j] == point[j]]
    return candidates


MAX_CLASSES = 9
"""The most classes a dataset holds (keys 1–9 pick the class a click adds)."""


def _class_count(raw: FloatArray, class_names: Sequence[str] | None) -> int:
    """K of labels `raw`: 2 when they are ±1, else K ≥ 3 for classes 0 … K−1 (the largest
    label, or as many as `class_names`); a ValueError names the first label that is not."""
    if class_names is not None:
        count = len(class_names)
        if not 2 <= count <= MAX_CLASSES:
            raise ValueError(f"{count} class names; a dataset has 2 … {MAX_CLASSES} classes")
    elif not raw.size or np.all((raw == -1.0) | (raw == 1.0)):
        count = 2
    else:
        top = float(raw.max())
        count = int(top) + 1 if top == int(top) and 2 <= top < MAX_CLASSES else 2
    allowed = np.array(_labels_of(count), dtype=np.float64)
    outside = ~np.isin(raw, allowed)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        kinds = "-1 or +1" if count == 2 else f"a class 0 … {count - 1}"
        raise ValueError(
            f"label {float(raw[i]):g} of point {i + 1} is not {kinds} (labels are -1/+1 for two "
            f"classes, 0 … K−1 for K = 3 … {MAX_CLASSES})"
        )
    return count


def _class_texts(count: int) -> tuple[str, ...]:
    """The default class names: "-1", "+1" for two classes, "0" … "K−1" for K."""
    return ("-1", "+1") if count == 2 else tuple(str(k) for k in range(count))


class Dataset:
    """n labelled points in d dimensions; immutable and validated.

    `points` is a read-only (n, d) float64 array, `labels` a read-only (n,) int8 array of
    -1/+1 (two classes) or 0 … K−1 (K ≥ 3). `names` are the coordinate names used for CSV
    headers (x1, x2, ... by default); `class_names` the classes' names, in label order.
    """

    __slots__ = ("_class_names", "_conflicts", "_derived", "_labels", "_names", "_points")

    _conflicts: NDArray[np.int64] | None

    def __init__(
        self,
        points: ArrayLike,
        labels: ArrayLike,
        *,
        names: Sequence[str] | None = None,
        class_names: Sequence[str] | None = None,
    ) -> None:
        try:
            pts = np.array(points, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"points must be numbers: {exc}") from None
        if pts.ndim != 2:
            raise ValueError(f"points must be a 2-D array of shape (n, d); got shape {pts.shape}")
        if pts.shape[1] < 1:
            raise ValueError("points need at least one coordinate (d >= 1)")
        problem = _first_bad_coordinate(pts)
        if problem:
            raise ValueError(problem)
        try:
            raw = np.array(labels, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"labels must be -1 or +1: {exc}") from None
        if raw.ndim != 1:
            raise ValueError(f"labels must be a 1-D array; got shape {raw.shape}")
        if raw.shape[0] != pts.shape[0]:
            raise ValueError(
                f"{pts.shape[0]} points but {raw.shape[0]} labels; "
                "there must be one label per point"
            )
        if not np.all(np.isfinite(raw)):
            raise ValueError("labels must be finite numbers")
        count = _class_count(raw, class_names)
        if names is None:
            names = tuple(f"x{j + 1}" for j in range(pts.shape[1]))
        if class_names is None:
            class_names = _class_texts(count)
        self._points: FloatArray = _read_only(pts)
        self._labels: LabelArray = _read_only(raw.astype(np.int8))
        self._names: tuple[str, ...] = check_names(names, pts.shape[1])
        self._class_names: tuple[str, ...] = check_class_names(class_names)
        self._conflicts = None
        self._derived: weakref.WeakValueDictionary[Hashable, FloatArray] = (
            weakref.WeakValueDictionary()
        )

    @classmethod
    def empty(cls, dimension: int = 2, classes: int = 2) -> Dataset:
        """A dataset with no points yet, in `dimension` coordinates, of `classes` classes."""
        names = None if classes == 2 else tuple(str(k) for k in range(classes))
        return cls(np.empty((0, dimension)), np.empty(0), class_names=names)

    def _child(
        self, points: FloatArray, labels: LabelArray, conflicts: NDArray[np.int64] | None
    ) -> Dataset:
        """A dataset from arrays already valid (an edit of this one): no O(n) re-validation."""
        child = object.__new__(Dataset)
        child._points = _read_only(points)
        child._labels = _read_only(labels)
        child._names = self._names
        child._class_names = self._class_names
        child._conflicts = conflicts
        child._derived = weakref.WeakValueDictionary()
        return child

    def derived(self, key: Hashable, make: Callable[[], FloatArray]) -> FloatArray:
        """An array computed from these points (feature vectors), made read-only and
        shared by every caller with the same `key` while any of them holds it: a new run of
        the same data (another η, a reset) skips the work, and nothing is kept once no run
        uses it."""
        found = self._derived.get(key)
        if found is None:
            found = make()
            found.setflags(write=False)
            self._derived[key] = found
        return found

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
    def classes(self) -> tuple[int, ...]:
        """The labels of the classes: (-1, 1) for two, (0, 1, …, K−1) for K ≥ 3."""
        return _labels_of(len(self._class_names))

    @property
    def class_names(self) -> tuple[str, ...]:
        """The classes' names, in the order of `classes`."""
        return self._class_names

    def with_classes(self, count: int) -> Dataset:
        """This dataset as one of `count` ≥ 3 classes: -1 becomes class 0, +1 class 1 (their
        names kept). A dataset of K classes stays as it is when count <= K."""
        if count <= len(self._class_names):
            return self
        if not 3 <= count <= MAX_CLASSES:
            raise ValueError(f"a dataset has 2 … {MAX_CLASSES} classes, not {count}")
        names = list(self._class_names)
        labels = self._labels
        if len(names) == 2:
            labels = np.where(labels > 0, 1, 0).astype(np.int8)
        names += list(_class_texts(count)[len(names) :])
        return Dataset(self._points, labels, names=self._names, class_names=names)

    @property
    def arrays(self) -> tuple[NDArray[Any], ...]:
        """The arrays this dataset holds (points, labels, the conflicting pairs once found),
        for counting memory."""
        found = () if self._conflicts is None else (self._conflicts,)
        return (self._points, self._labels, *found)

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
            and self._class_names == other._class_names
            and np.array_equal(self._points, other._points)
            and np.array_equal(self._labels, other._labels)
        )

    __hash__ = None  # type: ignore[assignment]  # equal datasets need not be the same object

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{name}: {self.count(label)}"
            for label, name in zip(self.classes[::-1], self._class_names[::-1], strict=True)
        )
        return f"Dataset(n={len(self)}, d={self.dimension}, {counts})"

    def count(self, label: int) -> int:
        """How many points carry `label`."""
        return int(np.count_nonzero(self._labels == label))

    def conflicting_pairs(self) -> list[tuple[int, int]]:
        """Pairs (i, j), i < j, of points at the same place with different labels, sorted.

        Such data can never be separated, whatever the rule. Computed once per dataset
        (O(n log n)); an edit derives its child's in O(n).
        """
        if self._conflicts is None:
            self._conflicts = self._find_conflicts()
        return [(int(i), int(j)) for i, j in self._conflicts.tolist()]

    def first_conflict(self) -> tuple[int, int] | None:
        """The first of `conflicting_pairs` (None: there are none), without listing them all."""
        if self._conflicts is None:
            self._conflicts = self._find_conflicts()
        if not len(self._conflicts):
            return None
        i, j = self._conflicts[0]
        return int(i), int(j)

    def _find_conflicts(self) -> NDArray[np.int64]:
        if len(self) < 2:
            return np.empty((0, 2), dtype=np.int64)
        order = np.lexsort(self._points.T[::-1])
        pts = self._points[order]
        same_as_next = np.all(pts[1:] == pts[:-1], axis=1)
        starts = np.flatnonzero(np.concatenate(([True], ~same_as_next)))
        ends = np.append(starts[1:], len(self))
        pairs: list[tuple[int, int]] = []
        for start, end in zip(starts[ends - starts > 1], ends[ends - starts > 1], strict=True):
            group = [int(i) for i in order[start:end]]
            pairs.extend(
                (min(a, b), max(a, b))
                for k, a in enumerate(group)
                for b in group[k + 1 :]
                if self._labels[a] != self._labels[b]
            )
        return _sorted_pairs(np.array(pairs, dtype=np.int64).reshape(-1, 2))

    def _partners(self, point: FloatArray, label: int, skip: int | None = None) -> NDArray[np.intp]:
        """Indices of the points at `point` with another label (except `skip`)."""
        same = _equal_rows(self._points, point)
        keep = self._labels[same] != label
        if skip is not None:
            keep &= same != skip
        result: NDArray[np.intp] = same[keep]
        return result

    # -- editing (each returns a new dataset) -------------------------------------------------

    def _valid_point(self, point: ArrayLike) -> FloatArray:
        try:
            p = np.array(point, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"a point must be numbers: {exc}") from None
        if p.shape[0] != self.dimension:
            raise ValueError(f"a point of this dataset has {self.dimension} coordinates")
        problem = _first_bad_coordinate(p.reshape(1, -1))
        if problem:
            raise ValueError(problem.replace("point 0 has", "the point has"))
        return p

    def _valid_label(self, label: int) -> int:
        classes = self.classes
        if (
            isinstance(label, bool)
            or not isinstance(label, int | np.integer)
            or label not in classes
        ):
            kinds = "-1 or +1" if len(classes) == 2 else f"a class 0 … {len(classes) - 1}"
            raise ValueError(f"label {short_repr(label)} is not {kinds}")
        return int(label)

    def with_point(self, point: ArrayLike, label: int, index: int | None = None) -> Dataset:
        """This dataset with one more point, appended or inserted before `index`."""
        p = self._valid_point(point)
        label = self._valid_label(label)
        at = len(self) if index is None else int(index)
        if not 0 <= at <= len(self):
            raise IndexError(f"cannot insert at {at}: the dataset has {len(self)} points")
        conflicts = None
        if self._conflicts is not None:
            old = self._conflicts + (self._conflicts >= at)
            partners = self._partners(p, label)
            partners = partners + (partners >= at)
            new = np.column_stack((np.minimum(partners, at), np.maximum(partners, at))).astype(
                np.int64
            )
            conflicts = _sorted_pairs(np.concatenate((old, new)))
        return self._child(
            np.insert(self._points, at, p, axis=0),
            np.insert(self._labels, at, np.int8(label)),
            conflicts,
        )

    def without(self, indices: int | Iterable[int]) -> Dataset:
        """This dataset without the points at `indices`."""
        idx = [indices] if isinstance(indices, int | np.integer) else list(indices)
        self._check_indices(idx)
        removed = np.unique(np.asarray(idx, dtype=np.int64))
        conflicts = None
        if self._conflicts is not None:
            pairs = self._conflicts
            hit = np.isin(pairs, removed).any(axis=1)
            pairs = pairs[~hit]
            conflicts = pairs - np.searchsorted(removed, pairs)  # shift past removed rows
        return self._child(
            np.delete(self._points, removed, axis=0), np.delete(self._labels, removed), conflicts
        )

    def moved(self, index: int, point: ArrayLike) -> Dataset:
        """This dataset with point `index` at a new place."""
        self._check_indices([index])
        p = self._valid_point(point)
        pts = self._points.copy()
        pts[index] = p
        conflicts = None
        if self._conflicts is not None:
            conflicts = self._rewire(index, self._partners(p, int(self._labels[index]), index))
        return self._child(pts, self._labels, conflicts)

    def relabelled(self, index: int, label: int) -> Dataset:
        """This dataset with point `index` given `label`."""
        self._check_indices([index])
        label = self._valid_label(label)
        lab = self._labels.copy()
        lab[index] = label
        conflicts = None
        if self._conflicts is not None:
            conflicts = self._rewire(index, self._partners(self._points[index], label, index))
        return self._child(self._points, lab, conflicts)

    def _rewire(self, index: int, partners: NDArray[Any]) -> NDArray[np.int64]:
        """This dataset's conflicts with those of point `index` replaced by (index, partners)."""
        assert self._conflicts is not None
        kept = self._conflicts[~(self._conflicts == index).any(axis=1)]
        new = np.column_stack((np.minimum(partners, index), np.maximum(partners, index)))
        return _sorted_pairs(np.concatenate((kept, new.astype(np.int64))))

    def _check_indices(self, indices: Iterable[int]) -> None:
        for i in indices:
            if not 0 <= i < len(self):
                raise IndexError(f"no point {i}: the dataset has {len(self)} points")

    # -- writing ----------------------------------------------------------------------------

    def to_csv(self) -> str:
        """CSV text: a header `x1,...,label`, then one row per point (repr-exact floats),
        labels −1/+1, or 0 … K−1 for K ≥ 3 classes (their names are not kept: JSON keeps them).

        Written `CHUNK_ROWS` rows at a time (see `json_text`)."""
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow([*self._names, "label"])
        pieces = [out.getvalue()]
        label_format = "+d" if len(self.classes) == 2 else "d"
        for start in range(0, len(self), CHUNK_ROWS):
            points = self._points[start : start + CHUNK_ROWS].tolist()
            labels = self._labels[start : start + CHUNK_ROWS].tolist()
            # Floats and ±1 never need quoting: the rows are joined directly.
            pieces.append(
                "".join(
                    f"{','.join(map(repr, point))},{label:{label_format}}\n"
                    for point, label in zip(points, labels, strict=True)
                )
            )
        return "".join(pieces)

    def to_json(self) -> str:
        """JSON text: {"names": [...], "points": [[...], ...], "labels": [...]}, and for K ≥ 3
        classes "class_names" (the labels are then the classes 0 … K−1)."""
        document = {"names": list(self._names), "points": self._points, "labels": self._labels}
        if len(self.classes) > 2:
            document["class_names"] = list(self.class_names)
        return json_text(document)


CHUNK_ROWS = 50_000
"""Rows converted to text at a time: `tolist()` of a million rows in one go holds the GIL
for most of a second, and a save runs on a worker while the window must keep painting."""


def json_text(document: dict[str, Any]) -> str:
    """`json.dumps(document, indent=1, allow_nan=False)` with NumPy arrays among the values
    as their lists: the same text, with the arrays written `CHUNK_ROWS` rows at a time, so
    that other threads run between chunks."""
    if not document:
        return "{}"
    pieces = ["{"]
    for k, (key, value) in enumerate(document.items()):
        pieces.append(f"{',' if k else ''}\n {json.dumps(key)}: ")
        if isinstance(value, np.ndarray):
            pieces.extend(_json_array(value))
        else:  # a value nested one level deeper: each of its lines one space further in
            pieces.append(json.dumps(value, indent=1, allow_nan=False).replace("\n", "\n "))
    pieces.append("\n}")
    return "".join(pieces)


def _json_array(array: NDArray[Any]) -> Iterator[str]:
    """The pieces of a 1-D or 2-D numeric array's JSON as the value of a top-level key
    (indent 1): each element on a line of its own two spaces in, a row's numbers three."""
    if array.ndim not in (1, 2) or array.dtype.kind not in "iuf":
        raise TypeError(f"only 1-D or 2-D arrays of numbers are written; got {array.dtype}")
    if (
        array.dtype.kind == "f"
        and array.size
        and not (math.isfinite(float(array.max())) and math.isfinite(float(array.min())))
    ):
        raise ValueError("Out of range float values are not JSON compliant")  # as json
    if array.shape[0] == 0:
        yield "[]"
        return
    cell, close = "\n   ", "\n  ]"

    def row(values: list[Any]) -> str:
        return f"[{cell}{(',' + cell).join(map(repr, values))}{close}" if values else "[]"

    element = row if array.ndim == 2 else repr
    yield "["
    for start in range(0, array.shape[0], CHUNK_ROWS):
        lines = map(element, array[start : start + CHUNK_ROWS].tolist())
        yield f"{',' if start else ''}\n  " + ",\n  ".join(lines)
    yield "\n ]"


def _sorted_pairs(pairs: NDArray[np.int64]) -> NDArray[np.int64]:
    pairs = pairs.reshape(-1, 2).astype(np.int64)
    return _read_only(pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))])


# -- quoting values in messages -----------------------------------------------------------------


def one_line(text: str) -> str:
    return " ".join(text.split())


SHORT = 40
"""About how many characters of a value an error message quotes."""


def short_repr(value: object, limit: int = SHORT) -> str:
    """`repr(value)` on one line and cut to about `limit` characters ("…" says where): an
    error message quoting a 100 KB field must not be a 100 KB line."""
    if isinstance(value, str):
        text = repr(value[:limit])
        return text if len(value) <= limit else f"{text[:-1]}…{text[-1]}"
    try:
        text = one_line(repr(value))
    except ValueError:  # an int of more than 4300 digits
        return "a number too long to show"
    return text if len(text) <= limit else text[:limit] + "…"
