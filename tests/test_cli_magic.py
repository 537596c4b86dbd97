"""`mathhammer magic …` and `mathhammer run` with game = "magic": JSON keys, help, errors."""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathhammer.magic.rolls import cast_odds, dispel_probability, flow_pools, marginals
from mathhammer.magic.rules import magic_rules
from tests.conftest import ROOT, cli_inprocess, run_json

EXAMPLE = str(ROOT / "profiles" / "scenarios" / "magic_t9a1_four_spells.toml")


def test_flow_json_keys_and_values():
    out = run_json("magic", "flow", "--ruleset", "t9a1", "--channelers", "2",
                   "--reactive-channelers", "1")
    power, dispel = marginals(flow_pools(magic_rules("t9a1"), 2, 1))
    got = out["distributions"]["power_dice"]["pmf"]
    assert {int(k): v for k, v in got.items()} == pytest.approx({k: float(v) for k, v in power.items()})
    got = out["distributions"]["dispel_dice"]["pmf"]
    assert {int(k): v for k, v in got.items()} == pytest.approx({k: float(v) for k, v in dispel.items()})


def test_cast_json_keys_and_values():
    out = run_json("magic", "cast", "--dice", "3", "--level", "2", "--cv", "9", "--ruleset", "wfb8")
    odds = cast_odds(magic_rules("wfb8"), 3, 2, 9)
    res = out["results"]
    assert res["p_cast"]["value"] == pytest.approx(float(odds.p_cast))
    assert res["p_two_sixes"]["value"] == pytest.approx(float(Fraction(16, 216)))  # 3·5/216 + 1/216
    assert res["p_miscast"]["value"] == pytest.approx(float(odds.p_irresistible_cast))
    pmf = out["distributions"]["casting_total"]["pmf"]
    assert min(int(k) for k in pmf) == 9


def test_dispel_json():
    out = run_json("magic", "dispel", "--dice", "3", "--level", "1", "--against", "12")
    assert out["results"]["p_dispel"]["value"] == pytest.approx(
        float(dispel_probability(magic_rules("t9a1"), 3, 1, 12)))


def test_phase_and_run_json_keys():
    out = run_json("magic", "phase", EXAMPLE, "--n-trials", "100000", "--seed", "3")
    res = out["results"]
    for i in range(1, 5):
        assert res[f"p_goes_off_{i}"]["se"] > 0
    assert "p_miscast" in res
    assert {"spells_through", "power_dice_left", "dispel_dice_left"} <= set(out["distributions"])
    again = run_json("run", EXAMPLE, "--n-trials", "100000", "--seed", "3")
    assert again["results"] == res


def test_help_documents_the_policies():
    text = cli_inprocess("magic", "phase", "--help").stdout
    for word in ("all_out", "threshold", "keep_dice", "fixed", "target", "optimal"):
        assert word in text


@pytest.mark.parametrize("args,match", [
    (["magic", "cast", "--dice", "6", "--level", "1", "--cv", "7"], "1 to 5 dice"),
    (["magic", "cast", "--dice", "7", "--level", "1", "--cv", "7", "--ruleset", "wfb8"], "1 to 6 dice"),
    (["magic", "cast", "--dice", "2", "--level", "1", "--cv", "1"], "must be 2..1000"),
    (["magic", "dispel", "--dice", "13", "--against", "7"], "dispel"),
    (["magic", "flow", "--ruleset", "nonsense"], "ruleset"),
])
def test_bad_input_one_line_error(args, match):
    proc = cli_inprocess(*args)
    assert proc.returncode == 2
    assert match in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("body,match", [
    ('game = "magic"\n', "spell list is empty"),
    ('game = "magic"\nspells = []\n', "spell list is empty"),
    ('game = "magic"\n[[spells]]\nname = "x"\n', "cv"),
    ('game = "magic"\n[[wizards]]\nname="w"\nlevel=1\n[[spells]]\nname="x"\nwizard="w"\ncv=1\n', "cv"),
])
def test_bad_scenario_one_line_error(tmp_path, body, match):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    # `run` and `magic phase` share run_scenario; the first case goes through both
    commands = [["magic", "phase", str(path)]] + ([["run", str(path)]] if "spells" not in body else [])
    for cmd in commands:
        proc = cli_inprocess(*cmd)
        assert proc.returncode == 2, proc.stderr
        assert match in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_optimise_json():
    out = run_json("magic", "optimise", EXAMPLE, "--power", "8", "--dispel", "4")
    res = out["results"]
    assert res["expected_weight_adaptive"]["value"] >= res["expected_weight_best_split"]["value"] - 1e-12
    assert sum(res[f"dice_{i}"]["value"] for i in range(1, 5)) <= 8
    proc = cli_inprocess("magic", "optimise", EXAMPLE)
    assert proc.returncode == 2 and "--power" in proc.stderr


@pytest.mark.parametrize("path", sorted((ROOT / "profiles" / "scenarios").glob("magic_*.toml")))
def test_bundled_magic_scenarios_run(path):
    out = run_json("run", str(path), "--n-trials", "20000", "--seed", "1")
    assert out["command"] == "magic phase" and "p_goes_off_1" in out["results"]
