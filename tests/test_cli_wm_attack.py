"""`mathhammer wm attack`: the JSON contract, engines, and one-line errors."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import cli_inprocess, run_json


def test_contract_keys_and_exact_values():
    out = run_json("wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
                   "--kind", "ranged", "--boost-hit", "--boost-damage", "--attacks", "2",
                   "--boxes", "8")
    assert out["command"] == "wm attack" and out["method"] == "exact"
    res = out["results"]
    assert {"p_hit", "mean_damage", "p_destroyed"} <= set(res)
    assert res["p_hit"]["value"] == pytest.approx(196 / 216, abs=1e-12)  # 3d6 ≥ 7, and not 1-1-1
    assert res["mean_damage"]["value"] == pytest.approx(2 * 4.14635, abs=1e-4)
    pmf = out["distributions"]["damage"]["pmf"]
    assert math.isclose(sum(float(p) for p in (pmf.values() if isinstance(pmf, dict) else pmf)), 1.0,
                        abs_tol=1e-9)


def test_mc_and_check():
    """N = 200 000; the exact p_hit is 0.58333, 5 se = 0.0055."""
    out = run_json("wm", "attack", "--stat", "6", "--defense", "13", "--power", "12", "--armor", "18",
                   "--method", "mc", "--n-trials", "200000", "--seed", "11", "--check")
    assert out["method"] == "mc" and out["n_trials"] == 200000 and out["seed"] == 11
    se = math.sqrt(0.58333 * 0.41667 / 200000)
    assert abs(out["results"]["p_hit"]["value"] - 21 / 36) < 5 * se
    assert out["results"]["p_hit"]["se"] > 0
    assert "check" in out["info"]


def test_charge_and_knocked_down():
    charge = run_json("wm", "attack", "--stat", "6", "--defense", "13", "--power", "18",
                      "--armor", "18", "--attacks", "2", "--charge")
    plain = run_json("wm", "attack", "--stat", "6", "--defense", "13", "--power", "18",
                     "--armor", "18", "--attacks", "2")
    # the charge adds exactly one pre-boosted die to the first attack: +3.5 × P(hit)
    diff = charge["results"]["mean_damage"]["value"] - plain["results"]["mean_damage"]["value"]
    assert diff == pytest.approx(3.5 * 21 / 36, abs=1e-9)
    kd = run_json("wm", "attack", "--stat", "2", "--defense", "20", "--power", "12", "--armor", "12",
                  "--knocked-down")
    assert kd["results"]["p_hit"]["value"] == 1.0


@pytest.mark.parametrize(
    "args,flag",
    [(["--stat", "-1"], "--stat"), (["--defense", "0"], "--defense"), (["--attacks", "0"], "--attacks"),
     (["--boxes", "0"], "--boxes"), (["--kind", "bow"], "--kind"),
     (["--kind", "ranged", "--charge"], "--charge")],
)
def test_bad_input_is_one_line(args, flag):
    base = {"--stat": "6", "--defense": "12", "--power": "12", "--armor": "16"}
    for i in range(0, len(args) - 1, 2):
        if args[i] in base:
            base[args[i]] = args[i + 1]
    argv = [x for kv in base.items() for x in kv]
    extra = [a for i, a in enumerate(args) if not (i % 2 == 0 and a in base) and not (i % 2 == 1 and args[i - 1] in base)]
    proc = cli_inprocess("wm", "attack", *argv, *extra)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in proc.stderr


def test_table_output_has_results():
    proc = cli_inprocess("wm", "attack", "--stat", "7", "--defense", "12", "--power", "18", "--armor", "18",
                   "--attacks", "3", "--boxes", "10")
    assert proc.returncode == 0, proc.stderr
    assert "p_destroyed" in proc.stdout and "exact" in proc.stdout
    assert json.loads(cli_inprocess("wm", "attack", "--stat", "7", "--defense", "12", "--power", "18",
                              "--armor", "18", "--format", "json").stdout)["results"]


def test_weapon_master_adds_a_damage_die():
    base = ["wm", "attack", "--stat", "6", "--defense", "12", "--power", "16", "--armor", "16"]
    plain = run_json(*base)["results"]["mean_damage"]["value"]
    wm = run_json(*base, "--weapon-master")["results"]["mean_damage"]["value"]
    assert wm - plain == pytest.approx(3.5 * 26 / 36, abs=1e-9)  # P(2d6+6 >= 12) = 26/36
