"""The Qt binding itself must keep Python's reference counts straight.

PySide6 6.12.0 dropped a reference to True on every Signal(bool) emission to a Python
slot (and on every slot that returned True); after a few hundred the interpreter frees
True and aborts. pyproject.toml excludes that release; this test catches a relapse.
"""

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    flag = Signal(bool)
    thing = Signal(object)


def test_bool_signals_and_slot_results_keep_true_and_false_alive(qapp):
    emitter = _Emitter()
    emitter.flag.connect(lambda value: None)
    emitter.thing.connect(lambda value: True)
    before = sys.getrefcount(True), sys.getrefcount(False)
    for _ in range(50):
        emitter.flag.emit(True)
        emitter.flag.emit(False)
        emitter.thing.emit(1)
    after = sys.getrefcount(True), sys.getrefcount(False)
    assert after == before, "this PySide6 release leaks references to True/False; pin another"
