"""AOE and spray kernels (WM-D4..D7): geometric Monte Carlo of template attacks.

Coordinates are inches, relative to the intended point of impact's model: the
attacker is somewhere on the negative x axis, +x points away from it. Model m has
centre ``(x[m], y[m])`` and base radius ``r[m]``; it is under a template of radius
``R`` centred at ``(cx, cy)`` when ``(x-cx)^2 + (y-cy)^2 <= (r+R)^2 + EPS`` (base
circle and template circle touch or overlap).

Tables (built in Python by ``mathhammer.warmachine.aoe`` from the rules):
``att_table[att_offset[m] + i]`` 0/1/2 (miss / hit / critical) per attack roll index
``i < att_bound[m]``; ``full_table`` / ``blast_table`` damage dealt per damage roll
index, offsets ``full_offset`` / ``blast_offset``, bounds ``full_bound`` /
``blast_bound``. Rolls are drawn as one exact index in [0, 6^k) with ``below``.

A trial fires ``n_shots`` attacks (a weapon's ROF) at the same point; each model's
damage adds up over the shots. Outputs per trial: ``hits[m]`` +1 when model m took at
least one damage roll, ``damage_hist[m, total]``, ``count_hist[models that took a
damage roll]``, ``destroyed_hist[models whose damage reached boxes[m]]`` (models with
``boxes[m] = 0`` are never counted), ``direct_hits`` the shots that hit directly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import below, d6

EPS = 1e-9


@njit(cache=True, nogil=True)
def _tally(total, took, boxes, hits, damage_hist, count_hist, destroyed_hist):
    count = 0
    dead = 0
    for m in range(total.shape[0]):
        hits[m] += took[m]
        count += took[m]
        damage_hist[m, total[m]] += 1
        if boxes[m] > 0 and total[m] >= boxes[m]:
            dead += 1
    count_hist[count] += 1
    destroyed_hist[dead] += 1


@njit(cache=True, nogil=True)
def aoe_mc(model_x, model_y, model_r, radius, aim_x, deviation_cap, dir_x, dir_y,
           att_bound, att_table, full_bound, full_offset, full_table,
           blast_bound, blast_offset, blast_table, boxes, n_shots, state, n_trials,
           hits, damage_hist, count_hist, destroyed_hist, direct_hits):
    """AOE shots at model 0 (WM-D4, WM-D5).

    Args:
        model_x, model_y, model_r: float64[m] centres and base radii; model 0 is the target.
        radius: template radius. aim_x: x of the intended point (0, or the point at RNG
            in front of a target beyond RNG, whose attack table then never hits).
        deviation_cap: the largest deviation distance (half the attacker-to-point distance).
        dir_x, dir_y: float64[6] unit vectors of deviation directions 1..6.
        att_bound: int64, 6^k of the attack roll; att_table: int8 outcomes.
        full_*: the target's direct-hit damage roll; blast_*: per-model blast roll
            (int64 bounds/offsets of length m, one flat int64 table).
        boxes: int64[m] damage boxes (0 = not counted as destroyed). n_shots: int64 ≥ 1.
        hits, damage_hist, count_hist, destroyed_hist, direct_hits: see the module doc.
    """
    n_models = model_x.shape[0]
    reach = np.empty(n_models)
    for m in range(n_models):
        reach[m] = (model_r[m] + radius) ** 2 + EPS
    total = np.zeros(n_models, dtype=np.int64)
    took = np.zeros(n_models, dtype=np.int64)
    for _ in range(n_trials):
        total[:] = 0
        took[:] = 0
        for _shot in range(n_shots):
            outcome = att_table[below(state, att_bound)]
            cx = aim_x
            cy = 0.0
            direct = outcome > 0
            if not direct:  # WM-D5: d6 direction, d6 inches capped at half the distance
                direction = d6(state) - 1
                dist = min(float(d6(state)), deviation_cap)
                cx += dist * dir_x[direction]
                cy += dist * dir_y[direction]
            else:
                direct_hits[0] += 1
            for m in range(n_models):
                dx = model_x[m] - cx
                dy = model_y[m] - cy
                if m == 0 and direct:
                    total[m] += full_table[full_offset[0] + below(state, full_bound[0])]
                    took[m] = 1
                elif dx * dx + dy * dy <= reach[m]:
                    total[m] += blast_table[blast_offset[m] + below(state, blast_bound[m])]
                    took[m] = 1
        _tally(total, took, boxes, hits, damage_hist, count_hist, destroyed_hist)


@njit(cache=True, nogil=True)
def spray_mc(under, att_bound, att_offset, att_table, full_bound, full_offset, full_table,
             boxes, n_shots, state, n_trials, hits, damage_hist, count_hist, destroyed_hist,
             direct_hits):
    """Spray (WM-D6): a separate attack roll against every model under the template.

    Args:
        under: int8[m], 1 when model m is under the spray template (fixed geometry).
        att_*: per-model attack tables (int64 bounds/offsets, int8 flat table).
        full_*: per-model damage tables at full POW.
        boxes, n_shots, hits, damage_hist, count_hist, destroyed_hist: as :func:`aoe_mc`;
        direct_hits: int64[1] shots whose roll against the target (model 0) hit.
    """
    n_models = under.shape[0]
    total = np.zeros(n_models, dtype=np.int64)
    took = np.zeros(n_models, dtype=np.int64)
    for _ in range(n_trials):
        total[:] = 0
        took[:] = 0
        for _shot in range(n_shots):
            for m in range(n_models):
                if under[m]:
                    outcome = att_table[att_offset[m] + below(state, att_bound[m])]
                    if outcome > 0:
                        took[m] = 1
                        if m == 0:
                            direct_hits[0] += 1
                        total[m] += full_table[full_offset[m] + below(state, full_bound[m])]
        _tally(total, took, boxes, hits, damage_hist, count_hist, destroyed_hist)
