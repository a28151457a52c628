"""Settings that must not reach the engine: `settings_problem` says why, in one line.

The controller refuses them with one dialog (its `refused` signal), and saved preferences
that hold them are not read back. Checked here: each parameter by its learner's
declaration, the tolerance, the seed and a custom w₀; what depends on the data (w₀'s
length) is the engine's to check.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from simulator.engine import Settings
from simulator.engine.learners import parameter_of
from simulator.engine.simulation import MAX_SEED

__all__ = ["settings_problem"]


def settings_problem(settings: Settings) -> str | None:
    """Why `settings` must not reach the engine, or None if they may.

    Every parameter is checked by its declaration (a NaN α would pass a perceptron run
    unnoticed and fail the switch to Winnow, or the session file), the tolerance a finite
    number, the seed a whole number within 0 … MAX_SEED (the seed box's range), a custom
    w₀ finite numbers. w₀'s length is the engine's to check.
    """
    for name, value in settings.parameters.items():
        parameter = parameter_of(settings.algorithm, name)
        if parameter is None:
            return f"no learner has a parameter {name!r:.40}"
        try:
            parameter.check(value)
        except ValueError as exc:
            return str(exc)
    tolerance = settings.tolerance
    if isinstance(tolerance, bool) or not isinstance(tolerance, Real):
        return f"the tolerance must be a number; got {tolerance!r:.40}"
    if not math.isfinite(tolerance):
        return f"the tolerance must be a finite number; got {tolerance!r:.40}"
    seed = settings.seed
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed <= MAX_SEED:
        return f"the seed must be a whole number from 0 to {MAX_SEED}; got {seed!r}"
    initial = settings.initial_weights
    if initial is not None and not isinstance(initial, str) and not _finite_numbers(initial):
        return f"the start w₀ must be finite numbers; got {initial!r}"
    return None


def _finite_numbers(values: object) -> bool:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return False
    return array.dtype.kind == "f" and bool(np.all(np.isfinite(array)))
