"""`mathhammer run` for game = "warmachine": the raw-attack form, its validation and its answers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mathhammer.errors import InputError, ProfileError
from mathhammer.warmachine import rules
from mathhammer.warmachine.scenario import run_scenario
from tests.conftest import ROOT, run_cli, run_json

EXAMPLE = ROOT / "profiles" / "scenarios" / "warmachine_two_jacks_vs_charger.toml"
GRID = ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]


def scenario(**target) -> dict:
    base = {"def": 12, "arm": 18, "grid": GRID}
    base.update(target)
    return {"game": "warmachine", "target": {k: v for k, v in base.items() if v is not None},
            "attacks": [{"kind": "melee", "stat": 7, "power": 18, "boost_damage": True,
                         "count": 2}]}


def test_example_file_exact_has_the_contract_keys():
    out = run_json("run", str(EXAMPLE))
    assert out["method"] == "exact"
    keys = set(out["results"])
    assert {"p_destroyed", "mean_damage", "p_crippled_L", "p_crippled_R", "p_crippled_M",
            "p_crippled_C"} <= keys
    assert "damage" in out["distributions"]
    pmf = out["distributions"]["damage"]["pmf"]
    assert sum(pmf.values()) == pytest.approx(1.0)


def test_example_file_check_agrees_within_5_se():
    """--check runs both engines on the example (4 attacks, crippled M changes DEF mid-way).

    N = 200 000 trials: the smallest detectable difference is ≈ 5·sqrt(0.25/N) = 0.0056.
    """
    out = run_json("run", str(EXAMPLE), "--check", "--n-trials", "200000", "--seed", "9")
    assert out["method"] == "mc"
    for name, entry in out["info"]["check"].items():
        assert abs(entry["z"]) < 5, name


def test_charge_pre_boosts_only_the_first_attack_of_a_counted_line():
    data = scenario()
    data["attacks"] = [{"kind": "melee", "stat": 20, "power": 18, "charge": True, "count": 2}]
    out = run_scenario(data, "s.toml", method="exact")
    # stat 20 always hits unless every die shows 1 (WM-A2): P(hit) = 35/36 each
    assert out.results["p_hit_1"].value == pytest.approx(35 / 36)
    single = run_scenario({**data, "attacks": [{**data["attacks"][0], "count": 1}]}, "s.toml",
                          method="exact")
    boosted_mean = 35 / 36 * float(rules.damage_pmf(3, 18, 18) @ range(19))
    assert single.results["mean_damage"].value == pytest.approx(boosted_mean)


def test_track_and_profile_targets():
    track = run_scenario(scenario(grid=None, boxes=17), "s.toml", method="exact")
    assert not any(k.startswith("p_crippled") for k in track.results)
    prof = run_scenario(scenario(grid=None, profile="cygnar/ironclad", **{"def": None, "arm": None}),
                        "s.toml", method="exact")
    assert "p_crippled_M" in prof.results


def test_attacker_crippled_arm_rolls_one_die_fewer():
    data = scenario()
    data["attacker"] = {"grid": GRID, "damaged": [0, 0, 0, 0, 4, 3]}  # R boxes all marked
    data["attacks"] = [{"kind": "melee", "stat": 6, "power": 18, "location": "R"}]
    out = run_scenario(data, "s.toml", method="exact")
    assert out.results["p_hit_1"].value == pytest.approx(rules.hit_probability(1, 6, 12))
    data["attacks"][0]["location"] = "L"
    out = run_scenario(data, "s.toml", method="exact")
    assert out.results["p_hit_1"].value == pytest.approx(rules.hit_probability(2, 6, 12))


@pytest.mark.parametrize("target, fragment", [
    ({"grid": ["--L", "--LLM", "---MM", "---CQ", "--RRC", "--R"]}, "target.grid[3]: bad letter 'Q'"),
    ({"grid": ["--L", "--LLM", "---MM", "---CC", "--RRC"]}, "target.grid: must have exactly six"),
    ({"damaged": [0, 9, 0, 0, 0, 0]}, "target.damaged[1]"),
])
def test_bad_target_is_one_clear_error_naming_file_and_key(target, fragment):
    with pytest.raises(InputError) as err:
        run_scenario(scenario(**target), "battle.toml", method="exact")
    assert err.value.one_line().startswith("battle.toml: ") and fragment in err.value.one_line()


def test_unknown_and_missing_keys_are_rejected():
    data = scenario()
    data["attacks"][0]["boost_dmg"] = True
    with pytest.raises(ProfileError, match="boost_dmg"):
        run_scenario(data, "s.toml")
    with pytest.raises(ProfileError, match="exactly one of profile, grid or boxes"):
        run_scenario(scenario(boxes=10), "s.toml")


def test_cli_bad_grid_letter_exit_2_one_line(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace('"---CC"', '"---CX"'))
    proc = run_cli("run", str(bad))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert "bad.toml: target.grid[3]" in proc.stderr and "'X'" in proc.stderr


def test_monte_carlo_within_5_se_of_exact_on_a_track_with_start_damage():
    """N = 100 000; tolerance 5 SE from the exact p (≤ 0.008)."""
    data = scenario(grid=None, boxes=18, damaged=6)
    data["attacks"] = [{"kind": "magic", "stat": 7, "power": 12, "boost_hit": True, "count": 3}]
    exact = run_scenario(data, "s.toml", method="exact")
    n = 100_000
    tol = 5 * math.sqrt(exact.results["p_destroyed"].value * (1 - exact.results["p_destroyed"].value) / n)
    from mathhammer.engine import MonteCarloConfig

    mc = run_scenario(data, "s.toml", method="mc", config=MonteCarloConfig(n, seed=3))
    assert abs(mc.results["p_destroyed"].value - exact.results["p_destroyed"].value) <= tol


ACTIVATIONS = ROOT / "profiles" / "scenarios" / "warmachine_khador_double_charge.toml"


def test_activation_form_exact_and_monte_carlo_agree():
    """Two activations (Juggernaut then Destroyer) against a damaged Ironclad, optimal focus.
    N = 100 000; the exact programme and the kernel agree within 5 SE (≤ 0.008)."""
    from mathhammer.engine import MonteCarloConfig
    from mathhammer.profiles import read_toml

    data = read_toml(ACTIVATIONS)
    exact = run_scenario(data, str(ACTIVATIONS), method="exact")
    n = 100_000
    mc = run_scenario(data, str(ACTIVATIONS), method="mc", config=MonteCarloConfig(n, seed=10))
    for name, est in exact.results.items():
        if name.startswith("p_") and "box_model" not in name:
            tol = 5 * math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
            assert abs(mc.results[name].value - est.value) <= tol, name
    assert exact.command == "warmachine.scenario" and "Destroyer: opening [focus 2" in "\n".join(exact.info["decisions"])


def test_attacks_and_activations_are_exclusive():
    data = scenario()
    data["activations"] = [{"profile": "khador/juggernaut"}]
    with pytest.raises(ProfileError, match="give one of"):
        run_scenario(data, "s.toml")
    data = scenario()
    data["attacks"] = []
    with pytest.raises(ProfileError, match="give one of"):
        run_scenario(data, "s.toml")
