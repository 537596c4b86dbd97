"""The shooting phase of a battle (FB-B6, FB-H2..FB-V4, FB-G4): targets, ranges, the chain.

A unit with a missile weapon (its profile's ``[ranged]`` table) that is not in combat, did
not charge, march or rally this turn (nor move, with ``move_or_fire``) shoots one enemy in
its front arc, in sight and in range, not in combat (FB-B6). The models of its first
``shooting_ranks`` ranks fire; beyond half the range is long range; a shooter that moved,
terrain crossed (soft / hard cover), a stand and shoot reaction: the ruleset's modifiers
(FB-H2). The unsaved wounds are drawn from the shooting chain's exact distribution
(:func:`mathhammer.fantasy.chain.core.chain_distribution`, the table ``fb shoot`` prints), kept
per shooter, target, shots, modifier and models left. Wounds go to the rank and file
(a character in the unit is not hit: FB-B6). A unit that lost a quarter of its models
in the phase tests for panic (FB-G4) and flees on a failure (an Unbreakable unit never
panics). A war machine fires its piece instead, any way it turns, by ``fb artillery``'s
exact answer and its misfires (FB-WM2: :func:`machine_shoot_options`, :func:`machine_cdf`).
"""

from __future__ import annotations

import math

import numpy as np

from mathhammer.fantasy.battle.actions import (
    Option,
    clear_contacts,
    draw_index,
    enemies_within,
    flee_move,
    land_wounds,
    ld_test,
    nearest_enemy,
    seen,
)
from mathhammer.fantasy.battle.state import FLEE, HOLD, BattleState


def shoot_options(plan, state: BattleState, u: int):
    if plan.units[u].fires is not None:  # FB-WM2: a war machine's piece
        return machine_shoot_options(plan, state, u)
    out = [Option("shoot", u, "hold fire")]
    unit = plan.units[u]
    weapon = unit.ranged
    if weapon is None or state.status[u] != HOLD or state.engaged(u) or state.charged[u] \
            or state.marched[u] or state.hold_turn[u] or (weapon.move_or_fire and state.moved[u]):
        return out
    me = state.box(plan, u)
    eye = me.point(0.0, 0.0)
    for t, target, gap in enemies_within(plan, state, u, weapon.range):
        centre = target.centre()
        if not (me.in_front_arc(*centre) or any(me.in_front_arc(*c) for c in target.corners())):
            continue
        visible, cover = seen(plan, state, u, t, eye, centre)
        if not visible:
            continue
        out.append(Option("shoot", u, f"shoot {plan.units[t].label}", t, (gap, cover)))
    return out


def modifier(plan, state: BattleState, u: int, gap: float, cover: int,
             stand_and_shoot: bool) -> int:
    """FB-H2: the sum of the ruleset's shooting modifiers that apply."""
    mods = plan.rules.shooting_modifiers
    total = 0
    if gap > plan.units[u].ranged.range / 2:
        total += mods.long_range
    if state.moved[u] and not stand_and_shoot:
        total += mods.moving
    if stand_and_shoot:
        total += mods.stand_and_shoot
    total += (0, mods.soft_cover, mods.hard_cover)[cover]
    return total


def shots_fired(plan, state: BattleState, u: int) -> int:
    """Models of the first ``shooting_ranks`` ranks (FB-B6)."""
    unit = plan.units[u]
    return min(state.models[u], unit.width * plan.rules.battle.shooting_ranks)


def wound_table(plan, u: int, t: int, shooters: int, mod: int, models_left: int) -> tuple:
    """Cumulative P(k unsaved wounds) of ``shooters`` models of u at t (cached)."""
    mod += plan.rules.large_target_modifier if plan.units[t].large else 0
    key = (u, t, shooters, mod)  # uncapped: the wounds are capped where they land
    table = plan.shot_cache.get(key)
    if table is None:
        table = plan.shot_cache[key] = wound_cdf(plan, u, t, shooters, mod, 0)
    return table


def wound_cdf(plan, u, t, shooters, mod, models_left) -> tuple:
    """The cumulative table itself: ``mod`` is every to-hit modifier (a large target's too);
    ``models_left`` 0 leaves the wounds uncapped (the battle caps them where they land)."""
    from mathhammer.dice import parse_dice
    from mathhammer.fantasy.chain.core import AttackSpec, chain_distribution, single_attack_outcomes
    from mathhammer.fantasy.combat.target import target_parts

    rules = plan.rules
    weapon = plan.units[u].ranged
    shooter = plan.units[u].profile
    target = plan.units[t].shot_profile  # FB-WM1: a war machine's own Toughness
    part = target_parts(target, rules)[0]
    spec = AttackSpec(bs=shooter.stats.bs, shooting_modifier=mod, strength=weapon.strength,
                      toughness=part.t, save=part.armour, ward=part.ward,
                      regeneration=part.regeneration, armour_piercing=weapon.armour_piercing,
                      close_combat=False, multiple_wounds=weapon.multiple_wounds,
                      target_wounds=part.w)
    per_attack, p_slay = single_attack_outcomes(spec, rules)
    per_model = {k: float(p) for k, p in parse_dice(weapon.shots).pmf().items()}
    shots = {0: 1.0}
    for _ in range(shooters):
        nxt: dict[int, float] = {}
        for a, pa in shots.items():
            for b, pb in per_model.items():
                nxt[a + b] = nxt.get(a + b, 0.0) + pa * pb
        shots = nxt
    wounds = chain_distribution(np.asarray(per_attack, float), float(p_slay), shots, part.w,
                                models_left or None)
    cum = np.cumsum(wounds)
    cum[-1] = 1.0
    return tuple(float(c) for c in cum)


def volley(plan, state: BattleState, u: int, t: int, extra, stand_and_shoot: bool = False) -> int:
    """Fire u at t; returns the unsaved wounds (added to t's rank and file, FB-V4)."""
    if plan.units[u].fires is not None:  # FB-WM2: a war machine fires its piece
        return machine_volley(plan, state, u, t, extra)
    if stand_and_shoot:
        gap, cover = float(extra), _cover_between(plan, state, u, t)
    else:
        gap, cover = extra
    mod = modifier(plan, state, u, gap, cover, stand_and_shoot)
    n = shots_fired(plan, state, u)
    if n <= 0:
        return 0
    _n, _r, models, w = plan.units[t].bodies[0]
    left = max(0, models - state.wounds[t][0] // w)
    if left <= 0:
        return 0
    return land_wounds(plan, state, t, draw_index(wound_table(plan, u, t, n, mod, left), state.rng))


# ---- war machines firing (FB-WM2, FB-R2..R7) ---------------------------------------------------
def machine_shoot_options(plan, state: BattleState, u: int) -> list[Option]:
    """FB-WM2: a war machine not in combat, not fleeing and not rallied this turn turns on the
    spot (not a move) and fires at one enemy in its piece's range and in sight (FB-B6), not
    in combat: no front-arc limit."""
    out = [Option("shoot", u, "hold fire")]
    unit = plan.units[u]
    if state.status[u] != HOLD or state.engaged(u) or state.hold_turn[u] \
            or state.silenced[u] >= state.pc[0]:  # a misfire: not this turn or next
        return out
    reach = unit.war_machine.machine.range
    eye = state.box(plan, u).point(0.0, 0.0)
    for t, target, gap in enemies_within(plan, state, u, reach):
        visible, cover = seen(plan, state, u, t, eye, target.centre())
        if visible:
            out.append(Option("shoot", u, f"shoot {plan.units[t].label}", t, (gap, cover)))
    return out


def machine_shot(plan, state: BattleState, u: int, t: int, gap: float, cover: int):
    """(from a flank, to-hit modifier, target models left) of u's shot at t (FB-WM2): the
    line runs along a rank when u stands in t's flank arc, else along a file (FB-R3..R5);
    a piece that rolls to hit takes FB-H2's long range, cover and large target modifiers."""
    from mathhammer.fantasy.artillery.shot import uses_to_hit
    from mathhammer.fantasy.battle.table import FLANK

    unit = plan.units[u]
    face, _side = state.box(plan, t).arc(*state.box(plan, u).centre())
    mod = 0
    if uses_to_hit(unit.fires, plan.rules):
        mods = plan.rules.shooting_modifiers
        mod = (mods.long_range if gap > unit.war_machine.machine.range / 2 else 0) \
            + (0, mods.soft_cover, mods.hard_cover)[cover] \
            + (plan.rules.large_target_modifier if plan.units[t].large else 0)
    _n, _r, models, w = plan.units[t].bodies[0]
    return int(face == FLANK), mod, max(0, models - state.wounds[t][0] // w)


def machine_table(plan, u: int, t: int, flank: int, mod: int, left: int) -> tuple:
    """Cumulative P(k unsaved wounds) of u's piece at t's rank and file of ``left`` models,
    then two entries: its misfire silenced it next turn, destroyed it (cached;
    :func:`machine_cdf`)."""
    key = ("machine", u, t, flank, mod, left)
    table = plan.shot_cache.get(key)
    if table is None:
        table = plan.shot_cache[key] = machine_cdf(plan, u, t, flank, mod, left)
    return table


def machine_cdf(plan, u: int, t: int, flank: int, mod: int, left: int) -> tuple:
    """FB-WM2: one shot of u's piece by :func:`mathhammer.fantasy.artillery.query.artillery`
    (method exact) at t's rank and file as it stands (``left`` models, its rank width), aimed
    at the middle file (rank from a flank) the engine's default ``short`` inches short of the
    face: the distribution of unsaved wounds, cumulative, then two more entries taken out
    of "no wounds": the misfire rows that say "cannot shoot this turn or next", and the
    ``own_destroyed`` row (other rows are no shot)."""
    from mathhammer.fantasy.artillery.query import artillery
    from mathhammer.fantasy.artillery.shot import Shot, misfire_table

    unit, target = plan.units[u], plan.units[t]
    profile = target.profile
    if target.war_machine is not None:  # FB-WM1: the machine's T, its crew's wounds
        profile = profile.model_copy(update={"stats": profile.stats.model_copy(
            update={"t": target.war_machine.machine.t})})
    shot = Shot(unit.fires, bs=unit.profile.stats.bs, modifier=mod,
                facing="flank" if flank else "front")
    report = artillery(unit.fires, profile, ruleset=plan.rules, models=left,
                       rank_width=min(target.width, left), shot=shot, method="exact")
    dists = report.distributions  # a ridden monster: the rider's, the first wound pool (FB-B6)
    dist = dists["unsaved_wounds"] if "unsaved_wounds" in dists else dists["wounds_on_rider"]
    pmf = np.zeros(dist.offset + len(dist.probs) + 2)
    pmf[dist.offset:-2] = dist.probs
    silencing = [f"p_{row.key}" for row in misfire_table(unit.fires, plan.rules)[0]
                 if "or next" in row.effect]
    for slot, keys in ((-2, silencing), (-1, ["p_own_destroyed"])):  # FB-WM2
        for key in keys:
            p = report.results.get(key)
            if p is not None:
                pmf[slot] += p.value
                pmf[0] -= p.value
    pmf[0] = max(pmf[0], 0.0)
    cum = np.cumsum(pmf)
    cum[-1] = 1.0
    return tuple(float(c) for c in cum)


def machine_volley(plan, state: BattleState, u: int, t: int, extra) -> int:
    """FB-WM2: u's piece fires at t; the unsaved wounds land on t's rank and file (FB-V4)."""
    gap, cover = extra
    flank, mod, left = machine_shot(plan, state, u, t, gap, cover)
    if left <= 0:
        return 0
    cum = machine_table(plan, u, t, flank, mod, left)
    wounds = draw_index(cum, state.rng)
    if wounds == len(cum) - 1:  # FB-WM2: its misfire destroyed the machine
        from mathhammer.fantasy.battle.state import DEAD

        state.status[u] = DEAD
        clear_contacts(state, u)
        return 0
    if wounds == len(cum) - 2:  # FB-WM2: no shot this turn or next
        state.silenced[u] = state.pc[0] + 1
        return 0
    return land_wounds(plan, state, t, wounds)


def _cover_between(plan, state: BattleState, u: int, t: int) -> int:
    return seen(plan, state, u, t, state.box(plan, u).point(0.0, 0.0),
                state.box(plan, t).centre())[1]


def panic_tests(plan, state: BattleState, side: int) -> None:
    """FB-G4: each unit of ``side`` that lost ``panic_fraction`` of its models this phase and
    is not in combat tests Leadership; a failure flees directly away from the nearest enemy."""
    from mathhammer.fantasy.battle.plan import draw

    fraction = plan.rules.combat.panic_fraction
    for u in plan.sides[side]:
        start = state.phase_start_models[u]
        lost = start - state.models[u]
        if state.status[u] != HOLD or lost <= 0 or lost < fraction * start or state.engaged(u) \
                or plan.units[u].profile.has("Unbreakable"):  # FB-B6: never panics
            continue
        if ld_test(plan, state, u):
            continue
        enemy = nearest_enemy(plan, state, u)
        source = state.box(plan, enemy).centre() if enemy is not None else (
            state.x[u] + math.cos(state.theta[u]), state.y[u] + math.sin(state.theta[u]))
        flee_move(plan, state, u, source, _flee(plan, state, u, draw))
    for u in range(len(plan.units)):
        state.phase_start_models[u] = state.models[u]


def _flee(plan, state, u, draw) -> int:
    return draw(plan.flee_pmf[u], state.rng)


__all__ = ["shoot_options", "volley", "panic_tests", "FLEE"]
