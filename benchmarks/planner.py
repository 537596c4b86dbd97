"""Warmachine optimum and planner benchmarks (issue 12): each beside the box-model DP.

    .venv/bin/python benchmarks/planner.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/planner.py --write    # and writes it there (run.py keeps it)

1. The exact optimal duel on the full grid, Juggernaut (3 focus, may charge) vs Ironclad,
   warm, beside the same policy solved on the box-count model. Target: <= 2 s on 2 cores.
2. ``wm plan`` for a warcaster and two warjacks vs a warcaster (Sorscha, Juggernaut and
   Destroyer vs Stryker with Arcane Shield), warm, beside one box-model DP of one of its
   chains, and on one thread. Target: <= 10 s.
3. For the record: three warjacks (Cygnar battle box vs Sorscha), and a grid target.
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
from mathhammer.warmachine.activation import build_graph  # noqa: E402
from mathhammer.warmachine.duel import activation_from_profile, target_from_profile  # noqa: E402
from mathhammer.warmachine.exact_policy import box_model_target, solve_full  # noqa: E402
from mathhammer.warmachine.plan import plan  # noqa: E402




def main() -> int:
    rows = []
    # 1. exact optimal on the full grid beside the box model
    ironclad = target_from_profile("cygnar/ironclad")
    spec = activation_from_profile("khador/juggernaut", 3, "may", target_base=ironclad.base)
    full = median_seconds(lambda: solve_full(build_graph([spec]), ironclad, cache=False))
    box = median_seconds(lambda: solve_full(build_graph([spec]), box_model_target(ironclad),
                                            cache=False))
    rows.append(("exact optimal duel, full grid: Juggernaut 3 focus (may charge) vs Ironclad",
                 f"{full:.2f} s", f"{box * 1000:.1f} ms (box-count model DP)", "<= 2 s",
                 "pass" if full <= 2 else "MISS"))
    # 2. the planner: warcaster + 2 warjacks vs a warcaster
    args = (["khador/sorscha", "khador/juggernaut", "khador/destroyer"], "cygnar/stryker")
    kw = dict(camped_focus=3, target_effects=["Arcane Shield"])
    plan_s = median_seconds(lambda: plan(*args, **kw), rounds=3)
    one = median_seconds(lambda: plan(*args, **kw, config=MonteCarloConfig(threads=1)),
                         rounds=1)
    stryker = target_from_profile("cygnar/stryker", camped_focus=3, effects=["Arcane Shield"])
    chain = [activation_from_profile(r, f, "may", target_base=stryker.base)
             for r, f in (("khador/juggernaut", 3), ("khador/destroyer", 3), ("khador/sorscha", 0))]
    one_chain = median_seconds(lambda: solve_full(build_graph(chain), box_model_target(stryker),
                                         cache=False))
    report = plan(*args, **kw)
    rows.append(("wm plan: Sorscha + Juggernaut + Destroyer vs Stryker (Arcane Shield, 3 camped)",
                 f"{plan_s:.2f} s ({report.info['search'].split('(')[1].split(')')[0]} focus "
                 "splits, one programme; "
                 f"{one:.2f} s on 1 thread)",
                 f"{one_chain * 1000:.1f} ms (box-model DP of one hand-written chain)", "<= 10 s",
                 "pass" if plan_s <= 10 else "MISS"))
    # 3. for the record
    big = median_seconds(lambda: plan([], "khador/sorscha",
                                      from_list="profiles/lists/cygnar_battlebox.toml"), rounds=1)
    rows.append(("wm plan: Cygnar battle box (Stryker + 3 warjacks) vs Sorscha", f"{big:.1f} s",
                 "", "(record)", ""))
    grid = median_seconds(lambda: plan(args[0], "cygnar/ironclad"), rounds=1)
    rows.append(("wm plan: Sorscha + Juggernaut + Destroyer vs Ironclad (grid: who goes next "
                 "on the box-count model, every activation on the full grid)", f"{grid:.1f} s",
                 "", "(record)", ""))
    publish_section("warmachine-planner", "## Warmachine optimum and planner (`benchmarks/planner.py`, issue 12)",
                    rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
