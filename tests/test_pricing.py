"""PR-4 (issue 32 part 2): every unit priced. A part costs 0 only where a rule stated in the
profile makes it free; the profile loader, `profiles validate` and the list loader refuse
anything else in one line naming it; every bundled list is priced in full."""

from __future__ import annotations

import copy

import pytest

from mathhammer import game as games
from mathhammer.cli import main
from mathhammer.errors import ProfileError, RulesError
from mathhammer.fantasy.models import check_prices, load_unit, validate_unit
from mathhammer.lists import bundled_lists, load_list
from mathhammer.profiles import bundled_ids, find_profile, read_toml


def _toml(data: dict) -> str:
    """A profile dict back as TOML (the few shapes the bundled profiles use)."""
    import json

    def value(v):
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, (int, float)):
            return str(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + " }"
        raise TypeError(v)

    top = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, dict)
           and not (isinstance(v, list) and v and isinstance(v[0], dict))]
    tables = []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append(f"\n[{k}]\n" + "\n".join(f"{json.dumps(a)} = {value(b)}" for a, b in v.items()))
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                tables.append(f"\n[[{k}]]\n" + "\n".join(f"{json.dumps(a)} = {value(b)}"
                                                         for a, b in item.items()))
    return "\n".join(top + tables) + "\n"


def _profile(ref: str) -> dict:
    return copy.deepcopy(read_toml(find_profile("fantasy", ref)))


@pytest.mark.parametrize("name", bundled_lists())
def test_no_bundled_list_holds_an_unpriced_entry(name):
    """Every entry of every bundled list costs more than 0, or the game names the rule that
    makes it free (a Mk II warcaster); a Fantasy unit has no unpriced part."""
    army = load_list(name)
    game = games.get(army.game)
    for unit in army.units:
        assert unit.points > 0 or game.free_by_rule(unit), (name, unit.label)
        if army.game == "fantasy":
            assert unit.profile.unpriced() == [], (name, unit.label)
    assert army.total_points <= army.points_limit


@pytest.mark.parametrize("ref", bundled_ids("fantasy"))
def test_every_bundled_fantasy_profile_is_priced(ref):
    unit = load_unit(ref)
    assert unit.unpriced() == []
    assert unit.unit_points() > 0
    for part in unit.points.free:  # a free part names a part the profile has
        head = part.split(".", 1)
        if head[0] == "mounts" and len(head) == 2:
            assert head[1] in {m.name for m in unit.mounts}
        if head[0] == "equipment" and len(head) == 2:
            assert head[1] in unit.equipment


def test_the_characters_of_issue_32_are_priced():
    """Orc Warlord 240, Orc Chief 120, High Prince 250 + heavy armour (BSData T9A 1.3)."""
    assert load_unit("t9a1/og_orc_warlord").unit_points() == 240
    assert load_unit("t9a1/og_orc_chief").unit_points() == 120
    assert load_unit("t9a1/hbe_prince").unit_points() == 250 + 16


def test_a_t9a_unit_is_a_fixed_part_plus_a_price_per_model():
    """Orcs (BSData T9A 1.3): -60 + 12 a model, +1 a model for shields, 20 per command model."""
    army = load_list({"game": "fantasy", "ruleset": "t9a1", "points": 900,
                      "units": [{"profile": "t9a1/og_orcs", "models": 30, "musician": False}]})
    assert army.units[0].points == -60 + 30 * (12 + 1) + 20 + 20


def test_a_zero_point_character_is_refused_in_one_line(tmp_path):
    data = _profile("t9a1/og_orc_warlord")
    data["points"]["per_model"] = 0
    unit = validate_unit(data, "warlord.toml")  # a what-if unit still fights in fb commands
    with pytest.raises(ProfileError) as info:
        check_prices(unit, "warlord.toml")  # where it is bought: validate, lists
    text = info.value.one_line()
    assert "points.per_model" in text and "Orc Warlord is priced 0 points" in text
    assert "\n" not in text


def test_free_by_a_stated_rule_loads():
    data = _profile("t9a1/og_orc_warlord")
    data["points"]["per_model"] = 0
    data["points"]["free"] = {"per_model": "a scenario's free hero, given by the scenario rules"}
    unit = validate_unit(data, "warlord.toml")
    check_prices(unit, "warlord.toml")
    assert unit.unit_points() == 0


@pytest.mark.parametrize("change, where", [
    (lambda d: d["points"].update(champion=0), "points.champion"),
    (lambda d: d["points"].update(upgrades={}), "points.upgrades"),
    (lambda d: d["points"].update(free={"banner": "no such part here at all"}), "points.free"),
    (lambda d: d["points"].update(upgrades={"shield": 0}), "points.upgrades"),
    (lambda d: d["points"].update(min_models=30), "formation.models"),
])
def test_an_unpriced_part_is_named(change, where):
    data = _profile("t9a1/og_orcs")
    change(data)
    with pytest.raises(ProfileError) as info:
        check_prices(validate_unit(data, "orcs.toml"), "orcs.toml")
    assert where in info.value.one_line()


def test_a_list_that_fields_an_unpriced_champion_is_refused():
    """The cannon's profile prices no champion: a list giving it one is refused, naming it."""
    with pytest.raises(ProfileError) as info:
        load_list({"game": "fantasy", "ruleset": "wfb8", "points": 500,
                   "units": [{"profile": "wfb8/empire_great_cannon", "champion": True}]})
    assert "units.0" in info.value.one_line() and "champion" in info.value.one_line()


def test_a_unit_size_the_book_does_not_sell_is_refused():
    with pytest.raises(RulesError) as info:
        load_list({"game": "fantasy", "ruleset": "t9a1", "points": 900,
                   "units": [{"profile": "t9a1/og_orcs", "models": 10}]})
    assert "units.0.models" in info.value.one_line() and "20 to 50" in info.value.one_line()


def test_a_hand_written_list_with_a_zero_point_unit_is_one_line_exit_2(tmp_path, capsys):
    data = _profile("t9a1/og_orc_warlord")
    data["points"] = {"per_model": 0}
    (tmp_path / "warlord.toml").write_text(_toml(data))
    (tmp_path / "list.toml").write_text(
        'name = "free lord"\ngame = "fantasy"\nruleset = "t9a1"\npoints = 900\n'
        f'[[units]]\nprofile = "{(tmp_path / "warlord.toml").as_posix()}"\n')
    with pytest.raises(SystemExit) as done:
        main(["score", str(tmp_path / "list.toml"), "--meta", "t9a1_infantry"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1
    assert "units.0.profile" in err and "points.per_model" in err


def test_profiles_validate_names_the_unpriced_part(tmp_path, capsys):
    data = _profile("wfb8/empire_halberdiers")
    data["points"]["musician"] = 0
    (tmp_path / "halberdiers.toml").write_text(_toml(data))
    with pytest.raises(SystemExit) as done:
        main(["profiles", "validate", str(tmp_path / "halberdiers.toml")])
    err = capsys.readouterr().err
    assert done.value.code == 2
    assert "points.musician" in err and "musician of Halberdiers is priced 0" in err


def test_a_mk2_warjack_priced_0_is_refused_and_a_warcaster_is_free_by_rule(tmp_path):
    from mathhammer.profiles import find_profile as find_any
    from mathhammer.warmachine.models import validate_warmachine

    data = copy.deepcopy(read_toml(find_any("warmachine", "khador/juggernaut")))
    data["points"] = 0
    with pytest.raises(ProfileError) as info:
        validate_warmachine(data, "jack.toml")
    assert "points" in info.value.one_line() and "warcaster" in info.value.one_line()
    sorscha = load_list("khador_battlebox").unit("Kommander Sorscha")
    assert sorscha.points == 0 and games.get("warmachine").free_by_rule(sorscha)


# ---- kit a list buys (issue 32 parts 2-3): points.kit_options --------------------------------
KIT_PROFILES = [ref for ref in bundled_ids("fantasy") if load_unit(ref).points.kit_options]
#: a foe each kit shows against in one exact round: S3 halberdiers for a shield's save, a
#: T5 giant (S5 still wounds it on 3+) for a weapon
SHIELD_FOE = {"wfb8": "wfb8/empire_halberdiers", "t9a1": "t9a1/eos_heavy_infantry"}
WEAPON_FOE = {"wfb8": "wfb8/orc_giant", "t9a1": "t9a1/og_giant"}


def _bought(ref: str, ruleset: str, buys: str | None = None):
    entry = {"profile": ref, **({"buys": buys} if buys else {})}
    return load_list({"name": "kit", "game": "fantasy", "ruleset": ruleset, "points": 5000,
                      "units": [entry]}).units[0]


def test_the_army_books_kit_is_sold_across_both_rulesets():
    """BSData/whfb (adfa5d8) and BSData/The-9th-Age 1.3 (fa9a0a06) sell kit to units and
    characters of both rulesets; a few prices checked against the catalogues."""
    assert len(KIT_PROFILES) >= 30
    assert {load_unit(ref).ruleset for ref in KIT_PROFILES} == {"wfb8", "t9a1"}
    assert load_unit("wfb8/chaos_warriors").points.kit_options == {
        "additional_hand_weapon": 2, "great_weapon": 3, "halberd": 3}
    assert load_unit("wfb8/empire_halberdiers").points.kit_options == {"shield": 1}
    assert load_unit("t9a1/og_orc_warlord").points.kit_options["great_weapon"] == 30
    assert load_unit("t9a1/og_orc_chief").points.kit_options["great_weapon"] == 20


@pytest.mark.parametrize("ref", KIT_PROFILES)
def test_every_kit_a_profile_sells_is_priced_and_played(ref):
    """PR-4, FB-E1..E8: each item costs its price per model on top of the plain unit, joins
    the model's equipment, and changes what one exact round of `fb combat` gives: a shield
    the wounds it takes from S3 halberdiers (fewer), a halberd, flail, spear or additional
    hand weapon the wounds it deals to a giant (more), a great weapon those wounds (its +2 S
    and striking last pull both ways)."""
    from mathhammer.fantasy.combat.fight import combat

    profile = load_unit(ref)
    plain = _bought(ref, profile.ruleset)
    models = plain.profile.formation.models

    def round_one(unit, foe):
        results = combat(unit.profile, foe, rounds=1, method="exact", charger="a").results
        return results["mean_wounds_dealt"].value, results["mean_wounds_taken"].value

    for item, per_model in profile.points.kit_options.items():
        unit = _bought(ref, profile.ruleset, item)
        assert unit.points == plain.points + per_model * models, item
        assert unit.profile.equipment == (*plain.profile.equipment, item)
        if item == "shield":  # its own +1 (none: 6+), then FB-E4's with a hand weapon
            before = plain.profile.saves.armour
            assert unit.profile.saves.armour == (6 if before is None else before - 1)
            foe = SHIELD_FOE[profile.ruleset]
            assert round_one(unit, foe)[1] < round_one(plain, foe)[1], item
        else:
            foe = WEAPON_FOE[profile.ruleset]
            dealt, plain_dealt = round_one(unit, foe)[0], round_one(plain, foe)[0]
            assert dealt > plain_dealt if item != "great_weapon" else dealt != plain_dealt, item


def test_kit_a_profile_already_carries_is_not_sold():
    """Its armour and weapon already count it (PR-4): selling it again is refused."""
    data = _profile("wfb8/chaos_warriors")
    data["points"]["kit_options"] = {"shield": 1}
    with pytest.raises(ProfileError) as info:
        validate_unit(data, "warriors.toml")
    assert "points.kit_options" in info.value.one_line() and "already" in info.value.one_line()


def test_a_character_buys_one_item_and_anything_else_is_refused():
    """A Chaos Lord (BSData/whfb): a great weapon 8 points; a lance on foot is not sold."""
    lord = _bought("wfb8/chaos_lord", "wfb8", "great_weapon")
    assert lord.points == 210 + 8
    with pytest.raises(ProfileError) as info:
        _bought("wfb8/chaos_lord", "wfb8", "lance")
    assert "units.0.buys" in info.value.one_line() and "great_weapon" in info.value.one_line()
