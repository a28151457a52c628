"""`Simulation`: an online learner run one trial at a time over a `Dataset`.

The learner (`simulator.engine.learners`) holds the whole story of its rule: parameters,
state, scoring, update, bound, explanation, drawings. The simulation runs trials, keeps
the history and the fast path (`runner`), and asks; it never branches on which learner
it runs.

Schedule. Trials come in epochs, one pass over the data each: in dataset order
(``order="cyclic"``) or in a fresh permutation per epoch (``order="random"``) drawn from
``(seed, epoch)``, so the same arguments give the same trajectory, bit for bit.

Editing the data. `replace_dataset` keeps the weights and the counters (online learning
goes on) and starts a new epoch over the new data; convergence is then judged afresh.

Ties and exactness. What a score of exactly 0 means is the run's tie rule (`tie`). Every
verdict is the one exact rational arithmetic on the data as written gives (see `runner`
and `learners.exact`): iris makes 1518 mistakes for any η, not the 1562 of naive floats.
Where a learner cannot be exact (Adaline, EG±) a verdict too close to 0 is recorded as
uncertain (`Trial.certain`), and the run never claims convergence over such an epoch.

Convergence. A learner driven by mistakes has converged when a whole epoch passed with no
update; Adaline when an epoch moved no weight by more than ``tolerance · max(1, max|w|)``
(`Learner.settled`). `run` stops there; `step` goes on regardless.

Cycles. In cyclic order on unchanged data, when the state at the start of an epoch repeats,
bit for bit (its exact shadow too), the state at an earlier epoch start, the run repeats
itself forever: `cycle_period` (P epochs) and `cycle_found_at` say so, and `run` stops there
as at convergence. Brent's search needs O(1) memory however long the run.

Divergence. When the learner refuses to go on (a weight beyond 1e150, a Winnow weight that
underflowed to 0), a score overflows, or its epoch loss says so (Adaline: a millionfold
growth over its smallest), the simulation keeps the last weights, stops updating, and
says why in `divergence_reason`; `run` stops there.

History. The trajectory is a function of the settings and the data, so it is not stored
trial by trial: `History` keeps the mistakes, the epoch losses and checkpoints of the live
state every few hundred updates (or after enough trials), and `seek`, `trial`,
`trial_records` and `weights_after_mistakes` replay from the nearest checkpoint with the
same run code, recording off. Rewinding restores the learner, not the data. Stepping on
from a rewound state discards the old future. Once every epoch on the same data repeats
the one before it (converged, or cycling), `run` and replay jump over whole epochs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator.engine.dataset import Dataset
from simulator.engine.features import FeatureMap, InputLine
from simulator.engine.history import History, Segment
from simulator.engine.learners import TIES, Bound, Learner, State, Theory, make_learner
from simulator.engine.records import Settings, Snapshot, Trial
from simulator.engine.runner import REPLAY, LastTrial, Leg, Live, Runner
from simulator.engine.theory import (
    AdalineReport,
    MarginReport,
    adaline_report,
    least_squares_solution,
    margin_report_for,
    signed_margin,
)

__all__ = ["MAX_SEED", "ORDERS", "Settings", "Simulation", "Snapshot", "Trial"]

FloatArray = NDArray[np.float64]
ORDERS = ("cyclic", "random")
MAX_SEED = 2**31 - 1
"""The largest seed, 2³¹ − 1: what the window's seed box (a C int) can show and keep."""
_EXACT_SHOWN_WORK = 1 << 16  # rows updated x features: beyond, views show the float weights
_CHECKPOINT_UPDATES = 256  # a checkpoint at least every this many updates...
_CHECKPOINT_WORK = 1 << 22  # ...and every this many trials x features


def _check_run_settings(settings: Settings) -> None:
    if settings.tie is not None and settings.tie not in TIES:
        raise ValueError(f"unknown tie rule {settings.tie!r:.40}; choose one of {', '.join(TIES)}")
    if settings.order not in ORDERS:
        raise ValueError(f"unknown order {settings.order!r:.40}; choose one of {', '.join(ORDERS)}")
    seed = settings.seed
    if (
        isinstance(seed, bool)
        or not isinstance(seed, int | np.integer)
        or not 0 <= seed <= MAX_SEED
    ):
        raise ValueError(f"the seed must be a whole number 0 … {MAX_SEED}; got {seed!r:.40}")
    tolerance = settings.tolerance
    if not (isinstance(tolerance, int | float) and math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"the tolerance must be a positive number; got {tolerance!r:.40}")


class Simulation:
    """An online classifier learning from a dataset one trial at a time.

    `Simulation(dataset, algorithm, **parameters)`: the learner named `algorithm` (see
    `simulator.engine.learners.LEARNERS`) with its parameters by name (`learning_rate`,
    `promotion`, `threshold`, `mode`, …; unknown names are refused), and keyword-only:
        tie: what a score of exactly 0 means: "mistake", "positive" or "negative"
            (None: the learner's default).
        bias: prepend the constant feature 1 (default True).
        preprocessing: "none", "standardize" or "unit"; features: "linear", "quadratic" or
            "cubic" (see `features`).
        order: "cyclic" or "random" (a fresh permutation per epoch from `seed`).
        seed: seeds the random order and random initial weights.
        initial_weights: None (the learner's default), "zeros", "ones", "random", or the
            numbers (its state's shape, or flat).
        tolerance: the relative weight change under which Adaline has settled.
    """

    _dataset: Dataset

    def __init__(
        self,
        dataset: Dataset,
        algorithm: str = "perceptron",
        *,
        tie: str | None = None,
        bias: bool = True,
        preprocessing: str = "none",
        features: str = "linear",
        order: str = "cyclic",
        seed: int = 0,
        initial_weights: str | ArrayLike | None = None,
        tolerance: float = 1e-6,
        **parameters: Any,
    ) -> None:
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, not {type(dataset).__name__}")
        if isinstance(initial_weights, str) or initial_weights is None:
            initial: str | tuple[float, ...] | None = initial_weights
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                initial = tuple(np.asarray(initial_weights, dtype=np.float64).ravel().tolist())
        settings = Settings(
            algorithm, parameters, tie=tie, bias=bool(bias), preprocessing=preprocessing,
            features=features, order=order, seed=int(seed) if isinstance(seed, int | np.integer)
            and not isinstance(seed, bool) else seed, initial_weights=initial,
            tolerance=tolerance,
        )  # fmt: skip
        _check_run_settings(settings)
        self._features = FeatureMap(
            dataset, bias=bias, preprocessing=preprocessing, features=features
        )
        X = self._features.transform(dataset.points)
        self._n_features = self._features.size(dataset.dimension)
        self._classes = len(dataset.classes)
        self._learner: Learner = make_learner(
            algorithm, self._n_features, features=X, classes=self._classes,
            bias=self._features.bias,
            **dict(settings.parameters),
        )  # fmt: skip
        self._check_parameters(settings)
        self.settings = settings
        self._check_classes(dataset)
        rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(0,)))
        w0 = self._learner.start_weights(self._n_features, initial_weights, rng)
        given = initial_weights is not None and not isinstance(initial_weights, str)
        self._initial = self._learner.initial_state(w0, given)
        self._history = History()
        self._spacing: tuple[Segment | None, tuple[int, int]] | None = None
        self._runner = Runner(
            self._learner, self._history, tie=self.tie, cyclic=order == "cyclic",
            seed=int(seed), tolerance=float(tolerance), initial=self._initial,
        )  # fmt: skip
        self._runner.divergence_text = self._divergence_text
        self._set_current(dataset, X)
        self._live = Live(state=self._initial, epoch_start=self._initial, tortoise=self._initial)
        self._history.add_checkpoint(self._live.copy())

    def _check_parameters(self, settings: Settings) -> None:
        known = {p.name for p in self._learner.parameters}
        unknown = sorted(set(settings.parameters) - known)
        if unknown:
            raise ValueError(
                f"{self._learner.title} has no parameter {unknown[0]!r:.40}; its parameters: "
                + (", ".join(sorted(known)) or "none")
            )

    def _check_classes(self, dataset: Dataset) -> None:
        count = len(dataset.classes)
        refusal = self._learner.refuse_classes(count)
        if refusal is not None:
            raise ValueError(refusal)
        if count != self._classes:
            raise ValueError(
                f"the new data have {count} classes; this run learns {self._classes} (start "
                "a new run for another number of classes)"
            )

    @classmethod
    def from_settings(
        cls, dataset: Dataset, settings: Settings, *, previous: Simulation | None = None
    ) -> Simulation:
        """A simulation of `dataset` with `settings`, ignoring parameters its learner does
        not have (a window keeps them for when the learner is picked again). `previous`:
        the one these settings replace; when its feature vectors and labels are the same,
        its γ*, R and Adaline report carry over instead of being computed again."""
        from simulator.engine.learners import LEARNERS

        learner = LEARNERS.get(settings.algorithm)
        kwargs = settings.as_kwargs()
        if learner is not None:
            own = {p.name for p in learner.parameters}
            kwargs = {k: v for k, v in kwargs.items() if k in own or k not in settings.parameters}
        simulation = cls(dataset, **kwargs)
        if previous is not None:
            simulation._reuse_reports(previous)
        return simulation

    def _set_current(self, dataset: Dataset, X: FloatArray | None = None) -> None:
        """Make `dataset` the current data (`X`: its features, if already computed)."""
        if self._features.size(dataset.dimension) != self._n_features:
            current: Dataset = self._dataset
            raise ValueError(
                f"the new data have {dataset.dimension} coordinates; this run has "
                f"{current.dimension}"
            )
        self._dataset = dataset
        if X is None:
            features = self._features
            self._features = FeatureMap(
                dataset, bias=features.bias, preprocessing=features.preprocessing,
                features=features.map,
            )  # fmt: skip
            X = self._features.transform(dataset.points)
        X.setflags(write=False)  # without bias or preprocessing, the dataset's own points
        self._X = X
        # The rows it learns from: the feature vectors, or the learner's own (Kessler's).
        labels = self._learner.class_indices(dataset.labels)
        rows = self._learner.training_rows(X, labels)
        self._rows = rows
        self._train_X = X if rows is None else rows.X
        self._train_y = labels if rows is None else rows.y
        big = self._train_X
        self._largest = max(float(big.max()), -float(big.min())) if big.size else 0.0
        # The report of the data before an edit warm-starts the next one (same answer).
        self._previous_report: MarginReport | None = getattr(
            self, "_margin_report", None
        ) or getattr(self, "_previous_report", None)
        self._margin_report: MarginReport | None = None
        self._adaline_report: AdalineReport | None = None

    def _reuse_reports(self, previous: Simulation) -> None:
        """Take `previous`'s reports of the data if it had the same feature vectors (its γ*,
        R and R²/γ*² if its learner's are of the same space)."""
        same = previous._X.shape == self._X.shape and (
            previous._dataset is self._dataset
            or np.array_equal(previous._dataset.labels, self._dataset.labels)
        )
        if not (same and np.array_equal(previous._X, self._X)):
            return
        if previous._learner.theory_key() == self._learner.theory_key():
            self._margin_report = previous._margin_report
            self._previous_report = previous._previous_report
        self._adaline_report = previous._adaline_report

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
        counts = self._live.counts
        held = 0 if counts is None else counts.nbytes
        return self._history.nbytes(self._dataset) + self._runner.cache_nbytes + held

    def mistake_trials(self) -> NDArray[np.int64]:
        """The trial numbers of every recorded mistake, ascending (read-only)."""
        return self._history.mistakes

    def epoch_losses(self) -> FloatArray:
        """The learner's loss (mean squared error of the scores) at the end of every recorded
        epoch (read-only); an epoch cut short by new data counts, with w as it was."""
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
                self._runner.one_trial(live, segment, record=False)
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
        size = self._learner.weights(self._initial).size
        if last_k < first_k:
            return np.zeros((0, size))
        live = self._replay(int(mistakes[first_k - 1]) - 1)
        sink: list[FloatArray] = []
        self._replay_to(live, int(mistakes[last_k - 1]), sink)
        return np.array(sink, dtype=np.float64).reshape(-1, size)

    @property
    def last_trial(self) -> Trial | None:
        t = self._live.trials
        return self.trial(t) if t else None

    def trial_state_before(self) -> State | None:
        """The learner's state before the latest trial (None before the first)."""
        live = self._live
        if not live.trials:
            return None
        if live.last is None or live.last.number != live.trials:
            self._live = live = self._replay(live.trials)
        assert live.last is not None
        return live.last.before

    def _make_trial(self, last: LastTrial) -> Trial:
        segment, i, t = last.segment, last.index, last.number
        y = int(segment.y[i])
        learner = self._learner
        offset = learner.margin_offset()
        score = (last.signed + offset) * y + 0.0  # + 0.0: a tie is +0.0, never -0.0
        if learner.classes == "many" and segment.points is None:  # v = s_y − the best other
            score = last.signed + 0.0
            x = segment.X[i].reshape(1, -1)
            # The class index predicted, as the dataset's label (two classes: −1, +1).
            prediction = segment.dataset.classes[int(learner.predict(last.before, x, self.tie)[0])]
        elif last.signed + offset == 0.0:
            prediction = {"mistake": 0, "positive": 1, "negative": -1}[self.tie]
        elif math.isnan(score):
            prediction = 0
        else:
            prediction = 1 if score > 0 else -1
        point = i if segment.points is None else int(segment.points[i])
        return Trial(
            number=t,
            index=point,
            epoch=segment.epoch_of(t),
            x=tuple(segment.X[i].tolist()),
            y=int(segment.dataset.labels[point]),
            score=score,
            prediction=prediction,
            mistake=last.mistake,
            weights_before=tuple(learner.weights(last.before).ravel().tolist()),
            weights_after=tuple(learner.weights(last.after).ravel().tolist()),
            point=tuple(segment.dataset.points[point].tolist()),
            certain=last.certain,
            states=(last.before, last.after),
        )

    # -- theory of the current data ----------------------------------------------------------------

    def margin_report(self) -> MarginReport:
        """R, γ*, R²/γ*² and the optimal separator of the current data, in the learner's
        feature space (cached)."""
        if self._margin_report is None:
            Z, labels = self._learner.theory_rows(self._train_X, self._train_y)
            self._margin_report = margin_report_for(Z, labels, self._previous_report)
        return self._margin_report

    def adaline_report(self, *, least_squares: bool = True) -> AdalineReport:
        """The stable learning rates for the current data and, unless `least_squares=False`,
        w_LS (cached; asked first without it, w_LS comes later)."""
        report = self._adaline_report
        if report is None:
            report = adaline_report(self._X, self._dataset.labels, least_squares=least_squares)
        elif least_squares and report.least_squares is None and len(self._dataset):
            solution = least_squares_solution(self._X, self._dataset.labels)
            report = replace(report, least_squares=solution)
        self._adaline_report = report
        return report

    def theory(self) -> Theory:
        """What a learner may ask of the current data for its bound."""
        return Theory(
            features=self._X,
            labels=self._dataset.labels,
            initial=self._initial,
            tie=self.tie,
            bias=self._features.bias,
            margin_report=self.margin_report,
        )

    def learner_numbers(self) -> tuple[tuple[str, str], ...]:
        """The learner's own numbers for the panel (see `Learner.numbers`)."""
        return self._learner.numbers(self._live.state, self.theory(), self._live.trials)

    @property
    def bound(self) -> Bound | None:
        """The mistake bound that applies to this run (an object: value, formula, whose it
        is and why), or None where none does."""
        return self._learner.bound(self.theory())

    def mistake_bound(self) -> float | None:
        """The value of `bound` (inf: the data have none; nan: no data), or None."""
        bound = self.bound
        return None if bound is None else bound.value

    @property
    def bound_is_general(self) -> bool:
        """Whether the bound is Novikoff's general form (w₀ ≠ 0)."""
        bound = self.bound
        return bound is not None and bound.general

    def current_margin(self) -> float:
        """minᵢ yᵢ (w·xᵢ − θ)/|w| for the current w; nan when w = 0 or there is no data."""
        return signed_margin(self._signed_scores()[0], self._learner.weights(self._live.state))

    def _signed_scores(self) -> tuple[FloatArray, NDArray[np.bool_]]:
        """(v, certain) for every current training row, ties decided (exactly 0)."""
        live, X, y = self._live, self._train_X, self._train_y
        runner = self._runner
        with np.errstate(over="ignore", invalid="ignore"):
            terms = runner.terms(live, None, self._largest)
            return runner.signed_rows(live, terms, X, y, self._exact_row)

    def _exact_row(self, i: int) -> tuple[tuple[int, int, int], ...]:
        """Training row i in exact decimals (a point's, or a row the learner made of one)."""
        rows = self._rows
        p = i if rows is None else int(rows.points[i])
        point = self._features.exact_row(self._dataset.points[p], self._X[p])
        return point if rows is None else rows.digits(point, i)

    def boundary(self) -> InputLine | None:
        """The boundary w·x = θ as a line in the input plane (None if it is not one)."""
        w = self._learner.weights(self._live.state)
        return self._features.input_line(w, self._learner.threshold) if w.ndim == 1 else None

    def snapshot(self) -> Snapshot:
        signed, _ = self._signed_scores()  # one pass over the data serves margin and mistakes
        misclassified = self._runner.mistake_mask(signed, self._train_y)
        if self._rows is not None:  # a point is wrong when one of its rows is
            per_point = np.zeros(len(self._dataset), dtype=bool)
            np.logical_or.at(per_point, self._rows.points, misclassified)
            misclassified = per_point
        misclassified.setflags(write=False)
        return Snapshot(
            trials=self.trials,
            mistakes=self.mistakes,
            epoch=self.epoch,
            weights=tuple(self.shown_weights().ravel().tolist()),
            threshold=self.threshold,
            converged=self.converged,
            converged_at=self.converged_at,
            diverged=self.diverged,
            divergence_reason=self.divergence_reason,
            last_trial=self.last_trial,
            margin=signed_margin(signed, self._learner.weights(self._live.state)),
            misclassified=misclassified,
            diverged_at=self.diverged_at,
            cycle_period=self.cycle_period,
            cycle_found_at=self.cycle_found_at,
            rows=self.weights.shape[0] if self.weights.ndim == 2 else 1,
        )

    # -- changing the data ---------------------------------------------------------------------

    def replace_dataset(self, dataset: Dataset) -> None:
        """Continue on new data: weights and counters stay; a new epoch starts next trial.

        Before the first trial, defaults derived from the data (Adaline's η) are derived
        again from the new data; after it, the learner stays as it is.
        """
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset must be a Dataset, not {type(dataset).__name__}")
        self._check_classes(dataset)
        self._set_current(dataset)
        self._history.truncate(self._live.trials)
        if self._live.trials == 0:  # nothing ran yet: defaults derived from data follow them
            self._learner = make_learner(
                self.settings.algorithm, self._n_features, features=self._X,
                classes=self._classes, bias=self._features.bias,
                **dict(self.settings.parameters),
            )  # fmt: skip
            self._runner.learner = self._learner
            self._live.terms = None

    # -- running -----------------------------------------------------------------------------------

    def step(self) -> Trial:
        """Run one trial and return its record."""
        segment = self._prepare()
        live = self._live
        with np.errstate(over="ignore", invalid="ignore"):
            self._runner.one_trial(live, segment, record=True)
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
        cancelled: Callable[[], bool] | None = None,
    ) -> int:
        """Run up to `max_trials` trials; return how many ran.

        Stops early once converged, diverged or found cycling (unless
        `until_converged=False`), right after a mistake (if `stop_on_mistake`), when
        `budget_seconds` of wall time have passed, or once `cancelled()` is true (both
        checked between blocks of at most an epoch; the trajectory never depends on them).
        """
        if max_trials < 0:
            raise ValueError(f"max_trials must be >= 0; got {max_trials}")
        deadline = None if budget_seconds is None else time.perf_counter() + budget_seconds
        done = 0
        live, runner = self._live, self._runner
        with np.errstate(over="ignore", invalid="ignore"):
            while done < max_trials:
                if until_converged and self._settled():
                    break
                if cancelled is not None and cancelled():
                    break
                segment = self._prepare()
                if not stop_on_mistake or not segment.rest_mistakes:
                    skipped = runner.skip_rest(live, segment, max_trials - done, record=True)
                    if skipped:
                        done += skipped
                        self._history.length = live.trials
                        self._history.add_checkpoint(live.copy())
                        continue
                trials_room, updates_room = self._checkpoint_room()
                mistakes = live.mistakes
                leg = Leg(
                    record=True,
                    stop_on_mistake=stop_on_mistake,
                    deadline=deadline,
                    update_budget=updates_room,
                )
                done += runner.advance(live, segment, min(max_trials - done, trials_room), leg)
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

    def _divergence_text(self, t: int, kind: str, detail: str, live: Live) -> str:
        """Why the run stopped updating at trial t, in one sentence with advice."""
        learner = self._learner
        advice = learner.divergence_advice(self._X)
        if kind == "score":
            return f"the score w·x overflowed at trial {t}, so it stopped updating ({advice})."
        if kind == "growth":
            low, high = detail.split("|")
            segment = live.segment
            epoch = segment.epoch_of(t) if segment is not None else self.epoch
            return (
                f"{learner.title} diverged at trial {t} (epoch {epoch}): its mean squared "
                f"error grew from {low} to {high}, over a millionfold, so it stopped "
                f"updating. {advice}"
            )
        if detail == "overflow":
            return (
                f"{learner.title} {learner.overflow_word} at trial {t}: a weight grew past "
                f"1e150, so it stopped updating ({advice})."
            )
        return f"{learner.title} stopped at trial {t}: {detail}."

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
                # the epoch cut short
                history.record_loss(self._learner.loss(live.state, previous.X, previous.y))
            history.add_segment(
                Segment(
                    t, history.epoch_of(t) + 1, self._dataset, self._train_X, self._train_y,
                    largest=self._largest, exact_row=self._exact_row,
                    points=None if self._rows is None else self._rows.points,
                )
            )  # fmt: skip
        segment = history.segments[-1]
        self._enter(live, segment, len(history.segments) - 1)
        return segment

    def _enter(self, live: Live, segment: Segment, index: int) -> None:
        """Start the bookkeeping of a new stretch of data, if `live` is not on it yet."""
        if live.segment is not segment:
            if segment.start_state is None:  # the first time the run enters these data
                segment.start_state = live.state
                if live.segment is not None and live.counts is not None:
                    segment.previous = (live.segment, live.counts.copy())
            live.segment, live.segment_index = segment, index
            exact = self._learner.shadow_unit() is not None
            columns = self._learner.shadow_columns()
            live.counts = np.zeros((segment.n, columns), dtype=np.int64) if exact else None
            live.epoch_updates = 0
            live.epoch_mistakes = []
            live.uncertain = 0
            live.epoch_start = live.state
            # The divergence test on the loss counts growth from the start, too.
            live.min_loss = (
                self._learner.loss(live.state, segment.X, segment.y)
                if self._learner.least_squares
                else math.inf
            )
            live.power, live.lam, live.tortoise = 1, 1, live.state
            live.tortoise_updates, live.tortoise_exact = live.updates, None

    def _enter_next(self, live: Live) -> Segment:
        """The recorded segment of the trial after `live.trials` (replay), entered."""
        history = self._history
        index = history.segment_index_continuing_from(live.trials)
        segment = history.segments[index]
        self._enter(live, segment, index)
        return segment

    def _checkpoint_spacing(self) -> tuple[int, int]:
        """(trials, updates) between checkpoints: a replay from one costs at most
        _CHECKPOINT_WORK trials x features and _CHECKPOINT_UPDATES updates; a large live
        record (many features, update counts of many rows) spaces them out to cost about 16
        bytes per trial and 256 per update at most. Its size changes with the data only."""
        key = self._live.segment
        if self._spacing is None or self._spacing[0] is not key:
            size = self._live.nbytes
            spacing = (
                max(_CHECKPOINT_WORK // self._n_features, size // 16),
                max(_CHECKPOINT_UPDATES, size // 256),
            )
            self._spacing = (key, spacing)
        return self._spacing[1]

    def _checkpoint_room(self) -> tuple[int, int]:
        """(trials, updates) until the next checkpoint is due."""
        last = self._history.last_checkpoint
        live = self._live
        trials, updates = self._checkpoint_spacing()
        return (
            max(1, trials - (live.trials - last.trials)),
            max(1, updates - (live.updates - last.updates)),
        )

    def _maybe_checkpoint(self) -> None:
        last = self._history.last_checkpoint
        live = self._live
        trials, updates = self._checkpoint_spacing()
        if live.trials - last.trials >= trials or live.updates - last.updates >= updates:
            self._history.add_checkpoint(self._checkpoint_of(live))

    def _checkpoint_of(self, live: Live) -> Live:
        copy = live.copy()
        copy.terms = copy.last = None
        diverged = self._history.diverged_at
        copy.diverged_at = diverged if diverged is not None and diverged <= live.trials else None
        return copy

    def _replay(self, t: int) -> Live:
        """The live state after trial t, its last trial included: from the current state
        when it is on the way, else from the checkpoint at or before t − 1, replayed."""
        current = self._live
        if t == current.trials and (t == 0 or current.last is not None):
            return current.copy()
        before = max(t - 1, 0)
        checkpoint = self._history.checkpoint_at_or_before(before)
        on_the_way = checkpoint.trials <= current.trials <= before
        live = current.copy() if on_the_way else self._restore(checkpoint)
        self._replay_to(live, before)
        if t:  # the last trial alone, so that its record is at hand (`last_trial`)
            segment = self._enter_next(live)
            with np.errstate(over="ignore", invalid="ignore"):
                self._runner.one_trial(live, segment, record=False)
        return live

    def _restore(self, checkpoint: Live) -> Live:
        live = checkpoint.copy()
        diverged = self._history.diverged_at
        live.diverged_at = diverged if diverged is not None and diverged <= live.trials else None
        index = live.segment_index
        live.segment = self._history.segments[index] if index >= 0 else None
        return live

    def _replay_to(self, live: Live, t: int, sink: list[FloatArray] | None = None) -> None:
        """Advance `live` to trial t along the recorded history, recording nothing."""
        segments = self._history.segments
        leg = REPLAY if sink is None else Leg(record=False, sink=sink)
        runner = self._runner
        with np.errstate(over="ignore", invalid="ignore"):
            while live.trials < t:
                segment = self._enter_next(live)
                index = live.segment_index
                stop = min(t, segments[index + 1].start if index + 1 < len(segments) else t)
                if self._at_rest(live, segment):
                    live.trials, live.last = stop, None  # nothing changes until new data
                    continue
                if sink is None or not segment.rest_mistakes:
                    runner.skip_rest(live, segment, stop - live.trials, record=False)
                runner.advance(live, segment, stop - live.trials, leg)

    def _at_rest(self, live: Live, segment: Segment) -> bool:
        """Whether `live` stays as it is, but for the trial count, while on `segment`: a
        learner that has converged without updates scores every point right with fixed
        weights, so it makes no mistake and no update again, in any order (replay jumps
        over those trials)."""
        rest = segment.rest_at
        return (
            rest is not None
            and live.trials >= rest
            and live.diverged_at is None
            and self._learner.cadence != "trial"
            and not segment.rest_updates
            and not segment.rest_mistakes
        )
