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


def _replay_pairs(state, n_pairs):
    """The first ``n_pairs`` words whose two halves pass the 6^8 test, drawn one by one."""
    six8 = 6**8
    threshold = (2**32 - six8) % six8
    pairs = []
    while len(pairs) < n_pairs:
        word = int(dice.next_u64(state))
        m1, m2 = (word >> 32) * six8, (word & 0xFFFFFFFF) * six8
        if m1 & 0xFFFFFFFF >= threshold and m2 & 0xFFFFFFFF >= threshold:
            pairs.append((m1, m2))
    return pairs


def test_two_pairs_at_once_are_two_pairs_in_a_row_along_a_stream():
    """The counting kernel's two-word turn: one stream read at 60,000 places, rejected
    halves included (about 10 of them), gives the pairs of two _draw_pair calls."""
    state = chunk_state(5, 2)
    redone = 0
    for _ in range(60_000):
        *got, a, b, c, d = fb._draw_two_pairs(*state[:4])
        replay = state.copy()
        want = _replay_pairs(replay, 2)
        assert [int(x) for x in got] == [want[0][0], want[0][1], want[1][0], want[1][1]]
        assert [int(x) for x in (a, b, c, d)] == [int(x) for x in replay[:4]]
        redone += int(replay[0]) != int(_after_words(state, 2)[0])
        dice.next_u64(state)  # the next place along the stream
    assert redone >= 3  # words were rejected and drawn again


def _after_words(state, n):
    copy = state.copy()
    for _ in range(n):
        dice.next_u64(copy)
    return copy


def test_two_pairs_again_keeps_the_order_of_the_words_that_passed():
    """Every pattern of rejected words: the passed ones first, in order, then new words."""
    six8 = np.uint64(6**8)
    rejected = (np.uint64(0), np.uint64(1) * six8)  # halves 0 and 1: the 0 fails the test
    passed = [(np.uint64(h) * six8, np.uint64(h + 7) * six8) for h in (1000, 2000)]
    for first_ok in (False, True):
        for second_ok in (False, True):
            words = [passed[0] if first_ok else rejected, passed[1] if second_ok else rejected]
            state = chunk_state(11, 0)
            got = fb._two_pairs_again(*words[0], *words[1], *state[:4])
            replay = state.copy()
            kept = [w for w, ok in zip(words, (first_ok, second_ok)) if ok]
            want = [(int(a), int(b)) for a, b in kept] + _replay_pairs(replay, 2 - len(kept))
            assert [int(x) for x in got[:4]] == [want[0][0], want[0][1], want[1][0], want[1][1]]
            assert [int(x) for x in got[4:]] == [int(x) for x in replay[:4]]
