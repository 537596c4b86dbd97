"""Worker pools (mathhammer/workers.py): the workers ignore Ctrl-C and end with their parent."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

PARENT = """
import os, sys, time
from mathhammer.workers import worker_pool
pool = worker_pool(2, sys.argv[1])
futures = [pool.submit(time.sleep, 60) for _ in range(2)]
time.sleep(1.0)  # both workers started and sleeping in a job
with open(sys.argv[2], "w") as out:
    out.write(" ".join(str(p.pid) for p in pool._processes.values()))
os._exit(0)  # as the command line's Ctrl-C watchdog leaves: no pool shut down
"""


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_workers_end_when_their_parent_is_gone(method, tmp_path):
    """A parent that leaves at once (os._exit, never stopping its pool) leaves no worker
    behind: each sees its parent gone within a fraction of a second and exits (they kept
    computing or waiting for ever, holding the caller's pipes)."""
    pid_file = tmp_path / "pids"
    # no pipes: a worker left behind must not hold this test up (it is found and killed below)
    proc = subprocess.run([sys.executable, "-c", PARENT, method, str(pid_file)], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    pids = [int(p) for p in pid_file.read_text().split()]
    assert proc.returncode == 0 and len(pids) == 2
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [pid for pid in alive if _running(pid)]
    for pid in alive:  # never leave one behind, whatever the test finds
        os.kill(pid, 9)
    assert not alive, f"workers {alive} outlived their parent"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


MASKS = """
import signal, sys
from mathhammer.workers import pool_of


def sigint_blocked():
    return signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


if __name__ == "__main__":
    with pool_of(2, sys.argv[1]) as pool:
        seen = [f.result() for f in [pool.submit(sigint_blocked) for _ in range(4)]]
    print(all(seen), sigint_blocked())
"""


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_a_worker_is_born_deaf_to_ctrl_c(method, tmp_path):
    """A worker starts with SIGINT blocked (inherited at the fork, from its forkserver too),
    so a Ctrl-C in its first milliseconds, before it could ignore the signal, printed a
    traceback over the one-line stop no more; the parent holds SIGINT only while it starts
    a worker (False after the pool)."""
    script = tmp_path / "masks.py"
    script.write_text(MASKS)
    proc = subprocess.run([sys.executable, str(script), method], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["True", "False"], proc.stdout
