"""Exact engines beside icepool for a new specification, kernels beside their random words
(issue 29 parts 7 and 8), in one process, each figure timed in turn with its baseline.

    .venv/bin/python benchmarks/exact_and_floor.py            # prints its section of RESULTS.md
    .venv/bin/python benchmarks/exact_and_floor.py --write    # and writes it there (run.py keeps it)
    .venv/bin/python benchmarks/exact_and_floor.py --quick    # fewer rounds (about 15 s)

Part 7: every exact call is the first for its stat line (the per-specification caches are
emptied before it: ``adapters.new_spec``), beside icepool answering the same question;
target ≥ 20×. The Warmachine chain's time per attack at 100 attacks beside the same at 30:
≥ 1.00× means the cost grows no faster than linearly in attacks. The same queries with
warm caches are shown for the record.

Times are medians of the thread's CPU time over interleaved rounds and ratios the medians
of the round-by-round ratios: another process's turn on a shared core then slows neither
side, and a burst of load falls on both halves of one round.

Part 8: a kernel beside a bare xoshiro256** loop drawing the same number of 64-bit words
(``benchmarks/floor.py``): ratio = kernel trials/s ÷ floor trials/s, target ≥ 0.5 for the
single attack and the Fantasy chain. Kernels run on one thread.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import adapters  # noqa: E402
from benchmarks.report import human, publish_section, round_robin  # noqa: E402
from benchmarks.run import EXACT_CASE_TARGETS, KERNEL_TARGETS, time_exact  # noqa: E402
from benchmarks.run import SECTION_END as END  # noqa: E402
from benchmarks.run import SECTION_START as START  # noqa: E402

NEW = {  # case name in adapters.EXACT_CASES -> the same question with warm caches
    "exact fantasy 20 attacks staged, new specification": "exact fantasy 20 attacks staged",
    "exact Warmachine boosted attack 3d6/3d6, new specification":
        "exact Warmachine boosted attack 3d6/3d6",
    "exact Warmachine 3 boosted attacks, new specification":
        "exact Warmachine 3 boosted attacks, total damage",
}
GROWTH = [name for name in adapters.EXACT_CASES if "time per attack" in name]
FLOORS = [name for name in adapters.KERNEL_CASES if name.endswith("floor")]


def verdict(ratio: float, at_least: float | None) -> tuple[str, str]:
    if at_least is None:
        return "(record)", ""
    return f">= {at_least:g}x", "pass" if ratio >= at_least else "MISS"


def _timed(ours, theirs, rounds: int) -> tuple[dict[str, float], float]:
    """CPU seconds per call of each (medians) and the median of the round-by-round ratios
    theirs ÷ ours (a burst of load on the shared cores falls on both halves of one round)."""
    med: dict = {}
    ratios: list = []
    time_exact(ours, theirs, rounds, cpu=med, ratios=ratios)
    return med, statistics.median(ratios)


def exact_rows(rounds: int) -> list[tuple]:
    rows = []
    for name, warm_name in NEW.items():
        med, ratio = _timed(*adapters.EXACT_CASES[name][0](), rounds)
        target, ok = verdict(ratio, EXACT_CASE_TARGETS[name].min_ratio)
        rows.append((name, f"{human(med['ours'], 's')} per query ({ratio:.1f}x faster)",
                     f"icepool {human(med['theirs'], 's')}", target, ok))
        med, ratio = _timed(*adapters.EXACT_CASES[warm_name][0](), rounds)
        rows.append((f"{warm_name} (caches warm)", f"{human(med['ours'], 's')} per query "
                     f"({ratio:.1f}x faster)", f"icepool {human(med['theirs'], 's')}",
                     "(record)", ""))
    for name in GROWTH:
        ours, theirs, many, few = adapters.EXACT_CASES[name][0]()
        med, ratio = _timed(ours, theirs, rounds)
        per_many, per_few = med["ours"] / many, med["theirs"] / few
        ratio *= many / few  # time per attack at few ÷ time per attack at many
        exponent = 1 - math.log(ratio) / math.log(many / few)
        target, ok = verdict(ratio, 1.0)
        rows.append((name, f"{human(per_many, 's')} per attack ({human(med['ours'], 's')} a "
                     f"query; cost ~ n^{exponent:.2f})",
                     f"{human(per_few, 's')} per attack at {few} ({human(med['theirs'], 's')})",
                     target.replace("x", "x the time per attack at 30"), ok))
    return rows


def floor_rows(rounds: int, quick: bool) -> list[tuple]:
    variants, sizes, pairs = {}, {}, {}
    for name in FLOORS:
        adapter, n_full, n_quick = adapters.KERNEL_CASES[name]
        pair = adapter()
        n = n_quick if quick else n_full
        pair.kernel(1000)
        pair.baseline(1000)
        variants[(name, "kernel")] = lambda pair=pair, n=n: pair.kernel(n)
        variants[(name, "floor")] = lambda pair=pair, n=n: pair.baseline(n)
        sizes[name], pairs[name] = n, pair
    cpu: dict = {}
    each: dict = {}
    round_robin(variants, rounds, cpu=cpu, samples=each)
    rows = []
    for name in FLOORS:
        n = sizes[name]
        kernel, floor = n / cpu[(name, "kernel")], n / cpu[(name, "floor")]
        ratio = statistics.median(f / k for k, f in zip(each[(name, "kernel")],
                                                       each[(name, "floor")]))
        target = KERNEL_TARGETS.get(name)
        target, ok = verdict(ratio, None if target is None else target.min_ratio)
        rows.append((name, f"{kernel / 1e6:.0f} M trials per CPU-second ({ratio:.2f} of the "
                     "floor)", f"{pairs[name].baseline_name}: {floor / 1e6:.0f} M",
                     target.replace("x", " of the floor"), ok))
    return rows


def main() -> int:
    quick = "--quick" in sys.argv
    start_load = os.getloadavg()[0]
    t0 = time.perf_counter()
    rows = exact_rows(11 if quick else 41) + floor_rows(5 if quick else 15, quick)
    heading = ("## Exact engines for a new specification, kernels beside their random words "
               f"(`benchmarks/exact_and_floor.py`, issue 29)\n\nLoad average {start_load:.1f} "
               f"at the start; {time.perf_counter() - t0:.0f} s"
               + (" (--quick)" if quick else "") + ". Times are medians of the thread's CPU "
               "time over rounds interleaved with the baseline; ratios are medians of the "
               "round-by-round ratios. Exact rows: "
               "batches of ~20 ms, every call a different query and, for a new "
               "specification, the first for its stat line.")
    publish_section("exact-and-floor", heading, rows, START, END, "--write" in sys.argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
