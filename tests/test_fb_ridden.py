"""A rider and its monster as targets (FB-P1, FB-P2, FB-R1; seed 001 «и персонаж и монстр
оба попали»): shooting hits allotted by a D6, a template hitting both parts, each with
its own Toughness, saves and Wounds. The reference computations below are written from
the rules text with exact fractions; Monte Carlo within 5 standard errors."""

from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import product

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import MathhammerError
from mathhammer.fantasy.artillery.query import artillery
from mathhammer.fantasy.chain.core import AttackSpec
from mathhammer.fantasy.combat.target import ridden_shooting, target_parts
from mathhammer.fantasy.models import load_unit
from mathhammer.fantasy.rules.ruleset import load_ruleset

PRINCE = "wfb8/high_elf_prince_star_dragon"
RULES = load_ruleset("wfb8")


def test_parts_of_the_prince_on_star_dragon():
    """FB-P1: the Prince T3 W3 with 4+ armour and the dragon's +1 (3+); the dragon T7 W7 3+."""
    rider, mount = target_parts(load_unit(PRINCE), RULES)
    assert (rider.t, rider.w, rider.armour) == (3, 3, 3)
    assert (mount.t, mount.w, mount.armour) == (7, 7, 3)


def _reference(shots: int):
    """Exact P(rider slain), E[wounds on the monster] for BS3 S4 shots: hit 4+ (1/2);
    rider on 5-6 (1/3): S4 v T3 3+ (2/3), 3+ save -1 -> 4+ fails 1/2; dragon on 1-4:
    S4 v T7 6+ (1/6), 3+ save -1 -> 4+ fails 1/2."""
    p_rider = F(1, 2) * F(1, 3) * F(2, 3) * F(1, 2)
    p_mount = F(1, 2) * F(2, 3) * F(1, 6) * F(1, 2)
    p_slain = F(0)
    mean_mount = F(0)
    for outcome in product((0, 1, 2), repeat=shots):  # 0 nothing, 1 rider wound, 2 dragon wound
        p = F(1)
        for o in outcome:
            p *= (1 - p_rider - p_mount, p_rider, p_mount)[o]
        if outcome.count(1) >= 3:
            p_slain += p
        mean_mount += p * min(outcome.count(2), 7)
    return p_slain, mean_mount


@pytest.mark.parametrize("shots", [1, 4, 6])
def test_shooting_at_a_ridden_monster_is_allotted_by_a_d6(shots):
    spec = AttackSpec(bs=3, strength=4, toughness=3, close_combat=False)
    r = ridden_shooting(spec, shots, load_unit(PRINCE), RULES)
    p_slain, mean_mount = _reference(shots)
    assert r.results["p_slain[Prince on Star Dragon]"].value == pytest.approx(float(p_slain), abs=1e-12)
    assert r.results["mean_wounds_on_mount"].value == pytest.approx(float(mean_mount), abs=1e-12)


def test_shooting_monte_carlo_within_5_se():
    n = 200_000
    spec = AttackSpec(bs=3, strength=4, toughness=3, close_combat=False)
    r = ridden_shooting(spec, 6, load_unit(PRINCE), RULES, method="mc",
                        config=MonteCarloConfig(n_trials=n, seed=21, threads=1))
    p, _ = _reference(6)
    se = math.sqrt(float(p) * (1 - float(p)) / n)
    assert abs(r.results["p_slain[Prince on Star Dragon]"].value - float(p)) <= 5 * se


def test_a_template_hits_both_rider_and_monster():
    """FB-R1: a covered model takes a hit on each part: the S3 hit wounds the Prince (T3)
    on 4+ with his 3+ save; the dragon (T7) cannot be wounded by S3. The centre (S9 D6
    wounds) goes to the Prince on 5-6, otherwise the dragon (the other part: S3)."""
    r = artillery("stone-thrower", PRINCE, config=MonteCarloConfig(n_trials=200_000, seed=5, threads=1))
    p_any, p_big = r.results["p_any_hit"].value, r.results["p_big_hit"].value
    small_r = F(1, 2) * F(1, 3)                 # S3 v T3 4+; the 3+ save fails on 1-2
    # mean wounds on the Prince: the small hit (1 wound) or, 1/3 of the centre hits, the big
    # hit (D6 wounds capped at 3: mean 2.5 for each unsaved wound, 5/6 of them)
    mean_big = F(5, 6) * (F(1, 6) * 1 + F(1, 6) * 2 + F(4, 6) * 3)
    expect = (p_any - p_big) * float(small_r) + p_big * (float(F(1, 3) * mean_big) + float(F(2, 3) * small_r))
    got = r.results["mean_wounds_on_rider"]
    assert abs(got.value - expect) <= 5 * got.se + 1e-9
    assert r.results["p_slain[Star Dragon]"].value == 0  # S3 cannot wound T7; S9 is 7 wounds short


def test_a_cannon_ball_is_one_allotted_hit_exact():
    """FB-P2: the bouncing cannon (exact): a hit goes to the Prince on 5-6 (S10 v T3 2+, no
    save, D6 wounds capped at 3) or to the dragon (S10 v T7 2+, 3+ save -7: none)."""
    r = artillery("cannon", PRINCE)
    assert r.method == "exact"
    p_hit = r.results["p_any_hit"].value
    slay = F(5, 6) * F(4, 6)  # an unsaved wound of D6 >= 3
    # the Prince: slain when the hit is his and the wound's D6 reaches 3
    assert r.results["p_slain[Prince on Star Dragon]"].value == pytest.approx(p_hit * float(F(1, 3) * slay),
                                                                               abs=1e-12)


def test_a_volley_at_a_ridden_monster_is_one_clear_line():
    with pytest.raises(MathhammerError) as err:
        artillery("multi-barrel", PRINCE)
    assert "not played yet" in str(err.value) and "\n" not in str(err.value)
