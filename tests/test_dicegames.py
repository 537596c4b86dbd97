"""``mathhammer roll-off`` (DICE-6) and ``mathhammer scatter`` (DICE-4, DICE-7).

Hand computations in exact fractions; Monte Carlo against exact within 5 standard
errors computed from the exact p before the run, and a chi-square test (p > 1e-6) of
whole distributions over the bins with at least 20 expected trials. With N = 200 000
a probability near 1/2 is held to ± 0.0056.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from mathhammer.dicegames import direction_share, roll_off, roll_off_fractions, scatter
from mathhammer.engine import MonteCarloConfig
from tests.conftest import cli_inprocess
from tests.stats import chisquare

N = 200_000


def mc(n: int = N, seed: int = 20261221) -> MonteCarloConfig:
    return MonteCarloConfig(n_trials=n, seed=seed, threads=1)


def _close(est, p: float, n: int) -> None:
    se = math.sqrt(p * (1 - p) / n)
    assert abs(est.value - p) <= 5 * se + 1e-12, (est.value, p, se)


def _chi2(dist, exact_pmf: dict[int, float], n: int) -> None:
    keys = [k for k, p in exact_pmf.items() if p * n >= 20]
    observed = [dist.pmf.get(k, 0.0) * n for k in keys]
    expected = [exact_pmf[k] * n for k in keys]
    rest_obs, rest_exp = n - sum(observed), n - sum(expected)
    if rest_exp >= 20:
        observed.append(rest_obs)
        expected.append(rest_exp)
    assert chisquare(observed, expected).pvalue > 1e-6


# ---- DICE-6 -------------------------------------------------------------------------------
def test_roll_off_plus_one_is_21_over_31():
    """DICE-6: +1 → A higher in 21 of 36 pairs, B in 10, ties 5: 21/31, 10/31, 36/31 rolls."""
    assert roll_off_fractions(1, 0) == (Fraction(21, 31), Fraction(10, 31), Fraction(36, 31))
    r = roll_off(bonus_a=1).results
    assert r["p_a_wins"].value == pytest.approx(21 / 31, abs=1e-12)
    assert r["p_b_wins"].value == pytest.approx(10 / 31, abs=1e-12)
    assert r["mean_rolls"].value == pytest.approx(36 / 31, abs=1e-12)


@pytest.mark.parametrize("a, b", [(0, 0), (0, 2), (3, 1), (-2, 3), (6, 0), (0, 9)])
def test_roll_off_against_brute_force(a, b):
    """DICE-6 by brute force: P(A) = P(A higher)/(1 − P(tie)); a ±6 bonus leaves no ties."""
    win = sum(x + a > y + b for x in range(1, 7) for y in range(1, 7))
    tie = sum(x + a == y + b for x in range(1, 7) for y in range(1, 7))
    p_a, p_b, mean = roll_off_fractions(a, b)
    assert p_a == Fraction(win, 36 - tie) and p_a + p_b == 1
    assert mean == Fraction(36, 36 - tie)
    dist = roll_off(a, b).distributions["rolls"]
    q = Fraction(tie, 36)
    for k in range(1, 6):  # geometric number of rolls
        assert dist.pmf.get(k, 0.0) == pytest.approx(float(q ** (k - 1) * (1 - q)), abs=1e-12)


def test_roll_off_monte_carlo_against_exact():
    """DICE-6: the kernel rolls the dice until they differ; 5 se of the exact p."""
    exact = roll_off(2, 1)
    sim = roll_off(2, 1, method="mc", config=mc())
    p = exact.results["p_a_wins"].value
    _close(sim.results["p_a_wins"], p, N)
    _close(sim.results["p_b_wins"], 1 - p, N)
    assert abs(sim.results["mean_rolls"].value - exact.results["mean_rolls"].value) <= (
        5 * sim.results["mean_rolls"].se)
    _chi2(sim.distributions["rolls"], exact.distributions["rolls"].pmf, N)


# ---- DICE-7 -------------------------------------------------------------------------------
def test_scatter_2d6_by_hand():
    """DICE-4/7: wfb8 two HIT faces of 6; 2D6 on an arrow; within 3": HIT or 2D6 ≤ 3."""
    r = scatter("2D6", ruleset="wfb8", within=3)
    assert r.results["p_hit"].value == pytest.approx(1 / 3, abs=1e-12)
    assert r.results["mean_distance"].value == pytest.approx(2 / 3 * 7, abs=1e-12)
    assert r.results["p_within"].value == pytest.approx(1 / 3 + 2 / 3 * 3 / 36, abs=1e-12)
    dist = r.distributions["distance"].pmf
    assert dist[0] == pytest.approx(1 / 3) and dist[7] == pytest.approx(2 / 3 * 6 / 36)
    assert dist[1] == 0.0  # 2D6 never moves 1"


def test_scatter_basic_has_one_hit_face():
    """Seed 001: five arrows and one HIT (DICE-4); «смещение по кубику на 2Д6»."""
    r = scatter("2D6", ruleset="basic", within=1.5).results
    assert r["p_hit"].value == pytest.approx(1 / 6, abs=1e-12)
    assert r["p_within"].value == pytest.approx(1 / 6, abs=1e-12)  # 2D6 is at least 2"


def test_scatter_from_a_point_off_the_aim():
    """A fixed 3" move ends within 3" of a point 3" away for directions within ±60°: 1/3."""
    assert direction_share(3.0, 3.0, 3.0) == pytest.approx(1 / 3, abs=1e-12)
    assert direction_share(1.0, 5.0, 3.0) == 0.0 and direction_share(1.0, 1.0, 3.0) == 1.0
    r = scatter("3", hit_faces=0, within=3, offset=3).results
    assert r["p_within"].value == pytest.approx(1 / 3, abs=1e-12)
    r = scatter("3", hit_faces=6, within=3, offset=3).results  # always HIT: stays 3" away
    assert r["p_within"].value == 1.0


@pytest.mark.parametrize("text, faces, within, offset", [
    ("2D6", None, 3.0, 0.0), ("D6", 1, 2.0, 2.5), ("D6*2", 2, 4.0, 1.0), ("D3+1", 0, None, 0.0)])
def test_scatter_monte_carlo_against_exact(text, faces, within, offset):
    """DICE-7: the kernel rolls the scatter die, the distance dice and a direction."""
    kwargs = dict(hit_faces=faces, within=within, offset=offset)
    exact = scatter(text, **kwargs)
    sim = scatter(text, method="mc", config=mc(), **kwargs)
    for name, est in exact.results.items():
        if name.startswith("p_"):
            _close(sim.results[name], est.value, N)
    _chi2(sim.distributions["distance"], exact.distributions["distance"].pmf, N)


def test_scatter_check_runs_both_engines():
    r = scatter("D6", within=2, method="mc", config=mc(50_000), check=True)
    assert set(r.info["check"]) >= {"p_hit", "p_within"}


@pytest.mark.parametrize("args, flag", [
    (("scatter", "D6-3"), "DISTANCE"), (("scatter", "2D6", "--hit-faces", "7"), "--hit-faces"),
    (("scatter", "2D6", "--from-inches", "-1"), "--from-inches"),
    (("scatter", "2D6", "--target-offset", "2"), "--target-offset"),
    (("scatter", "2D6", "--ruleset", "wfb9"), "--ruleset"),
    (("scatter", "2D6", "--ruleset", "basic", "--hit-faces", "1"), "--hit-faces"),
    (("roll-off", "--bonus-a", "1000"), "--bonus-a")])
def test_bad_input_is_one_line_exit_2(args, flag):
    out = cli_inprocess(*args)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0], out.stderr


def test_cli_headline_first_and_explain_cites_the_rules():
    out = cli_inprocess("roll-off", "--bonus-a", "1", "--explain")
    assert out.returncode == 0
    assert out.stdout.splitlines()[0].startswith("A wins the roll-off: 67.74% (exact)")
    assert "21/31" in out.stdout and "[DICE-6]" in out.stdout
    out = cli_inprocess("scatter", "2D6", "--from-inches", "3", "--explain")
    assert out.stdout.splitlines()[0].startswith("Scatter 2D6 (wfb8): HIT 33.33% (exact)")
    assert "[DICE-4, DICE-7]" in out.stdout and "7/18" in out.stdout
    out = cli_inprocess("roll-off", "--brief")
    assert out.stdout.strip() == "A wins the roll-off: 50.00% (exact) · B 50.00% · 1.20 rolls on average"


def test_scatter_distance_histogram_has_no_negative_or_fractional_inches():
    d = scatter("D6*2", hit_faces=2).distributions["distance"]
    assert {k for k, p in d.pmf.items() if p > 0} == {0, 2, 4, 6, 8, 10, 12}
    assert np.isclose(sum(d.pmf.values()), 1.0)
