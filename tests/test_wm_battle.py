"""Warmachine battles (issue 31): the engine's layers against what already exists.

* an activation inside a battle plays ``wm duel``'s greedy policy (WM-B12, WM-F5): the Monte
  Carlo of one activation program agrees with the duel's exact value within 5 se;
* a one-turn battle whose attacker reaches the enemy warcaster, the defender never acting,
  gives ``wm plan``'s exact value (WM-B13, WM-P1) within 5 se;
* a mirror battle with the first player rolled off gives both sides the same chance (5 se);
* the same seed gives the same answer, chunk by chunk.

Tolerances: 5 standard errors computed from the exact p before the run (tests/stats.py).
"""

from __future__ import annotations

import math
import random

import pytest

from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "wm_battle"
STRYKER_CHARGER = str(DATA / "stryker_charger.toml")
SORSCHA = str(DATA / "sorscha_alone.toml")
NEAR = str(DATA / "near.toml")


@pytest.mark.parametrize("attacker, target, focus, charge", [
    ("khador/juggernaut", "cygnar/ironclad", 3, "must"),
    ("khador/sorscha", "cygnar/charger", 6, "no"),
    ("cygnar/lancer", "khador/juggernaut", 2, "no"),
])
def test_an_activation_program_plays_wm_duels_greedy_policy(attacker, target, focus, charge):
    """WM-B12: the battle's activation (program + play) is the duel's greedy policy. N = 20,000
    detects a shift of about 1.7 points of P(destroyed) at p = 0.3."""
    from mathhammer.warmachine.activation import build_graph
    from mathhammer.warmachine.battle.attacks import Marker, compile_program, play
    from mathhammer.warmachine.duel import activation_from_profile, duel_chain, target_from_profile

    tgt = target_from_profile(target)
    spec = activation_from_profile(attacker, focus, charge, target_base=tgt.base)
    exact = duel_chain([spec], tgt, policy="greedy", method="exact")
    p = exact.results["p_destroyed"].value
    mean = exact.results["mean_damage"].value
    prog = compile_program(build_graph([spec]), tgt, {})
    marker = Marker(tgt.grid, tgt.shield_mask)
    rng = random.Random(20261204)
    n = 20_000
    killed = marked = marked_sq = 0
    for _ in range(n):
        out = play(prog, marker, 0, 0, 0, rng)
        killed += tgt.grid.destroyed(out.bits)
        boxes = tgt.grid.n_boxes - tgt.grid.boxes_left(out.bits)
        marked += boxes
        marked_sq += boxes * boxes
    se_p = math.sqrt(p * (1 - p) / n)
    assert abs(killed / n - p) <= 5 * se_p + 1e-12
    var = exact.distributions["damage"].variance
    assert abs(marked / n - mean) <= 5 * math.sqrt(var / n)


def test_a_one_turn_battle_in_reach_gives_wm_plans_value():
    """WM-B13: Stryker and a Charger 5" from Sorscha, A's first turn, Sorscha not having
    acted (no camped focus): P(A wins) = P(Sorscha dies in that turn) = wm plan's exact value
    (78.56%) — if she survives, her own turn can only bring a loss or a draw for A. N = 3,000
    detects a shift of 3.7 points."""
    from mathhammer.warmachine.battle.runner import BattleSpec, build, run
    from mathhammer.warmachine.duel import target_from_profile
    from mathhammer.warmachine.plan import battlegroup_of_list, plan_turn

    plan = plan_turn(battlegroup_of_list(STRYKER_CHARGER), target_from_profile("khador/sorscha"),
                     distance=5.0)
    p = plan.results["p_destroyed"].value
    assert 0.5 < p < 0.95  # a real question, not a certain kill
    spec = BattleSpec(STRYKER_CHARGER, SORSCHA, turns=1, first="a", deployment=NEAR)
    battle, _ = build(spec)
    n = 3000
    tally = run(spec, n, seed=31, workers=1)
    best = next(iter(battle.plans.values()))
    assert best.value == pytest.approx(p, abs=1e-12)  # the same search, the same optimum
    assert abs(tally.wins[0] / n - p) <= 5 * math.sqrt(p * (1 - p) / n)
    assert tally.caster_dead[1, 0] == tally.wins[0]  # every win of A is that kill


def test_a_mirror_battle_with_the_first_turn_rolled_off_is_even():
    """WM-B3: the same list on both sides, first player rolled off: P(A wins) = P(B wins).
    N = 300 battles of 3 rounds; the se of the difference comes from the run (the exact
    difference is 0)."""
    from mathhammer.warmachine.battle.runner import BattleSpec, run

    n = 300
    tally = run(BattleSpec("cygnar_battlebox", "cygnar_battlebox", turns=3), n, seed=7, workers=1)
    a, b = tally.wins[0] / n, tally.wins[1] / n
    se = math.sqrt(max(a + b - (a - b) ** 2, 1.0 / n) / n)
    assert abs(a - b) <= 5 * se
    assert abs(tally.first[0] - n / 2) <= 5 * math.sqrt(n / 4)  # the roll-off is fair
    assert tally.wins[:2].sum() > n / 4  # a real battle: most are decided


def test_same_seed_same_answer_and_chunks_add_up():
    from mathhammer.warmachine.battle.runner import BattleSpec, chunk_sizes, run, run_chunk

    spec = BattleSpec("khador_battlebox", "cygnar_battlebox", turns=2)
    one = run(spec, 130, seed=3, workers=1)
    again = run(spec, 130, seed=3, workers=1)
    assert (one.wins == again.wins).all() and (one.destroyed == again.destroyed).all()
    sizes = chunk_sizes(130)
    assert sum(sizes) == 130 and len(sizes) == 3
    parts = [run_chunk(spec, i, n, 3) for i, n in reversed(list(enumerate(sizes)))]
    total = parts[0]
    for part in parts[1:]:
        total.add(part)
    assert (total.wins == one.wins).all() and total.plans == one.plans


def test_deployment_errors_are_one_line():
    from mathhammer.errors import InputError
    from mathhammer.warmachine.battle.setup import build_sides
    from mathhammer.warmachine.battle.table import read_deployment

    models, sides = build_sides("khador_battlebox", "cygnar_battlebox")
    with pytest.raises(InputError, match="off the 48"):
        read_deployment({"a": {"Juggernaut": [47.9, 10]}}, models, sides, "dep.toml")
    with pytest.raises(InputError, match="overlaps"):
        read_deployment({"a": {"Juggernaut": [24, 10]}}, models, sides, "dep.toml")
    with pytest.raises(InputError, match="not a model of side A"):
        read_deployment({"a": {"Ironclad": [24, 20]}}, models, sides, "dep.toml")
    with pytest.raises(InputError, match=r"\[x, y\]"):
        read_deployment({"b": {"Ironclad": "here"}}, models, sides, "dep.toml")
    with pytest.raises(InputError, match="not a side"):
        read_deployment({"c": {}}, models, sides, "dep.toml")


def test_bad_lists_are_one_line(tmp_path):
    from mathhammer.errors import InputError, RulesError
    from mathhammer.warmachine.battle.setup import build_sides

    with pytest.raises(InputError, match="fantasy list"):
        build_sides("wfb8_empire", "cygnar_battlebox")
    two = tmp_path / "two.toml"
    two.write_text('name = "two"\ngame = "warmachine"\nruleset = "mk2"\npoints = 15\n'
                   '[[units]]\nprofile = "cygnar/stryker"\ncount = 2\n', encoding="utf-8")
    with pytest.raises(RulesError, match="exactly one warcaster"):
        build_sides("cygnar_battlebox", str(two))


@pytest.mark.slow
@pytest.mark.parametrize("lists", [("khador_battlebox", "khador_battlebox"),
                                   ("protectorate_battlebox", "protectorate_battlebox")])
def test_mirror_battles_are_even_over_five_rounds(lists):
    """WM-B3 at full length: N = 2,000 battles of 5 rounds; 5 se of P(A) − P(B)."""
    from mathhammer.warmachine.battle.runner import BattleSpec, run

    n = 2000
    tally = run(BattleSpec(*lists, turns=5), n, seed=17, workers=1)
    a, b = tally.wins[0] / n, tally.wins[1] / n
    assert abs(a - b) <= 5 * math.sqrt(max(a + b - (a - b) ** 2, 1.0 / n) / n)


@pytest.mark.slow
def test_a_four_model_battlegroup_in_reach_gives_wm_plans_value():
    """WM-B13 with the Cygnar battle box (10,368 plans): every model 5" or so from Sorscha;
    the battle plays the best plan fixed before the dice, which wm plan (deciding who goes
    next after each activation, WM-P1) never falls below (same distance for the ranged
    members); the battle's P(A wins) agrees with its plan's value, 5 se at N = 2,000."""
    from mathhammer.warmachine.battle.runner import BattleSpec, build, run
    from mathhammer.warmachine.duel import target_from_profile
    from mathhammer.warmachine.plan import battlegroup_of_list, plan_turn

    deployment = DATA / "box_near.toml"
    spec = BattleSpec("cygnar_battlebox", SORSCHA, turns=1, first="a",
                      deployment=str(deployment))
    battle, _ = build(spec)
    tally = run(spec, 2000, seed=41, workers=1)
    best = next(iter(battle.plans.values()))
    distance = next((m.distance for m in best.members if m.distance is not None), None)
    plan = plan_turn(battlegroup_of_list("cygnar_battlebox"),
                     target_from_profile("khador/sorscha"), distance=distance)
    assert plan.results["p_destroyed"].value >= best.value - 1e-12
    p = best.value
    assert abs(tally.wins[0] / 2000 - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-4) / 2000)
