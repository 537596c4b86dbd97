"""Dice text errors and limits (DICE-2), special dice and helpers (DICE-3..6)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from mathhammer.dice import (
    EXACT_BUDGET, MAX_CONSTANT, MAX_DICE, MAX_SIDES, MAX_SUPPORT, ArtilleryDie, ScatterDie,
    p_success_with_reroll, parse_dice, reroll, roll_off,
)
from mathhammer.errors import DiceExpressionError, MathhammerError

D6 = [Fraction(1, 6)] * 6


# ---------------------------------------------------------------------------------
# Parse errors: one line, the column, a valid example (DICE-2)


@pytest.mark.parametrize(
    "text, column",
    [
        ("2D", 3),  # sides missing
        ("2D6+", 5),  # dangling operator
        ("2D6)", 4),  # stray parenthesis
        ("(2D6", 5),  # unclosed parenthesis
        ("abc", 1),
        ("2D6 ** 3", 6),
        ("3D6k2", 4),  # 'k' without h/l
        ("3D6kh4", 6),  # keeping more dice than rolled
        ("0D6", 1),
        ("D1", 2),
        (f"{MAX_DICE + 1}D6", 1),
        (f"D{MAX_SIDES + 1}", 2),
        (f"{MAX_CONSTANT + 1}", 1),
        ("2D6 + @", 7),
    ],
)
def test_bad_text_names_the_column_and_gives_an_example(text, column):
    with pytest.raises(DiceExpressionError) as info:
        parse_dice(text)
    line = info.value.one_line()
    assert f"column {column}" in line, line
    assert '"2D6+3"' in line and "\n" not in line


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_text_is_an_error(text):
    with pytest.raises(DiceExpressionError, match="empty"):
        parse_dice(text)


def test_non_text_is_an_error():
    with pytest.raises(DiceExpressionError, match="must be text"):
        parse_dice(6)  # type: ignore[arg-type]


def test_support_limit():
    """200 D1000 spans 199 801 outcomes (allowed); its double does not fit."""
    assert parse_dice("200D1000").span == 199_801 <= MAX_SUPPORT
    with pytest.raises(DiceExpressionError, match="spans"):
        parse_dice("200D1000+200D1000")


def test_products_never_overflow():
    """1e6^4 would wrap around int64 silently; it is refused instead."""
    assert parse_dice("1000000*1000000").pmf() == {10**12: 1}
    with pytest.raises(DiceExpressionError, match="2\\*\\*53"):
        parse_dice("1000000*1000000*1000000*1000000")


@pytest.mark.parametrize("text", ["30D1000", "100D100", "(D1000*D1000*D1000)*0", "50D100kh25"])
def test_expressions_too_large_to_enumerate_parse_fast_and_say_so(text):
    """Bounds come from interval arithmetic; the exact pmf is refused, not hung on."""
    expr = parse_dice(text)
    assert expr.exact_cost > EXACT_BUDGET and not expr.exact_feasible
    assert expr.sampler().kind == "program"
    with pytest.raises(MathhammerError, match="method mc"):
        expr.pmf()


def test_bounds_without_enumeration():
    e = parse_dice("(D6-4)*(2D6-7)")
    assert (e.min, e.max) == (min(e.pmf()), max(e.pmf())) == (-15, 15)  # corners (-3)(±5)


# ---------------------------------------------------------------------------------
# DICE-3 artillery die, DICE-4 scatter die


def test_artillery_die_faces():
    die = ArtilleryDie()
    assert die.faces == (2, 4, 6, 8, 10, None)
    assert die.p_misfire == Fraction(1, 6)
    assert die.distance_pmf() == {d: Fraction(1, 6) for d in (2, 4, 6, 8, 10)}


@pytest.mark.parametrize("hits, p", [(1, Fraction(1, 6)), (2, Fraction(1, 3)), (0, 0), (6, 1)])
def test_scatter_die_hit_faces_are_a_parameter(hits, p):
    """DICE-4: basic has 1 HIT face, wfb8/t9a1 have 2; the count is data."""
    assert ScatterDie(hit_faces=hits).p_hit == p


@pytest.mark.parametrize("hits", [-1, 7])
def test_scatter_die_rejects_impossible_hit_counts(hits):
    with pytest.raises(DiceExpressionError):
        ScatterDie(hit_faces=hits)


# ---------------------------------------------------------------------------------
# DICE-5 re-rolls: one re-roll, the second result stands


def _enumerate_reroll(mask: tuple[bool, ...]) -> list[Fraction]:
    out = [Fraction(0)] * 6
    for first, second in itertools.product(range(6), repeat=2):
        final = second if mask[first] else first
        out[final] += Fraction(1, 36)
    return out


@pytest.mark.parametrize("mask", list(itertools.product([False, True], repeat=6)))
def test_reroll_matches_enumeration_for_every_face_set(mask):
    got = reroll(np.array(D6, dtype=object), list(mask))
    assert list(got) == _enumerate_reroll(mask)


def test_reroll_works_with_floats_and_uneven_faces():
    p = np.array([0.5, 0.25, 0.25])
    got = reroll(p, [True, False, False])  # re-roll the first face once
    assert np.allclose(got, [0.25, 0.25 + 0.125, 0.25 + 0.125])
    assert got.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("target", range(1, 8))
def test_p_success_with_reroll_vs_enumeration(target):
    """Success = d6 ≥ target; re-roll failures, or (forced) re-roll successes."""
    p = Fraction(max(0, 7 - target), 6)
    failed = successes = Fraction(0)
    for a, b in itertools.product(range(1, 7), repeat=2):
        ok_a, ok_b = a >= target, b >= target
        failed += Fraction(1, 36) * (ok_a or ok_b)
        successes += Fraction(1, 36) * (ok_a and ok_b)
    assert p_success_with_reroll(p, "failed") == failed
    assert p_success_with_reroll(p, "successes") == successes
    assert p_success_with_reroll(p, None) == p_success_with_reroll(p, "none") == p


def test_reroll_of_ones():
    """Re-rolling 1s: P(6) = 1/6 + 1/36, P(1) = 1/36."""
    got = reroll(np.array(D6, dtype=object), [True, False, False, False, False, False])
    assert got[0] == Fraction(1, 36) and got[5] == Fraction(7, 36)


def test_unknown_reroll_mode():
    with pytest.raises(ValueError):
        p_success_with_reroll(0.5, "sometimes")


# ---------------------------------------------------------------------------------
# DICE-6 roll-off: ties rolled again


def _roll_off_by_rounds(bonus_a: int, bonus_b: int, rounds: int = 200) -> Fraction:
    """Sum over rounds: win in round r = P(tie)^(r-1) * P(win in one round)."""
    win = tie = Fraction(0)
    for a, b in itertools.product(range(1, 7), repeat=2):
        win += Fraction(1, 36) * (a + bonus_a > b + bonus_b)
        tie += Fraction(1, 36) * (a + bonus_a == b + bonus_b)
    return sum((win * tie**r for r in range(rounds)), Fraction(0))


@pytest.mark.parametrize("bonus_a, bonus_b", [(a, b) for a in range(-1, 8) for b in (0, 2)])
def test_roll_off_vs_repeated_rounds(bonus_a, bonus_b):
    exact = roll_off(bonus_a, bonus_b)
    assert abs(float(exact) - float(_roll_off_by_rounds(bonus_a, bonus_b))) < 1e-12
    assert roll_off(bonus_b, bonus_a) == 1 - exact  # somebody always wins


def test_roll_off_by_hand():
    assert roll_off() == Fraction(1, 2)
    assert roll_off(1, 0) == Fraction(21, 31)  # 21 pairs a ≥ b win, 5 pairs a+1 = b tie
    assert roll_off(6, 0) == 1 and roll_off(0, 6) == 0


# ---------------------------------------------------------------------------------
# Fuzz: any text either parses or is one DiceExpressionError; never another error


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mathhammer.dice import MAX_DEPTH, MAX_TEXT  # noqa: E402

dice_alphabet = st.text(alphabet="0123456789dDkKhHlLxX+-*() \t٣²é\x00", max_size=40)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dice_alphabet | st.text(max_size=20))
def test_any_text_parses_or_raises_one_clear_error(text):
    try:
        expr = parse_dice(text)
    except DiceExpressionError as err:
        assert "\n" not in err.one_line()
        return
    assert expr.min <= expr.max
    if expr.exact_feasible:
        assert sum(expr.pmf().values()) == 1


@pytest.mark.parametrize("text", ["(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1),
                                  "(" * 500 + "1" + ")" * 500,
                                  "+".join(["1"] * 1000)])
def test_deep_or_long_text_is_refused_not_a_recursion_error(text):
    with pytest.raises(DiceExpressionError):
        parse_dice(text)


def test_limits_still_allow_reasonable_text():
    nested = "(" * MAX_DEPTH + "D6" + ")" * MAX_DEPTH
    assert parse_dice(nested).pmf() == parse_dice("D6").pmf()
    chain = "+".join(["D3"] * 99)  # 296 characters: near MAX_TEXT, a deep left chain
    assert len(chain) <= MAX_TEXT
    expr = parse_dice(chain)
    assert expr.min == 99 and expr.sampler().kind == "program"
    assert expr.pmf() == parse_dice("99D3").pmf()
