"""`score` and `diff` (issue 14 parts 1-2): the score is the README's weighting of compare's
cells, a list against itself differs by exactly 0, and pairing shrinks the se."""

from __future__ import annotations

import json
import math

import pytest

from mathhammer.analysis import compare
from mathhammer.lists import load_list
from mathhammer.tuning import diff_lists, load_meta, score_list
from mathhammer.tuning.score import unit_value
from tests.conftest import cli_result




def test_the_score_is_the_readme_weighting_of_the_compare_cells():
    """Exact one-round combats: Σ units count · Σ lists weight · Σ targets share · P(kill) · points;
    a shooter (the Handgunners) fires one volley instead: expected models slain / models (TU-C1)."""
    from mathhammer.analysis.cells import Cell
    from mathhammer.fantasy.game import volley_cell

    army, meta = load_list("wfb8_empire"), load_meta("wfb8_infantry")
    expected_destroyed = expected_lost = 0.0
    for enemy, weight in zip(meta.lists, meta.weights, strict=True):
        c = compare(army, enemy, method="exact", rounds=1)
        n_enemy = sum(t.count for t in enemy.units)
        n_army = sum(t.count for t in army.units)
        for u in army.units:
            for t in enemy.units:
                p = c.matrix("p_kill", "A→B").loc[u.label, t.label]
                if u.profile.ranged is not None:
                    v = volley_cell(Cell("fantasy", u.profile, t.profile, ruleset="wfb8", method="exact"), u.profile,
                                    t.profile)
                    p = v.mean_damage.value / t.profile.formation.models
                expected_destroyed += u.count * weight * t.count / n_enemy * p * t.points
        for v in enemy.units:
            for t in army.units:
                p = c.matrix("p_kill", "B→A").loc[v.label, t.label]
                expected_lost += v.count * weight * t.count / n_army * p * t.points
    report = score_list(army, meta, model="cells", method="exact", rounds=1)
    assert report.results["points_destroyed_per_turn"].value == pytest.approx(expected_destroyed, rel=1e-12)
    assert report.results["points_lost_per_turn"].value == pytest.approx(expected_lost, rel=1e-12)
    assert report.results["net_points_per_turn"].value == pytest.approx(
        expected_destroyed - expected_lost, rel=1e-12)
    per_unit = sum(report.results[f"points_destroyed_per_turn[{u.label}]"].value for u in army.units)
    assert per_unit == pytest.approx(expected_destroyed, rel=1e-12)


def test_a_list_against_itself_differs_by_exactly_zero():
    report = diff_lists("wfb8_empire", "wfb8_empire", "wfb8_infantry", model="cells", method="mc", n_trials=2000, seed=7)
    for name in ("points_destroyed_per_turn", "points_lost_per_turn", "net_points_per_turn"):
        paired = report.results[f"{name}[B-A]"]
        assert paired.value == 0.0 and paired.se == 0.0
        assert report.results[f"{name}[A]"].se > 0  # the lists' own scores are Monte Carlo


def test_pairing_makes_the_se_of_a_variant_smaller_than_independent_runs():
    report = diff_lists("wfb8_empire", "wfb8_empire_gunline", "wfb8_infantry", model="cells", method="mc",
                        n_trials=2000, seed=7)
    for name in ("points_destroyed_per_turn", "points_lost_per_turn", "net_points_per_turn"):
        a, b = report.results[f"{name}[A]"], report.results[f"{name}[B]"]
        paired = report.results[f"{name}[B-A]"]
        assert paired.value == pytest.approx(b.value - a.value, abs=1e-9)
        assert 0 < paired.se < math.sqrt(a.se ** 2 + b.se ** 2)
    assert report.info["shared_cells"] > 0 and len(report.info["variance_reduction"]) == 3


def test_the_same_seed_gives_the_same_score_on_one_worker_or_two():
    one = score_list("wfb8_empire", "wfb8_infantry", model="cells", method="mc", n_trials=1000, seed=3, workers=1)
    two = score_list("wfb8_empire", "wfb8_infantry", model="cells", method="mc", n_trials=1000, seed=3, workers=2)
    assert {k: v.value for k, v in one.results.items()} == {k: v.value for k, v in two.results.items()}


def test_a_warcaster_as_a_target_is_worth_its_warjack_points():
    army = load_list("khador_battlebox")
    sorscha = army.unit("khador/sorscha")
    assert sorscha.points == 0 and unit_value(sorscha) == 5


def test_score_and_diff_from_the_cli_answer_first():
    code, out, _ = cli_result("score", "--model", "cells", "wfb8_empire", "--meta", "wfb8_infantry", "--rounds", "1",
                       "--method", "exact", "--brief")
    assert code == 0 and out.startswith("Empire state troops destroys ") and "(exact)" in out
    code, out, _ = cli_result("diff", "--model", "cells", "wfb8_empire", "wfb8_empire_gunline", "--meta", "wfb8_infantry",
                       "--n-trials", "1000", "--seed", "1", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["command"] == "diff" and "net_points_per_turn[B-A]" in report["results"]


@pytest.mark.parametrize("argv, where", [
    (["score", "--model", "cells", "wfb8_empire", "--meta", "mk2_battleboxes"], "LIST"),
    (["score", "--model", "cells", "wfb8_empire", "--meta", "no_such_meta"], "meta"),
    (["diff", "--model", "cells", "wfb8_empire", "khador_battlebox", "--meta", "wfb8_infantry"], "LIST"),
    (["score", "--model", "cells", "wfb8_empire", "--meta", "wfb8_infantry", "--n-trials", "3"], "--n-trials"),
])
def test_bad_input_is_one_line_exit_2(argv, where):
    code, out, err = cli_result(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and where in err


def test_a_meta_file_is_validated(tmp_path):
    meta = tmp_path / "m.toml"
    meta.write_text('game = "fantasy"\nruleset = "wfb8"\n[[lists]]\nlist = "khador_battlebox"\n')
    code, _, err = cli_result("score", "--model", "cells", "wfb8_empire", "--meta", str(meta))
    assert code == 2 and "lists.0.list" in err
    meta.write_text('game = "fantasy"\nruleset = "wfb8"\n[[lists]]\nlist = "wfb8_orcs"\nweight = -1\n')
    code, _, err = cli_result("score", "--model", "cells", "wfb8_empire", "--meta", str(meta))
    assert code == 2 and "weight" in err


def test_monte_carlo_score_agrees_with_the_exact_score_within_5_se():
    """One-round Fantasy cells have an exact engine: the Monte Carlo score and its se must
    cover it (tolerance 5 se, fixed before the run)."""
    exact = score_list("wfb8_empire", "wfb8_infantry", model="cells", method="exact", rounds=1)
    mc = score_list("wfb8_empire", "wfb8_infantry", model="cells", method="mc", rounds=1, n_trials=4000, seed=99)
    for name, e in exact.results.items():
        m = mc.results[name]
        assert e.se == 0.0
        assert abs(m.value - e.value) <= 5 * m.se + 1e-12, (name, m, e)
