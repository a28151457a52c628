"""`Trace`: the run so far as plain arrays, for the timeline, the ledger and the charts.

A `Frame` describes one moment; its `trace` describes the road there: the trial numbers of
the recorded mistakes, the proof quantities after each mistake, the loss after each epoch.
It is built by the engine's queries (no Qt here), incrementally: a `_Tracer` kept beside
each simulation (weakly, so an old run is freed with its simulation) remembers what it
computed and asks the engine only for what is new. Its arrays are read-only and never
change under their holder, so a view may keep them and compare lengths to draw only what
is new; `key` changes when an earlier part changed (a new run, or the recorded future
replaced after points were edited at a rewound trial), and then a view redraws.

The proof (Block–Novikoff, for learners whose bound it is, `Bound.proof`, on
separable data), in the space of the learner's theory rows (the feature space; Kessler's
vectors; a kernel's feature space, in the coordinates of a factor of its Gram matrix) with
the optimal unit separator u*, its margin γ* and R = maxᵢ ‖xᵢ‖; w there is the learner's
`proof_weights`, collected after each mistake by the same replay as its weights. A
mistake on (x, y) has y w·x <= 0 (whatever the tie rule: a tie that counts as a mistake
has w·x = 0) and updates w ← w + η y x. So after the k-th mistake, from w₀:

- (w_k − w₀)·u* grows by η y x·u* >= ηγ* per mistake:   A_k = (w_k − w₀)·u*/(ηγ*) >= k;
- ‖w_k‖² grows by 2η y w·x + η²‖x‖² <= η²R² per mistake: B_k = (‖w_k‖² − ‖w₀‖²)/(η²R²) <= k
  (the cross term 2η y w·x is <= 0 on a mistake, so no term in ‖w₀‖ appears);
- Cauchy–Schwarz, w_k·u* <= ‖w_k‖:  ηγ* A_k + w₀·u* <= sqrt(‖w₀‖² + η²R² B_k).

Together k <= A_k <= (sqrt(‖w₀‖² + kη²R²) − w₀·u*)/(ηγ*) =: C(k), the ceiling. The line k
and the ceiling meet at the mistake bound: R²/γ*² when w₀ = 0 (C(k) = √k·R/γ*), and
otherwise the largest k with w₀·u* + kηγ* <= sqrt(‖w₀‖² + kη²R²) (the engine's general
bound). With w₀ = 0, A_k and B_k are w·u*/(ηγ*) and ‖w‖²/(η²R²), and A_k >= k >= B_k.

These use the current data's u*, γ* and R: after points were edited during a run, the
earlier mistakes were made on other data and need not obey them.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine import Simulation, Trial
from simulator.engine.history import Buffer
from simulator.engine.learners.exact import squared_error

__all__ = [
    "WEIGHTS_BUDGET",
    "Followed",
    "Proof",
    "Trace",
    "TrialReader",
    "ceiling",
    "trace_of",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

WEIGHTS_BUDGET = 2_000_000
"""Numbers of w kept after mistakes (16 MB): the proof and the weight curves stop there."""

_RUNS = itertools.count(1)


ArrayT = TypeVar("ArrayT", bound=NDArray[Any])


def _frozen(array: ArrayT) -> ArrayT:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, slots=True)
class Proof:
    """Novikoff's proof for this run after each mistake k = 0…m (see the module docstring).

    `along[k]` = A_k, `norm[k]` = B_k (index 0: before any mistake, both 0). `reason` says
    why there is nothing to show (None when the proof applies). `general`: w₀ ≠ 0.
    """

    reason: str | None
    along: FloatArray
    norm: FloatArray
    general: bool = False
    learning_rate: float = math.nan
    gamma: float = math.nan
    radius: float = math.nan
    start_along: float = 0.0  # w₀·u*
    start_norm2: float = 0.0  # ‖w₀‖²
    bound: float = math.inf  # where the line k meets the ceiling
    truncated: bool = False  # more mistakes than WEIGHTS_BUDGET allows to follow
    separator: tuple[float, ...] = field(default=(), repr=False)  # u*, in its theory rows' space
    symbols: tuple[str, str] = ("γ*", "R")  # the margin's and the radius's names
    vector: str = "x"  # a trial's vector in the proof's space (`Learner.proof_vector`)
    space: str = ""  # that space, when it is not the plane's features ("K_b's feature space")

    @property
    def applies(self) -> bool:
        return self.reason is None

    @property
    def key(self) -> tuple[float, ...]:
        """Changes when the same w would give other A_k, B_k (the data changed; in a
        kernel's space, also when the factor's coordinates did)."""
        return (
            self.learning_rate, self.gamma, self.radius, self.start_along, self.start_norm2,
            *self.separator,
        )  # fmt: skip


def ceiling(proof: Proof, k: FloatArray) -> FloatArray:
    """C(k) = (sqrt(‖w₀‖² + kη²R²) − w₀·u*)/(ηγ*), the most A_k can be after k mistakes."""
    eta, gamma, radius = proof.learning_rate, proof.gamma, proof.radius
    result: FloatArray = (
        np.sqrt(proof.start_norm2 + k * (eta * radius) ** 2) - proof.start_along
    ) / (eta * gamma)
    return result


class TrialReader:
    """Read-only access to the records of a run, for views that show many trials.

    Holds the simulation weakly: once the window has moved on to another run, it answers
    with nothing rather than keep the old history alive.
    """

    __slots__ = ("_simulation",)

    def __init__(self, simulation: Simulation) -> None:
        self._simulation = weakref.ref(simulation)

    def records(self, first: int, last: int) -> list[Trial]:
        """Trials first..last (1-based, inclusive) by one replay; [] if the run is gone or
        the range is not recorded."""
        sim = self._simulation()
        if sim is None or not 1 <= first <= last <= sim.history_length:
            return []
        return sim.trial_records(first, last)


@dataclass(frozen=True, slots=True)
class Followed:
    """The proof and w after each mistake, for the first `len(weights)` mistakes.

    `weights[k − 1]` is w after the k-th mistake (None: not followed for this rule, e.g.
    Adaline, which updates on every trial; then the proof does not apply either).
    `complete` is False while they are still being computed for a long history (ask
    again: each call computes a bounded amount).
    """

    proof: Proof
    weights: FloatArray | None
    complete: bool


@dataclass(frozen=True, slots=True)
class Trace:
    """The run up to the current trial (see the module docstring). Arrays are read-only.

    `mistake_trials` holds every recorded mistake, also those after the current trial
    (after a rewind), `mistakes` how many happened by the current trial. `losses` is the
    mean squared error after each epoch completed by the current trial, `loss_floor` that
    of the least-squares w_LS (None: not a least-squares rule). The proof and the weights
    after each mistake cost a replay, so they are computed only when asked:
    `followed(budget)`.
    """

    key: tuple[int, int]  # (run, revision): changes when earlier values changed
    trials: int
    length: int
    mistake_trials: IntArray
    mistakes: int
    initial_weights: tuple[float, ...]
    losses: FloatArray | None
    loss_floor: float | None
    start_loss: float | None  # the mean squared error of w₀ (a least-squares rule's epoch 0)
    reader: TrialReader
    follow: Callable[[int | None, bool], Followed] = field(repr=False, compare=False)

    def followed(self, budget: int | None = None, *, weights: bool = True) -> Followed:
        """The proof and w after each of the first `mistakes` mistakes, computing at most
        `budget` new ones by replay (None: all of them; views pass a budget so that a long
        history never freezes the window, and ask again while `complete` is False).

        `weights=False`: only the proof is wanted, so where it does not apply nothing is
        replayed (the weights come back None)."""
        return self.follow(budget, weights)


class _Tracer:
    """What has been computed for one simulation (see the module docstring)."""

    def __init__(self, simulation: Simulation) -> None:
        self.run = next(_RUNS)
        self.revision = 0
        self.seen = (0, 0)  # (trials, history_length) at the last trace
        n = _flat(simulation.initial_weights).size  # K classes: all of W in a row
        self.limit = max(1, WEIGHTS_BUDGET // max(1, n))
        self.trials = Buffer(np.int64)  # the mistakes whose w is known
        self.weights = Buffer(np.float64, width=n)
        self.along = Buffer(np.float64)
        self.norm = Buffer(np.float64)
        self.proof_key: tuple[float, ...] | None = None
        self.floor: tuple[object, float | None, float | None] | None = None
        self.reader = TrialReader(simulation)

    def _forget_after(self, keep: int) -> None:
        """Keep what is known about the first `keep` mistakes only."""
        if keep < len(self.trials):
            self.trials.truncate(keep)
            self.weights.truncate(keep)
            self.along.truncate(min(keep + 1, len(self.along)))
            self.norm.truncate(min(keep + 1, len(self.norm)))
            self.revision += 1

    def trace(self, sim: Simulation) -> Trace:
        t, length = sim.trials, sim.history_length
        before, recorded = self.seen
        if length < recorded:
            # The recorded future was cut: the points changed at a rewound trial. What
            # follows the cut may be recomputed on other data.
            cut = min(before, t, length)
            self._forget_after(int(np.searchsorted(self.trials.view, cut, side="right")))
        self.seen = (t, length)
        mistake_trials = sim.mistake_trials()
        m = int(np.searchsorted(mistake_trials, t, side="right"))
        known = len(self.trials)
        if known and (
            known > len(mistake_trials) or mistake_trials[known - 1] != self.trials.view[-1]
        ):
            self._forget_after(0)  # a history we did not see change: start again
        losses = floor = start_loss = None
        if sim.rule.least_squares:
            losses = _frozen(sim.epoch_losses()[: _epochs_completed(sim)])
            floor, start_loss = self._floor(sim)
        simulation = weakref.ref(sim)
        done: list[Followed] = []

        def follow(budget: int | None, weights: bool) -> Followed:
            if done:
                return done[0]
            live = simulation()
            if live is None:
                empty = _frozen(np.zeros(0))
                return Followed(Proof("This run has been replaced.", empty, empty), None, True)
            if not weights:
                proof = self._proof(live)
                if not proof.applies:
                    return Followed(proof, None, True)
            result = self._follow(live, mistake_trials, m, budget)
            if result.complete:
                done.append(result)
            return result

        return Trace(
            key=(self.run, self.revision),
            trials=t,
            length=length,
            mistake_trials=mistake_trials,
            mistakes=m,
            initial_weights=tuple(sim.initial_weights.tolist()),
            losses=losses,
            loss_floor=floor,
            start_loss=start_loss,
            reader=self.reader,
            follow=follow,
        )

    def _follow(
        self, sim: Simulation, mistake_trials: IntArray, m: int, budget: int | None
    ) -> Followed:
        """w after the first m mistakes and the proof's A_k, B_k (at most `budget` more
        mistakes replayed now, both collected by the same replay)."""
        proof = self._proof(sim)
        rule = sim.rule
        if not rule.moves_on_mistakes_only:
            if proof.applies:  # A_k and B_k are of w after each mistake: none to show
                proof = Proof(f"{rule.title}'s w is not followed after each mistake.",
                              proof.along, proof.norm)  # fmt: skip
            return Followed(proof, None, True)
        if proof.applies and (proof.key != self.proof_key or not len(self.along)):
            # Other data, other u* (and, in a kernel's space, other coordinates): every
            # A_k, B_k is computed again, by replay.
            self.along.truncate(0)
            self.norm.truncate(0)
            self.along.append(0.0)  # k = 0: w = w₀
            self.norm.append(0.0)
            self.proof_key = proof.key
        known = len(self.trials)
        proven = len(self.along) - 1 if proof.applies else known
        first = min(known, proven)
        need = min(m, self.limit)
        if budget is not None:
            need = min(need, first + max(0, budget))
        if need > first:
            collect = [sim.learner.weights]
            if proof.applies:
                collect.append(sim.proof_weights)
            found = sim.after_mistakes(first + 1, need, *collect)
            if need > known:
                self.weights.extend(found[0][known - first :])
                self.trials.extend(mistake_trials[known:need])
            if proof.applies and need > proven:
                self._squeeze(sim, proof, found[1][proven - first :])
        shown = min(m, len(self.trials))
        complete = shown >= min(m, self.limit)
        if proof.applies:
            proven = min(m, len(self.along) - 1)
            complete = complete and proven >= min(m, self.limit)
            proof = replace(
                proof,
                along=self.along.view[: proven + 1],
                norm=self.norm.view[: proven + 1],
                truncated=m > self.limit,
            )
        return Followed(proof, self.weights.view[:shown], complete)

    def _proof(self, sim: Simulation) -> Proof:
        """The proof's constants for this run, or why it does not apply (arrays empty)."""
        empty = _frozen(np.zeros(0))
        learner = sim.learner
        own = sim.bound
        if own is None or not own.proof:
            return Proof(
                f"The squeeze A_k ≥ k ≥ B_k is the perceptron's convergence proof "
                f"(Block–Novikoff); {learner.title} makes no such promise.",
                empty,
                empty,
            )
        if len(sim.dataset) == 0:
            return Proof("No points yet: place some, then step.", empty, empty)
        report = sim.margin_report()
        if not report.separable or report.separator is None or not report.gamma > 0:
            return Proof(
                f"Not linearly separable ({learner.symbols[0]} ≤ 0): no unit u* puts every "
                "point on its side with a margin, so A_k has no ceiling and k no bound.",
                empty,
                empty,
            )
        # w₀ in the space of u* (K classes: W's rows in a row, as Kessler's u* is; a
        # kernel's: the factor's coordinates).
        w0 = sim.proof_weights(start=True)
        u = np.asarray(report.separator, dtype=np.float64)
        eta = own.rate
        bound = own.value
        return Proof(
            None,
            empty,
            empty,
            general=bool(np.any(w0)),
            learning_rate=eta,
            gamma=float(report.gamma),
            radius=float(report.radius),
            start_along=float(np.dot(w0, u)),
            start_norm2=float(np.dot(w0, w0)),
            bound=float(bound),
            separator=tuple(u.tolist()),
            symbols=learner.symbols,
            vector=learner.proof_vector,
            space="" if learner.theory_in_plane else learner.theory_space,
        )

    def _squeeze(self, sim: Simulation, proof: Proof, vectors: FloatArray) -> None:
        """A_k and B_k of the next mistakes, from w after each in the space of u*."""
        u = np.asarray(proof.separator, dtype=np.float64)
        w0 = sim.proof_weights(start=True)
        eta, gamma, radius = proof.learning_rate, proof.gamma, proof.radius
        self.along.extend(((vectors - w0) @ u) / (eta * gamma))
        squares = np.einsum("ij,ij->i", vectors, vectors)
        self.norm.extend((squares - proof.start_norm2) / (eta * radius) ** 2)

    def _floor(self, sim: Simulation) -> tuple[float | None, float | None]:
        """The mean squared error of the least-squares w_LS and of w₀ on the current data."""
        report = sim.adaline_report()
        if self.floor is not None and self.floor[0] is report:
            return self.floor[1], self.floor[2]
        floor = start = None
        X, y = sim.feature_matrix, sim.dataset.labels
        if len(sim.dataset):
            start = squared_error(X, sim.initial_weights, sim.threshold, y) / X.shape[0]
            if report.least_squares is not None:
                w = np.asarray(report.least_squares, dtype=np.float64)
                floor = squared_error(X, w, sim.threshold, y) / X.shape[0]
        self.floor = (report, floor, start)
        return floor, start


def _flat(weights: object) -> np.ndarray:
    """w₀ as one vector: a K-class learner's (K, D) rows one after another, the layout of
    the Kessler vectors its margin u* lives among."""
    return np.asarray(weights, dtype=np.float64).ravel()


def _epochs_completed(sim: Simulation) -> int:
    """How many epochs had ended by the current trial (at most the recorded losses)."""
    t = sim.trials
    if t == 0:
        return 0
    ended = sim.trials_left_in_epoch == sim.epoch_length
    completed = sim.epoch if ended else sim.epoch - 1
    return max(0, min(completed, len(sim.epoch_losses())))


_TRACERS: weakref.WeakKeyDictionary[Simulation, _Tracer] = weakref.WeakKeyDictionary()


def trace_of(simulation: Simulation) -> Trace:
    """The trace of `simulation` at its current trial, reusing what was computed before."""
    tracer = _TRACERS.get(simulation)
    if tracer is None:
        tracer = _TRACERS[simulation] = _Tracer(simulation)
    return tracer.trace(simulation)
