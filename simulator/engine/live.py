"""The records of a run in progress: the live state a checkpoint keeps, the latest trial,
and how a stretch of trials is run (`Leg`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.history import Segment
from simulator.engine.learners import LinearScorer, State

__all__ = ["REPLAY", "LastTrial", "Leg", "Live", "Sink", "Terms"]

FloatArray = NDArray[np.float64]


@dataclass(slots=True)
class Terms:
    """A scorer for the live state, with `bmax`, its tie bound's maximum over all rows of
    `segment` (computed when first needed)."""

    scorer: LinearScorer | None
    bmax: float = math.nan
    segment: Segment | None = None


@dataclass(frozen=True, slots=True)
class Sink:
    """What a replay collects after each mistake: each of `collect` applied to the state
    after it (the learner's w, its w in the space of its theory rows…), one list each."""

    collect: tuple[Callable[[State], FloatArray], ...]
    values: tuple[list[FloatArray], ...]

    @classmethod
    def of(cls, *collect: Callable[[State], FloatArray]) -> Sink:
        return cls(collect, tuple([] for _ in collect))

    def take(self, state: State, count: int = 1) -> None:
        """Note `state` as the state after `count` more mistakes (each made no update)."""
        if count > 0:
            for collect, values in zip(self.collect, self.values, strict=True):
                values.extend([collect(state)] * count)


@dataclass(frozen=True, slots=True)
class Leg:
    """How a stretch of trials is run: whether it writes the history, and what ends it
    early: the first mistake, the wall-clock `deadline` (`time.perf_counter`), or
    `update_budget` updates. `sink` collects what it is asked to after each mistake (replay)."""

    record: bool
    stop_on_mistake: bool = False
    deadline: float | None = None
    update_budget: int | None = None
    sink: Sink | None = None


REPLAY = Leg(record=False)


@dataclass(slots=True)
class LastTrial:
    """The latest trial of a live state, enough to build its `Trial` on demand."""

    number: int
    segment: Segment
    index: int
    signed: float  # v = y·s − τ as decided (0.0 for a tie)
    mistake: bool
    before: State
    after: State
    certain: bool = True


@dataclass(slots=True)
class Live:
    """The learner's whole state after `trials` trials: what a checkpoint keeps.

    Besides the learner's state: the counters, the bookkeeping of the epoch in progress
    (updates so far, its mistakes for a learner that learns per epoch, uncertain verdicts,
    the state at its start), the smallest epoch loss on these data (a learner's divergence
    test), Brent's cycle search over epoch-start states (`power`, `lam`, `tortoise`), and
    `counts`: how many updates each row of the segment made (the exact shadow: with the
    exact state at the segment's start, the learner's exact state now; None where the
    learner keeps none).
    """

    state: State
    epoch_start: State
    tortoise: State
    trials: int = 0
    mistakes: int = 0
    updates: int = 0
    epoch_updates: int = 0
    min_loss: float = math.inf
    power: int = 1
    lam: int = 1
    segment: Segment | None = None
    segment_index: int = -1
    diverged_at: int | None = None
    terms: Terms | None = None
    last: LastTrial | None = None
    epoch_mistakes: list[int] = field(default_factory=list)  # positions, cadence "epoch"
    uncertain: int = 0  # uncertain verdicts in the epoch in progress
    tortoise_updates: int = 0  # `updates` when the tortoise was taken
    tortoise_exact: Any = None  # its exact state, where the floats cannot compare
    counts: NDArray[np.int64] | None = None

    def copy(self) -> Live:
        """A copy that shares the immutable states (`terms` is a cache, `counts` copied)."""
        counts = None if self.counts is None else self.counts.copy()
        return replace(self, epoch_mistakes=list(self.epoch_mistakes), counts=counts)

    @property
    def nbytes(self) -> int:
        """Memory a checkpoint of this record holds (its own arrays, roughly)."""
        counts = 0 if self.counts is None else self.counts.nbytes
        return 200 + self.state.nbytes + 8 * len(self.epoch_mistakes) + counts
