"""Random actions over the whole window (issue 21: "Never crash"): every menu action
(walked from the menu bar, so a new learner's preset or a new lesson is in by itself),
every learner in the learner combo and every other choice of the control panel, typed
parameter values (absurd ones too), undo and redo, clicks and wheel turns on the plot, and
key presses, 20,000 of them with fixed seeds. No exception may reach Qt: the window's last
resort counts every one that does.

The 20,000 are `SHARDS` runs of a fresh window each (seeds 21, 22, …), which xdist runs side
by side. Actions that load the big data sets (the Winnow presets, 300 and 400 points of 64
and 150 variables: every later change recomputes γ* on them) or open another window are
chosen less often (`RARE`); the last actions of a shard try whatever menu action or learner
it has not tried yet, so every one is reached in every shard. With `-s`, each shard prints
how many times each kind of action ran, and the seconds spent in it.

Modal questions are answered by the `dialogs` recorder (tests/conftest.py); file dialogs
pick from a few files, good and bad; a dialog the window opens (Export) and the lab window
are closed again. Events are processed every `BATCH` actions, so that timers (a run, the
autosave, the glide) fire between them.

Slow (a few minutes on 2 cores): `python -m pytest -m slow tests/ui/test_random_actions.py`.
"""

import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QFileDialog,
    QMenu,
    QSlider,
    QWidget,
)

from simulator.app.app import THEORY_SECONDS
from simulator.engine import Settings, Simulation, load_preset
from simulator.engine.session import session_to_json
from simulator.ui import MainWindow

pytestmark = pytest.mark.slow

ACTIONS = int(os.environ.get("RANDOM_ACTIONS", 20_000))  # in all, over the shards
SHARDS = 4
BATCH = 20
SEED = 21  # shard k: SEED + k
COVER = 0.05  # the last 5% of a shard's actions try what it has not tried yet
LESSONS = Path(__file__).parents[2] / "simulator" / "lessons"

# Menu actions left out: Quit ends the test; Full screen is presentation's cousin and
# is covered by it (offscreen it only changes the window's state flag).
SKIPPED = {"&Quit"}
# Chosen RARE times as often as another menu action or learner: big data, many classes,
# another window, a folder of frames. Still several times in each shard.
RARE = 0.2
HEAVY = {
    "Winnow: an OR of 3 of 64 variables (15-859)",
    "Winnow: x5 ∨ x9 ∨ x12 of 150 variables (UNL)",
    "Winnow against the perceptron: few relevant variables among many",
    "&Winnow vs Perceptron lab…",
    "&Export frames…",
    # New points of class 6 to 9 under a multiclass learner: γ* of Kessler's vectors in
    # K·n dimensions, seconds each.
    "Class 6",
    "Class 7",
    "Class 8",
    "Class 9",
}
HEAVY_LEARNERS = {"Kernel perceptron"}  # its Gram matrix on whatever data are loaded

KEYS = [
    Qt.Key.Key_Space,
    Qt.Key.Key_Right,
    Qt.Key.Key_Left,
    Qt.Key.Key_Up,
    Qt.Key.Key_Down,
    Qt.Key.Key_Delete,
    Qt.Key.Key_Backspace,
    Qt.Key.Key_Escape,
    Qt.Key.Key_Return,
    Qt.Key.Key_Home,
    Qt.Key.Key_End,
    Qt.Key.Key_PageUp,
    Qt.Key.Key_PageDown,
    Qt.Key.Key_Tab,
    Qt.Key.Key_F,
    Qt.Key.Key_N,
    Qt.Key.Key_R,
    Qt.Key.Key_S,
    Qt.Key.Key_1,
    Qt.Key.Key_2,
    Qt.Key.Key_3,
    Qt.Key.Key_Plus,
    Qt.Key.Key_Minus,
]
MODIFIERS = [
    Qt.KeyboardModifier.NoModifier,
    Qt.KeyboardModifier.NoModifier,
    Qt.KeyboardModifier.ControlModifier,
    Qt.KeyboardModifier.ShiftModifier,
    Qt.KeyboardModifier.AltModifier,
]
TYPED = ["0", "-1", "1", "0.5", "2", "1e-300", "1e300", "1e6", "7", "abc", "", "nan", "3.5"]


def _leaf_actions(menu: QMenu) -> list[QAction]:
    found = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        if action.menu() is not None:
            found += _leaf_actions(action.menu())
        elif action.text() not in SKIPPED:
            found.append(action)
    return found


def _files(folder: Path) -> tuple[list[str], list[str]]:
    """(paths an Open dialog may return, paths a Save dialog may return): good and bad
    data, good and bad sessions, a lesson, and nothing (the dialog cancelled)."""
    (folder / "good.csv").write_text(load_preset("iris").to_csv())
    (folder / "bad.csv").write_text("x1,x2,label\n1,2,1\n3,oops,-1\n")
    (folder / "empty.csv").write_text("")
    (folder / "three.json").write_text(
        json.dumps(
            {
                "points": [[0, 0], [1, 0], [0, 1]],
                "labels": [0, 1, 2],
                "class_names": ["a", "b", "c"],
            }
        )
    )
    (folder / "good.lab.json").write_text(
        session_to_json(load_preset("noisy"), Settings("winnow"), 300)
    )
    bad = json.loads(session_to_json(load_preset("or"), Settings(), 2))
    bad["settings"]["parameters"]["mode"] = "nope"
    (folder / "bad.lab.json").write_text(json.dumps(bad))
    shutil.copy(LESSONS / "and-gate.toml", folder / "lesson.toml")
    (folder / "bad.toml").write_text("[lesson\n")
    opened = [
        str(folder / n)
        for n in (
            "good.csv",
            "bad.csv",
            "empty.csv",
            "three.json",
            "good.lab.json",
            "bad.lab.json",
            "lesson.toml",
            "bad.toml",
            "missing.csv",
        )
    ] + ["", str(folder)]
    saved = [
        str(folder / "out.csv"),
        str(folder / "out.lab.json"),
        str(folder / "step.toml"),
        "",
        str(folder / "no-folder" / "x.csv"),
        str(folder),
    ]
    return opened, saved


class Monkey:
    """The random user."""

    def __init__(self, window: MainWindow, rng: random.Random) -> None:
        self.window, self.rng = window, rng
        self.actions = [a for m in window.menuBar().actions() for a in _leaf_actions(m.menu())]
        self.action_weights = [RARE if a.text() in HEAVY else 1.0 for a in self.actions]
        self.counts: dict[str, int] = {}  # menu actions, learners and buttons, by name
        self.tried: set[int] = set()  # menu actions by index (Undo's text changes)
        self.kind_counts: dict[str, int] = {}
        self.seconds: dict[str, float] = {}  # by kind
        self.covering = False  # try what has not been tried yet
        self.counted: str | None = None  # the name the last action counted
        self.log: list[str] = []  # the last actions, to replay a failure by hand
        self.kinds = [
            (30, self.menu_action),
            (12, self.learner),
            (10, self.choice),
            (8, self.typed_value),
            (3, self.slider),
            (6, self.undo_redo),
            (14, self.click),
            (3, self.wheel),
            (10, self.key),
            (4, self.button),
        ]

    def act(self) -> None:
        weights = [w for w, _ in self.kinds]
        kind = self.rng.choices([k for _, k in self.kinds], weights)[0]
        name = kind.__name__
        self.log.append(name)
        del self.log[:-40]
        self.counted = None
        start = time.perf_counter()
        kind()
        took = time.perf_counter() - start
        self.kind_counts[name] = self.kind_counts.get(name, 0) + 1
        self.seconds[name] = self.seconds.get(name, 0.0) + took
        if self.counted is not None:
            self.seconds[self.counted] = self.seconds.get(self.counted, 0.0) + took

    def tally(self) -> str:
        """How many times each kind ran and the seconds it took, then each menu action,
        learner and button."""
        lines = [
            f"{self.kind_counts[k]:6d} {self.seconds[k]:7.1f} s  {k}"
            for k in sorted(self.kind_counts, key=lambda k: -self.seconds[k])
        ]
        lines += [
            f"{n:6d} {self.seconds.get(name, 0.0):7.1f} s  {name}"
            for name, n in sorted(self.counts.items(), key=lambda kv: -self.seconds.get(kv[0], 0))
        ]
        return "\n".join(lines)

    def _count(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
        self.counted = name
        self.log[-1] += f" {name}"

    def _panel_widgets(self, kind: type) -> list[QWidget]:
        return [
            w
            for w in self.window.findChildren(kind)
            if w.isVisibleTo(self.window) and w.isEnabled() and w.window() is self.window
        ]

    def menu_action(self) -> None:
        untried = [k for k in range(len(self.actions)) if k not in self.tried]
        if self.covering and untried:
            k = self.rng.choice(untried)
        else:
            k = self.rng.choices(range(len(self.actions)), self.action_weights)[0]
        self.tried.add(k)
        action = self.actions[k]
        self._count(action.text())
        if action.isEnabled():
            action.trigger()

    def learner(self) -> None:
        box = self.window.findChild(QComboBox, "algorithmCombo")
        untried = [k for k in range(box.count()) if f"learner {box.itemText(k)}" not in self.counts]
        if self.covering and untried:
            box.setCurrentIndex(self.rng.choice(untried))
        else:
            weights = [
                RARE if box.itemText(k) in HEAVY_LEARNERS else 1.0 for k in range(box.count())
            ]
            box.setCurrentIndex(self.rng.choices(range(box.count()), weights)[0])
        self._count(f"learner {box.currentText()}")

    def choice(self) -> None:
        boxes = self._panel_widgets(QComboBox)
        if boxes:
            box = self.rng.choice(boxes)
            box.setCurrentIndex(self.rng.randrange(box.count()))
            self.log[-1] += f" {box.objectName()} {box.currentText()}"

    def typed_value(self) -> None:
        spins = self._panel_widgets(QAbstractSpinBox)
        if spins:
            spin = self.rng.choice(spins)
            spin.lineEdit().selectAll()
            text = self.rng.choice(TYPED)
            self.log[-1] += f" {spin.objectName()} {text!r}"
            QTest.keyClicks(spin, text)
            QTest.keyClick(spin, Qt.Key.Key_Return)

    def slider(self) -> None:
        sliders = self._panel_widgets(QSlider)
        if sliders:
            s = self.rng.choice(sliders)
            s.setValue(self.rng.randint(s.minimum(), s.maximum()))

    def undo_redo(self) -> None:
        stack = self.window.controller.undo_stack
        undo = self.rng.random() < 0.6
        self.log[-1] += " undo" if undo else " redo"
        (stack.undo if undo else stack.redo)()

    def _plot_pos(self) -> QPoint:
        viewport = self.window.plot.viewport()
        return QPoint(
            self.rng.randrange(max(1, viewport.width())),
            self.rng.randrange(max(1, viewport.height())),
        )

    def click(self) -> None:
        button = self.rng.choice([Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton])
        modifier = self.rng.choice(MODIFIERS)
        pos = self._plot_pos()
        self.log[-1] += f" {button.name} {modifier.name} {pos.x()},{pos.y()}"
        QTest.mouseClick(self.window.plot.viewport(), button, modifier, pos)

    def wheel(self) -> None:
        viewport = self.window.plot.viewport()
        pos = QPointF(self._plot_pos())
        notches = self.rng.choice([-30, -3, -1, 1, 3, 30])
        event = QWheelEvent(
            pos,
            viewport.mapToGlobal(pos),
            QPoint(),
            QPoint(0, 120 * notches),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(viewport, event)

    def key(self) -> None:
        target = self.rng.choice([self.window, self.window.plot])
        key, modifier = self.rng.choice(KEYS), self.rng.choice(MODIFIERS)
        self.log[-1] += f" {key.name} {modifier.name} to {type(target).__name__}"
        QTest.keyClick(target, key, modifier)

    def button(self) -> None:
        # A button with a menu (the preset bar's Lessons) pops it up in Qt's own event
        # loop, which would wait for a click forever; its actions are the menus' own.
        buttons = [
            b
            for b in self._panel_widgets(QAbstractButton)
            if b.text() and getattr(b, "menu", lambda: None)() is None
        ]
        if buttons:
            b = self.rng.choice(buttons)
            self._count(f"button {b.text()}")
            b.click()

    def tidy(self) -> None:
        """Close what an action opened beside the window (Export's dialog, the lab)."""
        for widget in QApplication.topLevelWidgets():
            if widget is not self.window and widget.isVisible():
                if isinstance(widget, QDialog):
                    widget.reject()
                else:
                    widget.close()


@pytest.mark.parametrize("shard", range(SHARDS))
def test_20000_random_actions_reach_qt_with_no_exception(
    qtbot, dialogs, tmp_path, monkeypatch, shard
):
    rng = random.Random(SEED + shard)
    actions = ACTIONS // SHARDS + (shard < ACTIONS % SHARDS)
    opened, saved = _files(tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (rng.choice(opened), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (rng.choice(saved), ""))
    monkeypatch.setattr(QMenu, "exec", lambda *a, **k: None)  # a context menu would block
    monkeypatch.setattr(QDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    monkeypatch.setattr(Simulation, "theory_seconds", THEORY_SECONDS)  # as the app runs
    window = MainWindow(load_preset("or"))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    resort = window.install_last_resort()
    monkey = Monkey(window, rng)
    i = -1
    try:
        for i in range(actions):
            monkey.covering = i >= actions * (1 - COVER)
            monkey.act()
            if i % BATCH == BATCH - 1:
                QApplication.processEvents()
                monkey.tidy()
                if resort.errors:
                    break
    finally:
        window.controller.pause()
        monkey.tidy()
        resort.uninstall()
        window.controller.undo_stack.setClean()
    print(f"\nshard {shard} (seed {SEED + shard}), {i + 1} actions:\n{monkey.tally()}")
    report = resort.report_path
    detail = report.read_text() if report is not None and report.exists() else ""
    steps = "\n".join(monkey.log)
    assert resort.errors == 0, f"after action {i + 1} of shard {shard}:\n{steps}\n{detail}"
    used = set(monkey.counts)
    assert monkey.tried == set(range(len(monkey.actions)))  # every menu action was tried
    box = window.findChild(QComboBox, "algorithmCombo")
    assert {f"learner {box.itemText(k)}" for k in range(box.count())} <= used
