"""Three or more classes (UNL CSCE 970 lecture 3): the multiclass perceptron and Kessler's
construction.

Kessler's construction turns a point x of class c into K − 1 vectors of length K·D: for
each other class j (in increasing order), x in block c, −x in block j, zeros elsewhere
(`kessler_points`). A weight matrix W (K rows, flattened) is right on all of them exactly
when w_c·x > w_j·x for every j ≠ c. So a binary perceptron on those vectors, labels all +1
and no extra bias, learns K classes (`kessler`), and the margin γ_K, radius R_K and bound
R_K²/γ_K² of the Kessler vectors bound the mistakes of both learners here.

The multiclass perceptron (`multiclass-perceptron`) keeps one w_k per class; a trial is
right only if w_y·x > w_k·x for every k ≠ y; otherwise w_y += ηx and w_j −= ηx for j the
highest-scoring other class (the lowest index on ties). That update is the perceptron's on
the Kessler vector of (x, y, j), so Novikoff's proof carries over.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.drawables import Regions, Vector
from simulator.engine.learners.base import (
    Bound,
    Learner,
    Parameter,
    State,
    Step,
    Theory,
)
from simulator.engine.learners.exact import (
    ExactSum,
    Row,
    as_fraction,
    dot_rows,
    exact_float,
    tie_terms,
    written_exactly,
)
from simulator.engine.learners.linear import OVERFLOW
from simulator.engine.learners.perceptron import (
    LEARNING_RATE,
    Perceptron,
    novikoff_bound,
    propagate_additive_error,
)

__all__ = ["Kessler", "KesslerRows", "MulticlassPerceptron", "kessler_points"]

FloatArray = NDArray[np.float64]


def kessler_points(
    X: FloatArray, labels: NDArray[np.integer[Any]], classes: int
) -> tuple[FloatArray, NDArray[np.intp], NDArray[np.intp]]:
    """(Z, point, other): the Kessler vectors of feature rows X with classes `labels`
    0 … K−1, K = `classes` — for point i of class c and each j ≠ c in increasing order, x in
    block c and −x in block j — with the point and the other class of each vector."""
    n, d = X.shape
    k = classes
    points = np.repeat(np.arange(n, dtype=np.intp), k - 1)
    own = np.asarray(labels, dtype=np.intp)[points]
    step = np.tile(np.arange(k - 1, dtype=np.intp), n)
    other = step + (step >= own)  # the K − 1 classes other than c, in increasing order
    Z = np.zeros((n * (k - 1), k * d))
    rows = np.arange(n * (k - 1))
    for j in range(d):
        Z[rows, own * d + j] = X[points, j]
        Z[rows, other * d + j] = 0.0 - X[points, j]  # 0 − x: never a −0.0
    return Z, points, other


class KesslerRows:
    """The training rows of Kessler's learner: the vectors, labels all +1, the point each
    comes from, and its exact decimals from the point's."""

    def __init__(self, X: FloatArray, labels: NDArray[np.int8], classes: int) -> None:
        self.X, self.points, self.other = kessler_points(X, labels, classes)
        self.y = np.ones(self.X.shape[0], dtype=np.int8)
        self.labels = np.asarray(labels)
        self.width = X.shape[1]

    def digits(self, point_digits: Row, r: int) -> Row:
        """Row r in exact decimals: the point's, in its class's block and (negated) the
        other class's."""
        own = int(self.labels[self.points[r]]) * self.width
        other = int(self.other[r]) * self.width
        first, second = (own, 1), (other, -1)
        if other < own:
            first, second = second, first
        return tuple((base + j, sign * m, e) for base, sign in (first, second)
                     for j, m, e in point_digits)  # fmt: skip


class MulticlassPerceptron(Learner):
    """One w_k per class: predict argmax_k w_k·x; a mistake moves w_y toward x and the
    strongest other class's w_j away from it (see the module docstring)."""

    name: ClassVar[str] = "multiclass-perceptron"
    symbols: ClassVar[tuple[str, str]] = ("γ_K", "R_K")
    theory_space: ClassVar[str] = "Kessler's vectors"
    proof_vector: ClassVar[str] = "z"  # the Kessler vector of (x, y, j), its label +1
    theory_in_plane: ClassVar[bool] = False
    title: ClassVar[str] = "Multiclass perceptron"
    source: ClassVar[str] = "UNL CSCE 970 lecture 3 (multiclass learning)"
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE,)
    classes: ClassVar[str] = "many"
    exact: ClassVar[bool] = True
    score_formula: ClassVar[str] = "s_k = w_k·x"
    update_formula: ClassVar[str] = "w_y ← w_y + η x, w_j ← w_j − η x"
    roles: ClassVar[tuple[str, ...]] = ("boundary", "class-weight")
    learning_rate: float = 1.0
    count: int = 3

    @classmethod
    def build(
        cls, n_features: int, *, features: FloatArray | None = None, classes: int = 3,
        **values: Any,
    ) -> Any:  # fmt: skip
        return _built(cls, classes, values)

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (self.count, n_features)

    # -- scoring --------------------------------------------------------------------------

    def _scores(self, w: FloatArray, X: FloatArray) -> FloatArray:
        """s_k = w_k·x for every row, summed left to right (the same bits in any block)."""
        return np.column_stack([dot_rows(X, w[k]) for k in range(w.shape[0])])

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        with np.errstate(over="ignore", invalid="ignore"):
            return self._scores(state.w, np.ascontiguousarray(X, dtype=np.float64))

    def _bounds(self, state: State, X: FloatArray) -> FloatArray:
        """Each score's rounding-error bound (learners.exact.tie_terms, per class), one row
        per class."""
        size = np.abs(X)
        bounds = np.empty((state.w.shape[0], X.shape[0]))
        for k in range(state.w.shape[0]):
            c, theta_err = tie_terms(state.w[k], state.error[k], 0.0)
            bounds[k] = dot_rows(size, c)
            bounds[k] += theta_err
        return bounds

    @staticmethod
    def _largest_bound(state: State, X: FloatArray) -> float:
        """A number no bound of `_bounds` on rows X exceeds, rounding included (as
        runner.terms' bmax: twice max|x|·Σc + θ_err, with room for the sums' rounding)."""
        largest = float(np.max(np.abs(X))) if X.size else 0.0
        d = X.shape[1]
        ceiling = 0.0
        for k in range(state.w.shape[0]):
            c, theta_err = tie_terms(state.w[k], state.error[k], 0.0)
            bound = 2.0 * (largest * float(np.sum(c)) + theta_err) * (1.0 + 8.0 * d * 2.0**-53)
            ceiling = bound if not bound <= ceiling else ceiling  # a NaN stays
        return ceiling

    def signed_scores(
        self, state: State, X: FloatArray, y: NDArray[np.int8]
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """v = s_y − max_{k≠y} s_k (right iff > 0; a tie is a mistake), certain where the
        rounding bounds of the two scores cannot reach across."""
        with np.errstate(over="ignore", invalid="ignore"):
            others = np.empty((state.w.shape[0], X.shape[0]))  # one row per class
            for k in range(state.w.shape[0]):
                others[k] = dot_rows(X, state.w[k])
            rows = np.arange(X.shape[0])
            labels = np.asarray(y, dtype=np.intp)
            own = others[labels, rows]
            others[labels, rows] = -np.inf
            j = _first_argmax(others)
            v = own - others[j, rows]
            # The bounds only of rows whose |v| some bound might reach (else 0: certain).
            near = np.flatnonzero(~(np.abs(v) > 4.0 * self._largest_bound(state, X)))
            reach = np.zeros(X.shape[0])
            if near.size:
                bounds = self._bounds(state, X[near])
                at = np.arange(near.size)
                reach[near] = bounds[labels[near], at] + bounds[j[near], at]
        certain = np.abs(v) > 2.0 * reach  # twice: the subtraction rounds too
        return np.where(certain, v, np.where(np.abs(v) <= 2.0 * reach, 0.0, v)), certain

    def runner_up(self, state: State, step: Step) -> int:
        """j, the highest-scoring class other than y (lowest index on ties), decided
        exactly where the floats cannot tell two scores apart."""
        scores = self._scores(state.w, step.x.reshape(1, -1))[0]
        bounds = self._bounds(state, step.x.reshape(1, -1))[:, 0]
        scores[step.y] = -np.inf
        best = int(np.argmax(scores))
        close = np.flatnonzero(scores >= scores[best] - 2.0 * (bounds + bounds[best]))
        close = close[close != step.y]
        if close.size <= 1 or step.exact is None:
            return best
        exact = step.exact()
        if exact is None:
            return best
        values = self._exact_scores(state, exact, step.digits())
        return int(max(close.tolist(), key=lambda k: (values[k], -k)))

    # -- learning --------------------------------------------------------------------------

    def learn(self, state: State, step: Step) -> State:
        """w_y ← w_y + η x, w_j ← w_j − η x."""
        j = self.runner_up(state, step)
        eta = self.learning_rate
        w = np.array(state.w)
        error = np.array(state.error)
        for k, sign in ((step.y, 1.0), (j, -1.0)):
            new = w[k] + (sign * eta) * step.x
            error[k] = propagate_additive_error(error[k], w[k], new, step.x, eta)
            w[k] = new
        w.setflags(write=False)
        error.setflags(write=False)
        return state.but(w=w, error=error)

    def compiled_family(self) -> tuple[int, float, float] | None:
        """The multiclass family (5) with its step η and K, for the compiled loop (None for a
        subclass that scores or learns its own way)."""
        kind = type(self)
        own = all(
            getattr(kind, name) is getattr(MulticlassPerceptron, name)
            for name in ("learn", "runner_up", "signed_scores", "_scores", "_bounds")
        )
        return (5, float(self.learning_rate), float(self.count)) if own else None

    def increments(self, state: State, step: Step) -> tuple[tuple[int, int], ...]:
        return ((step.y, 1), (self.runner_up(state, step), -1))

    def refuse(self, state: State) -> str | None:
        within = bool(np.all(np.abs(state.w) <= OVERFLOW))
        return None if within else "overflow"

    def loss(self, state: State, X: FloatArray, y: NDArray[np.int8]) -> float:
        """The share of points the argmax gets wrong (there is no squared error here)."""
        if not X.shape[0]:
            return math.nan
        v, _ = self.signed_scores(state, X, y)
        return float(np.mean(v <= 0))

    # -- the exact state -----------------------------------------------------------------

    def shadow_columns(self) -> int:
        return self.count

    def shadow_unit(self) -> tuple[int, int]:
        return Perceptron.shadow_unit(self)  # type: ignore[arg-type]

    def step_size(self) -> float:
        return float(self.learning_rate)

    def start_shadow(self, state: State) -> ExactSum:
        return ExactSum.of(list(state.start))

    def exact_weights(self, exact: ExactSum) -> tuple[Fraction, ...] | None:
        """The exact state is W itself, row by row."""
        return exact.values()

    def exact_state(self, state: State) -> ExactSum | None:
        if not state.error.size or np.any(state.error):
            return None
        return ExactSum.of([Fraction(v) for v in state.w.ravel().tolist()])

    def _exact_scores(self, state: State, exact: ExactSum, row: Row) -> list[Fraction]:
        width = state.w.shape[1]
        return [
            sum((exact.value(k * width + j) * as_fraction(m, e) for j, m, e in row), Fraction(0))
            for k in range(state.w.shape[0])
        ]

    def exact_signed(self, state: State, exact: ExactSum, digits: Row, y: int) -> float | None:
        values = self._exact_scores(state, exact, digits)
        return exact_float(values[y] - max(v for k, v in enumerate(values) if k != y))

    def exact_float_signed(self, state: State, x: FloatArray, y: int) -> float | None:
        if np.any(state.error) or not np.all(written_exactly(x[x != 0.0])):
            return None
        exact_x = [Fraction(b) for b in x.tolist()]
        values = [
            sum((Fraction(a) * b for a, b in zip(row.tolist(), exact_x, strict=True)), Fraction(0))
            for row in state.w
        ]
        return exact_float(values[y] - max(v for k, v in enumerate(values) if k != y))

    # -- theory, drawing, words --------------------------------------------------------------

    def theory_rows(self, X: FloatArray, labels: NDArray[np.int8]) -> tuple[FloatArray, Any]:
        """The Kessler vectors, labels all +1: their γ_K, R_K and R_K²/γ_K² bound it."""
        Z, _, _ = kessler_points(X, labels, self.count)
        return Z, np.ones(Z.shape[0], dtype=np.int8)

    def bound(self, theory: Theory) -> Bound | None:
        own = novikoff_bound(self, theory, self.learning_rate)
        formula = own.formula.replace("R²/γ*²", "R_K²/γ_K²")
        why = "on classes a linear machine separates, with Kessler's vectors (γ_K, R_K)"
        return Bound(own.value, formula, "Kessler's and Novikoff's", why, own.general,
                     own.proof, own.rate)  # fmt: skip

    def weights(self, state: State) -> FloatArray:
        return state.w

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """The plane divided by argmax_k w_k·x (`Regions`: the view colours each class's
        region and traces the boundaries between the two best classes), and each w_k's
        direction in the plane as an arrow, when the features are linear in the plane."""
        if role != "boundary" or not np.all(np.isfinite(state.w)):
            return ()
        w = np.array(state.w)
        count = w.shape[0]

        def scores(points: FloatArray) -> FloatArray:
            with np.errstate(over="ignore", invalid="ignore"):
                result: FloatArray = features.transform(points) @ w.T
            return result

        drawn: list[Any] = [Regions("boundary", scores, classes=count)]
        for k in range(count):
            line = features.input_line(w[k])
            if line is not None:
                drawn.append(Vector("class-weight", line.normal, k, f"w{k + 1}"))
        return tuple(drawn)

    def explain_score(self, trial: Any, number: Any) -> str:
        return f"v = s_y − max other s_k = {number(trial.score)}"

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        """Which two rows moved, and W before and after, one block per class."""
        before = np.asarray(trial.weights_before, dtype=float).reshape(self.count, -1)
        after = np.asarray(trial.weights_after, dtype=float).reshape(self.count, -1)
        eta = number(self.learning_rate)
        moved = [k for k in range(self.count) if np.any(before[k] != after[k])]
        up = [k for k in moved if np.dot(after[k] - before[k], trial.x) > 0]  # w_y first
        parts = [f"w{k + 1} += {eta}·x" for k in up]
        parts += [f"w{k + 1} −= {eta}·x" for k in moved if k not in up]
        return (
            f"{', '.join(parts) or self.update_formula}: W = ({_blocks(before, vector)}) → "
            f"({_blocks(after, vector)})."
        )

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}, K = {self.count}"


def _first_argmax(values: FloatArray) -> NDArray[np.intp]:
    """np.argmax(values, axis=0) (the first maximum, or the first NaN) of a few rows of many
    columns, quicker: a row at a time."""
    top = np.max(values, axis=0)
    if np.isnan(top).any():  # NumPy's own: the first NaN
        first: NDArray[np.intp] = np.argmax(values, axis=0)
        return first
    best = np.zeros(values.shape[1], dtype=np.intp)
    for k in range(values.shape[0] - 1, -1, -1):  # the lowest k equal to the top wins
        np.copyto(best, k, where=values[k] == top)
    return best


def _blocks(rows: FloatArray, vector: Any) -> str:
    """The rows of W (or the blocks of Kessler's z), "|" between them."""
    return " | ".join(vector(row) for row in rows)


class Kessler(Perceptron):
    """Kessler's construction: the binary perceptron on the Kessler vectors (labels all +1,
    no extra bias, one trial per vector, a tie a mistake); its w is the K rows of W."""

    name: ClassVar[str] = "kessler"
    symbols: ClassVar[tuple[str, str]] = ("γ_K", "R_K")
    theory_space: ClassVar[str] = "Kessler's vectors"
    proof_vector: ClassVar[str] = "z"  # the Kessler vector of (x, y, j), its label +1
    theory_in_plane: ClassVar[bool] = False
    title: ClassVar[str] = "Kessler's construction"
    source: ClassVar[str] = "UNL CSCE 970 lecture 3 (Kessler's construction)"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE,)
    classes: ClassVar[str] = "many"
    roles: ClassVar[tuple[str, ...]] = ("boundary", "class-weight")
    count: int = 3
    width: int = 0

    @classmethod
    def build(
        cls, n_features: int, *, features: FloatArray | None = None, classes: int = 3,
        **values: Any,
    ) -> Any:  # fmt: skip
        learner = _built(cls, classes, values)
        object.__setattr__(learner, "width", n_features)
        return learner

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (self.count * n_features,)

    def training_rows(self, X: FloatArray, labels: NDArray[np.int8]) -> KesslerRows:
        return KesslerRows(X, labels, self.count)

    def weights(self, state: State) -> FloatArray:
        result: FloatArray = state.w.reshape(self.count, -1)
        return result

    def score_weights(self, state: State) -> FloatArray:
        return state.w

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        """s_k = w_k·x of points' feature vectors (not Kessler's vectors)."""
        w = self.weights(state)
        rows = np.ascontiguousarray(X)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.column_stack([dot_rows(rows, w[k]) for k in range(self.count)])

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        return MulticlassPerceptron.drawables(self, State(w=self.weights(state)), features, role)  # type: ignore[arg-type]

    def theory_rows(self, X: FloatArray, labels: NDArray[np.int8]) -> tuple[FloatArray, Any]:
        return X, np.ones(X.shape[0], dtype=np.int8)

    def bound(self, theory: Theory) -> Bound | None:
        own = novikoff_bound(self, theory, self.learning_rate)
        return Bound(own.value, "R_K²/γ_K²", "Novikoff's, on Kessler's vectors",
                     own.why, own.general, own.proof, own.rate)  # fmt: skip

    def describe(self) -> str:
        return f"η = {self.learning_rate:g}, K = {self.count}"

    def _classes_of(self, trial: Any) -> tuple[int, int | None]:
        """(the point's class, the other class of its Kessler vector): the block holding −x
        (None when x = 0 leaves every block zero)."""
        blocks = np.asarray(trial.x, dtype=float).reshape(self.count, -1)
        own = int(np.asarray(trial.y)) if self.count > 2 else int(trial.y > 0)
        others = [k for k in range(self.count) if k != own and np.any(blocks[k])]
        return own, (others[0] if others else None)

    def explain_input(self, trial: Any, dataset: Any, vector: Any) -> str:
        """Kessler's vector in blocks, one per class, as the notes write it: x in the
        point's class's block, −x in the other class's, zeros elsewhere."""
        written = _blocks(np.asarray(trial.x, dtype=float).reshape(self.count, -1), vector)
        own, other = self._classes_of(trial)
        against = (
            ""
            if other is None
            else f" (class {_name(dataset, own)} against {_name(dataset, other)})"
        )
        return f"z = ({written}){against}"

    def explain_verdict(self, trial: Any, dataset: Any) -> str | None:
        own, other = self._classes_of(trial)
        if other is None:
            return None
        sign = ">" if trial.score > 0 else "<"
        return f"w_{_name(dataset, own)}·x {sign} w_{_name(dataset, other)}·x"

    def explain_score(self, trial: Any, number: Any) -> str:
        return f"s = W·z = {number(trial.score)}"

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        """The perceptron's update on z (its label is +1), in blocks."""
        blocks = self.count, -1
        before = np.asarray(trial.weights_before, dtype=float).reshape(blocks)
        after = np.asarray(trial.weights_after, dtype=float).reshape(blocks)
        z = np.asarray(trial.x, dtype=float).reshape(blocks)
        return (
            f"W ← W + η z = ({_blocks(before, vector)}) + {number(self.step_size())}·"
            f"({_blocks(z, vector)}) = ({_blocks(after, vector)})."
        )


def _name(dataset: Any, index: int) -> str:
    """Class `index` (0 … K−1) by name; two classes: −1, +1."""
    names = dataset.class_names
    if len(names) == 2 and names == ("-1", "+1"):
        return ("−1", "+1")[index]
    return str(names[index])


def _built(cls: Any, classes: int, values: dict[str, Any]) -> Any:
    """A K-class learner of `cls` with its declared parameters from `values` and its count
    of classes (at least 2): what both learners' `build` share."""
    learner = cls(**{p.name: values.get(p.name) for p in cls.parameters})
    object.__setattr__(learner, "count", max(2, int(classes)))
    return learner
