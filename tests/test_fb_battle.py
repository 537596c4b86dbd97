"""``fb battle`` (FB-B1..B10): whole battles, checked against the engines they are built from.

Monte Carlo against exact: the tolerance is 5 standard errors of the exact p at the run's
N (tests/stats.py conventions), never a tuned seed.
"""

from __future__ import annotations

import math

import pytest

from mathhammer.fantasy.battle.report import battle
from tests.conftest import cli_result, ctrl_c_while_workers_run


def one_unit_list(tmp_path, name: str, profile: str, ruleset: str = "wfb8", **options) -> str:
    lines = [f'name = "{name}"', 'game = "fantasy"', f'ruleset = "{ruleset}"', "points = 2000",
             "", "[[units]]", f'profile = "{profile}"']
    lines += [f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()]
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


SMALL = dict(models=10, champion=False, standard=True, musician=True)


def in_contact(a_label: str, b_label: str) -> dict:
    """Two units front to front in the middle of the table (FB-B2: a combat from the start)."""
    return {"a": [{"unit": a_label, "x": 36.0, "y": 24.0}],
            "b": [{"unit": b_label, "x": 36.0, "y": 24.0}]}


def within(p_mc, p_exact: float, n: int, k: float = 5.0) -> bool:
    se = math.sqrt(max(p_exact * (1 - p_exact), 1e-12) / n)
    return abs(p_mc - p_exact) <= k * se + 1e-12


def test_units_in_contact_fight_as_fb_combat(tmp_path):
    """Two units placed front to front, one game turn, A first: A's turn and B's turn are two
    rounds of the same combat, so P(destroyed) of each unit after turn 1 is fb combat's
    exact answer for two rounds (pursuit included). N = 3000: 5 se ≈ 3.3 points at p ≈ 0.15."""
    from mathhammer.fantasy.combat.fight import combat, make_side

    a = one_unit_list(tmp_path, "halberdiers", "wfb8/empire_halberdiers", **SMALL)
    b = one_unit_list(tmp_path, "orcs", "wfb8/orc_boyz", **SMALL)
    n = 3000
    report = battle(a, b, turns=1, first="a", deployment=in_contact("Halberdiers", "Orc Boyz"),
                    policy_a="scripted", policy_b="scripted", n_trials=n, seed=11)
    exact = combat(make_side("wfb8/empire_halberdiers", where="a", models=10, champion=False),
                   make_side("wfb8/orc_boyz", where="b", models=10, champion=False),
                   rounds=2, method="exact")
    r = report.results
    pairs = {"p_destroyed[B:Orc Boyz]": exact.results["p_enemy_destroyed"].value,
             "p_destroyed[A:Halberdiers]": exact.results["p_own_destroyed"].value}
    for name, p in pairs.items():
        assert 0.02 < p < 0.98, (name, p)  # the check can fail either way
        assert within(r[name].value, p, n), (name, r[name].value, p)


def test_the_same_list_on_both_sides_is_even(tmp_path):
    """Mirror battle, the first turn rolled off: P(A wins) = P(B wins) within 5 se of their
    difference (multinomial: Var = (pA + pB - (pA - pB)^2) / n). N = 300 dwarf battles."""
    n = 300
    report = battle("wfb8_dwarfs", "wfb8_dwarfs", turns=4, policy_a="scripted",
                    policy_b="scripted", n_trials=n, seed=5)
    pa, pb = report.results["p_a_wins"].value, report.results["p_b_wins"].value
    se = math.sqrt(max(pa + pb - (pa - pb) ** 2, 1e-9) / n)
    assert pa + pb > 0.2  # battles are decided, so the comparison means something
    assert abs(pa - pb) <= 5 * se, (pa, pb, se)


def test_a_greedy_mirror_is_even_too():
    """The same, both generals greedy (the default) and another list: Empire against Empire,
    N = 300, within 5 se of the difference."""
    n = 300
    report = battle("wfb8_empire", "wfb8_empire", turns=4, n_trials=n, seed=6)
    pa, pb = report.results["p_a_wins"].value, report.results["p_b_wins"].value
    se = math.sqrt(max(pa + pb - (pa - pb) ** 2, 1e-9) / n)
    assert pa + pb > 0.2
    assert abs(pa - pb) <= 5 * se, (pa, pb, se)


def test_same_seed_same_answer_on_one_and_two_workers(tmp_path):
    kwargs = dict(turns=2, policy_a="scripted", policy_b="scripted", n_trials=60, seed=3)
    one = battle("wfb8_dwarfs", "wfb8_orcs", workers=1, **kwargs)
    two = battle("wfb8_dwarfs", "wfb8_orcs", workers=2, **kwargs)
    assert one.to_dict()["results"] == two.to_dict()["results"]
    assert one.distributions["vp_margin"].to_dict() == two.distributions["vp_margin"].to_dict()


def test_the_first_decisions_are_the_same_played_by_a_worker():
    """With worker processes the first decisions' battle is played by one of them (it holds
    the run's tables): the same values and se as in this process."""
    kwargs = dict(turns=2, n_trials=40, seed=4, policy_a="greedy", policy_b="greedy")
    one = battle("wfb8_empire_battle", "wfb8_orcs_battle", workers=1, **kwargs)
    two = battle("wfb8_empire_battle", "wfb8_orcs_battle", workers=2, **kwargs)
    first = one.info["first_decisions"]
    assert list(first) and list(first) == list(two.info["first_decisions"])
    assert first.lines == two.info["first_decisions"].lines


def test_ctrl_c_stops_a_battle_run_and_its_worker_processes():
    """Ctrl-C to the process group during a two-worker run: one line, exit 130, and no
    worker left (forked workers once took the interrupt as their chunk's result and waited
    for ever to send it to a parent that had gone)."""
    import os

    workers = min(2, os.cpu_count() or 1)  # distributed.run_processes: no more than the cores
    ctrl_c_while_workers_run(["fb", "battle", "wfb8_empire_battle", "wfb8_orcs_battle",
                              "--n-trials", "1000000", "--seed", "1", "--workers", "2"],
                             1 + workers)


def test_json_names_the_answer(tmp_path):
    report = battle("wfb8_dwarfs", "wfb8_orcs", turns=1, n_trials=20, seed=1,
                    policy_a="scripted", policy_b="scripted")
    data = report.to_dict()
    for key in ("p_a_wins", "p_draw", "p_b_wins", "mean_vp_margin"):
        assert key in data["results"]
    total = sum(data["results"][k]["value"] for k in ("p_a_wins", "p_draw", "p_b_wins"))
    assert total == pytest.approx(1.0)
    assert "not_played" in data["info"] and data["info"]["not_played"]
    assert report.headline.split(" ")[0] in ("Dwarf", "Orc")


def test_run_plays_a_battle_file_and_n_trials_overrides_it(tmp_path):
    """``mathhammer run`` with kind = "battle": the file's n_trials, or ‹n_trials› when given."""
    import json

    path = tmp_path / "battle.toml"
    path.write_text('game = "fantasy"\nkind = "battle"\n\n[battle]\nlist_a = "wfb8_dwarfs"\n'
                    'list_b = "wfb8_orcs"\nturns = 1\npolicy_a = "scripted"\n'
                    'policy_b = "scripted"\nn_trials = 12\n')
    for extra, battles in (([], 12), (["--n-trials", "20"], 20)):
        code, out, err = cli_result("run", str(path), "--seed", "1", "--format", "json",
                                    "--quiet", *extra)
        assert code == 0, err
        assert json.loads(out)["n_trials"] == battles


def test_score_plays_fantasy_lists_as_battles_now():
    """With fb battle in the build, ``score`` plays a Fantasy list's meta as battles (TU-B1)."""
    import json

    code, out, err = cli_result("score", "wfb8_empire", "--meta", "wfb8_infantry", "--battles",
                                "50", "--turns", "1", "--seed", "1", "--format", "json", "--quiet")
    assert code == 0, err
    results = json.loads(out)["results"]
    total = sum(results[k]["value"] for k in ("p_win", "p_draw", "p_loss"))
    assert abs(total - 1.0) < 1e-9 and "mean_vp_margin" in results


@pytest.mark.parametrize("wins, words", [((60, 30, 10), "A army beats B army 60.0%"),
                                         ((30, 60, 10), "B army beats A army 60.0%"),
                                         ((20, 20, 60), "A army and B army draw 60.0%"),
                                         ((45, 45, 10), "are even: each wins 45.0%"),
                                         ((40, 35, 25), "are level within the noise")])
def test_the_headline_says_beats_only_when_a_win_is_likelier(wins, words):
    from mathhammer.fantasy.headlines import fb_battle_headline
    from mathhammer.results import Estimate, Report

    n = 100
    results = {k: Estimate.proportion(x, n) for k, x in zip(("p_a_wins", "p_b_wins", "p_draw"),
                                                             wins, strict=True)}
    results["mean_vp_margin"] = Estimate.mean(0.0, 0.0, n)
    report = Report("fantasy.battle", "mc", results, {}, n_trials=n, seed=1)
    assert words in fb_battle_headline(report, ("A army", "B army"))
    # a list against itself: the headline tells its sides apart
    mirror = fb_battle_headline(report, ("Army", "Army"))
    assert words.replace("A army", "Army (A)").replace("B army", "Army (B)") in mirror


def test_a_decision_about_another_sides_unit_names_the_unit_by_its_own_side():
    """A dispel of the spell on A's halberdiers taken by B reads ``A:Halberdiers: dispel by B``,
    never ``B:Halberdiers`` (there is no such unit); A's own choices carry no ``by``."""
    from types import SimpleNamespace

    import numpy as np

    from mathhammer.fantasy.battle.report import decision_summary

    units = [SimpleNamespace(side=0, label="Halberdiers"),
             SimpleNamespace(side=1, label="Orc Boyz")]
    vocabulary = {(1, "dispel", 0, "no dispel"): 0, (1, "dispel", 0, "dispel with 2 dice"): 1,
                  (0, "charge", 0, "charge Orc Boyz"): 2}
    plan = SimpleNamespace(units=units, vocabulary=vocabulary)
    summary = decision_summary(plan, np.array([3, 1, 4]), 4)
    lines = summary.lines
    assert "A:Halberdiers: dispel by B (1.00 a battle): no dispel 75%, dispel with 2 dice 25%" \
        in lines
    assert "A:Halberdiers: charge (1.00 a battle): charge Orc Boyz 100%" in lines
    assert not [line for line in lines if line.startswith("B:Halberdiers")]
    # the JSON's records: the same figures, every option with its count
    assert list(summary) == [
        {"side": "A", "unit": "Halberdiers", "kind": "charge", "by": "A", "per_battle": 1.0,
         "options": [{"option": "charge Orc Boyz", "count": 4, "share": 1.0}]},
        {"side": "A", "unit": "Halberdiers", "kind": "dispel", "by": "B", "per_battle": 1.0,
         "options": [{"option": "no dispel", "count": 3, "share": 0.75},
                     {"option": "dispel with 2 dice", "count": 1, "share": 0.25}]}]


def test_the_json_lists_each_decision_with_how_often_each_option_was_taken():
    """Issue 30: "the JSON lists the decisions and their values" — records, not sentences: per
    unit and kind, how often a battle and each option's count and share (the shares of one
    decision sum to 1, the counts to per_battle × battles); the screen keeps its lines."""
    import json

    from mathhammer.present.render import render_table

    n = 40
    report = battle("wfb8_empire", "wfb8_orcs", n_trials=n, seed=2)
    records = json.loads(json.dumps(report.to_dict()))["info"]["decisions"]
    assert records and all(set(r) == {"side", "unit", "kind", "by", "per_battle", "options"}
                           for r in records)
    for r in records:
        counts = [o["count"] for o in r["options"]]
        assert sum(counts) == round(r["per_battle"] * n) and sum(counts) > 0
        assert abs(sum(o["share"] for o in r["options"]) - 1) < 1e-12
    moves = [r for r in records if r["kind"] == "move"]
    assert moves, records
    # the screen's line of each move, rebuilt from the record's counts (as the report
    # rounds them: 100 * count / total, not 100 * share, which may round the other way)
    text = render_table(report, full=True)
    for r in moves:
        total = sum(o["count"] for o in r["options"])
        taken = ", ".join(f"{o['option']} {100 * o['count'] / total:.0f}%"
                          for o in r["options"] if o["count"])
        assert f"{r['side']}:{r['unit']}: move ({total / n:.2f} a battle): {taken}" in text


@pytest.mark.parametrize("lists", [("t9a1_sonnstahl_cannon", "t9a1_orcs_giant"),
                                   ("wfb8_empire", "wfb8_orcs"), ("wfb8_empire", "wfb8_empire")])
def test_the_charts_margin_bars_are_coloured_by_each_margins_outcome(lists):
    """--plot's margin histogram stacks each bin by outcome (FB-B9's draw band: t9a1 a draw
    within a share of the points, wfb8 on equal VP): the draw bars hold exactly the margins within the band,
    the wins and losses the others, and together every battle."""
    import numpy as np

    from mathhammer.fantasy.battle.figure import DRAW, LOSE, WIN, battle_figure

    report = battle(*lists, turns=3, n_trials=150, seed=5, policy_a="scripted",
                    policy_b="scripted")
    limit = report.draw_limit_vp
    assert (limit > 0) == lists[0].startswith("t9a1")  # t9a1: 5% of the larger points limit
    margin = report.distributions["vp_margin"]
    outcomes, probs = np.asarray(margin.outcomes, float), np.asarray(margin.probs)
    want = {DRAW: probs[np.abs(outcomes) <= limit].sum(), WIN: probs[outcomes > limit].sum(),
            LOSE: probs[outcomes < -limit].sum()}
    ax = battle_figure(report).axes[1]
    got = {DRAW: 0.0, WIN: 0.0, LOSE: 0.0}
    for bar in ax.patches:
        colour = next(c for c in got if np.allclose(bar.get_facecolor()[:3], _rgb(c)))
        got[colour] += bar.get_height() / 100
    for colour, mass in want.items():
        assert got[colour] == pytest.approx(mass, abs=1e-12), colour
    assert sum(got.values()) == pytest.approx(1.0)
    if lists[0] == lists[1]:  # a list against itself: the legends tell its sides apart
        labels = [t.get_text() for t in battle_figure(report).axes[0].get_legend().get_texts()]
        assert labels[0].endswith("(A) wins") and labels[2].endswith("(B) wins"), labels


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    return tuple(int(hex_colour[i: i + 2], 16) / 255 for i in (1, 3, 5))


def test_the_web_page_shows_the_decisions_and_first_decisions_as_lines():
    """The page's notes show an InfoLines' lines (the JSON keeps the records): before, a list
    of records was left off the page, and with it the first decisions' values."""
    from mathhammer.web.view import build

    report = battle("wfb8_empire", "wfb8_orcs", n_trials=10, seed=2)
    notes = dict(build(report, None).notes)
    for key in ("decisions", "first_decisions"):
        assert notes[key] == report.info[key].lines and notes[key], key


def test_run_explain_on_a_battle_file_names_the_rules_it_plays(tmp_path):
    """``run --explain`` on a battle file lists the battle's rules (it printed an empty
    "explain:")."""
    path = tmp_path / "battle.toml"
    path.write_text('game = "fantasy"\nkind = "battle"\n\n[battle]\nlist_a = "wfb8_dwarfs"\n'
                    'list_b = "wfb8_orcs"\nturns = 1\nn_trials = 10\n')
    code, out, err = cli_result("run", str(path), "--seed", "1", "--explain", "--quiet")
    assert code == 0, err
    explain = out.split("\nexplain:\n")[1].splitlines()
    assert explain[0].startswith("  rules followed: FB-B1, FB-B2, FB-B3"), explain


@pytest.mark.parametrize("lists, n, turns", [(("wfb8_orcs", "wfb8_orcs"), 20, 1),
                                             (("wfb8_empire_battle", "wfb8_orcs_battle"), 60, 3)])
def test_the_charts_shares_carry_the_texts_95_percent_intervals(lists, n, turns):
    """The share bars print each share with the interval the text gives (Wilson): 100% of 20
    drawn battles is 83.9–100, never the '± 0.0' that 1.96 se made of it; the margin's title
    carries the headline's se."""
    from mathhammer.fantasy.battle.figure import battle_figure

    report = battle(*lists, turns=turns, n_trials=n, seed=1)
    fig = battle_figure(report)
    shown = {t.get_text() for t in fig.axes[0].texts}
    want = set()
    for key in ("p_a_wins", "p_draw", "p_b_wins"):
        est = report.results[key]
        if 100 * est.value >= 6:
            lo, hi = (100 * x for x in est.ci95)
            want.add(f"{100 * est.value:.1f}%\n{lo:.1f}–{hi:.1f}")
    assert shown == want and want
    if n == 20 and report.results["p_draw"].value == 1.0:  # Wilson's interval of 20 in 20
        assert "100.0%\n83.9–100.0" in shown
    from mathhammer.fantasy.headlines import margin_text

    m = report.results["mean_vp_margin"]
    assert fig.axes[1].get_title().startswith(f"the margin: mean {margin_text(m)} VP")
    assert f"mean margin {margin_text(m)} VP" in report.headline


def test_scripted_sides_say_why_no_first_decision_is_valued():
    """Both sides scripted: the first decisions' note says why it has no values (it printed
    an empty heading); one game turn is 'game turn'."""
    report = battle("wfb8_empire", "wfb8_orcs", turns=1, n_trials=10, seed=1,
                    policy_a="scripted", policy_b="scripted")
    first = report.info["first_decisions"]
    assert list(first) == [] and first.lines == ["none: scripted orders are followed, not valued"]
    assert "(wfb8, 1 game turn, scripted vs scripted)" in report.title


def test_the_library_call_the_guide_shows_works_after_a_plain_import():
    """docs/guide/library.md: ``import mathhammer`` then ``mathhammer.fantasy.battle(...)``
    (it raised AttributeError: the game packages were never imported)."""
    import subprocess
    import sys

    code = ("import mathhammer\n"
            "r = mathhammer.fantasy.battle('wfb8_empire', 'wfb8_orcs', turns=1, n_trials=5, "
            "seed=1)\nprint(r.results['p_draw'].value + r.results['p_a_wins'].value "
            "+ r.results['p_b_wins'].value)\n"
            "print(callable(mathhammer.magic.single.flow), "
            "callable(mathhammer.tuning.score_list), "
            "hasattr(mathhammer.fantasy, 'no_such_thing'))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1.0", "True", "True", "False"], proc.stdout


def test_the_guides_deployment_example_plays():
    """docs/guide/fantasy.md's deployment file (profiles/examples/fb_battle_flank.toml) is a
    valid file for the lists the guide names, and its orders are what the scripted sides do."""
    import json

    code, out, err = cli_result("fb", "battle", "wfb8_empire", "wfb8_orcs", "--deployment",
                                "profiles/examples/fb_battle_flank.toml", "--policy-a",
                                "scripted", "--policy-b", "scripted", "--turns", "2",
                                "--n-trials", "30", "--seed", "1", "--format", "json", "-q")
    assert code == 0, err
    data = json.loads(out)
    assert "Handgunners behind a wood" in data["info"]["set-up"]
    moves = [r for r in data["info"]["decisions"]
             if r["unit"] == "Halberdiers" and r["side"] == "A" and r["kind"] == "move"]
    assert moves and all(o["option"] == "hold" for o in moves[0]["options"] if o["count"]), moves


@pytest.mark.parametrize("kwargs, where, got", [
    (dict(list_b=42), "list_b", "(got int)"),
    (dict(turns="2"), "turns", "(got '2')"),
])
def test_the_library_names_a_wrong_type_in_one_line(kwargs, where, got):
    """A list given as a number is the library's InputError, not Python's TypeError; turns
    given as text says it is text."""
    from mathhammer.errors import InputError

    args = {"list_a": "wfb8_empire", "list_b": "wfb8_orcs", **kwargs}
    with pytest.raises(InputError) as err:
        battle(args.pop("list_a"), args.pop("list_b"), n_trials=5, **args)
    assert err.value.one_line().startswith(f"{where}: ") and got in err.value.one_line()


def test_a_small_margin_se_is_never_written_as_zero():
    """'± 0' only for an se of 0: a margin of 0.40 ± 0.06 keeps its decimals (it read
    '+0 ± 0')."""
    from mathhammer.fantasy.headlines import margin_text
    from mathhammer.results import Estimate

    assert margin_text(Estimate.mean(4.0, 2.0, 10)) == "+0.40 ± 0.06"  # se 0.063
    assert margin_text(Estimate.mean(970.0, 950_000.0, 10)) == "+97 ± 93"
    assert margin_text(Estimate.mean(0.0, 0.0, 20)) == "+0 ± 0"
