"""Bounded runs and honest numbers at the edges (issue 8 part 3).

* Memory does not grow with n_trials: the peak RSS of a 3*10^7-trial run is
  within 40 MB of a 10^5-trial run (storing one int64 per trial would add 240 MB).
* n_trials and adaptive runs have an upper bound with a one-line message.
* No NaN and no negative (or >1) probability is ever printed: edge cases where
  events are impossible or certain (DEF 1 / DEF 30, ARM 30, POW 0, automatic
  hits, casting values out of reach, p = 0 and p = 1 Monte Carlo estimates) for
  every command that takes such flags, exact and Monte Carlo, JSON and table.
  Wilson intervals must lie in [0, 1] and contain the estimate.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys

import pytest

from tests.test_reliability_harness import ROOT, assert_clean, run_inprocess

MC = ["--method", "mc", "--n-trials", "2000", "--seed", "3", "-q"]
EXACT = ["--method", "exact", "-q"]
WM = ["wm", "attack", "--stat", "6", "--power", "12"]
AOE = ["wm", "aoe", "--stat", "6", "--power", "12", "--range", "8"]
FB = ["fb", "attack", "--attacks", "5", "--ws", "4", "--target-ws", "4"]
SHOOT = ["fb", "shoot", "--shots", "5", "--strength", "4", "--toughness", "4"]

EDGES: dict[str, list[str]] = {
    "roll certain": ["roll", "D6*0", "--at-least", "0"],
    "roll impossible": ["roll", "D6", "--at-least", "7", "--at-most", "0"],
    "wm DEF 1 ARM 30": [*WM, "--defense", "1", "--armor", "30"],
    "wm DEF 30 ARM 0": [*WM, "--defense", "30", "--armor", "0"],
    "wm POW 0 ARM 30": ["wm", "attack", "--stat", "0", "--power", "0", "--defense", "30",
                        "--armor", "30", "--attacks", "3"],
    "wm auto hit": [*WM, "--defense", "13", "--armor", "16", "--knocked-down"],
    "wm boxes 1": [*WM, "--defense", "1", "--armor", "0", "--boxes", "1"],
    "aoe DEF 1 ARM 30": [*AOE, "--defense", "1", "--armor", "30"],
    "aoe DEF 30 ARM 0": [*AOE, "--defense", "30", "--armor", "0"],
    "fb cannot wound": [*FB, "--strength", "1", "--toughness", "10"],
    "fb certain wounds": ["fb", "attack", "--attacks", "1", "--ws", "10", "--target-ws", "1",
                          "--strength", "10", "--toughness", "1"],
    "fb best saves": [*FB, "--strength", "3", "--toughness", "4", "--save", "1", "--ward", "2"],
    "shoot BS 1 long range": [*SHOOT, "--bs", "1", "--long-range", "--moving", "--cover", "hard"],
    "shoot BS 10": [*SHOOT, "--bs", "10"],
    "cast out of reach": ["magic", "cast", "--dice", "1", "--cv", "1000"],
    "cast certain": ["magic", "cast", "--dice", "5", "--cv", "2", "--level", "4"],
    "dispel out of reach": ["magic", "dispel", "--dice", "1", "--against", "1000"],
}
NO_EXACT_OK = set()  # filled at run time: commands that refuse --method exact cleanly

NAN_CONSTANTS = {"NaN", "Infinity", "-Infinity"}


def _load(text: str) -> dict:
    def bad(token):
        raise AssertionError(f"JSON carries {token}")

    return json.loads(text, parse_constant=bad)


def _check_probability(name: str, est: dict) -> None:
    value, se, ci = est.get("value"), est.get("se"), est.get("ci95")
    if value is None:
        return  # undefined (e.g. a conditional mean with no case) is printed as null
    assert 0.0 <= value <= 1.0, f"{name} = {value}"
    if se is not None:
        assert se >= 0.0 and math.isfinite(se), f"{name} se {se}"
    if ci is not None and None not in ci:
        low, high = ci
        assert 0.0 <= low <= value <= high <= 1.0, f"{name}: {value} outside {ci}"


def check_report(data: dict) -> None:
    for name, est in data.get("results", {}).items():
        if not isinstance(est, dict):
            continue
        if name.startswith("p_") or "probability" in name:
            _check_probability(name, est)
        for key in ("value", "se"):
            v = est.get(key)
            assert v is None or math.isfinite(v), f"{name}.{key} = {v}"
        if est.get("se") is not None:
            assert est["se"] >= 0
    for name, dist in data.get("distributions", {}).items():
        pmf = dist.get("pmf", {})
        assert pmf, f"{name}: empty distribution"
        for outcome, p in pmf.items():
            assert 0.0 <= p <= 1.0, f"{name}[{outcome}] = {p}"
        total = sum(pmf.values())
        # a conditional distribution whose condition never happens (magic cast's
        # casting_total when no cast can succeed) is listed under info.empty_distributions
        assert abs(total - 1.0) < 1e-9, f"{name} sums to {total}"
        for outcome, se in (dist.get("se") or {}).items():
            assert se is None or se >= 0.0, f"{name} se[{outcome}] = {se}"


NEGATIVE_PERCENT = re.compile(r"(?<![\w.])-\d+(\.\d+)?%")


@pytest.mark.parametrize("method", ["exact", "mc"])
@pytest.mark.parametrize("case", sorted(EDGES))
def test_edge_cases_print_no_nan_or_negative_probability(case, method):
    argv = EDGES[case] + (EXACT if method == "exact" else MC)
    code, out, err = run_inprocess(argv + ["--format", "json"])
    assert_clean(argv, code, out, err, " ".join(argv[:2]))
    if code == 2:  # e.g. no exact engine for this query: a clean refusal is fine
        assert method == "exact", err
        return
    check_report(_load(out))
    code, table, err = run_inprocess(argv)  # the table too: no nan, no -0.00%
    assert code == 0, err
    assert not NEGATIVE_PERCENT.search(table), table
    assert "nan" not in table.lower().replace("nanny", "")
    code, csv, err = run_inprocess(argv + ["--format", "csv"])
    assert code == 0, err
    assert not re.search(r"(?i)(^|,)-?(nan|inf)(,|$)", csv, re.M), csv


def test_certain_and_impossible_mc_estimates_are_exact_zero_and_one():
    """p = 0 and p = 1 under Monte Carlo: value 0 / 1, se 0, Wilson interval inside [0, 1]."""
    code, out, err = run_inprocess(EDGES["cast out of reach"] + MC + ["--format", "json"])
    assert code == 0, err
    p = _load(out)["results"]["p_cast"]
    assert p["value"] == 0.0 and p["se"] == 0.0
    assert p["ci95"][0] == 0.0 and 0.0 < p["ci95"][1] < 0.01  # 2000 trials: ~0.0019
    code, out, err = run_inprocess(EDGES["fb certain wounds"] + MC + ["--format", "json"])
    assert code == 0, err
    check_report(_load(out))


# --------------------------------------------------------------------------- limits


def test_trial_limit_message():
    argv = ["roll", "2D6", "--method", "mc", "--n-trials", str(10**11 + 1)]
    code, out, err = run_inprocess(argv)
    assert code == 2
    assert err == (f"error: --n-trials: is above the limit of 1e+11 trials (got {10**11 + 1}); "
                   "fix: use fewer trials or --precision to stop at a target error\n")


def test_hopeless_precision_stops_with_one_line():
    """An adaptive run that cannot reach its target stops early and says so."""
    argv = ["roll", "2D6", "--method", "mc", "--precision", "1e-7", "--seed", "1", "-q"]
    code, out, err = run_inprocess(argv, timeout=120)
    assert_clean(argv, code, out, err, "roll")
    assert code == 2
    assert err.startswith("error: --precision: would need about ")
    assert err.endswith("(got 1e-07); fix: ask for a larger precision value\n")


def test_impossible_precision_stops_before_running():
    """Finer than any interval within the trial limit: refused before the first batch."""
    argv = ["roll", "2D6", "--method", "mc", "--precision", "1e-300", "--seed", "1", "-q"]
    code, out, err = run_inprocess(argv, timeout=120)
    assert_clean(argv, code, out, err, "roll")
    assert code == 2
    assert err == ("error: --precision: is finer than any 95% interval within 1e+10 trials can "
                   "be (at best 1.9e-10) (got 1e-300); fix: ask for a larger precision value, "
                   "e.g. --precision 0.001\n")


def _peak_rss_kb(n_trials: int) -> int:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mathhammer", "roll", "2D6", "--method", "mc", "--n-trials",
         str(n_trials), "--seed", "1", "--format", "json", "-q"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, proc.stderr.read()
    proc.stderr.close()
    return usage.ru_maxrss  # kilobytes on Linux


def test_memory_does_not_grow_with_n_trials():
    """3*10^7 trials vs 10^5: within 40 MB (one int64 per trial would be 240 MB)."""
    small = _peak_rss_kb(10**5)
    large = _peak_rss_kb(3 * 10**7)
    assert large - small < 40_000, f"peak RSS {small} kB -> {large} kB"


EXACT_ONLY = {
    "break-test certain break": ["fb", "break-test", "--ld", "2", "--lost-by", "20"],
    "break-test unbreakable": ["fb", "break-test", "--ld", "10", "--lost-by", "0",
                               "--unbreakable"],
    "test value 0": ["fb", "test", "--value", "0"],
    "test value 10": ["fb", "test", "--value", "10"],
    "test Ld 2": ["fb", "test", "--ld", "2"],
    "pursuit": ["fb", "pursuit", "--flee", "2D6", "--pursue", "3D6"],
    "flow no channelers": ["magic", "flow", "--channelers", "0"],
}


@pytest.mark.parametrize("case", sorted(EXACT_ONLY))
def test_exact_only_edges_print_no_nan_or_negative_probability(case):
    argv = EXACT_ONLY[case] + ["-q"]
    code, out, err = run_inprocess(argv + ["--format", "json"])
    assert_clean(argv, code, out, err, " ".join(argv[:2]))
    assert code == 0, err
    check_report(_load(out))
    code, table, err = run_inprocess(argv)
    assert code == 0 and not NEGATIVE_PERCENT.search(table) and "nan" not in table.lower()
