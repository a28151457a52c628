"""Numbers as the panel, the strip, the ledger, the charts, export and lessons write
them: one formatter, so the same number reads the same everywhere (in the engine, as
lesson text is filled there, without Qt).

- `DIGITS` (4) significant digits, never fewer digits than a number has before its point:
  51387.4 reads 51387, 0.0389225 reads 0.03892, 65.2013 reads 65.2 (trailing zeros go).
- Plain decimals from 10⁻⁴ up to 10⁶; beyond, a power of ten without padding: 3e121,
  1.235e−5 (no "e+121", no "x1e+27" beside the number).
- A true minus sign, U+2212 (−2.5, not -2.5): a hyphen is shorter than a plus and reads
  as a dash on a projector. `parse_number` reads any of these back.
- ∞ where unbounded, — where undefined; a bound past the largest float "> 1.8e308".
"""

from __future__ import annotations

import math
import sys
from typing import Any

__all__ = [
    "DIGITS",
    "MINUS",
    "OVERFLOWED",
    "bound_formula",
    "format_bound",
    "format_number",
    "format_signed_label",
    "format_tick",
    "format_vector",
    "parse_number",
    "plain_minus",
]

DIGITS = 4
MINUS = "\u2212"
_FIXED_BELOW = 6  # decimal exponents below this are written out in full (123456, not 1.235e5)
_FIXED_FROM = -4  # ...and from this one up (0.0001234, not 1.234e−4)


def plain_minus(text: str) -> str:
    """`text` with true minus signs written as ASCII hyphens (for a parser, not a reader)."""
    return text.replace(MINUS, "-")


def format_number(value: float | None, digits: int = DIGITS) -> str:
    """`value` in `digits` significant digits (see the module docstring); ∞, or — if
    undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    value = float(value)
    if math.isinf(value):
        return "∞" if value > 0 else MINUS + "∞"
    if value == 0:
        return "0"
    sign = MINUS if value < 0 else ""
    magnitude = abs(value)
    digits = max(1, int(digits))
    # The exponent after rounding to `digits` (9.9996 at 4 digits is 10.00, exponent 1).
    mantissa, exponent_text = f"{magnitude:.{digits - 1}e}".split("e")
    exponent = int(exponent_text)
    if _FIXED_FROM <= exponent < max(digits, _FIXED_BELOW):
        decimals = max(0, digits - 1 - exponent)
        text = f"{magnitude:.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return sign + text
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    power = str(exponent) if exponent >= 0 else MINUS + str(-exponent)
    return f"{sign}{mantissa}e{power}"


def parse_number(text: str) -> float:
    """A number as `format_number` writes it (or as Python does), back to a float:
    true minus signs, ∞ and — (nan) included. A ValueError if it is not one."""
    cleaned = plain_minus(text.strip())
    if cleaned == "—":
        return math.nan
    if cleaned in ("∞", "-∞"):
        return -math.inf if cleaned.startswith("-") else math.inf
    return float(cleaned)


OVERFLOWED = f"> {sys.float_info.max:.1e}".replace("e+", "e")  # "> 1.8e308"


def format_bound(value: float | None, separable: bool, digits: int = DIGITS) -> str:
    """A mistake bound as text: `format_number`'s, except that on separable data an infinite
    bound is one that overflowed (R/γ* beyond 1.3e154, R²/γ*² past the largest float): it is
    finite, so it reads "> 1.8e308", not ∞ (which says the data have no bound)."""
    if value is not None and value == math.inf and separable:
        return OVERFLOWED
    return format_number(value, digits)


def format_vector(values: Any, digits: int = DIGITS) -> str:
    """The entries of a vector, comma-separated, each by `format_number`."""
    if values is None:
        return "—"
    return ", ".join(format_number(v, digits) for v in values)


def format_signed_label(y: int) -> str:
    """A label of two classes, +1 or −1."""
    return "+1" if y > 0 else MINUS + "1"


def format_tick(value: float, spacing: float) -> str:
    """An axis tick at `value`, on ticks `spacing` apart: as many digits as tell it from
    its neighbours, by `format_number` (so a tick and a caption write a number alike)."""
    if not math.isfinite(value):
        return format_number(value)
    if not (math.isfinite(spacing) and spacing > 0):
        return format_number(value)
    if abs(value) < spacing * 1e-9:  # 0, give or take the float error of a tick's position
        return "0"
    lead = math.floor(math.log10(abs(value)))
    step = math.floor(math.log10(abs(spacing)))
    digits = min(15, max(1, lead - step + 1))
    return format_number(value, digits)


def bound_formula(frame: Any) -> str:
    """R²/γ*² in the learner's symbols (R_K²/γ_K² for Kessler's vectors)."""
    gamma, radius = frame.learner.symbols
    return f"{radius}²/{gamma}²"
