"""The simulation core: data, update rules, the run with its history, and the theory.

Python, NumPy and SciPy (Qhull for the hull of non-separable data); it never imports Qt.
"""

from simulator.engine.dataset import (
    DataFileError,
    Dataset,
    load_csv,
    load_dataset,
    load_json,
    parse_csv,
    parse_json,
)
from simulator.engine.features import PREPROCESSINGS, FeatureMap, InputLine
from simulator.engine.presets import PRESET_TITLES, PRESETS, load_preset
from simulator.engine.rules import ALGORITHMS, TIE_TEXT, TIES, Parameter, Rule, register
from simulator.engine.simulation import ORDERS, Settings, Simulation, Snapshot, Trial
from simulator.engine.theory import (
    AdalineReport,
    MarginReport,
    adaline_report,
    general_mistake_bound,
    winnow_disjunction_bound,
)
from simulator.engine.theory import margin_report_for as _margin_report_for

__all__ = [
    "ALGORITHMS",
    "ORDERS",
    "PREPROCESSINGS",
    "PRESETS",
    "PRESET_TITLES",
    "TIES",
    "TIE_TEXT",
    "AdalineReport",
    "DataFileError",
    "Dataset",
    "FeatureMap",
    "InputLine",
    "MarginReport",
    "Parameter",
    "Rule",
    "Settings",
    "Simulation",
    "Snapshot",
    "Trial",
    "adaline_report",
    "general_mistake_bound",
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
) -> MarginReport:
    """R, γ*, R²/γ*² and the optimal separator of `dataset` in feature space.

    `previous`, the report before an edit, warm-starts the solve (the result is the same).
    """
    features = FeatureMap(dataset, bias=bias, preprocessing=preprocessing)
    return _margin_report_for(features.transform(dataset.points), dataset.labels, previous)
