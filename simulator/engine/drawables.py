"""What a learner draws in the input plane, as data: each drawable has a role, and the view
maps the role to a pen and a legend entry (`simulator.presentation.roles` lists them).

- `Line`: the set {p : offset + normal·p = level} (the boundary of a linear score).
- `LevelSet`: {p : f(p) = level} for a score f that is not linear in the plane (feature
  maps, kernels, votes): the view samples f on a grid that follows it and draws the curve.
- `Regions`: the plane coloured by the class f predicts (two classes: the sign of f; K
  classes: argmax), sampled the same way; for K classes the view also traces the
  boundaries between them (where the two best scores are equal), so one sampling of f
  serves both.
- `Vector`: a direction in the plane drawn as an arrow for class `klass` (the K weight
  vectors w_k of a multiclass learner, each in its class's colour).

The functions take an (m, 2) array of points and return (m,) scores, or (m, K) for K
classes; they close over a frozen state, so a drawable never changes. A score that is a
sum of terms may also be `Incremental`: given an earlier score's values on a grid, it finds
its own there from the terms that differ (a step changes one), which is what the view
asks first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from simulator.engine.features import InputLine

__all__ = ["Drawable", "Incremental", "LevelSet", "Line", "Regions", "Score", "Vector"]

Score = Callable[[NDArray[np.float64]], NDArray[np.float64]]


@runtime_checkable
class Incremental(Protocol):
    """A score f with a cheaper way to its values where an earlier score's are known."""

    def __call__(self, points: NDArray[np.float64]) -> NDArray[np.float64]: ...

    def since(
        self, earlier: object, points: NDArray[np.float64], values: NDArray[np.float64]
    ) -> NDArray[np.float64] | None:
        """f at `points`, given `earlier`'s `values` there; None when it cannot say."""


@dataclass(frozen=True, slots=True)
class Line:
    role: str
    line: InputLine


@dataclass(frozen=True, slots=True, eq=False)
class LevelSet:
    role: str
    score: Score
    level: float = 0.0
    stepped: bool = False  # the score jumps (a vote): its crossings are found by bisection


@dataclass(frozen=True, slots=True, eq=False)
class Regions:
    role: str
    score: Score
    classes: int = 2


@dataclass(frozen=True, slots=True)
class Vector:
    role: str
    direction: tuple[float, float]
    klass: int
    label: str


Drawable = Line | LevelSet | Regions | Vector
