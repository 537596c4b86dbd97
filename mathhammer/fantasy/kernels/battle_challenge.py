"""Challenges in the battle kernel (FB-K3, FB-B20): the rules of
:mod:`mathhammer.fantasy.battle.challenges` (its docstring) on the kernel's arrays.

Options (``B.opt_i`` rows): a challenge — OI_CODE 0 none / 1 issue, OI_TARGET the unit
challenged, OI_FACE the issuer's body, OI_SLOT 0 / 1 + k (its k-th able model); an answer —
OI_CODE the mode (1 accept, 2 refuse), OI_TARGET the challenger's unit, OI_FACE the
challenger's body, OI_SIDE the answering body, OI_SLOT k (its k-th able model) / the count
of able models (refuse). The duel lives in ``ST_DUEL_*`` of both units.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.battle_actions import engaged, flee_from_nearest, ld_test
from mathhammer.fantasy.kernels.battle_geometry import within
from mathhammer.fantasy.kernels.battle_state import (
    B_MODELS,
    B_ROLE,
    B_W,
    F_FRIEND_PANIC,
    HOLD,
    ROLE_CHAMPION,
    ROLE_CHARACTER,
    ROLE_RANK_AND_FILE,
    ST_CT,
    ST_DUEL_BODY,
    ST_DUEL_FB,
    ST_DUEL_FOE,
    ST_DUEL_MODE,
    ST_STATUS,
    UI_NB,
    UI_SIDE,
    UI_UNBREAKABLE,
    box,
)

ACCEPTED, REFUSED, REFUSED_CHALLENGER = 1, 2, 3
OI_TARGET, OI_CODE, OI_FACE, OI_SIDE, OI_COVER, OI_SLOT = range(6)  # battle_actions' columns


@njit(cache=True, nogil=True, error_model="numpy")
def body_alive(B, S, u, b):
    bodies = B.bodies
    return S.wounds[u, b] < bodies[u, b, B_MODELS] * bodies[u, b, B_W]


@njit(cache=True, nogil=True, error_model="numpy")
def able_bodies(B, u, out):
    """Characters first, then the champion (the combat engine's order); returns the count."""
    bodies, ui = B.bodies, B.ui
    n = 0
    for role in (ROLE_CHARACTER, ROLE_CHAMPION):
        for b in range(ui[u, UI_NB]):
            if bodies[u, b, B_ROLE] == role:
                out[n] = b
                n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def living_able(B, S, u, out):
    tmp = np.empty(16, np.int64)
    m = able_bodies(B, u, tmp)
    n = 0
    for k in range(m):
        if body_alive(B, S, u, tmp[k]):
            out[n] = tmp[k]
            n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def _member(members, count, v):
    for k in range(count):
        if members[k] == v:
            return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def foe(B, S, u, members, count):
    """The enemy unit u fights: its front's enemy, else the first touching it (unit order)."""
    st = S.ust
    t = st[u, ST_CT]
    if t >= 0 and _member(members, count, t) and st[t, ST_STATUS] == HOLD:
        return t
    for v in range(st.shape[0]):
        if st[v, ST_CT] == u and st[v, ST_STATUS] == HOLD and _member(members, count, v):
            return v
    return -1


@njit(cache=True, nogil=True, error_model="numpy")
def tidy_duels(B, S, members, count):
    """Drop this combat's challenges that are over; True when one still goes on."""
    st = S.ust
    running = False
    for k in range(count):
        u = members[k]
        mode = st[u, ST_DUEL_MODE]
        if mode == 0:
            continue
        b, v, vb = st[u, ST_DUEL_BODY], st[u, ST_DUEL_FOE], st[u, ST_DUEL_FB]
        alive = st[u, ST_STATUS] == HOLD and _member(members, count, v) \
            and st[v, ST_STATUS] == HOLD
        if mode == ACCEPTED:
            alive = alive and body_alive(B, S, u, b) and body_alive(B, S, v, vb)
        elif mode == REFUSED:
            alive = alive and body_alive(B, S, v, vb)
        else:
            alive = alive and body_alive(B, S, u, b)
        if alive:
            running = True
        else:
            st[u, ST_DUEL_MODE] = 0
    return running


@njit(cache=True, nogil=True, error_model="numpy")
def issue_options(B, S, members, count, side, oi):
    """0 (nobody to issue) or 1 + the first unit's living able models (FB-B20)."""
    ui = B.ui
    mine = np.empty(16, np.int64)
    theirs = np.empty(16, np.int64)
    all_able = np.empty(16, np.int64)
    for k in range(count):
        u = members[k]
        if ui[u, UI_SIDE] != side:
            continue
        n_mine = living_able(B, S, u, mine)
        v = foe(B, S, u, members, count)
        if n_mine == 0 or v < 0 or living_able(B, S, v, theirs) == 0:
            continue
        m = able_bodies(B, u, all_able)
        oi[0, OI_TARGET], oi[0, OI_CODE], oi[0, OI_FACE], oi[0, OI_SLOT] = v, 0, -1, 0
        for j in range(n_mine):
            slot = 0
            for q in range(m):
                if all_able[q] == mine[j]:
                    slot = q
            row = oi[1 + j]
            row[OI_TARGET], row[OI_CODE], row[OI_FACE], row[OI_SLOT] = v, 1, mine[j], 1 + slot
        return 1 + n_mine, u
    return 0, -1


@njit(cache=True, nogil=True, error_model="numpy")
def answer_options(B, S, u, b, v, oi):
    """v's answers: accept with each living able model; refuse (the first steps back) while
    its rank and file stand."""
    bodies = B.bodies
    theirs = np.empty(16, np.int64)
    all_able = np.empty(16, np.int64)
    n = living_able(B, S, v, theirs)
    m = able_bodies(B, v, all_able)
    for j in range(n):
        slot = 0
        for q in range(m):
            if all_able[q] == theirs[j]:
                slot = q
        row = oi[j]
        row[OI_TARGET], row[OI_CODE], row[OI_FACE], row[OI_SIDE], row[OI_SLOT] = \
            u, ACCEPTED, b, theirs[j], slot
    k = n
    if bodies[v, 0, B_ROLE] == ROLE_RANK_AND_FILE and body_alive(B, S, v, 0):
        row = oi[k]
        row[OI_TARGET], row[OI_CODE], row[OI_FACE], row[OI_SIDE], row[OI_SLOT] = \
            u, REFUSED, b, theirs[0], m
        k += 1
    return k


@njit(cache=True, nogil=True, error_model="numpy")
def set_duel(S, u, b, v, vb, mode):
    st = S.ust
    if mode == ACCEPTED:
        st[u, ST_DUEL_BODY], st[u, ST_DUEL_FOE], st[u, ST_DUEL_FB], st[u, ST_DUEL_MODE] = \
            b, v, vb, ACCEPTED
        st[v, ST_DUEL_BODY], st[v, ST_DUEL_FOE], st[v, ST_DUEL_FB], st[v, ST_DUEL_MODE] = \
            vb, u, b, ACCEPTED
    else:
        st[v, ST_DUEL_BODY], st[v, ST_DUEL_FOE], st[v, ST_DUEL_FB], st[v, ST_DUEL_MODE] = \
            vb, u, b, REFUSED
        st[u, ST_DUEL_BODY], st[u, ST_DUEL_FOE], st[u, ST_DUEL_FB], st[u, ST_DUEL_MODE] = \
            b, v, vb, REFUSED_CHALLENGER


@njit(cache=True, nogil=True, error_model="numpy")
def round_challenge(S, order, count, first, cap, chal, duel):
    """The combat engine's ``chal`` and ``duel`` for this round (engine body = the unit's
    first body + its body index)."""
    st = S.ust
    chal[0], chal[1], chal[2], chal[3] = -1, -1, 0, cap
    duel[0], duel[1] = 0, -1
    for i in range(count):
        u = order[i]
        mode = st[u, ST_DUEL_MODE]
        if mode == 0 or mode == REFUSED:
            continue
        v = st[u, ST_DUEL_FOE]
        j = -1
        for q in range(count):
            if order[q] == v:
                j = q
        if j < 0:
            continue
        chal[0] = first[i] + st[u, ST_DUEL_BODY]
        chal[1] = first[j] + st[u, ST_DUEL_FB]
        if mode == ACCEPTED:
            chal[2], duel[0] = 1, 1
        else:
            chal[2], duel[1] = 2, chal[1]
        return


# ---- panic from a friend broken or destroyed nearby (FB-G4, FB-B21) ---------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def friends_near(B, S, members, count, near):
    """Before a round: near[k, u] = 1 when u is a friend of members[k], not in the combat,
    holding, within the ruleset's range (nearest edges)."""
    ui, uf = B.ui, B.uf
    pos, st = S.pos, S.ust
    near[:, :] = 0
    reach = B.rf[F_FRIEND_PANIC]
    if reach <= 0:
        return
    p, q = np.zeros(7), np.zeros(7)
    cp, cq = np.zeros((4, 2)), np.zeros((4, 2))
    for k in range(count):
        m = members[k]
        box(ui, uf, pos, st, m, p)
        for u in range(st.shape[0]):
            if ui[u, UI_SIDE] != ui[m, UI_SIDE] or _member(members, count, u) \
                    or st[u, ST_STATUS] != HOLD:
                continue
            box(ui, uf, pos, st, u, q)
            if within(p, q, cp, cq, reach):
                near[k, u] = 1


@njit(cache=True, nogil=True, error_model="numpy")
def friend_panic(B, S, lost, n_lost, members, count, near):
    """FB-B21: the friends near each unit lost this round test once (not in combat, fleeing
    or Unbreakable) and flee from the nearest enemy on a failure."""
    ui = B.ui
    st = S.ust
    tested = np.zeros(st.shape[0], np.int64)
    for j in range(n_lost):
        b = lost[j]
        k = -1
        for q in range(count):
            if members[q] == b:
                k = q
        if k < 0:
            continue
        for u in range(st.shape[0]):
            if near[k, u] == 0 or tested[u] == 1 or st[u, ST_STATUS] != HOLD or engaged(st, u) \
                    or ui[u, UI_UNBREAKABLE] == 1:
                continue
            tested[u] = 1
            if ld_test(B, S, u):
                continue
            flee_from_nearest(B, S, u)
