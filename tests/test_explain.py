"""``--explain`` for dice and Warmachine attacks, and the shared plumbing.

The fractions an explanation shows are checked against the engines' own answers
and against brute-force enumeration of the dice, so the working printed for a
user cannot drift from the numbers the tool reports.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from mathhammer.dice import parse_dice
from mathhammer.explain import DECISIONS, Step, attach, explanation, fraction_text
from mathhammer.results import Report
from mathhammer.roll import explain_roll, roll
from mathhammer.warmachine import rules
from mathhammer.warmachine.chain import AttackSetup, attack, build_chain
from mathhammer.warmachine.explain import (damage_fractions, damage_roll_fractions, hit_fractions,
                                           mean_damage, roll_fractions)
from tests.conftest import run_cli

SETUPS = [
    dict(stat=6, defense=13, power=12, armor=18, kind="ranged", boost_hit=True, boost_damage=True),
    dict(stat=7, defense=12, power=19, armor=18, attacks=3, charge=True, powerful_charge=True),
    dict(stat=6, defense=13, power=12, armor=18, knocked_down=True, shield=True, back_strike=True,
         camped_focus=2),
    dict(stat=4, defense=15, power=10, armor=14, kind="magic", cover=True, target_in_melee=True,
         def_bonus=3, arm_bonus=3),
    dict(stat=5, defense=14, power=14, armor=16, crippled=True, free_strike=True),
    dict(stat=6, defense=13, power=12, armor=18, kind="ranged", stealth_range=8.0),
    dict(stat=8, defense=20, power=16, armor=20, extra_hit_dice=1, extra_damage_dice=2,
         attacks=4, aim=False, movement_crippled=True),
]


@pytest.mark.parametrize("flags", SETUPS)
def test_wm_explanation_matches_the_exact_report(flags):
    report = attack(method="exact", explain=True, **flags)
    specs = build_chain(AttackSetup(**flags))
    p_hit, p_crit = hit_fractions(specs[0])
    assert float(p_hit) == pytest.approx(report.results["p_hit"].value, abs=1e-15)
    assert float(p_crit) == pytest.approx(report.results["p_critical"].value, abs=1e-15)
    assert float(mean_damage(specs)) == pytest.approx(report.results["mean_damage"].value,
                                                       rel=1e-12, abs=1e-12)
    lines = report.info["explain"]
    assert any(line.startswith("target: ") for line in lines)
    assert fraction_text(p_hit) in "\n".join(lines)
    assert "rules followed: WM-A1" in "\n".join(lines)


@pytest.mark.parametrize("k, bonus, defense, auto", [(2, 6, 13, False), (3, 6, 13, False),
                                                      (1, 4, 9, False), (2, 0, 30, False),
                                                      (3, 2, 14, True), (4, 5, 19, False)])
def test_hit_fractions_by_brute_force(k, bonus, defense, auto):
    """Every face combination through the one-roll rule (WM-A1..A5)."""
    hits = crits = 0
    for faces in itertools.product(range(1, 7), repeat=k):
        hit, crit = rules.attack_roll_outcome(faces, bonus, defense, auto)
        hits += hit
        crits += crit
    spec = build_chain(AttackSetup(stat=bonus, defense=defense, power=10, armor=10))[0]
    from dataclasses import replace

    spec = replace(spec, hit_dice=k, auto_hit=auto)
    assert hit_fractions(spec) == (Fraction(hits, 6**k), Fraction(crits, 6**k))


@pytest.mark.parametrize("k, power, armor", [(2, 12, 18), (3, 19, 18), (1, 10, 20), (2, 5, 30)])
def test_damage_fractions_by_brute_force(k, power, armor):
    dealt = [rules.damage_dealt(f, power, armor) for f in itertools.product(range(1, 7), repeat=k)]
    spec = build_chain(AttackSetup(stat=5, defense=10, power=power, armor=armor))[0]
    from dataclasses import replace

    spec = replace(spec, damage_dice=k)
    assert damage_fractions(spec) == (Fraction(sum(d > 0 for d in dealt), 6**k),
                                      Fraction(sum(dealt), 6**k))


def test_wm_explanation_names_what_moved_the_numbers():
    lines = "\n".join(attack(7, 12, 19, 18, attacks=3, charge=True, powerful_charge=True,
                             method="exact", explain=True).info["explain"])
    assert "attack 1 (charge)" in lines and "attacks 2..3" in lines
    assert "powerful charge +2" in lines and "pre-boosted +1" in lines and "WM-D3" in lines
    stealth = "\n".join(attack(6, 13, 12, 18, kind="ranged", stealth_range=8.0,
                               explain=True).info["explain"])
    assert "miss automatically" in stealth and "[WM-A8]" in stealth
    cover = "\n".join(attack(6, 13, 12, 18, kind="ranged", cover=True, explain=True).info["explain"])
    assert "cover +4" in cover and "effective DEF 17" in cover


def test_roll_explanation_fractions_are_the_exact_answer():
    report = roll("3D6kh2+1", at_least=10, at_most=5, method="exact", explain=True)
    text = "\n".join(report.info["explain"])
    assert "mean 227/24" in text and "216 equally likely rolls" in text
    p = Fraction(report.results["p_at_least"].value).limit_denominator(216)
    assert fraction_text(p) in text
    assert "D3 is a D6" not in text

    def lines(text: str) -> str:
        return "\n".join(step.line() for step in explain_roll(parse_dice(text)))

    assert "D3 is a D6" in lines("D3+1") and "D3 is a D6" not in lines("D30")
    assert "too large to enumerate" in lines("30D1000")


def test_explanation_lists_rules_and_only_the_decisions_in_play():
    plain = explanation("fantasy.attack", [Step("to wound", "4+", Fraction(1, 2), ("FB-W1",))])
    assert not any(line.startswith("decision FB-W1") for line in plain)  # wfb8: its own chart
    t9a1 = explanation("fantasy.attack", [], decisions=("FB-W1",))
    assert f"decision FB-W1: {DECISIONS['FB-W1']}" in t9a1
    aoe = explanation("warmachine.aoe")
    assert any(line.startswith("decision WM-D4") for line in aoe)
    report = attach(Report("roll", "exact"), [Step("a", "b", Fraction(1, 3))])
    assert report.info["explain"][0] == "a: b → 1/3 = 33.33%"


def test_cli_explain_in_json_and_table_and_absent_without_the_flag():
    args = ["wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
            "--boost-hit", "--format", "json"]
    plain = run_cli(*args)
    explained = run_cli(*args, "--explain")
    assert plain.returncode == explained.returncode == 0
    without, with_ = json.loads(plain.stdout), json.loads(explained.stdout)
    assert "explain" not in without.get("info", {})
    assert with_["results"] == without["results"]  # explaining changes no number
    assert any("P(hit) → 49/54" in line for line in with_["info"]["explain"])
    table = run_cli("roll", "2D6", "--at-least", "10", "--explain")
    assert "explain:\n  expression: 2D6 is read as 2D6" in table.stdout
    assert "P(total ≥ 10): rolls reaching it / all rolls → 1/6 = 16.67%" in table.stdout
    generic = run_cli("wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power",
                      "14", "--range", "8", "--explain")
    assert "rules followed: WM-A1" in generic.stdout and "decision WM-D4" in generic.stdout


AOE_CASES = [
    dict(stat=5, defense=13, armor=14, power=14, range=8.0),
    dict(stat=6, defense=12, armor=16, power=15, range=12.0, aoe=4.0, boost_hit=True,
         boost_blast=True, models=("a,1.5,0,small", "b,-2,1,medium,arm=12", "c,3,3,large,def=14")),
    dict(stat=5, defense=13, armor=14, power=14, range=11.0, rng=10.0, models=("a,2,0,small",)),
    dict(stat=4, defense=14, armor=15, power=12, range=6.0, spray=8.0, boost_damage=True,
         models=("a,2,0.5,small,def=12", "far,9,0")),
]


@pytest.mark.parametrize("case", AOE_CASES)
def test_aoe_explanation_matches_the_exact_report(case):
    from mathhammer.warmachine.aoe import AoeSetup, aoe, parse_model

    flags = dict(case)
    models = tuple(parse_model(text) for text in flags.pop("models", ()))
    setup = AoeSetup(models=models, **flags)
    report = aoe(setup, method="exact", explain=True)
    from mathhammer.warmachine.explain import explain_aoe

    steps = {s.stage: s for s in explain_aoe(setup)}
    for name in ["target"] + [m.name for m in models]:
        step = steps[name]
        assert float(step.p) == pytest.approx(report.results[f"p_damage_roll_{name}"].value, abs=1e-12)
        mean = report.results[f"mean_damage_{name}"].value
        shown = Fraction(mean).limit_denominator(10**6)
        text = step.detail + (steps[f"{name} damage"].detail if f"{name} damage" in steps else "")
        if mean > 0:
            assert f"expected damage {shown.numerator}/{shown.denominator}" in text or \
                f"expected {shown.numerator}/{shown.denominator}" in text or \
                (shown.denominator == 1 and f"expected {shown.numerator}" in text)
    lines = report.info["explain"]
    assert any(line.startswith("decision WM-D4") for line in lines)


def test_explain_with_csv_goes_to_stderr():
    proc = run_cli("roll", "2D6", "--at-least", "10", "--format", "csv", "--explain")
    plain = run_cli("roll", "2D6", "--at-least", "10", "--format", "csv")
    assert proc.returncode == 0 and proc.stdout == plain.stdout  # the data alone on stdout
    assert proc.stderr.startswith("explain:\n  expression: 2D6 is read as 2D6")
    assert "1/6 = 16.67%" in proc.stderr


def test_duel_explanation_is_the_policy_option_tables():
    """Each distinct attack option once, with the exact fractions behind the engine's floats."""
    from mathhammer.warmachine.activation import build_graph
    from mathhammer.warmachine.duel import activation_from_profile, duel, target_from_profile
    from mathhammer.warmachine.explain import explain_duel
    from mathhammer.warmachine.policy import OptionTables

    spec = activation_from_profile("khador/juggernaut", 3, True, target_base="large")
    target = target_from_profile("cygnar/ironclad")
    graph = build_graph([spec])
    opts = OptionTables.build(graph, target)
    steps = explain_duel(graph, target, opts, "optimal")
    option_steps = [s for s in steps[1:] if s.stage not in ("policy", "decision")]
    names = [s.stage for s in option_steps]
    assert len(option_steps) == len({repr(o) for o in graph.options})  # no option twice
    axe = next(o for o in graph.options if o.name == "Ice Axe")
    p_hit, p_crit = roll_fractions(2, axe.stat, target.defense)
    assert float(p_hit) == pytest.approx(opts.p_hit[graph.options.index(axe), 0, 0, 0, 0, 0], abs=1e-15)
    line = option_steps[names.index("Ice Axe")].detail
    assert f"P(hit) {p_hit.numerator}/{p_hit.denominator}" in line
    assert f"P(critical) {p_crit.numerator}/{p_crit.denominator}" in line
    _, mean = damage_roll_fractions(2, axe.power, target.armor)
    assert f"mean damage per hit {mean}" in line
    from mathhammer.engine import MonteCarloConfig

    report = duel("khador/juggernaut", "cygnar/ironclad", focus=3, charge=True, explain=True,
                  config=MonteCarloConfig(n_trials=2000, seed=1))
    assert report.info["explain"][0].startswith("target: Ironclad: base DEF 12, ARM 18; as the "
                                                "chain starts DEF 12 vs melee")
