"""Files near 1 GB (issue 21, case 11): a CSV is read in pieces, so that it costs about its
numbers' size; what cannot fit is refused before its body is parsed; Cancel stops the read
between pieces; JSON (sessions and JSON data) over 128 MB is refused before it is read.
The pieces here are made tiny (`CHUNK_BYTES`), so that a small file has many."""

import json

import numpy as np
import pytest

from simulator.engine import (
    DataFileError,
    Dataset,
    Settings,
    chunks,
    csv_table,
    load_dataset,
    load_preset,
    readers,
)
from simulator.engine import session as session_module
from simulator.engine.files import Cancelled
from simulator.engine.session import load_session, session_to_json


@pytest.fixture
def tiny_pieces(monkeypatch):
    monkeypatch.setattr(chunks, "CHUNK_BYTES", 64)
    monkeypatch.setattr(csv_table, "CHUNK_BYTES", 64)


def _points(n=500, seed=0):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(n, 2))
    return Dataset(points, np.where(points.sum(axis=1) > 0, 1, -1))


@pytest.mark.parametrize("codec", ["utf-8", "utf-8-sig", "utf-16", "cp1252"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_file_read_in_pieces_is_the_file_read_whole(tmp_path, tiny_pieces, codec, newline):
    dataset = Dataset(_points().points, _points().labels, names=("größe", "y"))
    path = tmp_path / "points.csv"
    path.write_bytes(dataset.to_csv().replace("\n", newline).encode(codec))
    assert load_dataset(path) == dataset
    assert readers.parse_csv(dataset.to_csv()) == dataset


def test_a_bad_line_in_a_later_piece_is_named(tmp_path, tiny_pieces):
    lines = _points().to_csv().splitlines()
    lines[401] = "0.5,oops,1"  # line 402 of the file
    path = tmp_path / "points.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFileError, match=r"^points\.csv, line 402: 'oops' in column 'x2'"):
        load_dataset(path)


def test_labels_mixing_0_and_minus_1_across_pieces_are_refused(tmp_path, tiny_pieces):
    rows = ["x1,x2,label"] + [f"{i},1,{-1 if i < 200 else 0}" for i in range(400)]
    path = tmp_path / "points.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(DataFileError, match="labels mix 0 and -1"):
        load_dataset(path)


def test_cancel_stops_the_read_between_pieces(tmp_path, tiny_pieces, monkeypatch):
    path = tmp_path / "points.csv"
    path.write_text(_points().to_csv())
    parsed = []
    fast_table = csv_table._fast_table
    monkeypatch.setattr(csv_table, "_fast_table", lambda *a: parsed.append(1) or fast_table(*a))
    asked = []

    def cancelled():  # asked once a piece: the first pass, then a few pieces, then Cancel
        asked.append(1)
        return len(asked) > len(path.read_bytes()) // 64 + 5

    with pytest.raises(Cancelled):
        load_dataset(path, cancelled)
    pieces = len(path.read_bytes()) // 64
    assert 0 < len(parsed) < 10 < pieces  # it stopped early, not at the end


def test_cancel_during_the_first_pass_stops_before_any_parsing(tmp_path, tiny_pieces, monkeypatch):
    path = tmp_path / "points.csv"
    path.write_text(_points().to_csv())
    monkeypatch.setattr(csv_table, "_fast_table", lambda *a: pytest.fail("parsed"))
    with pytest.raises(Cancelled):
        load_dataset(path, lambda: True)


def test_a_file_that_cannot_fit_in_memory_is_refused_before_its_body_is_parsed(
    tmp_path, monkeypatch
):
    path = tmp_path / "points.csv"
    path.write_text(_points(n=20_000).to_csv())
    monkeypatch.setattr(chunks, "available_memory", lambda: 100_000)
    monkeypatch.setattr(csv_table, "_fast_table", lambda *a: pytest.fail("parsed"))
    with pytest.raises(DataFileError) as info:
        load_dataset(path)
    text = str(info.value)
    assert "\n" not in text and text.startswith("points.csv (20,001 lines of 3 columns) needs")
    assert "of memory" in text and "available; not read" in text


def test_memory_that_is_available_or_unknown_lets_the_file_be_read(tmp_path, monkeypatch):
    path = tmp_path / "points.csv"
    path.write_text(_points().to_csv())
    monkeypatch.setattr(chunks, "available_memory", lambda: None)
    assert len(load_dataset(path)) == 500
    monkeypatch.setattr(chunks, "available_memory", lambda: 10**12)
    assert len(load_dataset(path)) == 500


def test_the_available_memory_is_a_number_here():
    available = chunks.available_memory()
    assert available is None or available > 0


def test_a_json_file_over_128_mb_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A 1 GB JSON with one emoji peaked at 8.4 GB and took up to 63 s to refuse."""
    monkeypatch.setattr(readers, "json_document", lambda *a: pytest.fail("parsed"))
    monkeypatch.setattr(session_module, "json_document", lambda *a: pytest.fail("parsed"))
    for name, load in (("big.lab.json", load_session), ("big.json", load_dataset)):
        path = tmp_path / name
        with path.open("wb") as f:
            f.truncate(readers.MAX_JSON_BYTES + 1)  # sparse: no disk used
        with pytest.raises(DataFileError) as info:
            load(path)
        text = str(info.value)
        assert "\n" not in text and text.endswith(
            "JSON files (save large data as CSV) over 128 MB are not read"
        )


def test_a_json_file_that_cannot_fit_in_memory_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "s.lab.json"
    path.write_text(session_to_json(load_preset("noisy"), Settings(), 0))
    monkeypatch.setattr(chunks, "available_memory", lambda: 1000)
    with pytest.raises(DataFileError, match=r"^s\.lab\.json \(.*\) needs about .* of memory"):
        load_session(path)


def test_a_session_larger_than_the_limit_is_not_written(monkeypatch):
    """Never write a session that would not open."""
    monkeypatch.setattr(session_module, "MAX_JSON_BYTES", 1000)
    with pytest.raises(
        ValueError, match=r"a session of 40 points would be .* KB; sessions hold at most 1000 bytes"
    ):
        session_to_json(load_preset("noisy"), Settings(), 0)
    assert json.loads(session_to_json(load_preset("or"), Settings(), 0))["trial"] == 0
