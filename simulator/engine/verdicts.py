"""Deciding trials: the order of an epoch, the verdict on each trial, and the exact
verdict where floats cannot give it.

A linear learner's `scorer` gives w, θ and the rounding-error bound of its weights: between
updates the weights are fixed, so the upcoming trials are scored in one go (the compiled
`_scan.c`, else NumPy blocks; the same bits), and a verdict on v = y·s − τ is taken from
the floats where their bound decides it, from twice the precision where that does
(`exact.dot2_rows`), and otherwise in exact arithmetic on the data as written
(`Learner.exact_signed`, given the learner's exact state): never a rounding snapped to 0.
Where a learner cannot be exact (Adaline, EG±), a verdict within 1e-9 of its score's size
of 0 is recorded as uncertain. A learner that does not score linearly gives its verdicts
itself (`Learner.signed_scores`).

The exact state. The learner's exact state at the start of each stretch of data (segment)
is known: from its floats when they carry no error, from w₀ as written at the start, or
from the previous segment's; each update adds a multiple of a row of the data (`counts`,
kept by the run as it goes, in the compiled loop too). So the exact state now is the
start's plus Σ counts·y·x over the rows, made only when a verdict needs it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.history import Segment
from simulator.engine.learners import TIES, Learner, LinearScorer, State
from simulator.engine.learners import exact as exact_module
from simulator.engine.learners.exact import (
    ExactSum,
    dot2_rows,
    numpy_dot_rows,
    refine_bounds,
    refine_coefficients,
)
from simulator.engine.live import Live, Terms

__all__ = ["Judge"]

FloatArray = NDArray[np.float64]
_MAX_BLOCK = 1 << 16  # NumPy path: rows scored at once
_APPROXIMATE = 1e-9  # an inexact learner's verdict this close to 0 (relatively) is uncertain


class Judge:
    """Decides the trials of one run (see the module docstring)."""

    def __init__(self, learner: Learner, *, tie: str, cyclic: bool, seed: int, initial: State):
        self.learner = learner
        self.tie = tie
        # A learner with a margin τ > 0 updates when y·s <= τ: y·s = τ is one of its mistakes.
        self.tie_code = 0 if learner.margin_offset() > 0 else TIES.index(tie)
        self.cyclic = cyclic
        self.seed = seed
        self.initial = initial
        self._order_cache: tuple[Segment, int, NDArray[np.intp]] | None = None
        self._exact_cache: tuple[State, Segment, int, ExactSum | None] | None = None
        self._block = 64

    # -- the order of an epoch ---------------------------------------------------------------

    def order(self, segment: Segment, epoch: int) -> NDArray[np.intp]:
        """The rows of `segment` in the order epoch `epoch` visits them."""
        cache = self._order_cache
        if cache is not None and cache[0] is segment and (cache[1] == epoch or self.cyclic):
            return cache[2]  # cyclic: the same order every epoch
        if self.cyclic:
            order = np.arange(segment.n, dtype=np.intp)
        else:
            rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(1, epoch)))
            order = rng.permutation(segment.n).astype(np.intp)
        order.setflags(write=False)
        self._order_cache = (segment, epoch, order)
        return order

    @property
    def cache_nbytes(self) -> int:
        """The memory of its caches: the visiting order of the epoch in progress and the
        exact state last made."""
        order = 0 if self._order_cache is None else int(self._order_cache[2].nbytes)
        exact = self._exact_cache[3] if self._exact_cache is not None else None
        return order + (0 if exact is None else exact.nbytes)

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
        live: Live,
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
            value = self.exact_signed(live, lambda k=k: digits(k), int(y[k]), X[k])
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
        live: Live,
        terms: Terms,
        X: FloatArray,
        y: NDArray[np.int8],
        digits: Any,
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """(v, certain) of rows X with labels y for the live state, decided (the reference
        path, in NumPy)."""
        scorer = terms.scorer
        if scorer is None:
            signed, certain = self.learner.signed_scores(live.state, X, y)
            for k in np.flatnonzero(~certain).tolist():  # the floats could not tell: exactly
                value = self.exact_signed(live, lambda k=k: digits(k), int(y[k]), X[k])
                if value is not None:
                    signed[k], certain[k] = value, True
            return signed, certain
        signed = y * numpy_dot_rows(X, scorer.w, scorer.theta)
        if scorer.offset:
            signed -= scorer.offset
        certain = self.decide(signed, X, y, terms, live, digits)
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
        signed, sure = self.signed_rows(live, terms, X, y, lambda k: segment.digits(int(rows[k])))
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
            value = self.exact_signed(
                live, lambda: segment.digits(i), int(segment.y[i]), segment.X[i]
            )
            out[k] = 0.0 if value is None else value
            certain[k] = value is not None
        elif not self.learner.exact and count:
            rows = order[position : position + count]
            certain[:count] = self._approximate_certainty(out[:count], segment.X[rows], scorer)
        return count

    # -- the exact state ---------------------------------------------------------------------

    def exact_signed(self, live: Live, row: Any, y: int, x: FloatArray) -> float | None:
        """The exact v of a row with label y for the live state (`row`: its exact decimals,
        made on demand; `x`: its floats), or None where the learner cannot be exact. Weights
        with no error on inputs binary holds exactly are summed exactly in floats (a
        correctly rounded sum keeps the sign); else in rationals from the exact state."""
        quick = self.learner.exact_float_signed(live.state, x, y)
        if quick is not None:
            return quick
        exact = self.exact_sum(live)
        if exact is None:
            return None
        return self.learner.exact_signed(live.state, exact, row(), y)

    def exact_sum(self, live: Live) -> ExactSum | None:
        """The learner's exact state now (cached while the live state stays the same)."""
        segment = live.segment
        cache = self._exact_cache
        if (
            cache is not None
            and cache[0] is live.state
            and cache[1] is segment
            and cache[2] == live.updates
        ):
            return cache[3]
        exact = self.learner.exact_state(live.state)  # its floats, where they carry no error
        if exact is None and segment is not None and live.counts is not None:
            base = self.segment_base(segment)
            exact = None if base is None else self.accumulate(base, segment, live.counts)
        self._exact_cache = (live.state, segment, live.updates, exact) if segment else None
        return exact

    def segment_base(self, segment: Segment) -> ExactSum | None:
        """The exact state at `segment`'s start: from its floats if they carry no error, w₀
        as written at the run's start, else the previous segment's with its updates."""
        if segment.exact_known:
            known: ExactSum | None = segment.exact_base
            return known
        start = segment.start_state
        base = self.learner.exact_state(start) if start is not None else None
        if base is None and start is self.initial:
            base = self.learner.start_shadow(start)
        if base is None and segment.previous is not None:
            before, counts = segment.previous
            earlier = self.segment_base(before)
            base = None if earlier is None else self.accumulate(earlier, before, counts)
        segment.exact_base, segment.exact_known = base, True
        return base

    def accumulate(
        self, base: ExactSum, segment: Segment, counts: NDArray[np.int64]
    ) -> ExactSum | None:
        """`base` plus the updates `counts` counts on the rows of `segment`: count·unit·x
        into each column's block, unit the learner's `shadow_unit` (η, or 1 for Winnow's
        exponents)."""
        unit = self.learner.shadow_unit()
        if unit is None:
            return None
        result = base.copy()
        m, e = unit
        width = len(result.numerators) // counts.shape[1]  # each column's block
        for i, column in zip(*np.nonzero(counts), strict=True):
            amount = int(counts[i, column]) * m
            result.add(segment.digits(int(i)), (amount, e), offset=int(column) * width)
        return result
