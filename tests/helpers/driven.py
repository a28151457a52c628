"""Time that the test drives (STYLE rule 16): a clock that moves only when told, a run
advanced tick by tick, and Qt's posted work delivered now instead of waited for."""

from PySide6.QtWidgets import QApplication


class ManualClock:
    """A clock in seconds, like time.monotonic, that moves only by `advance`.

    Binary fractions (1/8, 1/1024) keep the arithmetic exact."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def finish(controller, ticks=10_000):
    """Drive the run tick by tick (`controller.advance`) until it stops; `ticks` is a
    safety net, not a measure of time."""
    while controller.running and ticks:
        controller.advance(1)
        ticks -= 1
    assert not controller.running


def deliver_posted_events(rounds=5):
    """What the event loop's next turns would do, without waiting for them: the layout
    requests, resizes and paints Qt has posted, and those they post in turn (one level of
    the widget tree a round). No timer is waited for, so no clock is involved."""
    for _ in range(rounds):
        QApplication.processEvents()


def sized(window, size):
    """`window` as it is on a screen of `size`: presentation mode maximizes it there; the
    offscreen screen is 800 × 800, so here it is un-maximized and given that size."""
    from PySide6.QtCore import Qt

    window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMaximized)
    window.resize(*size)
