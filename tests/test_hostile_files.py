"""Every command that takes a file, given a hostile one (issue 18 acceptance).

The file parameters are found in the Typer app itself: a ``Path`` argument or option
(not ``--plot`` / ``--output``), or one whose help says it takes a TOML file, a
ruleset file or a file path. Each gets ``/dev/zero``, ``/dev/urandom``, a FIFO with no
writer, a 200 MB file, a file of invalid UTF-8 and a zip bomb; each must give one line
and exit 2 within a second, reading nothing whole. (The device nodes are only opened
for reading, and the bounded reader refuses them before it opens them at all.)

The default run checks every case in this process: exit 2, one line, under a second,
and the Python memory it allocated (``tracemalloc``) under 200 MB. The slow run starts
a fresh process per case and holds its peak RSS under 200 MB too.
"""

from __future__ import annotations

import io as stdio
import os
import re
import resource
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from tests.test_reliability_harness import (
    BASE_ARGS, ROOT, SKIP_COMMANDS, assert_clean, chdir_scratch, commands, run_inprocess,
    small_args,
)

OUTPUTS = {"--plot", "--output"}
FILE_HELP = re.compile(r"toml|ruleset file|\bor file\b|\bfile\b.*\bpath\b|\bpath\b.*\bfile\b",
                       re.IGNORECASE)
WITHIN = 1.0  # CPU seconds of work for one hostile file
WAIT_WITHIN = 4.0  # wall seconds: no blocking wait, with room for a loaded test run
MEMORY = 200 * 1024 * 1024


def _is_path(annotation) -> bool:
    import typing

    if annotation is Path or (isinstance(annotation, type) and issubclass(annotation, Path)):
        return True
    return any(_is_path(a) for a in typing.get_args(annotation))


def file_parameters() -> list[tuple[str, str, int | None]]:
    """``(command, option or "", positional index)`` of every parameter taking a file."""
    found = []
    for name, cmd in sorted(commands().items()):
        if name in SKIP_COMMANDS or name not in BASE_ARGS:
            continue
        position = 0
        for param in cmd.params:
            annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
            takes_file = _is_path(annotation) or bool(FILE_HELP.search(param.help or ""))
            if param.param_type_name == "argument":
                if takes_file:
                    found.append((name, "", position))
                position += 1
            elif param.param_type_name == "option" and takes_file and param.opts[0] not in OUTPUTS:
                found.append((name, param.opts[0], None))
    return found


def _bomb() -> bytes:
    buf = stdio.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("roster.ros", b"\0" * (100 * 1024 * 1024))  # 100 MB -> ~100 kB
    return buf.getvalue()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("hostile")
    fifo = folder / "no_writer.toml"
    os.mkfifo(fifo)
    big = folder / "big.toml"
    with open(big, "wb") as handle:
        handle.write(b'game = "warmachine"\n')
        handle.truncate(200 * 1024 * 1024)
    latin1 = folder / "latin1.toml"
    latin1.write_bytes(b'game = "fantasy"\nname = "M\xfcller\'s Men"\n')
    bomb = folder / "bomb.rosz"
    bomb.write_bytes(_bomb())
    return {"/dev/zero": "/dev/zero", "/dev/urandom": "/dev/urandom", "FIFO": str(fifo),
            "200 MB": str(big), "invalid UTF-8": str(latin1), "zip bomb": str(bomb)}


def _argv(command: str, option: str, position: int | None, path: str) -> list[str]:
    base = list(BASE_ARGS[command])
    extra = small_args(commands()[command])
    if option:  # a later value of an option wins over the base invocation's
        return command.split() + base + extra + [option, path]
    first_option = next((i for i, tok in enumerate(base) if tok.startswith("-")), len(base))
    head, tail = base[:first_option], base[first_option:]  # base lists positionals first
    while len(head) <= position:
        head.append("x")
    head[position] = path
    return command.split() + tail + extra + ["--", *head]


def test_the_walk_finds_the_file_parameters():
    found = {(c, o) for c, o, _ in file_parameters()}
    for expected in [("run", ""), ("magic phase", ""), ("compare", ""), ("sweep", ""),
                     ("fb attack", "--ruleset"), ("wm aoe", "--models"), ("wm duel", ""),
                     ("profiles validate", ""), ("profiles show", ""), ("fb combat", "")]:
        assert expected in found, expected
    assert not any(o in OUTPUTS for _, o, _ in file_parameters())


CASES = ["/dev/zero", "/dev/urandom", "FIFO", "200 MB", "invalid UTF-8", "zip bomb"]


@pytest.mark.parametrize("command, option, position", file_parameters(),
                         ids=[f"{c} {o or f'arg{p}'}" for c, o, p in file_parameters()])
def test_every_hostile_file_is_one_line_exit_2_at_once(command, option, position, hostile,
                                                      tmp_path):
    with chdir_scratch(tmp_path):  # imports and the click tree once, outside the timing
        run_inprocess(_argv(command, option, position, hostile["invalid UTF-8"]), timeout=30)
    for case in CASES:
        argv = _argv(command, option, position, hostile[case])
        tracemalloc.start()
        start, wall = time.process_time(), time.monotonic()
        with chdir_scratch(tmp_path):
            code, out, err = run_inprocess(argv, timeout=10)
        took = time.process_time() - start  # the work done, not a loaded test run's waits
        waited = time.monotonic() - wall  # a blocking open (the FIFO) costs no CPU: bound it too
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert_clean(argv, code, out, err, command)
        assert code == 2, f"{case}: `mathhammer {' '.join(argv)}` exit {code}: {out[:200]}"
        lines = [line for line in err.splitlines() if line.strip()]
        if command == "profiles validate":  # one problem line, then the count
            assert len(lines) == 2 and lines[-1] == "1 of 1 file(s) invalid", err
        else:
            assert len(lines) == 1, err
        assert took < WITHIN, f"{case}: {took:.2f} CPU-s: `mathhammer {' '.join(argv)}`"
        assert waited < WAIT_WITHIN, f"{case}: {waited:.2f} s: `mathhammer {' '.join(argv)}`"
        assert peak < MEMORY, f"{case}: {peak / 2**20:.0f} MB allocated"
    assert list(tmp_path.iterdir()) == []  # nothing written


def _child_peak_rss(argv: list[str], cwd: Path) -> tuple[int, float, str, int]:
    """(exit code, seconds, stderr, peak RSS bytes) of `mathhammer ARGV` in a new process."""
    code = ("import resource, subprocess, sys, time\n"
            "t = time.monotonic()\n"
            "p = subprocess.run([sys.executable, '-m', 'mathhammer', *sys.argv[1:]],"
            " capture_output=True, text=True)\n"
            "took = time.monotonic() - t\n"
            "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
            "print(p.returncode, took, rss); print(p.stderr, end='')\n")
    proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    first, _, err = proc.stdout.partition("\n")
    exit_code, took, rss = first.split()
    return int(exit_code), float(took), err, int(rss)


@pytest.mark.slow
@pytest.mark.parametrize("command, option, position", file_parameters(),
                         ids=[f"{c} {o or f'arg{p}'}" for c, o, p in file_parameters()])
def test_every_hostile_file_in_a_fresh_process(command, option, position, hostile, tmp_path):
    """Peak RSS of the whole process (imports included) under 200 MB for each case."""
    for case in CASES:
        argv = _argv(command, option, position, hostile[case])
        code, took, err, rss = _child_peak_rss(argv, tmp_path)
        assert code == 2 and "Traceback" not in err, err
        assert rss < MEMORY, f"{case}: peak RSS {rss / 2**20:.0f} MB"
        print(f"{command} {option or position} {case}: {took:.2f} s, {rss / 2**20:.0f} MB")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0
