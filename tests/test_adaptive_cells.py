"""Adaptive cells (issue 29 part 6): compare, sweep, score and diff run each Monte Carlo
cell until its P(kill) reaches a 95% half-width, in batches seeded from the cell alone.

Checked here: the pooled batches are the counts and sums one run would give; a cell meets
its precision (or stops at its cap); adaptive answers lie within 5 se of the exact ones
(se from the exact p and the cell's own trial count, before looking at the estimate);
the answer is a pure function of the cell (one worker or two, a shared diff cell
cancels exactly); ``--precision`` and ``--n-trials`` together are one clear error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathhammer.analysis import cells, compare, sweep
from mathhammer.analysis.cells import Cell, CellResult, evaluate, more_trials, pooled
from mathhammer.engine import wilson_halfwidth
from mathhammer.results import Estimate
from tests.conftest import cli_inprocess


def _result(p: Estimate, m: Estimate, n: int) -> CellResult:
    return CellResult(("k",), p, m, "mc", 1, n)


def test_pooled_batches_are_the_counts_and_sums_of_one_run():
    rng = np.random.default_rng(5)
    hits_a, hits_b = rng.random(3000) < 0.3, rng.random(5000) < 0.3
    dmg_a, dmg_b = rng.integers(0, 9, 3000), rng.integers(0, 9, 5000)

    def est(hits, dmg):
        return (Estimate.proportion(int(hits.sum()), len(hits)),
                Estimate.mean(float(dmg.sum()), float((dmg.astype(float) ** 2).sum()), len(dmg)))

    a, b = _result(*est(hits_a, dmg_a), 3000), _result(*est(hits_b, dmg_b), 5000)
    both_p, both_m = est(np.concatenate([hits_a, hits_b]), np.concatenate([dmg_a, dmg_b]))
    got = pooled(a, b)
    assert got.n_trials == 8000
    assert got.p_kill == both_p  # a proportion stays one: its Wilson interval too
    assert got.mean_damage.value == pytest.approx(both_m.value, rel=1e-12)
    assert got.mean_damage.se == pytest.approx(both_m.se, rel=1e-9)


def test_more_trials_aims_at_the_precision_in_whole_batches():
    assert more_trials(0.0, cells.FIRST_BATCH, 0.005) == 0  # p = 0 is pinned at once
    for p in (0.05, 0.3, 0.5):
        n = cells.FIRST_BATCH
        while (more := more_trials(p, n, 0.005)) > 0:
            assert more % cells.FIRST_BATCH == 0 and more <= 16 * n
            n += more
        assert wilson_halfwidth(np.array([p]), n)[0] <= 0.005
        assert n <= 1.2 * p * (1 - p) * (1.96 / 0.005) ** 2 + 2 * cells.FIRST_BATCH  # no waste


def test_adaptive_cells_are_within_5_se_of_the_exact_answers():
    """One round of close combat has an exact engine: every adaptive cell against it, the
    tolerance from the exact p and the cell's trial count."""
    kw = dict(rounds=1, seed=11, both_ways=True)
    exact = compare("wfb8_empire", "wfb8_greenskins_and_undead", method="exact", **kw).frame
    adaptive = compare("wfb8_empire", "wfb8_greenskins_and_undead", method="mc",
                       precision=0.01, **kw).frame
    assert set(exact["method"]) == {"exact"} and set(adaptive["method"]) == {"mc"}
    for (_, e), (_, a) in zip(exact.iterrows(), adaptive.iterrows(), strict=True):
        p, n = e["p_kill"], a["n_trials"]
        width = wilson_halfwidth(np.array([a["p_kill"]]), n)[0]
        assert width <= 0.01 or n == cells.MAX_CELL_TRIALS
        assert n % cells.FIRST_BATCH == 0
        tolerance = 5 * math.sqrt(p * (1 - p) / n) + 1e-12
        assert abs(a["p_kill"] - p) <= tolerance, (e["attacker"], e["target"], p, a["p_kill"], n)
    assert adaptive["n_trials"].nunique() > 1  # cells near 0 or 1 stop early, others run on


def test_an_adaptive_cell_is_a_pure_function_of_the_cell():
    from mathhammer.profiles import load_profile

    cell = Cell("fantasy", load_profile("fantasy", "wfb8/empire_halberdiers"),
                load_profile("fantasy", "wfb8/orc_boyz"),
                method="mc", n_trials=cells.MAX_CELL_TRIALS, seed=77, rounds=2, precision=0.01)
    first, again = evaluate(cell), evaluate(cell)
    assert first == again and first.seed == 77 and first.n_trials > cells.FIRST_BATCH
    one = sweep("wfb8/empire_halberdiers", "wfb8/orc_boyz", "ws=3..4", seed=3, rounds=2,
                method="mc", precision=0.02, workers=1).frame
    two = sweep("wfb8/empire_halberdiers", "wfb8/orc_boyz", "ws=3..4", seed=3, rounds=2,
                method="mc", precision=0.02, workers=2).frame
    assert one.equals(two)


def test_a_shared_adaptive_cell_cancels_exactly_in_a_diff():
    from mathhammer.tuning import diff_lists

    report = diff_lists("wfb8_empire", "wfb8_empire", "wfb8_infantry", method="mc",
                        precision=0.02, seed=7, model="cells")
    for name in ("points_destroyed_per_turn", "points_lost_per_turn", "net_points_per_turn"):
        assert report.results[f"{name}[B-A]"].value == 0.0
        assert report.results[f"{name}[B-A]"].se == 0.0
        assert report.results[f"{name}[A]"].se > 0
    assert "half-width of at most 0.02" in report.headline


@pytest.mark.parametrize("argv", [
    ["compare", "wfb8_empire", "wfb8_orcs", "--precision", "0.01", "--n-trials", "1000"],
    ["compare", "wfb8_empire", "wfb8_orcs", "--precision", "0.7"],
    ["sweep", "khador/juggernaut", "cygnar/ironclad", "--vary", "def=11..12",
     "--precision", "0"],
    ["score", "wfb8_empire", "--meta", "wfb8_infantry", "--model", "cells", "--precision", "0.01",
     "--n-trials", "500"],
])
def test_precision_with_n_trials_or_out_of_range_is_one_line(argv):
    proc = cli_inprocess(*argv)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and proc.stdout == ""
    assert lines[0].startswith("error: --precision")


def test_the_compare_table_says_how_the_cells_ran():
    proc = cli_inprocess("compare", "wfb8_empire", "wfb8_orcs", "--seed", "2", "--precision",
                         "0.02", "--rounds", "2")
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("Monte Carlo cells:"))
    assert "each until its P(kill) has a 95% half-width of at most 0.02" in line
    assert "largest P(kill) se" in line
