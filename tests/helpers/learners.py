"""What the tests of each learner check alike: exact rows of data as written, the tie rule
on exact scores, run against step, the compiled loops against NumPy, a session round
trip and an export from the command line."""

from fractions import Fraction

import numpy as np

from simulator.engine import Dataset, Simulation
from simulator.engine.learners import exact
from simulator.engine.session import load_session, save_session

CMU_POINTS = [[-1, 2], [1, 0], [1, 1], [-1, 0], [-1, -2], [1, -1]]
CMU_LABELS = [-1, 1, 1, -1, -1, 1]
"""The CMU 10-601 lecture's six points, in its order (no bias, + iff θ·x ≥ 0)."""


def cmu() -> Dataset:
    return Dataset(CMU_POINTS, CMU_LABELS)


def exact_rows(text, bias):
    """The rows as written, in fractions, with the constant 1 first when `bias`."""
    rows = [[Fraction(v) for v in p] for p in text]
    return [[Fraction(1), *r] for r in rows] if bias else rows


def dot(a, b):
    return sum((x * y for x, y in zip(a, b, strict=True)), Fraction(0))


def predicts(score, tie):
    """The prediction for an exact score by a tie rule (0: undecided)."""
    if score != 0:
        return 1 if score > 0 else -1
    return {"mistake": 0, "positive": 1, "negative": -1}[tie]


def right_count(w, rows, labels, tie):
    """How many rows w gets right, exactly."""
    return sum(predicts(dot(w, x), tie) == y for x, y in zip(rows, labels, strict=True))


def indices_of(sim, trials):
    """The row each of the first `trials` trials showed."""
    return [trial.index for trial in sim.trial_records(1, trials)]


def stepped_and_run(ds, algorithm, trials, chunks=(), **kwargs):
    """(stepped, run): the same settings, one stepped trial by trial, one run in `chunks`
    (then the rest at once)."""
    stepped = Simulation(ds, algorithm, **kwargs)
    records = [stepped.step() for _ in range(trials)]
    run = Simulation(ds, algorithm, **kwargs)
    for chunk in chunks:
        run.run(chunk, until_converged=False)
    run.run(trials - run.trials, until_converged=False)
    return stepped, run, records


def without_compiled_loops(monkeypatch):
    """The NumPy path: the compiled scan and learning loops taken away."""
    monkeypatch.setattr(exact, "compiled", None)
    monkeypatch.setattr(exact, "learning", None)


def session_round_trip(tmp_path, ds, settings, trials):
    """Run, save, load and replay: (the run, the replay)."""
    sim = Simulation.from_settings(ds, settings)
    sim.run(trials, until_converged=False)
    path = tmp_path / "run.lab.json"
    save_session(path, ds, settings, sim.trials, state=sim.state)
    session = load_session(path)
    assert session.settings == settings
    again = session.simulation()
    assert session.verify(again) is None
    return sim, again


def export_frames(tmp_path, algorithm, *options):
    """`main.py export` of five trials on the noisy preset: the frames written."""
    from simulator.cli import main

    out = tmp_path / "frames"
    argv = ["export", "--dataset", "noisy", "--algorithm", algorithm, "--trials", "5",
            "--out", str(out), "--size", "320x240", *options]  # fmt: skip
    assert main(argv) == 0
    return sorted(p.name for p in out.glob("frame_*.png"))


__all__ = [
    "CMU_LABELS",
    "CMU_POINTS",
    "cmu",
    "dot",
    "exact_rows",
    "export_frames",
    "indices_of",
    "predicts",
    "right_count",
    "session_round_trip",
    "stepped_and_run",
    "without_compiled_loops",
]


def chunked_and_stepped(algorithm, seed, n, order, chunks, decimals):
    """Random data (n points, rounded to `decimals` or not), one run of `algorithm` in the
    stretches `chunks` and one stepped trial by trial: (chunked, stepped, the stepped
    trials). Asserts what every learner owes: the same state, mistakes and convergence."""
    rng = np.random.default_rng(seed)
    points = rng.uniform(-2, 2, size=(n, 2))
    points = points if decimals is None else np.round(points, decimals)
    ds = Dataset(points, np.where(rng.random(n) < 0.5, 1, -1))
    stepped = Simulation(ds, algorithm, order=order, seed=seed)
    records = [stepped.step() for _ in range(sum(chunks))]
    fast = Simulation(ds, algorithm, order=order, seed=seed)
    for chunk in chunks:
        fast.run(chunk, until_converged=False)
    assert np.array_equal(fast.state, stepped.state)
    assert fast.mistake_trials().tolist() == stepped.mistake_trials().tolist()
    assert fast.converged_at == stepped.converged_at
    return fast, stepped, records
