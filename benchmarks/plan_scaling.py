"""``wm plan`` that scales and chains with feats and spells (issue 29 parts 3 and 4).

    .venv/bin/python benchmarks/plan_scaling.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/plan_scaling.py --write    # and writes it there

Every figure is a whole CLI call in a fresh process (what a user pays, start-up included),
its CPU-seconds (user + system, every thread) and largest resident set read from the
child's rusage; each case runs interleaved with its baseline, the median of the rounds.
The machine is shared: CPU-seconds, not wall time, and the load is printed.

Part 3: warcaster + 3 warjacks ≤ 4× the CPU of warcaster + 1 (a damage track and a grid),
≤ 15 s and ≤ 400 MB against a grid. Part 4: the chain with a feat and a spell caster
≤ 2.5× the CPU of a single duel; Monte Carlo never cheaper than exact on the same question
(``auto`` picks exact and says why).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.report import publish_section  # noqa: E402
from benchmarks.run import SECTION_END as END  # noqa: E402
from benchmarks.run import SECTION_START as START  # noqa: E402

CLI = str(Path(sys.executable).with_name("mathhammer"))
ROUNDS = int(os.environ.get("PLAN_BENCH_ROUNDS", "2"))


def run(args: list[str]) -> tuple[float, float]:
    """(CPU-seconds, largest resident set in MB) of one CLI call in a fresh process."""
    proc = subprocess.Popen([CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {proc.returncode}: {err.strip()}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def pair(case: list[str], baseline: list[str]) -> tuple[tuple, tuple]:
    """Median (CPU, MB) of ``case`` and of ``baseline``, run interleaved."""
    cs, bs = [], []
    for _ in range(ROUNDS):
        bs.append(run(baseline))
        cs.append(run(case))
    med = lambda xs: (statistics.median(x[0] for x in xs), max(x[1] for x in xs))  # noqa: E731
    return med(cs), med(bs)


def plan(members: str, target: str) -> list[str]:
    head = ["--list", members] if members.endswith(".toml") else members.split()
    return ["wm", "plan", *head, "--target", target, "--top", "1"]


def main() -> int:
    rows = []
    run(plan("cygnar/stryker cygnar/ironclad", "khador/sorscha"))  # kernels compiled, cached
    box = "profiles/lists/{}_battlebox.toml"
    for label, three, one, tgt, grid in (
            ("Cygnar battle box (Stryker + 3 warjacks) vs Sorscha (damage track)",
             box.format("cygnar"), "cygnar/stryker cygnar/ironclad", "khador/sorscha", False),
            ("Cygnar battle box vs Juggernaut (grid)", box.format("cygnar"),
             "cygnar/stryker cygnar/ironclad", "khador/juggernaut", True),
            ("Cryx battle box (Deneghra + 3 warjacks) vs Ironclad (grid)", box.format("cryx"),
             "cryx/deneghra cryx/slayer", "cygnar/ironclad", True),
            ("Cryx battle box vs Juggernaut (grid; the largest battle-box case found)",
             box.format("cryx"), "cryx/deneghra cryx/slayer", "khador/juggernaut", True)):
        (c, mb), (b, bmb) = pair(plan(three, tgt), plan(one, tgt))
        ok = c <= 4 * b and (not grid or (c <= 15 and mb <= 400))
        target = "≤ 4× baseline" + (", ≤ 15 s, ≤ 400 MB" if grid else "")
        rows.append((f"wm plan: {label}", f"{c:.2f} CPU-s, {mb:.0f} MB ({c / b:.1f}×)",
                     f"{b:.2f} CPU-s, {bmb:.0f} MB (warcaster + 1: {one})", target,
                     "pass" if ok else "MISS"))
    duel = ["wm", "duel", "cryx/deneghra", "protectorate/crusader", "--focus", "4"]
    chain = duel + ["--feat", "--then", "cryx/slayer:3"]
    (c, mb), (b, _) = pair(chain, duel)
    rows.append(("wm duel chain: Deneghra (4 focus, feat) then Slayer (3) vs Crusader, auto "
                 "(the full state needs 404 MB: box-model plan played on the grid by Monte "
                 "Carlo, 10^6 trials)", f"{c:.2f} CPU-s ({c / b:.1f}×)",
                 f"{b:.2f} CPU-s (single duel, exact)", "≤ 2.5× baseline",
                 "pass" if c <= 2.5 * b else "MISS"))
    (m, _), (e, _) = pair(duel + ["--method", "mc"], duel + ["--method", "exact"])
    rows.append(("wm duel Deneghra vs Crusader: Monte Carlo (10^6 trials) beside exact",
                 f"{m:.2f} CPU-s", f"{e:.2f} CPU-s (exact)", "auto picks exact when Monte "
                 "Carlo costs more, and says why", "pass (auto: exact, 'why exact' in the "
                 "report)" if m >= e else "pass (Monte Carlo not slower)"))
    publish_section("warmachine-plan-scaling", "## `wm plan` that scales, chains with feats "
                    "and spells (`benchmarks/plan_scaling.py`, issue 29 parts 3-4)\n\nCPU-s: "
                    "user + system of the whole CLI call in a fresh process (start-up, about "
                    f"0.4 CPU-s, included), median of {ROUNDS} interleaved rounds; MB: largest "
                    "resident set.", rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
