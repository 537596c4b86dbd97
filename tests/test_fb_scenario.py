"""`mathhammer run` with game = "fantasy": combat and artillery scenario files."""

from __future__ import annotations


import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import ProfileError
from mathhammer.fantasy.scenario import run_scenario
from mathhammer.profiles import read_toml
from tests.conftest import ROOT, run_json

SCENARIOS = ROOT / "profiles" / "scenarios"
CFG = MonteCarloConfig(n_trials=20_000, seed=4, threads=1)


def test_bundled_scenarios_run_through_cli():
    data = run_json("run", str(SCENARIOS / "fantasy_halberdiers_vs_orcs.toml"), "--n-trials",
                    "20000", "--seed", "1")
    assert data["results"]["p_a_wins"]["se"] > 0
    path = SCENARIOS / "fantasy_stone_thrower.toml"
    report = run_scenario(read_toml(path), str(path), method="auto", config=CFG, check=False)
    assert report.results["p_misfire"].se > 0 and report.info["scenario"].endswith("thrower.toml")


def test_scenario_matches_the_command():
    """The combat scenario is the same query as the flags (same seed, same numbers)."""
    path = SCENARIOS / "fantasy_halberdiers_vs_orcs.toml"
    report = run_scenario(read_toml(path), str(path), method="mc", config=CFG, check=False)
    assert report.info["unit_a"].startswith("wfb8/empire_halberdiers: 30 models, 6 wide")
    assert "charging" in report.info["unit_b"]


def test_scenario_errors_name_the_key(tmp_path):
    base = {"game": "fantasy", "kind": "combat", "a": {"unit": "wfb8/orc_boyz"}}
    with pytest.raises(ProfileError, match="needs the tables"):
        run_scenario(base, "s.toml", method="mc", config=CFG, check=False)
    with pytest.raises(ProfileError, match="rounds"):
        run_scenario({**base, "b": {"unit": "wfb8/orc_boyz"}, "rounds": 0}, "s.toml",
                     method="mc", config=CFG, check=False)
    with pytest.raises(ProfileError, match="colour"):
        run_scenario({**base, "b": {"unit": "wfb8/orc_boyz", "colour": 1}}, "s.toml",
                     method="mc", config=CFG, check=False)
    with pytest.raises(ProfileError, match="exactly one"):
        run_scenario({**base, "b": {}}, "s.toml", method="mc", config=CFG, check=False)
    with pytest.raises(ProfileError, match="artillery.weapon"):
        run_scenario({"game": "fantasy", "kind": "artillery", "target": {"unit": "wfb8/orc_boyz"},
                      "artillery": {"weapon": "catapult"}}, "s.toml", method="mc", config=CFG,
                     check=False)


def test_unit_file_relative_to_scenario(tmp_path):
    from mathhammer.engine import MonteCarloConfig as Config

    (tmp_path / "units").mkdir()
    src = (ROOT / "profiles" / "fantasy" / "wfb8" / "orc_boyz.toml").read_text()
    (tmp_path / "units" / "orcs.toml").write_text(src)
    scenario = tmp_path / "fight.toml"
    scenario.write_text('game = "fantasy"\nrounds = 1\n[a]\nunit = "units/orcs.toml"\n'
                        '[b]\nunit = "wfb8/dwarf_warriors"\n')
    report = run_scenario(read_toml(scenario), str(scenario), method="auto", config=Config(),
                          check=False)
    assert report.method == "exact" and report.info["unit_a"].startswith("wfb8/orc_boyz")


def test_bad_scenario_cli_one_line(tmp_path, capsys):
    from mathhammer.cli import main

    scenario = tmp_path / "bad.toml"
    scenario.write_text('game = "fantasy"\nkind = "duel"\n')
    with pytest.raises(SystemExit) as stop:
        main(["run", str(scenario)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "kind" in err and "Traceback" not in err


def test_bundled_flank_charge_scenario_two_units_against_one():
    """FB-M1: the bundled scenario: two A units (one in B's flank), characters on both
    sides, a battle standard, a general and an accepted challenge (FB-K1..K4)."""
    path = SCENARIOS / "fantasy_flank_charge.toml"
    report = run_scenario(read_toml(path), str(path), method="mc", config=CFG, check=False)
    r = report.results
    assert {"p_broke[A1]", "p_broke[A2]", "p_broke[B]", "p_slain[Captain of the Empire]",
            "p_slain[Orc Big Boss]"} <= set(r)
    assert "in the flank of B" in report.info["unit_a2"]
    assert report.info["challenge"].startswith("Orc Big Boss challenges Captain of the Empire")
    total = sum(r[k].value for k in ("p_a_wins", "p_b_wins", "p_both_standing", "p_both_out"))
    assert total == pytest.approx(1.0)


def test_scenario_characters_and_bad_keys(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "fantasy"\n[a]\nunit = "wfb8/empire_halberdiers"\n[[a.characters]]\n'
                   'unit = "wfb8/orc_big_boss"\n[b]\nunit = "wfb8/orc_boyz"\n')
    with pytest.raises(ProfileError, match="is from Orcs & Goblins"):
        run_scenario(read_toml(bad), str(bad), method="auto", config=CFG, check=False)
