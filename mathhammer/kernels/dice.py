"""In-kernel random numbers: xoshiro256** and exact dice (DICE-1).

A stream's state is a ``uint64[8]`` array (see :data:`STATE_SIZE`):
``[s0, s1, s2, s3, digit_buffer, digits_left, spare, spare]``. Words 0..3 are the
xoshiro256** state (seeded by :mod:`mathhammer.rng`, never all zero); words 4..5
buffer base-6 digits so that one 64-bit draw yields 8 exact d6 (an accepted
32-bit half, the other half being only the fallback when the first is rejected;
the stream is fixed so every seeded result stays reproducible).

Every draw here is exact: bounded integers use Lemire's multiply-shift with
rejection, d6 use base-6 digit extraction from a rejection-tested block of 6^8.
Every constant that meets the state is a typed ``np.uint64`` (in numba,
``uint64 op int64`` silently becomes float64).

Kernel pattern (serial, ``nogil`` so the engine's thread pool can run chunks)::

    @njit(cache=True, nogil=True)
    def my_kernel(inputs..., state, n_trials, out_counts):
        for _ in range(n_trials):
            roll = d6(state) + d6(state)
            ...
"""

from __future__ import annotations

import numpy as np
from numba import njit

STATE_SIZE = 8

_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U7 = np.uint64(7)
_U9 = np.uint64(9)
_U17 = np.uint64(17)
_U32 = np.uint64(32)
_U45 = np.uint64(45)
_U64 = np.uint64(64)
_U11 = np.uint64(11)
_MASK32 = np.uint64(0xFFFFFFFF)
_ZERO = np.uint64(0)
_SIX = np.uint64(6)
_SIX8 = np.uint64(6**8)  # 1 679 616 dice outcomes per 32-bit half
_SIX8_REJECT = np.uint64((2**32 - 6**8) % 6**8)  # Lemire threshold for the 6^8 block
_EIGHT = np.uint64(8)
_TWO_POW_M53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << k) | (x >> (_U64 - k))


@njit(cache=True, nogil=True, inline="always")
def xoshiro_step(s0, s1, s2, s3):
    """One xoshiro256** output and the advanced state, on four local words.

    Hot kernels keep the state in locals (registers) with this and store it back
    once per chunk; :func:`next_u64` is the same step on the state array.
    """
    result = _rotl(s1 * _U5, _U7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _U45)
    return result, s0, s1, s2, s3


@njit(cache=True, nogil=True, inline="always")
def below_local(bound, threshold, s0, s1, s2, s3):
    """Exact uniform integer in [0, bound), bound ≤ 2^32 (Lemire), on local state words.

    ``threshold`` = 2^32 mod bound (as uint64), computed once outside the hot loop.
    Returns (value, s0, s1, s2, s3).
    """
    b = np.uint64(bound)
    while True:
        word, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        m = (word >> _U32) * b
        if (m & _MASK32) >= threshold:
            return np.int64(m >> _U32), s0, s1, s2, s3


@njit(cache=True, nogil=True, inline="always")
def high_half_below(word, bound, threshold, s0, s1, s2, s3):
    """Index in [0, bound) from the high 32 bits of ``word`` (Lemire); a rejected
    half is replaced by the high half of fresh words. Returns (index, s0..s3).

    ``bound`` ≤ 2^32 and ``threshold`` = 2^32 mod bound, both uint64.
    """
    m = (word >> _U32) * bound
    while (m & _MASK32) < threshold:
        fresh, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        m = (fresh >> _U32) * bound
    return np.int64(m >> _U32), s0, s1, s2, s3


@njit(cache=True, nogil=True, inline="always")
def low_half_below(word, bound, threshold, s0, s1, s2, s3):
    """As :func:`high_half_below` from the low 32 bits (the other half of one word)."""
    m = (word & _MASK32) * bound
    while (m & _MASK32) < threshold:
        fresh, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        m = (fresh & _MASK32) * bound
    return np.int64(m >> _U32), s0, s1, s2, s3


@njit(cache=True, nogil=True)
def next_u64(state):
    """Next 64-bit output of xoshiro256** (Blackman & Vigna); advances ``state``."""
    result, s0, s1, s2, s3 = xoshiro_step(state[0], state[1], state[2], state[3])
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@njit(cache=True, nogil=True)
def uniform(state):
    """A float64 in [0, 1) with 53 random bits."""
    return float(next_u64(state) >> _U11) * _TWO_POW_M53


@njit(cache=True, nogil=True, inline="always")
def lemire_threshold(bound):
    """2^32 mod bound as uint64: a 32-bit draw x is accepted for ``bound`` when
    (x·bound mod 2^32) ≥ this (Lemire), 1 ≤ bound ≤ 2^32."""
    b = np.uint64(bound)
    return ((_MASK32 + _U1) - b) % b


@njit(cache=True, nogil=True)
def below(state, bound):
    """Exact uniform integer in [0, bound) for 1 <= bound <= 2**32 (Lemire)."""
    b = np.uint64(bound)
    threshold = lemire_threshold(b)
    while True:
        word = next_u64(state)
        # two 32-bit halves per 64-bit word: rejection is rare, so the second half
        # is only a fallback and costs nothing on the common path
        m = (word >> _U32) * b
        if (m & _MASK32) >= threshold:
            return np.int64(m >> _U32)
        m = (word & _MASK32) * b
        if (m & _MASK32) >= threshold:
            return np.int64(m >> _U32)


@njit(cache=True, nogil=True)
def _refill_digits(state):
    # a 32-bit half accepted for the block 6^8 gives 8 independent exact d6
    while True:
        word = next_u64(state)
        m = (word >> _U32) * _SIX8
        if (m & _MASK32) >= _SIX8_REJECT:
            state[4] = m >> _U32
            state[5] = _EIGHT
            return
        m = (word & _MASK32) * _SIX8
        if (m & _MASK32) >= _SIX8_REJECT:
            state[4] = m >> _U32
            state[5] = _EIGHT
            return


@njit(cache=True, nogil=True)
def sample_cdf(cdf, state):
    """Index k of a categorical draw: the first k with u < cdf[k] (u uniform in [0, 1)).

    ``cdf`` is a float64 cumulative distribution whose last entry is 1; the last index
    also absorbs float rounding at the top.
    """
    u = uniform(state)
    k = 0
    last = cdf.shape[0] - 1
    while k < last and u >= cdf[k]:
        k += 1
    return k


@njit(cache=True, nogil=True)
def d6(state):
    """One exact d6 in 1..6 (int64), 8 dice per accepted 32-bit block."""
    if state[5] == _ZERO:
        _refill_digits(state)
    buf = state[4]
    state[4] = buf // _SIX
    state[5] -= _U1
    return np.int64(buf % _SIX) + 1


@njit(cache=True, nogil=True)
def d3(state):
    """D3 as a d6 mapped 1-2→1, 3-4→2, 5-6→3 (DICE-1)."""
    return (d6(state) + 1) // 2


@njit(cache=True, nogil=True)
def die(state, sides):
    """One die with ``sides`` faces, 1..sides (exact)."""
    if sides == 6:
        return d6(state)
    return below(state, sides) + 1


@njit(cache=True, nogil=True)
def sum_d6(state, k):
    """Sum of ``k`` d6."""
    total = 0
    for _ in range(k):
        total += d6(state)
    return total


@njit(cache=True, nogil=True)
def fill_d6(state, out):
    """Fill an int64 array with d6 results (used by tests and benchmarks)."""
    for i in range(out.shape[0]):
        out[i] = d6(state)


@njit(cache=True, nogil=True)
def fill_u64(state, out):
    """Fill a uint64 array with raw generator outputs (known-answer tests)."""
    for i in range(out.shape[0]):
        out[i] = next_u64(state)


@njit(cache=True, nogil=True)
def fill_below(state, bound, out):
    """Fill an int64 array with ``below(state, bound)`` draws (tests and benchmarks)."""
    for i in range(out.shape[0]):
        out[i] = below(state, bound)


@njit(cache=True, nogil=True)
def fill_die(state, sides, out):
    """Fill an int64 array with ``die(state, sides)`` results (tests and benchmarks)."""
    for i in range(out.shape[0]):
        out[i] = die(state, sides)
