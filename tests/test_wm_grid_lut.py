"""The integer-draw grid kernel ``sequence_lut``: tables, PDEP vs portable marking,
and Monte Carlo vs exact where the other grid tests do not reach (WM-G2, WM-G5, WM-G6,
WM-A4, WM-A7, WM-D2, WM-G4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathhammer import kernels
from mathhammer.engine import MonteCarloConfig
from mathhammer.rng import chunk_state
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.sequence import (AttackStep, LookupTables, SequenceArrays, Target,
                                            _as_counts, run_sequence)

CHARGER = ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]
FRAGILE_LEGS = ["MM-", "---", "---", "---", "---", "----"]

CASES = [
    ([AttackStep("melee", 7, 18, boost_hit=True, boost_damage=True)] * 3,
     Target(12, 18, Grid.from_columns(CHARGER))),
    ([AttackStep("ranged", 5, 12, weapon_crippled=True), AttackStep("melee", 6, 16, knocks_down=True),
      AttackStep("melee", 4, 15, pre_boosted=True)], Target(16, 14, Grid.from_columns(FRAGILE_LEGS))),
    ([AttackStep("magic", 7, 12, boost_hit=True)] * 2, Target(14, 15, Grid.track(17), start_bits=0b11111)),
    ([AttackStep("melee", 6, 14, first_available="C"), AttackStep("melee", 7, 17, boost_damage=True)],
     Target(12, 13, Grid.from_columns(CHARGER), shield_mask=Grid.from_columns(CHARGER).system_masks["L"])),
]


@pytest.mark.parametrize("steps, target", CASES)
def test_lookup_tables_give_the_outcome_tables_exactly(steps, target):
    """Cell by cell: counting the table entries gives P(miss) and P(hit, d damage) of the
    float outcome tables for every step and situation, and every column once per damage roll."""
    arrays = SequenceArrays.build(steps, target)
    lut = LookupTables.build(steps, target)
    assert lut is not None
    col_start = list(target.grid.col_start)
    for s in range(len(steps)):
        a_bound, dc_bound = int(lut.att_bound[s]), int(lut.dc_bound[s])
        assert int(lut.att_threshold[s]) == 2**32 % a_bound
        assert int(lut.dc_threshold[s]) == 2**32 % dc_bound
        for v in range(8):
            p_hit = int(lut.hit_count[s, v]) / a_bound
            damage = lut.dc_table[s, v >> 2, :dc_bound] & 0xFF
            expected = arrays.pmf[s, v]
            got = np.zeros(expected.shape[0])
            got[0] = 1 - p_hit
            for d, count in zip(*np.unique(damage, return_counts=True)):
                got[1 + d] += p_hit * count / dc_bound
            assert got == pytest.approx(expected, abs=1e-12), (s, v)
        for sc in range(2):
            cols = (lut.dc_table[s, sc, :dc_bound] >> 8).reshape(-1, 6)
            assert all(list(row) == col_start for row in cols)


def test_probabilities_that_are_not_dice_fractions_have_no_table():
    assert _as_counts(np.array([0.3, 0.7])) is None
    k, counts = _as_counts(np.array([1 / 216, 215 / 216]))
    assert (k, list(counts)) == (3, [1, 215])


def _run_lut(steps, target, use_pdep, n, seed):
    k = kernels.load("mathhammer.warmachine.kernels.grid")
    a = SequenceArrays.build(steps, target)
    lut = LookupTables.build(steps, target)
    out = (np.zeros(target.grid.n_boxes + 1, np.int64), np.zeros(len(a.systems) or 1, np.int64),
           np.zeros(1, np.int64), np.zeros(len(steps), np.int64))
    state = chunk_state(seed, 0)
    masks = a.system_masks if len(a.systems) else np.zeros(0, np.uint64)
    k.sequence_lut(a.full, a.width, a.start_bits, a.m_mask, a.shield_mask, masks, lut.att_bound,
                   lut.att_threshold, lut.hit_count, lut.dc_bound, lut.dc_threshold, lut.dc_table,
                   a.knocks_down, a.fa_masks, a.kd0, np.int64(use_pdep), state, np.int64(n), *out)
    return [o.tolist() for o in out] + [state.tolist()]


requires_bmi2 = pytest.mark.skipif(not __import__("mathhammer.kernels.bits", fromlist=["x"]).HOST_BMI2,
                                   reason="host has no BMI2: only the portable path exists")


@requires_bmi2
def test_pdep_marking_equals_the_portable_select():
    """Every start column, damage 0..40 and 300 random grid states, grid and track (WM-G2)."""
    k = kernels.load("mathhammer.warmachine.kernels.grid")
    rng = np.random.default_rng(11)
    for grid in (Grid.from_columns(CHARGER), Grid.from_columns(FRAGILE_LEGS), Grid.track(29)):
        full, width = np.uint64(grid.full), np.int64(grid.width)
        wmask = np.uint64((1 << grid.width) - 1)
        for _ in range(300):
            bits = np.uint64(int(rng.integers(0, 2**63)) & grid.full & int(rng.integers(0, 2**63)))
            for start in sorted(set(grid.col_start)):
                for dmg in range(41):
                    want = k.mark_from(bits, full, np.int64(start), np.int64(dmg), width)
                    got = k.mark_pdep(bits, full, np.int64(start), np.int64(dmg), width, wmask)
                    assert got == want, (grid.width, int(bits), start, dmg)


@requires_bmi2
@pytest.mark.parametrize("steps, target", CASES)
def test_pdep_and_portable_kernels_agree_on_the_same_stream(steps, target):
    """Same seed, both marking paths: identical tallies and identical final RNG state."""
    assert _run_lut(steps, target, 1, 20_000, 5) == _run_lut(steps, target, 0, 20_000, 5)


def test_track_with_first_available_and_weapon_crippled_matches_exact():
    """A track (WM-G6) and a crippled weapon (one attack die, bound 6) next to a first-available
    step on a shielded grid (WM-G5, WM-D2). N = 200 000; tolerance 5 SE from the exact p
    (≤ 0.0056), i.e. an error of about 0.6 percentage points is detected."""
    n = 200_000
    grid = Grid.from_columns(CHARGER)
    cases = [
        ([AttackStep("ranged", 8, 13, weapon_crippled=True),
          AttackStep("melee", 7, 16, boost_damage=True)] * 2, Target(13, 13, Grid.track(20))),
        ([AttackStep("melee", 6, 14, first_available="L", knocks_down=True),
          AttackStep("melee", 6, 17, boost_damage=True)] * 2,
         Target(12, 14, grid, shield_mask=grid.system_masks["L"])),
    ]
    for seed, (steps, target) in enumerate(cases, start=300):
        exact = run_sequence(steps, target, method="exact")
        mc = run_sequence(steps, target, method="mc", config=MonteCarloConfig(n, seed=seed))
        for name, est in exact.results.items():
            if name.startswith("p_"):
                tol = 5 * math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
                assert abs(mc.results[name].value - est.value) <= tol, name
        assert 0.0 < exact.results["p_hit_1"].value < 1.0
