"""Files at the edges an attack found (issue 21): names no file can hold, UTF-32, a trial
too large to be any run's, weights that would overflow; each refused in one line (or read
right), never accepted to fail later."""

import codecs
import json

import pytest

from simulator.engine import DataFileError, Dataset, Settings, Simulation, load_dataset, load_preset
from simulator.engine.session import load_session, session_from_json, session_to_json


@pytest.mark.parametrize("name", ["\\ud800", "x\\udfff", "\\udc00y"])
def test_a_lone_surrogate_column_name_is_refused_on_reading(tmp_path, name):
    """It was accepted, then Save as CSV failed with an encoding error naming no file."""
    path = tmp_path / "points.json"
    path.write_text(f'{{"points": [[1, 2]], "labels": [1], "names": ["{name}", "y"]}}')
    with pytest.raises(DataFileError, match=r"^points\.json: names\[0\] .* lone surrogate"):
        load_dataset(path)


def test_a_session_with_a_lone_surrogate_name_is_refused(tmp_path):
    document = json.loads(session_to_json(load_preset("or"), Settings(), 0))
    text = json.dumps(document).replace('"x1"', '"\\ud800"')
    path = tmp_path / "bad.lab.json"
    path.write_text(text)
    with pytest.raises(DataFileError, match="lone surrogate"):
        load_session(path)


def test_a_surrogate_pair_is_text_and_reads(tmp_path):
    path = tmp_path / "points.json"
    path.write_text('{"points": [[1, 2]], "labels": [1], "names": ["\\ud83d\\ude00", "y"]}')
    dataset = load_dataset(path)
    assert dataset.names == ("😀", "y")
    assert dataset.to_csv().startswith("😀,y,label")


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-le", "utf-32-be"])
def test_utf32_with_a_byte_order_mark_is_read_as_utf32(tmp_path, codec):
    """FF FE 00 00 begins with UTF-16's FF FE: it was read as UTF-16 (NULs between
    letters) and refused."""
    text = "x1,x2,label\n1.5,-2,1\n3,4,-1\n"
    bom = {"utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}.get(codec, b"")
    path = tmp_path / "points.csv"
    path.write_bytes(bom + text.encode(codec))
    dataset = load_dataset(path)
    assert dataset.points.tolist() == [[1.5, -2.0], [3.0, 4.0]]
    assert dataset.labels.tolist() == [1, -1]


def test_a_trial_beyond_any_run_is_refused_without_quoting_it_in_full():
    document = json.loads(session_to_json(load_preset("or"), Settings(), 3))
    document["trial"] = 10**400
    with pytest.raises(DataFileError) as caught:
        session_from_json(json.dumps(document), "s.lab.json")
    message = str(caught.value)
    assert message.startswith("s.lab.json: 'trial' must be a whole number >= 0 (at most 2⁶³ − 1)")
    assert len(message) < 200


def test_the_largest_trial_still_opens_and_says_where_the_replay_stopped():
    document = json.loads(session_to_json(load_preset("or"), Settings(), 3))
    document["trial"] = 2**63 - 1
    session = session_from_json(json.dumps(document))
    assert session.trial == 2**63 - 1 and session.replay_trial == 20_000_000


@pytest.mark.parametrize("start", [(1e308, 0, 0), (0, -1e151, 0)])
def test_initial_weights_beyond_the_overflow_are_refused_without_warnings(start):
    """Pytest turns warnings into errors: the RuntimeWarnings the CLI printed fail here."""
    with pytest.raises(ValueError, match="within ±1e150"):
        Simulation(load_preset("or"), initial_weights=start)


def test_the_perceptrons_overflow_advice_names_its_own_knobs():
    far = Dataset([[1e149, 0.0], [-1e149, 1.0]], [1, -1])
    sim = Simulation(far, learning_rate=1e6, initial_weights=(0, -1e150, 0))
    sim.run(10)
    assert sim.diverged
    assert "α" not in sim.divergence_reason and "standardized" in sim.divergence_reason
