"""The Winnow lab: why Winnow wins when most features are irrelevant.

The setting of the CMU 15-859(B) notes: boolean examples x ∈ {0, 1}ⁿ labelled +1 iff a
hidden OR of r of the n variables is true. Winnow (α = 2, θ = n, w₀ = 1, + iff w·x ≥ θ)
makes at most 2 + 3r(1 + log₂ n) mistakes, whatever the order of the examples; the
perceptron's guarantee grows with n. `race` runs each rule once over the same stream and
reports its mistakes beside the bound that applies.

Decisions a teacher will notice:

- The stream. Each variable is on independently with probability p = 1 − 2^(−1/r), so
  P(label = +1) = 1 − (1 − p)^r = ½: both classes are equally common for every r and n.
  An example then has about p·n variables on (n = 2048, r = 2: about 600), nearly all of
  them irrelevant, which is the regime the notes describe.
- The hidden variables are drawn from (n, r, seed) alone, the examples after them from the
  same seed: same arguments ⇒ the same stream, and a longer stream starts with the
  shorter one. Variables are numbered from 1 as in the notes (x₅ is column "x5"); the
  dataset's columns keep the names x1…xn, so a saved stream reloads as any CSV, and
  `hidden_disjunction(n, r, seed)` says which variables the target uses.
- The learners. Perceptron with bias (η = 1, w₀ = 0, a score of 0 is a mistake); Winnow
  without bias in the notes' setting; Balanced Winnow with bias (its w = w⁺ − w⁻ can be
  negative, so the constant feature carries the threshold; without it the all-zero example
  could never be called −1). Each sees the examples in order, pass after pass, until a pass
  has no mistake (at most `max_epochs` passes): the mistakes the bounds count. One pass
  (`until_converged=False`) stops a slow learner early: the perceptron's 749 mistakes at
  n = 2048 after one pass of 2,000 examples are 1,427 when it runs to the end, and its
  curve against n bends where the truth is a straight climb.
- The bounds. Winnow: 2 + 3r(1 + log₂ n). Perceptron: Novikoff's R²/γ² with γ the margin of
  the target's own separator u = (−½, 1 on the r relevant variables): every positive
  example has u·x ≥ ½, every negative one u·x = −½, so γ = ½/√(r + ¼) and the bound is
  (4r + 1)·R², R² = 1 + the most variables on in one example. Any separator gives a valid
  bound and this one is instant; it grows with n through R². The best one, R²/γ*², needs
  the exact γ* (`exact=True`), affordable for a few hundred variables.
- Balanced Winnow has no bound here (its guarantee needs a margin of its own form).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from simulator.engine.dataset import Dataset
from simulator.engine.learners import LEARNERS, Learner
from simulator.engine.simulation import Settings, Simulation
from simulator.engine.theory import margin_report_for, monotone_disjunction

__all__ = [
    "LAB_RULES",
    "MAX_CELLS",
    "LabCancelled",
    "LabPlan",
    "LabResult",
    "Race",
    "RaceResult",
    "WeightTrace",
    "consistent_disjunction",
    "disjunction_stream",
    "disjunction_variables",
    "hidden_disjunction",
    "lab_settings",
    "on_probability",
    "race",
    "run_lab",
]

LAB_RULES = ("perceptron", "winnow", "balanced-winnow")
MAX_CELLS = 25_000_000
"""At most this many example × variable cells per stream (8 bytes each, held a few times)."""
MAX_EXAMPLES = 1_000_000

_VARIABLES_KEY = 11  # SeedSequence spawn keys: the hidden variables and the examples
_EXAMPLES_KEY = 12
_ROWS_PER_BLOCK = 512

Progress = Callable[[float, str], None]
ShouldStop = Callable[[], bool]


class LabCancelled(Exception):
    """The lab was asked to stop (`should_stop` returned True)."""


# -- the stream -----------------------------------------------------------------------------------


def on_probability(r: int) -> float:
    """p = 1 − 2^(−1/r): each variable's chance to be on, so that P(label = +1) = ½."""
    return -math.expm1(-math.log(2.0) / r)


def _check_sizes(n: int, r: int, examples: int) -> None:
    for name, value in (("n", n), ("r", r), ("the number of examples", examples)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise ValueError(f"{name} must be a whole number; got {value!r}")
    if r < 1:
        raise ValueError(f"r must be at least 1 relevant variable; got {r}")
    if n < r:
        raise ValueError(f"n = {n} variables cannot hold r = {r} relevant ones (need n ≥ r)")
    if not 1 <= examples <= MAX_EXAMPLES:
        raise ValueError(f"the number of examples must be 1 … {MAX_EXAMPLES:,}; got {examples}")
    if n * examples > MAX_CELLS:
        raise ValueError(
            f"{examples:,} examples of {n:,} variables are {n * examples:,} cells; "
            f"the lab handles at most {MAX_CELLS:,} per stream"
        )


def hidden_disjunction(n: int, r: int, seed: int = 0) -> tuple[int, ...]:
    """The r variables (numbered 1…n, ascending) whose OR labels the stream of (n, r, seed)."""
    _check_sizes(n, r, 1)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_VARIABLES_KEY, n, r)))
    return tuple(sorted(int(v) + 1 for v in rng.choice(n, size=r, replace=False)))


def disjunction_stream(
    n: int,
    r: int,
    examples: int,
    seed: int = 0,
    *,
    variables: Sequence[int] | None = None,
) -> Dataset:
    """`examples` boolean vectors over x1…xn, labelled +1 iff an OR of r of them is true.

    The OR is over `hidden_disjunction(n, r, seed)`, or over `variables` (numbered from 1)
    when given, e.g. (5, 9, 12) for the UNL notes' x₅ ∨ x₉ ∨ x₁₂. Each variable is on with
    probability `on_probability(r)` (to within 2⁻¹⁷); the rows are drawn in order from the
    seed, so a longer stream starts with a shorter one.
    """
    _check_sizes(n, r, examples)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"the seed must be a whole number ≥ 0; got {seed!r}")
    if variables is None:
        relevant = hidden_disjunction(n, r, seed)
    else:
        relevant = tuple(sorted({int(v) for v in variables}))
        if len(relevant) != r or len(relevant) != len(variables):
            raise ValueError(f"need {r} different relevant variables; got {tuple(variables)}")
        if relevant[0] < 1 or relevant[-1] > n:
            raise ValueError(f"variables are numbered 1 … {n}; got {tuple(variables)}")
    # A variable is on when a 16-bit random number falls below round(2¹⁶ p): p to within
    # 2⁻¹⁷, four times quicker to draw than doubles.
    level = round(on_probability(r) * 65536)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_EXAMPLES_KEY, n, r)))
    points = np.empty((examples, n))
    for start in range(0, examples, _ROWS_PER_BLOCK):
        stop = min(examples, start + _ROWS_PER_BLOCK)
        draws = rng.integers(0, 65536, size=(stop - start, n), dtype=np.uint16)
        np.less(draws, level, out=points[start:stop], casting="unsafe")
    columns = [v - 1 for v in relevant]
    labels = np.where(points[:, columns].any(axis=1), 1, -1)
    return Dataset(points, labels)


def consistent_disjunction(dataset: Dataset) -> tuple[int, ...] | None:
    """The largest monotone disjunction the boolean data allow (its variables, from 1), or None.

    A variable can be in the OR only if it is 0 in every negative example; the OR of all
    such variables is consistent iff every positive example has one of them on. (The target
    may be smaller; both give valid bounds, and on a long stream they agree.)
    """
    columns = monotone_disjunction(dataset.points, dataset.labels)
    return None if columns is None else tuple(j + 1 for j in columns)


_last_disjunction: tuple[Dataset, tuple[int, ...] | None] | None = None


def disjunction_variables(dataset: Dataset) -> tuple[int, ...] | None:
    """`consistent_disjunction(dataset)`, remembered for the last dataset asked about.

    A frame is built many times a second over the same (immutable) data; this keeps the
    O(examples × n) check to once per dataset.
    """
    global _last_disjunction
    last = _last_disjunction
    if last is not None and last[0] is dataset:
        return last[1]
    variables = consistent_disjunction(dataset)
    _last_disjunction = (dataset, variables)
    return variables


# -- the race -------------------------------------------------------------------------------------


def _races(name: str) -> bool:
    """Whether the learner `name` can race: two classes, learning from mistakes."""
    learner: Learner = LEARNERS[name].build(1)
    return learner.classes == "two" and learner.cadence == "mistake"


def lab_settings(rule: str) -> Settings:
    """The settings `rule` runs with in the lab (see the module docstring): the constant
    feature where the notes use one (the perceptron and Balanced Winnow need it for the
    OR's threshold; classic Winnow has its own θ = n)."""
    if rule not in LEARNERS or not _races(rule):
        choices = ", ".join(name for name in LEARNERS if _races(name))
        raise ValueError(f"the lab races mistake-driven rules ({choices}); got {rule!r:.40}")
    return Settings(algorithm=rule, bias=LEARNERS[rule].wants_bias)


@dataclass(frozen=True, slots=True)
class WeightTrace:
    """A run's weights at the start (trial 0) and after each mistake.

    `relevant[k]` is the weight of variable `variables[k]` at those trials; the irrelevant
    variables are summarised by their mean, least and greatest weight. For Balanced Winnow
    the weights are w = w⁺ − w⁻; the bias weight is left out. `threshold` is the rule's θ
    (Winnow: n), for drawing.
    """

    trials: tuple[int, ...]
    variables: tuple[int, ...]
    relevant: tuple[tuple[float, ...], ...]
    irrelevant_mean: tuple[float, ...]
    irrelevant_min: tuple[float, ...]
    irrelevant_max: tuple[float, ...]
    threshold: float


@dataclass(frozen=True, slots=True)
class RaceResult:
    """One rule's run over a stream: its mistakes, and the bound that applies to them.

    `bound` is None where no bound applies; `exact_bound` is R²/γ*² (perceptron, when
    asked for). `mistake_trials` are the trials (from 1) on which it erred.
    """

    rule: str
    title: str
    n: int
    relevant: int | None
    trials: int
    mistakes: int
    mistake_trials: tuple[int, ...]
    converged: bool
    bound: float | None
    bound_formula: str | None
    exact_bound: float | None = None
    trace: WeightTrace | None = None


def _bound(sim: Simulation, variables: tuple[int, ...] | None) -> tuple[float | None, str | None]:
    """The bound on this run's mistakes for an OR of `variables` (the learner says which
    applies: `Learner.disjunction_bound`)."""
    if variables is None:
        return None, None
    bound = sim.learner.disjunction_bound(len(variables), sim.theory())
    return (None, None) if bound is None else (bound.value, bound.formula)


def _trace_point(
    weights: NDArray[np.float64], relevant: NDArray[np.bool_]
) -> tuple[list[float], float, float, float]:
    irrelevant = weights[~relevant]
    if irrelevant.size == 0:
        return weights[relevant].tolist(), math.nan, math.nan, math.nan
    return (
        weights[relevant].tolist(),
        float(irrelevant.mean()),
        float(irrelevant.min()),
        float(irrelevant.max()),
    )


def _run_one(
    sim: Simulation,
    limit: int,
    until_converged: bool,
    relevant_mask: NDArray[np.bool_] | None,
    should_stop: ShouldStop | None,
    tick: Callable[[], None],
) -> tuple[list[int], WeightTrace | None]:
    """Run `sim` to `limit` trials (or convergence); its mistake trials, and with a mask of
    the relevant variables its weights after each mistake (it then stops at each one)."""
    bias = 1 if sim.features.bias else 0
    trace: list[tuple[int, tuple[list[float], float, float, float]]] = []
    if relevant_mask is not None:
        trace.append((0, _trace_point(sim.weights[bias:], relevant_mask)))
    while sim.trials < limit and not (until_converged and (sim.converged or sim.diverged)):
        if should_stop is not None and should_stop():
            raise LabCancelled
        before = sim.mistakes
        sim.run(
            limit - sim.trials,
            until_converged=until_converged,
            stop_on_mistake=relevant_mask is not None,
            budget_seconds=0.05,  # answer a cancel soon; the trajectory does not depend on it
        )
        if relevant_mask is not None and sim.mistakes > before:
            trace.append((sim.trials, _trace_point(sim.weights[bias:], relevant_mask)))
        tick()
    mistake_trials = sim.mistake_trials()[: sim.mistakes].tolist()
    if relevant_mask is None:
        return mistake_trials, None
    variables = tuple(int(j) + 1 for j in np.flatnonzero(relevant_mask))
    columns = list(zip(*(point[0] for _, point in trace), strict=True)) if variables else []
    return mistake_trials, WeightTrace(
        trials=tuple(t for t, _ in trace),
        variables=variables,
        relevant=tuple(tuple(c) for c in columns),
        irrelevant_mean=tuple(point[1] for _, point in trace),
        irrelevant_min=tuple(point[2] for _, point in trace),
        irrelevant_max=tuple(point[3] for _, point in trace),
        threshold=sim.threshold,
    )


def race(
    dataset: Dataset,
    rules: Sequence[str] = LAB_RULES,
    *,
    variables: Sequence[int] | None = None,
    until_converged: bool = False,
    max_epochs: int = 100,
    exact: bool = False,
    trace: bool = False,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> tuple[RaceResult, ...]:
    """Run each rule over the same stream and report its mistakes and its bound.

    One pass over the examples in order (the notes' online setting, step by step); with
    `until_converged`, passes until one has no mistake (at most `max_epochs`), as a
    `LabPlan` does by default. `variables` are the target's (numbered from 1);
    by default the largest disjunction consistent with the data. `exact` adds R²/γ*²
    for the perceptron; `trace` keeps the weights after each mistake. `progress(fraction,
    text)` is told as the work goes; `should_stop()` is asked between mistakes, and True
    raises LabCancelled.
    """
    if not len(dataset):
        raise ValueError("the race needs at least one example")
    if max_epochs < 1:
        raise ValueError(f"max_epochs must be at least 1; got {max_epochs}")
    settings = [lab_settings(rule) for rule in rules]
    targets = _targets(dataset, variables)
    mask = None
    if trace:
        mask = np.zeros(dataset.dimension, dtype=bool)
        if targets is not None:
            mask[[v - 1 for v in targets]] = True
    limit = (max_epochs if until_converged else 1) * len(dataset)
    results = []
    for k, setting in enumerate(settings):
        sim = Simulation.from_settings(dataset, setting)
        title = sim.rule.title

        def tick(k: int = k, sim: Simulation = sim, title: str = title) -> None:
            if progress is not None:
                done = min(1.0, sim.trials / limit) if not sim.converged else 1.0
                progress((k + done) / len(settings), f"{title}: trial {sim.trials:,}")

        run = _run_one(sim, limit, until_converged, mask, should_stop, tick)
        results.append(_result(sim, setting.algorithm, title, targets, run, exact))
    return tuple(results)


def _targets(dataset: Dataset, variables: Sequence[int] | None) -> tuple[int, ...] | None:
    """The target's variables (numbered from 1), checked; by default the largest
    disjunction consistent with the data (None if there is none)."""
    if variables is None:
        return consistent_disjunction(dataset)
    n = dataset.dimension
    targets = tuple(sorted({int(v) for v in variables}))
    if not targets or targets[0] < 1 or targets[-1] > n:
        raise ValueError(f"the relevant variables are numbered 1 … {n}; got {variables}")
    return targets


def _result(
    sim: Simulation,
    rule: str,
    title: str,
    targets: tuple[int, ...] | None,
    run: tuple[list[int], WeightTrace | None],
    exact: bool,
) -> RaceResult:
    """`sim`'s finished run (`run`: `_run_one`'s mistake trials and trace) as the race
    reports it: its mistakes, its bound for an OR of `targets`, and with `exact` the
    perceptron's R²/γ*² (where that bound applies)."""
    mistake_trials, weights = run
    bound, formula = _bound(sim, targets)
    exact_bound = None
    own = sim.bound if exact else None
    if own is not None and own.proof and not own.general:
        # Proved exactly at every n (the window's γ* beyond 16 features is a checked
        # float): seconds in hundreds of dimensions, minutes in thousands.
        Z, labels = sim.learner.theory_rows(sim.feature_matrix, sim.dataset.labels)
        exact_bound = margin_report_for(Z, labels, exact=True).bound
    return RaceResult(
        rule=rule,
        title=title,
        n=sim.dataset.dimension,
        relevant=None if targets is None else len(targets),
        trials=sim.trials,
        mistakes=sim.mistakes,
        mistake_trials=tuple(mistake_trials),
        converged=sim.converged,
        bound=bound,
        bound_formula=formula,
        exact_bound=exact_bound,
        trace=weights,
    )


# -- a whole lab: several n ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LabPlan:
    """What to race: streams of `examples` examples over each n in `sizes`, r relevant.

    With `trace` every run keeps its weights after each mistake (the window draws them).
    """

    sizes: tuple[int, ...]
    relevant: int
    examples: int
    seed: int = 0
    rules: tuple[str, ...] = LAB_RULES
    until_converged: bool = True  # one pass stops a slow learner early (module docstring)
    max_epochs: int = 100
    exact: bool = False
    trace: bool = False

    def __post_init__(self) -> None:
        if not self.sizes:
            raise ValueError("give at least one n")
        if len(set(self.sizes)) != len(self.sizes):
            raise ValueError(f"each n once, please; got {', '.join(map(str, self.sizes))}")
        for n in self.sizes:
            _check_sizes(n, self.relevant, self.examples)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"the seed must be a whole number ≥ 0; got {self.seed!r}")
        if not self.rules:
            raise ValueError("race at least one rule")
        for rule in self.rules:
            lab_settings(rule)
        if len(set(self.rules)) != len(self.rules):
            raise ValueError("each rule once, please")
        if not 1 <= self.max_epochs <= 10_000:
            raise ValueError(f"max_epochs must be 1 … 10000; got {self.max_epochs}")

    def stream(self, n: int) -> Dataset:
        return disjunction_stream(n, self.relevant, self.examples, self.seed)

    def variables(self, n: int) -> tuple[int, ...]:
        return hidden_disjunction(n, self.relevant, self.seed)

    def cost(self, n: int) -> float:
        """Rough work for one n (examples × n cells), to weigh the progress bar."""
        return float(self.examples) * (n + 64)


@dataclass(frozen=True, slots=True)
class Race:
    """The results of one n: its hidden variables and each rule's run."""

    n: int
    variables: tuple[int, ...]
    results: tuple[RaceResult, ...]
    seconds: float = field(default=0.0, compare=False)

    def result(self, rule: str) -> RaceResult | None:
        return next((r for r in self.results if r.rule == rule), None)


@dataclass(frozen=True, slots=True)
class LabResult:
    """A whole lab: one `Race` per n, in the plan's order."""

    plan: LabPlan
    races: tuple[Race, ...]

    def race(self, n: int) -> Race | None:
        return next((r for r in self.races if r.n == n), None)

    def rows(self) -> list[tuple[int, str, int, float | None, float | None]]:
        """(n, rule, mistakes, bound, exact bound), the CSV's rows."""
        return [
            (race.n, r.rule, r.mistakes, r.bound, r.exact_bound)
            for race in self.races
            for r in race.results
        ]


def run_lab(
    plan: LabPlan,
    *,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
    on_race: Callable[[Race, Dataset], None] | None = None,
) -> LabResult:
    """Generate each n's stream and race the plan's rules over it.

    `on_race(race, stream)` is called as each n finishes (to save the stream, draw, report).
    """
    total = sum(plan.cost(n) for n in plan.sizes)
    done = 0.0
    races = []
    for n in plan.sizes:
        if should_stop is not None and should_stop():
            raise LabCancelled
        start = time.perf_counter()
        weight = plan.cost(n)

        def told(
            fraction: float, text: str, n: int = n, base: float = done, w: float = weight
        ) -> None:
            if progress is not None:
                progress((base + 0.1 * w + 0.9 * w * fraction) / total, f"n = {n:,}: {text}")

        told(0.0, f"drawing {plan.examples:,} examples")
        stream = plan.stream(n)
        variables = plan.variables(n)
        results = race(
            stream,
            plan.rules,
            variables=variables,
            until_converged=plan.until_converged,
            max_epochs=plan.max_epochs,
            exact=plan.exact,
            trace=plan.trace,
            progress=told,
            should_stop=should_stop,
        )
        finished = Race(n, variables, results, seconds=time.perf_counter() - start)
        races.append(finished)
        done += weight
        if on_race is not None:
            on_race(finished, stream)
    if progress is not None:
        progress(1.0, "done")
    return LabResult(plan, tuple(races))
