"""compare and sweep: cells against independent engines, matrix layout, breakpoints, errors.

Monte Carlo checks use a tolerance of 5 standard errors computed from the exact p
before the run (never a tuned seed); N and the smallest detectable effect are in the
docstrings.
"""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest

from mathhammer.analysis import Cell, cell_seed, compare, evaluate, find_breakpoints, parse_vary, sweep
from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.models import load_unit
from mathhammer.lists import load_list
from mathhammer.warmachine.chain import AttackSpec, chain_pmf
from mathhammer.warmachine.models import load_warmachine
from tests.conftest import cli_inprocess, run_cli

JUG, IRONCLAD, STRYKER = "khador/juggernaut", "cygnar/ironclad", "cygnar/stryker"


# --------------------------------------------------------------------------- cells
def test_fixed_sequence_cell_matches_the_convolution_engine_on_a_damage_track():
    """3 Ice Axe attacks (MAT 6, P+S 19) on Stryker (DEF 16, ARM 15, 17 boxes): a track has no
    crippling, so P(destroyed) = P(total damage >= 17) of the independent convolution (WM-A1, D1)."""
    jug, stryker = load_warmachine(JUG), load_warmachine(STRYKER)
    cell = Cell("warmachine", jug, stryker, {"attacks": 3, "mode": "melee"}, method="exact")
    res = evaluate(cell)
    assert (jug.stats.mat, jug.weapons[0].pow_plus_str, stryker.stats.defense, stryker.stats.arm,
            stryker.boxes) == (6, 19, 16, 15, 17)
    spec = AttackSpec(hit_dice=2, bonus=6, defense=16, damage_dice=2, power=19, armor=15)
    pmf = chain_pmf([spec] * 3)
    assert res.p_kill.value == pytest.approx(pmf[17:].sum(), abs=1e-12)
    assert res.mean_damage.value == pytest.approx(float(np.minimum(np.arange(len(pmf)), 17) @ pmf),
                                                  abs=1e-9)


def test_ranged_cell_is_the_duel_engine_shooting():
    """Wiring: a ranged list entry (Charger, Dual Cannon ROF 2, 1 focus) is the duel's
    ranged activation; exact against exact."""
    from mathhammer.warmachine.duel import duel

    direct = duel("cygnar/charger", JUG, focus=1, ranged=True, method="exact")
    cell = Cell("warmachine", load_warmachine("cygnar/charger"), load_warmachine(JUG),
                {"focus": 1, "mode": "ranged"}, method="exact")
    res = evaluate(cell)
    assert res.mean_damage.value == pytest.approx(direct.results["mean_damage"].value, abs=1e-12)
    assert res.mean_damage.value > 0 and "ranged" in res.note


def test_melee_cell_is_the_duel_engine():
    """Wiring: the cell's answer is duel(...)'s exact answer for the same activation."""
    from mathhammer.warmachine.duel import duel

    direct = duel(JUG, IRONCLAD, focus=3, may_charge=True, method="exact")  # a list's charge = true
    cell = Cell("warmachine", load_warmachine(JUG), load_warmachine(IRONCLAD),
                {"focus": 3, "charge": True, "mode": "melee"}, method="exact")
    res = evaluate(cell)
    assert res.p_kill.value == pytest.approx(direct.results["p_destroyed"].value, abs=1e-12)
    assert "optimal" in res.note


def test_fantasy_cell_is_one_combat_round_exactly():
    from mathhammer.fantasy.combat.fight import combat

    a, b = load_unit("wfb8/orc_boyz"), load_unit("wfb8/empire_halberdiers")
    direct = combat(a, b, rounds=1, charger="a", method="exact")
    res = evaluate(Cell("fantasy", a, b, {"charge": True}, method="exact", rounds=1))
    assert res.p_kill.value == pytest.approx(direct.results["p_a_wins"].value, abs=1e-12)
    assert res.mean_damage.value == pytest.approx(direct.results["mean_wounds_dealt"].value, abs=1e-12)


def test_cell_seeds_are_distinct_and_reproducible():
    seeds = [cell_seed(7, i) for i in range(200)]
    assert len(set(seeds)) == 200 and seeds == [cell_seed(7, i) for i in range(200)]
    assert all(0 <= s < 2**63 for s in seeds)


# --------------------------------------------------------------------------- compare
def test_compare_matrix_layout_and_per_100_points():
    c = compare("khador_battlebox", "cygnar_battlebox", method="mc", n_trials=2000, seed=1)
    a, b = load_list("khador_battlebox"), load_list("cygnar_battlebox")
    assert c.directions == ["A→B", "B→A"]
    m = c.matrix("p_kill", "A→B")
    assert list(m.index) == [u.label for u in a.units] and list(m.columns) == [u.label for u in b.units]
    assert c.matrix("p_kill", "B→A").shape == (len(b.units), len(a.units))
    rows = c.frame[c.frame["attacker_points"] > 0]
    assert np.allclose(rows["kills_per_100_points"], rows["p_kill"] * 100 / rows["attacker_points"])
    casters = c.frame[c.frame["attacker_points"] == 0]
    assert len(casters) and casters["kills_per_100_points"].isna().all()
    assert ((c.frame["p_kill"] >= 0) & (c.frame["p_kill"] <= 1)).all()


@functools.lru_cache(maxsize=1)
def _battle_boxes_exact_one_way():
    """The battle boxes' exact one-way matrix, computed once for the tests that read it."""
    return compare("khador_battlebox", "cygnar_battlebox", method="exact", seed=1, both_ways=False)


def test_compare_report_keys_and_info_matrix():
    c = _battle_boxes_exact_one_way()
    d = c.report.to_dict()
    key = "p_kill[A:Juggernaut→B:Ironclad]"
    assert d["results"][key]["value"] == pytest.approx(
        c.matrix("p_kill", "A→B").loc["Juggernaut", "Ironclad"])
    assert "kills_per_100_points[A:Kommander Sorscha→B:Ironclad]" not in d["results"]  # 0 points
    mat = d["info"]["matrix"]["A→B"]
    assert mat["attackers"][1] == "Juggernaut" and mat["targets"][1] == "Ironclad"
    assert mat["p_kill"][1][1] == pytest.approx(d["results"][key]["value"])
    assert mat["kills_per_100_points"][0][0] is None
    json.dumps(d, allow_nan=False)


def test_compare_targets_filter_and_errors():
    c = compare("khador_battlebox", "cygnar_battlebox", targets=["Ironclad"], method="exact")
    assert set(c.frame["target"]) == {"Ironclad"} and c.directions == ["A→B"]
    with pytest.raises(InputError, match="names no unit"):
        compare("khador_battlebox", "cygnar_battlebox", targets=["Behemoth"])
    with pytest.raises(InputError, match="empty"):
        compare("khador_battlebox", "cygnar_battlebox", targets=[" "])
    with pytest.raises(InputError, match="same game"):
        compare("khador_battlebox", "wfb8_empire")


def test_compare_monte_carlo_agrees_with_exact_within_5_se():
    """Fantasy, one combat round, every cell by MC (N = 20,000 per cell) against the exact
    engine; tolerance 5 se from the exact p (smallest detectable effect ~1.8 pp at p = 0.5)."""
    n = 20_000
    exact = compare("wfb8_empire", "wfb8_greenskins_and_undead", rounds=1, method="exact",
                    both_ways=False).frame
    mc = compare("wfb8_empire", "wfb8_greenskins_and_undead", rounds=1, method="mc", n_trials=n,
                 seed=11, both_ways=False).frame
    assert set(mc["method"]) == {"mc"} and set(exact["method"]) == {"exact"}
    for p, q in zip(exact["p_kill"], mc["p_kill"], strict=True):
        tol = 5 * math.sqrt(p * (1 - p) / n) + 1e-12
        assert abs(p - q) <= tol, (p, q, tol)


def test_same_seed_same_matrix_for_any_pool_size():
    kw = dict(rounds=1, method="mc", n_trials=5_000, seed=5, both_ways=False)
    one = compare("wfb8_empire", "wfb8_greenskins_and_undead", workers=1, **kw).frame
    two = compare("wfb8_empire", "wfb8_greenskins_and_undead", workers=2, **kw).frame
    assert one[["p_kill", "mean_damage", "seed"]].equals(two[["p_kill", "mean_damage", "seed"]])


# --------------------------------------------------------------------------- sweep
@pytest.mark.parametrize("text, side, stat, values", [
    ("def=10..18", "target", "def", tuple(range(10, 19))),
    ("mat=4..9:2", "attacker", "mat", (4, 6, 8)),
    ("target.arm=16,18,20", "target", "arm", (16, 18, 20)),
    ("attacker.focus = 0..3", "attacker", "focus", (0, 1, 2, 3)),
])
def test_parse_vary(text, side, stat, values):
    v = parse_vary(text, "warmachine")
    assert (v.side, v.stat, v.values) == (side, stat, values)


@pytest.mark.parametrize("text, message", [
    ("def", "STAT=LO"), ("speed=1..3", "not a warmachine stat"), ("def=18..10", "LO <= HI"),
    ("def=10", "2..200 distinct"), ("def=a..b", "whole numbers"),
])
def test_parse_vary_errors(text, message):
    with pytest.raises(InputError, match=message):
        parse_vary(text, "warmachine")


def test_fantasy_stats_default_sides():
    assert parse_vary("t=2..5", "fantasy").side == "target"
    assert parse_vary("save=2..7", "fantasy").side == "target"
    assert parse_vary("ws=2..5", "fantasy").side == "attacker"
    assert parse_vary("target.ws=2..5", "fantasy").side == "target"


def test_find_breakpoints_hand_series():
    values = [10, 11, 12, 13, 14]
    p = [0.9, 0.88, 0.5, 0.45, 0.44]  # one big drop 11→12
    bps = find_breakpoints(values, p, [0.0] * 5, 0.05)
    assert [(b["from"], b["to"], b["largest"]) for b in bps] == [(11, 12, True)]
    two = find_breakpoints([1, 2, 3, 4, 5], [0.0, 0.3, 0.32, 0.7, 0.71], [0.0] * 5, 0.05)
    assert [(b["from"], b["to"]) for b in two] == [(1, 2), (3, 4)]
    noisy = find_breakpoints([1, 2, 3], [0.5, 0.52, 0.5], [0.01] * 3, 0.05)
    assert noisy == []  # within 3 se of the difference: not a jump


def test_sweep_def_exact_is_monotone_and_matches_single_cells():
    s = sweep(JUG, IRONCLAD, "def=11..15", attacker_options={"focus": 3, "charge": True},
              method="exact")
    p = s.series("plain")["p_kill"].to_numpy()
    assert np.all(np.diff(p) <= 1e-12)  # higher DEF never helps the attacker
    assert s.breakpoints and any(b["largest"] for b in s.breakpoints)
    direct = evaluate(Cell("warmachine", load_warmachine(JUG), load_warmachine(IRONCLAD),
                           {"focus": 3, "charge": True, "mode": "melee"}, {"def": 13},
                           method="exact"))
    assert s.series("plain").loc[13, "p_kill"] == pytest.approx(direct.p_kill.value, abs=1e-12)
    assert direct.p_kill.value > 0


def test_sweep_mat_worth_against_boosts_uses_the_fixed_policy():
    s = sweep(JUG, IRONCLAD, "mat=5..7", attacker_options={"focus": 2}, also=["boost_damage"],
              method="exact")
    assert s.report.info["policy"] == "fixed focus policy"
    assert len(s.report.info["worth"]) == 2
    assert set(s.frame["series"]) == {"plain", "boost_damage"}
    # raising MAT never lowers P(kill) in either series
    for name in ("plain", "boost_damage"):
        assert np.all(np.diff(s.series(name)["p_kill"].to_numpy()) >= -1e-12)


def test_sweep_fantasy_save_seven_means_no_save():
    s = sweep("wfb8/orc_boyz", "wfb8/empire_halberdiers", "save=5..7", rounds=1, method="exact")
    wounds = s.series("plain")["mean_damage"].to_numpy()
    # worse armour, never fewer wounds; choppas strike at S4 in round 1 (FB-E8), so a 6+
    # save is already gone and save=6 equals save=7 (no save)
    assert np.all(np.diff(wounds) >= -1e-12) and wounds[0] < wounds[1]
    assert wounds[1] == pytest.approx(wounds[2], abs=1e-12)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(vary="focus=0..4"), RulesError, "at most 3 focus"),
    (dict(vary="def=10..12", also=["charge", "lucky"]), InputError, "not a warmachine option"),
    (dict(vary="def=10..12", policy="clever"), InputError, "optimal, greedy or fixed"),
    (dict(vary="mat=10..14"), InputError, "outside what"),
])
def test_sweep_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        sweep(JUG, IRONCLAD, **kwargs)


def test_sweep_game_mismatch():
    with pytest.raises(InputError, match="fantasy profile"):
        sweep(JUG, "wfb8/orc_boyz", "def=10..12")


# --------------------------------------------------------------------------- CLI
def test_cli_compare_json_csv_and_heatmap(tmp_path):
    png = tmp_path / "m.png"
    proc = cli_inprocess("compare", "khador_battlebox", "cygnar_battlebox", "--n-trials", "2000",
                   "--seed", "1", "--format", "json", "--plot", str(png), "--one-way")
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["command"] == "compare" and "A→B" in d["info"]["matrix"]
    assert any(k.startswith("p_kill[A:Juggernaut→") for k in d["results"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    csv = cli_inprocess("compare", "khador_battlebox", "cygnar_battlebox", "--n-trials", "2000",
                  "--seed", "1", "--format", "csv", "--one-way")
    assert csv.returncode == 0 and csv.stdout.startswith("kind,name,outcome,value")
    assert "p_kill[A:Destroyer→B:Lancer]" in csv.stdout


def test_cli_sweep_table_marks_breakpoints_and_plots(tmp_path):
    # DEF 11..15 holds the largest step (12→13, see the library test above); each exact
    # cell of this matchup costs ~1 s of CPU, so the CLI test does not sweep 10..18
    png = tmp_path / "s.png"
    proc = cli_inprocess("sweep", JUG, IRONCLAD, "--vary", "def=11..15", "--focus", "3", "--charge",
                   "--method", "exact", "--plot", str(png))
    assert proc.returncode == 0, proc.stderr
    assert "◀ breakpoint" in proc.stdout and "breakpoints:" in proc.stdout
    assert "largest step" in proc.stdout
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_empty_targets_one_line_error():
    """A real process (the other CLI tests here run in-process): one line, exit 2."""
    proc = run_cli("compare", "khador_battlebox", "cygnar_battlebox", "--targets", ",")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "target set is empty" in proc.stderr


def test_user_profile_file_and_swept_stat_agree(tmp_path):
    """A Juggernaut file with MAT 7 (no other change) played at DEF 13 equals the bundled
    Juggernaut swept to MAT 7: the duel sees the file's own path, and a swept MAT reaches it."""
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "warmachine" / "khador" / "juggernaut.toml").read_text(encoding="utf-8")
    path = tmp_path / "my_jug.toml"
    path.write_text(text.replace("mat = 6 ", "mat = 7 "), encoding="utf-8")
    kw = dict(attacker_options={"focus": 3, "charge": True}, method="exact")
    from_file = sweep(str(path), IRONCLAD, "def=13,14", **kw).series("plain")["p_kill"]
    swept = sweep(JUG, IRONCLAD, "mat=6,7", target_options={"def": 13}, **kw).series("plain")["p_kill"]
    assert load_warmachine(str(path)).stats.mat == 7
    assert from_file.loc[13] == pytest.approx(swept.loc[7], abs=1e-12)
    assert swept.loc[7] > swept.loc[6]


def test_cli_sweep_bad_inputs_are_one_line():
    for args, message in ((["--vary", "def=18..10"], "LO <= HI"),
                          (["--vary", "def=10..12", "--focus", "5"], "at most 3 focus"),
                          (["--vary", "def=10..12", "--also", "lucky"], "not a warmachine option")):
        proc = cli_inprocess("sweep", JUG, IRONCLAD, *args)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert message in proc.stderr


def test_efficiency_pareto_front_by_hand():
    """Hand frame: A (5 pts, 0.5), B (10 pts, 0.4: dominated by A), C (10 pts, 0.6)."""
    import pandas as pd

    from mathhammer.analysis.compare import Comparison

    frame = pd.DataFrame({"direction": ["A→B"] * 3, "attacker": ["A", "B", "C"],
                          "target": ["t"] * 3, "attacker_points": [5, 10, 10],
                          "p_kill": [0.5, 0.4, 0.6], "mean_damage": [1.0, 2.0, 3.0],
                          "kills_per_100_points": [10.0, 4.0, 6.0]})
    table = Comparison(frame, None, None, None).efficiency()
    assert table["pareto"].to_dict() == {"A": True, "B": False, "C": True}
    assert table.loc["C", "points"] == 10


def test_compare_matrices_wrap_on_a_narrow_terminal_with_the_attackers_repeated():
    """Issue 28 item 17 on the command line: on a 48-column terminal (a phone) each matrix
    is split into blocks of targets that fit, every block starting with the attackers."""
    import re

    from mathhammer.cli.analysis import compare_table

    c = _battle_boxes_exact_one_way()
    wide, narrow = compare_table(c), compare_table(c, columns=48)
    assert compare_table(c, columns=500) == wide  # room enough: unchanged
    matrix_lines = [line for line in narrow.splitlines() if line.startswith("  ")]
    assert matrix_lines and max(len(line) for line in matrix_lines) <= 48
    attackers = list(c.matrix("p_kill", "A→B").index)
    starts = [line[2:].split("  ")[0] for line in matrix_lines]
    assert starts.count("attacker / target") > 3  # more blocks than matrices
    assert all(starts.count(a) == starts.count("attacker / target") for a in attackers)

    def cells(text: str, attacker: str) -> list[str]:
        return [v for line in text.splitlines() if line.startswith(f"  {attacker}  ")
                for v in re.findall(r"-?[0-9.]+%?|—", line[len(attacker) + 4:])]

    for a in attackers:  # the same figures in the same order, only wrapped
        assert cells(narrow, a) == cells(wide, a)
