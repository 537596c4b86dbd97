"""mathhammer benchmarks (issue 7): throughput, latency and memory beside baselines.

Usage::

    python benchmarks/run.py            # full run (~10 min), writes benchmarks/RESULTS.md
    python benchmarks/run.py --quick    # < 5 min, same cases with fewer trials/rounds
    python benchmarks/run.py --format json   # JSON on stdout ({"cases": [...]})

Sections, each in one process with variants timed round-robin and medians kept:

1. kernels (1 thread) beside a tuned numpy version of the same mechanic;
2. library queries through the chunked engine with 1 and 2 threads, and the
   thread-scaling table: every query at 10^6 and 10^7 trials on 1 and 2 threads
   beside the bare kernel pair timed in the same rounds (issue 17: ≥ 1.6× at 10^7);
3. exact engine beside icepool on the same queries (skipped without icepool);
4. CLI latency in fresh subprocesses with warm caches;
5. first-run compile of what the demo touches (empty ``NUMBA_CACHE_DIR``);
6. peak memory of a 10^9-trial run.

A case whose engine has not landed yet is listed under "Not measured".
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import cli_bench  # noqa: E402
from benchmarks.report import Case, Results, Target, dumps_json, human, machine_info  # noqa: E402
from benchmarks.report import round_robin, to_markdown  # noqa: E402

RESULTS_PATH = Path(__file__).resolve().parent / "RESULTS.md"

# issue 7 part 3 (and issue 3 for the duel)
KERNEL_TARGETS = {
    "Warmachine boosted chain 3d6/3d6 (kernel single_attack, 1 thread)": Target(min_ratio=2.0),
    "Warmachine boosted chain 3d6/3d6 (kernel attack_chain, 1 thread)": Target(min_ratio=2.0),
    "warjack grid, 3-attack sequence (kernel, 1 thread)": None,
    "fantasy 20-attack staged chain (kernel, 1 thread)": None,
    "dice roll 2D6 (kernel, 1 thread)": None,
}
ENGINE_TARGETS = {  # on 2 cores: the library query with threads=2
    "Warmachine boosted chain 3d6/3d6": Target(at_least=150e6),
    "warjack grid, 3-attack sequence": Target(at_least=25e6),
    "fantasy 20-attack staged chain": Target(at_least=20e6),
}
EXACT_TARGETS = {
    "icepool": Target(min_ratio=10.0),
    "plain-Python dict DP": Target(at_most=0.36, source="issue 3"),  # "well under 0.36 s"
    # time per attack no larger at 100 attacks than at 30: cost grows at most linearly
    "same at 30 attacks": Target(min_ratio=1.0, source="issue 29"),
}
#: by case name, before EXACT_TARGETS: issue 29 part 7 asks 20× icepool for a new specification
EXACT_CASE_TARGETS = {
    name: Target(min_ratio=20.0, source="issue 29")
    for name in ("exact fantasy 20 attacks staged, new specification",
                 "exact Warmachine boosted attack 3d6/3d6, new specification",
                 "exact Warmachine 3 boosted attacks, new specification")
}
KERNEL_TARGETS.update({  # issue 29 part 8: at least half the speed of their random words
    "Warmachine single attack (kernel single_attack) vs the random-number floor":
        Target(min_ratio=0.5, source="issue 29"),
    "fantasy 20-attack staged chain (kernel) vs the random-number floor":
        Target(min_ratio=0.5, source="issue 29"),
})


@dataclass(frozen=True)
class Settings:
    quick: bool
    rounds: int
    cli_rounds: int
    engine_trials: int
    scaling_seconds: float  # timing per (query, size) in the thread-scaling section


SECTION_START, SECTION_END = "<!-- section: ", "<!-- end section -->"


def kept_sections(path: Path) -> str:
    """The ``<!-- section: NAME -->`` ... ``<!-- end section -->`` blocks of RESULTS.md, which
    their own scripts write (benchmarks/tuning.py); a run of this script keeps them."""
    if not path.exists():
        return ""
    text, out = path.read_text(), []
    while SECTION_START in text:
        start = text.index(SECTION_START)
        end = text.find(SECTION_END, start)
        if end < 0:
            break
        out.append(text[start:end + len(SECTION_END)])
        text = text[end + len(SECTION_END):]
    return "".join("\n" + block + "\n" for block in out)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- 1. kernels vs numpy


def bench_kernels(results: Results, s: Settings) -> None:
    from benchmarks import adapters

    prepared = {}
    for name, (adapter, n_full, n_quick) in adapters.KERNEL_CASES.items():
        try:
            pair = adapter()
            pair.kernel(1000)  # compiles (cache) and proves the call works
            if pair.baseline is not None:
                pair.baseline(1000)
            prepared[name] = (pair, n_quick if s.quick else n_full)
        except adapters.NotAvailable as why:
            results.skip(name, str(why))
        except Exception as err:  # an engine mid-change must not sink the other cases
            results.skip(name, f"adapter failed: {type(err).__name__}: {err}")
    # one round-robin over every kernel and baseline keeps their ratios fair
    variants = {}
    for name, (pair, n) in prepared.items():
        variants[(name, "kernel")] = lambda pair=pair, n=n: pair.kernel(n)
        if pair.baseline is not None:
            variants[(name, "baseline")] = lambda pair=pair, n=n: pair.baseline(n)
    log(f"kernels: {len(prepared)} cases, {s.rounds} rounds")
    cpu: dict = {}
    medians = round_robin(variants, s.rounds, cpu=cpu)
    for name, (pair, n) in prepared.items():
        base = medians.get((name, "baseline"))
        kernel_cpu = cpu[(name, "kernel")]
        base_cpu = cpu.get((name, "baseline"))
        results.add(Case(
            name, "trials/s", n / medians[(name, "kernel")],
            pair.baseline_name if base else None, n / base if base else None,
            KERNEL_TARGETS.get(name),
            note=f"{n / kernel_cpu / 1e6:.3g} M per CPU-second"
            + (f"; baseline {n / base_cpu / 1e6:.3g} M" if base_cpu else ""),
        ))


# ---------------------------------------------------------------- 2. engine, threads


def bench_engine(results: Results, s: Settings) -> None:
    from benchmarks import adapters

    for name, (adapter, share) in adapters.ENGINE_CASES.items():
        try:
            query = adapter()
            query(1000, 1)
        except adapters.NotAvailable as why:
            results.skip(f"{name} (library, 2 threads)", str(why))
            continue
        except Exception as err:
            results.skip(f"{name} (library, 2 threads)",
                         f"adapter failed: {type(err).__name__}: {err}")
            continue
        n = int(s.engine_trials * share)
        log(f"engine: {name}, {n:.0e} trials, 1 vs 2 threads")
        cpu: dict = {}
        med = round_robin({1: lambda: query(n, 1), 2: lambda: query(n, 2)}, s.rounds, cpu=cpu,
                          cpu_clock=time.process_time)
        results.add(Case(f"{name} (library, 2 threads)", "trials/s", n / med[2],
                         "same query, 1 thread", n / med[1], ENGINE_TARGETS.get(name),
                         note=f"{n:.0e} trials; {n / cpu[2] / 1e6:.3g} M per CPU-second "
                         f"over both threads, 1 thread {n / cpu[1] / 1e6:.3g} M"))


def bench_bare_threads(results: Results, s: Settings) -> None:
    """Two threads on the bare kernel (no engine): separates engine overhead from the machine.

    When this figure does not scale either, the second core is busy with other
    processes (see the load average), and the engine's 1 → 2 figures mean nothing more.
    """
    import threading

    from benchmarks import adapters

    name = "2 threads, bare WM single_attack kernel (no engine)"
    try:
        pairs = [adapters.wm_single_attack(), adapters.wm_single_attack()]
    except adapters.NotAvailable as why:
        results.skip(name, str(why))
        return
    n = s.engine_trials

    def serial():
        for p in pairs:
            p.kernel(n)

    def parallel():
        workers = [threading.Thread(target=p.kernel, args=(n,)) for p in pairs]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    cpu: dict = {}
    med = round_robin({"serial": serial, "parallel": parallel}, s.rounds, cpu=cpu,
                      cpu_clock=time.process_time)
    results.add(Case(name, "trials/s", 2 * n / med["parallel"], "same work, 1 thread",
                     2 * n / med["serial"],
                     note=f"the two threads got {cpu['parallel'] / med['parallel']:.2f} "
                     "CPU-seconds per wall second (2.00 = both cores free)"))


SCALING_SIZES = (10**6, 10**7)


def worker_accounting(query, n_trials: int) -> tuple[float, float] | None:
    """One 2-thread run of ``query`` with its worker threads' time accounted (Linux).

    Returns (blocked, waited) as shares of the workers' time from their first chunk's
    start to their last chunk's end: *blocked* = asleep (waiting for the GIL or the
    engine's lock: what the engine loses), *waited* = runnable but another process
    had the core (load). From ``/proc/self/task/<tid>/schedstat`` (CPU time and
    run-queue wait); None where it is not available. Not a timed run: reading the
    file after each chunk costs a few µs. Call it with enough trials for ~0.5 s of work.
    """
    import os
    import threading

    import mathhammer.engine as engine

    if not os.path.exists(f"/proc/self/task/{threading.get_native_id()}/schedstat"):
        return None
    seen: dict[int, dict] = {}

    def sched(fd: int) -> tuple[float, float]:
        # the thread's own CPU clock is exact; schedstat's run-queue wait is updated at
        # every switch (its CPU field only at scheduler ticks)
        return time.thread_time(), int(os.pread(fd, 128, 0).split()[1]) / 1e9

    def accounted(run_chunk):
        def chunk(n, state):
            tid = threading.get_native_id()
            mine = seen.get(tid)
            if mine is None:
                fd = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
                cpu, waited = sched(fd)
                mine = seen[tid] = {"fd": fd, "start": time.perf_counter(), "cpu0": cpu,
                                    "waited0": waited}
            out = run_chunk(n, state)
            mine["cpu1"], mine["waited1"] = sched(mine["fd"])
            mine["end"] = time.perf_counter()
            return out
        return chunk

    original = engine._run_chunks
    engine._run_chunks = lambda run_chunk, *rest: original(accounted(run_chunk), *rest)
    try:
        query(n_trials, 2)
    finally:
        engine._run_chunks = original
        for mine in seen.values():
            os.close(mine["fd"])
    span = sum(m["end"] - m["start"] for m in seen.values())
    cpu = sum(m["cpu1"] - m["cpu0"] for m in seen.values())
    waited = sum(m["waited1"] - m["waited0"] for m in seen.values())
    if span <= 0:
        return None
    return max(span - cpu - waited, 0.0) / span, waited / span


def bench_scaling(results: Results, s: Settings) -> None:
    """Each library query on 1 and 2 threads, beside the bare kernel pair in the same rounds.

    Four variants per (query, size) timed in turn: the query on 1 thread and on 2,
    and two bare kernel calls run one after the other and on two threads. The bare
    pair's ratio says what the machine gave two threads during exactly these rounds,
    so a query's ratio can be read against it on a busy machine too. Short queries get
    more rounds (about ``scaling_seconds`` of timing per size, at least ``rounds``).
    """
    import math
    import threading

    from benchmarks import adapters
    from benchmarks.report import Scaling

    try:
        bare = [adapters.wm_single_attack(), adapters.wm_single_attack()]
    except adapters.NotAvailable as why:
        results.skip("thread scaling", str(why))
        return
    bare_n = 1 << 21

    def bare_serial():
        for pair in bare:
            pair.kernel(bare_n)

    def bare_parallel():
        workers = [threading.Thread(target=pair.kernel, args=(bare_n,)) for pair in bare]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    for name, (adapter, _share) in adapters.ENGINE_CASES.items():
        try:
            query = adapter()
            query(1000, 1)
        except adapters.NotAvailable as why:
            results.skip(f"{name} (thread scaling)", str(why))
            continue
        except Exception as err:
            results.skip(f"{name} (thread scaling)", f"adapter failed: {type(err).__name__}: {err}")
            continue
        for n in SCALING_SIZES:
            start = time.perf_counter()  # one call of each variant sizes the rounds
            query(n, 1)
            query(n, 2)
            bare_serial()
            bare_parallel()
            per_round = time.perf_counter() - start
            rounds = min(41, max(s.rounds + 2, math.ceil(s.scaling_seconds / per_round)))
            log(f"scaling: {name}, {n:.0e} trials, {rounds} rounds")
            cpu: dict = {}
            med = round_robin({1: lambda n=n, q=query: q(n, 1), 2: lambda n=n, q=query: q(n, 2),
                               "bare 1": bare_serial, "bare 2": bare_parallel},
                              rounds, warmup=0, cpu=cpu, cpu_clock=time.process_time)
            # long enough that a few scheduler decisions do not decide the shares
            shares = worker_accounting(query, n * max(1, math.ceil(0.5 / med[1])))
            results.scaling.append(Scaling(
                name, n, med[1], med[2], bare_ratio=med["bare 1"] / med["bare 2"],
                cpu_per_wall=cpu[2] / med[2], rounds=rounds,
                blocked=None if shares is None else shares[0],
                waited=None if shares is None else shares[1]))


# ---------------------------------------------------------------- 3. exact vs icepool


# Each timed sample is a batch of about this many seconds of calls (per-call time =
# batch time / calls, as timeit does): a lone 20-µs call timed right after the other
# engine's call measures the caches the other engine left behind, not the query.
EXACT_BATCH_SECONDS = 0.02


def time_exact(ours, theirs, rounds: int, cpu: dict | None = None,
               ratios: list | None = None) -> tuple[dict[str, float], dict[str, int]]:
    """Seconds per call of ``ours`` and ``theirs`` (every call a different query: call i
    gets i), from ``rounds`` interleaved batches of about EXACT_BATCH_SECONDS each; and
    the batch sizes. ``cpu`` (a dict) receives the same per call in thread CPU time, and
    ``ratios`` (a list) theirs ÷ ours per call in CPU time, round by round."""
    counter = {"ours": 0, "theirs": 0}
    batch = {"ours": 1, "theirs": 1}

    def step(fn, key):
        def run():  # one timed sample: a batch of calls, each a different query
            for _ in range(batch[key]):
                fn(counter[key])
                counter[key] += 1
        return run

    for fn, key in ((ours, "ours"), (theirs, "theirs")):  # warm-up, then size the batch
        step(fn, key)()
        while True:  # grow the batch until it is long enough to time (timeit's autorange)
            t0 = time.perf_counter()
            step(fn, key)()
            took = time.perf_counter() - t0
            if took >= EXACT_BATCH_SECONDS / 4:
                batch[key] = max(1, round(batch[key] * EXACT_BATCH_SECONDS / took))
                break
            batch[key] *= 4
    spent: dict = {}
    each: dict = {}
    med = round_robin({"ours": step(ours, "ours"), "theirs": step(theirs, "theirs")},
                      rounds, warmup=0, cpu=spent, samples=each)
    if cpu is not None:
        cpu.update({key: spent[key] / batch[key] for key in spent})
    if ratios is not None:
        ratios.extend((t / batch["theirs"]) / (o / batch["ours"])
                      for o, t in zip(each["ours"], each["theirs"]) if o > 0)
    return {key: med[key] / batch[key] for key in med}, batch  # seconds per query


def bench_exact(results: Results, s: Settings) -> None:
    from benchmarks import adapters

    for name, (adapter, baseline_name) in adapters.EXACT_CASES.items():
        try:
            ours, theirs, *per = adapter()  # per: (our, their) units a call, e.g. attacks
        except adapters.NotAvailable as why:
            results.skip(name, str(why))
            continue
        except Exception as err:
            results.skip(name, f"adapter failed: {type(err).__name__}: {err}")
            continue
        rounds = 3 * s.rounds
        med, batch = time_exact(ours, theirs, rounds)
        if per:
            med = {"ours": med["ours"] / per[0], "theirs": med["theirs"] / per[1]}
        results.notes.append(
            f"{name}: median of {rounds} interleaved batches, {batch['ours']} calls (ours) and "
            f"{batch['theirs']} calls ({baseline_name}) per batch, every call a different query")
        results.add(Case(name, "s", med["ours"], baseline_name, med["theirs"],
                         EXACT_CASE_TARGETS.get(name, EXACT_TARGETS.get(baseline_name))))


# ---------------------------------------------------------------- 4. CLI latency

MC_ROLL = ["roll", "2D6", "--method", "mc", "--n-trials", "1000000", "--seed", "1", "--quiet"]
WM_EXACT = ["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
            "--boost-hit", "--boost-damage", "--method", "exact", "--quiet"]
WM_MC = ["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
         "--boost-hit", "--boost-damage", "--method", "mc", "--n-trials", "1000000", "--seed",
         "1", "--quiet"]
WM_DUEL = ["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "3", "--charge",
           "--policy", "optimal", "--quiet"]
FB_EXACT = ["fb", "attack", "--attacks", "20", "--ws", "4", "--target-ws", "4", "--strength",
            "4", "--toughness", "4", "--save", "5", "--method", "exact", "--quiet"]
MAGIC_PHASE = ["magic", "phase", str(REPO / "profiles/scenarios/magic_t9a1_four_spells.toml"),
               "--seed", "1", "--quiet"]
# issue 4's acceptance query: a 20-model block against a 20-model block over 3 rounds
FB_COMBAT = ["fb", "combat", "wfb8/empire_halberdiers", "wfb8/orc_boyz", "--rounds", "3",
             "--seed", "1", "--quiet"]

CLI_CASES = [
    # (name, argv, command words that must exist, target, floor beside it: cli_bench.FLOOR_NAMES)
    ("CLI: mathhammer --help", ["--help"], [], Target(at_most=0.5), "typer"),
    ("CLI: exact wm attack (boosted)", WM_EXACT, ["wm", "attack"], Target(at_most=1.0), "numpy"),
    ("CLI: exact roll 2D6+3", ["roll", "2D6+3", "--at-least", "10", "--quiet"], ["roll"],
     Target(at_most=1.0), "numpy"),
    ("CLI: exact fb attack (20 attacks)", FB_EXACT, ["fb", "attack"], Target(at_most=1.0),
     "numpy"),
    ("CLI: 10^6-trial MC wm attack", WM_MC, ["wm", "attack"], Target(at_most=1.5), "numba"),
    ("CLI: 10^6-trial MC roll 2D6", MC_ROLL, ["roll"], Target(at_most=1.5), "numba"),
    ("CLI: wm duel juggernaut vs ironclad --policy optimal", WM_DUEL, ["wm", "duel"],
     Target(at_most=3.0, source="issue 3"), "numba"),
    ("CLI: magic phase, four spells (10^6 trials)", MAGIC_PHASE, ["magic", "phase"],
     Target(at_most=2.0, source="issue 5"), "numba"),
    ("CLI: fb combat 20 vs 20, 3 rounds", FB_COMBAT, ["fb", "combat"],
     Target(at_most=2.0, source="issue 4"), "numba"),
]


#: --quick profiles only these (each profile is one more run of the command)
PROFILED_QUICK = {"CLI: exact wm attack (boosted)", "CLI: 10^6-trial MC wm attack"}


def bench_cli(results: Results, s: Settings) -> None:
    commands, targets, floor_of = {}, {}, {}
    for name, argv, words, target, floor in CLI_CASES:
        if words and not cli_bench.command_available(words):
            results.skip(name, f"not available yet (`mathhammer {' '.join(words)}` does not exist)")
            continue
        commands[name], targets[name], floor_of[name] = argv, target, floor
    log(f"cli: {len(commands)} commands and {len(cli_bench.FLOOR_NAMES)} floors, "
        f"{s.cli_rounds} rounds")
    ok = {}
    workdir = Path(tempfile.mkdtemp(prefix="mathhammer-bench-floor-"))
    floors = {cli_bench.FLOOR_NAMES[k]: argv for k, argv in cli_bench.floor_commands(workdir).items()}
    for name, argv in {**commands, **floors}.items():  # one failure must not sink the others
        try:
            cli_bench.latency({name: argv}, 0)
            ok[name] = argv
        except RuntimeError as err:
            results.skip(name, f"command failed: {err}")
    cpu: dict = {}
    measured = cli_bench.latency(ok, s.cli_rounds, warm_up=False, cpu=cpu)  # warmed above
    for name, wall in measured.items():
        if name in floors:
            continue
        floor = cli_bench.FLOOR_NAMES[floor_of[name]]
        results.add(Case(name, "s", wall, floor if floor in measured else None,
                         measured.get(floor), targets[name], note=f"CPU {cpu[name]:.2f} s"))
    results.notes.append(
        "CLI latency baselines are floors: a fresh Python importing the same libraries and, "
        "for queries, running a one-option Typer app (Typer coerces values through pydantic) "
        "and, for Monte Carlo queries, one trivial cached numba kernel, then leaving with "
        "os._exit as mathhammer does; ratio = floor / figure, so 1.00× would mean mathhammer "
        "adds nothing on top")
    profiled = PROFILED_QUICK if s.quick else set(measured) - set(floors)
    for name, wall in measured.items():  # where the time of the slower commands goes
        if wall > 0.4 and name != "CLI: mathhammer --help" and name in profiled:
            b = cli_bench.startup_breakdown(ok[name])
            results.notes.append(
                f"{name}: profile under -X importtime: wall {b['wall']:.2f} s, imports "
                f"{b['imports']:.2f} s (numba + llvmlite {b['numba']:.2f} s, scipy pulled in by "
                f"numba {b['scipy']:.2f} s), after imports {b['rest']:.2f} s (kernel cache "
                f"load, the query, output)")
    try:
        cli_bench.first_call_warm(REPO)  # fills the cache if an edit just invalidated it
        calls = [cli_bench.first_call_warm(REPO) for _ in range(1 if s.quick else s.cli_rounds)]
        wall = sorted(c["wall"] for c in calls)[len(calls) // 2]
        blas = sorted(c["scipy_blas_check"] for c in calls)[len(calls) // 2]
        floors_first = sorted(cli_bench.first_call_floor(workdir) for _ in range(len(calls)))
        results.add(Case("first kernel call, warm numba cache (fresh process)", "s", wall,
                         "first call of a trivial cached kernel", floors_first[len(calls) // 2]))
        results.notes.append(f"first kernel call from a warm cache: {wall:.2f} s, of which "
                             f"{blas:.2f} s is numba's BLAS check importing scipy.linalg "
                             "(only when scipy is installed, e.g. by the test extra)")
    except Exception as err:
        results.skip("first kernel call, warm numba cache", f"failed: {err}")
    shutil.rmtree(workdir, ignore_errors=True)
    top = cli_bench.import_profile(["--help"])
    results.notes.append("`mathhammer --help` slowest top-level imports (-X importtime): "
                         + ", ".join(f"{m} {t * 1e3:.0f} ms" for m, t in top))


# ---------------------------------------------------------------- 5. first-run compile


def bench_compile(results: Results, s: Settings) -> None:
    log("compile: mathhammer demo with an empty numba cache")
    def cpu_note(cold_cpu: float, warm_cpu: float) -> str:
        return (f"CPU {cold_cpu:.1f} s cold, {warm_cpu:.1f} s warm: compile ≈ "
                f"{cold_cpu - warm_cpu:.1f} CPU-s")

    try:
        cold, warm, cold_cpu, warm_cpu = cli_bench.first_run(["demo"])
    except RuntimeError as err:  # an engine mid-change can break the demo
        results.skip("first-run compile of the demo", f"`mathhammer demo` failed: {err}")
        log("compile: the demo failed; measuring mathhammer warmup instead")
        cold, warm, cold_cpu, warm_cpu = cli_bench.first_run(["warmup"])
        results.add(Case("first-run compile of every kernel (warmup cold − warm)", "s",
                         max(cold - warm, 0.0), None, None, Target(at_most=20.0),
                         note=cpu_note(cold_cpu, warm_cpu)))
        return
    results.add(Case("first-run compile of the demo (cold − warm demo wall)", "s",
                     max(cold - warm, 0.0), "the whole demo with a warm cache", warm,
                     Target(at_most=20.0), note=cpu_note(cold_cpu, warm_cpu)))
    results.add(Case("mathhammer demo, empty numba cache", "s", cold,
                     "same, warm cache", warm))
    if not s.quick:
        log("compile: mathhammer warmup with an empty numba cache")
        cold, warm, cold_cpu, warm_cpu = cli_bench.first_run(["warmup"])
        results.add(Case("mathhammer warmup, empty numba cache (every kernel)", "s", cold,
                         "same, warm cache", warm, note=cpu_note(cold_cpu, warm_cpu)))


# ---------------------------------------------------------------- 6. memory

BIG_RUN = ["roll", "2D6", "--method", "mc", "--n-trials", "1000000000", "--seed", "1", "--quiet"]


def bench_memory(results: Results, s: Settings) -> None:
    log("memory: 10^9-trial roll 2D6")
    peak, wall = cli_bench.peak_rss_mb(BIG_RUN)
    small, _ = cli_bench.peak_rss_mb(MC_ROLL)
    results.add(Case("peak RSS, roll 2D6 with 10^9 trials", "MB", peak,
                     "same query, 10^6 trials", small, Target(at_most=300.0)))
    results.notes.append(f"the 10^9-trial roll took {wall:.1f} s wall "
                         f"({1e9 / wall / 1e6:.0f} M trials/s end to end, default threads)")


# ------------------------------------------- 7. start-up, warm-up, adaptive cells (issue 29)

MAGIC_CAST_EXACT = ["magic", "cast", "--dice", "3", "--level", "2", "--cv", "9", "--quiet"]
#: issue 29 part 1: exact queries, CPU beside a Python that only imports numpy and Typer
STARTUP_EXACT = {
    "wm attack": WM_EXACT,
    "roll 2D6+3": ["roll", "2D6+3", "--at-least", "10", "--quiet"],
    "fb attack": FB_EXACT,
    "magic cast": MAGIC_CAST_EXACT,
}
STARTUP_FLOOR = "import numpy, typer; import os; os._exit(0)"
#: issue 29 part 2: Monte Carlo queries of every engine, first after `mathhammer demo`
AFTER_DEMO = {
    "MC roll 2D6": MC_ROLL,
    "MC wm attack": WM_MC,
    "fb combat 20 vs 20": FB_COMBAT,
    "magic phase": MAGIC_PHASE,
    "MC fb attack": ["fb", "attack", "--attacks", "20", "--ws", "4", "--target-ws", "4",
                     "--strength", "4", "--toughness", "4", "--save", "5", "--method", "mc",
                     "--n-trials", "1000000", "--seed", "1", "--quiet"],
    "MC wm aoe": ["wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14",
                  "--range", "8", "--method", "mc", "--n-trials", "1000000", "--seed", "1",
                  "--quiet"],
}
#: issue 29 part 6: two bundled 8-unit lists, every cell both ways (128 cells)
EIGHT_UNIT_COMPARE = ["compare", "wfb8_empire_army", "wfb8_orc_horde", "--seed", "1", "--quiet",
                      "--format", "json"]


def bench_startup(results: Results, s: Settings) -> None:
    """Issue 29 parts 1, 2 and 6, each figure beside its baseline measured in this section."""
    _startup_exact(results, s)
    _after_demo(results, s)
    _adaptive_cells(results, s)


def _startup_exact(results: Results, s: Settings) -> None:
    floor = "floor: python -c 'import numpy, typer' (CPU)"
    commands = {f"CPU of an exact query: {name}": argv for name, argv in STARTUP_EXACT.items()}
    commands[floor] = [sys.executable, "-c", STARTUP_FLOOR]
    commands["CPU of mathhammer --help"] = ["--help"]
    commands["floor: python -c 'import typer' (CPU)"] = [sys.executable, "-c",
                                                         "import typer; import os; os._exit(0)"]
    rounds = 5 if s.quick else 11
    log(f"startup: {len(commands)} commands, {rounds} interleaved rounds (CPU medians)")
    cpu: dict = {}
    walls = cli_bench.latency(commands, rounds, cpu=cpu)
    for name in commands:
        if name.startswith("floor"):
            continue
        base = floor if "exact" in name else "floor: python -c 'import typer' (CPU)"
        results.add(Case(name, "s", cpu[name], base, cpu[base],
                         Target(at_most_times=1.3, source="issue 29") if "exact" in name else None,
                         note=f"wall {walls[name]:.2f} s, {cpu[name] / cpu[base]:.2f}× the floor"))
    results.notes.append(
        "issue 29 part 1: CPU seconds (user + system) of fresh processes, medians of interleaved "
        "rounds; the floor is a Python that imports numpy and Typer and leaves (os._exit, as "
        "mathhammer does). An exact query imports no pydantic, numba or other command module "
        "(tests/test_cli_startup.py)")


def _after_demo(results: Results, s: Settings) -> None:
    import os

    cache = tempfile.mkdtemp(prefix="mathhammer-bench-demo-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    try:
        log("startup: mathhammer demo with an empty numba cache (the first `make demo`)")
        code, wall, err = cli_bench.run(["demo"], env=env, timeout=3600)
        if code != 0:
            results.skip("queries after the demo", f"`mathhammer demo` failed: {err[-300:]}")
            return
        results.notes.append(f"issue 29 part 2: the first demo (empty cache, tour and warm-up) "
                             f"took {wall:.0f} s wall, {cli_bench.last_cpu:.0f} CPU-s")
        for name, argv in AFTER_DEMO.items():
            code, first_wall, err = cli_bench.run(argv, env=env)
            first_cpu = cli_bench.last_cpu
            if code != 0:
                results.skip(f"first {name} after the demo", f"failed: {err[-300:]}")
                continue
            warm_cpu, warm_wall = [], []
            for _ in range(3 if s.quick else 5):
                warm_wall.append(cli_bench.run(argv, env=env)[1])
                warm_cpu.append(cli_bench.last_cpu)
            results.add(Case(f"first {name} after the demo (CPU)", "s", first_cpu,
                             "same query, warm (CPU median)", sorted(warm_cpu)[len(warm_cpu) // 2],
                             Target(at_most_times=1.5, source="issue 29"),
                             note=f"wall {first_wall:.2f} s first, "
                                  f"{sorted(warm_wall)[len(warm_wall) // 2]:.2f} s warm"))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    for name in ("MC wm attack", "fb combat 20 vs 20"):  # what the first query paid before
        cold, warm, cold_cpu, warm_cpu = cli_bench.first_run(AFTER_DEMO[name])
        results.add(Case(f"first {name} on an empty cache (CPU; no demo before)", "s", cold_cpu,
                         "same query, warm (CPU)", warm_cpu,
                         note=f"wall {cold:.2f} s cold, {warm:.2f} s warm: what the warm-up saves"))


def _adaptive_cells(results: Results, s: Settings) -> None:
    import json
    import math

    def cpu_of(argv: list[str]) -> tuple[float, str]:
        proc_cpu0 = cli_bench._children_cpu()
        out = subprocess_out(argv)
        return cli_bench._children_cpu() - proc_cpu0, out

    log("startup: one fb combat query beside compare of two 8-unit lists (adaptive, fixed)")
    fb, adaptive = [], []
    out_adaptive = ""
    for _ in range(1 if s.quick else 3):  # interleaved rounds, CPU medians
        fb.append(cpu_of(FB_COMBAT)[0])
        cpu, out_adaptive = cpu_of(EIGHT_UNIT_COMPARE)
        adaptive.append(cpu)
        fb.append(cpu_of(FB_COMBAT)[0])
    fixed_cpu, out_fixed = cpu_of(EIGHT_UNIT_COMPARE + ["--n-trials", "100000"])
    fb_cpu, ad_cpu = sorted(fb)[len(fb) // 2], sorted(adaptive)[len(adaptive) // 2]
    a, f = json.loads(out_adaptive), json.loads(out_fixed)
    # adaptive vs fixed, per cell: |difference| / se of the difference, the se from the
    # fixed run's p (the better estimate) and each run's own trials (an estimate of 0 has no
    # se of its own)
    cells_a, cells_f = _cells(a), _cells(f)
    z, exact_equal = [], True
    for key, (p, n_f) in cells_f.items():
        q, n_a = cells_a[key]
        if n_a is None or n_f is None:  # an exact cell: the same number either way
            exact_equal &= n_a is None and n_f is None and abs(q - p) <= 1e-12
            continue
        se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n_a + 1 / n_f))
        z.append(abs(q - p) / se)
    n_cells = len(cells_f)
    within = sum(v <= 5 for v in z)
    trials = a["info"].get("trials", "")
    results.add(Case("compare two 8-unit lists, adaptive cells (CPU)", "s", ad_cpu,
                     "one fb combat query (CPU)", fb_cpu, Target(at_most_times=6.0, source="issue 29"),
                     note=f"{n_cells} cells, {trials}; {ad_cpu / fb_cpu:.1f}× the fb combat"))
    results.add(Case("compare two 8-unit lists, 10^5 trials per cell (CPU; before issue 29)", "s",
                     fixed_cpu, "one fb combat query (CPU)", fb_cpu,
                     note=f"{fixed_cpu / fb_cpu:.1f}× the fb combat"))
    results.notes.append(
        f"issue 29 part 6: adaptive vs 10^5-trial cells of the same compare: {within}/{len(z)} "
        f"Monte Carlo cells within 5 se (largest {max(z, default=0):.1f} se; se from the fixed "
        f"run's p and both trial counts); exact cells equal to 1e-12: {exact_equal}")


def _cells(report: dict) -> dict[tuple, tuple[float, int | None]]:
    """(direction, attacker, target) -> (P(kill), Monte Carlo trials or None) of compare's JSON."""
    out = {}
    for direction, m in report["info"]["matrix"].items():
        for i, attacker in enumerate(m["attackers"]):
            for j, target in enumerate(m["targets"]):
                out[(direction, attacker, target)] = (m["p_kill"][i][j], m["n_trials"][i][j])
    return out


def subprocess_out(argv: list[str]) -> str:
    import subprocess

    proc = subprocess.run(cli_bench.mathhammer_argv() + argv, capture_output=True, text=True,
                          timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"mathhammer {' '.join(argv[:3])}: {proc.stderr.strip()[-300:]}")
    return proc.stdout


def bench_web(results: Results, settings: Settings) -> None:
    """`mathhammer serve` under a bounded load on 127.0.0.1 (benchmarks/web_load.py)."""
    from benchmarks.web_load import bench_web as run

    run(results, settings)


SECTIONS = {
    "kernels": bench_kernels,
    "engine": bench_engine,
    "threads": bench_bare_threads,
    "scaling": bench_scaling,
    "exact": bench_exact,
    "cli": bench_cli,
    "compile": bench_compile,
    "memory": bench_memory,
    "web": bench_web,
    "startup": bench_startup,
}


def wait_quiet(seconds: float) -> None:
    import os

    cores = os.cpu_count() or 1
    deadline = time.monotonic() + seconds
    while os.getloadavg()[0] >= cores and time.monotonic() < deadline:
        log(f"waiting for a quieter machine (load {os.getloadavg()[0]:.2f}, {cores} cores)")
        time.sleep(15)


def versions() -> str:
    parts = []
    for mod in ("numpy", "numba", "icepool"):
        try:
            parts.append(f"{mod} {__import__(mod).__version__}")
        except ImportError:
            parts.append(f"{mod} absent")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer trials and rounds (< 5 min)")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="stdout: a summary table, or the JSON contract")
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS),
                        help="run only these sections (repeatable); RESULTS.md is not written")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    parser.add_argument("--wait-quiet", type=float, default=0.0, metavar="SECONDS",
                        help="first wait up to SECONDS for the 1-minute load average to fall "
                        "below the core count (shared machines)")
    args = parser.parse_args(argv)
    if args.wait_quiet > 0:
        wait_quiet(args.wait_quiet)
    # measure the package as installed: pip byte-compiles a wheel, but an editable install
    # where PYTHONDONTWRITEBYTECODE is set would recompile every source at each CLI start
    compileall.compile_dir(str(REPO / "mathhammer"), quiet=1)

    settings = Settings(
        quick=args.quick,
        rounds=3 if args.quick else 7,
        cli_rounds=5 if args.quick else 7,  # medians of 5: one burst of load cannot move them
        engine_trials=10**7 if args.quick else 5 * 10**7,
        scaling_seconds=3.0 if args.quick else 8.0,
    )
    machine = machine_info(REPO)  # load average before we add our own
    results = Results()
    start = time.perf_counter()
    for name, section in SECTIONS.items():
        if args.only and name not in args.only:
            continue
        t0 = time.perf_counter()
        try:
            section(results, settings)
        except Exception as err:  # a broken section is a finding, not a crash
            results.skip(f"section {name}", f"error: {type(err).__name__}: {err}")
            log(traceback.format_exc())
        log(f"  {name}: {time.perf_counter() - t0:.1f} s")
    elapsed = time.perf_counter() - start
    mode = ("quick" if args.quick else "full") + f" run, {elapsed:.0f} s"
    results.notes.append(f"whole run took {elapsed:.0f} s ({'--quick' if args.quick else 'full'}); "
                         f"load average at the end {machine_info(REPO)['load_average']} "
                         "(2 cores shared with other users: a load above 2 means other "
                         "processes competed for the cores during the run)")

    if not args.no_write and not args.only:
        kept = kept_sections(RESULTS_PATH)  # sections other benchmark scripts own
        RESULTS_PATH.write_text(to_markdown(results, machine, versions(), mode) + kept)
        log(f"wrote {RESULTS_PATH.relative_to(REPO)}")
    if args.format == "json":
        print(dumps_json(results, machine))
    else:
        for c in results.cases:
            ok = c.passed()
            status = "" if ok is None else ("  pass" if ok else "  MISS")
            base = f"  (baseline {human(c.baseline_value, c.unit)})" if c.baseline_value else ""
            note = f"  [{c.note}]" if c.note else ""
            print(f"{c.name}: {human(c.value, c.unit)}{base}{status}{note}")
        for row in results.scaling:
            status = "" if row.min_ratio is None else f"  {row.status().strip('*')}"
            shares = "" if row.blocked is None else (
                f", workers blocked {row.blocked:.0%}, waited for a core {row.waited:.0%}")
            print(f"{row.name}, {row.n_trials:.0e} trials: 2 threads / 1 thread {row.ratio:.2f}× "
                  f"(bare pair {row.bare_ratio:.2f}×, CPU/wall {row.cpu_per_wall:.2f}{shares}, "
                  f"{row.rounds} rounds){status}")
        for name, reason in results.skipped:
            print(f"{name}: {reason}")
        if args.only:  # a partial run writes no RESULTS.md: its notes go here
            for note in results.notes:
                print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
