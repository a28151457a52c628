import json
import math

import numpy as np
import pytest

from simulator.engine import DataFileError, Dataset, load_csv, load_dataset, load_json, parse_csv


def test_points_and_labels_are_read_only_copies():
    pts = np.array([[0.0, 1.0], [2.0, 3.0]])
    ds = Dataset(pts, [1, -1])
    pts[0, 0] = 99.0
    assert ds.points[0, 0] == 0.0
    with pytest.raises(ValueError):
        ds.points[0, 0] = 5.0
    with pytest.raises(ValueError):
        ds.labels[0] = -1
    assert ds.labels.tolist() == [1, -1]
    assert len(ds) == 2 and ds.dimension == 2


@pytest.mark.parametrize(
    ("points", "labels", "message"),
    [
        ([[0.0, math.nan]], [1], "point 0 has a non-finite coordinate \\(nan in column 1\\)"),
        ([[math.inf, 0.0]], [1], "non-finite"),
        ([1.0, 2.0], [1, 1], "2-D array"),
        ([[1.0, 2.0]], [1, -1], "1 points but 2 labels"),
        ([[1.0, 2.0]], [0], "label 0 of point 0 is not -1 or \\+1"),
        ([[1.0, 2.0]], [2], "label 2 of point 0 is not -1 or \\+1"),
        ([[1.0, 2.0]], [[1]], "1-D"),
        ([["a", 2.0]], [1], "numbers"),
        (np.empty((2, 0)), [1, 1], "at least one coordinate"),
    ],
)
def test_invalid_data_raise_a_clear_value_error(points, labels, message):
    with pytest.raises(ValueError, match=message):
        Dataset(points, labels)


def test_any_dimension_and_empty():
    assert Dataset([[1.0], [2.0]], [1, -1]).dimension == 1
    assert Dataset(np.zeros((3, 50)), [1, 1, -1]).dimension == 50
    empty = Dataset.empty()
    assert len(empty) == 0 and empty.dimension == 2


def test_edits_return_new_datasets():
    ds = Dataset([[0.0, 0.0]], [1])
    added = ds.with_point((1.0, 2.0), -1)
    assert len(ds) == 1 and len(added) == 2
    assert added.points[1].tolist() == [1.0, 2.0] and added.labels[1] == -1
    inserted = added.with_point((5.0, 5.0), 1, index=0)
    assert inserted.points[0].tolist() == [5.0, 5.0]
    assert added.without(0).points.tolist() == [[1.0, 2.0]]
    assert added.moved(1, (3.0, 4.0)).points[1].tolist() == [3.0, 4.0]
    assert added.relabelled(0, -1).labels.tolist() == [-1, -1]
    with pytest.raises(IndexError):
        ds.without(3)


def test_conflicting_pairs_are_found():
    ds = Dataset([[0, 0], [1, 1], [0, 0], [2, 2], [1, 1], [0, 0]], [1, 1, -1, 1, 1, 1])
    assert ds.conflicting_pairs() == [(0, 2), (2, 5)]
    assert Dataset([[0, 0], [0, 0]], [1, 1]).conflicting_pairs() == []


def test_csv_round_trip_is_exact(tmp_path):
    ds = Dataset([[0.1, 1 / 3], [-2.5e-7, 4.0]], [1, -1], names=("a", "b"))
    path = tmp_path / "d.csv"
    path.write_text(ds.to_csv())
    assert load_csv(path) == ds
    path = tmp_path / "d.json"
    path.write_text(ds.to_json())
    assert load_json(path) == ds
    assert load_dataset(path) == ds


def test_csv_maps_zero_one_labels_and_finds_the_label_column():
    ds = parse_csv("label,x1,x2\n0,1,2\n1,3,4\n\n")
    assert ds.labels.tolist() == [-1, 1]
    assert ds.points.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ds.names == ("x1", "x2")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("x1,x2\n1,2\n", "no 'label' column"),
        ("x1,x2,label\n1,2,1\n1,abc,1\n", "line 3: 'abc' in column 'x2' is not a number"),
        ("x1,x2,label\n1,2,1\n1,2\n", "line 3: 2 values, but the header has 3 columns"),
        ("x1,x2,label\n1,2,7\n", "line 2: label '7' is not -1, \\+1, 0 or 1"),
        ("x1,x2,label\n1,2,yes\n", "line 2: label 'yes' is not a number"),
        ("x1,x2,label\n1,2,0\n1,2,-1\n", "mix 0 and -1"),
        ("x1,x2,label\n1,nan,1\n", "line 2: 'nan' in column 'x2' is not a finite number"),
    ],
)
def test_malformed_csv_names_file_line_and_reason(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataFileError, match=message) as info:
        load_csv(path)
    assert str(info.value).startswith("bad.csv")


def test_malformed_json_and_missing_files(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"points": [[1, 2]],\n "labels": [1,]}')
    with pytest.raises(DataFileError, match=r"bad.json, line 2: not valid JSON"):
        load_json(path)
    path.write_text(json.dumps({"points": [[1, 2]], "labels": [3]}))
    with pytest.raises(DataFileError, match="not -1, \\+1, 0 or 1"):
        load_json(path)
    path.write_text(json.dumps({"points": [[1, "x"]], "labels": [1]}))
    with pytest.raises(DataFileError, match="not a number"):
        load_json(path)
    with pytest.raises(DataFileError, match="no such file"):
        load_csv(tmp_path / "missing.csv")
    binary = tmp_path / "image.csv"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    with pytest.raises(DataFileError, match="not a text file"):
        load_csv(binary)
