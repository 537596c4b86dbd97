"""Fantasy whole-turn and several-unit combat benchmarks (issue 13), beside the two-unit combat.

    .venv/bin/python benchmarks/fantasy_turns.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/fantasy_turns.py --write    # and writes it there (run.py keeps it)

1. ``fb turn`` on the bundled three-turn scenario at 10^5 trials (warm), and exactly.
2. The bundled flank charge (two units and characters against one, a challenge) for three
   rounds at 10^5 trials (warm).
Baseline: a plain two-unit combat (Halberdiers vs Orc Boyz), three rounds, 10^5 trials.
Target (issue 13): each <= 2 s warm on 2 cores.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.run import SECTION_END as END  # noqa: E402
from benchmarks.run import SECTION_START as START  # noqa: E402
from mathhammer.engine import MonteCarloConfig  # noqa: E402
from mathhammer.fantasy.combat import combat  # noqa: E402
from mathhammer.fantasy.scenario import run_scenario  # noqa: E402
from mathhammer.profiles import read_toml  # noqa: E402

TURNS = "profiles/scenarios/fantasy_turns_knights_vs_orcs.toml"
FLANK = "profiles/scenarios/fantasy_flank_charge.toml"


def timed(fn, rounds: int = 3) -> float:
    fn()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]


def main() -> int:
    cfg = MonteCarloConfig(n_trials=100_000, seed=1)
    base = timed(lambda: combat("wfb8/empire_halberdiers", "wfb8/orc_boyz", rounds=3, charger="a",
                                method="mc", config=cfg))
    turns = read_toml(TURNS)
    mc = timed(lambda: run_scenario(turns, TURNS, method="mc", config=cfg, check=False))
    exact = timed(lambda: run_scenario(turns, TURNS, method="exact", config=cfg, check=False),
                  rounds=1)
    flank = read_toml(FLANK)
    flank["rounds"] = 3
    two = timed(lambda: run_scenario(flank, FLANK, method="mc", config=cfg, check=False))
    rows = [
        ("fb turn, bundled scenario (3 game turns, shooting, a missile, charge, combat), 1e5 trials",
         f"{mc:.2f} s (exact: {exact:.2f} s)", f"{base:.2f} s (two-unit combat, 3 rounds)",
         "<= 2 s", "pass" if mc <= 2 else "MISS"),
        ("2 units + characters vs 1, a challenge, 3 rounds, 1e5 trials",
         f"{two:.2f} s", f"{base:.2f} s (two-unit combat, 3 rounds)", "<= 2 s",
         "pass" if two <= 2 else "MISS"),
    ]
    load = os.getloadavg()[0]
    lines = [f"{START}fantasy-turns -->", "",
             "## Fantasy turns and several-unit combat (`benchmarks/fantasy_turns.py`, issue 13)",
             "", f"Load average {load:.1f} at the end" + ("; machine busy: times are upper bounds"
                                                        if load > 1.5 else "") + ".", "",
             "| case | mathhammer | baseline | target | verdict |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += ["", END]
    section = "\n".join(lines)
    print(section)
    if "--write" in sys.argv:
        from benchmarks.report import write_section

        write_section("fantasy-turns", section, START, END)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
