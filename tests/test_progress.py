"""Long work shows it is moving (issue 22 part 3): on a terminal, the planned size first.

A Monte Carlo run reports ``(0, planned)`` before its first chunk, so the bar appears at
once with the number of trials; ``compare`` and ``sweep`` count their cells the same way
(``cells x 100,000 trials: 0/4 cells``, or ``exact cells``). stdout stays the answer only.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from mathhammer.engine import MIN_CHUNK, MonteCarloConfig, simulate
from tests.test_reliability_harness import ROOT


def _through_a_terminal(*args: str) -> tuple[int, str, str]:
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mathhammer", *args], stdout=subprocess.PIPE,
                            stderr=follower, cwd=ROOT, env={**os.environ, "COLUMNS": "120"})
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode()
    proc.wait(timeout=120)
    os.close(leader)
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", b"".join(chunks).decode(errors="replace"))
    return proc.returncode, out, text


def test_a_sweep_counts_its_cells_from_the_start():
    code, out, err = _through_a_terminal(
        "sweep", "wfb8/dwarf_warriors", "t9a1/hbe_spearmen", "--vary", "models=5..8",
        "--ruleset", "t9a1", "--method", "exact", "--rounds", "1", "--brief")
    assert code == 0 and out.startswith("Dwarf Warriors vs Spearmen"), (out, err)
    assert "exact cells:" in err and "0/4 cells" in err, err


def test_the_planned_size_comes_before_any_chunk():
    seen = []

    def chunk(n, state):
        import numpy as np

        seen.append(("chunk", n))
        return {"n": np.array([n], dtype=np.int64)}

    simulate(chunk, MonteCarloConfig(n_trials=3 * MIN_CHUNK, seed=1, threads=1,
                                     progress=lambda done, planned: seen.append((done, planned))))
    assert seen[0] == (0, 3 * MIN_CHUNK)
