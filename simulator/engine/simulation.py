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

The class is built in layers, a module each: `simulation_state` (where the run stands,
the learner's views of points), `simulation_replay` (history, checkpoints, replay),
`simulation_run` (`step` and `run`) and `simulation_snapshot` (margin, boundary,
snapshot); this module makes the run, changes its data and holds the theory of its data.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator.engine.dataset import Dataset
from simulator.engine.features import FeatureMap
from simulator.engine.history import History
from simulator.engine.learners import TIES, Bound, State, Theory, make_learner
from simulator.engine.live import Live
from simulator.engine.records import Settings, Snapshot, Trial
from simulator.engine.runner import Runner
from simulator.engine.simulation_run import SimulationRun
from simulator.engine.simulation_snapshot import SimulationSnapshot
from simulator.engine.theory import (
    AdalineReport,
    MarginReport,
    adaline_report,
    least_squares_solution,
    margin_report_for,
)

__all__ = ["MAX_SEED", "ORDERS", "Settings", "Simulation", "Snapshot", "Trial"]

FloatArray = NDArray[np.float64]
ORDERS = ("cyclic", "random")
MAX_SEED = 2**31 - 1
"""The largest seed, 2³¹ − 1: what the window's seed box (a C int) can show and keep."""


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


class Simulation(SimulationRun, SimulationSnapshot):
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

    `Simulation.theory_seconds`: a time budget for γ* (None, the default: none). The window
    sets it (`THEORY_SECONDS`), so that data whose γ* would take minutes (nine classes of
    the 150-variable disjunction: 93 s) show "—" with the reason instead of freezing it.
    """

    theory_seconds: ClassVar[float | None] = None

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
        key = ("features", bias, preprocessing, features)
        X = dataset.derived(key, partial(self._features.transform, dataset.points))
        self._n_features = self._features.size(dataset.dimension)
        self._classes = len(dataset.classes)
        self._learner = make_learner(
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
        self._spacing = None
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
        self._previous_report = getattr(self, "_margin_report", None) or getattr(
            self, "_previous_report", None
        )
        self._margin_report = None
        self._theory_rows = None
        self._adaline_report = None

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
            self._theory_rows = previous._theory_rows
            self._previous_report = previous._previous_report
        self._adaline_report = previous._adaline_report

    # -- theory of the current data ----------------------------------------------------------------

    # Here, not in a mixin: tests count γ* computations through this module's margin_report_for.
    def margin_report(self) -> MarginReport:
        """R, γ*, R²/γ*² and the optimal separator of the current data, in the learner's
        feature space (cached)."""
        if self._margin_report is None:
            Z, labels = self.theory_rows()
            self._margin_report = margin_report_for(
                Z, labels, self._previous_report, seconds=Simulation.theory_seconds
            )
        return self._margin_report

    def theory_rows(self) -> tuple[FloatArray, NDArray[np.int8]]:
        """The learner's theory rows of the current data and their ±1 labels
        (`Learner.theory_rows`: the rows whose γ*, R and u* `margin_report` gives; cached)."""
        if self._theory_rows is None:
            self._theory_rows = self._learner.theory_rows(self._train_X, self._train_y)
        return self._theory_rows

    def proof_weights(self, state: State | None = None, *, start: bool = False) -> FloatArray:
        """The learner's w for `state` (None: the current one; `start`: w₀) in the space of
        its theory rows, where γ*'s separator u* lives (`Learner.proof_weights`): what
        Novikoff's proof multiplies by u*."""
        if state is None:
            state = self._initial if start else self._live.state
        rows, _ = self.theory_rows()
        return self._learner.proof_weights(state, self._train_X, self._train_y, rows)

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
