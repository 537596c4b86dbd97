"""The battle's rules from turn to turn (WM-B4, WM-B6..WM-B9), on boards set up by hand.

* a warcaster walking out of melee takes the free strike of ``wm attack --free-strike``
  (exact, 5 se);
* a feat lands on the models inside the control area and lasts as stated (Icy Gaze one
  round, Invincibility one round on friends);
* focus goes only to warjacks inside the control area with a working cortex; camped focus
  is ARM; a crippled weapon keeps its lost die in later activations.
"""

from __future__ import annotations

import math
import random

import pytest

from mathhammer.warmachine.battle.state import STATIONARY, UP


class Fixed:
    """A policy that always picks the named option of each kind (the first one otherwise)."""

    name = "fixed"

    def __init__(self, **wanted) -> None:
        self.wanted = wanted

    def choose(self, state, side, kind, options):
        want = self.wanted.get(kind)
        return options.index(want) if want in options else 0


def _battle(list_a="khador_battlebox", list_b="cygnar_battlebox", turns=3):
    from mathhammer.warmachine.battle.runner import BattleSpec, build

    battle, _ = build(BattleSpec(list_a, list_b, turns))
    return battle


def _place(battle, state, label_side: str, x: float, y: float) -> int:
    side = 0 if label_side.startswith("a:") else 1
    label = label_side[2:]
    i = next(m for m in battle.sides[side].members if battle.models[m].label == label)
    state.models[i].x, state.models[i].y = x, y
    return i


def test_a_warcaster_walking_out_of_melee_takes_the_free_strike():
    """WM-B7: Stryker (B, camping all 6 focus: ARM 21) holds and walks away from a Juggernaut
    in base contact: one strike, MAT 6 + 2 against DEF 16, 3d6 + 19 against ARM 21. N = 4,000
    detects a shift of 0.6 boxes in the mean."""
    from mathhammer.warmachine import rules
    from mathhammer.warmachine.battle.turn import play_turn

    battle = _battle()
    n = 4000
    p_hit = rules.hit_probability(2, 8, 16)
    pmf = rules.damage_pmf(3, 19, 21)
    mean = p_hit * sum(min(d, 17) * p for d, p in enumerate(pmf))
    second = p_hit * sum(min(d, 17) ** 2 * p for d, p in enumerate(pmf))
    sd = math.sqrt(second - mean * mean)
    rng = random.Random(7)
    total = 0
    policies = [Fixed(), Fixed(posture="hold", focus="camp")]
    for _ in range(n):
        state = battle.new_state(1)
        jug = _place(battle, state, "a:Juggernaut", 24.0, 30.0)
        stryker = _place(battle, state, "b:Commander Coleman Stryker", 24.0, 31.57)
        assert battle.models[stryker].radius + battle.models[jug].radius == pytest.approx(1.57, abs=0.01)
        play_turn(battle, state, policies, rng)
        st = state.models[stryker]
        assert st.y > 31.57  # it walked away
        total += bin(st.bits).count("1")
    assert abs(total / n - mean) <= 5 * sd / math.sqrt(n)


def test_icy_gaze_freezes_the_enemies_in_the_control_area_for_one_round():
    """WM-B8: Sorscha's feat at the start of her activation: every Cygnar model within 12" is
    stationary until her next turn starts; it loses its own turn; one farther away does not."""
    from mathhammer.warmachine.battle.turn import end_turn, play_turn, start_turn

    battle = _battle()
    state = battle.new_state(0)
    sorscha = _place(battle, state, "a:Kommander Sorscha", 24.0, 20.0)
    near = _place(battle, state, "b:Ironclad", 24.0, 30.0)  # 10" centre to centre: inside
    far = _place(battle, state, "b:Charger", 44.0, 44.0)
    play_turn(battle, state, [Fixed(feat="use", posture="hold"), Fixed()], random.Random(1))
    assert state.feat_used[0]
    assert state.models[near].down == STATIONARY and state.models[near].down_until == 2
    assert state.models[far].down == UP
    where = (state.models[near].x, state.models[near].y)
    play_turn(battle, state, [Fixed(), Fixed(posture="advance")], random.Random(2))
    assert (state.models[near].x, state.models[near].y) == where  # lost its turn
    start_turn(battle, state)  # Sorscha's next turn: the round is over
    assert state.models[near].down == UP
    assert sorscha in battle.alive(state, 0)
    end_turn(battle, state)


def test_invincibility_gives_friends_in_the_control_area_arm_for_one_round():
    from mathhammer.warmachine.battle.turn import play_turn, start_turn

    battle = _battle("cygnar_battlebox", "khador_battlebox")
    state = battle.new_state(0)
    _place(battle, state, "a:Commander Coleman Stryker", 24.0, 10.0)
    ironclad = _place(battle, state, "a:Ironclad", 24.0, 14.0)
    charger = _place(battle, state, "a:Charger", 44.0, 44.0)  # out of the control area
    play_turn(battle, state, [Fixed(feat="use", posture="hold"), Fixed()], random.Random(3))
    assert state.models[ironclad].modifiers() == (0, 0, 5)
    assert state.models[charger].modifiers() == (0, 0, 0)
    target = battle.target_now(state, ironclad)
    assert target.armor == 18 + 5
    play_turn(battle, state, [Fixed(), Fixed(posture="hold")], random.Random(4))
    assert state.models[ironclad].modifiers() == (0, 0, 5)  # through the enemy's turn
    start_turn(battle, state)
    assert state.models[ironclad].modifiers() == (0, 0, 0)


def test_focus_goes_only_to_warjacks_in_the_control_area_with_a_cortex():
    """WM-B4, WM-F1, WM-G4; a warcaster's kept focus is ARM (WM-D2)."""
    from mathhammer.warmachine.battle.turn import decide_turn, start_turn

    battle = _battle("cygnar_battlebox", "khador_battlebox")
    state = battle.new_state(0)
    stryker = _place(battle, state, "a:Commander Coleman Stryker", 24.0, 10.0)
    ironclad = _place(battle, state, "a:Ironclad", 24.0, 14.0)
    lancer = _place(battle, state, "a:Lancer", 30.0, 12.0)
    charger = _place(battle, state, "a:Charger", 24.0, 40.0)  # 30" away
    grid = battle.models[lancer].grid
    state.models[lancer].bits = grid.start_bits(grid.cripple_counts("C"))
    start_turn(battle, state)
    decide_turn(battle, state, [Fixed(focus="run hot"), Fixed()])
    assert state.plan["give"] == {ironclad: 3}
    assert state.models[stryker].focus == 3
    assert battle.target_now(state, stryker).armor == 15 + 3


def test_a_crippled_weapon_keeps_its_lost_die():
    """WM-G4 across turns: the Juggernaut's crippled right arm (Ice Axe) rolls one die fewer in
    every later activation's program."""
    battle = _battle()
    state = battle.new_state(0)
    jug = next(m for m in battle.sides[0].members if battle.models[m].label == "Juggernaut")
    ironclad = next(m for m in battle.sides[1].members if battle.models[m].label == "Ironclad")
    grid = battle.models[jug].grid
    whole = battle.program(state, jug, ironclad, 3, "melee", False, False, None)
    state.models[jug].bits = grid.start_bits(grid.cripple_counts("R"))
    crippled = battle.program(state, jug, ironclad, 3, "melee", False, False, None)
    assert crippled is not whole
    axe_now = crippled.names.index("Ice Axe")
    axe_before = whole.names.index("Ice Axe")
    # one die fewer to hit (WM-A1): P(2d6 + 6 >= 12) = 0.72 becomes P(1d6 + 6 >= 12) = 1/6
    assert whole.p_hit[axe_before][0][0][0][0][0] == pytest.approx(26 / 36)
    assert crippled.p_hit[axe_now][0][0][0][0][0] == pytest.approx(1 / 6)
