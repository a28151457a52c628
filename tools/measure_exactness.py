"""How many random perceptron runs differ from exact rational arithmetic, per eta and scale.

    PYTHONPATH=. python tools/measure_exactness.py [RUNS]

Each run: 2-6 points with coordinates m·10^e (|m| <= 30) written as decimals, random labels,
bias on or off, cyclic or random order, 200 trials; its mistake trials are compared with
the oracle of tests/engine/test_ties.py (Fractions on the data as written). The README's
"What the numbers mean" quotes its output.
"""

import random
import sys

from tests.engine.test_exact_verdicts import _perceptron_case

rng = random.Random(0)
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 60
for rate in ["1", "0.5", "0.1", "0.3", "7"]:
    row = []
    for scale in ["e-150", "e-8", "e-4", "e0", "e5", "e8", "e13", "e14", "e100"]:
        differ = 0
        for _ in range(runs):
            n = rng.randint(2, 6)
            text = [[f"{rng.randint(-30, 30)}{scale}" for _ in range(2)] for _ in range(n)]
            labels = [rng.choice([-1, 1]) for _ in range(n)]
            sim, exact, _ = _perceptron_case(
                text, labels, rate, rng.random() < 0.5, rng.choice(["cyclic", "random"])
            )
            differ += sim.mistake_trials().tolist() != exact
        row.append(f"{scale}:{differ}")
    print(f"eta={rate}: " + " ".join(row), f"(of {runs} each)", flush=True)
