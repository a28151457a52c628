"""The window's views of time: the timeline under the plot, and the charts and the ledger in
tabs below it, with the actions that go with them.

The tabs start hidden, so the plot keeps its room; View → Charts and ledger, the key C or
the timeline's Charts button shows them, and each tab can be hidden on its own. The charts
and the ledger are built when first shown (or asked for): three plots fewer to build for a
window whose charts stay closed. Built late, they catch up with the history as they do
after a run.

They paint the controller's frames and emit intent (seek, step back); the controller
seeks, which pauses a run. Backspace steps back one trial (Delete deletes a point).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, QSignalBlocker, Qt
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QSplitter, QTabWidget, QWidget

from simulator.presentation.frame import Frame
from simulator.ui import style
from simulator.ui.charts import Chart, ChartBox, LossChart, MistakesChart, ProofChart
from simulator.ui.controller import SimulationController
from simulator.ui.ledger import Ledger
from simulator.ui.timeline import Timeline

__all__ = ["CHARTS_MAX_PX", "TimeViews"]

CHARTS_MAX_PX = 320  # the charts' part of a tall presentation column (see `_share_area`)


class TimeViews(QObject):
    """Timeline, charts and ledger of one window, wired to its controller."""

    def __init__(self, controller: SimulationController, window: QMainWindow) -> None:
        super().__init__(window)
        self.controller = controller
        self.timeline = Timeline(window)
        self._pages: _Pages | None = None  # the charts and the ledger, once built
        self._presentation = False
        self.tabs = QTabWidget(objectName="timeTabs")
        self.tabs.setDocumentMode(True)
        self.menu = QMenu("&Charts and ledger", window)
        self.area_action = QAction("&Show charts and ledger", self, checkable=True)
        self.area_action.setObjectName("chartsAction")
        self.area_action.setIconText("Charts")
        self.area_action.setToolTip("Show or hide the charts and the trial ledger (C)")
        self.area_action.setShortcut(QKeySequence("C"))
        self.area_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.area_action.toggled.connect(self.set_area_visible)
        window.addAction(self.area_action)
        self.menu.addAction(self.area_action)
        self.menu.addSeparator()
        self.page_actions: list[QAction] = []
        for index, (_, name, text) in enumerate(_PAGES):
            action = QAction(text, self, checkable=True, checked=True)
            action.setObjectName(name)
            action.toggled.connect(lambda on, i=index: self.set_page_visible(i, on))
            self.menu.addAction(action)
            self.page_actions.append(action)
        self.tabs.hide()  # the plot keeps the room until the charts are asked for
        self.timeline.charts_button.setDefaultAction(self.area_action)

        self.step_back_action = QAction("Step &back", self)
        self.step_back_action.setObjectName("stepBackAction")
        self.step_back_action.setShortcut(QKeySequence("Backspace"))
        self.step_back_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.step_back_action.triggered.connect(controller.step_back)
        window.addAction(self.step_back_action)

        self.timeline.seek_requested.connect(controller.seek)
        self.timeline.step_back_requested.connect(controller.step_back)
        controller.frame_changed.connect(self.show_frame)
        controller.running_changed.connect(self._on_running)
        self.show_frame(controller.frame)

    def _built(self) -> _Pages:
        """The charts and the ledger, built (and shown the run so far) on first use."""
        if self._pages is None:
            pages = _Pages(ProofChart(), MistakesChart(), LossChart(), Ledger())
            self._pages = pages
            widgets = (*(ChartBox(c) for c in pages.charts), pages.ledger)
            for index, (widget, (title, _, _)) in enumerate(zip(widgets, _PAGES, strict=True)):
                self.tabs.addTab(widget, title)
                self.tabs.setTabVisible(index, self.page_actions[index].isChecked())
            pages.ledger.seek_requested.connect(self.controller.seek)
            for chart in pages.charts:
                chart.message.connect(self.controller.message)
            pages.ledger.view.message.connect(self.controller.message)
            if self._presentation:
                self.set_presentation(True)
            self._show_pages(self.controller.frame)
        return self._pages

    @property
    def proof_chart(self) -> ProofChart:
        return self._built().proof

    @property
    def mistakes_chart(self) -> MistakesChart:
        return self._built().mistakes

    @property
    def loss_chart(self) -> LossChart:
        return self._built().loss

    @property
    def charts(self) -> tuple[Chart, ...]:
        return self._built().charts

    @property
    def ledger(self) -> Ledger:
        return self._built().ledger

    def around(self, plot_column: QWidget) -> QSplitter:
        """The plot column above the tabs, in a splitter the user can drag."""
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("timeSplitter")
        splitter.addWidget(plot_column)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(0, False)
        self.splitter = splitter
        return splitter

    def set_area_visible(self, on: bool) -> None:
        """Show or hide the charts and the ledger (View → Charts and ledger, C, the
        timeline's Charts button); shown, they take about a third of the column."""
        with QSignalBlocker(self.area_action):
            self.area_action.setChecked(on)
        if on and not any(a.isChecked() for a in self.page_actions):
            self.page_actions[0].setChecked(True)  # shows the area through set_page_visible
            return
        if on:
            self._built()
        if on == self.tabs.isVisible():
            return
        self.tabs.setVisible(on)
        if on:
            self._share_area()

    def _share_area(self) -> None:
        """The charts' part of the column: about a third (at least 240 px); in presentation
        mode what the plot leaves above its minimum height (the window's `_fit_stage` sets
        it), at least 28 % and at most half, and on a tall screen no more than
        `CHARTS_MAX_PX` (what a chart and its caption use there): the rest is the plot's."""
        splitter = getattr(self, "splitter", None)
        if splitter is not None:
            total = sum(splitter.sizes())
            share = max(min(240, total // 2), round(0.32 * total))
            if self._presentation:
                plot = splitter.widget(0).minimumSizeHint().height()
                share = min(total // 2, max(round(0.28 * total), total - plot), CHARTS_MAX_PX)
            splitter.setSizes([total - share, share])

    def share_area(self) -> None:
        """The charts' part again (the window's layout changed), if they show."""
        if self.tabs.isVisible():
            self._share_area()

    def set_page_visible(self, index: int, on: bool) -> None:
        """Show or hide one tab (and the area with it when it is the first or the last)."""
        if on or self._pages is not None:
            self._built()
            self.tabs.setTabVisible(index, on)
            if on:
                self.tabs.setCurrentIndex(index)
        self.set_area_visible(on or any(a.isChecked() for a in self.page_actions))

    def set_presentation(self, on: bool) -> None:
        """Lecture-hall type for the timeline, the charts, their captions and the ledger."""
        self._presentation = on
        self.timeline.set_presentation(on)
        if self.tabs.isVisible():
            self._share_area()
        font = QFont(self.tabs.font())
        if on:
            font.setPixelSize(style.PRESENTATION_LABEL_PX)
        self.tabs.tabBar().setFont(font)
        for index in range(self.tabs.count()):
            page = self.tabs.widget(index)
            if isinstance(page, ChartBox | Ledger):
                page.set_presentation(on)

    def _on_running(self, running: bool) -> None:
        if not running and self._pages is not None:  # what waited for the run to stop
            self._pages.ledger.catch_up()
            for chart in self._pages.charts:
                chart.show_frame(self.controller.frame)

    def show_frame(self, frame: Frame) -> None:
        self.timeline.show_frame(frame)
        if self._pages is not None:
            self._show_pages(frame)

    def _show_pages(self, frame: Frame) -> None:
        pages = self._built()
        pages.ledger.show_frame(frame, running=self.controller.running)
        for chart in pages.charts:
            chart.show_frame(frame, running=self.controller.running)


@dataclass(frozen=True)
class _Pages:
    proof: ProofChart
    mistakes: MistakesChart
    loss: LossChart
    ledger: Ledger

    @property
    def charts(self) -> tuple[Chart, ...]:
        return (self.proof, self.mistakes, self.loss)


# tab title, action name, menu text
_PAGES = (
    ("Proof", "proofChartAction", "&Proof chart (A_k, B_k and k)"),
    ("Mistakes", "mistakesChartAction", "&Mistakes chart (k against the trial)"),
    ("Loss / weights", "lossChartAction", "&Loss or weights chart"),
    ("Ledger", "ledgerAction", "Trial &ledger"),
)
