"""War machines as targets (FB-WM1): the machine's Toughness against shooting, the crew's in
close combat, Wounds by ruleset; each case against a hand computation in fractions."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from mathhammer.errors import ProfileError
from tests.conftest import cli_result


def run_json(*args):
    code, out, err = cli_result(*args, "--format", "json", "--quiet")
    assert code == 0, err
    return json.loads(out)


def p_at_least(k: int, n: int, p: Fraction) -> Fraction:
    return 1 - sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k))


@pytest.mark.parametrize("ref, ruleset, toughness", [("wfb8/empire_great_cannon", "wfb8", 7),
                                                     ("t9a1/eos_great_cannon", "t9a1", 6)])
def test_shooting_uses_the_machines_toughness(ref, ruleset, toughness):
    # 10 shots BS3 (4+: 1/2), S4 against T6 or T7: 6+ (1/6); no crew armour. wfb8: 3 crewmen
    # of one wound each; t9a1: one model of W3 — either way destroyed at 3 unsaved wounds
    out = run_json("fb", "shoot", "--shots", "10", "--bs", "3", "--strength", "4", "--target", ref,
                   "--ruleset", ruleset)
    want = p_at_least(3, 10, Fraction(1, 12))
    assert out["results"]["p_destroyed"]["value"] == pytest.approx(float(want), abs=1e-12)
    assert f"T{toughness} (shooting)" in out["info"]["war machine"]


@pytest.mark.parametrize("ref, ruleset", [("wfb8/empire_great_cannon", "wfb8"),
                                          ("t9a1/eos_great_cannon", "t9a1")])
def test_close_combat_uses_the_crew(ref, ruleset):
    # 6 attacks WS4 vs the crew's WS3: 3+ (2/3); S4 vs the crew's T3: 3+ (2/3) -> 4/9 each
    out = run_json("fb", "attack", "--attacks", "6", "--ws", "4", "--strength", "4", "--target", ref,
                   "--ruleset", ruleset)
    want = p_at_least(3, 6, Fraction(4, 9))
    assert out["results"]["p_destroyed"]["value"] == pytest.approx(float(want), abs=1e-12)
    assert "at most 6 models" in out["info"]["war machine"]


def test_monte_carlo_agrees_with_exact():
    args = ("fb", "shoot", "--shots", "12", "--bs", "4", "--strength", "7", "--target",
            "wfb8/empire_great_cannon")
    exact = run_json(*args)["results"]["p_destroyed"]["value"]
    n = 40_000
    mc = run_json(*args, "--method", "mc", "--n-trials", str(n), "--seed", "5")
    se = math.sqrt(exact * (1 - exact) / n)
    assert abs(mc["results"]["p_destroyed"]["value"] - exact) <= 5 * se


def test_poison_does_not_wound_a_war_machine_automatically():
    base = ("fb", "attack", "--attacks", "6", "--ws", "4", "--strength", "3", "--target",
            "wfb8/empire_great_cannon")
    assert run_json(*base, "--poison")["results"] == run_json(*base)["results"]


def test_one_round_against_a_war_machine_by_hand():
    # 5 Halberdiers (one rank: no rank bonus) charge the cannon's 3 crew, one round. Both I3:
    # blows are simultaneous. Halberdiers WS3 S3 (halberd kit as the engine plays it aside,
    # the test reads the spec) vs crew WS3 T3: hit 4+, wound by the chart; crew 3 x A1 back.
    from mathhammer.fantasy.chain.core import chain_exact
    from mathhammer.fantasy.models import load_unit
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.fantasy.characteristic_tests import break_test
    from mathhammer.fantasy.combat.war_machine import (
        Fight, _spec_crew_on_unit, _spec_unit_on_crew, war_machine_fight)

    rules = load_ruleset("wfb8")
    unit, cannon = load_unit("wfb8/empire_halberdiers"), load_unit("wfb8/empire_great_cannon")
    f = Fight(unit, cannon, rules, 5, 5, unit.formation.standard, unit.formation.musician)
    dealt = chain_exact(_spec_unit_on_crew(f), 5 * unit.stats.a, rules).wounds
    taken = chain_exact(_spec_crew_on_unit(f), 3, rules).wounds
    want = float(dealt[3:].sum())
    bonus = rules.standard_bonus if f.standard else 0
    for d in range(3):
        for t in range(len(taken)):
            score_u = d + bonus + (1 if f.musician and d + bonus == t else 0)
            if score_u > t:
                want += dealt[d] * taken[t] * (1 - float(break_test(cannon.stats.ld, score_u - t,
                                                                    rules)))
    report = war_machine_fight(unit, cannon, rules, models=5, rank_width=5, rounds=1,
                               method="exact")
    assert report.results["p_machine_destroyed"].value == pytest.approx(want, abs=1e-12)


def test_war_machine_combat_monte_carlo_agrees_with_exact():
    out = run_json("fb", "combat", "wfb8/orc_boyz", "wfb8/empire_great_cannon", "--rounds", "3",
                   "--models-a", "8", "--check", "--n-trials", "20000", "--seed", "2")
    rows = out["info"]["check"]
    assert "p_machine_destroyed" in rows and "unit_models_left (distribution)" in rows
    assert all(abs(row["z"]) <= 5 for row in rows.values())
    assert out["distributions"]["unit_models_left"]["mean"] <= 8  # --models-a 8 was used


def test_a_war_machine_with_company_is_one_line():
    code, out, err = cli_result("fb", "combat", "wfb8/empire_great_cannon", "wfb8/empire_halberdiers")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "FB-WM1" in err


def test_target_flags_and_raw_stats_do_not_mix():
    code, _, err = cli_result("fb", "attack", "--attacks", "6", "--ws", "4", "--strength", "4",
                              "--target", "wfb8/empire_great_cannon", "--toughness", "3")
    assert code == 2 and "--toughness" in err
    code, _, err = cli_result("fb", "attack", "--attacks", "6", "--ws", "4", "--strength", "4")
    assert code == 2 and "--target-ws" in err


def test_a_war_machine_needs_its_machine_table():
    from mathhammer.fantasy.models import load_unit, validate_unit

    data = load_unit("wfb8/empire_great_cannon").model_dump(exclude_none=True)
    data.pop("machine")
    with pytest.raises(ProfileError, match="war machine"):
        validate_unit(data, "cannon.toml")


def _binomial(n: int, p: Fraction) -> list[Fraction]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def _ld_pass(target: int) -> Fraction:
    """FB-T2 in wfb8: 2D6 <= target, a double 1 always passes."""
    return Fraction(sum(a + b <= target or a == b == 1 for a in range(1, 7) for b in range(1, 7)), 36)


@pytest.mark.parametrize("width", [4, 5])
def test_crew_striking_first_slays_members_of_the_assault_party(width):
    """Issue 28 item 3, FB-C3 and FB-WM1 by hand in fractions, one round. 8 models (WS3 S3 T3
    I1 A1 Ld7, no save, no command) charge the Great Cannon's 3 crew (WS3 S3 T3 I3 A1 Ld7):
    the crew strike first (I3 > I1; wfb8 chargers do not strike first), 3 attacks at 1/4
    each (4+ to hit, 4+ to wound). Six of the eight fight; each slain one strikes no more,
    so 6 - t attacks at 1/4 come back. The machine has no ranks: width 5 is one rank of
    five models and Steadfast (unmodified Ld 7); width 4 has no rank, so Ld 7 - difference."""
    from mathhammer.fantasy.models import load_unit, validate_unit
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.fantasy.combat.war_machine import war_machine_fight

    unit = validate_unit({
        "id": "test/slow", "name": "Slow", "ruleset": "wfb8", "base": "20mm",
        "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": 3, "w": 1, "i": 1, "a": 1, "ld": 7},
        "formation": {"models": 8, "rank_width": width}, "points": {"per_model": 5}}, "test unit")
    cannon = load_unit("wfb8/empire_great_cannon")
    quarter = Fraction(1, 4)
    destroyed = broken = Fraction(0)
    for t, pt in enumerate(_binomial(3, quarter)):
        for d, pd in enumerate(_binomial(6 - t, quarter)):  # the survivors of the six strike
            p = pt * pd
            if d >= 3:
                destroyed += p
            elif d > t:
                destroyed += p * (1 - _ld_pass(7 - (d - t)))
            elif t > d:
                broken += p * (1 - _ld_pass(7 if width == 5 else 7 - (t - d)))
    report = war_machine_fight(unit, cannon, load_ruleset("wfb8"), rounds=1, method="exact")
    assert report.results["p_machine_destroyed"].value == pytest.approx(float(destroyed), abs=1e-12)
    assert report.results["p_unit_broken"].value == pytest.approx(float(broken), abs=1e-12)


SLOW_UNIT = """schema_version = 1
game = "fantasy"
id = "test/slow"
name = "Slow"
ruleset = "wfb8"
base = "20mm"
[stats]
m = 4
ws = 3
bs = 3
s = 3
t = 3
w = 1
i = 1
a = 1
ld = 7
[formation]
models = 8
rank_width = 4
[points]
per_model = 5
"""


def test_war_machine_explain_fractions_give_the_results(tmp_path):
    """Issue 28 item 7: `fb combat UNIT WAR_MACHINE --explain` explains the fight the engine
    plays: its per-attack fractions, assault party, strike order and break-test fractions,
    put together by hand for one round, give the engine's p_machine_destroyed and
    p_unit_broken (the crew strike first here, so slain members of the party drop out)."""
    import re

    path = tmp_path / "slow.toml"
    path.write_text(SLOW_UNIT)
    out = run_json("fb", "combat", str(path), "wfb8/empire_great_cannon", "--rounds", "1",
                   "--explain")
    lines = out["info"]["explain"]
    text = "\n".join(lines)
    per_attack = [Fraction(m) for m in re.findall(r"per attack: P\(unsaved wound\) → (\S+) =", text)]
    p_unit, p_crew = per_attack  # the unit's attacks on the crew, then the crew's
    party = int(re.search(r"assault party: (\d+) of 8 Slow fight", text).group(1))
    assert "the crew strike first" in text

    def passes(prefix):
        line = next(x for x in lines if x.strip().startswith(prefix))
        return {int(k): Fraction(v) for k, v in re.findall(r"lost by (\d): (\d+/\d+|\d)", line)}
    machine_pass, unit_pass = passes("machine if it loses"), passes("Slow if it loses")
    destroyed = broken = Fraction(0)
    for t, pt in enumerate(_binomial(3, p_crew)):
        for d, pd in enumerate(_binomial(party - t, p_unit)):
            if d >= 3:
                destroyed += pt * pd
            elif d > t:
                destroyed += pt * pd * (1 - machine_pass[d - t])
            elif t > d:
                broken += pt * pd * (1 - unit_pass[t - d])
    assert out["results"]["p_machine_destroyed"]["value"] == pytest.approx(float(destroyed), abs=1e-12)
    assert out["results"]["p_unit_broken"]["value"] == pytest.approx(float(broken), abs=1e-12)


@pytest.mark.parametrize("extra, flag", [(["--charger", "b"], "side B"), (["--bonus-a", "2"], "--bonus"),
                                         (["--flank", "a"], "--flank"), (["--target-a", "Bob"], "--target")])
def test_what_a_war_machine_fight_cannot_play_is_one_line(extra, flag):
    code, out, err = cli_result("fb", "combat", "wfb8/orc_boyz", "wfb8/empire_great_cannon", *extra)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and flag in err


def test_stubborn_and_unbreakable_units_against_a_war_machine():
    """FB-C5 against a machine: an Unbreakable unit is never broken; a Stubborn one tests
    unmodified Ld (they were once played as plain units)."""
    from mathhammer.fantasy.models import load_unit, validate_unit
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.fantasy.combat.war_machine import war_machine_fight

    data = load_unit("wfb8/empire_great_cannon").model_dump(exclude_none=True)
    data["stats"]["a"] = 4  # a deadly crew, so the unit often loses
    cannon = validate_unit(data, "cannon.toml")
    base = {"id": "test/slow", "name": "Slow", "ruleset": "wfb8", "base": "20mm",
            "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": 3, "w": 1, "i": 1, "a": 1, "ld": 7},
            "formation": {"models": 8, "rank_width": 4}, "points": {"per_model": 5}}
    rules = load_ruleset("wfb8")

    def fight(**extra):
        return war_machine_fight(validate_unit({**base, **extra}, "unit"), cannon, rules,
                                 rounds=1, method="exact")

    def broken(**extra):  # broken or destroyed
        return fight(**extra).results["p_unit_broken"].value
    unbreakable = fight(special_rules=["Unbreakable"])  # only destroyed, never broken
    wiped_out = unbreakable.distributions["unit_models_left"].pmf.get(0, 0.0)
    assert unbreakable.results["p_unit_broken"].value == pytest.approx(wiped_out, abs=1e-12)
    # Stubborn keeps unmodified Ld whatever is left; Steadfast only while a rank of five is
    stubborn = broken(special_rules=["Stubborn"])
    steadfast = broken(formation={"models": 8, "rank_width": 5})
    assert wiped_out < stubborn < steadfast < broken()


def test_an_unstable_unit_loses_wounds_against_a_war_machine():
    """FB-C5 (wfb8 unstable = "lose_wounds") against the machine, by hand: the 8 slow models
    (crew first, 1/4 a blow both ways) lose t models to the crew and, losing the round by
    t - d, that many more instead of a test."""
    from mathhammer.fantasy.models import load_unit, validate_unit
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.fantasy.combat.war_machine import war_machine_fight

    unit = validate_unit({
        "id": "test/slow", "name": "Slow", "ruleset": "wfb8", "base": "20mm",
        "special_rules": ["Unstable"],
        "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": 3, "w": 1, "i": 1, "a": 1, "ld": 7},
        "formation": {"models": 8, "rank_width": 4}, "points": {"per_model": 5}}, "test unit")
    report = war_machine_fight(unit, load_unit("wfb8/empire_great_cannon"), load_ruleset("wfb8"),
                               rounds=1, method="exact")
    left: dict[int, Fraction] = {}
    quarter = Fraction(1, 4)
    for t, pt in enumerate(_binomial(3, quarter)):
        for d, pd in enumerate(_binomial(6 - t, quarter)):
            n = 8 - t - (t - d if t > d and d < 3 else 0)
            left[n] = left.get(n, Fraction(0)) + pt * pd
    got = report.distributions["unit_models_left"].pmf
    assert set(got) == set(left)
    for n, p in left.items():
        assert got[n] == pytest.approx(float(p), abs=1e-12)
    assert report.results["p_unit_broken"].value == 0  # never tests, never wiped out here
