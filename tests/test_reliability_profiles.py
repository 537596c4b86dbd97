"""Profiles (PR-3): every bundled file validates; consistency checks; all errors at once.

``mathhammer profiles validate profiles/`` must pass on everything shipped under
``profiles/`` (unit profiles, the example, army lists and scenario files). A
file with several mistakes gets every one reported in one run, one line each,
sorted by key path, then a count; exit 2.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_reliability_harness import ROOT, chdir_scratch, run_inprocess

JUGGERNAUT = ROOT / "profiles/warmachine/khador/juggernaut.toml"
ORCS = ROOT / "profiles/fantasy/wfb8/orc_boyz.toml"


def _edit(src: Path, dst: Path, *pairs: tuple[str, str]) -> Path:
    text = src.read_text(encoding="utf-8")
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    dst.write_text(text, encoding="utf-8")
    return dst


def test_every_bundled_file_validates():
    with chdir_scratch(ROOT):
        code, out, err = run_inprocess(["profiles", "validate", "profiles/"])
    assert code == 0, err
    assert err == ""
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "profiles").rglob("*.toml"))
    ok = sorted(line.split()[1] for line in out.splitlines() if line.startswith("ok "))
    assert ok == files


def test_warmachine_consistency_errors_all_at_once_sorted(tmp_path):
    bad = _edit(JUGGERNAUT, tmp_path / "jug.toml",
                ("points = 7", "points = -1"), ("pow_plus_str = 19", "pow_plus_str = 20"),
                ('"----L", "---LLM"', '"----Z", "---LLM"'), ("mat = 6", 'mat = "six"'))
    code, out, err = run_inprocess(["profiles", "validate", str(bad)])
    assert code == 2
    assert err == (
        f"invalid {bad}: grid.0: column 1 has letter(s) 'Z'; allowed: -, L, R, H, A, C, M "
        "(got '----Z')\n"
        f"invalid {bad}: points: Input should be greater than or equal to 0 (got -1)\n"
        f"invalid {bad}: stats.mat: Input should be a valid integer (got 'six')\n"
        f"invalid {bad}: weapons.0.pow_plus_str: must equal POW + STR = 7 + 12 = 19 (got 20)\n"
        "1 of 1 file(s) invalid\n")


def test_grid_needs_six_columns(tmp_path):
    bad = _edit(JUGGERNAUT, tmp_path / "jug5.toml",
                ('"---RRC", "----R"]', '"---RRC"]'))
    code, out, err = run_inprocess(["profiles", "validate", str(bad)])
    assert code == 2
    assert err == (f"invalid {bad}: grid: must have exactly 6 columns (got 5)\n"
                   "1 of 1 file(s) invalid\n")


def test_fantasy_errors_all_at_once_sorted(tmp_path):
    bad = _edit(ORCS, tmp_path / "orc.toml", ("per_model = 6", "per_model = -3"),
                ("t = 4", "t = 11"), ("models = 20", "models = 0"))
    code, out, err = run_inprocess(["profiles", "validate", str(bad)])
    assert code == 2
    assert err == (
        f"invalid {bad}: formation.models: Input should be greater than or equal to 1 (got 0)\n"
        f"invalid {bad}: points.per_model: Input should be greater than or equal to 0 (got -3)\n"
        f"invalid {bad}: stats.t: Input should be less than or equal to 10 (got 11)\n"
        "1 of 1 file(s) invalid\n")


def test_lists_and_scenarios_are_checked_not_skipped(tmp_path):
    """A bad list or scenario under a folder is reported (not passed as 'not a profile')."""
    lst = _edit(ROOT / "profiles/lists/cygnar_battlebox.toml", tmp_path / "list.toml",
                ('profile = "cygnar/ironclad"', 'profile = "cygnar/ironclod"'))
    scen = _edit(ROOT / "profiles/scenarios/magic_wfb8_two_wizards.toml", tmp_path / "s.toml",
                 ("cv = 16", "cv = -16"))
    code, out, err = run_inprocess(["profiles", "validate", str(tmp_path)])
    assert code == 2
    lines = err.splitlines()
    assert lines[-1] == "2 of 2 file(s) invalid"
    assert any(line.startswith(f"invalid {lst}: ") and "ironclod" in line for line in lines)
    assert any(line.startswith(f"invalid {scen}: ") and "cv" in line for line in lines)


def test_damage_boxes_must_be_positive(tmp_path):
    bad = _edit(ROOT / "profiles/warmachine/khador/sorscha.toml", tmp_path / "sor.toml",
                ("boxes = 17", "boxes = 0"))
    code, out, err = run_inprocess(["profiles", "validate", str(bad)])
    assert code == 2
    assert err == (f"invalid {bad}: boxes: Input should be greater than or equal to 1 (got 0)\n"
                   "1 of 1 file(s) invalid\n")
