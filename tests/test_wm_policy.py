"""Focus policies (WM-F5): optimal ≥ fixed and greedy, DP vs an independent recursion,
policy tables simulated on tracks reproduce the exact value (5 SE)."""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import RulesError
from mathhammer.warmachine import rules
from mathhammer.warmachine.activation import ActivationSpec, Spell, Weapon, build_graph
from mathhammer.warmachine.duel import duel_chain
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.policy import describe, solve
from mathhammer.warmachine.sequence import Target

CHARGER = ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]


def jack(mat: int, pps: int, focus: int, charge: bool = False, fist: int | None = None,
         strength: int = 11, power_attacks: bool = True) -> ActivationSpec:
    weapons = [Weapon("Axe", "melee", mat, pps, pps - strength)]
    if fist is not None:
        weapons.append(Weapon("Fist", "melee", mat, fist, fist - strength))
    return ActivationSpec("jack", focus, tuple(weapons), strength, True, charge, power_attacks)


SWEEP = [  # (MAT, P+S, fist P+S, DEF, ARM, boxes or grid, focus, charge)
    (6, 18, 14, 12, 18, CHARGER, 3, True),
    (7, 16, None, 14, 16, 12, 2, False),
    (5, 19, 15, 15, 20, CHARGER, 3, False),
    (6, 17, None, 10, 14, 20, 3, True),
    (8, 14, 12, 16, 13, 9, 1, False),
    (4, 20, None, 13, 19, CHARGER, 3, True),
]


def _target(defense, armor, boxes):
    grid = Grid.from_columns(boxes) if isinstance(boxes, list) else Grid.track(boxes)
    return Target(defense, armor, grid)


@pytest.mark.parametrize("mat, pps, fist, defense, armor, boxes, focus, charge", SWEEP)
@pytest.mark.parametrize("objective", ["destroy", "damage"])
def test_optimal_at_least_every_fixed_policy_and_greedy(mat, pps, fist, defense, armor, boxes,
                                                        focus, charge, objective):
    graph = build_graph([jack(mat, pps, focus, charge, fist)])
    target = _target(defense, armor, boxes)
    best = solve(graph, target, "optimal", objective).value
    others = [solve(graph, target, "fixed", objective, bh, bd).value
              for bh, bd in itertools.product([False, True], repeat=2)]
    others.append(solve(graph, target, "greedy", objective).value)
    assert all(best >= v - 1e-12 for v in others), (best, others)
    assert best > 0


def test_optimal_value_equals_an_independent_recursion():
    """One weapon, no charge, no power attacks, a track: the optimum written out by hand.

    V(f, n, first) = max over boost-hit of P(hit)·max over boost-damage of E[V(f', n−d)]
    + P(miss)·V(f', n), where after the initial attack each further attack costs 1 focus
    and stopping is allowed.
    """
    mat, pps, defense, armor, boxes, focus = 6, 16, 13, 15, 14, 3
    target = Target(defense, armor, Grid.track(boxes))
    graph = build_graph([jack(mat, pps, focus, power_attacks=False)])
    got = solve(graph, target, "optimal").value

    def p_hit(boost):
        return rules.hit_probability(rules.dice_count(boost), mat, defense)

    def pmf(boost):
        return rules.damage_pmf(rules.dice_count(boost), pps, armor)

    @lru_cache(maxsize=None)
    def attack(f: int, n: int) -> float:  # value of making an attack with f focus left
        if n <= 0:
            return 1.0
        best = 0.0
        for bh in range(min(f, 1) + 1):
            p = p_hit(bool(bh))
            hit = 0.0
            for bd in range(min(f - bh, 1) + 1):
                q = pmf(bool(bd))
                hit = max(hit, sum(q[d] * after(f - bh - bd, n - d) for d in range(len(q))))
            best = max(best, p * hit + (1 - p) * after(f - bh, n))
        return best

    @lru_cache(maxsize=None)
    def after(f: int, n: int) -> float:  # buy another attack or stop
        if n <= 0:
            return 1.0
        return max(0.0, attack(f - 1, n) if f >= 1 else 0.0)

    assert got == pytest.approx(attack(focus, boxes), abs=1e-12)


@pytest.mark.parametrize("policy", ["fixed", "greedy", "optimal"])
@pytest.mark.parametrize("spec, target", [
    (jack(6, 18, 3, True, 14), Target(13, 16, Grid.track(18))),
    (jack(4, 16, 3, False, 12, strength=12), Target(16, 13, Grid.track(15))),  # head-butt pays
    (ActivationSpec("caster", 6, (Weapon("Sword", "melee", 7, 13),), 6, False, True, False,
                    (Spell("Bolt", 2, 11), Spell("Blast", 3, 13)), 7), Target(14, 15, Grid.track(16))),
])
def test_policy_kernel_on_a_track_reproduces_the_exact_value(policy, spec, target):
    """On a damage track the box-count model IS the full model, so the Monte Carlo
    of the policy tables must agree with the DP value. N = 200 000: tolerance
    5·sqrt(p(1−p)/N) ≤ 0.0056, computed from the exact value before the run."""
    n = 200_000
    graph = build_graph([spec])
    exact = solve(graph, target, policy).value
    tol = 5 * math.sqrt(max(exact * (1 - exact), 1e-12) / n)
    report = duel_chain([spec], target, policy=policy, config=MonteCarloConfig(n, seed=31))
    assert report.results["p_destroyed_box_model"].value == exact
    assert abs(report.results["p_destroyed"].value - exact) <= tol


def test_head_butt_knockdown_is_used_when_it_pays():
    # MAT 4 vs DEF 16: the axe needs 12 on 2d6; with 15 boxes left the optimum opens
    # with a head-butt so that the bought attacks hit automatically (WM-A4)
    graph = build_graph([jack(4, 16, 3, False, 12, strength=12)])
    target = Target(16, 13, Grid.track(15))
    tables = solve(graph, target, "optimal")
    lines = describe(graph, tables, 15)
    assert any(line.startswith("jack: opening") and "head-butt" in line for line in lines)
    assert any("target knocked down" in line for line in lines)
    no_pa = solve(build_graph([jack(4, 16, 3, False, 12, strength=12, power_attacks=False)]),
                  target, "optimal")
    assert tables.value > no_pa.value + 1e-4


def test_chained_activations_value_grows_and_carries_state():
    target = Target(13, 18, Grid.track(26))
    one = solve(build_graph([jack(6, 18, 3, True)]), target, "optimal").value
    two = solve(build_graph([jack(6, 18, 3, True), jack(6, 18, 3, True)]), target, "optimal").value
    assert two > one + 0.05


def test_warjack_focus_above_three_is_a_rules_error():
    with pytest.raises(RulesError, match="at most 3 focus"):
        build_graph([jack(6, 18, 4)])


def test_decision_table_is_short_and_names_the_choices():
    graph = build_graph([jack(6, 18, 3, True, 14)])
    target = _target(12, 18, CHARGER)
    lines = describe(graph, solve(graph, target, "optimal"), target.grid.n_boxes)
    assert 3 <= len(lines) <= 30
    assert lines[0].startswith("jack: opening [focus 3]")


@pytest.mark.parametrize("policy", ["fixed", "greedy", "optimal"])
def test_policy_on_the_full_grid_exact_equals_monte_carlo(policy):
    """The policy tables played on the Charger grid, where crippled M makes DEF 7 mid-
    activation (WM-G4): exact programme over (grid, focus, node, knock-down) vs the Monte
    Carlo kernel. N = 200 000, tolerance 5 SE from the exact p (≤ 0.0056)."""
    n = 200_000
    specs = [jack(5, 17, 3, True, 13, strength=11), jack(4, 16, 2, False, 12, strength=12)]
    target = Target(14, 15, Grid.from_columns(CHARGER))
    exact = duel_chain(specs, target, policy=policy, method="exact")
    mc = duel_chain(specs, target, policy=policy, method="mc", config=MonteCarloConfig(n, seed=12))
    for name, est in exact.results.items():
        if name.startswith("p_") and "box_model" not in name:
            tol = 5 * math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
            assert abs(mc.results[name].value - est.value) <= tol, name
    # the full grid differs from the box-count plan: crippled M helps the attacker
    assert exact.results["p_destroyed"].value != pytest.approx(
        exact.results["p_destroyed_box_model"].value, abs=1e-3)


def test_larger_base_bars_head_butt_and_slams_at_minus_two():
    from mathhammer.warmachine.duel import activation_from_profile

    small_vs_large = build_graph([activation_from_profile("cryx/deathripper", 3, True,
                                                          target_base="large")])
    labels = [n.label for n in small_vs_large.nodes]
    assert "head-butt" not in labels and "slam" in labels
    slam = next(o for o in small_vs_large.options if o.name == "slam")
    assert slam.stat == 6 - 2  # Deathripper MAT 6, slam against a larger base −2 (WM-A6)
    same = build_graph([activation_from_profile("khador/juggernaut", 3, True, target_base="large")])
    assert "head-butt" in [n.label for n in same.nodes]
    assert next(o for o in same.options if o.name == "slam").stat == 6


def test_sustained_attack_makes_later_attacks_automatic_hits():
    """Deathripper's Mandible (Sustained Attack, WM-A4): after a hit, bought attacks with it
    hit automatically. The optimal value rises against the same weapon without the rule,
    and the exact programme on the full grid agrees with the kernel (N = 200 000, 5 SE)."""
    bite = Weapon("Mandible", "melee", 6, 13, 6, sustained=True)
    plain = Weapon("Mandible", "melee", 6, 13, 6)
    target = Target(14, 14, Grid.from_columns(CHARGER))
    spec = ActivationSpec("ripper", 3, (bite,), 7, True, True, False)
    with_rule = solve(build_graph([spec]), target, "optimal").value
    without = solve(build_graph([ActivationSpec("ripper", 3, (plain,), 7, True, True, False)]),
                    target, "optimal").value
    assert with_rule > without + 1e-3
    n = 200_000
    exact = duel_chain([spec], target, method="exact")
    mc = duel_chain([spec], target, method="mc", config=MonteCarloConfig(n, seed=17))
    for name in ("p_destroyed", "p_crippled_M", "p_crippled_L"):
        p = exact.results[name].value
        assert abs(mc.results[name].value - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-12) / n), name
    assert any("(auto-hit)" in line for line in exact.info["decisions"])


def test_critical_knockdown_on_a_track_and_on_the_full_grid():
    """Critical Knockdown / Freeze: a critical hit (WM-A5) knocks the target down, so later
    melee attacks hit automatically (WM-A4). The rule raises the optimal value; on a
    track the kernel reproduces the DP value, and on a grid the exact programme agrees
    with the kernel (N = 200 000, 5 SE from the exact p)."""
    axe = Weapon("Axe", "melee", 5, 17, 6, crit_knockdown=True)
    plain = Weapon("Axe", "melee", 5, 17, 6)
    track = Target(15, 15, Grid.track(20))
    spec = ActivationSpec("jack", 3, (axe,), 11, True, True, False)
    value = solve(build_graph([spec]), track, "optimal").value
    base = solve(build_graph([ActivationSpec("jack", 3, (plain,), 11, True, True, False)]),
                 track, "optimal").value
    assert value > base + 1e-3
    n = 200_000
    mc = duel_chain([spec], track, config=MonteCarloConfig(n, seed=23))
    assert abs(mc.results["p_destroyed"].value - value) <= 5 * math.sqrt(value * (1 - value) / n)
    grid = Target(15, 15, Grid.from_columns(CHARGER))
    exact = duel_chain([spec], grid, method="exact")
    mc = duel_chain([spec], grid, config=MonteCarloConfig(n, seed=29))
    for name in ("p_destroyed", "p_crippled_M", "p_crippled_C"):
        p = exact.results[name].value
        assert abs(mc.results[name].value - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-12) / n), name


def test_buy_cap_limits_bought_attacks_and_fixed_keeps_focus_for_them():
    """--buy N: at most N bought attacks; the fixed policy boosts only with focus beyond them."""
    target = Target(13, 17, Grid.track(25))
    capped = ActivationSpec("jack", 3, (Weapon("Axe", "melee", 6, 18, 7),
                                         Weapon("Fist", "melee", 6, 14, 3)), 11, True,
                            max_bought=1)
    free = ActivationSpec("jack", 3, capped.weapons, 11, True)
    g_cap = build_graph([capped])
    fixed = solve(g_cap, target, "fixed", boost_damage=True)
    axe = next(i for i, n in enumerate(g_cap.nodes) if n.label == "Axe")
    assert fixed.bd[axe, 3, 25, 0, 0] == 1 and g_cap.nodes[axe].reserve == 1
    fist = g_cap.nodes[axe].next
    assert fixed.bd[fist, 1, 25, 0, 0] == 0  # the last focus is kept for the bought attack
    report = duel_chain([capped], target, policy="fixed", boost_damage=True,
                        config=MonteCarloConfig(20_000, seed=3))
    assert report.info["attacks made per trial"] <= 3.0
    assert solve(g_cap, target, "optimal").value <= solve(build_graph([free]), target,
                                                          "optimal").value + 1e-12
