"""The run code shared by recording and replay: trials decided (`verdicts`), learners
asked, epochs ended, cycles found, repeating stretches jumped.

`Runner` advances a `Live` record (the learner's `State` and the run's counters) over a
`Segment` of the history. Every method takes `record`: whether to write the history
(mistakes, losses, events); replay runs the same code with record off, so a replayed
trial is, bit for bit, the one first run.

When it learns (`Learner.cadence`): after a mistake (the scan jumps from mistake to
mistake; the compiled loop makes the updates itself where the learner's family allows,
see `_compiled_learning`), after every trial, or once at the end of each epoch. Each
update of a row is counted (`Live.counts`): the exact state is made from the counts.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.history import History, Segment
from simulator.engine.learners import EpochSteps, Learner, State, Step, Updates
from simulator.engine.learners import exact as exact_module
from simulator.engine.live import REPLAY, LastTrial, Leg, Live, Sink, Terms
from simulator.engine.verdicts import Judge

__all__ = ["REPLAY", "LastTrial", "Leg", "Live", "Runner"]

FloatArray = NDArray[np.float64]


def _frozen(array: FloatArray) -> FloatArray:
    array.setflags(write=False)
    return array


class _Scan:
    """The bookkeeping of one stretch scanned by `Runner._run_epoch`."""

    def __init__(
        self, live: Live, segment: Segment, order: NDArray[np.intp], start: int, limit: int,
        leg: Leg,
    ) -> None:  # fmt: skip
        self.order = order
        self.start = self.position = start
        self.end = min(segment.n, start + limit)
        self.first_trial = live.trials + 1 - start  # the trial number at position 0
        self.updates = live.updates
        self.out = np.empty(self.end - start)  # the decided v of each trial
        self.certain = np.ones(self.end - start, dtype=bool)
        self.scored_with = live.state
        self.found: list[int] = []  # the trials of the mistakes found
        self.epoch_end_mistake = False


class Runner(Judge):
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
        initial: State,
    ) -> None:
        super().__init__(learner, tie=tie, cyclic=cyclic, seed=seed, initial=initial)
        self.history = history
        self.tolerance = tolerance
        self.divergence_text: Any = None  # (t, kind, detail, live) -> str, from Simulation

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
        self, live: Live, segment: Segment, *, record: bool, sink: Sink | None = None
    ) -> None:
        """Run the trial after `live.trials` alone, in NumPy: the reference the fast path
        follows. Its record is left in `live.last`."""
        learner = self.learner
        epoch, position = segment.position(live.trials)
        i = int(self.order(segment, epoch)[position])
        X, y = segment.X[i : i + 1], segment.y[i : i + 1]
        terms = self.terms(live, segment, segment.largest)
        signed_array, sure = self.signed_rows(live, terms, X, y, lambda _: segment.digits(i))
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
                self._learn(live, segment, t, i, signed, mistake, record)
        if position == segment.n - 1:
            self.end_epoch(live, segment, record)
        if sink is not None and mistake:
            sink.take(live.state)
        live.last = LastTrial(t, segment, i, signed, mistake, before, live.state, certain)

    @staticmethod
    def raw_score(terms: Terms, signed: float, y: int) -> float:
        """s from v = y·s − τ."""
        offset = terms.scorer.offset if terms.scorer is not None else 0.0
        return y * (signed + offset) if offset else y * signed

    def _learn(
        self, live: Live, segment: Segment, t: int, i: int, signed: float, mistake: bool,
        record: bool,
    ) -> None:  # fmt: skip
        """The learner learns from trial t (row i); the update is counted on the row."""
        terms = live.terms
        y = int(segment.y[i])
        raw = self.raw_score(terms, signed, y) if terms is not None else signed * y
        step = Step(
            t, i, segment.X[i], y, signed, mistake, lambda: segment.digits(i), raw,
            (segment.X, segment.y), self.tie, lambda: self.exact_sum(live),
        )  # fmt: skip
        before = live.state
        # What the update adds to the row's counts, known before the state moves on (the
        # exact state it may ask for is this one's).
        added = self.learner.increments(before, step) if live.counts is not None else ()
        taken = self.accept(live, t, self.learner.learn(before, step), record)
        if taken and live.counts is not None:
            for column, amount in added:
                live.counts[i, column] += amount

    def _run_epoch(self, live: Live, segment: Segment, limit: int, leg: Leg) -> int:
        """Up to `limit` trials, within the current epoch, scoring blocks between updates.

        For learners driven by mistakes, for those that learn per epoch (whose update ends
        the epoch) and for any once diverged (no more updates).
        """
        epoch, start = segment.position(live.trials)
        scan = _Scan(live, segment, self.order(segment, epoch), start, limit, leg)
        if self._compiled_learning(live, segment, scan, leg):
            return self._close_scan(live, segment, scan, leg)
        updating = live.diverged_at is None and self.learner.cadence == "mistake"
        while scan.position < scan.end:
            stopping = updating or leg.stop_on_mistake
            scan.scored_with = live.state
            count = self.scan(
                live, segment, scan.order, scan.position, scan.end, stopping,
                scan.out[scan.position - start :], scan.certain[scan.position - start :],
            )  # fmt: skip
            scan.position += count
            if not stopping:
                self._scanned_block(live, segment, scan, count, leg)
                continue
            if not self._after_mistake(live, segment, scan, updating, leg):
                continue
            updating = live.diverged_at is None and updating
            if self._leg_over(live, scan, leg):
                break
        return self._close_scan(live, segment, scan, leg)

    def _after_mistake(
        self, live: Live, segment: Segment, scan: _Scan, updating: bool, leg: Leg
    ) -> bool:
        """The scan stopped at a trial: if it was a mistake, count it and learn; whether it
        was one."""
        k = scan.position - 1
        i = int(scan.order[k])
        signed = float(scan.out[k - scan.start])
        if not self.is_mistake(signed, int(segment.y[i])):
            return False
        t = scan.first_trial + k
        live.mistakes += 1
        scan.found.append(t)
        if self.learner.cadence == "epoch" and live.diverged_at is None:
            live.epoch_mistakes.append(k)
        if updating:
            if math.isfinite(signed):
                self._learn(live, segment, t, i, signed, True, leg.record)
            else:
                self.diverge(live, t, leg.record, "score", "")
        if leg.sink is not None:
            learning = live.diverged_at is None and self.learner.cadence == "mistake"
            if scan.position == segment.n and not learning:
                scan.epoch_end_mistake = True  # w after the epoch's own update, at its end
            else:
                leg.sink.take(live.state)
        return True

    def _compiled_learning(self, live: Live, segment: Segment, scan: _Scan, leg: Leg) -> bool:
        """Run the scan's stretch in the compiled learning loop (`_learn.c`), which scores,
        decides and makes the learner's updates itself, if the learner's update is one of
        its families; False (nothing done) if not. Python sees only what it must: a verdict
        floats cannot decide (decided exactly, then learned from here), a refused update,
        and the end of the stretch."""
        module = exact_module.learning
        family = self.learner.compiled_family()
        if module is None or family is None or leg.sink is not None or live.diverged_at:
            return False
        theta, offset = float(self.learner.threshold), self.learner.margin_offset()
        scale = float(family[2]) if len(family) > 2 else 1.0
        found = np.empty(scan.end - scan.start, dtype=np.intp)
        status = np.zeros(3, dtype=np.intp)
        none = np.zeros(0, dtype=np.int64)
        exact = self.learner.exact  # else the loop marks verdicts too close to 0 uncertain
        while scan.position < scan.end:
            state = live.state
            w, e = np.array(state.w, dtype=np.float64).ravel(), np.array(state.error).ravel()
            before_w, before_e = np.empty_like(w), np.empty_like(e)
            used = live.updates - scan.updates
            budget = 0 if leg.update_budget is None else max(1, leg.update_budget - used)
            if leg.deadline is not None:
                budget = 1  # back after each update, to look at the clock
            count = module.learn(
                segment.X, segment.y, scan.order, self.cyclic, scan.position, scan.end,
                family[0], family[1], theta, offset, self.tie_code,
                w, e, none if live.counts is None else live.counts, segment.largest,
                leg.stop_on_mistake, budget, scan.out[scan.position - scan.start :], found,
                before_w, before_e, status, scale,
                none.view(np.bool_) if exact else scan.certain[scan.position - scan.start :],
            )  # fmt: skip
            code, at, nfound = (int(v) for v in status)
            made = nfound - (code in (3, 5))
            scan.position += count
            self._take_compiled(live, segment, scan, found[:nfound], made, w, e, before_w, before_e)
            if code in (2, 5):
                if code == 2:
                    self._decide_exactly(live, segment, scan, at, leg)
                else:  # a mistake whose update needs exact arithmetic: the learner makes it
                    self._learn_here(live, segment, scan, at, leg)
                if self._paused(live, scan, leg, at):
                    break
                continue
            if code == 3:  # the mistake's update overflowed: the learner says why
                self._learn_here(live, segment, scan, at, leg)
            if code == 4 and self._time_left(live, scan, leg):
                continue
            break
        return True

    @staticmethod
    def _paused(live: Live, scan: _Scan, leg: Leg, at: int) -> bool:
        """Whether a stretch must end after the trial at position `at`, which Python
        decided or learned from: it diverged, or was a mistake that ends the leg."""
        if live.diverged_at is not None:
            return True
        mistake = bool(scan.found) and scan.found[-1] == scan.first_trial + at
        return mistake and (
            leg.stop_on_mistake
            or (leg.update_budget is not None and live.updates - scan.updates >= leg.update_budget)
            or (leg.deadline is not None and time.perf_counter() >= leg.deadline)
        )

    @staticmethod
    def _time_left(live: Live, scan: _Scan, leg: Leg) -> bool:
        """Whether a stretch paused at an update for its deadline may go on."""
        within = leg.update_budget is None or live.updates - scan.updates < leg.update_budget
        return leg.deadline is not None and time.perf_counter() < leg.deadline and within

    def _take_compiled(
        self, live: Live, segment: Segment, scan: _Scan, positions: NDArray[np.intp], made: int,
        w: FloatArray, e: FloatArray, before_w: FloatArray, before_e: FloatArray,
    ) -> None:  # fmt: skip
        """The compiled loop's mistakes and updates, taken into the live record (by the
        learner: `take_compiled`); the scan's last trial was scored with the weights before
        the last update if it made it."""
        live.mistakes += int(positions.size)
        scan.found.extend((scan.first_trial + positions).tolist())
        if not made:
            scan.scored_with = live.state
            return
        state = live.state
        shape, error_shape = state.w.shape, state.error.shape
        at = positions[:made]
        after, before = self.learner.take_compiled(state, Updates(
            scan.first_trial + at, scan.order[at], (segment.X, segment.y), self.tie,
            _frozen(w.reshape(shape)), _frozen(e.reshape(error_shape)),
            _frozen(before_w.reshape(shape)), _frozen(before_e.reshape(error_shape)),
        ))  # fmt: skip
        live.state = after
        if int(positions[made - 1]) == scan.position - 1:  # the last trial made the update
            scan.scored_with = before
        else:
            scan.scored_with = live.state
        live.terms = None
        live.updates += made
        live.epoch_updates += made

    def _decide_exactly(self, live: Live, segment: Segment, scan: _Scan, k: int, leg: Leg) -> None:
        """The trial at position k, which floats could not decide: its exact verdict, and
        the learner learns from it if it is a mistake."""
        i = int(scan.order[k])
        y = int(segment.y[i])
        value = self.exact_signed(live, lambda: segment.digits(i), y, segment.X[i])
        signed = 0.0 if value is None else value
        scan.out[k - scan.start] = signed
        scan.certain[k - scan.start] = value is not None
        scan.scored_with = live.state
        if self.is_mistake(signed, y):
            t = scan.first_trial + k
            live.mistakes += 1
            scan.found.append(t)
            self._learn(live, segment, t, i, signed, True, leg.record)

    def _learn_here(self, live: Live, segment: Segment, scan: _Scan, k: int, leg: Leg) -> None:
        """The update of the mistake at position k, which the compiled loop did not make:
        the learner makes it (the multiclass perceptron's runner-up decided exactly), or
        refuses it with its reason (it overflowed), or the score was not a number."""
        i = int(scan.order[k])
        t = scan.first_trial + k
        signed = float(scan.out[k - scan.start])
        scan.scored_with = live.state
        if math.isfinite(signed):
            self._learn(live, segment, t, i, signed, True, leg.record)
        else:
            self.diverge(live, t, leg.record, "score", "")

    @staticmethod
    def _leg_over(live: Live, scan: _Scan, leg: Leg) -> bool:
        return (
            live.diverged_at == scan.found[-1]
            or leg.stop_on_mistake
            or (leg.update_budget is not None and live.updates - scan.updates >= leg.update_budget)
            or (leg.deadline is not None and time.perf_counter() >= leg.deadline)
        )

    def _close_scan(self, live: Live, segment: Segment, scan: _Scan, leg: Leg) -> int:
        """Record what the scan found, end the epoch if it did, keep its last trial."""
        if leg.record and scan.found:
            self.history.record_mistakes(np.array(scan.found, dtype=np.int64))
        ran = scan.position - scan.start
        if not ran:
            return 0
        live.uncertain += int(np.count_nonzero(~scan.certain[:ran]))
        live.trials += ran
        last = scan.position - 1
        i = int(scan.order[last])
        signed = float(scan.out[last - scan.start])
        mistake = self.is_mistake(signed, int(segment.y[i]))
        if scan.position == segment.n:
            self.end_epoch(live, segment, leg.record)
        if leg.sink is not None and scan.epoch_end_mistake:
            leg.sink.take(live.state)
        live.last = LastTrial(
            live.trials, segment, i, signed, mistake, scan.scored_with, live.state,
            bool(scan.certain[last - scan.start]),
        )  # fmt: skip
        return ran

    def _scanned_block(
        self, live: Live, segment: Segment, scan: _Scan, count: int, leg: Leg
    ) -> None:
        """Count the mistakes of a block scanned without stopping (nothing updates); for a
        learner that learns per epoch, note their positions."""
        begin = scan.position - count
        chunk = scan.out[begin - scan.start : scan.position - scan.start]
        found = np.flatnonzero(
            self.mistake_mask(chunk, segment.y[scan.order[begin : scan.position]])
        )
        if not found.size:
            return
        trials = scan.first_trial + begin + found
        live.mistakes += int(found.size)
        if self.learner.cadence == "epoch" and live.diverged_at is None:
            live.epoch_mistakes.extend((begin + found).tolist())
        scan.found.extend(trials.tolist())
        at_end = bool(trials[-1] == scan.first_trial + segment.n - 1)
        scan.epoch_end_mistake = scan.epoch_end_mistake or at_end
        if leg.sink is not None:
            leg.sink.take(live.state, int(found.size) - at_end)

    # -- updates and the end of an epoch -----------------------------------------------------

    def accept(self, live: Live, t: int, new_state: State, record: bool) -> bool:
        """Take the update of trial t, unless the learner refuses to go on from it (its
        weights overflowed or died): then the run diverges, keeping the last weights.
        Whether it was taken."""
        refusal = self.learner.refuse(new_state)
        if refusal is not None:
            self.diverge(live, t, record, "refused", refusal)
            return False
        live.state = new_state
        live.terms = None
        live.updates += 1
        live.epoch_updates += 1
        return True

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
            steps = self._epoch_steps(live, segment)
            new_state = learner.end_epoch(live.state, steps)
            taken = new_state is not None and self.accept(live, t, new_state, record)
            if taken and live.counts is not None:  # each of the epoch's mistakes added y·x
                rows = steps.rows[steps.mistakes]
                np.add.at(live.counts[:, 0], rows, segment.y[rows])
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
        jumps = live.state.periodic  # else a period with updates is run, not jumped
        if converged and not live.epoch_updates:
            segment.rest_at, segment.rest_mistakes, segment.rest_updates = t, 0, 0
        elif (
            jumps
            and segment.cycle_found_at == t
            and segment.cycle_period is not None
            and not segment.cycle_exact_only
        ):
            period = segment.cycle_period
            mistakes = history.mistakes_through(t) - history.mistakes_through(
                t - period * segment.n
            )
            segment.rest_at, segment.rest_period = t, period
            segment.rest_mistakes = mistakes
            segment.rest_updates = live.updates - live.tortoise_updates
        elif self.cyclic and live.state.repeats(live.epoch_start):
            if jumps or not live.epoch_updates:
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
            or (segment.rest_updates and not live.state.periodic)
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
        their repeating parts; where the floats carry rounding errors (decimal data), by the
        exact state as well: every verdict is the exact one, so an exact state that repeats
        is a run that repeats, though its floats drift (such a cycle stops a run, and is not
        jumped over: the floats of a jump would not be those of the steps)."""
        exact = self._exact_cycle_applies(live, segment)
        if live.state.repeats(live.tortoise) or (exact and self._exact_repeat(live, segment)):
            if record and segment.cycle_found_at is None and segment.converged_at is None:
                segment.cycle_found_at, segment.cycle_period = live.trials, live.lam
                segment.cycle_exact_only = not live.state.repeats(live.tortoise)
        elif live.power == live.lam:
            live.tortoise, live.power, live.lam = live.state, 2 * live.power, 0
            live.tortoise_updates = live.updates
            # What its exact state is made of, summed only if a later state comes close.
            live.tortoise_exact = self._exact_parts(live, segment) if exact else None
        live.lam += 1

    @staticmethod
    def _exact_cycle_applies(live: Live, segment: Segment) -> bool:
        """Whether states must also be compared exactly, where floats with errors cannot (a
        plain learner on at most 10,000 rows, whose exact state is cheap enough)."""
        state = live.state
        return not (
            not state.error.size
            or type(state).repeating != ("w",)
            or segment.n > 10_000
            or not state.error.any()
        )

    @staticmethod
    def _exact_parts(live: Live, segment: Segment) -> tuple[Any, ...] | None:
        """What the tortoise's exact state is made of (its segment and update counts),
        and its floats with their error bounds as lists for a quick comparison."""
        state, counts = live.state, live.counts
        if counts is None or state.error.shape != state.w.shape:
            return None
        return segment, counts.copy(), state.w.ravel().tolist(), state.error.ravel().tolist()

    def _exact_repeat(self, live: Live, segment: Segment) -> bool:
        """Whether the exact state now equals the tortoise's. Summed only when the floats
        are within their error bounds of the tortoise's: further apart, the exact states
        differ (each float lies within its bound of its exact weight), so most epochs
        cost a comparison of a few floats, not a sum of every update in exact decimals."""
        kept, state = live.tortoise_exact, live.state
        if kept is None or state.error.shape != state.w.shape:
            return False
        then_segment, counts, then_w, then_error = kept
        w, error = state.w.ravel().tolist(), state.error.ravel().tolist()
        for a, b, ea, eb in zip(w, then_w, error, then_error, strict=True):
            if abs(a - b) > 2.0 * (ea + eb) + 1e-300:  # further apart than errors allow
                return False
        base = self.segment_base(then_segment)
        earlier = None if base is None else self.accumulate(base, then_segment, counts)
        return earlier is not None and earlier == self.exact_sum(live)
