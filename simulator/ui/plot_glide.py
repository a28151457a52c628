"""The glide: the boundary and w move from one w to the next along the straight segment
between them (so a class sees where the update takes the line), over a duration the window
sets from the run's pace (none for exported frames or a fast run).

`BoundaryGlide` is a part of `PlotView` (its methods run on the view); a test drives its
clock (`set_glide(ms, clock)`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QTimer

from simulator.engine import InputLine


class BoundaryGlide:
    """The glide part of `PlotView` (see the module docstring)."""

    def _init_glide(self) -> None:
        """No glide yet: (from, to, started at) while the boundary moves."""
        self._glide_ms = 0.0
        self._clock: Callable[[], float] = time.monotonic
        self._glide: tuple[InputLine, InputLine, float] | None = None
        self._glide_end: InputLine | None = None
        self._glide_timer = QTimer(self)
        self._glide_timer.setInterval(16)
        self._glide_timer.timeout.connect(self.advance_glide)

    def set_glide(self, milliseconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        """Let the boundary and w glide to each new w over `milliseconds` (0: jump, as
        the exported frames and a fast run do). `clock` (seconds) is for tests."""
        self._glide_ms = max(0.0, float(milliseconds))
        self._clock = clock
        if not self._glide_ms:
            self._finish_glide()

    def _start_glide(self, target: InputLine | None) -> None:
        """Glide from the boundary shown now to `target` (a straight line each way)."""
        shown = self._boundary_shown() if self._glide is not None else self._glide_end
        self._glide_end = target
        if not self._glide_ms or shown is None or target is None or shown == target:
            self._finish_glide()
            return
        self._glide = (shown, target, self._clock())
        if not self._glide_timer.isActive():
            self._glide_timer.start()

    def _boundary_shown(self) -> InputLine | None:
        """The boundary as drawn at this moment of a glide (None: no glide going on)."""
        if self._glide is None:
            return None
        start, end, began = self._glide
        t = (self._clock() - began) * 1000.0 / self._glide_ms
        if t >= 1.0:
            return end
        t = t * t * (3.0 - 2.0 * t)  # smoothstep: eases in and out
        # w moves along the straight segment between the two ws, as an update moves it
        normal = tuple(a + t * (b - a) for a, b in zip(start.normal, end.normal, strict=True))
        offset = start.offset + t * (end.offset - start.offset)
        level = start.level + t * (end.level - start.level)
        if not any(normal):
            return end
        return InputLine(offset=offset, normal=normal, level=level)

    def advance_glide(self) -> None:
        """Draw the glide as it is at the clock's now (its timer calls this; a test that
        drives the clock calls it too)."""
        if self._glide is None:
            self._glide_timer.stop()
            return
        line = self._boundary_shown()
        if line is self._glide[1]:
            self._finish_glide()
        else:
            self._set_line(self._boundary, line if self._role_shown("boundary") else None)
            self._place_arrow()

    def _finish_glide(self) -> None:
        """Show the target now (the glide is over or not wanted)."""
        self._glide_timer.stop()
        if self._glide is None:
            return
        self._glide = None
        if self._frame is not None:
            self._set_line(self._boundary, self._frame.boundary)
            self._place_arrow()

    @property
    def gliding(self) -> bool:
        return self._glide is not None

    @property
    def glide_ms(self) -> float:
        """How long a glide lasts now (0 while a fast run skips it)."""
        return self._glide_ms
