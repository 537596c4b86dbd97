"""The battle kernel's turn sequence (FB-B3): one step at a time, decisions first.

The steps of :mod:`mathhammer.fantasy.battle.phases` (its docstring states the sequence)
on the arrays of :mod:`mathhammer.fantasy.kernels.battle_state`: ``step(B, S, forced, mode)``
plays the step the program counter points at and returns ``OK``, ``MISS`` (a table is
missing: Python builds it and the battle is replayed) or ``NEED`` (a best-response
decision: the caller plays the rollouts, :mod:`mathhammer.fantasy.kernels.battle_play`, then
calls the step again with ``forced``). ``mode`` 1 is a rollout: a best-response side
then decides greedily, and nothing is counted.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.battle_actions import (
    OI_CODE,
    OI_FACE,
    OI_SIDE,
    OI_SLOT,
    OI_TARGET,
    apply_move,
    box_distance,
    charge_options,
    clear_contacts,
    combat_members,
    engaged,
    fall_short,
    flee_from_nearest,
    flee_move,
    land,
    ld_test,
    nearest_enemy,
    panic_tests,
    pursuit_move,
    reaction_options,
    seen,
    shoot_options,
    volley,
)
from mathhammer.fantasy.kernels.battle_challenge import (
    answer_options,
    friend_panic,
    friends_near,
    issue_options,
    set_duel,
    tidy_duels,
)
from mathhammer.fantasy.kernels.battle_combat import (
    NRES,
    RES_BROKEN,
    RES_DESTROYED,
    RES_NB,
    RES_ND,
    RES_NP,
    RES_PURSUERS,
    combat_round,
)
from mathhammer.fantasy.kernels.battle_geometry import centre
from mathhammer.fantasy.kernels.battle_magic import magic_step
from mathhammer.fantasy.kernels.battle_state import (
    ANY,
    BEST_RESPONSE,
    DEAD,
    F_MARCH_BLOCK,
    FLED,
    FLEE,
    G_DONE,
    G_CB,
    G_CSTAGE,
    G_CU,
    G_CV,
    G_FIRST,
    G_INDEX,
    G_NCOMB,
    G_NPURS,
    G_PFACE,
    G_PHASE,
    G_PSIDE,
    G_PT,
    G_PU,
    G_SEAT,
    G_TURN,
    GREEDY,
    HOLD,
    MISS,
    NEED,
    NONE,
    O_ANSWER,
    O_CHALLENGE,
    O_CHARGE,
    O_MOVE,
    O_PURSUE,
    O_REACTION,
    O_SHOOT,
    OK,
    R_BR_KINDS,
    R_FIRST,
    R_HALF_FAILED,
    R_MARCH_MULT,
    R_POLICY_A,
    R_POLICY_B,
    R_RALLY_DOUBLE_ONE,
    R_RESTRAIN_TEST,
    R_TURNS,
    SCRIPTED,
    ST_CHARGED,
    ST_CT,
    ST_FRESH,
    ST_HOLDTURN,
    ST_MARCHED,
    ST_MODELS,
    ST_MOVED,
    ST_PURSUIT,
    ST_REACTED,
    ST_STATUS,
    UI_M,
    UI_MACHINE,
    UI_MODELS,
    UI_SIDE,
    box,
    face_to,
    sample,
    tidy_contacts,
    unit_centre,
)
from mathhammer.fantasy.kernels.battle_values import greedy_choice, option_values
from mathhammer.kernels.dice import d6, uniform

START, RALLY, CHARGE, REACT, FLIGHT, MOVE, MAGIC, SHOOT, COMBAT, PURSUE, END = range(11)
KIND_OF_PHASE = (-1, -1, 0, 1, -1, 2, -1, 3, -1, 4, -1)


# ---- decisions -----------------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def policy_of(B, side, mode):
    ri = B.ri
    policy = ri[R_POLICY_A] if side == 0 else ri[R_POLICY_B]
    if mode == 1 and policy == BEST_RESPONSE:
        return GREEDY
    return policy


@njit(cache=True, nogil=True, error_model="numpy")
def decide(B, S, side, kind, u, n, forced, mode):
    """(the chosen option, OK / NEED / MISS) — the policy of ``side`` picks."""
    if forced >= 0:
        choice = forced
    elif n == 1:  # most decisions: no array read (each read is a reference count)
        return 0, OK
    else:
        oi, of = B.opt_i, B.opt_f
        policy = policy_of(B, side, mode)
        if policy == BEST_RESPONSE and (B.ri[R_BR_KINDS] >> kind) & 1 == 1:
            need = B.need
            need[0], need[1], need[2], need[3] = side, kind, u, n
            return 0, NEED
        if policy == SCRIPTED:
            choice = scripted_choice(B, S, kind, u, n, oi, of)
        else:
            values = B.vals
            if option_values(B, S, kind, u, n, oi, of, values) == MISS:
                return 0, MISS
            choice = greedy_choice(values, n)
            first = B.first
            # a best response's own greedy steps (its moves) are not its first decision
            if mode == 0 and first[side, 0] == 0 and policy == GREEDY:
                first[side, 0], first[side, 1], first[side, 2], first[side, 3] = 1, kind, u, n
                for k in range(n):
                    first[side, 4 + k] = values[k]
                    first[side, 4 + 16 + k] = 0.0
                    first[side, 4 + 32 + k] = oi[k, OI_SLOT]
    if mode == 0 and n > 1:
        vocab = B.vocab
        B.decisions[vocab[u, kind] + B.opt_i[choice, OI_SLOT]] += 1
    return choice, OK


@njit(cache=True, nogil=True, error_model="numpy")
def scripted_choice(B, S, kind, u, n, oi, of):
    """The deployment file's orders (defaults: charge the first enemy allowed, hold when
    charged, advance on the nearest, shoot the nearest, pursue)."""
    orders = B.orders
    if kind == 0:
        order = orders[u, O_CHARGE]
        if order == NONE:
            return 0
        if order == ANY:
            return 1 if n > 1 else 0
        for k in range(1, n):
            if oi[k, OI_TARGET] == order:
                return k
        return 0
    if kind == 1:
        wanted = orders[u, O_REACTION]
        return wanted if wanted < n else 0
    if kind == 2:
        order = orders[u, O_MOVE]  # 0 advance, 1 hold, 2 retreat
        if order == 0:
            return 1 if n > 2 else 0
        if order == 2:
            return n - 1 if n > 1 else 0
        return 0
    if kind == 3:
        order = orders[u, O_SHOOT]
        if order == NONE or n == 1:
            return 0
        if order == ANY:
            best = 1
            for k in range(2, n):
                if of[k, 0] < of[best, 0]:
                    best = k
            return best
        for k in range(1, n):
            if oi[k, OI_TARGET] == order:
                return k
        return 0
    if kind >= 5:  # FB-B20: the challenge and answer orders (O_CHALLENGE, O_ANSWER)
        return scripted_challenge(B, kind, u, n, oi)
    return 0 if orders[u, O_PURSUE] == 1 else 1


@njit(cache=True, nogil=True, error_model="numpy")
def scripted_challenge(B, kind, u, n, oi):
    """challenge: NONE, ANY (the first) or the k-th able model (slot 1 + k); answer: 0
    accept with the first able model, 1 refuse."""
    order = B.orders[u, O_CHALLENGE] if kind == 5 else B.orders[u, O_ANSWER]
    if kind == 5:
        if order == NONE:
            return 0
        if order == ANY:
            return 1 if n > 1 else 0
        for k in range(1, n):
            if oi[k, OI_SLOT] == order:
                return k
        return 0
    if order == 1:
        for k in range(n):
            if oi[k, OI_CODE] == 2:
                return k
    return 0


# ---- the step machine ------------------------------------------------------------------------
# inlined where it is called (docs/design.md, Kernels): a dispatcher of its own would
# generate machine code for every phase once more, ~10 s of a cold compile
@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def step(B, S, forced, mode):
    g = S.g
    phase, i = g[G_PHASE], g[G_INDEX]
    side = g[G_FIRST] if g[G_SEAT] == 0 else 1 - g[G_FIRST]
    if phase == START:
        return _start(B, S)
    if phase == RALLY:
        return _rally(B, S, side, i)
    if phase == CHARGE:
        return _charge(B, S, side, i, forced, mode)
    if phase == REACT:
        return _react(B, S, side, i, forced, mode)
    if phase == FLIGHT:
        return _flight(B, S, side, i)
    if phase == MOVE:
        return _move(B, S, side, i, forced, mode)
    if phase == MAGIC:  # FB-B12: kernels.battle_magic
        return magic_step(B, S, side, i, forced, mode)
    if phase == SHOOT:
        return _shoot(B, S, side, i, forced, mode)
    if phase == COMBAT:
        return _combat(B, S, side, i, forced, mode)
    if phase == PURSUE:
        return _pursue(B, S, side, i, forced, mode)
    return _end(B, S)


@njit(cache=True, nogil=True, error_model="numpy")
def _goto(g, phase, index):
    g[G_PHASE], g[G_INDEX] = phase, index


@njit(cache=True, nogil=True, error_model="numpy")
def _next_unit(B, g, side, i, phase, after):
    if i + 1 < B.nside[side]:
        _goto(g, phase, i + 1)
    else:
        _goto(g, after, 0)


@njit(cache=True, nogil=True, error_model="numpy")
def _start(B, S):
    ri = B.ri
    st, g = S.ust, S.g
    if g[G_TURN] == 1 and g[G_SEAT] == 0:
        if ri[R_FIRST] == 2:  # DICE-6: a fair roll-off
            g[G_FIRST] = 0 if uniform(S.kstate) < 0.5 else 1
        else:
            g[G_FIRST] = ri[R_FIRST]
    for u in range(st.shape[0]):
        st[u, ST_CHARGED] = st[u, ST_PURSUIT]  # FB-B22: a pursuit's charge is fought now
        st[u, ST_PURSUIT] = 0
        st[u, ST_MOVED] = 0
        st[u, ST_MARCHED] = 0
        st[u, ST_REACTED] = 0
        st[u, ST_HOLDTURN] = 0
    _goto(g, RALLY, 0)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _end(B, S):
    ri, sides, nside = B.ri, B.sides, B.nside
    st, g, hist = S.ust, S.g, S.hist
    if g[G_SEAT] == 0:
        g[G_SEAT] = 1
        _goto(g, START, 0)
        return OK
    turn = g[G_TURN]
    for u in range(st.shape[0]):
        hist[turn - 1, u] = st[u, ST_STATUS]
    gone = False
    for s in range(2):
        all_gone = True
        for k in range(nside[s]):
            if st[sides[s, k], ST_STATUS] == HOLD or st[sides[s, k], ST_STATUS] == FLEE:
                all_gone = False
        gone = gone or all_gone
    if turn >= ri[R_TURNS] or gone:
        for t in range(turn, ri[R_TURNS]):
            for u in range(st.shape[0]):
                hist[t, u] = st[u, ST_STATUS]
        g[G_DONE] = 1
        return OK
    g[G_TURN] = turn + 1
    g[G_SEAT] = 0
    _goto(g, START, 0)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _rally(B, S, side, i):
    st, g = S.ust, S.g
    u = B.sides[side, i]
    if st[u, ST_STATUS] == FLEE:
        ui, uf, ri = B.ui, B.uf, B.ri  # read only here: each read is a reference count
        pos = S.pos
        if st[u, ST_MODELS] * 4 < ui[u, UI_MODELS] and ri[R_RALLY_DOUBLE_ONE] == 1:
            rallied = d6(S.kstate) == 1 and d6(S.kstate) == 1
        else:
            rallied = ld_test(B, S, u)
        if rallied:  # FB-G4, FB-B3: faces the nearest enemy and holds this turn
            st[u, ST_STATUS] = HOLD
            st[u, ST_HOLDTURN] = 1
            e = nearest_enemy(B, S, u)
            if e >= 0:
                me = B.b1
                box(ui, uf, pos, st, u, me)
                cx, cy = centre(me)
                ex, ey = unit_centre(ui, uf, pos, st, e)
                theta = math.atan2(ey - cy, ex - cx)
                face_to(pos, u, theta)
                pos[u, 0] = cx + pos[u, 3] * me[4] / 2
                pos[u, 1] = cy + pos[u, 4] * me[4] / 2
    _next_unit(B, g, side, i, RALLY, CHARGE)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _charge(B, S, side, i, forced, mode):
    sides = B.sides
    g, gap = S.g, S.gap
    u = sides[side, i]
    oi, of = B.opt_i, B.opt_f
    n = charge_options(B, S, u, oi, of)
    choice, status = decide(B, S, side, 0, u, n, forced, mode)
    if status != OK:
        return status
    if oi[choice, OI_CODE] == 0:
        _next_unit(B, g, side, i, CHARGE, FLIGHT)
        return OK
    g[G_PU], g[G_PT], g[G_PFACE], g[G_PSIDE] = u, oi[choice, OI_TARGET], oi[choice, OI_FACE], \
        oi[choice, OI_SIDE]
    gap[0] = of[choice, 0]
    _goto(g, REACT, i)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _react(B, S, side, i, forced, mode):
    ui, uf, ri = B.ui, B.uf, B.ri
    ch_range, ch_move, ch_cum, ch_n, fl_val, fl_cum, fl_n = B.ch_range, B.ch_move, B.ch_cum, B.ch_n, B.fl_val, B.fl_cum, B.fl_n
    pos, st, g = S.pos, S.ust, S.g
    u, t, face, fside, gap = g[G_PU], g[G_PT], g[G_PFACE], g[G_PSIDE], S.gap[0]
    oi, of = B.opt_i, B.opt_f
    n = reaction_options(B, S, u, t, face, fside, gap, oi, of)
    choice, status = decide(B, S, 1 - side, 1, t, n, forced, mode)
    if status != OK:
        return status
    code = oi[choice, OI_CODE]
    st[t, ST_REACTED] = 1
    st[u, ST_CHARGED] = 1
    if code == 2:
        me = B.b1
        box(ui, uf, pos, st, t, me)
        ux, uy = unit_centre(ui, uf, pos, st, u)
        _ok, cover = seen(B, S, t, u, me[0], me[1], ux, uy)
        if volley(B, S, t, u, gap, cover, True) == MISS:
            return MISS
        if st[u, ST_STATUS] != HOLD:
            _next_unit(B, g, side, i, CHARGE, FLIGHT)
            return OK
    r = uniform(S.kstate)
    k = 0
    while k < ch_n[u] - 1 and r >= ch_cum[u, k]:
        k += 1
    reach, move = ch_range[u, k], ch_move[u, k]
    if ri[R_HALF_FAILED] == 1:
        move = -1.0
    if code == 1:
        flight = sample(fl_val[t], fl_cum[t], fl_n[t], S.kstate)
        sx, sy = unit_centre(ui, uf, pos, st, u)
        flee_move(B, S, t, sx, sy, flight)
        if reach >= gap + flight:  # FB-G2: caught and destroyed
            st[t, ST_STATUS] = DEAD
            land(B, S, u, t, face, fside, False)
        else:
            fall_short(B, S, u, t, face, fside, gap, move)
    elif reach >= gap:
        land(B, S, u, t, face, fside, True)
    else:
        fall_short(B, S, u, t, face, fside, gap, move)
    _next_unit(B, g, side, i, CHARGE, FLIGHT)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _flight(B, S, side, i):
    sides = B.sides
    st, g = S.ust, S.g
    u = sides[side, i]
    if st[u, ST_STATUS] == FLEE and st[u, ST_REACTED] == 0:
        flee_from_nearest(B, S, u)
    _next_unit(B, g, side, i, FLIGHT, MOVE)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def move_options(B, S, u, oi, of):
    """0 hold, then advance on each of the three nearest enemies, then step back."""
    ui, st = B.ui, S.ust
    oi[0, OI_TARGET], oi[0, OI_CODE], oi[0, OI_SLOT] = -1, 0, 0
    if st[u, ST_STATUS] != HOLD or engaged(st, u) or st[u, ST_CHARGED] == 1 \
            or st[u, ST_HOLDTURN] == 1 or ui[u, UI_M] <= 0:
        return 1
    # read past the early return, as most units take it: each read is a reference count
    uf, sides, nside = B.uf, B.sides, B.nside
    pos = S.pos
    e = 1 - ui[u, UI_SIDE]
    me, them = B.b1, np.zeros(7)
    box(ui, uf, pos, st, u, me)
    dist = np.full(nside[e], 1e300)
    for k in range(nside[e]):
        t = sides[e, k]
        if st[t, ST_STATUS] == HOLD or st[t, ST_STATUS] == FLEE:
            box(ui, uf, pos, st, t, them)
            dist[k] = box_distance(me, them, B.cp, B.cq)
    n = 1
    for _ in range(3):
        best = -1
        for k in range(nside[e]):
            if dist[k] < 1e299 and (best < 0 or dist[k] < dist[best]):
                best = k
        if best < 0:
            break
        oi[n, OI_TARGET], oi[n, OI_CODE], oi[n, OI_SLOT] = sides[e, best], 1, 1 + best
        dist[best] = 1e300
        n += 1
    oi[n, OI_TARGET], oi[n, OI_CODE], oi[n, OI_SLOT] = -1, 2, 1 + nside[e]
    return n + 1


@njit(cache=True, nogil=True, error_model="numpy")
def _move(B, S, side, i, forced, mode):
    sides, ri, rf = B.sides, B.ri, B.rf
    g = S.g
    u = sides[side, i]
    oi, of = B.opt_i, B.opt_f
    n = move_options(B, S, u, oi, of)
    choice, status = decide(B, S, side, 2, u, n, forced, mode)
    if status != OK:
        return status
    apply_move(B, S, u, oi[choice, OI_CODE], oi[choice, OI_TARGET], rf[F_MARCH_BLOCK],
               ri[R_MARCH_MULT])
    _next_unit(B, g, side, i, MOVE, MAGIC)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _shoot(B, S, side, i, forced, mode):
    sides, nside = B.sides, B.nside
    g = S.g
    u = sides[side, i]
    oi, of = B.opt_i, B.opt_f
    n = shoot_options(B, S, u, oi, of)
    choice, status = decide(B, S, side, 3, u, n, forced, mode)
    if status != OK:
        return status
    if oi[choice, OI_CODE] == 1:
        if volley(B, S, u, oi[choice, OI_TARGET], of[choice, 0], oi[choice, 4],
                  False) == MISS:
            return MISS
    if i + 1 < nside[side]:
        _goto(g, SHOOT, i + 1)
    else:
        panic_tests(B, S, 1 - side)
        _goto(g, COMBAT, 0)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _list_combats(S):
    """This phase's combats into comb (row: count, members in unit order)."""
    st, g, comb = S.ust, S.g, S.comb
    n = st.shape[0]
    taken = np.zeros(n, np.int64)
    members = np.empty(n, np.int64)
    count = 0
    for u in range(n):
        if taken[u] == 1 or st[u, ST_STATUS] != HOLD or not engaged(st, u):
            continue
        m = combat_members(st, u, members)
        comb[count, 0] = m
        k = 0
        for v in range(n):
            for j in range(m):
                if members[j] == v:
                    comb[count, 1 + k] = v
                    taken[v] = 1
                    k += 1
        count += 1
    g[G_NCOMB] = count


@njit(cache=True, nogil=True, error_model="numpy")
def _combat(B, S, side, i, forced, mode):
    st, g, comb, purs = S.ust, S.g, S.comb, S.purs
    if i == 0 and g[G_CSTAGE] == 0:
        _list_combats(S)
        g[G_NPURS] = 0
    if i >= g[G_NCOMB]:
        _goto(g, END, 0)
        return OK
    members = np.empty(comb[i, 0], np.int64)
    count = 0
    for k in range(comb[i, 0]):
        u = comb[i, 1 + k]
        if st[u, ST_STATUS] == HOLD:
            members[count] = u
            count += 1
    fights = False
    for k in range(count):
        fights = fights or engaged(st, members[k])
    if count < 2 or not fights:
        _goto(g, COMBAT, i + 1)
        return OK
    again, status = _challenges(B, S, side, members, count, forced, mode)
    if status != OK:
        return status
    if again:
        return OK  # FB-B20: a challenge decision taken; the round comes at the next step
    before = np.full((count, 4), -1, np.int64)  # the enemies each touched before the round
    for k in range(count):
        u, m = members[k], 0
        t = st[u, ST_CT]
        if t >= 0 and st[t, ST_STATUS] == HOLD:
            before[k, 0] = t
            m = 1
        for v in range(st.shape[0]):
            if st[v, ST_CT] == u and st[v, ST_STATUS] == HOLD and v != t and m < 4:
                before[k, m] = v
                m += 1
    near = np.zeros((count, st.shape[0]), np.int64)
    friends_near(B, S, members, count, near)  # FB-B21: who sees a friend break
    charging = np.zeros(count, np.int64)  # FB-B22: who charged into this round
    for k in range(count):
        u = members[k]
        charging[k] = 1 if st[u, ST_CHARGED] == 1 and st[u, ST_FRESH] == 1 else 0
    res = np.zeros(NRES, np.int64)
    if combat_round(B, S, members, count, res) == MISS:
        return MISS
    for k in range(res[RES_ND]):
        clear_contacts(st, res[RES_DESTROYED + k])
    pursuing = np.zeros(st.shape[0], np.int64)  # FB-B22: a winner pursues one broken unit
    for k in range(res[RES_NB]):
        b = res[RES_BROKEN + k]
        row = purs[g[G_NPURS]]
        row[:] = -1
        row[0], row[1], row[6], row[7] = b, 0, 0, 0
        for j in range(count):
            if members[j] != b:
                continue
            ne = 0
            for e in range(4):
                if before[j, e] >= 0:
                    row[11 + ne] = before[j, e]
                    ne += 1
                    for p in range(res[RES_NP]):
                        if res[RES_PURSUERS + p] == before[j, e] and row[1] < 4 \
                                and pursuing[before[j, e]] == 0:
                            row[2 + row[1]] = before[j, e]
                            row[1] += 1
                            pursuing[before[j, e]] = 1
            row[10] = ne
        g[G_NPURS] += 1
    if res[RES_NB] == 0:
        _queue_overruns(B, S, side, members, count, charging)
    for k in range(res[RES_NP]):
        clear_contacts(st, res[RES_PURSUERS + k])
    tidy_contacts(st)
    lost = np.empty(res[RES_NB] + res[RES_ND], np.int64)
    for k in range(res[RES_NB]):
        lost[k] = res[RES_BROKEN + k]
    for k in range(res[RES_ND]):
        lost[res[RES_NB] + k] = res[RES_DESTROYED + k]
    friend_panic(B, S, lost, lost.shape[0], members, count, near)
    _goto(g, PURSUE if g[G_NPURS] > 0 else COMBAT, i + 1)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _queue_overruns(B, S, active, members, count, charging):
    """FB-B22 (phases.overruns): a unit that charged into this round, in its own turn, every
    enemy of the combat destroyed, may overrun: a pursuit row with no fleeing unit (-1)."""
    ui = B.ui
    st, g, purs = S.ust, S.g, S.purs
    for k in range(count):
        w = members[k]
        side = ui[w, UI_SIDE]
        if charging[k] == 0 or side != active or st[w, ST_STATUS] != HOLD:
            continue
        wiped = True
        for j in range(count):
            if ui[members[j], UI_SIDE] != side and st[members[j], ST_STATUS] != DEAD:
                wiped = False
        if wiped:
            row = purs[g[G_NPURS]]
            row[:] = -1
            row[0], row[1], row[2], row[6], row[7], row[10] = -1, 1, w, 0, 0, 0
            g[G_NPURS] += 1


@njit(cache=True, nogil=True, error_model="numpy")
def _challenges(B, S, side, members, count, forced, mode):
    """FB-B20 (battle/challenges.before_round): one decision a step; (again, status)."""
    g = S.g
    oi = B.opt_i
    stage = g[G_CSTAGE]
    if stage == 0:
        if tidy_duels(B, S, members, count):
            return False, OK
        n, u = issue_options(B, S, members, count, side, oi)
        if n > 1:
            choice, status = decide(B, S, side, 5, u, n, forced, mode)
            if status != OK:
                return False, status
            if oi[choice, OI_CODE] == 0:
                g[G_CSTAGE] = 1
            else:
                g[G_CSTAGE], g[G_CU], g[G_CB], g[G_CV] = 2, u, oi[choice, OI_FACE], \
                    oi[choice, OI_TARGET]
            return True, OK
        stage = 1
    if stage == 1:
        n, u = issue_options(B, S, members, count, 1 - side, oi)
        g[G_CSTAGE] = 0
        if n > 1:
            choice, status = decide(B, S, 1 - side, 5, u, n, forced, mode)
            if status != OK:
                g[G_CSTAGE] = 1  # asked again after the table or the rollouts
                return False, status
            if oi[choice, OI_CODE] == 1:
                g[G_CSTAGE], g[G_CU], g[G_CB], g[G_CV] = 2, u, oi[choice, OI_FACE], \
                    oi[choice, OI_TARGET]
                return True, OK
        return False, OK
    u, b, v = g[G_CU], g[G_CB], g[G_CV]
    n = answer_options(B, S, u, b, v, oi)
    choice = 0
    if n > 1:
        choice, status = decide(B, S, B.ui[v, UI_SIDE], 6, v, n, forced, mode)
        if status != OK:
            return False, status
    g[G_CSTAGE] = 0
    set_duel(S, u, b, v, oi[choice, OI_SIDE], oi[choice, OI_CODE])
    return False, OK


@njit(cache=True, nogil=True, error_model="numpy")
def _pursue(B, S, side, i, forced, mode):
    """FB-C6/B7 (purs row: broken, n chasers, chasers[4], n chosen, chosen[3] packed as bits in
    row[7], n enemies at 10, enemies from 11)."""
    ui, uf, fl_val, fl_cum, fl_n = B.ui, B.uf, B.fl_val, B.fl_cum, B.fl_n
    pos, st, purs = S.pos, S.ust, S.purs
    row = purs[0]
    b, nch, chosen = row[0], row[1], row[6]
    if chosen < nch:
        w = row[2 + chosen]
        oi = B.opt_i
        oi[0, OI_TARGET], oi[0, OI_CODE], oi[0, OI_SLOT] = b, 0, 0
        oi[1, OI_TARGET], oi[1, OI_CODE], oi[1, OI_SLOT] = b, 1, 1
        machine = ui[w, UI_MACHINE] >= 1  # FB-WM1: a war machine never pursues
        choice, status = 1, OK
        if not machine:
            choice, status = decide(B, S, ui[w, UI_SIDE], 4, w, 2, forced, mode)
        if status != OK:
            return status
        # FB-B7: restraining takes a Leadership test where the ruleset says; failed, it pursues
        if choice == 0 or (B.ri[R_RESTRAIN_TEST] == 1 and not machine and not ld_test(B, S, w)):
            row[7] |= 1 << chosen
        row[6] = chosen + 1
        if row[6] < nch:
            return OK
    if b < 0:  # FB-B22: an overrun, straight ahead
        w = row[2]
        if row[7] & 1 == 1 and st[w, ST_STATUS] == HOLD:
            pursuit_move(B, S, w, False, 0.0, 0.0,
                         float(sample(fl_val[w], fl_cum[w], fl_n[w], S.kstate)))
        _next_pursuit(S, i)
        return OK
    sx, sy, m = 0.0, 0.0, 0
    for e in range(row[10]):
        v = row[11 + e]
        if st[v, ST_STATUS] == HOLD or st[v, ST_STATUS] == FLEE:
            x, y = unit_centre(ui, uf, pos, st, v)
            sx, sy, m = sx + x, sy + y, m + 1
    if m == 0:
        for e in range(row[10]):
            x, y = unit_centre(ui, uf, pos, st, row[11 + e])
            sx, sy, m = sx + x, sy + y, m + 1
    sx, sy = sx / max(m, 1), sy / max(m, 1)
    flight = sample(fl_val[b], fl_cum[b], fl_n[b], S.kstate)
    rolls = np.full(4, -1, np.int64)
    caught = False
    for k in range(nch):
        if row[7] >> k & 1 == 1:
            w = row[2 + k]
            rolls[k] = sample(fl_val[w], fl_cum[w], fl_n[w], S.kstate)
            caught = caught or rolls[k] >= flight
    fx, fy = unit_centre(ui, uf, pos, st, b)
    flee_move(B, S, b, sx, sy, flight)
    if caught:
        st[b, ST_STATUS] = DEAD
    for k in range(nch):
        w = row[2 + k]
        if rolls[k] >= 0 and st[w, ST_STATUS] == HOLD:
            pursuit_move(B, S, w, True, fx + (fx - sx) * 10, fy + (fy - sy) * 10,
                         float(rolls[k]))
    _next_pursuit(S, i)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _next_pursuit(S, i):
    """The pursuit queue moves up; back to the combats when it is empty."""
    g, purs = S.g, S.purs
    for k in range(1, g[G_NPURS]):
        purs[k - 1, :] = purs[k, :]
    g[G_NPURS] -= 1
    if g[G_NPURS] == 0:
        _goto(g, COMBAT, i)


__all__ = ["step", "decide", "START", "END", "FLED", "ST_CT", "O_SHOOT"]
