"""The learner protocol: what every online learner says about itself, and the records it
hands the run.

A learner is a frozen object holding its parameters; it never holds the run's state. The
run (`Simulation`) keeps a `State` per trial and asks the learner for everything that
differs between learners:

- its parameters (`Parameter`, checked in one place, read by `Settings`, the command line,
  the window and sessions) and its default tie rule;
- when it learns (`cadence`: on mistakes, on every trial, or once per epoch);
- how it scores (`scorer`, the linear fast path, or `signed_scores`) and, where floats
  cannot decide, the exact verdict (`exact_signed`);
- how it learns (`learn`, `end_epoch`), when it stops (`refuse`, `epoch_divergence`),
  when it has converged (`settled`);
- its theory (`bound`, an object with value, formula and whose bound it is), its
  explanation (`explain_*`) and what it draws (`drawables`).

A new learner is one module with one class and one `register` line in `__init__`. Its
`parameters` reach `Settings.parameters`, `--NAME` on the command line, the window's boxes
and sessions with no other edit.

Labels are classes: ±1 for the two-class learners (the binary view), 0 … K−1 for the
multiclass ones (`classes = "many"`). `y` below is the label as the learner sees it.

The parameter declarations live in `parameters`, the records a learner and the run
exchange (`State`, `Step`, `Bound`, `Theory`, …) in `records`; both are importable from
here as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator.engine.learners.exact import ExactSum, written, written_exactly
from simulator.engine.learners.parameters import Parameter, Parameters
from simulator.engine.learners.records import (
    Bound,
    EpochSteps,
    LinearScorer,
    State,
    Step,
    Theory,
    Updates,
)

__all__ = [
    "CADENCES",
    "LEARNERS",
    "TIES",
    "TIE_TEXT",
    "Bound",
    "EpochSteps",
    "Learner",
    "LinearScorer",
    "Parameter",
    "Parameters",
    "State",
    "Step",
    "Theory",
    "Updates",
]

FloatArray = NDArray[np.float64]
Formatter = Callable[[float], str]

TIES = ("mistake", "positive", "negative")
"""What a score s = 0 means: undecided, a mistake whatever y (the perceptron's y·s <= 0);
+1 (Winnow's "+ iff w·x >= θ"); or -1 ("+ iff w·x > 0")."""

TIE_TEXT = {
    "mistake": "undecided (a mistake whatever y)",
    "positive": "predicts +1 (+ iff s ≥ 0)",
    "negative": "predicts −1 (+ iff s > 0)",
}
"""What a tie (s = 0) predicts under each tie rule, in words for the explanation."""

CADENCES = ("mistake", "trial", "epoch")

LEARNERS: dict[str, type[Learner]] = {}
"""The learners by name, in the order the window and the command line list them (filled by
`simulator.engine.learners.register`)."""
"""When a learner learns: after a mistake, after every trial, or at the end of an epoch."""


# -- the learner ----------------------------------------------------------------------------


class Learner:
    """Base of every learner; see the module docstring for the protocol.

    Class attributes a learner sets: `name` (its key, `--algorithm NAME`), `title`,
    `parameters`, `tie` (its default tie rule), `cadence`, `classes` ("two" or "many"),
    `start_text` (w₀ in words), the formulas the explanation prints (`score_formula`,
    `update_formula`), `companions` (the roles of its second weight vectors), and what
    theory is shown beside it (`shows_margin`: γ*, R and R²/γ*² mean something for it;
    `least_squares`: w_LS and the stable η do).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    source: ClassVar[str] = ""  # where the notes teach it
    tie: ClassVar[str] = "mistake"
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    cadence: ClassVar[str] = "mistake"
    classes: ClassVar[str] = "two"
    start_text: ClassVar[str] = "0"
    score_formula: ClassVar[str] = "s = w·x"
    update_formula: ClassVar[str] = ""
    companions: ClassVar[tuple[str, ...]] = ()
    roles: ClassVar[tuple[str, ...]] = ("boundary", "previous")  # what it draws, by role
    # The theory's names on screen, and where it lives: γ* and R of the feature vectors, or
    # a learner's own rows (Kessler's vectors: γ_K, R_K).
    symbols: ClassVar[tuple[str, str]] = ("γ*", "R")
    theory_space: ClassVar[str] = "feature space"
    # The vector of a trial in that space, as the proof writes it (a mistake adds η·y·it).
    proof_vector: ClassVar[str] = "x"
    # What the weights shown as "w" are, when they are not what scores a point (a kernel's).
    weights_name: ClassVar[str] = "w"
    # The lines the strip under an exported frame takes for a trial: its point, its score
    # and verdict, its update (a kernel's sum of terms wraps onto a fourth).
    explain_lines: ClassVar[int] = 3
    # Whether γ*'s separator u*, its band and R live in the plane's feature space (then they
    # are drawn, and w's margin compares with γ*); not so for a kernel's or Kessler's space.
    theory_in_plane: ClassVar[bool] = True
    curved: ClassVar[bool] = False  # its boundary is a curve even on linear features
    shows_margin: ClassVar[bool] = True
    least_squares: ClassVar[bool] = False
    exact: ClassVar[bool] = False  # verdicts follow exact arithmetic (a shadow is kept)
    wants_bias: ClassVar[bool] = True  # the notes run it with the constant feature 1
    bound_formula: ClassVar[str | None] = None
    threshold: float = 0.0

    def __init__(self, **values: Any) -> None:
        for p in self.parameters:
            value = values.get(p.name)
            object.__setattr__(self, p.name, p.default if value is None else p.check(value))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            self.value(p.name) == other.value(p.name) for p in self.parameters
        )

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.value(p.name) for p in self.parameters)))

    # -- construction -------------------------------------------------------------------

    @classmethod
    def build(
        cls, n_features: int, *, features: FloatArray | None = None, classes: int = 2,
        **values: Any,
    ) -> Any:  # fmt: skip
        """This learner with `values` (None: the default), checked; others are ignored.
        `features` (the feature matrix) is there for defaults derived from the data,
        `classes` for the multiclass learners' shape."""
        return cls(**{p.name: values.get(p.name) for p in cls.parameters})

    def training_rows(self, X: FloatArray, labels: NDArray[np.int8]) -> Any:
        """The rows it learns from, when they are not the points' feature vectors (Kessler's
        vectors): an object with X, y, points (the point of each row) and digits(point's
        exact row, r); None: the points themselves."""
        return None

    def theory_rows(self, X: FloatArray, labels: NDArray[np.int8]) -> tuple[FloatArray, Any]:
        """The vectors and ±1 labels whose γ*, R and R²/γ*² bound it (its training rows)."""
        return X, labels

    def proof_weights(
        self, state: State, X: FloatArray, labels: NDArray[Any], rows: FloatArray
    ) -> FloatArray:
        """w of `state` as a vector of the space of its theory rows `rows` (made from its
        training rows X with `labels`), where γ*'s separator u* lives, for Novikoff's proof
        (w·u*, ‖w‖²): by default its weights, a K-class W's rows one after another."""
        return np.asarray(self.weights(state), dtype=np.float64).ravel()

    def theory_key(self) -> Any:
        """What its `theory_rows` depend on besides the data (a run's γ*, R and R²/γ*² carry
        over to a run of the same data in the same space): by default, which method makes
        them; a learner whose rows depend on its parameters adds those."""
        return type(self).theory_rows

    @classmethod
    def parameter(cls, name: str) -> Parameter | None:
        return next((p for p in cls.parameters if p.name == name), None)

    def value(self, name: str) -> Any:
        """The value this learner uses for its parameter `name` (derived defaults too)."""
        return getattr(self, name)

    @property
    def values(self) -> dict[str, Any]:
        return {p.name: self.value(p.name) for p in self.parameters}

    def describe(self) -> str:
        """The parameters as the notes write them, for titles and reports."""
        parts = []
        for p in self.parameters:
            v = self.value(p.name)
            parts.append(f"{p.symbol} = {v:g}" if isinstance(v, float | int) else str(v))
        return ", ".join(parts)

    def refuse_classes(self, count: int) -> str | None:
        """Why this learner cannot learn data with `count` classes (None: it can)."""
        if self.classes == "two" and count > 2:
            many = [f"{c.name}" for c in LEARNERS.values() if c.classes == "many"]
            return f"{self.title} learns two classes; these data have {count}. Use " + (
                " or ".join(many) if many else "a multiclass learner"
            )
        return None

    def class_indices(self, labels: NDArray[np.int8]) -> NDArray[np.int8]:
        """The labels as this learner learns them: a two-class learner takes ±1 as they are;
        a multiclass learner takes class indices, so two classes' −1, +1 become 0, 1 (the
        order of `Dataset.classes`, as `Dataset.with_classes` numbers them)."""
        if self.classes == "many" and labels.size and labels.min() < 0:
            return (labels > 0).astype(np.int8)
        return labels

    # -- state ---------------------------------------------------------------------------

    def state_shape(self, n_features: int) -> tuple[int, ...]:
        return (n_features,)

    def default_weights(self, n_features: int) -> FloatArray:
        return np.zeros(self.state_shape(n_features))

    def random_weights(self, n_features: int, rng: np.random.Generator) -> FloatArray:
        """Seeded random start: uniform in [-1, 1]."""
        return rng.uniform(-1.0, 1.0, size=self.state_shape(n_features))

    def check_weights(self, w: FloatArray) -> None:
        """Raise ValueError if `w` is not a valid start for this learner: a weight beyond
        ±1e150 would have overflowed already (`linear.OVERFLOW`), so it is no start."""
        if not np.all(np.isfinite(w)):
            raise ValueError("initial weights must be finite numbers")
        if not np.all(np.abs(w) <= 1e150):
            raise ValueError("initial weights must be within ±1e150 (beyond, they overflow)")

    def start_weights(
        self, n_features: int, initial_weights: str | ArrayLike | None, rng: np.random.Generator
    ) -> FloatArray:
        """w₀: the learner's default, "zeros", "ones", "random", or the numbers given."""
        shape = self.state_shape(n_features)
        if initial_weights is None or (
            isinstance(initial_weights, str) and initial_weights == "default"
        ):
            w = self.default_weights(n_features)
        elif isinstance(initial_weights, str):
            named = {"zeros": np.zeros, "ones": np.ones}
            if initial_weights in named:
                w = named[initial_weights](shape)
            elif initial_weights == "random":
                w = self.random_weights(n_features, rng)
            else:
                raise ValueError(
                    f"unknown initial weights {initial_weights!r:.40}; use 'zeros', 'ones', "
                    "'random' or a list of numbers"
                )
        else:
            w = self._given_weights(initial_weights, shape, n_features)
        self.check_weights(w)
        return w

    def _given_weights(
        self, values: ArrayLike, shape: tuple[int, ...], n_features: int
    ) -> FloatArray:
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                w = np.array(values, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise ValueError("initial weights must be numbers") from None
        if w.shape != shape and w.size == math.prod(shape) and w.ndim == 1:
            w = w.reshape(shape)  # (w⁺, w⁻) or one row per class, one after the other
        if w.shape != shape:
            raise ValueError(
                f"{self.title} needs initial weights of shape {shape} "
                f"({n_features} features); got shape {w.shape}"
            )
        return w

    def initial_state(self, w: FloatArray, given: bool) -> State:
        """The state before trial 1, from w₀ (`given`: typed by a person, so rounded once)."""
        w = _frozen(np.array(w, dtype=np.float64))
        if not self.exact:
            return State(w=w)
        error = _frozen(self.initial_error(w, given))
        return State(w=w, error=error, start=tuple(written(v) for v in w.ravel().tolist()))

    # -- the exact state (see simulator.engine.verdicts) ---------------------------------------

    def shadow_columns(self) -> int:
        """How many update counts a row keeps (one per class for the multiclass learners)."""
        return 1

    def increments(self, state: State, step: Step) -> tuple[tuple[int, int], ...]:
        """What an update on `step`'s row adds to its counts, (column, amount) each: y for a
        two-class learner (each update adds unit·y·x to the exact state); the multiclass
        perceptron adds +1 to the true class's column and −1 to the runner-up's."""
        return ((0, step.y),)

    def shadow_unit(self) -> tuple[int, int] | None:
        """The exact decimal u of an update, which adds u·c·x of the trial's row to column c's
        block of the exact state, c its count (η for the perceptron, 1 for Winnow's
        exponents); None: no exact state."""
        return None

    def exact_state(self, state: State) -> ExactSum | None:
        """The exact state of `state` from its floats, when they carry no error (so are
        exact themselves); None otherwise."""
        return None

    def exact_weights(self, exact: ExactSum) -> tuple[Fraction, ...] | None:
        """The weights, exactly, from the exact state (None: the exact state is not the
        weights themselves, e.g. Winnow's exponents)."""
        return None

    def start_shadow(self, state: State) -> ExactSum | None:
        """The exact state of the start w₀ as written (decimals binary cannot hold)."""
        return None

    @staticmethod
    def initial_error(w: FloatArray, given: bool) -> FloatArray:
        """The error bound of w₀: u|w₀| for numbers typed in decimals (rounded once; 0 for
        those `written_exactly`), 0 for the defaults, "ones", "zeros" and "random"."""
        if not given:
            return np.zeros_like(w)
        return np.where(written_exactly(w), 0.0, 2.0**-53 * np.abs(w))

    def weights(self, state: State) -> FloatArray:
        """The effective w (D,) or (K, D): the boundary is w·x = θ."""
        return state.w

    def state_after(self, state: State, trials: int) -> State:
        """`state`, kept as its last update left it, as it stands after `trials` trials (a
        running sum brought up to date); the same state for most learners."""
        return state

    # -- scoring ---------------------------------------------------------------------------

    def scorer(self, state: State) -> LinearScorer | None:
        """The linear fast path's view of `state` (None: score with `signed_scores`)."""
        return None

    def signed_scores(
        self, state: State, X: FloatArray, y: NDArray[np.int8]
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """(v, certain) for every row: v > 0 right, v < 0 wrong, v = 0 a tie (the run's tie
        rule decides), NaN overflowed; `certain` False where floats could not decide."""
        raise NotImplementedError

    def exact_float_signed(self, state: State, x: FloatArray, y: int) -> float | None:
        """v exactly from the floats, where they are exact (None: use `exact_signed`)."""
        return None

    def exact_signed(
        self, state: State, exact: ExactSum, digits: tuple[tuple[int, int, int], ...], y: int
    ) -> float | None:
        """v decided in exact arithmetic on the data as written (`digits`: the row; `exact`:
        the exact state), for a score floats could not decide: a float with the exact sign
        (0.0: an exact tie), or None where exactness cannot be had."""
        return None

    def decision(self, state: State, X: FloatArray, *, trials: int = 0) -> FloatArray:
        """The scores of rows X: (m,) for two classes, (m, K) for K, by the learner's own
        prediction rule (`predict` takes their sign or argmax)."""
        raise NotImplementedError

    def predict(
        self, state: State, X: FloatArray, tie: str, *, trials: int = 0
    ) -> NDArray[np.int64]:
        """The labels the learner predicts for rows X (±1, or 0 … K−1), ties by `tie`;
        `trials`: how many trials the state has seen (an average over them needs it)."""
        scores = self.decision(state, X, trials=trials)
        if scores.ndim == 2:
            best: NDArray[np.int64] = np.argmax(scores, axis=1).astype(np.int64)
            return best
        tie_label = {"mistake": 0, "positive": 1, "negative": -1}[tie]
        return np.where(scores > 0, 1, np.where(scores < 0, -1, tie_label)).astype(np.int64)

    def companion(self, state: State, role: str, *, trials: int = 0) -> FloatArray:
        """A second weight vector of the learner (`companions` names its roles)."""
        raise KeyError(
            f"{self.title} keeps no {role!r} weights (it has: "
            f"{', '.join(self.companions) or 'none'})"
        )

    def votes(self, state: State) -> tuple[FloatArray, NDArray[np.int64]]:
        """(vectors (m, D), counts (m,)): the voted perceptron's; others hold one vote, w."""
        w = self.weights(state)
        return w.reshape(1, -1), np.ones(1, dtype=np.int64)

    def dual(
        self, state: State, X: FloatArray | None = None, y: NDArray[Any] | None = None
    ) -> FloatArray | None:
        """α (n,): the kernel perceptron's dual coefficients over the rows X with labels y
        (the current points; None for the other learners)."""
        return None

    def numbers(self, state: State, theory: Theory, trials: int) -> tuple[tuple[str, str], ...]:
        """Its own numbers for the side panel, (label, value) each (the pocket's training
        errors, w̄'s, the number of voting vectors…): none by default."""
        return ()

    # -- learning --------------------------------------------------------------------------

    def learn(self, state: State, step: Step) -> State:
        """The state after trial `step` (called after mistakes, or every trial, by
        `cadence`)."""
        raise NotImplementedError

    def take_compiled(self, state: State, updates: Updates) -> tuple[State, State]:
        """(the state after `updates`, the state before the last of them), which the
        compiled loop (`compiled_family`) made from `state`: its weights and error bounds,
        and whatever more the learner keeps, brought along."""
        return (
            state.but(w=updates.w, error=updates.error),
            state.but(w=updates.w_before, error=updates.error_before),
        )

    def compiled_family(self) -> tuple[int, float] | tuple[int, float, float] | None:
        """(family, rate[, scale]) when its update is one the compiled loop makes itself (1:
        w += η y x; 2: w *= α^(y x); 3: both halves of Balanced Winnow; 4: EG±, rate 2ηU,
        scale U), the same bits as `learn`; None: the run calls `learn`."""
        return None

    def end_epoch(self, state: State, steps: EpochSteps) -> State | None:
        """The state after the epoch that `steps` completed (cadence "epoch"; None: no
        change)."""
        return None

    def refuse(self, state: State) -> str | None:
        """Why the run cannot go on from `state` (its weights overflowed or died), or None."""
        return None

    def epoch_divergence(self, loss: float, smallest: float) -> bool:
        """Whether an epoch's loss says the learner diverged (Adaline: a millionfold growth)."""
        return False

    def settled(self, start: State, end: State, updates: int, tolerance: float) -> bool:
        """Whether an epoch from `start` to `end` with `updates` updates leaves it converged:
        no update, for a learner driven by mistakes."""
        return updates == 0

    def margin_offset(self) -> float:
        """τ of a learner that updates when y·s <= τ (0: on mistakes)."""
        return 0.0

    overflow_word: ClassVar[str] = "overflowed"  # what its weights did past 1e150

    def divergence_advice(self, features: FloatArray) -> str:
        """What to try when its weights overflowed on these data."""
        return "try standardized or unit-length features"

    @property
    def mistake_driven(self) -> bool:
        """Whether it learns only from mistakes (the round-2 name of cadence "mistake")."""
        return self.cadence == "mistake"

    @property
    def moves_on_mistakes_only(self) -> bool:
        """Whether w changes on mistakes and nowhere else, so that w after each mistake is
        its whole path (the proof chart and the weights chart follow it): the learners
        driven by mistakes, and the voted perceptron, whose v does (its counts grow on
        every trial)."""
        return self.mistake_driven

    def loss(self, state: State, X: FloatArray, y: NDArray[np.int8]) -> float:
        """The epoch's loss for the charts: the mean squared error of the scores."""
        return math.nan

    # -- theory, words and drawings ----------------------------------------------------------

    def bound(self, theory: Theory) -> Bound | None:
        """The mistake bound that applies to this run on these data, or None."""
        return None

    def disjunction_bound(self, relevant: int, theory: Theory) -> Bound | None:
        """Its bound on boolean data labelled by an OR of `relevant` variables (the Winnow
        lab), or None."""
        return None

    def drawables(self, state: State, features: Any, role: str = "boundary") -> tuple[Any, ...]:
        """What it draws in the plane for `state` (see `simulator.engine.drawables`): its
        boundary under `role` ("previous" for the state before an update), and the lines of
        its companions. `features` is the run's `FeatureMap`."""
        return ()

    def explain_input(self, trial: Any, dataset: Any, vector: Callable[..., str]) -> str:
        """The trial's input as the strip writes it, e.g. "x = (1, 0.5, 2)"."""
        return f"x = ({vector(trial.x)})"

    def explain_verdict(self, trial: Any, dataset: Any) -> str | None:
        """The verdict of a trial that is not a tie, when this learner's is not the sign
        or class it predicts (None: that one)."""
        return None

    def explain_terms(
        self, trial: Any, rows: FloatArray, labels: NDArray[Any], number: Formatter
    ) -> str | None:
        """The trial's score written with its terms, for a learner whose score is a sum over
        the data (the kernel perceptron's f(x) = Σ αᵢ yᵢ K(xᵢ, x)); `rows` and `labels`: the
        run's feature vectors and labels, to number the terms. None: `explain_score` says it."""
        return None

    def explain_score(self, trial: Any, number: Formatter) -> str:
        """The score of a trial as the notes write it, e.g. "s = w·x = 0.5"."""
        return f"{self.score_formula} = {number(trial.score)}"

    def explain_update(self, trial: Any, number: Formatter, vector: Callable[..., str]) -> str:
        """The update of a trial that changed w, as arithmetic a student can check."""
        before, after = vector(trial.weights_before), vector(trial.weights_after)
        return f"{self.update_formula}: ({before}) → ({after})."

    def explain_no_update(self, trial: Any, vector: Callable[..., str]) -> str | None:
        """Why a trial did not change w, when that is the learner's normal behaviour
        (`vector` writes a vector as the strip does)."""
        return None

    def explain_stop(self, converged_at: int) -> str:
        """What "converged" means for this learner, for the status line."""
        return f"Converged at trial {converged_at}: a whole epoch without an update."


def _frozen(array: FloatArray) -> FloatArray:
    array.setflags(write=False)
    return array
