"""Monte Carlo of a dice expression: histogram of totals (DICE-2).

Three exact samplers, chosen in :class:`mathhammer.dice.DiceSampler`:
table lookup (outcome space ≤ 2^16), bounded draw + binary search (≤ 2^32), and a
postfix program rolled die by die for anything larger.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import below, d6, die, lemire_threshold, xoshiro_step  # noqa: F401 (die: kernel API)

OP_CONST, OP_DICE, OP_ADD, OP_SUB, OP_MUL, OP_NEG = 0, 1, 2, 3, 4, 5


_MASK32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_BLOCK_LIMIT = np.uint64(1 << 21)  # blocks up to 2^21 outcomes: a half is rejected < 2^-11


@njit(cache=True, nogil=True)
def roll_table(table, offset, state, n_trials, hist):
    """hist[v - offset] += 1 for n_trials draws of table[u], u uniform in [0, len(table)).

    Several draws per random word: each 32-bit half passes Lemire's test for a block of
    m^k outcomes (m = len(table), the largest k with m^k ≤ 2^21), then yields k exact
    indices by repeated multiplication, x·m → index = high word, x = low word (the
    base-m digits of the accepted draw, most significant first). 2D6 (m = 36): 8 per word.
    """
    m = np.uint64(table.shape[0])
    if m == np.uint64(1):  # a constant: no randomness, and no digits to extract
        hist[table[0] - offset] += n_trials
        return
    block, k = m, 1
    while block * m <= _BLOCK_LIMIT:
        block *= m
        k += 1
    threshold = lemire_threshold(block)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    done = 0
    while done < n_trials:
        word, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        for half in range(2):
            x = (word >> _U32) if half == 0 else (word & _MASK32)
            if ((x * block) & _MASK32) < threshold:
                continue  # this half is rejected; the next one (or word) is tried
            for _ in range(min(k, n_trials - done)):
                x = x * m
                hist[table[np.int64(x >> _U32)] - offset] += 1
                x &= _MASK32
            done += min(k, n_trials - done)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(cache=True, nogil=True)
def roll_search(cumulative, outcome_count, state, n_trials, hist):
    """hist[i] += 1 where i is the first index with cumulative[i] > u, u in [0, M)."""
    n = cumulative.shape[0]
    for _ in range(n_trials):
        u = np.uint64(below(state, outcome_count))
        lo = 0
        hi = n - 1
        while lo < hi:
            mid = (lo + hi) >> 1
            if cumulative[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        hist[lo] += 1


# inline="always" (numba IR inlining) for the per-trial helpers: as plain calls,
# every call passed the arrays with atomic reference-count updates, which made the
# program sampler ~6x slower than rolling the same dice directly.
@njit(cache=True, nogil=True, inline="always")
def _roll_dice(state, count, sides, keep, highest, buf):
    if keep >= count:
        total = 0
        if sides == 6:
            for _ in range(count):
                total += d6(state)
        else:
            for _ in range(count):
                total += below(state, sides) + 1
        return total
    for i in range(count):  # insertion sort as the dice come: in place, no allocation
        value = die(state, sides)
        j = i
        while j > 0 and buf[j - 1] > value:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = value
    total = 0
    if highest:
        for i in range(count - keep, count):
            total += buf[i]
    else:
        for i in range(keep):
            total += buf[i]
    return total


@njit(cache=True, nogil=True, inline="always")
def eval_program(program, state, stack, buf):
    """Evaluate a postfix dice program once (rows: op, a, b, c, d)."""
    top = 0
    for r in range(program.shape[0]):
        op = program[r, 0]
        if op == OP_CONST:
            stack[top] = program[r, 1]
            top += 1
        elif op == OP_DICE:
            stack[top] = _roll_dice(state, program[r, 1], program[r, 2], program[r, 3],
                                    program[r, 4] == 1, buf)
            top += 1
        elif op == OP_NEG:
            stack[top - 1] = -stack[top - 1]
        else:
            b = stack[top - 1]
            a = stack[top - 2]
            top -= 1
            if op == OP_ADD:
                stack[top - 1] = a + b
            elif op == OP_SUB:
                stack[top - 1] = a - b
            else:
                stack[top - 1] = a * b
    return stack[0]


@njit(cache=True, nogil=True)
def roll_program(program, offset, state, n_trials, hist):
    stack = np.zeros(program.shape[0] + 1, dtype=np.int64)
    buf = np.zeros(256, dtype=np.int64)
    for _ in range(n_trials):
        hist[eval_program(program, state, stack, buf) - offset] += 1
