"""Rulesets as data: every chart cell against the reference tables (FB-H1, FB-W1, FB-V1, FB-H2).

The expected tables are parsed from ``/work/shared/reference/fantasy.md`` §1a, §1b, §2 and
§3b when that file is present (falling back to the docs/rules.md formulas), so the bundled
TOML files are compared with an independent source cell by cell, for each ruleset.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from mathhammer.errors import InputError, ProfileError
from mathhammer.fantasy.rules.ruleset import BUNDLED, Ruleset, load_ruleset
from mathhammer.magic.rules import MagicRules

REFERENCE = Path("/work/shared/reference/fantasy.md")


def _reference_table(header: str) -> dict[tuple[int, int], str] | None:
    """Cells of the markdown grid whose header row starts with ``header`` ('| A\\D |')."""
    if not REFERENCE.is_file():
        return None
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.replace(" ", "").startswith(header))
    cols = [int(c) for c in lines[start].strip("|").split("|")[1:]]
    cells = {}
    for line in lines[start + 2 : start + 12]:
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        row = int(parts[0])
        for col, cell in zip(cols, parts[1:], strict=True):
            cells[row, col] = cell
    return cells


def _melee_formula(a: int, d: int) -> int:  # FB-H1 in words
    return 3 if a > d else (5 if d > 2 * a else 4)


def _wound_formula(s: int, t: int) -> int | None:  # FB-W1 in words
    diff = s - t
    return {2: 2, 1: 3, 0: 4, -1: 5, -2: 6, -3: 6}.get(max(min(diff, 2), -4))


MELEE = _reference_table("|A\\D|")
WOUND = _reference_table("|S\\T|")
PAIRS = [(a, b) for a in range(1, 11) for b in range(1, 11)]


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize(("ws_a", "ws_d"), PAIRS)
def test_melee_to_hit_cell(name, ws_a, ws_d):
    """FB-H1, one cell of the 10×10 chart per test, for each ruleset."""
    rules = load_ruleset(name)
    expected = int(MELEE[ws_a, ws_d]) if MELEE else _melee_formula(ws_a, ws_d)
    assert expected == _melee_formula(ws_a, ws_d)  # the reference table agrees with FB-H1
    assert rules.to_hit_melee(ws_a, ws_d) == expected


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize(("s", "t"), PAIRS)
def test_to_wound_cell(name, s, t):
    """FB-W1 (t9a1: the same chart by decision), N = cannot wound."""
    rules = load_ruleset(name)
    if WOUND:
        cell = WOUND[s, t]
        expected = None if cell == "N" else int(cell)
    else:
        expected = _wound_formula(s, t)
    assert expected == _wound_formula(s, t)
    assert rules.to_wound(s, t) == expected


@pytest.mark.parametrize("name", BUNDLED)
def test_save_modifier_by_strength(name):
    """FB-V1 / reference §3b: modifier = max(0, S − 3)."""
    rules = load_ruleset(name)
    assert [rules.save_modifier(s) for s in range(1, 11)] == [max(0, s - 3) for s in range(1, 11)]


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("save", range(1, 7))
@pytest.mark.parametrize("strength", range(1, 11))
@pytest.mark.parametrize("ap", [0, 1, 2])
def test_armour_needed_every_cell(name, save, strength, ap):
    """FB-V1: save + max(0, S−3) + AP; past 6 no save; a natural 1 always fails."""
    needed = save + max(0, strength - 3) + ap
    expected = None if needed > 6 else max(2, needed)
    assert load_ruleset(name).armour_needed(save, strength, ap) == expected


def test_no_save_and_bad_saves():
    rules = load_ruleset("wfb8")
    assert rules.armour_needed(None, 4) is None
    with pytest.raises(InputError, match="omit the flag"):
        rules.armour_needed(7, 3)
    with pytest.raises(InputError, match="1..6"):
        rules.armour_needed(0, 3)


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("bs", range(1, 11))
@pytest.mark.parametrize("modifier", range(-6, 3))
def test_shooting_to_hit(name, bs, modifier):
    """FB-H2 / reference §1b: needed = 7 − BS − modifiers; 7+ 1/12, 8+ 1/18, 9+ 1/36, 10+ 0."""
    shot = load_ruleset(name).to_hit_shooting(bs, modifier)
    nominal = 7 - bs - modifier
    assert shot.nominal == nominal
    table = {7: Fraction(1, 12), 8: Fraction(1, 18), 9: Fraction(1, 36)}
    if nominal <= 6:
        expected = Fraction(7 - max(2, nominal), 6)  # a natural 1 always misses
    else:
        expected = table.get(nominal, Fraction(0))
    assert shot.p_hit == expected
    assert shot.possible == (expected > 0)


def test_switches_per_ruleset():
    """The switches that differ between editions (docs/rules.md FB-*, MG-*)."""
    basic, wfb8, t9a1 = (load_ruleset(n) for n in BUNDLED)
    assert (basic.insane_courage, wfb8.insane_courage, t9a1.insane_courage) == (False, True, True)
    assert (basic.steadfast, wfb8.steadfast, t9a1.steadfast) == (False, True, True)
    assert (basic.large_target_modifier, wfb8.large_target_modifier) == (1, 0)
    assert (basic.scatter_hit_faces, wfb8.scatter_hit_faces, t9a1.scatter_hit_faces) == (1, 2, 2)
    assert basic.magic_resistance == "d20_ignore"
    assert wfb8.magic_resistance == t9a1.magic_resistance == "ward_bonus"
    assert (basic.supporting_ranks, wfb8.supporting_ranks) == (0, 1)
    # FB-C2 (seed audit 2026-12): seed 001 has no charge rule, so basic strikes by I only
    assert not (basic.chargers_strike_first or wfb8.chargers_strike_first or t9a1.chargers_strike_first)
    assert (basic.killing_blow, wfb8.killing_blow, t9a1.killing_blow) == (None, "slay", "lethal_strike")
    assert wfb8.battle_standard_bonus == 1
    assert {r.max_rank_bonus for r in (basic, wfb8, t9a1)} == {3}
    assert t9a1.artillery in ("template", "to_hit")


def test_magic_tables():
    """The [magic] table of each file, as the magic engine reads it (MG-2..MG-6)."""
    t9a1, wfb8, basic = load_ruleset("t9a1").magic, load_ruleset("wfb8").magic, load_ruleset("basic").magic
    assert isinstance(t9a1, MagicRules)
    assert (t9a1.max_casting_dice, t9a1.max_extra_dice, t9a1.channel, t9a1.channel_target) == (
        5, 2, "d6_plus_channelers", 7)
    assert (t9a1.two_sixes, t9a1.natural_fail_at_most, t9a1.dispel_natural_fail_at_most) == (
        "overwhelming", 0, 0)
    assert (wfb8.max_casting_dice, wfb8.max_extra_dice, wfb8.channel) == (6, None, "each_wizard_six")
    assert (wfb8.natural_fail_at_most, wfb8.two_sixes, wfb8.dispel_natural_fail_at_most) == (
        2, "irresistible", 2)
    assert basic == MagicRules(channel="none")


def test_unknown_ruleset_lists_the_bundled_ones():
    with pytest.raises(ProfileError) as err:
        load_ruleset("wfb9")
    text = err.value.one_line()  # the library names the parameter; the CLI, its flag
    assert text.startswith("ruleset:") and all(n in text for n in BUNDLED)
    from mathhammer.present.flags import error_line

    assert error_line(err.value).startswith("--ruleset:")


def test_house_rules_file(tmp_path):
    """A copied and edited file works, and a bad key is named with the file."""
    from mathhammer.fantasy.rules.ruleset import RULESETS_DIR

    mine = tmp_path / "house.toml"
    text = (RULESETS_DIR / "wfb8.toml").read_text().replace('name = "wfb8"', 'name = "house"')
    mine.write_text(text.replace("insane_courage = true", "insane_courage = false"))
    rules = load_ruleset(str(mine))
    assert rules.name == "house" and not rules.insane_courage
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("steadfast = true", "steadfast = true\nsteadfastt = 1"))
    with pytest.raises(ProfileError, match="steadfastt"):
        load_ruleset(str(bad))
    cells = tmp_path / "cells.toml"
    cells.write_text(text.replace("[4, 4, 5, 5, 5, 5, 5, 5, 5, 5],  # WS 1",
                                  "[4, 4, 5, 5, 5, 5, 5, 5, 5, 7],  # WS 1"))
    with pytest.raises(ProfileError, match="melee_to_hit"):
        load_ruleset(str(cells))
    with pytest.raises(ProfileError, match="not found"):
        load_ruleset(str(tmp_path / "missing.toml"))


def test_impossible_characteristics():
    rules = load_ruleset("t9a1")
    with pytest.raises(InputError, match="ws_attacker"):  # FB-V0: 0 is allowed, below is not
        rules.to_hit_melee(-1, 3)
    with pytest.raises(InputError, match="toughness"):
        rules.to_wound(3, 11)


def test_ruleset_is_frozen():
    rules = load_ruleset("basic")
    with pytest.raises(Exception):
        rules.steadfast = True  # type: ignore[misc]
    assert isinstance(rules, Ruleset)


# ---- issue 28 item 6: one source of truth for Unstable (FB-C5) ------------------------------
INSTABILITY = ("Unstable", "Daemonic Instability")


@pytest.mark.parametrize("name", BUNDLED)
def test_instability_words_follow_the_ruleset_file(name):
    rules = load_ruleset(name)
    for rule in INSTABILITY:
        words = rules.instability_words(rule)
        assert f'unstable = "{rules.unstable}"' in words
        assert ("no break test" in words) == (rules.unstable == "lose_wounds")


def _instability_profiles():
    from mathhammer.fantasy.models import load_unit
    from mathhammer.profiles import bundled_ids

    units = [load_unit(ref) for ref in bundled_ids("fantasy")]
    return [u for u in units if any(u.has(r) for r in INSTABILITY)]


def test_profiles_show_says_what_the_ruleset_file_says():
    """`profiles show` of every bundled Unstable / Daemonic unit prints its ruleset's own
    words, and no profile's notes carry a ruleset's setting (they went stale once)."""
    from tests.conftest import cli_result

    units = _instability_profiles()
    assert {u.ruleset for u in units} >= {"wfb8", "t9a1"}
    for unit in units:
        code, out, err = cli_result("profiles", "show", unit.id)
        assert code == 0, err
        rules = load_ruleset(unit.ruleset)
        for rule in INSTABILITY:
            if unit.has(rule):
                assert rules.instability_words(rule) in out
        assert not any("unstable =" in note or "unstable=" in note for note in unit.notes), unit.id


def test_readme_names_the_rulesets_by_their_files():
    """The README's FB-C5 sentence lists the bundled rulesets by their `unstable` value."""
    import re

    from tests.conftest import user_docs_text

    text = user_docs_text()
    for value in ("lose_wounds", "none"):
        match = re.search(rf'`unstable = "{value}"`\s*\(bundled: ([^)]*)\)', text)
        assert match, value
        named = set(re.findall(r"`(\w+)`", match.group(1)))
        assert named == {n for n in BUNDLED if load_ruleset(n).unstable == value}, value
