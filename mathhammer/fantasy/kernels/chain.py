"""Warhammer Fantasy attack chain, rolled die by die (FB-H*, FB-W*, FB-V*).

Every stage of every attack is a real D6 roll plus its re-roll die: hit, wound,
armour, ward/regeneration — eight dice per attack, read as the eight base-6 digits
of ONE exact uniform draw in [0, 6^8) (Lemire rejection on a 32-bit half; one
64-bit word serves two attacks). The 7+/8+/9+ shooting procedure rolls two more
dice; Multiple Wounds one exact draw from a table.

Resolution is separate from randomness (docs/design.md, rule 2): :func:`hit_wound_class` and
:func:`armour_ward_class` resolve dice already rolled, using the integer tables
compiled by :func:`mathhammer.fantasy.chain.core.compile_spec` (the exact engine reads the
same tables). :func:`build_block_tables` applies them once to every combination of
the four low digits (hit, wound) and the four high digits (armour, ward), so the
kernel resolves an attack with two lookups, without data-dependent branches except
Multiple Wounds dice. The natural faces stay visible to the rules (poison, killing
blow, re-rolls), because the tables are indexed by the faces themselves.

Fast path (:func:`chain_kernel_counting`): when no slay is possible and every unsaved
wound does the same damage, :func:`build_outcome_table` resolves all 6^8 face
combinations of one attack through the same per-die functions, and
:func:`pack_unsaved_bits` keeps one bit per combination (unsaved wound or not, 210 kB,
fits L2), so each attack is one draw and one independent bit load (≈ 3× faster).

Class codes (see ``mathhammer.fantasy.chain.core``): hit 0/1/2 (miss, hit, poison six),
wound/armour 0/1/2/3 (none, wound, natural-six wound, automatic wound), final 0/1/2
(nothing, unsaved wound, slain outright).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import below_local as _below_local
from mathhammer.kernels.dice import lemire_threshold
from mathhammer.kernels.dice import xoshiro_step as _xoshiro

_U1 = np.uint64(1)
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_SIX8 = np.uint64(6**8)
_SIX8_REJECT = np.uint64((2**32 - 6**8) % 6**8)
_SIX4 = np.uint64(6**4)
_THRESHOLD_36 = np.uint64((2**32 - 36) % 36)


def digit_table() -> np.ndarray:
    """int64 (1296, 4): the four base-6 digits of 0..1295, as faces 1..6."""
    n = np.arange(6**4)
    return np.stack([(n // 6**k) % 6 + 1 for k in range(4)], axis=1).astype(np.int64)


@njit(cache=True, nogil=True)
def hit_wound_class(f1, f2, w1, w2, s1, s2, hopeless, hit_rr, hit_out, wound_rr, wound_out):
    """Wound class (0 none, 1 wound, 2 natural-six wound, 3 automatic) from the dice.

    ``f1``/``f2``: to-hit die and its re-roll die; ``w1``/``w2``: to-wound die and its
    re-roll die; ``s1``/``s2``: second dice of a hopeless shot and of its re-roll (used
    only when ``hopeless``). A re-roll die counts only when the table says so (DICE-5).
    """
    if hopeless:
        i1 = (f1 - 1) * 6 + (s1 - 1)
        i2 = (f2 - 1) * 6 + (s2 - 1)
        h = hit_out[i1 + hit_rr[i1] * (i2 - i1)]
    else:
        h = hit_out[f1 + hit_rr[f1] * (f2 - f1)]
    return wound_out[h, w1 + wound_rr[h, w1] * (w2 - w1)]


@njit(cache=True, nogil=True)
def armour_ward_class(c, a1, a2, v1, v2, armour_rr, armour_out, ward_rr, ward_out):
    """Final class (0 nothing, 1 unsaved wound, 2 slain) of a wound of class ``c``."""
    c = armour_out[c, a1 + armour_rr[c, a1] * (a2 - a1)]
    return ward_out[c, v1 + ward_rr[c, v1] * (v2 - v1)]


@njit(cache=True, nogil=True)
def attack_final_class(dice8, s1, s2, hopeless, hit_rr, hit_out, wound_rr, wound_out,
                       armour_rr, armour_out, ward_rr, ward_out):
    """Final class of one attack from its dice (the die-by-die reference resolution).

    ``dice8`` int64[8]: hit, hit re-roll, wound, wound re-roll, armour, armour re-roll,
    ward, ward re-roll (faces 1..6).
    """
    c = hit_wound_class(dice8[0], dice8[1], dice8[2], dice8[3], s1, s2, hopeless, hit_rr,
                        hit_out, wound_rr, wound_out)
    return armour_ward_class(c, dice8[4], dice8[5], dice8[6], dice8[7], armour_rr, armour_out,
                             ward_rr, ward_out)


@njit(cache=True, nogil=True)
def build_block_tables(hopeless, hit_rr, hit_out, wound_rr, wound_out, armour_rr, armour_out,
                       ward_rr, ward_out, digits):
    """Resolve every face combination once, so the kernel needs two lookups per attack.

    Returns:
        low: int64 (1296 · n_second,): wound class from the 4 low digits (hit, hit
            re-roll, wound, wound re-roll), index lo · n_second + pair, where pair =
            6 (s1 − 1) + (s2 − 1) are a hopeless shot's second dice (n_second 36, else 1).
        high: int64 (4 · 1296,): final class, index wound class · 1296 + the 4 high
            digits (armour, armour re-roll, ward, ward re-roll).
    """
    n_second = 36 if hopeless else 1
    low = np.zeros(1296 * n_second, np.int64)
    high = np.zeros(4 * 1296, np.int64)
    for d in range(1296):
        for pair in range(n_second):
            low[d * n_second + pair] = hit_wound_class(
                digits[d, 0], digits[d, 1], digits[d, 2], digits[d, 3], pair // 6 + 1,
                pair % 6 + 1, hopeless, hit_rr, hit_out, wound_rr, wound_out)
        for c in range(4):
            high[c * 1296 + d] = armour_ward_class(c, digits[d, 0], digits[d, 1], digits[d, 2],
                                                   digits[d, 3], armour_rr, armour_out, ward_rr,
                                                   ward_out)
    return low, high


@njit(cache=True, nogil=True)
def build_outcome_table(hit_rr, hit_out, wound_rr, wound_out, armour_rr, armour_out, ward_rr,
                        ward_out, digits):
    """uint8 (6^8,): the final class of every face combination of one attack's 8 dice.

    Index b = Σ (face_k − 1) · 6^k over the dice in :func:`attack_final_class` order
    (hit, hit re-roll, wound, wound re-roll, armour, armour re-roll, ward, ward
    re-roll), i.e. exactly the base-6 digits the kernel reads from one draw in
    [0, 6^8). Built from the per-die rule functions, so re-rolls, poison and natural
    sixes are decided by the individual faces. Not for hopeless shots (their two
    second dice would make the table 36 times larger); 1.7 MB, built once per query.
    """
    wound = np.empty(1296, np.int64)
    final = np.empty((4, 1296), np.uint8)
    for d in range(1296):
        wound[d] = hit_wound_class(digits[d, 0], digits[d, 1], digits[d, 2], digits[d, 3], 1, 1,
                                   0, hit_rr, hit_out, wound_rr, wound_out)
        for c in range(4):
            final[c, d] = armour_ward_class(c, digits[d, 0], digits[d, 1], digits[d, 2],
                                            digits[d, 3], armour_rr, armour_out, ward_rr,
                                            ward_out)
    out = np.empty(6**8, np.uint8)
    for hi in range(1296):
        for lo in range(1296):
            out[hi * 1296 + lo] = final[wound[lo], hi]
    return out


@njit(cache=True, nogil=True)
def pack_unsaved_bits(outcome):
    """uint64 (⌈6^8 / 64⌉,): bit b is 1 when ``outcome[b]`` is an unsaved wound (class 1).

    :func:`chain_kernel_counting` reads this 210 kB bitset, which
    stays in L2 where the 1.7 MB byte table does not.
    """
    bits = np.zeros((outcome.shape[0] + 63) // 64, np.uint64)
    for b in range(outcome.shape[0]):
        if outcome[b] == 1:
            bits[b >> 6] |= _U1 << np.uint64(b & 63)
    return bits


@njit(cache=True, nogil=True, inline="always")
def _unsaved_bit(bits, b):
    return np.int64((bits[b >> 6] >> np.uint64(b & 63)) & _U1)


@njit(cache=True, nogil=True, inline="always")
def _draw_pair(s0, s1, s2, s3):
    """Two exact draws in [0, 6^8) from one 64-bit word (redrawn if either half is rejected)."""
    while True:
        word, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
        m1 = (word >> _U32) * _SIX8
        m2 = (word & _MASK32) * _SIX8
        if min(m1 & _MASK32, m2 & _MASK32) >= _SIX8_REJECT:  # one test, one branch
            return np.int64(m1 >> _U32), np.int64(m2 >> _U32), s0, s1, s2, s3


@njit(cache=True, nogil=True)
def chain_kernel_counting(unsaved_bits, attacks_table, wounds_each, wound_cap, state, n_trials,
                          hist):
    """Histogram of total unsaved wounds when every unsaved wound does ``wounds_each``.

    For attacks that cannot slay outright and have no random Multiple Wounds (the
    common case; anything else runs :func:`chain_kernel`), the total is the count of
    unsaved wounds times ``wounds_each``, so each attack is one bounded draw and one
    bit load: its eight dice (hit, wound, armour, ward and a re-roll die for each)
    are the base-6 digits of one exact draw ``b`` in [0, 6^8), two attacks per
    64-bit word as in :func:`chain_kernel`, and bit ``b`` of ``unsaved_bits``
    (:func:`pack_unsaved_bits` of :func:`build_outcome_table`, 210 kB, stays in L2)
    says whether those faces end in an unsaved wound. Not for hopeless shots.
    Other arguments as :func:`chain_kernel`.
    """
    n_choices = attacks_table.shape[0]
    attacks_threshold = lemire_threshold(n_choices)
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    for _ in range(n_trials):
        n_attacks = attacks_table[0]
        if n_choices > 1:
            pick, s0, s1, s2, s3 = _below_local(n_choices, attacks_threshold, s0, s1, s2, s3)
            n_attacks = attacks_table[pick]
        unsaved = 0
        pairs = n_attacks >> 1
        for _q in range(pairs >> 2):  # four words a turn: the loads overlap the draws
            b1, b2, s0, s1, s2, s3 = _draw_pair(s0, s1, s2, s3)
            b3, b4, s0, s1, s2, s3 = _draw_pair(s0, s1, s2, s3)
            b5, b6, s0, s1, s2, s3 = _draw_pair(s0, s1, s2, s3)
            b7, b8, s0, s1, s2, s3 = _draw_pair(s0, s1, s2, s3)
            unsaved += ((_unsaved_bit(unsaved_bits, b1) + _unsaved_bit(unsaved_bits, b2))
                        + (_unsaved_bit(unsaved_bits, b3) + _unsaved_bit(unsaved_bits, b4))
                        + (_unsaved_bit(unsaved_bits, b5) + _unsaved_bit(unsaved_bits, b6))
                        + (_unsaved_bit(unsaved_bits, b7) + _unsaved_bit(unsaved_bits, b8)))
        for _p in range(pairs & 3):
            b1, b2, s0, s1, s2, s3 = _draw_pair(s0, s1, s2, s3)
            unsaved += _unsaved_bit(unsaved_bits, b1) + _unsaved_bit(unsaved_bits, b2)
        if n_attacks & 1:  # the last attack reads one half (the other is drawn, unused)
            b1, b2, s0, s1, s2, s3 = _draw_pair(s0, s1, s2, s3)
            unsaved += _unsaved_bit(unsaved_bits, b1)
        total = unsaved * wounds_each
        if total > wound_cap:
            total = wound_cap
        hist[total] += 1
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3


@njit(cache=True, nogil=True)
def chain_kernel(attacks_table, low, high, n_second, wounds_table, target_wounds,
                 slay_possible, wound_cap, state, n_trials, hist):
    """Histogram of total unsaved wounds over ``n_trials`` trials of N attacks.

    Each attack rolls its eight dice (hit, wound, armour, ward and a re-roll die for
    each) as the base-6 digits of one exact draw in [0, 6^8): one 64-bit word gives
    two attacks, redrawn in the rare case that either 32-bit half is rejected. A
    hopeless shot's two second dice are one exact draw in [0, 36). The xoshiro words
    live in registers and are written back to ``state`` at the end.

    Args (all int64 unless noted):
        attacks_table: (m,) number of attacks, drawn uniformly per trial (m = 1: fixed).
        low, high: from :func:`build_block_tables`; n_second: 1, or 36 when hopeless.
        wounds_table: (m,) wounds per unsaved wound (Multiple Wounds, capped at W).
        target_wounds: W; a slay adds W − (T mod W) (the model's wounds left).
        slay_possible: 1 when a Killing Blow can slay (kept for the signature; the
            slay arithmetic is branch-free).
        wound_cap: total wounds are capped here (models × W, or a large number).
        state: uint64[8] stream (words 0..3 used and advanced); hist: (cap + 1,) output.
    """
    n_choices = attacks_table.shape[0]
    n_wound_choices = wounds_table.shape[0]
    attacks_threshold = lemire_threshold(n_choices)
    wounds_threshold = lemire_threshold(n_wound_choices)
    W = target_wounds
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    for _ in range(n_trials):
        n_attacks = attacks_table[0]
        if n_choices > 1:
            pick, s0, s1, s2, s3 = _below_local(n_choices, attacks_threshold, s0, s1, s2, s3)
            n_attacks = attacks_table[pick]
        total = 0
        carry = 0  # total mod W, kept without dividing
        pending = np.uint64(0)  # the second attack's block of the last word
        have_pending = False
        for _a in range(n_attacks):
            if have_pending:
                b = pending
                have_pending = False
            else:
                while True:  # both halves must pass the 6^8 rejection test (exact)
                    word, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
                    m1 = (word >> _U32) * _SIX8
                    m2 = (word & _MASK32) * _SIX8
                    if (m1 & _MASK32) >= _SIX8_REJECT and (m2 & _MASK32) >= _SIX8_REJECT:
                        break
                b = m1 >> _U32
                pending = m2 >> _U32
                have_pending = True
            lo = np.int64(b % _SIX4)
            hi = np.int64(b // _SIX4)
            if n_second > 1:
                pair, s0, s1, s2, s3 = _below_local(36, _THRESHOLD_36, s0, s1, s2, s3)
                c = low[lo * 36 + pair]
            else:
                c = low[lo]
            fin = high[c * 1296 + hi]
            add = (fin == 1) * wounds_table[0]
            if n_wound_choices > 1:
                if fin == 1:
                    k, s0, s1, s2, s3 = _below_local(n_wound_choices, wounds_threshold, s0, s1,
                                                     s2, s3)
                    add = wounds_table[k]
            # a slay adds the wounds the current model has left (no division: carry < W)
            add += (fin == 2) * (W - carry)
            total += add
            carry += add  # add ≤ W, so one subtraction brings carry back below W
            carry -= W * (carry >= W)
        if total > wound_cap:
            total = wound_cap
        hist[total] += 1
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3


@njit(cache=True, nogil=True)
def enumerate_final_classes(low, high, n_second, counts):
    """counts[k] += number of the 6^8 · n_second dice combinations ending in class k.

    Exhaustive check of the kernel's resolution tables: every face combination is
    resolved exactly as :func:`chain_kernel` does, so counts / (6^8 · n_second) must
    equal the exact engine's probabilities.
    """
    for b in range(6**8):
        lo = b % 1296
        hi = b // 1296
        for pair in range(n_second):
            counts[high[low[lo * n_second + pair] * 1296 + hi]] += 1


@njit(cache=True, nogil=True)
def outcome_table_mismatches(outcome, hit_rr, hit_out, wound_rr, wound_out, armour_rr,
                             armour_out, ward_rr, ward_out):
    """Number of the 6^8 face combinations where ``outcome`` differs from the die-by-die rules.

    Exhaustive check of :func:`build_outcome_table`: each index is decoded into its 8
    faces by repeated division (not via :func:`digit_table`) and resolved by
    :func:`attack_final_class`, one die at a time.
    """
    dice8 = np.empty(8, np.int64)
    bad = 0
    for b in range(6**8):
        rest = b
        for k in range(8):
            dice8[k] = rest % 6 + 1
            rest //= 6
        fin = attack_final_class(dice8, 1, 1, 0, hit_rr, hit_out, wound_rr, wound_out, armour_rr,
                                 armour_out, ward_rr, ward_out)
        bad += fin != outcome[b]
    return bad
