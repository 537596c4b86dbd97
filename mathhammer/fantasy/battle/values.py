"""One step ahead, exactly (FB-B10): what the greedy general scores its choices by.

Every value is in victory points for the side deciding (its VP gained minus the VP it
gives up, FB-B9's shares), worked out by the exact engines and cached in the plan:

* **a combat** of u against t (t's face, who charged, the models left now): one round by
  the combat engine's exact round (:func:`mathhammer.fantasy.combat.exact.combat_exact`,
  with pursuit; played by its jitted copy, :func:`~mathhammer.fantasy.combat.exact.
  one_round_exact`): a destroyed or caught unit costs its points, a broken one its points
  times the chance it fails to rally (FB-G4), wounds their share of the unit's points;
* **a charge**: P(the roll reaches) × the combat's value (FB-G1);
* **a reaction**: hold = the charge's value against it; flee = P(caught) × its points +
  P(escapes) × its points × P(no rally); stand and shoot = hold plus the volley's VP;
* **a volley**: the expected unsaved wounds × the target's points per wound;
* **a move**: the threat it leaves — Σ P(reach an enemy next turn) × that combat's value
  minus the same from every enemy's side — plus the volley it still allows this turn.
"""

from __future__ import annotations

import math

from mathhammer.fantasy.battle.combat_values import exact_round_value, p_rally, vp_per_wound
from mathhammer.fantasy.battle.plan import p_at_least
from mathhammer.fantasy.battle.state import HOLD, BattleState
from mathhammer.fantasy.battle.table import farther_than, segment_distance


def combat_value(plan, state: BattleState, u: int, t: int, face: int, charged: bool) -> float:
    """u's side's expected VP swing from one round of u (charging or not) against t."""
    mu, mt = bucket(plan, u, state.models[u]), bucket(plan, t, state.models[t])
    key = ("combat", u, t, face, charged, mu, mt)
    value = plan.value_cache.get(key)
    if value is None:
        value = plan.value_cache[key] = exact_round_value(plan, u, t, face, charged, mu, mt)
    return value


BUCKETS = 4  # quarters: few values per pairing (each an exact round, ~10 ms)
APPROACH = 0.5  # FB-B10: weight of the pull towards favoured pairings (threat)
APPROACH_RANGE = 48.0  # inches at which the pull starts


def bucket(plan, u: int, models: int) -> int:
    """FB-B10: the models a value is worked out for — the count rounded up to a quarter of
    the unit's size, so the values of a run are few and cached."""
    full = plan.units[u].models
    if full <= BUCKETS or models <= 0:
        return max(models, 1)
    step = full / BUCKETS
    return min(full, max(1, int(math.ceil(math.ceil(models / step) * step))))


def charge_value(plan, state: BattleState, option) -> float:
    face, _side, gap = option.extra
    p = p_reach(plan, option.unit, gap)
    return p * combat_value(plan, state, option.unit, option.target, face, True)


def p_reach(plan, u: int, gap: float) -> float:
    rolls, cum = plan.charge_table[u]
    below = 0.0
    for (rng, _move), c in zip(rolls, cum):
        if rng >= gap - 1e-9:
            return 1.0 - below
        below = c
    return 0.0


def reaction_value(plan, state: BattleState, option, gap: float, face: int) -> float:
    """The charged unit's side's value of a reaction (see the module docstring)."""
    charger, t = option.target, option.unit
    if option.label == "flee":
        caught = 0.0
        flee_values, flee_cum = plan.flee_pmf[t]
        prev = 0.0
        for f, c in zip(flee_values, flee_cum):
            caught += (c - prev) * p_reach(plan, charger, gap + f)
            prev = c
        points = plan.units[t].points
        return -(caught * points + (1 - caught) * points * (1 - p_rally(plan, t)))
    hold = -p_reach(plan, charger, gap) * combat_value(plan, state, charger, t, face, True)
    if option.label == "stand and shoot":
        hold += volley_value(plan, state, t, charger, gap, 0, True)
    return hold


def volley_value(plan, state: BattleState, u: int, t: int, gap: float, cover: int,
                 stand_and_shoot: bool = False) -> float:
    from mathhammer.fantasy.battle.shooting import (
        machine_shot,
        machine_table,
        modifier,
        shots_fired,
        wound_table,
    )

    _n, _r, models, w = plan.units[t].bodies[0]
    if plan.units[u].fires is not None:  # FB-WM2: the artillery engine's exact shot
        flank, mod, left = machine_shot(plan, state, u, t, gap, cover)
        if left <= 0:
            return 0.0
        cum = machine_table(plan, u, t, flank, mod, left)[:-2]  # the last two: misfires that
        # silence or destroy the machine, the same risk at any target (not weighed: FB-WM2)
    else:
        n = shots_fired(plan, state, u)
        left = max(0, models - state.wounds[t][0] // w)
        if n <= 0 or left <= 0:
            return 0.0
        cum = wound_table(plan, u, t, n, modifier(plan, state, u, gap, cover, stand_and_shoot),
                          left)
    room = models * w - state.wounds[t][0]  # the wounds the rank and file can still take
    mean, prev = 0.0, 0.0
    for k, c in enumerate(cum):
        mean += min(k, room) * (c - prev)
        prev = c
    return mean * vp_per_wound(plan, t)


def threat(plan, state: BattleState, u: int) -> float:
    """u's side's value of where u stands: the charges it threatens (next turn, or the turn
    after at half weight) at enemies it beats, minus the same from every enemy at it — only
    charges worth making count — plus the pull of each pairing: ``APPROACH`` × its edge
    (half of u's gain charging it minus u's loss charged by it) × how close the two are
    (1 at contact, 0 from ``APPROACH_RANGE``). Without the pull two cautious generals never
    close (each fears being charged first); with it the side favoured in a pairing closes
    and the other keeps away."""
    me = state.box(plan, u)
    mc = me.centre()
    total = 0.0
    for t in plan.sides[1 - plan.units[u].side]:
        if state.status[t] != HOLD or state.engaged(t):
            continue
        them = state.box(plan, t)
        tc = them.centre()
        gain = combat_value(plan, state, u, t, them.arc(*mc)[0], True)
        loss = combat_value(plan, state, t, u, me.arc(*tc)[0], True)
        closeness = 1.0 - math.hypot(tc[0] - mc[0], tc[1] - mc[1]) / APPROACH_RANGE
        if closeness > 0:
            total += APPROACH * (gain - loss) / 2 * closeness
        if farther_than(me, them, 30.0):
            continue
        if gain > 0:
            total += gain * _reach(plan, state, u, me, them, mc)
        if loss > 0:
            total -= loss * _reach(plan, state, t, them, me, tc)
    return total


def _reach(plan, state: BattleState, u: int, me, them, mc) -> float:
    """P(u charges them next turn), or half P(it does the turn after, a move closer)."""
    face, fside = them.arc(*mc)
    a, b = me.front_segment()
    c, d = them.face_segment(face, fside)
    gap = segment_distance(a, b, c, d)
    now = p_reach(plan, u, gap) if me.in_front_arc(*them.centre()) else 0.0
    later = 0.5 * p_reach(plan, u, gap - plan.units[u].movement)
    return max(now, later)


def best_volley(plan, state: BattleState, u: int) -> float:
    from mathhammer.fantasy.battle.shooting import shoot_options

    best = 0.0
    for option in shoot_options(plan, state, u)[1:]:
        gap, cover = option.extra
        best = max(best, volley_value(plan, state, u, option.target, gap, cover))
    return best


def move_value(plan, state: BattleState, option, index: int) -> float:
    """Play the move (the ``index``-th option) on a copy and value where it leaves the unit."""
    from mathhammer.fantasy.battle.phases import _move

    trial = state.copy()
    u = option.unit
    side = plan.units[u].side
    _move(plan, trial, side, plan.sides[side].index(u), index)
    return threat(plan, trial, u) + best_volley(plan, trial, u)


def pursue_value(plan, state: BattleState, option) -> float:
    return 1.0 if option.label == "pursue" else 0.0


def isfinite(x: float) -> bool:
    return math.isfinite(x)


__all__ = ["combat_value", "charge_value", "reaction_value", "volley_value", "move_value",
           "pursue_value", "p_at_least"]
