"""What the phases do to a battle's state: sight, flight, moves, tests (FB-B5..FB-B8).

Shared by the turn sequence (:mod:`mathhammer.fantasy.battle.phases`) and the shooting
phase (:mod:`mathhammer.fantasy.battle.shooting`); nothing here decides anything.
"""

from __future__ import annotations

import math

from mathhammer.fantasy.battle.state import DEAD, FLED, FLEE, HOLD, BattleState
from mathhammer.fantasy.battle.table import (
    Box,
    angle_diff,
    crosses,
    distance,
    farther_than,
    on_table,
    overlaps,
)

GAP = 1.0  # FB-B5: a unit ends a normal move at least 1" from an enemy


class Option:
    """One alternative of a decision: ``kind`` (charge, reaction, move, shoot, pursue), the
    deciding ``unit``, a readable ``label`` and what it means (``target``, ``extra``)."""

    __slots__ = ("kind", "unit", "label", "target", "extra")

    def __init__(self, kind: str, unit: int, label: str, target: int | None = None, extra=None):
        self.kind, self.unit, self.label, self.target, self.extra = kind, unit, label, target, extra

    def __repr__(self) -> str:
        return f"Option({self.kind}, {self.unit}, {self.label!r})"


def ld_test(plan, state: BattleState, u: int, modifier: int = 0) -> bool:
    """FB-T2: 2D6 ≤ Ld (Insane Courage per the ruleset), re-rolled once with a battle standard."""
    ld, reroll = plan.test_ld(state, u)
    for _ in range(2 if reroll else 1):
        a, b = state.rng.randint(1, 6), state.rng.randint(1, 6)
        if a + b <= ld + modifier or (a == 1 and b == 1 and plan.rules.insane_courage):
            return True
    return False


def draw_charge(plan, state: BattleState, u: int) -> tuple[int, float]:
    """FB-G1/G3: (charge range, the failed charge's move; -1 = half the distance)."""
    rolls, cum = plan.charge_table[u]
    r = state.rng.random()
    for roll, c in zip(rolls, cum):
        if r < c:
            return roll
    return rolls[-1]


# ---- 4 fleeing units and the geometry of flight (FB-B7) ----------------------------------------
def flee_move(plan, state: BattleState, u: int, source, inches: float) -> None:
    """The unit turns its back on ``source`` and moves ``inches``; off the table it has fled."""
    state.status[u] = FLEE
    clear_contacts(state, u)
    box = state.box(plan, u)
    cx, cy = box.centre()
    dx, dy = cx - source[0], cy - source[1]
    norm = math.hypot(dx, dy)
    if norm < 1e-9:
        dx, dy, norm = -box.dx, -box.dy, 1.0
    dx, dy = dx / norm, dy / norm
    theta = math.atan2(dy, dx)
    state.place(u, cx + dx * (box.depth / 2 + inches), cy + dy * (box.depth / 2 + inches), theta)
    br = plan.rules.battle
    if not on_table(state.box(plan, u), br.table_width, br.table_depth):
        state.status[u] = FLED


def clear_contacts(state: BattleState, u: int) -> None:
    state.contact[u] = None
    for v, c in enumerate(state.contact):
        if c is not None and c[0] == u:
            state.contact[v] = None



def draw_index(cum, rng) -> int:
    """One draw from a cumulative table: the first index whose cumulative share passes a
    uniform number (one ``rng.random()``, the same for every table the phases sample)."""
    r = rng.random()
    k = 0
    while k < len(cum) - 1 and r >= cum[k]:
        k += 1
    return k


def land_wounds(plan, state: BattleState, t: int, wounds: int) -> int:
    """``wounds`` onto t's rank and file (FB-V4); t destroyed when nothing is left."""
    _n, _r, models, w = plan.units[t].bodies[0]
    if wounds:
        state.set_wounds(plan, t, 0, min(state.wounds[t][0] + wounds, models * w))
        if not plan.unit_alive(t, state.wounds[t]):
            state.status[t] = DEAD
            clear_contacts(state, t)
    return wounds

def enemy_within(plan, state: BattleState, u: int, reach: float) -> bool:
    me = state.box(plan, u)
    return any(state.status[t] == HOLD and distance(me, state.box(plan, t)) <= reach
               for t in plan.sides[1 - plan.units[u].side])


def advance_towards(plan, state: BattleState, u: int, point, allowance: float,
                    free_turn: bool = False) -> float:
    """FB-B5: turn to face the point (a wheel: angle × frontage; more than 90°: a reform that
    takes the whole move), then straight on; returns the inches moved forward."""
    box = state.box(plan, u)
    theta = math.atan2(point[1] - box.y, point[0] - box.x)
    turn = abs(angle_diff(theta, box.theta))
    if turn > 1e-6:
        cost = 0.0 if free_turn else (allowance if turn > math.pi / 2 else turn * box.width)
        if cost > allowance:
            return 0.0
        old = state.theta[u]
        state.place(u, state.x[u], state.y[u], theta)
        if _blocked(plan, state, u):
            state.place(u, state.x[u], state.y[u], old)
            return 0.0
        allowance -= cost
    ahead = math.hypot(point[0] - box.x, point[1] - box.y)
    return straight(plan, state, u, min(allowance, ahead))


def straight(plan, state: BattleState, u: int, inches: float) -> float:
    """Move straight (backwards when negative) as far as the way is clear: not onto another
    unit, not within 1" of an enemy, not off the table (FB-B5); returns |inches| moved."""
    x0, y0, theta = state.x[u], state.y[u], state.theta[u]
    dx, dy = math.cos(theta), math.sin(theta)
    for share in (1.0, 0.75, 0.5, 0.25):
        state.place(u, x0 + dx * inches * share, y0 + dy * inches * share, theta)
        if not _blocked(plan, state, u):
            return abs(inches * share)
    state.place(u, x0, y0, theta)
    return 0.0


def _blocked(plan, state: BattleState, u: int) -> bool:
    me = state.box(plan, u)
    br = plan.rules.battle
    if not on_table(me, br.table_width, br.table_depth):
        return True
    side = plan.units[u].side
    for v in range(len(plan.units)):
        if v == u or not state.on_table(v):
            continue
        other = state.box(plan, v)
        if farther_than(me, other, GAP):
            continue
        reach = GAP if plan.units[v].side != side else 0.0
        d = distance(me, other)
        if d < reach - 1e-9 or (reach == 0.0 and d == 0.0 and _overlap(me, state.box(plan, v))):
            return True
    return False


def _overlap(p: Box, q: Box) -> bool:
    return overlaps(p, q)


# ---- sight (FB-B6) ---------------------------------------------------------------------------
def seen(plan, state: BattleState, u: int, t: int, a, b) -> tuple[bool, int]:
    """(in sight, cover) of the line a → b from unit u to unit t: another unit on the line
    hides t unless t is large; a terrain piece that blocks sight hides it, one that gives
    cover gives it (FB-B6). Cover: 0 none, 1 soft, 2 hard."""
    large = plan.units[t].large
    for v in range(len(plan.units)):
        if v in (u, t) or not state.on_table(v) or large:
            continue
        if crosses(a, b, state.box(plan, v)):
            return False, 0
    cover = 0
    for piece in plan.deployment.terrain:
        box = terrain_box(piece)
        if crosses(a, b, box) or box.contains(*b):
            if piece.blocks_sight and not box.contains(*b):
                return False, 0
            cover = max(cover, {"none": 0, "soft": 1, "hard": 2}[piece.cover])
    return True, cover


def terrain_box(piece) -> Box:
    return Box(piece.x, piece.y + piece.depth / 2, math.pi / 2, piece.width, piece.depth)


def nearest_enemy(plan, state: BattleState, u: int) -> int | None:
    me = state.box(plan, u)
    enemies = [t for t in plan.sides[1 - plan.units[u].side] if state.status[t] == HOLD]
    if not enemies:
        return None
    return min(enemies, key=lambda t: distance(me, state.box(plan, t)))


def decide(plan, state: BattleState, side: int, options: list[Option], forced: int | None) -> Option:
    """The policy of ``side`` picks one option (a forced answer wins: a rollout's alternative)."""
    if forced is not None:
        choice = options[forced]
    elif len(options) == 1:
        return options[0]
    else:
        policies = state.policies or plan.policies
        choice = options[policies[side].choose(state, side, options[0].kind, options)]
    if state.decisions is not None:
        state.decisions.append((side, choice.kind, choice.unit, choice.label))
    return choice


def enemies_within(plan, state: BattleState, u: int, reach: float):
    """(enemy t, its box, the gap) for every enemy of u on the table, not in combat, within
    ``reach`` of u (nearest edges): the candidates of a shot, a war machine's or a spell's."""
    me = state.box(plan, u)
    for t in plan.sides[1 - plan.units[u].side]:
        if not state.on_table(t) or state.engaged(t):
            continue
        target = state.box(plan, t)
        gap = distance(me, target)
        if gap <= reach:
            yield t, target, gap
