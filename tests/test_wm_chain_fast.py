"""The fast exact Warmachine chain (issue 29 part 7) against the slow references it replaced.

One attack's odds now come from per-dice-count tables (a lookup by DEF − bonus, a slice
of the sum counts) and n attacks from :func:`mathhammer.dice.pmf_power` (squaring, or one
FFT past ``FFT_OUTCOMES`` outcomes). The references below are the former code: a pass
over all 6^k rolls through the rules, and one convolution per attack. One attack must
agree to the last bit, chains to 1e-12, on many random specs.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from mathhammer import dice
from mathhammer.warmachine import rules
from mathhammer.warmachine.chain import AttackSetup, AttackSpec, attack, build_chain, chain_pmf


def reference_outcome_probs(k, bonus, defense, auto_hit):
    counts = np.bincount(rules.attack_outcome_table(k, bonus, defense, auto_hit), minlength=3)
    return tuple(float(p) for p in counts / float(6**k))


def reference_damage_pmf(k, power, armor):
    table = rules.damage_table(k, power, armor)
    return np.bincount(table, minlength=int(table.max()) + 1) / float(6**k)


def reference_chain(specs):
    total = np.ones(1)
    for spec in specs:
        total = np.convolve(total, spec.pmf())
    return total


def test_one_roll_matches_the_pass_over_every_roll_bit_for_bit():
    for k in range(1, rules.MAX_DICE + 1):
        for bonus in range(-10, 31, 3):
            for defense in range(1, 45, 2):
                for auto_hit in (False, True):
                    assert rules.attack_outcome_probs(k, bonus, defense, auto_hit) \
                        == reference_outcome_probs(k, bonus, defense, auto_hit), (k, bonus, defense)
        for power in range(0, 61, 4):
            for armor in range(0, 51, 4):
                got, want = rules.damage_pmf(k, power, armor), reference_damage_pmf(k, power, armor)
                assert got.shape == want.shape and (got == want).all(), (k, power, armor)


def random_spec(rng: random.Random) -> AttackSpec:
    return AttackSpec(hit_dice=rng.randint(1, 6), bonus=rng.randint(0, 20),
                      defense=rng.randint(5, 30), auto_hit=rng.random() < 0.1,
                      auto_miss=rng.random() < 0.05, damage_dice=rng.randint(1, 6),
                      power=rng.randint(0, 40), armor=rng.randint(0, 40))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_chains_match_one_convolution_per_attack(seed):
    rng = random.Random(seed)
    for _ in range(40):
        first, rest = random_spec(rng), random_spec(rng)
        n = rng.choice((1, 2, 3, 5, 10, 40, 100))
        specs = [first] + [rest] * (n - 1) if rng.random() < 0.5 else [rest] * n
        got, want = chain_pmf(specs), reference_chain(specs)
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 1e-12, (specs[0], specs[-1], n)
        assert got.min() >= 0


def test_the_fft_path_is_taken_and_agrees():
    """100 attacks of up to 97 damage values: far past FFT_OUTCOMES, still within 1e-12, and
    impossible totals below the least damage stay exactly 0."""
    spec = AttackSpec(hit_dice=3, bonus=8, defense=12, auto_hit=True, damage_dice=6, power=40,
                      armor=20)  # every hit deals at least 6 + 20 = 26
    pmf = spec.pmf()
    assert 100 * (len(np.trim_zeros(pmf, "f")) - 1) + 1 > dice.FFT_OUTCOMES
    got, want = chain_pmf([spec] * 100), reference_chain([spec] * 100)
    assert np.abs(got - want).max() <= 1e-12
    assert not got[: 100 * 26].any()


def test_pmf_power_caps_like_capping_each_step():
    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 30, 300):
        for cap in (None, 0, 3, 50, 2000):
            pmf = rng.random(rng.integers(1, 12))
            pmf[: rng.integers(0, len(pmf))] = 0.0  # impossible low values too
            pmf /= pmf.sum() or 1.0
            want = np.ones(1)
            for _ in range(n):
                want = np.convolve(want, pmf)
                if cap is not None and len(want) > cap + 1:
                    want[cap] += want[cap + 1:].sum()
                    want = want[: cap + 1]
            got = dice.pmf_power(pmf, n, cap)
            size = max(len(got), len(want))
            assert np.abs(np.pad(got, (0, size - len(got)))
                          - np.pad(want, (0, size - len(want)))).max() <= 1e-12, (n, cap)


def test_library_answers_are_unchanged():
    """Figures of the README example and a charge, from the rules by hand (doctest values)."""
    r = attack(6, 13, 12, 18, kind="ranged", boost_hit=True, boost_damage=True)
    assert round(r.results["p_hit"].value, 5) == 0.90741
    assert round(r.results["mean_damage"].value, 5) == 4.14635
    setup = AttackSetup(stat=7, defense=12, power=18, armor=20, attacks=4, charge=True,
                        boxes=15)
    specs = build_chain(setup)
    r = attack(7, 12, 18, 20, attacks=4, charge=True, boxes=15, method="exact")
    want = reference_chain(specs)
    assert abs(r.results["p_destroyed"].value - want[15:].sum()) <= 1e-12
    assert abs(r.results["mean_hits"].value - sum(s.p_hit for s in specs)) <= 1e-12


def test_the_benchmarks_new_specification_empties_every_per_spec_cache():
    """benchmarks/adapters.new_spec times the first call for a stat line: every cache that
    remembers one must be emptied before it (and no whole-process table needs to be)."""
    from benchmarks import adapters

    names = {cache.__name__ for cache in adapters.spec_caches()}
    assert {"compile_spec", "_single_attack_cached", "_single_attack_floats",
            "attack_outcome_probs", "damage_pmf"} <= names
    assert not names & adapters.PROCESS_TABLES
    rules.damage_pmf(3, 12, 18)
    first_call, _ = adapters.new_spec((lambda i: rules.damage_pmf.cache_info().currsize,
                                       lambda i: None))
    assert first_call(0) == 0
