"""The kernel perceptron (CMU 10-601 lecture 10: "apply the kernel trick to Perceptron";
UIUC CS446): the perceptron in the feature space of a kernel K, kept in its dual form

    f(x) = Σᵢ αᵢ yᵢ K_b(xᵢ, x),    K_b = K + 1 with bias,

over the points xᵢ that have erred (its support). A mistake on (x, y), y·f(x) ≤ 0 by the
run's tie rule, adds η to x's αᵢ. The kernels (`kernels`) act on the input points, the
feature vectors without their bias entry; the bias is the constant 1 of K_b.

State. The support is kept in the state itself, the feature rows and labels that have
erred with their update counts nᵢ (αᵢ = η·nᵢ), so editing the data does not restart the
run: a point deleted after it erred stays in f. `dual` gives α over the current points.
`w` is the notes' dual form w = Σ αᵢ yᵢ xᵢ of the run's own feature vectors, what the
same mistakes would give with the linear kernel K(x, z) = x·z (it moves exactly when α
does); the boundary drawn is f's.

Verdicts. From α = 0, f = η Σ nᵢ yᵢ K_b(xᵢ, x), so the mistakes do not depend on η. Each sum
comes with its rounding-error bound (`Kernel.gram_with_errors`); where the bound cannot
decide its sign, the polynomial kernel's sum is computed exactly on the data as written
(every float read as its shortest decimal, `exact.written`; features computed by
preprocessing are read the same way), and an exact 0 is a tie. The RBF kernel's exp is not
rational: such a verdict is marked uncertain (its float kept).

Theory. The kernel perceptron is the perceptron on the feature vectors φ_b(xᵢ) of K_b, so
Novikoff's bound holds there: k ≤ R²/γ*², R² = maxᵢ K_b(xᵢ, xᵢ), γ* the best margin in
that space. γ* is found from a factor of the Gram matrix, G_b = L Lᵀ (Cholesky's, with
the largest pivot first, stopped where the rest of the diagonal is below rounding: a rank
of 6 for (x·z + 1)² in the plane, whatever n): the rows of L have the inner products of the
φ_b(xᵢ), hence the same γ*, R and R²/γ*²: they are the learner's `theory_rows`, so the run's
`margin_report()` (and the panel) find them exactly for those rows, in the kernel's space.
The proof chart works there too: w = Σ αᵢ yᵢ φ_b(xᵢ) in the rows' coordinates is its
`proof_weights`, so A_k = w·u*/ηγ* and B_k = ‖w‖²/η²R² are those of φ_b.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from simulator.engine.drawables import LevelSet
from simulator.engine.learners.base import Bound, Learner, Parameter, State, Step, Theory
from simulator.engine.learners.exact import ExactSum, Row, as_fraction, exact_float
from simulator.engine.learners.kernels import KERNELS, Kernel, exact_inputs, kernel_rows
from simulator.engine.learners.perceptron import LEARNING_RATE

__all__ = ["COEF0", "DEGREE", "KERNEL", "SIGMA", "DualScore", "KernelPerceptron", "KernelState"]

FloatArray = NDArray[np.float64]
_U = 2.0**-53
_BLOCK = 1 << 18  # entries of a Gram block computed at once (2 MB of floats)
_SHOWN_TERMS = 6  # the explanation writes at most this many terms of the sum
# Deleted support points' coordinates in a factor's span, per factor while it lives, by
# the factor's id (arrays are not hashable) (`proof_weights`).
_PROJECTIONS: dict[int, dict[bytes, FloatArray]] = {}

KERNEL = Parameter(
    "kernel",
    "K",
    "kernel",
    default="polynomial",
    choices=KERNELS,
    help="polynomial: K(x, z) = (x·z + c)^d; rbf: exp(−|x − z|²/(2σ²))",
)
DEGREE = Parameter(
    "degree",
    "d",
    "degree",
    default=2,
    minimum=1,
    maximum=10,
    integer=True,
    help="the polynomial kernel's degree d",
)
COEF0 = Parameter(
    "coef0",
    "c",
    "kernel constant",
    default=1.0,
    minimum=0.0,
    maximum=1e6,
    help="the polynomial kernel's constant c (c ≥ 0 keeps it a kernel)",
)
SIGMA = Parameter(
    "sigma",
    "σ",
    "kernel width",
    default=1.0,
    minimum=1e-100,
    maximum=1e100,
    help="the RBF kernel's width σ",
)


def _frozen(array: NDArray[Any]) -> NDArray[Any]:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, slots=True, eq=False)
class KernelState(State):
    """The kernel perceptron's state: its support, the feature rows that have erred, with
    their labels and update counts nᵢ (αᵢ = η nᵢ); `w` is Σ αᵢ yᵢ xᵢ (module docstring)."""

    support: FloatArray = field(default_factory=lambda: _frozen(np.zeros((0, 0))))
    labels: NDArray[np.int8] = field(default_factory=lambda: _frozen(np.zeros(0, dtype=np.int8)))
    counts: NDArray[np.int64] = field(default_factory=lambda: _frozen(np.zeros(0, dtype=np.int64)))
    repeating: ClassVar[tuple[str, ...]] = ("support", "labels", "counts")


class KernelPerceptron(Learner):
    """The perceptron in a kernel's feature space: f(x) = Σ αᵢ yᵢ K_b(xᵢ, x); on a
    mistake, αᵢ ← αᵢ + η."""

    name: ClassVar[str] = "kernel-perceptron"
    title: ClassVar[str] = "Kernel perceptron"
    source: ClassVar[str] = "CMU 10-601 lecture 10 (the kernel trick); UIUC CS446"
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = (LEARNING_RATE, KERNEL, DEGREE, COEF0, SIGMA)
    curved: ClassVar[bool] = True
    theory_space: ClassVar[str] = "K_b's feature space"  # its `theory_rows`
    proof_vector: ClassVar[str] = "φ_b(x)"
    weights_name: ClassVar[str] = "Σαᵢyᵢxᵢ"  # not what scores: f is the kernel sum
    explain_lines: ClassVar[int] = 4  # f's terms and K_b's formula wrap onto a second line
    theory_in_plane: ClassVar[bool] = False
    start_text: ClassVar[str] = "f = 0, no support vectors"
    score_formula: ClassVar[str] = "f(x) = Σ αᵢ yᵢ K_b(xᵢ, x)"
    update_formula: ClassVar[str] = "αᵢ ← αᵢ + η"
    bound_formula: ClassVar[str | None] = "R²/γ*² in K_b's feature space"
    learning_rate: float
    kernel: str
    degree: int
    coef0: float
    sigma: float
    bias: bool = True  # K_b = K + 1 (the run's feature vectors begin with the constant 1)

    @classmethod
    def build(cls, n_features: int, *, features: FloatArray | None = None, **values: Any) -> Any:
        """The learner with its parameters, and the run's `bias` (whether feature vectors
        begin with the constant 1: the kernel then acts on the rest, and K_b = K + 1)."""
        learner = cls(**{p.name: values.get(p.name) for p in cls.parameters})
        object.__setattr__(learner, "bias", bool(values.get("bias", True)))
        return learner

    def __eq__(self, other: object) -> bool:
        return Learner.__eq__(self, other) and self.bias == getattr(other, "bias", None)

    def __hash__(self) -> int:
        return hash((Learner.__hash__(self), self.bias))

    @property
    def exact(self) -> bool:  # type: ignore[override]
        """Its verdicts follow exact arithmetic with the polynomial kernel, not the RBF."""
        return self.kernel_function.rational

    @property
    def kernel_function(self) -> Kernel:
        return Kernel(self.kernel, int(self.degree), float(self.coef0), float(self.sigma),
                      self.bias)  # fmt: skip

    def describe(self) -> str:
        if self.kernel == "rbf":
            shape = f"RBF, σ = {self.sigma:g}"
        else:
            shape = f"polynomial, d = {self.degree}, c = {self.coef0:g}"
        return f"{shape}, η = {self.learning_rate:g}"

    def inputs(self, X: FloatArray) -> FloatArray:
        """The input points of feature vectors X: without the bias entry."""
        return X[:, 1:] if self.bias else X

    # -- state --------------------------------------------------------------------------

    def check_weights(self, w: FloatArray) -> None:
        super().check_weights(w)
        if np.any(w):
            raise ValueError(
                "the kernel perceptron starts from f = 0 (no support vectors); its initial "
                "weights can only be the default or zeros"
            )

    def initial_state(self, w: FloatArray, given: bool) -> State:
        size = w.shape[0]
        return KernelState(w=_frozen(np.zeros(size)), support=_frozen(np.zeros((0, size))))

    def dual(
        self, state: State, X: FloatArray | None = None, y: NDArray[Any] | None = None
    ) -> FloatArray | None:
        """α over the rows of X with labels y (the current points): each support entry's
        α on the first row equal to it with its label; 0 elsewhere. Without X: α over the
        support itself."""
        kernel_state = _kernel_state(state)
        alpha = self.learning_rate * kernel_state.counts.astype(np.float64)
        if X is None or y is None:
            return alpha
        result = np.zeros(X.shape[0])
        where = _rows_of(kernel_state.support, kernel_state.labels, X, y)
        result[where[where >= 0]] = alpha[where >= 0]
        return result

    # -- scoring ------------------------------------------------------------------------

    def dual_sums(
        self, state: State, X: FloatArray, *, errors: bool = False
    ) -> tuple[FloatArray, FloatArray]:
        """(S, B): S = Σ nᵢ yᵢ K_b(xᵢ, x) for every row x of X (f = η S), one Gram block of
        rows at a time, and, if `errors`, B with |S − S_exact| <= B (else zeros)."""
        kernel_state = _kernel_state(state)
        sums, bounds = np.zeros(X.shape[0]), np.zeros(X.shape[0])
        m = kernel_state.counts.shape[0]
        if not m or not X.shape[0]:
            return sums, bounds
        coefficients = (kernel_state.counts * kernel_state.labels).astype(np.float64)
        sizes = np.abs(coefficients)
        support = self.inputs(kernel_state.support)
        points = self.inputs(np.asarray(X, dtype=np.float64))
        kernel = self.kernel_function
        gamma = (m + 1) * _U / (1.0 - (m + 1) * _U)
        inflation = 1.0 + 4.0 * (m + 4) * _U
        step = max(1, _BLOCK // m)
        with np.errstate(over="ignore", invalid="ignore"):
            for a in range(0, points.shape[0], step):
                block = points[a : a + step]
                if not errors:  # K_b = K + 1: the 1s add Σ nᵢ yᵢ once
                    sums[a : a + step] = kernel.gram(block, support, bias=False) @ coefficients
                    continue
                G, E = kernel.gram_with_errors(block, support)
                sums[a : a + step] = G @ coefficients
                bounds[a : a + step] = (E @ sizes + gamma * (np.abs(G) @ sizes)) * inflation
        if not errors and kernel.bias:
            sums += float(np.sum(coefficients))
        return sums, bounds

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        """f(x) = η Σ nᵢ yᵢ K_b(xᵢ, x) for every row x of X."""
        sums, _ = self.dual_sums(state, X)
        return _scaled(sums, self.learning_rate)

    def signed_scores(
        self, state: State, X: FloatArray, y: NDArray[np.int8]
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """v = y·f, its sign the exact one where the rounding-error bound decides it, else
        from the exact sum (polynomial kernel), else uncertain (RBF)."""
        sums, bounds = self.dual_sums(state, X, errors=True)
        certain = np.ones(X.shape[0], dtype=bool)
        # B = 0: no support, or terms computed exactly; then S is exact.
        for k in np.flatnonzero(~(np.abs(sums) > bounds) & (bounds > 0)).tolist():
            exact = self.exact_sum(state, self._exact_point(X[k]))
            if exact is None:
                certain[k] = False
            else:
                sums[k] = exact_float(exact)
        return _scaled(y * sums, self.learning_rate), certain

    def exact_signed(self, state: State, exact: ExactSum, digits: Row, y: int) -> float | None:
        """v = y·f from the exact sum on the row as written (`digits`), or None (RBF)."""
        offset = 1 if self.bias else 0
        point = [Fraction(0)] * (state.w.shape[0] - offset)
        for j, m, e in digits:
            if j >= offset:
                point[j - offset] = as_fraction(m, e)
        total = self.exact_sum(state, point)
        if total is None:
            return None
        return float(_scaled(np.array([y * exact_float(total)]), self.learning_rate)[0])

    def exact_sum(self, state: State, point: list[Fraction]) -> Fraction | None:
        """Σ nᵢ yᵢ K_b(xᵢ, x) in rational arithmetic, the support's inputs and the point as
        written; None where the kernel is not rational."""
        kernel = self.kernel_function
        if not kernel.rational:
            return None
        kernel_state = _kernel_state(state)
        total = Fraction(0)
        rows = self.inputs(kernel_state.support)
        for row, label, count in zip(
            rows, kernel_state.labels.tolist(), kernel_state.counts.tolist(), strict=True
        ):
            total += count * label * kernel.exact_value(exact_inputs(row), point)
        return total

    def _exact_point(self, x: FloatArray) -> list[Fraction]:
        return exact_inputs(self.inputs(x.reshape(1, -1))[0])

    # -- learning -------------------------------------------------------------------------

    def learn(self, state: State, step: Step) -> State:
        """A mistake on (x, y): x's αᵢ ← αᵢ + η (x joins the support with αᵢ = η if new)."""
        kernel_state = _kernel_state(state)
        x, y = step.x, step.y
        support, labels, counts = kernel_state.support, kernel_state.labels, kernel_state.counts
        same = np.flatnonzero((labels == y) & np.all(support == x, axis=1))
        if same.size:
            counts = counts.copy()
            counts[same[0]] += 1
        else:
            support = np.vstack((support, x))
            labels = np.append(labels, np.int8(y))
            counts = np.append(counts, np.int64(1))
        w = self.learning_rate * ((counts * labels).astype(np.float64) @ support)
        return KernelState(
            w=_frozen(w), support=_frozen(support), labels=_frozen(labels),
            counts=_frozen(counts),
        )  # fmt: skip

    def refuse(self, state: State) -> str | None:
        """Its kernel values overflowed: K_b(xᵢ, xᵢ) of a support point is not finite."""
        kernel_state = _kernel_state(state)
        with np.errstate(over="ignore", invalid="ignore"):
            diagonal = self.kernel_function.diagonal(self.inputs(kernel_state.support))
        if np.all(np.isfinite(diagonal)) and np.all(np.isfinite(state.w)):
            return None
        return (
            "a kernel value K_b(x, x) of its support overflowed (try standardized features, "
            "a smaller degree or a smaller constant c)"
        )

    # -- theory ---------------------------------------------------------------------------

    def theory_rows(self, X: FloatArray, labels: NDArray[np.int8]) -> tuple[FloatArray, Any]:
        """Rows with the inner products of the feature vectors of K_b (`kernel_rows`) and
        the labels: their γ*, R and R²/γ*² are those of the kernel's feature space."""
        return kernel_rows(self.kernel_function, self.inputs(X)), labels

    def theory_key(self) -> Any:
        return (type(self).theory_rows, self.kernel_function)

    def proof_weights(
        self, state: State, X: FloatArray, labels: NDArray[Any], rows: FloatArray
    ) -> FloatArray:
        """w = Σ αᵢ yᵢ φ_b(xᵢ) in the coordinates of the factor rows (`kernel_rows`: row j
        is φ_b of training row j there), so w·u* and ‖w‖² are those of the kernel's feature
        space.

        A support point deleted since it erred is no row: its φ_b(s) is projected on the
        rows' span (coordinates q with L q = K_b(X, s), by least squares), which gives w·u*
        exactly (u* lies in that span), and the rest of w, orthogonal to the span, goes
        into the factor's last column of zeros, whose u* entry is 0 (`kernel_rows` adds it
        whenever the points span less than the feature space, always for RBF), so ‖w‖² is
        right too."""
        kernel_state = _kernel_state(state)
        w = np.zeros(rows.shape[1])
        if not kernel_state.counts.size:
            return w
        # φ_b depends on the point alone: match the support to the rows by x, not by label.
        where = _rows_of(
            kernel_state.support, np.zeros(kernel_state.counts.shape[0]), X, np.zeros(X.shape[0])
        )
        coefficients = (kernel_state.counts * kernel_state.labels).astype(np.float64)
        present = where >= 0
        w = coefficients[present] @ rows[where[present]]
        if not np.all(present):
            gone, weights = kernel_state.support[~present], coefficients[~present]
            q = self._projected(rows, X, gone)
            w = w + weights @ q
            S = self.inputs(gone)
            rest = float(weights @ (self.kernel_function.gram(S, S) - q @ q.T) @ weights)
            if rest > 0 and rows.shape[0] and not np.any(rows[:, -1]):
                w[-1] = math.sqrt(rest)
        result: FloatArray = self.learning_rate * w
        return result

    def _projected(self, rows: FloatArray, X: FloatArray, points: FloatArray) -> FloatArray:
        """The coordinates of φ_b(p), for each row p of `points`, projected on the span of
        the factor rows of X (kept per factor while it lives: the replay asks after every
        mistake)."""
        known = _PROJECTIONS.get(id(rows))
        if known is None:
            known = _PROJECTIONS[id(rows)] = {}
            weakref.finalize(rows, _PROJECTIONS.pop, id(rows), None)
        keys = [row.tobytes() for row in np.ascontiguousarray(points + 0.0)]
        missing = [i for i, key in enumerate(keys) if key not in known]
        if missing:
            targets = self.kernel_function.gram(self.inputs(X), self.inputs(points[missing]))
            found = np.linalg.lstsq(rows, targets, rcond=None)[0].T
            known.update((keys[i], q) for i, q in zip(missing, found, strict=True))
        return np.array([known[key] for key in keys]).reshape(len(keys), rows.shape[1])

    def bound(self, theory: Theory) -> Bound | None:
        why = (
            "the kernel perceptron is the perceptron on the feature vectors of K_b: from "
            "α = 0, for every order and every η > 0, on data that space separates"
        )
        formula = "R²/γ*² in K_b's feature space"
        value = math.nan if theory.empty else theory.margin_report().bound
        return Bound(value, formula, "Novikoff's", why, proof=True, rate=self.learning_rate)

    def numbers(self, state: State, theory: Theory, trials: int) -> tuple[tuple[str, str], ...]:
        """The support vectors: the points with αᵢ > 0."""
        count = int(np.count_nonzero(_kernel_state(state).counts))
        return (("support vectors", str(count)),)

    # -- words and drawings ----------------------------------------------------------------

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """The boundary f(x) = 0, a level set in the plane (none while f = 0)."""
        if not _kernel_state(state).counts.size:
            return ()

        return (LevelSet(role, DualScore(self, _kernel_state(state), features)),)

    def kernel_text(self) -> str:
        """K_b in words, e.g. "K_b(x, z) = (x·z + 1)² + 1"."""
        return f"K_b(x, z) = {self.kernel_function.formula()}" + (" + 1" if self.bias else "")

    def explain_score(self, trial: Any, number: Any) -> str:
        return f"{self.score_formula} = {number(trial.score)}, with {self.kernel_text()}"

    def explain_terms(
        self, trial: Any, rows: FloatArray, labels: NDArray[Any], number: Any
    ) -> str | None:
        """f(x) with its terms, from the state before the trial (`explain_sum`)."""
        if trial.states is None:
            return None
        x = np.asarray(trial.x, dtype=np.float64)
        terms = self.explain_sum(trial.states[0], x, rows, labels, number)
        return f"{terms}, with {self.kernel_text()}"

    def explain_no_update(self, trial: Any, vector: Any) -> str | None:
        """Right: the αᵢ stay (there is no w that scores here; f is the kernel sum)."""
        return "No update: every αᵢ stays, and f with them." if not trial.mistake else None

    def explain_update(self, trial: Any, number: Any, vector: Any) -> str:
        point = _subscript(trial.index + 1)
        return (
            f"Mistake: α{point} ← α{point} + η (η = {number(self.learning_rate)}), so f gains "
            f"{number(self.learning_rate)}·({'+1' if trial.y > 0 else '−1'})·K_b(x{point}, x); "
            f"w = Σ αᵢ yᵢ xᵢ = ({vector(trial.weights_after)})."
        )

    def explain_sum(
        self, state: State, x: FloatArray, X: FloatArray, y: NDArray[Any], number: Any
    ) -> str:
        """f(x) written with its terms αᵢ·yᵢ·K_b(xᵢ, x) for the points with αᵢ > 0 (numbered
        from 1 among the rows X with labels y; "x*" for a support point no longer in the
        data), at most six terms, then "…"."""
        kernel_state = _kernel_state(state)
        if not kernel_state.counts.size:
            return "f(x) = 0 (no support vectors yet)"
        alpha = self.learning_rate * kernel_state.counts
        values = self.kernel_function.gram(
            self.inputs(kernel_state.support), self.inputs(x.reshape(1, -1))
        )[:, 0]
        where = _rows_of(kernel_state.support, kernel_state.labels, X, y)
        terms, numbers = [], []
        for i in range(min(alpha.shape[0], _SHOWN_TERMS)):
            sign = "+" if kernel_state.labels[i] > 0 else "−"
            name = f"x{_subscript(where[i] + 1)}" if where[i] >= 0 else "x*"
            terms.append(f"{sign} {number(alpha[i])}·K_b({name}, x)")
            numbers.append(f"{sign} {number(alpha[i])}·{number(values[i])}")
        more = " …" if alpha.shape[0] > _SHOWN_TERMS else ""
        total = self.decision(state, x.reshape(1, -1))[0]
        head = " ".join(terms).removeprefix("+ ")
        values_text = " ".join(numbers).removeprefix("+ ")
        return f"f(x) = {head}{more} = {values_text}{more} = {number(total)}"


@dataclass(frozen=True, eq=False)
class DualScore:
    """f(p) = η Σ nᵢ yᵢ K_b(xᵢ, φ(p)) of one state, a level set's score (a drawable's
    `Incremental` score): `since` finds it on a grid from an earlier state's values there
    by the terms that differ, Σ Δnᵢ yᵢ K_b(xᵢ, ·), one Gram column for a step's mistake
    where the whole sum takes one per support vector (what keeps a frame within budget at
    hundreds of support vectors)."""

    learner: KernelPerceptron
    state: KernelState
    features: Any

    def __call__(self, points: FloatArray) -> FloatArray:
        return self.learner.decision(self.state, self.features.transform(points))

    def since(self, earlier: object, points: FloatArray, values: FloatArray) -> FloatArray | None:
        """f at `points` from `earlier`'s values there, or None when `earlier` is not the
        same learner's sum over the same feature map, or when more than half the terms
        differ (the whole sum is then as cheap)."""
        if not (
            isinstance(earlier, DualScore)
            and earlier.learner == self.learner
            and self.features.same_as(earlier.features)
        ):
            return None
        change = _changed_terms(earlier.state, self.state)
        if change is None or change.counts.size > max(1, self.state.counts.size // 2):
            return None
        if not change.counts.size:
            return values.copy()
        return values + self.learner.decision(change, self.features.transform(points))


def _changed_terms(earlier: KernelState, later: KernelState) -> KernelState | None:
    """The terms of `later`'s dual sum minus `earlier`'s, as a state whose sum is the
    difference: each support row and label with its change of count (a negative count
    written as the opposite label); None if the two are not sums over the same space."""
    a, b = earlier.counts.size, later.counts.size
    if not a or not b or earlier.support.shape[1] != later.support.shape[1]:
        return None
    support = np.vstack((earlier.support, later.support))
    labels = np.concatenate((earlier.labels, later.labels))
    keys, first, where = np.unique(_keys(support, labels), return_index=True, return_inverse=True)
    delta = np.zeros(keys.size, dtype=np.int64)
    np.subtract.at(delta, where[:a], earlier.counts)
    np.add.at(delta, where[a:], later.counts)
    changed = np.flatnonzero(delta)
    signs = np.where(delta[changed] > 0, 1, -1).astype(np.int8)
    return KernelState(
        w=np.zeros(0),
        support=support[first[changed]],
        labels=(labels[first[changed]] * signs).astype(np.int8),
        counts=np.abs(delta[changed]),
    )


def _kernel_state(state: State) -> KernelState:
    assert isinstance(state, KernelState)
    return state


def _scaled(values: FloatArray, rate: float) -> FloatArray:
    """rate·values, a nonzero value never rounded to a tie (±5e-324 at least)."""
    with np.errstate(over="ignore", invalid="ignore"):
        result: FloatArray = values * rate
    lost = (result == 0.0) & (values != 0.0)
    if np.any(lost):
        result[lost] = np.copysign(5e-324, values[lost])
    return result


def _keys(X: FloatArray, y: NDArray[Any]) -> NDArray[Any]:
    """Each row with its label as one comparable value (−0.0 read as 0.0)."""
    rows = np.ascontiguousarray(np.column_stack((X + 0.0, y.astype(np.float64))))
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def _rows_of(
    support: FloatArray, labels: NDArray[Any], X: FloatArray, y: NDArray[Any]
) -> NDArray[np.intp]:
    """The first row of X (with label y) equal to each support row, −1 where none is."""
    result = np.full(support.shape[0], -1, dtype=np.intp)
    if not X.shape[0] or not support.shape[0]:
        return result
    current = _keys(X, y)
    order = np.argsort(current, kind="stable")
    ordered = current[order]
    wanted = _keys(support, labels)
    position = np.minimum(np.searchsorted(ordered, wanted), X.shape[0] - 1)
    found = ordered[position] == wanted
    result[found] = order[position[found]]
    return result


def _number(value: float) -> str:
    return "—" if math.isnan(value) else ("∞" if math.isinf(value) else f"{value:.6g}")


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
