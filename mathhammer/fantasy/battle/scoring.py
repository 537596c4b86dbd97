"""Victory points (FB-B9): what each side scores at the end, as the ruleset's data says.

A side scores, for each enemy unit: ``destroyed`` × its points when it was destroyed or
fled the table; ``fleeing_at_end`` × its points when it is fleeing when the battle ends;
``below_quarter`` × its points when it stands with fewer than a quarter of its models;
``general_bonus`` when the enemy general is slain or gone; ``battle_standard_bonus`` for
the battle standard bearer likewise; ``standard_bonus`` for each enemy unit with a
standard that broke or was destroyed in combat. The margin is A's VP minus B's; a margin
within ``draw_margin`` (or ``draw_margin_share`` of the larger points limit) is a draw.
"""

from __future__ import annotations

from mathhammer.fantasy.battle.state import DEAD, FLED, FLEE, HOLD, BattleState


def unit_vp(plan, state: BattleState, u: int) -> float:
    """The VP the enemy scores from unit u (without the general / standard bonuses)."""
    br = plan.rules.battle
    unit = plan.units[u]
    status = state.status[u]
    if status in (DEAD, FLED):
        return br.destroyed * unit.points
    if status == FLEE:
        return br.fleeing_at_end * unit.points
    if state.models[u] * 4 < unit.models:
        return br.below_quarter * unit.points
    return 0.0


def side_vp(plan, state: BattleState, side: int) -> float:
    """VP scored by ``side`` (from the enemy's units)."""
    br = plan.rules.battle
    enemy = 1 - side
    total = sum(unit_vp(plan, state, u) for u in plan.sides[enemy])
    g, s = plan.generals[enemy], plan.bsbs[enemy]
    if br.general_bonus and g is not None and _leader_lost(plan, state, g, "general"):
        total += br.general_bonus
    if br.battle_standard_bonus and s is not None and _leader_lost(plan, state, s, "battle_standard"):
        total += br.battle_standard_bonus
    if br.standard_bonus:
        total += br.standard_bonus * sum(1 for u in plan.sides[enemy] if state.standard_lost[u])
    return total


def _leader_lost(plan, state: BattleState, u: int, flag: str) -> bool:
    if state.status[u] in (DEAD, FLED, FLEE):
        return True
    return state.status[u] == HOLD and not plan.body_alive(u, plan.leader_body(u, flag),
                                                           state.wounds[u])


def margin(plan, state: BattleState) -> float:
    """A's VP minus B's."""
    return side_vp(plan, state, 0) - side_vp(plan, state, 1)


def draw_limit(plan) -> float:
    """FB-B9: a margin within this many VP either way is a draw (the ruleset's share of the
    larger points limit, or its fixed margin)."""
    return plan.rules.battle.draw_limit(max(plan.points_limits))


def winner(plan, margin_vp: float) -> int:
    """0: A wins, 1: a draw, 2: B wins (FB-B9's margin)."""
    if abs(margin_vp) <= draw_limit(plan) + 1e-9:
        return 1
    return 0 if margin_vp > 0 else 2
