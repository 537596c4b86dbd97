"""Who attacks whom, and how each model moves: the battle's rules of thumb (WM-B6, WM-B11).

A side's policy chooses the turn's *posture* (advance, assassinate, hold), its focus and
its feat; inside that, every model follows the stated rule below, the same for every
policy, so that policies differ only in the choices they make:

* a model in melee (an enemy inside its melee range) fights there, the enemy warcaster
  first, then the enemy with the fewest boxes left;
* otherwise it attacks an enemy it can reach this activation — in melee by standing,
  advancing (up to SPD) or charging (SPD + 3", WM-B6), or with a ranged weapon or spell
  after an advance — preferring the enemy warcaster under *assassinate*, otherwise
  warjacks and solos, fewest boxes left first, then the nearest;
* with nothing in reach it advances on the nearest enemy model — a warjack with focus runs
  (2 × SPD for 1 focus, WM-B6), stopping 1" short of it;
* the warcaster (except when assassinating) follows its warjacks: it heads for a point
  3" behind their centre (toward its own table edge), as far as SPD allows, keeping them in
  its control area, and attacks only what it reaches from there;
* under *hold* nobody moves toward the enemy: models out of melee step back out of every
  enemy's threat range (what it could reach next turn: SPD + 3" + melee reach, or SPD +
  weapon or spell range), the warcaster staying as near its warjacks as that allows; models
  in melee fight where they stand, except the warcaster, which walks out (taking free
  strikes, WM-B7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mathhammer.warmachine.battle.state import KNOCKED_DOWN, STATIONARY, UP
from mathhammer.warmachine.battle.table import approach, gap, retreat

CHARGE_BONUS = 3.0  # WM-B6: a charge moves SPD + 3"
RUN_SHORT = 1.0  # a running model stops this far from the enemy it runs at (no attack after)
PRE_BOOST_MOVE = 3.0  # WM-D3: a charge attack is boosted after a move of more than 3"
POSTURES = ("advance", "assassinate", "hold")


@dataclass
class Intent:
    """What a model means to do in its activation."""

    model: int
    target: int = -1  # enemy model index, -1 none
    mode: str = "none"  # melee | ranged | none
    move: str = "stay"  # stay | advance | charge | retreat | support
    need: float = 0.0  # inches to move before the attack (melee: into range; ranged: to RNG)


def edge(battle, state, i: int, j: int) -> float:
    """Base edge to base edge between models ``i`` and ``j`` now (WM-B2)."""
    a, b = state.models[i], state.models[j]
    d = math.hypot(b.x - a.x, b.y - a.y) - battle.radius[i] - battle.radius[j]
    return d if d > 0.0 else 0.0


def m_crippled(battle, state, i: int) -> bool:
    spec = battle.models[i]
    return spec.grid.crippled(state.models[i].bits, "M")


def melee_reach(battle, state, i: int) -> float:
    """Melee range now: 0 when the model has no melee weapon or is down (a knocked-down or
    stationary model engages nobody, so it makes no free strikes)."""
    if state.models[i].down != UP:
        return 0.0
    return battle.models[i].melee_reach


def engaging(battle, state, i: int) -> list[int]:
    """Enemies that have model ``i`` inside their melee range (WM-B7: it would take their
    free strikes by walking away; it cannot make ranged attacks)."""
    models = state.models
    specs = battle.models
    out = []
    for j in battle.alive(state, 1 - specs[i].side):
        reach = specs[j].melee_reach
        if reach and models[j].down == UP and edge(battle, state, i, j) <= reach + 1e-9:
            out.append(j)
    return out


def in_melee(battle, state, i: int) -> bool:
    """WM-A6: a model is in melee when an enemy is in its melee range or it is in an
    enemy's: ranged and magic attacks at it take −4."""
    own = melee_reach(battle, state, i)
    models = state.models
    specs = battle.models
    for j in battle.alive(state, 1 - specs[i].side):
        reach = max(own, specs[j].melee_reach if models[j].down == UP else 0.0)
        if reach and edge(battle, state, i, j) <= reach + 1e-9:
            return True
    return False


def threat(battle, state, j: int) -> float:
    """How far from its base model ``j`` could attack in its next activation (WM-B6)."""
    spec = battle.models[j]
    st = state.models[j]
    if st.down == STATIONARY:
        return 0.0
    move = 0.0 if st.down == KNOCKED_DOWN else float(spec.spd)
    charge = move + (CHARGE_BONUS if move and not m_crippled(battle, state, j) else 0.0)
    out = 0.0
    if spec.melee_reach:
        out = charge + spec.melee_reach
    return max(out, move + spec.ranged_reach, move + spec.spell_reach)


def priority(battle, state, j: int, caster_first: bool) -> tuple:
    spec = battle.models[j]
    left = spec.grid.boxes_left(state.models[j].bits)
    return (0 if (spec.is_caster and caster_first) else 1, left)


def _melee(spec, down: int, mcrip: bool, dist: float, focus: int) -> tuple[str, float] | None:
    if not spec.melee_reach:
        return None
    need = dist - spec.melee_reach
    if need <= 1e-9:
        return "stay", 0.0
    if down != UP:
        return None  # standing up forfeits the movement (WM-B6)
    if (not mcrip and (not spec.is_warjack or focus >= 1)
            and PRE_BOOST_MOVE < need <= spec.spd + CHARGE_BONUS):
        return "charge", need
    if need <= spec.spd:
        return "advance", need
    return None


def _ranged(spec, down: int, held: bool, dist: float, spells: bool) -> tuple[str, float] | None:
    reach = max(spec.ranged_reach, spec.spell_reach if spells else 0.0)
    if not reach or held:
        return None
    need = dist - reach
    if need <= 1e-9:
        return "stay", 0.0
    if down != UP or need > spec.spd:
        return None
    return "advance", need


def melee_option(battle, state, i: int, j: int, focus: int) -> tuple[str, float] | None:
    """(move, inches) that brings enemy ``j`` into ``i``'s melee range this activation, or
    None: stay (already there), advance (≤ SPD), or charge (≤ SPD + 3", movement system
    working, 1 focus for a warjack, WM-F2, WM-G4); a move of 3" or less is an advance."""
    return _melee(battle.models[i], state.models[i].down, m_crippled(battle, state, i),
                  edge(battle, state, i, j), focus)


def casts(spec, focus: int) -> bool:
    """A warcaster casts offensive spells only with the focus to pay for one (WM-F4)."""
    return spec.is_caster and spec.spell_reach > 0 and focus >= spec.spell_cost


def ranged_option(battle, state, i: int, j: int, spells: bool) -> tuple[str, float] | None:
    """(move, inches) to bring ``j`` within a ranged weapon's (or spell's) range after at most
    an advance; None when the model is engaged (no ranged attacks in melee) or too far."""
    spec = battle.models[i]
    if not max(spec.ranged_reach, spec.spell_reach if spells else 0.0):
        return None
    return _ranged(spec, state.models[i].down, bool(engaging(battle, state, i)),
                   edge(battle, state, i, j), spells)


def intent(battle, state, i: int, posture: str, focus: int) -> Intent:
    """The rule of thumb of the module docstring for model ``i`` with ``focus`` to use."""
    spec = battle.models[i]
    st = state.models[i]
    if st.down == STATIONARY:
        return Intent(i)
    enemies = battle.alive(state, 1 - spec.side)
    if not enemies:
        return Intent(i)
    models = state.models
    dist = {j: edge(battle, state, i, j) for j in enemies}
    held = any(models[j].down == UP and battle.models[j].melee_reach
               and dist[j] <= battle.models[j].melee_reach + 1e-9 for j in enemies)
    caster = battle.sides[1 - spec.side].caster
    assassinate = posture == "assassinate"
    mcrip = m_crippled(battle, state, i)
    reach = spec.melee_reach  # a knocked-down model stands up and fights what is in reach
    close = [j for j in enemies if reach and dist[j] <= reach + 1e-9]
    if spec.is_caster and posture == "hold" and held:
        return Intent(i, move="retreat")
    if close and not (assassinate and caster not in close and caster in dist
                      and _melee(spec, st.down, mcrip, dist[caster], focus) is not None):
        j = min(close, key=lambda j: priority(battle, state, j, True))
        return Intent(i, j, "melee", "stay")
    if spec.is_caster and not assassinate:
        return Intent(i, move="support")
    if posture == "hold":
        return Intent(i, move="retreat")
    order = sorted(enemies, key=lambda j: (priority(battle, state, j, assassinate), dist[j]))
    if not assassinate and len(order) > 1:  # the warcaster last: warjacks and solos first
        order = [j for j in order if j != caster] + [j for j in order if j == caster]
    spells = casts(spec, focus)
    for j in order:
        m = _melee(spec, st.down, mcrip, dist[j], focus)
        if m is not None:
            return Intent(i, j, "melee", m[0], m[1])
        r = _ranged(spec, st.down, held, dist[j], spells)
        if r is not None:
            return Intent(i, j, "ranged", r[0], r[1])
    nearest = min(enemies, key=lambda j: dist[j])
    if spec.is_warjack and focus >= 1 and not mcrip and st.down == UP:
        return Intent(i, nearest, "none", "run", 2.0 * spec.spd)  # WM-B6: 1 focus, no attack
    return Intent(i, nearest, "none", "advance", float(spec.spd))


BEHIND = 3.0  # the warcaster follows 3" behind its warjacks' centre (WM-B11)


def support_spot(battle, state, i: int, careful: bool) -> tuple[float, float]:
    """Where the warcaster goes when it supports (WM-B11): 3" behind its warjacks' centre (as
    far as SPD allows); ``careful`` (hold): toward their centre only as far as it stays out of
    every enemy threat range, and back out when already inside one."""
    spec = battle.models[i]
    st = state.models[i]
    if st.down != UP:
        return st.x, st.y
    side = spec.side
    friends = [j for j in battle.alive(state, side) if j != i]
    if not careful:
        if not friends:
            return st.x, st.y
        cx = sum(state.models[j].x for j in friends) / len(friends)
        cy = sum(state.models[j].y for j in friends) / len(friends) + (
            -BEHIND if side == 0 else BEHIND)
        x, y, _ = approach(st.x, st.y, 0.0, cx, cy, 0.0, float(spec.spd), 0.0)
        return x, y
    threats = [(j, threat(battle, state, j)) for j in battle.alive(state, 1 - side)]

    def safe(x: float, y: float) -> bool:
        for j, t in threats:
            o = state.models[j]
            if gap(x, y, spec.radius, o.x, o.y, battle.models[j].radius) <= t:
                return False
        return True

    if not safe(st.x, st.y):
        j, _ = min(threats, key=lambda jt: edge(battle, state, i, jt[0]) - jt[1])
        o = state.models[j]
        x, y, _ = retreat(st.x, st.y, spec.radius, o.x, o.y, float(spec.spd), side)
        return x, y
    if not friends:
        return st.x, st.y
    cx = sum(state.models[j].x for j in friends) / len(friends)
    cy = sum(state.models[j].y for j in friends) / len(friends)
    best = (st.x, st.y)
    for k in range(1, 9):  # the farthest of eight steps along the line that stays safe
        x, y, _ = approach(st.x, st.y, 0.0, cx, cy, 0.0, spec.spd * k / 8, 2.0)
        if not safe(x, y):
            break
        best = (x, y)
    return best
