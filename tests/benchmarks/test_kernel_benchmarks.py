"""The kernel perceptron's decision over the plot's grid, against scikit-learn's kernel
matrices in the same run.

Run with: pytest tests/benchmarks/test_kernel_benchmarks.py -s
"""

import numpy as np
import pytest
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from simulator.engine.learners import make_learner
from simulator.engine.learners.kernel import KernelState

GRID = 200  # cells a side: (GRID + 1)² points, the plot's finest grid


def _case(kernel):
    """1,000 points in [-2, 2]², the first 500 of them support vectors with counts 1 … 5,
    and the grid the plot samples over them."""
    rng = np.random.default_rng(0)
    points = rng.uniform(-2, 2, size=(1_000, 2))
    X = np.column_stack((np.ones(1_000), points))
    labels = np.where(np.hypot(points[:, 0], points[:, 1]) < 1.2, 1, -1).astype(np.int8)
    counts = rng.integers(1, 6, size=500).astype(np.int64)
    state = KernelState(w=np.zeros(3), support=X[:500], labels=labels[:500], counts=counts)
    learner = make_learner("kernel-perceptron", 3, kernel=kernel, bias=True)
    side = np.linspace(-2.2, 2.2, GRID + 1)
    gx, gy = np.meshgrid(side, side)
    grid = np.column_stack((np.ones(gx.size), gx.ravel(), gy.ravel()))
    weights = (counts * labels[:500]).astype(np.float64)

    def peer():
        if kernel == "rbf":
            gram = rbf_kernel(grid[:, 1:], points[:500], gamma=0.5)  # 1/(2σ²), σ = 1
        else:
            gram = polynomial_kernel(grid[:, 1:], points[:500], degree=2, gamma=1, coef0=1)
        return gram @ weights + weights.sum()  # K_b = K + 1

    def ours():
        return learner.decision(state, grid)

    return ours, peer


@pytest.mark.parametrize("kernel", ["polynomial", "rbf"])
def test_decision_over_the_grid_vs_sklearn(compare, kernel):
    ours, peer = _case(kernel)
    np.testing.assert_allclose(ours(), peer(), rtol=1e-9, atol=1e-9)
    mine, _, ratio = compare(ours, peer)
    print(f"  {kernel}: {(GRID + 1) ** 2} grid points x 500 support vectors: {mine * 1e3:.1f} ms")
    assert ratio <= 1.5
