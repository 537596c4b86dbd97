"""Artillery and templates (FB-R1..R7): scatter, artillery dice, template coverage.

Geometry in inches: a unit is a list of base rectangles ``x0 < x1``, ``y0 < y1``
(files along x, ranks along +y, the front edge at y = 0, the shooter at y < 0).
Wound outcomes of one hit come as cumulative tables compiled in Python from the
exact chain (:func:`mathhammer.fantasy.chain.core.single_attack_outcomes`): index k <
K-1 = k unsaved wounds, K-1 = slain outright.

Counters (int64, N_COUNTERS): see the C_* slots; a misfire adds to C_MISFIRE and to
the slot C_ROW0 + (its row of the ruleset's misfire table: ``row_of_face[d6 − 1]``).
Histograms: models hit, wounds (capped at the unit's total), models slain (FB-V4: total
wounds // W).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mathhammer.kernels.dice import below, d3, d6, uniform
from mathhammer.kernels.dice import sample_cdf as _sample

C_MISFIRE, C_DIRECT, C_ANY_HIT, C_BIG_HIT, C_EXTRA = 0, 1, 2, 3, 4
C_ROW0 = 5  # misfire-table rows (at most MAX_ROWS)
MAX_ROWS = 4
N_COUNTERS = C_ROW0 + MAX_ROWS
ARTILLERY_DISTANCE = (2, 4, 6, 8, 10)  # DICE-3: face index 5 is MISFIRE


@njit(cache=True, nogil=True)
def _wound(cdf_row, total, w, state):
    """Wounds one hit adds to ``total`` (a slay takes the model's remaining wounds)."""
    k = _sample(cdf_row, state)
    if k == cdf_row.shape[0] - 1:
        return w - total % w
    return k


@njit(cache=True, nogil=True)
def misfire(state, counters, row_of_face):
    """A misfire: one D6 on the ruleset's table (FB-R2, FB-R3, FB-R6, FB-R7)."""
    counters[C_MISFIRE] += 1
    counters[C_ROW0 + row_of_face[d6(state) - 1]] += 1


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
                    cdf_small, cdf_big, w, distances, row_of_face, state, n_trials, counters,
                    hist_hit, hist_wounds, hist_slain):
    """Round templates (FB-R1, FB-R2, DICE-7): a distance draw + the scatter die.

    ``distances`` int64: equally likely distances, -1 = MISFIRE — the artillery die
    (2, 4, 6, 8, 10, -1) for a stone thrower, a dice expression's outcomes for a
    template that scatters by stated dice. HIT (``hit_faces`` of 6) keeps the aim
    point; an arrow moves the template the distance in a uniform direction. Every
    touched base is hit (with ``partial_rule`` a partly covered base only on a 4+); the
    base under the centre takes the big hit.
    """
    models = x0.shape[0]
    cap = models * w
    r2 = radius * radius
    two_pi = 2.0 * math.pi
    n_distances = distances.shape[0]
    for _ in range(n_trials):
        dist = distances[below(state, n_distances)]
        if dist < 0:
            misfire(state, counters, row_of_face)
            _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
            continue
        cx = aim_x
        cy = aim_y
        if d6(state) <= hit_faces:
            counters[C_DIRECT] += 1
        else:
            angle = uniform(state) * two_pi
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
def bounce_trials(x0, x1, y0, y1, line_x, aim_y, cdf_hit, w, row_of_face, state, n_trials,
                  counters, hist_hit, hist_wounds, hist_slain):
    """Cannon, wfb8 (FB-R3): landing = aim + artillery dice, bounce = artillery dice again,
    every base on the line is hit; MISFIRE on the bounce: only the landing point."""
    models = x0.shape[0]
    cap = models * w
    idx = np.zeros(models, np.int64)
    for _ in range(n_trials):
        face = below(state, 6)
        if face == 5:
            misfire(state, counters, row_of_face)
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
                       row_of_face, state, n_trials, counters, hist_hit, hist_wounds,
                       hist_slain):
    """To-hit artillery: bolt thrower (FB-R4) and the t9a1 to-hit cannon (FB-R3).

    One roll: misfire (p_misfire, then the misfire table), hit (p_hit) or miss. A hit
    goes through ``n_positions`` models in a line, position j using ``cdfs[j]``; with
    ``stop_when_survives`` (bolt thrower) it stops at the first model not slain.
    """
    cap = models * w
    for _ in range(n_trials):
        u = uniform(state)
        if u < p_misfire:
            misfire(state, counters, row_of_face)
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


# ---- FB-R6: the flame template ---------------------------------------------------------
@njit(cache=True, nogil=True)
def _separated(ax, ay, x0, x1, y0, y1, px, py, qx, qy, tx, ty):
    """True when axis (ax, ay) separates the rectangle from triangle P, Q, T."""
    r_lo = 1e300
    r_hi = -1e300
    for cx in (x0, x1):
        for cy in (y0, y1):
            v = cx * ax + cy * ay
            r_lo = min(r_lo, v)
            r_hi = max(r_hi, v)
    t_lo = min(px * ax + py * ay, qx * ax + qy * ay, tx * ax + ty * ay)
    t_hi = max(px * ax + py * ay, qx * ax + qy * ay, tx * ax + ty * ay)
    return r_hi < t_lo - 1e-12 or t_hi < r_lo - 1e-12


@njit(cache=True, nogil=True)
def teardrop_touches(x0, x1, y0, y1, line_x, tip_y, length, width):
    """True when a base touches the flame template: the convex hull of its narrow tip at
    (line_x, tip_y) and a disc of diameter ``width`` whose far edge is ``length`` further
    along +y. The hull is the disc plus the triangle of the tip and the two tangent
    points; the triangle is tested by separating axes (touching counts)."""
    r = width / 2.0
    cx = line_x
    cy = tip_y + length - r
    if rect_distance2(x0, x1, y0, y1, cx, cy) <= r * r + 1e-12:
        return True
    d = cy - tip_y  # tip to the disc's centre
    if d <= r:
        return False  # a degenerate template: the disc is all of it
    cos_a = r / d
    sin_a = math.sqrt(1.0 - cos_a * cos_a)
    qx = cx + r * sin_a
    tx = cx - r * sin_a
    qy = cy - r * cos_a
    px = line_x
    py = tip_y
    if _separated(1.0, 0.0, x0, x1, y0, y1, px, py, qx, qy, tx, qy):
        return False
    if _separated(0.0, 1.0, x0, x1, y0, y1, px, py, qx, qy, tx, qy):
        return False
    for ex, ey in ((qx - px, qy - py), (tx - qx, qy - qy), (px - tx, py - qy)):
        if _separated(-ey, ex, x0, x1, y0, y1, px, py, qx, qy, tx, qy):
            return False
    return True


@njit(cache=True, nogil=True)
def flame_hits(x0, x1, y0, y1, line_x, tip_y, length, width, out):
    """Indices of the bases the flame template touches (into ``out``); returns the count."""
    n = 0
    for m in range(x0.shape[0]):
        if teardrop_touches(x0[m], x1[m], y0[m], y1[m], line_x, tip_y, length, width):
            out[n] = m
            n += 1
    return n


@njit(cache=True, nogil=True)
def flame_trials(x0, x1, y0, y1, line_x, muzzle_y, length, width, cdf_hit, w, row_of_face,
                 state, n_trials, counters, hist_hit, hist_wounds, hist_slain):
    """Fire thrower, template rulesets (FB-R6): the template's tip starts at the muzzle
    and moves the artillery die's inches straight on; every base it touches is hit.
    MISFIRE: the ruleset's black powder table."""
    models = x0.shape[0]
    cap = models * w
    idx = np.zeros(models, np.int64)
    for _ in range(n_trials):
        face = below(state, 6)
        if face == 5:
            misfire(state, counters, row_of_face)
            _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
            continue
        hits = flame_hits(x0, x1, y0, y1, line_x, muzzle_y + 2.0 * (face + 1), length, width,
                          idx)
        total = 0
        for _h in range(hits):
            total += _wound(cdf_hit, total, w, state)
        _tally(hits, total, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)


@njit(cache=True, nogil=True)
def rank_flame_trials(rank_models, cdf_hit, w, models, misfire_on, row_of_face, state,
                      n_trials, counters, hist_hit, hist_wounds, hist_slain):
    """T9A 1.2+ Flame Thrower (FB-R6): a D6, ``misfire_on`` or less misfires; otherwise
    each rank (``rank_models``: models in each, at most 5 ranks) takes D3 hits, at most
    its models, one per model."""
    cap = models * w
    for _ in range(n_trials):
        if d6(state) <= misfire_on:
            misfire(state, counters, row_of_face)
            _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
            continue
        counters[C_DIRECT] += 1
        hits = 0
        total = 0
        for r in range(rank_models.shape[0]):
            h = d3(state)
            if h > rank_models[r]:
                h = rank_models[r]
            for _h in range(h):
                hits += 1
                total += _wound(cdf_hit, total, w, state)
        _tally(hits, total, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)


# ---- FB-R7: multi-barrel cannons ---------------------------------------------------------
@njit(cache=True, nogil=True)
def volley_trials(mode, n_dice, plus, p_hit, cdf_hit, w, models, row_of_face, state,
                  n_trials, counters, hist_hit, hist_wounds, hist_slain):
    """Organ gun / Helblaster (wfb8) and volley gun (t9a1): shots, to-hit, wounds.

    mode 0: ``n_dice`` artillery dice (2 organ gun, 3 Helblaster); shots = the sum of
    the numbers; one MISFIRE: the others' shots at -1 to hit (Helblaster: half their
    sum, rounded up); two MISFIREs: no shots, the misfire table; three (Helblaster): 30
    shots, then the machine is removed (C_EXTRA).
    mode 1: Multiple Shots ``n_dice`` D6 + ``plus`` with their sixes counted: one 6
    fires at -1 to hit, two or more: no shots, the misfire table. mode 2: ``plus`` shots,
    never a misfire. p_hit float64[2]: a shot's to-hit chance (index 1: at -1). Each hit
    takes one wound outcome from ``cdf_hit``. C_DIRECT counts the rolls with one misfire
    or one six (-1 to hit); C_BIG_HIT the rolls that fired at all.
    """
    cap = models * w
    for _ in range(n_trials):
        shots = 0
        worse = 0
        if mode == 0:
            misfires = 0
            numbers = 0
            for _d in range(n_dice):
                face = below(state, 6)
                if face == 5:
                    misfires += 1
                else:
                    numbers += 2 * (face + 1)
            if misfires == 3:
                shots = 30
                counters[C_EXTRA] += 1
            elif misfires >= 2:
                misfire(state, counters, row_of_face)
                _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
                continue
            elif misfires == 1:
                worse = 1 if n_dice == 2 else 0
                shots = numbers if n_dice == 2 else (numbers + 1) // 2
                counters[C_DIRECT] += 1
            else:
                shots = numbers
        elif mode == 1:
            sixes = 0
            shots = plus
            for _d in range(n_dice):
                face = d6(state)
                shots += face
                sixes += face == 6
            if sixes >= 2:
                misfire(state, counters, row_of_face)
                _tally(0, 0, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
                continue
            if sixes == 1:
                worse = 1
                counters[C_DIRECT] += 1
        else:
            shots = plus
        counters[C_BIG_HIT] += 1
        hits = 0
        total = 0
        for _s in range(shots):
            if uniform(state) < p_hit[worse]:
                hits += 1
                total += _wound(cdf_hit, total, w, state)
        if hits > hist_hit.shape[0] - 1:
            hits = hist_hit.shape[0] - 1
        _tally(hits, total, w, cap, models, counters, hist_hit, hist_wounds, hist_slain)
