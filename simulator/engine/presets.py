"""Ready-made datasets for class: the boolean functions, iris, and random sets.

- ``and``, ``or``, ``xor``: the four corners of the unit square labelled by the function.
- ``iris``: setosa (+1) against the other two species (-1), on sepal length and width.
- ``separable``: random points in [-1, 1]² split by a random line, none closer to it than
  ``margin`` (measured in the input plane), seeded.
- ``noisy``: two overlapping Gaussian clouds, seeded, guaranteed not linearly separable.
- ``ring``: one class inside a circle, the other around it (for the RBF kernel perceptron).
- ``moons``: two interleaved half-moons (for the voted perceptron).
  Both are seeded and written with 2 decimals, so the data as written are exact.
- ``disjunction``: the CMU 15-859(B) setting for Winnow: 400 boolean examples over 64
  variables labelled by a hidden OR of 3 of them (Winnow: at most 2 + 3·3·(1 + 6) = 65
  mistakes). High-dimensional: the window shows it in its high-dimensional view.
- ``unl-disjunction``: the UNL CSCE 970 example x₅ ∨ x₉ ∨ x₁₂ over 150 variables, 300
  examples (Winnow: at most 2 + 9(1 + log₂ 150) ≈ 76 mistakes).

The two disjunction streams are `lab.disjunction_stream`s: each variable is on with
probability 1 − 2^(−1/3), so about half the examples are positive.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

import numpy as np

from simulator.engine.dataset import Dataset
from simulator.engine.lab import disjunction_stream
from simulator.engine.records import Settings
from simulator.engine.theory import margin_report_for

__all__ = ["PRESETS", "PRESET_TITLES", "iris_path", "load_preset"]

_CORNERS = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])


def iris_path() -> Path:
    """Where the bundled iris.csv lives: package data (simulator/data), so that an
    installed wheel has it too."""
    return Path(str(files("simulator") / "data" / "iris.csv"))


def _boolean(table: tuple[int, int, int, int]) -> Dataset:
    return Dataset(_CORNERS, np.array(table))


def iris() -> Dataset:
    """Setosa (+1) against versicolor and virginica (-1), on sepal length and width (cm)."""
    path = iris_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"the iris preset needs {path}: {exc.strerror}") from None
    header = lines[0].split(",")
    length, width, species = (header.index(c) for c in ("sepal_length", "sepal_width", "species"))
    rows = [line.split(",") for line in lines[1:] if line.strip()]
    points = np.array([[float(r[length]), float(r[width])] for r in rows])
    labels = np.array([1 if r[species] == "setosa" else -1 for r in rows])
    return Dataset(points, labels, names=("sepal_length", "sepal_width"))


def iris3() -> Dataset:
    """All 150 iris flowers, three species (classes in the file's order), on petal length
    and width (cm)."""
    path = iris_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"the iris3 preset needs {path}: {exc.strerror}") from None
    header = lines[0].split(",")
    length, width, species = (header.index(c) for c in ("petal_length", "petal_width", "species"))
    rows = [line.split(",") for line in lines[1:] if line.strip()]
    names = list(dict.fromkeys(r[species] for r in rows))
    points = np.array([[float(r[length]), float(r[width])] for r in rows])
    labels = np.array([names.index(r[species]) for r in rows])
    return Dataset(points, labels, names=("petal_length", "petal_width"), class_names=names)


def blobs3(n: int = 45, seed: int = 0) -> Dataset:
    """Three round clouds of n/3 points each, apart (separable by a linear machine), written
    with two decimals."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4,)))
    centres = np.array([[-1.5, -1.0], [1.5, -1.0], [0.0, 1.6]])
    labels = np.repeat(np.arange(3), n // 3)
    points = (centres[labels] + rng.normal(0.0, 0.45, size=(labels.size, 2))).round(2)
    return Dataset(points, labels, class_names=("a", "b", "c"))


def cmu() -> Dataset:
    """The worked example of CMU 10-601 lecture 10: six points, no bias; with + iff θ·x ≥ 0
    the perceptron goes θ = (0, 0) → (1, −2) → (2, −1) → (3, 1)."""
    points = [[-1, 2], [1, 0], [1, 1], [-1, 0], [-1, -2], [1, -1]]
    return Dataset(np.array(points, dtype=float), np.array([-1, 1, 1, -1, -1, 1]))


def separable(n: int = 40, margin: float = 0.2, seed: int = 0) -> Dataset:
    """n points in [-1, 1]² on either side of a random line, at least `margin` from it."""
    if n < 1:
        raise ValueError("a separable preset needs at least one point")
    if not 0 <= margin < 0.5:
        raise ValueError("the margin must be in [0, 0.5)")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,)))
    angle = rng.uniform(0, 2 * np.pi)
    normal = np.array([np.cos(angle), np.sin(angle)])
    offset = rng.uniform(-0.3, 0.3)
    points = np.empty((0, 2))
    while len(points) < n:
        candidates = rng.uniform(-1, 1, size=(4 * n, 2))
        distance = candidates @ normal + offset
        points = np.vstack((points, candidates[np.abs(distance) >= margin]))
    points = points[:n]
    labels = np.where(points @ normal + offset > 0, 1, -1)
    return Dataset(points, labels)


def noisy(n: int = 40, seed: int = 0) -> Dataset:
    """Two overlapping Gaussian clouds; never linearly separable (redrawn until it is not)."""
    if n < 4:
        raise ValueError("a noisy preset needs at least four points")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3,)))
    while True:
        labels = np.where(np.arange(n) % 2 == 0, 1, -1)
        points = rng.normal(0.0, 0.55, size=(n, 2)) + 0.35 * labels[:, None]
        X = np.column_stack((np.ones(n), points))
        if not margin_report_for(X, labels.astype(np.int8)).separable:
            return Dataset(points, labels)


def ring(inner: int = 14, outer: int = 22, seed: int = 0) -> Dataset:
    """One class (+1) inside a circle of radius about 0.5, the other (−1) around it at
    about 1.2: no line separates them, the RBF kernel does. Seeded, written with 2
    decimals (so the data as written are exactly the points)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4,)))

    def circle(count: int, radius: float, spread: float) -> np.ndarray:
        angle = 2 * np.pi * (np.arange(count) + rng.uniform(-0.3, 0.3, count)) / count
        r = radius + rng.uniform(-spread, spread, count)
        return np.column_stack((r * np.cos(angle), r * np.sin(angle)))

    points = np.round(np.vstack((circle(inner, 0.45, 0.15), circle(outer, 1.25, 0.15))), 2)
    labels = np.concatenate((np.ones(inner, dtype=int), -np.ones(outer, dtype=int)))
    return Dataset(points, labels)


def moons(n: int = 40, noise: float = 0.08, seed: int = 0) -> Dataset:
    """Two interleaved half-moons: the upper (+1) on the unit circle's top half, the lower
    (−1) that arc turned over and moved by (1, 0.5); n points in all, jittered by
    `noise`, seeded, written with 2 decimals. Not linearly separable."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(5,)))
    upper, lower = (n + 1) // 2, n // 2
    t_upper = np.linspace(0.0, np.pi, upper)
    t_lower = np.linspace(0.0, np.pi, lower)
    points = np.vstack(
        (
            np.column_stack((np.cos(t_upper), np.sin(t_upper))),
            np.column_stack((1.0 - np.cos(t_lower), 0.5 - np.sin(t_lower))),
        )
    )
    points = np.round(points + rng.normal(0.0, noise, points.shape), 2)
    labels = np.concatenate((np.ones(upper, dtype=int), -np.ones(lower, dtype=int)))
    return Dataset(points, labels)


def disjunction() -> Dataset:
    """CMU 15-859(B): 400 examples over x1…x64, labelled by a hidden OR of 3 of them."""
    return disjunction_stream(64, 3, 400, seed=0)


def unl_disjunction() -> Dataset:
    """UNL CSCE 970: x5 ∨ x9 ∨ x12 over 150 boolean variables, 300 examples."""
    return disjunction_stream(150, 3, 300, seed=0, variables=(5, 9, 12))


_PERCEPTRON = Settings()
_WINNOW = Settings("winnow", bias=False)  # θ = n, as in the notes
_MULTICLASS = Settings("multiclass-perceptron")
_RING = Settings("kernel-perceptron", kernel="rbf")  # σ = 1 for radii 0.45 and 1.25

_PRESETS: tuple[tuple[str, str, Callable[[], Dataset], Settings], ...] = (
    # name (the command line's), title (the window's menu), factory, the settings it brings
    ("and", "AND (4 corners)", lambda: _boolean((-1, -1, -1, 1)), _PERCEPTRON),
    ("or", "OR (4 corners)", lambda: _boolean((-1, 1, 1, 1)), _PERCEPTRON),
    ("xor", "XOR (not separable by a line)", lambda: _boolean((-1, 1, 1, -1)), _PERCEPTRON),
    ("cmu", "CMU 10-601 worked example (no bias)", cmu, Settings(bias=False, tie="positive")),
    ("iris", "Iris: setosa vs the rest", iris, _PERCEPTRON),
    ("separable", "Random separable", separable, _PERCEPTRON),
    ("noisy", "Random noisy (not separable)", noisy, _PERCEPTRON),
    ("ring", "Ring: a class inside a circle (RBF kernel)", ring, _RING),
    ("moons", "Two moons (voted perceptron)", moons, Settings("voted-perceptron")),
    ("disjunction", "Winnow: an OR of 3 of 64 variables (15-859)", disjunction, _WINNOW),
    ("unl-disjunction", "Winnow: x5 ∨ x9 ∨ x12 of 150 variables (UNL)", unl_disjunction, _WINNOW),
    ("iris3", "Iris: three species (petals)", iris3, _MULTICLASS),
    ("blobs3", "Three blobs (three classes)", blobs3, _MULTICLASS),
)

PRESETS: dict[str, Callable[[], Dataset]] = {name: make for name, _, make, _ in _PRESETS}
"""The presets by name, in menu order: each makes its dataset."""

PRESET_TITLES: dict[str, str] = {name: title for name, title, _, _ in _PRESETS}
"""What the window's menu calls each preset, by name."""

PRESET_SETTINGS: dict[str, Settings] = {name: settings for name, _, _, settings in _PRESETS}
"""The learner and settings each preset brings (a demo works the first time)."""


def load_preset(name: str) -> Dataset:
    """The preset called `name` (see PRESETS)."""
    try:
        factory = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}") from None
    return factory()
