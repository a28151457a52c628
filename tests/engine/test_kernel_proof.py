"""Novikoff's proof in the kernel perceptron's feature space: after every mistake k,
A_k = w·u*/ηγ* ≥ k ≥ B_k = ‖w‖²/η²R² and A_k ≤ √B_k·R/γ* (Cauchy–Schwarz), with w the
learner's `proof_weights` in the coordinates of the Gram matrix's factor; and, for the
degree-2 polynomial kernel, the same A_k and B_k from an explicit feature map written here."""

import math

import numpy as np
import pytest

from simulator.engine import Dataset, Simulation, load_preset
from simulator.engine.theory import margin_report_for
from simulator.presentation.trace import trace_of


def proved(sim):
    """The run's proof, all of it (the chart's numbers)."""
    followed = trace_of(sim).followed()
    assert followed.complete and followed.proof.applies, followed.proof.reason
    return followed.proof


def phi(points, coef0):
    """φ_b of K_b(x, z) = (x·z + c)² + 1 in the plane: (c, √(2c) x₁, √(2c) x₂, x₁², √2 x₁x₂,
    x₂², 1), so φ_b(x)·φ_b(z) = (x·z)² + 2c x·z + c² + 1."""
    r, s = math.sqrt(2), math.sqrt(2 * coef0)
    return np.array(
        [[coef0, s * a, s * b, a * a, r * a * b, b * b, 1.0] for a, b in points.tolist()]
    )


def ellipse(n=40, seed=0):
    """n points labelled by a tilted ellipse: separable by the degree-2 kernel."""
    rng = np.random.default_rng(seed)
    points = np.round(rng.uniform(-1.5, 1.5, size=(n, 2)), 2)
    q = points[:, 0] ** 2 + 2 * points[:, 1] ** 2 + points[:, 0] * points[:, 1] - 1.2
    keep = np.abs(q) > 0.05
    return Dataset(points[keep], np.where(q[keep] < 0, 1, -1))


RUNS = [
    ("ring", {"kernel": "rbf"}),
    ("ring", {"kernel": "rbf", "sigma": 0.7, "learning_rate": 0.5}),
    ("ring", {"kernel": "rbf", "order": "random", "seed": 3}),
    ("xor", {"kernel": "polynomial", "degree": 2}),
    ("xor", {"kernel": "polynomial", "degree": 2, "coef0": 0.5, "learning_rate": 2.0}),
    ("ellipse", {"kernel": "polynomial", "degree": 2, "order": "random", "seed": 1}),
]


def simulation(name, kwargs):
    ds = ellipse() if name == "ellipse" else load_preset(name)
    sim = Simulation(ds, "kernel-perceptron", **kwargs)
    sim.run(20_000)
    assert sim.converged and sim.mistakes > 3
    return sim


@pytest.mark.parametrize(("name", "kwargs"), RUNS)
def test_the_squeeze_holds_after_every_mistake(name, kwargs):
    sim = simulation(name, kwargs)
    assert sim.bound is not None and sim.bound.proof
    proof = proved(sim)
    k = np.arange(len(proof.along), dtype=np.float64)
    assert len(k) == sim.mistakes + 1 and not proof.general
    slack = 1e-9 * np.maximum(1.0, k)
    assert np.all(proof.along >= k - slack)
    assert np.all(proof.norm <= k + slack)
    assert np.all(proof.along <= np.sqrt(proof.norm) * proof.radius / proof.gamma + slack)
    assert sim.mistakes <= proof.bound * (1 + 1e-9)
    assert proof.bound == pytest.approx(sim.mistake_bound())
    report = sim.margin_report()
    assert (proof.gamma, proof.radius) == (report.gamma, report.radius)


@pytest.mark.parametrize(
    ("name", "coef0", "rate"),
    [("xor", 1.0, 1.0), ("xor", 0.5, 1.0), ("xor", 3.0, 0.25), ("ellipse", 1.0, 1.0),
     ("ellipse", 0.2, 0.5)],
)  # fmt: skip
def test_the_proof_is_that_of_the_explicit_feature_map(name, coef0, rate):
    """w_k = η Σ nᵢ yᵢ φ_b(xᵢ) with the counts nᵢ read off the run's own trials, u*, γ* and
    R of the explicit vectors: the chart's A_k and B_k to 1e-9."""
    ds = ellipse() if name == "ellipse" else load_preset(name)
    sim = Simulation(ds, "kernel-perceptron", degree=2, coef0=coef0, learning_rate=rate)
    sim.run(20_000)
    assert sim.converged
    features = phi(ds.points, coef0)
    explicit = margin_report_for(features, ds.labels)
    u, gamma, radius = np.array(explicit.separator), explicit.gamma, explicit.radius
    counts = np.zeros(len(ds))
    along, norm = [0.0], [0.0]
    for trial in sim.trial_records(1, sim.trials):
        if trial.mistake:
            counts[trial.index] += 1
            w = rate * (counts * ds.labels) @ features
            along.append(float(w @ u) / (rate * gamma))
            norm.append(float(w @ w) / (rate * radius) ** 2)
    proof = proved(sim)
    np.testing.assert_allclose(proof.along, along, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(proof.norm, norm, rtol=1e-9, atol=1e-12)
    assert proof.gamma == pytest.approx(gamma, rel=1e-9)
    assert proof.radius == pytest.approx(radius, rel=1e-12)


def test_the_proof_weights_are_the_dual_sum_over_the_factor_rows():
    """w·L_j = f(x_j) for every point: the coordinates are those of the kernel's space."""
    sim = simulation("ring", {"kernel": "rbf"})
    rows, _ = sim.theory_rows()
    w = sim.proof_weights()
    X = sim.feature_matrix
    np.testing.assert_allclose(rows @ w, sim.learner.decision(sim.learner_state, X), atol=1e-9)
    assert not np.any(sim.proof_weights(start=True))


@pytest.mark.parametrize(("name", "kwargs"), [RUNS[0], RUNS[1], RUNS[3]])
def test_a_support_point_deleted_keeps_its_place_in_the_proof(name, kwargs):
    """Deleting points that erred leaves them in f; the proof of the data left follows w
    still, against a factor of the Gram matrix of all the points, the deleted included,
    written here (numpy's Cholesky; the polynomial kernel's on a basis of its span)."""
    sim = simulation(name, kwargs)
    ds, state = sim.dataset, sim.learner_state
    erred = [i for i, a in enumerate(sim.dual) if a > 0][:2]
    kept = [i for i in range(len(ds)) if i not in erred]
    sim.replace_dataset(Dataset(ds.points[kept], ds.labels[kept]))
    assert sim.learner_state is state
    order = kept + erred  # the data left first, then the deleted points
    kernel = sim.learner.kernel_function
    points = ds.points[order]
    gram = kernel.gram(points, points)
    values, vectors = np.linalg.eigh(gram)
    big = values > 1e-10 * values.max()
    basis = vectors[:, big] * np.sqrt(values[big])  # rows with these inner products
    report = margin_report_for(basis[: len(kept)], ds.labels[kept])
    u = np.array(report.separator)
    place = {tuple(p): j for j, p in enumerate(points.tolist())}

    def coordinates(state):
        rows = [place[tuple(x)] for x in sim.learner.inputs(state.support).tolist()]
        return sim.learner.learning_rate * ((state.counts * state.labels) @ basis[rows])

    (ws,) = sim.after_mistakes(1, sim.mistakes, coordinates)
    proof = proved(sim)
    eta = sim.learner.learning_rate
    np.testing.assert_allclose(proof.along[1:], ws @ u / (eta * report.gamma), rtol=1e-6)
    norms = np.einsum("ij,ij->i", ws, ws) / (eta * report.radius) ** 2
    np.testing.assert_allclose(proof.norm[1:], norms, rtol=1e-6)
    assert np.all(np.isfinite(proof.along)) and proof.gamma == pytest.approx(report.gamma)


def test_the_linear_learners_proof_weights_are_their_weights():
    sim = Simulation(load_preset("separable"), "perceptron")
    sim.run(500)
    np.testing.assert_array_equal(sim.proof_weights(), sim.weights)
    ws, proof_ws = sim.after_mistakes(1, sim.mistakes, sim.learner.weights, sim.proof_weights)
    np.testing.assert_array_equal(ws, proof_ws)
    np.testing.assert_array_equal(ws, sim.weights_after_mistakes(1, sim.mistakes))


@pytest.mark.parametrize("algorithm", ["kernel-perceptron", "perceptron"])
def test_a_proof_followed_a_few_mistakes_at_a_time_is_the_whole_one(algorithm):
    """The window asks with a budget; after an edit (other u*), it is replayed again."""
    ds = ellipse() if algorithm == "kernel-perceptron" else load_preset("separable")
    whole = Simulation(ds, algorithm)
    whole.run(20_000)
    expected = proved(whole)
    sim = Simulation(ds, algorithm)
    sim.run(20_000)
    trace = trace_of(sim)
    followed = trace.followed(3)
    while not followed.complete:
        assert len(followed.proof.along) <= len(followed.weights) + 1
        followed = trace.followed(3)
    np.testing.assert_array_equal(followed.proof.along, expected.along)
    np.testing.assert_array_equal(followed.proof.norm, expected.norm)
    # Without its last point the data have another u*: every A_k is computed anew.
    sim.replace_dataset(Dataset(ds.points[:-1], ds.labels[:-1]))
    trace = trace_of(sim)
    followed = trace.followed(2)
    while not followed.complete:
        followed = trace.followed(2)
    proof = followed.proof
    assert proof.applies and len(proof.along) == sim.mistakes + 1
    u = np.array(sim.margin_report().separator)
    last = sim.proof_weights()
    if np.all(np.isfinite(last)):
        assert proof.along[-1] == pytest.approx(last @ u / proof.gamma, rel=1e-9)
