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

import os
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.report import median_seconds, publish_section  # noqa: E402
from benchmarks.run import SECTION_END as END  # noqa: E402
from benchmarks.run import SECTION_START as START  # noqa: E402

LISTS = ("protectorate_battlebox", "cygnar_battlebox")


class PeakMemory:
    """The largest resident set of this process and of its worker processes (the forkserver's
    children), sampled from /proc every 0.2 s while the runs go."""

    def __init__(self) -> None:
        self.mine = self.worker = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    @staticmethod
    def _rss_mb(pid: int) -> float:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            pass
        return 0.0

    def _descendants(self) -> list[int]:
        parents: dict[int, int] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat", encoding="ascii") as f:
                        parents[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
        found, frontier = [], [os.getpid()]
        while frontier:
            pid = frontier.pop()
            kids = [p for p, pp in parents.items() if pp == pid]
            found += kids
            frontier += kids
        return found

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            self.mine = max(self.mine, self._rss_mb(os.getpid()))
            for pid in self._descendants():
                self.worker = max(self.worker, self._rss_mb(pid))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def main() -> int:
    from mathhammer.warmachine.battle.runner import BattleSpec, run, run_chunk
    from mathhammer.warmachine.plan import plan

    rows = []
    memory = PeakMemory().__enter__()
    greedy = BattleSpec(*LISTS, turns=5)
    run(greedy, 256, seed=1, workers=2)  # warm: worker start-up, programs, imports
    n = 2000
    t = time.perf_counter()
    tally = run(greedy, n, seed=2, workers=2)
    wall = time.perf_counter() - t
    greedy_a = tally.wins[0] / n
    rate = n / wall
    one = median_seconds(lambda: run_chunk(greedy, 0, 64, 3), rounds=3) / 64
    rows.append((f"wm battle, greedy both sides: {LISTS[0]} vs {LISTS[1]}, 5 rounds, {n:,} "
                 "battles, 2 worker processes",
                 f"{rate:,.0f} battles/s ({1000 * one:.1f} ms a battle on one thread; "
                 f"A wins {100 * tally.wins[0] / n:.1f}%)", "", ">= 100 battles/s",
                 "pass" if rate >= 100 else "MISS"))
    br = BattleSpec(*LISTS, turns=5, policy_a="best-response", rollouts=8)
    run(br, 8, seed=1, workers=2)
    n_br = 1000
    t = time.perf_counter()
    tally = run(br, n_br, seed=4, workers=2)
    br_wall = time.perf_counter() - t
    rows.append((f"wm battle, side A best-response (8 rollouts an option) vs greedy, 5 rounds, "
                 f"{n_br:,} battles, 2 worker processes",
                 f"{br_wall:.1f} s ({tally.cpu_seconds:.0f} CPU-seconds in the workers: "
                 f"{tally.cpu_seconds / 2:.0f} s on two free cores; A wins "
                 f"{100 * tally.wins[0] / n_br:.1f}%)", "greedy A wins "
                 f"{100 * greedy_a:.1f}%", "<= 120 s", "pass" if br_wall <= 120 else "MISS"))
    memory.__exit__()
    mine, workers = memory.mine, memory.worker
    peak = max(mine, workers)
    rows.append(("memory: largest resident set (this process / a worker process)",
                 f"{mine:.0f} MB / {workers:.0f} MB", "", "<= 500 MB",
                 "pass" if peak <= 500 else "MISS"))
    args = (["khador/sorscha", "khador/juggernaut", "khador/destroyer"], "cygnar/stryker")
    plan_s = median_seconds(lambda: plan(*args), rounds=1)
    rows.append(("beside it: wm plan, Sorscha + Juggernaut + Destroyer vs Stryker (one turn, "
                 "exact, 768 plans)", f"{plan_s:.2f} s", "", "(record)", ""))
    publish_section("warmachine-battle",
                    "## Warmachine battles (`benchmarks/wm_battle.py`, issue 31)",
                    rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
