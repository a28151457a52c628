"""From a point p in the input plane to its feature vector x, and back for drawing.

    x = (1, φ(q))  with bias,   x = φ(q)  without,

where q is p after the chosen preprocessing and φ the feature map (`FEATURE_MAPS`):
"linear" (φ(q) = q), or for 2-D points the monomials of UNL's polynomial features,
"quadratic" (q1, q2, q1², q1q2, q2²) and "cubic" (q1, q2, q1q2, q1², q2², q1²q2, q1q2²,
q1³, q2³). With a curved map the boundary w·x = θ is a curve in the plane, drawn as a level
set; R, γ* and the bound are those of the mapped points.

Preprocessing:

- ``"none"``:        q = p
- ``"standardize"``: q = (p - mean) / std, per coordinate, with the mean and (population)
  standard deviation of the current data; a coordinate with std 0 is only centred.
- ``"unit"``:        the whole feature vector is scaled to length 1, x <- x / |x|.
  Scaling by a positive number never changes sign(w·x), so for a rule without a
  threshold the boundary stays a straight line in the input plane and R = 1. A zero
  vector (only possible without bias) stays zero.

All theory (R, γ, the bound) lives in feature space; the plot lives in the input plane.
This module converts between the two for lines and circles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator.engine.dataset import Dataset

__all__ = ["FEATURE_MAPS", "PREPROCESSINGS", "FeatureMap", "InputLine"]

FloatArray = NDArray[np.float64]
Digits = tuple[int, int]

PREPROCESSINGS = ("none", "standardize", "unit")

FEATURE_MAPS: dict[str, tuple[tuple[int, int], ...]] = {
    "linear": (),
    "quadratic": ((1, 0), (0, 1), (2, 0), (1, 1), (0, 2)),
    "cubic": ((1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (3, 0), (0, 3)),
}
"""The feature maps by name: the powers (a, b) of q1^a q2^b, in the order of the notes
(UNL CSCE 970); "linear" keeps q as it is, in any dimension."""

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

ONE = (0, 1, 0)
"""The bias feature, entry 0 of value 1, in exact decimals (one object, shared by rows)."""


def _monomial_name(names: tuple[str, ...], powers: tuple[int, int]) -> str:
    parts = []
    for name, power in zip(names, powers, strict=True):
        if power:
            parts.append(name + (str(power).translate(_SUPERSCRIPT) if power > 1 else ""))
    return "·".join(parts)


def _product(digits: list[Digits], powers: tuple[int, ...]) -> Digits:
    mantissa, exponent = 1, 0
    for (m, e), power in zip(digits, powers, strict=True):
        mantissa *= m**power
        exponent += e * power
    return mantissa, exponent


def _dense(row: tuple[tuple[int, int, int], ...], size: int) -> list[Digits]:
    dense = [(0, 0)] * size
    for j, m, e in row:
        dense[j] = (m, e)
    return dense


@dataclass(frozen=True, slots=True)
class InputLine:
    """The set {p : offset + normal·p = level} in the input plane."""

    offset: float
    normal: tuple[float, ...]
    level: float = 0.0


class FeatureMap:
    """The map p -> x for one dataset's statistics, bias and preprocessing."""

    __slots__ = ("bias", "map", "mean", "preprocessing", "scale")

    def __init__(
        self,
        dataset: Dataset,
        *,
        bias: bool = True,
        preprocessing: str = "none",
        features: str = "linear",
    ):
        if preprocessing not in PREPROCESSINGS:
            raise ValueError(
                f"unknown preprocessing {preprocessing!r:.40}; "
                f"choose one of {', '.join(PREPROCESSINGS)}"
            )
        if features not in FEATURE_MAPS:
            raise ValueError(
                f"unknown features {features!r:.40}; choose one of {', '.join(FEATURE_MAPS)}"
            )
        if features != "linear" and dataset.dimension != 2:
            raise ValueError(
                f"{features} features are made from 2-D points; these have "
                f"{dataset.dimension} coordinates"
            )
        self.bias = bool(bias)
        self.preprocessing = preprocessing
        self.map = features
        d = dataset.dimension
        if preprocessing == "standardize" and len(dataset) > 0:
            mean = dataset.points.mean(axis=0)
            std = dataset.points.std(axis=0)
            scale = np.where(std > 0, std, 1.0)
        else:
            mean, scale = np.zeros(d), np.ones(d)
        self.mean: FloatArray = mean
        self.scale: FloatArray = scale

    @property
    def is_linear_in_input(self) -> bool:
        """Whether w·x = c is a straight line in the input plane for every c."""
        return self.preprocessing != "unit" and self.map == "linear"

    @property
    def powers(self) -> tuple[tuple[int, int], ...]:
        return FEATURE_MAPS[self.map]

    def size(self, dimension: int) -> int:
        """D, the length of a feature vector of points in `dimension` coordinates."""
        mapped = len(self.powers) if self.powers else dimension
        return mapped + (1 if self.bias else 0)

    def same_as(self, other: object) -> bool:
        """Whether `other` maps every point as this map does (the same kind, bias, statistics
        and preprocessing): an edit that leaves the statistics alone keeps the map."""
        return other is self or (
            isinstance(other, FeatureMap)
            and (self.bias, self.map, self.preprocessing)
            == (other.bias, other.map, other.preprocessing)
            and np.array_equal(self.mean, other.mean)
            and np.array_equal(self.scale, other.scale)
        )

    def names(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """The features' names from the coordinates' (the bias is "1")."""
        mapped = [_monomial_name(names, p) for p in self.powers] if self.powers else list(names)
        return (("1",) if self.bias else ()) + tuple(mapped)

    def _mapped(self, q: FloatArray) -> FloatArray:
        if not self.powers:
            return q
        columns = [q[:, 0] ** a * q[:, 1] ** b for a, b in self.powers]
        return np.column_stack(columns) if columns else q

    def transform(self, points: FloatArray) -> FloatArray:
        """Feature vectors (n, D) of points (n, d), as a C-contiguous array."""
        q = (points - self.mean) / self.scale if self.preprocessing == "standardize" else points
        q = self._mapped(np.asarray(q, dtype=np.float64))
        if self.bias:  # one new array, filled (no intermediate copies of a large matrix)
            x = np.empty((q.shape[0], q.shape[1] + 1))
            x[:, 0] = 1.0
            x[:, 1:] = q
        else:  # without preprocessing, the points themselves (no copy)
            x = np.ascontiguousarray(q, dtype=np.float64)
        if self.preprocessing == "unit":
            norms = np.sqrt(np.einsum("ij,ij->i", x, x))
            x = x / np.where(norms > 0, norms, 1.0)[:, None]
        return x

    def exact_row(self, point: FloatArray, x: FloatArray) -> tuple[tuple[int, int, int], ...]:
        """The nonzero entries (index, mantissa, exponent) of the feature vector of `point`
        in exact decimals: the coordinates as written (the shortest decimal of each float),
        their monomials multiplied out exactly, 1 for the bias. Computed features no one
        wrote are taken at their exact binary value: those standardized (then mapped
        exactly), or scaled to unit length (`x` as computed)."""
        from simulator.engine.learners.exact import written_row

        if self.preprocessing == "unit":
            return written_row(x, as_written=False)
        if self.preprocessing == "standardize":
            q = (point - self.mean) / self.scale
            row = written_row(q, as_written=False)
        else:
            row = written_row(point)
        offset = 1 if self.bias else 0
        if self.powers:
            dense = _dense(row, point.shape[0])
            mapped = [_product(dense, p) for p in self.powers]
            row = tuple((j, m, e) for j, (m, e) in enumerate(mapped) if m)
        shifted = tuple((j + offset, m, e) for j, m, e in row) if offset else row
        return ((ONE,) if self.bias else ()) + shifted

    def input_line(self, w: FloatArray, level: float = 0.0) -> InputLine | None:
        """The set {p : w·x(p) = level} as a line in the input plane.

        None when it is not a line there: unit length with level != 0 (a conic), or a w
        whose input-plane part is zero (no boundary, or the whole plane).
        """
        w = np.asarray(w, dtype=np.float64)
        if (self.preprocessing == "unit" and level != 0.0) or self.powers:
            return None
        bias_weight = float(w[0]) if self.bias else 0.0
        coords = w[1:] if self.bias else w
        if self.preprocessing == "standardize":
            # w0 + sum_j w_j (p_j - mean_j) / scale_j = level
            normal = coords / self.scale
            offset = bias_weight - float(np.dot(normal, self.mean))
        else:
            normal = coords
            offset = bias_weight
        if not np.any(normal) or not np.all(np.isfinite(normal)) or not np.isfinite(offset):
            return None
        return InputLine(offset=offset, normal=tuple(normal.tolist()), level=float(level))

    def input_radius_curve(self, radius: float, samples: int = 256) -> FloatArray | None:
        """The 2-D curve {p : |x(p)| = radius}, an (m, 2) polyline, or None.

        With bias |x|² = 1 + |q|², so the curve is the circle |q| = sqrt(R² - 1) (an
        ellipse in p when standardized). Unit-length features all have |x| = 1: no curve.
        """
        if self.preprocessing == "unit" or self.powers or self.mean.shape[0] != 2:
            return None
        squared = radius * radius - (1.0 if self.bias else 0.0)
        if not np.isfinite(squared) or squared <= 0:
            return None
        t = np.linspace(0.0, 2.0 * np.pi, samples)
        circle = np.sqrt(squared) * np.column_stack((np.cos(t), np.sin(t)))
        result: FloatArray = circle * self.scale + self.mean
        return result
