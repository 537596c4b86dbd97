"""Warmachine battles (issue 31): throughput and memory, beside ``wm plan`` in one run.

    .venv/bin/python benchmarks/wm_battle.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/wm_battle.py --write    # and writes it there (run.py keeps it)

1. greedy: a warcaster and three warjacks a side (Protectorate battle box vs Cygnar battle
   box), 5 rounds, 2,000 battles on 2 worker processes, warm. Target: >= 100 battles/s.
2. best-response for side A (8 rollouts an option), the same battles, 1,000 of them on 2
   workers. Target: <= 120 s.
3. memory: the largest resident set of this process and of any worker during the runs.
   Target: <= 500 MB.
4. beside them, in the same run: ``wm plan`` for Sorscha, a Juggernaut and a Destroyer
   against Stryker (the planner benchmark's case) and one greedy battle on one thread.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.report import median_seconds, publish_section  # noqa: E402
from benchmarks.run import SECTION_END as END  # noqa: E402
from benchmarks.run import SECTION_START as START  # noqa: E402

LISTS = ("protectorate_battlebox", "cygnar_battlebox")


def _mb(kb: int) -> float:
    return kb / 1024.0  # ru_maxrss is in kilobytes on Linux


def main() -> int:
    from mathhammer.warmachine.battle.runner import BattleSpec, run, run_chunk
    from mathhammer.warmachine.plan import plan_from_cli

    rows = []
    greedy = BattleSpec(*LISTS, turns=5)
    run(greedy, 256, seed=1, workers=2)  # warm: worker start-up, programs, imports
    n = 2000
    t = time.perf_counter()
    tally = run(greedy, n, seed=2, workers=2)
    wall = time.perf_counter() - t
    rate = n / wall
    one = median_seconds(lambda: run_chunk(greedy, 0, 64, 3), rounds=3) / 64
    rows.append((f"wm battle, greedy both sides: {LISTS[0]} vs {LISTS[1]}, 5 rounds, {n:,} "
                 "battles, 2 worker processes",
                 f"{rate:,.0f} battles/s ({1000 * one:.1f} ms a battle on one thread; "
                 f"A wins {100 * tally.wins[0] / n:.1f}%)", "", ">= 100 battles/s",
                 "pass" if rate >= 100 else "MISS"))
    br = BattleSpec(*LISTS, turns=5, policy_a="best-response", iterations=8)
    run(br, 8, seed=1, workers=2)
    n_br = 1000
    t = time.perf_counter()
    tally = run(br, n_br, seed=4, workers=2)
    br_wall = time.perf_counter() - t
    rows.append((f"wm battle, side A best-response (8 rollouts an option) vs greedy, 5 rounds, "
                 f"{n_br:,} battles, 2 worker processes",
                 f"{br_wall:.1f} s (A wins {100 * tally.wins[0] / n_br:.1f}%)", "", "<= 120 s",
                 "pass" if br_wall <= 120 else "MISS"))
    mine = _mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    workers = _mb(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    peak = max(mine, workers)
    rows.append(("memory: largest resident set (this process / a worker process)",
                 f"{mine:.0f} MB / {workers:.0f} MB", "", "<= 500 MB",
                 "pass" if peak <= 500 else "MISS"))
    args = (["khador/sorscha", "khador/juggernaut", "khador/destroyer"], "cygnar/stryker")
    plan_s = median_seconds(lambda: plan_from_cli(*args), rounds=1)
    rows.append(("beside it: wm plan, Sorscha + Juggernaut + Destroyer vs Stryker (one turn, "
                 "exact, 768 plans)", f"{plan_s:.2f} s", "", "(record)", ""))
    publish_section("warmachine-battle",
                    "## Warmachine battles (`benchmarks/wm_battle.py`, issue 31)",
                    rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
