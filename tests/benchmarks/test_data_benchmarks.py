"""Data numbers to hold: loading 1,000,000 CSV rows, and an edit at 100,000 and 1,000,000
points (the dataset, R and γ* after one add or move).

Run with: pytest tests/benchmarks/test_data_benchmarks.py -s
"""

import statistics
import time

import numpy as np
import pytest

from simulator.engine import Dataset, load_csv, margin_report
from simulator.engine.presets import noisy, separable


def test_a_million_csv_rows_load_in_2_s_and_within_3x_numpy_loadtxt(compare, tmp_path):
    ds = separable(n=1_000_000, margin=0.05, seed=0)
    path = tmp_path / "million.csv"
    path.write_text(ds.to_csv())
    assert load_csv(path) == ds

    def peer():
        return np.loadtxt(path, delimiter=",", skiprows=1)

    ours, _, ratio = compare(lambda: load_csv(path), peer, rounds=3)
    assert ours <= 2.0
    assert ratio <= 3.0


def _an_edit(ds, report, rng, kind):
    """A random add or move. On separable data the point stays on its side of the optimal
    separator, often inside the old margin, so that the support changes."""
    u = np.array(report.separator) if report.separable else None
    while True:
        if kind == "add":
            index, point = None, rng.uniform(-1, 1, 2)
        else:
            index = int(rng.integers(len(ds)))
            point = ds.points[index] + rng.normal(0, 0.02, 2)
        side = 1 if u is None else int(np.sign(u[0] + u[1:] @ point))
        if side == 0:
            continue
        if kind == "add":
            label = int(rng.choice([-1, 1])) if u is None else side
            return lambda: ds.with_point(point, label)
        if u is None or side == ds.labels[index]:
            return lambda: ds.moved(index, point)


@pytest.mark.parametrize("n", [100_000, 1_000_000])
@pytest.mark.parametrize("data", ["separable", "noisy"])
def test_an_edit_updates_dataset_and_theory_fast(benchmark, n, data):
    """Dataset edit (with its conflicting pairs) + R + γ*, warm, against rebuilding from
    scratch (a new Dataset, its conflicts, a cold γ*): ≤ 30 ms at 100,000, ≤ 300 ms at 10⁶."""
    ds = separable(n=n, margin=0.05, seed=0) if data == "separable" else noisy(n=n, seed=0)
    ds.conflicting_pairs()
    report = margin_report(ds)
    rng = np.random.default_rng(1)
    samples = {"add": [], "move": [], "scratch": []}
    for _ in range(7):
        for kind in ("add", "move"):
            edit = _an_edit(ds, report, rng, kind)
            start = time.perf_counter()
            new = edit()
            new.conflicting_pairs()
            warm = margin_report(new, previous=report)
            samples[kind].append(time.perf_counter() - start)
            start = time.perf_counter()
            scratch = Dataset(new.points, new.labels)
            scratch.conflicting_pairs()
            cold = margin_report(scratch)
            samples["scratch"].append(time.perf_counter() - start)
            assert warm == cold and warm.separable == (data == "separable")
            ds, report = new, warm
    medians = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    benchmark.extra_info.update({f"{k}_median_ms": round(v, 2) for k, v in medians.items()})
    benchmark.pedantic(lambda: margin_report(ds, previous=report), rounds=3, iterations=1)
    print(
        f"\n  {data} n={n}: add {medians['add']:.1f} ms, move {medians['move']:.1f} ms, "
        f"from scratch {medians['scratch']:.1f} ms"
    )
    limit = 30.0 if n == 100_000 else 300.0
    assert max(medians["add"], medians["move"]) <= limit
