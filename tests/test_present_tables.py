"""An answer's grids (issue 28 item 17): `mathhammer.present.tables.report_tables`.

Grids are read from the report's data, never per command: labelled matrices in
``info`` and bracketed result names. Synthetic reports pin the rules; one real
``fb turn`` report checks that its statuses by turn become one grid per unit with the
very figures of its results.
"""

from __future__ import annotations

import math

import pytest

from mathhammer.present.tables import report_tables
from mathhammer.results import Estimate, Report


def _mc(p: float, n: int = 1000) -> Estimate:
    return Estimate.proportion(round(p * n), n)


def test_one_level_names_make_one_grid_of_rows_by_metrics():
    results = {"points_destroyed_per_turn": Estimate.exact(4.0),  # no bracket: not a cell
               "points_destroyed_per_turn[Juggernaut]": Estimate.exact(3.1),
               "points_lost_per_turn[Juggernaut]": Estimate.exact(0.01),
               "points_destroyed_per_turn[Destroyer]": Estimate.exact(1.2),
               "points_lost_per_turn[Destroyer]": Estimate.exact(0.02)}
    [table] = report_tables(Report("score", "exact", results, {}))
    assert table.title == ""
    assert table.rows == ("Juggernaut", "Destroyer")
    assert table.columns == ("points_destroyed_per_turn", "points_lost_per_turn")
    assert table.cells[1][0] is results["points_destroyed_per_turn[Destroyer]"]
    assert not table.percent(0)


def test_two_level_names_make_one_grid_per_group():
    results = {}
    for unit in ("Knights, of the Realm", "Orc Boyz"):  # a comma inside a name: split at the last
        for turn in (1, 2):
            for status, p in (("holding", 0.6), ("fleeing", 0.3), ("destroyed", 0.1)):
                results[f"p_{status}[{unit}, turn {turn}]"] = _mc(p)
    tables = report_tables(Report("fb turn", "mc", results, {}, n_trials=1000))
    assert [t.title for t in tables] == ["Knights, of the Realm", "Orc Boyz"]
    for t in tables:
        assert t.rows == ("turn 1", "turn 2")
        assert t.columns == ("p_holding", "p_fleeing", "p_destroyed")
        assert all(t.percent(j) for j in range(3))
        assert t.cells[1][2] is results[f"p_destroyed[{t.title}, turn 2]"]


def test_metrics_over_different_rows_are_different_grids():
    results = {f"{m}[{u}]": _mc(0.2) for u in ("A", "B") for m in ("p_broke", "p_caught")}
    results.update({"p_slain[Champion]": _mc(0.5), "p_slain[General]": _mc(0.4)})
    tables = report_tables(Report("fb combat", "mc", results, {}, n_trials=1000))
    # p_slain stands alone (one column): the flat results list it, no grid
    assert [(t.rows, t.columns) for t in tables] == [(("A", "B"), ("p_broke", "p_caught"))]


def test_a_single_row_or_column_is_not_a_grid():
    results = {"p_kill[x=1]": _mc(0.5), "mean_damage[x=1]": _mc(0.5)}
    assert report_tables(Report("sweep", "mc", results, {}, n_trials=1000)) == []


def test_a_probability_column_outside_0_1_never_reaches_a_table():
    """A p_ name holds a probability (issue 22 part 4): a rate under one (compare's old
    per-100-points figure) is an engine bug the report refuses (issue 28 item 4)."""
    from mathhammer.results import ImpossibleProbability

    results = {f"{m}[{u}]": Estimate.exact(v) for u in ("A", "B")
               for m, v in (("p_kill", 0.5), ("p_old_rate", 12.5))}
    with pytest.raises(ImpossibleProbability, match="p_old_rate"):
        Report("x", "exact", results, {})
    [table] = report_tables(Report("x", "exact", {k.replace("p_old_rate", "old_rate"): v
                                                  for k, v in results.items()}, {}))
    assert table.percent(0) and not table.percent(1)


def test_labelled_matrices_with_their_standard_errors_and_no_repeat():
    info = {"matrix": {"A→B": {
        "attackers": ["Juggernaut", "Destroyer"], "targets": ["Ironclad", "Lancer", "Charger"],
        "p_kill": [[0.5, 0.4, 0.7], [0.1, None, 0.3]],
        "p_kill_se": [[0.01, 0.02, 0.0], [0.01, None, 0.01]],
        "mean_damage": [[25.0, 21.0, 23.0], [17.0, 15.0, 18.0]],
        "mean_damage_se": [[0.0] * 3, [0.0] * 3]}}}
    results = {"p_kill[A:Juggernaut→B:Ironclad]": _mc(0.5)}  # the same figure by name
    tables = report_tables(Report("compare", "mc", results, {}, n_trials=1000, info=info))
    assert [t.title for t in tables] == ["A→B p_kill", "A→B mean_damage"]
    kill = tables[0]
    assert kill.corner == "attacker / target"
    assert kill.rows == ("Juggernaut", "Destroyer") and kill.columns == ("Ironclad", "Lancer", "Charger")
    assert kill.cells[1][1] is None  # undefined there
    assert kill.cells[0][1].value == 0.4 and kill.cells[0][1].se == 0.02
    assert not kill.cells[0][1].is_exact and kill.cells[0][2].is_exact  # se 0: nothing to add
    assert kill.percent(0) and not tables[1].percent(0)


@pytest.mark.parametrize("info", [
    {"matrix": {"A→B": {"attackers": ["a", "b"], "targets": ["x", "y"], "p_kill": [[0.1, 0.2]]}}},
    {"matrix": {"A→B": {"attackers": ["a", "b"], "p_kill": [[0.1, 0.2], [0.3, 0.4]]}}},
    {"matrix": {"A→B": "text"}},
    {"breakpoints": ["DEF 12→13: 48% → 32%"]},
    {"p_kill": {"a": 0.5, "b": 0.4}},
])
def test_other_shapes_of_info_make_no_grid(info):
    assert report_tables(Report("x", "exact", {}, {}, info=info)) == []


def test_fb_turn_grids_hold_the_reports_own_figures():
    from tests.conftest import ROOT, run_json

    scenario = str(ROOT / "profiles" / "scenarios" / "fantasy_turns_knights_vs_orcs.toml")
    out = run_json("fb", "turn", scenario, "--n-trials", "2000", "--seed", "1")
    results = {k: Estimate(v["value"], v["se"], tuple(v["ci95"]), out["n_trials"])
               for k, v in out["results"].items()}
    tables = report_tables(Report("fb turn", "mc", results, {}, n_trials=out["n_trials"]))
    assert {t.title for t in tables} == {"Knights of the Realm", "Orc Boyz"}
    for t in tables:
        assert t.rows == ("turn 1", "turn 2", "turn 3")
        for i, turn in enumerate(t.rows):
            assert math.fsum(c.value for c in t.cells[i]) == pytest.approx(1.0)  # one status each
            for j, status in enumerate(t.columns):
                assert t.cells[i][j] == results[f"{status}[{t.title}, {turn}]"]
