"""The random-number floor of a kernel: a bare xoshiro256** loop drawing the same words.

A kernel that draws ``w`` 64-bit words per trial can never run faster than this loop
drawing ``w`` words per trial (no rejection test, no table, no counter), so
``floor time / kernel time`` says how much of the kernel is the random numbers
themselves (issue 29 part 8: at least 0.5 for the single attack and the Fantasy chain).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import xoshiro_step


@njit(cache=True, nogil=True)
def draw_words(state, n_words):
    """Draw ``n_words`` words from ``state`` (advanced) and fold them into one, so the
    compiler cannot drop the draws."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    acc = np.uint64(0)
    for _ in range(n_words):
        word, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        acc ^= word
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return acc
