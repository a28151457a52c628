"""`Simulation`: an online learner run one trial at a time over a `Dataset`.

Schedule. Trials come in epochs, one pass over the data each: in dataset order
(``order="cyclic"``) or in a fresh permutation per epoch (``order="random"``) drawn from
``(seed, epoch)``, so the same arguments give the same trajectory, bit for bit.

Editing the data. `replace_dataset` keeps the weights and the counters (online learning
goes on) and starts a new epoch over the new data; convergence is then judged afresh.

Ties. What a score of exactly 0 means is the run's tie rule (`tie`). A computed score
within the rounding-error bound that the rule keeps for its weights (see `rules`) is an
exact 0: recorded as 0.0 and decided by the tie rule, so data written in decimals follow
the trajectory of exact rational arithmetic (iris: 1518 mistakes for any η, not 1562).
Within that bound the score is first computed again in twice the precision and held to a
far smaller bound (`_snap`), so rounding cannot swamp a small score at extreme scales:
inputs of 1e-8 or 1.7e8 beside a bias weight converge as exact arithmetic does. Weights
built exactly (η and inputs short binary numbers: whole numbers, halves, the bias) carry
no error bound at all. What stays out of reach: an inexact weight (η = 0.1, or decimals
like 3e150 that binary cannot hold) that is exactly 0 in rationals next to a term of a
far smaller scale; its rounding hides that term, and the trial counts as a tie.

Convergence. A mistake-driven rule has converged when a whole epoch passed with no update.
Adaline has converged when an epoch moved no weight by more than
``tolerance · max(1, max|w|)``. `run` stops there; `step` goes on regardless.

Cycles. In cyclic order on unchanged data, when w at the start of an epoch repeats, bit
for bit, w at an earlier epoch start, the run repeats itself forever: `cycle_period` (P
epochs) and `cycle_found_at` say so, and `run` stops there as at convergence. Brent's
search needs O(1) memory however long the run (the tie bounds keep growing along a
cycle, but they decide nothing new until they reach the data's resolution).

Divergence. When an update would make a weight non-finite or larger than 1e150 (its
square would overflow), or a score overflows, or (Adaline) the mean squared error at the
end of an epoch has grown a millionfold over its smallest value on these data (w₀
included), or (the Winnows) a weight would underflow to 0, the simulation keeps the last
weights, stops updating, and says why in `divergence_reason`; `run` stops there.

History. The trajectory is a function of the settings and the data, so it is not stored
trial by trial: `History` keeps the mistakes, the epoch losses and checkpoints of the live
state every few hundred updates (or after enough trials), and `seek`, `trial`,
`trial_records` and `weights_after_mistakes` replay from the nearest checkpoint with the
same run code, recording off. Rewinding restores the learner, not the data: the points
stay as they are now. Stepping on from a rewound state discards the old future.

Repeating epochs. Once every epoch on the same data repeats the one before it bit for bit
(a converged perceptron or Winnow; online or batch Adaline at a fixed point of its floats,
in cyclic order), `run` and replay jump over whole epochs, recording their mistakes and
losses shifted: a seek or a session replay far past that point costs what one to it does.

Fast path. Between updates the weights are fixed, so `run` scores the upcoming trials in
one go and jumps to the next update: a small compiled loop (`_scan.c`) when it was built,
else NumPy blocks. Scores are computed row-independently with the arithmetic of
`rules.numpy_dot_rows`, and ties are decided by the same rule, so either way this gives
exactly the trajectory of `step` (which always uses NumPy).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator.engine import rules
from simulator.engine.dataset import Dataset
from simulator.engine.features import FeatureMap, InputLine
from simulator.engine.history import History, Segment
from simulator.engine.records import DEFAULTS, Settings, Snapshot, Trial
from simulator.engine.rules import TIES, Rule, make_rule, numpy_dot_rows
from simulator.engine.theory import (
    AdalineReport,
    MarginReport,
    adaline_report,
    general_mistake_bound,
    least_squares_solution,
    margin_report_for,
    monotone_disjunction,
    signed_margin,
    winnow_disjunction_bound,
)

__all__ = ["MAX_SEED", "ORDERS", "Settings", "Simulation", "Snapshot", "Trial"]

FloatArray = NDArray[np.float64]
ORDERS = ("cyclic", "random")
MAX_SEED = 2**31 - 1
"""The largest seed, 2³¹ − 1: what the window's seed box (a C int) can show and keep."""
_OVERFLOW = 1e150
_MAX_BLOCK = 1 << 16  # NumPy path: rows scored at once
_CHECKPOINT_UPDATES = 256  # a checkpoint at least every this many updates...
_CHECKPOINT_WORK = 1 << 22  # ...and every this many trials x features
_GROWTH = 1e6  # Adaline diverges once its epoch loss grows this much over its minimum...
_LOSS_FLOOR = 1e-9  # ...counted from at least this (an exact fit has loss 0)


@dataclass(slots=True)
class _Terms:
    """What deciding a trial needs besides the data: the effective w and the tie bound's
    coefficients (b = Σ|x_j| c_j + theta_err), and `bmax`, b's bound over all rows of
    `segment` (computed when first needed)."""

    w: FloatArray
    c: FloatArray
    theta_err: float
    theta: float = 0.0
    e: FloatArray = field(default_factory=lambda: np.zeros(0))  # w's error bound (or none)
    theta_r: float = 0.0  # see rules.refine_coefficients
    bmax: float = math.nan
    segment: Segment | None = None


@dataclass(frozen=True, slots=True)
class _Leg:
    """How `_advance` runs a stretch of trials: whether it writes the history, and what
    ends it early: the first mistake, the wall-clock `deadline` (`time.perf_counter`), or
    `update_budget` updates. `sink` collects the effective w after each mistake (replay)."""

    record: bool
    stop_on_mistake: bool = False
    deadline: float | None = None
    update_budget: int | None = None
    sink: list[FloatArray] | None = None


_REPLAY = _Leg(record=False)


@dataclass(slots=True)
class _LastTrial:
    """The latest trial of a live state, enough to build its `Trial` on demand."""

    number: int
    segment: Segment
    index: int
    signed: float  # y·s as decided (0.0 for a tie)
    mistake: bool
    before: FloatArray
    after: FloatArray


@dataclass(slots=True)
class _Live:
    """The learner's whole state after `trials` trials: what a checkpoint stores.

    Besides the rule's state: the running rounding-error bound of the weights (`error`),
    the counters, the bookkeeping of the epoch in progress (updates so far, the state at
    its start), the smallest epoch loss on these data (Adaline's divergence test), and
    Brent's cycle search over epoch-start states (`power`, `lam`, `tortoise`).
    """

    state: FloatArray
    error: FloatArray
    epoch_start: FloatArray
    tortoise: FloatArray
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
    terms: _Terms | None = None
    last: _LastTrial | None = None

    def copy(self) -> _Live:
        # The arrays are never changed in place, so sharing them is safe; `terms` is a
        # cache of what the state and a segment determine.
        return replace(self)


class Simulation:
    """An online linear classifier learning from a dataset one trial at a time.

    Parameters (keyword-only after `algorithm`):
        algorithm: "perceptron", "winnow", "balanced-winnow" or "adaline".
        learning_rate: η > 0 (Perceptron: 1; Adaline: derived from the data, half the
            sufficient stable bound, see `rules.Adaline.default_rate`).
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
        algorithm: str = DEFAULTS.algorithm,
        *,
        learning_rate: float | None = DEFAULTS.learning_rate,
        promotion: float = DEFAULTS.promotion,
        threshold: float | None = DEFAULTS.threshold,
        mode: str = DEFAULTS.mode,
        tie: str | None = DEFAULTS.tie,
        bias: bool = DEFAULTS.bias,
        preprocessing: str = DEFAULTS.preprocessing,
        order: str = DEFAULTS.order,
        seed: int = DEFAULTS.seed,
        initial_weights: str | ArrayLike | None = None,
        tolerance: float = DEFAULTS.tolerance,
    ) -> None:
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, not {type(dataset).__name__}")
        if tie is not None and tie not in TIES:
            raise ValueError(f"unknown tie rule {tie!r}; choose one of {', '.join(TIES)}")
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r}; choose one of {', '.join(ORDERS)}")
        if (
            isinstance(seed, bool)
            or not isinstance(seed, int | np.integer)
            or not (0 <= seed <= MAX_SEED)
        ):
            raise ValueError(f"the seed must be a whole number 0 … {MAX_SEED}; got {seed!r:.40}")
        if not (math.isfinite(tolerance) and tolerance > 0):
            raise ValueError(f"the tolerance must be a positive number; got {tolerance!r}")
        if isinstance(initial_weights, str) or initial_weights is None:
            initial: str | tuple[float, ...] | None = initial_weights
        else:
            initial = tuple(np.asarray(initial_weights, dtype=np.float64).ravel().tolist())
        n_features = dataset.dimension + (1 if bias else 0)
        self._features = FeatureMap(dataset, bias=bias, preprocessing=preprocessing)
        X = self._features.transform(dataset.points)
        self._n_features = n_features
        self.settings = Settings(
            algorithm=algorithm,
            learning_rate=learning_rate,
            promotion=promotion,
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
        self._rule: Rule = self._build_rule(X)  # checks the rule's parameters, so first
        self.settings = replace(self.settings, promotion=float(promotion))
        self._initial_state = self._rule.initial_state(
            n_features,
            initial_weights,
            np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(0,))),
        )
        self._initial_state.setflags(write=False)
        self._cyclic = order == "cyclic"
        self._tie_code = TIES.index(self.tie)
        self._tracks_error = self._rule.tracks_error
        self._no_error = np.zeros(n_features)
        self._no_error.setflags(write=False)
        self._no_refine = np.zeros(0)
        self._no_refine.setflags(write=False)
        self._theta_r: tuple[float, float] | None = None
        size = self._initial_state.size
        self._float_width = 1 + size * (
            1 + self._tracks_error + (not self._rule.mistake_driven) + self._cyclic
        )
        self._history = History(int_width=7, float_width=self._float_width)
        # A replay from a checkpoint costs at most _CHECKPOINT_WORK trials x features and
        # _CHECKPOINT_UPDATES updates; wide states space them out to cost at most about
        # 16 bytes per trial and 256 per update.
        checkpoint_bytes = 8 * (7 + self._float_width)
        self._checkpoint_trials = max(_CHECKPOINT_WORK // n_features, checkpoint_bytes // 16)
        self._checkpoint_updates = max(_CHECKPOINT_UPDATES, checkpoint_bytes // 256)
        self._order_cache: tuple[Segment, int, NDArray[np.intp]] | None = None
        self._block = 64
        self._set_current(dataset, X)
        state = np.array(self._initial_state)
        given = initial_weights is not None and not isinstance(initial_weights, str)
        self._live = _Live(
            state=state,
            error=self._rule.initial_error(state, given) if self._tracks_error else state * 0.0,
            epoch_start=state,
            tortoise=state,
        )
        self._history.add_checkpoint(*self._pack(self._live))

    @classmethod
    def from_settings(
        cls, dataset: Dataset, settings: Settings, *, previous: Simulation | None = None
    ) -> Simulation:
        """A simulation of `dataset` with `settings`. `previous`: the one these settings
        replace; when its feature vectors and labels are the same (only the rule, η, order,
        seed, tie… changed), its γ*, R, support and Adaline report carry over instead of
        being computed again (seconds for a few hundred points in 8 dimensions)."""
        simulation = cls(dataset, **settings.as_kwargs())
        if previous is not None:
            simulation._reuse_reports(previous)
        return simulation

    def _build_rule(self, X: FloatArray) -> Rule:
        """The rule of `settings`; defaults derived from the data (Adaline's η) from `X`."""
        settings = self.settings
        return make_rule(
            settings.algorithm,
            self._n_features,
            features=X,
            learning_rate=settings.learning_rate,
            promotion=settings.promotion,
            threshold=settings.threshold,
            mode=settings.mode,
        )

    def _set_current(self, dataset: Dataset, X: FloatArray | None = None) -> None:
        """Make `dataset` the current data (`X`: its features, if already computed)."""
        if dataset.dimension + (1 if self._features.bias else 0) != self._n_features:
            raise ValueError(
                f"the new data have {dataset.dimension} coordinates; this run has "
                f"{self._n_features - (1 if self._features.bias else 0)}"
            )
        self._dataset = dataset
        if X is None:
            self._features = FeatureMap(
                dataset, bias=self._features.bias, preprocessing=self._features.preprocessing
            )
            X = self._features.transform(dataset.points)
        X.setflags(write=False)  # without bias or preprocessing, the dataset's own points
        self._X = X
        self._largest = max(float(X.max()), -float(X.min())) if X.size else 0.0
        # The report of the data before an edit warm-starts the next one (same answer).
        self._previous_report: MarginReport | None = getattr(
            self, "_margin_report", None
        ) or getattr(self, "_previous_report", None)
        self._margin_report: MarginReport | None = None
        self._adaline_report: AdalineReport | None = None

    def _reuse_reports(self, previous: Simulation) -> None:
        """Take `previous`'s reports of the data if it had the same feature vectors."""
        same = previous._X.shape == self._X.shape and (
            previous._dataset is self._dataset
            or np.array_equal(previous._dataset.labels, self._dataset.labels)
        )
        if not (same and np.array_equal(previous._X, self._X)):
            return
        self._margin_report = previous._margin_report
        self._previous_report = previous._previous_report
        self._adaline_report = previous._adaline_report

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
        return np.array(self._rule.weights(self._live.state), dtype=np.float64)

    @property
    def state(self) -> FloatArray:
        """A copy of the rule's full state ((w⁺, w⁻) for Balanced Winnow)."""
        return np.array(self._live.state)

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
        return self._live.trials

    @property
    def mistakes(self) -> int:
        return self._live.mistakes

    @property
    def epoch(self) -> int:
        """The epoch of the latest trial (0 before the first)."""
        return self._history.epoch_of(self._live.trials)

    @property
    def trials_left_in_epoch(self) -> int:
        """Trials until the current epoch ends (a whole epoch if it just ended)."""
        segment = self._current_segment()
        if segment is None:
            return len(self._dataset)
        return segment.n - (self._live.trials - segment.start) % segment.n

    def _current_segment(self) -> Segment | None:
        """The segment the next trial continues, if it runs on the current data."""
        segment = self._history.segment_continuing_from(self._live.trials)
        return segment if segment is not None and segment.dataset is self._dataset else None

    @property
    def converged_at(self) -> int | None:
        """The trial that completed the first epoch with no update on the current data."""
        segment = self._current_segment()
        at = None if segment is None else segment.converged_at
        return at if at is not None and at <= self._live.trials else None

    @property
    def converged(self) -> bool:
        return self.converged_at is not None

    @property
    def cycle_found_at(self) -> int | None:
        """The trial at which w at an epoch start was seen to repeat an earlier epoch-start
        w on the current data (cyclic order): from there it cycles forever."""
        segment = self._current_segment()
        at = None if segment is None else segment.cycle_found_at
        return at if at is not None and at <= self._live.trials else None

    @property
    def cycle_period(self) -> int | None:
        """P: w at the start of an epoch equals w P epochs earlier (None: no cycle found)."""
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

    # -- history -----------------------------------------------------------------------------

    @property
    def history_length(self) -> int:
        """How many trials are recorded (more than `trials` after a rewind)."""
        return self._history.length

    @property
    def history_nbytes(self) -> int:
        """Memory the run holds beyond the current data and its features, in bytes: the
        history (mistakes, losses, checkpoints, past data with their features) and the
        visiting order of the epoch in progress."""
        total = self._history.nbytes(self._dataset)
        if self._order_cache is not None:
            total += int(self._order_cache[2].nbytes)
        return total

    def mistake_trials(self) -> NDArray[np.int64]:
        """The trial numbers of every recorded mistake, ascending (read-only)."""
        return self._history.mistakes

    def epoch_losses(self) -> FloatArray:
        """The mean squared error (1/n) Σ (yᵢ − sᵢ)² over the epoch's data, with w (and θ)
        as at the end of the epoch, of every recorded epoch (read-only); an epoch cut short
        by new data counts, with w as it was when the data changed."""
        return self._history.losses

    def seek(self, t: int) -> None:
        """Restore the learner exactly as it was after trial t (0 <= t <= history_length)."""
        if not 0 <= t <= self._history.length:
            raise ValueError(
                f"cannot seek to trial {t}: {self._history.length} trials are recorded"
            )
        self._live = self._replay(t)

    def trial(self, t: int) -> Trial:
        """The record of trial t (1-based), rebuilt by replay."""
        if not 1 <= t <= self._history.length:
            raise IndexError(f"no trial {t}: {self._history.length} trials are recorded")
        last = self._live.last
        if last is not None and last.number == t:
            return self._make_trial(last)
        return self.trial_records(t, t)[0]

    def trial_records(self, first: int, last: int) -> list[Trial]:
        """The records of trials first..last (inclusive, 1-based), by one replay."""
        length = self._history.length
        if not 1 <= first <= last + 1 <= length + 1:
            raise IndexError(f"no trials {first}..{last}: {length} trials are recorded")
        live = self._replay(first - 1)
        records = []
        with np.errstate(over="ignore", invalid="ignore"):
            for _ in range(first, last + 1):
                segment = self._enter_next(live)
                self._one_trial(live, segment, record=False)
                assert live.last is not None
                records.append(self._make_trial(live.last))
        return records

    def weights_after_mistakes(self, first_k: int, last_k: int) -> FloatArray:
        """Effective w after the k-th recorded mistake, k = first_k..last_k (1-based), as an
        (m, n_features) array, by one replay."""
        mistakes = self._history.mistakes
        if not 1 <= first_k <= last_k + 1 <= len(mistakes) + 1:
            raise IndexError(
                f"no mistakes {first_k}..{last_k}: {len(mistakes)} mistakes are recorded"
            )
        if last_k < first_k:
            return np.zeros((0, self._n_features))
        live = self._replay(int(mistakes[first_k - 1]) - 1)
        sink: list[FloatArray] = []
        self._replay_to(live, int(mistakes[last_k - 1]), sink)
        return np.array(sink, dtype=np.float64).reshape(-1, self._n_features)

    @property
    def last_trial(self) -> Trial | None:
        t = self._live.trials
        return self.trial(t) if t else None

    def _make_trial(self, last: _LastTrial) -> Trial:
        segment, i, t = last.segment, last.index, last.number
        y = int(segment.y[i])
        score = last.signed * y + 0.0  # + 0.0: a tie is +0.0, never -0.0
        if last.signed == 0.0:
            prediction = (0, 1, -1)[self._tie_code]
        elif math.isnan(score):
            prediction = 0
        else:
            prediction = 1 if score > 0 else -1
        return Trial(
            number=t,
            index=i,
            epoch=segment.epoch_of(t),
            x=tuple(segment.X[i].tolist()),
            y=y,
            score=score,
            prediction=prediction,
            mistake=last.mistake,
            weights_before=tuple(self._rule.weights(last.before).tolist()),
            weights_after=tuple(self._rule.weights(last.after).tolist()),
            point=tuple(segment.dataset.points[i].tolist()),
        )

    # -- theory of the current data ----------------------------------------------------------------

    def margin_report(self) -> MarginReport:
        """R, γ*, R²/γ*² and the optimal separator of the current data (cached)."""
        if self._margin_report is None:
            self._margin_report = margin_report_for(
                self._X, self._dataset.labels, self._previous_report
            )
        return self._margin_report

    def adaline_report(self, *, least_squares: bool = True) -> AdalineReport:
        """Adaline's stable learning rates for the current data and, unless
        `least_squares=False`, w_LS (cached; asked first without it, w_LS comes later)."""
        report = self._adaline_report
        if report is None:
            report = adaline_report(self._X, self._dataset.labels, least_squares=least_squares)
        elif least_squares and report.least_squares is None and len(self._dataset):
            solution = least_squares_solution(self._X, self._dataset.labels)
            report = replace(report, least_squares=solution)
        self._adaline_report = report
        return report

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
        return None if relevant is None else winnow_disjunction_bound(len(relevant), n)

    def current_margin(self) -> float:
        """minᵢ yᵢ (w·xᵢ − θ)/|w| for the current w; nan when w = 0 or there is no data."""
        return signed_margin(self._signed_scores(), self._rule.weights(self._live.state))

    def _signed_scores(self) -> FloatArray:
        """yᵢ sᵢ = yᵢ (w·xᵢ − θ) for every current point, ties decided (exactly 0)."""
        live, X, y = self._live, self._X, self._dataset.labels
        with np.errstate(over="ignore", invalid="ignore"):
            terms = self._terms(live, None)
            signed: FloatArray = y * rules.dot_rows(X, terms.w, self._rule.threshold)
            self._snap(signed, X, y, terms)
        return signed

    def boundary(self) -> InputLine | None:
        """The decision boundary w·x = θ as a line in the input plane (None if it is not one)."""
        return self._features.input_line(self._rule.weights(self._live.state), self._rule.threshold)

    def snapshot(self) -> Snapshot:
        signed = self._signed_scores()  # one pass over the data serves margin and mistakes
        misclassified = self._mistake_mask(signed, self._dataset.labels)
        misclassified.setflags(write=False)
        return Snapshot(
            trials=self.trials,
            mistakes=self.mistakes,
            epoch=self.epoch,
            weights=tuple(self.weights.tolist()),
            threshold=self.threshold,
            converged=self.converged,
            converged_at=self.converged_at,
            diverged=self.diverged,
            divergence_reason=self.divergence_reason,
            last_trial=self.last_trial,
            margin=signed_margin(signed, self._rule.weights(self._live.state)),
            misclassified=misclassified,
            diverged_at=self.diverged_at,
            cycle_period=self.cycle_period,
            cycle_found_at=self.cycle_found_at,
        )

    # -- changing the data ---------------------------------------------------------------------

    def replace_dataset(self, dataset: Dataset) -> None:
        """Continue on new data: weights and counters stay; a new epoch starts next trial.

        Before the first trial, defaults derived from the data (Adaline's η) are derived
        again from the new data; after it, the rule stays as it is.
        """
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, not {type(dataset).__name__}")
        self._set_current(dataset)
        self._history.truncate(self._live.trials)
        if self._live.trials == 0:  # nothing ran yet: defaults derived from data follow them
            self._rule = self._build_rule(self._X)
            self._live.terms = None

    # -- running -----------------------------------------------------------------------------------

    def step(self) -> Trial:
        """Run one trial and return its record."""
        segment = self._prepare()
        live = self._live
        with np.errstate(over="ignore", invalid="ignore"):
            self._one_trial(live, segment, record=True)
        self._history.length = live.trials
        self._maybe_checkpoint()
        assert live.last is not None
        return self._make_trial(live.last)

    def run(
        self,
        max_trials: int,
        *,
        until_converged: bool = True,
        stop_on_mistake: bool = False,
        budget_seconds: float | None = None,
    ) -> int:
        """Run up to `max_trials` trials; return how many ran.

        Stops early once converged, diverged or found cycling (unless
        `until_converged=False`), right
        after a mistake (if `stop_on_mistake`), or when `budget_seconds` of wall time have
        passed (checked between blocks; the trajectory never depends on it).
        """
        if max_trials < 0:
            raise ValueError(f"max_trials must be >= 0; got {max_trials}")
        deadline = None if budget_seconds is None else time.perf_counter() + budget_seconds
        done = 0
        live = self._live
        with np.errstate(over="ignore", invalid="ignore"):
            while done < max_trials:
                if until_converged and self._settled():
                    break
                segment = self._prepare()
                if not stop_on_mistake or not segment.rest_mistakes:
                    skipped = self._skip_rest(live, segment, max_trials - done, record=True)
                    if skipped:
                        done += skipped
                        self._history.length = live.trials
                        self._history.add_checkpoint(*self._pack(live))
                        continue
                trials_room, updates_room = self._checkpoint_room()
                mistakes = live.mistakes
                leg = _Leg(
                    record=True,
                    stop_on_mistake=stop_on_mistake,
                    deadline=deadline,
                    update_budget=updates_room,
                )
                done += self._advance(live, segment, min(max_trials - done, trials_room), leg)
                self._history.length = live.trials
                self._maybe_checkpoint()
                if stop_on_mistake and live.mistakes > mistakes:
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    break
        return done

    def _settled(self) -> bool:
        """Whether `run` has nothing more to do: converged, diverged, or cycling."""
        return self.converged or self.diverged or self.cycle_found_at is not None

    # -- the run code, shared by recording and replay ------------------------------------------
    #
    # Each method below takes the live state it advances and `record`: whether to write the
    # history (mistakes, losses, events). Replay runs the same code with record=False.

    def _advance(self, live: _Live, segment: Segment, limit: int, leg: _Leg) -> int:
        """Up to `limit` trials within the current epoch of `segment`; how many ran."""
        rule = self._rule
        if live.diverged_at is None and not rule.mistake_driven and not rule.batch:
            return self._run_every_trial(live, segment, limit, leg)
        return self._run_epoch(live, segment, limit, leg)

    def _run_every_trial(self, live: _Live, segment: Segment, limit: int, leg: _Leg) -> int:
        """Online Adaline updates on every trial: there is nothing to jump over."""
        _, start = segment.position(live.trials)
        end = min(segment.n, start + limit)
        updates = live.updates
        budget, deadline = leg.update_budget, leg.deadline
        for position in range(start, end):
            mistakes = live.mistakes
            self._one_trial(live, segment, record=leg.record, sink=leg.sink)
            if (
                (leg.stop_on_mistake and live.mistakes > mistakes)
                or live.diverged_at is not None
                or (budget is not None and live.updates - updates >= budget)
                or (
                    deadline is not None and position % 64 == 63 and time.perf_counter() >= deadline
                )
            ):
                return position + 1 - start
        return end - start

    def _one_trial(
        self,
        live: _Live,
        segment: Segment,
        *,
        record: bool,
        sink: list[FloatArray] | None = None,
    ) -> None:
        """Run the trial after `live.trials` alone, in NumPy: the reference `run` follows.

        Its record is left in `live.last`.
        """
        rule = self._rule
        epoch, position = segment.position(live.trials)
        i = int(self._order(segment, epoch)[position])
        X, y = segment.X[i : i + 1], segment.y[i : i + 1]
        terms = self._terms(live, segment)
        score = numpy_dot_rows(X, terms.w, rule.threshold)
        signed = y * score
        if abs(signed[0]) <= terms.bmax:
            self._snap(signed, X, y, terms)
        mistake = self._is_mistake(float(signed[0]), int(y[0]))
        t = live.trials + 1
        before = live.state
        live.trials = t
        if mistake:
            live.mistakes += 1
            if record:
                self._history.record_mistake(t)
        if live.diverged_at is None:
            raw = float(score[0])
            if not math.isfinite(raw):
                self._diverge(live, t, record, f"the score w·x overflowed at trial {t}")
            elif (mistake or not rule.mistake_driven) and not rule.batch:
                x, label = segment.X[i], int(y[0])
                self._accept(live, t, rule.update(live.state, x, label, raw), record, x, label)
        if position == segment.n - 1:
            self._end_epoch(live, segment, record)
        if sink is not None and mistake:
            sink.append(rule.weights(live.state))
        live.last = _LastTrial(t, segment, i, float(signed[0]), mistake, before, live.state)

    def _run_epoch(self, live: _Live, segment: Segment, limit: int, leg: _Leg) -> int:
        """Up to `limit` trials, within the current epoch, scoring blocks between updates.

        For mistake-driven rules, for batch Adaline (whose one update ends the epoch) and
        for any rule once diverged (no more updates).
        """
        rule = self._rule
        record, sink, stop_on_mistake = leg.record, leg.sink, leg.stop_on_mistake
        deadline, update_budget = leg.deadline, leg.update_budget
        epoch, start = segment.position(live.trials)
        order = self._order(segment, epoch)
        end = min(segment.n, start + limit)
        updating = live.diverged_at is None and rule.mistake_driven
        stopping = updating or stop_on_mistake
        first_trial = live.trials + 1 - start  # the trial number at position 0
        updates = live.updates
        out = np.empty(end - start)  # the decided y·s of each trial
        position = start
        scored_with = live.state
        epoch_end_mistake = False
        labels = segment.y
        found_here: list[int] = []  # mistakes found one scan at a time, recorded at the end
        while position < end:
            scored_with = live.state
            count = self._scan(
                live, segment, order, position, end, stopping, out[position - start :]
            )
            position += count
            if not stopping:
                chunk = out[position - count - start : position - start]
                found = np.flatnonzero(
                    self._mistake_mask(chunk, labels[order[position - count : position]])
                )
                if found.size:
                    trials = first_trial + position - count + found
                    live.mistakes += int(found.size)
                    if record:
                        self._history.record_mistakes(np.array(found_here, dtype=np.int64))
                        found_here.clear()
                        self._history.record_mistakes(trials.astype(np.int64))
                    if sink is not None:
                        epoch_end_mistake = bool(trials[-1] == first_trial + segment.n - 1)
                        sink.extend([rule.weights(live.state)] * (found.size - epoch_end_mistake))
                continue
            i = int(order[position - 1])
            y = int(labels[i])
            signed = float(out[position - 1 - start])
            if not self._is_mistake(signed, y):
                continue
            t = first_trial + position - 1
            live.mistakes += 1
            found_here.append(t)
            if updating:
                if math.isfinite(signed):
                    x = segment.X[i]
                    self._accept(live, t, rule.update(live.state, x, y, signed * y), record, x, y)
                else:
                    self._diverge(live, t, record, f"the score w·x overflowed at trial {t}")
                updating = live.diverged_at is None
                stopping = updating or stop_on_mistake
            if sink is not None:
                if position == segment.n and not updating:
                    epoch_end_mistake = True
                else:
                    sink.append(rule.weights(live.state))
            if (
                live.diverged_at == t
                or stop_on_mistake
                or (update_budget is not None and live.updates - updates >= update_budget)
                or (deadline is not None and time.perf_counter() >= deadline)
            ):
                break
        if record and found_here:
            self._history.record_mistakes(np.array(found_here, dtype=np.int64))
        ran = position - start
        if not ran:
            return 0
        live.trials += ran
        last = position - 1
        i = int(order[last])
        signed = float(out[last - start])
        mistake = self._is_mistake(signed, int(labels[i]))
        before = scored_with
        if position == segment.n:
            self._end_epoch(live, segment, record)
        if sink is not None and epoch_end_mistake:
            sink.append(rule.weights(live.state))
        live.last = _LastTrial(live.trials, segment, i, signed, mistake, before, live.state)
        return ran

    def _scan(
        self,
        live: _Live,
        segment: Segment,
        order: NDArray[np.intp],
        position: int,
        end: int,
        stop_at_mistake: bool,
        out: FloatArray,
    ) -> int:
        """Decide trials `position`.. with fixed weights, up to `end` or through the first
        mistake (if `stop_at_mistake`), writing their y·s (0 for a tie) into `out`;
        return how many.

        The compiled loop (_scan.c) stops right at the mistake; without it, NumPy scores
        blocks sized to the gaps between mistakes seen so far. The same bits either way.
        """
        rule = self._rule
        terms = self._terms(live, segment)
        module = rules.compiled
        if module is not None:
            count: int = module.scan(
                segment.X,
                terms.w,
                terms.c,
                float(rule.threshold),
                terms.theta_err,
                terms.bmax,
                terms.e,
                terms.theta_r,
                self._tie_code,
                segment.y,
                order,
                self._cyclic,
                position,
                end,
                stop_at_mistake,
                out,
            )
            return count
        m = min(self._block, end - position, max(1, (1 << 20) // self._n_features))
        rows = order[position : position + m]
        X = segment.X[position : position + m] if self._cyclic else segment.X[rows]
        y = segment.y[rows]
        signed = y * numpy_dot_rows(X, terms.w, rule.threshold)
        self._snap(signed, X, y, terms)
        count = m
        if stop_at_mistake:
            mistakes = self._mistake_mask(signed, y)
            f = int(mistakes.argmax())
            if mistakes[f]:
                count = f + 1
                self._block = min(64 + 2 * f, _MAX_BLOCK)  # sized to the gap between mistakes
        if count == m:
            self._block = min(2 * self._block, _MAX_BLOCK)
        out[:count] = signed[:count]
        return count

    # -- deciding a trial --------------------------------------------------------------------

    def _terms(self, live: _Live, segment: Segment | None) -> _Terms:
        """The effective w and the tie bound's coefficients for the live state, with bmax
        for `segment` (cached; None: bmax over the current data, not cached)."""
        terms = live.terms
        if terms is None:
            rule = self._rule
            w = np.ascontiguousarray(rule.weights(live.state), dtype=np.float64)
            theta = float(rule.threshold)
            if self._tracks_error:
                error = rule.weight_error(live.state, live.error)
                c, theta_err = rules.tie_terms(w, error, theta)
                error = np.ascontiguousarray(error, dtype=np.float64)
                terms = _Terms(w, c, theta_err, theta, error, self._refine_theta(theta))
            else:
                terms = _Terms(w, self._no_error, 0.0, theta, self._no_refine)
            live.terms = terms
        if segment is None or terms.segment is not segment:
            if not self._tracks_error:
                bmax = 0.0
            else:
                largest = self._largest if segment is None else segment.largest
                # b = Σ|x_j| c_j <= max|x| Σ c_j; twice that also covers its rounding.
                bmax = 2.0 * (largest * float(terms.c.sum()) + terms.theta_err)
            if segment is None:
                return replace(terms, bmax=bmax)
            terms.bmax, terms.segment = bmax, segment
        return terms

    def _refine_theta(self, theta: float) -> float:
        """`rules.refine_theta` for this run (cached: it changes only with θ)."""
        cached = self._theta_r
        if cached is None or cached[0] != theta:
            cached = self._theta_r = (theta, rules.refine_theta(theta, self._n_features))
        return cached[1]

    @staticmethod
    def _snap(signed: FloatArray, X: FloatArray, y: NDArray[np.int8], terms: _Terms) -> None:
        """Decide (in place) each y·s within its rounding-error bound b = Σ|x_j| c_j + θ_err,
        where the exact score may be 0. b is computed only where |y·s| <= bmax, its bound
        over all rows.

        Such a score is computed again in twice the precision (`rules.dot2_rows`) and held
        to the much smaller bound of `rules.refine_terms`: within it, an exact tie (0.0);
        beyond it, y times the new score, whose sign is the exact one. So a score
        swamped by rounding at extreme scales (a bias weight of 30 beside inputs of 1.7e8)
        is still decided as exact arithmetic decides it. Rules that keep no error bound
        (Adaline) take the computed score as it is: only an exact 0.0 is a tie.
        """
        near = np.flatnonzero(np.abs(signed) <= terms.bmax)
        if not near.size:
            return
        bound = numpy_dot_rows(np.abs(X[near]), terms.c) + terms.theta_err
        near = near[np.abs(signed[near]) <= bound]
        if not near.size or not terms.e.size:
            signed[near] = 0.0
            return
        rows = X[near]
        score = rules.dot2_rows(rows, terms.w, terms.theta)
        r = rules.refine_coefficients(terms.w, terms.e)
        tie = np.abs(score) <= rules.refine_bounds(rows, r, terms.theta_r)
        signed[near] = np.where(tie, 0.0, np.where(y[near] > 0, score, -score))

    def _is_mistake(self, signed: float, y: int) -> bool:
        """`_mistake_mask` for one trial."""
        if signed == 0.0:
            return self._tie_code == 0 or (y < 0 if self._tie_code == 1 else y > 0)
        return not signed > 0.0  # negative or NaN

    def _mistake_mask(self, signed: FloatArray, y: NDArray[np.int8]) -> NDArray[np.bool_]:
        """Which decided y·s are mistakes: negative, NaN, or a tie that the tie rule gets wrong
        ("mistake": every tie; "positive": predicts +1, wrong for y = −1; "negative": −1)."""
        mask: NDArray[np.bool_] = (signed < 0) | np.isnan(signed)
        tie = self._tie_code
        if tie == 0:
            mask |= signed == 0
        else:
            mask |= (signed == 0) & ((y < 0) if tie == 1 else (y > 0))
        return mask

    # -- updates and the end of an epoch -----------------------------------------------------

    def _accept(
        self,
        live: _Live,
        t: int,
        new_state: FloatArray,
        record: bool,
        x: FloatArray | None = None,
        y: int = 0,
    ) -> None:
        """Take the update of trial t on (x, y), unless it overflowed (then diverge); carry
        the weights' error bound along."""
        if new_state.size <= 16:  # plain floats are quicker than NumPy for a few numbers
            within = all(-_OVERFLOW <= v <= _OVERFLOW for v in new_state.ravel().tolist())
        else:
            within = bool(np.abs(new_state).max() <= _OVERFLOW)
        if not within:  # NaN fails both tests
            self._diverge(live, t, record, None)
            return
        refusal = self._rule.refuse(new_state)
        if refusal is not None:
            self._diverge(live, t, record, f"{self._rule.title} stopped at trial {t}: {refusal}.")
            return
        if self._tracks_error and x is not None:
            live.error = self._rule.propagate_error(live.error, live.state, new_state, x, y)
        live.state = new_state
        live.terms = None
        live.updates += 1
        live.epoch_updates += 1

    def _diverge(self, live: _Live, t: int, record: bool, reason: str | None) -> None:
        live.diverged_at = t
        if record:
            self._history.record_divergence(t, reason or self._divergence_message(t))

    def _stable_rate_text(self) -> str:
        """The sufficient condition for stability on the current data, in words."""
        rule = self._rule
        report = self.adaline_report(least_squares=False)
        limit = report.batch_rate_limit if rule.batch else report.online_rate_limit
        mode = "batch" if rule.batch else "online"
        return (
            f"η = {getattr(rule, 'learning_rate', math.nan):g} is too large for these data; "
            f"η < {limit:.4g} suffices for {mode} stability (a sufficient condition, not a "
            "necessary one)"
        )

    def _divergence_message(self, t: int) -> str:
        rule = self._rule
        if rule.least_squares:  # Adaline: η too large for these data
            return (
                f"{rule.title} diverged at trial {t}: the weights grew past 1e150. "
                f"{self._stable_rate_text()}"
            )
        return (
            f"{rule.title} overflowed at trial {t}: a weight grew past 1e150, so it stopped "
            "updating (try a smaller α or scaled data)"
        )

    def _growth_message(self, t: int, segment: Segment, live: _Live, loss: float) -> str:
        return (
            f"{self._rule.title} diverged at trial {t} (epoch {segment.epoch_of(t)}): its mean "
            f"squared error grew from {live.min_loss:.3g} to {loss:.3g}, over a millionfold, "
            f"so it stopped updating. {self._stable_rate_text()}"
        )

    def _end_epoch(self, live: _Live, segment: Segment, record: bool) -> None:
        """The batch step, the convergence test, the epoch's loss (Adaline: the divergence
        test) and the cycle search, as trial `live.trials` completes an epoch of `segment`."""
        rule = self._rule
        t = live.trials
        if rule.batch and live.diverged_at is None:
            self._accept(live, t, self._batch_update(live, segment), record)
        updating = live.diverged_at is None
        if rule.mistake_driven:
            settled = live.epoch_updates == 0
        else:
            change = float(np.max(np.abs(live.state - live.epoch_start)))
            settled = change <= self.settings.tolerance * max(
                1.0, float(np.max(np.abs(live.state)))
            )
        converged = segment.converged_at is not None and segment.converged_at <= t
        if record and updating and settled and not converged:
            segment.converged_at = t
        converged = converged or (updating and settled)
        if record or (rule.least_squares and updating):
            loss = self._loss(live.state, segment)
            if record:
                self._history.record_loss(loss)
            if rule.least_squares and updating:
                if not math.isfinite(loss) or loss > _GROWTH * max(live.min_loss, _LOSS_FLOOR):
                    self._diverge(live, t, record, self._growth_message(t, segment, live, loss))
                live.min_loss = min(live.min_loss, loss)
        found = segment.cycle_found_at
        if self._cyclic and updating and not converged and (found is None or t <= found):
            self._search_cycle(live, segment, record)  # not past the cycle: it stays put
        if record and updating and segment.rest_at is None:
            self._find_rest(live, segment, converged)
        live.epoch_updates = 0
        if not rule.mistake_driven:
            live.epoch_start = live.state

    def _find_rest(self, live: _Live, segment: Segment, converged: bool) -> None:
        """Note on `segment` when, from this epoch end on, every period of epochs repeats
        the one before: a mistake-driven rule once converged (no mistake, no update, in any
        order) or once its cycle is found (the cycle's period); in cyclic order, a rule whose
        state at this epoch's end is, bit for bit, its state at the start (Adaline reaches
        such a fixed point of its floats; each epoch then makes the same updates and
        mistakes)."""
        t = live.trials
        history = self._history
        if self._rule.mistake_driven:
            if converged:
                segment.rest_at, segment.rest_mistakes, segment.rest_updates = t, 0, 0
            elif segment.cycle_found_at == t and segment.cycle_period is not None:
                # every mistake of the period updated (no divergence): as many updates
                period = segment.cycle_period
                mistakes = history.mistakes_through(t) - history.mistakes_through(
                    t - period * segment.n
                )
                segment.rest_at, segment.rest_period = t, period
                segment.rest_mistakes = segment.rest_updates = mistakes
        elif self._cyclic and np.array_equal(live.state, live.epoch_start):
            mistakes = history.mistakes_through(t) - history.mistakes_through(t - segment.n)
            segment.rest_at, segment.rest_mistakes = t, mistakes
            segment.rest_updates = live.epoch_updates

    def _skip_rest(self, live: _Live, segment: Segment, limit: int, record: bool) -> int:
        """Jump over whole periods that repeat the last one (see `_find_rest`): all but the
        last whole period within `limit` trials, so that the last trials are run. Recording,
        the mistakes and losses of the skipped periods are those of the last one, shifted.
        Returns how many trials were skipped."""
        rest, n = segment.rest_at, segment.n
        if (
            rest is None
            or live.trials < rest
            or live.diverged_at is not None
            or (live.trials - segment.start) % n
        ):
            return 0
        length = segment.rest_period * n
        periods = limit // length - 1
        if periods < 1:
            return 0
        if record:
            self._history.repeat_epochs(segment, live.trials, periods)
        live.trials += periods * length
        live.mistakes += periods * segment.rest_mistakes
        live.updates += periods * segment.rest_updates
        live.last = None
        return periods * length

    def _search_cycle(self, live: _Live, segment: Segment, record: bool) -> None:
        """Brent's cycle search over the epoch-start states x₀, x₁, … of this segment,
        in O(1) memory: `tortoise` is x at the last power of two, `lam` the distance to
        it; the first time x equals the tortoise, `lam` is the period."""
        if np.array_equal(live.state, live.tortoise):
            if record and segment.cycle_found_at is None and segment.converged_at is None:
                segment.cycle_found_at, segment.cycle_period = live.trials, live.lam
        elif live.power == live.lam:
            live.tortoise, live.power, live.lam = live.state, 2 * live.power, 0
        live.lam += 1

    def _batch_update(self, live: _Live, segment: Segment) -> FloatArray:
        """Adaline's batch step at the end of the epoch that trial `live.trials` completed:
        the epoch's trials scored again with the w they were scored with (the same bits)."""
        epoch = segment.epoch_of(live.trials)
        rows = self._order(segment, epoch)
        X = segment.X[rows]
        scores = numpy_dot_rows(X, self._rule.weights(live.state), self._rule.threshold)
        return self._rule.update_batch(  # type: ignore[attr-defined,no-any-return]
            live.state, X, segment.y[rows], scores
        )

    def _loss(self, state: FloatArray, segment: Segment) -> float:
        """The mean squared error (1/n) Σ (yᵢ − sᵢ)² of `state` over the segment's data."""
        if not segment.n:
            return math.nan
        rule = self._rule
        return (
            rules.squared_error(segment.X, rule.weights(state), rule.threshold, segment.y)
            / segment.n
        )

    # -- segments, checkpoints, replay -------------------------------------------------------

    def _prepare(self) -> Segment:
        """The segment the next recorded trial belongs to, opening one for new data."""
        if len(self._dataset) == 0:
            raise ValueError("the dataset is empty: place some points before stepping")
        history, live = self._history, self._live
        segments = history.segments
        if (
            history.length == live.trials
            and segments
            and live.segment is segments[-1]
            and segments[-1].dataset is self._dataset
        ):
            return segments[-1]  # the usual case: going on where the run stands
        t = live.trials
        history.truncate(t)
        if not segments or segments[-1].dataset is not self._dataset:
            if segments and segments[-1].start == t:
                history.drop_last_segment()  # no trial ran on those data
            previous = history.segment_continuing_from(t)
            if previous is not None and (t - previous.start) % previous.n:
                history.record_loss(self._loss(live.state, previous))  # the epoch cut short
            first_epoch = history.epoch_of(t) + 1
            history.add_segment(
                Segment(
                    t,
                    first_epoch,
                    self._dataset,
                    self._X,
                    self._dataset.labels,
                    largest=self._largest,
                )
            )
        segment = history.segments[-1]
        self._enter(live, segment, len(history.segments) - 1)
        return segment

    def _enter(self, live: _Live, segment: Segment, index: int) -> None:
        """Start the bookkeeping of a new stretch of data, if `live` is not on it yet."""
        if live.segment is not segment:
            live.segment, live.segment_index = segment, index
            live.epoch_updates = 0
            live.epoch_start = live.state
            # Adaline's divergence test counts growth from the start, too.
            live.min_loss = (
                self._loss(live.state, segment) if self._rule.least_squares else math.inf
            )
            live.power, live.lam, live.tortoise = 1, 1, live.state

    def _enter_next(self, live: _Live) -> Segment:
        """The recorded segment of the trial after `live.trials` (replay), entered."""
        history = self._history
        index = history.segment_index_continuing_from(live.trials)
        segment = history.segments[index]
        self._enter(live, segment, index)
        return segment

    def _order(self, segment: Segment, epoch: int) -> NDArray[np.intp]:
        """The rows of `segment` in the order epoch `epoch` visits them."""
        cache = self._order_cache
        if cache is not None and cache[0] is segment and cache[1] == epoch:
            return cache[2]
        if self._cyclic:
            order = np.arange(segment.n, dtype=np.intp)
        else:
            rng = np.random.default_rng(
                np.random.SeedSequence(self.settings.seed, spawn_key=(1, epoch))
            )
            order = rng.permutation(segment.n).astype(np.intp)
        order.setflags(write=False)
        self._order_cache = (segment, epoch, order)
        return order

    def _checkpoint_room(self) -> tuple[int, int]:
        """(trials, updates) until the next checkpoint is due."""
        last = self._history.last_checkpoint
        live = self._live
        return (
            max(1, self._checkpoint_trials - (live.trials - int(last[0]))),
            max(1, self._checkpoint_updates - (live.updates - int(last[2]))),
        )

    def _maybe_checkpoint(self) -> None:
        last = self._history.last_checkpoint
        live = self._live
        if (
            live.trials - int(last[0]) >= self._checkpoint_trials
            or live.updates - int(last[2]) >= self._checkpoint_updates
        ):
            self._history.add_checkpoint(*self._pack(live))

    def _pack(self, live: _Live) -> tuple[NDArray[np.int64], FloatArray]:
        ints = np.array(
            [
                live.trials,
                live.mistakes,
                live.updates,
                live.epoch_updates,
                live.power,
                live.lam,
                live.segment_index,
            ],
            dtype=np.int64,
        )
        parts = [np.array([live.min_loss]), live.state.ravel()]
        if self._tracks_error:
            parts.append(live.error.ravel())
        if not self._rule.mistake_driven:
            parts.append(live.epoch_start.ravel())
        if self._cyclic:
            parts.append(live.tortoise.ravel())
        return ints, np.concatenate(parts)

    def _unpack(self, ints: NDArray[np.int64], floats: FloatArray) -> _Live:
        shape = self._initial_state.shape
        size = self._initial_state.size
        vectors = iter(np.split(floats[1:], range(size, floats.size - 1, size)))

        def take() -> FloatArray:
            return np.array(next(vectors).reshape(shape))

        state = take()
        error = take() if self._tracks_error else np.zeros_like(state)
        epoch_start = take() if not self._rule.mistake_driven else state
        tortoise = take() if self._cyclic else state
        trials, mistakes, updates, epoch_updates, power, lam, index = (int(v) for v in ints)
        diverged_at = self._history.diverged_at
        return _Live(
            state=state,
            error=error,
            trials=trials,
            mistakes=mistakes,
            updates=updates,
            epoch_updates=epoch_updates,
            epoch_start=epoch_start,
            min_loss=float(floats[0]),
            power=power,
            lam=lam,
            tortoise=tortoise,
            segment=self._history.segments[index] if index >= 0 else None,
            segment_index=index,
            diverged_at=diverged_at if diverged_at is not None and diverged_at <= trials else None,
        )

    def _replay(self, t: int) -> _Live:
        """The live state after trial t, its last trial included: from the current state
        when it is on the way, else from the checkpoint at or before t − 1, replayed."""
        current = self._live
        if t == current.trials and (t == 0 or current.last is not None):
            return current.copy()
        before = max(t - 1, 0)
        ints, floats = self._history.checkpoint_at_or_before(before)
        on_the_way = int(ints[0]) <= current.trials <= before
        live = current.copy() if on_the_way else self._unpack(ints, floats)
        self._replay_to(live, before)
        if t:  # the last trial alone, so that its record is at hand (`last_trial`)
            segment = self._enter_next(live)
            with np.errstate(over="ignore", invalid="ignore"):
                self._one_trial(live, segment, record=False)
        return live

    def _replay_to(self, live: _Live, t: int, sink: list[FloatArray] | None = None) -> None:
        """Advance `live` to trial t along the recorded history, recording nothing."""
        segments = self._history.segments
        leg = _REPLAY if sink is None else _Leg(record=False, sink=sink)
        with np.errstate(over="ignore", invalid="ignore"):
            while live.trials < t:
                segment = self._enter_next(live)
                index = live.segment_index
                stop = min(t, segments[index + 1].start if index + 1 < len(segments) else t)
                if self._at_rest(live, segment):
                    live.trials, live.last = stop, None  # nothing changes until new data
                    continue
                if sink is None or not segment.rest_mistakes:
                    self._skip_rest(live, segment, stop - live.trials, record=False)
                self._advance(live, segment, stop - live.trials, leg)

    def _at_rest(self, live: _Live, segment: Segment) -> bool:
        """Whether `live` stays as it is, but for the trial count, while on `segment`.

        A mistake-driven rule that has converged on these data scores every point right
        with fixed weights, so it makes no mistake and no update again, in any order:
        replay jumps over those trials (a seek far past convergence costs no more than
        one to the convergence trial)."""
        rest = segment.rest_at
        return (
            rest is not None
            and live.trials >= rest
            and live.diverged_at is None
            and self._rule.mistake_driven
            and not segment.rest_updates  # converged, not cycling
        )
