"""Tests and roll-offs of the Fantasy family (FB-T1..T3, FB-C5, FB-C6, DICE-6), exactly.

Every function returns an exact :class:`fractions.Fraction`; the ``*_report``
functions wrap them in a :class:`mathhammer.results.Report` for the CLI.

>>> characteristic_test(4)
Fraction(2, 3)
>>> leadership_test(7, "wfb8")  # 2D6 <= 7: 21/36
Fraction(7, 12)
>>> break_test(8, 3, "wfb8", steadfast=True) == leadership_test(8, "wfb8")
True
"""

from __future__ import annotations

from fractions import Fraction

from mathhammer.dice import parse_dice
from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset
from mathhammer.results import Estimate, Report

LD_LIMIT = 20  # a leadership value beyond this is a typo, not a unit


def whole_number(value, where: str, low: int, high: int, fix: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(where, f"must be a whole number from {low} to {high}", value, fix)
    return value


def characteristic_test(value: int, where: str = "value",
                        rules: Ruleset | str | None = None) -> Fraction:
    """FB-T1: D6 ≤ value passes; a 1 always passes, a 6 always fails.

    FB-V0: a characteristic of 0 fails every test where the ruleset says so
    (``zero.tests_fail``: wfb8, t9a1); without a ruleset, FB-T1 as written.
    """
    whole_number(value, where, 0, 10, "use the characteristic, e.g. ‹value› 4")
    if value == 0 and rules is not None and load_ruleset(rules).zero.tests_fail:
        return Fraction(0)
    return Fraction(sum(1 for face in range(1, 7) if face == 1 or (face != 6 and face <= value)), 6)


def _reroll_failed(p: Fraction, reroll: bool) -> Fraction:
    return p + (1 - p) * p if reroll else p  # DICE-5: one re-roll of a failed test


def leadership_test(ld: int, rules: Ruleset | str = "wfb8", reroll: bool = False,
                    where: str = "ld") -> Fraction:
    """FB-T2: 2D6 ≤ Ld passes (Ld may be modified below 2); Insane Courage per ruleset.

    ``ld`` is the value tested against, already modified (e.g. Ld − combat difference).
    """
    rules = load_ruleset(rules)
    whole_number(ld, where, -LD_LIMIT, LD_LIMIT, "use e.g. ‹ld› 8")
    passes = 0
    for a in range(1, 7):
        for b in range(1, 7):
            double_one = a == 1 and b == 1 and rules.insane_courage
            passes += int(a + b <= ld or double_one)
    return _reroll_failed(Fraction(passes, 36), reroll)


def break_test(ld: int, lost_by: int, rules: Ruleset | str = "wfb8", steadfast: bool = False,
               stubborn: bool = False, unbreakable: bool = False, reroll: bool = False) -> Fraction:
    """FB-C5: the loser tests Ld − difference; Steadfast / Stubborn test unmodified Ld.

    Raises:
        RulesError: Steadfast asked in a ruleset without it (``basic``).
    """
    rules = load_ruleset(rules)
    whole_number(ld, "‹ld›", 0, 10, "use the unit's Ld, e.g. ‹ld› 8")
    whole_number(lost_by, "‹lost_by›", 0, 100, "use the combat score difference, e.g. ‹lost_by› 3")
    if steadfast and not rules.steadfast:
        raise RulesError("‹steadfast›", f"ruleset {rules.name} has no Steadfast", True,
                         "drop ‹steadfast› or use ‹ruleset› wfb8 / t9a1")
    if unbreakable:
        return Fraction(1)
    if ld == 0 and rules.zero.tests_fail:  # FB-V0: a Leadership of 0 fails every test
        return Fraction(0)
    tested = ld if (steadfast or stubborn) else max(ld - lost_by, -LD_LIMIT)  # all ≤ 1 alike
    return leadership_test(tested, rules, reroll, where="‹ld›")


def magic_resistance(mr: int, rules: Ruleset | str = "basic", ward: int | None = None) -> Fraction:
    """FB-T3: chance that a model with MR ``mr`` is spared by a spell.

    ``basic``: roll a D20, ≤ 5 × MR ignores the spell; MR 4 cannot be targeted (1).
    ``wfb8`` / ``t9a1``: MR X adds X to the ward save against spell damage (7 − X with
    no ward); the chance returned is that of passing that ward save (natural 1 fails).
    """
    rules = load_ruleset(rules)
    if rules.magic_resistance == "d20_ignore":
        whole_number(mr, "‹magic_resistance›", 1, 4, "use 1, 2, 3 or 4 (4: cannot be targeted)")
        return Fraction(1) if mr == 4 else Fraction(5 * mr, 20)
    whole_number(mr, "‹magic_resistance›", 1, 6, "use e.g. ‹magic_resistance› 2")
    needed = 7 - mr if ward is None else rules.check_save(ward, "‹ward›") - mr
    needed = max(2, needed)
    return Fraction(max(0, 7 - needed), 6) if needed <= 6 else Fraction(0)


def pursuit(flee: str = "2D6", pursue: str = "2D6") -> Fraction:
    """FB-C6: the fleeing unit is caught when the pursuit roll ≥ the flee roll.

    Both are dice text: ``2D6``, Swiftstride ``3D6kh2``, or any expression.
    """
    flee_pmf = parse_dice(flee).pmf()
    pursue_pmf = parse_dice(pursue).pmf()
    return sum((pf * pp for f, pf in flee_pmf.items() for p, pp in pursue_pmf.items() if p >= f),
               Fraction(0))


def roll_off(bonus_a: int = 0, bonus_b: int = 0) -> Fraction:
    """DICE-6: P(A wins a D6 roll-off; ties re-rolled)."""
    from mathhammer import dice

    return dice.roll_off(bonus_a, bonus_b)


# ---- reports for the CLI ------------------------------------------------------------------


def _report(command: str, p: Fraction, title: str, info: dict) -> Report:
    info = {**info, "p_pass_fraction": str(p)}
    return Report(command, "exact", {"p_pass": Estimate.exact(float(p))}, info=info, title=title)


def fantasy_test_report(value: int | None = None, ld: int | None = None, reroll: bool = False,
                magic_resistance_value: int | None = None, ward: int | None = None,
                rules: Ruleset | str = "wfb8") -> Report:
    """``fb test``: one of --value (D6, FB-T1), --ld (2D6, FB-T2), --magic-resistance (FB-T3)."""
    rules = load_ruleset(rules)
    given = [v is not None for v in (value, ld, magic_resistance_value)]
    if sum(given) != 1:
        raise InputError("‹value› / ‹ld› / ‹magic_resistance›", "give exactly one of them",
                         None, "e.g. ‹value› 4 (D6 test), ‹ld› 8 (2D6 test) or ‹dangerous_terrain› 10")
    if value is not None:
        p = _reroll_failed(characteristic_test(value, "‹value›", rules), reroll)
        rule = "FB-T1: D6 <= value; 1 passes, 6 fails"
        if value == 0:
            rule = (f"FB-V0: a characteristic of 0 fails every test ({rules.name})"
                    if rules.zero.tests_fail else
                    f"FB-V0: {rules.name} has no rule of its own for 0: FB-T1, a 1 still passes")
        return _report("fantasy.test", p, f"characteristic test, value {value} ({rules.name})",
                       {"rule": rule, "reroll": reroll, "ruleset": rules.name})
    if ld is not None:
        whole_number(ld, "‹ld›", 0, 10, "use e.g. ‹ld› 8")
        p = leadership_test(ld, rules, reroll, where="‹ld›")
        if ld == 0 and rules.zero.tests_fail:  # FB-V0, even a double 1
            p = Fraction(0)
        return _report("fantasy.test", p, f"leadership test, Ld {ld} ({rules.name})",
                       {"rule": "FB-T2: 2D6 <= Ld", "insane_courage": rules.insane_courage,
                        "reroll": reroll, "ruleset": rules.name})
    assert magic_resistance_value is not None
    p = magic_resistance(magic_resistance_value, rules, ward)
    meaning = ("D20 <= 5 x MR: the spell has no effect" if rules.magic_resistance == "d20_ignore"
               else "ward save against spell damage improved by MR")
    return _report("fantasy.test", p, f"magic resistance {magic_resistance_value} ({rules.name})",
                   {"rule": f"FB-T3: {meaning}", "ruleset": rules.name})


def break_test_report(ld: int, lost_by: int, rules: Ruleset | str = "wfb8", steadfast: bool = False,
                      stubborn: bool = False, unbreakable: bool = False,
                      reroll: bool = False) -> Report:
    rules = load_ruleset(rules)
    p = break_test(ld, lost_by, rules, steadfast, stubborn, unbreakable, reroll)
    tested = ld if (steadfast or stubborn) else ld - lost_by
    return _report("fantasy.break_test", p, f"break test, Ld {ld}, lost by {lost_by} ({rules.name})",
                   {"rule": "FB-C5 (FB-T2)", "tested_against": "passes" if unbreakable else tested,
                    "ruleset": rules.name})


def pursuit_report(flee: str = "2D6", pursue: str = "2D6") -> Report:
    p = pursuit(flee, pursue)
    return Report("fantasy.pursuit", "exact", {"p_caught": Estimate.exact(float(p))},
                  info={"rule": "FB-C6: caught when pursuit >= flee", "p_caught_fraction": str(p),
                        "flee": flee, "pursue": pursue},
                  title=f"pursuit {pursue} vs flee {flee}")
