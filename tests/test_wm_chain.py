"""Exact attack/damage chains (WM-A*, WM-D1..D3): hand values, brute force, rule wiring."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine import rules
from mathhammer.warmachine.chain import AttackSetup, AttackSpec, attack, build_chain, chain_pmf


def brute_force_single(hit_dice, bonus, defense, damage_dice, power, armor, auto_hit=False):
    """Every face combination of attack and damage dice, written out with Fractions."""
    pmf: dict[int, Fraction] = {}
    weight = Fraction(1, 6 ** (hit_dice + damage_dice))
    for att in itertools.product(range(1, 7), repeat=hit_dice):
        hit, _ = rules.attack_roll_outcome(att, bonus, defense, auto_hit)
        for dmg in itertools.product(range(1, 7), repeat=damage_dice):
            d = max(0, sum(dmg) + power - armor) if hit else 0
            pmf[d] = pmf.get(d, Fraction(0)) + weight
    return pmf


@pytest.mark.parametrize(
    "hit_dice,bonus,defense,damage_dice,power,armor,auto_hit",
    [(2, 6, 13, 2, 12, 18, False), (3, 6, 13, 3, 12, 18, False), (1, 4, 14, 1, 10, 12, False),
     (2, 0, 25, 3, 19, 20, False), (2, 0, 99, 2, 14, 14, True), (3, 7, 12, 2, 5, 30, False)],
)
def test_single_attack_matches_brute_force(hit_dice, bonus, defense, damage_dice, power, armor,
                                           auto_hit):
    spec = AttackSpec(hit_dice, bonus, defense, auto_hit, False, damage_dice, power, armor)
    expected = brute_force_single(hit_dice, bonus, defense, damage_dice, power, armor, auto_hit)
    got = spec.pmf()
    assert len(got) >= max(expected) + 1
    for d, p in enumerate(got):
        assert p == pytest.approx(float(expected.get(d, 0)), abs=1e-14)


def test_reference_figures_performance_md():
    """The exact values quoted in reference/performance.md §2 (MAT 6 vs DEF 13, POW 12 vs ARM 18)."""
    plain = AttackSpec(2, 6, 13, False, False, 2, 12, 18)
    boosted = AttackSpec(3, 6, 13, False, False, 3, 12, 18)
    assert plain.p_hit == pytest.approx(0.58333, abs=5e-6)
    assert float(plain.pmf() @ np.arange(7)) == pytest.approx(0.90741, abs=5e-6)
    assert boosted.p_hit == pytest.approx(0.90741, abs=5e-6)
    assert float(boosted.pmf() @ np.arange(len(boosted.pmf()))) == pytest.approx(4.14635, abs=5e-6)


def test_two_attacks_brute_force():
    a = AttackSpec(2, 5, 12, False, False, 2, 11, 16)
    b = AttackSpec(3, 5, 12, False, False, 3, 11, 16)
    pa = brute_force_single(2, 5, 12, 2, 11, 16)
    pb = brute_force_single(3, 5, 12, 3, 11, 16)
    expected: dict[int, Fraction] = {}
    for (da, qa), (db, qb) in itertools.product(pa.items(), pb.items()):
        expected[da + db] = expected.get(da + db, Fraction(0)) + qa * qb
    got = chain_pmf([a, b])
    for d, p in enumerate(got):
        assert p == pytest.approx(float(expected.get(d, 0)), abs=1e-14)


def test_charge_pre_boosts_first_attack_only_wm_d3():
    specs = build_chain(AttackSetup(stat=6, defense=12, power=18, armor=18, attacks=3, charge=True))
    assert [s.damage_dice for s in specs] == [3, 2, 2]
    assert [s.hit_dice for s in specs] == [2, 2, 2]  # a charge does not boost the attack roll
    boosted = build_chain(AttackSetup(stat=6, defense=12, power=18, armor=18, attacks=2,
                                      charge=True, boost_damage=True))
    assert [s.damage_dice for s in boosted] == [3, 3]  # never boosted twice
    crippled = build_chain(AttackSetup(stat=6, defense=12, power=18, armor=18, attacks=2,
                                       charge=True, crippled=True))
    assert [(s.hit_dice, s.damage_dice) for s in crippled] == [(1, 2), (1, 1)]
    pc = build_chain(AttackSetup(stat=6, defense=12, power=18, armor=18, attacks=2, charge=True,
                                 powerful_charge=True))
    assert [s.bonus for s in pc] == [8, 6]


def test_setup_wiring_of_modifiers():
    spec, = build_chain(AttackSetup(stat=5, defense=13, power=12, armor=18, kind="ranged",
                                    aim=True, target_in_melee=True, cover=True, elevated=True,
                                    def_bonus=3, shield=True, camped_focus=2, arm_bonus=3))
    assert (spec.bonus, spec.defense, spec.armor) == (5 + 2 - 4, 13 + 4 + 2 + 3, 18 + 2 + 2 + 3)
    spec, = build_chain(AttackSetup(stat=6, defense=13, power=17, armor=18, back_strike=True,
                                    shield=True, free_strike=True))
    assert (spec.bonus, spec.armor, spec.damage_dice) == (6 + 4, 18, 3)
    spec, = build_chain(AttackSetup(stat=6, defense=13, power=17, armor=18, knocked_down=True))
    assert spec.auto_hit and spec.p_hit == 1.0
    spec, = build_chain(AttackSetup(stat=6, defense=13, power=12, armor=18, kind="magic",
                                    knocked_down=True))
    assert not spec.auto_hit and spec.defense == 5
    spec, = build_chain(AttackSetup(stat=6, defense=13, power=12, armor=18, kind="ranged",
                                    stealth_range=8))
    assert spec.p_hit == 0.0 and chain_pmf([spec])[0] == 1.0
    spec, = build_chain(AttackSetup(stat=6, defense=13, power=12, armor=18, kind="ranged",
                                    stealth_range=5))
    assert spec.p_hit > 0
    spec, = build_chain(AttackSetup(stat=6, defense=13, power=12, armor=18,
                                    extra_hit_dice=1, extra_damage_dice=1, boost_hit=True))
    assert (spec.hit_dice, spec.damage_dice) == (4, 3)


def test_p_destroyed_and_mean():
    r = attack(7, 12, 18, 18, attacks=3, boxes=10, boost_damage=True)
    specs = build_chain(AttackSetup(stat=7, defense=12, power=18, armor=18, attacks=3,
                                    boost_damage=True))
    pmf = chain_pmf(specs)
    assert r.results["p_destroyed"].value == pytest.approx(pmf[10:].sum(), abs=1e-12)
    assert r.results["mean_damage"].value == pytest.approx(3 * float(specs[0].pmf() @ np.arange(len(specs[0].pmf()))), abs=1e-12)
    assert r.results["mean_hits"].value == pytest.approx(3 * specs[0].p_hit, abs=1e-12)
    assert r.results["p_hit"].se == 0.0 and r.method == "exact"


@pytest.mark.parametrize(
    "flags,exc",
    [({"stat": -1}, InputError), ({"defense": 0}, InputError), ({"attacks": 0}, InputError),
     ({"boxes": 0}, InputError), ({"armor": -2}, InputError), ({"kind": "ranged", "charge": True}, RulesError),
     ({"free_strike": True, "attacks": 2}, RulesError), ({"powerful_charge": True}, RulesError),
     ({"kind": "melee", "aim": True}, RulesError), ({"kind": "bow"}, InputError)],
)
def test_bad_setups(flags, exc):
    base = dict(stat=6, defense=12, power=12, armor=16)
    base.update(flags)
    with pytest.raises(exc) as err:
        build_chain(AttackSetup(**base))
    assert err.value.where.startswith("‹")  # a parameter, spelled by whoever shows it
