"""`Simulation`: an online learner run one trial at a time over a `Dataset`, with history.

Schedule. Trials come in epochs, one pass over the data each: in dataset order
(``order="cyclic"``) or in a fresh permutation per epoch (``order="random"``) drawn from
``(seed, epoch)``, so the same arguments give the same trajectory, bit for bit.

Editing the data. `replace_dataset` keeps the weights and the counters (online learning
goes on) and starts a new epoch over the new data; convergence is then judged afresh.

Convergence. A mistake-driven rule has converged when a whole epoch passed with no update.
Adaline has converged when an epoch moved no weight by more than
``tolerance · max(1, max|w|)``. `run` stops there; `step` goes on regardless.

Divergence. When an update would make a weight non-finite or larger than 1e150 (its
square would overflow), or a score overflows, the simulation keeps the last finite
weights, stops updating, and says why in `divergence_reason`.

History. Every trial is recorded compactly (the row it used, its score, whether it was a
mistake; the weights after each update), so `trial(t)` rebuilds any past `Trial` and
`seek(t)` restores the learner exactly as it was after trial t. Rewinding restores the
learner, not the data: the points stay as they are now. Stepping on from a rewound state
discards the old future.

Fast path. Between updates the weights are fixed, so `run` scores the upcoming trials
in one go and jumps to the next update: a small compiled loop (`_scan.c`) when it was
built, else NumPy blocks. Scores are computed row-independently with the same arithmetic
as `rules.dot_columns`, so either way this gives exactly the trajectory of `step`.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator.engine.dataset import Dataset
from simulator.engine.features import FeatureMap, InputLine
from simulator.engine.rules import TIES, Rule, make_rule
from simulator.engine.theory import (
    AdalineReport,
    MarginReport,
    adaline_report,
    general_mistake_bound,
    margin_report_for,
    monotone_disjunction,
    signed_margin,
    winnow_disjunction_bound,
)

__all__ = ["ORDERS", "Settings", "Simulation", "Snapshot", "Trial"]

FloatArray = NDArray[np.float64]
ORDERS = ("cyclic", "random")
_OVERFLOW = 1e150
_MAX_BLOCK = 1 << 16

try:  # the compiled scan (setup.py builds it when a C compiler is there)
    from simulator.engine._scan import scan as _compiled_scan  # type: ignore[import-not-found]
except ImportError:  # the NumPy path gives the same trajectory, bit for bit
    _compiled_scan = None


@dataclass(frozen=True, slots=True)
class Trial:
    """One trial: the point shown, the prediction, and what the rule did about it.

    `x` is the feature vector (bias first), `point` the raw input coordinates; the
    weights are the effective w (feature order) before and after the trial.
    """

    number: int
    index: int
    epoch: int
    x: tuple[float, ...]
    y: int
    score: float
    prediction: int
    mistake: bool
    weights_before: tuple[float, ...]
    weights_after: tuple[float, ...]
    point: tuple[float, ...]

    @property
    def updated(self) -> bool:
        return self.weights_before != self.weights_after

    @property
    def delta(self) -> tuple[float, ...]:
        """Δw = weights_after − weights_before."""
        return tuple(a - b for a, b in zip(self.weights_after, self.weights_before, strict=True))


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything that defines a run besides the data. `None` means the rule's default.

    `tie` is what a score of exactly 0 means (see rules.TIES); None takes the rule's own:
    "mistake" for the perceptron and Adaline, "positive" (+ iff w·x >= θ) for the Winnows.
    """

    algorithm: str = "perceptron"
    learning_rate: float | None = None
    promotion: float = 2.0
    threshold: float | None = None
    mode: str = "online"
    tie: str | None = None
    bias: bool = True
    preprocessing: str = "none"
    order: str = "cyclic"
    seed: int = 0
    initial_weights: str | tuple[float, ...] | None = None
    tolerance: float = 1e-6

    def as_kwargs(self) -> dict[str, Any]:
        return asdict(self)


_DEFAULTS = Settings()  # the one place the defaults are written (Simulation and the CLI use it)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The learner's state after `trials` trials, as plain values for views."""

    trials: int
    mistakes: int
    epoch: int
    weights: tuple[float, ...]
    threshold: float
    converged: bool
    converged_at: int | None
    diverged: bool
    divergence_reason: str | None
    last_trial: Trial | None
    margin: float
    misclassified: NDArray[np.bool_]


class _Buffer:
    """A growable NumPy array (rows appended at amortised O(1), truncation free).

    It grows by half, not double, to keep a million-trial history within 64 MB.
    """

    __slots__ = ("_data", "_size")

    def __init__(self, dtype: Any, width: int | None = None) -> None:
        shape = (1024,) if width is None else (1024, width)
        self._data: NDArray[Any] = np.empty(shape, dtype=dtype)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def _reserve(self, extra: int) -> None:
        need = self._size + extra
        if need > self._data.shape[0]:
            capacity = max(need, self._data.shape[0] * 3 // 2 + 1024)
            grown = np.empty((capacity, *self._data.shape[1:]), dtype=self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown

    def append(self, value: Any) -> None:
        self._reserve(1)
        self._data[self._size] = value
        self._size += 1

    def extend(self, values: NDArray[Any]) -> None:
        k = values.shape[0]
        self._reserve(k)
        self._data[self._size : self._size + k] = values
        self._size += k

    def truncate(self, size: int) -> None:
        self._size = min(self._size, size)

    @property
    def view(self) -> NDArray[Any]:
        return self._data[: self._size]

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)


@dataclass(eq=False)
class _Segment:
    """A stretch of trials over one dataset; it starts after `start` trials, at an epoch start."""

    start: int
    first_epoch: int
    dataset: Dataset
    X: FloatArray
    y: NDArray[np.int8]
    converged_at: int | None = None
    signed_columns: tuple[FloatArray, ...] = ()

    def __post_init__(self) -> None:
        # Contiguous columns of z = y x: the fast path gets y·s = w·z − yθ from them.
        self.signed_columns = tuple(np.ascontiguousarray(c) for c in (self.y[:, None] * self.X).T)

    @property
    def n(self) -> int:
        return int(self.y.shape[0])


@dataclass
class _Live:
    """Bookkeeping of the epoch in progress (derived from history on `seek`)."""

    epoch_updates: int = 0
    epoch_start_state: FloatArray = field(default_factory=lambda: np.zeros(0))


class Simulation:
    """An online linear classifier learning from a dataset one trial at a time.

    Parameters (keyword-only after `algorithm`):
        algorithm: "perceptron", "winnow", "balanced-winnow" or "adaline".
        learning_rate: η > 0 (Perceptron 1, Adaline 0.1 by default).
        promotion: α > 1 for the Winnows (default 2).
        threshold: θ for classic Winnow (default: the number of features).
        mode: Adaline's "online" (LMS per trial) or "batch" (one gradient step per epoch).
        tie: what a score of exactly 0 means: "mistake", "positive" or "negative"
            (None: the rule's default, `Rule.tie`).
        bias: prepend the constant feature 1 (default True).
        preprocessing: "none", "standardize" or "unit" (see `features`).
        order: "cyclic" or "random" (a fresh permutation per epoch from `seed`).
        seed: seeds the random order and random initial weights.
        initial_weights: None (the rule's default: 0, or 1 for the Winnows), "zeros",
            "ones", "random", or the numbers (shape (n_features,), or (2, n_features) for
            Balanced Winnow's (w⁺, w⁻)).
        tolerance: Adaline's convergence tolerance (relative).
    """

    def __init__(
        self,
        dataset: Dataset,
        algorithm: str = _DEFAULTS.algorithm,
        *,
        learning_rate: float | None = _DEFAULTS.learning_rate,
        promotion: float = _DEFAULTS.promotion,
        threshold: float | None = _DEFAULTS.threshold,
        mode: str = _DEFAULTS.mode,
        tie: str | None = _DEFAULTS.tie,
        bias: bool = _DEFAULTS.bias,
        preprocessing: str = _DEFAULTS.preprocessing,
        order: str = _DEFAULTS.order,
        seed: int = _DEFAULTS.seed,
        initial_weights: str | ArrayLike | None = None,
        tolerance: float = _DEFAULTS.tolerance,
    ) -> None:
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, not {type(dataset).__name__}")
        if tie is not None and tie not in TIES:
            raise ValueError(f"unknown tie rule {tie!r}; choose one of {', '.join(TIES)}")
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r}; choose one of {', '.join(ORDERS)}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"the seed must be a whole number >= 0; got {seed!r}")
        if not (math.isfinite(tolerance) and tolerance > 0):
            raise ValueError(f"the tolerance must be a positive number; got {tolerance!r}")
        if isinstance(initial_weights, str) or initial_weights is None:
            initial: str | tuple[float, ...] | None = initial_weights
        else:
            initial = tuple(np.asarray(initial_weights, dtype=np.float64).ravel().tolist())
        n_features = dataset.dimension + (1 if bias else 0)
        self._rule: Rule = make_rule(
            algorithm,
            n_features,
            learning_rate=learning_rate,
            promotion=promotion,
            threshold=threshold,
            mode=mode,
        )
        self._features = FeatureMap(dataset, bias=bias, preprocessing=preprocessing)
        self._initial_state = self._rule.initial_state(
            n_features,
            initial_weights,
            np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(0,))),
        )
        self._initial_state.setflags(write=False)
        self.settings = Settings(
            algorithm=algorithm,
            learning_rate=learning_rate,
            promotion=float(promotion),
            threshold=threshold,
            mode=mode,
            tie=tie,
            bias=bool(bias),
            preprocessing=preprocessing,
            order=order,
            seed=int(seed),
            initial_weights=initial,
            tolerance=float(tolerance),
        )
        size = self._initial_state.size
        self._snapshot_stride = 1 if size <= 16 else math.ceil(size / 16)
        # history
        self._indices = _Buffer(np.int32)
        self._scores = _Buffer(np.float64)
        self._mistake_flags = _Buffer(np.bool_)
        self._update_trials = _Buffer(np.int64)
        self._snapshots = _Buffer(np.float64, width=size)
        self._segments: list[_Segment] = []
        self._diverged_at: int | None = None
        self._divergence_reason: str | None = None
        # live state
        self._state: FloatArray = self._initial_state.copy()
        self._trials = 0
        self._mistakes = 0
        self._live = _Live(epoch_start_state=self._state.copy())
        self._order_cache: tuple[_Segment, int, NDArray[np.intp]] | None = None
        self._block = 64
        self._set_current(dataset)

    @classmethod
    def from_settings(cls, dataset: Dataset, settings: Settings) -> Simulation:
        return cls(dataset, **settings.as_kwargs())

    def _set_current(self, dataset: Dataset) -> None:
        if dataset.dimension + (1 if self._features.bias else 0) != self._initial_state.shape[-1]:
            raise ValueError(
                f"the new data have {dataset.dimension} coordinates; this run has "
                f"{self._initial_state.shape[-1] - (1 if self._features.bias else 0)}"
            )
        self._dataset = dataset
        self._features = FeatureMap(
            dataset, bias=self._features.bias, preprocessing=self._features.preprocessing
        )
        X = self._features.transform(dataset.points)
        X.setflags(write=False)
        self._X = X
        self._margin_report: MarginReport | None = None
        self._adaline_report: AdalineReport | None = None

    # -- public state --------------------------------------------------------------------------

    @property
    def dataset(self) -> Dataset:
        return self._dataset

    @property
    def rule(self) -> Rule:
        return self._rule

    @property
    def features(self) -> FeatureMap:
        return self._features

    @property
    def feature_matrix(self) -> FloatArray:
        """The feature vectors of the current data, read-only (n, n_features)."""
        return self._X

    @property
    def weights(self) -> FloatArray:
        """A copy of the effective w, in feature order (bias first when bias=True)."""
        return np.array(self._rule.weights(self._state), dtype=np.float64)

    @property
    def state(self) -> FloatArray:
        """A copy of the rule's full state ((w⁺, w⁻) for Balanced Winnow)."""
        return self._state.copy()

    @property
    def initial_weights(self) -> FloatArray:
        return np.array(self._rule.weights(self._initial_state), dtype=np.float64)

    @property
    def tie(self) -> str:
        """What a score of exactly 0 means in this run (see rules.TIES)."""
        return self.settings.tie or self._rule.tie

    @property
    def threshold(self) -> float:
        return float(self._rule.threshold)

    @property
    def trials(self) -> int:
        return self._trials

    @property
    def mistakes(self) -> int:
        return self._mistakes

    @property
    def epoch(self) -> int:
        """The epoch of the latest trial (0 before the first)."""
        return self._epoch_of(self._trials) if self._trials else 0

    @property
    def trials_left_in_epoch(self) -> int:
        """Trials until the current epoch ends (a whole epoch if it just ended)."""
        segment = self._segment_continuing_from(self._trials)
        n = len(self._dataset)
        if segment is None or segment.dataset is not self._dataset:
            return n
        return n - (self._trials - segment.start) % n

    @property
    def history_length(self) -> int:
        """How many trials are recorded (more than `trials` after a rewind)."""
        return len(self._indices)

    @property
    def converged_at(self) -> int | None:
        """The trial that completed the first epoch with no update on the current data."""
        segment = self._segment_continuing_from(self._trials)
        if segment is None or segment.dataset is not self._dataset:
            return None
        at = segment.converged_at
        return at if at is not None and at <= self._trials else None

    @property
    def converged(self) -> bool:
        return self.converged_at is not None

    @property
    def diverged(self) -> bool:
        return self._diverged_at is not None and self._diverged_at <= self._trials

    @property
    def diverged_at(self) -> int | None:
        return self._diverged_at if self.diverged else None

    @property
    def divergence_reason(self) -> str | None:
        return self._divergence_reason if self.diverged else None

    # -- theory of the current data ----------------------------------------------------------------

    def margin_report(self) -> MarginReport:
        """R, γ*, R²/γ*² and the optimal separator of the current data (cached)."""
        if self._margin_report is None:
            self._margin_report = margin_report_for(self._X, self._dataset.labels)
        return self._margin_report

    def adaline_report(self) -> AdalineReport:
        """Least squares and Adaline's stable learning rates for the current data (cached)."""
        if self._adaline_report is None:
            self._adaline_report = adaline_report(self._X, self._dataset.labels)
        return self._adaline_report

    def mistake_bound(self) -> float | None:
        """The mistake bound that applies to this run (see `Rule.bound`), or None.

        "novikoff" (the perceptron): R²/γ*² from w₀ = 0, the general bound from
        w₀·u + kηγ <= sqrt(|w₀|² + kη²R²) otherwise; inf when the data are not separable.
        "winnow-disjunction": 2 + 3r(1 + log₂ n) when the data are boolean and labelled by a
        monotone disjunction of r variables, and the run is the notes' Winnow (α = 2,
        θ = n, w₀ = 1, + iff w·x >= θ); None otherwise. nan when there are no points.
        """
        if len(self._dataset) == 0:
            return math.nan  # no data: undefined, not unbounded
        kind = self._rule.bound
        if kind == "novikoff":
            return self._novikoff_bound()
        if kind == "winnow-disjunction":
            return self._winnow_bound()
        return None

    @property
    def bound_is_general(self) -> bool:
        """Whether `mistake_bound` is Novikoff's general form (w₀ ≠ 0)."""
        return self._rule.bound == "novikoff" and bool(np.any(self.initial_weights))

    def _novikoff_bound(self) -> float:
        report = self.margin_report()
        if not report.separable or report.separator is None:
            return math.inf
        if not self.bound_is_general:
            return report.bound
        return general_mistake_bound(
            self.initial_weights,
            np.asarray(report.separator),
            report.gamma,
            report.radius,
            float(getattr(self._rule, "learning_rate", 1.0)),
        )

    def _winnow_bound(self) -> float | None:
        rule = self._rule
        n = self._X.shape[1]
        notes_setting = (
            getattr(rule, "promotion", None) == 2.0
            and rule.threshold == float(n)
            and self.tie == "positive"
            and np.all(self._initial_state == 1.0)
        )
        if not notes_setting:
            return None
        relevant = monotone_disjunction(self._X, self._dataset.labels)
        return None if relevant is None else winnow_disjunction_bound(relevant, n)

    def current_margin(self) -> float:
        """minᵢ yᵢ (w·xᵢ − θ)/|w| for the current w; nan when w = 0 or there is no data."""
        return signed_margin(self._signed_scores(), self._rule.weights(self._state))

    def misclassified(self) -> NDArray[np.bool_]:
        """Which current points the current w gets wrong (y·s <= 0), read-only."""
        return self._mistake_mask(self._signed_scores())

    def _signed_scores(self) -> FloatArray:
        """yᵢ sᵢ = yᵢ (w·xᵢ − θ) for every current point."""
        with np.errstate(over="ignore", invalid="ignore"):
            return self._dataset.labels * self._rule.scores(self._state, self._X)

    @staticmethod
    def _mistake_mask(signed: FloatArray) -> NDArray[np.bool_]:
        mask = ~(signed > 0)  # non-finite scores count as mistakes too
        mask.setflags(write=False)
        return mask

    def boundary(self) -> InputLine | None:
        """The decision boundary w·x = θ as a line in the input plane (None if it is not one)."""
        return self._features.input_line(self._rule.weights(self._state), self._rule.threshold)

    def snapshot(self) -> Snapshot:
        signed = self._signed_scores()  # one pass over the data serves margin and mistakes
        return Snapshot(
            trials=self._trials,
            mistakes=self._mistakes,
            epoch=self.epoch,
            weights=tuple(self.weights.tolist()),
            threshold=self.threshold,
            converged=self.converged,
            converged_at=self.converged_at,
            diverged=self.diverged,
            divergence_reason=self.divergence_reason,
            last_trial=self.last_trial,
            margin=signed_margin(signed, self._rule.weights(self._state)),
            misclassified=self._mistake_mask(signed),
        )

    # -- changing the data ---------------------------------------------------------------------

    def replace_dataset(self, dataset: Dataset) -> None:
        """Continue on new data: weights and counters stay; a new epoch starts next trial."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, not {type(dataset).__name__}")
        self._set_current(dataset)
        self._truncate_future()

    # -- running -----------------------------------------------------------------------------------

    def step(self) -> Trial:
        """Run one trial and return its record."""
        segment = self._prepare()
        epoch, position = self._position(segment, self._trials)
        i = int(self._order(segment, epoch)[position])
        before = self._rule.weights(self._state)
        with np.errstate(over="ignore", invalid="ignore"):
            score = float(self._rule.scores(self._state, segment.X[i : i + 1])[0])
            self._advance(segment, position, i, score)
        return self._make_trial(
            segment, self._trials, i, score, before, self._rule.weights(self._state)
        )

    def run(
        self,
        max_trials: int,
        *,
        until_converged: bool = True,
        stop_on_mistake: bool = False,
        budget_seconds: float | None = None,
    ) -> int:
        """Run up to `max_trials` trials; return how many ran.

        Stops early once converged or diverged (unless `until_converged=False`), right
        after a mistake (if `stop_on_mistake`), or when `budget_seconds` of wall time have
        passed (checked between blocks; the trajectory never depends on it).
        """
        if max_trials < 0:
            raise ValueError(f"max_trials must be >= 0; got {max_trials}")
        deadline = None if budget_seconds is None else time.perf_counter() + budget_seconds
        done = 0
        with np.errstate(over="ignore", invalid="ignore"):
            while done < max_trials:
                if until_converged and (self.converged or self.diverged):
                    break
                segment = self._prepare()
                rule = self._rule
                if self._diverged_at is None and not rule.mistake_driven and not rule.batch:
                    # Online Adaline updates on every trial: there is nothing to jump over.
                    epoch, position = self._position(segment, self._trials)
                    i = int(self._order(segment, epoch)[position])
                    score = float(rule.scores(self._state, segment.X[i : i + 1])[0])
                    mistakes = self._mistakes
                    self._advance(segment, position, i, score)
                    done += 1
                    if stop_on_mistake and self._mistakes > mistakes:
                        break
                else:
                    mistakes = self._mistakes
                    done += self._run_epoch(segment, max_trials - done, deadline, stop_on_mistake)
                    if stop_on_mistake and self._mistakes > mistakes:
                        break
                if deadline is not None and time.perf_counter() >= deadline:
                    break
        return done

    def _run_epoch(
        self, segment: _Segment, limit: int, deadline: float | None, stop_on_mistake: bool
    ) -> int:
        """Up to `limit` trials, within the current epoch, scoring blocks between updates.

        For mistake-driven rules, for batch Adaline (whose one update ends the epoch) and
        for any rule once diverged (no more updates). Blocks are scored as y·s = w·z − yθ
        (z = y x), so a mistake is a non-positive entry; updates are recorded at the end.
        """
        rule = self._rule
        epoch, start = self._position(segment, self._trials)
        order = self._order(segment, epoch)
        end = min(segment.n, start + limit)
        cyclic = self.settings.order == "cyclic"
        updating = self._diverged_at is None and rule.mistake_driven
        first_trial = self._trials + 1 - start  # the trial number at position 0
        state = self._state
        parts: list[FloatArray] = []
        update_trials: list[int] = []
        update_states: list[FloatArray] = []
        position = start
        scores = np.empty(end - start)  # the compiled scan writes here
        while position < end:
            signed, mistake = self._scan(
                segment,
                order,
                cyclic,
                state,
                position,
                end,
                updating or stop_on_mistake,
                scores[position - start :],
            )
            parts.append(signed)
            position += len(signed)
            if not mistake:
                continue
            if not updating:  # stop_on_mistake: stop after it
                break
            t, i = first_trial + position - 1, int(order[position - 1])
            y = int(segment.y[i])
            score = float(signed[-1]) * y
            new_state = rule.update(state, segment.X[i], y, score) if math.isfinite(score) else None
            if new_state is None or not self._acceptable(t, new_state):
                updating = False
                if stop_on_mistake:
                    break
                continue
            state = new_state
            update_trials.append(t)
            update_states.append(state)
            if stop_on_mistake or (deadline is not None and time.perf_counter() >= deadline):
                break
        ran = position - start
        if ran:
            labels = segment.y[start:position] if cyclic else segment.y[order[start:position]]
            signed = np.concatenate(parts)
            mistakes = ~(signed > 0)
            self._record(order[start:position], signed * labels, mistakes)
            self._mistakes += int(np.count_nonzero(mistakes))
            self._trials += ran
        self._state = state
        self._record_updates(update_trials, update_states)
        if position == segment.n:
            if rule.batch and self._diverged_at is None:
                self._apply_batch_update(segment)
            self._end_epoch(segment)
        return ran

    def _scan(
        self,
        segment: _Segment,
        order: NDArray[np.intp],
        cyclic: bool,
        state: FloatArray,
        position: int,
        end: int,
        find_mistake: bool,
        out: FloatArray,
    ) -> tuple[FloatArray, bool]:
        """Signed scores y·s of trials `position`.. with fixed weights, up to `end` or through
        the first mistake (if `find_mistake`); and whether the last one is a mistake.

        The compiled loop (_scan.c) stops right at the mistake, writing into `out`; without
        it, NumPy scores blocks sized to the gaps between mistakes seen so far. Same bits.
        """
        rule = self._rule
        if find_mistake and _compiled_scan is not None and len(segment.signed_columns) <= 64:
            weights = tuple(rule.weights(state).tolist())
            count = _compiled_scan(
                segment.signed_columns,
                weights,
                float(rule.threshold),
                segment.y,
                order,
                cyclic,
                position,
                end,
                out,
            )
            signed = out[:count]
            return signed, count > 0 and not signed[-1] > 0
        m = min(self._block, end - position)
        if cyclic:
            columns = [c[position : position + m] for c in segment.signed_columns]
            signs = segment.y[position : position + m] if rule.threshold else 1.0
        else:
            rows = order[position : position + m]
            columns = [c[rows] for c in segment.signed_columns]
            signs = segment.y[rows] if rule.threshold else 1.0
        signed = rule.signed_scores(state, columns, signs)
        if find_mistake:
            correct = signed > 0  # False for mistakes and for non-finite scores
            f = int(correct.argmin())
            if not correct[f]:
                self._block = min(64 + 2 * f, _MAX_BLOCK)  # sized to the gap between mistakes
                return signed[: f + 1], True
        self._block = min(2 * self._block, _MAX_BLOCK)
        return signed, False

    # -- one trial -------------------------------------------------------------------------------

    def _advance(self, segment: _Segment, position: int, i: int, score: float) -> None:
        """Record trial (row i, its score) and apply the rule's update, if any."""
        t = self._trials + 1
        y = int(segment.y[i])
        mistake = not y * score > 0
        self._record(np.array([i], dtype=np.int32), np.array([score]), np.array([mistake]))
        self._trials = t
        self._mistakes += mistake
        if self._diverged_at is None:
            new_state: FloatArray | None = None
            rule = self._rule
            if not math.isfinite(score):
                self._diverge(t, f"the score w·x overflowed at trial {t}")
            elif rule.batch:
                if position == segment.n - 1:
                    self._apply_batch_update(segment)
            elif mistake or not rule.mistake_driven:
                new_state = rule.update(self._state, segment.X[i], y, score)
            if new_state is not None:
                self._accept(t, new_state)
        if position == segment.n - 1:
            self._end_epoch(segment)

    def _accept(self, t: int, new_state: FloatArray) -> None:
        """Take the update of trial t, unless it overflowed."""
        if self._acceptable(t, new_state):
            self._state = new_state
            self._record_updates([t], [new_state])

    def _acceptable(self, t: int, new_state: FloatArray) -> bool:
        """Whether trial t's update stays finite and below 1e150; if not, diverge."""
        if new_state.size <= 16:  # plain floats are quicker than NumPy for a few numbers
            within = all(-_OVERFLOW <= v <= _OVERFLOW for v in new_state.ravel().tolist())
        else:
            within = bool(np.abs(new_state).max() <= _OVERFLOW)
        if within:  # NaN fails both tests
            return True
        self._diverge(t, self._divergence_message(t))
        return False

    def _apply_batch_update(self, segment: _Segment) -> None:
        """Batch Adaline's step at the end of the epoch that the latest trial completed."""
        self._accept(self._trials, self._batch_update(self._state, self._trials, segment))

    def _batch_update(self, state: FloatArray, t: int, segment: _Segment) -> FloatArray:
        """Adaline's batch step at the end of the epoch ending with trial t."""
        first = t - segment.n  # trials first+1 .. t form the epoch
        rows = self._indices.view[first:t]
        return self._rule.update_batch(  # type: ignore[attr-defined,no-any-return]
            state, segment.X[rows], segment.y[rows], self._scores.view[first:t]
        )

    def _divergence_message(self, t: int) -> str:
        rule = self._rule
        if not rule.mistake_driven:  # Adaline: η too large for these data
            report = self.adaline_report()
            limit = report.batch_rate_limit if rule.batch else report.online_rate_limit
            return (
                f"{rule.title} diverged at trial {t}: the weights grew past 1e150. "
                f"η = {getattr(rule, 'learning_rate', math.nan):g} is too large; "
                f"η < {limit:.4g} suffices for {'batch' if rule.batch else 'online'} stability"
            )
        return (
            f"{rule.title} overflowed at trial {t}: a weight grew past 1e150, so it stopped "
            "updating (try a smaller α or scaled data)"
        )

    def _diverge(self, t: int, reason: str) -> None:
        self._diverged_at = t
        self._divergence_reason = reason

    def _end_epoch(self, segment: _Segment) -> None:
        if self._diverged_at is None and segment.converged_at is None:
            if self._rule.mistake_driven:
                settled = self._live.epoch_updates == 0
            else:
                change = float(np.max(np.abs(self._state - self._live.epoch_start_state)))
                settled = change <= self.settings.tolerance * max(
                    1.0, float(np.max(np.abs(self._state)))
                )
            if settled:
                segment.converged_at = self._trials
        self._live = _Live(0, self._state.copy())

    # -- history ---------------------------------------------------------------------------------

    def _record(
        self, indices: NDArray[Any], scores: FloatArray, mistakes: NDArray[np.bool_]
    ) -> None:
        self._indices.extend(indices)
        self._scores.extend(scores)
        self._mistake_flags.extend(mistakes)

    def _record_updates(self, trials: list[int], states: list[FloatArray]) -> None:
        """Record updates (trial numbers, states after), keeping every stride-th state."""
        if not trials:
            return
        before = len(self._update_trials)
        self._update_trials.extend(np.array(trials, dtype=np.int64))
        self._live.epoch_updates += len(trials)
        stride = self._snapshot_stride
        kept = [s.ravel() for k, s in enumerate(states, before + 1) if k % stride == 0]
        if kept:
            self._snapshots.extend(np.array(kept))

    def _truncate_future(self) -> None:
        """Forget recorded trials after the current one (they were computed for another past)."""
        t = self._trials
        if len(self._indices) > t:
            self._indices.truncate(t)
            self._scores.truncate(t)
            self._mistake_flags.truncate(t)
            updates = int(np.searchsorted(self._update_trials.view, t, side="right"))
            self._update_trials.truncate(updates)
            self._snapshots.truncate(updates // self._snapshot_stride)
            if self._diverged_at is not None and self._diverged_at > t:
                self._diverged_at = None
                self._divergence_reason = None
        while self._segments and self._segments[-1].start > t:
            self._segments.pop()
        if self._segments:
            last = self._segments[-1]
            if last.converged_at is not None and last.converged_at > t:
                last.converged_at = None

    def _prepare(self) -> _Segment:
        """The segment the next trial belongs to, opening one for new data if needed."""
        if len(self._dataset) == 0:
            raise ValueError("the dataset is empty: place some points before stepping")
        self._truncate_future()
        t = self._trials
        if self._segments and self._segments[-1].dataset is self._dataset:
            return self._segments[-1]
        if self._segments and self._segments[-1].start == t:
            self._segments.pop()  # no trials ran on that data
        first_epoch = self._epoch_of(t) + 1 if t else 1
        segment = _Segment(t, first_epoch, self._dataset, self._X, self._dataset.labels)
        self._segments.append(segment)
        self._live = _Live(0, self._state.copy())
        return segment

    def _segment_of_trial(self, t: int) -> _Segment:
        """The segment holding trial t (1 <= t <= history_length)."""
        for segment in reversed(self._segments):
            if segment.start < t:
                return segment
        raise IndexError(t)

    def _segment_continuing_from(self, t: int) -> _Segment | None:
        """The segment in which trial t + 1 would run, if the data had not changed."""
        for segment in reversed(self._segments):
            if segment.start <= t:
                return segment
        return None

    def _epoch_of(self, t: int) -> int:
        segment = self._segment_of_trial(t)
        return segment.first_epoch + (t - segment.start - 1) // segment.n

    def _position(self, segment: _Segment, t: int) -> tuple[int, int]:
        """(epoch, position in epoch) of the trial after t, within `segment`."""
        k = t - segment.start
        return segment.first_epoch + k // segment.n, k % segment.n

    def _order(self, segment: _Segment, epoch: int) -> NDArray[np.intp]:
        """The rows of `segment` in the order epoch `epoch` visits them."""
        cache = self._order_cache
        if cache is not None and cache[0] is segment and cache[1] == epoch:
            return cache[2]
        if self.settings.order == "cyclic":
            order = np.arange(segment.n)
        else:
            rng = np.random.default_rng(
                np.random.SeedSequence(self.settings.seed, spawn_key=(1, epoch))
            )
            order = rng.permutation(segment.n)
        self._order_cache = (segment, epoch, order)
        return order

    def _state_after(self, t: int) -> FloatArray:
        """The rule's state after trial t, from the snapshots (replaying at most a few updates)."""
        updates = int(np.searchsorted(self._update_trials.view, t, side="right"))
        base = updates // self._snapshot_stride
        state = (
            self._snapshots.view[base - 1].reshape(self._initial_state.shape)
            if base
            else self._initial_state
        )
        for q in range(base * self._snapshot_stride, updates):
            trial = int(self._update_trials.view[q])
            segment = self._segment_of_trial(trial)
            if self._rule.batch:
                state = self._batch_update(state, trial, segment)
            else:
                i = int(self._indices.view[trial - 1])
                state = self._rule.update(
                    state, segment.X[i], int(segment.y[i]), float(self._scores.view[trial - 1])
                )
        return np.array(state, dtype=np.float64)

    def trial(self, t: int) -> Trial:
        """The record of trial t (1-based), rebuilt from history."""
        if not 1 <= t <= len(self._indices):
            raise IndexError(f"no trial {t}: {len(self._indices)} trials are recorded")
        segment = self._segment_of_trial(t)
        i = int(self._indices.view[t - 1])
        return self._make_trial(
            segment,
            t,
            i,
            float(self._scores.view[t - 1]),
            self._rule.weights(self._state_after(t - 1)),
            self._rule.weights(self._state_after(t)),
        )

    @property
    def last_trial(self) -> Trial | None:
        return self.trial(self._trials) if self._trials else None

    def _make_trial(
        self, segment: _Segment, t: int, i: int, score: float, before: FloatArray, after: FloatArray
    ) -> Trial:
        y = int(segment.y[i])
        prediction = 0 if score == 0 or math.isnan(score) else (1 if score > 0 else -1)
        return Trial(
            number=t,
            index=i,
            epoch=segment.first_epoch + (t - segment.start - 1) // segment.n,
            x=tuple(segment.X[i].tolist()),
            y=y,
            score=score,
            prediction=prediction,
            mistake=not y * score > 0,
            weights_before=tuple(before.tolist()),
            weights_after=tuple(after.tolist()),
            point=tuple(segment.dataset.points[i].tolist()),
        )

    def seek(self, t: int) -> None:
        """Restore the learner exactly as it was after trial t (0 <= t <= history_length)."""
        if not 0 <= t <= len(self._indices):
            raise ValueError(f"cannot seek to trial {t}: {len(self._indices)} trials are recorded")
        self._state = self._state_after(t)
        self._trials = t
        self._mistakes = int(np.count_nonzero(self._mistake_flags.view[:t]))
        segment = self._segment_continuing_from(t)
        if segment is None:
            self._live = _Live(0, self._state.copy())
            return
        k = t - segment.start
        epoch_start = t - k % segment.n
        updates = self._update_trials.view
        count = int(
            np.searchsorted(updates, t, side="right")
            - np.searchsorted(updates, epoch_start, side="right")
        )
        self._live = _Live(count, self._state_after(epoch_start))

    def history_nbytes(self) -> int:
        """Memory held by the history buffers, in bytes."""
        buffers = (
            self._indices,
            self._scores,
            self._mistake_flags,
            self._update_trials,
            self._snapshots,
        )
        return sum(b.nbytes for b in buffers)
