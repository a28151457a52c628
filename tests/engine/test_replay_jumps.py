"""Replay jumps over what cannot change: past convergence a mistake-driven run stands still,
so seeking far past it scores no more trials than seeking to the convergence trial."""

import numpy as np
import pytest

from simulator.engine import Dataset, Simulation, load_preset
from simulator.engine.runner import Runner


@pytest.fixture
def scored(monkeypatch):
    """A list that gets how many trials each call of the run code scored (replay included)."""
    counts: list[int] = []
    advance = Runner.advance

    def counting(self, live, segment, limit, leg):
        ran = advance(self, live, segment, limit, leg)
        counts.append(ran)
        return ran

    monkeypatch.setattr(Runner, "advance", counting)
    return counts


@pytest.mark.parametrize(
    "params",
    [
        {"algorithm": "perceptron"},
        {"algorithm": "perceptron", "order": "random", "seed": 4},
        {"algorithm": "winnow"},
        {"algorithm": "balanced-winnow"},
    ],
    ids=lambda p: "-".join(map(str, p.values())),
)
def test_a_seek_far_past_convergence_scores_no_more_than_the_way_to_convergence(params, scored):
    ds = load_preset("or")
    sim = Simulation(ds, **params)
    far = 60_000
    sim.run(far, until_converged=False)
    converged = sim.converged_at
    assert converged is not None and converged < 100
    for target in (far, far - 1, 40_001, converged + 7, converged):
        scored.clear()
        sim.seek(target)
        # the way to convergence (from a checkpoint at or before it), then the last trial
        assert sum(scored) <= converged + 1, (target, sum(scored))
        fresh = Simulation(ds, **params)
        fresh.run(target, until_converged=False)
        assert np.array_equal(sim.state, fresh.state)
        assert (sim.trials, sim.mistakes, sim.epoch, sim.converged_at) == (
            fresh.trials,
            fresh.mistakes,
            fresh.epoch,
            fresh.converged_at,
        )
        assert sim.last_trial == fresh.last_trial
    records = sim.trial_records(far - 5, far)
    assert [r.number for r in records] == list(range(far - 5, far + 1))
    assert not any(r.mistake for r in records)


REPEATING = [
    ("or", {"algorithm": "adaline"}),
    ("xor", {"algorithm": "adaline"}),
    ("noisy", {"algorithm": "adaline"}),
    ("noisy", {"algorithm": "adaline", "mode": "batch"}),
    ("xor", {"algorithm": "adaline", "mode": "batch"}),
    ("and", {"algorithm": "perceptron"}),
    ("and", {"algorithm": "winnow", "order": "random"}),
    ("xor", {"algorithm": "perceptron"}),  # a cycle of one epoch
    ("xor", {"algorithm": "balanced-winnow"}),
    ("cycle-3", {"algorithm": "perceptron"}),  # cycles of several epochs
    ("cycle-19", {"algorithm": "perceptron"}),
]

CYCLES = {  # small data on which the perceptron cycles with a period of 3 or 19 epochs
    "cycle-3": Dataset([[0, 0], [-1, 3], [-1, 1], [-1, 0]], [1, -1, 1, -1]),
    "cycle-19": Dataset(
        [[-3, -2], [-2, -2], [2, 3], [1, -3], [-3, -1], [0, 1]], [-1, -1, -1, 1, 1, -1]
    ),
}


@pytest.mark.parametrize(("preset", "params"), REPEATING, ids=lambda p: str(p))
def test_a_run_that_repeats_its_epochs_jumps_and_records_what_stepping_does(preset, params, scored):
    """Past the epoch whose end state equals its start state bit for bit (Adaline's floats
    reach such a fixed point; a converged perceptron is one), `run` jumps whole epochs and
    records their mistakes and losses: the same as stepping trial by trial."""
    ds = CYCLES[preset] if preset in CYCLES else load_preset(preset)
    trials = 12_000 + 3  # the last epoch cut short
    stepped = Simulation(ds, **params)
    records = [stepped.step() for _ in range(trials)]
    sim = Simulation(ds, **params)
    scored.clear()
    assert sim.run(trials, until_converged=False) == trials
    assert sum(scored) < trials // 2  # the repeated epochs were skipped, not scored
    assert np.array_equal(sim.state, stepped.state)
    assert (sim.trials, sim.mistakes, sim.epoch, sim.converged_at) == (
        stepped.trials,
        stepped.mistakes,
        stepped.epoch,
        stepped.converged_at,
    )
    assert np.array_equal(sim.mistake_trials(), stepped.mistake_trials())
    assert np.array_equal(sim.epoch_losses(), stepped.epoch_losses())
    assert sim.last_trial == records[-1]
    for t in (trials, trials - 1, 10_000, 8001, 100, 1):
        sim.seek(t)
        assert sim.last_trial == records[t - 1]
        assert np.array_equal(sim.weights, records[t - 1].weights_after)
    assert sim.trial_records(9990, 10_010) == records[9989:10_010]
    sim.seek(9000)
    sim.run(500, until_converged=False)  # stepping on from a rewind replaces the future
    assert sim.trials == 9500 and np.array_equal(sim.weights, records[9499].weights_after)
    assert np.array_equal(
        sim.mistake_trials(), stepped.mistake_trials()[stepped.mistake_trials() <= 9500]
    )


def test_a_jump_does_not_pass_a_mistake_when_asked_to_stop_at_one():
    sim = Simulation(load_preset("xor"), "adaline", mode="batch")
    sim.run(100, until_converged=False)
    assert sim.run(10_000, until_converged=False, stop_on_mistake=True) == 1
    assert sim.trials == 101
