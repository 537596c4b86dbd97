"""Focus policies (WM-F5): the exact programme on the full state.

* the optimum is ≥ every fixed and greedy habit, evaluated by the same programme;
* the programme equals an independent plain-Python recursion over (node, focus, marked
  boxes, knocked down, engaged), written from the rules with ``Grid.mark`` (WM-G2..G4);
* the exact distribution and the Monte Carlo of the same decisions agree (5 SE).
"""

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
from mathhammer.warmachine.exact_policy import decision_lines, solve_full
from mathhammer.warmachine.grid import Grid
from mathhammer.warmachine.policy import OptionTables
from mathhammer.warmachine.sequence import Target

CHARGER = ["--L", "--LLM", "---MM", "---CC", "--RRC", "--R"]


def jack(mat: int, pps: int, focus: int, charge="no", fist: int | None = None,
         strength: int = 11, power_attacks: bool = True) -> ActivationSpec:
    weapons = [Weapon("Axe", "melee", mat, pps, pps - strength)]
    if fist is not None:
        weapons.append(Weapon("Fist", "melee", mat, fist, fist - strength))
    return ActivationSpec("jack", focus, tuple(weapons), strength, True, charge, power_attacks)


def solve(graph, target, policy="optimal", objective="destroy", bh=False, bd=False):
    return solve_full(graph, target, policy, objective, bh, bd)


SWEEP = [  # (MAT, P+S, fist P+S, DEF, ARM, boxes or grid, focus, charge)
    (6, 18, 14, 12, 18, CHARGER, 3, "may"),
    (7, 16, None, 14, 16, 12, 2, "no"),
    (5, 19, 15, 15, 20, CHARGER, 3, "no"),
    (6, 17, None, 10, 14, 20, 3, "must"),
    (8, 14, 12, 16, 13, 9, 1, "no"),
    (4, 20, None, 13, 19, CHARGER, 3, "may"),
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
    assert all(best >= v - 1e-9 for v in others), (best, others)
    assert best > 0


def _reference_optimum(spec: ActivationSpec, target: Target) -> float:
    """The optimum written out by hand over the full state, for one activation of one melee
    weapon with bought attacks (no charge, no power attacks): V(f, bits, first) with
    P(hit) read at the grid's current DEF (7 once M is crippled, WM-A7/WM-G4) and every
    column of every damage roll marked by the cell-by-cell ``Grid.mark`` (WM-G2)."""
    (w,) = spec.weapons
    grid = target.grid
    m_mask = grid.system_masks.get("M", 0)

    def p_hit(boost, bits):
        mcrip = m_mask != 0 and bits & m_mask == m_mask
        defense = 7 if mcrip else target.defense
        return rules.hit_probability(rules.dice_count(boost), w.stat, defense)

    def pmf(boost):
        return rules.damage_pmf(rules.dice_count(boost), w.power, target.armor)

    @lru_cache(maxsize=None)
    def attack(f: int, bits: int) -> float:  # make an attack with f focus (its cost paid)
        best = 0.0
        for bh in range(min(f, 1) + 1):
            p = p_hit(bool(bh), bits)
            hit = 0.0
            for bd in range(min(f - bh, 1) + 1):
                q = pmf(bool(bd))
                hit = max(hit, sum(q[d] * (after(f - bh - bd, bits) if d == 0 else
                                           sum(after(f - bh - bd, grid.mark(bits, c, d))
                                               for c in range(1, 7)) / 6)
                                   for d in range(len(q))))
            best = max(best, p * hit + (1 - p) * after(f - bh, bits))
        return best

    @lru_cache(maxsize=None)
    def after(f: int, bits: int) -> float:  # buy another attack or stop
        if grid.destroyed(bits):
            return 1.0
        return max(0.0, attack(f - 1, bits) if f >= 1 else 0.0)

    return attack(spec.focus, target.start_bits)


@pytest.mark.parametrize("defense, armor, damaged, focus", [
    (14, 16, [2, 4, 4, 4, 3, 2], 3),  # 6 boxes left, M crippled after one more box
    (13, 17, [3, 5, 5, 5, 5, 3], 2),
    (15, 14, [3, 3, 4, 5, 4, 3], 3),
])
def test_full_state_optimum_equals_an_independent_recursion(defense, armor, damaged, focus):
    spec = ActivationSpec("jack", focus, (Weapon("Axe", "melee", 6, 17, 6),), 11, True,
                          power_attacks=False)
    grid = Grid.from_columns(CHARGER)
    target = Target(defense, armor, grid, grid.start_bits(damaged))
    got = solve(build_graph([spec]), target).value
    assert got == pytest.approx(_reference_optimum(spec, target), abs=1e-12)


@pytest.mark.parametrize("policy", ["fixed", "greedy", "optimal"])
@pytest.mark.parametrize("spec, target", [
    (jack(6, 18, 3, "may", 14), Target(13, 16, Grid.track(18))),
    (jack(4, 16, 3, "no", 12, strength=12), Target(16, 13, Grid.track(15))),  # head-butt pays
    (ActivationSpec("caster", 6, (Weapon("Sword", "melee", 7, 13),), 6, False, "may", False,
                    (Spell("Bolt", 2, 11), Spell("Blast", 3, 13)), 7), Target(14, 15, Grid.track(16))),
])
def test_monte_carlo_of_the_decisions_reproduces_the_exact_value(policy, spec, target):
    """On a track the box-count model IS the full model. N = 200 000: tolerance
    5·sqrt(p(1−p)/N) ≤ 0.0056, computed from the exact value before the run."""
    n = 200_000
    exact = solve(build_graph([spec]), target, policy).value
    tol = 5 * math.sqrt(max(exact * (1 - exact), 1e-12) / n)
    report = duel_chain([spec], target, policy=policy, method="mc",
                        config=MonteCarloConfig(n, seed=31))
    assert report.results["p_destroyed_box_model"].value == pytest.approx(exact, abs=1e-12)
    assert abs(report.results["p_destroyed"].value - exact) <= tol


def test_head_butt_knockdown_is_used_when_it_pays():
    # MAT 4 vs DEF 16: the axe needs 12 on 2d6; with 15 boxes left the optimum opens
    # with a head-butt so that the bought attacks hit automatically (WM-A4)
    graph = build_graph([jack(4, 16, 3, "no", 12, strength=12)])
    target = Target(16, 13, Grid.track(15))
    sol = solve(graph, target)
    lines = decision_lines(sol)
    assert any(line.startswith("jack: opening") and line.endswith("→ head-butt") for line in lines)
    assert any("knocked down" in line for line in lines)
    no_pa = solve(build_graph([jack(4, 16, 3, "no", 12, strength=12, power_attacks=False)]),
                  target)
    assert sol.value > no_pa.value + 1e-4


def test_chained_activations_value_grows_and_carries_state():
    target = Target(13, 18, Grid.track(26))
    one = solve(build_graph([jack(6, 18, 3, "must")]), target).value
    two = solve(build_graph([jack(6, 18, 3, "must"), jack(6, 18, 3, "must")]), target).value
    assert two > one + 0.05


def test_warjack_focus_above_three_is_a_rules_error():
    with pytest.raises(RulesError, match="at most 3 focus"):
        build_graph([jack(6, 18, 4)])


def test_decision_lines_show_every_alternative():
    graph = build_graph([jack(6, 18, 3, "may", 14)])
    target = _target(12, 18, CHARGER)
    sol = solve(graph, target)
    lines = decision_lines(sol)
    assert 3 <= len(lines) <= 40
    first = lines[0]
    assert first.startswith("jack: opening [focus 3, 26 boxes left; reached 100.0%]")
    # every opener with its value, the choice after the arrow
    for label in ("charge, Axe", "Axe", "head-butt", "slam", "stop"):
        assert f"{label} " in first
    chosen = first.rsplit("→ ", 1)[1]
    values = {part.rsplit(" ", 1)[0]: float(part.rsplit(" ", 1)[1].rstrip("%"))
              for part in first.split("]: ", 1)[1].split(" → ")[0].split(" · ")}
    assert values[chosen] == max(values.values())
    assert values[chosen] == pytest.approx(100 * sol.value, abs=0.005)


@pytest.mark.parametrize("policy", ["fixed", "greedy", "optimal"])
def test_policy_on_the_full_grid_exact_equals_monte_carlo(policy):
    """The policy played on the Charger grid, where crippled M makes DEF 7 mid-activation
    (WM-G4): exact programme vs the Monte Carlo kernel. N = 200 000, tolerance 5 SE from
    the exact p (≤ 0.0056)."""
    n = 200_000
    specs = [jack(5, 17, 3, "may", 13, strength=11), jack(4, 16, 2, "no", 12, strength=12)]
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

    small_vs_large = build_graph([activation_from_profile("cryx/deathripper", 3, "may",
                                                          target_base="large")])
    labels = [n.label for n in small_vs_large.nodes]
    assert "head-butt" not in labels and "slam" in labels
    slam = next(o for o in small_vs_large.options if o.name == "slam")
    assert slam.stat == 6 - 2  # Deathripper MAT 6, slam against a larger base −2 (WM-A6)
    same = build_graph([activation_from_profile("khador/juggernaut", 3, "may",
                                                target_base="large")])
    assert "head-butt" in [n.label for n in same.nodes]
    assert next(o for o in same.options if o.name == "slam").stat == 6


def test_sustained_attack_makes_later_attacks_automatic_hits():
    """Deathripper's Mandible (Sustained Attack, WM-A4): after a hit, bought attacks with it
    hit automatically. The optimal value rises against the same weapon without the rule,
    and the exact programme on the full grid agrees with the kernel (N = 200 000, 5 SE)."""
    bite = Weapon("Mandible", "melee", 6, 13, 6, sustained=True)
    plain = Weapon("Mandible", "melee", 6, 13, 6)
    target = Target(14, 14, Grid.from_columns(CHARGER))
    spec = ActivationSpec("ripper", 3, (bite,), 7, True, "may", False)
    with_rule = solve(build_graph([spec]), target).value
    without = solve(build_graph([ActivationSpec("ripper", 3, (plain,), 7, True, "may", False)]),
                    target).value
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
    melee attacks hit automatically (WM-A4). The rule raises the optimal value; the Monte
    Carlo of the decisions agrees with the exact programme (N = 200 000, 5 SE)."""
    axe = Weapon("Axe", "melee", 5, 17, 6, crit_knockdown=True)
    plain = Weapon("Axe", "melee", 5, 17, 6)
    track = Target(15, 15, Grid.track(20))
    spec = ActivationSpec("jack", 3, (axe,), 11, True, "may", False)
    value = solve(build_graph([spec]), track).value
    base = solve(build_graph([ActivationSpec("jack", 3, (plain,), 11, True, "may", False)]),
                 track).value
    assert value > base + 1e-3
    n = 200_000
    mc = duel_chain([spec], track, method="mc", config=MonteCarloConfig(n, seed=23))
    assert abs(mc.results["p_destroyed"].value - value) <= 5 * math.sqrt(value * (1 - value) / n)
    grid = Target(15, 15, Grid.from_columns(CHARGER))
    exact = duel_chain([spec], grid, method="exact")
    mc = duel_chain([spec], grid, method="mc", config=MonteCarloConfig(n, seed=29))
    for name in ("p_destroyed", "p_crippled_M", "p_crippled_C"):
        p = exact.results[name].value
        assert abs(mc.results[name].value - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-12) / n), name


def test_buy_cap_limits_bought_attacks_and_fixed_keeps_focus_for_them():
    """--buy N: at most N bought attacks; the fixed policy boosts only with focus beyond them."""
    from mathhammer.warmachine.policy import rule_tables

    target = Target(13, 17, Grid.track(25))
    capped = ActivationSpec("jack", 3, (Weapon("Axe", "melee", 6, 18, 7),
                                         Weapon("Fist", "melee", 6, 14, 3)), 11, True,
                            max_bought=1)
    free = ActivationSpec("jack", 3, capped.weapons, 11, True)
    g_cap = build_graph([capped])
    fixed = rule_tables(g_cap, OptionTables.build(g_cap, target), "fixed", boost_damage=True)
    axe = next(i for i, n in enumerate(g_cap.nodes) if n.label == "Axe")
    assert fixed.bd[axe, 3, 0, 0] == 1 and g_cap.nodes[axe].reserve == 1
    fist = g_cap.nodes[axe].next
    assert fixed.bd[fist, 1, 0, 0] == 0  # the last focus is kept for the bought attack
    report = duel_chain([capped], target, policy="fixed", boost_damage=True, method="exact")
    assert sum(k.startswith("p_hit_") for k in report.results) <= 3
    assert solve(g_cap, target).value <= solve(build_graph([free]), target).value + 1e-12
