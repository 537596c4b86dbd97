"""The one writer (mathhammer.io, issue 22 part 1): right for every kind of path.

Every case runs in a temporary folder. Device nodes are made there with the numbers of
the kernel's null (1, 3) and full (1, 7) devices, and only when the tests run as root;
nothing under /dev is ever written.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mathhammer import io
from mathhammer.errors import OutputError
from mathhammer.io import write_atomically
from tests.test_reliability_harness import ROOT, assert_clean, run_inprocess
from mathhammer.present.flags import error_line

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="device nodes need root (mknod)")
ROLL_JSON = ["roll", "2D6", "--format", "json", "-q"]


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _device(folder: Path, name: str, minor: int) -> Path:
    """A character device node in ``folder`` with the numbers of /dev/null (3) or /dev/full (7)."""
    node = folder / name
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return node


def _mathhammer(*argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathhammer", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, **kwargs)


# --------------------------------------------------------------------------- regular files


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


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old contents")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError) as err:
        write_atomically(target, "new contents")
    assert error_line(err.value) == (f"--output: the disk is full (got {io.short_path(target)}); "
                                    "fix: free some space or write to another disk")
    assert target.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


# --------------------------------------------------------------------------- symlinks


def test_a_symlink_stays_a_link_and_its_target_is_replaced(tmp_path):
    real = tmp_path / "data" / "real.json"
    real.parent.mkdir()
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(Path("data/real.json"))
    hop = tmp_path / "hop.json"  # a chain of two links
    hop.symlink_to(link)
    write_atomically(hop, "new")
    assert hop.is_symlink() and link.is_symlink()
    assert real.read_text() == "new" and stat.S_IMODE(real.stat().st_mode) == 0o600
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.json"]


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    write_atomically(link, "x")
    assert link.is_symlink() and (tmp_path / "made.json").read_text() == "x"


# --------------------------------------------------------------------------- streams


def test_a_fifo_with_a_reader_receives_the_output_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    code, out, err = run_inprocess([*ROLL_JSON, "-o", str(fifo)])
    reader.join(10)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received and received[0].lstrip().startswith(b"{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.fifo"]


@ROOT_ONLY
def test_a_device_node_is_written_through_and_never_replaced(tmp_path):
    null = _device(tmp_path, "null", 3)
    code, out, err = run_inprocess([*ROLL_JSON, "-o", str(null)])
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@ROOT_ONLY
def test_a_full_device_is_exit_2_and_stays_a_device(tmp_path):
    full = _device(tmp_path, "full", 7)
    argv = [*ROLL_JSON, "-o", str(full)]
    code, out, err = run_inprocess(argv)
    assert_clean(argv, code, out, err)
    assert code == 2
    assert err == (f"error: --output: the disk is full (got {io.short_path(full)}); fix: free "
                   "some space or write to another disk\n")
    assert stat.S_ISCHR(os.lstat(full).st_mode)


@ROOT_ONLY
def test_a_block_device_is_refused_before_it_is_opened(tmp_path):
    # major 240: "local/experimental use", no driver behind it; never opened anyway
    node = tmp_path / "disk"
    os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(240, 0))
    with pytest.raises(OutputError, match="block device"):
        io.resolve_output(node)


def test_dash_is_standard_output(tmp_path):
    with __import__("contextlib").chdir(tmp_path):
        code, out, err = run_inprocess(["roll", "2D6", "--brief", "-o", "-"])
    assert code == 0 and out.startswith("2D6 averages 7.00") and err == ""
    assert list(tmp_path.iterdir()) == []  # no file named "-"


# --------------------------------------------------------------------------- bad paths


def _bad_paths(tmp_path: Path) -> dict[str, tuple[str, str]]:
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    (tmp_path / "plain").write_text("x")
    (tmp_path / "folder").mkdir()
    return {
        "long name": (str(tmp_path / ("A" * 300 + ".json")), "the file name is too long"),
        "long folder": (str(tmp_path / ("B" * 300) / "x.json"), "the file name is too long"),
        "unknown user": ("~nosuchuser_mh/x.txt", "names the home folder of 'nosuchuser_mh'"),
        "symlink loop": (str(tmp_path / "loop1"), "the path has a symlink loop"),
        "not a folder": (str(tmp_path / "plain" / "x.json"), "a part of the path is not a folder"),
        "a folder": (str(tmp_path / "folder"), "names a folder, not a file"),
        "missing folder": (str(tmp_path / "no" / "x.json"), "folder does not exist"),
        "proc": ("/proc/out.json", "folder is not writable"),
    }


@pytest.mark.parametrize("flag", ["--output", "--plot"])
def test_every_bad_output_path_is_one_line_exit_2(tmp_path, flag):
    for case, (path, reason) in _bad_paths(tmp_path).items():
        if flag == "--plot" and path:
            path += ".png"  # the suffix check comes first; make it pass
            reason = reason.replace("names a folder", "a part of the path is not a folder") \
                if case == "not a folder" else reason
        if flag == "--plot" and case in ("a folder", "symlink loop"):
            continue  # their .png twins are plain new files
        argv = ["roll", "2D6", "--method", "mc", "--n-trials", str(10**11), "-q", flag, path]
        code, out, err = run_inprocess(argv)  # 10^11 trials: exit 2 at once = checked first
        assert_clean(argv, code, out, err)
        assert code == 2 and reason in err and err.startswith(f"error: {flag}"), (case, err)
        assert len(err) < 400, err  # the path is shortened
    assert not list(Path("/proc").glob("out.json*"))


def test_an_empty_path_is_refused():
    with pytest.raises(OutputError, match="is empty"):
        io.resolve_output("")


def test_two_outputs_naming_the_same_file_are_refused_before_any_work(tmp_path):
    same = tmp_path / "x.png"
    alias = tmp_path / "alias.png"
    alias.symlink_to(same)
    for plot, output in ((same, same), (same, alias)):
        argv = ["roll", "2D6", "--method", "mc", "--n-trials", str(10**11), "-q",
                "--plot", str(plot), "-o", str(output)]
        code, out, err = run_inprocess(argv)
        assert code == 2 and "--plot and --output: name the same file" in err, err
    assert not same.exists()


@ROOT_ONLY
def test_a_failed_output_leaves_no_plot_behind(tmp_path):
    full = _device(tmp_path, "full", 7)
    argv = ["roll", "2D6", "-q", "--plot", str(tmp_path / "p.png"), "-o", str(full)]
    code, out, err = run_inprocess(argv)
    assert code == 2 and "the disk is full" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_all_or_nothing_undoes_earlier_files_when_a_later_one_fails(tmp_path, monkeypatch):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("old a")
    real_replace = os.replace

    def replace(src, dst):
        if Path(dst) == second:
            raise OSError(errno.EIO, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OutputError, match="input/output error"), io.all_or_nothing():
        write_atomically(first, "new a", "--plot")
        write_atomically(second, "new b")
    assert first.read_text() == "old a" and not second.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


# --------------------------------------------------------------------------- standard output


def _limit_file_size(kb: int):
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (kb * 1024, kb * 1024))


def test_standard_output_past_a_file_size_limit_is_exit_2(tmp_path):
    """`ulimit -f 2`: Python's own stdout wrote 2,048 of 59,110 bytes and exited 0."""
    with open(tmp_path / "out.json", "wb") as out:
        proc = subprocess.run([sys.executable, "-m", "mathhammer", "roll", "200D6", "--format",
                               "json"], cwd=ROOT, stdout=out, stderr=subprocess.PIPE, text=True,
                              timeout=120, preexec_fn=_limit_file_size(2))
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: standard output: the file would pass the file-size "
                                  "limit (ulimit -f)") and proc.stderr.count("\n") == 1


@ROOT_ONLY
def test_standard_output_on_a_full_device_is_exit_2(tmp_path):
    full = _device(tmp_path, "full", 7)
    with open(full, "wb") as out:
        proc = subprocess.run([sys.executable, "-m", "mathhammer", "profiles", "list"], cwd=ROOT,
                              stdout=out, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == ("error: standard output: the disk is full; fix: free some space or "
                           "write to another disk (or write to a file with -o FILE)\n")


def test_a_closed_standard_output_is_exit_2():
    proc = subprocess.run([sys.executable, "-m", "mathhammer", "roll", "2D6"], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=120, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: standard output: is closed")


def test_a_reader_leaving_early_is_a_quiet_exit_0():
    """`mathhammer roll 200D6 --format json | head -c 10`."""
    proc = subprocess.Popen([sys.executable, "-m", "mathhammer", "roll", "200D6", "--format",
                             "json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(60) == 0 and err == b"" and head.startswith(b"{")


# --------------------------------------------------------------------------- kernel cache


def test_a_failing_kernel_cache_save_runs_the_query_uncached(tmp_path, monkeypatch, capsys):
    """Saving a compiled kernel fails (disk full): the function still runs, one note."""
    import importlib

    import mathhammer.kernels  # noqa: F401 (installs the guard)

    module_path = tmp_path / "mh_cache_probe.py"
    module_path.write_text("from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n"
                           "    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    from numba.core import caching, config

    config.reload_config()

    def full(self, name, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(caching.IndexDataCacheFile, "_save_data", full)
    try:
        probe = importlib.import_module("mh_cache_probe")
        assert probe.twice(21) == 42 and probe.twice(2.5) == 5.0
    finally:
        sys.modules.pop("mh_cache_probe", None)
        monkeypatch.undo()
        config.reload_config()
    err = capsys.readouterr().err
    assert err.count("note: the compiled-kernel cache cannot be used (No space left on device)"
                     "; running without it") == 1, err


def test_a_scratch_write_is_whole_or_absent_and_never_raises(tmp_path):
    """write_scratch (a run's private cache files): the bytes land whole under the name, no
    temporary file stays; a folder that is gone is False, with nothing written."""
    from mathhammer.io.write import write_scratch

    target = tmp_path / "table"
    assert write_scratch(str(target), b"\x00" * 1000 + b"end")
    assert target.read_bytes() == b"\x00" * 1000 + b"end"
    assert [p.name for p in tmp_path.iterdir()] == ["table"]
    assert not write_scratch(str(tmp_path / "gone" / "table"), b"x")
    assert not (tmp_path / "gone").exists()
