"""The battle kernel's structures own the arrays their borrowed views read (battle_state.keep)."""

import gc

import numpy as np
import pytest
from numba import njit

from mathhammer.fantasy.kernels.battle_state import NST, make_state, new_state
from mathhammer.kernels.borrowed import borrowed, item, window, window2


@njit(cache=False)
def _fill(S, value):
    S.pos[:, :] = value
    S.ust[:, :] = 3
    S.kstate[:] = 11


@njit(cache=False)
def _sums(S):
    return S.pos.sum(), S.ust.sum(), S.kstate.sum()


def test_a_states_arrays_live_as_long_as_the_state():
    """No Python name holds the arrays of a new state: its views must still read them after
    the collector ran and other arrays took freed memory."""
    S = new_state(4, 6)
    _fill(S, 2.5)
    gc.collect()
    # memory freed too early is taken again by arrays of every size near the state's
    litter = [np.full(n, 9.0) for n in range(1, 200) for _ in range(20)]
    assert _sums(S) == (4 * 5 * 2.5, 4 * NST * 3, 8 * 11)
    del litter


def test_a_state_sees_its_arrays_and_writes_them():
    """The views are the arrays themselves, not copies: what Python sets, the kernel reads."""
    arrays = [np.zeros((2, 5)), np.zeros((2, 21), np.int64), np.zeros((2, 12), np.int64),
              np.zeros(96, np.int64), np.zeros(1), np.zeros((2, 3), np.int64),
              np.zeros((2, 16), np.int64), np.zeros((6, 2), np.int64), np.zeros(8, np.uint64)]
    S = make_state(*arrays)
    arrays[0][:] = 1.0
    assert _sums(S)[0] == 10.0
    _fill(S, 4.0)
    assert arrays[0].sum() == 40.0 and arrays[8].sum() == 88


def test_a_view_refuses_an_array_that_is_not_c_contiguous():
    @njit(cache=False)
    def view(a):
        return borrowed(a)

    owner = np.arange(6.0).reshape(2, 3)  # a view owns nothing: its array must stay alive
    assert view(owner).sum() == 15.0
    with pytest.raises(Exception, match="C-contiguous"):
        view(np.arange(6.0).reshape(2, 3)[:, 0])


def test_a_battle_owns_the_arrays_it_was_made_of():
    """A Battle made of static and deployment arrays that nothing else holds plays the same
    battle as the one whose arrays Python keeps (its ``keep`` owns them)."""
    from mathhammer.fantasy.battle.runner import Recipe, build_plan, kernel_of
    from mathhammer.lists import load_list
    from mathhammer.rng import chunk_state

    armies = [load_list(x) for x in ("wfb8_empire", "wfb8_orcs")]
    plan = build_plan(Recipe(*armies, None, "default", 2, "roll-off", "greedy", "greedy", 8, 1))
    kb = kernel_of(plan)
    words = chunk_state(4, 0)
    held = [kb.one_battle(words, i) for i in range(3)]
    fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in (*kb.P, *kb.D)]
    kb.B = kb.ks.make_battle(*fresh, *kb.T, *kb.W)
    del fresh
    gc.collect()
    litter = [np.full(n, 9.0) for n in range(1, 200) for _ in range(20)]
    assert [kb.one_battle(words, i) for i in range(3)] == held
    del litter


@njit(cache=False)
def _items(tables, i):
    return item(tables, i).sum(), item(tables, i).shape[0]


def test_a_borrowed_list_item_is_the_item_itself():
    """item() reads a typed list's array without taking a count: the same numbers as the
    list's own getitem, for every item, and writes through it reach the list's array."""
    from numba.typed import List

    tables = List([np.arange(n, dtype=np.float64).reshape(n, 1) for n in range(1, 9)])
    for i in range(8):
        assert _items(tables, i) == (tables[i].sum(), tables[i].shape[0])

    @njit(cache=False)
    def double(tables, i):
        view = item(tables, i)
        view[:, 0] *= 2.0

    double(tables, 5)
    assert tables[5].sum() == 2 * 15.0


def test_windows_are_the_parts_of_their_buffer():
    """window / window2 cut views of a 1-d buffer: what the kernel writes lands at
    [start, start + n) of the buffer, in C order for a 2-d window, and nowhere else."""
    @njit(cache=False)
    def cut(buf, start, n, rows, columns):
        a = window(buf, start, n)
        for i in range(n):
            a[i] = i + 1
        b = window2(buf, start + n, rows, columns)
        for r in range(rows):
            for c in range(columns):
                b[r, c] = 100 * (r + 1) + c
        return a.shape[0], b.shape[0], b.shape[1]

    rng = np.random.default_rng(3)
    for _ in range(20):
        n, rows, columns = (int(x) for x in rng.integers(1, 6, 3))
        start = int(rng.integers(0, 5))
        buf = np.full(start + n + rows * columns + 4, -7, np.int64)
        assert cut(buf, start, n, rows, columns) == (n, rows, columns)
        want = np.full_like(buf, -7)
        want[start:start + n] = np.arange(1, n + 1)
        want[start + n:start + n + rows * columns] = (
            100 * (np.arange(rows)[:, None] + 1) + np.arange(columns)[None, :]).ravel()
        assert np.array_equal(buf, want)


def test_a_fight_larger_than_the_round_scratch_grows_it(monkeypatch):
    """A combat round cuts its arrays from B.cr (battle_combat.round_scratch): starting from
    a scratch too small for any fight, every entered fight grows it first, and the battles
    are those of the default scratch, to the last bit."""
    from mathhammer.fantasy.battle import compile as fb_compile
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.fantasy.kernels.battle_actions import W_CR
    from mathhammer.lists import load_list

    recipe = Recipe(load_list("wfb8_empire_battle"), load_list("wfb8_orcs_battle"), None,
                    "default", 6, "roll-off", "greedy", "greedy", 8, 1)
    tallies, sizes, default = [], [], fb_compile.ROUND_SCRATCH
    for start in (default, 8):
        monkeypatch.setattr(fb_compile, "ROUND_SCRATCH", start)
        plan = build_plan(recipe)
        plan.kernel = fb_compile.KernelBattle(plan)
        tallies.append(run(recipe, 60, 9, plan=plan)[0])
        sizes.append(plan.kernel.W[W_CR].shape[0])
    assert sizes[0] == default and sizes[1] > 8
    for key, value in tallies[0].items():
        assert np.array_equal(tallies[1][key], value), key


@pytest.mark.parametrize("hashed", [True, False])
def test_a_fights_wounds_tables_are_their_distinct_blocks(monkeypatch, hashed):
    """compile.unique_blocks: the blocks put back by their index are the wounds tables to the
    last bit (0.0 and -0.0 stay apart), and no two blocks are alike — by the hash, and by the
    bits when every hash is alike (the check that catches two blocks alike in hash only)."""
    from mathhammer.fantasy.battle import compile as fb_compile

    if not hashed:
        monkeypatch.setattr(fb_compile, "_hash_weights", lambda n: np.zeros(n, np.uint64))
    rng = np.random.default_rng(11)
    for _ in range(10):
        g, ts, n, w = (int(x) for x in rng.integers(1, 5, 4))
        pool = rng.random((int(rng.integers(1, 6)), n, w))
        pool[0, 0, 0] = -0.0
        if len(pool) > 1:
            pool[1] = pool[0]
            pool[1, 0, 0] = 0.0
        g_sum = pool[rng.integers(0, len(pool), (g, ts, 6))]
        blocks, inverse = fb_compile.unique_blocks(g_sum)
        assert inverse.shape == (g, ts, 6) and blocks.shape[1:] == (n, w)
        assert np.array_equal(blocks[inverse].view(np.uint64), g_sum.view(np.uint64))
        assert len({b.tobytes() for b in blocks}) == len(blocks)


def test_a_battle_keeps_one_copy_of_each_block_its_fights_share():
    """KernelBattle._blocks_of: fights that share blocks enter each once in T_BLOCKS, and
    every fight's index reads its own blocks."""
    from mathhammer.fantasy.battle.compile import unique_blocks
    from mathhammer.fantasy.battle.runner import Recipe, build_plan, kernel_of
    from mathhammer.fantasy.kernels.battle_actions import T_BLOCKS
    from mathhammer.lists import load_list

    plan = build_plan(Recipe(load_list("wfb8_empire"), load_list("wfb8_orcs"), None, "default",
                             2, "roll-off", "greedy", "greedy", 8, 1))
    kb = kernel_of(plan)
    rng = np.random.default_rng(5)
    pool = rng.random((4, 3, 7))
    fights = [pool[rng.integers(0, 4, (3, 2, 6))] for _ in range(5)]
    before = len(kb.T[T_BLOCKS])
    for g_sum in fights:
        index = kb._blocks_of(*unique_blocks(g_sum))
        stored = np.array([kb.T[T_BLOCKS][i] for i in index.ravel()]).reshape(g_sum.shape)
        assert np.array_equal(stored, g_sum)
    assert len(kb.T[T_BLOCKS]) - before == len({b.tobytes() for b in pool})


def test_a_move_decisions_values_read_the_enemies_it_wrote():
    """threat reads u's enemies from B.crf as enemies_of wrote them for the decision: a
    Battle whose scratch starts full of garbage plays the very battles of a zeroed one."""
    from mathhammer.fantasy.battle.runner import Recipe, build_plan, kernel_of
    from mathhammer.fantasy.kernels.battle_actions import W_CRF
    from mathhammer.lists import load_list
    from mathhammer.rng import chunk_state

    recipe = Recipe(load_list("wfb8_empire_battle"), load_list("wfb8_orcs_battle"), None,
                    "default", 6, "roll-off", "greedy", "greedy", 8, 1)
    tallies = []
    for fill in (0.0, np.nan, 1e9):
        kb = kernel_of(build_plan(recipe))
        kb.W[W_CRF][:] = fill
        tallies.append(kb.run_chunk(40, chunk_state(13, 0)))
    for other in tallies[1:]:
        for key, value in tallies[0].items():
            assert np.array_equal(other[key], value), key
