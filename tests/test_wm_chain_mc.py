"""Monte Carlo attack chains against the exact engine, one case per mechanic (WM-A*, WM-D1..D3).

Every case runs N = 200 000 trials with a fixed seed (never tuned). Tolerance is
5 standard errors computed from the EXACT value before the run: for a probability
p, se = sqrt(p(1-p)/N) (at p = 0.5 the test detects a bias of ≥ 0.0056); for the
mean damage, se = sd_exact / sqrt(N). The whole damage distribution must also pass
a chi-square test at p > 1e-6 (bins with expected count < 5 pooled).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests import stats

from mathhammer.engine import MonteCarloConfig
from mathhammer.rng import chunk_state
from mathhammer.warmachine.rules import attack_roll_outcome
from mathhammer.warmachine.rules import faces_of_index as rules_faces
from mathhammer.warmachine.chain import (
    AttackSetup, build_chain, chain_exact, chain_monte_carlo, kernel_tables,
)

N = 200_000
SEED = 20240611

BASE = dict(stat=6, defense=13, power=12, armor=18)
CASES = {
    "plain melee": {},
    "boosted 3d6/3d6 ranged": {"kind": "ranged", "boost_hit": True, "boost_damage": True},
    "crippled weapon (1 die)": {"crippled": True, "defense": 9},
    "crippled + boosted": {"crippled": True, "boost_hit": True, "boost_damage": True},
    "extra dice 4d6/4d6": {"boost_hit": True, "extra_hit_dice": 1, "boost_damage": True,
                           "extra_damage_dice": 1},
    "high DEF: only all-6s hit": {"defense": 30},
    "low DEF: only all-1s miss": {"defense": 2, "stat": 9},
    "knocked down melee auto-hit": {"knocked_down": True, "attacks": 2},
    "knocked down ranged DEF 5": {"kind": "ranged", "knocked_down": True},
    "stationary magic": {"kind": "magic", "stationary": True, "defense": 16},
    "charge, 3 attacks": {"charge": True, "attacks": 3, "power": 18, "boxes": 12},
    "powerful charge": {"charge": True, "powerful_charge": True, "attacks": 2, "power": 17},
    "free strike": {"free_strike": True, "power": 16},
    "back strike vs shield": {"back_strike": True, "shield": True, "power": 16},
    "shield + camped focus + arm bonus": {"shield": True, "camped_focus": 2, "arm_bonus": 3,
                                          "power": 20, "boost_damage": True},
    "aim, cover, elevated": {"kind": "ranged", "aim": True, "cover": True, "elevated": True},
    "concealment, target in melee": {"kind": "ranged", "concealment": True,
                                     "target_in_melee": True, "stat": 8},
    "movement crippled DEF 7": {"movement_crippled": True, "attacks": 3, "boxes": 8},
    "slam vs larger base": {"slam_larger_base": True},
    "def bonus (Blur)": {"kind": "magic", "def_bonus": 3, "stat": 7},
    "stealth beyond 5 inches": {"kind": "ranged", "stealth_range": 8.0, "attacks": 2},
    "stealth within 5 inches": {"kind": "ranged", "stealth_range": 4.0},
    "modifier, 5 attacks, boxes": {"modifier": 1, "attacks": 5, "boxes": 15,
                                   "boost_damage": True},
}


def _chi_square_p(counts: np.ndarray, probs: np.ndarray, n: int) -> float:
    expected = probs * n
    order = np.argsort(expected)
    obs_bins, exp_bins = [], []
    acc_o = acc_e = 0.0
    for i in order:  # pool the smallest bins until each has expected ≥ 5
        acc_o += counts[i]
        acc_e += expected[i]
        if acc_e >= 5:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 and exp_bins:
        obs_bins[-1] += acc_o
        exp_bins[-1] += acc_e
    if len(exp_bins) < 2:
        return 1.0
    chi2 = sum((o - e) ** 2 / e for o, e in zip(obs_bins, exp_bins))
    return float(stats.chi2_sf(chi2, len(exp_bins) - 1))


@pytest.mark.parametrize("name", list(CASES))
def test_mc_agrees_with_exact(name):
    setup = AttackSetup(**{**BASE, **CASES[name]})
    specs = build_chain(setup)
    exact = chain_exact(specs, setup.boxes)
    mc = chain_monte_carlo(specs, MonteCarloConfig(n_trials=N, seed=SEED, threads=1), setup.boxes)
    assert mc.n_trials == N
    for key in ("p_hit", "p_critical") + (("p_destroyed",) if setup.boxes else ()):
        p = exact.results[key].value
        tol = 5 * math.sqrt(p * (1 - p) / N)
        assert abs(mc.results[key].value - p) <= tol, (key, p, mc.results[key].value)
    dist = exact.distributions["damage"]
    tol = 5 * dist.sd / math.sqrt(N)
    assert abs(mc.results["mean_damage"].value - dist.mean) <= tol
    p_hits = sum(s.p_hit for s in specs)
    sd_hits = math.sqrt(sum(s.p_hit * (1 - s.p_hit) for s in specs))
    assert abs(mc.results["mean_hits"].value - p_hits) <= 5 * sd_hits / math.sqrt(N) + 1e-12
    counts = mc.distributions["damage"].aligned(dist.min, dist.max) * N
    mc_dist = mc.distributions["damage"]
    assert mc_dist.min >= dist.min and mc_dist.max <= dist.max  # impossible totals never appear
    assert _chi_square_p(np.round(counts), dist.probs, N) > 1e-6


def test_same_seed_same_answer_any_threads():
    specs = build_chain(AttackSetup(**BASE, attacks=2, boost_damage=True))
    one = chain_monte_carlo(specs, MonteCarloConfig(n_trials=300_000, seed=7, threads=1))
    two = chain_monte_carlo(specs, MonteCarloConfig(n_trials=300_000, seed=7, threads=2))
    assert one.to_dict() == two.to_dict()


def test_single_attack_kernel_equals_general_kernel():
    from mathhammer.warmachine.kernels import chain as wm

    specs = build_chain(AttackSetup(**BASE, kind="ranged", boost_hit=True, boost_damage=True))
    t = kernel_tables(specs)
    hist_a = np.zeros(t.max_total + 1, np.int64)
    hits = np.zeros(1, np.int64)
    crits = np.zeros(1, np.int64)
    wm.attack_chain(*t.args(), chunk_state(5, 0), np.int64(100_000), hist_a, hits, crits)
    hist_b = np.zeros(t.max_total + 1, np.int64)
    h, c = wm.single_attack(t.hit_bound[0], t.hit_threshold[0], t.hit_table,
                            t.dmg_bound[0], t.dmg_threshold[0], t.dmg_table,
                            chunk_state(5, 0), np.int64(100_000), hist_b)
    assert np.array_equal(hist_a, hist_b) and (h, c) == (hits[0], crits[0])


def test_kernel_matches_a_python_reference_on_the_same_stream():
    """The kernel's inlined xoshiro256** and Lemire draws equal a plain-Python replay that
    uses the foundation generator ``kernels.dice.next_u64`` word by word."""
    from mathhammer.kernels import dice
    from mathhammer.warmachine.kernels import chain as wm

    specs = build_chain(AttackSetup(**BASE, attacks=2, charge=True))
    t = kernel_tables(specs)
    n = 2000
    hist = np.zeros(t.max_total + 1, np.int64)
    hits = np.zeros(2, np.int64)
    crits = np.zeros(2, np.int64)
    wm.attack_chain(*t.args(), chunk_state(9, 3), np.int64(n), hist, hits, crits)

    state = chunk_state(9, 3)
    ref_hist = np.zeros_like(hist)
    ref_hits = [0, 0]
    ref_crits = [0, 0]

    def lemire(half, bound, threshold, pick):
        m = half * bound
        while m & 0xFFFFFFFF < threshold:
            m = pick(int(dice.next_u64(state))) * bound
        return m >> 32

    for _ in range(n):
        total = 0
        for a in range(2):
            word = int(dice.next_u64(state))
            i = lemire(word >> 32, int(t.hit_bound[a]), int(t.hit_threshold[a]), lambda w: w >> 32)
            j = lemire(word & 0xFFFFFFFF, int(t.dmg_bound[a]), int(t.dmg_threshold[a]),
                       lambda w: w & 0xFFFFFFFF)
            outcome = int(t.hit_table[t.hit_offset[a] + i])
            if outcome:
                total += int(t.dmg_table[t.dmg_offset[a] + j])
                ref_hits[a] += 1
                ref_crits[a] += outcome == 2
        ref_hist[total] += 1
    assert hist.tolist() == ref_hist.tolist()
    assert hits.tolist() == ref_hits and crits.tolist() == ref_crits


@pytest.mark.parametrize("flags", [{"boost_hit": True, "boost_damage": True}, {"crippled": True},
                                   {"knocked_down": True, "power": 16}])
def test_fused_kernel_matches_a_python_reference(flags):
    """single_attack_fused: joint index a + 6^k * d decoded by hand, on the same stream."""
    from mathhammer.kernels import dice
    from mathhammer.warmachine.kernels import chain as wm

    spec, = build_chain(AttackSetup(**{**BASE, **flags}))
    fused = spec.fused_table()
    bound = len(fused)
    assert bound == 6 ** (spec.hit_dice + spec.damage_dice)
    threshold = (2**32 - bound) % bound
    n = 3001  # odd: exercises the last single trial
    hist = np.zeros(int(spec.damage_table().max()) + 1, np.int64)
    hits, crits = wm.single_attack_fused(np.uint64(bound), np.uint64(threshold), fused,
                                         chunk_state(4, 1), np.int64(n), hist)
    state = chunk_state(4, 1)
    ref = np.zeros_like(hist)
    ref_hits = ref_crits = 0
    k_hit = spec.hit_dice

    def draw(half, pick):
        m = half * bound
        while m & 0xFFFFFFFF < threshold:
            m = pick(int(dice.next_u64(state))) * bound
        return m >> 32

    indices = []
    for _ in range(n // 2):
        word = int(dice.next_u64(state))
        indices.append(draw(word >> 32, lambda w: w >> 32))
        indices.append(draw(word & 0xFFFFFFFF, lambda w: w & 0xFFFFFFFF))
    if n % 2:
        indices.append(draw(int(dice.next_u64(state)) >> 32, lambda w: w >> 32))
    for i in indices:
        att = rules_faces(i % 6**k_hit, k_hit)
        dmg = rules_faces(i // 6**k_hit, spec.damage_dice)
        hit, crit = attack_roll_outcome(att, spec.bonus, spec.defense, spec.auto_hit)
        ref[max(0, sum(dmg) + spec.power - spec.armor) if hit else 0] += 1
        ref_hits += hit
        ref_crits += crit
    assert hist.tolist() == ref.tolist() and (hits, crits) == (ref_hits, ref_crits)
