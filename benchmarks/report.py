"""Pure helpers of the benchmark script: timing, targets, the JSON and Markdown outputs.

Nothing here imports mathhammer, numba or numpy, so the formats are testable in
milliseconds (``tests/test_benchmarks_format.py``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

UNITS = ("trials/s", "s", "MB")


@dataclass(frozen=True)
class Target:
    """A figure's goal: a bound on the value and/or on the ratio to its baseline.

    ``at_least`` / ``at_most`` bound the value itself. ``min_ratio`` bounds the
    speed-up over the baseline: value / baseline for throughputs ("trials/s"),
    baseline / value for times and sizes ("s", "MB"), so larger is always better.
    ``at_most_times`` bounds a time or size by a multiple of its baseline (value ≤ k ×
    baseline: "an exact query costs at most 1.3× the floor's CPU").
    """

    at_least: float | None = None
    at_most: float | None = None
    min_ratio: float | None = None
    source: str = "issue 7"
    at_most_times: float | None = None

    def describe(self, unit: str) -> str:
        parts = []
        if self.at_least is not None:
            parts.append(f"≥ {human(self.at_least, unit)}")
        if self.at_most is not None:
            parts.append(f"≤ {human(self.at_most, unit)}")
        if self.min_ratio is not None:
            parts.append(f"≥ {self.min_ratio:g}× baseline")
        if self.at_most_times is not None:
            parts.append(f"≤ {self.at_most_times:g}× baseline")
        return " and ".join(parts)


@dataclass
class Case:
    """One measured figure (the JSON contract's fields plus target and notes)."""

    name: str
    unit: str
    value: float
    baseline_name: str | None = None
    baseline_value: float | None = None
    target: Target | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, got {self.unit!r}")

    def ratio(self) -> float | None:
        """Speed-up over the baseline (> 1 means better than the baseline)."""
        if self.baseline_value is None or not self.value or not self.baseline_value:
            return None
        if self.unit == "trials/s":
            return self.value / self.baseline_value
        return self.baseline_value / self.value

    def passed(self) -> bool | None:
        """True / False against the target; None when the figure has no target."""
        t = self.target
        if t is None:
            return None
        ok = True
        if t.at_least is not None:
            ok &= self.value >= t.at_least
        if t.at_most is not None:
            ok &= self.value <= t.at_most
        if t.min_ratio is not None:
            r = self.ratio()
            ok &= r is not None and r >= t.min_ratio
        if t.at_most_times is not None:
            ok &= self.baseline_value is not None and self.value <= t.at_most_times * self.baseline_value
        return bool(ok)

    def to_json(self) -> dict:
        """Exactly the fields of issue 7's JSON contract."""
        return {
            "name": self.name,
            "unit": self.unit,
            "value": float(self.value),
            "baseline_name": self.baseline_name,
            "baseline_value": None if self.baseline_value is None else float(self.baseline_value),
        }


#: issue 17: a library query of at least this many trials must run this much faster on
#: 2 threads than on 1 (on a quiet 2-core machine)
SCALING_MIN_TRIALS = 10**7
SCALING_MIN_RATIO = 1.6
#: below this bare-pair ratio the second core was not free during the rounds: a query that
#: misses its target there is "not judged" (a pass still counts)
QUIET_BARE_RATIO = 1.8


@dataclass
class Scaling:
    """One library query timed on 1 and on 2 threads in the same interleaved rounds.

    ``bare_ratio`` is the 2-thread/1-thread ratio of the bare kernel pair (two
    threads running a kernel with no engine) timed in those same rounds: what the
    machine gave two threads at that moment. ``cpu_per_wall`` is the 2-thread
    run's process CPU-seconds per wall-second (2.00 = both cores busy throughout).
    """

    name: str
    n_trials: int
    one_thread: float  # median seconds
    two_threads: float
    bare_ratio: float | None = None
    cpu_per_wall: float | None = None
    rounds: int = 0
    blocked: float | None = None  # share of the workers' time asleep (GIL, engine lock)
    waited: float | None = None  # share runnable but without a core (other processes)

    @property
    def ratio(self) -> float:
        return self.one_thread / self.two_threads if self.two_threads else float("nan")

    @property
    def min_ratio(self) -> float | None:
        return SCALING_MIN_RATIO if self.n_trials >= SCALING_MIN_TRIALS else None

    @property
    def busy(self) -> bool:
        """The bare pair in the same rounds shows the second core was not free."""
        return self.bare_ratio is not None and self.bare_ratio < QUIET_BARE_RATIO

    def passed(self) -> bool | None:
        """True / False against the target; None without a target, or when it missed
        while the machine was busy (the target is for a quiet machine)."""
        if self.min_ratio is None:
            return None
        if self.ratio >= self.min_ratio:
            return True
        return None if self.busy else False

    def status(self) -> str:
        ok = self.passed()
        if ok is None:
            return "not judged: machine busy" if self.min_ratio is not None else "—"
        return "pass" if ok else "**MISS**"

    def to_json(self) -> dict:
        return {"name": self.name, "n_trials": self.n_trials, "one_thread_s": self.one_thread,
                "two_threads_s": self.two_threads, "ratio": self.ratio,
                "bare_pair_ratio": self.bare_ratio, "cpu_per_wall": self.cpu_per_wall,
                "rounds": self.rounds, "workers_blocked": self.blocked,
                "workers_waited_for_core": self.waited, "target_min_ratio": self.min_ratio,
                "machine_busy": self.busy,
                "pass": self.passed()}


@dataclass
class Results:
    """Everything one run produced: figures, skipped cases with their reason, notes."""

    cases: list[Case] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    scaling: list[Scaling] = field(default_factory=list)

    def add(self, case: Case) -> Case:
        self.cases.append(case)
        return case

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append((name, reason))

    def to_json(self, machine: dict | None = None) -> dict:
        out: dict = {"cases": [c.to_json() for c in self.cases]}
        # extra top-level keys; each case keeps exactly the contract's fields
        out["checks"] = [
            {"name": c.name, "target": c.target.describe(c.unit), "pass": c.passed()}
            for c in self.cases if c.target is not None
        ]
        if self.scaling:
            out["scaling"] = [row.to_json() for row in self.scaling]
        out["skipped"] = [{"name": n, "reason": r} for n, r in self.skipped]
        if machine is not None:
            out["machine"] = machine
        return out


def dumps_json(results: Results, machine: dict | None = None) -> str:
    return json.dumps(results.to_json(machine), indent=2, ensure_ascii=False)


# ---------------------------------------------------------------- timing


def round_robin(
    variants: dict[str, Callable[[], object]], rounds: int, warmup: int = 1,
    cpu: dict | None = None, cpu_clock: Callable[[], float] = time.thread_time,
    samples: dict | None = None,
) -> dict[str, float]:
    """Median wall time (s) of each variant, timed in turn for ``rounds`` rounds.

    Interleaving the variants puts every one of them through the same periods of
    load from other processes on a shared machine, so their ratios stay fair.
    When ``cpu`` is a dict it receives each variant's median CPU time of the
    calling thread (``cpu_clock``, default ``time.thread_time``): what a
    single-threaded variant costs when other processes take turns on its core.
    Pass ``time.process_time`` for variants that run their own threads. ``samples`` (a
    dict) receives every round's CPU times by variant, for ratios taken round by round.
    """
    for fn in variants.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {name: [] for name in variants}
    cpu_times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, fn in variants.items():
            start_cpu = cpu_clock()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
            cpu_times[name].append(cpu_clock() - start_cpu)
    if cpu is not None:
        cpu.update({name: statistics.median(ts) for name, ts in cpu_times.items()})
    if samples is not None:
        samples.update(cpu_times)
    return {name: statistics.median(ts) for name, ts in times.items()}


# ---------------------------------------------------------------- formatting


def human(value: float, unit: str) -> str:
    """Readable figure: "152 M trials/s", "0.31 s", "45 ms", "88 MB"."""
    if unit == "trials/s":
        if value >= 1e6:
            return f"{value / 1e6:.3g} M trials/s"
        return f"{value / 1e3:.3g} k trials/s"
    if unit == "s":
        if value < 0.01:
            return f"{value * 1e3:.3g} ms"
        return f"{value:.3g} s"
    return f"{value:.3g} MB"


def machine_info(repo: Path) -> dict:
    """CPU model, cores, load average, date (UTC), git commit and versions."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "n/a"
    try:
        commit = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_average": load,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "python": platform.python_version(),
    }


def _status(case: Case) -> str:
    ok = case.passed()
    return "—" if ok is None else ("pass" if ok else "**MISS**")


def to_markdown(results: Results, machine: dict, versions: str = "", mode: str = "") -> str:
    """The RESULTS.md page: machine line, one table of figures, skipped cases, notes."""
    lines = [
        "# mathhammer benchmark results",
        "",
        "Written by `benchmarks/run.py`" + (f" ({mode})" if mode else "") + "; do not edit by hand.",
        "",
        f"- Machine: {machine['cpu']}, {machine['cores']} cores, load average "
        f"{machine['load_average']} (1/5/15 min) at the start of the run",
        f"- Date: {machine['date']}; git commit `{machine['commit']}`; Python {machine['python']}"
        + (f"; {versions}" if versions else ""),
    ]
    try:
        busy = float(machine["load_average"].split()[0]) > float(machine["cores"])
    except (ValueError, IndexError, TypeError):
        busy = False
    if busy:
        lines.append("- **Warning: the machine was busy** (1-minute load above the core count):"
                     " other processes shared the cores, so absolute figures are low; ratios"
                     " within a section are still like for like.")
    lines += [
        "- Throughputs and times are medians over interleaved rounds in one process;"
        " CLI figures are fresh subprocesses with warm caches unless the name says otherwise.",
        "",
        "| case | value | baseline | baseline value | ratio | target | status |",
        "| --- | ---: | --- | ---: | ---: | --- | --- |",
    ]
    for c in results.cases:
        ratio = c.ratio()
        lines.append(
            "| {name} | {value} | {bname} | {bvalue} | {ratio} | {target} | {status} |".format(
                name=c.name + (f" ({c.note})" if c.note else ""),
                value=human(c.value, c.unit),
                bname=c.baseline_name or "—",
                bvalue="—" if c.baseline_value is None else human(c.baseline_value, c.unit),
                ratio="—" if ratio is None else f"{ratio:.2f}×",
                target=c.target.describe(c.unit) if c.target else "—",
                status=_status(c),
            )
        )
    if results.scaling:
        lines += scaling_markdown(results.scaling)
    if results.skipped:
        lines += ["", "## Not measured", ""]
        lines += [f"- {name}: {reason}" for name, reason in results.skipped]
    if results.notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {note}" for note in results.notes]
    return "\n".join(lines) + "\n"


def scaling_markdown(rows: list[Scaling]) -> list[str]:
    """The "2 threads vs 1" section: one row per library query and size."""
    lines = [
        "", "## Thread scaling: each library query on 2 threads vs 1", "",
        "- ratio = median 1-thread time / median 2-thread time of the same query (same seed,"
        " same bits), timed in turn with the other variants below; 2.00× is both cores"
        " fully used.",
        "- bare pair = two threads each running the bare Warmachine kernel (no engine, no"
        " Python between chunks), timed in the same rounds: the ratio the machine itself gave"
        " two threads at that moment. When it is well below 2.00×, other processes held a"
        " core and the library's ratio is capped by the same amount.",
        "- CPU/wall = the 2-thread run's process CPU-seconds per wall-second: near 2.00 means"
        " both workers computed throughout; below it, they waited (for a core or a lock).",
        "- blocked / waited = shares of the two workers' time in one more 2-thread run of"
        " the query (with as many more trials as make it last ~0.5 s), accounted per thread"
        " (CPU clock and Linux schedstat): blocked = asleep on the GIL or the engine's lock"
        " (what the engine itself loses), waited = ready to run while another process had"
        " the core (machine load).",
        f"- target (issue 17): ≥ {SCALING_MIN_RATIO:g}× for every query of"
        f" ≥ {SCALING_MIN_TRIALS:.0e} trials on a quiet machine; smaller runs are shown for"
        " information (thread start-up and the first and last chunk weigh more there). A"
        f" query below target while the bare pair was below {QUIET_BARE_RATIO:g}× is \"not"
        " judged\": the second core was busy with other work (the blocked share still shows"
        " whether the engine lost time).",
        "",
        "| library query | trials | 1 thread | 2 threads | ratio | bare pair, same rounds"
        " | CPU/wall (2 threads) | blocked / waited | target | status |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row.name} | {row.n_trials:.0e} | {human(row.one_thread, 's')} "
            f"| {human(row.two_threads, 's')} | {row.ratio:.2f}× "
            f"| {'—' if row.bare_ratio is None else f'{row.bare_ratio:.2f}×'} "
            f"| {'—' if row.cpu_per_wall is None else f'{row.cpu_per_wall:.2f}'} "
            f"| {'—' if row.blocked is None else f'{row.blocked:.0%} / {row.waited:.0%}'} "
            f"| {'—' if row.min_ratio is None else f'≥ {row.min_ratio:g}×'} "
            f"| {row.status()} |")
    return lines


def write_section(name: str, section: str, start: str, end: str) -> None:
    """Replace the ``<!-- section: name -->`` block of RESULTS.md (or append it), keep the rest:
    scripts beside run.py (tuning.py, planner.py) own their blocks."""
    from pathlib import Path

    path = Path(__file__).resolve().parent / "RESULTS.md"
    text = path.read_text() if path.exists() else ""
    if f"{start}{name} -->" in text:
        head, rest = text.split(f"{start}{name} -->", 1)
        text = head.rstrip("\n") + "\n" + rest.split(end, 1)[1] if end in rest else head
    path.write_text(text.rstrip("\n") + "\n\n" + section + "\n")


def median_seconds(fn, rounds: int = 3) -> float:
    """Median wall seconds of ``rounds`` calls of ``fn`` after one warm-up call."""
    import time

    fn()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]


def publish_section(name: str, heading: str, rows: list[tuple], start: str, end: str,
                    write: bool) -> str:
    """A side script's RESULTS.md section — heading, the machine's load, the table of
    (case, mathhammer, baseline, target, verdict) rows — printed, and written with ``write``."""
    import os

    load = os.getloadavg()[0]
    lines = [f"{start}{name} -->", "", heading, "",
             f"Load average {load:.1f} at the end" + ("; machine busy: times are upper bounds"
                                                      if load > 1.5 else "") + ".", "",
             "| case | mathhammer | baseline | target | verdict |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += ["", end]
    section = "\n".join(lines)
    print(section)
    if write:
        write_section(name, section, start, end)
    return section
