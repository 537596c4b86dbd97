"""Close-combat rounds (FB-C1..C7): numbers in, counts out.

Two sides (0 = A, 1 = B). Each side has *attack groups* (front-rank models, the
champion's extra attacks, supporting ranks, a mount's attacks). Every attack of a
group draws its outcome from a categorical table compiled in Python from the exact
per-attack chain (:func:`mathhammer.fantasy.chain.single_attack_outcomes`):
index k < K-1 = k unsaved wounds, index K-1 = slain outright (Killing Blow).
Break tests and pursuits are Bernoulli draws with probabilities compiled from the
exact rules (:mod:`mathhammer.fantasy.tests`), so every rule lives in one place.

The small helpers below (fighting models, ranks, combat score) are plain jitted
functions; the exact one-round engine in :mod:`mathhammer.fantasy.combat` calls the
very same functions (DESIGN rule 2).

Array layouts (all C-contiguous):
  g_side, g_kind, g_extra: int64 (G,)      group side, kind (0 front, 1 champion,
                                           2 support, 3 mount), spare
  g_attacks, g_key: int64 (2, G)           per model attacks / strike-order key,
                                           [0] first round, [1] later rounds
  g_cdf: float64 (2, G, K)                 cumulative outcome probabilities
  g_sum_cdf: float64 (2, G, N, T)          cumulative P(n attacks cause t wounds) for
                                           n < N; N = 0 where wounds do not add up
  s_int: int64 (2, NS)                     per-side integers, see S_* below
  p_pass: float64 (2, 2, L)                P(pass break test | side, steadfast, lost by)
  p_caught: float64 (2,)                   P(caught | side s flees)
  p_instab: float64 (2, L)                 daemonic instability: P(2D6 = v) for v < L
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import d6, uniform
from mathhammer.kernels.dice import sample_cdf as _sample

# per-side integer slots
S_MODELS, S_W, S_WIDTH, S_CONTACT, S_SUPPORT_RANKS, S_LD = 0, 1, 2, 3, 4, 5
S_STUBBORN, S_UNBREAKABLE, S_UNSTABLE, S_DAEMONIC, S_STANDARD, S_STATIC_CR = 6, 7, 8, 9, 10, 11
S_CHAMPION, S_RANK_MIN, S_MAX_RANK_BONUS, S_STEADFAST_RULE, S_MUSICIAN = 12, 13, 14, 15, 16
NS = 17

KIND_FRONT, KIND_CHAMPION, KIND_SUPPORT, KIND_MOUNT = 0, 1, 2, 3
MAX_LOST_BY = 64

# counter slots
C_WIN, C_DRAW, C_LOSE = 0, 1, 2
C_B_BROKE, C_B_DESTROYED, C_B_CAUGHT, C_A_BROKE, C_A_DESTROYED, C_A_CAUGHT = 3, 4, 5, 6, 7, 8
C_R1_WIN, C_R1_DRAW, C_R1_LOSE, C_CR1_SUM, C_CR1_SQ = 9, 10, 11, 12, 13
N_COUNTERS = 14


@njit(cache=True, nogil=True)
def alive(models0, w, wounds):
    """FB-V4: whole models left after ``wounds`` wounds on a unit of W-``w`` models."""
    left = models0 - wounds // w
    return left if left > 0 else 0


@njit(cache=True, nogil=True)
def attackers(kind, alive_start, slain_now, width, contact, support_ranks, has_champion):
    """FB-C1/FB-C3: models of a group that strike, after ``slain_now`` models died this
    round before striking (front rank first; the champion is the last front model)."""
    front0 = min(alive_start, width, contact)
    front = front0 - slain_now
    if front < 0:
        front = 0
    if kind == 0 or kind == 3:
        return front
    if kind == 1:
        return 1 if (has_champion == 1 and front >= 1) else 0
    # supporting ranks: each behind the front, up to ``contact`` models each
    behind = alive_start - min(alive_start, width)
    support0 = 0
    for _ in range(support_ranks):
        in_rank = min(behind, width)
        support0 += min(in_rank, contact)
        behind -= in_rank
    extra_slain = slain_now - front0
    if extra_slain < 0:
        extra_slain = 0
    support = support0 - extra_slain
    return support if support > 0 else 0


@njit(cache=True, nogil=True)
def ranks(models, width, rank_min):
    """Ranks of at least ``rank_min`` models, the first rank included (FB-C4/C5)."""
    if width < rank_min:
        return 0
    full = models // width
    count = full
    if models - full * width >= rank_min:
        count += 1
    return count


@njit(cache=True, nogil=True)
def combat_score(dealt, models_left, width, rank_min, max_rank_bonus, standard, static_bonus):
    """FB-C4: wounds caused + rank bonus (ranks behind the first, max) + standard + static
    bonuses (battle standard, flank / rear, stated bonus). Ranks counted after the fight."""
    if models_left <= 0:
        return dealt
    rank_bonus = ranks(models_left, width, rank_min) - 1
    if rank_bonus < 0:
        rank_bonus = 0
    if rank_bonus > max_rank_bonus:
        rank_bonus = max_rank_bonus
    return dealt + rank_bonus + (1 if standard == 1 else 0) + static_bonus


@njit(cache=True, nogil=True)
def _strike(g, r, n_models, g_attacks, g_cdf, g_sum_cdf, running, w, cap, state):
    """Roll every attack of group ``g``; returns the wounds added on top of ``running``.

    When the group's wounds add up (no Killing Blow slay against W > 1) the total of
    n attacks is one draw from its exact distribution ``g_sum_cdf[r, g, n]``;
    otherwise attack by attack, a slay adding the model's remaining wounds (chain.py).
    """
    n = n_models * g_attacks[r, g]
    if n < g_sum_cdf.shape[2]:
        added = _sample(g_sum_cdf[r, g, n], state)
        return added if running + added <= cap else cap - running
    added = 0
    slain_index = g_cdf.shape[2] - 1
    for _ in range(n):
        k = _sample(g_cdf[r, g], state)
        total = running + added
        if k == slain_index:
            added += w - total % w
        else:
            added += k
        if running + added >= cap:
            return cap - running
    return added


@njit(cache=True, nogil=True)
def combat_trials(g_side, g_kind, g_attacks, g_key, g_cdf, g_sum_cdf, step_keys, n_steps, s_int,
                  p_pass, p_caught, p_instab, max_rounds, state, n_trials,
                  counters, dealt_hist, taken_hist, left_a_hist, left_b_hist, rounds_hist):
    """Simulate ``n_trials`` combats of up to ``max_rounds`` rounds (FB-C1..C7).

    step_keys: int64 (2, S) distinct strike keys per round kind, highest first;
    n_steps: int64 (2,) how many are used. Counters/histograms are added to.
    """
    n_groups = g_side.shape[0]
    wounds = np.zeros(2, np.int64)
    start = np.zeros(2, np.int64)
    alive0 = np.zeros(2, np.int64)
    pending = np.zeros(2, np.int64)
    score = np.zeros(2, np.int64)
    caps = np.zeros(2, np.int64)
    for s in range(2):
        caps[s] = s_int[s, S_MODELS] * s_int[s, S_W]
    for _ in range(n_trials):
        wounds[0] = 0
        wounds[1] = 0
        broke = -1
        caught = 0
        rounds_fought = 0
        for rnd in range(max_rounds):
            r = 0 if rnd == 0 else 1
            rounds_fought += 1
            for s in range(2):
                start[s] = wounds[s]
                alive0[s] = alive(s_int[s, S_MODELS], s_int[s, S_W], wounds[s])
            for step in range(n_steps[r]):
                key = step_keys[r, step]
                pending[0] = 0
                pending[1] = 0
                for g in range(n_groups):
                    if g_key[r, g] != key:
                        continue
                    s = g_side[g]
                    o = 1 - s
                    slain_now = alive0[s] - alive(s_int[s, S_MODELS], s_int[s, S_W], wounds[s])
                    n = attackers(g_kind[g], alive0[s], slain_now, s_int[s, S_WIDTH],
                                  s_int[s, S_CONTACT], s_int[s, S_SUPPORT_RANKS],
                                  s_int[s, S_CHAMPION])
                    if n > 0:
                        pending[o] += _strike(g, r, n, g_attacks, g_cdf, g_sum_cdf, wounds[o] + pending[o],
                                              s_int[o, S_W], caps[o], state)
                wounds[0] += pending[0]
                wounds[1] += pending[1]
            # FB-C4 combat result
            for s in range(2):
                o = 1 - s
                left = alive(s_int[s, S_MODELS], s_int[s, S_W], wounds[s])
                score[s] = combat_score(wounds[o] - start[o], left, s_int[s, S_WIDTH],
                                        s_int[s, S_RANK_MIN], s_int[s, S_MAX_RANK_BONUS],
                                        s_int[s, S_STANDARD], s_int[s, S_STATIC_CR])
            diff = score[0] - score[1]
            if diff == 0:  # a draw: the side with a musician wins by 1 where the ruleset says so
                if s_int[0, S_MUSICIAN] > s_int[1, S_MUSICIAN]:
                    diff = 1
                elif s_int[1, S_MUSICIAN] > s_int[0, S_MUSICIAN]:
                    diff = -1
            if rnd == 0:
                d = score[0] - score[1]
                counters[C_CR1_SUM] += d
                counters[C_CR1_SQ] += d * d
                if diff > 0:
                    counters[C_R1_WIN] += 1
                elif diff < 0:
                    counters[C_R1_LOSE] += 1
                else:
                    counters[C_R1_DRAW] += 1
            left_a = alive(s_int[0, S_MODELS], s_int[0, S_W], wounds[0])
            left_b = alive(s_int[1, S_MODELS], s_int[1, S_W], wounds[1])
            if left_a == 0 or left_b == 0:
                break
            if diff == 0:
                continue
            loser = 1 if diff > 0 else 0
            winner = 1 - loser
            lost_by = diff if diff > 0 else -diff
            if s_int[loser, S_UNBREAKABLE] == 1:
                continue
            if s_int[loser, S_UNSTABLE] == 1:  # FB-C5: no test, lose wounds = difference
                wounds[loser] = min(wounds[loser] + lost_by, caps[loser])
                if alive(s_int[loser, S_MODELS], s_int[loser, S_W], wounds[loser]) == 0:
                    break
                continue
            if s_int[loser, S_DAEMONIC] == 1:  # FB-C5: 2D6 + difference - Ld wounds if positive
                loss = d6(state) + d6(state) + lost_by - s_int[loser, S_LD]
                if loss > 0:
                    wounds[loser] = min(wounds[loser] + loss, caps[loser])
                if alive(s_int[loser, S_MODELS], s_int[loser, S_W], wounds[loser]) == 0:
                    break
                continue
            ranks_loser = ranks(alive(s_int[loser, S_MODELS], s_int[loser, S_W], wounds[loser]),
                                s_int[loser, S_WIDTH], s_int[loser, S_RANK_MIN])
            ranks_winner = ranks(alive(s_int[winner, S_MODELS], s_int[winner, S_W], wounds[winner]),
                                 s_int[winner, S_WIDTH], s_int[winner, S_RANK_MIN])
            steadfast = 1 if (s_int[loser, S_STEADFAST_RULE] == 1 and ranks_loser > ranks_winner) else 0
            index = min(lost_by, p_pass.shape[2] - 1)
            if uniform(state) < p_pass[loser, steadfast, index]:
                continue
            broke = loser
            if uniform(state) < p_caught[loser]:  # FB-C6
                caught = 1
            break
        # tallies
        left_a = alive(s_int[0, S_MODELS], s_int[0, S_W], wounds[0])
        left_b = alive(s_int[1, S_MODELS], s_int[1, S_W], wounds[1])
        dead_a = left_a == 0 or (broke == 0 and caught == 1)
        dead_b = left_b == 0 or (broke == 1 and caught == 1)
        if broke == 1:
            counters[C_B_BROKE] += 1
            counters[C_B_CAUGHT] += caught
        elif broke == 0:
            counters[C_A_BROKE] += 1
            counters[C_A_CAUGHT] += caught
        if dead_a:
            counters[C_A_DESTROYED] += 1
        if dead_b:
            counters[C_B_DESTROYED] += 1
        a_out = dead_a or broke == 0
        b_out = dead_b or broke == 1
        if b_out and not a_out:
            counters[C_WIN] += 1
        elif a_out and not b_out:
            counters[C_LOSE] += 1
        else:
            counters[C_DRAW] += 1
        dealt_hist[wounds[1]] += 1
        taken_hist[wounds[0]] += 1
        left_a_hist[0 if dead_a else left_a] += 1
        left_b_hist[0 if dead_b else left_b] += 1
        rounds_hist[rounds_fought] += 1
