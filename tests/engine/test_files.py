"""Atomic writes: the file appears whole or not at all, keeps its permissions, and no
temporary file is left behind whatever fails."""

import os

import pytest

from simulator.engine.files import temporary_beside, write_atomically


def names(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("durable", [True, False])
def test_writes_bytes_and_text_whole(tmp_path, durable):
    path = tmp_path / "a.lab.json"
    write_atomically(path, "ünïcode\n", durable=durable)
    assert path.read_bytes() == "ünïcode\n".encode()
    write_atomically(path, b"\x00\x01", durable=durable)
    assert path.read_bytes() == b"\x00\x01"
    assert names(tmp_path) == ["a.lab.json"]


def test_a_new_file_gets_the_umask_and_an_old_one_keeps_its_mode(tmp_path):
    umask = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh.csv"
        write_atomically(fresh, "x")
        assert fresh.stat().st_mode & 0o777 == 0o640  # not mkstemp's 0600
        kept = tmp_path / "kept.csv"
        kept.write_text("old")
        kept.chmod(0o604)
        write_atomically(kept, "new")
        assert kept.read_text() == "new" and kept.stat().st_mode & 0o777 == 0o604
    finally:
        os.umask(umask)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "keep.png"
    path.write_bytes(b"old")

    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(path, b"new")
    assert path.read_bytes() == b"old" and names(tmp_path) == ["keep.png"]
    monkeypatch.undo()
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):
        write_atomically(tmp_path / "folder", b"new")  # a folder is in the way
    assert names(tmp_path) == ["folder", "keep.png"]
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "missing" / "x.png", b"new")


def test_the_temporary_file_sits_beside_its_target_hidden(tmp_path):
    temporary = temporary_beside(tmp_path / "movie.mp4")
    assert temporary.parent == tmp_path and temporary.name.startswith(".movie-")
    assert temporary.read_bytes() == b""
