"""From a point p in the input plane to its feature vector x, and back for drawing.

    x = (1, q1, ..., qd)  with bias,   x = q  without,

where q is p after the chosen preprocessing:

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

__all__ = ["PREPROCESSINGS", "FeatureMap", "InputLine"]

FloatArray = NDArray[np.float64]

PREPROCESSINGS = ("none", "standardize", "unit")


@dataclass(frozen=True, slots=True)
class InputLine:
    """The set {p : offset + normal·p = level} in the input plane."""

    offset: float
    normal: tuple[float, ...]
    level: float = 0.0


class FeatureMap:
    """The map p -> x for one dataset's statistics, bias and preprocessing."""

    __slots__ = ("bias", "mean", "preprocessing", "scale")

    def __init__(self, dataset: Dataset, *, bias: bool = True, preprocessing: str = "none"):
        if preprocessing not in PREPROCESSINGS:
            raise ValueError(
                f"unknown preprocessing {preprocessing!r}; "
                f"choose one of {', '.join(PREPROCESSINGS)}"
            )
        self.bias = bool(bias)
        self.preprocessing = preprocessing
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
        return self.preprocessing != "unit"

    def transform(self, points: FloatArray) -> FloatArray:
        """Feature vectors (n, d [+1]) of points (n, d), as a C-contiguous array."""
        q = (points - self.mean) / self.scale if self.preprocessing == "standardize" else points
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

    def input_line(self, w: FloatArray, level: float = 0.0) -> InputLine | None:
        """The set {p : w·x(p) = level} as a line in the input plane.

        None when it is not a line there: unit length with level != 0 (a conic), or a w
        whose input-plane part is zero (no boundary, or the whole plane).
        """
        w = np.asarray(w, dtype=np.float64)
        if self.preprocessing == "unit" and level != 0.0:
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
        if self.preprocessing == "unit" or self.mean.shape[0] != 2:
            return None
        squared = radius * radius - (1.0 if self.bias else 0.0)
        if not np.isfinite(squared) or squared <= 0:
            return None
        t = np.linspace(0.0, 2.0 * np.pi, samples)
        circle = np.sqrt(squared) * np.column_stack((np.cos(t), np.sin(t)))
        result: FloatArray = circle * self.scale + self.mean
        return result
