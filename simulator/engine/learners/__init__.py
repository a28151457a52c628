"""The learners: one module per family, each class next to its formula in the notes.

`LEARNERS` holds them by name, in the order the window and the command line list them.
A learner is registered explicitly, here, by one line; a plug-in (or a test) registers its
own with `register` the same way, and it reaches `Simulation`, `Settings.parameters`, the
command line, the window, export and sessions with no other edit.

    from simulator.engine.learners import Parameter, register, Perceptron

    @register
    class Nudged(Perceptron):
        name = "nudged"
        title = "Nudged perceptron"
        parameters = (*Perceptron.parameters, Parameter("nudge", "ν", "nudge", 0.5, 0, 1))
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.adaline import ADALINE_FALLBACK_RATE, Adaline, round_down
from simulator.engine.learners.averaged import AveragedPerceptron
from simulator.engine.learners.base import (
    CADENCES,
    LEARNERS,
    TIE_TEXT,
    TIES,
    Bound,
    EpochSteps,
    Learner,
    LinearScorer,
    Parameter,
    Parameters,
    State,
    Step,
    Theory,
    Updates,
)
from simulator.engine.learners.eg import EG
from simulator.engine.learners.kernel import KernelPerceptron
from simulator.engine.learners.linear import LinearLearner
from simulator.engine.learners.margin import MarginPerceptron
from simulator.engine.learners.multiclass import Kessler, MulticlassPerceptron, kessler_points
from simulator.engine.learners.perceptron import LEARNING_RATE, Perceptron
from simulator.engine.learners.pocket import Pocket
from simulator.engine.learners.voted import VotedPerceptron
from simulator.engine.learners.winnow import PROMOTION, BalancedWinnow, Winnow

__all__ = [
    "ADALINE_FALLBACK_RATE",
    "CADENCES",
    "EG",
    "LEARNERS",
    "LEARNING_RATE",
    "PROMOTION",
    "TIES",
    "TIE_TEXT",
    "Adaline",
    "AveragedPerceptron",
    "BalancedWinnow",
    "Bound",
    "EpochSteps",
    "KernelPerceptron",
    "Kessler",
    "Learner",
    "LinearLearner",
    "LinearScorer",
    "MarginPerceptron",
    "MulticlassPerceptron",
    "Parameter",
    "Parameters",
    "Perceptron",
    "Pocket",
    "State",
    "Step",
    "Theory",
    "Updates",
    "VotedPerceptron",
    "Winnow",
    "all_parameters",
    "kessler_points",
    "make_learner",
    "parameter_of",
    "register",
    "round_down",
]


def register(learner: type[Learner]) -> type[Learner]:
    """Make `learner` available by its name everywhere (engine, command line, window,
    export, sessions); returns it, so it can decorate the class."""
    if learner.tie not in TIES:
        raise ValueError(f"{learner.__name__}.tie must be one of {', '.join(TIES)}")
    for parameter in learner.parameters:
        if parameter.default is not None and not (
            parameter.choices and parameter.default in parameter.choices
        ):
            parameter.check(parameter.default)
    LEARNERS[learner.name] = learner
    return learner


register(Perceptron)
register(Winnow)
register(BalancedWinnow)
register(Adaline)
register(Pocket)
register(AveragedPerceptron)
register(MarginPerceptron)
register(EG)
register(VotedPerceptron)
register(KernelPerceptron)
register(MulticlassPerceptron)
register(Kessler)


def make_learner(
    name: str,
    n_features: int,
    *,
    features: NDArray[np.float64] | None = None,
    classes: int = 2,
    **values: Any,
) -> Any:
    """The learner `name` with its parameters (others are ignored); defaults that depend on
    the data (Adaline's η, Winnow's θ) are derived from `features`, a multiclass learner's
    shape from `classes`. The run also says `bias=`, whether its feature vectors begin
    with the constant 1 (a kernel acts on the rest)."""
    if name not in LEARNERS:
        raise ValueError(f"unknown algorithm {name!r:.40}; choose one of {', '.join(LEARNERS)}")
    return LEARNERS[name].build(n_features, features=features, classes=classes, **values)


def parameter_of(algorithm: str, name: str) -> Parameter | None:
    """The declaration that checks parameter `name` of settings for `algorithm`: the
    learner's own, else the first learner's that has one (settings keep the parameters of
    other learners for when they are picked again)."""
    learner = LEARNERS.get(algorithm)
    own = learner.parameter(name) if learner is not None else None
    return own if own is not None else all_parameters().get(name)


def all_parameters() -> dict[str, Parameter]:
    """Every registered learner's parameters by name (one per name: learners that share a
    name share its meaning), in registration order."""
    found: dict[str, Parameter] = {}
    for learner in LEARNERS.values():
        for parameter in learner.parameters:
            found.setdefault(parameter.name, parameter)
    return found
