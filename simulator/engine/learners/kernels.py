"""The kernels of the kernel perceptron (CMU 10-601 lecture 10; UIUC CS446), on input points:
the feature vectors without their bias entry.

- ``"polynomial"``: K(x, z) = (x·z + c)^d, c = `coef0` ≥ 0, d = `degree` a whole number: the
  inner product of the monomials of degree ≤ d, each scaled by the square root of its
  multinomial coefficient times a power of c (for d = 2, c = 1 in the plane:
  φ(x) = (1, √2 x₁, √2 x₂, x₁², √2 x₁x₂, x₂²)).
- ``"rbf"``: K(x, z) = exp(−|x − z|²/(2σ²)), the Gaussian kernel, whose feature space has
  infinitely many dimensions.

With bias, K_b = K + 1: the kernel's feature vector with a constant 1 appended.

Each value comes with a bound on its rounding error, so that a dual sum Σ cᵢ K_b(xᵢ, x)
farther from 0 than its bound has the exact sign (`Kernel.gram_with_errors`). The
polynomial kernel of whole degree is rational on the data as written, so a sum that
bound cannot decide is computed exactly (`Kernel.exact_value`); exp is not rational, so
the RBF kernel's such sums stay undecided.

The Gram matrix's factor (`kernel_rows`, `pivoted_cholesky`): rows with the inner products
of the points' feature vectors, where the kernel perceptron's γ*, R and u* are found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from simulator.engine.learners.exact import written

__all__ = ["KERNELS", "Kernel", "exact_inputs", "kernel_rows", "pivoted_cholesky"]

FloatArray = NDArray[np.float64]

KERNELS = ("polynomial", "rbf")
_U = 2.0**-53
_TINY = 2.0**-1074  # an underflowing operation is off by at most half of this, absolutely
_FACTOR_WORK = 4e9  # n·r² of a factor of the Gram matrix (a few seconds) before it stops
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True, slots=True)
class Kernel:
    """One kernel with its parameters, and whether K_b = K + 1 (`bias`)."""

    kind: str = "polynomial"
    degree: int = 2
    coef0: float = 1.0
    sigma: float = 1.0
    bias: bool = True

    @property
    def rational(self) -> bool:
        """Whether its values are rational on rational inputs (so sums can be exact)."""
        return self.kind == "polynomial"

    def dimension(self, inputs: int) -> float:
        """The dimension of K_b's feature space for points of `inputs` coordinates: the
        monomials of degree ≤ d (c > 0; the bias shares the constant's direction), or of
        degree d alone and the bias (c = 0); RBF's is infinite."""
        if self.kind == "rbf":
            return math.inf
        if self.coef0:
            return math.comb(inputs + self.degree, self.degree)
        return math.comb(inputs + self.degree - 1, self.degree) + (1 if self.bias else 0)

    def formula(self) -> str:
        """K(x, z) as the notes write it, e.g. "(x·z + 1)²"."""
        if self.kind == "rbf":
            return f"exp(−|x − z|²/(2·{self.sigma:g}²))"
        inner = f"x·z + {self.coef0:g}" if self.coef0 else "x·z"
        power = str(self.degree).translate(_SUPERSCRIPT) if self.degree > 1 else ""
        return f"({inner}){power}" if power else inner

    # -- values in floats ------------------------------------------------------------------

    def gram(self, A: FloatArray, B: FloatArray, *, bias: bool | None = None) -> FloatArray:
        """K_b(aᵢ, bⱼ) for every row aᵢ of A and bⱼ of B: (len A, len B) (`bias` False:
        K alone, so that a weighted sum can add Σ weights once instead)."""
        if self.kind == "rbf":
            G = self._rbf(A, B)
        else:
            G = A @ B.T
            G += self.coef0
            G = _power(G, self.degree)
        if self.bias if bias is None else bias:
            G += 1.0
        return G

    def _rbf_argument(self, A: FloatArray, B: FloatArray) -> FloatArray:
        """−|a − b|²/(2σ²), with |a − b|² = |a|² + |b|² − 2a·b (at least 0), except where
        that sum cancels to within its own rounding (a ≈ b) and σ is so narrow that the
        rounding, divided by 2σ², could move K by 1e-6: there |a − b|² is summed from the
        differences, so that K(x, x) is 1 exactly and near points keep their distance (the
        sum's rounding made K(x, x) = 0 at σ = 1e-10 and a false "never converges"). At
        ordinary σ the error bounds cover the sum's rounding, and nothing is recomputed."""
        sizes_a = np.einsum("ij,ij->i", A, A)
        sizes_b = np.einsum("ij,ij->i", B, B)
        G = A @ B.T
        G *= -2.0
        G += sizes_a[:, None]
        G += sizes_b[None, :]
        np.maximum(G, 0.0, out=G)
        top = float(np.max(sizes_a, initial=0.0) + np.max(sizes_b, initial=0.0))
        rounding = (A.shape[1] + 4) * 4 * _U * top  # the sum's error, at most
        if rounding > 1e-6 * 2.0 * self.sigma * self.sigma:  # it could move K by 1e-6: σ narrow
            near = np.nonzero(rounding >= G)
            differences = A[near[0]] - B[near[1]]
            G[near] = np.einsum("ij,ij->i", differences, differences)
        G *= -1.0 / (2.0 * self.sigma * self.sigma)
        return G

    def _rbf(self, A: FloatArray, B: FloatArray) -> FloatArray:
        """exp(−|a − b|²/(2σ²))."""
        G = self._rbf_argument(A, B)
        np.exp(G, out=G)
        return G

    def diagonal(self, A: FloatArray) -> FloatArray:
        """K_b(aᵢ, aᵢ) for every row (R² is the largest)."""
        if self.kind == "rbf":
            values = np.ones(A.shape[0])
        else:
            values = _power(np.einsum("ij,ij->i", A, A) + self.coef0, self.degree)
        return values + 1.0 if self.bias else values

    def gram_with_errors(self, A: FloatArray, B: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(G, E): G as `gram` computes it, and |G − K_b| <= E entrywise, where K_b is the
        exact kernel of the inputs as written (each stored float within u of its decimal)
        and of the parameters as written.

        Polynomial, p input coordinates: t = a·b + c is within (p + 5)u·s of its exact
        value, s = Σ|aₖbₖ| + |c| (the dot product's γ_p, the final + c, the inputs' and
        c's own rounding); t^d moves by at most d·(p + 5)u·s^d (1 + (p + 5)u)^(d−1), and
        the d − 1 products round by γ_{d−1}|t̂|^d, so |K̂ − K| <= (d(p + 6) + 2)·u·s^d,
        inflated by 1 %. RBF: |a − b|² is within (p + 5)u(|a| + |b|)² of its exact value
        and 1/(2σ²) within 6u of its own, so the argument −|a − b|²/(2σ²) is within
        ζ = (p + 12)u(|a| + |b|)²/(2σ²), and K within K̂·(expm1(1.01ζ) + 3u) (exp errs by
        under 2u). The bias adds u(|K̂| + 1). Underflow adds a few halves of 2⁻¹⁰⁷⁴.
        """
        p = A.shape[1]
        if self.kind == "rbf":
            K, E = self._rbf_with_errors(A, B)
        else:
            K = A @ B.T
            K += self.coef0
            K = _power(K, self.degree)
            s = np.abs(A) @ np.abs(B).T
            s += abs(self.coef0)
            d = self.degree
            E = _power(s, d) * ((d * (p + 6) + 2) * _U * 1.01)
        if self.bias:
            E += (np.abs(K) + 1.0) * _U
            K += 1.0
        E += (p + self.degree + 8) * _TINY
        return K, E

    def _rbf_with_errors(self, A: FloatArray, B: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(K̂, E) of the RBF kernel: the exact K lies between exp(ẑ ∓ ζ') for the computed
        argument ẑ, ζ' = 1.01ζ + 4u|ẑ| (the sum ẑ ± ζ' rounds too), each exp within 2u."""
        argument = self._rbf_argument(A, B)
        K = np.exp(argument)
        size = (
            np.sqrt(np.einsum("ij,ij->i", A, A))[:, None]
            + np.sqrt(np.einsum("ij,ij->i", B, B))[None, :]
        )
        zeta = (A.shape[1] + 12) * _U / (2.0 * self.sigma * self.sigma) * (size * size)
        zeta = 1.01 * zeta + 4.0 * _U * np.abs(argument) + _TINY
        zeta[argument == 0.0] = 0.0  # the same point: K = exp(0) = 1 exactly, whatever σ
        with np.errstate(over="ignore"):
            above = np.exp(argument + zeta) * (1.0 + 2.0 * _U) - K
        below = K - np.exp(argument - zeta) * (1.0 - 2.0 * _U)
        E = np.maximum(above, below) * (1.0 + 4.0 * _U)
        return K, E

    # -- exact values ---------------------------------------------------------------------

    def exact_value(self, a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
        """K_b(a, b) exactly, for inputs as written (the polynomial kernel only)."""
        if not self.rational:
            raise ValueError("the RBF kernel has no exact rational value")
        t = sum((x * z for x, z in zip(a, b, strict=True)), written(self.coef0))
        value = t**self.degree
        return value + 1 if self.bias else value


def _power(values: FloatArray, degree: int) -> FloatArray:
    """values**degree for a whole degree ≥ 1, by repeated squaring (in place where it can):
    d − 1 roundings at most per entry (γ_{d−1} relative), vectorised products, no pow()."""
    if degree == 1:
        return values
    if degree == 2:
        values *= values
        return values
    result: FloatArray | None = None
    base = values
    d = degree
    while d:
        if d & 1:
            result = base.copy() if result is None else result * base
        d >>= 1
        if d:
            base = base * base
    assert result is not None
    return result


def exact_inputs(row: FloatArray) -> list[Fraction]:
    """A row of input coordinates as the decimals they are written as."""
    return [written(v) if v else Fraction(0) for v in row.tolist()]


# -- the Gram matrix's factor: the rows whose γ*, R and u* the panel shows ---------------


def kernel_rows(kernel: Kernel, points: FloatArray) -> FloatArray:
    """Rows L with L Lᵀ = G_b, the Gram matrix of K_b on the points, to rounding: a factor
    of the Gram matrix of the distinct points (`pivoted_cholesky`; equal points get equal
    rows), and a column of zeros when the points span less than the feature space (so
    that data it does not separate get γ* = 0, as a u orthogonal to them scores 0)."""
    if not points.shape[0]:
        return np.zeros((0, 1))
    distinct, row = np.unique(points + 0.0, axis=0, return_inverse=True)
    largest = float(np.max(kernel.diagonal(distinct)))
    factor = pivoted_cholesky(kernel, distinct, 4.0 * distinct.shape[0] * _U * largest)
    if factor.shape[1] < kernel.dimension(points.shape[1]):
        factor = np.column_stack((factor, np.zeros(factor.shape[0])))
    rows: FloatArray = np.ascontiguousarray(factor[row.ravel()])
    return rows


def pivoted_cholesky(kernel: Kernel, points: FloatArray, tolerance: float) -> FloatArray:
    """L with L Lᵀ = G_b to within `tolerance` on the diagonal of the rest: Cholesky with the
    largest remaining pivot first, stopped when every remaining pivot is below it. Columns
    of G_b are made as needed (O(n·r) memory, O(n·r²) work for a factor of rank r).

    Past `_FACTOR_WORK` (n·r² of about 4·10⁹: thousands of points and a kernel narrow for
    them) it stops early and adds a last column, the square roots of the remaining
    diagonal: the rows then have the kernel's lengths exactly and its inner products to
    within that remainder (Nyström's approximation), so γ* is approximate there."""
    n = points.shape[0]
    residual = kernel.diagonal(points)
    factor = np.zeros((n, min(n, 64)))
    rank = 0
    while rank < n:
        i = int(np.argmax(residual))
        pivot = float(residual[i])
        if not pivot > tolerance:
            break
        if rank == factor.shape[1]:
            factor = np.column_stack((factor, np.zeros((n, min(n, 2 * rank) - rank))))
        if n * rank * rank > _FACTOR_WORK:
            factor[:, rank] = np.sqrt(np.maximum(residual, 0.0))
            return np.ascontiguousarray(factor[:, : rank + 1])
        column = kernel.gram(points, points[i : i + 1])[:, 0] - factor[:, :rank] @ factor[i, :rank]
        column /= math.sqrt(pivot)
        factor[:, rank] = column
        residual -= column * column
        residual[i] = 0.0
        rank += 1
    return np.ascontiguousarray(factor[:, :rank])
