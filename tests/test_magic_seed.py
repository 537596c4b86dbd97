"""Seed-004 magic readings (issues 21, 17): remains in play in full (MG-8), bound spells
and overwhelming power (MG-7, MG-5), the extra-dice limit (MG-3), derived miscast rows.

Hand computations in exact fractions from the brute-force-checked single rolls
(:func:`dispel_probability`, :func:`cast_odds`); Monte Carlo within 5 standard errors of
the exact p (N = 200 000: ± 0.56 points at p = 1/2).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import ProfileError, RulesError
from mathhammer.magic.models import load_scenario
from mathhammer.magic.rolls import cast_odds, dispel_probability
from mathhammer.magic.rules import magic_rules
from mathhammer.magic.scenario import run_phase
from mathhammer.magic.single import cast, flow
from tests.conftest import cli_inprocess

N = 200_000
T9A = magic_rules("t9a1")


def mc(scenario, n=N, seed=2026):
    return run_phase(scenario, method="mc", config=MonteCarloConfig(n_trials=n, seed=seed, threads=1))


def close(est, p: float, n: int = N) -> None:
    se = math.sqrt(max(p * (1 - p), 1e-12) / n)
    assert abs(est.value - p) <= 5 * se, (est.value, p, se)


def old_spell(**entry) -> dict:
    """No casting (no power dice); 6 dispel dice; one old spell of value 10 in play."""
    return {
        "game": "magic", "ruleset": "t9a1", "flow": {"power_dice": 0, "dispel_dice": 6},
        "caster": {"dice_rule": "fixed"}, "wizards": [{"name": "w", "level": 1}],
        "spells": [{"name": "Fireball", "wizard": "w", "cv": 5, "dice": 2}],
        "dispel": {"policy": "all_out"},  # fewest dice reaching 85 %, else all it may use
        "in_play": [{"name": "old", "owner": "active", "value": 10, **entry}],
    }


def p_dispel(k: int, against: int = 10) -> Fraction:
    return dispel_probability(T9A, k, 0, against)


def plan(dice: int, against: int = 10) -> int:
    """The all-out policy by hand: fewest dice reaching 0.85, else all (0 if hopeless)."""
    for k in range(1, dice + 1):
        if p_dispel(k, against) >= Fraction(85, 100):
            return k
    return dice if dice and p_dispel(dice, against) > 0 else 0


@lru_cache(maxsize=None)
def all_parts_gone(dice: int, parts: int) -> Fraction:
    """P(every part dispelled) with retries while dice last (MG-8), part after part."""
    if parts == 0:
        return Fraction(1)
    return one_part(dice, parts)


def one_part(dice: int, parts: int) -> Fraction:
    k = plan(dice)
    if k == 0:
        return Fraction(0)
    p = p_dispel(k)
    # success: next part with the dice left; failure: retry this part with the dice left
    return p * all_parts_gone(dice - k, parts - 1) + (1 - p) * one_part(dice - k, parts)


def test_old_spell_is_retried_with_the_dice_left():
    """Issue 21 item 2 (MG-8): 4 of 6 dice first (65/72); on a failure the last 2 dice try
    again (2D6 ≥ 10: 1/6): 65/72 + 7/72 × 1/6 = 397/432 (was 65/72 with one attempt)."""
    assert plan(6) == 4 and p_dispel(4) == Fraction(65, 72) and p_dispel(2) == Fraction(1, 6)
    expected = Fraction(65, 72) + Fraction(7, 72) * Fraction(1, 6)
    assert expected == Fraction(397, 432) == all_parts_gone(6, 1)
    scenario = load_scenario(old_spell(), "t")
    exact = run_phase(scenario, method="exact")
    assert exact["p_in_play_dispelled_1"].value == pytest.approx(float(expected), abs=1e-12)
    close(mc(scenario)["p_in_play_dispelled_1"], float(expected))
    one = run_phase(load_scenario(old_spell(attempts=1), "t"), method="exact")
    assert one["p_in_play_dispelled_1"].value == pytest.approx(65 / 72, abs=1e-12)


def test_slain_caster_ends_the_spell():
    """MG-8: the spell ends when its caster is slain (no dice spent)."""
    scenario = load_scenario(old_spell(p_caster_slain=0.25), "t")
    exact = run_phase(scenario, method="exact")
    gone = 397 / 432
    assert exact["p_in_play_dispelled_1"].value == pytest.approx(0.75 * gone, abs=1e-12)
    assert exact["p_in_play_ended_1"].value == pytest.approx(0.25 + 0.75 * gone, abs=1e-12)
    # a slain caster spends no dice: 6 dispel dice left with P 1/4 at least
    assert exact["dispel_dice_left"].p_eq(6).value >= 0.25 - 1e-12
    sim = mc(scenario)
    close(sim["p_in_play_ended_1"], 0.25 + 0.75 * gone)
    close(sim["p_in_play_dispelled_1"], 0.75 * gone)


@pytest.mark.parametrize("parts", [2, 3])
def test_split_unit_keeps_the_spell_on_every_part(parts):
    """MG-8: each part of a split unit is dispelled separately, with the dice left."""
    scenario = load_scenario(old_spell(parts=parts), "t")
    expected = all_parts_gone(6, parts)
    exact = run_phase(scenario, method="exact")
    assert exact["p_in_play_dispelled_1"].value == pytest.approx(float(expected), abs=1e-12)
    first = exact["p_in_play_dispelled_1_part_1"].value
    assert first == pytest.approx(float(one_part(6, 1)), abs=1e-12)  # the whole pool for part 1
    sim = mc(scenario)
    close(sim["p_in_play_dispelled_1"], float(expected))
    close(sim["p_in_play_dispelled_1_part_1"], first)


def test_same_wizard_cannot_cast_it_while_in_play():
    """MG-8: Fireball (the wizard's own spell, still in play) is cast only once dispelled.

    The reactive player tries only priority ≥ 5 (the old spell), never the new cast.
    """
    data = old_spell(spell="Fireball", priority=5)
    data["flow"] = {"power_dice": 4, "dispel_dice": 6}
    data["dispel"] = {"policy": "threshold", "min_priority": 5}
    scenario = load_scenario(data, "t")
    p_cast = cast_odds(T9A, 2, 1, 5).p_cast
    expected = Fraction(397, 432) * p_cast
    exact = run_phase(scenario, method="exact")
    assert exact["p_goes_off_1"].value == pytest.approx(float(expected), abs=1e-12)
    close(mc(scenario)["p_goes_off_1"], float(expected))
    free = dict(data, in_play=[{**data["in_play"][0], "spell": None}])
    unbarred = run_phase(load_scenario(free, "t"), method="exact")["p_goes_off_1"].value
    assert unbarred == pytest.approx(float(p_cast), abs=1e-12)


def test_spell_cast_now_is_retried_until_dice_run_out():
    """MG-8 for a spell cast this phase: after the caster passes, the dispeller tries again
    with the dice left; exact engine vs Monte Carlo on a phase with both kinds."""
    data = old_spell()
    data["flow"] = {"power_dice": 5, "dispel_dice": 7}
    data["spells"] = [{"name": "Hex", "wizard": "w", "cv": 9, "dice": 3, "remains_in_play": True}]
    data["dispel"] = {"policy": "threshold", "min_priority": 2}  # not against the cast itself
    data["in_play"][0]["priority"] = 2
    scenario = load_scenario(data, "t")
    exact = run_phase(scenario, method="exact")
    sim = mc(scenario)
    for key in ("p_goes_off_1", "p_in_play_end_1", "p_in_play_dispelled_1"):
        close(sim[key], exact[key].value)


def test_in_play_links_are_checked():
    bad = old_spell(spell="Nope")
    with pytest.raises(ProfileError, match="not a \\[\\[spells\\]\\] name"):
        load_scenario(bad, "t")
    with pytest.raises(ProfileError, match="slain caster casts nothing"):
        load_scenario(old_spell(spell="Fireball", p_caster_slain=0.5), "t")
    data = old_spell()
    data["in_play"][0].update(owner="reactive", spell="Fireball")
    with pytest.raises(ProfileError, match="owner"):
        load_scenario(data, "t")


# ---- MG-7 / MG-5: bound spells --------------------------------------------------------------
def test_bound_spell_with_two_sixes_is_still_cast_and_lost_with_four_dice():
    """t9a1 (reference §5c, lexicon 'Bound Spell'): no overwhelming bonus, never a miscast;
    still cast; with 4+ dice lost for the game. Power level 25 is out of reach of 4D6
    alone, so only two or more 6s cast it: 1 − (5/6)^4 − 4·(1/6)(5/6)^3 = 171/1296."""
    two_sixes = Fraction(171, 1296)
    r = cast(4, 0, 25, "t9a1", bound=True).results
    assert r["p_cast"].value == pytest.approx(float(two_sixes), abs=1e-12)
    assert r["p_bound_spell_lost"].value == pytest.approx(float(two_sixes), abs=1e-12)
    assert r["p_miscast"].value == 0 and r["p_overwhelming_cast"].value == 0
    assert "p_bound_spell_lost" not in cast(3, 0, 7, "t9a1", bound=True).results
    sim = cast(4, 0, 25, "t9a1", bound=True, method="mc",
               config=MonteCarloConfig(n_trials=N, seed=5, threads=1)).results
    close(sim["p_cast"], float(two_sixes))
    close(sim["p_bound_spell_lost"], float(two_sixes))
    # wfb8: two 6s on a bound spell are irresistible, but it never miscasts
    w = cast(4, 0, 25, "wfb8", bound=True).results
    assert w["p_cast"].value == pytest.approx(float(two_sixes), abs=1e-12)
    assert w["p_miscast"].value == 0


@pytest.mark.parametrize("args, flag", [
    (("magic", "cast", "--dice", "2", "--cv", "5", "--bound", "--modifier", "1"), "--modifier"),
    (("magic", "cast", "--dice", "2", "--cv", "5", "--bound", "--level", "2"), "--level"),
    (("magic", "flow", "--extra-power", "3"), "--extra-power"),
    (("magic", "flow", "--extra-dispel", "4"), "--extra-dispel"),
])
def test_silently_ignored_inputs_are_errors(args, flag):
    """Issue 17: a bound spell's modifier; issue 21 item 14: extra dice above the limit."""
    out = cli_inprocess(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and flag in out.stderr


def test_scenario_bound_modifier_and_extra_dice_are_errors_too():
    data = old_spell()
    data["spells"] = [{"name": "Item", "bound": True, "cv": 5, "dice": 2, "modifier": 1}]
    with pytest.raises(ProfileError, match="no casting modifiers"):
        load_scenario(data, "t")
    data = old_spell()
    data["flow"] = {"extra_power": 3}
    with pytest.raises(RulesError, match="flow.extra_power"):
        run_phase(load_scenario(data, "t"), method="mc", config=MonteCarloConfig(n_trials=1000))


def test_flow_says_when_channel_dice_are_lost_to_the_limit():
    """MG-3: 2 other dice + a successful channel (D6 + 2 ≥ 7: 1/3) exceed the limit of 2."""
    notes = flow("t9a1", channelers=2, extra_power=2).info["extra dice limit (MG-3)"]
    assert notes == ["active: 2 other dice + channel exceed the limit of 2 with P = 1/3; "
                     "the dice beyond it are lost"]
    assert "extra dice limit (MG-3)" not in flow("t9a1", channelers=2, extra_power=1).info


# ---- issue 17 part 3: derived figures carry their own estimator's error ------------------------
def test_miscast_rows_are_a_scaled_binomial_and_say_so():
    """p_miscast_row_* = P(miscast) (simulated) × P(row) (exact): se and interval scale."""
    from mathhammer.magic.rolls import miscast_rows

    n = 100_000
    r = cast(3, 2, 9, "t9a1", method="mc", config=MonteCarloConfig(n_trials=n, seed=9, threads=1))
    mis = r.results["p_miscast"]
    assert mis.se == pytest.approx(math.sqrt(mis.value * (1 - mis.value) / n), rel=1e-12)
    derived = r.info["derived results"]
    for (label, p_row), key in zip(miscast_rows(T9A), [k for k in r.results
                                                        if k.startswith("p_miscast_row_")],
                                   strict=True):
        est = r.results[key]
        assert key in derived and "scaled" in derived[key]
        assert est.value == pytest.approx(mis.value * float(p_row), rel=1e-12)
        assert est.se == pytest.approx(mis.se * float(p_row), rel=1e-12)
        assert est.ci95[0] == pytest.approx(mis.ci95[0] * float(p_row), rel=1e-12)
        assert est.ci95[1] == pytest.approx(mis.ci95[1] * float(p_row), rel=1e-12)
    for key, est in r.results.items():  # every other probability: a plain binomial
        if key.startswith("p_") and key not in derived:
            assert est.se == pytest.approx(math.sqrt(est.value * (1 - est.value) / n),
                                           rel=1e-9, abs=1e-15), key
