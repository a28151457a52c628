"""Replay jumps over what cannot change: past convergence a mistake-driven run stands still,
so seeking far past it scores no more trials than seeking to the convergence trial."""

import numpy as np
import pytest

from simulator.engine import Simulation, load_preset
from simulator.engine.simulation import Simulation as SimulationClass


@pytest.fixture
def scored(monkeypatch):
    """A list that gets how many trials each call of the run code scored (replay included)."""
    counts: list[int] = []
    advance = SimulationClass._advance

    def counting(self, live, segment, limit, leg):
        ran = advance(self, live, segment, limit, leg)
        counts.append(ran)
        return ran

    monkeypatch.setattr(SimulationClass, "_advance", counting)
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
