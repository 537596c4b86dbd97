"""Fantasy battles (issue 30): throughput and memory, beside ``fb combat`` in one run.

    .venv/bin/python benchmarks/fantasy_battle.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/fantasy_battle.py --write    # and writes it there
    .venv/bin/python benchmarks/fantasy_battle.py --br-battles 1000   # the full best-response case

1. greedy both sides: two six-unit lists (wfb8_empire_battle vs wfb8_orcs_battle), 6 game
   turns, on 2 worker processes, warm (the exact tables of the matchup built first, in this
   process, as any long run builds them in its first battles). Target: >= 1,000 battles/s.
2. best-response for side A (8 rollouts an option) vs greedy, the same lists. Target: 1,000
   battles <= 60 s. By default 100 battles are timed (several chunks, both workers) and the
   1,000 extrapolated; ``--br-battles 1000`` times the whole case (8 battles, one chunk on one
   worker, had understated it 2.5x: a long run keeps meeting tables no worker has built).
3. memory: the largest resident set of this process and of any worker. Target: <= 500 MB.
4. beside them, in the same run: ``fb combat`` Halberdiers vs Orc Boyz, one round exact and
   until decided by Monte Carlo (200,000 trials).
Wall seconds and CPU-seconds (this process and its reaped workers) are both recorded.
"""

from __future__ import annotations

import gc
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
from benchmarks.wm_battle import PeakMemory  # noqa: E402

LISTS = ("wfb8_empire_battle", "wfb8_orcs_battle")


def cpu_seconds() -> float:
    """User + system seconds of this process and of its finished (reaped) children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    wall, cpu = time.perf_counter(), cpu_seconds()
    out = fn()
    return out, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> int:
    from mathhammer.engine import MonteCarloConfig
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.fantasy.combat.fight import combat
    from mathhammer.lists import load_list

    br_battles = int(sys.argv[sys.argv.index("--br-battles") + 1]) if "--br-battles" in sys.argv \
        else 100
    armies = [load_list(name) for name in LISTS]
    rows = []
    memory = PeakMemory().__enter__()

    recipe = Recipe(*armies, None, "default", 6, "roll-off", "greedy", "greedy", 8, 1)
    plan = build_plan(recipe)
    _, warm_wall, warm_cpu = timed(lambda: run(recipe, 2000, 1, plan=plan))
    n = 20_000
    (tally, _seed, _plan), wall, cpu = timed(lambda: run(recipe, n, 2, workers=2, plan=plan))
    rate = n / wall
    a_wins = tally["outcome"][0] / n
    rows.append((f"fb battle, greedy both sides: {LISTS[0]} vs {LISTS[1]} (6 units a side), "
                 f"6 game turns, {n:,} battles, 2 worker processes, warm",
                 f"{rate:,.0f} battles/s ({wall:.1f} s wall, {cpu:.1f} CPU-s: "
                 f"{1000 * cpu / n:.2f} CPU-ms a battle; A wins {100 * a_wins:.1f}%)",
                 f"first 2,000 battles in one process building the matchup's exact tables: "
                 f"{warm_wall:.1f} s ({warm_cpu:.1f} CPU-s)", ">= 1,000 battles/s",
                 "pass" if rate >= 1000 else "MISS"))

    plan = _plan = None  # a run's process holds its own plan's tables, not the last run's
    gc.collect()
    br = Recipe(*armies, None, "default", 6, "roll-off", "best-response", "greedy", 8, 1)
    br_plan = build_plan(br)
    run(br, 4, 1, plan=br_plan)  # warm: its compile and the tables of its first battles
    (tally, _seed, _plan), br_wall, br_cpu = timed(
        lambda: run(br, br_battles, 4, workers=2, plan=br_plan))
    per_1000 = br_wall * 1000 / br_battles
    what = "timed" if br_battles >= 1000 else f"extrapolated from {br_battles:,} timed"
    rows.append((f"fb battle, side A best-response (8 rollouts an option) vs greedy, the same "
                 f"lists, 2 worker processes ({br_battles:,} battles)",
                 f"1,000 battles in {per_1000:.0f} s ({what}; {br_wall:.1f} s wall, "
                 f"{br_cpu:.0f} CPU-s for {br_battles:,}: {br_cpu / br_battles:.2f} CPU-s a battle; "
                 f"A wins {100 * tally['outcome'][0] / br_battles:.1f}%)",
                 f"greedy A wins {100 * a_wins:.1f}%", "<= 60 s",
                 "pass" if per_1000 <= 60 else "MISS"))
    memory.__exit__()
    mine, workers = memory.mine, memory.worker
    rows.append(("memory: largest resident set (this process / a worker process)",
                 f"{mine:.0f} MB / {workers:.0f} MB", "", "<= 500 MB",
                 "pass" if max(mine, workers) <= 500 else "MISS"))

    pair = ("wfb8/empire_halberdiers", "wfb8/orc_boyz")
    exact_s = median_seconds(lambda: combat(*pair, rounds=1, method="exact"), rounds=3)
    config = MonteCarloConfig(n_trials=200_000, seed=5)
    mc_s = median_seconds(lambda: combat(*pair, method="mc", config=config), rounds=1)
    rows.append(("beside it: fb combat Halberdiers vs Orc Boyz, one round exact / until "
                 "decided by Monte Carlo (200,000 trials)", f"{exact_s:.3f} s / {mc_s:.2f} s",
                 "", "(record)", ""))
    publish_section("fantasy-battle", "## Fantasy battles (`benchmarks/fantasy_battle.py`, issue 30)",
                    rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
