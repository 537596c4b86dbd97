"""Single magic rolls (MG-1..MG-7, MG-10) against brute-force enumeration of every face.

The brute force here is written from the docs/rules.md text, independently of
``mathhammer.magic.rolls`` (which groups faces by sum and sixes).
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import lru_cache

import pytest

from mathhammer.errors import InputError, RulesError
from mathhammer.magic.rolls import (
    cast_odds, check_cast_input, check_dispel_input, dispel_probability, flow_pools, marginals,
    miscast_rows,
)
from mathhammer.magic.rules import MagicRules, magic_rules

T9A, WFB = magic_rules("t9a1"), magic_rules("wfb8")


@lru_cache(maxsize=None)
def every_roll(n: int) -> tuple[tuple[int, bool, Fraction], ...]:
    """(natural sum, two or more 6s?, probability) of every face combination of n D6,
    tallied so the rule checks below run once per distinct pair."""
    tally = Counter((sum(f), f.count(6) >= 2) for f in itertools.product(range(1, 7), repeat=n))
    return tuple((s, six, Fraction(c, 6**n)) for (s, six), c in sorted(tally.items()))


def brute_cast(rules: MagicRules, n: int, level: int, cv: int, bound: bool = False):
    """Per face combination and D3 face (1..3 each 1/3): (cast?, irresistible-undispellable?,
    total, miscast-if-through?)."""
    out = {"cast": Fraction(0), "two6": Fraction(0), "miscast": Fraction(0), "plain": {}}
    for natural, two_sixes, p_faces in every_roll(n):
        if two_sixes:
            out["two6"] += p_faces
        for d3 in (1, 2, 3):
            p = p_faces / 3
            if rules is WFB and natural <= 2:  # MG-4 wfb8: natural 2 or less fails
                continue
            if two_sixes and rules is WFB:  # MG-5 irresistible force
                out["cast"] += p
                if not bound:
                    out["miscast"] += p
                continue
            total = natural + (0 if bound else level)
            if two_sixes and rules is T9A and not bound:  # overwhelming power
                total += d3 + n
                if total >= cv:
                    out["cast"] += p
                    out["miscast"] += p
                continue
            if total >= cv:
                out["cast"] += p
                out["plain"][total] = out["plain"].get(total, Fraction(0)) + p
    return out


CASES = [(n, level, cv) for n in range(1, 5) for level in (0, 1, 2, 4)
         for cv in (2, 3, 5, 7, 9, 11, 14, 19, 24)]


@pytest.mark.parametrize("rules", [T9A, WFB], ids=["t9a1", "wfb8"])
@pytest.mark.parametrize("n,level,cv", CASES)
def test_cast_equals_brute_force(rules, n, level, cv):
    ref = brute_cast(rules, n, level, cv)
    odds = cast_odds(rules, n, level, cv)
    assert odds.p_cast == ref["cast"]
    assert odds.p_irresistible == ref["two6"]
    assert odds.p_miscast_undispelled == ref["miscast"]
    assert odds.plain == {k: v for k, v in ref["plain"].items() if v}
    assert odds.p_fail + odds.p_cast == 1


@pytest.mark.parametrize("rules,n", [(T9A, 5), (WFB, 5), (WFB, 6)], ids=["t9a1-5", "wfb8-5", "wfb8-6"])
def test_cast_five_six_dice_equals_brute_force(rules, n):
    for cv in (8, 15, 22):
        ref = brute_cast(rules, n, 2, cv)
        odds = cast_odds(rules, n, 2, cv)
        assert (odds.p_cast, odds.p_miscast_undispelled) == (ref["cast"], ref["miscast"])


@pytest.mark.parametrize("rules", [T9A, WFB], ids=["t9a1", "wfb8"])
@pytest.mark.parametrize("n,cv", [(2, 5), (3, 9), (4, 12)])
def test_bound_spells_never_miscast_and_ignore_level(rules, n, cv):
    ref = brute_cast(rules, n, 3, cv, bound=True)
    odds = cast_odds(rules, n, 3, cv, bound=True)
    assert odds.p_miscast_undispelled == 0 == ref["miscast"]
    assert odds.p_cast == ref["cast"]


def test_cast_hand_values():
    """Hand-derived: wfb8 1 die, cv 3, level 0: faces 3..6 cast (natural 1, 2 fail) = 4/6;
    with level 2 faces 1-2 still fail (natural 2 or less) = 4/6; t9a1 level 2: 6/6."""
    assert cast_odds(WFB, 1, 0, 3).p_cast == Fraction(4, 6)
    assert cast_odds(WFB, 1, 2, 3).p_cast == Fraction(4, 6)
    assert cast_odds(T9A, 1, 2, 3).p_cast == 1
    # two dice: P(two sixes) = 1/36 in both rulesets; wfb8 IF is always cast
    assert cast_odds(WFB, 2, 0, 40).p_cast == Fraction(1, 36)
    # t9a1 two sixes on 2 dice: 12 + D3 + 2 = 15..17 → cv 16 cast on D3 ≥ 2: 2/3 of 1/36
    assert cast_odds(T9A, 2, 0, 16).p_cast == Fraction(2, 3) / 36


def brute_dispel(rules, n, level, against):
    hit = Fraction(0)
    for natural, two_sixes, p_faces in every_roll(n):
        if rules is WFB and natural <= 2:  # MG-6 wfb8: a natural 1 or 2 fails
            continue
        for d3 in (1, 2, 3):
            total = natural + level
            if rules is T9A and two_sixes:  # MG-5 OP on dispel rolls
                total += d3 + n
            if total >= against:
                hit += p_faces / 3
    return hit


@pytest.mark.parametrize("rules", [T9A, WFB], ids=["t9a1", "wfb8"])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_dispel_equals_brute_force(rules, n):
    for level in (0, 1, 3):
        for against in (1, 2, 3, 6, 8, 10, 13, 17, 20, 25, 30):
            assert dispel_probability(rules, n, level, against) == brute_dispel(rules, n, level, against)


def brute_flow(rules, ca, cr):
    """Every flow roll and every channel die (MG-1..MG-3)."""
    out = {}

    def add(key, p):
        out[key] = out.get(key, 0) + p

    for a, b in itertools.product(range(1, 7), repeat=2):
        if rules is T9A:  # MG-2: one D6 + channelers per side, 7+ → +1 die
            for fa, fr in itertools.product(range(1, 7), repeat=2):
                ea, er = int(fa + ca >= 7), int(fr + cr >= 7)
                add((min(12, a + b + min(ea, 2)), min(12, max(a, b) + min(er, 2))), Fraction(1, 36 * 36))
        else:  # wfb8: each wizard's D6 showing 6 → +1 die (tallied by number of 6s)
            six_a = Counter(w.count(6) for w in itertools.product(range(1, 7), repeat=ca))
            six_r = Counter(w.count(6) for w in itertools.product(range(1, 7), repeat=cr))
            for (ea, na), (er, nr) in itertools.product(six_a.items(), six_r.items()):
                add((min(12, a + b + ea), min(12, max(a, b) + er)),
                    Fraction(na * nr, 36 * 6 ** (ca + cr)))
    return out


@pytest.mark.parametrize("rules", [T9A, WFB], ids=["t9a1", "wfb8"])
@pytest.mark.parametrize("ca,cr", [(0, 0), (1, 0), (2, 3), (3, 1)])
def test_flow_equals_brute_force(rules, ca, cr):
    got = {k: v for k, v in flow_pools(rules, ca, cr).items() if v}
    assert got == brute_flow(rules, ca, cr)


def test_flow_hand_values_and_caps():
    power, dispel = marginals(flow_pools(T9A))
    assert power[7] == Fraction(6, 36) and dispel[6] == Fraction(11, 36) and dispel[1] == Fraction(1, 36)
    # t9a1: at most 2 extra dice per player (MG-3); pools capped at 12
    power, dispel = marginals(flow_pools(T9A, 6, 6, extra_power=2, extra_dispel=2))
    assert max(power) == 12 and min(power) == 4 and max(dispel) == 8
    # MG-3: more other dice than the limit is an error, never silently cut (issue 21 item 14)
    with pytest.raises(RulesError, match="at most 2 dice beyond the flow roll"):
        flow_pools(T9A, extra_power=3)
    power, _ = marginals(flow_pools(WFB, 4, 0, extra_power=5))
    assert max(power) == 12


def test_miscast_rows_are_two_d6_bands():
    for rules in (T9A, WFB):
        rows = miscast_rows(rules)
        assert [p for _, p in rows] == [Fraction(6, 36), Fraction(9, 36), Fraction(6, 36),
                                         Fraction(9, 36), Fraction(6, 36)]


def test_bad_input_is_one_clear_error():
    with pytest.raises(RulesError, match="1 to 5 dice"):
        check_cast_input(T9A, 6, 1, 7)
    check_cast_input(WFB, 6, 1, 7)
    with pytest.raises(InputError, match=r"must be 2\.\.1000"):
        check_cast_input(WFB, 2, 1, 1)
    with pytest.raises(RulesError):
        check_dispel_input(T9A, 13, 0)
