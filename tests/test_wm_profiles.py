"""Warmachine profiles (PR-1..3): every bundled file, cell by cell, and the checks on bad files.

The expected tables below were typed from ``reference/warmachine.md`` (with its
"Corrections from a second research pass", which take precedence) and
``reference/warmachine-confirm.md``, independently of the TOML files, so a typo in a
profile fails here.
"""

from __future__ import annotations

import copy
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mathhammer.errors import ProfileError, UnknownProfileError
from mathhammer.profiles import bundled_ids, profiles_root, validate_data
from mathhammer.warmachine.models import (
    GRID_LETTERS,
    WarmachineProfile,
    consistency_problems,
    draw_grid,
    load_warmachine,
)

EXPECTED_IDS = [
    "cryx/deathripper",
    "cryx/defiler",
    "cryx/deneghra",
    "cryx/slayer",
    "cygnar/charger",
    "cygnar/ironclad",
    "cygnar/lancer",
    "cygnar/stryker",
    "khador/destroyer",
    "khador/juggernaut",
    "khador/sorscha",
    "protectorate/crusader",
    "protectorate/kreoss",
    "protectorate/repenter",
    "protectorate/revenger",
]

# id: (SPD, STR, MAT, RAT, DEF, ARM, points or WJ +N, boxes)
STAT_LINES = {
    "cygnar/stryker": (6, 6, 7, 6, 16, 15, 6, 17),
    "cygnar/charger": (6, 8, 6, 6, 13, 16, 4, 26),
    "cygnar/lancer": (6, 8, 6, 6, 13, 16, 6, 28),
    "cygnar/ironclad": (5, 11, 7, 6, 12, 18, 7, 30),
    "khador/sorscha": (6, 6, 6, 5, 16, 14, 5, 17),
    "khador/juggernaut": (4, 12, 6, 4, 10, 20, 7, 34),  # correction 1: MAT 6
    "khador/destroyer": (4, 12, 6, 4, 10, 20, 9, 34),  # correction 2: MAT 6, RAT 4
    "protectorate/kreoss": (5, 6, 7, 4, 14, 15, 5, 18),  # correction 3: WJ +5
    "protectorate/crusader": (4, 11, 6, 5, 10, 19, 6, 32),
    "protectorate/repenter": (5, 9, 6, 5, 12, 17, 4, 26),
    "protectorate/revenger": (5, 9, 6, 5, 12, 17, 6, 28),  # correction 6: RAT 5
    "cryx/deneghra": (7, 5, 5, 4, 16, 14, 5, 16),
    "cryx/deathripper": (7, 7, 6, 5, 15, 14, 4, 20),
    "cryx/defiler": (7, 7, 6, 5, 15, 14, 5, 20),
    "cryx/slayer": (6, 10, 7, 5, 13, 17, 6, 28),
}

FOCUS = {"cygnar/stryker": 6, "khador/sorscha": 6, "protectorate/kreoss": 7, "cryx/deneghra": 7}

# (id, weapon index): (name, kind, location, POW, P+S or None, RNG, ROF, AOE)
WEAPONS = {
    ("cygnar/stryker", 0): ("Quicksilver", "melee", "-", 7, 13, 0.5, 1, 0),
    ("cygnar/stryker", 1): ("Disruptor Pistol", "ranged", "-", 10, None, 10, 1, 0),
    ("cygnar/charger", 0): ("Battle Hammer", "melee", "R", 4, 12, 0.5, 1, 0),
    ("cygnar/charger", 1): (
        "Dual Cannon",
        "ranged",
        "L",
        12,
        None,
        12,
        2,
        0,
    ),  # correction 5: ROF 2
    ("cygnar/lancer", 0): ("War Spear", "melee", "R", 4, 12, 2, 1, 0),
    ("cygnar/lancer", 1): ("Shock Shield", "melee", "L", 1, 9, 0.5, 1, 0),
    ("cygnar/ironclad", 0): ("Quake Hammer", "melee", "L", 7, 18, 0.5, 1, 0),  # correction 5: L
    ("cygnar/ironclad", 1): ("Open Fist", "melee", "R", 3, 14, 0.5, 1, 0),
    ("khador/sorscha", 0): ("Frostfang", "melee", "-", 7, 13, 2, 1, 0),
    ("khador/sorscha", 1): ("Hand Cannon", "ranged", "-", 12, None, 12, 1, 0),
    ("khador/juggernaut", 0): ("Ice Axe", "melee", "R", 7, 19, 0.5, 1, 0),  # correction 1
    ("khador/juggernaut", 1): ("Open Fist", "melee", "L", 3, 15, 0.5, 1, 0),
    ("khador/destroyer", 0): ("Bombard", "ranged", "L", 14, None, 14, 1, 3),
    ("khador/destroyer", 1): ("Executioner Axe", "melee", "R", 5, 17, 0.5, 1, 0),
    ("protectorate/kreoss", 0): ("Spellbreaker", "melee", "-", 8, 14, 2, 1, 0),
    ("protectorate/crusader", 0): ("Inferno Mace", "melee", "R", 7, 18, 0.5, 1, 0),
    ("protectorate/crusader", 1): ("Open Fist", "melee", "L", 3, 14, 0.5, 1, 0),  # correction 6
    ("protectorate/repenter", 0): ("War Flail", "melee", "R", 4, 13, 0.5, 1, 0),
    ("protectorate/repenter", 1): ("Flame Thrower", "ranged", "L", 12, None, "SP8", 1, 0),
    ("protectorate/revenger", 0): ("Repulsor Shield", "melee", "L", 1, 10, 0.5, 1, 0),
    ("protectorate/revenger", 1): ("Halberd", "melee", "R", 4, 13, 2, 1, 0),
    ("cryx/deneghra", 0): ("Sliver", "melee", "-", 7, 12, 2, 1, 0),  # correction 5
    ("cryx/deathripper", 0): ("Mandible", "melee", "H", 6, 13, 0.5, 1, 0),
    ("cryx/defiler", 0): ("Sludge Cannon", "ranged", "H", 12, None, "SP8", 1, 0),
    ("cryx/defiler", 1): ("Bash", "melee", "-", 0, 7, 0.5, 1, 0),
    ("cryx/slayer", 0): ("Death Claw", "melee", "L", 6, 16, 0.5, 1, 0),
    ("cryx/slayer", 1): ("Death Claw", "melee", "R", 6, 16, 0.5, 1, 0),
    ("cryx/slayer", 2): ("Tusks", "melee", "-", 2, 12, 0.5, 1, 0),  # correction 5: loc "-"
}

# id: [(name, COST, RNG, AOE, POW, upkeep, offensive)]
SPELLS = {
    "cygnar/stryker": [
        ("Arcane Blast", 3, 10, 3, 13, False, True),
        ("Arcane Bolt", 2, 12, 0, 11, False, True),
        ("Arcane Shield", 2, 6, 0, None, True, False),
        ("Blur", 2, 6, 0, None, True, False),
        ("Earthquake", 3, 10, 5, None, False, True),
        ("Snipe", 2, 6, 0, None, True, False),
    ],
    "khador/sorscha": [
        ("Boundless Charge", 2, 6, 0, None, False, False),
        ("Fog of War", 3, "SELF", "CTRL", None, True, False),
        ("Freezing Grip", 4, 8, 0, None, False, True),
        ("Razor Wind", 2, 10, 0, 12, False, True),
        ("Tempest", 4, 8, 4, 12, False, True),
        ("Wind Rush", 2, "SELF", 0, None, False, False),
    ],
    "protectorate/kreoss": [
        ("Cleansing Fire", 3, 8, 3, 14, False, True),
        ("Defender's Ward", 2, 6, 0, None, True, False),
        ("Immolation", 2, 8, 0, 12, False, True),
        ("Lamentation", 3, "SELF", "CTRL", None, True, False),
        ("Purification", 3, "SELF", "CTRL", None, False, False),
    ],
    "cryx/deneghra": [
        ("Crippling Grasp", 3, 8, 0, None, True, True),
        ("Ghost Walk", 3, 6, 0, None, False, False),
        ("Influence", 1, 10, 0, None, False, True),
        ("Parasite", 2, 8, 0, None, True, True),
        ("Scourge", 4, 8, 3, 13, False, True),
        ("Venom", 2, "SP8", 0, 10, False, True),
    ],
}

ARM_JACK_GRIDS = {  # the shared bottom pattern: 3 L, 3 R, 3 M, 3 C; arc nodes add 2 A
    "cygnar/charger": 0,
    "cygnar/lancer": 2,
    "cygnar/ironclad": 0,
    "khador/juggernaut": 0,
    "khador/destroyer": 0,
    "protectorate/crusader": 0,
    "protectorate/repenter": 0,
    "protectorate/revenger": 2,
    "cryx/slayer": 0,
}

# every value the reference marks low or disputed must carry a doubt (PR-2)
REQUIRED_DOUBTS = {
    "cygnar/lancer": "stats.rat",
    "protectorate/revenger": "stats",
    "cryx/deneghra": "spells.3.cost",
    "cryx/defiler": "weapons.1",
    "cryx/slayer": "weapons.2.pow",
    "khador/sorscha": "spells.3.effect",
}


def _raw(ident: str) -> dict:
    return tomllib.loads((profiles_root() / "warmachine" / f"{ident}.toml").read_text())


def test_bundled_ids_are_the_four_battlegroups():
    assert bundled_ids("warmachine") == EXPECTED_IDS


@pytest.mark.parametrize("ident", EXPECTED_IDS)
def test_every_bundled_file_validates_and_id_matches_path(ident):
    profile = load_warmachine(ident)
    assert profile.id == ident
    assert profile.faction == ident.split("/")[0]
    assert consistency_problems(_raw(ident)) == []


@pytest.mark.parametrize("ident", EXPECTED_IDS)
def test_stat_line_cell_by_cell(ident):
    p = load_warmachine(ident)
    spd, str_, mat, rat, def_, arm, cost, boxes = STAT_LINES[ident]
    got = (p.stats.spd, p.stats.strength, p.stats.mat, p.stats.rat, p.stats.defense, p.stats.arm)
    assert got == (spd, str_, mat, rat, def_, arm)
    if p.kind == "warcaster":
        assert (p.warjack_points, p.boxes, p.points, p.stats.focus) == (
            cost,
            boxes,
            0,
            FOCUS[ident],
        )
        assert p.grid is None and p.base == "small" and p.feat
    else:
        assert (p.points, sum(len(c) for c in p.grid)) == (cost, boxes)
        assert p.boxes is None and p.stats.focus is None
        assert p.base == ("large" if p.size == "heavy" else "medium")


@pytest.mark.parametrize("key", sorted(WEAPONS))
def test_weapon_cell_by_cell(key):
    ident, index = key
    w = load_warmachine(ident).weapons[index]
    name, kind, loc, pow_, pps, rng, rof, aoe = WEAPONS[key]
    assert (w.name, w.kind, w.location, w.pow, w.pow_plus_str, w.rng, w.rof, w.aoe) == (
        name,
        kind,
        loc,
        pow_,
        pps,
        rng,
        rof,
        aoe,
    )


def test_every_weapon_is_in_the_table():
    listed = {(i, n) for i in EXPECTED_IDS for n in range(len(load_warmachine(i).weapons))}
    assert listed == set(WEAPONS)


@pytest.mark.parametrize("ident", EXPECTED_IDS)
def test_melee_pow_plus_str_is_pow_plus_str(ident):
    """PR-3 on the bundled data itself (the validator enforces it too)."""
    p = load_warmachine(ident)
    for w in p.weapons:
        if w.kind == "melee":
            assert w.pow_plus_str == w.pow + p.stats.strength, w.name
            assert w.damage_power == w.pow_plus_str
        else:
            assert w.pow_plus_str is None and w.damage_power == w.pow


@pytest.mark.parametrize("ident", sorted(SPELLS))
def test_spells_cell_by_cell(ident):
    got = [
        (s.name, s.cost, s.rng, s.aoe, s.pow, s.upkeep, s.offensive)
        for s in load_warmachine(ident).spells
    ]
    assert got == SPELLS[ident]


@pytest.mark.parametrize("ident", sorted(ARM_JACK_GRIDS))
def test_arm_jack_grid_systems(ident):
    grid = load_warmachine(ident).grid_columns
    assert len(grid) == 6 and set("".join(grid)) <= set(GRID_LETTERS)
    letters = "".join(grid)
    counts = {x: letters.count(x) for x in "LRHACM"}
    assert counts == {"L": 3, "R": 3, "H": 0, "A": ARM_JACK_GRIDS[ident], "C": 3, "M": 3}
    # the shared bottom rows of reference 2.1 read per column, bottom of each column
    tails = (
        ["L", "LLM", "MM", "CC", "RRC", "R"]
        if not ARM_JACK_GRIDS[ident]
        else ["L", "LLM", "AMM", "ACC", "RRC", "R"]
    )
    assert all(
        c.endswith(t) and set(c[: -len(t)]) <= {"-"} for c, t in zip(grid, tails, strict=True)
    )


@pytest.mark.parametrize("ident", ["cryx/deathripper", "cryx/defiler"])
def test_bonejack_grid(ident):
    grid = load_warmachine(ident).grid_columns
    assert grid == ["-HH", "-HC", "--CC", "--AM", "-AM", "-MM"]
    assert "Arc Node" in load_warmachine(ident).special_rules


def test_juggernaut_grid_exact():
    assert load_warmachine("khador/juggernaut").grid_columns == [
        "----L",
        "---LLM",
        "----MM",
        "----CC",
        "---RRC",
        "----R",
    ]


@pytest.mark.parametrize("ident,path", sorted(REQUIRED_DOUBTS.items()))
def test_low_confidence_values_are_flagged(ident, path):
    p = load_warmachine(ident)
    assert p.doubt(path), f"{ident}: {path} needs a [low_confidence] note (PR-2)"


def test_engine_keywords_present():
    assert load_warmachine("cryx/deathripper").weapons[0].has_rule("Sustained Attack")
    assert load_warmachine("protectorate/revenger").weapons[1].has_rule("Powerful Charge")
    assert load_warmachine("protectorate/revenger").weapons[0].has_rule("Shield")
    assert load_warmachine("cygnar/lancer").weapons[0].has_rule("Reach")
    assert any(
        r.startswith("Combo Strike") for r in load_warmachine("cryx/slayer").weapons[1].rules
    )
    assert load_warmachine("protectorate/repenter").weapons[1].spray_length == 8


def test_models_are_frozen():
    p = load_warmachine("khador/juggernaut")
    with pytest.raises(ValidationError, match="frozen"):
        p.points = 1  # type: ignore[misc]


def test_draw_grid_rows_by_six_columns():
    rows = draw_grid(load_warmachine("khador/juggernaut").grid_columns)
    assert rows[0] == "1 2 3 4 5 6"
    assert rows[4:] == ["- L - - R -", "L L M C R R", "  M M C C  "]


# --------------------------------------------------------------------------- bad files


def _errors_of(data: dict) -> str:
    with pytest.raises(ProfileError) as info:
        validate_data("warmachine", data, "my.toml")
    return info.value.one_line()


def _jug() -> dict:
    return copy.deepcopy(_raw("khador/juggernaut"))


FIX = "; fix: see `mathhammer profiles schema --game warmachine`"


def test_bad_letter_in_grid():
    data = _jug()
    data["grid"][2] = "--X-MM"
    assert _errors_of(data) == (
        "my.toml: grid.2: column 3 has letter(s) 'X'; allowed: "
        "-, L, R, H, A, C, M (got '--X-MM')" + FIX
    )


def test_five_columns():
    data = _jug()
    data["grid"] = data["grid"][:5]
    assert _errors_of(data) == "my.toml: grid: must have exactly 6 columns (got 5)" + FIX


def test_negative_stat():
    data = _jug()
    data["stats"]["spd"] = -1
    assert (
        _errors_of(data)
        == "my.toml: stats.spd: Input should be greater than or equal to 0 (got -1)" + FIX
    )


def test_def_zero_is_impossible():
    data = _jug()
    data["stats"]["def"] = 0
    assert (
        _errors_of(data)
        == "my.toml: stats.def: Input should be greater than or equal to 1 (got 0)" + FIX
    )


def test_pow_plus_str_mismatch():
    data = _jug()
    data["weapons"][0]["pow_plus_str"] = 20
    assert (
        _errors_of(data)
        == "my.toml: weapons.0.pow_plus_str: must equal POW + STR = 7 + 12 = 19 (got 20)" + FIX
    )


def test_unknown_key_names_allowed_keys():
    data = _jug()
    data["weapons"][1]["colour"] = "red"
    assert _errors_of(data) == (
        "my.toml: weapons.1.colour: unknown key; allowed here: name, kind, rng, pow, pow_plus_str, "
        "location, rof, aoe, rules, confidence" + FIX
    )


def test_all_errors_at_once_sorted_by_key_path():
    data = _jug()
    data["grid"] = data["grid"][:5]
    data["stats"]["arm"] = 0
    data["weapons"][0]["pow_plus_str"] = 1
    data["weapons"][1]["location"] = "Q"
    data["points"] = -3
    with pytest.raises(ProfileError) as info:
        validate_data("warmachine", data, "my.toml")
    keys = [key for key, _ in info.value.problems]
    assert keys == ["grid", "points", "stats.arm", "weapons.0.pow_plus_str", "weapons.1.location"]


def test_truncated_toml(tmp_path):
    text = (profiles_root() / "warmachine" / "khador" / "juggernaut.toml").read_text()
    path = tmp_path / "cut.toml"
    path.write_text(text[: text.index('name = "Ice Axe"') + 9])
    with pytest.raises(ProfileError) as info:
        load_warmachine(str(path))
    assert info.value.one_line() == (
        f"{path}: is not valid TOML: Unterminated string (at end of document); "
        "fix: fix the syntax at that line (see toml.io)"
    )


@pytest.mark.parametrize(
    "change,expected",
    [
        (
            lambda d: d.update(boxes=20),
            "boxes: a warjack has a grid, not a damage track; remove boxes",
        ),
        (lambda d: d.pop("grid"), "grid: a warjack needs a damage grid of six columns"),
        (lambda d: d.pop("size"), 'size: a warjack needs size = "light" or "heavy"'),
        (
            lambda d: d.update(faction="cygnar"),
            "faction: must match the id's first part 'khador' (got 'cygnar')",
        ),
        (
            lambda d: d.update(grid=["", "", "", "", "", ""]),
            "grid: has no boxes; each column is a string of boxes such as '--LL'",
        ),
        (
            lambda d: d["weapons"][0].update(location="H"),
            "weapons.0.location: system 'H' is not on the grid (grid letters: CLMR)",
        ),
        (
            lambda d: d["weapons"][0].pop("pow_plus_str"),
            "weapons.0.pow_plus_str: a melee weapon with POW needs P+S (POW 7 + STR 12)",
        ),
        (
            lambda d: d["weapons"][0].update(kind="ranged", rng=12),
            "weapons.0.pow_plus_str: only melee weapons have P+S (got 19)",
        ),
        (
            lambda d: d["weapons"][0].update(rng="SP"),
            "weapons.0.rng: must be inches from 0 to 100 or a spray like \"SP8\" (got 'SP')",
        ),
        (lambda d: d["stats"].update(focus=6), "stats.focus: only warcasters have FOCUS (got 6)"),
        (
            lambda d: d.update(low_confidence={"stats.xyz": "why"}),
            "low_confidence.stats.xyz: names no key of this profile; "
            'use a path like "stats.mat" or "weapons.0.pow"',
        ),
        (
            lambda d: d.update(kind="warcaster"),
            "boxes: a warcaster needs its damage boxes, e.g. boxes = 17",
        ),
        (
            lambda d: d.update(points=-1),
            "points: Input should be greater than or equal to 0 (got -1)",
        ),
        (lambda d: d.update(schema_version=2), "schema_version: Input should be 1 (got 2)"),
        (
            lambda d: d["weapons"][0].update(rng=-1),
            'weapons.0.rng: must be inches from 0 to 100 or a spray like "SP8" (got -1)',
        ),
        (
            lambda d: d["weapons"][0].update(pow=True),
            "weapons.0.pow: Input should be a valid integer (got True)",
        ),
        (
            lambda d: d["weapons"][0].update(aoe=float("nan")),
            "weapons.0.aoe: Input should be a finite number (got nan)",
        ),
        (
            lambda d: d["stats"].update(mat=6.5),
            "stats.mat: Input should be a valid integer (got 6.5)",
        ),
        (lambda d: d["stats"].pop("arm"), "stats.arm: is required but missing"),
    ],
)
def test_consistency_messages(change, expected):
    data = _jug()
    change(data)
    assert expected in _errors_of(data)


def test_warcaster_checks():
    data = copy.deepcopy(_raw("cryx/deneghra"))
    data["stats"].pop("focus")
    data["weapons"][0]["location"] = "L"
    data["spells"][0]["rng"] = "FAR"
    message = _errors_of(data)
    assert "stats.focus: a warcaster needs its FOCUS stat" in message
    assert "weapons.0.location: a warcaster has no grid systems; use \"-\" (got 'L')" in message
    assert (
        'spells.0.rng: must be inches from 0 to 100, "SELF", "CTRL" or a spray like "SP8" '
        "(got 'FAR')"
    ) in message


def test_low_confidence_by_weapon_name():
    data = _jug()
    data["low_confidence"] = {"weapons.Ice Axe.pow": "a doubt"}
    assert validate_data("warmachine", data, "x").doubt("weapons.Ice Axe.pow") == "a doubt"


def test_unknown_id_suggests_closest():
    with pytest.raises(UnknownProfileError) as info:
        load_warmachine("khador/jugernaut")
    assert "did you mean khador/juggernaut" in info.value.one_line()


def test_model_validator_guards_python_construction():
    data = _jug()
    data["weapons"][0]["pow_plus_str"] = 3
    with pytest.raises(Exception, match="must equal POW \\+ STR"):
        WarmachineProfile.model_validate(data)


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.lists(st.text(max_size=6), max_size=7),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@settings(max_examples=150, deadline=None)
@given(
    path=st.sampled_from(
        [
            "id",
            "kind",
            "size",
            "points",
            "grid",
            "stats.def",
            "stats.str",
            "stats",
            "weapons",
            "weapons.0",
            "weapons.0.pow",
            "weapons.0.rng",
            "weapons.1.location",
            "low_confidence",
            "feat",
            "boxes",
            "spells",
            "game",
            "sources",
        ]
    ),
    value=_values,
)
def test_fuzzed_values_give_profile_errors_only(path, value):
    """Any value at any key: either a valid profile or one ProfileError, never another exception."""
    data = _jug()
    node = data
    *parents, last = path.split(".")
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    try:
        validate_data("warmachine", data, "fuzz.toml")
    except ProfileError as err:
        assert err.one_line().startswith("fuzz.toml: ")
        assert "\n" not in err.one_line()
