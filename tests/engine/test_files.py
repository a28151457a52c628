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


def test_a_pipe_or_socket_at_the_path_is_refused_and_stays(tmp_path):
    import socket

    from simulator.engine.files import NotARegularFile

    pipe = tmp_path / "fifo.csv"
    os.mkfifo(pipe)
    with pytest.raises(NotARegularFile, match="is not a regular file") as caught:
        write_atomically(pipe, "x")
    assert caught.value.filename == str(pipe) and "pipe" in caught.value.strerror
    assert pipe.is_fifo() and names(tmp_path) == ["fifo.csv"]
    bound = tmp_path / "s.lab.json"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(bound))
        with pytest.raises(NotARegularFile, match="socket"):
            write_atomically(bound, "x")
        assert bound.is_socket()
    assert names(tmp_path) == ["fifo.csv", "s.lab.json"]


def test_a_link_is_followed_its_target_written_atomically_and_the_link_kept(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "target.lab.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.lab.json"
    link.symlink_to(target)
    chain = tmp_path / "chain.lab.json"
    chain.symlink_to(link.name)  # relative, to another link
    write_atomically(chain, "new")
    assert chain.is_symlink() and link.is_symlink()
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o640
    assert names(tmp_path) == ["chain.lab.json", "elsewhere", "link.lab.json"]
    assert names(elsewhere) == ["target.lab.json"]  # the temporary was beside the target
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(elsewhere / "new.csv")
    write_atomically(dangling, "made")
    assert dangling.is_symlink() and (elsewhere / "new.csv").read_text() == "made"
    pipe = tmp_path / "fifo"
    os.mkfifo(pipe)
    to_pipe = tmp_path / "to-pipe.csv"
    to_pipe.symlink_to(pipe)
    with pytest.raises(OSError, match="not a regular file"):
        write_atomically(to_pipe, "x")
    assert pipe.is_fifo() and to_pipe.is_symlink()


def test_a_loop_of_links_is_an_error_not_a_replaced_link(tmp_path):
    loop = tmp_path / "loop.csv"
    loop.symlink_to("loop.csv")
    with pytest.raises(OSError):
        write_atomically(loop, "x")
    assert loop.is_symlink() and names(tmp_path) == ["loop.csv"]
