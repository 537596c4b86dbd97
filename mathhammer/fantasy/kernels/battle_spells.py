"""Augments and hexes in the battle kernel (FB-B30; :mod:`mathhammer.fantasy.battle.spell_effects`
states the rules): each unit's spell this player turn, and the fight code that tells a unit
under one from the unit itself (its fight tables are another content)."""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.battle_state import NG

#: S.g[G_SPELL + u]: the spell row on unit u this turn, plus 1 (0: none); after the magic
#: phase's 16 slots (kernels.battle_magic.G_MAGIC, N_MAGIC); one slot for each unit, so a
#: battle takes at most MAX_UNITS units (battle.compile.static_arrays says so to the user)
G_SPELL = NG + 16
MAX_UNITS = 64
#: where a fight's miss row carries each engine unit's spell (row + 1, 0 none): one column for
#: each of its at most 8 units (4 a side, FB-M1), so the row read back is MISS_WIDTH columns
MISS_EFFECTS = 40
MISS_WIDTH = MISS_EFFECTS + 8


@njit(cache=True, nogil=True, error_model="numpy")
def spell_on(g, u):
    """The spell row on unit u this turn, or -1."""
    if u >= MAX_UNITS:
        return -1
    return g[G_SPELL + u] - 1


@njit(cache=True, nogil=True, error_model="numpy")
def clear_spells(g, n):
    for u in range(min(n, MAX_UNITS)):
        g[G_SPELL + u] = 0


@njit(cache=True, nogil=True, error_model="numpy")
def effects_code(code, order, n, g):
    """The fight code with the engine units' spells mixed in; unchanged when none has one
    (so every fight without a spell keeps its code)."""
    anyone = False
    for k in range(n):
        if spell_on(g, order[k]) >= 0:
            anyone = True
    if not anyone:
        return code
    h = np.uint64(code) ^ np.uint64(0x9E3779B97F4A7C15)
    prime = np.uint64(1099511628211)
    for k in range(n):
        h = (h ^ np.uint64(spell_on(g, order[k]) + 2)) * prime
    return np.int64(h >> np.uint64(1))
