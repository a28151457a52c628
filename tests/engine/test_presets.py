import math

import numpy as np
import pytest

from simulator.engine import PRESET_TITLES, PRESETS, Simulation, load_preset, margin_report
from simulator.engine.lab import consistent_disjunction, hidden_disjunction
from simulator.engine.presets import noisy, separable


@pytest.mark.parametrize(
    ("name", "n", "is_separable"),
    [
        ("and", 4, True),
        ("or", 4, True),
        ("xor", 4, False),
        ("iris", 150, True),
        ("separable", 40, True),
        ("noisy", 40, False),
    ],
)
def test_presets(name, n, is_separable):
    ds = load_preset(name)
    assert len(ds) == n and ds.dimension == 2
    assert margin_report(ds).separable == is_separable


def test_iris_is_setosa_against_the_rest_on_sepal_length_and_width():
    ds = load_preset("iris")
    assert ds.names == ("sepal_length", "sepal_width")
    assert ds.count(1) == 50 and ds.count(-1) == 100
    assert ds.points[0].tolist() == [5.1, 3.5] and ds.labels[0] == 1


@pytest.mark.parametrize("seed", range(25))
def test_random_presets_keep_their_promise_for_every_seed(seed):
    assert not margin_report(noisy(seed=seed)).separable
    ds = separable(n=30, margin=0.25, seed=seed)
    assert margin_report(ds).separable and len(ds) == 30
    assert separable(seed=seed) == separable(seed=seed)


def test_unknown_preset():
    with pytest.raises(ValueError, match="unknown preset 'circle'"):
        load_preset("circle")
    assert set(PRESETS) == {
        "and",
        "or",
        "xor",
        "iris",
        "separable",
        "noisy",
        "ring",
        "moons",
        "disjunction",
        "unl-disjunction",
        "cmu",
        "iris3",
        "blobs3",
    }


def test_every_preset_has_a_title_for_the_menu():
    assert list(PRESET_TITLES) == list(PRESETS)  # the same presets, in the same order
    titles = list(PRESET_TITLES.values())
    assert all(title.strip() for title in titles) and len(set(titles)) == len(titles)
    assert PRESET_TITLES["xor"] == "XOR (not separable by a line)"


def test_each_preset_brings_the_settings_its_demo_needs():
    """A demo works the first time: the disjunctions run the notes' Winnow (no bias, θ = n:
    the bound 65 on `disjunction`), the CMU example its own perceptron (no bias, + iff
    θ·x ≥ 0: θ = (1, −2), (2, −1), (3, 1)), the three-class presets a multiclass learner."""
    from simulator.engine import Simulation
    from simulator.engine.presets import PRESET_SETTINGS

    assert set(PRESET_SETTINGS) == set(PRESETS)
    winnow = Simulation.from_settings(load_preset("disjunction"), PRESET_SETTINGS["disjunction"])
    assert winnow.threshold == 64 and winnow.mistake_bound() == 65
    cmu = Simulation.from_settings(load_preset("cmu"), PRESET_SETTINGS["cmu"])
    cmu.run(6)
    updates = [t.weights_after for t in cmu.trial_records(1, 6) if t.mistake]
    assert updates == [(1.0, -2.0), (2.0, -1.0), (3.0, 1.0)]
    for name in ("iris3", "blobs3"):
        Simulation.from_settings(load_preset(name), PRESET_SETTINGS[name])


@pytest.mark.parametrize(
    ("name", "n", "examples", "variables"),
    [
        ("disjunction", 64, 400, hidden_disjunction(64, 3, 0)),
        ("unl-disjunction", 150, 300, (5, 9, 12)),
    ],
)
def test_the_disjunction_presets_of_the_notes(name, n, examples, variables):
    ds = load_preset(name)
    assert (len(ds), ds.dimension) == (examples, n) and len(variables) == 3
    X = ds.points
    assert np.all((X == 0) | (X == 1))
    assert np.array_equal(ds.labels == 1, X[:, [v - 1 for v in variables]].any(axis=1))
    assert consistent_disjunction(ds) == variables  # the data pin the hidden OR down
    assert 0.4 < ds.count(1) / len(ds) < 0.6
    # Winnow in the notes' setting gets the notes' bound, and keeps to it.
    sim = Simulation(ds, "winnow", bias=False)
    assert sim.mistake_bound() == pytest.approx(2 + 3 * 3 * (1 + math.log2(n)))
    sim.run(50 * examples)
    assert sim.converged and sim.mistakes <= sim.mistake_bound()
