"""The parameter declarations of learners: `Parameter` and `Parameters`.

A learner declares its parameters once, as a tuple of `Parameter`; that declaration checks
a value (`Parameter.check`) and is what `Settings.parameters`, `--NAME` on the command line,
the window's boxes and sessions read. `Parameters` holds the values a run was given, by name.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Parameter", "Parameters"]


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter of a learner, as `Settings`, the command line and the window see it.

    `name` is the keyword of `Simulation` and the key in `Settings.parameters`. A number lies
    in (minimum, maximum] when `exclusive_minimum`, else in [minimum, maximum]; `integer`
    numbers are whole; a choice is one of `choices`. `default` None means the learner
    derives it (from the data, or θ = n), as `derived` says.
    """

    name: str
    symbol: str
    title: str
    default: float | str | None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple[str, ...] = ()
    help: str = ""
    derived: str = ""  # how the default is found when `default` is None
    integer: bool = False

    @property
    def default_text(self) -> str:
        if self.default is None:
            return self.derived
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    @property
    def flag(self) -> str:
        """The command-line option, e.g. --learning-rate."""
        return "--" + self.name.replace("_", "-")

    @property
    def numeric(self) -> bool:
        return not self.choices

    def range_text(self) -> str:
        """The allowed values in words, for help texts and error messages."""
        if self.choices:
            return " or ".join(self.choices)
        low = high = ""
        if self.minimum is not None:
            low = f"{self.symbol} {'>' if self.exclusive_minimum else '≥'} {self.minimum:g}"
        if self.maximum is not None:
            high = f"{self.symbol} ≤ {self.maximum:g}"
        whole = "a whole number with " if self.integer else ""
        return whole + " and ".join(t for t in (low, high) if t)

    def check(self, value: Any) -> Any:
        """`value` if it is allowed, else a ValueError that says what is."""
        if self.choices:
            if value not in self.choices:
                raise ValueError(f"unknown {self.title} {value!r:.40}; use {self.range_text()}")
            return value
        if isinstance(value, bool) or not isinstance(value, int | float | str | np.number):
            raise ValueError(f"the {self.title} {self.symbol} must be a number; got {value!r:.40}")
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(
                f"the {self.title} {self.symbol} must be a number; got {value!r:.40}"
            ) from None
        low, high = self.minimum, self.maximum
        if not (
            math.isfinite(number)
            and (low is None or (number > low if self.exclusive_minimum else number >= low))
            and (high is None or number <= high)
            and (not self.integer or number == int(number))
        ):
            allowed = (
                self.range_text() if self.integer else f"a finite number with {self.range_text()}"
            )
            raise ValueError(f"the {self.title} {self.symbol} must be {allowed}; got {value!r:.40}")
        return int(number) if self.integer else number


class Parameters(Mapping[str, Any]):
    """A learner's parameters by name, as set (a parameter left out takes the learner's
    default): immutable and hashable, so `Settings` stays a frozen value."""

    __slots__ = ("_items",)

    def __init__(self, values: Mapping[str, Any] | None = None, **more: Any) -> None:
        merged = {**(values or {}), **more}
        self._items = tuple(sorted((k, v) for k, v in merged.items() if v is not None))

    def __getitem__(self, key: str) -> Any:
        for k, v in self._items:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Parameters):
            return self._items == other._items
        if isinstance(other, Mapping):
            return dict(self._items) == {k: v for k, v in other.items() if v is not None}
        return NotImplemented

    def __repr__(self) -> str:
        return f"Parameters({dict(self._items)!r})"

    def with_values(self, **values: Any) -> Parameters:
        """A copy with `values` set (None: back to the default)."""
        return Parameters({**dict(self._items), **values})
