"""Memory to hold: loading a CSV costs at most 3× its size (issue 21, case 11: a 1 GB CSV
peaked at 6 GB before it was read in pieces).

A CSV of about 150 MB (2-D points written as Python writes floats, the app's own format)
is loaded by `load_dataset` in a child process; the child's peak resident memory (which
includes Python and NumPy themselves) is compared with the file's size. On Linux the peak
is the child's VmHWM: its `ru_maxrss` starts at the parent's peak (the resident memory of
the forked copy counts before exec replaces it), which here holds the data just written.

Run with: pytest tests/benchmarks/test_memory_benchmarks.py -s
"""

import json
import os
import subprocess
import sys

import numpy as np

from simulator.engine import Dataset

CHILD = """
import json, resource, sys
from simulator.engine import load_dataset
dataset = load_dataset(sys.argv[1])
try:
    with open("/proc/self/status") as status:
        peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) * 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"points": len(dataset), "peak": peak}))
"""


def _peak_of_loading(path):
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_a_150_mb_csv_loads_in_at_most_3x_its_size(benchmark, tmp_path):
    rng = np.random.default_rng(0)
    n = 3_500_000  # about 150 MB
    points = rng.normal(size=(n, 2))
    labels = np.where(points[:, 0] + points[:, 1] > 0, 1, -1)
    path = tmp_path / "big.csv"
    path.write_text(Dataset(points, labels).to_csv())
    del points, labels
    size = os.path.getsize(path)
    found = _peak_of_loading(path)
    ratio = found["peak"] / size
    benchmark.extra_info.update(
        file_mb=round(size / 2**20, 1), peak_mb=round(found["peak"] / 2**20, 1), ratio=ratio
    )
    print(
        f"\n{size / 2**20:.0f} MB CSV, {found['points']:,} points: peak RSS "
        f"{found['peak'] / 2**20:.0f} MB = {ratio:.2f}× the file"
    )
    assert found["points"] == n
    assert ratio <= 3.0
    benchmark.pedantic(lambda: None, rounds=1)
