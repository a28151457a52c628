"""Numbers as the panel, the strip, the ledger, the charts and export write them: one
formatter, so the same number reads the same everywhere.

Values are plain numbers a test (or a student) can parse: at least 4 significant digits,
∞ where unbounded, — where undefined.
"""

from __future__ import annotations

import math
import sys
from typing import Any

__all__ = ["OVERFLOWED", "bound_formula", "format_bound", "format_number", "format_vector"]


def format_number(value: float | None, digits: int = 6) -> str:
    """A plain number a test can parse (at least 4 significant digits); ∞, or — if undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    return f"{value:.{digits}g}"


OVERFLOWED = f"> {sys.float_info.max:.1e}".replace("e+", "e")  # "> 1.8e308"


def format_bound(value: float | None, separable: bool, digits: int = 6) -> str:
    """A mistake bound as text: `format_number`'s, except that on separable data an infinite
    bound is one that overflowed (R/γ* beyond 1.3e154, R²/γ*² past the largest float): it is
    finite, so it reads "> 1.8e308", not ∞ (which says the data have no bound)."""
    if value is not None and value == math.inf and separable:
        return OVERFLOWED
    return format_number(value, digits)


def format_vector(values: tuple[float, ...] | None, digits: int = 6) -> str:
    if values is None:
        return "—"
    return ", ".join(format_number(v, digits) for v in values)


def bound_formula(frame: Any) -> str:
    """R²/γ*² in the learner's symbols (R_K²/γ_K² for Kessler's vectors)."""
    gamma, radius = frame.learner.symbols
    return f"{radius}²/{gamma}²"
