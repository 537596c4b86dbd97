"""Whole magic phase (MG-1..MG-10): Monte Carlo kernel vs exact computations.

Tolerance: 5 standard errors computed from the exact p before the run,
se = sqrt(p(1-p)/N). With N = 200 000 the smallest detectable difference is about
5 * sqrt(0.25 / 2e5) ≈ 0.56 percentage points at p = 0.5 (less near 0 or 1).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import ProfileError, RulesError
from mathhammer.magic.models import load_scenario
from mathhammer.magic.rolls import cast_odds, dispel_probability, flow_pools
from mathhammer.magic.rules import magic_rules
from mathhammer.magic.scenario import run_phase

N = 200_000


def mc(scenario, n=N, seed=11, threads=1):
    return run_phase(scenario, method="mc", config=MonteCarloConfig(n_trials=n, seed=seed, threads=threads))


def assert_close(estimate, exact: float, n: int = N, label: str = ""):
    se = math.sqrt(max(exact * (1 - exact), 1e-12) / n)
    assert abs(estimate.value - exact) <= 5 * se, (label, estimate.value, exact, se)


def one_spell(ruleset, *, cv=9, level=2, dice=3, dispel_level=1, pools=(6, 4), flow=None):
    data = {
        "game": "magic", "ruleset": ruleset,
        "flow": flow or {"power_dice": pools[0], "dispel_dice": pools[1]},
        "caster": {"dice_rule": "fixed"},
        "wizards": [{"name": "w", "level": level}],
        "spells": [{"name": "s", "wizard": "w", "cv": cv, "dice": dice}],
        # confidence 1.0 is never reached against totals ≥ 9: every attempt uses all dice
        "dispel": {"policy": "all_out", "level": dispel_level, "confidence": 1.0},
    }
    return load_scenario(data, "test")


def exact_one_spell(rules, cv, level, dice, dispel_dice, dispel_level):
    """Hand computation from the brute-force-checked single rolls (MG-4..MG-6)."""
    odds = cast_odds(rules, dice, level, cv)
    through_plain = sum(p * (1 - dispel_probability(rules, dispel_dice, dispel_level, t))
                        for t, p in odds.plain.items())
    through_op = sum(p * (1 - dispel_probability(rules, dispel_dice, dispel_level, t))
                     for t, p in odds.overwhelming.items())
    goes = odds.p_irresistible_cast + through_plain + through_op
    miscast = odds.p_irresistible_cast + through_op
    dispellable = sum(odds.plain.values()) + sum(odds.overwhelming.values())
    return goes, miscast, dispellable


@pytest.mark.parametrize("ruleset", ["t9a1", "wfb8"])
def test_one_spell_phase_fixed_pools_matches_exact(ruleset):
    """MG-4..MG-6 in a phase: P(goes off), P(miscast), dice left; N = 200 000."""
    rules = magic_rules(ruleset)
    goes, miscast, dispellable = exact_one_spell(rules, 9, 2, 3, 4, 1)
    report = mc(one_spell(ruleset))
    assert_close(report["p_goes_off_1"], float(goes), label="goes off")
    assert_close(report["p_miscast"], float(miscast), label="miscast")
    assert_close(report["spells_through"].p_eq(1), float(goes), label="through")
    assert_close(report["dispel_dice_left"].p_eq(0), float(dispellable), label="dispel left")
    # t9a1 1.0: a miscast removes as many dice as were used (6 - 3 - 3 = 0), MG-10
    p_zero = float(miscast) if ruleset == "t9a1" else 0.0
    assert_close(report["power_dice_left"].p_eq(0), p_zero, label="power left 0")
    exact = run_phase(one_spell(ruleset), method="exact")
    assert exact["p_goes_off_1"].value == pytest.approx(float(goes), abs=1e-12)
    assert exact["p_miscast"].value == pytest.approx(float(miscast), abs=1e-12)


@pytest.mark.parametrize("ruleset", ["t9a1", "wfb8"])
def test_one_spell_phase_with_flow_matches_exact(ruleset):
    """MG-1..MG-3 in the kernel: flow + channel, then one spell; N = 200 000."""
    rules = magic_rules(ruleset)
    flow = {"channelers": 2, "reactive_channelers": 1}
    goes = Fraction(0)
    for (power, dispel), p in flow_pools(rules, 2, 1).items():
        if power >= 3:  # the fixed plan needs 3 dice (README decision)
            goes += p * exact_one_spell(rules, 9, 2, 3, min(dispel, rules.dispel_dice_cap), 1)[0]
    report = mc(one_spell(ruleset, flow=flow))
    assert_close(report["p_goes_off_1"], float(goes))
    exact = run_phase(one_spell(ruleset, flow=flow), method="exact")
    assert exact["p_goes_off_1"].value == pytest.approx(float(goes), abs=1e-12)


def three_spells(ruleset, rule="fixed", policy="all_out"):
    data = {
        "game": "magic", "ruleset": ruleset,
        "flow": {"channelers": 2, "reactive_channelers": 2},
        "caster": {"dice_rule": rule, "target": 0.7},
        "wizards": [{"name": "a", "level": 2}, {"name": "b", "level": 1}],
        "spells": [
            {"name": "x", "wizard": "a", "cv": 10, "dice": 3, "priority": 2, "weight": 2.0},
            {"name": "y", "wizard": "a", "cv": 7, "dice": 2, "priority": 1},
            {"name": "z", "bound": True, "cv": 5, "dice": 2, "priority": 3, "weight": 0.5},
            {"name": "v", "wizard": "b", "cv": 6, "dice": 2, "priority": 1},
        ],
        "dispel": {"policy": policy, "level": 2, "min_priority": 2, "keep": 1},
    }
    return load_scenario(data, "test")


@pytest.mark.parametrize("ruleset,rule,policy", [
    ("t9a1", "fixed", "all_out"), ("wfb8", "target", "threshold"), ("wfb8", "fixed", "keep_dice"),
    ("t9a1", "optimal", "keep_dice"),
])
def test_multi_spell_phase_matches_exact_engine(ruleset, rule, policy):
    """Lost focus, bound spells, wfb8 failed dispeller, priorities, remains in play
    (spell 1, retried after the caster passes) and [[in_play]] spells of both owners
    (MG-8); N = 200 000 each."""
    data = three_spells(ruleset, rule, policy).model_dump()
    data["spells"][0]["remains_in_play"] = True
    data["in_play"] = [
        {"name": "theirs", "owner": "reactive", "value": 8, "dice": 2, "level": 1},
        {"name": "ours", "owner": "active", "value": 9, "priority": 3},
    ]
    scenario = load_scenario(data, "test")
    exact = run_phase(scenario, method="exact")
    report = mc(scenario)
    for key in [f"p_goes_off_{i}" for i in range(1, 5)] + [
            "p_in_play_end_1", "p_in_play_dispelled_1", "p_in_play_dispelled_2"]:
        assert_close(report[key], exact[key].value, label=key)
    assert_close(report["p_miscast"], exact["p_miscast"].value)
    for name in ("spells_through", "power_dice_left", "dispel_dice_left"):
        ref = exact[name]
        got = report[name]
        lo, hi = min(ref.min, got.min), max(ref.max, got.max)
        p, q = ref.aligned(lo, hi), got.aligned(lo, hi)
        se = np.sqrt(np.maximum(p * (1 - p), 1e-12) / N)
        assert np.all(np.abs(q - p) <= 5 * se), name


def test_optimal_plan_beats_every_fixed_allocation():
    """MG-9 optimiser: its exact value ≥ that of every fixed dice split (fixed pools)."""
    base = three_spells("t9a1", "optimal").model_dump()
    base["flow"] = {"power_dice": 7, "dispel_dice": 4}
    best = run_phase(load_scenario(base, "t"), method="exact")["expected_weight"].value
    top = 0.0
    for split in itertools.product(range(1, 6), range(1, 6), range(1, 4), range(1, 4)):
        data = {**base, "caster": {"dice_rule": "fixed"}}
        data["spells"] = [{**s, "dice": n} for s, n in zip(base["spells"], split, strict=True)]
        value = run_phase(load_scenario(data, "t"), method="exact")["expected_weight"].value
        top = max(top, value)
    assert best >= top - 1e-9
    assert best > 0


def test_optimal_value_equals_monte_carlo_weight():
    """The DP's expected weighted spells through vs the kernel's mean (5 se of the run)."""
    scenario = three_spells("wfb8", "optimal")
    report = mc(scenario)
    dp_value = report.info["expected_weight, exact (optimal plan)"]
    est = report["expected_weight"]
    assert abs(est.value - dp_value) <= 5 * est.se + 1e-6


def test_kernel_resolution_matches_exact_single_rolls():
    """Kernel resolve_cast / resolve_dispel (.py_func) over every face and D3 face."""
    from mathhammer.magic import kernels as km

    for name in ("t9a1", "wfb8"):
        rules = magic_rules(name)
        twosix = 0 if rules.two_sixes == "irresistible" else 1
        for n, cv, bound in [(1, 3, 0), (2, 7, 0), (3, 10, 0), (3, 16, 0), (2, 5, 1)]:
            cast = Fraction(0)
            for faces in itertools.product(range(1, 7), repeat=n):
                for d3 in (1, 2, 3):
                    code, _ = km.resolve_cast.py_func(sum(faces), faces.count(6), n, 2, cv, bound,
                                                      rules.natural_fail_at_most, twosix, d3)
                    cast += Fraction(code > 0, 3 * 6**n)
            assert cast == cast_odds(rules, n, 2, cv, 0, bool(bound)).p_cast
        for k, against in [(1, 4), (2, 9), (3, 13)]:
            hit = Fraction(0)
            for faces in itertools.product(range(1, 7), repeat=k):
                for d3 in (1, 2, 3):
                    ok = km.resolve_dispel.py_func(sum(faces), faces.count(6), k, 1, against,
                                                   rules.dispel_natural_fail_at_most,
                                                   int(rules.op_on_dispel), d3)
                    hit += Fraction(int(ok), 3 * 6**k)
            assert hit == dispel_probability(rules, k, 1, against)


def test_same_seed_same_answer_any_thread_count():
    scenario = three_spells("t9a1")
    a = mc(scenario, n=300_000, seed=5, threads=1).to_dict()
    b = mc(scenario, n=300_000, seed=5, threads=2).to_dict()
    assert a["results"] == b["results"] and a["distributions"] == b["distributions"]


@pytest.mark.parametrize("patch,match", [
    ({"spells": []}, "empty"),
    ({"spells": {"name": "x"}}, "spells"),
    ({"spells": [{"name": "x", "wizard": "w", "cv": 1}]}, "cv"),
    ({"spells": [{"name": "x", "wizard": "nobody", "cv": 7}]}, "not in"),
    ({"spells": [{"name": "x", "wizard": "w", "cv": 7, "colour": "red"}]}, "colour"),
])
def test_bad_scenarios_are_one_clear_error(patch, match):
    data = {"game": "magic", "wizards": [{"name": "w", "level": 1}],
            "spells": [{"name": "x", "wizard": "w", "cv": 7}], **patch}
    with pytest.raises(ProfileError, match=match):
        load_scenario(data, "bad.toml")


def test_more_dice_than_the_ruleset_allows_is_an_error():
    data = {"game": "magic", "ruleset": "t9a1", "caster": {"dice_rule": "fixed"},
            "wizards": [{"name": "w", "level": 1}],
            "spells": [{"name": "x", "wizard": "w", "cv": 7, "dice": 6}]}
    with pytest.raises(RulesError, match="1 to 5 dice"):
        run_phase(load_scenario(data, "bad.toml"), method="mc",
                  config=MonteCarloConfig(n_trials=1000, seed=1))


@pytest.mark.parametrize("ruleset,n,level,cv,bound", [
    ("t9a1", 3, 2, 9, False), ("wfb8", 2, 1, 7, False), ("wfb8", 4, 0, 9, True), ("t9a1", 5, 1, 22, False),
])
def test_cast_monte_carlo_matches_exact(ruleset, n, level, cv, bound):
    """Casting kernel vs exact enumeration (MG-4, MG-5, MG-7); N = 200 000, 5 se."""
    from mathhammer.magic.single import cast

    exact = cast(n, level, cv, ruleset, bound=bound)
    report = cast(n, level, cv, ruleset, bound=bound, method="mc",
                  config=MonteCarloConfig(n_trials=N, seed=3, threads=1))
    for key in ("p_cast", "p_two_sixes", "p_miscast", "p_fail"):
        assert_close(report[key], exact[key].value, label=key)
    ref, got = exact["casting_total"], report["casting_total"]
    n_cond = int(got.n_trials)
    lo, hi = min(ref.min, got.min), max(ref.max, got.max)
    p, q = ref.aligned(lo, hi), got.aligned(lo, hi)
    assert np.all(np.abs(q - p) <= 5 * np.sqrt(np.maximum(p * (1 - p), 1e-12) / n_cond))


@pytest.mark.parametrize("ruleset,k,level,against", [("t9a1", 3, 1, 12), ("wfb8", 2, 0, 7), ("t9a1", 2, 0, 16)])
def test_dispel_monte_carlo_matches_exact(ruleset, k, level, against):
    """Dispel kernel vs exact (MG-6, MG-5 on dispels); N = 200 000, 5 se."""
    from mathhammer.magic.single import dispel

    exact = dispel(k, level, against, ruleset)["p_dispel"].value
    report = dispel(k, level, against, ruleset, method="mc",
                    config=MonteCarloConfig(n_trials=N, seed=4, threads=1))
    assert_close(report["p_dispel"], exact)


def test_optimiser_split_value_equals_exact_phase_and_brute_force():
    """MG-9 optimiser: the DP's value of the best split equals the forward exact engine's
    expected weight for that split, beats every split tried by brute force, and the
    adaptive value is at least as large."""
    from mathhammer.magic.optimise import optimise

    scenario = three_spells("wfb8", "fixed", "threshold")
    report = optimise(scenario, power=8, dispel=5)
    best = report["expected_weight_best_split"].value
    dice = [int(report[f"dice_{i}"].value) for i in range(1, 5)]
    assert sum(dice) <= 8
    weights = [s.weight for s in scenario.spells]
    via_forward = sum(w * report[f"p_goes_off_{i + 1}"].value for i, w in enumerate(weights))
    assert via_forward == pytest.approx(best, abs=1e-9)
    assert report["expected_weight_adaptive"].value >= best - 1e-12
    base = scenario.model_dump()
    base["flow"] = {"power_dice": 8, "dispel_dice": 5}
    base["dispel"]["retry_remains_in_play"] = False
    for split in [(3, 2, 2, 1), (2, 2, 2, 2), (4, 1, 1, 2), (3, 3, 1, 1), (1, 1, 1, 1)]:
        data = {**base, "spells": [{**s, "dice": n} for s, n in zip(base["spells"], split, strict=True)]}
        value = run_phase(load_scenario(data, "t"), method="exact")["expected_weight"].value
        assert value <= best + 1e-9, split


def _two_spells(ruleset, pools, dispel, same_wizard):
    return load_scenario({
        "game": "magic", "ruleset": ruleset,
        "flow": {"power_dice": pools[0], "dispel_dice": pools[1]},
        "caster": {"dice_rule": "fixed"},
        "wizards": [{"name": "a", "level": 2}, {"name": "b", "level": 2}],
        "spells": [{"name": "A", "wizard": "a", "cv": 8, "dice": 2, "priority": 2},
                   {"name": "B", "wizard": "a" if same_wizard else "b", "cv": 8, "dice": 2}],
        "dispel": dispel,
    }, "test")


def test_lost_focus_and_miscast_end_the_wizards_casting_by_hand():
    """MG-4 lost focus + the miscast decision, t9a1, one wizard, no dispel dice:
    P(B goes off) = (P(A cast) - P(A overwhelming)) * P(B cast); N = 200 000."""
    rules = magic_rules("t9a1")
    a = cast_odds(rules, 2, 2, 8)
    expected = (a.p_cast - sum(a.overwhelming.values())) * a.p_cast
    scenario = _two_spells("t9a1", (4, 0), {"policy": "all_out"}, same_wizard=True)
    assert run_phase(scenario, method="exact")["p_goes_off_2"].value == pytest.approx(float(expected), abs=1e-12)
    assert_close(mc(scenario)["p_goes_off_2"], float(expected))


def test_wfb8_failed_dispelling_wizard_loses_his_level_by_hand():
    """MG-6 wfb8: after a failed dispel the army dispels on without the level.
    Hand computation with the documented dice choice (fewest dice reaching 1%, else all
    allowed, none if hopeless); N = 200 000."""
    rules = magic_rules("wfb8")
    level = 3

    def dice_for(d, lvl, t):
        for k in range(1, d + 1):
            if dispel_probability(rules, k, lvl, t) >= Fraction(1, 100):
                return k
        return d if d and dispel_probability(rules, d, lvl, t) > 0 else 0

    a = cast_odds(rules, 2, 2, 8)
    after_a = {(3, level): a.p_fail + a.p_irresistible_cast}  # (dispel dice left, level) -> P
    for t, p in a.plain.items():
        k = dice_for(3, level, t)
        pd = dispel_probability(rules, k, level, t) if k else Fraction(0)
        after_a[(3 - k, level)] = after_a.get((3 - k, level), 0) + p * pd
        lvl = 0 if k else level  # a failed attempt by the wizard: no level from now on
        after_a[(3 - k, lvl)] = after_a.get((3 - k, lvl), 0) + p * (1 - pd)
    goes_b = Fraction(0)
    for (d, lvl), q in after_a.items():
        through = a.p_irresistible_cast
        for t, p in a.plain.items():
            k = dice_for(d, lvl, t)
            through += p * (1 - (dispel_probability(rules, k, lvl, t) if k else 0))
        goes_b += q * through
    scenario = _two_spells("wfb8", (4, 3), {"policy": "all_out", "level": level, "confidence": 0.01},
                           same_wizard=False)
    assert run_phase(scenario, method="exact")["p_goes_off_2"].value == pytest.approx(float(goes_b), abs=1e-12)
    assert_close(mc(scenario)["p_goes_off_2"], float(goes_b))
