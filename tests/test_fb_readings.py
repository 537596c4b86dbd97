"""Rule readings of the attack chain and the tests, decided and pinned (issue 17 part 1,
issue 21 items 7 and 9): ward / regeneration re-rolls apart, re-rolling 1s under the 7+
procedure, poison against "cannot wound", Killing Blow against Regeneration, a
characteristic of 0 (FB-V0), the basic Leadership test (FB-T2).

Every expected value is a hand computation in exact fractions; the Monte Carlo kernel
reads the same compiled tables and is checked against every face combination
(``enumerate_final_classes``), so each reading holds in both engines.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from mathhammer.fantasy.chain.core import AttackSpec, hit_probability, single_attack_fractions
from mathhammer.fantasy.chain.mc import kernel_arguments
from mathhammer.fantasy.explain import explain_attack, explain_test
from mathhammer.fantasy.rules.ruleset import load_ruleset
from mathhammer.fantasy.characteristic_tests import break_test, characteristic_test, fantasy_test_report
from tests.conftest import cli_inprocess


def p_unsaved(spec: AttackSpec, rules: str = "wfb8") -> F:
    pmf, slain = single_attack_fractions(spec, rules)
    return 1 - pmf[0]


def kernel_agrees(spec: AttackSpec, rules: str) -> None:
    """Every 6^8 (·36) face combination resolved by the kernel's tables = the exact chance."""
    from mathhammer import kernels

    k = kernels.load("mathhammer.fantasy.kernels.chain")
    args = kernel_arguments(spec, 1, rules)
    low, high, n_second = args.args[1], args.args[2], int(args.args[3])
    counts = np.zeros(3, np.int64)
    k.enumerate_final_classes(low, high, np.int64(n_second), counts)
    total = 6**8 * n_second
    pmf, slain = single_attack_fractions(spec, rules)
    assert F(int(counts[0]), total) == pmf[0]
    assert F(int(counts[2]), total) == slain


# ---- ward and regeneration re-rolls apart (issue 17: --reroll-ward re-rolled both) ----------
def test_reroll_ward_save_leaves_regeneration_alone():
    """Auto hit, S3 v T3 (1/2), regeneration 4+ only: a ward re-roll changes nothing."""
    base = AttackSpec(strength=3, toughness=3, auto_hit=True, regeneration=4)
    forced = AttackSpec(strength=3, toughness=3, auto_hit=True, regeneration=4,
                        reroll_ward_save="successes")
    assert p_unsaved(base) == p_unsaved(forced) == F(1, 2) * F(1, 2)
    regen = AttackSpec(strength=3, toughness=3, auto_hit=True, regeneration=4,
                       reroll_regeneration="failed")
    assert p_unsaved(regen) == F(1, 2) * F(1, 4)  # failed 4+ re-rolled: fails 1/2 · 1/2
    kernel_agrees(regen, "wfb8")


def test_the_better_save_counts_its_own_reroll():
    """Ward 5+ with failed re-rolled (P pass 1/3 + 2/3·1/3 = 5/9) beats regeneration 4+ (1/2):
    the model takes the ward. Divine Attacks (forced re-roll of passed wards) on a ward 4+:
    1/2·1/2 = 1/4 pass, so regeneration 5+ (1/3) is taken instead."""
    a = AttackSpec(strength=3, toughness=3, auto_hit=True, ward=5, regeneration=4,
                   reroll_ward_save="failed")
    assert p_unsaved(a) == F(1, 2) * (1 - F(5, 9))
    b = AttackSpec(strength=3, toughness=3, auto_hit=True, ward=4, regeneration=5,
                   reroll_ward_save="successes")
    assert p_unsaved(b) == F(1, 2) * (1 - F(1, 3))
    for spec in (a, b):
        kernel_agrees(spec, "wfb8")
    text = [s.line() for s in explain_attack(b, "wfb8") if s.stage == "ward/regeneration"][0]
    assert "takes regeneration" in text and "own re-roll" in text


# ---- FB-H2: re-rolling 1s under the 7+ procedure -----------------------------------------------
def test_reroll_ones_repeats_the_7_plus_procedure_on_a_one_on_either_die():
    """BS 1 at −1 → 7+: a 6 then 4+ = 1/12. Re-roll 1s: a 1 first (1/6) or a 6 then a 1
    (1/36) re-rolls the procedure once: 1/12 + 7/36 · 1/12 = 43/432 (decision)."""
    spec = AttackSpec(bs=1, shooting_modifier=-1, strength=3, toughness=3, reroll_hits="ones")
    assert hit_probability(spec) == F(43, 432)
    assert hit_probability(AttackSpec(bs=1, shooting_modifier=-1, strength=3, toughness=3)) == F(1, 12)
    kernel_agrees(spec, "wfb8")
    line = explain_attack(spec, "wfb8")[0].line()
    assert "either die" in line and "43/432" in line


# ---- FB-W2 readings -----------------------------------------------------------------------------
def test_poison_wounds_even_where_strength_cannot_wound():
    """S1 v T5 is 'cannot wound'; a poisoned natural 6 to hit makes no roll to wound (FB-W2):
    WS 3 v WS 3 (4+): P(wound) = P(6) = 1/6 (decision)."""
    spec = AttackSpec(ws=3, target_ws=3, strength=1, toughness=5, poison=True)
    assert p_unsaved(spec) == F(1, 6)
    assert p_unsaved(AttackSpec(ws=3, target_ws=3, strength=1, toughness=5)) == 0
    kernel_agrees(spec, "wfb8")
    wound = [s.line() for s in explain_attack(spec, "wfb8") if s.stage == "to wound"][0]
    assert "even where S cannot wound T" in wound and "FB-W2" in wound


def test_killing_blow_takes_no_regeneration():
    """wfb8 Killing Blow: WS 4 v 4 (4+), S4 v T4 (4+), regeneration 4+. Natural 6 to wound
    (1/2 · 1/6) slays with no regeneration; 4s and 5s (1/2 · 2/6) are saved on 4+ half
    the time: P(slain) = 1/12, P(one wound) = 1/12."""
    spec = AttackSpec(ws=4, target_ws=4, strength=4, toughness=4, regeneration=4,
                      killing_blow=True, target_wounds=3)
    pmf, slain = single_attack_fractions(spec, "wfb8")
    assert slain == F(1, 12) and pmf[1] == F(1, 12)
    kernel_agrees(spec, "wfb8")
    text = " ".join(s.line() for s in explain_attack(spec, "wfb8"))
    assert "Regeneration is not taken" in text


# ---- FB-V0: a characteristic of 0 ---------------------------------------------------------------
@pytest.mark.parametrize("ruleset, expected", [("basic", F(1, 6)), ("wfb8", F(0)), ("t9a1", F(0))])
def test_test_of_a_zero_value(ruleset, expected):
    """t9a1/wfb8: a test of a 0 value fails; basic: seed 001's rule as written (a 1 passes)."""
    assert characteristic_test(0, rules=ruleset) == expected
    report = fantasy_test_report(value=0, rules=ruleset)
    assert report.results["p_pass"].value == pytest.approx(float(expected), abs=1e-12)
    assert any("FB-V0" in step.line() for step in explain_test(value=0, rules=ruleset))


def test_leadership_zero_fails_even_with_insane_courage():
    assert fantasy_test_report(ld=0, rules="wfb8").results["p_pass"].value == 0
    assert break_test(0, 0, "wfb8") == 0 and break_test(0, 0, "wfb8", unbreakable=True) == 1


@pytest.mark.parametrize("ruleset, attacker_needs", [("t9a1", 6), ("wfb8", 5), ("basic", 5)])
def test_ws_zero(ruleset, attacker_needs):
    """FB-V0: a WS 0 model is hit automatically; a WS 0 attacker needs its ruleset's score."""
    against = AttackSpec(ws=3, target_ws=0, strength=3, toughness=3)
    assert hit_probability(against, ruleset) == 1
    assert p_unsaved(against, ruleset) == F(1, 2)
    poisoned = AttackSpec(ws=3, target_ws=0, strength=3, toughness=3, poison=True)
    assert p_unsaved(poisoned, ruleset) == F(1, 2)  # no roll to hit: no poisoned 6s
    by = AttackSpec(ws=0, target_ws=3, strength=3, toughness=3)
    assert hit_probability(by, ruleset) == F(7 - attacker_needs, 6)
    kernel_agrees(against, ruleset)


def test_bs_zero_cannot_shoot():
    spec = AttackSpec(bs=0, strength=3, toughness=3)
    for ruleset in ("basic", "wfb8", "t9a1"):
        assert hit_probability(spec, ruleset) == 0


def test_zero_from_the_cli_and_a_profile(tmp_path):
    out = cli_inprocess("fb", "attack", "--attacks", "6", "--ws", "3", "--target-ws", "0",
                        "--strength", "3", "--toughness", "3", "--ruleset", "t9a1", "--explain")
    assert out.returncode == 0 and "[FB-V0, FB-H1]" in out.stdout
    out = cli_inprocess("fb", "test", "--value", "0", "--ruleset", "t9a1", "--explain")
    assert out.returncode == 0 and "0.00%" in out.stdout.splitlines()[0]
    out = cli_inprocess("fb", "shoot", "--shots", "5", "--bs", "0", "--strength", "3",
                        "--toughness", "3", "--format", "json")
    import json

    assert out.returncode == 0 and json.loads(out.stdout)["results"]["p_hit"]["value"] == 0
    from mathhammer.fantasy.models import validate_unit

    unit = validate_unit({"id": "x/zero", "name": "Zero", "ruleset": "t9a1",
                          "stats": {"m": 0, "ws": 0, "bs": 0, "s": 3, "t": 7, "w": 3, "i": 1,
                                    "a": 0, "ld": 7},
                          "formation": {"models": 1, "rank_width": 1},
                          "points": {"per_model": 50}}, "zero unit")
    assert unit.stats.ws == 0


# ---- FB-T2 in basic ----------------------------------------------------------------------------
def test_basic_leadership_has_no_automatic_pass_and_says_so():
    """Seed 001: 2D6 ≤ Ld, nothing more: Ld 2 passes on a double 1 only (1/36), Ld 12 always,
    and a double 1 does not pass Ld 1 (0)."""
    rules = load_ruleset("basic")
    from mathhammer.fantasy.characteristic_tests import leadership_test

    assert leadership_test(2, rules) == F(1, 36) and leadership_test(1, rules) == 0
    assert leadership_test(1, "wfb8") == F(1, 36)  # Insane Courage
    line = explain_test(ld=7, rules="basic")[0].line()
    assert "no automatic pass or fail" in line and "[FB-T2]" in line
