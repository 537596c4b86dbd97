"""The one writer (mathhammer.io): atomic, and files get the mode any program would give."""

from __future__ import annotations

import os
import stat

import pytest

from mathhammer.io import write_atomically


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_new_file_is_0644_under_umask_022(tmp_path, umask_022):
    target = tmp_path / "chart.png"
    write_atomically(target, b"png")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644 and target.read_bytes() == b"png"


def test_umask_is_respected(tmp_path):
    old = os.umask(0o077)
    try:
        write_atomically(tmp_path / "private.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "private.txt").stat().st_mode) == 0o600


def test_a_replaced_file_keeps_its_mode(tmp_path, umask_022):
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o640)
    write_atomically(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary left


def test_plot_files_are_readable_by_others(tmp_path, umask_022, capsys):
    from mathhammer.cli import main

    with pytest.raises(SystemExit):
        main(["roll", "2D6", "--plot", str(tmp_path / "d.png"), "--quiet"])
    assert stat.S_IMODE((tmp_path / "d.png").stat().st_mode) == 0o644
