"""Benchmark helpers: time ours and a peer in the same run, alternating, and compare medians."""

import statistics
import time

import pytest


def median_times(functions, rounds):
    """Median seconds of each function, calling them in turn `rounds` times (after a warm-up)."""
    for fn in functions:
        fn()
    samples = [[] for _ in functions]
    for _ in range(rounds):
        for fn, bucket in zip(functions, samples, strict=True):
            start = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - start)
    return [statistics.median(bucket) for bucket in samples]


@pytest.fixture
def compare(benchmark):
    """compare(ours, peer, rounds) -> (ours median, peer median, ratio); recorded in the report."""

    def run(ours, peer, rounds=9):
        mine, theirs = median_times([ours, peer], rounds)
        benchmark.extra_info.update(
            ours_median_ms=round(mine * 1e3, 3),
            peer_median_ms=round(theirs * 1e3, 3),
            ratio=round(mine / theirs, 3),
        )
        benchmark.pedantic(ours, rounds=3, iterations=1)
        print(
            f"\n  ours {mine * 1e3:.2f} ms, peer {theirs * 1e3:.2f} ms, ratio {mine / theirs:.3f}"
        )
        return mine, theirs, mine / theirs

    return run
