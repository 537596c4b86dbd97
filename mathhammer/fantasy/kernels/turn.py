"""Whole game turns (FB-G5), one trial at a time: numbers in, counts out.

Each trial walks the game turns of ``fb turn`` (see :mod:`mathhammer.fantasy.combat.turn`)
with its own dice: the rally and panic tests (FB-G4), the charge roll against B's reaction
(FB-G1..G3), the shooting and magic missiles of each phase (the wounds drawn from the
shooting chain's exact table for the models the target has left), and each round of
combat played by the combat kernel's own :func:`~mathhammer.fantasy.kernels.combat.fight_round`
(FB-C1..C7), so the Monte Carlo engine shares no state-by-state code with the exact sum.

Array layouts (int64 unless stated):
  fire_cdf float64 (E, M, K)  cumulative P(k unsaved wounds) of entry e at m shootable models
  fire_target (E,)            the side each entry shoots at; fire_cast float64 (E,) P(cast)
  phase_of (2, 2, 8)          per side, its magic then shooting phase: entry numbers, -1 unused
  shot (2, S, 3)              per side: (body, wounds it can take, W) of what shooting slays,
                              the rank and file first; shot_n (2,) rows used
  panic_need (2, M)           the fewest losses of a phase that cause a panic test at m models
  flee_val, flee_cdf float64 (2, F)    each side's flee roll; escape_* (2, 2, F): the roll of
                              a unit that broke and got away, [side, chased]
  charge_reach, charge_move, charge_cdf float64 (R,)   A's charge roll (FB-G1, FB-G3)
  real float64 (8,)           length of the line, edge, B's M, p_ld A, p_ld B, p_quarter A, B
  ints (8,)                   turns, charge_turn, reaction (0 hold, 1 flee, 2 stand and
                              shoot), stand and shoot at any distance, first_b, the stand and
                              shoot entry (-1 none), start models A, B
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.combat import (
    CAUGHT,
    DESTROYED,
    FLED,
    IN,
    PURSUED,
    U_FRENZY,
    any_engagement,
    fight_round,
    round_arrays,
    unit_models,
)
from mathhammer.kernels.dice import sample_cdf, uniform

HOLD, FLEE, GONE, DEAD = 0, 1, 2, 3
R_LENGTH, R_EDGE, R_B_MOVE, R_LD_A, R_LD_B, R_QUARTER_A, R_QUARTER_B = range(7)
I_TURNS, I_CHARGE_TURN, I_REACTION, I_SAS_ANY, I_FIRST_B, I_SAS, I_START_A, I_START_B = range(8)


@njit(cache=True, nogil=True)
def _flee(room, unit, side, val, cdf, state):
    """FB-G4: a flight of the side's roll from its room; off the table at the edge."""
    f = val[side, sample_cdf(cdf[side], state)]
    room[side] -= f
    unit[side] = GONE if room[side] <= 0 else FLEE


@njit(cache=True, nogil=True)
def _shoot(e, target, u, b_int, wounds, fire_cdf, fire_cast, shot, shot_n, state):
    """One fire entry at ``target``: the rank and file slain first, then its champion."""
    n = 0
    for i in range(shot_n[target]):
        b = shot[target, i, 0]
        room = shot[target, i, 1] - wounds[b]
        w = shot[target, i, 2]
        n += (room + w - 1) // w
    if n == 0 or unit_models(b_int, u, wounds, 0) == 0:
        return
    if fire_cast[e] < 1.0 and uniform(state) >= fire_cast[e]:
        return
    hits = sample_cdf(fire_cdf[e, n], state)
    for i in range(shot_n[target]):
        b = shot[target, i, 0]
        room = shot[target, i, 1] - wounds[b]
        took = hits if hits < room else room
        wounds[b] += took
        hits -= took


@njit(cache=True, nogil=True)
def turn_trials(u_int, b_int, g_int, g_key, g_slot, g_pref, g_sum, g_fall, g_percdf, g_natt,
                e_pair, chal, p_ld_t, p_caught, p_instab, charged0,
                fire_cdf, fire_target, fire_cast, phase_of, shot, shot_n, panic_need,
                flee_val, flee_cdf, escape_val, escape_cdf, charge_reach, charge_move,
                charge_cdf, real, ints, state, n_trials, counts, left_a, left_b):
    """``n_trials`` trials of the turns; ``counts`` (turns, 2, 4) counts each unit's
    holding / fleeing / fled / destroyed after each game turn, ``left_a`` / ``left_b``
    the models left at the end (0 destroyed)."""
    n_u = u_int.shape[0]
    n_b = b_int.shape[0]
    n_g = g_int.shape[0]
    (wounds, status, frenzied, once_used, fresh, charged, duel, out,
     start, pending, keys, active, geo, small) = round_arrays(n_u, n_b, n_g)
    unit = np.zeros(2, np.int64)
    room = np.zeros(2, np.float64)
    first_b = ints[I_FIRST_B]
    u_of = np.array([0, first_b], np.int64)
    start_models = np.array([ints[I_START_A], ints[I_START_B]], np.int64)
    p_ld = np.array([real[R_LD_A], real[R_LD_B]])
    p_quarter = np.array([real[R_QUARTER_A], real[R_QUARTER_B]])
    length = real[R_LENGTH]
    for _ in range(n_trials):
        for b in range(n_b):
            wounds[b] = 0
        for u in range(n_u):
            status[u] = IN
            frenzied[u] = u_int[u, U_FRENZY]
        for g in range(n_g):
            once_used[g] = 0
        unit[0] = HOLD
        unit[1] = HOLD
        room[0] = real[R_EDGE]
        room[1] = real[R_EDGE]
        engaged = False
        rnd = 0
        home = False  # A has charged home
        for turn in range(1, ints[I_TURNS] + 1):
            for side in range(2):
                # ---- FB-G4: a fleeing unit rallies (below a quarter: a double 1) or flees on
                if unit[side] == FLEE:
                    left = unit_models(b_int, u_of[side], wounds, 0)
                    p = p_quarter[side] if left * 4 < start_models[side] else p_ld[side]
                    if uniform(state) < p:
                        unit[side] = HOLD
                    else:
                        _flee(room, unit, side, flee_val, flee_cdf, state)
                # ---- FB-G1..G3: A declares its charge until one reaches
                if (side == 0 and turn >= ints[I_CHARGE_TURN] and not home and not engaged
                        and unit[0] == HOLD and unit[1] == HOLD):
                    distance = length - room[0] - room[1]
                    sas = ints[I_SAS]
                    if sas >= 0 and (ints[I_SAS_ANY] == 1 or distance > real[R_B_MOVE]):
                        # FB-G2: B stands and shoots; no panic test for the charger
                        _shoot(sas, 0, 0, b_int, wounds, fire_cdf, fire_cast, shot, shot_n,
                               state)
                        if unit_models(b_int, 0, wounds, 0) == 0:
                            unit[0] = DEAD
                    if unit[0] == HOLD:
                        r = sample_cdf(charge_cdf, state)
                        reach = charge_reach[r]
                        move = charge_move[r]
                        f = 0.0
                        if ints[I_REACTION] == 1:
                            f = flee_val[1, sample_cdf(flee_cdf[1], state)]
                        need = distance + f
                        off = f >= room[1]
                        if reach >= need and f != 0.0 and not off:
                            unit[1] = DEAD  # caught fleeing
                            home = True
                        elif reach >= need and f == 0.0:
                            room[0] += distance  # into contact, where B stands
                            engaged = True
                            rnd = 0
                            home = True
                            for u in range(n_u):
                                status[u] = IN
                        else:
                            if f != 0.0:
                                room[1] -= f
                                unit[1] = GONE if room[1] <= 0 else FLEE
                            moved = need / 2 if move < 0 else move
                            room[0] += moved if moved < need else need
                # ---- the magic phase, then the shooting phase; a panic test each (FB-G4)
                target = 1 - side
                for ph in range(phase_of.shape[1]):
                    if phase_of[side, ph, 0] < 0:
                        continue
                    if engaged or unit[side] != HOLD or unit[target] >= GONE:
                        continue
                    at_start = unit_models(b_int, u_of[target], wounds, 0)
                    for i in range(phase_of.shape[2]):
                        e = phase_of[side, ph, i]
                        if e < 0:
                            break
                        _shoot(e, target, u_of[target], b_int, wounds, fire_cdf, fire_cast,
                               shot, shot_n, state)
                    left = unit_models(b_int, u_of[target], wounds, 0)
                    if left == 0:
                        unit[target] = DEAD
                    elif unit[target] == HOLD and at_start - left >= panic_need[target, at_start]:
                        if uniform(state) >= p_ld[target]:
                            _flee(room, unit, target, flee_val, flee_cdf, state)
                # ---- a round of combat (FB-C1..C7)
                if engaged:
                    for u in range(n_u):
                        fresh[u] = 1 if rnd == 0 else 0
                        charged[u] = charged0[u] if rnd == 0 else 0
                    duel[0] = 0
                    duel[1] = chal[1] if chal[2] == 2 else -1
                    fight_round(u_int, b_int, g_int, g_key, g_slot, g_pref, g_sum, g_fall,
                                g_percdf, g_natt, e_pair, chal, p_ld_t, p_caught, p_instab,
                                state, wounds, status, frenzied, once_used, fresh, charged,
                                duel, out, start, pending, keys, active, geo, small)
                    rnd += 1
                    if not any_engagement(status, e_pair):
                        engaged = False
                        rnd = 0
                        codes = (status[0], status[first_b])
                        fled = -1
                        for s in range(2):
                            code = codes[s]
                            if code == DESTROYED or code == CAUGHT:
                                unit[s] = DEAD
                            elif code == FLED:
                                unit[s] = FLEE
                                if fled < 0:
                                    fled = s
                            else:
                                unit[s] = HOLD
                        if fled >= 0:  # FB-C6: it got away, so its roll beat the pursuit
                            chased = 1 if codes[1 - fled] == PURSUED else 0
                            f = escape_val[fled, chased, sample_cdf(escape_cdf[fled, chased],
                                                                    state)]
                            room[fled] -= f
                            unit[fled] = GONE if room[fled] <= 0 else FLEE
                        for u in range(n_u):
                            status[u] = IN
                        for g in range(n_g):
                            once_used[g] = 0
            for side in range(2):
                counts[turn - 1, side, unit[side]] += 1
        left_a[0 if unit[0] == DEAD else unit_models(b_int, 0, wounds, 0)] += 1
        left_b[0 if unit[1] == DEAD else unit_models(b_int, first_b, wounds, 0)] += 1
