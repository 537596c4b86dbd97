"""Fantasy unit profiles (PR-1..3): every bundled file validates, stat lines match the
reference tables (reference/fantasy.md §8a/§8b), bad files name the key."""

from __future__ import annotations

import pytest

from mathhammer.errors import ProfileError, UnknownProfileError
from mathhammer.fantasy.models import MODELLED_RULES, load_unit, validate_unit
from mathhammer.profiles import bundled_ids, read_toml

# reference §8a / §8b: M WS BS S T W I A Ld, typed in from the tables
REFERENCE = {
    "wfb8/empire_halberdiers": (4, 3, 3, 3, 3, 1, 3, 1, 7),
    "wfb8/empire_handgunners": (4, 3, 3, 3, 3, 1, 3, 1, 7),
    "wfb8/orc_boyz": (4, 3, 3, 3, 4, 1, 2, 1, 7),
    "wfb8/dwarf_warriors": (3, 4, 3, 3, 4, 1, 2, 1, 9),
    "wfb8/dwarf_ironbreakers": (3, 5, 3, 4, 4, 1, 2, 1, 10),
    "wfb8/high_elf_spearmen": (5, 4, 4, 3, 3, 1, 5, 1, 8),
    "wfb8/high_elf_swordmasters": (5, 6, 4, 3, 3, 1, 5, 2, 8),
    "wfb8/chaos_warriors": (4, 5, 3, 4, 4, 1, 5, 2, 8),
    "wfb8/skeleton_warriors": (4, 2, 2, 3, 3, 1, 2, 1, 3),
    "wfb8/knights_of_the_realm": (4, 4, 3, 3, 3, 1, 3, 1, 8),
    "wfb8/high_elf_prince_star_dragon": (5, 7, 7, 4, 3, 3, 8, 4, 10),
    "t9a1/eos_heavy_infantry": (4, 3, 3, 3, 3, 1, 3, 1, 7),
    "t9a1/og_orcs": (4, 3, 3, 3, 4, 1, 2, 1, 7),
    "t9a1/dh_clan_warriors": (3, 4, 3, 3, 4, 1, 2, 1, 9),
    "t9a1/dh_greybeards": (3, 5, 3, 4, 4, 1, 2, 1, 9),
    "t9a1/hbe_spearmen": (5, 4, 4, 3, 3, 1, 5, 1, 8),
    "t9a1/hbe_sword_masters": (5, 6, 4, 3, 3, 1, 6, 2, 8),
    "t9a1/wdg_warriors": (4, 5, 3, 4, 4, 1, 4, 2, 8),
    "t9a1/vc_skeletons": (4, 2, 2, 3, 3, 1, 2, 1, 4),
    "t9a1/koe_knights_of_the_realm": (4, 4, 3, 4, 3, 1, 3, 1, 8),
}
# giants: A is "special" in the tables, so only the other stats are checked
GIANTS = {"wfb8/orc_giant": (6, 3, 3, 6, 5, 6, 3, 10), "t9a1/og_giant": (6, 3, 3, 6, 5, 6, 3, 10)}
POINTS_8A = {"wfb8/empire_halberdiers": 6, "wfb8/empire_handgunners": 9, "wfb8/dwarf_ironbreakers": 14,
             "wfb8/high_elf_spearmen": 9, "wfb8/high_elf_swordmasters": 13, "wfb8/skeleton_warriors": 5,
             "wfb8/knights_of_the_realm": 24, "wfb8/orc_giant": 200,
             "wfb8/high_elf_prince_star_dragon": 140}


def _line(unit):
    s = unit.stats
    return (s.m, s.ws, s.bs, s.s, s.t, s.w, s.i, s.a, s.ld)


def test_every_bundled_profile_validates_and_id_matches_path():
    ids = bundled_ids("fantasy")
    assert set(REFERENCE) | set(GIANTS) <= set(ids)
    for ref in ids:
        unit = load_unit(ref)
        assert unit.id == ref
        assert unit.ruleset == ref.split("/")[0]


@pytest.mark.parametrize("ref", sorted(REFERENCE))
def test_stat_line_matches_reference(ref):
    assert _line(load_unit(ref)) == REFERENCE[ref]


@pytest.mark.parametrize("ref", sorted(GIANTS))
def test_giant_stats_and_low_confidence_attacks(ref):
    unit = load_unit(ref)
    s = unit.stats
    assert (s.m, s.ws, s.bs, s.s, s.t, s.w, s.i, s.ld) == GIANTS[ref]
    assert unit.confidence == "low" and "stats.a" in unit.low_confidence


@pytest.mark.parametrize("ref", sorted(POINTS_8A))
def test_points_per_model_match_reference(ref):
    assert load_unit(ref).points.per_model == POINTS_8A[ref]


def test_profiles_that_differ_between_editions():
    """reference §8b notes: KotR S4 vs S3, skeleton Ld4 vs Ld3, sword master I6 vs I5, giant ward."""
    assert load_unit("t9a1/koe_knights_of_the_realm").stats.s == 4
    assert load_unit("wfb8/knights_of_the_realm").stats.s == 3
    assert load_unit("t9a1/vc_skeletons").stats.ld == 4
    assert load_unit("t9a1/hbe_sword_masters").stats.i == 6
    assert load_unit("t9a1/og_giant").saves.ward == 6
    assert load_unit("wfb8/orc_giant").saves.ward is None


def test_low_confidence_parts_are_explained():
    """PR-2: a part marked confidence = "low" has a [low_confidence] entry under its key."""
    for ref in bundled_ids("fantasy"):
        unit = load_unit(ref)
        doubts = unit.low_confidence
        if unit.weapon.confidence == "low":
            assert any(k == "weapon" or k.startswith("weapon.") for k in doubts), ref
        if unit.points.confidence == "low":
            assert any(k == "points" or k.startswith("points.") for k in doubts), ref
        for rule in unit.special_rules:
            assert rule in MODELLED_RULES


def _errors_of(data: dict) -> str:
    with pytest.raises(ProfileError) as info:
        validate_unit(data, "unit.toml")
    return str(info.value)


@pytest.fixture
def halberdiers() -> dict:
    from mathhammer.profiles import find_profile

    return read_toml(find_profile("fantasy", "wfb8/empire_halberdiers"))


@pytest.mark.parametrize("key, value, expected", [
    ("ws", 11, "stats.ws"), ("t", 11, "stats.t"), ("ld", 1, "stats.ld"), ("i", 0, "stats.i"),
])
def test_impossible_characteristic_names_key(halberdiers, key, value, expected):
    halberdiers["stats"][key] = value
    assert expected in _errors_of(halberdiers)


def test_save_7_is_an_error_not_no_save(halberdiers):
    halberdiers["saves"]["armour"] = 7
    assert "saves.armour" in _errors_of(halberdiers)


def test_unknown_special_rule_suggests_closest(halberdiers):
    halberdiers["special_rules"] = ["Always Strike First"]
    text = _errors_of(halberdiers)
    assert "special_rules" in text and "Always Strikes First" in text


def test_unknown_key_and_all_errors_at_once(halberdiers):
    halberdiers["stats"]["ws"] = 11  # FB-V0: 0 is a valid WS
    halberdiers["colour"] = "red"
    text = _errors_of(halberdiers)
    assert "colour" in text and "stats.ws" in text


def test_bad_multiple_wounds_dice(halberdiers):
    halberdiers["weapon"]["multiple_wounds"] = "D"
    assert "weapon.multiple_wounds" in _errors_of(halberdiers)


def test_unknown_id_suggests_close_ids():
    with pytest.raises(UnknownProfileError) as info:
        load_unit("wfb8/empire_halberdier")
    assert "empire_halberdiers" in str(info.value)


def test_unit_points():
    unit = load_unit("wfb8/empire_halberdiers")
    f = unit.formation
    assert unit.unit_points() == 6 * f.models + 10 + 10 + 10


def test_a_mount_and_kit_are_priced_on_top_of_the_rider():
    """PR-4, reference §8a: the Prince 140 + Star Dragon 390, and his lance, shield and armour."""
    unit = load_unit("wfb8/high_elf_prince_star_dragon")
    assert unit.points.mounts == {"Star Dragon": 390}
    assert unit.unit_points() == 140 + 390 + sum(unit.points.upgrades.values())
