"""Freund and Schapire's voted perceptron ("Large margin classification using the perceptron
algorithm", 1999): the perceptron runs, and every weight vector it passes through votes.

    v₁ = w₀, c₁ = 0;  a right prediction: c_k ← c_k + 1;
    a mistake on (x, y): v_{k+1} = v_k + η y x with c_{k+1} = 1;
    predict sign(Σ_k c_k sign(v_k·x)), a vote of 0 by the run's tie rule.

Its training verdict is the current v's (y·v·x ≤ 0 is a mistake): the perceptron's, exact
as the perceptron's, so it makes the perceptron's mistakes and Novikoff's bound holds for
them; its prediction and decision are the vote's. Both are drawn: v's line as the
boundary (with its arrow; the trial's verdict, the strip and the misclassified marks are
v's, as the rule learns by them) and the vote's curve under its own role "vote" (what it
predicts), so no mark contradicts the line it belongs to.

State. The counts grow with every trial (`cadence` "trial"): the current vector's count is
kept in the state; the vectors and the final counts of the earlier ones live in a
`VoteBook`, rows appended once and shared by every state of the run (a new vector costs
one row, not a copy of the vote). Only v must repeat for the cycle search (`repeating`);
the vote never repeats, so the run never jumps over repeating periods (`periodic`).

Exact verdicts: since it learns on every trial the run keeps no update counts for it, so
its state keeps its own exact shadow of v (`VotedState.shadow`, w₀ + η Σ y·x in exact
decimals) while its floats carry an error bound; where they carry none, the floats are v.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.drawables import LevelSet
from simulator.engine.learners.base import Parameter, State, Step, Theory
from simulator.engine.learners.exact import ExactSum, decimal_digits
from simulator.engine.learners.perceptron import Perceptron

__all__ = ["VoteBook", "VotedPerceptron", "VotedState"]

FloatArray = NDArray[np.float64]
_BLOCK = 1 << 18  # entries of a block of scores v·x computed at once
_DISTINCT = 64  # from this many voters on, equal vectors are merged before a vote


class VoteBook:
    """The vectors v₁, v₂, … of a run and the final counts of all but the last, appended
    once and shared: rows below `size` are never written again, so a state holding the
    book and its own length m sees a vote that never changes."""

    __slots__ = ("counts", "size", "vectors")

    def __init__(self, first: FloatArray, capacity: int = 16) -> None:
        self.vectors = np.zeros((max(capacity, 1), first.shape[0]))
        self.vectors[0] = first
        self.counts = np.zeros(max(capacity, 1), dtype=np.int64)
        self.size = 1

    def extended(self, m: int, count: int, vector: FloatArray) -> VoteBook:
        """A book whose first m vectors are this one's, the m-th counted `count`, and
        `vector` after them: this book itself when nothing else was written after row
        m − 1 (appended) or the same was (a replay), else a copy of its first m rows."""
        if self.size > m:
            if self.counts[m - 1] == count and self.vectors[m].tobytes() == vector.tobytes():
                return self
            book = VoteBook(self.vectors[0], capacity=2 * m)
            book.vectors[:m] = self.vectors[:m]
            book.counts[:m] = self.counts[:m]
            book.size = m
            return book.extended(m, count, vector)
        if m == self.vectors.shape[0]:
            self.vectors = np.concatenate((self.vectors, np.zeros_like(self.vectors)))
            self.counts = np.concatenate((self.counts, np.zeros_like(self.counts)))
        self.counts[m - 1] = count
        self.vectors[m] = vector
        self.size = m + 1
        return self


@dataclass(frozen=True, slots=True, eq=False)
class VotedState(State):
    """The perceptron's w (the current v) with its error bound, the vote so far (the
    book's first `size` vectors, the last one counted `current`), and v's exact shadow
    while its floats carry an error bound."""

    book: VoteBook | None = None
    size: int = 1
    current: int = 0
    shadow: ExactSum | None = None
    repeating: ClassVar[tuple[str, ...]] = ("w",)
    periodic: ClassVar[bool] = False

    def votes(self) -> tuple[FloatArray, NDArray[np.int64]]:
        """(vectors (m, D), counts (m,)), read-only."""
        assert self.book is not None
        vectors = self.book.vectors[: self.size].copy()
        counts = np.append(self.book.counts[: self.size - 1], self.current).astype(np.int64)
        vectors.setflags(write=False)
        counts.setflags(write=False)
        return vectors, counts

    @property
    def nbytes(self) -> int:
        """Its arrays, its exact shadow, and its own row of the book (the book is shared by
        every state of the run, so a state counts only the row it added)."""
        own = sum(int(a.nbytes) for a in self.arrays())
        shadow = 0 if self.shadow is None else self.shadow.nbytes
        return int(own + shadow + (self.w.shape[0] + 1) * 8)


class VotedPerceptron(Perceptron):
    """Freund–Schapire: the perceptron's vectors vote, each with the number of trials it
    survived."""

    name: ClassVar[str] = "voted-perceptron"
    title: ClassVar[str] = "Voted perceptron"
    source: ClassVar[str] = "Freund and Schapire 1999 (the voted perceptron)"
    parameters: ClassVar[tuple[Parameter, ...]] = Perceptron.parameters[:1]  # η, no mode
    roles: ClassVar[tuple[str, ...]] = ("boundary", "previous", "vote")
    score_formula: ClassVar[str] = "s = v·x"
    update_formula: ClassVar[str] = "v ← v + η y x"

    @property
    def cadence(self) -> str:  # type: ignore[override]
        return "trial"  # a right prediction counts too

    @property
    def moves_on_mistakes_only(self) -> bool:
        return True  # v moves on a mistake only; a right prediction adds to its count

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}"

    # -- state ---------------------------------------------------------------------------

    def initial_state(self, w: FloatArray, given: bool) -> State:
        """v₁ = w₀ with c₁ = 0 (and w₀'s exact value if its floats are not)."""
        plain = super().initial_state(w, given)
        state = VotedState(w=plain.w, error=plain.error, start=plain.start,
                           book=VoteBook(plain.w))  # fmt: skip
        if np.any(state.error):
            return state.but(shadow=self.start_shadow(state))
        return state

    def shadow_unit(self) -> None:  # type: ignore[override]
        """None: the run counts no updates for it (it learns on every trial); its state
        keeps its exact shadow itself."""
        return None

    def exact_state(self, state: State) -> ExactSum | None:
        if not np.any(state.error):
            return self.derive_shadow(state)
        return _voted(state).shadow

    def votes(self, state: State) -> tuple[FloatArray, NDArray[np.int64]]:
        return _voted(state).votes()

    # -- learning ------------------------------------------------------------------------

    def learn(self, state: State, step: Step) -> State:
        """Right: c ← c + 1. A mistake: v ← v + η y x, a new voter with c = 1."""
        voted = _voted(state)
        if not step.mistake:
            return voted.but(current=voted.current + 1)
        moved = self.add(voted, step.x, step.y, step)
        assert voted.book is not None
        book = voted.book.extended(voted.size, voted.current, moved.w)
        shadow = None
        if np.any(moved.error):
            before = voted.shadow if voted.shadow is not None else self.derive_shadow(voted)
            shadow = before.copy()
            m, e = decimal_digits(self.step_size())
            shadow.add(step.digits(), (step.y * m, e))
        return moved.but(book=book, size=voted.size + 1, current=1, shadow=shadow)

    def settled(self, start: State, end: State, updates: int, tolerance: float) -> bool:
        """Converged: an epoch with no mistake (no new voter); it counts every trial."""
        return bool(_voted(start).size == _voted(end).size)

    # -- the vote ------------------------------------------------------------------------

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        """Σ_k c_k sign(v_k·x) for every row x of X (0: a tie)."""
        vectors, counts = _voters(_voted(state))
        scores = np.zeros(X.shape[0])
        if not counts.size:
            return scores
        step = max(1, _BLOCK // counts.shape[0])
        weights = counts.astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            for a in range(0, X.shape[0], step):
                signs = X[a : a + step] @ vectors.T
                np.sign(signs, out=signs)
                scores[a : a + step] = signs @ weights
        return scores

    def numbers(self, state: State, theory: Theory, trials: int) -> tuple[tuple[str, str], ...]:
        """How many vectors vote (those with c > 0), of how many."""
        _, counts = _voted(state).votes()
        return (("vectors voting", f"{int(np.count_nonzero(counts))} of {counts.shape[0]}"),)

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """v's line under `role`, as the perceptron draws it, and for the current state the
        vote's boundary Σ c_k sign(v_k·x) = 0, a level set found where the vote jumps
        (none while no vector with a direction in the plane has a vote)."""
        drawn = super().drawables(state, features, role)
        if role != "boundary":
            return drawn
        vectors, counts = _voters(_voted(state))
        if not counts.size or not np.all(np.isfinite(vectors)):
            return drawn

        def score(points: FloatArray) -> FloatArray:
            return self.decision(state, features.transform(points))

        return (*drawn, LevelSet("vote", score, stepped=True))

    # -- words ---------------------------------------------------------------------------

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        sign = "+1" if trial.y > 0 else "−1"
        return (
            f"A new voter: v ← v + η y x = ({vector(trial.weights_before)}) + "
            f"{number(self.step_size())}·({sign})·({vector(trial.x)}) = "
            f"({vector(trial.weights_after)}), with c = 1; the old v keeps its votes."
        )

    def explain_no_update(self, trial: Any, vector: Callable[..., str]) -> str | None:
        if trial.mistake:
            return None
        return "Right: v stays and its count goes up, c ← c + 1 (one more vote)."

    def explain_stop(self, converged_at: int) -> str:
        return (
            f"Converged at trial {converged_at}: a whole epoch without a mistake (the "
            "current v only gathers votes now)."
        )


def _voted(state: State) -> VotedState:
    assert isinstance(state, VotedState)
    return state


def _voters(state: VotedState) -> tuple[FloatArray, NDArray[np.int64]]:
    """The vectors with a vote (c > 0) and a direction (v ≠ 0), equal ones merged when
    there are many (a cycle repeats its vectors)."""
    vectors, counts = state.votes()
    keep = (counts > 0) & np.any(vectors != 0.0, axis=1)
    vectors, counts = vectors[keep], counts[keep]
    if counts.shape[0] >= _DISTINCT:
        vectors, inverse = np.unique(vectors, axis=0, return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=counts, minlength=vectors.shape[0])
        counts = counts.astype(np.int64)
    return vectors, counts
