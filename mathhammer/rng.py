"""The only entry point for randomness: user seeds → one stream per chunk.

Chunk ``i`` of a run seeded with ``seed`` always gets the state derived from
``SeedSequence(seed, spawn_key=(i,))`` — the same child that
``SeedSequence(seed).spawn(n)[i]`` gives — so results depend on (seed, n_trials,
version) only, never on the thread count or on how many chunks run at once.
"""

from __future__ import annotations

import secrets

import numpy as np

from mathhammer.errors import InputError

STATE_SIZE = 8  # mirrors mathhammer.kernels.dice.STATE_SIZE without importing numba
MAX_SEED = 2**63 - 1


def resolve_seed(seed: int | None) -> int:
    """The user's seed, or a fresh one (printed by the CLI so the run can be repeated)."""
    if seed is None:
        return secrets.randbelow(2**31)
    if not 0 <= int(seed) <= MAX_SEED:
        raise InputError("--seed", "must be between 0 and 2**63-1", seed, "use e.g. --seed 1")
    return int(seed)


def chunk_state(seed: int, chunk: int) -> np.ndarray:
    """The kernel state (``uint64[8]``) for chunk number ``chunk`` of a run."""
    child = np.random.SeedSequence(seed, spawn_key=(chunk,))
    words = child.generate_state(4, np.uint64)
    while not words.any():  # xoshiro's one forbidden state; astronomically rare
        child = child.spawn(1)[0]
        words = child.generate_state(4, np.uint64)
    state = np.zeros(STATE_SIZE, dtype=np.uint64)
    state[:4] = words
    return state


def chunk_states(seed: int, n_chunks: int, first: int = 0) -> np.ndarray:
    """States of chunks ``first .. first+n_chunks-1`` as a ``(n_chunks, 8)`` array."""
    return np.stack([chunk_state(seed, first + i) for i in range(n_chunks)])
