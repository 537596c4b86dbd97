"""The one-test fast paths of the kernels (issue 29 part 8) agree with the draws they shortcut.

The Warmachine single attack tests both halves of a word at once and calls the two
Lemire helpers only when one is rejected; the Fantasy chain accepts a pair of 6^8
draws with one ``min`` test. With the real bounds a rejection is a 1-in-10^5 event
or rarer, so these tests use bounds where half the draws are rejected and check that
every index and the generator state match the helpers called one after the other.
"""

from __future__ import annotations

import numpy as np

from mathhammer.fantasy.kernels import chain as fb
from mathhammer.kernels import dice
from mathhammer.rng import chunk_state
from mathhammer.warmachine.kernels import chain as wm


def test_both_halves_equal_the_two_helpers_when_halves_are_rejected():
    big = np.uint64(3 << 30)  # 2^32 mod bound = 2^30: a quarter of the halves are rejected
    small = np.uint64(6**3)
    rejected = 0
    for seed in range(300):
        state = chunk_state(seed, 0)
        # numba hands uint64 back as Python int: typed again as uint64 for the next call
        word, *s = (np.uint64(x) for x in dice.xoshiro_step(*state[:4]))
        for hit_bound, dmg_bound in ((big, small), (small, big), (big, big)):
            hthr = np.uint64((2**32 - int(hit_bound)) % int(hit_bound))
            dthr = np.uint64((2**32 - int(dmg_bound)) % int(dmg_bound))
            got = wm._both_halves(word, hit_bound, hthr, dmg_bound, dthr, *s)
            i, *after = wm._high(word, hit_bound, hthr, *s)
            j, *after = wm._low(word, dmg_bound, dthr, *(np.uint64(x) for x in after))
            assert tuple(int(x) for x in got) == (int(i), int(j), *(int(x) for x in after))
            rejected += tuple(int(x) for x in got[2:]) != tuple(int(x) for x in s)
    assert rejected > 50  # the slow path really ran


def test_draw_pair_rejects_a_word_when_either_half_fails():
    """The pair is the first word whose two halves both pass the 6^8 test, as before."""
    six8 = 6**8
    threshold = (2**32 - six8) % six8
    for seed in range(200):
        state = chunk_state(seed, 7)
        b1, b2, *after = fb._draw_pair(*state[:4])
        replay = chunk_state(seed, 7)
        while True:
            word = int(dice.next_u64(replay))
            m1, m2 = (word >> 32) * six8, (word & 0xFFFFFFFF) * six8
            if m1 & 0xFFFFFFFF >= threshold and m2 & 0xFFFFFFFF >= threshold:
                break
        assert (int(b1), int(b2)) == (m1 >> 32, m2 >> 32)
        assert [int(x) for x in after] == [int(x) for x in replay[:4]]


def test_single_attack_odd_and_even_counts_continue_one_stream():
    """Two trials a turn and a last odd one: n trials in one call = the same trials in two
    calls on one state, whatever the split."""
    rng = np.random.default_rng(3)
    hit = rng.integers(0, 3, 216).astype(np.int8)
    dmg = rng.integers(0, 9, 216).astype(np.int64)
    args = (np.uint64(216), np.uint64((2**32 - 216) % 216), hit, np.uint64(216),
            np.uint64((2**32 - 216) % 216), dmg)
    whole = np.zeros(9, np.int64)
    state = chunk_state(1, 1)
    total = wm.single_attack(*args, state, np.int64(1001), whole)
    parts = np.zeros(9, np.int64)
    state_b = chunk_state(1, 1)
    first = wm.single_attack(*args, state_b, np.int64(333), parts)
    second = wm.single_attack(*args, state_b, np.int64(668), parts)
    assert parts.tolist() == whole.tolist() and whole.sum() == 1001
    assert (first[0] + second[0], first[1] + second[1]) == tuple(total)
    assert state.tolist() == state_b.tolist()
    # hits and criticals are the trials whose attack roll index has outcome 1 or 2
    assert 0 <= total[1] <= total[0] <= 1001
