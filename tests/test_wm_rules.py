"""Warmachine per-roll rules: exhaustive over every face combination (WM-A1..A8, WM-D1..D3)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine import rules

# (bonus, defense) pairs covering: always-hit-by-sum, never-by-sum, in-between, DEF 1
SITUATIONS = [(0, 1), (0, 2), (6, 13), (4, 14), (0, 7), (3, 30), (20, 2), (-5, 5), (0, 25)]


def hand_outcome(dice, bonus, defense, auto_hit=False):
    """WM-A1..A5 written out independently of the implementation."""
    k = len(dice)
    if auto_hit:
        hit = True  # decision: the dice only decide criticals
    elif dice.count(1) == k:  # WM-A2, also for k = 1
        hit = False
    elif k >= 2 and dice.count(6) == k:  # WM-A3
        hit = True
    else:
        hit = sum(dice) + bonus >= defense  # WM-A1
    critical = hit and any(dice.count(face) >= 2 for face in range(1, 7))  # WM-A5
    return hit, critical


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("bonus,defense", SITUATIONS)
@pytest.mark.parametrize("auto_hit", [False, True])
def test_every_face_combination(k, bonus, defense, auto_hit):
    table = rules.attack_outcome_table(k, bonus, defense, auto_hit)
    seen = 0
    for dice in itertools.product(range(1, 7), repeat=k):
        expected = hand_outcome(dice, bonus, defense, auto_hit)
        assert rules.attack_roll_outcome(dice, bonus, defense, auto_hit) == expected, dice
        index = sum((face - 1) * 6**j for j, face in enumerate(dice))
        assert rules.faces_of_index(index, k) == dice
        hit, crit = expected
        assert table[index] == int(hit) + int(crit), dice
        seen += 1
    assert seen == 6**k


@pytest.mark.parametrize(
    "dice,bonus,defense,expected",
    [
        ((1,), 20, 2, (False, False)),      # WM-A2 with one die
        ((6,), 0, 20, (False, False)),      # WM-A3 needs k >= 2
        ((6,), 0, 6, (True, False)),        # one die cannot crit
        ((1, 1), 20, 2, (False, False)),    # WM-A2
        ((6, 6), 0, 99, (True, True)),      # WM-A3, and a pair: critical
        ((6, 6, 6), -10, 50, (True, True)),
        ((1, 1, 1), 30, 3, (False, False)),
        ((1, 1, 2), 0, 4, (True, True)),    # a pair of 1s crits when the roll hits
        ((1, 1, 2), 0, 5, (False, False)),  # a miss is never critical
        ((3, 4), 6, 13, (True, False)),     # exactly DEF hits
        ((3, 3), 6, 13, (False, False)),
        ((2, 5, 2), 0, 9, (True, True)),
        ((1, 2, 3, 4), 0, 10, (True, False)),
    ],
)
def test_hand_cases(dice, bonus, defense, expected):
    assert rules.attack_roll_outcome(dice, bonus, defense) == expected


def test_auto_hit_still_rolls_for_criticals():
    assert rules.attack_roll_outcome((1, 1), 0, 99, auto_hit=True) == (True, True)
    assert rules.attack_roll_outcome((2, 5), 0, 99, auto_hit=True) == (True, False)


@pytest.mark.parametrize(
    "k,bonus,defense,auto,p_hit,p_crit",
    [
        (2, 6, 13, False, Fraction(21, 36), None),        # 2d6 >= 7
        (2, 0, 99, False, Fraction(1, 36), Fraction(1, 36)),   # only double 6
        (3, 0, 99, False, Fraction(1, 216), Fraction(1, 216)),
        (1, 0, 99, False, Fraction(0), Fraction(0)),
        (2, 20, 2, False, Fraction(35, 36), Fraction(5, 36)),  # all but 1-1; pairs 2-2..6-6
        (3, 20, 2, False, Fraction(215, 216), Fraction(95, 216)),  # 96 rolls with a pair, minus 1-1-1
        (1, 20, 2, False, Fraction(5, 6), Fraction(0)),
        (2, 0, 99, True, Fraction(1), Fraction(6, 36)),
        (4, 20, 2, False, Fraction(1295, 1296), Fraction(1296 - 360 - 1, 1296)),  # 6*5*4*3 all-distinct
    ],
)
def test_exact_probabilities_by_hand(k, bonus, defense, auto, p_hit, p_crit):
    assert rules.hit_probability(k, bonus, defense, auto) == pytest.approx(float(p_hit), abs=1e-15)
    if p_crit is not None:
        assert rules.p_critical(k, bonus, defense, auto) == pytest.approx(float(p_crit), abs=1e-15)


def test_dice_count_wm_a1():
    assert rules.dice_count() == 2
    assert rules.dice_count(boosted=True) == 3
    assert rules.dice_count(crippled=True) == 1
    assert rules.dice_count(boosted=True, crippled=True) == 2
    assert rules.dice_count(boosted=True, extra=1) == 4
    assert rules.dice_count(crippled=True, extra=-3) == 1  # never below one


def test_pre_boosted_damage_is_not_boosted_again_wm_d3():
    assert rules.damage_dice_count(pre_boosted=True) == 3
    assert rules.damage_dice_count(boosted=True, pre_boosted=True) == 3
    assert rules.damage_dice_count(pre_boosted=True, crippled=True) == 2


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("power,armor", [(12, 18), (10, 10), (19, 20), (5, 30), (14, 0)])
def test_damage_pmf_by_enumeration(k, power, armor):
    counts: dict[int, int] = {}
    for dice in itertools.product(range(1, 7), repeat=k):
        dmg = max(0, sum(dice) + power - armor)
        assert rules.damage_dealt(dice, power, armor) == dmg
        counts[dmg] = counts.get(dmg, 0) + 1
    pmf = rules.damage_pmf(k, power, armor)
    assert len(pmf) == max(counts) + 1 == max(0, 6 * k + power - armor) + 1
    for d, p in enumerate(pmf):
        assert p == pytest.approx(counts.get(d, 0) / 6**k, abs=1e-15)


# --------------------------------------------------------------------------- modifiers, cell by cell
@pytest.mark.parametrize(
    "kind,flags,expected",
    [
        ("ranged", {}, 0),
        ("ranged", {"aiming": True}, 2),
        ("melee", {"back_strike": True}, 2),
        ("ranged", {"back_strike": True}, 2),
        ("melee", {"free_strike": True}, 2),
        ("ranged", {"target_in_melee": True}, -4),
        ("magic", {"target_in_melee": True}, -4),
        ("ranged", {"target_in_melee": True, "spray": True}, 0),  # WM-D6
        ("melee", {"powerful_charge": True}, 2),
        ("melee", {"slam_larger_base": True}, -2),
        ("ranged", {"aiming": True, "back_strike": True, "target_in_melee": True}, 0),
        ("melee", {"free_strike": True, "back_strike": True}, 4),
    ],
)
def test_attack_modifier_cells(kind, flags, expected):
    assert rules.attack_modifier(kind, **flags) == expected


@pytest.mark.parametrize(
    "kind,flags",
    [("melee", {"aiming": True}), ("magic", {"aiming": True}), ("ranged", {"free_strike": True}),
     ("melee", {"target_in_melee": True}), ("ranged", {"powerful_charge": True}),
     ("magic", {"slam_larger_base": True})],
)
def test_attack_modifier_rejects_impossible(kind, flags):
    with pytest.raises(RulesError):
        rules.attack_modifier(kind, **flags)


@pytest.mark.parametrize(
    "base,kind,flags,expected",
    [
        (13, "melee", {}, 13),
        (13, "melee", {"movement_crippled": True}, 7),
        (5, "melee", {"movement_crippled": True}, 7),  # "DEF becomes 7"
        (13, "melee", {"cover": True, "concealment": True, "elevated": True}, 13),  # ranged/magic only
        (13, "ranged", {"cover": True}, 17),
        (13, "ranged", {"concealment": True}, 15),
        (13, "ranged", {"cover": True, "concealment": True}, 17),  # no stacking
        (13, "magic", {"elevated": True}, 15),
        (13, "ranged", {"knocked_down": True}, 5),
        (13, "magic", {"stationary": True}, 5),
        (13, "ranged", {"knocked_down": True, "concealment": True}, 7),
        (13, "ranged", {"movement_crippled": True, "cover": True}, 11),
        (13, "ranged", {"spell_bonus": 3}, 16),
        (13, "melee", {"spell_bonus": -2}, 11),
        (13, "melee", {"knocked_down": True}, 13),  # melee: automatic hit instead
    ],
)
def test_effective_defense_cells(base, kind, flags, expected):
    assert rules.effective_defense(base, kind, **flags) == expected


def test_automatic_hits_and_stealth():
    assert rules.is_automatic_hit("melee", knocked_down=True)
    assert rules.is_automatic_hit("melee", stationary=True)
    assert not rules.is_automatic_hit("ranged", knocked_down=True)
    assert rules.is_automatic_hit("ranged", sustained=True)
    assert rules.stealth_miss("ranged", True, 5.1)
    assert rules.stealth_miss("magic", True, 12)
    assert not rules.stealth_miss("ranged", True, 5.0)
    assert not rules.stealth_miss("melee", True, 12)
    assert not rules.stealth_miss("ranged", False, 12)


@pytest.mark.parametrize(
    "flags,expected",
    [
        ({}, 18), ({"shield": True}, 20), ({"shield": True, "shield_crippled": True}, 18),
        ({"shield": True, "back_strike": True}, 18), ({"camped_focus": 3}, 21),
        ({"spell_bonus": 3}, 21), ({"feat_bonus": 5}, 23),
        ({"shield": True, "camped_focus": 1, "spell_bonus": 3, "feat_bonus": 5}, 29),
    ],
)
def test_effective_armor_cells(flags, expected):
    assert rules.effective_armor(18, **flags) == expected


def test_bad_inputs():
    with pytest.raises(InputError):
        rules.attack_roll_outcome((), 0, 5)
    with pytest.raises(InputError):
        rules.effective_defense(12, "artillery")
    with pytest.raises(InputError):
        rules.effective_armor(18, camped_focus=-1)
    with pytest.raises(InputError):
        rules.roll_tables(7)


def test_tables_are_read_only():
    sums = rules.roll_tables(2)[0]
    with pytest.raises(ValueError):
        sums[0] = 5
    assert np.array_equal(np.sort(sums)[[0, -1]], [2, 12])


def test_boosting_can_lower_the_hit_chance_against_huge_def():
    """A consequence of WM-A3 worth knowing: when only all-6s can hit, a third die makes
    that rarer (1/36 → 1/216); even at DEF 17 with no bonus, 3d6 ≥ 17 (4/216) loses to
    double 6 (1/36). Whenever two dice can reach the DEF by their sum, boosting helps."""
    assert rules.hit_probability(3, 0, 30) == pytest.approx(1 / 216)
    assert rules.hit_probability(2, 0, 30) == pytest.approx(1 / 36)
    assert rules.hit_probability(3, 0, 17) == pytest.approx(4 / 216)
    for bonus in range(0, 12):
        for defense in range(1, 13 + bonus):  # reachable by the sum of 2d6 + bonus
            assert rules.hit_probability(3, bonus, defense) >= rules.hit_probability(2, bonus, defense)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(k=st.integers(1, 5), bonus=st.integers(-5, 15), defense=st.integers(1, 30),
       auto=st.booleans())
def test_outcome_probabilities_are_consistent(k, bonus, defense, auto):
    p_miss, p_plain, p_crit = rules.attack_outcome_probs(k, bonus, defense, auto)
    assert p_miss + p_plain + p_crit == pytest.approx(1.0, abs=1e-12)
    assert min(p_miss, p_plain, p_crit) >= 0
    assert p_miss >= (0 if auto else 1 / 6**k)  # WM-A2 always leaves the all-1s roll
    if k >= 2 and not auto:
        assert p_miss <= 1 - 1 / 6**k  # WM-A3 always leaves the all-6s roll
    assert rules.hit_probability(k, bonus + 1, defense, auto) >= rules.hit_probability(k, bonus, defense, auto)
