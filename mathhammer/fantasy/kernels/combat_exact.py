"""One exact round of close combat from the fight's start, in one jitted call (FB-C1..C7, K, M).

The same chain as the Python exact engine (:mod:`mathhammer.fantasy.combat.exact`, the
reference) for ``rounds=1``: the strike steps in Initiative order over the wounds on every
body (and a challenge's overkill), each group's wounds from the compiled tables, then the
score, the break tests and the pursuit — the very helpers of :mod:`.combat` — booked into
the tallies the Monte Carlo kernel counts. States are arrays, merged by sorting a mixed-radix
code of (wounds, overkill A, overkill B), instead of Python dicts: the greedy values of a
battle (FB-B10, FB-B20) each ask one such round.

The per-step pmfs are the differences of the cumulative ``g_sum`` rows (the compiled exact
pmfs up to float rounding: the same probabilities to ~1e-15).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.combat import (
    B_BSB,
    B_MODEL,
    B_MODELS,
    B_UNIT,
    B_W,
    C_A_WINS,
    C_B_WINS,
    C_BOTH_OUT,
    C_BOTH_STANDING,
    C_R1_A,
    C_R1_B,
    C_R1_TIE,
    CAUGHT,
    DESTROYED,
    FLED,
    G_ENEMY,
    G_FRENZY,
    G_UNIT,
    IN,
    LD_OFFSET,
    PURSUED,
    U_DAEMONIC,
    U_FRENZY,
    U_MUSICIAN,
    U_MUSICIAN_RULE,
    U_RANK_MIN,
    U_SIDE,
    U_SIDE_INDEX,
    U_UNBREAKABLE,
    U_UNSTABLE,
    U_WIDTH,
    UC_BROKE,
    UC_CAUGHT,
    UC_DESTROYED,
    UC_HOLDING,
    any_engagement,
    attackers,
    body_alive,
    break_test,
    engaged,
    lose_wounds,
    pick_slot,
    ranks,
    round_geometry,
    side_out,
    side_score,
    still_fighting,
    unit_alive,
    unit_ld,
    unit_models,
    variant,
)


@njit(cache=True, nogil=True)
def _book(u_int, b_int, first_b, w, st, p, fought, counters, unit_counts, body_wounds,
          wounds_dealt, wounds_taken, models_left_a, models_left_b, rounds):
    """exact._settle: a finished fight (probability p) into the kernel's tallies."""
    a_out = side_out(0, u_int, st)
    b_out = side_out(1, u_int, st)
    if b_out and not a_out:
        counters[C_A_WINS] += p
    elif a_out and not b_out:
        counters[C_B_WINS] += p
    elif a_out and b_out:
        counters[C_BOTH_OUT] += p
    else:
        counters[C_BOTH_STANDING] += p
    for u in range(u_int.shape[0]):
        s = st[u]
        if s == DESTROYED or s == CAUGHT:
            unit_counts[u, UC_DESTROYED] += p
        if s == FLED or s == CAUGHT:
            unit_counts[u, UC_BROKE] += p
        if s == CAUGHT:
            unit_counts[u, UC_CAUGHT] += p
        if s == IN or s == PURSUED:
            unit_counts[u, UC_HOLDING] += p
    dealt = 0
    taken = 0
    for b in range(b_int.shape[0]):
        body_wounds[b, w[b]] += p
        if u_int[b_int[b, B_UNIT], U_SIDE] == 1:
            dealt += w[b]
        else:
            taken += w[b]
    wounds_dealt[dealt] += p
    wounds_taken[taken] += p
    gone_a = st[0] == DESTROYED or st[0] == CAUGHT
    gone_b = st[first_b] == DESTROYED or st[first_b] == CAUGHT
    models_left_a[0 if gone_a else unit_models(b_int, 0, w, 1)] += p
    models_left_b[0 if gone_b else unit_models(b_int, first_b, w, 1)] += p
    rounds[fought] += p


@njit(cache=True, nogil=True)
def _pursue_and_book(u_int, b_int, e_pair, p_caught, first_b, loser, w, st, p, diff, raw,
                     counters, r1, unit_counts, body_wounds, wounds_dealt, wounds_taken,
                     models_left_a, models_left_b, rounds):
    """exact._pursuit (FB-C6/C7): each fled unit of the loser caught or not, then booked."""
    n_u = u_int.shape[0]
    any_fled = False
    for u in range(n_u):
        if st[u] == FLED:
            any_fled = True
    n_br = 1
    ps = np.empty((1 << n_u, n_u), np.int64)
    pp = np.empty(1 << n_u)
    ps[0, :] = st
    pp[0] = p
    free = np.zeros(n_u, np.bool_)
    if any_fled:
        for v in range(n_u):
            free[v] = u_int[v, U_SIDE] != loser and st[v] == IN and not still_fighting(v, st, e_pair)
        for u in range(n_u):
            if st[u] != FLED or u_int[u, U_SIDE] != loser:
                continue
            mask = 0
            for v in range(n_u):
                if free[v] and engaged(u, v, e_pair):
                    mask |= 1 << u_int[v, U_SIDE_INDEX]
            if mask == 0:
                continue
            pc = p_caught[u, mask]
            m = n_br
            n_br = 0
            tmp_s = ps[:m].copy()
            tmp_p = pp[:m].copy()
            for i in range(m):
                if pc > 0:
                    ps[n_br, :] = tmp_s[i]
                    ps[n_br, u] = CAUGHT
                    pp[n_br] = tmp_p[i] * pc
                    n_br += 1
                if pc < 1:
                    ps[n_br, :] = tmp_s[i]
                    pp[n_br] = tmp_p[i] * (1 - pc)
                    n_br += 1
    for i in range(n_br):
        sb = ps[i]
        if any_fled:
            for v in range(n_u):
                if free[v]:
                    for u in range(n_u):
                        if engaged(u, v, e_pair) and (sb[u] == FLED or sb[u] == CAUGHT):
                            sb[v] = PURSUED
                            break
        q = pp[i]
        r1[0] += q * raw
        r1[1] += q * raw * raw
        if diff > 0:
            counters[C_R1_A] += q
        elif diff < 0:
            counters[C_R1_B] += q
        else:
            counters[C_R1_TIE] += q
        _book(u_int, b_int, first_b, w, sb, q, 1, counters, unit_counts, body_wounds,
              wounds_dealt, wounds_taken, models_left_a, models_left_b, rounds)


@njit(cache=True, nogil=True)
def _after_strikes(u_int, b_int, e_pair, p_ld, p_caught, p_instab, refused, ok_cap, first_b,
                   w0, ok_a, ok_b, p, counters, r1, unit_counts, body_wounds, wounds_dealt,
                   wounds_taken, models_left_a, models_left_b, rounds):
    """exact._after_strikes_of (FB-C4/C5/C6, M2..M4) from the start: score, musician, each
    losing unit's test in unit order, then the pursuit."""
    n_u, n_b = u_int.shape[0], b_int.shape[0]
    dealt0 = 0
    dealt1 = 0
    for b in range(n_b):
        if u_int[b_int[b, B_UNIT], U_SIDE] == 1:
            dealt0 += w0[b]
        else:
            dealt1 += w0[b]
    st0 = np.zeros(n_u, np.int64)
    for u in range(n_u):
        if not unit_alive(b_int, u, w0):
            st0[u] = DESTROYED
    score_a = side_score(0, u_int, b_int, w0, st0, dealt0 + min(ok_a, ok_cap))
    score_b = side_score(1, u_int, b_int, w0, st0, dealt1 + min(ok_b, ok_cap))
    raw = score_a - score_b
    diff = raw
    if diff == 0:
        mus_a = 0
        mus_b = 0
        for u in range(n_u):
            if st0[u] == IN and u_int[u, U_MUSICIAN] == 1 and u_int[u, U_MUSICIAN_RULE] == 1:
                if u_int[u, U_SIDE] == 0:
                    mus_a = 1
                else:
                    mus_b = 1
        diff = 1 if mus_a > mus_b else -1 if mus_b > mus_a else 0
    if diff == 0:
        _pursue_and_book(u_int, b_int, e_pair, p_caught, first_b, -1, w0, st0, p, diff, raw,
                         counters, r1, unit_counts, body_wounds, wounds_dealt, wounds_taken,
                         models_left_a, models_left_b, rounds)
        return
    loser = 1 if diff > 0 else 0
    lost_by = abs(diff)
    enemy_ranks = 0
    for e in range(n_u):
        if u_int[e, U_SIDE] != loser and st0[e] == IN:
            r = ranks(unit_models(b_int, e, w0, 1), u_int[e, U_WIDTH], u_int[e, U_RANK_MIN])
            if r > enemy_ranks:
                enemy_ranks = r
    bsb_alive = False
    for b in range(n_b):
        if (b_int[b, B_BSB] == 1 and u_int[b_int[b, B_UNIT], U_SIDE] == loser
                and body_alive(b_int, b, w0) > 0):
            bsb_alive = True
    # branches over each losing unit's test, in unit order; at most 14 a unit (2D6 or pass/fail)
    bound = 1
    for u in range(n_u):
        if u_int[u, U_SIDE] == loser:
            bound *= p_instab.shape[0] + 1
    bw = np.empty((bound, n_b), np.int64)
    bs = np.empty((bound, n_u), np.int64)
    bp = np.empty(bound)
    bw[0, :] = w0
    bs[0, :] = st0
    bp[0] = p
    n_br = 1
    for u in range(n_u):
        if u_int[u, U_SIDE] != loser:
            continue
        m = n_br
        tw = bw[:m].copy()
        ts = bs[:m].copy()
        tp = bp[:m].copy()
        n_br = 0
        for i in range(m):
            wb, sb, pb = tw[i], ts[i], tp[i]
            if sb[u] != IN or u_int[u, U_UNBREAKABLE] == 1:
                bw[n_br, :] = wb
                bs[n_br, :] = sb
                bp[n_br] = pb
                n_br += 1
                continue
            if u_int[u, U_UNSTABLE] == 1 or u_int[u, U_DAEMONIC] == 1:
                if u_int[u, U_UNSTABLE] == 1:
                    lo, hi, ld = 0, 1, 0
                else:
                    lo, hi = 0, p_instab.shape[0]
                    ld = unit_ld(u, u_int, b_int, wb, refused)
                for roll in range(lo, hi):
                    if u_int[u, U_UNSTABLE] == 1:
                        loss, q = lost_by, 1.0
                    else:
                        loss, q = roll + lost_by - ld, p_instab[roll]
                        if q == 0.0:
                            continue
                    bw[n_br, :] = wb
                    bs[n_br, :] = sb
                    if loss > 0:
                        lose_wounds(u, loss, b_int, bw[n_br])
                    if not unit_alive(b_int, u, bw[n_br]):
                        bs[n_br, u] = DESTROYED
                    bp[n_br] = pb * q
                    n_br += 1
                continue
            tested, reroll = break_test(u, u_int, b_int, wb, sb, refused, lost_by, enemy_ranks,
                                        bsb_alive)
            pp = p_ld[reroll, tested + LD_OFFSET]
            if pp > 0:
                bw[n_br, :] = wb
                bs[n_br, :] = sb
                bp[n_br] = pb * pp
                n_br += 1
            if pp < 1:
                bw[n_br, :] = wb
                bs[n_br, :] = sb
                bs[n_br, u] = FLED
                bp[n_br] = pb * (1 - pp)
                n_br += 1
    for i in range(n_br):
        _pursue_and_book(u_int, b_int, e_pair, p_caught, first_b, loser, bw[i], bs[i], bp[i],
                         diff, raw, counters, r1, unit_counts, body_wounds, wounds_dealt,
                         wounds_taken, models_left_a, models_left_b, rounds)


@njit(cache=True, nogil=True)
def _grow2(a, need):
    out = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def _grow1(a, need):
    out = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def one_round(u_int, b_int, g_int, g_key, g_slot, g_pref, g_sum, e_pair, chal, p_ld, p_caught,
              p_instab, charged, counters, r1, unit_counts, body_wounds, wounds_dealt,
              wounds_taken, models_left_a, models_left_b, rounds):
    """Book the exact distribution of one round from the start into the tallies (r1 = the
    first round's raw score difference: [sum, sum of squares])."""
    n_u, n_b, n_g = u_int.shape[0], b_int.shape[0], g_int.shape[0]
    first_b = 0
    for u in range(n_u):
        if u_int[u, U_SIDE] == 1:
            first_b = u
            break
    start = np.zeros(n_b, np.int64)
    status = np.zeros(n_u, np.int64)
    if not any_engagement(status, e_pair):
        _book(u_int, b_int, first_b, start, status, 1.0, 0, counters, unit_counts, body_wounds,
              wounds_dealt, wounds_taken, models_left_a, models_left_b, rounds)
        return
    fresh = np.ones(n_u, np.int64)
    caps = np.empty(n_b, np.int64)
    for b in range(n_b):
        caps[b] = b_int[b, B_MODELS] * b_int[b, B_W]
    in_duel, model_a, model_b = 0, -1, -1
    if chal[2] == 1 and body_alive(b_int, chal[0], start) > 0 and body_alive(b_int, chal[1], start) > 0:
        in_duel, model_a, model_b = 1, b_int[chal[0], B_MODEL], b_int[chal[1], B_MODEL]
    refused = chal[1] if chal[2] == 2 else -1
    if chal[2] == 2 and body_alive(b_int, chal[0], start) == 0:
        refused = -1
    ok_cap = chal[3]
    ok_room = ok_cap if ok_cap > 0 else 0  # only min(overkill, cap) counts: states merge above it
    active = np.zeros(n_g, np.bool_)
    gkey = np.full(n_g, -1, np.int64)
    for g in range(n_g):
        u, e = g_int[g, G_UNIT], g_int[g, G_ENEMY]
        if not engaged(u, e, e_pair):
            continue
        key = g_key[g, variant(u, fresh, charged)]
        if key < 0:
            continue
        active[g] = True
        gkey[g] = key
    keys = np.unique(gkey[active])[::-1]  # strike steps, highest Initiative first
    geo = np.zeros((max(n_g, 1), 4), np.int64)
    round_geometry(u_int, b_int, g_int, start, geo)
    # mixed-radix code of a state (the caller checks it fits in int64)
    stride = np.empty(n_b + 2, np.int64)
    s = 1
    for b in range(n_b):
        stride[b] = s
        s *= caps[b] + 1
    stride[n_b] = s
    stride[n_b + 1] = s * (ok_room + 1)
    width = g_sum.shape[4]
    sw = np.zeros((1, n_b), np.int64)
    sa = np.zeros(1, np.int64)
    sb = np.zeros(1, np.int64)
    sp = np.ones(1)
    n = 1
    dist = np.zeros((n_b, width * max(n_g, 1)))
    dlen = np.zeros(n_b, np.int64)
    order = np.zeros(n_b, np.int64)
    tmp = np.zeros(width * max(n_g, 1))
    row = np.zeros(width)
    for key in keys:
        cw = np.empty((max(4 * n, 16), n_b), np.int64)
        ca = np.empty(cw.shape[0], np.int64)
        cb = np.empty(cw.shape[0], np.int64)
        cp = np.empty(cw.shape[0])
        m = 0
        for i in range(n):
            w = sw[i]
            nbody = 0
            for g in range(n_g):
                if gkey[g] != key:
                    continue
                u = g_int[g, G_UNIT]
                v = variant(u, fresh, charged)
                na = attackers(g, g_int, u_int, b_int, start, w, refused, geo)
                if na <= 0:
                    continue
                slot = pick_slot(g, g_int, g_slot, g_pref, b_int, w, in_duel, model_a, model_b)
                if slot < 0:
                    continue
                fr = 1 if (g_int[g, G_FRENZY] == 1 and u_int[u, U_FRENZY] == 1) else 0
                cum = g_sum[g, slot, 2 * v + fr, na]
                last = 0
                prev = 0.0
                for k in range(width):
                    row[k] = cum[k] - prev
                    prev = cum[k]
                    if row[k] != 0.0:
                        last = k
                target = g_slot[g, slot]
                j = 0
                while j < nbody and order[j] != target:
                    j += 1
                if j == nbody:
                    order[j] = target
                    dist[j, :last + 1] = row[:last + 1]
                    dlen[j] = last + 1
                    nbody += 1
                else:  # two groups at one body in one step: their wounds add
                    size = dlen[j] + last
                    tmp[:size] = 0.0
                    for a in range(dlen[j]):
                        for c in range(last + 1):
                            tmp[a + c] += dist[j, a] * row[c]
                    dist[j, :size] = tmp[:size]
                    dlen[j] = size
            # the product over the bodies struck in this step, the first body outermost
            total = 1
            for j in range(nbody):
                total *= dlen[j]
            if m + total > cw.shape[0]:
                cw = _grow2(cw, m + total)
                ca = _grow1(ca, cw.shape[0])
                cb = _grow1(cb, cw.shape[0])
                cp = _grow1(cp, cw.shape[0])
            for idx in range(total):
                rest = idx
                q = 1.0
                oa = sa[i]
                ob = sb[i]
                cw[m, :] = w
                for j in range(nbody - 1, -1, -1):
                    added = rest % dlen[j]
                    rest //= dlen[j]
                    cw[m, order[j]] = added  # placeholder, fixed below in body order
                zero = False
                for j in range(nbody):
                    b = order[j]
                    added = cw[m, b]
                    qj = dist[j, added]
                    if qj == 0.0:
                        zero = True
                        break
                    q *= qj
                    room = caps[b] - w[b]
                    took = added if added < room else room
                    cw[m, b] = w[b] + took
                    mdl = b_int[b, B_MODEL]
                    if in_duel == 1 and (mdl == model_a or mdl == model_b):
                        if u_int[b_int[b, B_UNIT], U_SIDE] == 1:
                            oa += added - took  # side A struck it
                        else:
                            ob += added - took
                if zero:
                    continue
                ca[m] = oa if oa < ok_room else ok_room
                cb[m] = ob if ob < ok_room else ok_room
                cp[m] = sp[i] * q
                m += 1
        # merge equal states (stable: a state's probability summed in the order it was made)
        code = np.empty(m, np.int64)
        for i in range(m):
            c = ca[i] * stride[n_b] + cb[i] * stride[n_b + 1]
            for b in range(n_b):
                c += cw[i, b] * stride[b]
            code[i] = c
        srt = np.argsort(code, kind="mergesort")
        sw = np.empty((m, n_b), np.int64)
        sa = np.empty(m, np.int64)
        sb = np.empty(m, np.int64)
        sp = np.empty(m)
        n = 0
        for r in range(m):
            i = srt[r]
            if r > 0 and code[i] == code[srt[r - 1]]:
                sp[n - 1] += cp[i]
                continue
            sw[n, :] = cw[i]
            sa[n] = ca[i]
            sb[n] = cb[i]
            sp[n] = cp[i]
            n += 1
    for i in range(n):
        _after_strikes(u_int, b_int, e_pair, p_ld, p_caught, p_instab, refused, ok_cap, first_b,
                       sw[i], sa[i], sb[i], sp[i], counters, r1, unit_counts, body_wounds,
                       wounds_dealt, wounds_taken, models_left_a, models_left_b, rounds)
