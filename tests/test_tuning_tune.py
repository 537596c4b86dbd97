"""`tune` (issue 14 part 3): the best list never scores below the input (paired), keeps every
list rule, and re-scoring it with another seed reproduces its score within its error."""

from __future__ import annotations

import pytest

from mathhammer.cli import main
from mathhammer.lists import load_list
from mathhammer.tuning import score_list
from mathhammer.tuning.tune import tune_list

ARGS = dict(budget_seconds=3, n_trials=2000)


@pytest.fixture(scope="module")
def tuned():
    return tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", model="cells", seed=11, **ARGS)


def test_the_best_list_scores_at_least_the_input(tuned):
    ranked = tuned.info["ranked"]
    assert ranked[0]["gain"] >= 0
    assert [r["gain"] for r in ranked] == sorted((r["gain"] for r in ranked), reverse=True)
    assert tuned.results["net_points_per_turn[#1-input]"].value == pytest.approx(ranked[0]["gain"])


def test_every_candidate_keeps_the_list_rules(tuned):
    for r in tuned.info["ranked"]:
        army = load_list({"name": "x", "game": "fantasy", "ruleset": "wfb8", "points": 500,
                          "units": r["units"]})
        assert army.total_points == r["points"] <= 500
        sizes = [u.profile.formation.models for u in army.units if u.profile_id == "wfb8/empire_halberdiers"]
        assert 1 <= sum(u.count for u in army.units if u.profile_id == "wfb8/empire_halberdiers") <= 3
        assert all(s in (15, 20, 25, 30) for s in sizes)


def test_rescoring_the_best_list_with_another_seed_reproduces_it(tuned):
    best = tuned.info["ranked"][0]
    army = load_list({"name": "best", "game": "fantasy", "ruleset": "wfb8", "points": 500,
                      "units": best["units"]})
    again = score_list(army, "wfb8_infantry", model="cells", method="mc", n_trials=2000, seed=12345)
    e = again.results["net_points_per_turn"]
    assert abs(e.value - best["score"]) < 5 * (e.se ** 2 + best["se"] ** 2) ** 0.5


def test_a_points_cap_below_every_change_keeps_the_input():
    report = tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", model="cells", points=390, seed=2, top=5, **ARGS)
    assert all(r["points"] <= 390 for r in report.info["ranked"])


def test_same_seed_same_answer_on_one_worker_or_two():
    a = tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", model="cells", seed=5, workers=1, budget_seconds=600,
                  n_trials=500)
    b = tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", model="cells", seed=5, workers=2, budget_seconds=600,
                  n_trials=500)
    assert a.info["ranked"] == b.info["ranked"]


@pytest.mark.parametrize("text, where", [
    ('game = "fantasy"\nruleset = "wfb8"\n[[units]]\nprofile = "wfb8/orc_boyz"\nmin = 3\nmax = 1\n', "min"),
    ('game = "warmachine"\nruleset = "mk2"\n[[units]]\nprofile = "khador/juggernaut"\n', "game"),
    ('game = "fantasy"\nruleset = "wfb8"\n[[units]]\nprofile = "wfb8/orc_boyz"\nsize = 3\n', "size"),
])
def test_a_bad_options_file_is_one_line_exit_2(tmp_path, capsys, text, where):
    path = tmp_path / "o.toml"
    path.write_text(text)
    with pytest.raises(SystemExit) as done:
        main(["tune", "--model", "cells", "--model", "cells", "wfb8_empire", "--options", str(path), "--meta", "wfb8_infantry",
              "--budget-seconds", "1"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1 and where in err


def test_the_ranked_table_has_no_repr_and_no_digit_the_se_does_not_support(tuned):
    """Issue 28 item 15 / issue 32 part 3: ``ranked:`` is a table of rounded figures; JSON
    keeps the full figures and each candidate's units."""
    import json
    import re

    from mathhammer.present.render import render

    text = render(tuned, "table")
    section = text.split("ranked:\n", 1)[1].split("\nlists_evaluated", 1)[0]
    assert "{" not in section and "'" not in section and "[" not in section
    rows = section.splitlines()[1:]
    assert len(rows) == len(tuned.info["ranked"])
    for row, r in zip(rows, tuned.info["ranked"], strict=True):
        pairs = re.findall(r"([-+]?[0-9.]+) ± ([0-9.]+)", row)
        assert len(pairs) == 2
        for (value, se), (full, full_se) in zip(pairs, [(r["score"], r["se"]),
                                                        (r["gain"], r["gain_se"])], strict=True):
            places = len(se.partition(".")[2])
            assert len(value.partition(".")[2]) == places  # the value stops where the se does
            assert len(se.replace(".", "").lstrip("0")) <= 2  # at most two significant digits
            assert abs(float(value) - full) <= 0.5 * 10 ** -places + 1e-9
            assert abs(float(se) - full_se) <= 0.5 * 10 ** -places + 1e-9
    data = json.loads(render(tuned, "json"))["info"]["ranked"]
    assert [d["score"] for d in data] == [r["score"] for r in tuned.info["ranked"]]
    assert all(d["units"] for d in data)


@pytest.mark.parametrize("value, se, text", [
    (63.3127, 2.664, "+63 ± 3"), (-72.87875, 2.0187, "-73 ± 2"), (31.7007, 1.4853, "+31.7 ± 1.5"),
    (1234.5, 23.0, "+1230 ± 20"), (-0.02, 0.3, "0.0 ± 0.3"), (5.0, 0.0, "+5.00"),
    (0.123456, 0.00097, "+0.1235 ± 0.0010"),
])
def test_rounded_to_the_se(value, se, text):
    from mathhammer.words import rounded

    assert rounded(value, se, signed=True) == text


def test_an_options_file_moves_a_character_and_keeps_what_it_does_not_vary(tmp_path):
    """Issue 32 part 3: ``joins = [...]`` moves the Captain between units (FB-K1); his
    ``general = true`` (not varied) stays on every variant, so each candidate keeps a general
    (FB-K4); command bought or not (``champion``) is a variant too."""
    from mathhammer.tuning.tune import build_space

    path = tmp_path / "o.toml"
    path.write_text('game = "fantasy"\nruleset = "wfb8"\n'
                    '[[units]]\nprofile = "wfb8/empire_captain"\nmin = 1\nmax = 1\n'
                    'joins = ["Halberdiers", "Handgunners"]\n'
                    '[[units]]\nprofile = "wfb8/empire_halberdiers"\nmin = 4\nmax = 4\n'
                    'champion = [false, true]\n')
    space, state = build_space("wfb8_empire_battle", str(path), "fantasy", "wfb8")
    hosts = set()
    for v in space.variants["wfb8/empire_captain"]:
        others = {k: n for k, n in state.items() if k[0] != "wfb8/empire_captain"}
        army = load_list(space.to_list({**others, v: 1}, 1100))
        captain = army.unit("wfb8/empire_captain")
        assert captain.options.get("general") is True
        hosts.add(captain.options["joins"])
    assert hosts == {"Halberdiers", "Handgunners"}
    champions = {dict(opts).get("champion") for _, opts in space.variants["wfb8/empire_halberdiers"]}
    assert {True, False} <= champions


def test_equal_entries_merge_and_the_ranked_table_lists_each_list_once():
    """Issue 32: the input's `count = 2` and a candidate's two entries of one (or an entry
    with the profile's own size written out) are one list: merged into one entry, never
    ranked twice."""
    from mathhammer import game as games
    from mathhammer.tuning.tune import merge_equal_entries

    data = {"name": "x", "game": "fantasy", "ruleset": "wfb8", "points": 500,
            "units": [{"profile": "wfb8/empire_halberdiers"},
                      {"profile": "wfb8/empire_handgunners"},
                      {"profile": "wfb8/empire_halberdiers", "models": 20}]}
    merged = merge_equal_entries(data, load_list(data))
    assert merged is not None and len(merged["units"]) == 2
    assert merged["units"][0]["count"] == 2
    assert games.list_text(load_list(merged)) == games.list_text(load_list("wfb8_empire"))
    assert merge_equal_entries(merged, load_list(merged)) is None  # already one way of writing it
    report = tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", model="cells", seed=3,
                       top=20, budget_seconds=600, max_lists=30, n_trials=500)
    ranked = report.info["ranked"]
    texts = [games.list_text(load_list({**data, "units": r["units"]})) for r in ranked]
    assert len(texts) == len(set(texts)) > 1
    assert [r["changes"] for r in ranked].count("no change") == 1


def test_max_lists_caps_the_lists_scored_on_cells():
    for cap in (1, 4, 9):
        report = tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", model="cells", seed=3,
                           budget_seconds=600, max_lists=cap, n_trials=500)
        assert 1 <= report.info["lists_evaluated"] <= cap


def test_an_entry_buys_the_kit_its_profile_prices_and_tune_searches_it(tmp_path):
    """Issue 32 part 3: `buys = "<kit id>"` adds an item the profile's points.kit_options
    prices (BSData/whfb: Orc Boyz spears or additional hand weapons, 1 pt a model) to the
    unit's equipment, which the engines read (FB-E3, FB-E5), at its price; anything else is
    refused in one line; an options file varies it and tune's candidates carry it."""
    from mathhammer.tuning.tune import build_space

    def orcs(**extra):
        return {"name": "x", "game": "fantasy", "ruleset": "wfb8", "points": 500,
                "units": [{"profile": "wfb8/orc_boyz", **extra}]}

    plain, extra = load_list(orcs()).units[0], load_list(orcs(buys="additional_hand_weapon")).units[0]
    assert extra.points == plain.points + plain.profile.formation.models * 1
    assert extra.profile.equipment == (*plain.profile.equipment, "additional_hand_weapon")
    assert load_list(orcs(buys="none")).units[0].points == plain.points
    (tmp_path / "bad.toml").write_text('name = "x"\ngame = "fantasy"\nruleset = "wfb8"\n'
                                       'points = 500\n[[units]]\nprofile = "wfb8/orc_boyz"\n'
                                       'buys = "great_weapon"\n')
    from tests.conftest import cli_result

    code, _, err = cli_result("score", str(tmp_path / "bad.toml"), "--meta", "wfb8_infantry",
                              "--model", "cells")
    assert code == 2 and err.count("\n") == 1 and "units.0.buys" in err and "spear" in err
    # the engines read it: a paired difference on cells that is not 0
    from mathhammer.tuning import diff_lists

    d = diff_lists(load_list(orcs()), load_list(orcs(buys="additional_hand_weapon")),
                   "wfb8_infantry", model="cells", method="mc", n_trials=1000, seed=2)
    e = d.results["points_destroyed_per_turn[B-A]"]
    assert e.value != 0 and e.se > 0
    space, _ = build_space("wfb8_orcs", "wfb8_orcs", "fantasy", "wfb8")
    bought = {dict(opts).get("buys") for _, opts in space.variants["wfb8/orc_boyz"]}
    assert {"none", "spear", "additional_hand_weapon"} <= bought
    report = tune_list("wfb8_orcs", "wfb8_orcs", "wfb8_infantry", model="cells", seed=1,
                       max_lists=12, n_trials=500, budget_seconds=600, top=10)
    assert any(u.get("buys") not in (None, "none") for r in report.info["ranked"]
               for u in r["units"])


@pytest.mark.parametrize("name, ruleset, profile", [
    ("wfb8_orcs", "wfb8", "wfb8/orc_big_boss"), ("wfb8_dwarfs", "wfb8", "wfb8/dwarf_warriors"),
    ("t9a1_orcs", "t9a1", "t9a1/og_orcs"), ("t9a1_sonnstahl", "t9a1", "t9a1/eos_marshal"),
])
def test_each_bundled_options_file_with_kit_searches_what_the_profile_sells(name, ruleset, profile):
    """Issue 32 part 3: a bundled list's unit or character may buy the kit its profile sells
    (points.kit_options, BSData/whfb and BSData/The-9th-Age 1.3): its options file varies
    every item and none, and each variant loads at its price (per model x models more)."""
    from mathhammer.fantasy.models import load_unit
    from mathhammer.tuning.tune import build_space

    space, state = build_space(name, name, "fantasy", ruleset)
    sold = load_unit(profile).points.kit_options
    variants = space.variants[profile]
    # None: the input's own entry, which names no buys (always a candidate)
    assert {dict(opts).get("buys") for _, opts in variants} - {None} == {"none", *sold}
    others = {k: n for k, n in state.items() if k[0] != profile}
    for v in variants:
        army = load_list(space.to_list({**others, v: 1}, 5000))
        unit = army.unit(profile)
        item = dict(v[1]).get("buys")
        plain = load_list(space.to_list({**others, (profile, tuple(
            (k, val) for k, val in v[1] if k != "buys")): 1}, 5000)).unit(profile)
        extra = sold.get(item, 0) * unit.profile.formation.models
        assert unit.points == plain.points + extra, v
