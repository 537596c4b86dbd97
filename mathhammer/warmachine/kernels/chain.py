"""Warmachine attack/damage chain kernels (WM-A*, WM-D1..D3): numbers in, counts out.

Each attack of a chain is described by two lookup tables built in Python from the
pure rules (``mathhammer.warmachine.rules``):

* ``hit_table[hit_offset[a] + i]`` (int8): 0 miss, 1 hit, 2 critical hit for attack
  roll index ``i`` in ``[0, hit_bound[a])`` where ``hit_bound[a] = 6^k``;
* ``dmg_table[dmg_offset[a] + j]`` (int64): damage dealt for damage roll index ``j``
  in ``[0, dmg_bound[a])``.

One xoshiro256** word per attack gives both rolls: its high 32 bits pick the attack
roll index and its low 32 bits the damage roll index, each by Lemire's exact
multiply-shift with rejection (``threshold = 2^32 mod bound``; rejection chance
< 6^6 / 2^32 ≈ 1e-5, so the redraw branch is almost never taken). The damage roll is
always drawn and multiplied by the hit flag, so the inner loop has no data-dependent
branch (docs/sources.md, "Performance figures": 2.4 ns per trial).

The generator state lives in four local uint64 variables during the loop and is
written back to ``state[0:4]`` at the end (state words 4.. are the digit buffer of
``kernels.dice`` and are left alone).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import high_half_below as _high
from mathhammer.kernels.dice import low_half_below as _low
from mathhammer.kernels.dice import xoshiro_step as _step


@njit(cache=True, nogil=True)
def attack_chain(hit_bound, hit_threshold, hit_offset, hit_table,
                 dmg_bound, dmg_threshold, dmg_offset, dmg_table,
                 state, n_trials, hist, hits, crits):
    """Simulate ``n_trials`` chains of attacks; add the total damage to ``hist``.

    Args:
        hit_bound, dmg_bound: uint64[n_attacks], 6^k of the attack / damage roll.
        hit_threshold, dmg_threshold: uint64[n_attacks], ``2^32 mod bound``.
        hit_offset, dmg_offset: int64[n_attacks], where each attack's table starts.
        hit_table: int8[...], 0 miss / 1 hit / 2 critical per roll index.
        dmg_table: int64[...], damage dealt per roll index (≥ 0).
        state: uint64[8] stream state (words 0..3 used and advanced).
        n_trials: int64.
        hist: int64[max_total + 1], incremented at each trial's total damage.
        hits, crits: int64[n_attacks], hits and critical hits per attack.
    """
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    n_attacks = hit_bound.shape[0]
    for _ in range(n_trials):
        total = 0
        for a in range(n_attacks):
            word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
            i_hit, s0, s1, s2, s3 = _high(word, hit_bound[a], hit_threshold[a], s0, s1, s2, s3)
            i_dmg, s0, s1, s2, s3 = _low(word, dmg_bound[a], dmg_threshold[a], s0, s1, s2, s3)
            outcome = np.int64(hit_table[hit_offset[a] + i_hit])
            hit = (outcome + 1) >> 1  # 0 → 0, 1 → 1, 2 → 1
            total += dmg_table[dmg_offset[a] + i_dmg] * hit
            hits[a] += hit
            crits[a] += outcome >> 1
        hist[total] += 1
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3


_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def _both_halves(word, hit_bound, hit_threshold, dmg_bound, dmg_threshold, s0, s1, s2, s3):
    """(attack roll index, damage roll index) from one word, as :func:`_high` then
    :func:`_low` give them: one test for both halves, the helpers only when one is rejected."""
    m_hit = (word >> _U32) * hit_bound
    m_dmg = (word & _MASK32) * dmg_bound
    if ((m_hit & _MASK32) < hit_threshold) | ((m_dmg & _MASK32) < dmg_threshold):
        i_hit, s0, s1, s2, s3 = _high(word, hit_bound, hit_threshold, s0, s1, s2, s3)
        i_dmg, s0, s1, s2, s3 = _low(word, dmg_bound, dmg_threshold, s0, s1, s2, s3)
        return i_hit, i_dmg, s0, s1, s2, s3
    return np.int64(m_hit >> _U32), np.int64(m_dmg >> _U32), s0, s1, s2, s3


@njit(cache=True, nogil=True)
def single_attack(hit_bound, hit_threshold, hit_table, dmg_bound, dmg_threshold, dmg_table,
                  state, n_trials, hist):
    """The one-attack chain specialised (scalars, no per-attack arrays): the benchmark kernel.

    Same tables and stream use as :func:`attack_chain` with one attack, so both give
    identical histograms for the same state. Returns (hits, crits) as int64.

    Each trial is one increment of a joint count by (outcome, damage) — two copies,
    alternate trials, so equal consecutive keys do not wait on one memory cell — and
    the histogram, hits and criticals are read off those counts after the loop.
    """
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    hb = np.uint64(hit_bound)
    db = np.uint64(dmg_bound)
    hthr = np.uint64(hit_threshold)
    dthr = np.uint64(dmg_threshold)
    width = hist.shape[0]  # damage 0..width - 1
    key = np.empty(hit_table.shape[0], np.int64)  # outcome row of the joint count
    for i in range(hit_table.shape[0]):
        key[i] = np.int64(hit_table[i]) * width
    joint = np.zeros(6 * width, np.int64)  # two copies of (outcome 0..2) × damage
    for _ in range(n_trials >> 1):
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_hit, i_dmg, s0, s1, s2, s3 = _both_halves(word, hb, hthr, db, dthr, s0, s1, s2, s3)
        joint[key[i_hit] + dmg_table[i_dmg]] += 1
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_hit, i_dmg, s0, s1, s2, s3 = _both_halves(word, hb, hthr, db, dthr, s0, s1, s2, s3)
        joint[3 * width + key[i_hit] + dmg_table[i_dmg]] += 1
    if n_trials & 1:
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_hit, i_dmg, s0, s1, s2, s3 = _both_halves(word, hb, hthr, db, dthr, s0, s1, s2, s3)
        joint[key[i_hit] + dmg_table[i_dmg]] += 1
    hits = 0
    crits = 0
    for outcome in range(3):
        for damage in range(width):
            k = joint[outcome * width + damage] + joint[(3 + outcome) * width + damage]
            hist[damage if outcome else 0] += k  # a miss deals 0 (WM-A1)
            hits += k * (outcome > 0)
            crits += k * (outcome == 2)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return hits, crits


@njit(cache=True, nogil=True)
def single_attack_fused(bound, threshold, fused_table, state, n_trials, hist):
    """One attack per trial, two trials per 64-bit word (the fastest form).

    ``fused_table[i]`` (int16) for a joint roll index ``i = a + 6^k_attack * d`` in
    ``[0, bound)`` holds ``damage << 2 | outcome`` (outcome 0 miss / 1 hit / 2
    critical; damage 0 on a miss). Each 32-bit half of a word is one trial, drawn by
    Lemire's method with rejection (``threshold = 2^32 mod bound``). Needs
    ``bound <= 2^32``; tables up to 6^6 entries (93 KB) stay in L2. Each trial is one
    increment of a count by its table value, in two interleaved copies so that
    consecutive equal values do not serialise on one memory cell; the histogram, hits
    and criticals are read off the counts after the loop. Returns (hits, crits) as int64.
    """
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    b = np.uint64(bound)
    thr = np.uint64(threshold)
    width = 4 * hist.shape[0]  # table values damage << 2 | outcome
    two = np.zeros(2 * width, dtype=np.int64)
    for _ in range(n_trials >> 1):
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_first, s0, s1, s2, s3 = _high(word, b, thr, s0, s1, s2, s3)
        i_second, s0, s1, s2, s3 = _low(word, b, thr, s0, s1, s2, s3)
        two[fused_table[i_first]] += 1
        two[width + fused_table[i_second]] += 1
    if n_trials & 1:  # an odd count: one more trial from a fresh word's high half
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_first, s0, s1, s2, s3 = _high(word, b, thr, s0, s1, s2, s3)
        two[fused_table[i_first]] += 1
    hits = 0
    crits = 0
    for value in range(width):
        k = two[value] + two[width + value]
        hist[value >> 2] += k
        outcome = value & 3
        hits += k * ((outcome + 1) >> 1)
        crits += k * (outcome >> 1)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return hits, crits
