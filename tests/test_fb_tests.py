"""FB-T1..T3, break tests (FB-C5), pursuit (FB-C6) and roll-offs: exhaustive over the faces.

Expected values are counted here face by face (independently of the library's loops)
or written as hand-derived rationals.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.characteristic_tests import (
    break_test, break_test_report, characteristic_test, leadership_test, magic_resistance,
    pursuit, pursuit_report, roll_off, fantasy_test_report,
)

TWO_D6 = list(itertools.product(range(1, 7), repeat=2))


@pytest.mark.parametrize("value", range(0, 11))
def test_characteristic_every_value(value):
    """FB-T1: faces 1..value pass, 1 always, 6 never."""
    expected = {0: F(1, 6), 1: F(1, 6), 2: F(2, 6), 3: F(3, 6), 4: F(4, 6), 5: F(5, 6)}
    assert characteristic_test(value) == expected.get(value, F(5, 6))


@pytest.mark.parametrize("rules", ["basic", "wfb8", "t9a1"])
@pytest.mark.parametrize("ld", range(-3, 13))
def test_leadership_every_value(rules, ld):
    """FB-T2: 2D6 ≤ Ld over the 36 faces; double 1 passes in wfb8 / t9a1 only."""
    insane = rules != "basic"
    passes = sum(1 for a, b in TWO_D6 if a + b <= ld or (insane and a == b == 1))
    assert leadership_test(ld, rules) == F(passes, 36)
    p = F(passes, 36)
    assert leadership_test(ld, rules, reroll=True) == p + (1 - p) * p


def test_leadership_known_values():
    assert leadership_test(7, "basic") == F(21, 36)
    assert leadership_test(10, "wfb8") == F(33, 36)
    assert leadership_test(1, "basic") == 0
    assert leadership_test(1, "wfb8") == F(1, 36)


def test_break_tests():
    """FB-C5: Ld 8 lost by 3 tests on 5 (10/36); Steadfast / Stubborn on 8 (26/36)."""
    assert break_test(8, 3, "wfb8") == F(10, 36)
    assert break_test(8, 3, "wfb8", steadfast=True) == F(26, 36)
    assert break_test(8, 3, "basic", stubborn=True) == F(26, 36)
    assert break_test(8, 3, "wfb8", unbreakable=True) == 1
    assert break_test(8, 12, "wfb8") == F(1, 36)  # only Insane Courage
    assert break_test(8, 12, "basic") == 0
    p = F(10, 36)
    assert break_test(8, 3, "t9a1", reroll=True) == p + (1 - p) * p
    with pytest.raises(RulesError, match="steadfast"):
        break_test(8, 3, "basic", steadfast=True)
    with pytest.raises(InputError, match="lost_by"):
        break_test(8, -1, "wfb8")
    with pytest.raises(InputError, match="ld"):
        break_test(11, 1, "wfb8")


@pytest.mark.parametrize(("mr", "expected"), [(1, F(1, 4)), (2, F(1, 2)), (3, F(3, 4)), (4, F(1))])
def test_basic_d20_magic_resistance(mr, expected):
    """FB-T3 basic: D20 ≤ 5·MR (20 faces counted); MR 4 cannot be targeted."""
    counted = F(sum(1 for face in range(1, 21) if face <= 5 * mr), 20) if mr < 4 else F(1)
    assert magic_resistance(mr, "basic") == counted == expected


def test_ward_bonus_magic_resistance():
    """FB-T3 wfb8/t9a1: MR 2 = 5+ ward against spells with no ward; 5+ ward becomes 3+."""
    assert magic_resistance(2, "wfb8") == F(2, 6)
    assert magic_resistance(2, "t9a1", ward=5) == F(4, 6)
    assert magic_resistance(3, "wfb8", ward=2) == F(5, 6)  # natural 1 still fails
    with pytest.raises(InputError, match="magic_resistance"):
        magic_resistance(5, "basic")


def test_pursuit():
    """FB-C6: P(2D6 ≥ 2D6) = (1 + P(tie)) / 2 = (1 + 146/1296) / 2 = 721/1296."""
    ties = sum(1 for a, b, c, d in itertools.product(range(1, 7), repeat=4) if a + b == c + d)
    assert pursuit("2D6", "2D6") == (1 + F(ties, 1296)) / 2 == F(721, 1296)
    swift = sum(1 for dice in itertools.product(range(1, 7), repeat=5)
                if sum(sorted(dice[2:])[1:]) >= dice[0] + dice[1])
    assert pursuit("2D6", "3D6kh2") == F(swift, 6**5)


def test_roll_off():
    """DICE-6: ties re-rolled; +1 wins 21 of the 31 non-tied pairs... counted face by face."""
    assert roll_off() == F(1, 2)
    wins = sum(1 for a, b in TWO_D6 if a + 1 > b)
    ties = sum(1 for a, b in TWO_D6 if a + 1 == b)
    assert roll_off(1, 0) == F(wins, 36 - ties)


def test_reports():
    report = fantasy_test_report(value=4)
    assert report.results["p_pass"].value == pytest.approx(4 / 6)
    report = fantasy_test_report(ld=7, rules="basic")
    assert report.results["p_pass"].value == pytest.approx(21 / 36)
    report = fantasy_test_report(magic_resistance_value=2, rules="basic")
    assert report.results["p_pass"].value == 0.5
    with pytest.raises(InputError, match="exactly one"):
        fantasy_test_report(value=4, ld=7)
    assert break_test_report(8, 3, "wfb8").results["p_pass"].value == pytest.approx(10 / 36)
    assert pursuit_report().results["p_caught"].value == pytest.approx(721 / 1296)
