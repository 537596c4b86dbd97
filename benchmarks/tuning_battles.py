"""List tuning on battles (issue 32): score of a 6-model list against a 3-list meta, and tune's
screening rate — each beside its baseline, timed in the same run.

    .venv/bin/python benchmarks/tuning_battles.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/tuning_battles.py --write    # and writes it there

1. ``score --model battle`` of Sorscha + 3 Juggernauts + 2 Destroyers against the Mk II
   battle boxes (3 lists), greedy generals, 1,000 battles per list, on 2 worker processes;
   beside it the same on this process alone (its CPU-seconds: the work). Target: <= 30 s.
2. ``tune`` on battles at the screening fidelity (40 battles per meta list): candidate lists
   per minute, beside scoring each candidate afresh (``score_list`` per candidate, no
   battle book). Target: >= 100 lists per minute.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.report import publish_section  # noqa: E402
from benchmarks.run import SECTION_END as END  # noqa: E402
from benchmarks.run import SECTION_START as START  # noqa: E402
from mathhammer.lists import load_list  # noqa: E402
from mathhammer.tuning import score_list  # noqa: E402
from mathhammer.tuning.tune import tune_list  # noqa: E402

SIX = {"name": "Khador six", "game": "warmachine", "ruleset": "mk2", "points": 40,
       "units": [{"profile": "khador/sorscha"}, {"profile": "khador/juggernaut", "count": 3},
                 {"profile": "khador/destroyer", "count": 2}]}
META = "mk2_battleboxes"


def main() -> int:
    rows = []
    six = load_list(SIX)
    score_list(six, META, n_battles=20, seed=1, workers=1)  # warm: imports, plan search
    t = time.perf_counter()
    r = score_list(six, META, n_battles=1000, seed=2, workers=2)
    pool_s = time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    score_list(six, META, n_battles=1000, seed=2, workers=1)
    one_s, one_cpu = time.perf_counter() - t, time.process_time() - c
    p = r.results["p_win"]
    rows.append(("score on battles: 6 models vs a 3-list meta, greedy, 1,000 battles per list, "
                 "2 worker processes", f"{pool_s:.1f} s (P(win) {100 * p.value:.1f} ± "
                 f"{100 * p.se:.1f}%)", f"{one_s:.1f} s on one process ({one_cpu:.1f} CPU-s)",
                 "<= 30 s", "pass" if pool_s <= 30 else "MISS"))
    # 2. tune at the screening fidelity only (n_battles = the screen: no races above it)
    t = time.perf_counter()
    report = tune_list("khador_battlebox", "khador_battlebox", META, seed=3, n_battles=40,
                       budget_seconds=20, workers=2)
    elapsed = time.perf_counter() - t
    lists = report.info["lists_evaluated"]
    rate = lists / elapsed * 60
    t = time.perf_counter()
    army = load_list("khador_battlebox")
    for i in range(5):
        score_list(army, META, n_battles=40, seed=100 + i, workers=1)
    naive = 60 / ((time.perf_counter() - t) / 5)
    rows.append(("tune on battles at the screening fidelity (40 battles per meta list)",
                 f"{rate:,.0f} lists/min ({lists} lists, {elapsed:.1f} s incl. the final pass; "
                 f"{report.info['battles_played']:,} battles)",
                 f"{naive:,.0f} lists/min (score_list per candidate, no battle book)",
                 ">= 100 lists/min", "pass" if rate >= 100 else "MISS"))
    rows.append(("Dask path = local path for the same seed", "tests/test_tuning_battles.py::"
                 "test_local_pool_and_dask_play_the_same_battles", "", "equal", "test"))
    publish_section("tuning-battles", "## List tuning on battles (`benchmarks/tuning_battles.py`, "
                    "issue 32)", rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
