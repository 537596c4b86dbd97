"""The battle kernel's structures own the arrays their borrowed views read (battle_state.keep)."""

import gc

import numpy as np
import pytest
from numba import njit

from mathhammer.fantasy.kernels.battle_state import NST, borrowed, make_state, new_state


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
