"""Panic from a friend broken or destroyed nearby (FB-G4, FB-B21): both engines, against the
exact combat and the exact Leadership test."""

from __future__ import annotations

import math

from mathhammer.fantasy.battle.report import battle
from tests.test_fb_battle import SMALL, one_unit_list, within

# Halberdiers fight the first Orc Boyz front to front; the second Orc Boyz stand 2.5" to their
# side, out of the combat. Nobody charges or moves, so the second unit flees only by panic.
DEPLOYMENT = {"a": [{"unit": "Halberdiers", "x": 36.0, "y": 24.0, "charge": "none",
                     "move": "hold"}],
              "b": [{"unit": "Orc Boyz", "x": 36.0, "y": 24.0},
                    {"unit": "Orc Boyz (2)", "x": 43.5, "y": 24.0, "charge": "none",
                     "move": "hold"}]}


def _lists(tmp_path):
    a = one_unit_list(tmp_path, "halberdiers", "wfb8/empire_halberdiers", **SMALL)
    b = one_unit_list(tmp_path, "orcs", "wfb8/orc_boyz", count=2, **SMALL)
    return a, b


def _p_orcs_out_in_two_rounds() -> float:
    from mathhammer.fantasy.combat.fight import combat, make_side

    r = combat(make_side("wfb8/orc_boyz", where="a", models=10, champion=False),
               make_side("wfb8/empire_halberdiers", where="b", models=10, champion=False),
               rounds=2, method="exact").results
    return r["p_b_wins"].value + r["p_both_out"].value


def test_a_friend_breaking_nearby_makes_a_unit_panic(tmp_path):
    """One game turn, B first (so the panicked unit does not rally before the turn ends):
    the second Orc Boyz are fleeing at the end with P = P(the first break or are destroyed in
    the two rounds) × P(fail Ld 7) = P(out) × 15/36 (FB-B21), N = 3000, 5 se."""
    a, b = _lists(tmp_path)
    n = 3000
    report = battle(a, b, turns=1, first="b", deployment=DEPLOYMENT, policy_a="scripted",
                    policy_b="scripted", n_trials=n, seed=31)
    r = report.results
    exact = _p_orcs_out_in_two_rounds() * 15 / 36
    got = r["p_fleeing[B:Orc Boyz (2)]"].value + r["p_fled[B:Orc Boyz (2)]"].value
    assert 0.02 < exact < 0.98
    assert within(got, exact, n), (got, exact)


def test_the_kernel_and_the_reference_engine_agree_on_friend_panic(tmp_path):
    """The same set-up: the kernel and the Python step machine agree on P(the second Orc Boyz
    fleeing or fled at the end of turn 1), within 5 se of the difference (independent runs,
    N = 400 each)."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    a, b = _lists(tmp_path)
    recipe = Recipe(load_list(a), load_list(b), DEPLOYMENT, "test", 1, "b", "scripted",
                    "scripted", 1, 1)
    n = 400
    plans = [build_plan(recipe), build_plan(recipe)]
    plans[1].engine = "python"
    friend = 2  # unit index: Halberdiers, Orc Boyz, Orc Boyz (2)
    p = []
    for k, plan in enumerate(plans):
        tally = run(recipe, n, 40 + k, plan=plan)[0]
        p.append(tally["status"][0, friend, 1:3].sum() / n)  # fleeing or fled
    se = math.sqrt((p[0] * (1 - p[0]) + p[1] * (1 - p[1])) / n)
    assert abs(p[0] - p[1]) <= 5 * max(se, 1e-3), p
    assert p[0] > 0.05 and p[1] > 0.05, p


def test_the_rulesets_list_the_trigger():
    """`basic` has no such trigger (friend_panic_range 0); wfb8 and t9a1: within 6"."""
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    assert load_ruleset("basic").combat.friend_panic_range == 0
    assert load_ruleset("wfb8").combat.friend_panic_range == 6.0
    assert load_ruleset("t9a1").combat.friend_panic_range == 6.0
