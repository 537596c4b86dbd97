"""``fb charge`` (FB-G1..G3): the exact answers against a brute force over the dice."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from tests.conftest import cli_result


def run_json(*args):
    code, out, err = cli_result("fb", "charge", *args, "--format", "json", "--quiet")
    assert code == 0, err
    return json.loads(out)


def two_d6():
    return [a + b for a, b in itertools.product(range(1, 7), repeat=2)]


def swift():
    return [sum(sorted(r)[1:]) for r in itertools.product(range(1, 7), repeat=3)]


@pytest.mark.parametrize("distance, movement", [(9, 4), (12, 5), (2, 3), (17, 4), (7.5, 4)])
def test_reach_is_m_plus_2d6_at_least_the_distance(distance, movement):
    rolls = two_d6()
    want = Fraction(sum(movement + r >= distance for r in rolls), len(rolls))
    out = run_json("--distance", str(distance), "--movement", str(movement))
    assert out["results"]["p_reach"]["value"] == pytest.approx(float(want), abs=1e-12)
    assert out["info"]["p_reach_fraction"] == str(want)


def test_swiftstride_keeps_the_best_two_of_three():
    rolls = swift()
    want = Fraction(sum(7 + r >= 14 for r in rolls), len(rolls))
    out = run_json("--distance", "14", "--movement", "7", "--swiftstride")
    assert out["info"]["p_reach_fraction"] == str(want)


def test_a_fleeing_unit_is_caught_when_the_range_covers_the_flight():
    charges, flights = two_d6(), swift()
    want = Fraction(sum(5 + c >= 8 + f for c in charges for f in flights),
                    len(charges) * len(flights))
    out = run_json("--distance", "8", "--movement", "5", "--reaction", "flee",
                   "--target-swiftstride")
    assert out["info"]["p_caught_fraction"] == str(want)
    assert out["results"]["p_charge_fails"]["value"] == pytest.approx(1 - float(want))


def test_basic_charges_twice_the_movement_without_dice():
    # seed 001 has no charge roll: 2 x M (FB-G1 decision)
    assert run_json("--distance", "8", "--movement", "4", "--ruleset", "basic")[
        "results"]["p_reach"]["value"] == 1.0
    assert run_json("--distance", "8.5", "--movement", "4", "--ruleset", "basic")[
        "results"]["p_reach"]["value"] == 0.0


@pytest.mark.parametrize("args, what", [
    (["--distance", "3", "--movement", "4", "--reaction", "stand-and-shoot",
      "--target-movement", "4"], "no stand and shoot"),
    (["--distance", "9", "--movement", "4", "--reaction", "stand-and-shoot"], "--target-movement"),
    (["--distance", "9", "--movement", "4", "--reaction", "charge"], "--reaction"),
    (["--distance", "-1", "--movement", "4"], "--distance"),
    (["--distance", "9", "--movement", "4", "--ruleset", "basic", "--swiftstride"], "Swiftstride"),
    (["--distance", "9", "--movement", "4", "--target-swiftstride"], "--reaction flee"),
])
def test_bad_input_is_one_line(args, what):
    code, out, err = cli_result("fb", "charge", *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and what in err


# ---- issue 28 item 11: --unit / --target profiles ------------------------------------------
def test_unit_profile_gives_the_mounts_m_and_swiftstride():
    """Knights of the Realm: M4 knights on M8 warhorses with Swiftstride: 8 + 3D6kh2 >= 14."""
    want = Fraction(sum(8 + r >= 14 for r in swift()), len(swift()))
    out = run_json("--distance", "14", "--unit", "wfb8/knights_of_the_realm")
    assert out["info"]["p_reach_fraction"] == str(want)
    assert "M8" in out["info"]["unit"] and "Swiftstride" in out["info"]["unit"]
    assert out["results"] == run_json("--distance", "14", "--movement", "8", "--swiftstride")["results"]


def test_explicit_numbers_override_the_profile_and_say_so():
    out = run_json("--distance", "10", "--unit", "wfb8/knights_of_the_realm", "--movement", "4",
                   "--no-swiftstride")
    assert out["results"] == run_json("--distance", "10", "--movement", "4")["results"]
    assert "--movement 4 overrides its M8" in out["info"]["unit"]
    assert "--no-swiftstride overrides it" in out["info"]["unit"]


@pytest.mark.parametrize("target, swiftstride", [("wfb8/orc_boyz", False),
                                                 ("wfb8/knights_of_the_realm", True)])
def test_target_profile_flees_with_its_own_dice(target, swiftstride):
    """The fleeing unit's Swiftstride comes from its profile: caught when M + 2D6 >= 10 + flight."""
    flights = swift() if swiftstride else two_d6()
    want = Fraction(sum(6 + r >= 10 + f for r in two_d6() for f in flights),
                    len(two_d6()) * len(flights))
    out = run_json("--distance", "10", "--movement", "6", "--reaction", "flee", "--target", target)
    assert out["info"]["p_caught_fraction"] == str(want)


def test_target_profile_bars_stand_and_shoot_within_its_movement():
    code, out, err = cli_result("fb", "charge", "--distance", "4", "--movement", "6",
                                "--reaction", "stand-and-shoot", "--target", "wfb8/orc_boyz")
    assert code == 2 and out == "" and err.count("\n") == 1 and "Movement 4" in err
    out = run_json("--distance", "5", "--movement", "6", "--reaction", "stand-and-shoot",
                   "--target", "wfb8/orc_boyz")
    assert "allowed" in out["info"]["stand and shoot"]


@pytest.mark.parametrize("args, what", [
    (["--distance", "10"], "--movement"),
    (["--distance", "10", "--unit", "wfb8/no_such_unit"], "no_such_unit"),
    (["--distance", "10", "--unit", "t9a1/koe_knights_of_the_realm", "--ruleset", "wfb8"], "--unit"),
    (["--distance", "10", "--unit", "wfb8/empire_great_cannon"], "war machine"),
])
def test_bad_profiles_are_one_line(args, what):
    code, out, err = cli_result("fb", "charge", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and what in err


def test_the_library_takes_the_same_profiles():
    from mathhammer.fantasy.charge import charge_report

    report = charge_report(14, unit="wfb8/knights_of_the_realm")
    assert report.info["ruleset"] == "wfb8"  # the profile's edition
    assert report.results["p_reach"].value == run_json(
        "--distance", "14", "--unit", "wfb8/knights_of_the_realm")["results"]["p_reach"]["value"]


def test_a_ruleset_without_the_movement_bar_stands_and_shoots_at_any_distance(tmp_path):
    # FB-G2: stand_and_shoot_min_distance = "none" (a house rule) lifts the bar inside M
    from tests.conftest import ROOT

    text = (ROOT / "mathhammer/fantasy/rules/wfb8.toml").read_text(encoding="utf-8")
    assert 'stand_and_shoot_min_distance = "movement"' in text
    path = tmp_path / "house.toml"
    path.write_text(text.replace('stand_and_shoot_min_distance = "movement"',
                                 'stand_and_shoot_min_distance = "none"'), encoding="utf-8")
    out = run_json("--distance", "3", "--movement", "4", "--reaction", "stand-and-shoot",
                   "--ruleset", str(path))
    assert out["info"]["stand and shoot"].startswith("allowed")
    assert out["results"]["p_reach"]["value"] == 1.0
