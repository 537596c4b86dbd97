"""Attack sequences on a grid: exact DP vs dict reference vs Monte Carlo (WM-G2..G4, WM-A4, WM-A7)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.warmachine.exact_grid import KD, reference_distribution
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.sequence import AttackStep, SequenceArrays, Target, run_sequence

CHARGER = ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]
# movement boxes at the top of column 1: an early hit there cripples M
FRAGILE_LEGS = ["MM-", "---", "---", "---", "---", "----"]


def _summary_from_reference(grid: Grid, states: dict[int, float]) -> dict[str, float]:
    out = {"p_destroyed": sum(p for s, p in states.items() if s & grid.full == grid.full)}
    for letter, mask in grid.system_masks.items():
        out[f"p_crippled_{letter}"] = sum(p for s, p in states.items() if s & mask == mask)
    out["mean_damage"] = sum(p * bin(s & grid.full).count("1") for s, p in states.items())
    return out


@pytest.mark.parametrize("steps, target", [
    ([AttackStep("melee", 7, 18, boost_damage=True)] * 3, Target(12, 18, Grid.from_columns(CHARGER))),
    ([AttackStep("ranged", 5, 12), AttackStep("melee", 6, 16, knocks_down=True),
      AttackStep("melee", 4, 15)], Target(16, 14, Grid.from_columns(FRAGILE_LEGS))),
    ([AttackStep("magic", 7, 12, boost_hit=True)] * 2, Target(14, 15, Grid.track(17), start_bits=0b11111)),
    ([AttackStep("melee", 6, 14, first_available="C"), AttackStep("melee", 7, 17, boost_damage=True)],
     Target(12, 13, Grid.from_columns(CHARGER))),
])
def test_kernel_dp_equals_plain_python_dict_dp(steps, target):
    exact = run_sequence(steps, target, method="exact")
    a = SequenceArrays.build(steps, target)
    ref = reference_distribution(target.grid, a.pmf, list(a.knocks_down), target.start_bits,
                                 first_available=[s.first_available for s in steps])
    expect = _summary_from_reference(target.grid, ref)
    start = bin(target.start_bits).count("1")
    expect["mean_damage"] -= start
    for name, value in expect.items():
        assert exact.results[name].value == pytest.approx(value, rel=1e-10, abs=1e-12), name
    p_kd = sum(p for s, p in ref.items() if s & KD)
    assert 0.0 <= p_kd <= 1.0


def test_crippled_movement_changes_def_mid_sequence():
    """Crippled M sets DEF 7 for the NEXT attack (WM-G4, WM-A7), exactly and by Monte Carlo.

    Target DEF 16 with its M boxes on top of column 1; MAT 5 needs 11+ on 2d6 against
    DEF 16 but only 2+ against DEF 7. The exact P(hit) of the third attack must be well
    above the first (the effect exists), and Monte Carlo must agree with the exact
    values within 5 SE computed from the exact p before the run.
    N = 400 000: the smallest detectable difference is about 5 * sqrt(0.25 / N) = 0.004.
    """
    grid = Grid.from_columns(FRAGILE_LEGS)
    target = Target(16, 12, grid)
    steps = [AttackStep("melee", 5, 16, boost_hit=True, boost_damage=True)] + \
            [AttackStep("melee", 5, 16)] * 2
    exact = run_sequence(steps, target, method="exact")
    assert exact.results["p_hit_1"].value == pytest.approx(0.5)  # 3d6 ≥ 11
    # unboosted 2d6 ≥ 11 is 3/36 against DEF 16: the later attacks gain from DEF 7
    assert exact.results["p_hit_2"].value > 3 / 36 + 0.1
    assert exact.results["p_hit_3"].value > exact.results["p_hit_2"].value + 0.02
    n = 400_000
    tolerances = {name: 5 * math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
                  for name, est in exact.results.items() if name.startswith("p_")}
    mc = run_sequence(steps, target, method="mc", config=MonteCarloConfig(n_trials=n, seed=2024))
    for name, tol in tolerances.items():
        assert abs(mc.results[name].value - exact.results[name].value) <= tol, name
    z = abs(mc.distributions["damage"].mean - exact.distributions["damage"].mean) / \
        mc.distributions["damage"].mean_se
    assert z < 5


def test_monte_carlo_matches_exact_on_a_full_grid_with_knockdown():
    """Three attacks on the Charger grid; the second knocks down (later melee hits are automatic).

    N = 300 000; tolerance 5 SE from the exact p (≤ 0.0046 for p near 1/2).
    """
    target = Target(13, 17, Grid.from_columns(CHARGER), start_bits=Grid.from_columns(CHARGER)
                    .start_bits([1, 0, 2, 0, 0, 1]))
    steps = [AttackStep("ranged", 5, 14, boost_damage=True),
             AttackStep("melee", 6, 12, knocks_down=True, first_available="M"),
             AttackStep("melee", 6, 18, boost_damage=True)]
    exact = run_sequence(steps, target, method="exact")
    assert exact.results["p_hit_3"].value > exact.results["p_hit_2"].value + 0.1
    n = 300_000
    mc = run_sequence(steps, target, method="mc", config=MonteCarloConfig(n_trials=n, seed=77))
    for name, est in exact.results.items():
        if name.startswith("p_"):
            tol = 5 * math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
            assert abs(mc.results[name].value - est.value) <= tol, name


def test_same_seed_same_answer_for_any_thread_count():
    target = Target(12, 18, Grid.from_columns(CHARGER))
    steps = [AttackStep("melee", 7, 18, boost_damage=True)] * 2
    one = run_sequence(steps, target, method="mc", config=MonteCarloConfig(200_000, seed=5, threads=1))
    two = run_sequence(steps, target, method="mc", config=MonteCarloConfig(200_000, seed=5, threads=2))
    assert one.to_dict() == two.to_dict()


def test_exact_engine_beats_the_plain_python_dict_version():
    """Not a timing test of absolute speed: the kernel DP is much faster than the dict DP here."""
    import time

    target = Target(12, 18, Grid.from_columns(CHARGER))
    steps = [AttackStep("melee", 7, 18, boost_damage=True)] * 3
    run_sequence(steps, target, method="exact")  # compile / warm
    t0 = time.perf_counter()
    run_sequence(steps, target, method="exact")
    fast = time.perf_counter() - t0
    a = SequenceArrays.build(steps, target)
    t0 = time.perf_counter()
    reference_distribution(target.grid, a.pmf, list(a.knocks_down))
    slow = time.perf_counter() - t0
    assert fast < slow


def test_shield_adds_two_armor_until_its_system_is_crippled():
    """WM-D2 + WM-G4: a Shield on L gives +2 ARM until every L box is marked.

    Exact: the shield lowers P(destroyed); with L already crippled it is as if absent;
    a Chain Weapon ignores it. Kernel DP = dict DP, and Monte Carlo within 5 SE
    (N = 200 000, tolerance ≤ 0.0056).
    """
    grid = Grid.from_columns(CHARGER)
    steps = [AttackStep("melee", 7, 17, boost_damage=True)] * 3
    plain = Target(12, 16, grid)
    shielded = Target(12, 16, grid, shield_mask=grid.system_masks["L"])
    p_plain = run_sequence(steps, plain, method="exact").results["p_destroyed"].value
    p_shield = run_sequence(steps, shielded, method="exact").results["p_destroyed"].value
    assert p_shield < p_plain - 0.02
    l_gone = grid.start_bits([3, 4, 0, 0, 0, 0])
    assert grid.crippled(l_gone, "L")
    a = run_sequence(steps, Target(12, 16, grid, start_bits=l_gone), method="exact")
    b = run_sequence(steps, Target(12, 16, grid, start_bits=l_gone, shield_mask=grid.system_masks["L"]),
                     method="exact")
    assert a.results["p_destroyed"].value == pytest.approx(b.results["p_destroyed"].value, abs=1e-12)
    chain = [AttackStep("melee", 7, 17, boost_damage=True, ignores_shield=True)] * 3
    assert run_sequence(chain, shielded, method="exact").results["p_destroyed"].value == \
        pytest.approx(p_plain, abs=1e-12)
    arrays = SequenceArrays.build(steps, shielded)
    ref = reference_distribution(grid, arrays.pmf, list(arrays.knocks_down),
                                 shield_mask=grid.system_masks["L"])
    assert _summary_from_reference(grid, ref)["p_destroyed"] == pytest.approx(p_shield, abs=1e-12)
    n = 200_000
    mc = run_sequence(steps, shielded, method="mc", config=MonteCarloConfig(n, seed=41))
    assert abs(mc.results["p_destroyed"].value - p_shield) <= 5 * math.sqrt(p_shield * (1 - p_shield) / n)
