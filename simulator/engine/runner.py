"""The run code shared by recording and replay: trials decided, learners asked, epochs
ended, cycles found, repeating stretches jumped.

`Runner` advances a `Live` record (the learner's `State` and the run's counters) over a
`Segment` of the history. Every method takes `record`: whether to write the history
(mistakes, losses, events); replay runs the same code with record off, so a replayed
trial is, bit for bit, the one first run.

Deciding a trial. A linear learner's `scorer` gives w, θ and the rounding-error bound of
its weights: between updates the weights are fixed, so the upcoming trials are scored in
one go (the compiled `_scan.c`, else NumPy blocks; the same bits), and a verdict on
v = y·s − τ is taken from the floats where their bound decides it, from twice the precision
where that does (`exact.dot2_rows`), and otherwise from the learner's exact shadow
(`Learner.exact_signed`): every verdict is the one exact arithmetic on the data as written
gives, never a rounding snapped to 0. Where a learner cannot be exact (Adaline, EG±), a
verdict within 1e-9 of its score's size of 0 is recorded as uncertain. A learner that does
not score linearly gives its verdicts itself (`Learner.signed_scores`).

When it learns (`Learner.cadence`): after a mistake (the scan jumps from mistake to
mistake), after every trial, or once at the end of each epoch.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.history import History, Segment
from simulator.engine.learners import TIES, EpochSteps, Learner, LinearScorer, State, Step
from simulator.engine.learners import exact as exact_module
from simulator.engine.learners.exact import (
    dot2_rows,
    numpy_dot_rows,
    refine_bounds,
    refine_coefficients,
)

__all__ = ["LastTrial", "Leg", "Live", "Runner"]

FloatArray = NDArray[np.float64]
_MAX_BLOCK = 1 << 16  # NumPy path: rows scored at once
_APPROXIMATE = 1e-9  # an inexact learner's verdict this close to 0 (relatively) is uncertain


@dataclass(slots=True)
class Terms:
    """A scorer for the live state, with `bmax`, its tie bound's maximum over all rows of
    `segment` (computed when first needed)."""

    scorer: LinearScorer | None
    bmax: float = math.nan
    segment: Segment | None = None


@dataclass(frozen=True, slots=True)
class Leg:
    """How `advance` runs a stretch of trials: whether it writes the history, and what
    ends it early: the first mistake, the wall-clock `deadline` (`time.perf_counter`), or
    `update_budget` updates. `sink` collects the effective w after each mistake (replay)."""

    record: bool
    stop_on_mistake: bool = False
    deadline: float | None = None
    update_budget: int | None = None
    sink: list[FloatArray] | None = None


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
    (updates so far, its mistakes for a learner that learns per epoch, the state at its
    start), the smallest epoch loss on these data (a learner's divergence test), and Brent's
    cycle search over epoch-start states (`power`, `lam`, `tortoise`).
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

    def copy(self) -> Live:
        # States are never changed in place, so sharing them is safe; `terms` is a cache.
        return replace(self, epoch_mistakes=list(self.epoch_mistakes))

    @property
    def nbytes(self) -> int:
        """Memory a checkpoint of this record holds (its own arrays, roughly)."""
        return 200 + self.state.nbytes + 8 * len(self.epoch_mistakes)


class Runner:
    """Advances live states of one run (see the module docstring)."""

    def __init__(
        self,
        learner: Learner,
        history: History,
        *,
        tie: str,
        cyclic: bool,
        seed: int,
        tolerance: float,
    ) -> None:
        self.learner = learner
        self.history = history
        self.tie = tie
        self.tie_code = TIES.index(tie)
        self.cyclic = cyclic
        self.seed = seed
        self.tolerance = tolerance
        self.divergence_text: Any = None  # (learner, t, kind, detail) -> str, from Simulation
        self._order_cache: tuple[Segment, int, NDArray[np.intp]] | None = None
        self._block = 64

    # -- the order of an epoch -------------------------------------------------------------

    def order(self, segment: Segment, epoch: int) -> NDArray[np.intp]:
        """The rows of `segment` in the order epoch `epoch` visits them."""
        cache = self._order_cache
        if cache is not None and cache[0] is segment and cache[1] == epoch:
            return cache[2]
        if self.cyclic:
            order = np.arange(segment.n, dtype=np.intp)
        else:
            rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(1, epoch)))
            order = rng.permutation(segment.n).astype(np.intp)
        order.setflags(write=False)
        self._order_cache = (segment, epoch, order)
        return order

    @property
    def order_nbytes(self) -> int:
        return 0 if self._order_cache is None else int(self._order_cache[2].nbytes)

    # -- verdicts -----------------------------------------------------------------------------

    def is_mistake(self, signed: float, y: int) -> bool:
        """`mistake_mask` for one trial."""
        if signed == 0.0:
            return self.tie_code == 0 or (y < 0 if self.tie_code == 1 else y > 0)
        return not signed > 0.0  # negative or NaN

    def mistake_mask(self, signed: FloatArray, y: NDArray[np.int8]) -> NDArray[np.bool_]:
        """Which decided v are mistakes: negative, NaN, or a tie that the tie rule gets wrong
        ("mistake": every tie; "positive": predicts +1, wrong for y = −1; "negative": −1)."""
        mask: NDArray[np.bool_] = (signed < 0) | np.isnan(signed)
        tie = self.tie_code
        if tie == 0:
            mask |= signed == 0
        else:
            mask |= (signed == 0) & ((y < 0) if tie == 1 else (y > 0))
        return mask

    def terms(self, live: Live, segment: Segment | None, largest: float) -> Terms:
        """The scorer of the live state, with bmax for `segment` (cached; None: bmax over
        the current data, whose largest |x_j| is `largest`; not cached)."""
        terms = live.terms
        if terms is None:
            terms = live.terms = Terms(self.learner.scorer(live.state))
        if segment is None or terms.segment is not segment:
            scorer = terms.scorer
            if scorer is None or not scorer.bounded:
                bmax = 0.0
            else:
                big = largest if segment is None else segment.largest
                # b = Σ|x_j| c_j <= max|x| Σ c_j; twice that also covers its rounding.
                bmax = 2.0 * (big * float(np.sum(scorer.coefficients)) + scorer.theta_err)
            if segment is None:
                return replace(terms, bmax=bmax)
            terms.bmax, terms.segment = bmax, segment
        return terms

    def decide(
        self,
        signed: FloatArray,
        X: FloatArray,
        y: NDArray[np.int8],
        terms: Terms,
        state: State,
        digits: Any,
    ) -> NDArray[np.bool_]:
        """Decide (in place) each v = y·s − τ that its rounding-error bound cannot: in twice
        the precision, then exactly (`digits(k)`: row k's exact features). Returns which
        verdicts are certain."""
        certain = np.ones(signed.shape[0], dtype=bool)
        scorer = terms.scorer
        assert scorer is not None
        if not scorer.bounded:
            if not self.learner.exact:
                certain = self._approximate_certainty(signed, X, scorer)
            return certain
        near = np.flatnonzero(np.abs(signed) <= terms.bmax)
        if not near.size:
            return certain
        bound = numpy_dot_rows(np.abs(X[near]), scorer.coefficients) + scorer.theta_err
        near = near[np.abs(signed[near]) <= bound]
        if not near.size:
            return certain
        rows = X[near]
        score = dot2_rows(rows, scorer.w, scorer.theta)
        refined = np.where(y[near] > 0, score, -score) - scorer.offset
        r = refine_coefficients(scorer.w, scorer.e)
        undecided = np.abs(refined) <= refine_bounds(rows, r, scorer.theta_r)
        signed[near] = refined
        for k in near[undecided].tolist():
            value = self.learner.exact_signed(state, digits(k), int(y[k]))
            signed[k] = 0.0 if value is None else value
            certain[k] = value is not None
        return certain

    @staticmethod
    def _approximate_certainty(
        signed: FloatArray, X: FloatArray, scorer: LinearScorer
    ) -> NDArray[np.bool_]:
        """An inexact learner's verdicts: certain where |v| is not below 1e-9 of Σ|w_j x_j|
        (a score of terms that are all 0 is exactly 0)."""
        size = numpy_dot_rows(np.abs(X), np.abs(scorer.w)) + abs(scorer.theta)
        result: NDArray[np.bool_] = ~(np.abs(signed) < _APPROXIMATE * size)
        return result

    def signed_rows(
        self,
        state: State,
        terms: Terms,
        X: FloatArray,
        y: NDArray[np.int8],
        digits: Any,
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """(v, certain) of rows X with labels y, decided (the reference path, in NumPy)."""
        scorer = terms.scorer
        if scorer is None:
            return self.learner.signed_scores(state, X, y)
        signed = y * numpy_dot_rows(X, scorer.w, scorer.theta)
        if scorer.offset:
            signed -= scorer.offset
        certain = self.decide(signed, X, y, terms, state, digits)
        return signed, certain

    def scan(
        self,
        live: Live,
        segment: Segment,
        order: NDArray[np.intp],
        position: int,
        end: int,
        stop_at_mistake: bool,
        out: FloatArray,
        certain: NDArray[np.bool_],
    ) -> int:
        """Decide trials `position`.. with fixed weights, up to `end` or through the first
        mistake (if `stop_at_mistake`), writing their v (0 for a tie) into `out` and
        whether each is certain into `certain`; return how many.

        The compiled loop (_scan.c) stops right at a mistake or at a verdict its floats
        cannot decide (decided then by the learner's exact shadow); without it, NumPy
        scores blocks sized to the gaps between mistakes seen so far. The same bits.
        """
        terms = self.terms(live, segment, segment.largest)
        scorer = terms.scorer
        module = exact_module.compiled
        if module is not None and scorer is not None:
            return self._compiled_scan(
                module, live, segment, order, position, end, stop_at_mistake, out, certain, terms
            )
        m = int(min(self._block, end - position, max(1, (1 << 20) // max(1, segment.X.shape[1]))))
        rows = order[position : position + m]
        X = segment.X[position : position + m] if self.cyclic else segment.X[rows]
        y = segment.y[rows]
        signed, sure = self.signed_rows(
            live.state, terms, X, y, lambda k: segment.digits(int(rows[k]))
        )
        count = m
        if stop_at_mistake:
            mistakes = self.mistake_mask(signed, y)
            f = int(mistakes.argmax())
            if mistakes[f]:
                count = f + 1
                self._block = min(64 + 2 * f, _MAX_BLOCK)  # sized to the gap between mistakes
        if count == m:
            self._block = min(2 * self._block, _MAX_BLOCK)
        out[:count] = signed[:count]
        certain[:count] = sure[:count]
        return count

    def _compiled_scan(
        self,
        module: Any,
        live: Live,
        segment: Segment,
        order: NDArray[np.intp],
        position: int,
        end: int,
        stop_at_mistake: bool,
        out: FloatArray,
        certain: NDArray[np.bool_],
        terms: Terms,
    ) -> int:
        scorer = terms.scorer
        assert scorer is not None
        flag = np.full(1, -1, dtype=np.intp)
        count = int(module.scan(
            segment.X, scorer.w, scorer.c, scorer.theta, scorer.theta_err, terms.bmax,
            scorer.e, scorer.theta_r, self.tie_code, segment.y, order, self.cyclic,
            position, end, stop_at_mistake, out, scorer.offset, flag,
        ))  # fmt: skip
        certain[:count] = True
        k = int(flag[0])
        if k >= 0:  # the verdict floats could not decide: the exact one
            i = int(order[position + k])
            value = self.learner.exact_signed(live.state, segment.digits(i), int(segment.y[i]))
            out[k] = 0.0 if value is None else value
            certain[k] = value is not None
        elif not self.learner.exact and count:
            rows = order[position : position + count]
            certain[:count] = self._approximate_certainty(out[:count], segment.X[rows], scorer)
        return count

    # -- advancing -------------------------------------------------------------------------

    def advance(self, live: Live, segment: Segment, limit: int, leg: Leg) -> int:
        """Up to `limit` trials within the current epoch of `segment`; how many ran."""
        if live.diverged_at is None and self.learner.cadence == "trial":
            return self._run_every_trial(live, segment, limit, leg)
        return self._run_epoch(live, segment, limit, leg)

    def _run_every_trial(self, live: Live, segment: Segment, limit: int, leg: Leg) -> int:
        """A learner that learns on every trial: there is nothing to jump over."""
        _, start = segment.position(live.trials)
        end = min(segment.n, start + limit)
        updates = live.updates
        budget, deadline = leg.update_budget, leg.deadline
        for position in range(start, end):
            mistakes = live.mistakes
            self.one_trial(live, segment, record=leg.record, sink=leg.sink)
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

    def one_trial(
        self, live: Live, segment: Segment, *, record: bool, sink: list[FloatArray] | None = None
    ) -> None:
        """Run the trial after `live.trials` alone, in NumPy: the reference the fast path
        follows. Its record is left in `live.last`."""
        learner = self.learner
        epoch, position = segment.position(live.trials)
        i = int(self.order(segment, epoch)[position])
        X, y = segment.X[i : i + 1], segment.y[i : i + 1]
        terms = self.terms(live, segment, segment.largest)
        signed_array, sure = self.signed_rows(live.state, terms, X, y, lambda _: segment.digits(i))
        signed, certain = float(signed_array[0]), bool(sure[0])
        mistake = self.is_mistake(signed, int(y[0]))
        t = live.trials + 1
        before = live.state
        live.trials = t
        if not certain:
            live.uncertain += 1
        if mistake:
            live.mistakes += 1
            if record:
                self.history.record_mistake(t)
            if learner.cadence == "epoch":
                live.epoch_mistakes.append(position)
        if live.diverged_at is None:
            raw = self.raw_score(terms, signed, int(y[0]))
            if not math.isfinite(raw) and terms.scorer is not None:
                self.diverge(live, t, record, "score", "")
            elif (mistake and learner.cadence == "mistake") or learner.cadence == "trial":
                step = Step(
                    t, i, segment.X[i], int(y[0]), signed, mistake, lambda: segment.digits(i), raw
                )
                self.accept(live, t, learner.learn(live.state, step), record)
        if position == segment.n - 1:
            self.end_epoch(live, segment, record)
        if sink is not None and mistake:
            sink.append(learner.weights(live.state))
        live.last = LastTrial(t, segment, i, signed, mistake, before, live.state, certain)

    @staticmethod
    def raw_score(terms: Terms, signed: float, y: int) -> float:
        """s from v = y·s − τ."""
        offset = terms.scorer.offset if terms.scorer is not None else 0.0
        return y * (signed + offset) if offset else y * signed

    def _run_epoch(self, live: Live, segment: Segment, limit: int, leg: Leg) -> int:
        """Up to `limit` trials, within the current epoch, scoring blocks between updates.

        For learners driven by mistakes, for those that learn per epoch (whose update ends
        the epoch) and for any once diverged (no more updates).
        """
        learner = self.learner
        record, sink, stop_on_mistake = leg.record, leg.sink, leg.stop_on_mistake
        epoch, start = segment.position(live.trials)
        order = self.order(segment, epoch)
        end = min(segment.n, start + limit)
        updating = live.diverged_at is None and learner.cadence == "mistake"
        stopping = updating or stop_on_mistake
        first_trial = live.trials + 1 - start  # the trial number at position 0
        updates = live.updates
        out = np.empty(end - start)  # the decided v of each trial
        certain = np.ones(end - start, dtype=bool)
        position = start
        scored_with = live.state
        epoch_end_mistake = False
        found_here: list[int] = []  # mistakes found one scan at a time, recorded at the end
        while position < end:
            scored_with = live.state
            count = self.scan(
                live, segment, order, position, end, stopping,
                out[position - start :], certain[position - start :],
            )  # fmt: skip
            position += count
            if not stopping:
                epoch_end_mistake = self._scanned_block(
                    live, segment, order, position, count, start, first_trial,
                    out, found_here, record, sink,
                ) or epoch_end_mistake  # fmt: skip
                continue
            i = int(order[position - 1])
            y = int(segment.y[i])
            signed = float(out[position - 1 - start])
            if not self.is_mistake(signed, y):
                continue
            t = first_trial + position - 1
            live.mistakes += 1
            found_here.append(t)
            if learner.cadence == "epoch" and live.diverged_at is None:
                live.epoch_mistakes.append(position - 1)
            if updating:
                if math.isfinite(signed):
                    step = self.step_of_trial(live, segment, t, i, signed)
                    self.accept(live, t, learner.learn(live.state, step), record)
                else:
                    self.diverge(live, t, record, "score", "")
                updating = live.diverged_at is None
                stopping = updating or stop_on_mistake
            if sink is not None:
                if position == segment.n and not updating:
                    epoch_end_mistake = True
                else:
                    sink.append(learner.weights(live.state))
            if (
                live.diverged_at == t
                or stop_on_mistake
                or (leg.update_budget is not None and live.updates - updates >= leg.update_budget)
                or (leg.deadline is not None and time.perf_counter() >= leg.deadline)
            ):
                break
        if record and found_here:
            self.history.record_mistakes(np.array(found_here, dtype=np.int64))
        ran = position - start
        if not ran:
            return 0
        live.uncertain += int(np.count_nonzero(~certain[:ran]))
        live.trials += ran
        last = position - 1
        i = int(order[last])
        signed = float(out[last - start])
        mistake = self.is_mistake(signed, int(segment.y[i]))
        if position == segment.n:
            self.end_epoch(live, segment, record)
        if sink is not None and epoch_end_mistake:
            sink.append(learner.weights(live.state))
        live.last = LastTrial(
            live.trials, segment, i, signed, mistake, scored_with, live.state,
            bool(certain[last - start]),
        )  # fmt: skip
        return ran

    def step_of_trial(self, live: Live, segment: Segment, t: int, i: int, signed: float) -> Step:
        terms = live.terms
        assert terms is not None
        y = int(segment.y[i])
        raw = self.raw_score(terms, signed, y)
        return Step(t, i, segment.X[i], y, signed, True, lambda: segment.digits(i), raw)

    def _scanned_block(
        self,
        live: Live,
        segment: Segment,
        order: NDArray[np.intp],
        position: int,
        count: int,
        start: int,
        first_trial: int,
        out: FloatArray,
        found_here: list[int],
        record: bool,
        sink: list[FloatArray] | None,
    ) -> bool:
        """Count the mistakes of a block scanned without stopping (nothing updates); for a
        learner that learns per epoch, note their positions. Returns whether the epoch's
        last trial was one of them (for the replay's sink)."""
        chunk = out[position - count - start : position - start]
        found = np.flatnonzero(
            self.mistake_mask(chunk, segment.y[order[position - count : position]])
        )
        if not found.size:
            return False
        trials = first_trial + position - count + found
        live.mistakes += int(found.size)
        if self.learner.cadence == "epoch" and live.diverged_at is None:
            live.epoch_mistakes.extend((position - count + found).tolist())
        if record:
            self.history.record_mistakes(np.array(found_here, dtype=np.int64))
            found_here.clear()
            self.history.record_mistakes(trials.astype(np.int64))
        at_end = bool(trials[-1] == first_trial + segment.n - 1)
        if sink is not None:
            sink.extend([self.learner.weights(live.state)] * (found.size - at_end))
        return at_end

    # -- updates and the end of an epoch -----------------------------------------------------

    def accept(self, live: Live, t: int, new_state: State, record: bool) -> None:
        """Take the update of trial t, unless the learner refuses to go on from it (its
        weights overflowed or died): then the run diverges, keeping the last weights."""
        refusal = self.learner.refuse(new_state)
        if refusal is not None:
            self.diverge(live, t, record, "refused", refusal)
            return
        live.state = new_state
        live.terms = None
        live.updates += 1
        live.epoch_updates += 1

    def diverge(self, live: Live, t: int, record: bool, kind: str, detail: str) -> None:
        live.diverged_at = t
        if record:
            self.history.record_divergence(t, self.divergence_text(t, kind, detail, live))

    def end_epoch(self, live: Live, segment: Segment, record: bool) -> None:
        """The epoch's update (cadence "epoch"), the convergence test, the epoch's loss (and
        a learner's divergence test on it) and the cycle search, as trial `live.trials`
        completes an epoch of `segment`."""
        learner = self.learner
        t = live.trials
        if learner.cadence == "epoch" and live.diverged_at is None:
            new_state = learner.end_epoch(live.state, self._epoch_steps(live, segment))
            if new_state is not None:
                self.accept(live, t, new_state, record)
        live.epoch_mistakes = []
        updating = live.diverged_at is None
        settled = learner.settled(live.epoch_start, live.state, live.epoch_updates, self.tolerance)
        settled = settled and not live.uncertain  # never converged on a verdict not certified
        converged = segment.converged_at is not None and segment.converged_at <= t
        if record and updating and settled and not converged:
            segment.converged_at = t
        converged = converged or (updating and settled)
        watch = learner.least_squares
        if record or (watch and updating):
            loss = learner.loss(live.state, segment.X, segment.y)
            if record:
                self.history.record_loss(loss)
            if watch and updating:
                if learner.epoch_divergence(loss, live.min_loss):
                    self.diverge(live, t, record, "growth", f"{live.min_loss:.3g}|{loss:.3g}")
                live.min_loss = min(live.min_loss, loss)
        found = segment.cycle_found_at
        if self.cyclic and updating and not converged and (found is None or t <= found):
            self._search_cycle(live, segment, record)  # not past the cycle: it stays put
        if record and updating and segment.rest_at is None:
            self._find_rest(live, segment, converged)
        live.epoch_updates = 0
        live.uncertain = 0
        live.epoch_start = live.state

    def _epoch_steps(self, live: Live, segment: Segment) -> EpochSteps:
        epoch = segment.epoch_of(live.trials)
        rows = self.order(segment, epoch)
        mistakes = np.zeros(segment.n, dtype=bool)
        mistakes[live.epoch_mistakes] = True
        return EpochSteps(
            segment.X[rows], segment.y[rows], np.zeros(0), mistakes,
            lambda i: segment.digits(i), rows, epoch,
        )  # fmt: skip

    def _find_rest(self, live: Live, segment: Segment, converged: bool) -> None:
        """Note on `segment` when, from this epoch end on, every period of epochs repeats
        the one before: once an epoch converged with no update (no mistake and no update
        again, in any order); once a cycle is found (its period); in cyclic order, once the
        state at an epoch's end is its state at the start (Adaline reaches such a fixed
        point of its floats; each epoch then makes the same updates and mistakes)."""
        t = live.trials
        history = self.history
        if converged and not live.epoch_updates:
            segment.rest_at, segment.rest_mistakes, segment.rest_updates = t, 0, 0
        elif segment.cycle_found_at == t and segment.cycle_period is not None:
            period = segment.cycle_period
            mistakes = history.mistakes_through(t) - history.mistakes_through(
                t - period * segment.n
            )
            segment.rest_at, segment.rest_period = t, period
            segment.rest_mistakes = mistakes
            segment.rest_updates = live.updates - live.tortoise_updates
        elif self.cyclic and live.state.repeats(live.epoch_start):
            mistakes = history.mistakes_through(t) - history.mistakes_through(t - segment.n)
            segment.rest_at, segment.rest_mistakes = t, mistakes
            segment.rest_updates = live.epoch_updates
            if not converged and segment.cycle_found_at is None:  # a cycle of one epoch
                segment.cycle_found_at, segment.cycle_period = t, 1

    def skip_rest(self, live: Live, segment: Segment, limit: int, record: bool) -> int:
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
            self.history.repeat_epochs(segment, live.trials, periods)
        live.trials += periods * length
        live.mistakes += periods * segment.rest_mistakes
        live.updates += periods * segment.rest_updates
        live.last = None
        return periods * length

    def _search_cycle(self, live: Live, segment: Segment, record: bool) -> None:
        """Brent's cycle search over the epoch-start states x₀, x₁, … of this segment,
        in O(1) memory: `tortoise` is x at the last power of two, `lam` the distance to
        it; the first time x equals the tortoise, `lam` is the period. States compare by
        their repeating parts, and their exact shadows (so a cycle of the floats is one
        of exact arithmetic too)."""
        if live.state.repeats(live.tortoise):
            if record and segment.cycle_found_at is None and segment.converged_at is None:
                segment.cycle_found_at, segment.cycle_period = live.trials, live.lam
        elif live.power == live.lam:
            live.tortoise, live.power, live.lam = live.state, 2 * live.power, 0
            live.tortoise_updates = live.updates
        live.lam += 1
