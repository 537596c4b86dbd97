"""Load test of ``mathhammer serve`` on 127.0.0.1: bounded, mixed exact / Monte Carlo.

Starts a server on a free port (port 0), then sends ``--requests`` GETs from
``--concurrency`` client threads: half exact queries (wm attack, roll, fb attack, magic
cast), half Monte Carlo (roll, wm attack, wm duel, fb attack with seeds), every one a
different query so the server's answer cache never helps. Reports latency percentiles,
status counts and the server's own time for exact queries (the X-Mathhammer-Seconds
header), beside a baseline measured in the same run: the same exact query answered by a
fresh ``mathhammer`` process. Traffic goes to 127.0.0.1 only; the run stops by itself.

    python benchmarks/web_load.py                  # 500 requests, 20 concurrent
    python benchmarks/run.py --only web            # the same inside the benchmark suite
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def queries(n: int) -> list[tuple[str, str]]:
    """(kind, path) for request i: exact and Monte Carlo alternate, none repeats."""
    out = []
    for i in range(n):
        k = i // 2
        if i % 2 == 0:  # exact
            kind = k % 4
            if kind == 0:
                path = (f"/api/wm/attack?stat={5 + k % 4}&defense={11 + k % 5}&power="
                        f"{12 + k % 9}&armor={14 + k % 7}&attacks={1 + k % 3}&boxes={8 + k % 20}")
            elif kind == 1:
                path = f"/api/roll?expression={1 + k % 12}D6%2B{k % 50}&at-least={k % 30}"
            elif kind == 2:
                path = (f"/api/fb/attack?attacks={5 + k % 30}&ws={3 + k % 4}&target-ws=4"
                        f"&strength={3 + k % 4}&toughness={3 + k % 3}&save={3 + k % 4}")
            else:
                path = f"/api/magic/cast?dice={1 + k % 5}&cv={5 + k % 10}&level={k % 4}"
            out.append(("exact", path))
        else:  # Monte Carlo, 10^5 trials (10^4 for the duel's policy-driven grid)
            kind = k % 4
            if kind == 0:
                path = f"/api/roll?expression=3D6&method=mc&n-trials=100000&seed={k}"
            elif kind == 1:
                path = (f"/api/wm/attack?stat=6&defense=13&power=12&armor=16&attacks=3"
                        f"&method=mc&n-trials=100000&seed={k}")
            elif kind == 2:
                path = ("/api/wm/duel?attacker=khador/juggernaut&target=cygnar/ironclad"
                        f"&charge=1&method=mc&n-trials=10000&seed={k}")
            else:
                path = ("/api/fb/attack?attacks=10&ws=4&target-ws=4&strength=4&toughness=4"
                        f"&method=mc&n-trials=100000&seed={k}")
            out.append(("mc", path))
    return out


def run_load(url: str, n: int = 500, concurrency: int = 20, timeout: float = 60.0) -> dict:
    """Send the requests; per kind: latencies (s), server seconds (exact), statuses."""
    parts = urlsplit(url)
    work = list(enumerate(queries(n)))
    lock = threading.Lock()
    records: list[tuple[str, float, int, float | None]] = []

    def client() -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        while True:
            with lock:
                if not work:
                    break
                _, (kind, path) = work.pop(0)
            began = time.perf_counter()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                status = response.status
                server = response.getheader("X-Mathhammer-Seconds")
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
                status, server = 599, None  # no answer at all counts as a server failure
            with lock:
                records.append((kind, time.perf_counter() - began, status,
                                float(server) if server else None))
        conn.close()

    began = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    statuses: dict[int, int] = {}
    for _, _, status, _ in records:
        statuses[status] = statuses.get(status, 0) + 1
    return {"wall": wall, "records": records, "statuses": statuses}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def cli_exact_seconds(rounds: int = 5) -> float:
    """Median wall time of the same kind of exact query in a fresh CLI process."""
    argv = [sys.executable, "-m", "mathhammer", "wm", "attack", "--stat", "7", "--defense", "12",
            "--power", "19", "--armor", "18", "--attacks", "3", "--boxes", "15"]
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=REPO)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def measure(n: int = 500, concurrency: int = 20) -> dict:
    """Start a server, load it, stop it; the figures as a dict."""
    from tests.web_server import Server

    with Server() as server:  # the defaults: 2 workers, queue 32
        load = run_load(server.url, n, concurrency)
        code, stop_seconds = server.stop()
    records = load["records"]
    lat = {kind: [r[1] for r in records if r[0] == kind] for kind in ("exact", "mc")}
    every = [r[1] for r in records]
    server_exact = [r[3] for r in records if r[0] == "exact" and r[3] is not None]
    return {
        "requests": len(records), "concurrency": concurrency, "wall": load["wall"],
        "statuses": load["statuses"],
        "fivexx": sum(c for s, c in load["statuses"].items() if s >= 500),
        "p50": percentile(every, 0.50), "p95": percentile(every, 0.95),
        "p99": percentile(every, 0.99), "max": max(every),
        "p99_exact": percentile(lat["exact"], 0.99), "p99_mc": percentile(lat["mc"], 0.99),
        "server_exact_median": statistics.median(server_exact),
        "server_exact_p99": percentile(server_exact, 0.99),
        "stop_code": code, "stop_seconds": stop_seconds,
    }


def bench_web(results, settings) -> None:
    """The benchmark suite's section: load test figures beside their same-run baselines."""
    from benchmarks.report import Case, Target

    m = measure()
    cli = cli_exact_seconds(3 if settings.quick else 5)
    statuses = ", ".join(f"{s}: {c}" for s, c in sorted(m["statuses"].items()))
    results.add(Case(
        f"web: exact query, server time (median of {m['requests'] // 2} under load)", "s",
        m["server_exact_median"], "the same kind of query by a fresh CLI process", cli,
        Target(at_most=0.02, source="issue 16"),
        note=f"p99 {m['server_exact_p99'] * 1000:.1f} ms"))
    results.add(Case(
        f"web: {m['requests']} mixed requests at {m['concurrency']} concurrent, p99 latency",
        "s", m["p99"], target=Target(at_most=5.0, source="issue 16"),
        note=f"p50 {m['p50'] * 1000:.0f} ms, p95 {m['p95'] * 1000:.0f} ms, exact p99 "
             f"{m['p99_exact'] * 1000:.0f} ms, MC p99 {m['p99_mc'] * 1000:.0f} ms; "
             f"statuses {statuses}; {m['fivexx']} 5xx; {m['requests'] / m['wall']:.0f} req/s"))
    results.notes.append(
        f"web load test: `mathhammer serve` (defaults: 2 workers, queue 32) on 127.0.0.1, "
        f"{m['requests']} GETs from {m['concurrency']} client threads in {m['wall']:.1f} s, "
        "half exact (wm attack, roll, fb attack, magic cast), half Monte Carlo (10^5 trials; "
        "wm duel 10^4), every query different (no cache hits); latencies include the "
        f"client threads on the same 2 cores; server stopped by SIGINT in "
        f"{m['stop_seconds']:.2f} s, exit {m['stop_code']}")
    if m["fivexx"]:
        raise RuntimeError(f"web load test: {m['fivexx']} responses were 5xx ({statuses})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args(argv)
    if not (1 <= args.requests <= 5000 and 1 <= args.concurrency <= 64):
        parser.error("--requests 1..5000, --concurrency 1..64 (a bounded test)")
    m = measure(args.requests, args.concurrency)
    cli = cli_exact_seconds()
    print(f"{m['requests']} requests at {m['concurrency']} concurrent in {m['wall']:.1f} s "
          f"({m['requests'] / m['wall']:.0f} req/s); statuses {m['statuses']}")
    print(f"latency p50 {m['p50'] * 1000:.0f} ms, p95 {m['p95'] * 1000:.0f} ms, "
          f"p99 {m['p99'] * 1000:.0f} ms, max {m['max'] * 1000:.0f} ms "
          f"(exact p99 {m['p99_exact'] * 1000:.0f} ms, MC p99 {m['p99_mc'] * 1000:.0f} ms)")
    print(f"exact queries, server time: median {m['server_exact_median'] * 1000:.2f} ms, "
          f"p99 {m['server_exact_p99'] * 1000:.2f} ms (a fresh CLI process: "
          f"{cli * 1000:.0f} ms)")
    print(f"stopped by SIGINT in {m['stop_seconds']:.2f} s, exit {m['stop_code']}")
    return 1 if m["fivexx"] else 0


if __name__ == "__main__":
    sys.exit(main())
