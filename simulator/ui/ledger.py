"""The trial ledger: every recorded trial as a row, for reading a run back and for handouts.

A virtual table: the model knows only how many rows there are (the history's length, or
its mistakes with "mistakes only"); a row's text is made when Qt asks for it, from records
fetched a block at a time by one replay (`Trace.reader`) and cached, so 10⁶ rows cost no
more to open than 40. Rows after the current trial (the recorded future, after a rewind)
are grey; the current trial's row is bold. Clicking a row (or Enter on it) asks to seek
there. Ctrl+C and the context menu copy the selected rows as tab-separated text or CSV,
with the header, as shown (at most `COPY_LIMIT` rows: each is replayed).

Columns: trial, epoch, point (#1…#n, numbered from 1 as the strip and the plot do), x (the
feature vector, bias first), y, s = w·x − θ, the verdict (mistake/correct; "tie" when s was
exactly 0, decided by the tie rule), Δw and w after the trial. Numbers are written by the
one formatter (`presentation.format`), as the panel and the strip write them.

Columns are as wide as the rows in sight need (they only grow during a run, so the table
does not jump). What matters most stays in sight on a narrow screen: when the columns do
not fit, epoch, x, s, y and point give way, in that order (the summary's tooltip says
which), and if trial, verdict, Δw and w still do not fit, the vectors wrap onto as many
lines as they need (at most one number a line: column vectors). In
presentation mode the type is `style.PRESENTATION_TICK_PX` (20 px) or more.
"""

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
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QContextMenuEvent,
    QFont,
    QFontMetrics,
    QKeySequence,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simulator.engine import Dataset, Trial
from simulator.engine.numbers import format_signed_label
from simulator.presentation.explain import label_text
from simulator.presentation.frame import Frame, format_number
from simulator.presentation.trace import Trace, TrialReader
from simulator.ui import style

__all__ = [
    "COLUMNS",
    "COPY_LIMIT",
    "RUNNING_EVERY",
    "Ledger",
    "LedgerModel",
    "LedgerView",
    "row_texts",
]

COLUMNS = ("trial", "epoch", "point", "x", "y", "s", "verdict", "Δw", "w")
_GIVE_WAY = (1, 3, 5, 4, 2)  # epoch, x, s, y, point: hidden in this order when narrow
_VECTORS = (3, 7, 8)  # x, Δw, w: wrapped onto two lines when even that is not enough
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
        self.bold_font = QFont()  # the current trial's row: the view's type, bold
        self.bold_font.setBold(True)
        self.fetches = 0  # replays made, for tests and benchmarks

    def set_dataset(self, dataset: Dataset) -> None:
        """Write labels as the strip does for these data (±1, or a class with its name)."""
        if dataset is not self._dataset:
            self._dataset = dataset
            self._label = lambda y: label_text(y, dataset)
            self._cache.clear()

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
                return COLUMNS[section]
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


class LedgerView(QTableView):
    """The table; clicking a row asks to seek to its trial."""

    seek_requested = Signal(int)
    message = Signal(str)

    def __init__(self, model: LedgerModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ledgerView")
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        rows = self.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self._widths = [0] * len(COLUMNS)  # what the rows seen so far need, per column
        self._widths_key: object = None
        self.lines = 1  # the lines of a row: the vectors wrap when the ledger is narrow
        self.hidden_columns: tuple[str, ...] = ()
        self.fit_columns()
        self.clicked.connect(self._on_activated)
        self.activated.connect(self._on_activated)
        self.copy_action = QAction("Copy rows (tab-separated)", self)
        self.copy_action.setShortcut(QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.copy_action.triggered.connect(lambda: self.copy_rows("\t"))
        self.addAction(self.copy_action)
        self.copy_csv_action = QAction("Copy rows as CSV", self)
        self.copy_csv_action.triggered.connect(lambda: self.copy_rows(","))

    def ledger_model(self) -> LedgerModel:
        model = self.model()
        assert isinstance(model, LedgerModel)
        return model

    def _on_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.seek_requested.emit(self.ledger_model().trial_of(index.row()))

    def selected_rows(self) -> list[int]:
        return sorted({index.row() for index in self.selectionModel().selectedRows()})

    def copy_rows(self, separator: str = "\t") -> str:
        """Put the selected rows (with the header) on the clipboard; return the text."""
        rows = self.selected_rows()
        if not rows:
            self.message.emit("Select rows of the ledger to copy them.")
            return ""
        if len(rows) > COPY_LIMIT:
            self.message.emit(f"Copied the first {COPY_LIMIT:,} of {len(rows):,} selected rows.")
            rows = rows[:COPY_LIMIT]
        text = self.ledger_model().table_text(rows, separator)
        QApplication.clipboard().setText(text)
        return text

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        menu.addAction(self.copy_action)
        menu.addAction(self.copy_csv_action)
        menu.exec(event.globalPos())

    def follow(self, trial: int) -> None:
        """Keep the row of `trial` in sight."""
        row = self.ledger_model().row_of(trial)
        if row >= 0:
            self.scrollTo(self.model().index(row, 0), QAbstractItemView.ScrollHint.EnsureVisible)

    # -- column widths -------------------------------------------------------------------------

    def set_type(self, font: QFont) -> None:
        """The table's and its header's type; rows and columns measured again for it."""
        self.setFont(font)
        self.horizontalHeader().setFont(font)
        bold = QFont(font)
        bold.setBold(True)
        self.ledger_model().bold_font = bold
        self._widths = [0] * len(COLUMNS)
        self.fit_columns(self._widths_key)

    def rows_in_sight(self) -> list[int]:
        """The rows the viewport shows (and the current trial's, which may be bold)."""
        model = self.ledger_model()
        count = model.rowCount()
        if not count:
            return []
        first = self.rowAt(0)
        last = self.rowAt(self.viewport().height() - 1)
        first = 0 if first < 0 else first
        last = count - 1 if last < 0 else last
        rows = set(range(first, min(last, first + 200) + 1))
        current = model.row_of(model.current_trial)
        if 0 <= current < count:
            rows.add(current)
        return sorted(rows)

    def fit_columns(self, key: object = None) -> None:
        """Size the columns for the rows in sight (growing only while `key`, the run, is the
        same) and keep trial, verdict, Δw and w in sight (see the module docstring)."""
        if key != self._widths_key:
            self._widths_key = key
            self._widths = [0] * len(COLUMNS)
        bold = QFont(self.font())
        bold.setBold(True)  # the current row is bold: measure as the widest
        metrics = QFontMetrics(bold)
        header = QFontMetrics(self.horizontalHeader().font())
        pad = 12  # the cell's margins, and a little air
        texts = [t for t in map(self.ledger_model().texts, self.rows_in_sight()) if t]
        for column, name in enumerate(COLUMNS):
            need = max(
                [header.horizontalAdvance(name)]
                + [metrics.horizontalAdvance(row[column]) for row in texts]
            )
            self._widths[column] = max(self._widths[column], need + pad)
        widths = list(self._widths)
        room = self.viewport().width() or self.width()
        shown = [True] * len(COLUMNS)
        for column in _GIVE_WAY:
            if sum(w for w, on in zip(widths, shown, strict=True) if on) <= room:
                break
            shown[column] = False
        lines = 1
        longest = max((len(row[c].split(" ")) for row in texts for c in _VECTORS), default=1)
        while sum(w for w, on in zip(widths, shown, strict=True) if on) > room and lines < longest:
            lines += 1  # the vectors on one more line each: as column vectors at most
            for column in _VECTORS:
                wrapped = [wrapped_width(row[column], metrics, lines) for row in texts]
                need = max([header.horizontalAdvance(COLUMNS[column]), *wrapped]) + pad
                widths[column] = min(self._widths[column], need)
        self._set_lines(lines)
        for column, width in enumerate(widths):
            self.setColumnHidden(column, not shown[column])
            self.setColumnWidth(column, width)
        self.hidden_columns = tuple(COLUMNS[c] for c in range(len(COLUMNS)) if not shown[c])

    def _set_lines(self, lines: int) -> None:
        self.lines = lines
        self.setWordWrap(lines > 1)
        self.verticalHeader().setDefaultSectionSize(lines * self.fontMetrics().height() + 6)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns(self._widths_key)


class Ledger(QWidget):
    """The ledger with its "mistakes only" filter."""

    seek_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.mistakes_only = QCheckBox("Mistakes only", objectName="mistakesOnlyCheck")
        self.mistakes_only.setToolTip("Show only the trials that were mistakes")
        self.summary = QLabel(objectName="ledgerSummary")
        # Never wider than the room it is given: a long summary must not widen the window.
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        bar.addWidget(self.mistakes_only)
        bar.addWidget(self.summary, 1)
        layout.addLayout(bar)
        self.model = LedgerModel(self)
        self.view = LedgerView(self.model, self)
        layout.addWidget(self.view, 1)
        self.view.seek_requested.connect(self._on_seek)
        self.mistakes_only.toggled.connect(self._on_filter)
        self._asked: int | None = None
        self._trials = 0
        self._frame: Frame | None = None
        self._skipped = 0
        self._stale = False

    def _on_seek(self, trial: int) -> None:
        self._asked = trial
        self.seek_requested.emit(trial)

    def _on_filter(self, on: bool) -> None:
        self.model.set_mistakes_only(on)
        self.view.follow(self._trials)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale and self._frame is not None:
            self._stale = False
            self.show_frame(self._frame)
        self.follow_current()  # the run may have moved while the tab was hidden

    def follow_current(self) -> None:
        if self.isVisible():
            self.view.follow(self._trials)

    def catch_up(self) -> None:
        """Show the latest frame and keep its trial in sight (when a run stops)."""
        if self._frame is not None:
            self.show_frame(self._frame)
        self.follow_current()

    def show_frame(self, frame: Frame, running: bool = False) -> None:
        """Paint `frame` (when shown; a hidden ledger takes the latest frame when it is
        shown); keep the current trial in sight unless a run is going. During a run the rows
        come too fast to read: the ledger takes every `RUNNING_EVERY`-th frame
        only (a table repaints whole when rows are added) and does not scroll (each new
        screenful would cost a replay); it catches up when the run stops (`catch_up`)."""
        self._frame = frame
        if not self.isVisible():
            self._stale = True  # taken when shown
            return
        if running:
            self._skipped += 1
            if self._skipped < RUNNING_EVERY:
                return
        self._skipped = 0
        trace = frame.trace
        moved = trace.trials != self._trials
        self._trials = trace.trials
        self.model.set_dataset(frame.dataset)
        self.model.show_trace(trace)
        if moved and not running and self._asked != trace.trials and self.isVisible():
            self.view.follow(trace.trials)  # the run moved on its own: keep it in sight
        self._asked = None
        if not running:  # measuring the rows in sight may replay: not at every frame of a run
            self.view.fit_columns(trace.key)
        summary = f"{trace.length:,} trials recorded, {len(trace.mistake_trials):,} mistakes"
        hidden = self.view.hidden_columns
        self.summary.setText(summary)
        self.summary.setToolTip(
            f"Hidden for want of room: {', '.join(hidden)} (widen the ledger to see them)"
            if hidden
            else ""
        )

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type: `style.PRESENTATION_TICK_PX` for the rows, the header and the
        bar above them."""
        font = QFont(self.font())
        if on:
            font.setPixelSize(style.PRESENTATION_TICK_PX)
        for widget in (self.mistakes_only, self.summary):
            widget.setFont(font)
        self.view.set_type(font)
        self.view.follow(self._trials)
