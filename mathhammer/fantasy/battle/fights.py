"""Close combat inside a battle (FB-B8, FB-M1..M4, FB-C1..C7): the combat engine's round.

A combat is the units linked by contacts (:mod:`mathhammer.fantasy.battle.state`). Each
combat phase every combat fights one round with the combat engine's own jitted round
(:func:`mathhammer.fantasy.kernels.combat.fight_round`) on the battle's wounds: the same tables
``fb combat`` reads, compiled once per arrangement (who touches whom on which face, who
charged) and kept in the plan's cache for every later battle.

Pursuit is the battle's own (it needs the flight's geometry, FB-B7): the round is played
with the engine's pursuit table zeroed, so a broken unit comes back as fled and the free
winners as pursuing; :mod:`mathhammer.fantasy.battle.phases` rolls flee and pursuit with
FB-C6's dice (caught when a pursuit roll is at least the flee roll — the very rule the
engine's table holds).

Sides: the combat engine's side A is the battle's side A, unless a side-A unit is fought
only in its flank or rear (its front is free): the engine expresses a free front on its
side B only, so the sides swap; when both sides have such a unit, the side-A one turns to
face its first enemy (a combat reform, FB-B8).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mathhammer.fantasy.battle.state import DEAD, FLEE, HOLD, BattleState
from mathhammer.fantasy.battle.table import FACE_NAMES, FRONT

MAX_PER_SIDE = 4  # FB-M1: the combat engine's limit


@dataclass
class FightTables:
    """One compiled arrangement: the kernel's arrays and where each unit's bodies sit."""

    order: tuple[int, ...]  # battle unit of each engine unit
    first_body: tuple[int, ...]  # engine body index of each engine unit's body 0
    args: tuple
    n_b: int
    n_g: int
    once_unit: np.ndarray  # engine unit of each group with a once-per-game attack, else -1
    labels: tuple[str, ...]


@dataclass
class RoundResult:
    """What one round did: the winner side (battle side, -1 drawn), units that broke and
    units left pursuing, units destroyed, the round's score difference (side A − side B)."""

    winner: int
    broken: list[int]
    pursuers: list[int]
    destroyed: list[int]
    diff: int


def combats(state: BattleState) -> list[list[int]]:
    """The combats: groups of units linked by contacts (each sorted, in unit order)."""
    n = len(state.status)
    parent = list(range(n))

    def find(u: int) -> int:
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    linked = set()
    for u, c in enumerate(state.contact):
        if c is None or state.status[u] != HOLD or state.status[c[0]] != HOLD:
            continue
        parent[find(u)] = find(c[0])
        linked.update((u, c[0]))
    groups: dict[int, list[int]] = {}
    for u in sorted(linked):
        groups.setdefault(find(u), []).append(u)
    return list(groups.values())


def face_taken(state: BattleState, target: int, face: int, side: int) -> bool:
    """FB-M1: each face of a unit takes one enemy unit (a flank: one per side)."""
    if face == FRONT and state.contact[target] is not None \
            and state.status[state.contact[target][0]] == HOLD:
        return True
    for v, c in enumerate(state.contact):
        if c is not None and c[0] == target and state.status[v] == HOLD and c[1] == face \
                and (face != 1 or c[2] == side):
            return True
    return False


def _orient(plan, state: BattleState, members: list[int]) -> tuple[list[int], list[int]]:
    by_side = ([u for u in members if plan.units[u].side == 0],
               [u for u in members if plan.units[u].side == 1])
    free = [any(state.contact[u] is None for u in group) for group in by_side]
    if free[0] and free[1]:
        for u in by_side[0]:  # FB-B8: a combat reform to face the first enemy touching it
            if state.contact[u] is None:
                enemy = state.enemies_in_contact(u)[0]
                _turn_to_face(plan, state, u, enemy)
        free[0] = False
    return (by_side[1], by_side[0]) if free[0] else by_side


def _turn_to_face(plan, state: BattleState, u: int, enemy: int) -> None:
    """The unit's front now touches the enemy's front (the enemy sees it as a front
    contact too; its flank bonus is gone)."""
    import math

    box = state.box(plan, enemy)
    (mx, my), (nx, ny), _a, _h = box.face(FRONT)
    state.place(u, mx, my, math.atan2(-ny, -nx))
    state.contact[u] = (enemy, FRONT, 1)
    state.contact[enemy] = (u, FRONT, 1)


def _arrangement(state: BattleState, a: list[int], b: list[int]) -> tuple:
    """What the compiled fight depends on besides who charged: the units and who touches
    which face of whom (the flank's side does not matter to the engine), and each unit's
    augment or hex this turn (FB-B30: a modified unit is another content)."""
    contacts = tuple(None if c is None else (c[0], c[1]) for c in (state.contact[u] for u in a + b))
    spells = tuple(state.spell_on[u] for u in a + b)
    if not any(x >= 0 for x in spells):
        return tuple(a), tuple(b), contacts
    return tuple(a), tuple(b), contacts, spells


def _tables(plan, state: BattleState, a: list[int], b: list[int]) -> FightTables:
    """The compiled arrangement, from the plan's cache. Who charged changes only the first
    round's tables (variant 0): a round where nobody charges takes any compiled version."""
    arrangement = _arrangement(state, a, b)
    versions = plan.fight_cache.setdefault(arrangement, {})
    charged = tuple(bool(state.charged[u] and state.fresh[u]) for u in a + b)
    ft = versions.get(charged)
    if ft is None and not any(charged) and versions:
        ft = next(iter(versions.values()))
    if ft is None:
        ft = versions[charged] = _compile(plan, state, a, b)
    return ft


def _compile(plan, state: BattleState, a: list[int], b: list[int]) -> FightTables:
    from mathhammer.errors import MathhammerError, engine_fault
    from mathhammer.fantasy.battle.spell_effects import side_in_fight
    from mathhammer.fantasy.combat.fight import compile_fight
    from mathhammer.fantasy.kernels import combat as k

    sides = []
    for mine, theirs in ((a, b), (b, a)):
        group = []
        for u in mine:
            c = state.contact[u]
            against = None if c is None or c[0] not in theirs else theirs.index(c[0])
            position = FACE_NAMES[c[1]] if against is not None else "front"
            group.append(replace(side_in_fight(plan, state, u), charged=bool(state.charged[u] and
                                                                         state.fresh[u]),
                                 position=position, against=against))
        sides.append(tuple(group))
    try:
        c, t = compile_fight(sides[0], sides[1], ruleset=plan.rules)
    except MathhammerError as err:  # the battle built this arrangement: a bug, not bad input
        raise engine_fault("the battle built a combat it cannot fight", err) from err
    order = tuple(a + b)
    b_unit = t.b_int[:, k.B_UNIT]
    first = tuple(int(np.argmax(b_unit == i)) for i in range(len(order)))
    args = list(t.kernel_args())
    args[13] = np.zeros_like(t.p_caught)  # pursuit is the battle's own (module docstring)
    once = np.array([int(t.g_int[g, k.G_UNIT]) if t.g_int[g, k.G_ONCE] == 1 else -1
                     for g in range(t.g_int.shape[0])], np.int64)
    return FightTables(order, first, tuple(args), t.b_int.shape[0], t.g_int.shape[0], once,
                       tuple(c.labels))


def fight_round(plan, state: BattleState, members: list[int]) -> RoundResult:
    """One round of the combat ``members`` (FB-C1..C6 by the combat engine)."""
    from mathhammer.fantasy.kernels import combat as k

    a, b = _orient(plan, state, members)
    if len(a) > MAX_PER_SIDE or len(b) > MAX_PER_SIDE:  # never offered as a charge
        raise AssertionError("a combat of more than four units a side")
    ft = _tables(plan, state, a, b)
    n_u = len(ft.order)
    wounds = np.zeros(ft.n_b, np.int64)
    for i, u in enumerate(ft.order):
        w = state.wounds[u]
        wounds[ft.first_body[i]: ft.first_body[i] + len(w)] = w
    status = np.zeros(n_u, np.int64)
    frenzied = np.array([int(state.frenzied[u]) for u in ft.order], np.int64)
    once = np.array([1 if o >= 0 and state.breath_used[ft.order[o]] else 0 for o in ft.once_unit],
                    np.int64)
    fresh = np.array([int(state.fresh[u]) for u in ft.order], np.int64)
    charged = np.array([int(state.charged[u] and state.fresh[u]) for u in ft.order], np.int64)
    u_int = plan.with_leaders(state, ft)
    from mathhammer.fantasy.battle.challenges import round_challenge

    chal, duel = round_challenge(state, ft, int(ft.args[11][3]))  # FB-K3/B12: this round's duel
    out = np.zeros(4, np.int64)
    work = k.round_arrays(n_u, ft.n_b, ft.n_g)[8:]  # start .. small: the scratch arrays
    args = (u_int,) + ft.args[1:11] + (chal,) + ft.args[12:]
    k.fight_round(*args, state.kstate, wounds, status, frenzied, once, fresh, charged, duel,
                  out, *work)
    broken, pursuers, destroyed = [], [], []
    for i, u in enumerate(ft.order):
        n = len(state.wounds[u])
        state.wounds[u] = [int(x) for x in wounds[ft.first_body[i]: ft.first_body[i] + n]]
        state.set_models(u, plan.models_alive(u, state.wounds[u]))
        state.frenzied[u] = bool(frenzied[i])
        state.fresh[u] = False
        st = int(status[i])
        if st in (k.DESTROYED, k.CAUGHT) or not plan.unit_alive(u, state.wounds[u]):
            state.status[u] = DEAD
            destroyed.append(u)
        elif st == k.FLED:
            state.status[u] = FLEE
            broken.append(u)
        elif st == k.PURSUED:
            pursuers.append(u)
    for g, o in enumerate(ft.once_unit):
        if o >= 0 and once[g]:
            state.breath_used[ft.order[o]] = True
    diff = int(out[k.R_DIFF])
    engine_a = plan.units[ft.order[0]].side
    winner = -1 if diff == 0 else (engine_a if diff > 0 else 1 - engine_a)
    side_diff = diff if engine_a == 0 else -diff
    for u in broken + destroyed:
        if plan.units[u].standard:
            state.standard_lost[u] = True  # FB-B9: a standard taken in combat
    return RoundResult(winner, broken, pursuers, destroyed, side_diff)
