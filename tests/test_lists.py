"""Army lists: bundled lists price as the rules say, and every bad list is one clear error."""

from __future__ import annotations

import pytest

from mathhammer.errors import MathhammerError, ProfileError, RulesError, UnknownProfileError
from mathhammer.lists import bundled_lists, load_list
from tests.conftest import cli_inprocess


def wm(units, points=15, **extra):
    return {"game": "warmachine", "ruleset": "mk2", "points": points, "units": units, **extra}


def fb(units, points=1000, ruleset="wfb8"):
    return {"game": "fantasy", "ruleset": ruleset, "points": points, "units": units}


def test_bundled_lists_two_per_game():
    games = [load_list(name).game for name in bundled_lists()]
    assert games.count("warmachine") >= 2 and games.count("fantasy") >= 2


def test_warjack_points_pay_for_warjacks_only():
    """Mk II: Sorscha (0 pts, +5 warjack points) + Juggernaut 7 + Destroyer 9 = 16 - 5 = 11."""
    army = load_list("khador_battlebox")
    assert army.total_points == 7 + 9 - 5
    assert [u.points for u in army.units] == [0, 7, 9]


def test_unused_warjack_points_are_lost_not_credited():
    """A solo-free list whose caster brings more warjack points than its jacks cost: total 0."""
    army = load_list(wm([{"profile": "cryx/deneghra"}, {"profile": "cryx/deathripper"}]))
    assert army.total_points == 0  # 4 jack points, 5 warjack points: never negative


def test_fantasy_points_are_models_plus_command():
    """Halberdiers (BSData, PR-4): 20 x 6 + champion 10 + standard 10 + musician 10 = 150;
    count multiplies."""
    army = load_list("wfb8_empire")
    halberdiers = army.unit("Halberdiers")
    assert halberdiers.points == 20 * 6 + 10 + 10 + 10
    assert army.total_points == 2 * 150 + army.unit("Handgunners").points


def test_fantasy_formation_options_change_points():
    army = load_list(fb([{"profile": "wfb8/empire_halberdiers", "models": 30, "champion": False}]))
    assert army.units[0].points == 30 * 6 + 10 + 10
    assert army.units[0].profile.formation.models == 30


def test_duplicate_entries_get_unique_labels():
    army = load_list(fb([{"profile": "wfb8/orc_boyz"}, {"profile": "wfb8/orc_boyz", "models": 10}]))
    assert [u.label for u in army.units] == ["Orc Boyz", "Orc Boyz (2)"]


def test_over_the_points_limit_is_one_error():
    """7 + 9 + 7 warjack points minus Sorscha's 5 = 18 > 10."""
    with pytest.raises(RulesError, match=r"costs 18 points, over its limit of 10"):
        load_list(wm([{"profile": "khador/sorscha"}, {"profile": "khador/juggernaut"},
                      {"profile": "khador/destroyer"}, {"profile": "khador/juggernaut"}], points=10))


def test_unknown_unit_names_the_entry_and_a_close_id():
    with pytest.raises(UnknownProfileError) as err:
        load_list(wm([{"profile": "khador/sorscha"}, {"profile": "khador/juggernautt"}]))
    text = err.value.one_line()
    assert "units.1.profile" in text and "juggernautt" in text and "khador/juggernaut" in text


def test_warjacks_need_a_warcaster():
    with pytest.raises(RulesError, match="warcaster"):
        load_list(wm([{"profile": "khador/juggernaut"}]))


@pytest.mark.parametrize("units, message", [
    ([{"profile": "khador/sorscha"}, {"profile": "khador/juggernaut", "focus": 4}], "at most 3 focus"),
    ([{"profile": "khador/sorscha", "focus": 7}], "FOCUS 6"),
    ([{"profile": "khador/sorscha", "focus": 4}, {"profile": "khador/juggernaut", "focus": 3}],
     "warcasters have FOCUS 6"),
    ([{"profile": "khador/sorscha"}, {"profile": "khador/juggernaut", "charge": True}], "1 focus to charge"),
    ([{"profile": "khador/sorscha"}, {"profile": "khador/juggernaut", "mode": "ranged"}], "no ranged weapon"),
])
def test_focus_rules(units, message):
    with pytest.raises((RulesError, ProfileError), match=message):
        load_list(wm(units))


@pytest.mark.parametrize("data, message", [
    (wm([]), "no units"),
    (wm([{"profile": "khador/sorscha", "models": 3}]), "not a warmachine option"),
    (fb([{"profile": "wfb8/orc_boyz", "focus": 1}]), "not a fantasy option"),
    (fb([{"profile": "t9a1/og_orcs"}]), "t9a1 unit in a wfb8 list"),
    ({**fb([{"profile": "wfb8/orc_boyz"}]), "ruleset": "mk2"}, "not a fantasy ruleset"),
    ({**fb([{"profile": "wfb8/orc_boyz"}]), "colour": "red"}, "colour"),
    (fb([{"profile": "wfb8/orc_boyz", "count": 0}]), "count"),
])
def test_malformed_lists(data, message):
    with pytest.raises(ProfileError, match=message):
        load_list(data)


def test_missing_list_file_names_bundled_lists():
    """A miss names the bundled lists closest to what was typed, and how many there are (not
    all 30-odd: the fix line stays short enough to read whole)."""
    with pytest.raises(ProfileError, match="khador_battlebox") as info:
        load_list("khador_battlebx")
    assert "bundled lists, the closest:" in str(info.value) and "chars)" not in str(info.value)
    with pytest.raises(ProfileError, match="wfb8_orcs"):
        load_list("wfb8_orks")


def test_a_folder_given_as_a_list_says_so(tmp_path):
    with pytest.raises(MathhammerError, match="is a folder, not a regular file"):
        load_list(str(tmp_path))


def test_cli_over_limit_is_one_line_exit_2(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text('game = "fantasy"\nruleset = "wfb8"\npoints = 100\n'
                    '[[units]]\nprofile = "wfb8/orc_boyz"\n', encoding="utf-8")
    proc = cli_inprocess("compare", str(path), "wfb8_empire")
    assert proc.returncode == 2
    assert proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1
    assert "over its limit of 100" in proc.stderr


def test_cli_unknown_unit_is_one_line_exit_2(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text('game = "fantasy"\nruleset = "wfb8"\npoints = 1000\n'
                    '[[units]]\nprofile = "wfb8/orc_boys"\n', encoding="utf-8")
    proc = cli_inprocess("compare", str(path), "wfb8_empire")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "unknown unit 'wfb8/orc_boys'" in proc.stderr
