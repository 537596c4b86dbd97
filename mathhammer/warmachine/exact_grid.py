"""Exact grid engine: the distribution of grid states after a sequence of attacks.

Two implementations of one dynamic programme over marked-box states (WM-G2..G4):

* :func:`state_distribution` — the numba kernel ``warmachine.kernels.grid.sequence_exact``:
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

from mathhammer.errors import InputError
from mathhammer.warmachine.grid import Grid

KD = 1 << 63


MAX_CANDIDATES = 12_000_000  # states × outcomes × columns in one step (~200 MB of work arrays)
AUTO_CANDIDATES = 1_500_000  # above this ``auto`` prefers Monte Carlo (exact would take seconds)


class ExactTooLarge(InputError):
    """The exact grid programme would need too much memory; Monte Carlo answers instead."""


def state_distribution(arrays, max_candidates: int = MAX_CANDIDATES
                       ) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """(uint64 states, probabilities, P(hit) per step) for a ``SequenceArrays``.

    Raises:
        ExactTooLarge: when one step would expand more than ``max_candidates`` states.
    """
    from mathhammer import kernels

    kernel = kernels.load("mathhammer.warmachine.kernels.grid")
    n_steps, _, n_out = arrays.pmf.shape
    p_hits = np.zeros(max(n_steps, 1), dtype=np.float64)
    keys = np.array([int(arrays.start_bits) | (KD if arrays.kd0 else 0)], dtype=np.uint64)
    probs = np.ones(1, dtype=np.float64)
    for step in range(n_steps):
        need = keys.shape[0] * (2 + 6 * n_out)
        if need > max_candidates:
            raise ExactTooLarge("‹method›", f"the exact grid programme would expand {need:,} "
                                f"states at attack {step + 1} (limit {max_candidates:,})",
                                "exact", "use ‹method› mc")
        keys, probs = kernel.sequence_exact(keys, probs, arrays.full, arrays.width,
                                            arrays.col_start, arrays.m_mask, arrays.shield_mask,
                                            arrays.pmf,
                                            arrays.knocks_down, arrays.fa_masks, np.int64(step),
                                            p_hits)
    return keys, probs, [float(p) for p in p_hits[:n_steps]]


def summarise(arrays, n_boxes: int, keys: np.ndarray, probs: np.ndarray):
    """(damage pmf over boxes marked, P(crippled) per system, P(destroyed))."""
    from mathhammer import kernels

    kernel = kernels.load("mathhammer.warmachine.kernels.grid")
    masks = arrays.system_masks if len(arrays.systems) else np.zeros(0, dtype=np.uint64)
    dmg, crip, dest = kernel.summarise_states(keys, probs, arrays.full, arrays.start_bits,
                                              masks, np.int64(n_boxes))
    return dmg, crip, float(dest)


def reference_distribution(grid: Grid, pmf: np.ndarray, knocks_down: list[int],
                           start_bits: int = 0, knocked_down: bool = False,
                           first_available: list[str] | None = None,
                           shield_mask: int = 0) -> dict[int, float]:
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
            scrip = shield_mask != 0 and bits & shield_mask == shield_mask
            row = pmf[s, int(mcrip) + 2 * int(kd) + 4 * int(scrip)]
            hit_kd = KD if (kd or knocks_down[s]) else 0
            nxt[key] += p * row[0]
            nxt[bits | hit_kd] += p * row[1] if len(row) > 1 else 0.0
            system = first_available[s] if first_available else ""
            for o in range(2, len(row)):
                if row[o] > 0 and system:
                    nxt[grid.mark_first_available(bits, system, o - 1) | hit_kd] += p * row[o]
                elif row[o] > 0:
                    for column in range(1, 7):
                        nxt[grid.mark(bits, column, o - 1) | hit_kd] += p * row[o] / 6
        states = {k: v for k, v in nxt.items() if v > 0}
    return states
