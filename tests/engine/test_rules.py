"""Each rule against a short trace worked by hand from its formula.

The data are the boolean presets, visited in dataset order (0,0), (0,1), (1,0), (1,1).
With bias the feature vector is x = (1, p1, p2).
"""

import math

import numpy as np
import pytest

from simulator.engine import Dataset, Simulation, load_preset


def _trace(sim, trials):
    return [(t.mistake, t.weights_after) for t in (sim.step() for _ in range(trials))]


def test_perceptron_on_or_by_hand():
    # w <- w + y x on y (w·x) <= 0, from w = 0, eta = 1.
    sim = Simulation(load_preset("or"), "perceptron", learning_rate=1.0)
    expected = [
        (True, (-1, 0, 0)),  # t1  x=(1,0,0) y=-1 s=0
        (True, (0, 0, 1)),  # t2  x=(1,0,1) y=+1 s=-1
        (True, (1, 1, 1)),  # t3  x=(1,1,0) y=+1 s=0
        (False, (1, 1, 1)),  # t4  x=(1,1,1) y=+1 s=3
        (True, (0, 1, 1)),  # t5  x=(1,0,0) y=-1 s=1
        (False, (0, 1, 1)),  # t6  s=1
        (False, (0, 1, 1)),  # t7  s=1
        (False, (0, 1, 1)),  # t8  s=2
        (True, (-1, 1, 1)),  # t9  s=0
        (True, (0, 1, 2)),  # t10 s=0
        (False, (0, 1, 2)),  # t11 s=1
        (False, (0, 1, 2)),  # t12 s=3
        (True, (-1, 1, 2)),  # t13 s=0
        (False, (-1, 1, 2)),  # t14 s=1
        (True, (0, 2, 2)),  # t15 s=0
        (False, (0, 2, 2)),  # t16 s=4
        (True, (-1, 2, 2)),  # t17 s=0
    ]
    assert _trace(sim, len(expected)) == [(m, tuple(map(float, w))) for m, w in expected]
    assert sim.mistakes == 9
    # Epoch 6 (trials 21-24) is the first without a mistake.
    assert sim.run(100) == 7
    assert sim.converged and sim.converged_at == 24 and sim.epoch == 6
    assert sim.weights.tolist() == [-1.0, 2.0, 2.0]


def test_perceptron_learning_rate_scales_the_update():
    sim = Simulation(load_preset("or"), "perceptron", learning_rate=0.5)
    trial = sim.step()
    assert trial.weights_after == (-0.5, 0.0, 0.0)
    assert trial.delta == (-0.5, 0.0, 0.0)
    assert trial.score == 0.0 and trial.prediction == 0 and trial.mistake


def test_winnow_on_or_by_hand():
    # The 15-859 notes: w = (1, 1), output + iff w·x >= θ = n = 2; on a mistake double
    # (y = +1) or halve (y = -1) the active weights. No bias.
    sim = Simulation(load_preset("or"), "winnow", bias=False)
    assert sim.threshold == 2.0 and sim.tie == "positive"
    expected = [
        (False, (1, 1)),  # t1 x=(0,0) y=-1: 0 < 2, -
        (True, (1, 2)),  # t2 x=(0,1) y=+1: 1 < 2, - : w2 doubles
        (True, (2, 2)),  # t3 x=(1,0) y=+1: 1 < 2, - : w1 doubles
        (False, (2, 2)),  # t4 x=(1,1): 4 >= 2, +
        (False, (2, 2)),  # t5 x=(0,0): 0, -
        (False, (2, 2)),  # t6 x=(0,1): 2 >= 2, + (s = 0 is +)
        (False, (2, 2)),  # t7 x=(1,0): 2 >= 2, +
        (False, (2, 2)),  # t8 x=(1,1): 4, +
    ]
    assert _trace(sim, 8) == [(m, tuple(map(float, w))) for m, w in expected]
    assert sim.trial(6).score == 0.0 and sim.trial(6).prediction == 1
    sim.run(100)
    assert sim.converged_at == 8 and sim.mistakes == 2


def test_winnow_with_ties_as_mistakes_by_hand():
    # tie="mistake": s = w·x − θ = 0 is undecided and counts as a mistake.
    sim = Simulation(load_preset("or"), "winnow", bias=False, tie="mistake")
    expected = [
        (False, (1, 1)),  # t1 x=(0,0) y=-1 s=-2
        (True, (1, 2)),  # t2 x=(0,1) y=+1 s=-1: w2 doubles
        (True, (2, 2)),  # t3 x=(1,0) y=+1 s=-1: w1 doubles
        (False, (2, 2)),  # t4 x=(1,1) s=2
        (False, (2, 2)),  # t5 s=-2
        (True, (2, 4)),  # t6 x=(0,1) s=0, undecided: a mistake
        (True, (4, 4)),  # t7 x=(1,0) s=0
        (False, (4, 4)),  # t8 s=6
    ]
    assert _trace(sim, 8) == [(m, tuple(map(float, w))) for m, w in expected]
    assert sim.trial(6).prediction == 0
    sim.run(100)
    assert sim.converged_at == 12 and sim.mistakes == 4


def test_winnow_without_mistakes_on_and():
    # θ = 2: (1,1) scores exactly 2 >= θ, so + from the start: no mistake at all.
    sim = Simulation(load_preset("and"), "winnow", bias=False)
    assert sim.run(100) == 4
    assert sim.mistakes == 0 and sim.converged_at == 4
    assert sim.trial(4).score == 0.0 and sim.trial(4).prediction == 1


def test_winnow_demotes_on_a_false_positive():
    # AND with θ = 1: + iff w·x >= 1. (0,1) and (1,0) are false positives at s = 0.
    sim = Simulation(load_preset("and"), "winnow", bias=False, threshold=1.0)
    expected = [
        (False, (1, 1)),  # t1 x=(0,0) y=-1: 0 < 1
        (True, (1, 0.5)),  # t2 x=(0,1) y=-1: 1 >= 1, + : w2 halves
        (True, (0.5, 0.5)),  # t3 x=(1,0) y=-1: 1 >= 1, + : w1 halves
        (False, (0.5, 0.5)),  # t4 x=(1,1) y=+1: 1 >= 1, +
        (False, (0.5, 0.5)),  # t5 x=(0,0)
        (False, (0.5, 0.5)),  # t6 x=(0,1): 0.5 < 1
        (False, (0.5, 0.5)),  # t7 x=(1,0)
        (False, (0.5, 0.5)),  # t8 x=(1,1): 1 >= 1
    ]
    assert _trace(sim, 8) == [(m, tuple(map(float, w))) for m, w in expected]
    assert sim.run(100) == 0 and sim.converged_at == 8


def test_balanced_winnow_on_or_by_hand():
    # w+ <- w+ 2^(y x), w- <- w- 2^(-y x), from w+ = w- = 1 (w = 0); with bias;
    # + iff w+·x − w-·x >= 0 (s = 0 is +).
    sim = Simulation(load_preset("or"), "balanced-winnow")
    expected = [
        (True, (-1.5, 0, 0)),  # t1 x=(1,0,0) y=-1 s=0, +: w+=(.5,1,1) w-=(2,1,1)
        (True, (0, 0, 1.5)),  # t2 x=(1,0,1) y=+1 s=-1.5: w+=(1,1,2) w-=(1,1,.5)
        (False, (0, 0, 1.5)),  # t3 x=(1,1,0) y=+1 s=0, +
        (False, (0, 0, 1.5)),  # t4 x=(1,1,1) s=1.5
        (True, (-1.5, 0, 1.5)),  # t5 x=(1,0,0) y=-1 s=0, +: w+=(.5,1,2) w-=(2,1,.5)
        (False, (-1.5, 0, 1.5)),  # t6 x=(1,0,1) s=0, +
        (True, (0, 1.5, 1.5)),  # t7 x=(1,1,0) y=+1 s=-1.5: w+=(1,2,2) w-=(1,.5,.5)
        (False, (0, 1.5, 1.5)),  # t8 s=3
        (True, (-1.5, 1.5, 1.5)),  # t9 x=(1,0,0) s=0, +: w+=(.5,2,2) w-=(2,.5,.5)
        (False, (-1.5, 1.5, 1.5)),  # t10 x=(1,0,1) s=0, +
    ]
    assert _trace(sim, 10) == [(m, tuple(map(float, w))) for m, w in expected]
    assert sim.state.tolist() == [[0.5, 2.0, 2.0], [2.0, 0.5, 0.5]]
    sim.run(100)
    assert sim.converged_at == 16 and sim.mistakes == 5
    assert sim.weights.tolist() == [-1.5, 1.5, 1.5]


def test_perceptron_tie_rules_on_or_by_hand():
    # From w = 0, η = 1, x = (1, p1, p2); what s = 0 means decides the trajectory.
    positive = Simulation(load_preset("or"), tie="positive")  # + iff w·x >= 0
    expected = [
        (True, (-1, 0, 0)),  # t1 x=(1,0,0) y=-1 s=0, +: mistake
        (True, (0, 0, 1)),  # t2 x=(1,0,1) y=+1 s=-1
        (False, (0, 0, 1)),  # t3 x=(1,1,0) y=+1 s=0, +: right
        (False, (0, 0, 1)),  # t4 s=1
        (True, (-1, 0, 1)),  # t5 x=(1,0,0) y=-1 s=0, +: mistake
        (False, (-1, 0, 1)),  # t6 x=(1,0,1) s=0, +
        (True, (0, 1, 1)),  # t7 x=(1,1,0) y=+1 s=-1
        (False, (0, 1, 1)),  # t8 s=2
        (True, (-1, 1, 1)),  # t9 x=(1,0,0) y=-1 s=0, +
    ]
    assert _trace(positive, 9) == [(m, tuple(map(float, w))) for m, w in expected]
    positive.run(100)
    assert positive.converged_at == 16 and positive.mistakes == 5
    negative = Simulation(load_preset("or"), tie="negative")  # + iff w·x > 0
    expected = [
        (False, (0, 0, 0)),  # t1 x=(1,0,0) y=-1 s=0, -: right, no update
        (True, (1, 0, 1)),  # t2 x=(1,0,1) y=+1 s=0, -: mistake
        (False, (1, 0, 1)),  # t3 x=(1,1,0) s=1
        (False, (1, 0, 1)),  # t4 s=2
        (True, (0, 0, 1)),  # t5 x=(1,0,0) y=-1 s=1
        (False, (0, 0, 1)),  # t6 s=1
        (True, (1, 1, 1)),  # t7 x=(1,1,0) y=+1 s=0, -: mistake
        (False, (1, 1, 1)),  # t8 s=3
        (True, (0, 1, 1)),  # t9 x=(1,0,0) y=-1 s=1
    ]
    assert _trace(negative, 9) == [(m, tuple(map(float, w))) for m, w in expected]
    assert negative.trial(1).prediction == -1 and positive.trial(1).prediction == 1
    negative.run(100)
    assert negative.converged_at == 16 and negative.mistakes == 4


def test_adaline_online_by_hand():
    # Every trial: w <- w + η (y - w·x) x, η = 0.1, x = (1, p).
    ds = Dataset([[2.0], [-1.0]], [1, -1])
    sim = Simulation(ds, "adaline", learning_rate=0.1)
    t1, t2, t3 = sim.step(), sim.step(), sim.step()
    assert t1.weights_after == pytest.approx((0.1, 0.2), abs=1e-15)  # s = 0
    assert t2.score == pytest.approx(-0.1, abs=1e-15)
    assert t2.weights_after == pytest.approx((0.01, 0.29), abs=1e-15)  # + 0.1(-0.9)(1,-1)
    assert t3.score == pytest.approx(0.59, abs=1e-15)
    assert t3.weights_after == pytest.approx((0.051, 0.372), abs=1e-15)  # + 0.1(0.41)(1,2)
    assert [t.mistake for t in (t1, t2, t3)] == [True, False, False]


def test_adaline_batch_takes_one_gradient_step_per_epoch():
    # Epoch 1: s = (0, 0), residuals (1, -1): gradient 1(1,2) - 1(1,-1) = (0, 3).
    # Epoch 2: s = (0.6, -0.3), residuals (0.4, -0.7): gradient (-0.3, 1.5).
    ds = Dataset([[2.0], [-1.0]], [1, -1])
    sim = Simulation(ds, "adaline", learning_rate=0.1, mode="batch")
    t1, t2 = sim.step(), sim.step()
    assert not t1.updated and t1.weights_after == (0.0, 0.0)
    assert t2.weights_after == pytest.approx((0.0, 0.3), abs=1e-15)
    t3, t4 = sim.step(), sim.step()
    assert (t3.score, t4.score) == pytest.approx((0.6, -0.3), abs=1e-15)
    assert t4.weights_after == pytest.approx((-0.03, 0.45), abs=1e-15)


def test_adaline_reports_divergence_instead_of_raising():
    ds = load_preset("iris")
    sim = Simulation(ds, "adaline", learning_rate=0.5)
    ran = sim.run(10_000)
    assert sim.diverged and not sim.converged and ran < 10_000
    assert "η = 0.5 is too large" in sim.divergence_reason
    assert "η < 0.02" in sim.divergence_reason and "suffices" in sim.divergence_reason
    assert np.all(np.isfinite(sim.weights))
    # It stops updating, but stays usable.
    frozen = sim.weights
    trial = sim.step()
    assert trial.weights_after == trial.weights_before == tuple(frozen.tolist())
    assert sim.run(10) == 0  # run() does nothing more once diverged


def test_winnow_overflow_is_reported():
    # s = 1 + 300 - 1000 < 0 on a positive: w <- w * 10^(1, 300) passes 1e150.
    ds = Dataset([[300.0]], [1])
    sim = Simulation(ds, "winnow", promotion=10.0, threshold=1000.0)
    trial = sim.step()
    assert trial.mistake and not trial.updated
    assert sim.diverged and sim.diverged_at == 1
    assert "Winnow overflowed" in sim.divergence_reason
    assert np.all(np.isfinite(sim.weights)) and np.all(sim.weights > 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"algorithm": "svm"}, "unknown algorithm 'svm'"),
        ({"learning_rate": 0.0}, "learning rate η must be a finite number with η ≥ 1e-100"),
        ({"learning_rate": -1.0}, "learning rate η must be a finite number with η ≥ 1e-100"),
        ({"learning_rate": math.inf}, "learning rate η must be a finite number with η ≥ 1e-100"),
        ({"algorithm": "winnow", "promotion": 1.0}, "α must be a finite number with α > 1"),
        (
            {"algorithm": "winnow", "threshold": -2.0},
            "threshold θ must be a finite number with θ > 0",
        ),
        ({"algorithm": "winnow", "initial_weights": "zeros"}, "positive initial weights"),
        ({"algorithm": "balanced-winnow", "threshold": 3.0}, "no threshold"),
        ({"initial_weights": [1.0, 2.0]}, "shape \\(3,\\)"),
        ({"initial_weights": "sideways"}, "unknown initial weights"),
        ({"order": "backwards"}, "unknown order"),
        ({"preprocessing": "whiten"}, "unknown preprocessing"),
        ({"seed": -1}, "seed must be a whole number"),
        ({"algorithm": "adaline", "mode": "minibatch"}, "unknown mode"),
    ],
)
def test_absurd_parameters_are_refused_clearly(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Simulation(load_preset("or"), **kwargs)


def test_initial_weights_options():
    ds = load_preset("or")
    assert Simulation(ds).weights.tolist() == [0.0, 0.0, 0.0]
    assert Simulation(ds, "winnow").weights.tolist() == [1.0, 1.0, 1.0]
    assert Simulation(ds, initial_weights=[0.5, -1, 2]).weights.tolist() == [0.5, -1.0, 2.0]
    a = Simulation(ds, initial_weights="random", seed=3).weights
    b = Simulation(ds, initial_weights="random", seed=3).weights
    c = Simulation(ds, initial_weights="random", seed=4).weights
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.all(Simulation(ds, "winnow", initial_weights="random").weights > 0)
    balanced = Simulation(ds, "balanced-winnow", initial_weights=[[2, 2, 2], [1, 1, 1]])
    assert balanced.weights.tolist() == [1.0, 1.0, 1.0]
