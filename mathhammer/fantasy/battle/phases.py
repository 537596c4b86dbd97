"""The turn sequence (FB-B3): every phase of both players' turns, one step at a time.

A battle is a program counter ``state.pc = [game turn, seat, phase, index]`` and a step
function: each step does one unit's part of one phase (or one combat), and every decision
is taken at the start of a step, before any die of that step is rolled. So a best-response
rollout copies the state at a decision, forces one alternative, and plays on (same steps,
fresh dice) — :mod:`mathhammer.fantasy.battle.policies`.

A player turn, for the side whose turn it is (FB-B3):

1. **rally** — each fleeing unit tests Leadership (FB-G4: the general's within range, a
   battle standard re-rolls; below a quarter of its models only a double 1); rallied, it
   turns to face the nearest enemy and neither moves nor shoots this turn;
2. **charges** — unit by unit in list order: charge an enemy or not (the policy), the
   target's reaction (hold, stand and shoot, flee: the other side's policy), the charge
   roll (FB-G1..G3) — the charger lands on the target's face (FB-B4) or falls short;
3. **fleeing units** that did not rally flee again, directly away from the nearest enemy
   (FB-B7); a unit whose flight crosses a table edge has fled the battle;
4. **remaining moves** — hold, advance on an enemy (marching where no enemy is near) or
   step back (FB-B5);
5. **magic** — the side's wizards cast, the other side dispels (FB-B12, :mod:`.magic`);
6. **shooting** — each unit with a missile weapon picks a target in its front arc, in
   sight and range (FB-B6, FB-H2), a war machine its piece (FB-WM2); panic at 25% losses
   in the phase (FB-G4);
7. **close combat** — every combat fights one round (the combat engine, FB-C1..C7,
   FB-M1..M4); broken units flee and are pursued or let go (FB-C6, FB-B7); a charger that
   wiped out its enemies may overrun, and a pursuit or overrun that reaches a new enemy
   charges it, fought in the next turn (FB-B22).
"""

from __future__ import annotations

import math

from mathhammer.fantasy.battle.actions import (
    GAP,
    Option,
    advance_towards,
    clear_contacts,
    decide,
    draw_charge,
    enemy_within,
    flee_move,
    ld_test,
    nearest_enemy,
    seen,
    straight,
)
from mathhammer.fantasy.battle.challenges import before_round, friend_panic, friends_near
from mathhammer.fantasy.battle.fights import MAX_PER_SIDE, combats, face_taken, fight_round
from mathhammer.fantasy.battle.plan import draw
from mathhammer.fantasy.battle.shooting import panic_tests, shoot_options, volley
from mathhammer.fantasy.battle.state import DEAD, FLED, FLEE, HOLD, BattleState
from mathhammer.fantasy.battle.table import FRONT, distance, segment_distance

START, RALLY, CHARGE, REACT, FLIGHT, MOVE, MAGIC, SHOOT, COMBAT, PURSUE, END = range(11)
PHASE_NAMES = ("start", "rally", "charges", "reaction", "fleeing units", "remaining moves",
               "magic", "shooting", "close combat", "pursuit", "end")


# ---- the driver ------------------------------------------------------------------------------
def play(plan, state: BattleState) -> BattleState:
    """Play the battle from wherever its program counter stands to the end."""
    while not state.done:
        step(plan, state)
    return state


def step(plan, state: BattleState, forced: int | None = None) -> None:
    _STEPS[state.pc[2]](plan, state, state.order[state.pc[1]], state.pc[3], forced)


def _goto(state: BattleState, phase: int, index: int = 0) -> None:
    state.pc[2], state.pc[3] = phase, index


def _next_unit(plan, state: BattleState, side: int, i: int, phase: int, after: int) -> None:
    if i + 1 < len(plan.sides[side]):
        _goto(state, phase, i + 1)
    else:
        _goto(state, after)


# ---- 0 start and 10 end ----------------------------------------------------------------------
def _start(plan, state: BattleState, side: int, i: int, forced) -> None:
    if state.pc[0] == 1 and state.pc[1] == 0 and plan.first == "roll-off":
        first = 0 if state.rng.random() < 0.5 else 1  # DICE-6: a fair roll-off
        state.order = (first, 1 - first)
        side = first
    elif state.pc[0] == 1 and state.pc[1] == 0:
        state.order = (0, 1) if plan.first == "a" else (1, 0)
        side = state.order[0]
    n = len(plan.units)
    state.charged = [False] * n
    state.moved = [False] * n
    state.marched = [False] * n
    state.reacted = [False] * n
    state.hold_turn = [False] * n
    for u in range(n):  # FB-B22: a pursuit's or overrun's charge is fought in this turn
        if state.pursuit_charge[u]:
            state.charged[u], state.pursuit_charge[u] = True, False
    state.active = side
    _goto(state, RALLY)


def _end(plan, state: BattleState, side: int, i: int, forced) -> None:
    turn, seat = state.pc[0], state.pc[1]
    if seat == 0:
        state.pc[:] = [turn, 1, START, 0]
        return
    state.history.append(tuple(state.status))
    if turn >= plan.turns or _one_side_gone(plan, state):
        while len(state.history) < plan.turns:  # nothing moves any more: the same statuses
            state.history.append(tuple(state.status))
        state.done = True
        return
    state.pc[:] = [turn + 1, 0, START, 0]


def _one_side_gone(plan, state: BattleState) -> bool:
    return any(all(state.status[u] in (FLED, DEAD) for u in plan.sides[s]) for s in (0, 1))


# ---- 1 rally ---------------------------------------------------------------------------------
def _rally(plan, state: BattleState, side: int, i: int, forced) -> None:
    u = plan.sides[side][i]
    if state.status[u] == FLEE:
        quarter = state.models[u] * 4 < plan.units[u].models
        if quarter and plan.rules.combat.rally_below_quarter_needs_double_one:
            rallied = state.rng.randint(1, 6) == 1 and state.rng.randint(1, 6) == 1
        else:
            rallied = ld_test(plan, state, u)
        if rallied:  # FB-G4, FB-B3: it reforms to face the enemy and holds this turn
            state.status[u] = HOLD
            state.hold_turn[u] = True
            enemy = nearest_enemy(plan, state, u)
            if enemy is not None:
                box = state.box(plan, u)
                cx, cy = box.centre()
                ex, ey = state.box(plan, enemy).centre()
                theta = math.atan2(ey - cy, ex - cx)
                state.place(u, cx + math.cos(theta) * box.depth / 2,
                            cy + math.sin(theta) * box.depth / 2, theta)
    _next_unit(plan, state, side, i, RALLY, CHARGE)


# ---- 2 charges and 3 reactions ---------------------------------------------------------------
def charge_options(plan, state: BattleState, u: int) -> list[Option]:
    """FB-B4: the enemies ``u`` may charge: in its front arc, in sight, a free face, within
    its longest possible charge, and room in the combat (four units a side, FB-M1)."""
    out = [Option("charge", u, "no charge")]
    if state.status[u] != HOLD or state.engaged(u) or state.hold_turn[u] or plan.no_charge[u]:
        return out
    me = state.box(plan, u)
    longest = plan.charge_table[u][0][-1][0]
    a, b = me.front_segment()
    for t in plan.sides[1 - plan.units[u].side]:
        if state.status[t] != HOLD:
            continue  # FB-B4: fleeing units are not charged
        target = state.box(plan, t)
        face, fside = target.arc(*me.centre())
        if face_taken(state, t, face, fside):
            continue
        c, d = target.face_segment(face, fside)
        gap = segment_distance(a, b, c, d)
        if gap > longest or gap <= 0.0:
            continue
        mid = ((c[0] + d[0]) / 2, (c[1] + d[1]) / 2)
        if not (me.in_front_arc(*mid) or me.in_front_arc(*c) or me.in_front_arc(*d)):
            continue
        if not seen(plan, state, u, t, me.point(0.0, 0.0), mid)[0]:
            continue
        if not _room(plan, state, u, t):
            continue
        out.append(Option("charge", u, f"charge {plan.units[t].label}", t, (face, fside, gap)))
    return out


def _room(plan, state: BattleState, u: int, t: int) -> bool:
    members = next((m for m in combats(state) if t in m), [t])
    mine = sum(1 for v in members if plan.units[v].side == plan.units[u].side)
    return mine + 1 <= MAX_PER_SIDE and len(members) + 1 <= 8


def _charge(plan, state: BattleState, side: int, i: int, forced) -> None:
    u = plan.sides[side][i]
    choice = decide(plan, state, side, charge_options(plan, state, u), forced)
    if choice.target is None:
        _next_unit(plan, state, side, i, CHARGE, FLIGHT)
        return
    state.pending.append((u, choice.target) + choice.extra)
    _goto(state, REACT, i)


def reaction_options(plan, state: BattleState, u: int, t: int, face: int, fside: int,
                     gap: float) -> list[Option]:
    """FB-G2: hold; flee; stand and shoot with a missile weapon, not when the charger starts
    within the charged unit's Movement. A unit in combat, or that reacted this turn, holds."""
    extra = (face, fside, gap)
    out = [Option("reaction", t, "hold", u, extra)]
    if state.engaged(t) or state.reacted[t] or plan.units[t].war_machine is not None:
        return out  # FB-WM2: a war machine's crew hold
    out.append(Option("reaction", t, "flee", u, extra))
    weapon = plan.units[t].ranged
    barred = plan.rules.combat.stand_and_shoot_min_distance == "movement" \
        and gap <= plan.units[t].movement
    if weapon is not None and not barred and gap <= weapon.range and not state.hold_turn[t]:
        out.append(Option("reaction", t, "stand and shoot", u, extra))
    return out


def _react(plan, state: BattleState, side: int, i: int, forced) -> None:
    u, t, face, fside, gap = state.pending[-1]
    options = reaction_options(plan, state, u, t, face, fside, gap)
    choice = decide(plan, state, 1 - side, options, forced)
    state.pending.pop()
    state.reacted[t] = True
    state.charged[u] = True  # it declared: it does not move again this turn
    if choice.label == "stand and shoot":
        volley(plan, state, t, u, gap, stand_and_shoot=True)
        if state.status[u] != HOLD:  # destroyed (or broken) before it lands
            _next_unit(plan, state, side, i, CHARGE, FLIGHT)
            return
    rng_range, failed_move = draw_charge(plan, state, u)
    if choice.label == "flee":
        flight = draw(plan.flee_pmf[t], state.rng)
        source = state.box(plan, u).centre()
        flee_move(plan, state, t, source, flight)
        if rng_range >= gap + flight:  # FB-G2: caught and destroyed
            state.status[t] = DEAD
            _land(plan, state, u, t, face, fside, contact=False)
        else:
            _fall_short(plan, state, u, t, face, fside, gap, failed_move)
    elif rng_range >= gap:
        _land(plan, state, u, t, face, fside)
    else:
        _fall_short(plan, state, u, t, face, fside, gap, failed_move)
    _next_unit(plan, state, side, i, CHARGE, FLIGHT)


def _land(plan, state: BattleState, u: int, t: int, face: int, fside: int,
          contact: bool = True) -> None:
    """FB-B4: the charger's front on the middle of the target's face, facing it."""
    box = state.box(plan, t)
    (mx, my), (nx, ny), _a, _h = box.face(face, fside)
    state.place(u, mx, my, math.atan2(-ny, -nx))
    state.moved[u] = True
    if not contact:
        return
    state.contact[u] = (t, face, fside)
    if face == FRONT and state.contact[t] is None:
        state.contact[t] = (u, FRONT, fside)
    state.fresh[u] = True
    if not any(v != u for v in state.enemies_in_contact(t)):
        state.fresh[t] = True  # a new combat: its first round for both


def _fall_short(plan, state: BattleState, u: int, t: int, face: int, fside: int, gap: float,
                move: float) -> None:
    """FB-G3: the charger moves towards the target, ``move`` inches (half the gap for -1)."""
    if state.status[t] in (FLED, DEAD):
        return
    c, d = state.box(plan, t).face_segment(face, fside)
    mid = ((c[0] + d[0]) / 2, (c[1] + d[1]) / 2)
    step = gap / 2 if move < 0 else min(move, max(gap - GAP, 0.0))
    advance_towards(plan, state, u, mid, step, free_turn=True)
    state.moved[u] = True


def _flight(plan, state: BattleState, side: int, i: int, forced) -> None:
    u = plan.sides[side][i]
    if state.status[u] == FLEE and not state.reacted[u]:
        enemy = nearest_enemy(plan, state, u)
        source = state.box(plan, enemy).centre() if enemy is not None else state.flee_from[u]
        flee_move(plan, state, u, source, draw(plan.flee_pmf[u], state.rng))
    _next_unit(plan, state, side, i, FLIGHT, MOVE)


# ---- 5 remaining moves (FB-B5) ----------------------------------------------------------------
def move_options(plan, state: BattleState, u: int) -> list[Option]:
    out = [Option("move", u, "hold")]
    if state.status[u] != HOLD or state.engaged(u) or state.charged[u] or state.hold_turn[u] \
            or plan.units[u].movement <= 0:
        return out
    enemies = sorted((t for t in plan.sides[1 - plan.units[u].side] if state.on_table(t)),
                     key=lambda t: distance(state.box(plan, u), state.box(plan, t)))
    for t in enemies[:3]:
        out.append(Option("move", u, f"advance on {plan.units[t].label}", t))
    out.append(Option("move", u, "step back"))
    return out


def _move(plan, state: BattleState, side: int, i: int, forced) -> None:
    u = plan.sides[side][i]
    choice = decide(plan, state, side, move_options(plan, state, u), forced)
    if choice.target is not None:
        allowance = plan.units[u].movement
        if not enemy_within(plan, state, u, plan.rules.battle.march_block):
            allowance *= plan.rules.battle.march_multiplier
        moved = advance_towards(plan, state, u, state.box(plan, choice.target).centre(), allowance)
        state.moved[u] = moved > 0
        state.marched[u] = moved > plan.units[u].movement + 1e-9
    elif choice.label == "step back":  # FB-B5: backwards at half rate, no turn
        moved = straight(plan, state, u, -plan.units[u].movement / 2)
        state.moved[u] = moved > 0
    _next_unit(plan, state, side, i, MOVE, MAGIC)


# ---- 6 magic -----------------------------------------------------------------------------------
def _magic(plan, state: BattleState, side: int, i: int, forced) -> None:
    """FB-B12 (:mod:`.magic`): 0 the pools, 1 a wizard's cast, 2 its dice, 3 the dispel."""
    from mathhammer.fantasy.battle import magic

    if i == 0:
        for u in range(len(plan.units)):  # FB-G4: losses counted per phase from here
            state.phase_start_models[u] = state.models[u]
        if magic.magic_of(plan).played and not magic.start(plan, state, side):
            _goto(state, MAGIC, 1)
        else:
            _goto(state, SHOOT)
        return
    if i == 1:
        step_to = magic.cast_step(plan, state, side, forced, decide)
    elif i == 2:
        step_to = magic.dice_step(plan, state, side, forced, decide)
    else:
        magic.dispel_step(plan, state, side, forced, decide)
        step_to = "next"
    if step_to == "over":
        state.magic = None
        panic_tests(plan, state, 1 - side)  # FB-G4: a quarter lost to the phase's spells
        _goto(state, SHOOT)
    else:
        _goto(state, MAGIC, {"next": 1, "dice": 2, "dispel": 3}[step_to])


# ---- 7 shooting --------------------------------------------------------------------------------
def _shoot(plan, state: BattleState, side: int, i: int, forced) -> None:
    u = plan.sides[side][i]
    choice = decide(plan, state, side, shoot_options(plan, state, u), forced)
    if choice.target is not None:
        volley(plan, state, u, choice.target, choice.extra)
    if i + 1 < len(plan.sides[side]):
        _goto(state, SHOOT, i + 1)
    else:
        panic_tests(plan, state, 1 - side)
        _goto(state, COMBAT)


# ---- 8 close combat and 9 pursuit ------------------------------------------------------------
def _combat(plan, state: BattleState, side: int, i: int, forced) -> None:
    if i == 0 and state.challenge_stage is None:
        state.pending = [("fights", combats(state))]
    kind, queue = state.pending[0]
    if not queue:
        state.pending = []
        _goto(state, END)
        return
    members = [u for u in queue[0] if state.status[u] == HOLD]
    if len(members) >= 2 and any(state.engaged(u) for u in members) \
            and before_round(plan, state, side, members, forced):
        return  # FB-B20: a challenge decision taken; the round comes at the next step
    queue = queue[1:]
    state.pending[0] = ("fights", queue)
    if len(members) < 2 or not any(state.engaged(u) for u in members):
        _goto(state, COMBAT, i + 1)
        return
    before = {u: state.enemies_in_contact(u) for u in members}
    near = friends_near(plan, state, members)  # FB-B21: who sees a friend break
    charging = [u for u in members if state.charged[u] and state.fresh[u]]  # FB-B22
    result = fight_round(plan, state, members)
    for u in result.destroyed:
        clear_contacts(state, u)
    pursuing: set[int] = set()  # FB-B22: a winner pursues one broken unit, makes one move
    for b in result.broken:
        chasers = [w for w in before[b] if w in result.pursuers and w not in pursuing]
        pursuing.update(chasers)  # the kernel's order too
        state.pending.append(("pursuit", b, chasers, [], before[b]))
    for w in overruns(plan, state, members, charging, result):  # FB-B22: no fleeing unit
        state.pending.append(("pursuit", None, [w], [], []))
    for w in result.pursuers:  # a winner whose enemies are gone is free again
        clear_contacts(state, w)
    _tidy_contacts(state)
    friend_panic(plan, state, result.broken + result.destroyed, near)
    _goto(state, PURSUE if len(state.pending) > 1 else COMBAT, i + 1)


def overruns(plan, state: BattleState, members: list[int], charging: list[int],
             result) -> list[int]:
    """FB-B22: the units that may overrun — they charged into this round, in their own turn,
    and every enemy of the combat was destroyed in it (none broke)."""
    if result.broken:
        return []
    out = []
    for w in charging:
        side = plan.units[w].side
        enemies = [v for v in members if plan.units[v].side != side]
        if side == state.active and state.status[w] == HOLD \
                and all(state.status[v] == DEAD for v in enemies):
            out.append(w)
    return out


def pursue_options(plan, u: int, fleeing: int | None) -> list[Option]:
    if plan.units[u].war_machine is not None:  # FB-WM1: a war machine never pursues
        return [Option("pursue", u, "restrain", fleeing)]
    return [Option("pursue", u, "pursue", fleeing), Option("pursue", u, "restrain", fleeing)]


def _pursue(plan, state: BattleState, side: int, i: int, forced) -> None:
    """FB-C6/B7: each free winner pursues or restrains (its policy; restraining takes a
    Leadership test where the ruleset's ``restrain_test`` says, FB-B7), then the broken unit flees and is caught by a pursuit roll at least its
    flee roll; pursuers follow the flight."""
    kind, b, chasers, chosen, enemies = state.pending[1]
    if len(chosen) < len(chasers):
        w = chasers[len(chosen)]
        choice = decide(plan, state, plan.units[w].side, pursue_options(plan, w, b), forced)
        go = choice.label == "pursue"
        if not go and plan.rules.battle.restrain_test and plan.units[w].war_machine is None \
                and not ld_test(plan, state, w):
            go = True  # FB-B7: a failed test to restrain pursues
        chosen = chosen + [go]
        state.pending[1] = (kind, b, chasers, chosen, enemies)
        if len(chosen) < len(chasers):
            return
    state.pending.pop(1)
    if b is None:  # FB-B22: an overrun, straight ahead
        w = chasers[0]
        if chosen[0] and state.status[w] == HOLD:
            pursuit_move(plan, state, w, None, draw(plan.flee_pmf[w], state.rng))
        if len(state.pending) == 1:
            _goto(state, COMBAT, i)
        return
    alive = [e for e in enemies if state.on_table(e)] or enemies
    sx = sum(state.box(plan, e).centre()[0] for e in alive) / len(alive)
    sy = sum(state.box(plan, e).centre()[1] for e in alive) / len(alive)
    flight = draw(plan.flee_pmf[b], state.rng)
    rolls = [draw(plan.flee_pmf[w], state.rng) if go else None for w, go in zip(chasers, chosen)]
    caught = any(r is not None and r >= flight for r in rolls)
    fx, fy = state.box(plan, b).centre()
    flee_move(plan, state, b, (sx, sy), flight)
    if caught:
        state.status[b] = DEAD
    for w, r in zip(chasers, rolls):
        if r is not None and state.status[w] == HOLD:
            pursuit_move(plan, state, w, (fx + (fx - sx) * 10, fy + (fy - sy) * 10), r)
    if len(state.pending) == 1:
        _goto(state, COMBAT, i)


def pursuit_move(plan, state: BattleState, w: int, point, inches: int) -> None:
    """FB-B22: the pursuer turns to follow the flight (towards ``point``; an overrun, None,
    keeps its facing); an enemy it reaches with ``inches`` is charged (it lands as FB-B4,
    the combat is fought in the next turn), else it moves on as far as the way is clear."""
    if point is not None:
        advance_towards(plan, state, w, point, 0.0, free_turn=True)  # the turn only
    hit = reached_enemy(plan, state, w, inches)
    if hit is not None:
        t, face, fside, _gap = hit
        _land(plan, state, w, t, face, fside)
        state.pursuit_charge[w] = True
    elif point is None:
        straight(plan, state, w, float(inches))
    else:
        advance_towards(plan, state, w, point, inches, free_turn=True)
    state.moved[w] = True


def reached_enemy(plan, state: BattleState, w: int, reach: float):
    """FB-B22: (enemy, face, flank side, gap) of the nearest enemy not in a combat that ``w``
    could charge with a range of ``reach`` — a face's middle or end in its front arc, the
    gap from its front edge at most ``reach`` (no sight needed); None when none."""
    me = state.box(plan, w)
    a, b = me.front_segment()
    best = None
    for t in plan.sides[1 - plan.units[w].side]:
        if state.status[t] != HOLD or state.engaged(t):
            continue
        target = state.box(plan, t)
        face, fside = target.arc(*me.centre())
        c, d = target.face_segment(face, fside)
        gap = segment_distance(a, b, c, d)
        if gap > reach or gap <= 0.0:
            continue
        mid = ((c[0] + d[0]) / 2, (c[1] + d[1]) / 2)
        if not (me.in_front_arc(*mid) or me.in_front_arc(*c) or me.in_front_arc(*d)):
            continue
        if best is None or gap < best[3]:
            best = (t, face, fside, gap)
    return best


def _tidy_contacts(state: BattleState) -> None:
    for u, c in enumerate(state.contact):
        if c is not None and (state.status[u] != HOLD or state.status[c[0]] != HOLD):
            state.contact[u] = None


_STEPS = (_start, _rally, _charge, _react, _flight, _move, _magic, _shoot, _combat, _pursue, _end)
__all__ = ["play", "step", "decide", "Option", "PHASE_NAMES"]
