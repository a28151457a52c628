import csv
import io
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.engine import (
    DataFileError,
    Dataset,
    load_csv,
    load_dataset,
    load_json,
    parse_csv,
    parse_json,
)
from simulator.engine import dataset as dataset_module
from simulator.engine.dataset import json_text
from simulator.engine.readers import MAX_FILE_BYTES


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
        ([[0.0, math.nan]], [1], "point 1 has a non-finite coordinate \\(nan in column 2\\)"),
        ([[math.inf, 0.0]], [1], "non-finite"),
        ([1.0, 2.0], [1, 1], "2-D array"),
        ([[1.0, 2.0]], [1, -1], "1 points but 2 labels"),
        ([[1.0, 2.0]], [0], "label 0 of point 1 is not -1 or \\+1"),
        ([[1.0, 2.0]], [12], "label 12 of point 1 is not -1 or \\+1"),
        ([[1.0, 2.0], [3.0, 4.0]], [-1, 2], "label -1 of point 1 is not a class 0 … 2"),
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
        ("x1,x2,label\n1,2,7\n", "label 7 of point 1 makes the labels the classes 0 … 7"),
        ("x1,x2,label\n1,2,yes\n", "line 2: label 'yes' is not a number"),
        ("x1,x2,label\n1,2,0\n1,2,-1\n", "mix 0 and -1"),
        ("x1,x2,label\n1,nan,1\n", "line 2: 'nan' in column 'x2' is not a finite number"),
        ('x1,x2,label\n1,2,1\n"-1\n5",-2,-1\n', "line 3: a quoted value runs over the end"),
        ('x1,x2,label\r1,2,1\r"-1\r5",-2,-1\r', "line 3: a quoted value runs over the end"),
        ("x1,x2,label\n1_000,2,1\n", "line 2: '1_000' in column 'x1' is not a number \\(digits"),
        ("x1,x2,label\n1,2,1_0\n", "line 2: label '1_0' is not a number"),
        ("x1,x2,label\n1,2,\n", "line 2: no label"),
        ("x1,x2,label,\n1,2,1,\n", "line 2: no value in column 4 \\(unnamed in the header; a"),
        ('"x1,x2,label\n1,2,1\n', 'line 1: a quote \\(\\"\\) in the header is not closed'),
        ("x1,x2,label\n" + "9" * 200_000 + ",1,1\n", "line 2: a value longer than 131,072"),
        ("x" * 200_000 + ",x2,label\n1,1,1\n", "line 1: a value longer than 131,072"),
        ("x1,x2,label\n" + "9" * 1000 + "x,1,1\n", "line 2: '9{40}…' in column 'x1' is not a"),
    ],
)
def test_malformed_csv_names_file_line_and_reason(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataFileError, match=message) as info:
        load_csv(path)
    text = str(info.value)
    assert text.startswith("bad.csv") and text.count("bad.csv") == 1
    assert "\n" not in text and len(text) < 200


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_every_line_ending_reads_the_same_points(end):
    ds = parse_csv(end.join(["x1,x2,label", "1,2,1", '"-1.5",-2,-1', "", "3,4,1", ""]))
    assert ds.points.tolist() == [[1.0, 2.0], [-1.5, -2.0], [3.0, 4.0]]
    assert ds.labels.tolist() == [1, -1, 1]


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


# -- round 2: limits, names, O(n) edits ----------------------------------------------------


def test_coordinates_beyond_1e150_are_refused_with_the_reason():
    with pytest.raises(ValueError, match=r"point 2 has coordinate -2e\+150 in column 1, beyond"):
        Dataset([[1.0, 2.0], [-2e150, 0.0]], [1, -1])
    assert Dataset([[1e150, -1e150]], [1]).points.tolist() == [[1e150, -1e150]]
    with pytest.raises(ValueError, match="square would overflow"):
        Dataset([[0.0, 0.0]], [1]).with_point((1e151, 0.0), 1)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (math.nan, "non-finite coordinate \\(nan in column 3\\)"),
        (math.inf, "non-finite coordinate \\(inf in column 3\\)"),
        (-math.inf, "non-finite coordinate \\(-inf in column 3\\)"),
        (3e150, "coordinate 3e\\+150 in column 3, beyond"),
        (-3e150, "coordinate -3e\\+150 in column 3, beyond"),
    ],
)
def test_the_first_bad_cell_of_a_large_array_is_named(value, reason):
    """The quick test (max and min) only says that something is wrong; the message still
    names the first bad cell, numbered from 1 (row 31,337 is point 31,338)."""
    points = np.zeros((50_000, 3))
    points[31_337, 2] = value
    points[40_000, 0] = value
    with pytest.raises(ValueError, match=f"^point 31338 has (a )?{reason}"):
        Dataset(points, np.ones(50_000))


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (("x", "label"), "may not be called 'label'"),
        (("x", "LABEL "), "may not be called 'LABEL'"),
        (("x", "x"), "two coordinates are called 'x'"),
        (("x", " "), "coordinate 2 has an empty name"),
        (("x", "a\nb"), "line break or control character"),
        (("x",), "1 coordinate names for 2 coordinates"),
    ],
)
def test_names_a_csv_header_cannot_hold_are_refused(names, message):
    with pytest.raises(ValueError, match=message):
        Dataset([[1.0, 2.0]], [1], names=names)


def test_names_keep_what_a_csv_header_can_hold():
    ds = Dataset([[1.0, 2.0]], [1], names=(" width ", 'a "quoted", name'))
    assert ds.names == ("width", 'a "quoted", name')
    assert parse_csv(ds.to_csv()) == ds


def test_edits_validate_the_point_and_the_label():
    ds = Dataset([[0.0, 0.0]], [1])
    with pytest.raises(ValueError, match="non-finite"):
        ds.with_point((math.nan, 0.0), 1)
    with pytest.raises(ValueError, match="2 coordinates"):
        ds.with_point((1.0, 2.0, 3.0), 1)
    with pytest.raises(ValueError, match="label 0 is not -1 or \\+1"):
        ds.with_point((1.0, 2.0), 0)
    with pytest.raises(ValueError, match="not -1 or \\+1"):
        ds.relabelled(0, True)
    with pytest.raises(IndexError):
        ds.with_point((1.0, 2.0), 1, index=5)
    with pytest.raises(ValueError, match="non-finite"):
        ds.moved(0, (math.inf, 0.0))


def _brute_force_conflicts(ds):
    """Every pair i < j at the same place with opposite labels, by looking at all pairs."""
    p, y = ds.points.tolist(), ds.labels.tolist()
    return [
        (i, j) for i in range(len(p)) for j in range(i + 1, len(p)) if p[i] == p[j] and y[i] != y[j]
    ]


grid = st.integers(-1, 1).map(float)  # few places, so points coincide often


@settings(max_examples=150)
@given(
    st.lists(st.tuples(grid, grid, st.sampled_from([-1, 1])), max_size=8),
    st.lists(
        st.tuples(
            st.sampled_from(["add", "move", "delete", "delete-many", "relabel"]),
            st.integers(0, 100),
            st.tuples(grid, grid),
            st.sampled_from([-1, 1]),
        ),
        min_size=1,
        max_size=8,
    ),
    st.booleans(),
)
def test_edits_keep_the_conflicting_pairs_right(rows, edits, computed):
    ds = Dataset(np.array([r[:2] for r in rows]).reshape(-1, 2), [r[2] for r in rows])
    for kind, i, point, label in edits:
        if computed:
            ds.conflicting_pairs()  # the child then derives its own from these
        if kind == "add" or len(ds) == 0:
            ds = ds.with_point(point, label, index=i % (len(ds) + 1))
        elif kind == "move":
            ds = ds.moved(i % len(ds), point)
        elif kind == "delete":
            ds = ds.without(i % len(ds))
        elif kind == "delete-many":
            ds = ds.without([i % len(ds), (i // 3) % len(ds)])
        else:
            ds = ds.relabelled(i % len(ds), -int(ds.labels[i % len(ds)]))
        assert ds.conflicting_pairs() == _brute_force_conflicts(ds)
        assert ds == Dataset(ds.points, ds.labels, names=ds.names)


# -- round 2: files -----------------------------------------------------------------------


def _one_line_error(path, loader=load_dataset):
    with pytest.raises(DataFileError) as info:
        loader(path)
    message = str(info.value)
    assert "\n" not in message and path.name in message
    return message


def test_delimiter_is_sniffed_and_decimal_commas_are_read(tmp_path):
    expected = Dataset([[1.5, -2.0], [3.0, 4.25]], [1, -1], names=("a", "b"))
    texts = {
        "comma.csv": "a,b,label\n1.5,-2,1\n3,4.25,-1\n",
        "semicolon.csv": "a;b;label\n1,5;-2;1\n3;4,25;-1\n",
        "tab.csv": "a\tb\tlabel\n1.5\t-2\t1\n3\t4.25\t-1\n",
        "crlf-quoted.csv": '"a","b","label"\r\n"1.5","-2","1"\r\n3, 4.25 ,-1\r\n',
    }
    for name, text in texts.items():
        path = tmp_path / name
        path.write_text(text, newline="")
        assert load_csv(path) == expected, name


@pytest.mark.parametrize(
    ("encoding", "prefix"),
    [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("cp1252", b""), ("utf-16-le", b"\xff\xfe")],
)
def test_encodings_spreadsheets_save(tmp_path, encoding, prefix):
    path = tmp_path / "länge.csv"
    path.write_bytes(prefix + "Länge µm;Breite;label\n1,5;2;1\n".encode(encoding))
    ds = load_csv(path)
    assert ds.names == ("Länge µm", "Breite") and ds.points.tolist() == [[1.5, 2.0]]


def test_bytes_that_are_no_text_name_the_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"x1,x2,label\n1,2,1\n\x81\x8d,2,1\n")  # undefined in Windows-1252
    assert "line 3: not a text file" in _one_line_error(path)


def test_paths_that_are_no_regular_files_are_refused_at_once(tmp_path):
    assert "not a regular file" in _one_line_error(Path("/dev/zero"), load_csv)
    assert "is a folder" in _one_line_error(tmp_path, load_csv)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    assert "not a regular file" in _one_line_error(fifo)  # and it does not wait for a writer
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    assert "over 1 GB" in _one_line_error(huge)


def test_a_bad_line_deep_in_a_long_file_is_named(tmp_path):
    rows = [f"{i},{-i},{1 if i % 2 else -1}" for i in range(5000)]
    rows[3210] = "7,oops,1"
    path = tmp_path / "long.csv"
    path.write_text("x1,x2,label\n" + "\n".join(rows) + "\n")
    assert "long.csv, line 3212: 'oops' in column 'x2' is not a number" in _one_line_error(path)
    rows[3210] = "7,8,1e200"
    path.write_text("x1,x2,label\n" + "\n".join(rows) + "\n")
    assert "line 3212: label '1e200' is not -1, +1, or a class 0 … 8" in _one_line_error(path)
    rows[3210] = "7,1e200,1"
    path.write_text("x1,x2,label\n" + "\n".join(rows) + "\n")
    assert "line 3212: '1e200' in column 'x2' is beyond ±1e+150" in _one_line_error(path)


@given(
    st.lists(
        st.tuples(
            st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
            st.floats(-1e-6, 1e-6, allow_nan=False, allow_infinity=False),
            st.sampled_from([-1, 1]),
        ),
        max_size=20,
    )
)
def test_csv_round_trip_is_exact_through_the_fast_reader(rows):
    ds = Dataset(np.array([r[:2] for r in rows]).reshape(-1, 2), [r[2] for r in rows])
    assert parse_csv(ds.to_csv()) == ds
    assert parse_json(ds.to_json()) == ds


def test_header_problems_name_the_line(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("\n\nx,x,label\n1,2,1\n")
    assert "h.csv, line 3: two coordinates are called 'x'" in _one_line_error(path)
    path.write_text(",x1,label\n1,2,1\n")  # pandas' index column has no name
    assert load_csv(path).names == ("x2", "x1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"points": [[' + "9" * 400 + ', 1]], "labels": [1]}', "too large a number"),
        ('{"points": [[1, 2]], "labels": [' + "1" * 5000 + "]}", "number too long"),
        ('{"points": [[1, 2]], "labels": [1], "names": 5}', "'names' must be a list of strings"),
        ('{"points": [[1, 2]], "labels": [1], "names": [1, 2]}', "list of strings"),
        ('{"points": [[1, 2]], "labels": [1], "names": ["x", "label"]}', "'label'"),
        ('{"points": [[1, 2], [1]], "labels": [1, 1]}', "points\\[1\\] has 1 coordinates"),
        ('{"points": [[1, 2]], "labels": [1, 1]}', "1 points but 2 labels"),
        ('{"points": [[1, NaN]], "labels": [1]}', "NaN is not a finite number"),
        ('{"points": [[1, 1e999]], "labels": [1]}', "points\\[0\\]\\[1\\] is not a finite"),
        (
            '{"points": [[1, true]], "labels": [1]}',
            "points\\[0\\]\\[1\\] \\(True\\) is not a number",
        ),
        ('{"points": [[1, 2]], "labels": [true]}', "labels\\[0\\] \\(True\\) is not a number"),
        ('{"points": [[1, 2]], "labels": ["1"]}', "is not a number"),
        (
            '{"points": [[1, 2]], "labels": [0.5]}',
            "labels\\[0\\] \\(0.5\\) is not -1, \\+1, 0 or 1",
        ),
        ('{"points": [1, 2], "labels": [1, 1]}', "points\\[0\\] is not a list"),
        ('{"points": {"a": 1}, "labels": [1]}', "'points' must be a list"),
        ('{"points": [[1, 2]], "labels": 1}', "'labels' must be a list"),
        ("[[1, 2]]", "expected an object with 'points' and 'labels'"),
        ('{"points": [[1e151, 2]], "labels": [1]}', "beyond ±1e\\+150"),
        ('{"points": [[]], "labels": [1]}', "at least one coordinate"),
    ],
)
def test_every_json_shape_error_is_one_line(tmp_path, text, message):
    path = tmp_path / "shape.json"
    path.write_text(text)
    assert re.search(message, _one_line_error(path))


def test_a_json_file_with_a_coordinate_called_label_no_longer_saves_a_broken_csv(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"names": ["label", "y"], "points": [[1, 2]], "labels": [1]}))
    assert "may not be called 'label'" in _one_line_error(path)


# -- writing in chunks ---------------------------------------------------------------------------

_AWKWARD = [0.0, -0.0, 0.1, -2.5, 1e-300, 5e-324, 1e150, -1e150, 123456789.0, 1 / 3]


def _reference_csv(ds):
    """What the csv module writes for the dataset, a row at a time."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*ds.names, "label"])
    for point, label in zip(ds.points.tolist(), ds.labels.tolist(), strict=True):
        writer.writerow([*(repr(v) for v in point), f"{label:+d}"])
    return out.getvalue()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7])
@pytest.mark.parametrize("d", [1, 3])
def test_chunked_writing_gives_the_text_of_json_and_csv_bit_for_bit(monkeypatch, n, d):
    """Three rows per chunk, so that chunks start, end and fall short at every n."""
    monkeypatch.setattr(dataset_module, "CHUNK_ROWS", 3)
    rng = np.random.default_rng(n * 10 + d)
    points = rng.choice(_AWKWARD, size=(n, d))
    names = ["a,b", 'say "hi"', "x"][:d] if d == 3 else ["só"]
    ds = Dataset(points, rng.choice([-1, 1], size=n), names=names)
    assert ds.to_csv() == _reference_csv(ds)
    document = {"names": list(ds.names), "points": ds.points.tolist(), "labels": ds.labels.tolist()}
    assert ds.to_json() == json.dumps(document, indent=1)
    mixed = {"a": {"b": [1.5, None, "é\n"]}, "points": ds.points, "empty": [], "n": n}
    expected = {**mixed, "points": ds.points.tolist()}
    assert json_text(mixed) == json.dumps(expected, indent=1, allow_nan=False)
    assert json_text({}) == "{}"


def test_json_text_refuses_what_json_would():
    with pytest.raises(ValueError, match="not JSON compliant"):
        json_text({"points": np.array([[1.0, math.nan]])})
    with pytest.raises(TypeError):
        json_text({"mask": np.array([True, False])})


@pytest.mark.parametrize("name", ["blobs3", "iris3"])
@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_k_class_data_saved_by_the_app_load_again(tmp_path, name, suffix):
    """A helper session saved blobs3 as CSV and could not open it ("+2 is not -1, +1, 0
    or 1"): the file now holds the classes 0 … K−1, and JSON their names too."""
    from simulator.engine import load_preset
    from simulator.engine.readers import load_dataset

    data = load_preset(name)
    path = tmp_path / f"{name}{suffix}"
    path.write_text(data.to_csv() if suffix == ".csv" else data.to_json())
    again = load_dataset(path)
    assert np.array_equal(again.points, data.points)
    assert np.array_equal(again.labels, data.labels) and again.classes == data.classes
    names = data.class_names if suffix == ".json" else ("0", "1", "2")
    assert again.class_names == names


def test_a_csv_of_classes_0_to_k_and_its_refusals(tmp_path):
    from simulator.engine.dataset import DataFileError
    from simulator.engine.readers import load_dataset

    good = tmp_path / "four.csv"
    good.write_text("x1,x2,label\n0,0,0\n1,0,1\n0,1,2\n1,1,3\n")
    four = load_dataset(good)
    assert four.classes == (0, 1, 2, 3) and four.class_names == ("0", "1", "2", "3")
    two = tmp_path / "two.csv"
    two.write_text("x1,x2,label\n0,0,0\n1,0,1\n")
    assert load_dataset(two).classes == (-1, 1)  # 0/1: the two classes −1/+1, as before
    for body, words in (("0,0,-1\n1,0,2\n", "labels mix -1 and classes"),
                        ("0,0,0\n1,0,9\n", r"is not -1, \+1, or a class 0 … 8")):  # fmt: skip
        bad = tmp_path / "bad.csv"
        bad.write_text("x1,x2,label\n" + body)
        with pytest.raises(DataFileError, match=words):
            load_dataset(bad)
