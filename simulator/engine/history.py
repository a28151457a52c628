"""What a run recorded: enough to replay any trial, at a cost per update and per checkpoint.

A run is deterministic given its settings and the data each stretch of trials ran on (the
segments), so the history does not store trials. It keeps

- the segments (the data, and where each stretch starts);
- the trial number of every mistake (8 bytes per mistake);
- the mean squared error at the end of every epoch (8 bytes per epoch);
- checkpoints: the learner's whole live state every so many updates or trials (a copy of
  the run's live record; its states are immutable, so a copy shares them);
- the events: convergence and cycles per segment, and the one divergence.

`Simulation` answers `trial(t)`, `seek(t)` and the other queries by restoring the
checkpoint at or before the trial and replaying from it with its fast run code.

Truncating (when stepping on from a rewound state replaces the future) copies what stays
into new arrays, so an array handed out earlier by a query never changes under its holder.
"""

from __future__ import annotations

import bisect
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.dataset import Dataset
from simulator.engine.features import ONE

__all__ = ["Buffer", "History", "Segment"]

FloatArray = NDArray[np.float64]


class Buffer:
    """A growable NumPy array of rows: appends at amortised O(1), views never rewritten.

    It grows by a quarter, not double, so that its spare capacity stays small.
    """

    __slots__ = ("_data", "_size")

    def __init__(self, dtype: Any, width: int | None = None, capacity: int = 64) -> None:
        row_bytes = np.dtype(dtype).itemsize * (width or 1)
        capacity = max(2, min(capacity, 65536 // row_bytes))  # wide rows: start small
        shape = (capacity,) if width is None else (capacity, width)
        self._data: NDArray[Any] = np.empty(shape, dtype=dtype)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def _reserve(self, extra: int) -> None:
        need = self._size + extra
        if need > self._data.shape[0]:
            capacity = max(need, self._data.shape[0] * 5 // 4 + 2)
            grown = np.empty((capacity, *self._data.shape[1:]), dtype=self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown

    def append(self, value: Any) -> None:
        self._reserve(1)
        self._data[self._size] = value
        self._size += 1

    def extend(self, values: NDArray[Any]) -> None:
        k = values.shape[0]
        if k:
            self._reserve(k)
            self._data[self._size : self._size + k] = values
            self._size += k

    def truncate(self, size: int) -> None:
        """Keep the first `size` rows, in a new array (views handed out stay as they were)."""
        if size < self._size:
            kept = np.empty((max(size * 5 // 4, 2), *self._data.shape[1:]), self._data.dtype)
            kept[:size] = self._data[:size]
            self._data = kept
            self._size = size

    @property
    def view(self) -> NDArray[Any]:
        """The rows so far, read-only."""
        rows = self._data[: self._size]
        rows.flags.writeable = False
        return rows

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)


DIGITS_CACHED = 4096
"""Rows of a segment whose exact decimals are kept (a learner's shadow asks for the rows it
updates on; classroom data are all kept, a large data set costs a few MB at most)."""


def _row_nbytes(row: tuple[tuple[int, int, int], ...]) -> int:
    """The memory a row of exact decimals holds (small ints and the bias's 1 are shared,
    not held)."""
    total = sys.getsizeof(row)
    for entry in row:
        if entry is not ONE:
            total += sys.getsizeof(entry)
            total += sum(sys.getsizeof(v) for v in entry if not -5 <= v <= 256)
    return total


@dataclass(eq=False)
class Segment:
    """A stretch of trials over one dataset; it starts after `start` trials, at an epoch start.

    `X` is the feature matrix (row-major, read-only), `y` the labels. The events found on
    these data: `converged_at` (the trial that completed an epoch without update),
    `cycle_found_at` and `cycle_period` (w at an epoch start repeated one `cycle_period`
    epochs earlier); `rest_at`: the end of an epoch from which every `rest_period` epochs
    on these data repeat the `rest_period` before them bit for bit, with `rest_mistakes`
    mistakes and `rest_updates` updates (a converged mistake-driven rule, period 1 and no
    mistake; a cycle; Adaline at a fixed point of its floats).
    """

    start: int
    first_epoch: int
    dataset: Dataset
    X: FloatArray
    y: NDArray[np.int8]
    converged_at: int | None = None
    cycle_found_at: int | None = None
    cycle_period: int | None = None
    rest_at: int | None = None
    rest_period: int = 1
    rest_mistakes: int = 0
    rest_updates: int = 0
    largest: float = math.nan  # max |x_j| over all rows and features (nan: find it)
    exact_row: Callable[[int], tuple[tuple[int, int, int], ...]] | None = None
    # The learner's state when the run entered these data, and the segment before with
    # its update counts then: what the exact state at this start is made from (verdicts).
    points: NDArray[np.intp] | None = None  # the point of each row (rows made of points)
    start_state: Any = None
    previous: tuple[Segment, NDArray[np.int64]] | None = None
    cycle_exact_only: bool = field(init=False, default=False)  # found by exact states only
    exact_base: Any = field(init=False, default=None)
    exact_known: bool = field(init=False, default=False)
    n: int = field(init=False)  # the number of rows
    _digits: dict[int, tuple[tuple[int, int, int], ...]] = field(init=False, default_factory=dict)
    digits_nbytes: int = field(init=False, default=0)

    def digits(self, i: int) -> tuple[tuple[int, int, int], ...]:
        """Row i's feature vector in exact decimals (the data as written): cached for the
        first `DIGITS_CACHED` rows asked (their bytes in `digits_nbytes`), then made anew."""
        row = self._digits.get(i)
        if row is None:
            assert self.exact_row is not None
            row = self.exact_row(i)
            if len(self._digits) < DIGITS_CACHED:
                self._digits[i] = row
                self.digits_nbytes += _row_nbytes(row) + (sys.getsizeof(i) if i > 256 else 0)
        return row

    @property
    def cache_nbytes(self) -> int:
        """The memory of the cached exact rows, with the cache's own table."""
        table = int(sys.getsizeof(self._digits)) if self._digits else 0
        return self.digits_nbytes + table

    def __post_init__(self) -> None:
        self.n = int(self.y.shape[0])
        if math.isnan(self.largest):  # two whole-array reductions, no copy of X
            self.largest = max(float(self.X.max()), -float(self.X.min())) if self.X.size else 0.0

    def epoch_of(self, t: int) -> int:
        """The epoch of trial t (start < t)."""
        return self.first_epoch + (t - self.start - 1) // self.n

    def position(self, t: int) -> tuple[int, int]:
        """(epoch, position in the epoch) of the trial after t."""
        k = t - self.start
        return self.first_epoch + k // self.n, k % self.n


class History:
    """The record of a run (see the module docstring). `length` trials are recorded."""

    def __init__(self) -> None:
        self.length = 0
        self.segments: list[Segment] = []
        self._starts: list[int] = []  # segment starts, for bisect
        self._mistakes = Buffer(np.int64)
        self._losses = Buffer(np.float64)
        self._checkpoint_trials = Buffer(np.int64)
        self._checkpoints: list[Any] = []
        self._checkpoint_bytes = 0
        self.diverged_at: int | None = None
        self.divergence_reason: str | None = None

    # -- recording -------------------------------------------------------------------------

    def record_mistakes(self, trials: NDArray[np.int64]) -> None:
        self._mistakes.extend(trials)

    def record_mistake(self, trial: int) -> None:
        self._mistakes.append(trial)

    def record_loss(self, loss: float) -> None:
        self._losses.append(loss)

    def repeat_epochs(self, segment: Segment, t: int, periods: int) -> None:
        """Record `periods` more periods of `segment.rest_period` epochs after trial t (an
        epoch end at or after `segment.rest_at`), each the same as the period that ended at
        t: its mistakes shifted by whole periods, its epochs' losses again."""
        period = segment.rest_period
        length = period * segment.n
        mistakes = self._mistakes.view
        last = mistakes[self.mistakes_through(t - length) : self.mistakes_through(t)]
        if last.size:
            shifts = np.arange(1, periods + 1, dtype=np.int64) * length
            self._mistakes.extend(np.add.outer(shifts, last).ravel())
        self._losses.extend(np.tile(self._losses.view[-period:], periods))

    def record_divergence(self, trial: int, reason: str) -> None:
        self.diverged_at, self.divergence_reason = trial, reason

    def add_checkpoint(self, live: Any) -> None:
        """A checkpoint: a copy of the run's live record (with `trials` and `nbytes`)."""
        if self._checkpoints and self._checkpoints[-1].trials == live.trials:
            return  # one per trial is enough
        self._checkpoint_trials.append(live.trials)
        self._checkpoints.append(live)
        self._checkpoint_bytes += live.nbytes

    def add_segment(self, segment: Segment) -> None:
        self.segments.append(segment)
        self._starts.append(segment.start)

    # -- queries ---------------------------------------------------------------------------

    @property
    def mistakes(self) -> NDArray[np.int64]:
        """The trial numbers of the recorded mistakes, ascending (read-only)."""
        return self._mistakes.view

    @property
    def losses(self) -> FloatArray:
        """The mean squared error at the end of each recorded epoch (read-only)."""
        return self._losses.view

    def mistakes_through(self, t: int) -> int:
        """How many recorded mistakes happened at trials 1..t."""
        return int(np.searchsorted(self._mistakes.view, t, side="right"))

    @property
    def last_checkpoint(self) -> Any:
        return self._checkpoints[-1]

    def checkpoint_at_or_before(self, t: int) -> Any:
        """The live record of the latest checkpoint at a trial <= t (the caller copies it)."""
        k = int(np.searchsorted(self._checkpoint_trials.view, t, side="right")) - 1
        if k < 0:
            raise IndexError(f"no checkpoint at or before trial {t}")
        return self._checkpoints[k]

    def _segment_index(self, t: int, *, inclusive: bool) -> int:
        find = bisect.bisect_right if inclusive else bisect.bisect_left
        return find(self._starts, t) - 1

    def segment_of_trial(self, t: int) -> Segment:
        """The segment holding trial t (1 <= t <= length)."""
        k = self._segment_index(t, inclusive=False)
        if k < 0:
            raise IndexError(t)
        return self.segments[k]

    def segment_continuing_from(self, t: int) -> Segment | None:
        """The segment in which trial t + 1 would run, if the data had not changed."""
        k = self._segment_index(t, inclusive=True)
        return self.segments[k] if k >= 0 else None

    def segment_index_continuing_from(self, t: int) -> int:
        """The index of `segment_continuing_from(t)` (-1: none)."""
        return self._segment_index(t, inclusive=True)

    def epoch_of(self, t: int) -> int:
        """The epoch of trial t (0 for t = 0)."""
        return self.segment_of_trial(t).epoch_of(t) if t else 0

    def epochs_completed(self, t: int) -> int:
        """How many epochs had ended after trial t (one cut short by new data counts, from
        the moment the new data's segment opens)."""
        segment = self.segment_continuing_from(t)
        if segment is None:
            return 0
        return segment.first_epoch - 1 + (t - segment.start) // segment.n

    # -- forgetting the future ---------------------------------------------------------------

    def truncate(self, t: int) -> None:
        """Forget everything recorded after trial t (it was computed for another past)."""
        if self.length > t:
            self.length = t
            self._mistakes.truncate(self.mistakes_through(t))
            kept = int(np.searchsorted(self._checkpoint_trials.view, t, side="right"))
            self._checkpoint_trials.truncate(kept)
            self._checkpoint_bytes -= sum(c.nbytes for c in self._checkpoints[kept:])
            del self._checkpoints[kept:]
            if self.diverged_at is not None and self.diverged_at > t:
                self.diverged_at = self.divergence_reason = None
        while self.segments and self.segments[-1].start > t:
            self.segments.pop()
            self._starts.pop()
        for segment in self.segments[-1:]:
            if segment.converged_at is not None and segment.converged_at > t:
                segment.converged_at = None
            if segment.cycle_found_at is not None and segment.cycle_found_at > t:
                segment.cycle_found_at = segment.cycle_period = None
            if segment.rest_at is not None and segment.rest_at > t:
                segment.rest_at, segment.rest_period = None, 1
        self._losses.truncate(self.epochs_completed(t))

    def drop_last_segment(self) -> None:
        """Forget the last segment (no trial ran on it) and what opening it recorded."""
        start = self.segments.pop().start
        self._starts.pop()
        self._losses.truncate(self.epochs_completed(start))

    # -- memory ----------------------------------------------------------------------------

    def nbytes(self, current: Dataset | None = None) -> int:
        """Bytes held: the buffers, and for each past dataset (every one but `current`)
        its points, labels and conflicting pairs and the segment's features and labels,
        each block of memory counted once (the features may be the points themselves)."""
        buffers = (self._mistakes, self._losses, self._checkpoint_trials)
        total = sum(b.nbytes for b in buffers) + self._checkpoint_bytes + 8 * len(self._checkpoints)
        counted: set[int] = set()
        total += sum(segment.cache_nbytes for segment in self.segments)
        total += sum(s.previous[1].nbytes for s in self.segments if s.previous is not None)
        total += sum(int(s.exact_base.nbytes) for s in self.segments if s.exact_base is not None)
        for segment in self.segments:
            if segment.dataset is current:
                continue
            for array in (*segment.dataset.arrays, segment.X, segment.y):
                total += _owned_nbytes(array, counted)
        return total


def _owned_nbytes(array: NDArray[Any], counted: set[int]) -> int:
    """The bytes of the memory `array` lives in (its base's, for a view), unless the `id`
    of that memory is in `counted` already (then 0); adds it there."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if id(owner) in counted:
        return 0
    counted.add(id(owner))
    return int(owner.nbytes)
