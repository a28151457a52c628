"""The theory: γ* exact against an independent QP; the mistake bounds as properties."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

from simulator.engine import (
    Dataset,
    Simulation,
    adaline_report,
    exact_geometry,
    general_mistake_bound,
    load_preset,
    margin_report,
    theory,
    winnow_disjunction_bound,
)
from simulator.engine.lab import disjunction_stream, hidden_disjunction, race
from simulator.engine.presets import separable
from simulator.engine.theory import (
    largest_gram_eigenvalue,
    margin_report_for,
    monotone_disjunction,
)
from tests.helpers.exact import signed_gamma_squared
from tests.helpers.exact import sqrt as exact_sqrt
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
    # By hand: the hull's nearest facet is the plane through the last three zᵢ,
    # (3, -2, -2)·z = 1, at distance 1/√17; u = (-3, 2, 2)/√17 (AND's separator) gets -1/√17.
    assert report.gamma == pytest.approx(-1 / math.sqrt(17), rel=1e-15)
    assert np.min(Z @ (np.array([-3, 2, 2]) / math.sqrt(17))) == pytest.approx(report.gamma)
    directions = np.random.default_rng(0).normal(size=(20_000, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    worst = np.min(Z @ directions.T, axis=0)
    assert np.max(worst) <= report.gamma + 1e-12
    assert np.max(worst) == pytest.approx(report.gamma, abs=1e-2)  # and sampling comes close


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


_ANY = st.floats(-1e308, 1e308, allow_nan=False)
_POSITIVE = st.floats(5e-324, 1e308)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_ANY, min_size=2, max_size=2),
    st.floats(0, 2 * math.pi),
    _POSITIVE,
    _POSITIVE,
    _POSITIVE,
)
# w₀ far along u: the textbook root was a tiny difference of huge numbers, -0.00027
@example(w0=[999999999994.0, 0.0], angle=0.0, gamma=0.25, radius=1.0, eta=1.90625)
def test_general_bound_never_raises_at_extreme_values(w0, angle, gamma, radius, eta):
    u = np.array([math.cos(angle), math.sin(angle)])
    k = general_mistake_bound(np.array(w0), u, gamma, radius, eta)
    assert isinstance(k, float) and (k >= 0 or k == math.inf)
    expected = Fraction(radius) ** 2 / Fraction(gamma) ** 2
    k = general_mistake_bound(np.zeros(2), u, gamma, radius, eta)
    if expected > Fraction(1.7e308):
        assert k == math.inf
    else:
        assert k == pytest.approx(float(expected), rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(-10, 10), min_size=2, max_size=2),
    st.floats(0, 2 * math.pi),
    st.floats(0.01, 1),
    st.floats(1, 10),
    st.floats(0.01, 10),
    st.integers(-1070, 1020),
)
def test_general_bound_is_the_same_at_any_scale(w0, angle, gamma, radius, eta, j):
    """a + ηγk <= sqrt(|w₀|² + kη²R²) is unchanged by w₀, η -> 2ʲw₀, 2ʲη and by γ, R, η
    -> 2ʲγ, 2ʲR, 2⁻ʲη: the bound must not change where floats overflow or underflow."""
    u = np.array([math.cos(angle), math.sin(angle)])
    w0 = np.array(w0)
    k = general_mistake_bound(w0, u, gamma, radius, eta)
    assume(math.isfinite(k) and k > 1e-6)
    scale = math.ldexp(1.0, j)
    assume(eta * scale > 0 and eta / scale > 0 and gamma * scale > 0)  # not flushed to 0
    assume(math.isfinite(eta * scale) and math.isfinite(radius * scale))
    assume(eta * scale / scale == eta and eta / scale * scale == eta)  # exact (not subnormal)
    assume(np.all(w0 * scale / scale == w0) and gamma * scale / scale == gamma)
    assume(radius * scale / scale == radius)
    assert general_mistake_bound(w0 * scale, u, gamma, radius, eta * scale) == pytest.approx(
        k, rel=1e-6
    )
    assert general_mistake_bound(w0, u, gamma * scale, radius * scale, eta / scale) == (
        pytest.approx(k, rel=1e-6)
    )


def test_general_bound_of_a_tiny_step_is_finite_not_a_division_by_zero():
    u = np.array([0.6, 0.8])
    w0 = np.array([-1.0, 3.0])
    k = general_mistake_bound(w0, u, 0.1, 1.0, 1e-200)  # (ηγ)² underflows to 0
    assert 1e200 < k < 1e202
    # k is where a + bk = sqrt(c + ek), a = w₀·u, b = ηγ, c = |w₀|², e = η²R²: in fractions
    a, c = Fraction(1.8), Fraction(10)
    b, e = Fraction(1e-200) * Fraction(0.1), Fraction(1e-200) ** 2
    assert float((a + b * Fraction(k)) ** 2) == pytest.approx(float(c + e * Fraction(k)), rel=1e-9)
    assert general_mistake_bound(w0, u, 1e-300, 1e300, 1.0) == math.inf  # beyond floats


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


def test_monotone_disjunction_names_its_variables_worked_by_hand():
    # x1 ∨ x3 over 4 variables; x2 is on in a negative example, x4 only with x1 or x3.
    X = np.array([[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, 0], [1, 0, 0, 1]], float)
    y = np.array([1, -1, 1, -1, 1], dtype=np.int8)
    assert monotone_disjunction(X, y) == (0, 2, 3)  # x4 is never 1 in a negative: allowed
    y[4] = -1  # now x1 and x4 are ruled out, and example 1 has only x2 (ruled out) left
    assert monotone_disjunction(X, y) is None
    assert monotone_disjunction(np.array([[0.5, 1.0]]), np.array([1], np.int8)) is None
    assert monotone_disjunction(np.zeros((0, 3)), np.zeros(0, np.int8)) is None


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


def _boolean(rows, columns, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack((np.ones(rows), rng.random((rows, columns - 1)) < 0.3)).astype(float)


@pytest.mark.parametrize(
    "X",
    [
        pytest.param(_boolean(40, 7), id="tall-dense"),
        pytest.param(_boolean(30, 200), id="wide-dense"),
        pytest.param(_boolean(90, 120), id="boolean-lanczos"),
        pytest.param(_boolean(300, 70), id="tall-lanczos"),
        pytest.param(np.random.default_rng(1).normal(size=(100, 110)), id="crowded-top"),
    ],
)
@pytest.mark.parametrize("restarts", [16, 1])
def test_largest_gram_eigenvalue_is_lapacks_on_the_smaller_side(X, restarts, monkeypatch):
    """Lanczos (here above 40 rows and columns; 512 in use) or, where it does not settle
    in `restarts`, LAPACK's top eigenvalue alone: λ_max(XᵀX) to machine precision."""
    monkeypatch.setattr(theory, "_DENSE_GRAM", 40)
    monkeypatch.setattr(theory, "_LANCZOS_RESTARTS", restarts)
    expected = np.linalg.svd(X, compute_uv=False)[0] ** 2  # σ_max², by the SVD
    assert largest_gram_eigenvalue(X) == pytest.approx(expected, rel=1e-12)
    assert largest_gram_eigenvalue(X.T) == pytest.approx(expected, rel=1e-12)


def test_largest_gram_eigenvalue_of_nothing_is_zero():
    assert largest_gram_eigenvalue(np.zeros((700, 600))) == 0.0
    assert largest_gram_eigenvalue(np.zeros((0, 3))) == 0.0


def test_least_squares_is_the_minimum_norm_solution_and_only_when_asked():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(50, 4))
    X = np.column_stack((Z, Z[:, 0], 2 * Z[:, 1]))  # rank 4 of 6: many solutions
    y = np.where(rng.random(50) < 0.5, 1, -1).astype(np.int8)
    report = adaline_report(X, y)
    minimum_norm = np.linalg.lstsq(X, y.astype(float), rcond=None)[0]  # the SVD's
    np.testing.assert_allclose(report.least_squares, minimum_norm, atol=1e-12)
    quick = adaline_report(X, y, least_squares=False)
    assert quick.least_squares is None
    assert (quick.online_rate_limit, quick.batch_rate_limit) == (
        report.online_rate_limit,
        report.batch_rate_limit,
    )
    sim = Simulation(load_preset("separable"), "adaline")
    assert sim.adaline_report(least_squares=False).least_squares is None
    X = sim.feature_matrix
    w = np.array(sim.adaline_report().least_squares)  # asked now: computed now
    np.testing.assert_allclose(X.T @ X @ w, X.T @ sim.dataset.labels, atol=1e-10)
    assert sim.adaline_report(least_squares=False).least_squares is not None  # kept


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


# -- γ* exact at every scale -----------------------------------------------------------------

SCALES = (1e-8, 1e-4, 1.0, 1e4, 1e8)


def _signed_z(ds, bias):
    X = np.column_stack((np.ones(len(ds)), ds.points)) if bias else ds.points
    return ds.labels[:, None] * X


def _assert_exact(report, Z, sign, square):
    """The report agrees with the exact (sign, γ*²): the sign always, the value to 1e-9."""
    assert report.separable == (sign > 0)
    if sign > 0:  # R²/γ*² from the exact squares, rounded once (inf only if it overflows)
        radius_square = max(sum(Fraction(v) ** 2 for v in row) for row in Z.tolist())
        exact_bound = radius_square / square
        assert report.bound == (
            math.inf if exact_bound > 1.7976931348623157e308 else float(exact_bound)
        )
    else:
        assert report.bound == math.inf
    if sign == 0:
        assert report.gamma == 0.0
        return
    assert np.sign(report.gamma) == sign
    exact = exact_sqrt(square)
    assert abs(abs(report.gamma) - exact) <= 1e-9 * exact
    if sign > 0:  # the separator achieves the margin, up to the float dot product's own
        # rounding, d·u·Σ|z||u| (γ* of 4e-16 beside coordinates of 1 is all rounding)
        u = np.array(report.separator)
        rounding = 2 * Z.shape[1] * np.finfo(float).eps * float(np.max(np.abs(Z) @ np.abs(u)))
        assert np.min(Z @ u) >= report.gamma * (1 - 1e-9) - rounding


coordinates = st.one_of(
    st.integers(-3, 3).map(float),  # ties, duplicates, collinear points, the origin
    st.floats(1e-3, 10).flatmap(lambda v: st.sampled_from([v, -v])),
)


@st.composite
def small_data(draw, max_n=6, max_d=2):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    points = draw(st.lists(st.lists(coordinates, min_size=d, max_size=d), min_size=n, max_size=n))
    labels = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    return np.array(points), np.array(labels)


@settings(max_examples=200)
@given(small_data(), st.sampled_from(SCALES), st.booleans())
@example(  # γ* = 3.9e-16 beside coordinates of 1: the separator's check is all rounding
    data=(
        np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0078125], [0.99999, -1.0], [1.0, 0.0]]),
        np.array([1, 1, 1, 1, -1]),
    ),
    scale=1e-08,
    bias=True,
)
def test_gamma_is_exact_at_every_scale(data, scale, bias):
    points, labels = data
    ds = Dataset(points * scale, labels)
    Z = _signed_z(ds, bias)
    _assert_exact(margin_report(ds, bias=bias), Z, *signed_gamma_squared(Z.tolist()))


@settings(max_examples=40)
@given(
    small_data(max_n=5),
    st.floats(1e-150, 1e150).map(lambda s: float(f"{s:.1e}")),
    st.booleans(),
)
def test_gamma_never_raises_and_its_sign_is_right_at_any_scale(data, scale, bias):
    points, labels = data
    ds = Dataset(np.clip(points * scale, -1e150, 1e150), labels)
    Z = _signed_z(ds, bias)
    report = margin_report(ds, bias=bias)
    sign, _ = signed_gamma_squared(Z.tolist())
    assert report.separable == (sign > 0)
    assert sign == 0 or np.sign(report.gamma) == sign


@pytest.mark.parametrize(("name", "bound"), [("or", 27), ("and", 51)])
def test_the_bound_of_a_hand_calculation_is_its_integer(name, bound):
    """γ*² = 1/9 and 1/17 with R² = 3: R²/γ*² is 27 and 51 exactly, not 27.000000000000004."""
    assert margin_report(load_preset(name)).bound == bound


@pytest.mark.parametrize("name", ["and", "or", "xor"])
@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("bias", [True, False])
def test_boolean_presets_scaled_are_exact(name, scale, bias):
    ds = load_preset(name)
    ds = Dataset(ds.points * scale, ds.labels)
    Z = _signed_z(ds, bias)
    _assert_exact(margin_report(ds, bias=bias), Z, *signed_gamma_squared(Z.tolist()))


@pytest.mark.parametrize("scale", [*SCALES, 1e5, 1e6, 1e7])
def test_iris_scaled_with_bias_is_proved_by_a_duality_certificate(scale):
    """Weak duality, checked exactly: every point of the hull is at least γ* from the origin
    and u achieves min z·u, so min z·u <= γ* <= |q| for q in the hull. The report's support
    and weights give such a q; both sides must meet the report to 1e-9."""
    ds = load_preset("iris")
    ds = Dataset(ds.points * scale, ds.labels)
    Z = _signed_z(ds, bias=True)
    report = margin_report(ds)
    assert report.separable
    rows = {tuple(z) for z in Z.tolist()}
    assert all(tuple(s) in rows for s in report.support)
    weights = [Fraction(w) for w in report.support_weights]
    assert min(weights) > 0
    q = [
        sum((w * Fraction(s[j]) for w, s in zip(weights, report.support, strict=True)), Fraction(0))
        / sum(weights)
        for j in range(Z.shape[1])
    ]
    upper = exact_sqrt(sum(c * c for c in q))
    u = [Fraction(c) for c in report.separator]
    norm = math.sqrt(sum(c * c for c in u))
    lower = (
        float(
            min(
                sum((Fraction(a) * b for a, b in zip(z, u, strict=True)), Fraction(0))
                for z in Z.tolist()
            )
        )
        / norm
    )
    assert lower <= upper * (1 + 1e-15)
    assert report.gamma == pytest.approx(upper, rel=1e-9)
    assert report.gamma == pytest.approx(lower, rel=1e-9)


@pytest.mark.parametrize("scale", SCALES)
def test_iris_scaled_without_bias_is_exact(scale):
    """Not separable through the origin: the oracle on the hull's vertices (the rest of the
    points change nothing) gives the exact negative margin."""
    ds = load_preset("iris")
    ds = Dataset(ds.points * scale, ds.labels)
    Z = _signed_z(ds, bias=False)
    vertices = Z[ConvexHull(Z).vertices]
    _assert_exact(margin_report(ds, bias=False), Z, *signed_gamma_squared(vertices.tolist()))


def test_many_features_match_an_independent_qp():
    """Beyond 64 features the answer is floating point, checked by its duality gap."""
    rng = np.random.default_rng(3)
    X = (rng.random((60, 100)) < 0.1).astype(float)
    ds = Dataset(X, np.where(X[:, :3].any(axis=1), 1, -1))
    report = margin_report(ds)
    Z = _signed_z(ds, bias=True)
    gamma, result = slsqp_margin(Z)
    assert result.success and report.separable
    assert report.gamma == pytest.approx(gamma, rel=1e-6)
    assert np.min(Z @ np.array(report.separator)) == pytest.approx(report.gamma, rel=1e-9)


def test_coordinates_beyond_1e150_are_refused():
    with pytest.raises(ValueError, match="beyond ±1e\\+150 \\(its square would overflow\\)"):
        Dataset([[0.0, 2e150]], [1])
    big = margin_report(Dataset([[1e150, -1e150], [-1e150, 1e150]], [1, -1]), bias=False)
    assert big.separable and big.gamma == pytest.approx(math.sqrt(2) * 1e150, rel=1e-15)


# -- warm start after edits ------------------------------------------------------------------


@st.composite
def edit_sequences(draw):
    """A small dataset and a list of edits (add, move, delete, relabel) to apply in turn."""
    start, labels = draw(small_data(max_n=8, max_d=2).filter(lambda d: d[0].shape[1] == 2))
    edits = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["add", "move", "delete", "relabel"]),
                st.integers(0, 1000),
                st.lists(coordinates, min_size=2, max_size=2),
                st.sampled_from([-1, 1]),
            ),
            min_size=1,
            max_size=6,
        )
    )
    return Dataset(start, labels), edits


def _apply(ds, edit):
    kind, i, point, label = edit
    if kind == "add" or len(ds) <= 1:
        return ds.with_point(point, label, index=i % (len(ds) + 1))
    i %= len(ds)
    if kind == "move":
        return ds.moved(i, point)
    if kind == "delete":
        return ds.without(i)
    return ds.relabelled(i, -int(ds.labels[i]))


@settings(max_examples=80)
@given(edit_sequences(), st.booleans(), st.sampled_from([1e-6, 1.0, 1e6]))
def test_warm_start_gives_the_cold_report_after_any_edit(data, bias, scale):
    ds, edits = data
    ds = Dataset(ds.points * scale, ds.labels)
    report = margin_report(ds, bias=bias)
    for edit in edits:
        kind, i, point, label = edit
        ds = _apply(ds, (kind, i, [v * scale for v in point], label))
        warm = margin_report(ds, bias=bias, previous=report)
        cold = margin_report(ds, bias=bias)
        assert warm == cold  # bit for bit: the exact nearest point is unique
        report = warm


def test_warm_start_reuses_a_support_that_still_proves_itself():
    ds = separable(n=2000, margin=0.1, seed=4)
    report = margin_report(ds)
    far = np.array(report.separator[1:]) * 10  # far out on the positive side
    moved = ds.with_point(far, 1)
    warm = margin_report(moved, previous=report)
    assert warm == margin_report(moved)
    assert (warm.gamma, warm.separator, warm.support) == (
        report.gamma,
        report.separator,
        report.support,
    )
    # An edit the old support cannot survive: delete one of its points.
    i = int(np.flatnonzero((_signed_z(ds, True) == report.support[0]).all(axis=1))[0])
    assert margin_report(ds.without(i), previous=report) == margin_report(ds.without(i))


def test_a_previous_report_of_another_feature_space_is_ignored():
    ds = load_preset("iris")
    with_bias = margin_report(ds)
    assert margin_report(ds, bias=False, previous=with_bias) == margin_report(ds, bias=False)


def test_a_hull_with_too_many_vertices_reports_nan_and_why(monkeypatch):
    """Qhull's facets grow as n^⌊D/2⌋ (300 points in 8-D: 35 s): beyond `_HULL_ROWS`
    candidate vertices γ* of non-separable data is nan, with the reason, not a freeze."""
    rng = np.random.default_rng(5)
    P = rng.normal(size=(300, 7))
    ds = Dataset(P, np.where(P @ rng.normal(size=7) + 2 * rng.normal(size=300) > 0, 1, -1))
    report = margin_report(ds)
    assert math.isnan(report.gamma) and report.bound == math.inf and not report.separable
    limit = exact_geometry._HULL_ROWS[8]
    assert f"found up to {limit} possible hull vertices in 8 features; these have" in report.reason
    # The same limit in the plane, lowered: a number below it, nan with the reason above.
    ring = np.array([[math.cos(t), math.sin(t)] for t in np.linspace(0, 6, 12)])
    noisy_ring = Dataset(np.vstack([ring, 0.5 * ring]), [1, -1] * 12)
    exact = margin_report(noisy_ring)
    assert exact.gamma < 0 and exact.reason == ""
    monkeypatch.setattr(exact_geometry, "_HULL_ROWS", {3: 5})
    limited = margin_report(noisy_ring)
    assert math.isnan(limited.gamma) and "up to 5 possible hull vertices in 3" in limited.reason


# -- exact at any number of features (the lab's --exact column) -------------------------------


@pytest.mark.parametrize("dimension", [17, 40, 130])
@pytest.mark.parametrize("scale", [1.0, 3.0, 1e-8])
def test_the_exact_proof_holds_beyond_sixteen_features(dimension, scale):
    # The D unit vectors, all +1: the hull's nearest point to the origin is (1/D, …, 1/D), so
    # γ*² = 1/D and R² = 1 by hand, and R²/γ*² = D exactly, at every scale.
    X = np.eye(dimension) * scale
    y = np.ones(dimension, dtype=np.int8)
    report = margin_report_for(X, y, exact=True)
    assert report.bound == dimension
    assert report.gamma == exact_sqrt(Fraction(1, dimension) * Fraction(scale) ** 2)


def test_the_lab_s_exact_column_is_exact_beyond_sixteen_features():
    # The target's separator has margin γ ≤ γ*, so R²/γ*² ≤ its (4r + 1)·R², with no
    # rounding above it (the float proof gave 108.0000000000237 for the bound 108).
    for n in (16, 32, 64):
        stream = disjunction_stream(n, 2, 2000, seed=0)
        variables = hidden_disjunction(n, 2, 0)
        (perceptron,) = race(stream, ("perceptron",), variables=variables, exact=True)
        assert perceptron.exact_bound is not None and perceptron.bound is not None
        assert perceptron.mistakes <= perceptron.exact_bound <= perceptron.bound


def test_a_margin_over_its_time_budget_is_no_verdict(monkeypatch):
    # Nine classes of the 150-variable disjunction took 93 s in the window (random actions).
    # With a budget that has passed at once, γ* is "—" with its reason, never "not separable".
    from simulator.presentation.frame import build_frame

    ds = load_preset("or")
    monkeypatch.setattr(Simulation, "theory_seconds", -1.0)
    sim = Simulation(ds)
    report = sim.margin_report()
    assert math.isnan(report.gamma) and not report.decided
    assert "not computed" in report.reason
    assert "separable" not in build_frame(sim).status
    monkeypatch.setattr(Simulation, "theory_seconds", None)
    assert Simulation(ds).margin_report().decided  # the engine's default: no budget


def test_qhull_is_never_given_more_points_than_it_takes_in_a_second(monkeypatch):
    """500 points of a ring, one label flipped, in the degree-2 kernel's 6-D space: every
    point is a vertex of the hull (took minutes, freezing the window). Neither the search
    for candidates nor the hull itself hands Qhull more than `_HULL_ROWS` points."""
    import scipy.spatial

    given = []
    real = scipy.spatial.ConvexHull

    def counted(points, *args, **kwargs):
        given.append(points.shape)
        return real(points, *args, **kwargs)

    monkeypatch.setattr(scipy.spatial, "ConvexHull", counted)
    rng = np.random.default_rng(0)
    P = rng.uniform(-3, 3, size=(500, 2))
    y = np.where(np.hypot(P[:, 0], P[:, 1]) < 1.8, 1, -1)
    y[:20] *= -1
    sim = Simulation(Dataset(P, y), "kernel-perceptron", kernel="polynomial", degree=2)
    report = sim.margin_report()
    assert math.isnan(report.gamma) and not report.separable
    assert "possible hull vertices in 6 features; these have 500" in report.reason
    assert given and all(n <= exact_geometry._HULL_ROWS.get(k, n) for n, k in given)
