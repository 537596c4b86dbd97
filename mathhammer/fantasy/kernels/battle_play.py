"""Whole battles in the kernel: the best-response rollouts, victory points, a chunk of battles.

* :func:`best_response` (FB-B10): each option of the decision is played ``R_ROLLOUTS``
  times from a copy of the state to the end of the battle, rollout k of every option on
  the same stream (common random numbers), later decisions greedy (a best-response side)
  or by the side's own policy; the best mean VP margin for the deciding side wins.
* :func:`margin` (FB-B9): A's victory points minus B's, as ``rf`` / ``ri`` say.
* :func:`play_chunk`: battles ``start..n-1`` of one chunk, battle j on its own stream
  (:func:`~mathhammer.fantasy.kernels.battle_state.seed_stream` of the chunk's words and j), so a
  battle replayed after a miss is the same battle. Returns the battle that missed (or, in a
  probe pass, played on placeholders), or n.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.battle import END, FLIGHT, RALLY, START, step
from mathhammer.fantasy.kernels.battle_actions import OI_SLOT
from mathhammer.fantasy.kernels.battle_magic import K_CAST, magic_values
from mathhammer.fantasy.kernels.battle_state import (
    B_MODELS,
    B_W,
    DEAD,
    F_BELOW_QUARTER,
    F_DESTROYED,
    F_DRAW_LIMIT,
    F_FLEEING_END,
    FLED,
    FLEE,
    G_DONE,
    G_PHASE,
    G_SEAT,
    G_TURN,
    HOLD,
    MISS,
    NEED,
    OK,
    P_TAINTED,
    R_BSB_BONUS,
    R_GENERAL_BONUS,
    R_MAX_MARGIN,
    R_ROLLOUTS,
    R_STANDARD_BONUS,
    ST_CF,
    ST_CS,
    ST_CT,
    ST_FRENZIED,
    ST_FRESH,
    ST_MODELS,
    ST_PSM,
    ST_STATUS,
    ST_STDLOST,
    UI_BSB,
    UI_BSB_BODY,
    UI_FRENZY,
    UI_GENERAL,
    UI_GENERAL_BODY,
    UI_MODELS,
    UI_POINTS,
    borrow,
    copy_state,
    face_to,
    seed_stream,
)
from mathhammer.fantasy.kernels.battle_values import greedy_choice, option_values
from mathhammer.kernels.dice import next_u64

BR_Z = 2.0  # FB-B10: an alternative replaces greedy's choice when better by 2 paired se
# B.br_key (uint64, 16): the kept decision's stream (8 words), side, kind, unit, options, then
# whether it holds one, whether keeping is on (fantasy.battle.compile.KEEP_CLEAN_ROLLOUTS),
# and the rollouts played and kept so far (counted for benchmarks and tests)
BRK_VALID, BRK_ON, BRK_PLAYED, BRK_KEPT = 12, 13, 14, 15


# ---- victory points (FB-B9) -------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def _lost(B, S, u, body_col):
    st, wounds, bodies, ui = S.ust, S.wounds, B.bodies, B.ui
    s = st[u, ST_STATUS]
    if s == DEAD or s == FLED or s == FLEE:
        return True
    b = ui[u, body_col]
    return wounds[u, b] >= bodies[u, b, B_MODELS] * bodies[u, b, B_W]


@njit(cache=True, nogil=True, error_model="numpy")
def side_vp(B, S, side):
    """The VP ``side`` scores from the enemy's units."""
    ui, sides, nside, ri, rf = B.ui, B.sides, B.nside, B.ri, B.rf
    st = S.ust
    e = 1 - side
    total = 0.0
    for k in range(nside[e]):
        u = sides[e, k]
        s = st[u, ST_STATUS]
        points = ui[u, UI_POINTS]
        if s == DEAD or s == FLED:
            total += rf[F_DESTROYED] * points
        elif s == FLEE:
            total += rf[F_FLEEING_END] * points
        elif st[u, ST_MODELS] * 4 < ui[u, UI_MODELS]:
            total += rf[F_BELOW_QUARTER] * points
        if ui[u, UI_GENERAL] == 1 and ri[R_GENERAL_BONUS] > 0 and _lost(B, S, u, UI_GENERAL_BODY):
            total += ri[R_GENERAL_BONUS]
        if ui[u, UI_BSB] == 1 and ri[R_BSB_BONUS] > 0 and _lost(B, S, u, UI_BSB_BODY):
            total += ri[R_BSB_BONUS]
        if st[u, ST_STDLOST] == 1:
            total += ri[R_STANDARD_BONUS]
    return total


@njit(cache=True, nogil=True, error_model="numpy")
def margin(B, S):
    return side_vp(B, S, 0) - side_vp(B, S, 1)


@njit(cache=True, nogil=True, error_model="numpy")
def outcome(B, m):
    """0 A wins, 1 a draw, 2 B wins."""
    if abs(m) <= B.rf[F_DRAW_LIMIT] + 1e-9:
        return 1
    return 0 if m > 0 else 2


# ---- a battle ------------------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def init_battle(B, S, words, index):
    """Battle ``index`` of the stream ``words``: the deployment, everybody holding."""
    ui = B.ui
    pos0, contact0, fresh0 = B.pos0, B.contact0, B.fresh0
    pos, st, wounds, g, hist = S.pos, S.ust, S.wounds, S.g, S.hist
    for u in range(ui.shape[0]):
        pos[u, 0], pos[u, 1] = pos0[u, 0], pos0[u, 1]
        face_to(pos, u, pos0[u, 2])
    st[...] = 0
    wounds[...] = 0
    g[...] = 0
    hist[...] = 0
    for u in range(ui.shape[0]):
        st[u, ST_MODELS] = ui[u, UI_MODELS]
        st[u, ST_PSM] = ui[u, UI_MODELS]
        st[u, ST_FRENZIED] = ui[u, UI_FRENZY]
        st[u, ST_CT], st[u, ST_CF], st[u, ST_CS] = contact0[u, 0], contact0[u, 1], contact0[u, 2]
        st[u, ST_FRESH] = fresh0[u]
    g[G_TURN] = 1
    seed_stream(words, index, S.kstate)


# the thin functions above the step machine are inlined into the two entry points
# (play_chunk, first_decisions): compiled on their own, each would generate the machine code
# of the whole battle once more (docs/design.md, Kernels)
@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def play_rollout(B, S):
    while S.g[G_DONE] == 0:
        if step(B, S, -1, 1) == MISS:
            return MISS
    return OK


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def best_response(B, S):
    """(the option of the decision B.need, OK / MISS): greedy's choice, unless the rollouts
    show another better by more than BR_Z standard errors of the paired difference (rollout
    k of both options on the same stream: common random numbers)."""
    need = B.need
    side, kind, u, n = need[0], need[1], need[2], need[3]
    rollouts = B.ri[R_ROLLOUTS]
    slots = B.opt_i[:n, OI_SLOT].copy()
    probe, counts = B.probe, B.br_key
    # a main line that met a placeholder before this decision (first_decisions, RESUME off)
    # plays on from a state the real battle may not reach: nothing kept from it or for it
    line_clean = probe[P_TAINTED] == 0
    if kind >= K_CAST:  # FB-B12: a magic decision's values (kernels.battle_magic)
        magic_values(B, S, kind, n, B.vals)
    elif option_values(B, S, kind, u, n, B.opt_i, B.opt_f, B.vals) == MISS:
        return 0, MISS
    base = greedy_choice(B.vals, n)
    kept = _clean_rollouts(B, S, side, kind, u, n, rollouts, line_clean)  # before the seeds
    seeds = np.empty(rollouts, np.uint64)
    for k in range(rollouts):
        seeds[k] = next_u64(S.kstate)
    words = np.zeros(4, np.uint64)
    trial = B.sr
    sign = 1.0 if side == 0 else -1.0
    values = np.zeros((n, rollouts))
    for j in range(n):
        for k in range(rollouts):  # common random numbers: rollout k alike for every option
            if not math.isnan(kept[j, k]):
                values[j, k] = kept[j, k]
                counts[BRK_KEPT] += 1
                continue
            counts[BRK_PLAYED] += 1
            tainted = probe[P_TAINTED]
            probe[P_TAINTED] = 0
            copy_state(S, trial)
            words[0] = seeds[k]
            seed_stream(words, 0, trial.kstate)
            status = step(B, trial, j, 1)
            if status != MISS:
                status = play_rollout(B, trial)
            if status == MISS:
                probe[P_TAINTED] = max(tainted, probe[P_TAINTED])
                return 0, MISS
            values[j, k] = sign * margin(B, trial)
            if line_clean and probe[P_TAINTED] == 0:  # the same value in any later pass
                kept[j, k] = values[j, k]
            probe[P_TAINTED] = max(tainted, probe[P_TAINTED])
    best, best_gain = base, 0.0
    for j in range(n):
        if j == base:
            continue
        gain, se = _mean_se(values[j] - values[base])
        if gain > BR_Z * se and gain > best_gain:
            best, best_gain = j, gain
    first = B.first
    if first[side, 0] == 0 and kind < K_CAST:  # magic decisions are not listed (FB-B12)
        first[side, 0], first[side, 1], first[side, 2], first[side, 3] = 1, kind, u, n
        for j in range(n):
            mean, se = _mean_se(values[j])
            first[side, 4 + j], first[side, 20 + j], first[side, 36 + j] = mean, se, slots[j]
    return best, OK


@njit(cache=True, nogil=True, error_model="numpy")
def _clean_rollouts(B, S, side, kind, u, n, rollouts, line_clean):
    """The rollout values of this decision kept from an earlier pass (NaN: play it).

    A probe pass plays a step's rollouts on placeholders and the pass after the tables are
    built plays the step again from the same state (compile.RESUME); a rollout that found
    every table comes out the same (the same state, stream and tables), so its value is kept
    and only the rollouts that met a placeholder are played again. The key is the decision
    and the battle's stream before the rollouts' seeds are drawn (br_key[:8]): the main line
    draws from it at every decision, so no two decisions of one main line share it. Only a
    main line that found every table up to the decision keeps or takes values
    (``line_clean``): two such lines at the same stream are the same line, one that met a
    placeholder may reach the same stream in another state."""
    key, kept = B.br_key, B.br_val
    kst = S.kstate
    if key[BRK_ON] == 0 or not line_clean:
        key[BRK_VALID] = 0
        kept[:n, :rollouts] = np.nan
        return kept
    same = key[BRK_VALID] == 1
    for i in range(8):
        same = same and key[i] == kst[i]
    same = (same and key[8] == side and key[9] == kind and key[10] == u and key[11] == n)
    if not same:
        for i in range(8):
            key[i] = kst[i]
        key[8], key[9], key[10], key[11], key[BRK_VALID] = side, kind, u, n, 1
        kept[:n, :rollouts] = np.nan
    return kept


@njit(cache=True, nogil=True, error_model="numpy")
def _mean_se(x):
    k = x.shape[0]
    mean = x.sum() / k
    var = max((x * x).sum() / k - mean * mean, 0.0)
    return mean, (math.sqrt(var / (k - 1)) if k > 1 else 0.0)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def main_step(B, S):
    """One step of a battle's main line: a best-response decision by rollouts where one is
    needed (MISS: a table was missing)."""
    status = step(B, S, -1, 0)
    if status == NEED:
        choice, status = best_response(B, S)
        if status == MISS:
            return MISS
        status = step(B, S, choice, 0)
    return status


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def play_battle(B, S):
    """The main line of one battle (best-response decisions by rollouts)."""
    while S.g[G_DONE] == 0:
        if main_step(B, S) == MISS:
            return MISS
    return OK


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def play_resumable(B, S, j, ck, ck_decisions, ck_at):
    """The main line of battle j (as :func:`play_battle`), saving before each step the state
    and the decisions counted so far into ``ck`` — so a battle played again after its tables
    are built goes on from there (ck_at[0] = j). With ck_at[1] == 1 a probe pass stops
    after the step (its rollouts included) that met the first missing tables: the steps after
    it would follow placeholders, and ask for tables the battle may never need."""
    mine = B.decisions
    g = S.g
    while g[G_DONE] == 0:
        phase = g[G_PHASE]
        # the start, rally, flight and end steps look no table up (never MISS, never
        # tainted): the state before the step that misses is still saved, as before
        if phase != START and phase != RALLY and phase != FLIGHT and phase != END:
            copy_state(S, ck)  # every table so far was found: from here, the same steps again
            for k in range(mine.shape[0]):
                ck_decisions[k] = mine[k]
            ck_at[0] = j
        if main_step(B, S) == MISS or (B.probe[P_TAINTED] == 1 and ck_at[1] == 1):
            return MISS
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def play_chunk(battle, state, words, start, n, outcomes, margin2, margin_hist, status_hist,
               models_left, decisions, saved, ck_decisions, ck_at):
    """Battles start..n-1 of a chunk, counted; returns the battle that missed (not counted), or n.
    Battle ``start`` goes on from its saved state ``ck`` when ck_at[0] == start and ck_at[1]
    == 1 (the steps before it found every table: played again, they would be the same)."""
    B, S, ck = borrow(battle), borrow(state), borrow(saved)  # held by the caller throughout
    ui, ri = B.ui, B.ri
    st, hist = S.ust, S.hist
    first = B.first
    mine = B.decisions
    for j in range(start, n):
        if j == start and ck_at[0] == j and ck_at[1] == 1:
            copy_state(ck, S)
            mine[:] = ck_decisions
        else:
            init_battle(B, S, words, j)
            mine[:] = 0
            ck_at[0] = -1
        first[0, 0], first[1, 0] = 1, 1  # the first decisions are recorded on their own
        B.probe[P_TAINTED] = 0
        if play_resumable(B, S, j, ck, ck_decisions, ck_at) == MISS or B.probe[P_TAINTED] == 1:
            return j  # a table was missing: built, this battle is played again
        m = margin(B, S)
        outcomes[outcome(B, m)] += 1
        twice = np.int64(np.round(2 * m))
        margin2[0] += twice
        margin2[1] += twice * twice
        margin_hist[np.int64(math.floor(m + 0.5)) + ri[R_MAX_MARGIN]] += 1
        for t in range(hist.shape[0]):
            for u in range(ui.shape[0]):
                status_hist[t, u, hist[t, u]] += 1
        for u in range(ui.shape[0]):
            s = st[u, ST_STATUS]
            models_left[u, 0 if (s == FLED or s == DEAD) else st[u, ST_MODELS]] += 1
        for k in range(mine.shape[0]):
            decisions[k] += mine[k]
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def first_decisions(battle, state, words):
    """One battle on its own stream with the first decisions' values recorded (B.first)."""
    B, S = borrow(battle), borrow(state)  # held by the caller throughout
    init_battle(B, S, words, 0)
    B.decisions[:] = 0
    B.first[:, :] = 0
    B.probe[P_TAINTED] = 0
    if play_battle(B, S) == MISS or B.probe[P_TAINTED] == 1:
        return MISS
    return OK


__all__ = ["play_chunk", "first_decisions", "margin", "HOLD", "G_PHASE", "G_SEAT"]
