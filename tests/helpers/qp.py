"""An independent check of γ*: a general QP solver (SciPy's SLSQP) on the SVM form."""

import numpy as np
from scipy.optimize import minimize


def slsqp_margin(Z):
    """γ* = 1/|v| for v = argmin |v|² subject to z·v >= 1 for every row z of Z.

    Returns (γ*, SciPy's result). Started from the least-squares v, scaled to be feasible.
    """
    start = np.linalg.lstsq(Z, np.ones(len(Z)), rcond=None)[0]
    start = start / max(np.min(Z @ start), 1e-3)
    result = minimize(
        lambda v: v @ v,
        start,
        jac=lambda v: 2 * v,
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda v: Z @ v - 1, "jac": lambda v: Z}],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    return 1.0 / np.linalg.norm(result.x), result
