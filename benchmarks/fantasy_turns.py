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

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.report import median_seconds, publish_section  # noqa: E402
from benchmarks.run import SECTION_END as END  # noqa: E402
from benchmarks.run import SECTION_START as START  # noqa: E402
from mathhammer.engine import MonteCarloConfig  # noqa: E402
from mathhammer.fantasy.combat.fight import combat  # noqa: E402
from mathhammer.fantasy.scenario import run_scenario  # noqa: E402
from mathhammer.profiles import read_toml  # noqa: E402

TURNS = "profiles/scenarios/fantasy_turns_knights_vs_orcs.toml"
FLANK = "profiles/scenarios/fantasy_flank_charge.toml"




def main() -> int:
    cfg = MonteCarloConfig(n_trials=100_000, seed=1)
    base = median_seconds(lambda: combat("wfb8/empire_halberdiers", "wfb8/orc_boyz", rounds=3,
                                         charger="a", method="mc", config=cfg))
    turns = read_toml(TURNS)
    mc = median_seconds(lambda: run_scenario(turns, TURNS, method="mc", config=cfg, check=False))
    exact = median_seconds(lambda: run_scenario(turns, TURNS, method="exact", config=cfg, check=False),
                  rounds=1)
    flank = read_toml(FLANK)
    flank["rounds"] = 3
    two = median_seconds(lambda: run_scenario(flank, FLANK, method="mc", config=cfg, check=False))
    rows = [
        ("fb turn, bundled scenario (3 game turns, shooting, a missile, charge, combat), 1e5 trials",
         f"{mc:.2f} s (exact: {exact:.2f} s)", f"{base:.2f} s (two-unit combat, 3 rounds)",
         "<= 2 s", "pass" if mc <= 2 else "MISS"),
        ("2 units + characters vs 1, a challenge, 3 rounds, 1e5 trials",
         f"{two:.2f} s", f"{base:.2f} s (two-unit combat, 3 rounds)", "<= 2 s",
         "pass" if two <= 2 else "MISS"),
    ]
    publish_section("fantasy-turns", "## Fantasy turns and several-unit combat (`benchmarks/fantasy_turns.py`, issue 13)",
                    rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
