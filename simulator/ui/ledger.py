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
one formatter (`simulator.engine.numbers`), as the panel and the strip write them.

Columns are as wide as the rows in sight need (they only grow during a run, so the table
does not jump). What matters most stays in sight on a narrow screen: when the columns do
not fit, epoch, x, s, y and point give way, in that order (the summary's tooltip says
which), and if trial, verdict, Δw and w still do not fit, the vectors wrap onto as many
lines as they need (at most one number a line: column vectors). In
presentation mode the type is `style.PRESENTATION_TICK_PX` (20 px) or more.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QAction,
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

from simulator.presentation.frame import Frame
from simulator.ui import style
from simulator.ui.ledger_model import (
    COLUMNS,
    COPY_LIMIT,
    GIVE_WAY,
    RUNNING_EVERY,
    VECTOR_COLUMNS,
    LedgerModel,
    row_texts,
    wrapped_width,
)

__all__ = [
    "COLUMNS",
    "COPY_LIMIT",
    "RUNNING_EVERY",
    "Ledger",
    "LedgerModel",
    "LedgerView",
    "row_texts",
]


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
        heading = self.ledger_model().headerData
        names = [str(heading(c, Qt.Orientation.Horizontal)) for c in range(len(COLUMNS))]
        for column, name in enumerate(names):
            need = max(
                [header.horizontalAdvance(name)]
                + [metrics.horizontalAdvance(row[column]) for row in texts]
            )
            self._widths[column] = max(self._widths[column], need + pad)
        widths = list(self._widths)
        room = self.viewport().width() or self.width()
        shown = [True] * len(COLUMNS)
        for column in GIVE_WAY:
            if sum(w for w, on in zip(widths, shown, strict=True) if on) <= room:
                break
            shown[column] = False
        lines = 1
        longest = max((len(row[c].split(" ")) for row in texts for c in VECTOR_COLUMNS), default=1)
        while sum(w for w, on in zip(widths, shown, strict=True) if on) > room and lines < longest:
            lines += 1  # the vectors on one more line each: as column vectors at most
            for column in VECTOR_COLUMNS:
                wrapped = [wrapped_width(row[column], metrics, lines) for row in texts]
                need = max([header.horizontalAdvance(names[column]), *wrapped]) + pad
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
        self.model.set_weights_name(frame.weights_name)
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
