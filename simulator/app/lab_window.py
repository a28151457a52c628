"""Tools → Winnow vs Perceptron lab: race the rules on r-of-n disjunctions, in the window.

The teacher chooses r, the n values, the number of examples and the seed; Run races every
rule over a fresh stream for each n (the engine's `run_lab`, as `python main.py lab` does),
pass after pass until a pass has no mistake (one pass on request: it stops a slow learner
early and bends its curve), on a worker thread, so the window keeps answering; Cancel
stops it between mistakes and keeps the races already finished on the charts. The charts
are the ones `--plot` draws: mistakes against n with both bounds (mistakes on a linear
scale first, where log n and n look different; "log scale" switches), the cumulative
mistakes for one n, and one rule's weights for that n (the relevant variables against the
irrelevant ones). The n values' field is never narrower than its text.
"""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QCoreApplication, QSignalBlocker, Qt, QThread, Signal
from PySide6.QtGui import QCloseEvent, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from simulator.engine.lab import MAX_EXAMPLES, LabCancelled, LabPlan, LabResult, Race, run_lab
from simulator.ui import style
from simulator.ui.lab_charts import CumulativeChart, ScalingChart, WeightsChart, count_text

__all__ = ["DEFAULT_SIZES", "LabWindow", "LabWorker"]

DEFAULT_SIZES = "8, 32, 128, 512, 2048"
_PROGRESS_STEPS = 1000
_PROGRESS_INTERVAL = 0.05  # seconds between progress signals from the worker
PRESENTATION_CHART_SCALE = 1.5  # the charts' type in presentation mode: ticks 18 px
_RUNNING: set[LabWorker] = set()  # workers alive until their thread ends, whatever the window


def _stop_all() -> None:
    """Before the application quits: stop every lab run and wait for its thread."""
    for worker in list(_RUNNING):
        worker.cancel()
        worker.wait()


class LabWorker(QThread):
    """Runs one `LabPlan` off the GUI thread; signals carry engine records only."""

    progressed = Signal(float, str)
    race_done = Signal(object)  # Race
    lab_done = Signal(object)  # LabResult
    cancelled = Signal()
    failed = Signal(str)

    def __init__(self, plan: LabPlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan = plan
        self._stop = threading.Event()
        self._last_progress = 0.0

    def cancel(self) -> None:
        """Ask the run to stop at its next check (between mistakes)."""
        self._stop.set()

    def _progress(self, fraction: float, text: str) -> None:
        now = time.perf_counter()
        if now - self._last_progress >= _PROGRESS_INTERVAL or fraction >= 1.0:
            self._last_progress = now
            self.progressed.emit(fraction, text)

    def run(self) -> None:
        try:
            result = run_lab(
                self.plan,
                progress=self._progress,
                should_stop=self._stop.is_set,
                on_race=lambda race, stream: self.race_done.emit(race),
            )
        except LabCancelled:
            self.cancelled.emit()
        except (ValueError, MemoryError) as exc:
            self.failed.emit(str(exc) or type(exc).__name__)
        except Exception as exc:  # nothing may reach Qt from a thread: say it, keep going
            self.failed.emit(f"the lab stopped unexpectedly: {type(exc).__name__}: {exc}")
        else:
            self.lab_done.emit(result)


def _stop_all_on_quit() -> None:
    app = QCoreApplication.instance()
    if app is not None and not app.property("labStopsOnQuit"):
        app.setProperty("labStopsOnQuit", True)
        app.aboutToQuit.connect(_stop_all)


def _forget(worker: LabWorker) -> None:
    _RUNNING.discard(worker)
    worker.deleteLater()


def parse_sizes(text: str) -> tuple[int, ...]:
    """'8, 32, 128' -> (8, 32, 128); a ValueError names the part that is not a number."""
    sizes = []
    for part in text.replace(";", ",").replace(" ", ",").split(","):
        if not part.strip():
            continue
        try:
            sizes.append(int(part))
        except ValueError:
            raise ValueError(f"n values are whole numbers; {part.strip()!r} is not") from None
    return tuple(sizes)


class LabWindow(QDialog):
    """The Winnow lab: plan, run with progress and Cancel, and the three charts."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("labWindow")
        self.setWindowTitle("Winnow vs Perceptron lab")
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        _stop_all_on_quit()
        self.worker: LabWorker | None = None
        self.races: list[Race] = []
        self.result: LabResult | None = None
        self._plan: LabPlan | None = None
        self._chosen_size: int | None = None  # the n the teacher picked; else the largest
        self._presentation = False

        self._make_plan_controls()
        self._make_status()
        self.scaling = ScalingChart(self)
        self.cumulative = CumulativeChart(self)
        self.weights = WeightsChart(self)
        self.size_choice = QComboBox(objectName="labSizeCombo")
        self.size_choice.setToolTip("The n whose run the lower charts show")
        self.rule_choice = QComboBox(objectName="labRuleCombo")
        self.rule_choice.setToolTip("The rule whose weights are drawn")
        self.log_scale = QCheckBox("mistakes on a log scale", objectName="labLogCheck")
        self.log_scale.setToolTip(
            "The upper chart's mistakes on a log scale (log–log axes: log n and n both "
            "straight lines). Linear, log n is a straight line and n shoots up."
        )
        self.log_scale.toggled.connect(self.scaling.set_log_y)
        layout = QVBoxLayout(self)
        layout.addLayout(self._plan_row())
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.status, 2)
        layout.addLayout(progress_row)
        layout.addWidget(self.summary)
        layout.addWidget(self._charts(), 1)
        self.resize(1000, 720)

        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.size_choice.currentIndexChanged.connect(self._show_chosen)
        self.size_choice.activated.connect(self._on_size_chosen)
        self.rule_choice.currentIndexChanged.connect(self._show_chosen)
        self.status.setText("Choose r, the n values and the examples, then Run.")

    def _make_plan_controls(self) -> None:
        """r, the n values, the examples, the seed, until converged; Run and Cancel."""
        self.relevant = QSpinBox(objectName="labRelevantSpin")
        self.relevant.setRange(1, 16)
        self.relevant.setValue(2)
        self.relevant.setToolTip("r: how many variables the hidden OR uses")
        self.sizes = QLineEdit(DEFAULT_SIZES, objectName="labSizesEdit")
        self.sizes.setToolTip("The numbers of variables n to race on, comma-separated")
        self.sizes.textChanged.connect(self._fit_sizes)
        self._fit_sizes()
        self.examples = QSpinBox(objectName="labExamplesSpin")
        self.examples.setRange(1, MAX_EXAMPLES)
        self.examples.setValue(2000)
        self.examples.setGroupSeparatorShown(True)
        self.examples.setToolTip("Examples in each stream; every rule sees them in order")
        self.seed = QSpinBox(objectName="labSeedSpin")
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setToolTip("Same seed ⇒ the same hidden OR and the same stream")
        self.until_converged = QCheckBox("until converged", objectName="labConvergeCheck")
        self.until_converged.setChecked(True)
        self.until_converged.setToolTip(
            "Pass over the stream again and again until a pass has no mistake (at most 100); "
            "unticked, one pass, which stops a slow learner before its mistakes are all made"
        )
        self.run_button = QPushButton("Run", objectName="labRunButton")
        self.run_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", objectName="labCancelButton")
        self.cancel_button.setEnabled(False)

    def _fit_sizes(self) -> None:
        """The n values' field is as wide as its text (at least the default's): never
        clipped, whatever the type."""
        text = max(self.sizes.text(), DEFAULT_SIZES, key=len)
        metrics = self.sizes.fontMetrics()
        margins = self.sizes.textMargins()
        frame = 2 * self.sizes.style().pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth)
        need = metrics.horizontalAdvance(text + "0") + margins.left() + margins.right()
        self.sizes.setMinimumWidth(need + frame + 8)

    def _make_status(self) -> None:
        """The progress bar, the status line and the summary for the class."""
        self.progress = QProgressBar(objectName="labProgress")
        self.progress.setRange(0, _PROGRESS_STEPS)
        self.progress.setValue(0)
        self.status = QLabel(objectName="labStatus")
        self.status.setWordWrap(True)
        self.summary = QLabel(objectName="labSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        font = self.summary.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.summary.setFont(font)

    def _plan_row(self) -> QHBoxLayout:
        plan_row = QHBoxLayout()
        for label, widget in (
            ("r", self.relevant),
            ("n values", self.sizes),
            ("examples", self.examples),
            ("seed", self.seed),
        ):
            plan_row.addWidget(QLabel(label))
            plan_row.addWidget(widget, 3 if widget is self.sizes else 0)
        plan_row.addWidget(self.until_converged)
        plan_row.addWidget(self.run_button)
        plan_row.addWidget(self.cancel_button)
        return plan_row

    def _charts(self) -> QSplitter:
        """Mistakes against n above; below, the choice of n and rule over the cumulative
        mistakes and the weights, side by side."""
        choice_row = QHBoxLayout()
        choice_row.addWidget(QLabel("Show n ="))
        choice_row.addWidget(self.size_choice)
        choice_row.addSpacing(16)
        choice_row.addWidget(QLabel("weights of"))
        choice_row.addWidget(self.rule_choice)
        choice_row.addStretch(1)
        choice_row.addWidget(self.log_scale)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(self.cumulative)
        lower.addWidget(self.weights)
        charts = QSplitter(Qt.Orientation.Vertical)
        charts.addWidget(self.scaling)
        below = QWidget()
        below_layout = QVBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.addLayout(choice_row)
        below_layout.addWidget(lower, 1)
        charts.addWidget(below)
        charts.setStretchFactor(0, 1)
        charts.setStretchFactor(1, 1)
        charts.setSizes([450, 450])
        return charts

    # -- the plan ----------------------------------------------------------------------------

    def plan(self) -> LabPlan:
        """The plan the controls describe; a ValueError says what is wrong with it."""
        return LabPlan(
            sizes=parse_sizes(self.sizes.text()),
            relevant=self.relevant.value(),
            examples=self.examples.value(),
            seed=self.seed.value(),
            until_converged=self.until_converged.isChecked(),
            trace=True,
        )

    @property
    def running(self) -> bool:
        return self.worker is not None

    # -- running ---------------------------------------------------------------------------------

    def start(self) -> bool:
        """Race the plan on a worker thread; False (and the reason shown) if it is not valid."""
        if self.running:
            return False
        try:
            plan = self.plan()
        except ValueError as exc:
            self._say(f"Not run: {exc}.", problem=True)
            return False
        self._plan = plan
        self.races, self.result = [], None
        self._redraw()
        worker = LabWorker(plan)  # not a child: it must outlive a window deleted mid-run
        _RUNNING.add(worker)
        self.destroyed.connect(worker.cancel)
        worker.progressed.connect(self._on_progress)
        worker.race_done.connect(self._on_race)
        worker.lab_done.connect(self._on_done)
        worker.cancelled.connect(self._on_cancelled)
        worker.failed.connect(self._on_failed)
        worker.finished.connect(self._on_finished)
        worker.finished.connect(lambda: _forget(worker))
        self.worker = worker
        self._set_running(True)
        self.progress.setValue(0)
        self._say(f"Racing {len(plan.sizes)} values of n…")
        worker.start()
        return True

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self._say("Cancelling…")

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        for widget in (self.relevant, self.sizes, self.examples, self.seed, self.until_converged):
            widget.setEnabled(not running)

    def _say(self, text: str, problem: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #B03000; font-weight: bold;" if problem else "")

    def _on_progress(self, fraction: float, text: str) -> None:
        self.progress.setValue(round(_PROGRESS_STEPS * max(0.0, min(1.0, fraction))))
        self._say(text)

    def _on_race(self, race: Race) -> None:
        self.races.append(race)
        self._redraw()

    def _on_done(self, result: LabResult) -> None:
        self.result = result
        self.races = list(result.races)
        self.progress.setValue(_PROGRESS_STEPS)
        seconds = sum(race.seconds for race in result.races)
        self._say(f"Done: {len(result.races)} values of n in {seconds:.1f} s.")
        self._redraw()

    def _on_cancelled(self) -> None:
        kept = len(self.races)
        self._say(f"Cancelled; the {kept} finished value{'s' if kept != 1 else ''} of n stay.")

    def _on_failed(self, text: str) -> None:
        self._say(f"The lab stopped: {text}", problem=True)

    def _on_finished(self) -> None:
        self.worker = None
        self._set_running(False)

    # -- drawing ---------------------------------------------------------------------------------

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type, as the main window's (View → Presentation mode): the summary
        and the status at `style.PRESENTATION_LABEL_PX`, the charts' type and lines larger
        (tick labels at least 18 px) and redrawn so; the window takes most of the screen.
        The plan's controls keep their size (settings, as the main window's, are not what
        the class reads)."""
        if on == self._presentation:
            return
        self._presentation = on
        font = QFont()
        if on:
            font.setPixelSize(style.PRESENTATION_LABEL_PX)
        self.status.setFont(font)
        summary = QFont(font)
        if not on and summary.pointSizeF() > 0:
            summary.setPointSizeF(summary.pointSizeF() * 1.15)
        self.summary.setFont(summary)
        for chart in (self.scaling, self.cumulative, self.weights):
            # The legends grow less: they share the plot with the curves.
            chart.set_scale(PRESENTATION_CHART_SCALE if on else 1.0, 1.25 if on else 1.0)
        if on and self.screen() is not None:
            room = self.screen().availableGeometry().size() * 0.92
            self.resize(room.expandedTo(self.size()).boundedTo(room))
        self._redraw()

    @property
    def presentation(self) -> bool:
        return self._presentation

    def _redraw(self) -> None:
        plan = self._plan
        title = None
        if plan is not None:
            title = (
                f"Mistakes against n: r = {plan.relevant}, {plan.examples:,} examples, "
                f"seed {plan.seed}"
            )
        self.scaling.show_races(self.races, title=title)
        ordered = sorted(self.races, key=lambda race: race.n)
        chosen = self._chosen_size
        rule = self.rule_choice.currentData()
        with QSignalBlocker(self.size_choice), QSignalBlocker(self.rule_choice):
            self.size_choice.clear()
            for race in ordered:
                self.size_choice.addItem(f"{race.n:,}", race.n)
            index = self.size_choice.findData(chosen)
            self.size_choice.setCurrentIndex(index if index >= 0 else len(ordered) - 1)
            self.rule_choice.clear()
            for result in ordered[0].results if ordered else ():
                self.rule_choice.addItem(result.title, result.rule)
            index = self.rule_choice.findData(rule)
            if index < 0 and ordered:  # first time: the rule with the fewest mistakes
                results = ordered[-1].results
                index = results.index(min(results, key=lambda r: r.mistakes))
            self.rule_choice.setCurrentIndex(index)
        self._show_chosen()

    def _on_size_chosen(self, index: int) -> None:
        self._chosen_size = self.size_choice.itemData(index)

    def chosen_race(self) -> Race | None:
        n = self.size_choice.currentData()
        return next((race for race in self.races if race.n == n), None)

    def _show_chosen(self, *_: object) -> None:
        race = self.chosen_race()
        self.cumulative.show_race(race)
        result = None if race is None else race.result(self.rule_choice.currentData())
        self.weights.show_result(result)
        self.summary.setText(summary_text(race))

    # -- closing ---------------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        """Stop a run before the window goes (the worker must not outlive it)."""
        worker = self.worker
        if worker is not None:
            worker.cancel()
            worker.wait()
        super().closeEvent(event)


def summary_text(race: Race | None) -> str:
    """One line for the class: each rule's mistakes and bound at this n, and the ratio."""
    if race is None or not race.results:
        return ""
    parts = []
    for result in race.results:
        bound = "" if result.bound is None else f" (bound {count_text(result.bound)})"
        parts.append(f"{result.title} <b>{result.mistakes:,}</b>{bound}")
    text = f"n = {race.n:,}, hidden OR of {' ∨ '.join(f'x{v}' for v in race.variables)}: "
    text += ", ".join(parts) + " mistakes."
    fewest = min(race.results, key=lambda r: r.mistakes)
    most = max(race.results, key=lambda r: r.mistakes)
    if fewest.mistakes > 0 and most.mistakes > fewest.mistakes:
        text += (
            f" {fewest.title} makes {most.mistakes / fewest.mistakes:.1f}× fewer mistakes "
            f"than the {most.title}."
        )
    return text
