"""List tuning on battles (issue 32): score of a 6-model list against a 3-list meta, and tune's
screening rate — each beside its baseline, timed in the same run.

    .venv/bin/python benchmarks/tuning_battles.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/tuning_battles.py --write    # and writes it there
    .venv/bin/python benchmarks/tuning_battles.py --fantasy-only --write  # its Fantasy section
    .venv/bin/python benchmarks/tuning_battles.py --fantasy-battles 200   # a quicker Fantasy run

1. ``score --model battle`` of Sorscha + 3 Juggernauts + 2 Destroyers against the Mk II
   battle boxes (3 lists), greedy generals, 1,000 battles per list, on 2 worker processes;
   beside it the same on this process alone (its CPU-seconds: the work). Target: <= 30 s.
2. ``tune`` on battles at the screening fidelity (40 battles per meta list): candidate lists
   per minute, beside scoring each candidate afresh (``score_list`` per candidate, no
   battle book). Target: >= 100 lists per minute.
3. The same two lines on Fantasy battles (issue 32): ``score`` of wfb8_empire_battle against
   wfb8_infantry (3 lists) and ``tune`` of its options against wfb8_battle_lines, each in a
   fresh process beside the same command with every plan building its own exact tables
   (``MATHHAMMER_SHARED_TABLES=0``), and their answers compared.
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


FANTASY_LIST, FANTASY_META = "wfb8_empire_battle", "wfb8_infantry"  # 6 units + captain; 3 lists


def _option(flag: str, default):
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else default


def _cli(args: list[str], shared: bool) -> tuple[float, float, dict]:
    """(wall s, CPU s of the process — not of its helper processes —, its JSON) of one
    ``mathhammer`` run in a fresh process; ``shared`` False: every plan builds its own exact tables (the baseline,
    MATHHAMMER_SHARED_TABLES=0)."""
    import json
    import os
    import resource
    import subprocess

    env = {**os.environ, "MATHHAMMER_SHARED_TABLES": "1" if shared else "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mathhammer", *args, "--format", "json", "-q"],
                          env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def fantasy_rows(battles: int) -> list[tuple]:
    """Issue 32 on Fantasy battles: each figure beside the same run with every plan building
    its own exact tables (no store: the figures before the tables were shared), same seed —
    the answers must be equal."""
    rows = []
    score = ["score", FANTASY_LIST, "--meta", FANTASY_META, "--model", "battle", "--battles",
             str(battles), "--workers", "2", "--seed", "2"]
    (wall, _c, new), (wall0, _c0, old) = (_cli(score, shared) for shared in (True, False))
    p = new["results"]["p_win"]
    same = "same answer" if new["results"] == old["results"] else "ANSWERS DIFFER"
    rows.append((f"Fantasy score on battles: {FANTASY_LIST} (6 units + captain) vs {FANTASY_META}"
                 f" (3 lists), greedy, {battles:,} battles per list, 2 workers (fresh process)",
                 f"{wall:.1f} s (P(win) {100 * p['value']:.1f} ± {100 * p['se']:.1f}%)",
                 f"{wall0:.1f} s without shared tables ({same})", "<= 30 s",
                 "pass" if wall <= 30 and same == "same answer" else "MISS"))
    # the work in CPU-seconds (the helpers are the forkserver's children: not counted by
    # getrusage), on one process at a fifth of the battles
    fifth = max(10, battles // 5)
    one = [*score[:score.index("--battles")], "--battles", str(fifth), "--workers", "1",
           "--seed", "2"]
    (wall, cpu, new), (wall0, cpu0, old) = (_cli(one, shared) for shared in (True, False))
    same = "same answer" if new["results"] == old["results"] else "ANSWERS DIFFER"
    rows.append((f"the same score at {fifth:,} battles per list on one process (fresh): CPU-s",
                 f"{cpu:.1f} CPU-s ({wall:.1f} s)", f"{cpu0:.1f} CPU-s ({wall0:.1f} s) without "
                 f"shared tables ({same})", "(record)", f"{cpu0 / cpu:.1f}x less CPU"))
    tune = ["tune", FANTASY_LIST, "--options", FANTASY_LIST, "--meta", "wfb8_battle_lines",
            "--battles", "40", "--max-lists", "12", "--budget-seconds", "900", "--workers", "2",
            "--seed", "4"]
    (wall, cpu, new), (wall0, cpu0, old) = (_cli(tune, shared) for shared in (True, False))
    lists, lists0 = new["info"]["lists_evaluated"], old["info"]["lists_evaluated"]
    same = "same answer" if new["results"] == old["results"] else "ANSWERS DIFFER"
    rate, rate0 = lists / wall * 60, lists0 / wall0 * 60
    rows.append(("Fantasy tune on battles at the screening fidelity (40 battles per meta list, "
                 f"{FANTASY_LIST} options vs wfb8_battle_lines, 2 workers, fresh process)",
                 f"{rate:,.0f} lists/min ({lists} lists, {wall:.1f} s, {cpu:.1f} CPU-s of "
                 "this process; a helper process plays beside it once the work left is worth "
                 "it: its CPU is not counted here)",
                 f"{rate0:,.0f} lists/min ({lists0} lists, {wall0:.1f} s, {cpu0:.1f} CPU-s) "
                 f"without shared tables ({same})", ">= 100 lists/min",
                 "pass" if rate >= 100 and same == "same answer" else "MISS"))
    return rows


def main() -> int:
    if "--fantasy-only" not in sys.argv:
        warmachine()
    publish_section("tuning-battles-fantasy", "## List tuning on Fantasy battles "
                    "(`benchmarks/tuning_battles.py`, issue 32)",
                    fantasy_rows(int(_option("--fantasy-battles", 1000))), START, END,
                    "--write" in sys.argv)
    return 0


def warmachine() -> None:
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


if __name__ == "__main__":
    raise SystemExit(main())
