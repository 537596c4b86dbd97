"""Exact grid engine: the distribution of grid states after a sequence of attacks.

Two implementations of one dynamic programme over marked-box states (WM-G2..G4):

* :func:`state_distribution` — the numba kernel ``kernels.grid.sequence_exact``:
  states are uint64 bitmasks (bit 63 = knocked down), each step expands every
  state by outcome × column and merges equal states with one sort. Grids fill
  top-down, so without WM-G5 damage the states are column-fill vectors: at most
  7^6 = 117 649 of them.
* :func:`reference_distribution` — the same programme in plain Python with a dict
  and the cell-by-cell :meth:`Grid.mark`. It is the independent cross-check in
  tests and the baseline the issue measures against (≈0.36 s for three attacks).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from mathhammer.warmachine.grid import Grid

KD = 1 << 63


def state_distribution(arrays) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """(uint64 states, probabilities, P(hit) per step) for a ``SequenceArrays``."""
    from mathhammer import kernels

    kernel = kernels.load("grid")
    p_hits = np.zeros(max(arrays.pmf.shape[0], 1), dtype=np.float64)
    keys, probs = kernel.sequence_exact(arrays.full, arrays.width, arrays.start_bits, arrays.col_start,
                                        arrays.m_mask, arrays.pmf, arrays.knocks_down,
                                        arrays.kd0, p_hits)
    return keys, probs, [float(p) for p in p_hits[: arrays.pmf.shape[0]]]


def summarise(arrays, n_boxes: int, keys: np.ndarray, probs: np.ndarray):
    """(damage pmf over boxes marked, P(crippled) per system, P(destroyed))."""
    from mathhammer import kernels

    kernel = kernels.load("grid")
    masks = arrays.system_masks if len(arrays.systems) else np.zeros(0, dtype=np.uint64)
    dmg, crip, dest = kernel.summarise_states(keys, probs, arrays.full, arrays.start_bits,
                                              masks, np.int64(n_boxes))
    return dmg, crip, float(dest)


def reference_distribution(grid: Grid, pmf: np.ndarray, knocks_down: list[int],
                           start_bits: int = 0, knocked_down: bool = False) -> dict[int, float]:
    """Plain-Python dict DP: {state (bit 63 = knocked down): probability}.

    ``pmf[step, variant, outcome]`` as in :mod:`mathhammer.warmachine.sequence`.
    """
    m_mask = grid.system_masks.get("M", 0)
    states: dict[int, float] = {start_bits | (KD if knocked_down else 0): 1.0}
    for s in range(pmf.shape[0]):
        nxt: dict[int, float] = defaultdict(float)
        for key, p in states.items():
            bits, kd = key & ~KD, bool(key & KD)
            mcrip = m_mask != 0 and bits & m_mask == m_mask
            row = pmf[s, int(mcrip) + 2 * int(kd)]
            hit_kd = KD if (kd or knocks_down[s]) else 0
            nxt[key] += p * row[0]
            nxt[bits | hit_kd] += p * row[1] if len(row) > 1 else 0.0
            for o in range(2, len(row)):
                if row[o] > 0:
                    for column in range(1, 7):
                        nxt[grid.mark(bits, column, o - 1) | hit_kd] += p * row[o] / 6
        states = {k: v for k, v in nxt.items() if v > 0}
    return states
