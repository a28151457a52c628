"""The simulation core: data, update rules, the run with its history, and the theory.

Python, NumPy and SciPy (Qhull for the hull of non-separable data); it never imports Qt.
"""

import numpy as np
from numpy.typing import NDArray

from simulator.engine.dataset import DataFileError, Dataset
from simulator.engine.features import FEATURE_MAPS, PREPROCESSINGS, FeatureMap, InputLine
from simulator.engine.learners import (
    LEARNERS,
    TIE_TEXT,
    TIES,
    Bound,
    Learner,
    Parameter,
    Parameters,
    register,
)
from simulator.engine.learners import (
    kessler_points as _kessler_points,
)
from simulator.engine.presets import PRESET_SETTINGS, PRESET_TITLES, PRESETS, load_preset
from simulator.engine.readers import load_csv, load_dataset, load_json, parse_csv, parse_json
from simulator.engine.simulation import ORDERS, Settings, Simulation, Snapshot, Trial
from simulator.engine.theory import (
    AdalineReport,
    MarginReport,
    adaline_report,
    general_mistake_bound,
    winnow_disjunction_bound,
)
from simulator.engine.theory import margin_report_for as _margin_report_for

ALGORITHMS = LEARNERS  # the round-2 name
Rule = Learner  # the round-2 name

__all__ = [
    "ALGORITHMS",
    "FEATURE_MAPS",
    "LEARNERS",
    "ORDERS",
    "PREPROCESSINGS",
    "PRESETS",
    "PRESET_SETTINGS",
    "PRESET_TITLES",
    "TIES",
    "TIE_TEXT",
    "AdalineReport",
    "Bound",
    "DataFileError",
    "Dataset",
    "FeatureMap",
    "InputLine",
    "Learner",
    "MarginReport",
    "Parameter",
    "Parameters",
    "Rule",
    "Settings",
    "Simulation",
    "Snapshot",
    "Trial",
    "adaline_report",
    "general_mistake_bound",
    "kessler_points",
    "load_csv",
    "load_dataset",
    "load_json",
    "load_preset",
    "margin_report",
    "parse_csv",
    "parse_json",
    "register",
    "winnow_disjunction_bound",
]


def margin_report(
    dataset: Dataset,
    bias: bool = True,
    preprocessing: str = "none",
    previous: MarginReport | None = None,
    *,
    features: str = "linear",
) -> MarginReport:
    """R, γ*, R²/γ*² and the optimal separator of `dataset` in feature space.

    `previous`, the report before an edit, warm-starts the solve (the result is the same).
    """
    feature_map = FeatureMap(dataset, bias=bias, preprocessing=preprocessing, features=features)
    return _margin_report_for(feature_map.transform(dataset.points), dataset.labels, previous)


def kessler_points(dataset: Dataset, bias: bool = True) -> NDArray[np.float64]:
    """Kessler's vectors of a dataset of K classes (UNL CSCE 970): for point i of class c
    and each other class j, in increasing order, x (bias first) in block c and −x in
    block j, zeros elsewhere; one row per (point, j), in point order, K·D columns. Two
    classes −1, +1 are classes 0 and 1 here (`Dataset.with_classes`)."""
    features = FeatureMap(dataset, bias=bias).transform(dataset.points)
    labels = dataset.labels if len(dataset.classes) > 2 else (dataset.labels > 0).astype(np.int8)
    Z, _, _ = _kessler_points(features, labels, len(dataset.classes))
    return Z
