"""``--explain`` for the Fantasy commands (mathhammer.fantasy.explain, cli/fb.py, cli/fb_combat.py).

The explanation must not drift from the answer: for every spec below the product of
the four stage fractions (hit, wound, armour, ward) equals the exact engine's
P(unsaved wound) per attack from ``single_attack_fractions`` (FB-H1..FB-V3), and the
needed scores printed are the Ruleset's own lookups, chart cell by chart cell.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathhammer.explain import explanation
from mathhammer.fantasy import characteristic_tests as fb_tests
from mathhammer.fantasy.chain.core import AttackSpec, single_attack_fractions
from mathhammer.fantasy.combat.explain import combat_decisions, explain_combat, fight_from_options
from mathhammer.fantasy.explain import (chain_decisions, explain_attack, explain_break_test,
                                        explain_pursuit, explain_test, shooting_modifier_parts)
from mathhammer.fantasy.rules.ruleset import load_ruleset
from tests.conftest import cli_inprocess, run_json

STAGES = ("to hit", "to wound", "armour", "ward/regeneration")

SPECS = {
    "melee": (AttackSpec(ws=4, target_ws=3, strength=4, toughness=4, save=5), "wfb8"),
    "shoot 6+": (AttackSpec(bs=3, shooting_modifier=-2, strength=4, toughness=3, save=4), "wfb8"),
    "shoot 7+": (AttackSpec(bs=3, shooting_modifier=-3, strength=4, toughness=4, save=5), "wfb8"),
    "shoot 8+ rr": (AttackSpec(bs=2, shooting_modifier=-3, strength=3, toughness=3,
                               reroll_hits="failed"), "wfb8"),
    "shoot 10+": (AttackSpec(bs=1, shooting_modifier=-5, strength=3, toughness=3), "wfb8"),
    "shoot 7+ poison": (AttackSpec(bs=3, shooting_modifier=-3, strength=3, toughness=3,
                                   poison=True), "wfb8"),
    "poison melee": (AttackSpec(ws=4, target_ws=4, strength=3, toughness=5, save=5,
                                poison=True, reroll_hits="ones"), "wfb8"),
    "killing blow wfb8": (AttackSpec(ws=5, target_ws=4, strength=4, toughness=4, save=3, ward=5,
                                     killing_blow=True, target_wounds=3), "wfb8"),
    "kb immune troop": (AttackSpec(ws=5, target_ws=4, strength=4, toughness=4, save=3,
                                   killing_blow=True, killing_blow_applies=False), "wfb8"),
    "lethal strike t9a1": (AttackSpec(ws=4, target_ws=4, strength=4, toughness=4, save=4,
                                      regeneration=4, ward=6, killing_blow=True), "t9a1"),
    "ward vs regen flaming": (AttackSpec(ws=4, target_ws=4, strength=5, toughness=4, save=4,
                                         ward=5, regeneration=4, flaming=True), "wfb8"),
    "regeneration taken": (AttackSpec(ws=4, target_ws=4, strength=5, toughness=4, ward=6,
                                      regeneration=4), "wfb8"),
    "multiple wounds D3": (AttackSpec(ws=3, target_ws=3, strength=6, toughness=5, save=4,
                                      multiple_wounds="D3", target_wounds=2), "wfb8"),
    "all re-rolls": (AttackSpec(ws=4, target_ws=3, strength=3, toughness=4, save=4, ward=5,
                                reroll_hits="successes", reroll_wounds="failed",
                                reroll_armour="failed", reroll_ward_save="ones"), "basic"),
    "hatred": (AttackSpec(ws=4, target_ws=4, strength=3, toughness=3, hatred=True), "t9a1"),
    "asf wfb8": (AttackSpec(ws=5, target_ws=4, strength=3, toughness=3, always_strikes_first=True,
                            initiative=6, target_initiative=4), "wfb8"),
    "cannot wound": (AttackSpec(ws=4, target_ws=4, strength=2, toughness=6, save=4), "wfb8"),
    "fixed hit_on": (AttackSpec(hit_on=5, strength=4, toughness=4, save=6), "t9a1"),
    "auto hit ap": (AttackSpec(auto_hit=True, strength=4, toughness=3, save=3,
                               armour_piercing=1), "wfb8"),
}


def _by_stage(steps):
    return {s.stage: s for s in steps}


@pytest.mark.parametrize("name", SPECS)
def test_stage_product_is_the_engines_answer(name):
    spec, rules = SPECS[name]
    steps = explain_attack(spec, rules, attacks=10)
    pmf, slain = single_attack_fractions(spec, rules)
    p_through = 1 - pmf[0]  # an unsaved wound or a Killing Blow slay (pmf[0]: nothing)
    stages = _by_stage(steps)
    assert [s.stage for s in steps[:4]] == list(STAGES)
    product = Fraction(1)
    for stage in STAGES:
        p = stages[stage].p
        if p is None:  # only after a stage nothing passes
            assert product == 0, stage
            break
        assert 0 <= p <= 1
        product *= p
    assert product == p_through
    per_attack = [s for s in steps if s.stage == "per attack"]
    assert per_attack[0].p == p_through
    kb_slay = [s for s in per_attack if "slain outright" in s.detail]
    assert (kb_slay[0].p if kb_slay else Fraction(0)) == slain


def test_mean_over_attacks_matches_the_exact_report():
    from mathhammer.fantasy.chain.query import chain_report

    spec, rules = SPECS["multiple wounds D3"]
    steps = explain_attack(spec, rules, attacks="2D6")
    report = chain_report(spec, "2D6", rules)
    mean = next(s for s in steps if s.stage == "mean over the attacks")
    assert f"({report.results['mean_unsaved_wounds'].value:.4f})" in mean.detail


@pytest.mark.parametrize("ruleset", ["basic", "wfb8", "t9a1"])
def test_needed_scores_are_the_ruleset_lookups(ruleset):
    """FB-H1 / FB-W1 / FB-V1 cell by cell: the text shows what the Ruleset returns."""
    rules = load_ruleset(ruleset)
    for a in range(1, 11):
        for b in range(1, 11):
            spec = AttackSpec(ws=a, target_ws=b, strength=a, toughness=b, save=4)
            st = _by_stage(explain_attack(spec, rules))
            hit = rules.to_hit_melee(a, b)
            assert f"WS {a} vs WS {b} → {hit}+ (WS chart)" in st["to hit"].detail
            wound = rules.to_wound(a, b)
            assert (f"S {a} vs T {b} → " + (f"{wound}+" if wound else "cannot wound")
                    in st["to wound"].detail)
            armour = rules.armour_needed(4, a)
            assert st["armour"].detail.split(";")[0].endswith(f"{armour}+" if armour else "no save")
    for bs in range(1, 11):
        for mod in (-4, -2, 0, 1):
            shot = rules.to_hit_shooting(bs, mod)
            spec = AttackSpec(bs=bs, shooting_modifier=mod, strength=3, toughness=3)
            text = explain_attack(spec, rules)[0].detail
            assert f"{rules.charts.shooting_base} − BS {bs}" in text
            assert f"= {shot.nominal}+" in text
            if shot.hopeless:
                assert f"a 6, then {shot.second}+ on a second D6" in text
            assert ("cannot hit" in text) == (not shot.possible)


def test_shooting_modifier_parts_name_each_modifier_and_sum_to_the_total():
    from mathhammer.fantasy.chain.query import shooting_modifier

    for ruleset in ("basic", "wfb8"):
        parts = shooting_modifier_parts(ruleset, -1, long_range=True, cover="hard",
                                        large_target=True)
        total = shooting_modifier(ruleset, -1, long_range=True, cover="hard", large_target=True)
        assert sum(v for _, v in parts) == total
        labels = [label for label, _ in parts]
        assert labels == ["long range", "large target", "hard cover", "other"]


def test_special_rules_are_named():
    st = _by_stage(explain_attack(*SPECS["ward vs regen flaming"]))
    assert "regeneration 4+ (lost: flaming) → takes ward 5+" in st["ward/regeneration"].detail
    st = _by_stage(explain_attack(*SPECS["regeneration taken"]))
    assert "→ takes regeneration 4+" in st["ward/regeneration"].detail
    st = _by_stage(explain_attack(*SPECS["lethal strike t9a1"]))
    assert "Lethal Strike" in st["to wound"].detail
    assert "on natural-6 wounds no regeneration → ward 6+" in st["ward/regeneration"].detail
    st = _by_stage(explain_attack(*SPECS["killing blow wfb8"]))
    assert "Killing Blow 6s: no save" in st["armour"].detail
    assert "no effect on this troop type" in _by_stage(
        explain_attack(*SPECS["kb immune troop"]))["to wound"].detail
    assert "re-roll failed rolls (Hatred)" in explain_attack(*SPECS["hatred"])[0].detail
    assert "Always Strikes First" in explain_attack(*SPECS["asf wfb8"])[0].detail
    assert "poison" in explain_attack(*SPECS["poison melee"])[0].detail
    assert "poison does not apply" in explain_attack(*SPECS["shoot 7+ poison"])[0].detail
    mw = _by_stage(explain_attack(*SPECS["multiple wounds D3"]))["multiple wounds"].detail
    assert "capped at W 2: P(k wounds) 1: 1/3, 2: 2/3 (mean 5/3)" in mw


def test_t9a1_chart_decision_only_under_t9a1():
    spec = SPECS["melee"][0]
    for ruleset in ("basic", "wfb8", "t9a1"):
        lines = explanation("fb attack", explain_attack(spec, ruleset), chain_decisions(ruleset))
        assert any(line.startswith("decision FB-W1") for line in lines) == (ruleset == "t9a1")


def test_break_test_test_and_pursuit_fractions_are_the_library_ones():
    for ld, lost, kw in ((8, 3, {}), (7, 2, {"reroll": True}), (8, 5, {"steadfast": True}),
                         (6, 9, {}), (5, 1, {"unbreakable": True}), (9, 4, {"stubborn": True})):
        steps = explain_break_test(ld, lost, "wfb8", **kw)
        assert steps[-1].p == fb_tests.break_test(ld, lost, "wfb8", **kw)
        if not kw:
            assert f"Ld {ld} − lost by {lost} = {ld - lost}" in steps[0].detail
    assert "Insane Courage" in explain_break_test(8, 7, "wfb8")[1].detail
    assert "Insane Courage" not in explain_break_test(8, 7, "basic")[1].detail
    steps = explain_test(value=3, reroll=True)
    assert steps[0].p == fb_tests.characteristic_test(3) and steps[-1].p == Fraction(3, 4)
    assert explain_test(ld=7, rules="t9a1")[0].p == fb_tests.leadership_test(7, "t9a1")
    assert explain_test(magic_resistance_value=2, rules="basic")[0].p == Fraction(1, 2)
    steps = explain_pursuit("2D6", "3D6kh2")
    assert steps[-1].p == fb_tests.pursuit("2D6", "3D6kh2")
    assert "Swiftstride" in steps[1].detail and "Swiftstride" not in steps[0].detail


@pytest.mark.parametrize("a, b, charger, ruleset", [
    ("wfb8/empire_halberdiers", "wfb8/orc_boyz", "a", None),
    ("wfb8/knights_of_the_realm", "wfb8/skeleton_warriors", "a", None),
    ("wfb8/high_elf_prince_star_dragon", "wfb8/dwarf_warriors", None, None),
    ("t9a1/koe_knights_of_the_realm", "t9a1/vc_skeletons", "a", None),
])
def test_combat_first_strike_chain_is_the_engines_group(a, b, charger, ruleset):
    """Each group's "per attack" line is the engine's own per-attack table (FB-C1)."""
    from mathhammer.fantasy.combat.arrays import build_tables

    c = fight_from_options(a, b, charger=charger, ruleset=ruleset)
    tables = build_tables(c)
    steps = explain_combat(c)
    heads = [i for i, x in enumerate(steps) if x.stage.startswith(("A ", "B "))]
    assert heads
    checked = 0
    for j, g in enumerate(c.groups):
        v = 0 if c.units[g.unit].charged else 1
        head = next((i for i in heads if steps[i].stage == f"{c.labels[g.unit]} {g.name}"), None)
        if head is None or g.attacker.auto:
            continue
        per_attack = next(x for x in steps[head + 1:] if x.stage.strip() == "per attack")
        pmf, slay = tables.per_attack[j, g.pref[0][0], v]
        assert float(per_attack.p) == pytest.approx(1 - pmf[0], abs=1e-12)
        checked += 1
    assert checked >= 2
    assert steps[0].stage == "strike order, round 1"
    assert any("combat result" in x.stage for x in steps)


def test_combat_unstable_decision_only_for_wfb8():
    wfb8 = fight_from_options("wfb8/skeleton_warriors", "wfb8/orc_boyz")
    assert "FB-C5" in combat_decisions(wfb8)
    assert any("loses wounds equal to the difference" in s.detail for s in explain_combat(wfb8))
    assert combat_decisions(fight_from_options("wfb8/empire_halberdiers", "wfb8/orc_boyz")) == ()
    t9a1 = fight_from_options("t9a1/vc_skeletons", "t9a1/og_orcs")
    assert combat_decisions(t9a1) == ("FB-W1",)


# ---- the CLI --------------------------------------------------------------------------------
COMMANDS = [
    ("fb", "attack", "--attacks", "10", "--ws", "4", "--target-ws", "3", "--strength", "4",
     "--toughness", "4", "--save", "5"),
    ("fb", "shoot", "--shots", "10", "--bs", "3", "--long-range", "--cover", "soft",
     "--strength", "4", "--toughness", "4", "--ruleset", "t9a1"),
    ("fb", "break-test", "--ld", "8", "--lost-by", "3", "--reroll"),
    ("fb", "test", "--value", "4"),
    ("fb", "pursuit", "--pursue", "3D6kh2"),
    ("fb", "combat", "wfb8/skeleton_warriors", "wfb8/orc_boyz", "--rounds", "1"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[1])
def test_cli_explain_json_and_nothing_changes_without_it(args):
    plain = run_json(*args)
    explained = run_json(*args, "--explain")
    lines = explained["info"].pop("explain")
    assert "explain" not in plain["info"]
    assert explained == plain  # --explain only adds info.explain
    assert any(" → " in line for line in lines)  # at least one stage with its fraction
    assert any(line.startswith("rules followed:") for line in lines)


def test_cli_explain_table_block_and_decisions():
    proc = cli_inprocess(*COMMANDS[1], "--explain")
    assert proc.returncode == 0, proc.stderr
    assert "explain:" in proc.stdout
    assert "7 − BS 3 − (long range −1) − (soft cover −1) = 6+" in proc.stdout
    assert "decision FB-W1" in proc.stdout
    proc = cli_inprocess(*COMMANDS[0])
    assert "explain:" not in proc.stdout
    proc = cli_inprocess(*COMMANDS[0], "--explain")
    assert "WS 4 vs WS 3 → 3+ (WS chart) → 2/3" in proc.stdout
    assert "decision FB-W1" not in proc.stdout
    proc = cli_inprocess(*COMMANDS[5], "--explain")
    assert "decision FB-C5" in proc.stdout and "A Skeleton Warriors: " in proc.stdout


@pytest.mark.parametrize("weapon, target, ruleset", [
    ("stone-thrower", "wfb8/orc_boyz", None),
    ("stone-thrower", "wfb8/skeleton_warriors", "basic"),
    ("cannon", "wfb8/orc_boyz", None),
    ("bolt-thrower", "wfb8/empire_halberdiers", None),
    ("flame-cannon", "wfb8/orc_boyz", None),
    ("multi-barrel", "t9a1/og_orcs", None),
])
def test_artillery_explanation_matches_the_engine(weapon, target, ruleset):
    """The dice odds shown are the exact report's; each hit chain is the engine's own spec."""
    from mathhammer.engine import MonteCarloConfig
    from mathhammer.fantasy.artillery import query as art
    from mathhammer.fantasy.artillery.explain import explain_artillery
    from mathhammer.fantasy.artillery.shot import hit_spec
    from mathhammer.fantasy.chain.core import single_attack_fractions

    report = art.artillery(weapon, target, ruleset=ruleset, method="auto", check=False,
                           config=MonteCarloConfig(n_trials=2000, seed=1))
    setup = art.compile_shot(weapon, target, ruleset=ruleset)
    steps = explain_artillery(setup)
    by = {s.stage: s for s in steps}
    if "misfire" in by:
        assert by["misfire"].p == pytest.approx(report.results["p_misfire"].value, abs=1e-15) or (
            report.method == "mc" and abs(report.results["p_misfire"].value - float(by["misfire"].p))
            <= 5 * (1 / 6 * 5 / 6 / 2000) ** 0.5)
    if weapon == "stone-thrower":
        assert by["scatter"].p == Fraction(5, 6) * Fraction(setup.rules.scatter_hit_faces, 6)
    if weapon == "bolt-thrower":
        assert float(by["to hit"].p) == pytest.approx(report.results["p_direct_hit"].value,
                                                      abs=1e-15)
    prof, unit = setup.profile, setup.unit
    strength = prof.strength if weapon in ("bolt-thrower", "flame-cannon", "multi-barrel") \
        else prof.big_strength
    spec = hit_spec(unit.toughness, unit.wounds, unit.saves.armour, unit.saves.ward,
                    unit.saves.regeneration, strength, prof.multiple_wounds,
                    prof.armour_piercing, weapon != "bolt-thrower", prof.flaming)
    pmf, _ = single_attack_fractions(spec, setup.rules)
    per_hit = [s for s in steps if s.stage.startswith(f"S{strength} ")
               and s.stage.endswith("per attack")][0]
    assert per_hit.p == 1 - pmf[0]


def test_artillery_explain_on_the_cli():
    out = run_json("fb", "artillery", "stone-thrower", "wfb8/orc_boyz", "--n-trials", "2000",
                   "--seed", "1", "--explain")
    lines = out["info"]["explain"]
    assert lines[0].startswith("misfire: ") and any("scatter" in line for line in lines)
    assert "rules followed: FB-R1" in "\n".join(lines)
