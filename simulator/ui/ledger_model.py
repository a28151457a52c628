"""The ledger's model: the rows of a run's trials made when Qt asks for them, from records
fetched a block at a time by one replay and cached (see `simulator.ui.ledger`), and what
a row says (`row_texts`)."""

from __future__ import annotations

import csv
import io
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
)

from simulator.engine import Dataset, Trial
from simulator.engine.numbers import format_signed_label
from simulator.presentation.explain import label_text
from simulator.presentation.frame import format_number
from simulator.presentation.trace import Trace, TrialReader

__all__ = [
    "COLUMNS",
    "COPY_LIMIT",
    "GIVE_WAY",
    "RUNNING_EVERY",
    "VECTOR_COLUMNS",
    "LedgerModel",
    "row_texts",
    "wrapped_width",
]

COLUMNS = ("trial", "epoch", "point", "x", "y", "s", "verdict", "Δw", "w")
GIVE_WAY = (1, 3, 5, 4, 2)  # epoch, x, s, y, point: hidden in this order when narrow
VECTOR_COLUMNS = (3, 7, 8)  # x, Δw, w: wrapped onto two lines when even that is not enough
COPY_LIMIT = 20_000
RUNNING_EVERY = 8  # frames: how often a visible ledger takes a frame during a run
_BLOCK = 64  # rows fetched by one replay
_CACHED_BLOCKS = 64
_FUTURE_BRUSH = QBrush(QColor("#9A9A9A"))
_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole.value)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
_FONT = int(Qt.ItemDataRole.FontRole.value)
_ROLES = frozenset(
    (_DISPLAY, _ALIGNMENT, _FOREGROUND, _FONT, int(Qt.ItemDataRole.ToolTipRole.value))
)
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
_LEFT = int((Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter).value)

_TIPS = (
    "Trial number t (1-based)",
    "Epoch: one pass over the data",
    "The point shown, numbered from 1 as in the notes",
    "Feature vector x (bias first when the bias is on)",
    "Label y",
    "Score s = w·x − θ, with w before the trial",
    "The learner's verdict; 'tie' when s was exactly 0 (decided by the tie rule)",
    "The change of w on this trial",
    "w after the trial",
)


def _vector(values: tuple[float, ...]) -> str:
    """A vector as text; beyond 12 entries the first 8, "…", and the last 2 (with how many
    there are), so that a row of high-dimensional data stays readable and quick."""
    if len(values) > 12:
        head = ", ".join(format_number(v) for v in values[:8])
        tail = ", ".join(format_number(v) for v in values[-2:])
        return f"({head}, … {len(values) - 10} more …, {tail})"
    return "(" + ", ".join(format_number(v) for v in values) + ")"


def wrapped_width(text: str, metrics: QFontMetrics, lines: int) -> int:
    """The least width that holds `text` on `lines` lines, broken at spaces (Qt's greedy
    wrapping then needs no more lines than that)."""
    words = text.split(" ")
    if lines <= 1 or len(words) < 2:
        return metrics.horizontalAdvance(text)
    # best[k][j]: the least widest line for the first j words on k lines
    n = len(words)
    width = [
        [metrics.horizontalAdvance(" ".join(words[i:j])) for j in range(n + 1)] for i in range(n)
    ]
    best = [width[0][j] if j else 0 for j in range(n + 1)]
    for _ in range(2, lines + 1):
        best = [
            min([best[j]] + [max(best[i], width[i][j]) for i in range(1, j)]) if j else 0
            for j in range(n + 1)
        ]
    return best[n]


def row_texts(trial: Trial, label: Callable[[int], str] = format_signed_label) -> tuple[str, ...]:
    """The ledger's cells for one trial; `label` writes its class (±1, or a class's name)."""
    if trial.score == 0.0:
        verdict = "tie: mistake" if trial.mistake else "tie: correct"
    else:
        verdict = "mistake" if trial.mistake else "correct"
    delta = _vector(trial.delta) if trial.updated else "0"
    return (
        str(trial.number),
        str(trial.epoch),
        f"#{trial.index + 1}",
        _vector(trial.x),
        label(trial.y),
        format_number(trial.score),
        verdict,
        delta,
        _vector(trial.weights_after),
    )


class LedgerModel(QAbstractTableModel):
    """Rows of trials (all recorded, or the mistakes only), fetched in cached blocks."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._key: tuple[int, int] | None = None
        self._length = 0
        self._trials = 0
        self._mistakes: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._mistakes_only = False
        self._reader: TrialReader | None = None
        self._cache: OrderedDict[int, dict[int, tuple[str, ...]]] = OrderedDict()
        self._label: Callable[[int], str] = format_signed_label
        self._dataset: Dataset | None = None
        self._names = COLUMNS  # the header: "w" and "Δw" as the learner calls its weights
        self.bold_font = QFont()  # the current trial's row: the view's type, bold
        self.bold_font.setBold(True)
        self.fetches = 0  # replays made, for tests and benchmarks

    def set_dataset(self, dataset: Dataset) -> None:
        """Write labels as the strip does for these data (±1, or a class with its name)."""
        if dataset is not self._dataset:
            self._dataset = dataset
            self._label = lambda y: label_text(y, dataset)
            self._cache.clear()

    def set_weights_name(self, name: str) -> None:
        """Head the weights' columns as the learner names them (`Learner.weights_name`)."""
        names = (*COLUMNS[:7], f"Δ{name}", name)
        if names != self._names:
            self._names = names
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 7, 8)

    # -- what is shown -------------------------------------------------------------------------

    @property
    def mistakes_only(self) -> bool:
        return self._mistakes_only

    def set_mistakes_only(self, on: bool) -> None:
        if on != self._mistakes_only:
            self.beginResetModel()
            self._mistakes_only = on
            self._cache.clear()
            self.endResetModel()

    def show_trace(self, trace: Trace) -> None:
        """Follow the run: rows added as it grows; a new run or a replaced past resets."""
        length = trace.length
        mistakes = trace.mistake_trials
        rows_before = self.rowCount()
        reset = trace.key != self._key or length < self._length
        self._reader = trace.reader
        previous = self._trials
        self._trials = trace.trials
        if reset:
            self.beginResetModel()
            self._key, self._length, self._mistakes = trace.key, length, mistakes
            self._cache.clear()
            self.endResetModel()
            return
        rows_after = len(mistakes) if self._mistakes_only else length
        if rows_after > rows_before:
            self._cache.pop(rows_before // _BLOCK, None)  # it was fetched short of its end
            self.beginInsertRows(QModelIndex(), rows_before, rows_after - 1)
            self._length, self._mistakes = length, mistakes
            self.endInsertRows()
        else:
            self._length, self._mistakes = length, mistakes
        if previous != trace.trials and self.rowCount():
            roles = [Qt.ItemDataRole.FontRole, Qt.ItemDataRole.ForegroundRole]
            old, new = self.row_of(previous), self.row_of(trace.trials)
            if trace.trials == length and previous < trace.trials:
                # Running on: only the old current row lost its bold. Cell by cell, as
                # Qt repaints a range of cells by repainting the whole table.
                for column in range(len(COLUMNS)) if 0 <= old < self.rowCount() else ():
                    cell = self.index(old, column)
                    self.dataChanged.emit(cell, cell, roles)
            else:  # a seek: the bold row and the grey future moved
                low, high = sorted((old, new))
                self.dataChanged.emit(
                    self.index(max(0, low - 1), 0),
                    self.index(min(self.rowCount() - 1, high + 1), len(COLUMNS) - 1),
                    roles,
                )

    @property
    def current_trial(self) -> int:
        return self._trials

    def trial_of(self, row: int) -> int:
        """The trial number shown in `row`."""
        return int(self._mistakes[row]) if self._mistakes_only else row + 1

    def row_of(self, trial: int) -> int:
        """The row of `trial`, or (mistakes only) of the last mistake at or before it; -1 if
        there is none (trial 0)."""
        if self._mistakes_only:
            return int(np.searchsorted(self._mistakes, trial, side="right")) - 1
        return trial - 1

    # -- Qt's model interface ------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        return len(self._mistakes) if self._mistakes_only else self._length

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return self._names[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return _TIPS[section]
        return None

    def data(
        self,
        index: QModelIndex | QPersistentModelIndex,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> object:
        role = int(role)
        if role not in _ROLES or not index.isValid():
            return None  # the common case: Qt asks a dozen roles per cell per paint
        row, column = index.row(), index.column()
        if role == _DISPLAY:
            texts = self.texts(row)
            return texts[column] if texts is not None else None
        if role == _ALIGNMENT:
            return _LEFT if column == 6 else _RIGHT
        trial = self.trial_of(row) if 0 <= row < self.rowCount() else 0
        if role == _FOREGROUND:
            return _FUTURE_BRUSH if trial > self._trials else None
        if role == _FONT:
            return self.bold_font if trial == self._trials else None
        if trial > self._trials:  # the tooltip
            return "Recorded future: stepping on from the current trial replaces it"
        return None

    # -- records -------------------------------------------------------------------------------

    def texts(self, row: int) -> tuple[str, ...] | None:
        """The cells of `row`, fetching its block if needed (None if it cannot be read)."""
        if not 0 <= row < self.rowCount():
            return None
        block = row // _BLOCK
        cached = self._cache.get(block)
        if cached is None:
            cached = self._fetch(block)
            self._cache[block] = cached
            while len(self._cache) > _CACHED_BLOCKS:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(block)
        return cached.get(row)

    def _fetch(self, block: int) -> dict[int, tuple[str, ...]]:
        reader = self._reader
        if reader is None:
            return {}
        first_row = block * _BLOCK
        last_row = min(self.rowCount(), first_row + _BLOCK) - 1
        trials = [self.trial_of(r) for r in range(first_row, last_row + 1)]
        self.fetches += 1
        records: dict[int, Trial] = {}
        # One replay over the block's span; far-apart mistakes are read one run at a time.
        start = 0
        while start < len(trials):
            end = start
            while end + 1 < len(trials) and trials[end + 1] - trials[start] < 4 * _BLOCK:
                end += 1
            try:
                found = reader.records(trials[start], trials[end])
            except (IndexError, ValueError):  # the history changed under a stale model:
                found = []  # blank cells until the next frame resets the model
            for record in found:
                records[record.number] = record
            start = end + 1
        return {
            row: row_texts(records[t], self._label)
            for row, t in zip(range(first_row, last_row + 1), trials, strict=True)
            if t in records
        }

    def table_text(self, rows: list[int], separator: str) -> str:
        """The header and `rows` as text, cells split by `separator` ("\\t", or "," for CSV)."""
        out = io.StringIO()
        writer = csv.writer(out, delimiter=separator, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in rows:
            texts = self.texts(row)
            if texts is not None:
                writer.writerow(texts)
        return out.getvalue()
