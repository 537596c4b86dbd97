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


def test_a_whole_combat_against_a_war_machine_is_one_line():
    code, out, err = cli_result("fb", "combat", "wfb8/empire_halberdiers", "wfb8/empire_great_cannon")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "FB-WM1" in err and "fb attack --target" in err


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
