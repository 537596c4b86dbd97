"""What the battle kernel's phases do to a battle (FB-B3..FB-B8): sight, moves, flight,
tests, the options of each decision, shooting, one combat round, pursuit.

The rules are those of :mod:`mathhammer.fantasy.battle.actions`, ``shooting``, ``fights``
and ``phases`` (their docstrings state them), on the arrays of
:mod:`mathhammer.fantasy.kernels.battle_state`. ``P`` is the tuple of static arrays, ``T`` the
tables (compiled combats, cached values, shooting tables), ``S`` one battle's state, ``W``
scratch space. A table the run has not built yet is a *miss*: the function writes what it
needs into ``W[MISS]``; in a probe pass (:func:`~.battle_state.missed`) it is queued and
the battle plays on with a placeholder, else the function returns ``MISS``. Python builds
the tables and the battle is replayed from its start on the same stream (so the answer
never depends on what was cached).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.battle_geometry import (
    BORROWING,
    FLANK,
    FRONT,
    angle_diff,
    arc,
    box_distance,
    centre,
    corners,
    crosses,
    face_segment,
    farther_than,
    gap_within,
    on_table,
    overlaps,
    segment_distance,
    within,
)
from mathhammer.fantasy.kernels.battle_state import (
    B_MODELS,
    B_W,
    DEAD,
    F_BSB_RANGE,
    F_GENERAL_RANGE,
    F_PANIC,
    F_TABLE_D,
    F_TABLE_W,
    FLED,
    G_TURN,
    FLEE,
    GAP,
    HOLD,
    MISS,
    MISS_SHOT,
    OK,
    R_BSB_ON,
    R_GENERAL_ON,
    R_INSANE,
    R_MOD_HARD,
    R_MOD_LARGE,
    R_MOD_LONG,
    R_MOD_MOVING,
    R_MOD_SAS,
    R_MOD_SOFT,
    R_SAS_MOVEMENT,
    R_SHOOT_RANKS,
    ST_BREATH,
    ST_CF,
    ST_CHARGED,
    ST_CS,
    ST_CT,
    ST_FRENZIED,
    ST_FRESH,
    ST_HOLDTURN,
    ST_MARCHED,
    ST_MODELS,
    ST_MOVED,
    ST_PSM,
    ST_PURSUIT,
    ST_REACTED,
    ST_SILENCED,
    ST_STATUS,
    ST_STDLOST,
    UF_RANGE,
    UI_BSB,
    UI_BSB_BODY,
    UI_GENERAL,
    UI_GENERAL_BODY,
    UI_LARGE,
    UI_LD,
    UI_M,
    UI_MACHINE,
    UI_MOVE_OR_FIRE,
    UI_NB,
    UI_NOCHARGE,
    UI_RANGED,
    UI_SIDE,
    UI_STANDARD,
    UI_UNBREAKABLE,
    UI_WIDTH,
    body_alive,
    box,
    clear_contacts,
    engaged,
    face_to,
    footprint,
    missed,
    models_alive,
    on_the_table,
    sample,
    unit_alive,
    unit_centre,
)
from mathhammer.kernels.dice import d6, uniform

# scratch tuple W: corners, three boxes, the decision's options (int, float), their values,
# the miss record, this battle's decisions, inner options (a greedy look ahead), the rollout
# state, what a best response needs, first decisions' values, the probe pass's flags and its
# queue of misses, the last best response's clean rollouts (kernels.battle_play.best_response),
# a combat round's scratch (kernels.battle_combat.round_scratch), what a move decision's
# values read of the enemies (kernels.battle_values.enemies_of)
(W_CP, W_CQ, W_B1, W_B2, W_B3, W_OPT_I, W_OPT_F, W_VALS, W_MISS, W_DECISIONS, W_OPT2_I,
 W_OPT2_F, W_SR, W_NEED, W_FIRST, W_PROBE, W_PROBE_Q, W_BR_KEY, W_BR_VAL, W_CR,
 W_CRF) = range(21)
# tables tuple T: the compiled combats' kernel arrays (one typed list per array), each
# combat's battle units, first bodies and once-per-game groups, the lookups, the wounds
# tables' blocks the fights share (battle_state.TABLE_FIELDS)
(T_ORDER, T_FIRST, T_ONCE, T_FIGHTS, T_ARRANGEMENTS, T_VALUES, T_SHOT_LIST,
 T_SHOT_DICT, T_BLOCKS) = range(15, 24)
# option columns: target, code, face, side, cover, enemy slot; float: gap
OI_TARGET, OI_CODE, OI_FACE, OI_SIDE, OI_COVER, OI_SLOT = range(6)
MAX_PER_SIDE = 4


# ---- sight (FB-B6) -----------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def seen(B, S, u, t, ax, ay, bx, by):
    """(in sight, cover 0/1/2) of the line a → b from u to t (FB-B6)."""
    return seen_at(B.ui, B.uf, B.terrain, S.pos, S.ust, B.b3, B.cq, u, t, ax, ay, bx, by)


@njit(**BORROWING)
def seen_at(ui, uf, terrain, pos, st, q, cq, u, t, ax, ay, bx, by):
    """seen on arrays read once by the caller (q: scratch box, cq: scratch corners)."""
    if ui[t, UI_LARGE] == 0:
        for v in range(ui.shape[0]):
            if v == u or v == t or not on_the_table(st, v):
                continue
            box(ui, uf, pos, st, v, q)
            if crosses(ax, ay, bx, by, q, cq):
                return False, 0
    cover = 0
    for i in range(terrain.shape[0]):
        q[0], q[1], q[2] = terrain[i, 0], terrain[i, 1] + terrain[i, 3] / 2, math.pi / 2
        q[3], q[4], q[5], q[6] = terrain[i, 2], terrain[i, 3], 0.0, 1.0
        inside = abs(bx - terrain[i, 0]) <= terrain[i, 2] / 2 and \
            abs(by - terrain[i, 1]) <= terrain[i, 3] / 2
        if crosses(ax, ay, bx, by, q, cq) or inside:
            if terrain[i, 4] > 0 and not inside:
                return False, 0
            c = int(terrain[i, 5])
            if c > cover:
                cover = c
    return True, cover


@njit(cache=True, nogil=True, error_model="numpy")
def nearest_enemy(B, S, u):
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    p, q, cp, cq = B.b1, B.b2, B.cp, B.cq
    box(ui, uf, pos, st, u, p)
    e = 1 - ui[u, UI_SIDE]
    best, out = 1e300, -1
    for i in range(nside[e]):
        t = sides[e, i]
        if st[t, ST_STATUS] != HOLD:
            continue
        box(ui, uf, pos, st, t, q)
        d = box_distance(p, q, cp, cq)
        if d < best:
            best, out = d, t
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def enemy_within(B, S, u, reach):
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    p, q, cp, cq = B.b1, B.b2, B.cp, B.cq
    box(ui, uf, pos, st, u, p)
    e = 1 - ui[u, UI_SIDE]
    for i in range(nside[e]):
        t = sides[e, i]
        if st[t, ST_STATUS] == HOLD:
            box(ui, uf, pos, st, t, q)
            if within(p, q, cp, cq, reach):
                return True
    return False


# ---- moving (FB-B5) ------------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def blocked(B, S, u):
    return blocked_at(B.ui, B.uf, B.rf, S.pos, S.ust, B.b1, B.b2, B.cp, B.cq, u)


@njit(**BORROWING)
def blocked_at(ui, uf, rf, pos, st, p, q, cp, cq, u):
    """blocked on arrays read once by the caller (p, q: scratch boxes; cp, cq: corners)."""
    box(ui, uf, pos, st, u, p)
    if not on_table(p, rf[F_TABLE_W], rf[F_TABLE_D], cp):
        return True
    side = ui[u, UI_SIDE]
    for v in range(ui.shape[0]):
        if v == u or not on_the_table(st, v):
            continue
        box(ui, uf, pos, st, v, q)
        if farther_than(p, q, GAP):
            continue
        if ui[v, UI_SIDE] != side:
            if box_distance(p, q, cp, cq) < GAP - 1e-9:
                return True
        elif overlaps(p, q, cp, cq):
            return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def straight(B, S, u, inches):
    """Straight on (backwards when negative), cut to 3/4, 1/2, 1/4 or nothing when the way is
    not clear; returns |inches| moved."""
    pos = S.pos
    ui, uf, rf, st = B.ui, B.uf, B.rf, S.ust
    p, q, cp, cq = B.b1, B.b2, B.cp, B.cq
    x0, y0 = pos[u, 0], pos[u, 1]
    dx, dy = pos[u, 3], pos[u, 4]
    for k in range(4):
        share = 1.0 - 0.25 * k
        pos[u, 0], pos[u, 1] = x0 + dx * inches * share, y0 + dy * inches * share
        if not blocked_at(ui, uf, rf, pos, st, p, q, cp, cq, u):
            return abs(inches * share)
    pos[u, 0], pos[u, 1] = x0, y0
    return 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def advance_towards(B, S, u, px, py, allowance, free_turn):
    """Turn to face the point (a wheel, or a reform past 90°), then straight on."""
    ui, uf = B.ui, B.uf
    pos, st = S.pos, S.ust
    theta = math.atan2(py - pos[u, 1], px - pos[u, 0])
    turn = abs(angle_diff(theta, pos[u, 2]))
    if turn > 1e-6:
        width, _d = footprint(ui, uf, u, st[u, ST_MODELS])
        cost = 0.0
        if not free_turn:
            cost = allowance if turn > math.pi / 2 else turn * width
        if cost > allowance:
            return 0.0
        old = pos[u, 2]
        face_to(pos, u, theta)
        if blocked(B, S, u):
            face_to(pos, u, old)
            return 0.0
        allowance -= cost
    ahead = math.hypot(px - pos[u, 0], py - pos[u, 1])
    return straight(B, S, u, min(allowance, ahead))


@njit(cache=True, nogil=True, error_model="numpy")
def apply_move(B, S, u, code, target, march_block, march_mult):
    """The remaining move (FB-B5): code 0 hold, 1 advance on ``target``, 2 step back."""
    if code == 1:  # the arrays read in the branch that uses them: each read is a reference count
        ui, uf = B.ui, B.uf
        pos, st = S.pos, S.ust
        allowance = float(ui[u, UI_M])
        if not enemy_within(B, S, u, march_block):
            allowance *= march_mult
        tx, ty = unit_centre(ui, uf, pos, st, target)
        moved = advance_towards(B, S, u, tx, ty, allowance, False)
        st[u, ST_MOVED] = 1 if moved > 0 else 0
        st[u, ST_MARCHED] = 1 if moved > ui[u, UI_M] + 1e-9 else 0
    elif code == 2:
        ui, st = B.ui, S.ust
        moved = straight(B, S, u, -ui[u, UI_M] / 2.0)
        st[u, ST_MOVED] = 1 if moved > 0 else 0


# ---- flight (FB-B7) and tests (FB-T2, FB-B8) ---------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def flee_move(B, S, u, sx, sy, inches):
    ui, uf, rf = B.ui, B.uf, B.rf
    pos, st = S.pos, S.ust
    st[u, ST_STATUS] = FLEE
    clear_contacts(st, u)
    w, d = footprint(ui, uf, u, st[u, ST_MODELS])
    cx, cy = unit_centre(ui, uf, pos, st, u)
    dx, dy = cx - sx, cy - sy
    norm = math.hypot(dx, dy)
    if norm < 1e-9:
        dx, dy, norm = -pos[u, 3], -pos[u, 4], 1.0
    dx, dy = dx / norm, dy / norm
    face_to(pos, u, math.atan2(dy, dx))
    pos[u, 0] = cx + dx * (d / 2 + inches)
    pos[u, 1] = cy + dy * (d / 2 + inches)
    p = B.b1
    box(ui, uf, pos, st, u, p)
    if not on_table(p, rf[F_TABLE_W], rf[F_TABLE_D], B.cp):
        st[u, ST_STATUS] = FLED


@njit(cache=True, nogil=True, error_model="numpy")
def flee_from_nearest(B, S, u):
    ui, uf, fl_val, fl_cum, fl_n = B.ui, B.uf, B.fl_val, B.fl_cum, B.fl_n
    pos, st = S.pos, S.ust
    e = nearest_enemy(B, S, u)
    if e >= 0:
        sx, sy = unit_centre(ui, uf, pos, st, e)
    else:
        sx, sy = pos[u, 0] + pos[u, 3], pos[u, 1] + pos[u, 4]
    flee_move(B, S, u, sx, sy, sample(fl_val[u], fl_cum[u], fl_n[u], S.kstate))


@njit(cache=True, nogil=True, error_model="numpy")
def _within(B, S, a, b, reach):
    ui, uf = B.ui, B.uf
    pos, st = S.pos, S.ust
    ax, ay = unit_centre(ui, uf, pos, st, a)
    bx, by = unit_centre(ui, uf, pos, st, b)
    return math.hypot(ax - bx, ay - by) <= reach


@njit(cache=True, nogil=True, error_model="numpy")
def leader(B, S, side, flag_col, body_col):
    """The general (or battle standard) of ``side`` when alive and holding, else -1."""
    ui, bodies, sides, nside = B.ui, B.bodies, B.sides, B.nside
    st, wounds = S.ust, S.wounds
    for i in range(nside[side]):
        g = sides[side, i]
        if ui[g, flag_col] == 1:
            if st[g, ST_STATUS] == HOLD and body_alive(bodies, g, ui[g, body_col], wounds):
                return g
            return -1
    return -1


@njit(cache=True, nogil=True, error_model="numpy")
def test_ld(B, S, u):
    """FB-B8: the Leadership a unit tests on, and whether a battle standard re-rolls it."""
    ui, ri, rf = B.ui, B.ri, B.rf
    side = ui[u, UI_SIDE]
    ld = ui[u, UI_LD]
    g = leader(B, S, side, UI_GENERAL, UI_GENERAL_BODY)
    if g >= 0 and g != u and ri[R_GENERAL_ON] == 1 and _within(B, S, g, u, rf[F_GENERAL_RANGE]):
        if ui[g, UI_LD] > ld:
            ld = ui[g, UI_LD]
    s = leader(B, S, side, UI_BSB, UI_BSB_BODY)
    reroll = s >= 0 and ri[R_BSB_ON] == 1 and (s == u or _within(B, S, s, u, rf[F_BSB_RANGE]))
    return ld, reroll


@njit(cache=True, nogil=True, error_model="numpy")
def ld_test(B, S, u):
    """FB-T2: 2D6 ≤ Ld (a double 1 passes with Insane Courage), re-rolled with a standard."""
    ri = B.ri
    ld, reroll = test_ld(B, S, u)
    for _ in range(2 if reroll else 1):
        a, b = d6(S.kstate), d6(S.kstate)
        if a + b <= ld or (a == 1 and b == 1 and ri[R_INSANE] == 1):
            return True
    return False


# ---- charges (FB-B4) ---------------------------------------------------------------------------
@njit(**BORROWING)
def face_taken(st, target, face, side):
    if face == FRONT:
        c = st[target, ST_CT]
        if c >= 0 and st[c, ST_STATUS] == HOLD:
            return True
    for v in range(st.shape[0]):
        if st[v, ST_CT] == target and st[v, ST_STATUS] == HOLD and st[v, ST_CF] == face \
                and (face != 1 or st[v, ST_CS] == side):
            return True
    return False


@njit(**BORROWING)
def combat_members(st, u, out):
    """The units of u's combat (u alone when not in one); returns how many (into out)."""
    n = st.shape[0]
    out[0] = u
    count = 1
    changed = True
    while changed:
        changed = False
        for v in range(n):
            if st[v, ST_STATUS] != HOLD:
                continue
            t = st[v, ST_CT]
            if t < 0 or st[t, ST_STATUS] != HOLD:
                continue
            has_v, has_t = False, False
            for i in range(count):
                has_v = has_v or out[i] == v
                has_t = has_t or out[i] == t
            if has_v and not has_t:
                out[count] = t
                count += 1
                changed = True
            elif has_t and not has_v:
                out[count] = v
                count += 1
                changed = True
    return count


@njit(cache=True, nogil=True, error_model="numpy")
def charge_options(B, S, u, oi, of):
    """Options 0 (no charge) and one per enemy it may charge (target, face, side, gap)."""
    ui, st = B.ui, S.ust
    oi[0, :] = 0
    oi[0, OI_TARGET] = -1
    n = 1
    if st[u, ST_STATUS] != HOLD or engaged(st, u) or st[u, ST_HOLDTURN] == 1 \
            or ui[u, UI_NOCHARGE] == 1:
        return n
    # read past the early return, as most units take it: each read is a reference count
    uf, ch_range, ch_n, sides, nside = B.uf, B.ch_range, B.ch_n, B.sides, B.nside
    pos = S.pos
    me = B.b1
    box(ui, uf, pos, st, u, me)
    cx, cy = centre(me)
    longest = ch_range[u, ch_n[u] - 1]
    a0x, a0y, a1x, a1y, _mx, _my, _nx, _ny = face_segment(me,
                                                          FRONT, 1)
    them = B.b2
    members = np.empty(st.shape[0], np.int64)
    e = 1 - ui[u, UI_SIDE]
    for i in range(nside[e]):
        t = sides[e, i]
        if st[t, ST_STATUS] != HOLD:
            continue
        box(ui, uf, pos, st, t, them)
        face, fside = arc(them, cx, cy)
        if face_taken(st, t, face, fside):
            continue
        c0x, c0y, c1x, c1y, mx, my, _nx, _ny = face_segment(them, face, fside)
        gap = segment_distance(a0x, a0y, a1x, a1y, c0x, c0y, c1x, c1y)
        if gap > longest or gap <= 0.0:
            continue
        if not (_front_arc(me, mx, my) or _front_arc(me, c0x, c0y) or _front_arc(me, c1x, c1y)):
            continue
        ok, _cover = seen(B, S, u, t, me[0], me[1], mx, my)
        if not ok:
            continue
        count = combat_members(st, t, members)
        mine = 0
        for k in range(count):
            if ui[members[k], UI_SIDE] == ui[u, UI_SIDE]:
                mine += 1
        if mine + 1 > MAX_PER_SIDE or count + 1 > 8:
            continue
        if n >= oi.shape[0]:
            break
        oi[n, OI_TARGET], oi[n, OI_CODE], oi[n, OI_FACE], oi[n, OI_SIDE] = t, 1, face, fside
        oi[n, OI_SLOT] = 1 + i
        of[n, 0] = gap
        n += 1
    return n


@njit(**BORROWING)
def _front_arc(p, px, py):
    face, _side = arc(p, px, py)
    return face == FRONT


@njit(cache=True, nogil=True, error_model="numpy")
def reaction_options(B, S, u, t, face, fside, gap, oi, of):
    """FB-G2: 0 hold, 1 flee, 2 stand and shoot (codes in OI_CODE; each row carries the
    charge's face and gap)."""
    ui, uf, ri = B.ui, B.uf, B.ri
    st = S.ust
    n = 1
    if not (engaged(st, t) or st[t, ST_REACTED] == 1 or ui[t, UI_MACHINE] >= 1):  # FB-WM2
        n = 2
        barred = ri[R_SAS_MOVEMENT] == 1 and gap <= ui[t, UI_M]
        if ui[t, UI_RANGED] == 1 and not barred and gap <= uf[t, UF_RANGE] \
                and st[t, ST_HOLDTURN] == 0:
            n = 3
    for k in range(n):
        oi[k, OI_TARGET], oi[k, OI_CODE], oi[k, OI_SLOT] = u, k, k
        oi[k, OI_FACE], oi[k, OI_SIDE] = face, fside
        of[k, 0] = gap
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def land(B, S, u, t, face, fside, contact):
    """FB-B4: the charger's front on the middle of the face, facing it."""
    ui, uf = B.ui, B.uf
    pos, st = S.pos, S.ust
    them = B.b2
    box(ui, uf, pos, st, t, them)
    _a, _b, _c, _d, mx, my, nx, ny = face_segment(them,
                                                  face, fside)
    pos[u, 0], pos[u, 1] = mx, my
    face_to(pos, u, math.atan2(-ny, -nx))
    st[u, ST_MOVED] = 1
    if not contact:
        return
    st[u, ST_CT], st[u, ST_CF], st[u, ST_CS] = t, face, fside
    if face == FRONT and st[t, ST_CT] < 0:
        st[t, ST_CT], st[t, ST_CF], st[t, ST_CS] = u, FRONT, fside
    st[u, ST_FRESH] = 1
    others = False
    c = st[t, ST_CT]
    if c >= 0 and c != u and st[c, ST_STATUS] == HOLD:
        others = True
    for v in range(st.shape[0]):
        if v != u and st[v, ST_CT] == t and st[v, ST_STATUS] == HOLD:
            others = True
    if not others:
        st[t, ST_FRESH] = 1


@njit(cache=True, nogil=True, error_model="numpy")
def fall_short(B, S, u, t, face, fside, gap, move):
    """FB-G3: towards the target, ``move`` inches (half the gap when move < 0)."""
    ui, uf = B.ui, B.uf
    pos, st = S.pos, S.ust
    if st[t, ST_STATUS] == FLED or st[t, ST_STATUS] == DEAD:
        return
    them = B.b2
    box(ui, uf, pos, st, t, them)
    _a, _b, _c, _d, mx, my, _nx, _ny = face_segment(them, face, fside)
    step = gap / 2 if move < 0 else min(move, max(gap - GAP, 0.0))
    advance_towards(B, S, u, mx, my, step, True)
    st[u, ST_MOVED] = 1


@njit(cache=True, nogil=True, error_model="numpy")
def reached_enemy(B, S, w, reach):
    """FB-B22 (phases.reached_enemy): (enemy, face, flank side) of the nearest enemy not in a
    combat that ``w`` could charge with a range of ``reach``; enemy -1 when none."""
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    me, them = B.b1, B.b2
    box(ui, uf, pos, st, w, me)
    cx, cy = centre(me)
    a0x, a0y, a1x, a1y, _mx, _my, _nx, _ny = face_segment(me, FRONT, 1)
    best, best_face, best_side, best_gap = -1, 0, 0, 0.0
    e = 1 - ui[w, UI_SIDE]
    for i in range(nside[e]):
        t = sides[e, i]
        if st[t, ST_STATUS] != HOLD or engaged(st, t):
            continue
        box(ui, uf, pos, st, t, them)
        face, fside = arc(them, cx, cy)
        c0x, c0y, c1x, c1y, mx, my, _nx, _ny = face_segment(them, face, fside)
        gap = segment_distance(a0x, a0y, a1x, a1y, c0x, c0y, c1x, c1y)
        if gap > reach or gap <= 0.0:
            continue
        if not (_front_arc(me, mx, my) or _front_arc(me, c0x, c0y) or _front_arc(me, c1x, c1y)):
            continue
        if best < 0 or gap < best_gap:
            best, best_face, best_side, best_gap = t, face, fside, gap
    return best, best_face, best_side


@njit(cache=True, nogil=True, error_model="numpy")
def pursuit_move(B, S, w, follow, px, py, inches):
    """FB-B22 (phases.pursuit_move): turn to follow the flight towards (px, py) when
    ``follow`` (an overrun keeps its facing); charge an enemy reached, else move on."""
    st = S.ust
    if follow:
        advance_towards(B, S, w, px, py, 0.0, True)  # the turn only
    t, face, fside = reached_enemy(B, S, w, inches)
    if t >= 0:
        land(B, S, w, t, face, fside, True)
        st[w, ST_PURSUIT] = 1
    elif follow:
        advance_towards(B, S, w, px, py, inches, True)
    else:
        straight(B, S, w, inches)
    st[w, ST_MOVED] = 1


# ---- shooting (FB-B6) ----------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def in_reach(B, S, t, me, them, reach):
    """The gap from the box ``me`` to enemy t (its box into ``them``) when t is on the table,
    not in combat and within ``reach``; -1 otherwise (a shot's, a machine's or a spell's)."""
    return in_reach_at(B.ui, B.uf, S.pos, S.ust, B.cp, B.cq, t, me, them, reach)


@njit(**BORROWING)
def in_reach_at(ui, uf, pos, st, cp, cq, t, me, them, reach):
    """in_reach on arrays read once by the caller."""
    if not on_the_table(st, t) or engaged(st, t):
        return -1.0
    box(ui, uf, pos, st, t, them)
    return gap_within(me, them, cp, cq, reach)


@njit(**BORROWING)
def in_front_arc(me, them, cp):
    """FB-B6: the centre or a corner of the box ``them`` in the front arc of ``me``."""
    tx, ty = centre(them)
    inside = _front_arc(me, tx, ty)
    if not inside:
        corners(them, cp)
        for k in range(4):
            inside = inside or _front_arc(me, cp[k, 0], cp[k, 1])
    return inside


@njit(cache=True, nogil=True, error_model="numpy")
def shoot_options(B, S, u, oi, of):
    ui, st = B.ui, S.ust
    oi[0, OI_TARGET], oi[0, OI_CODE], oi[0, OI_SLOT] = -1, 0, 0
    n = 1
    if ui[u, UI_MACHINE] >= 1:  # FB-WM2: a war machine fires its piece (uf range 0: none)
        return machine_shoot_options(B, S, u, oi, of)
    if ui[u, UI_RANGED] == 0 or st[u, ST_STATUS] != HOLD or engaged(st, u) \
            or st[u, ST_CHARGED] == 1 or st[u, ST_MARCHED] == 1 or st[u, ST_HOLDTURN] == 1 \
            or (ui[u, UI_MOVE_OR_FIRE] == 1 and st[u, ST_MOVED] == 1):
        return n
    # read past the early return, as most units take it: each read is a reference count
    uf, sides, nside = B.uf, B.sides, B.nside
    pos = S.pos
    me, them = B.b1, B.b2
    e = 1 - ui[u, UI_SIDE]
    cp, cq, q, terrain = B.cp, B.cq, B.b3, B.terrain
    for i in range(nside[e]):
        t = sides[e, i]
        box(ui, uf, pos, st, u, me)
        gap = in_reach_at(ui, uf, pos, st, cp, cq, t, me, them, uf[u, UF_RANGE])
        if gap < 0.0 or not in_front_arc(me, them, cp):
            continue
        tx, ty = centre(them)
        ok, cover = seen_at(ui, uf, terrain, pos, st, q, cq, u, t, me[0], me[1], tx, ty)
        if not ok:
            continue
        oi[n, OI_TARGET], oi[n, OI_CODE], oi[n, OI_COVER], oi[n, OI_SLOT] = t, 1, cover, 1 + i
        of[n, 0] = gap
        n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def machine_shoot_options(B, S, u, oi, of):
    """FB-WM2 (shooting.machine_shoot_options): a war machine turns on the spot and fires at
    one enemy in its piece's range and in sight, not in combat; no front-arc limit."""
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    n = 1
    if uf[u, UF_RANGE] <= 0 or st[u, ST_STATUS] != HOLD or engaged(st, u) \
            or st[u, ST_HOLDTURN] == 1 or st[u, ST_SILENCED] >= S.g[G_TURN]:
        return n
    me, them = B.b1, B.b2
    e = 1 - ui[u, UI_SIDE]
    for i in range(nside[e]):
        t = sides[e, i]
        box(ui, uf, pos, st, u, me)
        gap = in_reach(B, S, t, me, them, uf[u, UF_RANGE])
        if gap < 0.0:
            continue
        tx, ty = centre(them)
        ok, cover = seen(B, S, u, t, me[0], me[1], tx, ty)
        if not ok:
            continue
        oi[n, OI_TARGET], oi[n, OI_CODE], oi[n, OI_COVER], oi[n, OI_SLOT] = t, 1, cover, 1 + i
        of[n, 0] = gap
        n += 1
    return n


MACHINE_SHOT = 100  # shot_code's shooters slot of a war machine's piece: 100 + from a flank


@njit(cache=True, nogil=True, error_model="numpy")
def machine_shot_table(B, S, u, t, gap, cover):
    """(table index, -1 nothing to shoot, or MISS) of u's piece at t (shooting.machine_shot):
    along a rank from t's flank arc, else a file; FB-H2's modifiers for a to-hit piece; the
    table is the artillery engine's for t's models left."""
    ui, uf, ri, bodies = B.ui, B.uf, B.ri, B.bodies
    pos, st, wounds = S.pos, S.ust, S.wounds
    left = bodies[t, 0, B_MODELS] - wounds[t, 0] // bodies[t, 0, B_W]
    if left <= 0:
        return -1
    me, them = B.b1, B.b2
    box(ui, uf, pos, st, u, me)
    box(ui, uf, pos, st, t, them)
    mx, my = centre(me)
    face, _side = arc(them, mx, my)
    flank = 1 if face == FLANK else 0
    mod = 0
    if ui[u, UI_MACHINE] == 2:
        if gap > uf[u, UF_RANGE] / 2:
            mod += ri[R_MOD_LONG]
        if cover == 1:
            mod += ri[R_MOD_SOFT]
        elif cover == 2:
            mod += ri[R_MOD_HARD]
        if ui[t, UI_LARGE] == 1:
            mod += ri[R_MOD_LARGE]
    code = shot_code(u, t, MACHINE_SHOT + flank, mod, left)
    table = B.shot_dict
    if code not in table:
        miss = B.miss
        miss[:] = -1
        miss[0], miss[1], miss[2] = MISS_SHOT, u, t
        miss[3], miss[4], miss[5] = MACHINE_SHOT + flank, mod, left
        return -1 if missed(B) else MISS
    return table[code]


@njit(cache=True, nogil=True, error_model="numpy")
def shot_modifier(B, S, u, gap, cover, stand_and_shoot):
    uf, ri = B.uf, B.ri
    st = S.ust
    total = 0
    if gap > uf[u, UF_RANGE] / 2:
        total += ri[R_MOD_LONG]
    if st[u, ST_MOVED] == 1 and not stand_and_shoot:
        total += ri[R_MOD_MOVING]
    if stand_and_shoot:
        total += ri[R_MOD_SAS]
    if cover == 1:
        total += ri[R_MOD_SOFT]
    elif cover == 2:
        total += ri[R_MOD_HARD]
    return total


@njit(**BORROWING)
def shot_code(u, t, n, mod, left):
    return (((u * 64 + t) * 128 + n) * 16 + (mod + 8)) * 256 + left


@njit(cache=True, nogil=True, error_model="numpy")
def shot_table(B, S, u, t, gap, cover, stand_and_shoot):
    """(table index or -1 for nothing to shoot, MISS when not built) of u's volley at t."""
    ui, ri, bodies = B.ui, B.ri, B.bodies
    st, wounds = S.ust, S.wounds
    if ui[u, UI_MACHINE] >= 1:  # FB-WM2: the artillery engine's table
        return machine_shot_table(B, S, u, t, gap, cover)
    n = min(st[u, ST_MODELS], ui[u, UI_WIDTH] * ri[R_SHOOT_RANKS])
    left = bodies[t, 0, B_MODELS] - wounds[t, 0] // bodies[t, 0, B_W]
    if n <= 0 or left <= 0:
        return -1
    mod = shot_modifier(B, S, u, gap, cover, stand_and_shoot)
    if ui[t, UI_LARGE] == 1:
        mod += ri[R_MOD_LARGE]
    code = shot_code(u, t, n, mod, 0)  # one table for any models left: the cap is applied
    # when the wounds land (P(capped = cap) = P(at least cap): the same distribution)
    table = B.shot_dict
    if code not in table:
        miss = B.miss
        miss[:] = -1
        miss[0], miss[1], miss[2], miss[3], miss[4], miss[5] = MISS_SHOT, u, t, n, mod, 0
        return -1 if missed(B) else MISS  # the probe's placeholder: nothing hits
    return table[code]


@njit(cache=True, nogil=True, error_model="numpy")
def volley(B, S, u, t, gap, cover, stand_and_shoot):
    """Fire u at t: wounds drawn from the chain's exact table onto t's rank and file."""
    bodies, ui = B.bodies, B.ui
    st, wounds = S.ust, S.wounds
    index = shot_table(B, S, u, t, gap, cover, stand_and_shoot)
    if index == MISS:
        return MISS
    if index < 0:
        return OK
    cum = B.shot_list[index]
    r = uniform(S.kstate)
    k = 0
    while k < cum.shape[0] - 1 and r >= cum[k]:
        k += 1
    if ui[u, UI_MACHINE] >= 1 and k == cum.shape[0] - 1:  # FB-WM2: its misfire destroyed it
        st[u, ST_STATUS] = DEAD
        clear_contacts(st, u)
        return OK
    if ui[u, UI_MACHINE] >= 1 and k == cum.shape[0] - 2:  # FB-WM2: no shot this turn or next
        st[u, ST_SILENCED] = S.g[G_TURN] + 1
        return OK
    if k > 0:
        cap = bodies[t, 0, B_MODELS] * bodies[t, 0, B_W]
        wounds[t, 0] = min(wounds[t, 0] + k, cap)
        st[t, ST_MODELS] = models_alive(bodies, ui, t, wounds)
        if not unit_alive(bodies, ui, t, wounds):
            st[t, ST_STATUS] = DEAD
            clear_contacts(st, t)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def panic_tests(B, S, side):
    """FB-G4: a quarter of its models lost in the phase: a Leadership test or flee."""
    ui, rf, sides, nside = B.ui, B.rf, B.sides, B.nside
    st = S.ust
    for i in range(nside[side]):
        u = sides[side, i]
        start = st[u, ST_PSM]
        lost = start - st[u, ST_MODELS]
        if st[u, ST_STATUS] != HOLD or lost <= 0 or lost < rf[F_PANIC] * start \
                or engaged(st, u) or ui[u, UI_UNBREAKABLE] == 1:
            continue
        if ld_test(B, S, u):
            continue
        flee_from_nearest(B, S, u)
    for u in range(st.shape[0]):
        st[u, ST_PSM] = st[u, ST_MODELS]


__all__ = ["volley", "np", "ST_BREATH", "ST_FRENZIED", "ST_STDLOST", "UI_STANDARD", "UI_NB",
           "FLED"]
