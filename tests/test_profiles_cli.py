"""`mathhammer profiles list|show|validate|schema` (PR-1..3), run in-process and as a subprocess."""

from __future__ import annotations

import json
import shutil

import pytest

from mathhammer.cli import main
from mathhammer.profiles import profiles_root

from .conftest import run_cli

JUGGERNAUT = profiles_root() / "warmachine" / "khador" / "juggernaut.toml"


def cli(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(list(args))
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def test_list_warmachine_table(capsys):
    code, out, _ = cli(capsys, "profiles", "list", "--game", "warmachine")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["game", "id", "name", "kind", "points", "confidence"]
    jug = next(line for line in lines if "khador/juggernaut" in line)
    assert jug.split()[2:7] == ["Juggernaut", "heavy", "warjack", "7", "medium"]
    assert "WJ +6" in next(line for line in lines if "cygnar/stryker" in line)
    assert sum("warmachine" in line for line in lines) == 15


def test_list_json(capsys):
    code, out, _ = cli(capsys, "profiles", "list", "--game", "warmachine", "--format", "json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)["profiles"]}
    assert rows["khador/juggernaut"] == {
        "game": "warmachine",
        "id": "khador/juggernaut",
        "name": "Juggernaut",
        "kind": "heavy warjack",
        "points": 7,
        "confidence": "medium",
        "low_confidence": 2,
    }
    assert rows["cryx/deneghra"]["warjack_points"] == 5


def test_list_every_game_includes_fantasy_rows(capsys):
    code, out, _ = cli(capsys, "profiles", "list", "--format", "json")
    assert code == 0
    games = {r["game"] for r in json.loads(out)["profiles"]}
    assert "warmachine" in games
    if any((profiles_root() / "fantasy").rglob("*.toml")):
        assert "fantasy" in games


def test_show_juggernaut_prints_grid(capsys):
    code, out, _ = cli(capsys, "profiles", "show", "khador/juggernaut")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Juggernaut  (khador/juggernaut)"
    start = next(i for i, line in enumerate(lines) if line.startswith("damage grid"))
    assert "34 boxes" in lines[start]
    grid = lines[start + 2 : start + 9]
    assert grid == [
        "  1 2 3 4 5 6",
        "  - - - - - -",
        "  - - - - - -",
        "  - - - - - -",
        "  - L - - R -",
        "  L L M C R R",
        "    M M C C",
    ]
    assert "  systems: L 3, R 3, C 3, M 3" in lines
    assert any(line.split()[:3] == ["Ice", "Axe", "melee"] and "7*" in line for line in lines)
    assert any(line.startswith("  * weapons.0.pow: ") for line in lines)


def test_show_flags_low_confidence_stat(capsys):
    code, out, _ = cli(capsys, "profiles", "show", "cygnar/lancer")
    assert code == 0
    stat_row = out.splitlines()[out.splitlines().index("  SPD  STR  MAT  RAT  DEF  ARM") + 1]
    assert stat_row.split() == ["6", "8", "6", "6*", "13", "16"]
    assert "  * stats.rat: the Lancer carries no ranged weapon" in out


def test_show_warcaster_boxes_spells_feat(capsys):
    code, out, _ = cli(capsys, "profiles", "show", "protectorate/kreoss")
    assert code == 0
    assert "damage boxes: 18 (WM-G6)" in out
    assert "feat: Menoth's Wrath" in out
    assert any(line.split()[:3] == ["Cleansing", "Fire", "3"] for line in out.splitlines())


def test_show_json_is_the_model(capsys):
    code, out, _ = cli(capsys, "profiles", "show", "khador/juggernaut", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["stats"]["def"] == 10 and data["grid"][1] == "---LLM"
    assert data["weapons"][0]["pow_plus_str"] == 19


def test_show_user_file(capsys, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        JUGGERNAUT.read_text().replace('id = "khador/juggernaut"', 'id = "khador/my_jack"')
    )
    code, out, _ = cli(capsys, "profiles", "show", str(path))
    assert code == 0 and "(khador/my_jack)" in out


def test_unknown_id_suggests_closest(capsys):
    code, out, err = cli(capsys, "profiles", "show", "khador/jugernaut")
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "error: profile 'khador/jugernaut': no such profile; fix: did you mean khador/juggernaut, "
        "khador/sorscha, khador/destroyer?"
    ]


def test_validate_ok(capsys):
    code, out, err = cli(capsys, "profiles", "validate", str(JUGGERNAUT))
    assert code == 0 and err == ""
    assert out == f"ok {JUGGERNAUT} (warmachine khador/juggernaut)\n"


def test_validate_folder_of_bundled_files(capsys):
    code, out, _ = cli(capsys, "profiles", "validate", str(profiles_root() / "warmachine"))
    assert code == 0
    assert len(out.splitlines()) == 15 and all(line.startswith("ok ") for line in out.splitlines())


def test_validate_example_file(capsys):
    example = profiles_root() / "examples" / "my_juggernaut.toml"
    code, out, _ = cli(capsys, "profiles", "validate", str(example))
    assert code == 0, out


def _bad_file(tmp_path, name, old, new):
    text = JUGGERNAUT.read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return path


def test_validate_reports_every_error_sorted(capsys, tmp_path):
    bad = _bad_file(tmp_path, "bad.toml", '"----MM", "----CC"', '"----MX"')
    text = bad.read_text().replace("def = 10", "def = -2").replace("pow_plus_str = 19", "pow_plus_str = 18")
    bad.write_text(text.replace('kind = "warjack"', 'kind = "warjack"\ncolour = "red"'))
    good = JUGGERNAUT
    code, out, err = cli(capsys, "profiles", "validate", str(good), str(bad))
    assert code == 2
    assert out == f"ok {good} (warmachine khador/juggernaut)\n"
    assert err.splitlines()[:5] == [
        f"invalid {bad}: colour: unknown key; allowed here: schema_version, game, id, name, "
        "faction, aliases, kind, size, base, points, warjack_points, confidence, sources, special_rules, "
        "feat, stats, grid, boxes, low_confidence, weapons, spells, effects",
        f"invalid {bad}: grid: must have exactly 6 columns (got 5)",
        f"invalid {bad}: grid.2: column 3 has letter(s) 'X'; allowed: -, L, R, H, A, C, M "
        "(got '----MX')",
        f"invalid {bad}: stats.def: Input should be greater than or equal to 1 (got -2)",
        f"invalid {bad}: weapons.0.pow_plus_str: must equal POW + STR = 7 + 12 = 19 (got 18)",
    ]
    assert err.splitlines()[-1] == "1 of 2 file(s) invalid"


def test_validate_truncated_and_gameless(capsys, tmp_path):
    cut = tmp_path / "cut.toml"
    cut.write_text(JUGGERNAUT.read_text()[:200] + '\nname = "Ice')
    nogame = _bad_file(tmp_path, "nogame.toml", 'game = "warmachine"\n', "")
    code, out, err = cli(capsys, "profiles", "validate", str(cut), str(nogame), "--format", "json")
    assert code == 2
    files = json.loads(out)["files"]
    assert [f["ok"] for f in files] == [False, False]
    assert files[0]["errors"] == [
        {
            "key": "(file)",
            "message": "is not valid TOML: Unterminated string (at end of document); "
            "fix: fix the syntax at that line (see toml.io)",
        }
    ]
    assert files[1]["errors"] == [
        {
            "key": "game",
            "message": "must name the game the file is for; "
            'fix: add game = "warmachine" or game = "fantasy"',
        }
    ]


def test_validate_missing_file(capsys, tmp_path):
    code, _, err = cli(capsys, "profiles", "validate", str(tmp_path / "nope.toml"))
    assert code == 2
    assert "file not found" in err


def test_schema_warmachine(capsys):
    code, out, _ = cli(capsys, "profiles", "schema", "--game", "warmachine")
    assert code == 0
    schema = json.loads(out)
    assert schema["additionalProperties"] is False
    assert {"stats", "grid", "weapons", "low_confidence"} <= set(schema["properties"])
    assert set(schema["$defs"]["Stats"]["properties"]) >= {"def", "str", "arm", "focus"}


def test_schema_every_game(capsys):
    code, out, _ = cli(capsys, "profiles", "schema")
    assert code == 0
    assert set(json.loads(out)) == {"warmachine", "fantasy"}


def test_bad_game_and_format(capsys):
    code, _, err = cli(capsys, "profiles", "list", "--game", "chess")
    assert code == 2 and "--game: must be one of warmachine, fantasy" in err
    code, _, err = cli(capsys, "profiles", "show", "khador/juggernaut", "--format", "csv")
    assert code == 2 and "--format: must be table or json" in err


def test_subprocess_show_and_unknown():
    """The installed entry point, as a user runs it."""
    proc = run_cli("profiles", "show", "khador/juggernaut")
    assert proc.returncode == 0 and "  L L M C R R" in proc.stdout
    proc = run_cli("profiles", "show", "khador/jugernaut")
    assert proc.returncode == 2 and "did you mean khador/juggernaut" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_validate_copy_of_whole_tree(capsys, tmp_path):
    """A user's copy of the bundled folder validates the same (ids are free-form in user files)."""
    shutil.copytree(profiles_root() / "warmachine", tmp_path / "wm")
    code, out, _ = cli(capsys, "profiles", "validate", str(tmp_path / "wm"))
    assert code == 0 and out.count("ok ") == 15


def test_show_and_validate_fantasy_profile_through_the_registry(capsys):
    """The same commands work for the Fantasy game via mathhammer.profiles.register_model."""
    code, out, _ = cli(capsys, "profiles", "list", "--game", "fantasy", "--format", "json")
    valid = [r["id"] for r in json.loads(out)["profiles"] if r["kind"] != "INVALID"]
    if not valid:
        pytest.skip("no valid bundled fantasy profile yet")
    code, out, _ = cli(capsys, "profiles", "show", valid[0], "--game", "fantasy")
    assert code == 0 and out.splitlines()[0].endswith(f"({valid[0]})")
    path = profiles_root() / "fantasy" / f"{valid[0]}.toml"
    code, out, _ = cli(capsys, "profiles", "validate", str(path))
    assert code == 0 and out == f"ok {path} (fantasy {valid[0]})\n"


def test_every_truncation_of_a_profile_is_a_clean_result(tmp_path):
    """Cut the Juggernaut file at every 13th character: each cut validates or gives
    one-line errors with a key, never an exception (issue 8, truncated files)."""
    from mathhammer.cli.profiles import validate_file

    text = JUGGERNAUT.read_text()
    path = tmp_path / "cut.toml"
    outcomes = set()
    for end in range(0, len(text), 13):
        path.write_text(text[:end])
        result = validate_file(path)
        outcomes.add(result["ok"])
        if not result["ok"]:
            assert result["errors"]
            for e in result["errors"]:
                assert e["key"] and e["message"] and "\n" not in e["message"]
    assert False in outcomes


def test_unicode_and_huge_values(capsys, tmp_path):
    path = _bad_file(tmp_path, "u.toml", 'name = "Juggernaut"', 'name = "Джаггернаут ❄"')
    path.write_text(path.read_text().replace("arm = 20", "arm = 100000000000000000000"))
    code, _, err = cli(capsys, "profiles", "validate", str(path))
    assert code == 2
    assert err.splitlines()[0] == (
        f"invalid {path}: stats.arm: Input should be less than or equal "
        "to 30 (got 100000000000000000000)"
    )


def test_list_skips_a_game_without_a_model(capsys, monkeypatch):
    """A game whose engine is not installed does not break `profiles list` for the others."""
    from mathhammer import game as games

    class Chess(games.Game):
        name = "chess"

    games.register(Chess())
    try:
        code, out, _ = cli(capsys, "profiles", "list", "--format", "json")
    finally:
        games.unregister("chess")
    assert code == 0
    assert {r["game"] for r in json.loads(out)["profiles"]} == {"warmachine", "fantasy"}
