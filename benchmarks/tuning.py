"""List-tuning benchmarks (issue 14): tune's screening rate, diff of two 8-unit lists, and
the variance reduction of pairing — each beside its baseline, timed in the same run.

    .venv/bin/python benchmarks/tuning.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/tuning.py --write    # and writes it there (run.py keeps it)

1. ``tune`` at the screening fidelity against a 3-list meta: candidate lists per minute,
   beside the baseline of scoring each candidate afresh (``score_list`` per candidate, no
   cell cache). Target: >= 1,000 lists per minute on 2 cores.
2. ``diff`` of two 8-unit lists (warm: kernels compiled): seconds, beside two separate
   ``score`` runs. Target: <= 10 s.
3. The paired se of ``diff`` beside the se two independent runs would have.
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
from mathhammer.tuning import diff_lists, score_list  # noqa: E402
from mathhammer.tuning.tune import tune_list  # noqa: E402

EIGHT_A = [("wfb8/empire_halberdiers", 4), ("wfb8/empire_handgunners", 2), ("wfb8/empire_captain", 1),
           ("wfb8/empire_general", 1)]
EIGHT_B = [("wfb8/empire_halberdiers", 3), ("wfb8/empire_handgunners", 3), ("wfb8/empire_captain", 1),
           ("wfb8/empire_general", 1)]


def eight(units, name):
    return load_list({"name": name, "game": "fantasy", "ruleset": "wfb8", "points": 3000,
                      "units": [{"profile": p, "count": n} for p, n in units]})


def main() -> int:
    rows = []
    meta = "wfb8_infantry"
    # 1. screening rate: a search at screening fidelity only (n_trials = 500 = the screen)
    tune_list("wfb8_empire", "wfb8_empire", meta, seed=1, n_trials=500, budget_seconds=5)  # warm
    t = time.perf_counter()
    report = tune_list("wfb8_empire", "wfb8_empire", meta, seed=2, n_trials=500, budget_seconds=20)
    elapsed = time.perf_counter() - t
    lists = report.info["lists_evaluated"]
    rate = lists / elapsed * 60
    t = time.perf_counter()
    for i in range(10):
        score_list("wfb8_empire", meta, method="mc", n_trials=500, seed=100 + i)
    naive = 60 / ((time.perf_counter() - t) / 10)
    rows.append(("tune screening, wfb8 vs a 3-list meta", f"{rate:,.0f} lists/min "
                 f"({lists} lists, {elapsed:.1f} s incl. racing and the final scoring)",
                 f"{naive:,.0f} lists/min (score_list per candidate, no cell cache)",
                 ">= 1,000 lists/min", "pass" if rate >= 1000 else "MISS"))
    # 2. diff of two 8-unit lists, warm
    a, b = eight(EIGHT_A, "eight A"), eight(EIGHT_B, "eight B")
    diff_lists(a, b, meta, method="mc", n_trials=2000, seed=1)  # warm
    t = time.perf_counter()
    d = diff_lists(a, b, meta, method="mc", n_trials=20_000, seed=3)
    diff_s = time.perf_counter() - t
    t = time.perf_counter()
    score_list(a, meta, method="mc", n_trials=20_000, seed=4)
    score_list(b, meta, method="mc", n_trials=20_000, seed=5)
    two_s = time.perf_counter() - t
    rows.append(("diff of two 8-unit lists, 20,000 trials per cell", f"{diff_s:.2f} s",
                 f"{two_s:.2f} s (two separate score runs)", "<= 10 s",
                 "pass" if diff_s <= 10 else "MISS"))
    # 3. variance reduction
    for line in d.info["variance_reduction"]:
        rows.append(("paired vs independent se (diff above)", line, "", "", ""))
    publish_section("list-tuning", "## List tuning (`benchmarks/tuning.py`, issue 14)",
                    rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
