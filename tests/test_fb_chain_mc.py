"""The die-by-die Monte Carlo kernel of the attack chain against the exact engine.

Two kinds of evidence:

* exhaustive: every one of the 6^8 face combinations of one attack (6^10 for a
  hopeless shot) is resolved through the kernel's own resolution tables; the class
  counts divided by 6^8 must equal the exact rationals, for each special rule;
* statistical: the kernel with real random dice, N = 200 000 trials of 10 attacks
  per case; every outcome's frequency (outcomes expected < 20 times pooled into one
  bin) and the mean must lie within 5 standard errors computed from the exact answer
  before the run (smallest detectable shift in a
  probability near 0.3: about 5 · sqrt(0.21 / 2e5) ≈ 0.005).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from mathhammer import kernels
from mathhammer.engine import MonteCarloConfig
from mathhammer.fantasy.chain.core import AttackSpec, chain_exact, compile_spec, single_attack_fractions
from mathhammer.fantasy.chain.mc import chain_monte_carlo, kernel_arguments
from mathhammer.fantasy.rules.ruleset import load_ruleset

fantasy = kernels.load("mathhammer.fantasy.kernels.chain")

SPECS = {
    "plain": (AttackSpec(ws=4, target_ws=3, strength=3, toughness=3, save=5), "wfb8"),
    "rerolls": (AttackSpec(ws=3, target_ws=4, strength=4, toughness=4, save=4, ward=5,
                           reroll_hits="ones", reroll_wounds="failed", reroll_armour="failed",
                           reroll_ward_save="successes"), "wfb8"),
    "poison_hatred": (AttackSpec(ws=4, target_ws=4, strength=3, toughness=5, save=6, poison=True,
                                 hatred=True), "t9a1"),
    "killing_blow": (AttackSpec(ws=5, target_ws=4, strength=4, toughness=4, save=3, ward=6,
                                regeneration=4, killing_blow=True, multiple_wounds="D3",
                                target_wounds=3), "wfb8"),
    "lethal_strike": (AttackSpec(ws=5, target_ws=4, strength=4, toughness=3, save=2,
                                 regeneration=4, killing_blow=True), "t9a1"),
    "flaming_regen": (AttackSpec(ws=4, target_ws=4, strength=5, toughness=4, regeneration=4,
                                 ward=6, flaming=True, reroll_wounds="ones"), "basic"),
    "shooting": (AttackSpec(bs=3, shooting_modifier=-1, strength=4, toughness=3, save=4,
                            armour_piercing=1, poison=True, multiple_wounds="D6",
                            target_wounds=4), "wfb8"),
    "hopeless": (AttackSpec(bs=2, shooting_modifier=-3, strength=6, toughness=3,
                            reroll_hits="failed"), "wfb8"),
    "asf_kb_mw_combo": (AttackSpec(ws=6, target_ws=4, strength=5, toughness=4, save=4, ward=5,
                                   always_strikes_first=True, killing_blow=True, poison=True,
                                   multiple_wounds="D3+1", target_wounds=2,
                                   reroll_armour="ones"), "wfb8"),
}


def _tables(spec, rules):
    t = compile_spec(spec, load_ruleset(rules))
    return (np.int64(t.hopeless), t.hit_rr, t.hit_out, t.wound_rr, t.wound_out, t.armour_rr,
            t.armour_out, t.ward_rr, t.ward_out)


def _block_tables(spec, rules):
    low, high = fantasy.build_block_tables(*_tables(spec, rules), fantasy.digit_table())
    return low, high, np.int64(36 if compile_spec(spec, load_ruleset(rules)).hopeless else 1)


@pytest.mark.parametrize("name", [n for n in SPECS if n != "hopeless"])
def test_kernel_resolution_exhaustive(name):
    """Every face combination of the 8 dice of one attack, against the exact rationals."""
    spec, rules = SPECS[name]
    counts = np.zeros(3, np.int64)
    fantasy.enumerate_final_classes(*_block_tables(spec, rules), counts)
    pmf, slain = single_attack_fractions(spec, rules)
    total = 6**8
    assert F(int(counts[0]), total) == pmf[0]
    assert F(int(counts[2]), total) == slain
    assert F(int(counts[1]), total) == 1 - pmf[0] - slain


@pytest.mark.parametrize("name", [n for n in SPECS if n != "hopeless"])
def test_outcome_table_exhaustive(name):
    """The outcome table behind chain_kernel_counting, face combination by face combination.

    Every one of the 6^8 entries equals the die-by-die resolution of its 8 faces, and
    the class counts / 6^8 equal the exact rationals. Checked for every spec, though
    only the counting ones (no slay, one Multiple Wounds value) run on it.
    """
    spec, rules = SPECS[name]
    tables = _tables(spec, rules)
    outcome = fantasy.build_outcome_table(*tables[1:], fantasy.digit_table())
    assert outcome.dtype == np.uint8 and outcome.shape == (6**8,)
    assert fantasy.outcome_table_mismatches(outcome, *tables[1:]) == 0
    counts = np.bincount(outcome, minlength=3)
    pmf, slain = single_attack_fractions(spec, rules)
    assert F(int(counts[0]), 6**8) == pmf[0]
    assert F(int(counts[2]), 6**8) == slain
    # the counting loop's bitset: bit b (little-endian within each uint64) = class 1
    bits = np.unpackbits(fantasy.pack_unsaved_bits(outcome).astype("<u8").view(np.uint8),
                         bitorder="little")
    assert np.array_equal(bits[:6**8], (outcome == 1).astype(np.uint8))
    assert not bits[6**8:].any()
    prepared = kernel_arguments(spec, 3, rules)  # what the kernel is handed (maybe cached)
    if prepared.counting:
        assert np.array_equal(prepared.outcome, outcome)
        assert np.array_equal(prepared.unsaved_bits, fantasy.pack_unsaved_bits(outcome))
    else:
        assert prepared.outcome is None and prepared.unsaved_bits is None


def test_hopeless_shot_has_no_outcome_table():
    spec, rules = SPECS["hopeless"]
    assert kernel_arguments(spec, 3, rules).outcome is None


@pytest.mark.slow
def test_kernel_resolution_exhaustive_hopeless():
    """The 7+/8+/9+ procedure with its re-roll: 6^10 combinations."""
    spec, rules = SPECS["hopeless"]
    counts = np.zeros(3, np.int64)
    fantasy.enumerate_final_classes(*_block_tables(spec, rules), counts)
    pmf, slain = single_attack_fractions(spec, rules)
    assert F(int(counts[0]), 6**10) == pmf[0] and slain == 0


@pytest.mark.parametrize("name", ["killing_blow", "hopeless", "asf_kb_mw_combo"])
def test_jitted_and_python_resolution_agree(name):
    """The jitted per-dice rules and their .py_func agree on pre-rolled dice (DESIGN)."""
    spec, rules = SPECS[name]
    tables = _tables(spec, rules)
    rng = np.random.default_rng(3)
    for _ in range(300):
        dice8 = rng.integers(1, 7, 8).astype(np.int64)
        s1, s2 = (int(x) for x in rng.integers(1, 7, 2))
        assert fantasy.attack_final_class(dice8, s1, s2, *tables) == \
            fantasy.attack_final_class.py_func(dice8, s1, s2, *tables)


def test_digit_table_is_base_six():
    digits = fantasy.digit_table()
    assert digits.shape == (1296, 4)
    values = sum((digits[:, k] - 1) * 6**k for k in range(4))
    assert np.array_equal(values, np.arange(1296))


N_TRIALS = 200_000
ATTACKS = 10
MIN_EXPECTED = 20  # outcomes expected fewer times are pooled: the normal SE needs counts


def _assert_within_5_se(freq, p, n, name):
    """Each outcome with n·p ≥ 20, and the pool of all rarer ones, within 5 SE of exact.

    Outcomes of exact probability 0 must never appear. SEs come from the exact p.
    """
    assert np.all(freq[p == 0] == 0), name
    common = p * n >= MIN_EXPECTED
    bins_p = np.append(p[common], p[~common].sum())
    bins_f = np.append(freq[common], freq[~common].sum())
    se = np.sqrt(bins_p * (1 - bins_p) / n)
    assert np.all(np.abs(bins_f - bins_p) <= 5 * se + 1e-12), (name, bins_f - bins_p, se)


@pytest.mark.parametrize("name", list(SPECS))
def test_monte_carlo_matches_exact(name):
    """Every P(T = t) and the mean within 5 SE of the exact values (SE from exact p)."""
    spec, rules = SPECS[name]
    exact = chain_exact(spec, ATTACKS, rules)
    run = chain_monte_carlo(spec, ATTACKS, rules, MonteCarloConfig(n_trials=N_TRIALS, seed=2024,
                                                                   threads=1))
    counts = run.tally["hist"]
    n = int(counts.sum())
    assert n == N_TRIALS
    size = max(len(counts), len(exact.wounds))
    p = np.pad(exact.wounds, (0, size - len(exact.wounds)))
    freq = np.pad(counts / n, (0, size - len(counts)))
    _assert_within_5_se(freq, p, n, name)
    values = np.arange(size)
    mean, var = float(values @ p), float(((values - values @ p) ** 2) @ p)
    assert abs(float(values @ freq) - mean) <= 5 * np.sqrt(var / n) + 1e-12


def test_counting_kernel_runs_where_it_applies():
    """chain_kernel_counting only without slays and with one Multiple Wounds value."""
    counting = {name: kernel_arguments(*SPECS[name][:1], 3, SPECS[name][1]).counting
                for name in SPECS}
    assert counting["plain"] and counting["rerolls"] and counting["poison_hatred"]
    assert not (counting["killing_blow"] or counting["shooting"] or counting["hopeless"])


@pytest.mark.parametrize("attacks", [7, 20, "D6+1"])
def test_counting_kernel_repeats_the_staged_kernels_trials(attacks):
    """Same state, same words, same dice: chain_kernel_counting and chain_kernel agree
    trial for trial (identical histograms and final states), odd counts included."""
    from mathhammer.rng import chunk_state

    spec, rules = SPECS["rerolls"]
    prepared = kernel_arguments(spec, attacks, rules)
    assert prepared.counting
    hists, states = [], []
    for staged in (True, False):
        state, hist = chunk_state(99, 0), np.zeros(prepared.hist_size, np.int64)
        if staged:
            fantasy.chain_kernel(*prepared.args, state, np.int64(20_000), hist)
        else:
            prepared.run(state, 20_000, hist)
        hists.append(hist)
        states.append(state)
    assert np.array_equal(hists[0], hists[1]) and np.array_equal(states[0], states[1])


@pytest.mark.parametrize("name", ["plain", "killing_blow"])
def test_odd_number_of_attacks(name):
    """7 attacks: the counting kernel's last attack uses one half of a word."""
    spec, rules = SPECS[name]
    exact = chain_exact(spec, 7, rules)
    run = chain_monte_carlo(spec, 7, rules, MonteCarloConfig(n_trials=N_TRIALS, seed=31,
                                                             threads=1))
    counts = run.tally["hist"]
    size = max(len(counts), len(exact.wounds))
    p = np.pad(exact.wounds, (0, size - len(exact.wounds)))
    _assert_within_5_se(np.pad(counts / N_TRIALS, (0, size - len(counts))), p, N_TRIALS, name)


def test_random_attacks_and_models_cap():
    """D6+2 attacks against a 3-model unit of W 2 (capped at 6 wounds)."""
    spec = AttackSpec(ws=4, target_ws=4, strength=4, toughness=3, multiple_wounds="D3",
                      target_wounds=2)
    exact = chain_exact(spec, "D6+2", "wfb8", models=3)
    run = chain_monte_carlo(spec, "D6+2", "wfb8", MonteCarloConfig(n_trials=N_TRIALS, seed=7,
                                                                   threads=1), models=3)
    counts = run.tally["hist"]
    assert len(counts) == 7
    _assert_within_5_se(counts / N_TRIALS, exact.wounds, N_TRIALS, "D6+2 attacks")


def test_same_seed_same_answer_any_threads():
    spec, rules = SPECS["killing_blow"]
    runs = [chain_monte_carlo(spec, 5, rules, MonteCarloConfig(n_trials=150_000, seed=11,
                                                               threads=t)) for t in (1, 2, 1)]
    assert all(np.array_equal(r.tally["hist"], runs[0].tally["hist"]) for r in runs)


def test_kernel_arguments_are_typed():
    spec, rules = SPECS["shooting"]
    prepared = kernel_arguments(spec, 20, rules)
    arrays = [a for a in prepared.args if isinstance(a, np.ndarray)]
    assert all(a.dtype == np.int64 and a.flags.c_contiguous for a in arrays)
    assert prepared.hist_size == 20 * 4 + 1
    low, high = prepared.args[1], prepared.args[2]
    assert low.shape == (1296,) and high.shape == (4 * 1296,)


def test_register_xoshiro_matches_the_shared_generator():
    """The kernel's in-register xoshiro256** gives the same words as kernels.dice.next_u64."""
    from mathhammer.kernels import dice

    state = np.array([11, 22, 33, 44, 0, 0, 0, 0], dtype=np.uint64)
    words = [state[0], state[1], state[2], state[3]]
    for _ in range(50):
        expected = dice.next_u64(state)
        word, *out = fantasy._xoshiro(*words)
        words = [np.uint64(int(w) % 2**64) for w in out]  # Python sees int64 bits
        assert int(word) % 2**64 == int(expected) and list(state[:4]) == words
