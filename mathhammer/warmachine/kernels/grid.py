"""Warjack damage grid kernels: one uint64 per grid (WM-G1..G7), Monte Carlo and exact.

Bit layout (built by :mod:`mathhammer.warmachine.grid`): box ``r`` (0 = top) of
column ``c`` (0 = column 1) is bit ``6c + r``. Fill order is then bit order, so

* "mark ``dmg`` boxes from the top-most unmarked box of column c, overflow to the
  right, wrap after column 6" (WM-G2) = set the next ``dmg`` zero bits of ``full``
  cyclically from bit ``6c`` (:func:`mark_from`);
* "first available X box" (WM-G5) = lowest zero bit of X's mask;
* crippled / destroyed (WM-G3) are mask tests.

A damage track of N boxes (WM-G6) is the same word with bits 0..N-1 and every
column start at bit 0. Bit 63 carries the target's knocked-down flag in the exact
engine (it is never part of ``full``).

Where PDEP is fast (:data:`mathhammer.kernels.bits.FAST_PDEP`) :func:`mark_pdep`
rotates the free boxes to the column start and deposits ``dmg`` ones into them.
The portable :func:`mark_from` keeps the free boxes below the dmg-th set bit,
found by a branch-free broadword select. (A loop clearing the lowest set bit
``dmg`` times was 4x slower here: its trip count varies with the damage roll and
the branch mispredicts.)

:func:`sequence_lut` is the fast Monte Carlo of a sequence (integer draws and
lookup tables, one RNG word per attack); :func:`sequence_mc` (float CDF tables) is
kept for outcome tables whose probabilities are not multiples of 6^-k.

Kernels take flat numbers and arrays only. Attack steps arrive as outcome tables:
``table[step, variant, o]`` with outcome ``o = 0`` a miss and ``o = 1 + d`` a hit
dealing ``d`` damage (already after ARM), ``variant = movement_crippled +
2 * knocked_down + 4 * shield_crippled`` (:func:`situation`); the tables come from the
per-roll rules, so no rule is re-implemented here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.bits import pdep, popcount64
from mathhammer.kernels.dice import d6, next_u64, xoshiro_step

_U0 = np.uint64(0)
_U1 = np.uint64(1)
KD_BIT = np.uint64(1) << np.uint64(63)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_U56 = np.uint64(56)


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a uint64 (SWAR; numba has no popcnt intrinsic)."""
    x = x - ((x >> _U1) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> _U56)


def _select_in_byte_table() -> np.ndarray:
    table = np.zeros(256 * 8, dtype=np.int8)  # int8: 2 KB of L1, not 16
    for byte in range(256):
        positions = [b for b in range(8) if byte >> b & 1]
        for j, pos in enumerate(positions):
            table[byte * 8 + j] = pos
    return table


SELECT_IN_BYTE = _select_in_byte_table()  # [byte * 8 + j] = position of the j-th set bit
_H80 = np.uint64(0x8080808080808080)
_FF = np.uint64(0xFF)
_U7 = np.uint64(7)
_U8 = np.uint64(8)


@njit(cache=True, inline="always")
def select_bit(x, k):
    """Position of the k-th (1-based) set bit of ``x``; requires 1 <= k <= popcount(x).

    Broadword select without data-dependent branches: per-byte popcounts, their
    running sums, a bytewise comparison with k to find the byte, then a table.
    """
    c = x - ((x >> _U1) & _M1)
    c = (c & _M2) + ((c >> np.uint64(2)) & _M2)
    c = (c + (c >> np.uint64(4))) & _M4
    cum = c * _H01  # byte i: set bits in bytes 0..i (each ≤ 64, so bytes never carry)
    below_k = ((np.uint64(k - 1) * _H01) | _H80) - cum  # high bit set where cum_i < k
    byte = np.int64((((below_k & _H80) >> _U7) * _H01) >> _U56)
    rank = np.int64(((cum << _U8) >> np.uint64(8 * byte)) & _FF)
    in_byte = np.int64((x >> np.uint64(8 * byte)) & _FF)
    return 8 * byte + np.int64(SELECT_IN_BYTE[in_byte * 8 + (k - rank - 1)])


@njit(cache=True, inline="always")
def _rotate_right(x, s, width, wmask):
    # rotation inside the low ``width`` bits (s < width ≤ 63)
    return ((x >> np.uint64(s)) | (x << np.uint64(width - s))) & wmask


@njit(cache=True, nogil=True)
def mark_from(bits, full, start, dmg, width):
    """Mark ``dmg`` boxes in fill order from bit ``start``, wrapping (WM-G2).

    Args:
        bits: uint64 marked boxes. full: uint64 existing boxes. start: int64 bit
            where the column begins (6c for grids, 0 for tracks). dmg: int64 ≥ 0.
        width: int64 bits in the cycle (36 for grids, 63 for tracks).
    Returns:
        the new uint64 ``bits`` (surplus damage is lost once every box is marked).

    The free boxes are rotated so that ``start`` becomes bit 0; the lowest ``dmg``
    of them are then one mask below the dmg-th set bit (:func:`select_bit`);
    branch-free apart from the rare "everything is marked" case.
    """
    if dmg <= 0:
        return bits
    wmask = (_U1 << np.uint64(width)) - _U1
    free = _rotate_right(full & ~bits, start, width, wmask)
    if dmg >= popcount(free):
        return bits | full
    top = select_bit(free, dmg)
    taken = free & ((_U1 << np.uint64(top + 1)) - _U1)
    back = width - start if start > 0 else 0  # not "% width": a variable modulo is a slow division
    return bits | _rotate_right(taken, back, width, wmask)


@njit(cache=True, nogil=True)
def mark_first_available(bits, system_mask, count, full, width):
    """WM-G5: mark ``count`` boxes, each the first available box of a system; points left
    when the system is full overflow by WM-G2 from the column of the last system box
    marked (or the lowest-numbered column holding the system when none was free).

    The lowest zero bit of the system's mask is the lowest-numbered column that
    still has an unmarked box of it, and its top-most such box.
    """
    left = count
    last = np.int64(-1)
    while left > 0:
        free = system_mask & ~bits
        if free == _U0:
            break
        low = free & (~free + _U1)
        bits |= low
        last = popcount(low - _U1)
        left -= 1
    if left > 0 and system_mask != _U0:
        if last < 0:
            last = popcount((system_mask & (~system_mask + _U1)) - _U1)
        bits = mark_from(bits, full, (last // 6) * 6, np.int64(left), width)
    return bits


@njit(cache=True, inline="always")
def situation(bits, kd, m_mask, shield_mask):
    """Table variant 0..7 of the target's state: M crippled (DEF 7, WM-A7) + 2 × knocked
    down (WM-A4) + 4 × its shield's system crippled (+2 ARM lost, WM-D2/WM-G4)."""
    mcrip = 1 if (m_mask != _U0 and (bits & m_mask) == m_mask) else 0
    scrip = 1 if (shield_mask != _U0 and (bits & shield_mask) == shield_mask) else 0
    return mcrip + 2 * kd + 4 * scrip


_U11 = np.uint64(11)
_LOW11 = np.uint64(2047)
_LOW_LIMIT = np.uint64(2046)  # 6 × 341: below it the low 11 bits give an exact d6
_SIX = np.uint64(6)
_TWO_POW_M53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def unit_from_high_bits(word):
    """A float64 in [0, 1) from the top 53 bits of a random word."""
    return float(word >> _U11) * _TWO_POW_M53


@njit(cache=True, inline="always")
def column_from_low_bits(word, state):
    """The column roll (0..5) from the 11 low bits of the same word, which the 53-bit
    uniform does not use: exact by rejection (6 × 341 = 2046 of 2048 patterns), with a
    fresh d6 in the 2 / 2048 rejected cases. Disjoint bits of one xoshiro word are
    independent, so one word per attack serves both the outcome and the column."""
    low = word & _LOW11
    if low < _LOW_LIMIT:
        return np.int64(low % _SIX)
    return d6(state) - 1


GUIDE = 64  # guide-table buckets per outcome row


def guide_tables(cdf: np.ndarray) -> np.ndarray:
    """int16[rows, GUIDE]: for bucket j the first outcome whose cdf exceeds j / GUIDE.

    Sampling starts its linear search there, so an outcome costs one or two
    comparisons instead of a scan of the whole row (the guide-table method).
    Plain numpy on purpose: one jitted function fewer to load at start-up.
    """
    rows = np.ascontiguousarray(cdf).reshape(-1, cdf.shape[-1])
    points = np.arange(GUIDE) / GUIDE
    out = np.empty((rows.shape[0], GUIDE), dtype=np.int16)  # small: stays in L1
    for i, row in enumerate(rows):
        out[i] = np.minimum(np.searchsorted(row, points, side="right"), rows.shape[1] - 1)
    return out


@njit(cache=True, inline="always")
def _sample_outcome(cdf_row, guide_row, u):
    o = np.int64(guide_row[np.int64(u * GUIDE)])
    last = cdf_row.shape[0] - 1
    while o < last and u >= cdf_row[o]:
        o += 1
    return o


@njit(cache=True, nogil=True)
def sequence_mc(full, width, start_bits, col_start, m_mask, shield_mask, system_masks, cdf,
                guide, knocks_down, fa_masks, kd0, state, n_trials, hist, crippled, destroyed,
                hits):
    """Monte Carlo of a fixed attack sequence against one grid or track.

    Args:
        full, start_bits, m_mask, shield_mask: uint64 (0 when the target has no M / shield).
        width: int64 cycle length of :func:`mark_from`.
        col_start: int64[6] first bit of each column (all 0 for a track).
        system_masks: uint64[S] one mask per system letter on the grid.
        cdf: float64[steps, 8, W] cumulative outcome probabilities per variant, the
            last entry of a row > 1. guide: int16[steps * 8, GUIDE] (:func:`guide_tables`).
        knocks_down: int64[steps] 1 when a hit knocks the target down.
        fa_masks: uint64[steps] a system mask when the step's damage goes to the
            first available boxes of that system (WM-G5), else 0.
        kd0: int64 1 if the target starts knocked down.
        state: uint64[8] RNG. n_trials: int64.
        hist: int64[boxes+1] (out) boxes marked by the sequence.
        crippled: int64[S] (out) trials ending with the system crippled.
        destroyed: int64[1] (out). hits: int64[steps] (out) hits per step.
    """
    n_steps = cdf.shape[0]
    n_sys = system_masks.shape[0]
    start_marked = popcount(start_bits & full)
    codes = np.zeros(128, dtype=np.int64)
    for _ in range(n_trials):
        bits = start_bits
        kd = kd0
        for s in range(n_steps):
            v = situation(bits, kd, m_mask, shield_mask)
            word = next_u64(state)
            o = _sample_outcome(cdf[s, v], guide[8 * s + v], unit_from_high_bits(word))
            if o > 0:
                hits[s] += 1
                if knocks_down[s] == 1:
                    kd = 1
                if o > 1:
                    if fa_masks[s] != _U0:
                        bits = mark_first_available(bits, fa_masks[s], np.int64(o - 1), full, width)
                    else:
                        column = column_from_low_bits(word, state)
                        bits = mark_from(bits, full, col_start[column], np.int64(o - 1), width)
        hist[popcount(bits & full) - start_marked] += 1
        codes[outcome_code(bits, full, system_masks)] += 1
    spread_codes(codes, n_sys, crippled, destroyed)


@njit(cache=True, inline="always")
def outcome_code(bits, full, system_masks):
    """Bit 0: destroyed; bit j+1: system j crippled (≤ 6 systems, so code < 128).

    Kernels count codes in one local table and spread them into the ``destroyed`` and
    ``crippled`` outputs at the end: one memory update per trial instead of one per
    system (≈ 20 % of a 3-attack trial).
    """
    code = 1 if (bits & full) == full else 0
    for j in range(system_masks.shape[0]):
        code |= (1 if (bits & system_masks[j]) == system_masks[j] else 0) << (j + 1)
    return code


@njit(cache=True, nogil=True)
def spread_codes(codes, n_sys, crippled, destroyed):
    """Add a code table (see :func:`outcome_code`) to the crippled / destroyed counters."""
    for c in range(codes.shape[0]):
        if c & 1:
            destroyed[0] += codes[c]
        for j in range(n_sys):
            if c >> (j + 1) & 1:
                crippled[j] += codes[c]


_MASK32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_LOW8 = np.int64(0xFF)


@njit(cache=True, inline="always")
def mark_pdep(bits, full, start, dmg, width, wmask):
    """:func:`mark_from` with PDEP, branch-free: ``dmg`` in 0..63 (callers clamp).

    Depositing ``dmg`` ones into the rotated free boxes marks exactly the first
    ``dmg`` of them, and all of them when fewer are free (surplus lost, WM-G2).
    """
    free = _rotate_right(full & ~bits, start, width, wmask)
    taken = pdep((_U1 << np.uint64(dmg)) - _U1, free)
    # start = 0 rotates back by ``width``: x >> width = 0 and x << 0 = x, still right
    return bits | _rotate_right(taken, width - start, width, wmask)


@njit(cache=True, inline="always")
def mark_portable(bits, full, start, dmg, width, wmask):
    """Same boxes as :func:`mark_pdep` without BMI2 (:func:`mark_from`)."""
    return mark_from(bits, full, start, dmg, width)


@njit(cache=True, nogil=True)
def sequence_lut(full, width, start_bits, m_mask, shield_mask, system_masks, att_bound,
                 att_threshold, hit_count, dc_bound, dc_threshold, dc_table, knocks_down,
                 fa_masks, kd0, use_pdep, state, n_trials, hist, crippled, destroyed, hits):
    """:func:`sequence_mc` from integer draws and lookup tables (same distribution).

    One xoshiro word per attack: its high half is an exact (Lemire) index in
    [0, att_bound[s]) = one attack roll, a hit when below ``hit_count[s, variant]``;
    its low half an index in [0, dc_bound[s]) = (damage roll, column) read from
    ``dc_table[s, shield crippled, index]`` as ``damage | first bit of the column << 8``
    (the column part equal in both shield rows). ``hit_count[s, v]`` is the same
    for v and v + 4: the shield changes ARM, not the attack roll.
    Damage is applied branch-free (0 on a miss). A word whose either half falls in
    Lemire's rejection zone (< 2^-19 of the time) is drawn again whole.

    Args (beyond :func:`sequence_mc`): att_bound, att_threshold, dc_bound,
        dc_threshold: uint64[steps] bounds and Lemire thresholds (2^32 mod bound);
        hit_count: uint64[steps, 8]; dc_table: int16[steps, 2, max dc_bound];
        use_pdep: int64 1 to mark with PDEP (only when :data:`bits.FAST_PDEP`).
    The RNG words 0..3 live in registers and are stored back once.
    """
    n_steps = att_bound.shape[0]
    n_sys = system_masks.shape[0]
    wmask = (_U1 << np.uint64(width)) - _U1
    m_on = np.int64(m_mask != _U0)
    s_on = np.int64(shield_mask != _U0)
    start_marked = popcount64(start_bits & full)
    codes = np.zeros(128, dtype=np.int64)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for _ in range(n_trials):
        bits = start_bits
        kd = kd0
        for s in range(n_steps):
            while True:
                word, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
                ma = (word >> _U32) * att_bound[s]
                mb = (word & _MASK32) * dc_bound[s]
                if ((ma & _MASK32) >= att_threshold[s]) & ((mb & _MASK32) >= dc_threshold[s]):
                    break
            # Everything that does not need the grid state is read first, so the
            # chain grid → situation → marked boxes is a few ALU operations long
            # (the previous attack's marking must finish before this one can start).
            att = ma >> _U32
            row = hit_count[s]
            hit_by_variant = (np.int64(att < row[0]) | np.int64(att < row[1]) << 1
                              | np.int64(att < row[2]) << 2 | np.int64(att < row[3]) << 3)
            index = np.int64(mb >> _U32)
            entry0 = np.int64(dc_table[s, 0, index])
            dmg0 = entry0 & _LOW8
            dmg1 = np.int64(dc_table[s, 1, index]) & _LOW8
            start = entry0 >> 8  # the column does not depend on the shield
            mcrip = np.int64((bits & m_mask) == m_mask) & m_on
            scrip = np.int64((bits & shield_mask) == shield_mask) & s_on
            hit = (hit_by_variant >> (mcrip + 2 * kd)) & 1  # WM-A4, WM-A7: no table load
            dmg = (dmg1 if scrip == 1 else dmg0) & -hit
            hits[s] += hit
            kd |= hit & knocks_down[s]
            if fa_masks[s] != _U0:  # the same every trial: predicted
                bits = mark_first_available(bits, fa_masks[s], dmg, full, width)
            elif use_pdep == 1:
                bits = mark_pdep(bits, full, start, dmg, width, wmask)
            else:
                bits = mark_portable(bits, full, start, dmg, width, wmask)
        hist[popcount64(bits & full) - start_marked] += 1
        codes[outcome_code(bits, full, system_masks)] += 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    spread_codes(codes, n_sys, crippled, destroyed)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: odd, bits well mixed upwards


@njit(cache=True, nogil=True)
def _merge(keys, probs):
    """Sum ``probs`` of equal ``keys``: (unique keys in first-seen order, summed probs).

    An open-addressing hash table, not a sort: linear time, and numba's quicksort
    cost about 4 s of the first-run compile.
    """
    n = keys.shape[0]
    cap, bits = 16, 4
    while cap < 2 * n:  # load factor at most 1/2: short probe runs
        cap *= 2
        bits += 1
    shift = np.uint64(64 - bits)
    slot = np.full(cap, -1, dtype=np.int64)
    out_k = np.empty(n, dtype=np.uint64)
    out_p = np.empty(n, dtype=np.float64)
    m = 0
    for i in range(n):
        k = keys[i]
        h = np.int64((k * _GOLDEN) >> shift)
        while True:
            j = slot[h]
            if j < 0:
                slot[h] = m
                out_k[m] = k
                out_p[m] = probs[i]
                m += 1
                break
            if out_k[j] == k:
                out_p[j] += probs[i]
                break
            h = (h + 1) & (cap - 1)
    return out_k[:m].copy(), out_p[:m].copy()


@njit(cache=True, nogil=True)
def sequence_exact(keys, probs, full, width, col_start, m_mask, shield_mask, pmf, knocks_down,
                   fa_masks, step, p_hits):
    """One step of the exact distribution of grid states (a sparse dynamic programme).

    States are uint64 marked-box bitmasks plus the knocked-down bit 63. The step
    maps every state through every outcome and every column, then equal states
    are merged with one sort. Arguments as :func:`sequence_mc`, with ``pmf``
    (probabilities, not cumulative); ``p_hits[step]`` (out) gets P(hit) of the step.
    Returns the new (uint64 states, float64 probs).
    """
    n_out = pmf.shape[2]
    for s in range(step, step + 1):  # one step per call: the caller checks sizes in between
        size = keys.shape[0] * (2 + 6 * n_out)
        new_k = np.empty(size, dtype=np.uint64)
        new_p = np.empty(size, dtype=np.float64)
        m = 0
        for i in range(keys.shape[0]):
            key = keys[i]
            bits = key & ~KD_BIT
            kd = 1 if (key & KD_BIT) != _U0 else 0
            row = pmf[s, situation(bits, kd, m_mask, shield_mask)]
            hit_key = key | (KD_BIT if knocks_down[s] == 1 else _U0)
            p_hits[s] += probs[i] * (1.0 - row[0])
            if row[0] > 0.0:
                new_k[m] = key
                new_p[m] = probs[i] * row[0]
                m += 1
            if n_out > 1 and row[1] > 0.0:  # a hit with no damage
                new_k[m] = hit_key
                new_p[m] = probs[i] * row[1]
                m += 1
            for o in range(2, n_out):
                if row[o] <= 0.0:
                    continue
                if fa_masks[s] != _U0:
                    marked = mark_first_available(bits, fa_masks[s], np.int64(o - 1), full, width)
                    new_k[m] = marked | (hit_key & KD_BIT)
                    new_p[m] = probs[i] * row[o]
                    m += 1
                    continue
                p = probs[i] * row[o] / 6.0
                for c in range(6):
                    marked = mark_from(bits, full, col_start[c], np.int64(o - 1), width)
                    new_k[m] = marked | (hit_key & KD_BIT)
                    new_p[m] = p
                    m += 1
        keys, probs = _merge(new_k[:m], new_p[:m])
    return keys, probs


@njit(cache=True, nogil=True)
def summarise_states(keys, probs, full, start_bits, system_masks, n_boxes):
    """Exact results from a state distribution: (damage pmf, P(crippled X), P(destroyed))."""
    dmg = np.zeros(n_boxes + 1, dtype=np.float64)
    crip = np.zeros(system_masks.shape[0], dtype=np.float64)
    dest = 0.0
    start_marked = popcount(start_bits & full)
    for i in range(keys.shape[0]):
        bits = keys[i] & full
        dmg[popcount(bits) - start_marked] += probs[i]
        if bits == full:
            dest += probs[i]
        for j in range(system_masks.shape[0]):
            if (bits & system_masks[j]) == system_masks[j]:
                crip[j] += probs[i]
    return dmg, crip, dest
