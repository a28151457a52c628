"""The records a learner and the run exchange: `State`, `Step`, `Updates`, `EpochSteps`,
`LinearScorer`, `Bound` and `Theory`.

Plain frozen values (but `Theory`, which computes γ* lazily), with no behaviour of any
learner: the run hands them to the learner's methods (`simulator.engine.learners.base`)
and gets them back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["Bound", "EpochSteps", "LinearScorer", "State", "Step", "Theory", "Updates"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class State:
    """A learner's state after a trial: a record of named arrays, never changed in place.

    Every state has `w`, the weights the learner scores with (D,) or (K, D); its own
    records add what they keep (a pocket, a running sum, dual coefficients). `error` is the
    running rounding-error bound of `w` (empty where none is kept); `start` is w₀ as
    written, flattened (shared by every state of a run). The exact state (the weights, or
    Winnow's exponents, in rational arithmetic) is not kept here: the run makes it from the
    updates when a verdict needs it (see `simulator.engine.verdicts`).
    `repeating` names the parts that must repeat, bit for bit, for the run to repeat
    itself (the cycle search compares them at epoch starts): a running average never does,
    so it is left out.
    """

    w: FloatArray
    error: FloatArray = field(default_factory=lambda: np.zeros(0))
    start: tuple[Fraction, ...] = ()
    repeating: ClassVar[tuple[str, ...]] = ("w",)
    # False: a part left out of `repeating` (a running sum) changes over a repeating period,
    # so the run runs such periods instead of jumping over them.
    periodic: ClassVar[bool] = True

    def repeats(self, other: State) -> bool:
        """Whether `other` is this state as far as the future is concerned."""
        return type(other) is type(self) and all(
            np.array_equal(getattr(self, name), getattr(other, name)) for name in self.repeating
        )

    def arrays(self) -> Iterator[NDArray[Any]]:
        """The arrays the state holds (for its memory)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                yield value

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays())

    def but(self, **changes: Any) -> State:
        """A copy with `changes` (dataclasses.replace)."""
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class LinearScorer:
    """What the run's fast path needs to score trials with fixed weights: s = w·x − θ, the
    verdict on v = y·s − `offset` (a margin), and the rounding-error bound's terms (see
    `exact.tie_terms`; `e` empty: the floats are taken as they are)."""

    w: FloatArray
    theta: float = 0.0
    c: FloatArray | None = None  # None: no bound (zeros of w's length, for the scan)
    theta_err: float = 0.0
    e: FloatArray = field(default_factory=lambda: np.zeros(0))
    theta_r: float = 0.0
    offset: float = 0.0
    bounded: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bounded", self.c is not None)
        if self.c is None:
            object.__setattr__(self, "c", np.zeros(self.w.shape[0]))

    @property
    def coefficients(self) -> FloatArray:
        """c, the bound's coefficients (zeros where there is no bound)."""
        assert self.c is not None
        return self.c


@dataclass(frozen=True, slots=True)
class Step:
    """One trial as a learner learns from it: its number, the row of the data, the feature
    vector x, the label y, the decided v (y·s − offset for the two-class learners, 0 for a
    tie), whether it was a mistake, and `digits`, the exact row (the data as written) for
    the learner's shadow state."""

    number: int
    index: int
    x: FloatArray
    y: int
    signed: float
    mistake: bool
    digits: Callable[[], tuple[tuple[int, int, int], ...]]
    score: float = 0.0
    data: tuple[FloatArray, NDArray[np.int8]] | None = None  # the segment's X and labels
    tie: str = "mistake"  # the run's tie rule
    exact: Callable[[], Any] | None = None  # the learner's exact state now, made on demand


@dataclass(frozen=True, slots=True)
class Updates:
    """Updates the compiled loop made by itself, in order: their trials, their rows of
    `data` (the segment's X and labels), the run's tie rule, and the weights and error
    bounds it left after them (`w`, `error`) and before the last (`w_before`,
    `error_before`)."""

    trials: NDArray[np.int64]
    rows: NDArray[np.intp]
    data: tuple[FloatArray, NDArray[np.int8]]
    tie: str
    w: FloatArray
    error: FloatArray
    w_before: FloatArray
    error_before: FloatArray


@dataclass(frozen=True, slots=True)
class Bound:
    """A mistake bound that applies to a run: its value (inf: the data have none, nan:
    undefined), the formula as the notes write it, whose bound it is, and why it applies.
    `proof`: Block–Novikoff's squeeze A_k ≥ k ≥ B_k applies (the proof chart can show it),
    with the step `rate` η of its updates."""

    value: float
    formula: str
    owner: str
    why: str
    general: bool = False
    proof: bool = False
    rate: float = 1.0


class Theory:
    """The theory of a run's data that a learner may ask for its bound: lazily computed
    and shared (γ* costs seconds on large data)."""

    def __init__(
        self,
        *,
        features: FloatArray,
        labels: NDArray[np.int8],
        initial: State,
        tie: str,
        bias: bool,
        margin_report: Callable[[], Any],
        kessler_report: Callable[[], Any] | None = None,
    ) -> None:
        self.features = features
        self.labels = labels
        self.initial = initial
        self.tie = tie
        self.bias = bias
        self._margin_report = margin_report
        self._kessler_report = kessler_report

    @property
    def empty(self) -> bool:
        return bool(self.features.shape[0] == 0)

    def margin_report(self) -> Any:
        """R, γ*, R²/γ*² and u* of the data in the learner's feature space (MarginReport)."""
        return self._margin_report()


@dataclass(frozen=True, slots=True)
class EpochSteps:
    """The trials of an epoch that just ended, for a learner that learns once per epoch:
    the rows of X in the order seen, their labels, their decided v and mistakes, and the
    exact rows on demand."""

    X: FloatArray
    y: NDArray[np.int8]
    signed: FloatArray
    mistakes: NDArray[np.bool_]
    digits: Callable[[int], tuple[tuple[int, int, int], ...]]
    rows: NDArray[np.intp]
    epoch: int = 1
