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


@njit(cache=True, nogil=True)
def single_attack(hit_bound, hit_threshold, hit_table, dmg_bound, dmg_threshold, dmg_table,
                  state, n_trials, hist):
    """The one-attack chain specialised (scalars, no per-attack arrays): the benchmark kernel.

    Same tables and stream use as :func:`attack_chain` with one attack, so both give
    identical histograms for the same state. Returns (hits, crits) as int64.
    """
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    hb = np.uint64(hit_bound)
    db = np.uint64(dmg_bound)
    hthr = np.uint64(hit_threshold)
    dthr = np.uint64(dmg_threshold)
    hits = 0
    crits = 0
    for _ in range(n_trials):
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_hit, s0, s1, s2, s3 = _high(word, hb, hthr, s0, s1, s2, s3)
        i_dmg, s0, s1, s2, s3 = _low(word, db, dthr, s0, s1, s2, s3)
        outcome = np.int64(hit_table[i_hit])
        hit = (outcome + 1) >> 1
        hist[dmg_table[i_dmg] * hit] += 1
        hits += hit
        crits += outcome >> 1
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
    ``bound <= 2^32``; tables up to 6^6 entries (93 KB) stay in L2. Trials are counted
    in two interleaved histograms so that consecutive equal totals do not serialise on
    one memory cell. Returns (hits, crits) as int64.
    """
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    b = np.uint64(bound)
    thr = np.uint64(threshold)
    width = hist.shape[0]
    two = np.zeros((2, width), dtype=np.int64)
    hits = 0
    crits = 0
    for _ in range(n_trials >> 1):
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_first, s0, s1, s2, s3 = _high(word, b, thr, s0, s1, s2, s3)
        i_second, s0, s1, s2, s3 = _low(word, b, thr, s0, s1, s2, s3)
        v = np.int64(fused_table[i_first])
        w = np.int64(fused_table[i_second])
        two[0, v >> 2] += 1
        two[1, w >> 2] += 1
        ov = v & 3
        ow = w & 3
        hits += ((ov + 1) >> 1) + ((ow + 1) >> 1)
        crits += (ov >> 1) + (ow >> 1)
    if n_trials & 1:  # an odd count: one more trial from a fresh word's high half
        word, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        i_first, s0, s1, s2, s3 = _high(word, b, thr, s0, s1, s2, s3)
        v = np.int64(fused_table[i_first])
        two[0, v >> 2] += 1
        ov = v & 3
        hits += (ov + 1) >> 1
        crits += ov >> 1
    for i in range(width):
        hist[i] += two[0, i] + two[1, i]
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return hits, crits
