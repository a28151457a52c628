"""The Winnow lab's race at its largest size, against a plain NumPy peer in the same run.

Run with: python -m pytest tests/benchmarks/test_lab_benchmarks.py -s

Target (the brief): the whole race (Perceptron, Winnow, Balanced Winnow, one pass each) on
n = 4096 variables and 5,000 examples in at most 5 s. The peer runs the same three rules
one trial at a time with `w @ x` (BLAS), which is what a student would write; our race goes
through `Simulation`, which must give exactly the trajectory of `step` and keep a history.
"""

import time

import numpy as np

from simulator.engine.lab import disjunction_stream, hidden_disjunction, race

N, R, EXAMPLES = 4096, 2, 5000


def peer_race(X, y):
    """Perceptron (bias, y·w·x ≤ 0 updates), Winnow (θ = n, + iff w·x ≥ θ, α = 2) and
    Balanced Winnow (bias, + iff w⁺·x − w⁻·x ≥ 0, α = 2), one pass each; their mistakes."""
    m, n = X.shape
    ones = np.ones((m, 1))
    Xb = np.hstack((ones, X))
    mistakes = []
    w = np.zeros(n + 1)
    k = 0
    for x, label in zip(Xb, y, strict=True):
        if label * (w @ x) <= 0:
            w += label * x
            k += 1
    mistakes.append(k)
    w = np.ones(n)
    k = 0
    for x, label in zip(X, y, strict=True):
        if (1 if w @ x >= n else -1) != label:
            w *= 2.0 ** (label * x)
            k += 1
    mistakes.append(k)
    plus, minus = np.ones(n + 1), np.ones(n + 1)
    k = 0
    for x, label in zip(Xb, y, strict=True):
        if (1 if plus @ x - minus @ x >= 0 else -1) != label:
            plus *= 2.0 ** (label * x)
            minus *= 2.0 ** (-label * x)
            k += 1
    mistakes.append(k)
    return mistakes


def test_the_race_at_n_4096_with_5000_examples(compare):
    start = time.perf_counter()
    stream = disjunction_stream(N, R, EXAMPLES, seed=0)
    drawn = time.perf_counter() - start
    variables = hidden_disjunction(N, R, 0)
    results = race(stream, variables=variables)
    theirs = peer_race(stream.points, stream.labels)
    print(
        f"\n  stream drawn in {drawn:.2f} s; mistakes ours "
        f"{[r.mistakes for r in results]}, peer {theirs}"
    )
    assert results[0].mistakes == theirs[0]  # the perceptron's integer arithmetic is exact
    mine, _, _ = compare(
        lambda: race(stream, variables=variables),
        lambda: peer_race(stream.points, stream.labels),
        rounds=3,
    )
    perceptron, winnow = results[0], results[1]
    print(
        f"  race {mine:.2f} s (target 5 s); at n = {N}: perceptron {perceptron.mistakes}, "
        f"winnow {winnow.mistakes} ({perceptron.mistakes / winnow.mistakes:.1f}x fewer)"
    )
    assert mine <= 5.0
