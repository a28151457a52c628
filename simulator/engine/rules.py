"""The round-2 names of the update rules, kept working: the learners now live in
`simulator.engine.learners` (one module per family) and the exact arithmetic in
`simulator.engine.learners.exact`. New code imports from there."""

from simulator.engine.learners import (
    ADALINE_FALLBACK_RATE,
    LEARNERS,
    LEARNING_RATE,
    PROMOTION,
    TIE_TEXT,
    TIES,
    Adaline,
    BalancedWinnow,
    Learner,
    Parameter,
    Perceptron,
    Winnow,
    make_learner,
    register,
    round_down,
)
from simulator.engine.learners.exact import (
    UNIT_ROUNDOFF,
    compiled,
    dot2_rows,
    dot_rows,
    numpy_dot_rows,
    refine_bounds,
    refine_coefficients,
    refine_theta,
    squared_error,
    tie_terms,
    written_exactly,
)

__all__ = [
    "ADALINE_FALLBACK_RATE",
    "ALGORITHMS",
    "LEARNING_RATE",
    "PROMOTION",
    "TIES",
    "TIE_TEXT",
    "UNIT_ROUNDOFF",
    "Adaline",
    "BalancedWinnow",
    "Parameter",
    "Perceptron",
    "Rule",
    "Winnow",
    "compiled",
    "dot2_rows",
    "dot_rows",
    "make_rule",
    "numpy_dot_rows",
    "refine_bounds",
    "refine_coefficients",
    "refine_theta",
    "register",
    "round_down",
    "squared_error",
    "tie_terms",
    "written_exactly",
]

ALGORITHMS = LEARNERS
Rule = Learner
make_rule = make_learner
