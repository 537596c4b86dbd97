"""Shared test helpers: run the CLI in-process or as a subprocess.

``run_cli`` starts a real ``python -m mathhammer`` process (about a second each: Python,
numpy and numba start-up). Use it only for what needs a process: exit codes of the real
entry point, ``--help`` import cost, Ctrl-C, environment variables. Everything that checks
output, JSON or messages uses ``cli_inprocess`` (same ``main``, same argv handling, stdout
and stderr captured, stderr not a terminal so no progress bar) or ``run_json``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: tests that play Fantasy battles on the numba kernels (mathhammer/fantasy/kernels/battle*.py),
#: the slowest kernels to compile cold. `make test` (``--dist loadgroup``) runs them all on ONE
#: xdist worker: a fresh clone compiles them once while the other worker runs the rest, not
#: twice at once (numba's on-disk cache is shared, but a compile in progress is not)
FANTASY_BATTLE_TESTS = (
    "tests/test_fb_battle.py", "tests/test_fb_battle_",  # every tests/test_fb_battle_*.py
    "tests/test_tuning_battles.py",
    "tests/test_notebooks.py::test_notebook_executes[06_",
    "tests/test_notebooks.py::test_notebook_executes[07_",
)


@pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest -p no:xdist still runs
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: FANTASY_BATTLE_TESTS are one work unit, every other test its own.
    (xdist's ``xdist_group`` mark renames node ids through an attribute pytest 9 no longer
    reads, so the groups are made here; xdist sends the largest unit first.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BattleTestsOnOneWorker(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "fantasy-battle-kernels" if nodeid.startswith(FANTASY_BATTLE_TESTS) else nodeid

    return BattleTestsOnOneWorker(config, log)


def user_docs_text() -> str:
    """The user's documentation as one text: the front-door README, then the guide
    under docs/guide/ (the reference sections the README links to)."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
    return "\n\n".join(p.read_text(encoding="utf-8") for p in paths)


def run_cli(*args: str, input: str | None = None, timeout: float = 300, env: dict | None = None):
    """Run ``mathhammer ARGS`` in a subprocess; returns CompletedProcess (text)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mathhammer", *args], capture_output=True, text=True,
        input=input, timeout=timeout, env=full_env, cwd=ROOT,
    )


def ctrl_c_while_workers_run(args: list[str], processes: int, deadline: float = 600) -> None:
    """Start ``mathhammer ARGS`` in its own process group, wait until the group holds
    ``processes`` processes (its workers started; a cold kernel compile may come first) and
    a second more, send SIGINT to the group as a terminal does, and check the stop: exit
    130 within 5 s, one line on stderr, nothing on stdout, no process of the group left."""
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "mathhammer", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)

    def group() -> list[str]:
        return subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True,
                              text=True).stdout.split()

    try:
        start = time.monotonic()
        while len(group()) < processes and proc.poll() is None \
                and time.monotonic() - start < deadline:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1]
        assert len(group()) >= processes, f"the workers did not start within {deadline:.0f} s"
        time.sleep(1.0)  # the workers inside their first chunks
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
        for _ in range(30):  # a forkserver and a resource tracker leave once the parent has
            if not group():
                break
            time.sleep(0.1)
        left = group()
    finally:
        for pid in group():  # never leave anything running, whatever the test finds
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    assert proc.returncode == 130, err
    assert took < 5.0, took
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), err
    assert out == "" and not left, (out, left)


def cli_inprocess(*args: str) -> subprocess.CompletedProcess:
    """``mathhammer ARGS`` in this process, as ``run_cli`` would see it from outside.

    Returns a CompletedProcess (returncode, stdout, stderr). Runs in ROOT like
    ``run_cli``; an uncaught exception becomes exit 1 with its traceback on stderr, as
    Python's own top level would print it.
    """
    from mathhammer import kernels
    from mathhammer.cli import main

    out, err = io.StringIO(), io.StringIO()  # StringIO.isatty() is False: no progress bar
    code = 0
    notice = kernels.compile_notice
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as stop:
            if stop.code is None:
                code = 0
            elif isinstance(stop.code, int):
                code = stop.code
            else:  # sys.exit("message"): printed to stderr, exit 1
                print(stop.code, file=sys.stderr)
                code = 1
        except Exception:
            traceback.print_exc()
            code = 1
        finally:
            kernels.compile_notice = notice  # the CLI installs its own printer
    return subprocess.CompletedProcess(["mathhammer", *args], code, out.getvalue(), err.getvalue())


def cli_result(*args) -> tuple[int, str, str]:
    """``cli_inprocess`` as (exit code, stdout, stderr); arguments may be paths or numbers."""
    proc = cli_inprocess(*map(str, args))
    return proc.returncode, proc.stdout, proc.stderr


def run_json(*args: str) -> dict:
    """``mathhammer ARGS --format json`` (in-process): exit 0 and the parsed JSON."""
    proc = cli_inprocess(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def cli():
    return run_cli


def empire_orcs(policy_a: str, turns: int = 3):
    """The small battle the switch tests play: wfb8_empire (``policy_a``) against wfb8_orcs
    (greedy), the first turn rolled off, 2 rollouts an option."""
    from mathhammer.fantasy.battle.runner import Recipe
    from mathhammer.lists import load_list

    return Recipe(load_list("wfb8_empire"), load_list("wfb8_orcs"), None, "default", turns,
                  "roll-off", policy_a, "greedy", 2, 1)


def assert_same_tallies(first: dict, *others: dict) -> None:
    """Battles tallied alike, array by array (a switch that must not change the answer)."""
    import numpy as np

    for other in others:
        for key, value in first.items():
            assert np.array_equal(other[key], value), key
