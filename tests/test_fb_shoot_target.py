"""`fb shoot --target ID` (issue 13 part 6): a profile's stats give the same answer as the
same stats typed as flags; a ridden monster's hits are allotted (FB-P2); bad mixes are one line."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli_result


SHOTS = ["fb", "shoot", "--shots", "12", "--bs", "3", "--strength", "4", "--format", "json"]




def test_a_profile_target_equals_its_stats_typed_out():
    """Orc Boyz (wfb8): T4, 5+ armour, W1, 20 models."""
    code, by_id, _ = cli_result(*SHOTS, "--target", "wfb8/orc_boyz")
    assert code == 0
    code, by_stats, _ = cli_result(*SHOTS, "--toughness", "4", "--save", "5",
                            "--target-models", "20")
    assert code == 0
    a, b = json.loads(by_id), json.loads(by_stats)
    assert a["results"] == b["results"] and a["distributions"] == b["distributions"]
    # 12 shots, BS3 hits on 4+, S4 vs T4 wounds on 4+, 5+ armour at -1 saves on a 6
    assert a["results"]["mean_unsaved_wounds"]["value"] == pytest.approx(12 / 2 / 2 * 5 / 6)


def test_the_headline_names_the_target():
    code, out, _ = cli_result("fb", "shoot", "--shots", "5", "--bs", "3", "--strength", "3",
                       "--target", "wfb8/empire_halberdiers", "--brief")
    assert code == 0 and "vs Halberdiers (T3)" in out


def test_a_ridden_monster_target_allots_the_hits():
    code, out, _ = cli_result(*SHOTS, "--target", "wfb8/high_elf_prince_star_dragon")
    assert code == 0
    report = json.loads(out)
    assert "wounds_on_rider" in report["distributions"] and "wounds_on_mount" in report["distributions"]
    assert "FB-P2" in report["info"]["allotment"]


@pytest.mark.parametrize("extra, flag", [(["--save", "4"], "--save"),
                                         (["--toughness", "3"], "--toughness"),
                                         (["--target-models", "5"], "--target-models")])
def test_stats_beside_a_profile_are_one_line(extra, flag):
    code, out, err = cli_result(*SHOTS, "--target", "wfb8/orc_boyz", *extra)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err


def test_a_profile_of_another_ruleset_names_the_fix():
    code, _, err = cli_result(*SHOTS, "--target", "t9a1/og_orcs")
    assert code == 2 and "--ruleset t9a1" in err


def test_no_target_at_all_is_one_line():
    code, _, err = cli_result(*SHOTS)
    assert code == 2 and "--target" in err and err.count("\n") == 1
