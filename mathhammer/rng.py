"""The only entry point for randomness: user seeds → one stream per chunk.

Chunk ``i`` of a run seeded with ``seed`` always gets the state derived from
``SeedSequence(seed, spawn_key=(i,))`` — the same child that
``SeedSequence(seed).spawn(n)[i]`` gives — so results depend on (seed, n_trials,
version) only, never on the thread count or on how many chunks run at once.
"""

from __future__ import annotations

import numpy as np

from mathhammer.errors import InputError

STATE_SIZE = 8  # mirrors mathhammer.kernels.dice.STATE_SIZE without importing numba
MAX_SEED = 2**63 - 1


def resolve_seed(seed: int | None) -> int:
    """The user's seed, or a fresh one (printed by the CLI so the run can be repeated)."""
    if seed is None:
        import secrets  # here: an exact query draws no seed (start-up)

        return secrets.randbelow(2**31)
    if not 0 <= int(seed) <= MAX_SEED:
        raise InputError("‹seed›", "must be between 0 and 2**63-1", seed, "use e.g. ‹seed› 1")
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


# numpy's SeedSequence constants (NumPy Enhancement Proposal 19 / bit_generator.pyx)
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = 0xCA01F9DD
_MIX_MULT_R = 0x4973F715
_MASK32 = 0xFFFFFFFF
#: hash constant of SeedSequence's mixer after the seed's 4-word pool is mixed
#: (INIT_A times MULT_A once per pool word and once per ordered pair of words)
_HASH_AFTER_POOL = (0x43B0D7E5 * pow(_MULT_A, 4 + 4 * 3, 2**32)) & _MASK32


def chunk_states(seed: int, n_chunks: int, first: int = 0) -> np.ndarray:
    """States of chunks ``first .. first+n_chunks-1`` as a ``(n_chunks, 8)`` array.

    Row i equals :func:`chunk_state` ``(seed, first + i)``, computed for all chunks
    at once: SeedSequence's per-child mixing and output hash, vectorised over the
    chunk numbers (~0.1 µs a chunk instead of ~9 µs, so a worker thread never
    holds the GIL to seed a chunk). ``tests/test_engine.py`` checks it word for
    word against numpy.
    """
    if n_chunks == 0:
        return np.zeros((0, STATE_SIZE), dtype=np.uint64)
    if first + n_chunks - 1 > _MASK32:  # a 2-word spawn key: the plain way
        return np.stack([chunk_state(seed, first + i) for i in range(n_chunks)])
    chunks = np.arange(first, first + n_chunks, dtype=np.uint64)
    u32 = np.uint32
    pool = np.random.SeedSequence(seed).pool  # the seed's mixed pool, shared by every child
    # the spawn key (one 32-bit word, the chunk number) is mixed into each pool word
    hash_const = _HASH_AFTER_POOL
    mixed = np.empty((4, n_chunks), dtype=u32)
    word = chunks.astype(u32)
    for dst in range(4):
        value = word ^ u32(hash_const)
        hash_const = (hash_const * _MULT_A) & _MASK32
        value *= u32(hash_const)
        value ^= value >> u32(16)
        result = u32(_MIX_MULT_L) * np.full(n_chunks, pool[dst], dtype=u32) \
            - u32(_MIX_MULT_R) * value
        mixed[dst] = result ^ (result >> u32(16))
    # generate_state(4, uint64): 8 output words cycling over the pool, paired little-endian
    hash_const = _INIT_B
    out32 = np.empty((n_chunks, 8), dtype=u32)
    for dst in range(8):
        value = mixed[dst % 4] ^ u32(hash_const)
        hash_const = (hash_const * _MULT_B) & _MASK32
        value *= u32(hash_const)
        value ^= value >> u32(16)
        out32[:, dst] = value
    words = out32[:, 0::2].astype(np.uint64) | (out32[:, 1::2].astype(np.uint64) << np.uint64(32))
    states = np.zeros((n_chunks, STATE_SIZE), dtype=np.uint64)
    states[:, :4] = words
    for row in np.flatnonzero(~words.any(axis=1)):  # xoshiro's forbidden state: as chunk_state
        states[row] = chunk_state(seed, first + int(row))
    return states
