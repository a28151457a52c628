"""Sessions: the points, the learner's settings and the trial reached, in one file.

A session file, NAME.lab.json, is JSON:

    {"format": "linear-classifier-lab session", "version": 2,
     "names": [...], "points": [[...], ...], "labels": [...], "class_names": [...],
     "settings": {"algorithm": ..., "parameters": {the learner's, by name}, "tie": ...,
                  "bias": ..., "preprocessing": ..., "features": ..., "order": ...,
                  "seed": ..., "initial_weights": ..., "tolerance": ...},
     "trial": t, "state": the learner's weights after trial t (optional)}

Version 1 (round 2) kept the parameters as settings of their own (learning_rate,
promotion, threshold, mode); it still opens. Every setting is checked as the command line
checks it: a parameter by its learner's declaration, a choice against the engine's.

Floats are written as Python's repr, which reads back to the same bits, so the points and
settings are exact. It is also a data file: `load_dataset` reads its points.

Restoring replays: `Session.simulation()` builds the `Simulation` from the settings and
runs it to the trial, so the history (rewind, ledger, charts) is rebuilt and the weights
come out bit for bit as they were. Two cases cannot replay to the saved trial, and the
session still opens (the points and settings are never lost):

- no points: the run stays at trial 0;
- a trial beyond `MAX_REPLAY_TRIALS`: the replay stops there (a replay must not freeze the
  window for minutes).

The saved state, when present, checks the replay: if the points were edited during the run,
replaying on the final points gives other weights. `Session.verify(simulation)` says so in
one line (None when the replay matches); the replayed run is what opens.

A session file is at most `readers.MAX_JSON_BYTES` (128 MB, about two million 2-D points):
a larger one is refused before it is read (JSON is parsed whole, at several times its size
in memory), and a session that would be larger is not written (save such data as CSV).

Saving is atomic (`files.write_atomically`): a temporary file beside the target, flushed
to disk, then renamed over it, so a crash leaves the old file or the new one, never half of
one. Loading validates
every field and reports the first problem as a one-line `DataFileError` naming the file;
nothing in the file is executed (no pickle, no eval).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from simulator.engine.chunks import size_text
from simulator.engine.dataset import DataFileError, Dataset, json_text, short_repr
from simulator.engine.features import FEATURE_MAPS, PREPROCESSINGS
from simulator.engine.files import Cancelled, write_atomically
from simulator.engine.learners import LEARNERS, TIES, parameter_of
from simulator.engine.readers import (
    MAX_JSON_BYTES,
    dataset_from_json,
    json_document,
    json_number,
    read_json_text,
)
from simulator.engine.records import Settings
from simulator.engine.simulation import MAX_SEED, ORDERS, Simulation

__all__ = [
    "FORMAT",
    "MAX_REPLAY_TRIALS",
    "VERSION",
    "VERSIONS",
    "Session",
    "load_session",
    "save_session",
    "session_from_json",
    "session_to_json",
    "settings_from_json",
]

FORMAT = "linear-classifier-lab session"
VERSION = 2
VERSIONS = (1, 2)
"""The session formats this version reads (a file of another is refused, not guessed at)."""
MAX_REPLAY_TRIALS = 20_000_000
"""The furthest a restored session replays (the history holds this many trials in 64 MB)."""
MAX_TRIAL = 2**63 - 1
"""The largest trial a session may name (a run's 64-bit count); one beyond is no run's."""

_FIELDS: dict[str, tuple[str, Callable[[], Iterable[str]] | None]] = {
    "algorithm": ("text", lambda: LEARNERS),
    "tie": ("optional text", lambda: TIES),
    "bias": ("truth", None),
    "preprocessing": ("text", lambda: PREPROCESSINGS),
    "features": ("text", lambda: FEATURE_MAPS),
    "order": ("text", lambda: ORDERS),
    "seed": ("seed", None),
    "initial_weights": ("weights", None),
    "tolerance": ("number", None),
}
"""The settings besides the parameters: what each must be, and where its choices are."""
VERSION_1_PARAMETERS = ("learning_rate", "promotion", "threshold", "mode")


@dataclass(frozen=True, slots=True)
class Session:
    """What a session file holds: the data, the settings, the trial reached and (when it
    was saved) the rule's state after that trial, to check the replay."""

    dataset: Dataset
    settings: Settings
    trial: int
    state: tuple[Any, ...] | None = None
    origin: tuple[str, str] | None = None  # see `ORIGIN_KINDS` (autosaves keep it)

    @property
    def replay_trial(self) -> int:
        """The trial a replay reaches: `trial`, but 0 without points and at most
        MAX_REPLAY_TRIALS."""
        return 0 if len(self.dataset) == 0 else min(self.trial, MAX_REPLAY_TRIALS)

    def simulation(self, cancelled: Callable[[], bool] | None = None) -> Simulation:
        """The run rebuilt: the settings on the data, run to `replay_trial` (past convergence
        too, as the saved run may have been stepped on). `cancelled()` is asked between
        blocks of trials (at most an epoch each); once it is true, `Cancelled` is raised."""
        simulation = Simulation.from_settings(self.dataset, self.settings)
        if self.replay_trial:
            simulation.run(self.replay_trial, until_converged=False, cancelled=cancelled)
            if simulation.trials < self.replay_trial and cancelled is not None and cancelled():
                raise Cancelled
        return simulation

    def verify(self, simulation: Simulation) -> str | None:
        """None when `simulation` (from `simulation()`) is the saved run; else one line on
        how it differs."""
        if simulation.trials != self.trial:
            why = "there are no points" if len(self.dataset) == 0 else "replays stop there"
            return (
                f"the session was saved at trial {self.trial}; it opens at trial "
                f"{simulation.trials} ({why})"
            )
        if self.state is not None and not np.array_equal(
            np.asarray(self.state, dtype=np.float64), simulation.state
        ):
            return (
                f"replaying to trial {self.trial} does not give the saved weights (were points "
                "edited during the run?); showing the replay on the saved points"
            )
        return None


def session_to_json(
    dataset: Dataset,
    settings: Settings,
    trial: int,
    *,
    state: ArrayLike | None = None,
    origin: tuple[str, str] | None = None,
) -> str:
    """The session file's text (see the module docstring); `state` is `simulation.state`,
    `origin` which document the points were (see `ORIGIN_KINDS`).

    A ValueError, and no text, when something would not read back: a trial below 0, a
    setting that is not a finite number (JSON has no NaN or infinity; a NaN α that the
    perceptron never uses would still poison the file), a seed beyond 0 … 2³¹ − 1."""
    if isinstance(trial, bool) or not isinstance(trial, int | np.integer) or trial < 0:
        raise ValueError(f"the trial must be a whole number >= 0; got {short_repr(trial)}")
    _check_settings(settings)
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "names": list(dataset.names),
        "points": dataset.points,  # written in chunks (see `json_text`)
        "labels": dataset.labels,
        "class_names": list(dataset.class_names),
        "settings": settings_to_json(settings),
        "trial": int(trial),
        **_origin_to_json(origin),
    }
    if state is not None:
        document["state"] = np.asarray(state, dtype=np.float64).tolist()
    text = json_text(document) + "\n"
    if len(text) > MAX_JSON_BYTES:  # never write a session that would not open
        raise ValueError(
            f"a session of {len(dataset):,} points would be {size_text(len(text))}; "
            f"sessions hold at most {size_text(MAX_JSON_BYTES)} (about two million 2-D "
            "points): save the points as CSV"
        )
    return text


def settings_to_json(settings: Settings) -> dict[str, Any]:
    """The settings as a session writes them (format 2)."""
    values = {f.name: getattr(settings, f.name) for f in fields(Settings)}
    values["parameters"] = dict(settings.parameters)
    if isinstance(values["initial_weights"], tuple):
        values["initial_weights"] = list(values["initial_weights"])
    return values


def _check_settings(settings: Settings) -> None:
    """A ValueError naming the first setting a session file could not hold."""
    numbers = [("tolerance", settings.tolerance)] + [
        (name, value) for name, value in settings.parameters.items() if not isinstance(value, str)
    ]
    for name, value in numbers:
        if not _finite(value):
            raise ValueError(
                f"settings.{name} is {short_repr(value)}; a session holds finite numbers only"
            )
    weights = settings.initial_weights
    if (
        weights is not None
        and not isinstance(weights, str)
        and not all(_finite(v) for v in weights)
    ):
        raise ValueError(
            "settings.initial_weights are not all finite numbers; a session holds finite "
            "numbers only"
        )
    seed = settings.seed
    if (
        isinstance(seed, bool)
        or not isinstance(seed, int | np.integer)
        or not (0 <= seed <= MAX_SEED)
    ):
        raise ValueError(
            f"settings.seed must be a whole number 0 … {MAX_SEED}; got {short_repr(seed)}"
        )


def _finite(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def save_session(
    path: str | Path,
    dataset: Dataset,
    settings: Settings,
    trial: int,
    *,
    state: ArrayLike | None = None,
) -> None:
    """Write a session file atomically.

    A new file is readable by its owner only (0600); an existing one keeps its
    permissions. Raises OSError (no permission, disk full, a folder at `path`, ...); an
    existing file at `path` is then left as it was and no temporary file stays behind.
    """
    write_atomically(path, session_to_json(dataset, settings, trial, state=state), private=True)


def load_session(path: str | Path) -> Session:
    """Read a session file (see `session_from_json`); the same checks as data files first,
    and one over `MAX_JSON_BYTES` (128 MB) is refused before it is read."""
    path = Path(path)
    return session_from_json(read_json_text(path), source=path.name)


def session_from_json(text: str, source: str = "<text>") -> Session:
    """The session in a session file's text, every field validated.

    Errors are one-line `DataFileError`s naming `source`, the field and the reason.
    """
    document = json_document(text, source)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise DataFileError(f'{source}: not a session file (no "format": "{FORMAT}")')
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise DataFileError(f"{source}: 'version' must be a whole number")
    if version > VERSION:
        raise DataFileError(
            f"{source}: made by a newer version (session format {version}); "
            f"this one reads format {VERSION}"
        )
    if version not in VERSIONS:
        raise DataFileError(
            f"{source}: session format {version} does not exist; this one reads format "
            + ", ".join(map(str, VERSIONS))
        )
    dataset = dataset_from_json(document, source)
    settings = settings_from_json(document.get("settings"), source, version)
    trial = document.get("trial")
    if isinstance(trial, bool) or not isinstance(trial, int) or not 0 <= trial <= MAX_TRIAL:
        raise DataFileError(
            f"{source}: 'trial' must be a whole number >= 0 (at most 2⁶³ − 1); "
            f"got {short_repr(trial)}"
        )
    try:
        simulation = Simulation.from_settings(dataset, settings)
    except (ValueError, TypeError) as exc:
        raise DataFileError(f"{source}: settings: {_clip(str(exc))}") from None
    state = _state(document.get("state"), simulation, source)
    origin = _origin(document.get("origin"), source)
    return Session(dataset=dataset, settings=settings, trial=trial, state=state, origin=origin)


def settings_from_json(raw: object, source: str, version: int = VERSION) -> Settings:
    """`Settings` from their JSON object: every field checked as the command line checks
    it (a parameter by its learner's declaration, a choice against the engine's), missing
    ones default, an unknown one refused, each problem a one-line `DataFileError` naming
    `source` and the field. Version 1 kept the parameters among the settings."""
    if not isinstance(raw, dict):
        raise DataFileError(f"{source}: 'settings' must be an object")
    raw = dict(raw)
    parameters = raw.pop("parameters", {})
    if version == 1:
        parameters = {k: raw.pop(k) for k in VERSION_1_PARAMETERS if k in raw}
    if not isinstance(parameters, dict):
        raise DataFileError(f"{source}: settings.parameters must be an object")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in _FIELDS:
            raise DataFileError(f"{source}: unknown setting {short_repr(name)}")
        values[name] = _setting(name, value, f"{source}: settings.{name}")
    algorithm = values.get("algorithm", "perceptron")
    checked: dict[str, Any] = {}
    for name, value in parameters.items():
        where = f"{source}: settings.{name}"
        declared = parameter_of(algorithm, name)
        if declared is None:
            raise DataFileError(f"{source}: unknown setting {short_repr(name)}")
        if value is None:
            continue
        if declared.numeric:
            value = json_number(value, where)
        try:
            checked[name] = declared.check(value)
        except ValueError as exc:
            raise DataFileError(f"{where}: {exc}") from None
    return Settings(parameters=checked, **values)


def _setting(name: str, value: object, where: str) -> Any:
    """One setting (not a parameter), checked by its kind and its choices."""
    kind, choices = _FIELDS[name]
    if kind in ("text", "optional text"):
        if value is None and kind == "optional text":
            return None
        if not isinstance(value, str):
            nullable = " or null" if kind == "optional text" else ""
            raise DataFileError(f"{where} must be text{nullable}; got {short_repr(value)}")
        assert choices is not None
        if value not in choices():
            plain = where.split(": settings.")[0]
            words = {"tie": "tie rule"}.get(name, name)
            raise DataFileError(
                f"{plain}: settings: unknown {words} {short_repr(value)}; "
                f"choose one of {', '.join(choices())}"
            )
        return value
    if kind == "truth":
        if not isinstance(value, bool):
            raise DataFileError(f"{where} must be true or false; got {short_repr(value)}")
        return value
    if kind == "seed":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
            raise DataFileError(
                f"{where} must be a whole number 0 … {MAX_SEED}; got {short_repr(value)}"
            )
        return value
    if kind == "weights":
        if value is None or isinstance(value, str):
            return value
        if not isinstance(value, list):
            raise DataFileError(f"{where} must be null, a name or a list of numbers")
        return tuple(json_number(v, f"{where}[{i}]") for i, v in enumerate(value))
    return json_number(value, where)


def _clip(message: str, limit: int = 300) -> str:
    """`message` cut to `limit` characters: a rule's error may quote a setting in full."""
    return message if len(message) <= limit else message[:limit] + "…"


def _state(raw: object, simulation: Simulation, source: str) -> tuple[Any, ...] | None:
    """The saved state, shaped like the rule's (w, or (w⁺, w⁻) for Balanced Winnow)."""
    if raw is None:
        return None
    expected = simulation.state.shape
    try:
        array = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        array = None
    if array is None or array.shape != expected or not np.isfinite(array).all():
        raise DataFileError(f"{source}: 'state' must be finite numbers of shape {expected}")
    if array.ndim == 1:
        return tuple(array.tolist())
    return tuple(tuple(row) for row in array.tolist())


ORIGIN_KINDS = ("file", "name")
"""A session's optional "origin": which document the points were, so that recovering an
autosave gives back its name. {"file": absolute path} for a points or session file,
{"name": text} for data without a file (a preset, a lesson's step). Older sessions have
none (and open as before)."""


def _origin_to_json(origin: tuple[str, str] | None) -> dict[str, Any]:
    if origin is None:
        return {}
    kind, value = origin
    if kind not in ORIGIN_KINDS or not isinstance(value, str):
        raise ValueError(f"a session's origin is ('file' | 'name', text); got {origin!r}")
    return {"origin": {kind: value}}


def _origin(raw: object, source: str) -> tuple[str, str] | None:
    """The session's "origin" (see `ORIGIN_KINDS`), checked; None when absent."""
    if raw is None:
        return None
    if isinstance(raw, dict) and len(raw) == 1:
        ((kind, value),) = raw.items()
        if kind in ORIGIN_KINDS and isinstance(value, str) and value:
            return kind, value
    raise DataFileError(
        f"{source}: 'origin' must be an object with one text, under file or name; "
        f"got {short_repr(raw)}"
    )
