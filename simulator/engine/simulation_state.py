"""`SimulationState`: where a run stands, read off its live state and its current data.

The part of `Simulation` that reports and changes nothing: the data, the learner, the
weights (as kept, and as views write them), the counters, whether the run converged,
cycles or diverged, and the learner's own views of points (`decision`, `predict`,
`companion`, `votes`, `dual`). `Simulation` fills the attributes declared here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator.engine.dataset import Dataset
from simulator.engine.features import FeatureMap
from simulator.engine.history import History, Segment
from simulator.engine.learners import Learner, State
from simulator.engine.live import Live
from simulator.engine.records import Settings
from simulator.engine.runner import Runner
from simulator.engine.theory import AdalineReport, MarginReport

__all__ = ["SimulationState"]

FloatArray = NDArray[np.float64]
_EXACT_SHOWN_WORK = 1 << 16  # rows updated x features: beyond, views show the float weights


class SimulationState:
    """Where a `Simulation` stands: its public state and the learner's views of points."""

    settings: Settings
    _dataset: Dataset
    _features: FeatureMap
    _X: FloatArray
    _n_features: int
    _classes: int
    _learner: Learner
    _initial: State
    _history: History
    _spacing: tuple[Segment | None, tuple[int, int]] | None
    _runner: Runner
    _live: Live
    _rows: Any  # the learner's own training rows (Kessler's vectors), or None
    _train_X: FloatArray
    _train_y: NDArray[np.int8]
    _largest: float
    _previous_report: MarginReport | None
    _margin_report: MarginReport | None
    _theory_rows: tuple[FloatArray, NDArray[np.int8]] | None
    _adaline_report: AdalineReport | None

    # -- public state --------------------------------------------------------------------------

    @property
    def dataset(self) -> Dataset:
        return self._dataset

    @property
    def learner(self) -> Learner:
        """The run's learner (frozen): its title, parameters, formulas, bound."""
        return self._learner

    rule = learner  # the round-2 name

    @property
    def features(self) -> FeatureMap:
        return self._features

    @property
    def feature_matrix(self) -> FloatArray:
        """The feature vectors of the current data, read-only (n, n_features)."""
        return self._X

    @property
    def weights(self) -> FloatArray:
        """A copy of the effective w, (D,) or (K, D), feature order (bias first)."""
        return np.array(self._learner.weights(self._live.state), dtype=np.float64)

    def shown_weights(self) -> FloatArray:
        """The weights as views write them: the exact weights correctly rounded, where the
        learner keeps them exactly and they are cheap to have (a float sum's noise, such
        as 2.7e-15 where the exact weight is 0, never reaches the screen); else the floats."""
        w = self.weights
        live = self._live
        if live.counts is not None and np.count_nonzero(live.counts) * w.size > _EXACT_SHOWN_WORK:
            return w
        exact = self._runner.exact_sum(live)
        values = None if exact is None else self._learner.exact_weights(exact)
        if values is None or len(values) != w.size:
            return w
        return np.array([float(v) for v in values]).reshape(w.shape)

    @property
    def state(self) -> FloatArray:
        """A copy of the learner's weights as it keeps them ((w⁺, w⁻) for Balanced Winnow)."""
        return np.array(self._live.state.w)

    @property
    def learner_state(self) -> State:
        """The learner's whole state after the latest trial (immutable)."""
        return self._learner.state_after(self._live.state, self._live.trials)

    @property
    def initial_weights(self) -> FloatArray:
        return np.array(self._learner.weights(self._initial), dtype=np.float64)

    @property
    def tie(self) -> str:
        """What a score of exactly 0 means in this run (see TIES)."""
        return self.settings.tie or self._learner.tie

    @property
    def threshold(self) -> float:
        return float(self._learner.threshold)

    @property
    def trials(self) -> int:
        return self._live.trials

    @property
    def mistakes(self) -> int:
        return self._live.mistakes

    @property
    def epoch(self) -> int:
        """The epoch of the latest trial (0 before the first)."""
        return self._history.epoch_of(self._live.trials)

    @property
    def epoch_length(self) -> int:
        """Trials in an epoch: one per point, or per training row (Kessler's vectors)."""
        return len(self._train_y)

    @property
    def trials_left_in_epoch(self) -> int:
        """Trials until the current epoch ends (a whole epoch if it just ended)."""
        segment = self._current_segment()
        if segment is None:
            return self.epoch_length
        return segment.n - (self._live.trials - segment.start) % segment.n

    def _current_segment(self) -> Segment | None:
        """The segment the next trial continues, if it runs on the current data."""
        segment = self._history.segment_continuing_from(self._live.trials)
        return segment if segment is not None and segment.dataset is self._dataset else None

    def _event(self, name: str) -> int | None:
        segment = self._current_segment()
        at = None if segment is None else getattr(segment, name)
        return at if at is not None and at <= self._live.trials else None

    @property
    def converged_at(self) -> int | None:
        """The trial that completed the first settled epoch on the current data."""
        return self._event("converged_at")

    @property
    def converged(self) -> bool:
        return self.converged_at is not None

    @property
    def cycle_found_at(self) -> int | None:
        """The trial at which the state at an epoch start was seen to repeat an earlier one
        on the current data (cyclic order): from there it cycles forever."""
        return self._event("cycle_found_at")

    @property
    def cycle_period(self) -> int | None:
        """P: the state at the start of an epoch equals the one P epochs earlier."""
        segment = self._current_segment()
        return None if self.cycle_found_at is None or segment is None else segment.cycle_period

    @property
    def diverged(self) -> bool:
        return self._live.diverged_at is not None

    @property
    def diverged_at(self) -> int | None:
        return self._live.diverged_at

    @property
    def divergence_reason(self) -> str | None:
        return self._history.divergence_reason if self.diverged else None

    # -- the learner's own views ---------------------------------------------------------------

    def _points_features(self, points: ArrayLike) -> FloatArray:
        P = np.asarray(points, dtype=np.float64)
        if P.ndim == 1:
            P = P.reshape(1, -1)
        if P.ndim != 2 or P.shape[1] != self._dataset.dimension:
            raise ValueError(
                f"points must have {self._dataset.dimension} coordinates; got shape {P.shape}"
            )
        return self._features.transform(P)

    def decision(self, points: ArrayLike) -> FloatArray:
        """The learner's scores of `points` (input coordinates): (m,) for two classes, (m, K)
        for K, from the same vector, vote or dual sum that `predict` uses."""
        X = self._points_features(points)
        return self._learner.decision(self._live.state, X, trials=self._live.trials)

    def predict(self, points: ArrayLike) -> NDArray[np.int64]:
        """The labels the learner predicts for `points`, as in the dataset (±1 or 0 … K−1),
        by its own rule (pocket by the pocket, averaged by w̄, voted by vote, …)."""
        X = self._points_features(points)
        return self._learner.predict(self._live.state, X, self.tie, trials=self._live.trials)

    def companion(self, role: str) -> FloatArray:
        """A second weight vector: "pocket", "average", EG's "positive" / "negative"."""
        state, trials = self._live.state, self._live.trials
        return np.array(self._learner.companion(state, role, trials=trials), dtype=np.float64)

    @property
    def votes(self) -> tuple[FloatArray, NDArray[np.int64]]:
        """(vectors (m, D), counts (m,)): the voted perceptron's vectors and their votes."""
        return self._learner.votes(self._live.state)

    @property
    def dual(self) -> FloatArray | None:
        """α (n,), the kernel perceptron's dual coefficients of the current points."""
        return self._learner.dual(self._live.state, self._X, self._dataset.labels)

    # -- the current data as written ---------------------------------------------------------

    def _exact_row(self, i: int) -> tuple[tuple[int, int, int], ...]:
        """Training row i in exact decimals (a point's, or a row the learner made of one)."""
        rows = self._rows
        p = i if rows is None else int(rows.points[i])
        point = self._features.exact_row(self._dataset.points[p], self._X[p])
        return point if rows is None else rows.digits(point, i)
