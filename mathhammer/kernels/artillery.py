"""Artillery and templates (FB-R1..R5): scatter, artillery dice, template coverage.

Geometry in inches: a unit is a list of base rectangles ``x0 < x1``, ``y0 < y1``
(files along x, ranks along +y, the front edge at y = 0, the shooter at y < 0).
Wound outcomes of one hit come as cumulative tables compiled in Python from the
exact chain (:func:`mathhammer.fantasy.chain.single_attack_outcomes`): index k <
K-1 = k unsaved wounds, K-1 = slain outright.

Counters (int64, N_COUNTERS): see the C_* slots. Histograms: models hit, wounds
(capped at the unit's total), models slain (FB-V4: total wounds // W).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mathhammer.kernels.dice import below, d6, uniform
from mathhammer.kernels.dice import sample_cdf as _sample

C_MISFIRE, C_DESTROYED, C_DISABLED, C_NO_SHOT, C_DIRECT, C_ANY_HIT, C_BIG_HIT = 0, 1, 2, 3, 4, 5, 6
N_COUNTERS = 7
ARTILLERY_DISTANCE = (2, 4, 6, 8, 10)  # DICE-3: face index 5 is MISFIRE


@njit(cache=True, nogil=True)
def _wound(cdf_row, total, w, state):
    """Wounds one hit adds to ``total`` (a slay takes the model's remaining wounds)."""
    k = _sample(cdf_row, state)
    if k == cdf_row.shape[0] - 1:
        return w - total % w
    return k


@njit(cache=True, nogil=True)
def misfire(state, counters):
    """FB-R2 misfire table, D6: 1 destroyed, 2-3 disabled, 4-6 no shot this turn."""
    counters[C_MISFIRE] += 1
    roll = d6(state)
    if roll == 1:
        counters[C_DESTROYED] += 1
    elif roll <= 3:
        counters[C_DISABLED] += 1
    else:
        counters[C_NO_SHOT] += 1


@njit(cache=True, nogil=True)
def rect_distance2(x0, x1, y0, y1, cx, cy):
    """Squared distance from a point to a rectangle (0 inside)."""
    dx = max(x0 - cx, 0.0, cx - x1)
    dy = max(y0 - cy, 0.0, cy - y1)
    return dx * dx + dy * dy


@njit(cache=True, nogil=True)
def covered(x0, x1, y0, y1, cx, cy, r2):
    """True when the whole base lies under the round template (its farthest corner)."""
    fx = max(abs(x0 - cx), abs(x1 - cx))
    fy = max(abs(y0 - cy), abs(y1 - cy))
    return fx * fx + fy * fy <= r2


@njit(cache=True, nogil=True)
def _tally(hits, total, w, cap, models, counters, hist_hit, hist_wounds, hist_slain):
    if hits > 0:
        counters[C_ANY_HIT] += 1
    if total > cap:
        total = cap
    hist_hit[hits] += 1
    hist_wounds[total] += 1
    slain = total // w
    hist_slain[slain if slain < models else models] += 1


@njit(cache=True, nogil=True)
def template_trials(x0, x1, y0, y1, aim_x, aim_y, radius, hit_faces, partial_rule,
                    cdf_small, cdf_big, w, state, n_trials, counters, hist_hit, hist_wounds,
                    hist_slain):
    """Stone thrower (FB-R1, FB-R2): artillery die + scatter die, round template.

    HIT (``hit_faces`` of 6) keeps the aim point; an arrow moves the template the
    artillery distance in a uniform direction. Every touched base is hit (with
    ``partial_rule`` a partly covered base only on a 4+); the base under the centre
    takes the big hit.
    """
    models = x0.shape[0]
    cap = models * w
    r2 = radius * radius
    two_pi = 2.0 * math.pi
    for _ in range(n_trials):
        face = below(state, 6)
        if face == 5:
            misfire(state, counters)
            _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
            continue
        cx = aim_x
        cy = aim_y
        if d6(state) <= hit_faces:
            counters[C_DIRECT] += 1
        else:
            angle = uniform(state) * two_pi
            dist = 2.0 * (face + 1)
            cx += dist * math.cos(angle)
            cy += dist * math.sin(angle)
        hits = 0
        total = 0
        for m in range(models):
            if rect_distance2(x0[m], x1[m], y0[m], y1[m], cx, cy) > r2:
                continue
            if partial_rule == 1 and not covered(x0[m], x1[m], y0[m], y1[m], cx, cy, r2):
                if d6(state) < 4:
                    continue
            hits += 1
            if x0[m] <= cx < x1[m] and y0[m] <= cy < y1[m]:
                counters[C_BIG_HIT] += 1
                total += _wound(cdf_big, total, w, state)
            else:
                total += _wound(cdf_small, total, w, state)
        _tally(hits, total, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)


@njit(cache=True, nogil=True)
def line_hits(x0, x1, y0, y1, line_x, y_from, y_to, out):
    """Indices of bases a line x = line_x from y_from to y_to touches; returns the count."""
    n = 0
    for m in range(x0.shape[0]):
        if x0[m] <= line_x <= x1[m] and y0[m] <= y_to and y_from <= y1[m]:
            out[n] = m
            n += 1
    return n


@njit(cache=True, nogil=True)
def bounce_trials(x0, x1, y0, y1, line_x, aim_y, cdf_hit, w, state, n_trials, counters,
                  hist_hit, hist_wounds, hist_slain):
    """Cannon, wfb8 (FB-R3): landing = aim + artillery dice, bounce = artillery dice again,
    every base on the line is hit; MISFIRE on the bounce: only the landing point."""
    models = x0.shape[0]
    cap = models * w
    idx = np.zeros(models, np.int64)
    for _ in range(n_trials):
        face = below(state, 6)
        if face == 5:
            misfire(state, counters)
            _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
            continue
        land = aim_y + 2.0 * (face + 1)
        bounce = below(state, 6)
        end = land if bounce == 5 else land + 2.0 * (bounce + 1)
        hits = line_hits(x0, x1, y0, y1, line_x, land, end, idx)
        total = 0
        for _h in range(hits):
            total += _wound(cdf_hit, total, w, state)
        _tally(hits, total, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)


@njit(cache=True, nogil=True)
def penetrating_trials(p_misfire, p_hit, cdfs, n_positions, stop_when_survives, w, models,
                       state, n_trials, counters, hist_hit, hist_wounds, hist_slain):
    """To-hit artillery: bolt thrower (FB-R4) and the t9a1 to-hit cannon (FB-R3).

    One roll: misfire (p_misfire, then the misfire table), hit (p_hit) or miss. A hit
    goes through ``n_positions`` models in a line, position j using ``cdfs[j]``; with
    ``stop_when_survives`` (bolt thrower) it stops at the first model not slain.
    """
    cap = models * w
    for _ in range(n_trials):
        u = uniform(state)
        if u < p_misfire:
            misfire(state, counters)
            _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
            continue
        if u >= p_misfire + p_hit:
            _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
            continue
        counters[C_DIRECT] += 1
        hits = 0
        total = 0
        for j in range(n_positions):
            hits += 1
            before = total
            total += _wound(cdfs[j], total, w, state)
            if stop_when_survives == 1 and total - before < w:
                break
        _tally(hits, total, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
