"""CLI figures measured in fresh subprocesses: latency, first-run compile, peak memory."""

from __future__ import annotations

import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The wrapper runs the command as its own child and reports that child's peak RSS
# (ru_maxrss of RUSAGE_CHILDREN covers only children already waited for, so a
# fresh wrapper per measurement keeps other commands out of the figure).
_PEAK_WRAPPER = """
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def mathhammer_argv() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m mathhammer``."""
    script = Path(sys.executable).parent / "mathhammer"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "mathhammer"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: CPU seconds (user + system, all threads) of the last :func:`run`'s process: on a
#: shared machine this is what the command costs, whatever the wait for a core added
last_cpu = 0.0


def run(args: list[str], env: dict | None = None, timeout: float = 600) -> tuple[int, float, str]:
    """(exit code, wall seconds, stderr) of ``mathhammer ARGS`` in a fresh process.

    ARGS starting with this interpreter's path run as given (the floor commands).
    """
    global last_cpu
    argv = list(args) if args and args[0] == sys.executable else mathhammer_argv() + args
    cpu0 = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)
    wall = time.perf_counter() - start
    last_cpu = _children_cpu() - cpu0
    return proc.returncode, wall, proc.stderr


def command_available(words: list[str]) -> bool:
    """True when ``mathhammer WORDS --help`` succeeds (the command exists)."""
    code, _, _ = run(words + ["--help"], timeout=60)
    return code == 0


def latency(commands: dict[str, list[str]], rounds: int, warm_up: bool = True,
            cpu: dict | None = None) -> dict[str, float]:
    """Median wall time of each command, warm caches, commands interleaved per round.

    One untimed run first (``warm_up``) fills numba's cache and the OS page cache.
    A command that fails raises RuntimeError with its stderr (a benchmark of an
    error is not a benchmark).
    """
    for name, args in commands.items() if warm_up else ():
        code, _, err = run(args)
        if code != 0:
            raise RuntimeError(f"{name}: exit {code}: {err.strip()[-300:]}")
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, args in commands.items():
            times[name].append(run(args)[1])
            cpus[name].append(last_cpu)
    if cpu is not None:
        cpu.update({name: statistics.median(ts) for name, ts in cpus.items() if ts})
    return {name: statistics.median(ts) for name, ts in times.items() if ts}


def first_run(args: list[str]) -> tuple[float, float, float, float]:
    """Wall and CPU seconds of one command with an empty numba cache, then warm.

    Returns (cold wall, warm wall, cold CPU, warm CPU).
    """
    cache = tempfile.mkdtemp(prefix="mathhammer-bench-numba-")
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code, cold, err = run(args, env=env)
        cold_cpu = last_cpu
        if code != 0:
            raise RuntimeError(f"exit {code}: {err.strip()[-300:]}")
        _, warm, _ = run(args, env=env)
        return cold, warm, cold_cpu, last_cpu
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def peak_rss_mb(args: list[str], timeout: float = 900) -> tuple[float, float]:
    """(peak resident set size in MB, wall seconds) of ``mathhammer ARGS``."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PEAK_WRAPPER, *mathhammer_argv(), *args],
                         capture_output=True, text=True, timeout=timeout, check=True).stdout
    wall = time.perf_counter() - start
    code, kb = (int(x) for x in out.split())
    if code != 0:
        raise RuntimeError(f"exit {code}")
    return kb / 1024.0, wall


def _importtime(args: list[str]) -> tuple[float, list[tuple[str, float, int, float]]]:
    """(wall s, [(module, cumulative s, depth, self s)]) of a command under -X importtime."""
    code = ("import sys; from mathhammer.cli import main; "
            f"sys.argv = ['mathhammer'] + {args!r}; main()")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((m.group(4), int(m.group(2)) / 1e6, (len(m.group(3)) - 1) // 2,
                         int(m.group(1)) / 1e6))
    return wall, rows


def import_profile(args: list[str], top: int = 5) -> list[tuple[str, float]]:
    """The ``top`` slowest top-level imports (cumulative seconds) of a command."""
    _, rows = _importtime(args)
    tops = [(name, t) for name, t, depth, _ in rows if depth == 0]
    return sorted(tops, key=lambda r: -r[1])[:top]


def startup_breakdown(args: list[str]) -> dict[str, float]:
    """Where a command's wall time goes: all imports, numba's (with llvmlite), scipy's.

    ``rest`` is everything after the imports: loading cached kernels, the query, output.
    -X importtime adds a little overhead of its own, so this is a profile, not a timing.
    """
    wall, rows = _importtime(args)
    total_imports = sum(self for *_, self in rows)

    def family(*prefixes: str) -> float:  # self times add up without double counting
        return sum(self for name, _, _, self in rows if name.split(".")[0] in prefixes)

    numba = family("numba", "llvmlite")
    scipy = family("scipy")
    return {"wall": wall, "imports": total_imports, "numba": numba, "scipy": scipy,
            "rest": wall - total_imports}


_FIRST_CALL = """
import cProfile, json, pstats, sys, time
sys.path.insert(0, sys.argv[1])
from benchmarks import adapters
pair = adapters.wm_single_attack()
profile = cProfile.Profile()
start = time.perf_counter()
profile.enable()
pair.kernel(1)
profile.disable()
wall = time.perf_counter() - start
stats = pstats.Stats(profile).stats
blas = max((v[3] for k, v in stats.items() if k[2] == "ensure_blas"), default=0.0)
print(json.dumps({"wall": wall, "scipy_blas_check": blas}))
"""


def first_call_warm(repo: Path) -> dict[str, float]:
    """Fresh process: the first call of a cached kernel (numba loads it) and its scipy share.

    numba's ``ensure_blas`` imports ``scipy.linalg`` on the first call whenever scipy
    is installed (the test extra installs it), whether or not a kernel uses BLAS.
    """
    import json

    out = subprocess.run([sys.executable, "-c", _FIRST_CALL, str(repo)], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# ------------------------------------------------------------------ latency floors
# What any Python CLI built on the same libraries pays before doing anything: the
# baseline beside each latency figure. The numba floor calls one trivial kernel
# from numba's cache, which makes numba set up its compiler context (most of it).
_FLOOR_KERNEL = """
from numba import njit


@njit(cache=True, nogil=True)
def total(values):
    s = 0
    for v in values:
        s += v
    return s
"""

# a one-option Typer app: Typer coerces option values through pydantic on first use
_TYPER_APP = ("import typer; app = typer.Typer(); "
              "app.command()(lambda n=1: None); app(['--n', '2'], standalone_mode=False)")

# each floor leaves with os._exit, as mathhammer's command line does (no interpreter teardown)
_EXIT = "; import os; os._exit(0)"

_FLOOR_CODE = {
    "typer": "import typer" + _EXIT,  # --help coerces no option value
    "numpy": "import numpy; " + _TYPER_APP + _EXIT,
    "numba": ("import sys; sys.path.insert(0, sys.argv[1]); import numpy; import floor_kernel; "
              "floor_kernel.total(numpy.ones(8, dtype=numpy.int64)); " + _TYPER_APP + _EXIT),
}

FLOOR_NAMES = {
    "typer": "floor: python + import typer",
    "numpy": "floor: python + numpy + a one-option Typer app",
    "numba": "floor: python + numpy + numba (one cached kernel call) + a one-option Typer app",
}


def floor_commands(workdir: Path) -> dict[str, list[str]]:
    """argv of each floor (run them once untimed first: that fills the numba cache)."""
    (workdir / "floor_kernel.py").write_text(_FLOOR_KERNEL)
    return {kind: [sys.executable, "-c", code, str(workdir)] for kind, code in _FLOOR_CODE.items()}


_FLOOR_FIRST_CALL = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy
import floor_kernel
values = numpy.ones(8, dtype=numpy.int64)
start = time.perf_counter()
floor_kernel.total(values)
print(json.dumps({"wall": time.perf_counter() - start}))
"""


def first_call_floor(workdir: Path) -> float:
    """Fresh process: the first call of the trivial cached floor kernel (numba's own set-up)."""
    import json

    out = subprocess.run([sys.executable, "-c", _FLOOR_FIRST_CALL, str(workdir)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["wall"]
