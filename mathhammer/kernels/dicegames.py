"""Roll-offs (DICE-6) and scatter by any dice (DICE-4, DICE-7), rolled die by die.

Inputs are numbers and tables built by :mod:`mathhammer.dicegames`; outputs are
int64 histograms and counters (no per-trial data).
"""

from __future__ import annotations

import math

from numba import njit

from mathhammer.kernels.dice import below, d6, uniform


@njit(cache=True, nogil=True)
def roll_off_trials(bonus_a, bonus_b, state, n_trials, wins, rolls_hist):
    """``n_trials`` roll-offs: both roll a D6 plus their bonus, ties roll again (DICE-6).

    wins int64[2]: A's and B's wins. rolls_hist int64[K]: rolls needed, index k for k
    rolls (k ≥ 1); the last bin holds K − 1 rolls or more (the roll-off still goes on to
    its end, only the count is capped). When the bonuses differ by 6 or more a tie is
    impossible, so the loop always ends.
    """
    top = rolls_hist.shape[0] - 1
    for _ in range(n_trials):
        k = 0
        while True:
            k += 1
            a = d6(state) + bonus_a
            b = d6(state) + bonus_b
            if a != b:
                break
        if a > b:
            wins[0] += 1
        else:
            wins[1] += 1
        rolls_hist[k if k < top else top] += 1


@njit(cache=True, nogil=True)
def scatter_trials(hit_faces, distances, radius, offset, state, n_trials, counters, hist):
    """``n_trials`` scatters: the scatter die, then the distance dice (DICE-7).

    The scatter die shows HIT on ``hit_faces`` of its 6 faces (the object stays put);
    otherwise it moves ``distances[u]`` inches (u uniform over the equally likely
    outcomes of the distance dice, one table entry each) in a uniform direction.

    counters int64[3]: [0] HITs, [1] trials ending within ``radius`` of the point
    ``offset`` inches from the aim point (radius < 0: not asked), [2] unused.
    hist int64[max distance + 1]: the distance moved (0 on a HIT).
    """
    m = distances.shape[0]
    two_pi = 2.0 * math.pi
    r2 = radius * radius + 1e-9  # a distance exactly R counts as within R (cos² + sin² rounding)
    for _ in range(n_trials):
        if d6(state) <= hit_faces:
            counters[0] += 1
            hist[0] += 1
            if radius >= 0.0 and offset * offset <= r2:
                counters[1] += 1
            continue
        dist = distances[below(state, m)]
        hist[dist] += 1
        if radius >= 0.0:
            angle = uniform(state) * two_pi
            dx = dist * math.cos(angle) - offset
            dy = dist * math.sin(angle)
            if dx * dx + dy * dy <= r2:
                counters[1] += 1
