"""`SimulationReplay`: a run's history, kept as segments and checkpoints and replayed.

The trajectory is a function of the settings and the data, so it is not stored trial by
trial: `History` keeps the mistakes, the epoch losses and checkpoints of the live state, and
`seek`, `trial`, `trial_records` and `weights_after_mistakes` replay from the nearest
checkpoint with the same run code, recording off (see `Simulation`). This is where the
segments of data are opened and entered, checkpoints are spaced, and trial records made.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from simulator.engine.history import Segment
from simulator.engine.learners import State
from simulator.engine.live import REPLAY, LastTrial, Leg, Live, Sink
from simulator.engine.records import Trial
from simulator.engine.simulation_state import SimulationState

__all__ = ["SimulationReplay"]

FloatArray = NDArray[np.float64]
_CHECKPOINT_UPDATES = 256  # a checkpoint at least every this many updates...
_CHECKPOINT_WORK = 1 << 22  # ...and every this many trials x features


class SimulationReplay(SimulationState):
    """A `Simulation`'s history: its queries, and the segments, checkpoints and replay
    behind them."""

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
        return self.after_mistakes(first_k, last_k, self._learner.weights)[0]

    def after_mistakes(
        self, first_k: int, last_k: int, *collect: Callable[[State], FloatArray]
    ) -> tuple[FloatArray, ...]:
        """Each of `collect` applied to the learner's state after the k-th recorded
        mistake, k = first_k..last_k (1-based), an (m, size) array each, by one replay
        (e.g. `learner.weights` and `proof_weights`: the weight curves and the proof)."""
        mistakes = self._history.mistakes
        if not 1 <= first_k <= last_k + 1 <= len(mistakes) + 1:
            raise IndexError(
                f"no mistakes {first_k}..{last_k}: {len(mistakes)} mistakes are recorded"
            )
        sizes = [np.asarray(c(self._initial)).size for c in collect]
        if last_k < first_k:
            return tuple(np.zeros((0, size)) for size in sizes)
        live = self._replay(int(mistakes[first_k - 1]) - 1)
        sink = Sink.of(*collect)
        self._replay_to(live, int(mistakes[last_k - 1]), sink)
        return tuple(
            np.array(values, dtype=np.float64).reshape(-1, size)
            for values, size in zip(sink.values, sizes, strict=True)
        )

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

    def _replay_to(self, live: Live, t: int, sink: Sink | None = None) -> None:
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
