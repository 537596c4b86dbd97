"""Exact focus policy on the full state (WM-F5): backward induction over every state the
rules see, then the exact distribution under the chosen decisions, and a Monte Carlo
of the same decisions.

State = (control, grid). The control part is ``(node g, focus f, knocked down kd,
target engaged eng, effect flags fl)``, packed into one integer ``combo`` (see
:func:`combo_of`); the grid part is an interned grid state ``s`` (index into
``bits_of``: the uint64 marked-box mask of :mod:`mathhammer.warmachine.kernels.grid`).

* :func:`control_order` — the reachable control states in topological order (the
  control graph is acyclic: focus only falls inside an activation, roots come in order).
* :func:`build_grid` — every grid state reachable from the start by any damage,
  interned, with the dense transition table ``T[s, d, c]`` = the state after ``d``
  damage from column ``c`` (WM-G2), and ``TA`` the same followed by Critical Amputation (a track's tables have one column: the
  column does not matter).
* :func:`reach_states` — every (combo, s) reachable under *any* decision (or under
  forced decisions).
* :func:`backward` — the value of every reached state, best decision (or forced ones);
  dense rows ``V[row_of[combo], s]``.
* :func:`forward_rounds` — the exact distribution of final grid states, P(hit) of the
  i-th attack, the expected focus spent and each state's reach probability.
* :func:`simulate` — Monte Carlo of the decisions (by grid state, or by boxes left for
  the box-model fallback) on marked-box masks.

Attack transitions, as the rules say: the attack roll (boost decided before it); a hit
(critical or not, WM-A5) with its damage boost decided after it (WM-F2); damage marked
from a d6 column (WM-G2); a missed AOE may still catch the target with a blast roll
(WM-D4, probability ``p_under``); melee attacks engage the target, a slam moves it away
(WM-A6); knock-down from a hit or a critical (WM-A4); crippled M → DEF 7 and a crippled
shield → no +2 ARM, read from the grid state at each roll (WM-G4).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import next_u64, uniform
from mathhammer.warmachine.kernels.grid import (
    column_from_low_bits,
    mark_from,
    outcome_code,
    popcount,
    spread_codes,
    unit_from_high_bits,
)

EPS = 1e-12
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_U0 = np.uint64(0)
_U1 = np.uint64(1)


# ---------------------------------------------------------------------------- grid states
@njit(cache=True, nogil=True)
def intern(bits, hkeys, hvals, bits_of, n_states, shift):
    """Index of grid state ``bits`` (added when new); -1 when the table is full."""
    key = bits + _U1  # 0 marks an empty slot
    mask = hkeys.shape[0] - 1
    h = np.int64((key * _GOLDEN) >> np.uint64(shift))
    while True:
        k = hkeys[h]
        if k == _U0:
            s = n_states[0]
            if s >= bits_of.shape[0]:
                return -1
            hkeys[h] = key
            hvals[h] = s
            bits_of[s] = bits
            n_states[0] = s + 1
            return s
        if k == key:
            return hvals[h]
        h = (h + 1) & mask


@njit(cache=True, nogil=True)
def build_grid(full, width, col_start, amp_masks, use_amp, hkeys, hvals, shift, bits_of,
               n_states, T, TA):
    """Every grid state reachable from the interned start by any sequence of damage, in
    breadth-first order, with ``T[s, d, c]`` (and ``TA`` after Critical Amputation).

    Marking d boxes from column c takes the first d free boxes in fill order from the
    column's top, wrapping after column 6 (WM-G2): one pass over the cycle per (s, c).
    Returns the number of states, or -1 when ``bits_of`` is too small.
    """
    n_d = T.shape[1]
    free_pos = np.empty(64, dtype=np.int64)
    s = 0
    while s < n_states[0]:
        bits = bits_of[s]
        for c in range(6):
            n_free = 0
            start = col_start[c]
            for k in range(width):
                p = start + k
                if p >= width:
                    p -= width
                if (full >> np.uint64(p)) & _U1 and not (bits >> np.uint64(p)) & _U1:
                    free_pos[n_free] = p
                    n_free += 1
            nb = bits
            T[s, 0, c] = s
            if use_amp == 1:
                TA[s, 0, c] = s
            for d in range(1, n_d):
                if d > n_free:  # every free box is marked: more damage changes nothing
                    T[s, d, c] = T[s, d - 1, c]
                    if use_amp == 1:
                        TA[s, d, c] = TA[s, d - 1, c]
                    continue
                nb |= _U1 << np.uint64(free_pos[d - 1])
                t = intern(nb, hkeys, hvals, bits_of, n_states, shift)
                if t < 0:
                    return -1
                T[s, d, c] = t
                if use_amp == 1:
                    amp = nb
                    fresh = nb & ~bits
                    for j in range(amp_masks.shape[0]):
                        if (fresh & amp_masks[j]) != _U0:
                            amp |= amp_masks[j]
                    if amp != nb:  # else no fresh box was a system's: TA leads where T does
                        t = intern(amp, hkeys, hvals, bits_of, n_states, shift)
                        if t < 0:
                            return -1
                    TA[s, d, c] = t
        s += 1
    return n_states[0]


@njit(cache=True, nogil=True)
def build_fill_grid(heights, strides, bits_of, T):
    """The same tables for a grid whose marked boxes are top-of-column runs (no damage
    to the first available box of a system, no amputation): state index = the mixed-radix
    number of the marked count per column, every fill vector, no hashing.

    Marking d boxes from column c fills column c from its first unmarked box, then the
    next columns to the right, wrapping after column 6 (WM-G2).
    """
    n_s = bits_of.shape[0]
    n_d = T.shape[1]
    fill = np.zeros(6, dtype=np.int64)
    for s in range(n_s):
        rest = s
        bits = _U0
        for c in range(6):
            fill[c] = (rest // strides[c]) % (heights[c] + 1)
            bits |= ((_U1 << np.uint64(fill[c])) - _U1) << np.uint64(6 * c)
        bits_of[s] = bits
        for c in range(6):
            T[s, 0, c] = s
            for d in range(1, n_d):
                remaining = d
                t = s
                col = c
                for _ in range(6):
                    take = heights[col] - fill[col]
                    if take > remaining:
                        take = remaining
                    t += take * strides[col]
                    remaining -= take
                    if remaining == 0:
                        break
                    col = col + 1 if col < 5 else 0
                T[s, d, c] = t


@njit(cache=True, nogil=True)
def grid_facts(bits_of, full, m_mask, shield_mask, objective, goal_mask, start_left, left_of,
               mcrip_of, scrip_of, term):
    """Per grid state: boxes left, M crippled, shield crippled (WM-G3, WM-G4) and the
    final value: objective 0 — 1 if destroyed; 1 — boxes marked since the start; 2 — 1 if
    every box of ``goal_mask`` (a system) is marked."""
    for s in range(bits_of.shape[0]):
        bits = bits_of[s]
        left = popcount(full & ~bits)
        left_of[s] = left
        mcrip_of[s] = 1 if (m_mask != _U0 and (bits & m_mask) == m_mask) else 0
        scrip_of[s] = 1 if (shield_mask != _U0 and (bits & shield_mask) == shield_mask) else 0
        if objective == 0:
            term[s] = 1.0 if left == 0 else 0.0
        elif objective == 2:
            term[s] = 1.0 if (bits & goal_mask) == goal_mask else 0.0
        else:
            term[s] = float(start_left - left)


# ---------------------------------------------------------------------------- control states
# GR (graph): (G, SUCC) — G int64[13, nodes], rows: kind (0 attack, 1 choice), option, cost,
#     next, after_hit, succ_start, succ_count, (unused), stop, reset, entry_kd, entry_fl,
#     is_charge; SUCC the successor list (G[5, g] .. + G[6, g])
# OP (options): int64[8, options], rows: knock (bit 0 a hit, bit 1 a critical), eng (-1 keep,
#     1 engage, 0 move away), aoe (a miss may blast), flags set on a hit, can_bh, can_bd,
#     pre-boosted, amputation on a critical
# FORCED: (flag, fbh[g, f, kd], fbd[g, f, kd, crit], fch[g, f, kd]) — the decisions of a
#     fixed or greedy rule (flag 1) instead of the best ones


@njit(cache=True, inline="always")
def combo_of(g, f, kd, eng, fl, n_f, n_fl):
    return (((g * n_f + f) * 2 + kd) * 2 + eng) * n_fl + fl


@njit(cache=True, inline="always")
def split_combo(combo, n_f, n_fl):
    fl = combo % n_fl
    rest = combo // n_fl
    eng = rest % 2
    rest //= 2
    kd = rest % 2
    rest //= 2
    return rest // n_f, rest % n_f, kd, eng, fl


@njit(cache=True, inline="always")
def enter(node, f, kd, eng, fl, G, n_f, n_fl, end):
    """The combo of entering ``node`` (-1 = the end): a root resets the focus and applies
    what its activation starts with (a feat's knock-down and flags)."""
    if node < 0:
        return end
    if G[9, node] >= 0:
        f = G[9, node]
    kd = kd | G[10, node]
    fl = fl | G[11, node]
    return combo_of(node, f, kd, eng, fl, n_f, n_fl)


@njit(cache=True, inline="always")
def forced_bh(fbh, g, f, kd, feasible):
    """The forced boost-to-hit, 0 when the rule asks for one that is not allowed."""
    return fbh[g, f, kd] if feasible else 0


@njit(cache=True, inline="always")
def forced_bd(fbd, g, f, kd, crit, feasible):
    return fbd[g, f, kd, crit] if feasible else 0


@njit(cache=True, inline="always")
def _engaged_after(o, eng, OP):
    e = OP[1, o]
    return eng if e < 0 else e


@njit(cache=True, nogil=True)
def _control_successors(c, G, SUCC, OP, forced, fbh, fbd, fch, n_f, n_fl, end, out):
    """Combos one step after combo ``c`` under any (or the forced) decision; -1 when
    ``out`` is too small."""
    if c == end:
        return 0
    g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
    n = 0
    if G[0, g] == 1:
        for j in range(G[6, g]):
            t = SUCC[G[5, g] + j]
            if G[2, t] > f:
                continue
            if forced == 1 and fch[g, f, kd] != t:
                continue
            if n >= out.shape[0]:
                return -1
            out[n] = enter(t, f, kd, eng, fl, G, n_f, n_fl, end)
            n += 1
        if forced == 0 or fch[g, f, kd] < 0:
            if n >= out.shape[0]:
                return -1
            out[n] = enter(G[8, g], f, kd, eng, fl, G, n_f, n_fl, end)
            n += 1
        return n
    o = G[1, g]
    knock_hit, knock_crit = OP[0, o] & 1, (OP[0, o] >> 1) & 1
    eng2 = _engaged_after(o, eng, OP)
    fl2 = fl | OP[3, o]
    bh_ok = OP[4, o] == 1 and f - G[2, g] >= 1
    for bh in range(2):
        if bh == 1 and not bh_ok:
            continue
        if forced == 1 and bh != forced_bh(fbh, g, f, kd, bh_ok):
            continue
        f1 = f - G[2, g] - bh
        bd_ok = OP[5, o] == 1 and OP[6, o] == 0 and f1 >= 1
        for out_kind in range(4):  # miss, blast after a miss, hit, critical hit
            if out_kind == 1 and OP[2, o] == 0:
                continue
            for bd in range(2):
                if out_kind == 0 and bd == 1:
                    continue
                if bd == 1 and not bd_ok:
                    continue
                if forced == 1 and out_kind >= 1:
                    if bd != forced_bd(fbd, g, f, kd, 1 if out_kind == 3 else 0, bd_ok):
                        continue
                if out_kind == 0:
                    t = enter(G[3, g], f1, kd, eng2, fl, G, n_f, n_fl, end)
                elif out_kind == 1:
                    t = enter(G[3, g], f1 - bd, kd | knock_hit, eng2, fl2, G, n_f, n_fl, end)
                else:
                    kd2 = kd | knock_hit | (knock_crit if out_kind == 3 else 0)
                    t = enter(G[4, g], f1 - bd, kd2, eng2, fl2, G, n_f, n_fl, end)
                dup = False
                for i in range(n):
                    if out[i] == t:
                        dup = True
                        break
                if not dup:
                    if n >= out.shape[0]:
                        return -1
                    out[n] = t
                    n += 1
    return n


@njit(cache=True, nogil=True)
def control_order(start, GR, OP, FORCED, n_f, n_fl, n_combos, max_out):
    """Reachable combos in topological order (predecessors first), by an iterative
    depth-first search. Returns (order, problem): problem 1 = a cycle, 2 = too many
    successors for the buffer."""
    starts = np.empty(1, dtype=np.int64)
    starts[0] = start
    return control_order_from(starts, GR, OP, FORCED, n_f, n_fl, n_combos, max_out)


@njit(cache=True, nogil=True)
def control_order_from(starts, GR, OP, FORCED, n_f, n_fl, n_combos, max_out):
    """:func:`control_order` from several start combos (an activation entered with any
    knock-down, engagement and effect flags: the plan's programme, WM-P1)."""
    G, SUCC = GR
    forced, fbh, fbd, fch = FORCED
    end = n_combos
    state = np.zeros(n_combos + 1, dtype=np.int8)  # 0 new, 1 open, 2 done
    post = np.empty(n_combos + 1, dtype=np.int64)
    n_post = 0
    stack = np.empty(n_combos + 2, dtype=np.int64)
    pos = np.zeros(n_combos + 2, dtype=np.int64)
    succ = np.empty(max_out, dtype=np.int64)
    for start in starts:
        if state[start] != 0:
            continue
        top = 0
        stack[0] = start
        pos[0] = 0
        state[start] = 1
        while top >= 0:
            c = stack[top]
            n_succ = _control_successors(c, G, SUCC, OP, forced, fbh, fbd, fch, n_f, n_fl,
                                         end, succ)
            if n_succ < 0:
                return post[:0].copy(), 2
            k = pos[top]
            if k < n_succ:
                pos[top] = k + 1
                t = succ[k]
                if t == end:
                    continue
                if state[t] == 1:
                    return post[:0].copy(), 1
                if state[t] == 0:
                    state[t] = 1
                    top += 1
                    stack[top] = t
                    pos[top] = 0
                continue
            state[c] = 2
            post[n_post] = c
            n_post += 1
            top -= 1
    out = np.empty(n_post, dtype=np.int64)
    for i in range(n_post):
        out[i] = post[n_post - 1 - i]
    return out, 0


# ---------------------------------------------------------------------------- reachability
# GRID: (T int32[S, D, 6], TA int32[S or 1, D, 6], left_of int64[S], mcrip_of int8[S],
#        scrip_of int8[S], term float64[S])


@njit(cache=True, inline="always")
def _mark(reach, r, s):
    reach[r, s >> 6] |= _U1 << np.uint64(s & 63)


@njit(cache=True, nogil=True)
def _attack_targets(c, G, OP, forced, fbh, fbd, n_f, n_fl, end, mcrip, p_hit, p_under,
                    rows_out, tabs_out):
    """The branches of an attack state: target combo, table (0 none / 1 pmf / 2 bpmf), the
    table's boost row, amputation; returns how many (≤ 10)."""
    g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
    o = G[1, g]
    knock_hit, knock_crit = OP[0, o] & 1, (OP[0, o] >> 1) & 1
    amp_on = OP[7, o]
    eng2 = _engaged_after(o, eng, OP)
    fl2 = fl | OP[3, o]
    n = 0
    bh_ok = OP[4, o] == 1 and f - G[2, g] >= 1
    for bh in range(2):
        if bh == 1 and not bh_ok:
            continue
        if forced == 1 and bh != forced_bh(fbh, g, f, kd, bh_ok):
            continue
        f1 = f - G[2, g] - bh
        bd_ok = OP[5, o] == 1 and OP[6, o] == 0 and f1 >= 1
        ph = p_hit[o, bh, mcrip, kd, eng, fl]
        if ph < 1.0:
            rows_out[n] = enter(G[3, g], f1, kd, eng2, fl, G, n_f, n_fl, end)
            tabs_out[n, 0] = 0
            tabs_out[n, 1] = 0
            tabs_out[n, 2] = 0
            n += 1
        for out_kind in range(1, 4):
            if out_kind == 1 and (OP[2, o] == 0 or ph >= 1.0 or p_under[o] <= 0.0):
                continue
            if out_kind >= 2 and ph <= 0.0:
                continue
            if out_kind == 3 and knock_crit == 0 and amp_on == 0:
                continue
            for bd in range(2):
                if bd == 1 and not bd_ok:
                    continue
                if forced == 1 and bd != forced_bd(fbd, g, f, kd,
                                                   1 if out_kind == 3 else 0, bd_ok):
                    continue
                row = 1 if (bd == 1 or OP[6, o] == 1) else 0
                if out_kind == 1:
                    rows_out[n] = enter(G[3, g], f1 - bd, kd | knock_hit, eng2, fl2, G, n_f,
                                        n_fl, end)
                    tabs_out[n, 0] = 2
                    tabs_out[n, 2] = 0
                else:
                    crit = 1 if out_kind == 3 else 0
                    kd2 = kd | knock_hit | (knock_crit * crit)
                    rows_out[n] = enter(G[4, g], f1 - bd, kd2, eng2, fl2, G, n_f, n_fl, end)
                    tabs_out[n, 0] = 1
                    tabs_out[n, 2] = amp_on * crit
                tabs_out[n, 1] = row
                n += 1
    return n


@njit(cache=True, nogil=True)
def first_predecessor(order, GR, OP, FORCED, n_f, n_fl, p_hit, p_under, row_of):
    """For every row (and the end), the position in ``order`` of its first predecessor
    under any decision and outcome (``order.shape[0]``: none): a row's value is last read,
    and its mass first written, there (:func:`backward_slots`, :func:`forward_once`)."""
    G, SUCC = GR
    forced, fbh, fbd, fch = FORCED
    n = order.shape[0]
    end = row_of.shape[0] - 1
    first = np.full(n + 1, n, dtype=np.int64)
    succ = np.empty(max(2, G[6].max() + 2), dtype=np.int64)
    targets = np.empty(16, dtype=np.int64)
    tabs = np.zeros((16, 3), dtype=np.int64)
    for i in range(n):
        c = order[i]
        g = split_combo(c, n_f, n_fl)[0]
        if G[0, g] == 1:
            k = _control_successors(c, G, SUCC, OP, forced, fbh, fbd, fch, n_f, n_fl, end,
                                    succ)
            for j in range(k):
                rt = row_of[succ[j]] if succ[j] != end else n
                if rt >= 0 and first[rt] > i:
                    first[rt] = i
            continue
        for mcrip in range(p_hit.shape[2]):
            k = _attack_targets(c, G, OP, forced, fbh, fbd, n_f, n_fl, end, mcrip, p_hit,
                                p_under, targets, tabs)
            for j in range(k):
                rt = row_of[targets[j]] if targets[j] != end else n
                if rt >= 0 and first[rt] > i:
                    first[rt] = i
    return first


@njit(cache=True, nogil=True)
def reach_states(order, start_combo, start_s, GR, OP, FORCED, n_f, n_fl, GRID, p_hit, pmf, bpmf,
                 p_under, row_of, reach):
    """Mark every (combo, s) reachable from the start: choices all feasible successors (or
    the forced one), attacks every outcome with positive probability."""
    end = row_of.shape[0] - 1
    T, TA, left_of, mcrip_of, scrip_of = GRID[0], GRID[1], GRID[2], GRID[3], GRID[4]
    G, SUCC = GR
    forced, fbh, fbd, fch = FORCED
    n_d = pmf.shape[4]
    succ = np.empty(max(2, G[6].max() + 2), dtype=np.int64)
    targets = np.empty(16, dtype=np.int64)
    tabs = np.zeros((16, 3), dtype=np.int64)
    _mark(reach, row_of[start_combo], start_s)
    for i in range(order.shape[0]):
        c = order[i]
        r = row_of[c]
        g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
        o = G[1, g]
        for w in range(reach.shape[1]):
            word = reach[r, w]
            while word != _U0:
                low = word & (~word + _U1)
                word ^= low
                s = w * 64 + popcount(low - _U1)
                if left_of[s] == 0:
                    continue
                if G[0, g] == 1:
                    n = _control_successors(c, G, SUCC, OP, forced, fbh, fbd, fch, n_f, n_fl,
                                            end, succ)
                    for j in range(n):
                        if succ[j] != end:
                            _mark(reach, row_of[succ[j]], s)
                    continue
                n = _attack_targets(c, G, OP, forced, fbh, fbd, n_f, n_fl, end, mcrip_of[s],
                                    p_hit, p_under, targets, tabs)
                sc_ = scrip_of[s]
                for j in range(n):
                    t = targets[j]
                    if t == end:
                        continue
                    rt = row_of[t]
                    if tabs[j, 0] == 0:
                        _mark(reach, rt, s)
                        continue
                    amp = tabs[j, 2]
                    for d in range(n_d):
                        if tabs[j, 0] == 1:
                            q = pmf[o, sc_, tabs[j, 1], fl, d]
                        else:
                            q = bpmf[o, sc_, tabs[j, 1], fl, d]
                        if q <= 0.0:
                            continue
                        for col in range(T.shape[2]):  # one column on a track
                            s2 = TA[s, d, col] if amp == 1 else T[s, d, col]
                            if left_of[s2] > 0:
                                _mark(reach, rt, s2)


# ---------------------------------------------------------------------------- values
@njit(cache=True, nogil=True)
def _branch(rt, s, table, o, scrip, row, fl, amp, T, TA, V):
    """E over the damage roll and the column of the value after it (WM-D1, WM-G2); row
    ``rt`` of ``V`` holds the successor's values (destroyed states hold the final value)."""
    total = 0.0
    for d in range(table.shape[4]):
        q = table[o, scrip, row, fl, d]
        if q <= 0.0:
            continue
        if d == 0:
            total += q * V[rt, s]
            continue
        acc = 0.0
        n_col = T.shape[2]  # six columns on a grid, one on a track (all alike)
        if amp == 1:
            for col in range(n_col):
                acc += V[rt, TA[s, d, col]]
        else:
            for col in range(n_col):
                acc += V[rt, T[s, d, col]]
        total += q * acc / n_col
    return total


@njit(cache=True, nogil=True)
def attack_values(c, s, GR, OP, FORCED, n_f, n_fl, GRID, p_hit, p_crit, pmf, bpmf, p_under,
                  row_of, V, out, bits_out):
    """Value of an attack state with and without the boost to hit: ``out[bh]`` (-1 when
    not allowed); returns ``bits_out``: the damage-boost bits chosen for each (bit 1:
    after a hit, bit 2: after a critical, bit 3: after a missed AOE's blast)."""
    return _attack_values(c, s, GR[0], OP, FORCED[0], FORCED[1], FORCED[2], n_f, n_fl,
                          GRID[0], GRID[1], GRID[3], GRID[4], p_hit, p_crit, pmf, bpmf, p_under,
                          row_of, V, out, bits_out)


# The hot helpers take every array on its own: an array taken out of a tuple is reference
# counted (an atomic add and subtract each time), which was most of a solve's time.
@njit(cache=True, inline="always")
def _attack_flags(o, eng, fl, OP):
    """What attack option ``o`` does besides damage: knock-down on a hit and on a critical,
    amputation on a critical, whether criticals matter, engagement and flags after it, and
    whether its damage roll is boosted up front."""
    knock_hit, knock_crit = OP[0, o] & 1, (OP[0, o] >> 1) & 1
    amp_on = OP[7, o]
    crit_matters = 1 if (knock_crit == 1 or amp_on == 1) else 0
    return (knock_hit, knock_crit, amp_on, crit_matters, _engaged_after(o, eng, OP),
            fl | OP[3, o], OP[6, o])


@njit(cache=True, nogil=True)
def _attack_values(c, s, G, OP, forced, fbh, fbd, n_f, n_fl, T, TA, mcrip_of, scrip_of, p_hit,
                   p_crit, pmf, bpmf, p_under, row_of, V, out, bits_out):
    end = row_of.shape[0] - 1
    g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
    o = G[1, g]
    cost = G[2, g]
    mcrip, scrip = mcrip_of[s], scrip_of[s]
    knock_hit, knock_crit, amp_on, crit_matters, eng2, fl2, pre = _attack_flags(o, eng, fl, OP)
    bh_ok = OP[4, o] == 1 and f - cost >= 1
    for bh in range(2):
        out[bh] = -1.0
        bits_out[bh] = 0
        if bh == 1 and not bh_ok:
            continue
        if forced == 1 and bh != forced_bh(fbh, g, f, kd, bh_ok):
            continue  # a rule's decision: the other branch was never reached
        f1 = f - cost - bh
        can_bd = OP[5, o] == 1 and pre == 0 and f1 >= 1
        ph = p_hit[o, bh, mcrip, kd, eng, fl]
        pc = p_crit[o, bh, mcrip, kd, eng, fl] if crit_matters == 1 else 0.0
        v = 0.0
        chosen = 0
        if ph < 1.0:
            vm = V[row_of[enter(G[3, g], f1, kd, eng2, fl, G, n_f, n_fl, end)], s]
            pu = p_under[o] if OP[2, o] == 1 else 0.0
            if pu > 0.0:
                want = forced_bd(fbd, g, f, kd, 0, can_bd) if forced == 1 else -1
                vb = 0.0
                if want != 1:
                    t0 = row_of[enter(G[3, g], f1, kd | knock_hit, eng2, fl2, G, n_f, n_fl, end)]
                    vb = _branch(t0, s, bpmf, o, scrip, pre, fl, 0, T, TA, V)
                if can_bd and want != 0:
                    t1 = row_of[enter(G[3, g], f1 - 1, kd | knock_hit, eng2, fl2, G, n_f,
                                      n_fl, end)]
                    vb1 = _branch(t1, s, bpmf, o, scrip, 1, fl, 0, T, TA, V)
                    if want == 1 or vb1 > vb + EPS:
                        vb = vb1
                        chosen |= 8
                vm = (1.0 - pu) * vm + pu * vb
            v += (1.0 - ph) * vm
        for crit in range(1 + crit_matters):
            pb = (ph - pc) if crit == 0 else pc
            if pb <= 0.0:
                continue
            kd2 = kd | knock_hit | (knock_crit * crit)
            amp = amp_on * crit
            want = forced_bd(fbd, g, f, kd, crit, can_bd) if forced == 1 else -1
            vh = 0.0
            if want != 1:
                t0 = row_of[enter(G[4, g], f1, kd2, eng2, fl2, G, n_f, n_fl, end)]
                vh = _branch(t0, s, pmf, o, scrip, pre, fl, amp, T, TA, V)
            if can_bd and want != 0:
                t1 = row_of[enter(G[4, g], f1 - 1, kd2, eng2, fl2, G, n_f, n_fl, end)]
                vh1 = _branch(t1, s, pmf, o, scrip, 1, fl, amp, T, TA, V)
                if want == 1 or vh1 > vh + EPS:
                    vh = vh1
                    chosen |= 2 << crit
            v += pb * vh
        out[bh] = v
        bits_out[bh] = chosen
    return bits_out


@njit(cache=True, nogil=True)
def choice_values(c, s, GR, n_f, n_fl, row_of, V, out):
    """Value of each successor of a choice state (``out[j]``, -1 when it costs more focus
    than is left) and of stopping (returned)."""
    return _choice_values(c, s, GR[0], GR[1], n_f, n_fl, row_of, V, out)


@njit(cache=True, nogil=True)
def _choice_values(c, s, G, SUCC, n_f, n_fl, row_of, V, out):
    end = row_of.shape[0] - 1
    g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
    for j in range(G[6, g]):
        t = SUCC[G[5, g] + j]
        out[j] = -1.0
        if G[2, t] > f:
            continue
        out[j] = V[row_of[enter(t, f, kd, eng, fl, G, n_f, n_fl, end)], s]
    return V[row_of[enter(G[8, g], f, kd, eng, fl, G, n_f, n_fl, end)], s]


@njit(cache=True, nogil=True)
def backward(order, GR, OP, FORCED, n_f, n_fl, GRID, p_hit, p_crit, pmf, bpmf, p_under, row_of,
             reach, V, dec):
    """Values and decisions of every reached state, successors first (reverse topological
    order). ``V`` starts as the final value everywhere (its last row is the end, and a
    destroyed state keeps it). ``dec``: a choice state holds the successor's position
    (-1 stop); an attack state bit 0 boost hit, bits 1..3 the damage boosts of
    :func:`attack_values`."""
    backward_slots(order, GR, OP, FORCED, n_f, n_fl, GRID, p_hit, p_crit, pmf, bpmf, p_under,
                   row_of, row_of, np.zeros(0, dtype=np.int8), reach, V, dec)


@njit(cache=True, nogil=True)
def backward_slots(order, GR, OP, FORCED, n_f, n_fl, GRID, p_hit, p_crit, pmf, bpmf, p_under,
                   row_of, vrow_of, reset, reach, V, dec):
    """:func:`backward` with ``V`` indexed by ``vrow_of[combo]`` (a slot: rows whose readers
    are all done give theirs to later rows, :func:`value_slots`); a row with ``reset[row]``
    first takes the end's values (a slot another row used)."""
    T, TA, left_of, mcrip_of, scrip_of = GRID[0], GRID[1], GRID[2], GRID[3], GRID[4]
    G, SUCC = GR
    forced, fbh, fbd, fch = FORCED
    vals = np.empty(max(2, G[6].max()), dtype=np.float64)
    pair = np.empty(2, dtype=np.float64)
    bits = np.zeros(2, dtype=np.int64)
    end_v = vrow_of[vrow_of.shape[0] - 1]
    for i in range(order.shape[0] - 1, -1, -1):
        c = order[i]
        r = row_of[c]
        vr = vrow_of[c]
        if reset.shape[0] > 0 and reset[r] == 1:
            V[vr, :] = V[end_v, :]
        g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
        for w in range(reach.shape[1]):
            word = reach[r, w]
            while word != _U0:
                low = word & (~word + _U1)
                word ^= low
                s = w * 64 + popcount(low - _U1)
                if left_of[s] == 0:
                    continue
                if G[0, g] == 1:
                    stop_v = _choice_values(c, s, G, SUCC, n_f, n_fl, vrow_of, V, vals)
                    best_v, best_k = stop_v, -1
                    if forced == 1:
                        want = fch[g, f, kd]
                        for j in range(G[6, g]):
                            if SUCC[G[5, g] + j] == want and vals[j] >= 0.0:
                                best_v, best_k = vals[j], j
                    else:
                        for j in range(G[6, g]):
                            v = vals[j]
                            if v < 0.0:
                                continue
                            # ties go to attacking rather than stopping
                            if v > best_v + EPS or (best_k == -1 and v >= best_v - EPS):
                                best_v, best_k = v, j
                    V[vr, s] = best_v
                    dec[r, s] = best_k
                    continue
                _attack_values(c, s, G, OP, forced, fbh, fbd, n_f, n_fl, T, TA, mcrip_of,
                               scrip_of, p_hit, p_crit, pmf, bpmf, p_under, vrow_of, V, pair,
                               bits)
                bh = 0
                if forced == 1:
                    bh = 1 if pair[1] >= 0.0 else 0
                elif pair[1] >= 0.0 and pair[1] > pair[0] + EPS:  # ties: do not spend focus
                    bh = 1
                V[vr, s] = pair[bh]
                dec[r, s] = bh | bits[bh]


# ---------------------------------------------------------------------------- distribution
@njit(cache=True, inline="always")
def _take_choice(p, k, g, f, kd, eng, fl, G, SUCC, n_f, n_fl, end, charge):
    """The combo a choice state's mass ``p`` enters under its decision ``k`` (-1 stop),
    counting a charge's probability in ``charge``."""
    if k < 0:
        return enter(G[8, g], f, kd, eng, fl, G, n_f, n_fl, end)
    node = SUCC[G[5, g] + k]
    if G[12, node] >= 0:
        charge[G[12, node]] += p
    return enter(node, f, kd, eng, fl, G, n_f, n_fl, end)


@njit(cache=True, inline="always")
def _spread_attack(p, s, d_bits, g, f, kd, eng, fl, G, OP, n_f, n_fl, end, end_row, T, TA,
                   left_of, mcrip_of, scrip_of, p_hit, p_crit, pmf, bpmf, p_under, row_of,
                   n_d, dest, dest_slot, final, focus):
    """Pass an attack state's mass ``p`` on to its outcomes under the decision bits
    ``d_bits`` (miss, blast after a miss, hit, critical; the damage roll and its column):
    the end and destroyed states into ``final``, the rest into ``dest[dest_slot[row], s]``.
    Shared by :func:`forward` (one array per round) and :func:`forward_once` (mass slots).
    Returns P(hit) of the attack."""
    o = G[1, g]
    mcrip, scrip = mcrip_of[s], scrip_of[s]
    bh = d_bits & 1
    f1 = f - G[2, g] - bh
    knock_hit, knock_crit, amp_on, crit_matters, eng2, fl2, pre = _attack_flags(o, eng, fl, OP)
    ph = p_hit[o, bh, mcrip, kd, eng, fl]
    pc = p_crit[o, bh, mcrip, kd, eng, fl] if crit_matters == 1 else 0.0
    focus[0] += p * (G[2, g] + bh)
    pu = p_under[o] if OP[2, o] == 1 else 0.0
    q = p * (1.0 - ph) * (1.0 - pu)
    if q > 0.0:
        t = enter(G[3, g], f1, kd, eng2, fl, G, n_f, n_fl, end)
        if t == end:
            final[s] += q
        else:
            dest[dest_slot[row_of[t]], s] += q
    for out_kind in range(1, 4):  # blast after a miss, hit, critical
        if out_kind == 1:
            q = p * (1.0 - ph) * pu
            bd = (d_bits >> 3) & 1
            t = enter(G[3, g], f1 - bd, kd | knock_hit, eng2, fl2, G, n_f,
                      n_fl, end)
            amp = 0
        else:
            crit = out_kind - 2
            if crit == 1 and crit_matters == 0:
                continue
            q = p * ((ph - pc) if crit == 0 else pc)
            bd = (d_bits >> (1 + crit)) & 1
            kd2 = kd | knock_hit | (knock_crit * crit)
            t = enter(G[4, g], f1 - bd, kd2, eng2, fl2, G, n_f, n_fl, end)
            amp = amp_on * crit
        if q <= 0.0:
            continue
        focus[0] += q * bd
        row = 1 if (bd == 1 or pre == 1) else 0
        rt = row_of[t]
        for d in range(n_d):
            if out_kind == 1:
                qd = q * bpmf[o, scrip, row, fl, d]
            else:
                qd = q * pmf[o, scrip, row, fl, d]
            if qd <= 0.0:
                continue
            n_col = T.shape[2] if d > 0 else 1  # a track: one column
            for col in range(n_col):
                s2 = s if d == 0 else (TA[s, d, col] if amp == 1 else T[s, d, col])
                share = qd / n_col
                if rt == end_row or left_of[s2] == 0:
                    final[s2] += share
                else:
                    dest[dest_slot[rt], s2] += share
    return ph


@njit(cache=True, nogil=True)
def forward(order, GR, OP, n_f, n_fl, GRID, p_hit, p_crit, pmf, bpmf, p_under, row_of, reach,
            dec, cur, nxt, reachp, final, slots, focus, charge):
    """The exact distribution under the decisions ``dec``, one attack per round.

    ``cur`` holds the mass of the round (the start state's cell set to 1 by the caller),
    ``nxt`` collects the next round's; rows are visited in topological order so a choice
    passes its mass on within the round. Outputs: ``final[s]`` P(end in grid state s);
    ``reachp[row, s]`` P(passing through a decision state); ``slots[i] = (P(i-th attack
    made), P(it hits))`` (the last row pools the rest); ``focus[0]`` expected focus spent;
    ``charge[a]`` P(activation a charges).
    """
    end = row_of.shape[0] - 1
    end_row = row_of[end]
    T, TA, left_of, mcrip_of, scrip_of = GRID[0], GRID[1], GRID[2], GRID[3], GRID[4]
    G, SUCC = GR
    n_d = pmf.shape[4]
    n_slots = slots.shape[0]
    rows = np.arange(nxt.shape[0])  # forward's rounds index their array by row itself
    rnd = 0
    while True:
        moving = 0.0
        slot = rnd if rnd < n_slots else n_slots - 1
        for i in range(order.shape[0]):
            c = order[i]
            r = row_of[c]
            g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
            for w in range(reach.shape[1]):
                word = reach[r, w]
                while word != _U0:
                    low = word & (~word + _U1)
                    word ^= low
                    s = w * 64 + popcount(low - _U1)
                    p = cur[r, s]
                    if p == 0.0:
                        continue
                    cur[r, s] = 0.0
                    reachp[r, s] += p
                    if G[0, g] == 1:
                        t = _take_choice(p, dec[r, s], g, f, kd, eng, fl, G, SUCC, n_f, n_fl,
                                         end, charge)
                        if t == end:
                            final[s] += p
                        else:
                            cur[row_of[t], s] += p  # a later row of this round
                        continue
                    moving += p
                    ph = _spread_attack(p, s, dec[r, s], g, f, kd, eng, fl, G, OP, n_f, n_fl,
                                        end, end_row, T, TA, left_of, mcrip_of, scrip_of, p_hit,
                                        p_crit, pmf, bpmf, p_under, row_of, n_d, nxt, rows,
                                        final, focus)
                    slots[slot, 0] += p
                    slots[slot, 1] += p * ph
        rnd += 1
        if moving == 0.0:
            break
        cur, nxt = nxt, cur
    return rnd


@njit(cache=True, nogil=True)
def forward_once(order, GR, OP, n_f, n_fl, GRID, p_hit, p_crit, pmf, bpmf, p_under, row_of,
                 reach, dec, mslot, zero_after, mass, final, focus, charge):
    """The exact distribution under the decisions ``dec`` in one pass over the rows in
    topological order (every row's mass is complete when it is visited): ``mass[row, s]``
    holds P(passing through (row, s)) — the caller sets the entry cells — and the end's
    mass goes to ``final[s]``; ``focus[0]`` expected focus spent, ``charge[a]``
    P(activation a charges). One array where :func:`forward` needs three (the plan's
    activations on a large grid, WM-P1); no per-attack P(hit). A row's mass is in slot
    ``mslot[row]`` (:func:`mass_slots`), cleared after the row when ``zero_after[row]``."""
    end = row_of.shape[0] - 1
    end_row = row_of[end]
    T, TA, left_of, mcrip_of, scrip_of = GRID[0], GRID[1], GRID[2], GRID[3], GRID[4]
    G, SUCC = GR
    n_d = pmf.shape[4]
    for i in range(order.shape[0]):
        c = order[i]
        r = row_of[c]
        g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
        for w in range(reach.shape[1]):
            word = reach[r, w]
            while word != _U0:
                low = word & (~word + _U1)
                word ^= low
                s = w * 64 + popcount(low - _U1)
                p = mass[mslot[r], s]
                if p == 0.0 or left_of[s] == 0:
                    continue
                if G[0, g] == 1:
                    t = _take_choice(p, dec[r, s], g, f, kd, eng, fl, G, SUCC, n_f, n_fl, end,
                                     charge)
                    if t == end:
                        final[s] += p
                    else:
                        mass[mslot[row_of[t]], s] += p
                    continue
                _spread_attack(p, s, dec[r, s], g, f, kd, eng, fl, G, OP, n_f, n_fl, end,
                               end_row, T, TA, left_of, mcrip_of, scrip_of, p_hit, p_crit, pmf,
                               bpmf, p_under, row_of, n_d, mass, mslot, final, focus)
        if zero_after[r] == 1:
            mass[mslot[r], :] = 0.0


# ---------------------------------------------------------------------------- Monte Carlo
@njit(cache=True, inline="always")
def _sample(table, o, sc_, row, fl, u):
    n_d = table.shape[4]
    acc = 0.0
    for d in range(n_d):
        acc += table[o, sc_, row, fl, d]
        if u < acc:
            return d
    return n_d - 1


SAMPLE_GUIDE = 32  # guide buckets per damage row of the Monte Carlo kernel


@njit(cache=True, nogil=True)
def _cdf_guide(table):
    """Cumulative sums of every damage row of ``table`` (summed in :func:`_sample`'s order,
    so the same ``u`` draws the same damage) and a guide: for bucket j the first damage
    whose cumulative sum exceeds j / SAMPLE_GUIDE."""
    n_o, n_sc, n_row, n_fl, n_d = table.shape
    cdf = np.empty((n_o, n_sc, n_row, n_fl, n_d))
    guide = np.zeros((n_o, n_sc, n_row, n_fl, SAMPLE_GUIDE), dtype=np.int64)
    for o in range(n_o):
        for a in range(n_sc):
            for b in range(n_row):
                for fl in range(n_fl):
                    acc = 0.0
                    for d in range(n_d):
                        acc += table[o, a, b, fl, d]
                        cdf[o, a, b, fl, d] = acc
                    d = 0
                    for j in range(SAMPLE_GUIDE):
                        while d < n_d - 1 and cdf[o, a, b, fl, d] <= j / SAMPLE_GUIDE:
                            d += 1
                        guide[o, a, b, fl, j] = d
    return cdf, guide


@njit(cache=True, inline="always")
def _sample_guided(cdf, guide, o, sc_, row, fl, u):
    """:func:`_sample` from the cumulative sums, starting at the guide's damage."""
    n_d = cdf.shape[4]
    d = guide[o, sc_, row, fl, np.int64(u * SAMPLE_GUIDE)]
    while d < n_d - 1 and not u < cdf[o, sc_, row, fl, d]:
        d += 1
    return d


@njit(cache=True, nogil=True)
def simulate(start_combo, start_s, start_bits, GR, OP, n_f, n_fl, GRID, MASKS, p_hit, p_crit,
             pmf, bpmf, p_under, order, row_of, dec, by_left, box_n, state, n_trials, hist,
             crippled, destroyed, focus, slots, charge):
    """Monte Carlo of the decisions ``dec`` on marked-box masks (WM-G2 marking by
    :func:`mark_from`, independent of the tables above). ``by_left`` 0: decisions by grid
    state (followed through ``T``); 1: by boxes left, from a box-model policy on a track of
    ``box_n`` boxes (the fallback). ``MASKS``: (col_start, amp_masks, system_masks,
    scalars = full, width, m_mask, shield_mask). ``order``: the rows' combos (their parts
    are looked up, not divided out, at every step). Outputs: hist (boxes marked), crippled,
    destroyed, focus (sum, sum of squares), slots (i-th attack made, hit), charge[a]."""
    end = row_of.shape[0] - 1
    cdf, guide = _cdf_guide(pmf)
    bcdf, bguide = _cdf_guide(bpmf)
    parts = np.empty((order.shape[0], 5), dtype=np.int64)
    for i in range(order.shape[0]):
        g0, f0, kd0, eng0, fl0 = split_combo(order[i], n_f, n_fl)
        r0 = row_of[order[i]]
        parts[r0, 0] = g0
        parts[r0, 1] = f0
        parts[r0, 2] = kd0
        parts[r0, 3] = eng0
        parts[r0, 4] = fl0
    T, TA = GRID[0], GRID[1]
    G, SUCC = GR
    col_start, amp_masks, system_masks, sc = MASKS
    full, width, m_mask, shield_mask = sc[0], np.int64(sc[1]), sc[2], sc[3]
    start_marked = popcount(start_bits & full)
    n_slots = slots.shape[0]
    codes = np.zeros(128, dtype=np.int64)
    for _ in range(n_trials):
        c = start_combo
        s = start_s
        bits = start_bits
        spent = 0
        made = 0
        while True:
            left = popcount(full & ~bits)
            if c == end or left == 0:
                break
            r = row_of[c]
            if r >= 0:
                g, f, kd, eng, fl = parts[r, 0], parts[r, 1], parts[r, 2], parts[r, 3], parts[r, 4]
            else:
                g, f, kd, eng, fl = split_combo(c, n_f, n_fl)
            key = (box_n - left) if by_left == 1 else s
            if r < 0 or key < 0 or key >= dec.shape[1]:
                k = 0 if G[0, g] == 0 else -1  # a state the plan never saw: no boost, stop
            else:
                k = dec[r, key]
            if G[0, g] == 1:
                if k < 0:
                    c = enter(G[8, g], f, kd, eng, fl, G, n_f, n_fl, end)
                else:
                    t = SUCC[G[5, g] + k]
                    if G[12, t] >= 0:
                        charge[G[12, t]] += 1
                    c = enter(t, f, kd, eng, fl, G, n_f, n_fl, end)
                continue
            mcrip = 1 if (m_mask != _U0 and (bits & m_mask) == m_mask) else 0
            scrip = 1 if (shield_mask != _U0 and (bits & shield_mask) == shield_mask) else 0
            o = G[1, g]
            bh = k & 1
            if bh == 1 and (OP[4, o] == 0 or f - G[2, g] < 1):
                bh = 0
            f1 = f - G[2, g] - bh
            spent += G[2, g] + bh
            knock_hit, knock_crit = OP[0, o] & 1, (OP[0, o] >> 1) & 1
            amp_on = OP[7, o]
            eng2 = _engaged_after(o, eng, OP)
            fl2 = fl | OP[3, o]
            pre = OP[6, o]
            can_bd = OP[5, o] == 1 and pre == 0 and f1 >= 1
            slot = made if made < n_slots else n_slots - 1
            slots[slot, 0] += 1
            made += 1
            u = uniform(state)
            ph = p_hit[o, bh, mcrip, kd, eng, fl]
            if u < ph:
                slots[slot, 1] += 1
                # a critical is its own branch only where it changes something (WM-A5)
                crit = 1 if ((knock_crit == 1 or amp_on == 1)
                             and u < p_crit[o, bh, mcrip, kd, eng, fl]) else 0
                bd = (k >> (1 + crit)) & 1 if can_bd else 0
                blast = 0
                kd2 = kd | knock_hit | (knock_crit * crit)
                t = enter(G[4, g], f1 - bd, kd2, eng2, fl2, G, n_f, n_fl, end)
                amp = amp_on * crit
            else:
                pu = p_under[o] if OP[2, o] == 1 else 0.0
                if pu > 0.0 and uniform(state) < pu:
                    bd = (k >> 3) & 1 if can_bd else 0
                    blast = 1
                    t = enter(G[3, g], f1 - bd, kd | knock_hit, eng2, fl2, G, n_f, n_fl, end)
                    amp = 0
                else:
                    c = enter(G[3, g], f1, kd, eng2, fl, G, n_f, n_fl, end)
                    continue
            spent += bd
            row = 1 if (bd == 1 or pre == 1) else 0
            word = next_u64(state)
            u2 = unit_from_high_bits(word)
            d = _sample_guided(bcdf, bguide, o, scrip, row, fl, u2) if blast == 1 else \
                _sample_guided(cdf, guide, o, scrip, row, fl, u2)
            if d > 0:
                col = column_from_low_bits(word, state)
                new = mark_from(bits, full, col_start[col], np.int64(d), width)
                if amp == 1:
                    fresh = new & ~bits
                    for j in range(amp_masks.shape[0]):
                        if (fresh & amp_masks[j]) != _U0:
                            new |= amp_masks[j]
                bits = new
                if by_left == 0:
                    k = col if T.shape[2] == 6 else 0  # a track's tables have one column
                    s = TA[s, d, k] if amp == 1 else T[s, d, k]
            c = t
        hist[popcount(bits & full) - start_marked] += 1
        codes[outcome_code(bits, full, system_masks)] += 1
        focus[0] += spent
        focus[1] += spent * spent
    spread_codes(codes, system_masks.shape[0], crippled, destroyed)
