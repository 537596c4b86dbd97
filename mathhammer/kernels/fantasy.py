"""Warhammer Fantasy attack chain, rolled die by die (FB-H*, FB-W*, FB-V*).

Every stage of every attack is a real D6 roll plus its re-roll die: hit, wound,
armour, ward/regeneration — eight dice per attack, read as the eight base-6 digits
of ONE exact uniform draw in [0, 6^8) (Lemire rejection on a 32-bit half), split
into two 6^4 halves and looked up in a (1296, 4) digit table. The 7+/8+/9+ shooting
procedure rolls two more dice per attempt; Multiple Wounds one exact draw from a
table. Rule decisions are the integer tables compiled by
:func:`mathhammer.fantasy.chain.compile_spec` (the exact engine reads the same), so
the loop is branch-free except for branches that are constant per query.

Class codes (see ``mathhammer.fantasy.chain``): hit 0/1/2 (miss, hit, poison six),
wound/armour 0/1/2/3 (none, wound, natural-six wound, automatic wound), final 0/1/2
(nothing, unsaved wound, slain outright).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import below, d6, next_u64

_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_SIX8 = np.uint64(6**8)
_SIX8_REJECT = np.uint64((2**32 - 6**8) % 6**8)
_SIX4 = np.uint64(6**4)


def digit_table() -> np.ndarray:
    """int64 (1296, 4): the four base-6 digits of 0..1295, as faces 1..6."""
    n = np.arange(6**4)
    return np.stack([(n // 6**k) % 6 + 1 for k in range(4)], axis=1).astype(np.int64)


@njit(cache=True, nogil=True)
def block8(state):
    """An exact uniform integer in [0, 6^8): eight independent d6 digits."""
    while True:
        word = next_u64(state)
        m = (word >> _U32) * _SIX8
        if (m & _MASK32) >= _SIX8_REJECT:
            return m >> _U32
        m = (word & _MASK32) * _SIX8
        if (m & _MASK32) >= _SIX8_REJECT:
            return m >> _U32


@njit(cache=True, nogil=True)
def attack_final_class(dice8, s1, s2, hopeless, hit_rr, hit_out, wound_rr, wound_out,
                       armour_rr, armour_out, ward_rr, ward_out):
    """Final class (0 nothing, 1 unsaved wound, 2 slain) of one attack from its dice.

    ``dice8`` int64[8]: hit, hit re-roll, wound, wound re-roll, armour, armour re-roll,
    ward, ward re-roll (faces 1..6); ``s1``, ``s2``: second dice of a hopeless shot
    and of its re-roll. Pure: used by the kernel's tests on pre-rolled dice.
    """
    if hopeless:
        i1 = (dice8[0] - 1) * 6 + (s1 - 1)
        i2 = (dice8[1] - 1) * 6 + (s2 - 1)
        h = hit_out[i1 + hit_rr[i1] * (i2 - i1)]
    else:
        f1 = dice8[0]
        h = hit_out[f1 + hit_rr[f1] * (dice8[1] - f1)]
    w1 = dice8[2]
    c = wound_out[h, w1 + wound_rr[h, w1] * (dice8[3] - w1)]
    a1 = dice8[4]
    c = armour_out[c, a1 + armour_rr[c, a1] * (dice8[5] - a1)]
    v1 = dice8[6]
    return ward_out[c, v1 + ward_rr[c, v1] * (dice8[7] - v1)]


@njit(cache=True, nogil=True)
def chain_kernel(attacks_table, hopeless, hit_rr, hit_out, wound_rr, wound_out, armour_rr,
                 armour_out, ward_rr, ward_out, wounds_table, target_wounds, slay_possible,
                 wound_cap, digits, state, n_trials, hist):
    """Histogram of total unsaved wounds over ``n_trials`` trials of N attacks.

    Args (all int64 unless noted):
        attacks_table: (m,) number of attacks, drawn uniformly per trial (m = 1: fixed).
        hopeless: 1 when the hit stage is the 7+/8+/9+ procedure (tables of 36).
        hit_rr, hit_out: (7,) or (36,); wound_*: (3, 7); armour_*, ward_*: (4, 7).
        wounds_table: (m,) wounds per unsaved wound (Multiple Wounds, capped at W).
        target_wounds: W; a slay adds W − (T mod W) (the model's wounds left).
        slay_possible: 1 when a Killing Blow can slay (else the modulo is skipped).
        wound_cap: total wounds are capped here (models × W, or a large number).
        digits: digit_table(); state: uint64[8] stream; hist: (cap + 1,) out, added to.
    """
    n_choices = attacks_table.shape[0]
    n_wound_choices = wounds_table.shape[0]
    W = target_wounds
    spare = np.int64(-1)  # the second accepted 32-bit half of the last word, if any
    for _ in range(n_trials):
        n_attacks = attacks_table[0]
        if n_choices > 1:
            n_attacks = attacks_table[below(state, n_choices)]
        total = 0
        for _a in range(n_attacks):
            if spare >= 0:
                b = np.uint64(spare)
                spare = -1
            else:
                while True:  # one word, two 32-bit halves, each an exact 6^8 block or rejected
                    word = next_u64(state)
                    m1 = (word >> _U32) * _SIX8
                    m2 = (word & _MASK32) * _SIX8
                    if (m2 & _MASK32) >= _SIX8_REJECT:
                        spare = np.int64(m2 >> _U32)
                    if (m1 & _MASK32) >= _SIX8_REJECT:
                        b = m1 >> _U32
                        break
                    if spare >= 0:
                        b = np.uint64(spare)
                        spare = -1
                        break
            lo = np.int64(b % _SIX4)
            hi = np.int64(b // _SIX4)
            if hopeless:
                f1 = digits[lo, 0]
                i1 = (f1 - 1) * 6 + (d6(state) - 1)
                i2 = (digits[lo, 1] - 1) * 6 + (d6(state) - 1)
                h = hit_out[i1 + hit_rr[i1] * (i2 - i1)]
            else:
                f1 = digits[lo, 0]
                h = hit_out[f1 + hit_rr[f1] * (digits[lo, 1] - f1)]
            w1 = digits[lo, 2]
            c = wound_out[h, w1 + wound_rr[h, w1] * (digits[lo, 3] - w1)]
            a1 = digits[hi, 0]
            c = armour_out[c, a1 + armour_rr[c, a1] * (digits[hi, 1] - a1)]
            v1 = digits[hi, 2]
            fin = ward_out[c, v1 + ward_rr[c, v1] * (digits[hi, 3] - v1)]
            if n_wound_choices > 1:
                if fin == 1:
                    total += wounds_table[below(state, n_wound_choices)]
            else:
                total += (fin == 1) * wounds_table[0]
            if slay_possible:
                total += (fin == 2) * (W - total % W)
        if total > wound_cap:
            total = wound_cap
        hist[total] += 1


@njit(cache=True, nogil=True)
def enumerate_final_classes(hopeless, hit_rr, hit_out, wound_rr, wound_out, armour_rr,
                            armour_out, ward_rr, ward_out, digits, counts):
    """counts[k] += number of the 6^8 (6^10 when hopeless) dice combinations ending in class k.

    Exhaustive check of the kernel's per-attack resolution: every face combination is
    resolved exactly as :func:`chain_kernel` does, so counts / 6^8 must equal the
    exact engine's probabilities.
    """
    dice8 = np.zeros(8, np.int64)
    n_second = 36 if hopeless else 1
    for b in range(6**8):
        lo = b % 1296
        hi = b // 1296
        for k in range(4):
            dice8[k] = digits[lo, k]
            dice8[4 + k] = digits[hi, k]
        for pair in range(n_second):
            s1 = pair // 6 + 1
            s2 = pair % 6 + 1
            counts[attack_final_class(dice8, s1, s2, hopeless, hit_rr, hit_out, wound_rr,
                                      wound_out, armour_rr, armour_out, ward_rr, ward_out)] += 1
