"""``mathhammer roll`` end to end.

The acceptance examples, start-up, Ctrl-C, broken pipes and the billion-trial run
are real subprocesses. The rest call ``mathhammer.cli.main`` in-process (same
code path after start-up; saves a numba import per test on a busy 2-core box).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli, run_json

TWO_D6_PLUS_3 = {k + 3: Fraction(6 - abs(k - 7), 36) for k in range(2, 13)}


def run_main(*args: str) -> subprocess.CompletedProcess:
    """``mathhammer ARGS`` in this process: exit code, stdout and stderr."""
    from mathhammer.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 0
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def main_json(*args: str) -> dict:
    proc = run_main(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _one_line_error(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and proc.stderr.endswith("\n"), proc.stderr
    assert proc.stdout == ""
    return lines[0]


# ---------------------------------------------------------------------------------
# the acceptance examples


def test_exact_json_is_exact():
    out = run_json("roll", "2D6+3", "--at-least", "10", "--at-most", "6")
    assert (out["command"], out["method"], out["n_trials"], out["seed"]) == ("roll", "exact", None, None)
    p = out["results"]["p_at_least"]
    assert p == {"value": float(Fraction(21, 36)), "se": 0.0, "ci95": [p["value"], p["value"]]}
    assert out["results"]["p_at_most"]["value"] == float(Fraction(3, 36))  # 2D6 ≤ 3
    assert out["results"]["mean"]["value"] == 10.0
    dist = out["distributions"]["roll"]
    assert dist["pmf"] == {str(k): float(p) for k, p in TWO_D6_PLUS_3.items()}
    assert set(dist["se"].values()) == {0.0} and dist["mean"] == 10.0 and dist["mean_se"] == 0.0


def test_monte_carlo_json_within_five_standard_errors():
    """N = 200 000 (the acceptance run). Tolerance 5 se from the exact p = 21/36
    before the run: 5·sqrt(p(1-p)/N) = 0.0055, i.e. detects a 0.55-point bias."""
    n = 200_000
    p = 21 / 36
    tolerance = 5 * math.sqrt(p * (1 - p) / n)
    out = run_json("roll", "2D6+3", "--at-least", "10", "--method", "mc", "--n-trials", str(n),
                   "--seed", "1")
    assert (out["method"], out["n_trials"], out["seed"]) == ("mc", n, 1)
    est = out["results"]["p_at_least"]
    assert abs(est["value"] - p) < tolerance
    assert abs(est["value"] - p) < 5 * est["se"]
    assert est["se"] == pytest.approx(math.sqrt(est["value"] * (1 - est["value"]) / n), rel=1e-12)
    assert est["ci95"][0] < est["value"] < est["ci95"][1]
    dist = out["distributions"]["roll"]
    assert sum(dist["pmf"].values()) == pytest.approx(1.0)
    for k, pk in dist["pmf"].items():
        assert dist["se"][k] == pytest.approx(math.sqrt(pk * (1 - pk) / n), rel=1e-12)
    assert dist["mean_se"] > 0 and abs(dist["mean"] - 10) < 5 * dist["mean_se"]


def test_same_seed_and_any_thread_count_give_identical_json():
    args = ["roll", "3D6kh2-D3", "--at-least", "7", "--method", "mc", "--n-trials", "300000",
            "--seed", "42", "--format", "json"]
    first = run_cli(*args, "--threads", "1")  # one real process against in-process runs
    again = run_main(*args, "--threads", "1")
    two = run_main(*args, "--threads", "2")
    three = run_main(*args, "--threads", "3")
    assert first.returncode == again.returncode == two.returncode == three.returncode == 0
    assert first.stdout == again.stdout == two.stdout == three.stdout
    other = run_main(*args[:-3], "43", "--format", "json")
    assert other.returncode == 0 and other.stdout != first.stdout


def test_seed_is_drawn_and_reported_when_absent():
    out = main_json("roll", "D6", "--method", "mc", "--n-trials", "1000")
    assert isinstance(out["seed"], int)
    again = main_json("roll", "D6", "--method", "mc", "--n-trials", "1000", "--seed", str(out["seed"]))
    assert again == out


def test_adaptive_precision_from_the_cli():
    out = main_json("roll", "2D6", "--at-least", "9", "--precision", "0.003", "--seed", "3")
    assert out["method"] == "mc"
    n = out["n_trials"]
    for pk in out["distributions"]["roll"]["pmf"].values():
        assert 1.96 * math.sqrt(pk * (1 - pk) / n) < 0.0031  # normal half-width ≈ Wilson


# ---------------------------------------------------------------------------------
# formats


def test_table_format_exact():
    proc = run_main("roll", "2D6+3", "--at-least", "10")
    assert proc.returncode == 0 and proc.stderr == ""
    text = proc.stdout
    for word in ("outcome", "P(=)", "P(≥)", "P(≤)", "█", "mean 10.0000", "sd 2.4152", "exact"):
        assert word in text, word
    row = next(line for line in text.splitlines() if line.split()[:1] == ["9"])
    assert row.split()[1:4] == ["13.89%", "72.22%", "41.67%"]  # 5/36, 26/36, 15/36
    assert "p_at_least  58.33%" in text


def test_table_format_monte_carlo_footer():
    proc = run_main("roll", "2D6", "--method", "mc", "--n-trials", "100000", "--seed", "9")
    assert proc.returncode == 0
    footer = proc.stdout.strip().splitlines()[-1]
    assert "n_trials 100,000" in footer and "seed 9" in footer and "±" in footer
    assert "± se" in proc.stdout


def test_long_tables_fold_the_far_tails():
    proc = run_main("roll", "200D6")
    assert proc.returncode == 0
    rows = [line for line in proc.stdout.splitlines() if re.match(r"\s+[≤≥]? ?\d+(–\d+)?\s+\d", line)]
    assert rows[0].split()[0] == "≤" and rows[-1].split()[0] == "≥"  # the far tails, one row each
    assert 10 < len(rows) <= 40  # ranges, not all 1001 outcomes
    assert "mean 700.0000" in proc.stdout  # exact mean, no 699.9999...
    full = run_main("roll", "200D6", "--full")
    assert len([line for line in full.stdout.splitlines() if re.match(r"\s+\d+\s+\d", line)]) == 1001


def test_csv_format_matches_json():
    args = ("roll", "D6+D3", "--at-least", "5", "--method", "mc", "--n-trials", "50000", "--seed", "4")
    rows = list(csv.DictReader(io.StringIO(run_main(*args, "--format", "csv").stdout)))
    out = main_json(*args)
    result = next(r for r in rows if r["kind"] == "result" and r["name"] == "p_at_least")
    assert float(result["value"]) == out["results"]["p_at_least"]["value"]
    assert float(result["se"]) == out["results"]["p_at_least"]["se"]
    pmf = {r["outcome"]: float(r["value"]) for r in rows if r["kind"] == "pmf"}
    assert pmf == out["distributions"]["roll"]["pmf"]


def test_check_prints_z_scores():
    proc = run_main("roll", "2D6", "--at-least", "8", "--check", "--n-trials", "100000", "--seed", "5")
    assert proc.returncode == 0
    assert "check (Monte Carlo vs exact" in proc.stdout
    assert "  p_at_least: exact 41.67%, Monte Carlo " in proc.stdout and ", z = " in proc.stdout
    out = main_json("roll", "2D6", "--at-least", "8", "--check", "--n-trials", "100000", "--seed", "5")
    check = out["info"]["check"]
    assert set(check) == {"mean", "p_at_least", "roll (distribution)"}
    p = out["results"]["p_at_least"]
    # every entry says what it holds: no z-score under a result's own (p_*) name (issue 22)
    assert check["p_at_least"] == {"exact": 15 / 36, "monte_carlo": p["value"], "se": p["se"],
                                   "z": pytest.approx((p["value"] - 15 / 36) / p["se"], abs=1e-3)}
    dist = check["roll (distribution)"]
    assert dist["of"] == "mean" and dist["exact"] == pytest.approx(7.0)
    assert dist["max_abs_z_per_outcome"] >= 0 and dist["se"] > 0
    assert out["info"]["exact"]["p_at_least"] == 15 / 36


def test_check_with_a_degenerate_sample_never_crashes():
    """10 trials of P(12) usually see no 12 at all: se 0, so the z falls back to the
    exact p's binomial se; the JSON stays strict."""
    out = main_json("roll", "2D6", "--at-least", "12", "--check", "--n-trials", "10", "--seed", "1")
    assert out["results"]["p_at_least"]["value"] == 0.0
    assert out["info"]["check"]["p_at_least"]["z"] == pytest.approx(
        -(1 / 36) / math.sqrt((1 / 36) * (35 / 36) / 10), abs=1e-3)


def test_plot_writes_a_png_atomically(tmp_path):
    target = tmp_path / "chart.png"
    target.write_bytes(b"old")
    proc = run_main("roll", "3D6", "--plot", str(target), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["chart.png"]  # no temp file left
    json.loads(proc.stdout)  # stdout still holds only the JSON


def test_output_file(tmp_path):
    target = tmp_path / "out.json"
    proc = run_main("roll", "D6", "--format", "json", "--output", str(target))
    assert proc.returncode == 0 and proc.stdout == ""
    assert json.loads(target.read_text())["distributions"]["roll"]["mean"] == 3.5


def test_too_large_to_enumerate_falls_back_to_monte_carlo():
    out = main_json("roll", "30D1000", "--n-trials", "2000", "--seed", "1")
    assert out["method"] == "mc" and 30 <= out["distributions"]["roll"]["mean"] <= 30000


# ---------------------------------------------------------------------------------
# bad input: exit 2, one line, no traceback


@pytest.mark.parametrize(
    "args, needle",
    [
        (["roll", "2D"], "column 3"),
        (["roll", "2D6+"], "column 5"),
        (["roll", "(D6"], "expected ')'"),
        (["roll", "3D6kh5"], "keep"),
        (["roll", ""], "empty"),
        (["roll", "2D6", "--n-trials", "0"], "--n-trials"),
        (["roll", "2D6", "--n-trials", "-5"], "--n-trials"),
        (["roll", "2D6", "--n-trials", "abc"], "--n-trials"),
        (["roll", "2D6", "--n-trials", "1.5"], "--n-trials"),
        (["roll", "2D6", "--n-trials", "100000000000000"], "--n-trials"),
        (["roll", "2D6", "--at-least", "x"], "--at-least"),
        (["roll", "2D6", "--seed", "-1", "--method", "mc"], "--seed"),
        (["roll", "2D6", "--precision", "0"], "--precision"),
        (["roll", "2D6", "--precision", "0.5"], "--precision"),
        (["roll", "2D6", "--precision", "0.7"], "--precision"),
        (["roll", "2D6", "--precision", "nan"], "--precision"),
        (["roll", "2D6", "--threads", "0"], "--threads"),
        (["roll", "2D6", "--format", "xml"], "--format"),
        (["roll", "2D6", "--method", "fast"], "--method"),
        (["roll", "2D6", "--plot", "/nonexistent-dir/x.png"], "--plot"),
        (["roll", "2D6", "--plot", "/etc/hostname/x.png"], "--plot"),
        (["roll", "2D6", "--plot", "/tmp"], "--plot"),
        (["roll", "2D6", "--plot", "chart.txt"], "--plot"),
        (["roll", "2D6", "--output", "/nonexistent-dir/x.json"], "--output"),
        (["roll", "30D1000", "--method", "exact"], "too large to enumerate"),
        (["roll", "30D1000", "--check"], "too large to enumerate"),
        (["roll", "1000000*1000000*1000000*1000000"], "2**53"),
        (["roll", "2D6", "--bogus"], "--bogus"),
        (["roll"], "expression"),
        (["nosuchcommand"], "nosuchcommand"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle):
    line = _one_line_error(run_main(*args))
    assert line.startswith("error: ") and needle in line, line
    assert "fix:" in line


@pytest.mark.parametrize("args", [["roll", "2D"], ["roll", "2D6", "--n-trials", "0"],
                                  ["roll", "2D6", "--n-trials", "x"]])
def test_bad_input_in_a_real_process(args):
    """The same promise as a user sees it: nothing but one line on stderr."""
    _one_line_error(run_cli(*args))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_unwritable_plot_folder(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    line = _one_line_error(run_cli("roll", "2D6", "--plot", str(locked / "x.png")))
    assert "not writable" in line


# ---------------------------------------------------------------------------------
# start-up: help and version stay light


def _modules_after(argv: list[str]) -> dict:
    code = (
        "import json, sys, io, contextlib\n"
        "from mathhammer.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit as e:\n"
        "        code = e.code\n"
        "heavy = [m for m in ('numba', 'pandas', 'scipy', 'matplotlib') if m in sys.modules]\n"
        "print(json.dumps({'code': code, 'heavy': heavy, 'out': buf.getvalue()}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["roll", "--help"], []])
def test_help_and_version_do_not_import_numba(argv):
    got = _modules_after(argv)
    assert got["code"] in (0, None) and got["heavy"] == []
    if argv == ["--version"]:
        from mathhammer import __version__

        assert got["out"].strip() == f"mathhammer {__version__}"
    else:
        assert "Usage: mathhammer" in got["out"]


def test_first_run_announces_compilation(tmp_path):
    proc = run_cli("roll", "2D6", "--method", "mc", "--n-trials", "1000", "--seed", "1",
                   "--format", "json", env={"NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0
    assert "compiling kernels, first run only" in proc.stderr
    quiet = run_main("roll", "2D6", "--method", "mc", "--n-trials", "1000", "--seed", "1",
                     "--format", "json", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert json.loads(quiet.stdout) == json.loads(proc.stdout)


def test_broken_pipe_is_quiet():
    # 200D20 by Monte Carlo writes ~150 kB of CSV: far more than a pipe buffer
    proc = subprocess.Popen([sys.executable, "-m", "mathhammer", "roll", "200D20", "--format", "csv",
                             "--n-trials", "100000", "--seed", "1", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert proc.returncode == 0 and err == ""


def test_fast_exit_flushes_all_output():
    """The command line leaves with os._exit (no interpreter teardown): every byte still arrives."""
    args = ["roll", "150D20", "--format", "json", "--method", "exact",
            "--quiet"]
    proc = subprocess.run([sys.executable, "-m", "mathhammer", *args], capture_output=True,
                          cwd=ROOT, timeout=120)
    inproc = run_main(*args)
    assert proc.returncode == 0 and proc.stderr == b""
    assert len(proc.stdout) > 100_000 and proc.stdout.decode() == inproc.stdout  # > a pipe buffer


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_output_into_an_already_closed_pipe_is_quiet(fmt):
    """`mathhammer ... | head -c 0`: the reader is gone before the first byte (Typer's exit 1)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    proc = subprocess.Popen([sys.executable, "-m", "mathhammer", "roll", "3D6", "--format", fmt],
                            stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT)
    os.close(write_end)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err.decode() == ""


# ---------------------------------------------------------------------------------
# Ctrl-C


@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_stops_within_two_seconds(threads):
    proc = subprocess.Popen(
        [sys.executable, "-m", "mathhammer", "roll", "2D6", "--method", "mc", "--n-trials",
         "100000000000", "--seed", "1", "--threads", threads],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    time.sleep(3.0)  # imports (and a compile, if the cache is cold) then simulating
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    elapsed = time.monotonic() - sent
    assert proc.returncode == 130, (proc.returncode, err)
    assert elapsed < 2.5, (elapsed, err)
    notes = [line for line in err.splitlines() if not line.startswith("compiling kernels")]
    assert len(notes) == 1 and notes[0].startswith("interrupted:"), err
    assert out == "" and "Traceback" not in err


# ---------------------------------------------------------------------------------
# a billion trials in flat memory


def _peak_rss_kb(argv: list[str]) -> tuple[int, float, subprocess.CompletedProcess]:
    """Run and poll /proc/PID/status for VmHWM (peak RSS) until the process ends."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    peak = 0
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except OSError:
            break
        time.sleep(0.05)
    out, err = proc.communicate()
    return peak, time.monotonic() - start, subprocess.CompletedProcess(argv, proc.returncode, out, err)


@pytest.mark.slow
def test_a_billion_trials_keep_memory_flat():
    base = [sys.executable, "-m", "mathhammer", "roll", "2D6", "--method", "mc", "--seed", "1",
            "--format", "json", "--n-trials"]
    small_peak, _, small = _peak_rss_kb(base + ["1000000"])
    peak, wall, big = _peak_rss_kb(base + ["1000000000"])
    assert small.returncode == big.returncode == 0
    print(f"\n1e9 trials: peak RSS {peak / 1024:.0f} MB (1e6 trials: {small_peak / 1024:.0f} MB), "
          f"wall {wall:.1f} s")
    assert peak < 300 * 1024
    assert peak - small_peak < 30 * 1024  # nothing grows with n_trials
    out = json.loads(big.stdout)
    assert out["n_trials"] == 10**9
    p7 = out["distributions"]["roll"]["pmf"]["7"]
    assert abs(p7 - 1 / 6) < 5 * math.sqrt((1 / 6) * (5 / 6) / 1e9)


# ---------------------------------------------------------------------------------
# progress bar: on stderr when it is a terminal, never with --quiet or in a pipe


def _stderr_through_a_terminal(*args: str) -> tuple[int, str, str]:
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mathhammer", *args], stdout=subprocess.PIPE,
                            stderr=follower, cwd=ROOT, env={**os.environ, "COLUMNS": "100"})
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode()
    proc.wait(timeout=120)
    os.close(leader)
    return proc.returncode, out, b"".join(chunks).decode(errors="replace")


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_only_on_a_terminal(quiet):
    args = ["roll", "2D6", "--method", "mc", "--n-trials", "20000000", "--seed", "1",
            "--format", "json"] + (["--quiet"] if quiet else [])
    code, out, err = _stderr_through_a_terminal(*args)
    assert code == 0 and json.loads(out)["n_trials"] == 20_000_000  # stdout stays pure JSON
    assert ("simulating" in err) != quiet, err
