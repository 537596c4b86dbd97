"""`mathhammer import` (issue 14 part 4): each format converts its bundled example and a
hand-written one of the same structure into a list the loader reads; unknown names are
flagged; broken, hostile and unknown-only files are one line, exit 2."""

from __future__ import annotations

import io
import json
import tomllib
import zipfile

import pytest

from mathhammer.imports import import_file
from mathhammer.lists import load_list
from tests.conftest import cli_result
from tests.test_reliability_harness import ROOT

EXAMPLES = ROOT / "profiles" / "imports"




def units_of(text: str) -> list[tuple]:
    army = load_list(tomllib.loads(text))
    return [(u.profile_id, u.count, getattr(getattr(u.profile, "formation", None), "models", None))
            for u in army.units]


@pytest.mark.parametrize("name, expected", [
    ("khador_mk2.txt", [("khador/sorscha", 1, None), ("khador/juggernaut", 1, None),
                        ("khador/destroyer", 1, None)]),
    ("orcs_t9a.txt", [("t9a1/og_orc_warlord", 1, 1), ("t9a1/og_orc_chief", 1, 1),
                      ("t9a1/og_orcs", 1, 20), ("t9a1/og_giant", 1, 1)]),
    ("highborn_t9a.json", [("t9a1/hbe_commander", 1, 1), ("t9a1/hbe_spearmen", 1, 25),
                           ("t9a1/hbe_sword_masters", 1, 15)]),
    ("empire_wfb8.ros", [("wfb8/empire_halberdiers", 1, 20), ("wfb8/empire_handgunners", 1, 10)]),
    ("empire_wfb8.rosz", [("wfb8/empire_halberdiers", 1, 20), ("wfb8/empire_handgunners", 1, 10)]),
])
def test_each_bundled_example_converts_to_a_list_that_loads(name, expected):
    report, text = import_file(EXAMPLES / name)
    assert units_of(text) == expected
    assert report.headline.startswith("Converted ")


def test_a_hand_written_mk2_list(tmp_path):
    path = tmp_path / "cygnar.txt"
    path.write_text("Faction: Cygnar\nPoints: 15/15\n\nCommander Stryker - WJ: +6\n"
                    "* 2x Ironclad (7pts)\n* Lancer - PC: 6\n* Charger 4 pts\n")
    report, text = import_file(path)
    assert units_of(text) == [("cygnar/stryker", 1, None), ("cygnar/ironclad", 2, None),
                              ("cygnar/lancer", 1, None), ("cygnar/charger", 1, None)]
    assert report.info["points_printed"] == 7 * 2 + 6 + 4  # WJ +6 is not a cost


def test_a_hand_written_t9a_list_with_sizes_and_command(tmp_path):
    path = tmp_path / "dwarfs.txt"
    path.write_text("1000 - Dwarven Holds\n== Core ==\n25 Clan Warriors, Shield, Champion, Musician - 250\n"
                    "Greybeards, Standard Bearer [225]\nRune Golem - 180\n")
    report, text = import_file(path, ruleset="t9a1")
    data = tomllib.loads(text)
    assert data["points"] == 1000 and data["name"] == "Dwarven Holds"
    first = data["units"][0]  # the export's command: the standard it does not list is off
    assert first == {"profile": "t9a1/dh_clan_warriors", "models": 25, "champion": True,
                     "musician": True, "standard": False}
    assert data["units"][1] == {"profile": "t9a1/dh_greybeards", "standard": True,
                                "champion": False, "musician": False}
    assert report.results["entries_unknown"].value == 1 and "Rune Golem" in text


def _roster(body: str, system: str = "Warhammer Fantasy 8th Edition") -> bytes:
    return (f'<?xml version="1.0"?><roster name="R" gameSystemName="{system}" '
            f'xmlns="http://www.battlescribe.net/schema/rosterSchema"><forces><force><selections>'
            f'{body}</selections></force></forces></roster>').encode()


def test_a_hand_written_roster_and_its_zip(tmp_path):
    body = ('<selection name="Orc Boyz" number="1" type="unit"><selections>'
            '<selection name="Orc Boy" number="25" type="model"/>'
            '<selection name="Boss" number="1" type="upgrade"/></selections>'
            '<costs><cost name="pts" value="175"/></costs></selection>'
            '<selection name="Orc Warboss" number="1" type="model"/>')
    ros = tmp_path / "orcs.ros"
    ros.write_bytes(_roster(body))
    _, text = import_file(ros)
    assert units_of(text) == [("wfb8/orc_boyz", 1, 25), ("wfb8/orc_warboss", 1, 1)]
    rosz = tmp_path / "orcs.rosz"
    with zipfile.ZipFile(rosz, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("orcs.ros", _roster(body))
    assert import_file(rosz)[1].split("\n", 2)[2] == text.split("\n", 2)[2]


def test_the_cli_writes_the_list_and_says_what_it_did(tmp_path):
    out = tmp_path / "list.toml"
    code, stdout, err = cli_result("import", EXAMPLES / "orcs_t9a.txt", "-o", out)
    assert code == 0 and stdout == "" and err.startswith("Converted the export")
    assert "kept 4 of 5 entries and 7 of 7 options" in err
    assert "# UNKNOWN: Night Goblin Fanatic" in out.read_text()
    load_list(str(out))
    code, stdout, _ = cli_result("import", EXAMPLES / "orcs_t9a.txt", "--format", "json")
    report = json.loads(stdout)
    assert report["command"] == "import" and report["results"]["entries_converted"]["value"] == 4
    assert report["results"]["options_kept"]["value"] == 7
    code, stdout, _ = cli_result("import", EXAMPLES / "khador_mk2.txt")
    assert stdout.startswith("# Converted the export") and "kept 3 of 3 entries" in stdout


def _bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("big.ros", b"<" + b" " * 50_000_000)
    return buf.getvalue()


@pytest.mark.parametrize("name, content, words", [
    ("garbage.txt", b"\x00\x01garbage\xff", "UTF-8"),
    ("nothing.txt", b"Steam Tank Mk2\nFlying Carpet\n", "none of its 2 entries"),
    ("cut.ros", _roster('<selection name="Halberdiers" number="1" type="unit">')[:120], "XML"),
    ("entities.ros", b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><roster>&a;</roster>',
     "ENTITY"),
    ("bomb.rosz", _bomb(), "archive"),
    ("two.rosz", None, ".ros rosters"),
])
def test_bad_files_are_one_line_exit_2(tmp_path, name, content, words):
    path = tmp_path / name
    if content is None:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("a.ros", _roster(""))
            z.writestr("b.ros", _roster(""))
    else:
        path.write_bytes(content)
    out_file = tmp_path / "out.toml"
    code, out, err = cli_result("import", path, "-o", out_file)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert words.lower() in err.lower() and not out_file.exists()


def test_a_near_miss_says_did_you_mean(tmp_path):
    path = tmp_path / "l.txt"
    path.write_text("500 - Empire\n20 Halberdeers - 145\n10 Handgunners - 90\n")
    report, text = import_file(path, ruleset="wfb8")
    assert "did you mean wfb8/empire_halberdiers" in report.headline


def test_names_with_quotes_and_newlines_still_give_a_list_file_that_loads(tmp_path):
    body = ('<selection name="Orc Boyz" number="1" type="unit"/>'
            '<selection name="Da &quot;Big&quot;&#10;Gun" number="1" type="model"/>')
    ros = tmp_path / "odd.ros"
    ros.write_bytes(_roster(body).replace(b'name="R"', b'name="Waaagh &quot;1&quot;&#10;list"'))
    report, text = import_file(ros)
    data = tomllib.loads(text)
    assert data["name"] == 'Waaagh "1"\nlist' and report.results["entries_unknown"].value == 1
    load_list(data)


# --------------------------------------------------------------------------- coverage (issue 32 part 4)


def test_the_bundled_t9a_text_names_every_dropped_option():
    """Spear, Shield and General were dropped silently; now the Orcs' Spear and the Warlord's
    Shield are kit their profiles sell (points.kit_options, BSData/The-9th-Age 1.3): bought
    and priced; what is dropped is named with why, and the command the export buys (and
    only that) reaches the list."""
    report, text = import_file(EXAMPLES / "orcs_t9a.txt")
    line = report.headline
    assert "Night Goblin Fanatic — no bundled fantasy t9a1 profile" in line, line
    assert "General" not in line  # the Warlord is the list's general (FB-K4)
    assert "kept 4 of 5 entries and 7 of 7 options" in line
    data = tomllib.loads(text)
    warlord = next(u for u in data["units"] if u["profile"] == "t9a1/og_orc_warlord")
    assert warlord["general"] and warlord["buys"] == "shield"
    army = load_list(data)  # the loader takes it (one general)
    orcs = next(u for u in data["units"] if u["profile"] == "t9a1/og_orcs")
    assert orcs["musician"] and orcs["standard"] and orcs["champion"] is False
    assert orcs["buys"] == "spear"
    assert next(u for u in data["units"] if u["profile"] == "t9a1/og_orc_chief")["battle_standard"]
    bought = {u.profile_id: u.points for u in army.units}
    assert bought["t9a1/og_orc_warlord"] == 240 + 10  # the shield, BSData 1.3
    assert bought["t9a1/og_orcs"] == -60 + 20 * (12 + 1 + 1) + 20 + 20  # shields and spears


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir()))
def test_every_import_accounts_for_every_option(name):
    """kept + dropped = printed, and each dropped option is named in the report."""
    report, _ = import_file(EXAMPLES / name)
    r = {k: int(v.value) for k, v in report.results.items()}
    assert r["options_kept"] + r["options_dropped"] == r["options"]
    named = [d for d in report.info["dropped"] if d != "none" and " — no bundled" not in d]
    carried = sum(int(d.split(" and its ")[1].split()[0]) for d in report.info["dropped"]
                  if " and its " in d)
    assert len(named) + carried == r["options_dropped"]
    assert report.headline.count("kept ") == 1


def test_the_new_recruit_json_example_converts():
    report, text = import_file(EXAMPLES / "highborn_t9a.json")
    assert report.info["format"] == "New Recruit JSON roster"
    army = load_list(tomllib.loads(text))
    assert army.points_limit == 1500
    spears = army.unit("Spearmen")
    assert spears.profile.formation.models == 25 and spears.profile.formation.champion
    # the commander's heavy armour is the profile's own priced upgrade: kept
    assert "Heavy Armour" not in " ".join(report.info["dropped"])
    assert "Banner of the World Dragon (Citizen Spears) — not in the profile" in report.headline
    assert "Sea Guard — no bundled" in report.headline


def test_json_is_detected_by_content_too(tmp_path):
    path = tmp_path / "list.export"
    path.write_bytes((EXAMPLES / "highborn_t9a.json").read_bytes())
    assert import_file(path)[0].info["format"] == "New Recruit JSON roster"


def test_a_battle_standard_is_a_priced_list_option():
    army = load_list({"game": "fantasy", "ruleset": "t9a1", "points": 900,
                      "units": [{"profile": "t9a1/og_orc_chief", "battle_standard": True}]})
    assert army.units[0].points == 120 + 50
    with pytest.raises(Exception) as info:
        load_list({"game": "fantasy", "ruleset": "t9a1", "points": 900,
                   "units": [{"profile": "t9a1/og_orc_warlord", "battle_standard": True}]})
    assert "battle standard" in str(info.value)


def test_an_option_the_profile_sells_becomes_the_entrys_buys(tmp_path):
    """Issue 32 parts 3-4: "Spears" on wfb8 Orc Boyz is kit their profile sells
    (points.kit_options): kept as `buys = "spear"`, priced in the list's points."""
    export = tmp_path / "orcs.txt"
    export.write_text("Orcs and Goblins, 500 pts\n++ Core ++\n200 - 25 Orc Boyz, Spears, Shields\n")
    report, text = import_file(export, ruleset="wfb8")
    assert "kept 1 of 1 entry and 2 of 2 options; nothing dropped" in report.headline
    data = tomllib.loads(text)
    assert data["units"][0]["buys"] == "spear"
    unit = load_list(data).units[0]
    assert "spear" in unit.profile.equipment and unit.points == 25 * 8  # 6 + shield 1 + spear 1


def test_options_are_kept_once_each_up_to_the_bound():
    """An entry's options: spaces folded, each name kept once whatever its case, in the
    order first named, at most MAX_OPTIONS of them; one pass gives what one call per
    option gives."""
    from mathhammer.imports.model import MAX_OPTIONS, add_option, add_options

    names = ["Shield", " shield ", "Full  Command", "", "full command", "Banner", "Shield"]
    one_by_one: list = []
    for name in names:
        add_option(one_by_one, name)
    at_once: list = ["Light Armour"]
    add_options(at_once, names)
    assert one_by_one == ["Shield", "Full Command", "Banner"]
    assert at_once == ["Light Armour", *one_by_one]
    many: list = []
    add_options(many, [f"Option {i}" for i in range(3 * MAX_OPTIONS)] + ["Last"])
    assert many == [f"Option {i}" for i in range(MAX_OPTIONS)]
