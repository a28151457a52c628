"""Shared test setup: Qt renders offscreen; benchmarks run only when asked for by path."""

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

_BENCHMARKS = Path(__file__).parent / "benchmarks"


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Skip tests/benchmarks unless a command-line argument points into it."""
    if _BENCHMARKS not in (collection_path, *collection_path.parents):
        return None
    asked = (Path(str(arg).split("::")[0]).resolve() for arg in config.args)
    if any(a == _BENCHMARKS or _BENCHMARKS in a.parents for a in asked):
        return None
    return True
