"""The window's atomic write (QSaveFile): a link is followed, a pipe or device refused."""

import os

import pytest

from simulator.app.file_tasks import write_atomically


def test_a_pipe_is_refused_and_stays_a_pipe(tmp_path):
    pipe = tmp_path / "points.csv"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match=r"points\.csv: is not a regular file \(it is a pipe\)"):
        write_atomically(pipe, lambda: "x1,x2,label\n")
    assert pipe.is_fifo() and [p.name for p in tmp_path.iterdir()] == ["points.csv"]


def test_a_link_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "points.csv"
    target.write_text("old")
    link = tmp_path / "points.csv"
    link.symlink_to(target)
    write_atomically(link, lambda: "x1,x2,label\n")
    assert link.is_symlink() and target.read_text() == "x1,x2,label\n"
