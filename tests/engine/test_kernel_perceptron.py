"""The kernel perceptron against references written here with plain loops: its dual sum,
its trajectory in exact rational arithmetic, γ* from the explicit feature map of the
degree-2 polynomial kernel and from a Cholesky factor with a general QP solver for RBF,
Novikoff's bound as a property, and its way through sessions and the command line."""

import math
from decimal import Decimal
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from simulator.cli import build_parser, main, parse
from simulator.engine import Dataset, Settings, Simulation, load_preset
from simulator.engine.session import load_session, save_session
from simulator.engine.theory import margin_report_for
from tests.helpers.qp import slsqp_margin


def as_written(v):
    return Fraction(Decimal(repr(float(v))))


def kernel_b(a, b, kernel="polynomial", degree=2, coef0=1, sigma=1, bias=True):
    """K_b(a, b) by the formula, one pair at a time (Fractions in, Fraction out for the
    polynomial kernel; floats for RBF)."""
    if kernel == "polynomial":
        value = (sum(x * z for x, z in zip(a, b, strict=True)) + coef0) ** degree
    else:
        square = sum((x - z) ** 2 for x, z in zip(a, b, strict=True))
        value = math.exp(-square / (2 * sigma**2))
    return value + 1 if bias else value


def oracle(points, labels, trials, tie="mistake", **kernel):
    """The kernel perceptron in cyclic order, exactly: (the mistake of each trial, f of each
    trial, the counts nᵢ), with the points as written."""
    exact = kernel.get("kernel", "polynomial") == "polynomial"
    pts = [[as_written(v) if exact else float(v) for v in p] for p in points]
    counts = [0] * len(pts)
    mistakes, scores = [], []
    for t in range(trials):
        i = t % len(pts)
        f = sum(
            counts[j] * labels[j] * kernel_b(pts[j], pts[i], **kernel)
            for j in range(len(pts))
            if counts[j]
        )
        y = labels[i]
        wrong = y * f < 0 or (
            f == 0 and {"mistake": True, "positive": y < 0, "negative": y > 0}[tie]
        )
        mistakes.append(wrong)
        scores.append(f)
        if wrong:
            counts[i] += 1
    return mistakes, scores, counts


def run(points, labels, trials, **kwargs):
    sim = Simulation(
        Dataset(np.array(points, dtype=float), np.array(labels)), "kernel-perceptron", **kwargs
    )
    sim.run(trials, until_converged=False)
    return sim


def mistake_flags(sim):
    flags = [False] * sim.trials
    for t in sim.mistake_trials():
        flags[t - 1] = True
    return flags


# -- the dual sum ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel",
    [
        {},
        {"degree": 3, "coef0": 0.5},
        {"degree": 1, "coef0": 0.0},
        {"kernel": "rbf"},
        {"kernel": "rbf", "sigma": 0.4},
    ],
)
@pytest.mark.parametrize("bias", [True, False])
def test_decision_is_the_dual_sum(kernel, bias):
    ds = load_preset("ring")
    sim = Simulation(ds, "kernel-perceptron", bias=bias, learning_rate=0.5, **kernel)
    sim.run(60, until_converged=False)
    alpha = sim.dual
    assert alpha.shape == (len(ds),) and np.count_nonzero(alpha) > 2
    params = {"coef0": 1.0, "degree": 2, **kernel}
    rng = np.random.default_rng(1)
    grid = np.vstack((ds.points, rng.uniform(-2, 2, size=(30, 2))))
    expected = [
        sum(
            alpha[i] * ds.labels[i] * kernel_b(ds.points[i], g, bias=bias, **params)
            for i in range(len(ds))
            if alpha[i]
        )
        for g in grid.tolist()
    ]
    np.testing.assert_allclose(sim.decision(grid), expected, rtol=1e-11, atol=1e-11)
    labels = sim.predict(grid)
    assert np.array_equal(labels, np.where(np.array(expected) > 0, 1, -1))


def test_the_support_is_the_points_that_erred_with_their_counts():
    points, labels = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1]
    sim = run(points, labels, 12, learning_rate=0.25)
    _, _, counts = oracle(points, labels, 12)
    np.testing.assert_array_equal(sim.dual, 0.25 * np.array(counts))
    vectors = np.column_stack((np.ones(4), np.array(points, dtype=float)))
    w = 0.25 * np.array(counts) * np.array(labels) @ vectors
    np.testing.assert_allclose(sim.weights, w)  # the notes' dual form w = Σ αᵢ yᵢ xᵢ


# -- exact verdicts -----------------------------------------------------------------------

# Found by search: floats (naive dual sums) make 22 mistakes in 60 trials here, exact
# arithmetic 40; several sums are exactly 0 and computed as ±1e-16.
TIES = ([[-0.3, 0.5], [-0.3, -0.0], [-0.3, 0.2]], [1, -1, 1])


def _naive_mistakes(points, labels, trials):
    P = np.array(points, dtype=float)
    counts = np.zeros(len(P))
    flags = []
    for t in range(trials):
        i = t % len(P)
        f = float(np.sum(counts * np.array(labels) * ((P @ P[i] + 1.0) ** 2 + 1.0)))
        flags.append(labels[i] * f <= 0)
        if flags[-1]:
            counts[i] += 1
    return flags


@pytest.mark.parametrize("rate", [1.0, 0.1, 7.0])
@pytest.mark.parametrize("tie", ["mistake", "positive", "negative"])
def test_the_trajectory_is_exact_arithmetic_on_the_data_as_written(rate, tie):
    points, labels = TIES
    mistakes, scores, counts = oracle(points, labels, 60, tie=tie)
    sim = run(points, labels, 60, learning_rate=rate, tie=tie)
    assert mistake_flags(sim) == mistakes
    np.testing.assert_array_equal(sim.dual, rate * np.array(counts))
    records = sim.trial_records(1, 60)
    exact_ties = [k for k, f in enumerate(scores) if f == 0 and k >= 3]
    assert exact_ties  # sums that are exactly 0 once the support holds both classes
    for k in exact_ties:
        assert records[k].score == 0.0 and records[k].certain
    if tie == "mistake":
        assert _naive_mistakes(points, labels, 60) != mistakes  # floats alone go wrong


def test_exact_signed_decides_a_row_as_written():
    """The protocol's exact verdict, from a row's exact decimals: the ties of the run above
    are exact zeros, and every other sum keeps its exact sign."""
    points, labels = TIES
    _, scores, _ = oracle(points, labels, 30)
    sim = run(points, labels, 30)
    learner = sim.learner
    for k in range(1, 30):
        sim.seek(k)  # the state trial k + 1 is scored with
        i = k % 3
        row = sim.features.exact_row(sim.dataset.points[i], sim.feature_matrix[i])
        v = learner.exact_signed(sim.learner_state, None, row, labels[i])
        exact = labels[i] * scores[k]
        assert (v > 0) == (exact > 0) and (v < 0) == (exact < 0)


@hypothesis_settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.sampled_from([-1, 1])),
        min_size=2,
        max_size=6,
        unique_by=lambda r: r[:2],
    ),
    degree=st.integers(1, 3),
    coef0=st.sampled_from([0.0, 0.5, 1.0, 0.3]),
)
def test_every_verdict_is_the_exact_one(data, degree, coef0):
    points = [[a / 10, b / 10] for a, b, _ in data]
    labels = [c for _, _, c in data]
    mistakes, _, _ = oracle(points, labels, 30, degree=degree, coef0=as_written(coef0))
    sim = run(points, labels, 30, degree=degree, coef0=coef0)
    assert mistake_flags(sim) == mistakes


def test_an_rbf_verdict_floats_cannot_decide_is_uncertain():
    """Point 3 is as far from point 1 (+1) as from point 2 (−1): f is exactly 0, and exp
    is not rational, so the verdict is marked uncertain; the polynomial kernel decides the
    same kind of tie exactly."""
    points, labels = [[0.1, 0.0], [0.3, 0.0], [0.2, 0.7]], [1, -1, 1]
    rbf = run(points, labels, 3, kernel="rbf")
    third = rbf.trial(3)
    assert not third.certain and rbf.trial(1).certain and rbf.trial(2).certain
    assert not rbf.learner.exact
    poly = run([[-1.0, 0.0], [1.0, 0.0], [0.0, 0.7]], labels, 3, degree=2)
    assert poly.trial(3).score == 0.0 and poly.trial(3).certain and poly.learner.exact


# -- γ* in the kernel's feature space ----------------------------------------------------------


def explicit_features(points, bias=True):
    """φ of (x·z + 1)² in the plane, the constant and the bias merged in one entry:
    φ_b(x) = (√(1 + bias), √2 x₁, √2 x₂, x₁², √2 x₁x₂, x₂²), so φ_b(x)·φ_b(z) = K_b(x, z)."""
    r = math.sqrt(2)
    return np.array(
        [[math.sqrt(1 + bias), r * a, r * b, a * a, r * a * b, b * b] for a, b in points]
    )


@pytest.mark.parametrize("bias", [True, False])
def test_the_explicit_map_has_the_kernel_inner_products(bias):
    points = np.random.default_rng(3).uniform(-2, 2, size=(9, 2))
    phi = explicit_features(points.tolist(), bias)
    gram = [[kernel_b(a, b, bias=bias) for b in points.tolist()] for a in points.tolist()]
    np.testing.assert_allclose(phi @ phi.T, gram, rtol=1e-13)


def _ellipse(n, seed):
    """n points labelled by a tilted ellipse: separable by the degree-2 kernel."""
    rng = np.random.default_rng(seed)
    points = np.round(rng.uniform(-1.5, 1.5, size=(n, 2)), 2)
    q = points[:, 0] ** 2 + 2 * points[:, 1] ** 2 + points[:, 0] * points[:, 1] - 1.2
    keep = np.abs(q) > 0.05
    return Dataset(points[keep], np.where(q[keep] < 0, 1, -1))


@pytest.mark.parametrize("name", ["xor", "ring", "noisy", "iris", "ellipse"])
@pytest.mark.parametrize("bias", [True, False])
def test_gamma_of_the_degree_2_kernel_is_that_of_its_explicit_map(name, bias):
    ds = _ellipse(40, 0) if name == "ellipse" else load_preset(name)
    sim = Simulation(ds, "kernel-perceptron", bias=bias)
    report = sim.margin_report()
    explicit = margin_report_for(explicit_features(ds.points.tolist(), bias), ds.labels)
    assert report.separable == explicit.separable
    assert report.gamma == pytest.approx(explicit.gamma, rel=1e-9, abs=1e-12)
    radius = max(math.sqrt(kernel_b(p, p, bias=bias)) for p in ds.points.tolist())
    assert report.radius == pytest.approx(radius, rel=1e-12)
    bound = sim.mistake_bound()
    if explicit.separable:
        assert bound == pytest.approx(radius**2 / explicit.gamma**2, rel=1e-8)
        z = explicit_features(ds.points.tolist(), bias) * ds.labels[:, None]
        assert slsqp_margin(z)[0] == pytest.approx(explicit.gamma, rel=1e-5)
    else:
        assert bound == math.inf


def test_gamma_is_zero_when_the_data_span_less_than_the_feature_space():
    """Two points at the same place with opposite labels: not separable, and in the
    6-dimensional feature space of (x·z + 1)² two points leave room: γ* = 0, not less."""
    ds = Dataset(np.array([[0.5, 0.5], [0.5, 0.5], [1.0, -1.0]]), np.array([1, -1, 1]))
    sim = Simulation(ds, "kernel-perceptron")
    report = sim.margin_report()
    assert report.gamma == 0.0 and not report.separable and sim.mistake_bound() == math.inf


@pytest.mark.parametrize(("name", "sigma"), [("ring", 1.0), ("ring", 0.5), ("xor", 0.7)])
def test_gamma_of_the_rbf_kernel_from_a_cholesky_factor_and_a_qp(name, sigma):
    ds = load_preset(name)
    sim = Simulation(ds, "kernel-perceptron", kernel="rbf", sigma=sigma)
    report = sim.margin_report()
    points = ds.points.tolist()
    gram = np.array([[kernel_b(a, b, "rbf", sigma=sigma) for b in points] for a in points])
    factor = np.linalg.cholesky(gram)  # distinct points: the RBF Gram matrix is definite
    by_cholesky = margin_report_for(factor, ds.labels)
    assert report.gamma == pytest.approx(by_cholesky.gamma, rel=1e-7)
    by_qp, result = slsqp_margin(factor * ds.labels[:, None])
    assert result.success and report.gamma == pytest.approx(by_qp, rel=1e-5)
    assert report.radius == pytest.approx(math.sqrt(2.0))  # K_b(x, x) = 1 + 1
    assert sim.mistake_bound() == pytest.approx(2.0 / by_cholesky.gamma**2, rel=1e-6)


@pytest.mark.parametrize(("seed", "sigma"), [(0, 1.0), (1, 1.0), (2, 0.5)])
def test_after_a_move_gamma_is_found_from_the_last_support_and_is_the_same(
    monkeypatch, seed, sigma
):
    """A drag: every move changes the Gram factor's coordinates, so the last support is
    found again by its rows' places. The answer is the cold start's, exactly (the final
    support's weights are solved afresh in order), and the way to it much shorter."""
    from simulator.engine import margin as margin_module

    rng = np.random.default_rng(seed)
    points = np.round(rng.uniform(-2, 2, size=(120, 2)), 2)
    labels = np.where(np.hypot(points[:, 0], points[:, 1]) < 1.2, 1, -1)
    labels = np.where(rng.random(120) < 0.1, -labels, labels).astype(np.int8)
    ds = Dataset(points, labels)
    sim = Simulation(ds, "kernel-perceptron", kernel="rbf", sigma=sigma)
    sim.margin_report()
    solves = []
    original = margin_module._affine_minimizer

    def counted(P):
        solves.append(P.shape[0])
        return original(P)

    monkeypatch.setattr(margin_module, "_affine_minimizer", counted)
    for step in (0.01, 0.05, 0.2):
        moved = ds.moved(0, (points[0, 0] + step, points[0, 1]))
        sim.replace_dataset(moved)
        solves.clear()
        warm = sim.margin_report()
        warm_solves = len(solves)
        solves.clear()
        cold = Simulation(moved, "kernel-perceptron", kernel="rbf", sigma=sigma).margin_report()
        assert warm == cold and warm.gamma == cold.gamma and warm.separable
        assert warm_solves * 3 <= len(solves)


def test_a_factor_too_costly_to_finish_keeps_the_lengths(monkeypatch):
    """Past its work budget the factor stops and puts the rest of the diagonal in a last
    column: every row keeps its length K_b(x, x); inner products stay within the rest."""
    from simulator.engine.learners import kernels as kernel_module
    from simulator.engine.learners.kernels import Kernel

    points = np.random.default_rng(4).uniform(-2, 2, size=(60, 2))
    rbf = Kernel("rbf", sigma=0.2)
    full = kernel_module.pivoted_cholesky(rbf, points, 1e-14)
    monkeypatch.setattr(kernel_module, "_FACTOR_WORK", 60 * 10 * 10)
    short = kernel_module.pivoted_cholesky(rbf, points, 1e-14)
    assert short.shape[1] == 12 < full.shape[1]
    gram = rbf.gram(points, points)
    np.testing.assert_allclose(np.einsum("ij,ij->i", short, short), np.diag(gram), rtol=1e-12)
    np.testing.assert_allclose(full @ full.T, gram, atol=1e-12)
    assert np.max(np.abs(short @ short.T - gram)) <= 2 * np.max(short[:, -1]) ** 2 + 1e-12


def test_a_run_after_another_on_the_same_data_has_its_own_space():
    """The window makes a run from the one before (from_settings with `previous`): γ*
    carries over only within the same space, never from the plain features to a kernel's
    or from one kernel to another."""
    ds = load_preset("xor")
    plain = Simulation(ds)
    assert not plain.margin_report().separable
    poly = Simulation.from_settings(ds, Settings("kernel-perceptron"), previous=plain)
    rbf = Simulation.from_settings(ds, Settings("kernel-perceptron", kernel="rbf"), previous=poly)
    again = Simulation.from_settings(
        ds, Settings("kernel-perceptron", learning_rate=2), previous=rbf
    )
    fresh = [Simulation.from_settings(ds, s.settings) for s in (poly, rbf, again)]
    for sim, alone in zip((poly, rbf, again), fresh, strict=True):
        assert sim.margin_report() == alone.margin_report() and sim.margin_report().separable
    assert poly.margin_report() != rbf.margin_report()
    back = Simulation.from_settings(ds, Settings(), previous=rbf)
    assert back.margin_report() == plain.margin_report()


# -- convergence and the bound --------------------------------------------------------------


def test_xor_converges_with_the_polynomial_kernel():
    sim = Simulation(load_preset("xor"), "kernel-perceptron")
    sim.run(10_000)
    assert sim.converged and sim.mistakes <= sim.mistake_bound()
    assert np.array_equal(sim.predict(load_preset("xor").points), [-1, 1, 1, -1])
    plain = Simulation(load_preset("xor"))
    plain.run(10_000)
    assert not plain.converged and plain.cycle_period is not None  # no line does it


def test_ring_converges_with_the_rbf_kernel_it_brings():
    from simulator.engine.presets import PRESET_SETTINGS

    ds = load_preset("ring")
    sim = Simulation.from_settings(ds, PRESET_SETTINGS["ring"])
    assert sim.learner.kernel == "rbf"
    sim.run(100_000)
    assert sim.converged and 0 < sim.mistakes <= sim.mistake_bound()
    assert np.array_equal(sim.predict(ds.points), ds.labels)
    numbers = dict(sim.learner_numbers())
    assert int(numbers["support vectors"]) == np.count_nonzero(sim.dual) > 0


def _quadratic_data(draw):
    coefficients = draw(st.lists(st.integers(-3, 3), min_size=6, max_size=6))
    assume(any(coefficients[:5]))
    cells = draw(
        st.lists(st.tuples(st.integers(-10, 10), st.integers(-10, 10)), min_size=3,
                 max_size=14, unique=True)
    )  # fmt: skip
    points = np.array(cells, dtype=float) / 10
    a, b, c, d, e, f = coefficients
    x, y = points[:, 0], points[:, 1]
    q = a * x * x + b * y * y + c * x * y + d * x + e * y + f / 2
    keep = np.abs(q) > 1e-9
    assume(keep.sum() >= 2 and len(set(np.sign(q[keep]))) == 2)
    return Dataset(points[keep], np.where(q[keep] > 0, 1, -1))


@hypothesis_settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_mistakes_never_exceed_the_bound_on_data_its_space_separates(data):
    """Novikoff in the kernel's feature space: labels from a quadratic are separated by
    the degree-2 kernel, and any labels of distinct points by RBF; every order."""
    ds = _quadratic_data(data.draw)
    kernel = data.draw(st.sampled_from([{}, {"kernel": "rbf", "sigma": 0.5}]), label="kernel")
    order = data.draw(st.sampled_from(["cyclic", "random"]), label="order")
    rate = data.draw(st.sampled_from([1.0, 0.3]), label="rate")
    sim = Simulation(ds, "kernel-perceptron", order=order, seed=3, learning_rate=rate, **kernel)
    bound = sim.mistake_bound()
    assert bound < math.inf  # separable in that space
    assume(bound < 5_000)
    sim.run((int(bound) + 2) * len(ds))
    assert sim.converged and sim.mistakes <= bound * (1 + 1e-9)


# -- the run around it ------------------------------------------------------------------------


def test_editing_the_data_keeps_the_support():
    ds = load_preset("xor")
    sim = Simulation(ds, "kernel-perceptron")
    sim.run(100)
    f = sim.decision(ds.points)
    more = Dataset(np.vstack((ds.points, [[0.5, 0.5]])), np.append(ds.labels, 1))
    sim.replace_dataset(more)
    assert sim.trials > 0 and np.array_equal(sim.decision(ds.points), f)
    assert sim.dual.shape == (5,) and sim.dual[4] == 0.0
    fewer = Dataset(ds.points[1:], ds.labels[1:])  # point 1 leaves; its α stays in f
    sim.replace_dataset(fewer)
    assert sim.dual.shape == (3,) and np.array_equal(sim.decision(ds.points), f)


def test_it_starts_from_f_zero_only():
    with pytest.raises(ValueError, match="starts from f = 0"):
        Simulation(load_preset("xor"), "kernel-perceptron", initial_weights="random")
    Simulation(load_preset("xor"), "kernel-perceptron", initial_weights="zeros")


def test_an_overflowing_kernel_stops_the_run_with_a_reason():
    ds = Dataset(np.array([[1e40, 1e40], [-1e40, 2e40]]), np.array([1, -1]))
    sim = Simulation(ds, "kernel-perceptron", degree=10)
    sim.run(10)
    assert sim.diverged and "overflowed" in sim.divergence_reason


def test_its_explanation_writes_the_sum_term_by_term():
    ds = load_preset("ring")
    sim = Simulation(ds, "kernel-perceptron", kernel="rbf")
    sim.run(400)
    learner, state = sim.learner, sim.learner_state
    x = sim.feature_matrix[0]
    text = learner.explain_sum(state, x, sim.feature_matrix, ds.labels, lambda v: f"{v:.4g}")
    support = np.flatnonzero(sim.dual)
    assert text.startswith("f(x) = ")
    assert text.count("K_b(x") == min(6, support.size)
    assert ("…" in text) == (support.size > 6)
    assert text.endswith(f"{sim.decision(ds.points[:1])[0]:.4g}")
    trial = sim.trial(sim.mistake_trials()[-1])
    point = str(trial.index + 1).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
    assert learner.explain_update(trial, str, str).startswith(f"Mistake: α{point} ← α{point}")
    assert "K_b(x, z) = exp(" in learner.explain_score(trial, str)
    assert learner.explain_no_update(trial, str) is None  # a mistake's is its update


def test_a_right_trial_says_the_alphas_stay_not_w():
    from simulator.presentation.explain import explain
    from simulator.presentation.frame import build_frame

    sim = Simulation(load_preset("xor"), "kernel-perceptron")
    sim.run(37)  # trial 37: point 1, right (the run converged at trial 36)
    text = explain(build_frame(sim)).text()
    assert "predicts −1, correct" in text
    assert "No update: every αᵢ stays" in text and "w stays" not in text


def test_a_session_brings_it_back_bit_for_bit(tmp_path):
    ds = load_preset("ring")
    settings = Settings("kernel-perceptron", kernel="rbf", sigma=0.7, learning_rate=0.3)
    sim = Simulation.from_settings(ds, settings)
    sim.run(70, until_converged=False)
    path = tmp_path / "kernel.lab.json"
    save_session(path, ds, sim.settings, sim.trials)
    session = load_session(path)
    assert session.settings == settings and session.settings.parameters["kernel"] == "rbf"
    again = Simulation.from_settings(session.dataset, session.settings)
    again.run(session.trial, until_converged=False)
    assert np.array_equal(again.dual, sim.dual)
    grid = np.array(list(product(np.linspace(-2, 2, 7), repeat=2)))
    assert np.array_equal(again.decision(grid), sim.decision(grid))


def test_the_command_line_offers_its_parameters_once(tmp_path):
    text = build_parser().format_help()  # argparse refuses a flag given twice: no clash
    for flag in ("--kernel", "--degree", "--coef0", "--sigma"):
        assert f"{flag} " in text, flag
    command = parse(["--dataset", "ring", "--algorithm", "kernel-perceptron", "--kernel",
                     "rbf", "--sigma", "0.5", "--degree", "3", "--coef0", "2"])  # fmt: skip
    assert dict(command.settings.parameters) == {
        "kernel": "rbf", "sigma": 0.5, "degree": 3, "coef0": 2.0
    }  # fmt: skip
    with pytest.raises(SystemExit):
        parse(["--dataset", "xor", "--algorithm", "kernel-perceptron", "--degree", "2.5"])
    out = tmp_path / "frames"
    argv = ["export", "--dataset", "xor", "--algorithm", "kernel-perceptron", "--trials", "8",
            "--out", str(out), "--size", "320x240"]  # fmt: skip
    assert main(argv) == 0
    assert len(list(out.glob("frame_*.png"))) == 9


@pytest.mark.parametrize("sigma", [1e-6, 1e-10, 1e-100])
def test_a_narrow_rbf_kernel_keeps_k_of_a_point_with_itself_1(sigma):
    """|x|² + |x|² − 2x·x does not cancel to 0 in floats, and divided by 2σ² it made
    K(x, x) = 0 at σ = 1e-10 (a helper session: γ* 0.07784 and "never converges" on moons).
    Near points' distances are summed from their differences: K(x, x) = 1 exactly, the
    Gram matrix is I + 1 (40 distinct points), γ* = √(1/40), and the run converges."""
    from simulator.engine.learners.kernels import Kernel

    ds = load_preset("moons")
    rbf = Kernel("rbf", sigma=sigma, bias=False)
    gram = rbf.gram(ds.points, ds.points)
    np.testing.assert_array_equal(gram, np.eye(len(ds)))
    values, errors = rbf.gram_with_errors(ds.points, ds.points)
    assert np.all(np.diag(values) == 1.0) and np.all(np.diag(errors) < 1e-15)
    sim = Simulation(ds, "kernel-perceptron", kernel="rbf", sigma=sigma)
    sim.run(100_000)
    wide = Simulation(ds, "kernel-perceptron", kernel="rbf", sigma=1e-3)
    wide.run(100_000)  # K = I as well (far points: exp(−|a − b|²/2σ²) underflows to 0)
    assert sim.converged and np.array_equal(sim.mistake_trials(), wide.mistake_trials())
    assert sim.margin_report().gamma == pytest.approx(math.sqrt(1 / len(ds)), rel=1e-9)
    assert sim.mistakes <= sim.mistake_bound()


def test_not_separable_in_the_kernels_space_is_not_said_of_lines():
    """`separable` is split by a line, but not by (x·z)²'s space: the status says which."""
    from simulator.presentation.frame import build_frame

    sim = Simulation(load_preset("separable"), "kernel-perceptron", coef0=0.0)
    sim.run(50, until_converged=False)
    status = build_frame(sim).status
    assert status.startswith("Not separable in K_b's feature space") and "line" not in status
    assert Simulation(load_preset("separable")).margin_report().separable
