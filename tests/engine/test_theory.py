"""The theory: γ* exact against an independent QP; the mistake bounds as properties."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.optimize import minimize

from simulator.engine import (
    Dataset,
    Simulation,
    adaline_report,
    general_mistake_bound,
    load_preset,
    margin_report,
    winnow_disjunction_bound,
)
from simulator.engine.theory import margin_report_for
from tests.helpers.qp import slsqp_margin


@st.composite
def separable_data(draw, max_n=40, max_d=4):
    """Random data with a random separating direction, at least `margin` from it."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    margin = draw(st.floats(0.01, 0.3))
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d + 1)
    u /= np.linalg.norm(u)
    points = rng.uniform(-2, 2, size=(4 * n + 20, d))
    scores = np.column_stack((np.ones(len(points)), points)) @ u
    keep = np.abs(scores) >= margin
    assume(keep.sum() >= n)
    points, scores = points[keep][:n], scores[keep][:n]
    return Dataset(points, np.where(scores > 0, 1, -1))


def test_hand_computed_margins():
    # OR: u = (-1, 2, 2)/3 gives every point margin 1/3 but (1,1); R² = 3, bound 27.
    report = margin_report(load_preset("or"))
    assert report.gamma == pytest.approx(1 / 3, rel=1e-12)
    assert report.radius == pytest.approx(math.sqrt(3), rel=1e-15)
    assert report.bound == pytest.approx(27, rel=1e-12)
    np.testing.assert_allclose(report.separator, np.array([-1, 2, 2]) / 3, rtol=1e-12)
    # AND: u = (-3, 2, 2)/sqrt(17); bound 3 * 17 = 51.
    report = margin_report(load_preset("and"))
    assert report.gamma == pytest.approx(1 / math.sqrt(17), rel=1e-12)
    assert report.bound == pytest.approx(51, rel=1e-12)
    # Two points on a line without bias: γ* = the nearer point's distance.
    assert margin_report(Dataset([[3.0], [-5.0]], [1, -1]), bias=False).gamma == 3.0


def test_xor_is_not_separable_and_its_margin_is_the_best_any_direction_gets():
    report = margin_report(load_preset("xor"))
    assert not report.separable and report.bound == math.inf and report.separator is None
    Z = np.array([[-1, 0, 0], [1, 0, 1], [1, 1, 0], [-1, -1, -1]], float)

    def worst(u):
        return np.min(Z @ (u / np.linalg.norm(u)))

    best = max(
        -minimize(
            lambda u: -worst(u),
            u0,
            method="Nelder-Mead",
            options={"xatol": 1e-12, "fatol": 1e-14, "maxiter": 20_000},
        ).fun
        for u0 in np.random.default_rng(0).normal(size=(30, 3))
    )
    assert report.gamma < 0
    assert report.gamma == pytest.approx(best, abs=1e-8)


def test_a_point_on_the_origin_leaves_no_margin():
    report = margin_report(Dataset([[0.0, 0.0], [1.0, 1.0]], [1, 1]), bias=False)
    assert report.gamma == 0.0 and not report.separable


@given(separable_data())
def test_gamma_matches_an_independent_qp_and_the_separator_achieves_it(ds):
    report = margin_report(ds)
    X = np.column_stack((np.ones(len(ds)), ds.points))
    Z = ds.labels[:, None] * X
    assert report.separable
    gamma, result = slsqp_margin(Z)
    assert result.success, result.message
    assert report.gamma == pytest.approx(gamma, rel=1e-6)
    u = np.array(report.separator)
    assert np.linalg.norm(u) == pytest.approx(1.0, abs=1e-14)
    assert np.min(Z @ u) == pytest.approx(report.gamma, rel=1e-9)
    # No other direction does better (γ* is a maximum).
    directions = np.random.default_rng(len(ds)).normal(size=(500, Z.shape[1]))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    assert np.max(np.min(Z @ directions.T, axis=0)) <= report.gamma * (1 + 1e-12)


@given(
    separable_data(max_n=30, max_d=3),
    st.integers(0, 1000),
    st.sampled_from(["cyclic", "random"]),
    st.floats(0.01, 10.0),
)
def test_block_novikoff_perceptron_mistakes_never_exceed_the_bound(ds, seed, order, eta):
    report = margin_report(ds)
    sim = Simulation(ds, "perceptron", learning_rate=eta, order=order, seed=seed)
    sim.run(200_000)
    assert sim.converged
    # Equality k = R²/γ² happens (one point); allow the bound's last-bit rounding.
    assert sim.mistakes <= report.bound * (1 + 1e-12)


@given(separable_data(max_n=25, max_d=3), st.integers(0, 1000), st.floats(0.05, 5.0))
def test_general_bound_holds_from_any_start(ds, seed, eta):
    sim = Simulation(ds, "perceptron", learning_rate=eta, initial_weights="random", seed=seed)
    sim.run(200_000)
    assert sim.converged
    report = margin_report(ds)
    bound = general_mistake_bound(
        sim.initial_weights, np.array(report.separator), report.gamma, report.radius, eta
    )
    assert sim.mistake_bound() == bound
    assert sim.mistakes <= bound * (1 + 1e-12)


def test_general_bound_is_the_root_of_its_inequality_and_reduces_to_r2_over_g2():
    u = np.array([0.6, 0.8])
    assert general_mistake_bound(np.zeros(2), u, 0.1, 2.0, 0.7) == pytest.approx(400.0)
    w0 = np.array([-1.0, 3.0])
    k = general_mistake_bound(w0, u, 0.1, 2.0, 0.5)
    lhs = w0 @ u + k * 0.5 * 0.1
    rhs = math.sqrt(w0 @ w0 + k * 0.25 * 4.0)
    assert lhs == pytest.approx(rhs, rel=1e-12)


@st.composite
def boolean_disjunctions(draw):
    n = draw(st.integers(2, 64))
    r = draw(st.integers(1, min(n, 5)))
    m = draw(st.integers(1, 120))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    relevant = rng.choice(n, size=r, replace=False)
    X = (rng.random((m, n)) < draw(st.floats(0.02, 0.5))).astype(float)
    labels = np.where(X[:, relevant].any(axis=1), 1, -1)
    return Dataset(X, labels), r, n


@given(boolean_disjunctions(), st.sampled_from(["cyclic", "random"]), st.integers(0, 99))
def test_winnow_on_disjunctions_stays_within_2_plus_3r_1_plus_log2_n(data, order, seed):
    ds, r, n = data
    sim = Simulation(ds, "winnow", bias=False, order=order, seed=seed)
    sim.run(100_000)
    assert sim.converged
    assert sim.mistakes <= winnow_disjunction_bound(r, n)


def test_winnow_bound_formula():
    assert winnow_disjunction_bound(2, 2) == 14.0
    assert winnow_disjunction_bound(3, 1024) == 2 + 9 * 11


def test_adaline_report_least_squares_and_rates():
    ds = load_preset("separable")
    X = np.column_stack((np.ones(len(ds)), ds.points))
    report = adaline_report(X, ds.labels)
    w = np.array(report.least_squares)
    np.testing.assert_allclose(X.T @ X @ w, X.T @ ds.labels, atol=1e-10)  # normal equations
    assert report.online_rate_limit == pytest.approx(2 / np.max(np.sum(X * X, axis=1)))
    assert report.batch_rate_limit == pytest.approx(2 / np.max(np.linalg.eigvalsh(X.T @ X)))


@pytest.mark.parametrize(("factor", "diverges"), [(0.9, False), (1.1, True)])
def test_batch_adaline_is_stable_below_2_over_lambda_max(factor, diverges):
    ds = load_preset("separable")
    sim = Simulation(ds, "adaline", mode="batch")
    limit = sim.adaline_report().batch_rate_limit
    sim = Simulation(ds, "adaline", mode="batch", learning_rate=factor * limit)
    sim.run(400_000)
    assert sim.diverged == diverges
    if not diverges:
        assert sim.converged
        np.testing.assert_allclose(sim.weights, sim.adaline_report().least_squares, atol=1e-4)


def test_margin_report_of_empty_data_is_undefined():
    report = margin_report_for(np.empty((0, 3)), np.empty(0, dtype=np.int8))
    assert math.isnan(report.gamma) and math.isnan(report.radius) and not report.separable


def test_current_margin_of_w():
    sim = Simulation(load_preset("or"), initial_weights=[-1.0, 2.0, 2.0])
    # min_i y_i w·x_i / |w| = 1/3 at (0,0), (0,1), (1,0).
    assert sim.current_margin() == pytest.approx(1 / 3)
    assert math.isnan(Simulation(load_preset("or")).current_margin())
