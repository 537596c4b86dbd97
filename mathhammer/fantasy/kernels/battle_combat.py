"""One round of one combat inside the battle kernel (FB-B8, FB-M1..M4): the combat
kernel's own :func:`~mathhammer.fantasy.kernels.combat.fight_round` on the battle's wounds.

The rules are :mod:`mathhammer.fantasy.battle.fights`' (its docstring): the engine's
side A is the battle's side A unless a side-A unit has a free front (then the sides
swap; both sides with one: side A's turns to face its first enemy); the compiled
arrangement is looked up by its code (a miss when the run has not compiled it yet);
the pursuit table is zero, so broken units come back fled and free winners pursuing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.battle_actions import (
    leader,
)
from mathhammer.fantasy.kernels.battle_challenge import round_challenge
from mathhammer.fantasy.kernels.battle_geometry import FRONT, face_segment
from mathhammer.fantasy.kernels.battle_spells import MISS_EFFECTS, effects_code, spell_on
from mathhammer.fantasy.kernels.battle_state import (
    DEAD,
    F_BSB_RANGE,
    F_GENERAL_RANGE,
    FLEE,
    HOLD,
    MISS,
    MISS_FIGHT,
    OK,
    R_BSB_ON,
    R_GENERAL_ON,
    ST_BREATH,
    ST_CF,
    ST_CHARGED,
    ST_CS,
    ST_CT,
    ST_FRENZIED,
    ST_FRESH,
    ST_MODELS,
    ST_STATUS,
    ST_STDLOST,
    UI_BSB,
    UI_BSB_BODY,
    UI_GENERAL,
    UI_GENERAL_BODY,
    UI_LD,
    UI_NB,
    UI_SIDE,
    UI_STANDARD,
    box,
    face_to,
    missed,
    models_alive,
    unit_alive,
    unit_centre,
)
from mathhammer.fantasy.kernels.combat import (
    CAUGHT,
    DESTROYED,
    FLED,
    PURSUED,
    R_DIFF,
    U_GENERAL_LD,
    U_REROLL,
    fight_round,
)
from mathhammer.kernels.borrowed import item, window, window2

# result array of a round: [winner side or -1, diff A - B, n broken, n pursuers, n destroyed,
# then the three lists, 8 each]
RES_WINNER, RES_DIFF, RES_NB, RES_NP, RES_ND = range(5)
RES_BROKEN, RES_PURSUERS, RES_DESTROYED = 5, 13, 21
NRES = 29


@njit(cache=True, nogil=True, error_model="numpy")
def fight_code(order, n, n_a, st, charged_too):
    """The code of an arrangement: engine units in order, side A's count, each unit's contact
    (target, face) and — when ``charged_too`` — who charged into this round."""
    h = np.uint64(1469598103934665603)
    prime = np.uint64(1099511628211)
    h = (h ^ np.uint64(n_a + 1)) * prime
    for i in range(n):
        u = order[i]
        t = st[u, ST_CT]
        face = st[u, ST_CF] if t >= 0 else 0
        charged = 1 if (charged_too and st[u, ST_CHARGED] == 1 and st[u, ST_FRESH] == 1) else 0
        for x in (u + 1, t + 2, face + 1, charged + 1):
            h = (h ^ np.uint64(x)) * prime
    return np.int64(h >> np.uint64(1))


@njit(cache=True, nogil=True, error_model="numpy")
def _turn_to_face(B, S, u, enemy):
    ui, uf = B.ui, B.uf
    pos, st = S.pos, S.ust
    them = B.b2
    box(ui, uf, pos, st, enemy, them)
    _a, _b, _c, _d, mx, my, nx, ny = face_segment(them,
                                                  FRONT, 1)
    pos[u, 0], pos[u, 1] = mx, my
    face_to(pos, u, math.atan2(-ny, -nx))
    st[u, ST_CT], st[u, ST_CF], st[u, ST_CS] = enemy, FRONT, 1
    st[enemy, ST_CT], st[enemy, ST_CF], st[enemy, ST_CS] = u, FRONT, 1


@njit(cache=True, nogil=True, error_model="numpy")
def orient(B, S, members, count, order):
    """Engine order (side A's units, then side B's, each in unit order); returns n_a."""
    ui = B.ui
    st = S.ust
    free_a, free_b = 0, 0  # a unit of side A / B with a free front
    for k in range(count):
        u = members[k]
        if st[u, ST_CT] < 0:
            if ui[u, UI_SIDE] == 0:
                free_a = 1
            else:
                free_b = 1
    if free_a == 1 and free_b == 1:
        for k in range(count):  # FB-B8: side A's free front turns to its first enemy
            u = members[k]
            if ui[u, UI_SIDE] == 0 and st[u, ST_CT] < 0:
                for v in range(st.shape[0]):
                    if st[v, ST_CT] == u and st[v, ST_STATUS] == HOLD:
                        _turn_to_face(B, S, u, v)
                        break
        free_a = 0
    first = 1 if free_a == 1 else 0
    n = 0
    for side in (first, 1 - first):
        for u in range(st.shape[0]):
            for k in range(count):
                if members[k] == u and ui[u, UI_SIDE] == side:
                    order[n] = u
                    n += 1
    n_a = 0
    for k in range(n):
        if ui[order[k], UI_SIDE] == first:
            n_a += 1
    return n_a


@njit(cache=True, nogil=True, error_model="numpy")
def _lookup(B, order, n, n_a, st, g):
    anyone = False
    for k in range(n):
        u = order[k]
        if st[u, ST_CHARGED] == 1 and st[u, ST_FRESH] == 1:
            anyone = True
    fights, arrangements = B.fights, B.arrangements
    code = effects_code(fight_code(order, n, n_a, st, True), order, n, g)  # FB-B30
    if code in fights:
        return fights[code]
    if not anyone:
        code = effects_code(fight_code(order, n, n_a, st, False), order, n, g)
        if code in arrangements:
            return arrangements[code]
    return -1


@njit(cache=True, nogil=True, error_model="numpy")
def round_scratch(count, n_u, columns, n_b, n_g):
    """Items of ``B.cr`` a round of this fight cuts its scratch from (:func:`combat_round`):
    ``count`` battle units, the fight's (n_u, columns) unit table, n_b bodies, n_g groups."""
    return 5 * count + n_u * columns + 3 * n_b + 7 * max(n_g, 1) + 18


@njit(cache=True, nogil=True, error_model="numpy")
def combat_round(B, S, members, count, res):
    """One round of the combat ``members[:count]``; fills ``res`` (see RES_*).

    The fight's tables are read borrowed from the Battle's lists and the round's arrays cut
    from its scratch ``B.cr`` (compile.KernelBattle keeps it as long as any entered fight
    needs: round_scratch): a round allocates nothing and counts no references."""
    ui, bodies, ri, rf = B.ui, B.bodies, B.ri, B.rf
    st, wounds = S.ust, S.wounds
    buf = B.cr
    if count > buf.shape[0]:  # compile.scratch starts it far larger than a combat: never
        raise RuntimeError("a combat round's scratch is smaller than its combat")
    order = window(buf, 0, count)
    n_a = orient(B, S, members, count, order)
    index = _lookup(B, order, count, n_a, st, S.g)
    if index < 0:
        miss = B.miss
        miss[:] = -1
        miss[0], miss[1], miss[2] = MISS_FIGHT, count, n_a
        for k in range(count):
            u = order[k]
            miss[3 + 4 * k] = u
            miss[4 + 4 * k] = st[u, ST_CT]
            miss[5 + 4 * k] = st[u, ST_CF] if st[u, ST_CT] >= 0 else 0
            miss[6 + 4 * k] = 1 if (st[u, ST_CHARGED] == 1 and st[u, ST_FRESH] == 1) else 0
            miss[MISS_EFFECTS + k] = spell_on(S.g, u) + 1  # FB-B30: its augment or hex
        if not missed(B):
            return MISS
        # the probe's placeholder: a round where nobody is hurt (next round: not fresh)
        res[RES_WINNER], res[RES_DIFF], res[RES_NB], res[RES_NP], res[RES_ND] = -1, 0, 0, 0, 0
        for k in range(count):
            st[order[k], ST_FRESH] = 0
        return OK
    first = item(B.f_first, index)
    once_unit = item(B.f_once, index)
    u_table = item(B.fu_int, index)
    b_int = item(B.fb_int, index)
    g_int = item(B.fg_int, index)
    n_u, columns = u_table.shape[0], u_table.shape[1]
    n_b, n_g = b_int.shape[0], g_int.shape[0]
    g1 = max(n_g, 1)
    at = count  # the windows are cut first and filled once the buffer is known to hold them
    u_int = window2(buf, at, n_u, columns)
    at += n_u * columns
    engine_wounds = window(buf, at, n_b)
    status = window(buf, at + n_b, count)
    frenzied = window(buf, at + n_b + count, count)
    fresh = window(buf, at + n_b + 2 * count, count)
    charged = window(buf, at + n_b + 3 * count, count)
    at += n_b + 4 * count
    once = window(buf, at, g1)
    duel = window(buf, at + g1, 2)
    chal = window(buf, at + g1 + 2, 4)  # FB-K3/B12: this round's challenge, from the units' duel
    out = window(buf, at + g1 + 6, 4)
    at += g1 + 10
    start, pending = window(buf, at, n_b), window(buf, at + n_b, n_b)
    at += 2 * n_b
    keys, active = window(buf, at, g1), window(buf, at + g1, g1)
    geo = window2(buf, at + 2 * g1, g1, 4)
    small = window(buf, at + 6 * g1, 8)
    end = at + 6 * g1 + 8
    # Python sized the buffer by round_scratch (KernelBattle._enter): the same layout, or stop
    if end != round_scratch(count, n_u, columns, n_b, n_g) or end > buf.shape[0]:
        raise RuntimeError("a combat round's scratch does not hold its fight")
    for i in range(count, end):
        buf[i] = 0
    for i in range(n_u):
        for c in range(columns):
            u_int[i, c] = u_table[i, c]
    for k in range(count):
        u = order[k]
        for b in range(ui[u, UI_NB]):
            engine_wounds[first[k] + b] = wounds[u, b]
        frenzied[k] = st[u, ST_FRENZIED]
        fresh[k] = st[u, ST_FRESH]
        charged[k] = 1 if (st[u, ST_CHARGED] == 1 and st[u, ST_FRESH] == 1) else 0
        side = ui[u, UI_SIDE]
        g = leader(B, S, side, UI_GENERAL, UI_GENERAL_BODY)
        if g >= 0 and ri[R_GENERAL_ON] == 1 and not _in(order, count, g) \
                and _close(B, S, g, u, rf[F_GENERAL_RANGE]):
            u_int[k, U_GENERAL_LD] = ui[g, UI_LD]
        s = leader(B, S, side, UI_BSB, UI_BSB_BODY)
        if s >= 0 and ri[R_BSB_ON] == 1 and not _in(order, count, s) \
                and _close(B, S, s, u, rf[F_BSB_RANGE]):
            u_int[k, U_REROLL] = 1
    for g in range(once_unit.shape[0]):
        if once_unit[g] >= 0 and st[order[once_unit[g]], ST_BREATH] == 1:
            once[g] = 1
    duel[1] = -1
    round_challenge(S, order, count, first, item(B.fchal, index)[3], chal, duel)
    fight_round(u_int, b_int, g_int, item(B.fg_key, index), item(B.fg_slot, index),
                item(B.fg_pref, index), (B.blocks, item(B.fg_block, index)),
                item(B.fg_fall, index),
                item(B.fg_percdf, index), item(B.fg_natt, index), item(B.fe_pair, index), chal,
                item(B.fp_ld, index), item(B.fp_caught, index), item(B.fp_instab, index),
                S.kstate, engine_wounds, status, frenzied, once, fresh, charged, duel, out,
                start, pending, keys, active, geo, small)
    res[RES_NB], res[RES_NP], res[RES_ND] = 0, 0, 0
    for k in range(count):
        u = order[k]
        for b in range(ui[u, UI_NB]):
            wounds[u, b] = engine_wounds[first[k] + b]
        st[u, ST_MODELS] = models_alive(bodies, ui, u, wounds)
        st[u, ST_FRENZIED] = frenzied[k]
        st[u, ST_FRESH] = 0
        code = status[k]
        if code == DESTROYED or code == CAUGHT or not unit_alive(bodies, ui, u, wounds):
            st[u, ST_STATUS] = DEAD
            res[RES_DESTROYED + res[RES_ND]] = u
            res[RES_ND] += 1
            if ui[u, UI_STANDARD] == 1:
                st[u, ST_STDLOST] = 1
        elif code == FLED:
            st[u, ST_STATUS] = FLEE
            res[RES_BROKEN + res[RES_NB]] = u
            res[RES_NB] += 1
            if ui[u, UI_STANDARD] == 1:
                st[u, ST_STDLOST] = 1
        elif code == PURSUED:
            res[RES_PURSUERS + res[RES_NP]] = u
            res[RES_NP] += 1
    for g in range(once_unit.shape[0]):
        if once_unit[g] >= 0 and once[g] == 1:
            st[order[once_unit[g]], ST_BREATH] = 1
    diff = out[R_DIFF]
    engine_a = ui[order[0], UI_SIDE]
    if diff == 0:
        res[RES_WINNER] = -1
    else:
        res[RES_WINNER] = engine_a if diff > 0 else 1 - engine_a
    res[RES_DIFF] = diff if engine_a == 0 else -diff
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _in(order, count, u):
    for k in range(count):
        if order[k] == u:
            return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def _close(B, S, a, b, reach):
    ui, uf = B.ui, B.uf
    pos, st = S.pos, S.ust
    ax, ay = unit_centre(ui, uf, pos, st, a)
    bx, by = unit_centre(ui, uf, pos, st, b)
    return math.hypot(ax - bx, ay - by) <= reach
