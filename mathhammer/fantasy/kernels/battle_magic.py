"""The battle kernel's magic phase (FB-B12): the steps of :mod:`mathhammer.fantasy.battle.magic`
(its docstring states the rules) on the kernel's arrays.

Every exact table the phase samples is built by Python before the run
(:func:`mathhammer.fantasy.battle.magic.kernel_tables`: the flow and channel, each spell's
cast outcomes per number of dice, dispel chances, each missile's wound table, the wizards,
their spells, the scripted orders, the decisions' vocabulary) and rides in the shooting
tables' list (``B.shot_list``) under negative codes of its own (:func:`mcode`), so the
battle's structures gain no field. The phase's own state is ``S.g[G_MAGIC + M_*]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.fantasy.kernels.battle_actions import (
    OI_CODE,
    OI_TARGET,
    box_distance,
    centre,
    clear_contacts,
    engaged,
    in_front_arc,
    in_reach,
    panic_tests,
    seen,
)
from mathhammer.fantasy.kernels.battle_state import (
    ANY,
    B_MODELS,
    B_W,
    BEST_RESPONSE,
    DEAD,
    G_INDEX,
    G_PHASE,
    HOLD,
    MAXOPT,
    NEED,
    NG,
    NKINDS,
    NONE,
    OK,
    R_BR_KINDS,
    R_POLICY_A,
    R_POLICY_B,
    SCRIPTED,
    ST_CT,
    ST_MODELS,
    ST_PSM,
    ST_STATUS,
    UI_POINTS,
    UI_SIDE,
    body_alive,
    box,
    models_alive,
    on_the_table,
    unit_alive,
)
from mathhammer.fantasy.kernels.battle_spells import G_SPELL, MAX_UNITS, spell_on
from mathhammer.fantasy.kernels.battle_values import greedy_choice
from mathhammer.kernels.dice import uniform

MAGIC, SHOOT = 6, 7  # the phases of kernels.battle (FB-B3)
#: the magic phase's slots after the battle's globals: S.g[G_MAGIC + M_*]
G_MAGIC = NG
(M_POWER, M_DISPEL, M_POWER_USED, M_DISPEL_USED, M_ROW, M_TARGET, M_DICE, M_KIND, M_TOTAL,
 M_TRIED, M_DONE, M_NO_DISPEL, M_IN_PLAY_TRIED, M_POWER_DISPEL) = range(14)
# M_IN_PLAY_TRIED: a bit per unit; M_POWER_DISPEL: 1 while power dice dispel (FB-B31)
N_MAGIC = 16
# table kinds (mcode): the phase's numbers, a wizard, a spell, flow, cast, dispel, missile,
# the decisions' vocabulary (a cast, no cast, dice, a dispel) and a unit's scripted orders;
# an augment's or hex's value per enemy (FB-B30)
(MK_INFO, MK_CASTER, MK_ROW, MK_FLOW, MK_CAST, MK_DISPEL, MK_MISSILE, MK_VCAST, MK_VNOCAST,
 MK_VDICE, MK_VDISPEL, MK_ORDERS, MK_MISCAST, MK_EFFECT) = range(1, 15)
(I_CASTERS, I_ROWS, I_MAXCAST, I_DISPEL_CAP, I_MAX_POWER_USED, I_MAX_DISPEL_USED,
 I_FAILED_CASTER_STOPS, I_FAILED_DISPELLER_STOPS, I_MISCAST_REMOVES, I_PLAYED) = range(10)
C_UNIT, C_BODY, C_SIDE, C_LEVEL = range(4)
R_CASTER, R_UNIT, R_SIDE, R_CV, R_RANGE, R_SCRIPTED_DICE, R_HEAL, R_EFFECT, R_IN_PLAY = range(9)
AUGMENT, HEX = 1, 2  # R_EFFECT (FB-B30; 0: a missile or heal)
FAIL, PLAIN, OVERWHELMING, IRRESISTIBLE = range(4)
TOTALS = 96  # dispel tables' casting totals 0..95 (the highest a cast reaches is ~50)
SCRIPTED_DISPEL_CONFIDENCE = 0.85  # battle.magic's
MAX_OPTIONS = 512
K_CAST, K_DICE, K_DISPEL = NKINDS, NKINDS + 1, NKINDS + 2  # decision kinds after the battle's


@njit(cache=True, nogil=True, error_model="numpy")
def mcode(kind, key):
    """The shot_dict code of a magic table: negative, apart from the shooting tables'."""
    return -(kind * 10_000_000 + key) - 1


@njit(cache=True, nogil=True, error_model="numpy")
def table(B, kind, key):
    return B.shot_list[B.shot_dict[mcode(kind, key)]]


@njit(cache=True, nogil=True, error_model="numpy")
def has(B, kind, key):
    return mcode(kind, key) in B.shot_dict


# ---- who may cast, dispel, channel ---------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def wizard_ready(B, S, k):
    c = table(B, MK_CASTER, k)
    u, b = int(c[C_UNIT]), int(c[C_BODY])
    return S.ust[u, ST_STATUS] == HOLD and body_alive(B.bodies, u, b, S.wounds)


@njit(cache=True, nogil=True, error_model="numpy")
def channellers(B, S, side):
    n = 0
    for k in range(int(table(B, MK_INFO, 0)[I_CASTERS])):
        if int(table(B, MK_CASTER, k)[C_SIDE]) == side and wizard_ready(B, S, k):
            n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def dispel_level(B, S, side):
    g = S.g
    best = 0
    for k in range(int(table(B, MK_INFO, 0)[I_CASTERS])):
        c = table(B, MK_CASTER, k)
        if int(c[C_SIDE]) == side and wizard_ready(B, S, k) \
                and (g[G_MAGIC + M_NO_DISPEL] >> k) & 1 == 0 and int(c[C_LEVEL]) > best:
            best = int(c[C_LEVEL])
    return best


@njit(cache=True, nogil=True, error_model="numpy")
def dispel_dice_left(B, S):
    info = table(B, MK_INFO, 0)
    g = S.g
    return max(0, min(g[G_MAGIC + M_DISPEL], int(info[I_DISPEL_CAP]),
                      int(info[I_MAX_DISPEL_USED]) - g[G_MAGIC + M_DISPEL_USED]))


@njit(cache=True, nogil=True, error_model="numpy")
def power_dice_left(B, S):
    info = table(B, MK_INFO, 0)
    g = S.g
    return max(0, min(g[G_MAGIC + M_POWER], int(info[I_MAXCAST]),
                      int(info[I_MAX_POWER_USED]) - g[G_MAGIC + M_POWER_USED]))


@njit(cache=True, nogil=True, error_model="numpy")
def can_cast(B, S, k):
    u = int(table(B, MK_CASTER, k)[C_UNIT])
    return (S.g[G_MAGIC + M_DONE] >> k) & 1 == 0 and wizard_ready(B, S, k) \
        and not engaged(S.ust, u) and power_dice_left(B, S) > 0


@njit(cache=True, nogil=True, error_model="numpy")
def missile_targets(B, S, u, reach, out_t, out_gap):
    """The enemies a magic missile from u may target (battle.magic.missile_targets)."""
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    me, them, cp = np.zeros(7), np.zeros(7), np.zeros((4, 2))
    box(ui, uf, pos, st, u, me)
    e = 1 - ui[u, UI_SIDE]
    n = 0
    for i in range(nside[e]):
        t = sides[e, i]
        gap = in_reach(B, S, t, me, them, reach)
        if gap < 0.0 or not in_front_arc(me, them, cp):
            continue
        tx, ty = centre(them)
        ok, _cover = seen(B, S, u, t, me[0], me[1], tx, ty)
        if ok:
            out_t[n], out_gap[n] = t, gap
            n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def targets_in_reach(B, S, u, reach, effect, out_t, out_gap):
    """Units a heal (effect 0: friends with wounds on them; battle.magic.heal_targets), an
    augment (friends) or a hex (enemies) from u may target — FB-B30's: holding in a combat, no
    other spell on them (battle.spell_effects.effect_targets) — within ``reach``, no sight."""
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    me, them = np.zeros(7), np.zeros(7)
    box(ui, uf, pos, st, u, me)
    s = 1 - ui[u, UI_SIDE] if effect == HEX else ui[u, UI_SIDE]
    n = 0
    for i in range(nside[s]):
        t = sides[s, i]
        if st[t, ST_STATUS] != HOLD:
            continue
        if effect == 0:
            if S.wounds[t, 0] <= 0:
                continue
        elif spell_on(S.g, t) >= 0 or not engaged(st, t):
            continue
        gap = 0.0
        if t != u:
            box(ui, uf, pos, st, t, them)
            gap = box_distance(me, them, B.cp, B.cq)
        if gap <= reach:
            out_t[n], out_gap[n] = t, gap
            n += 1
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def is_heal(B, r):
    return int(table(B, MK_ROW, r)[R_HEAL]) == 1


@njit(cache=True, nogil=True, error_model="numpy")
def effect_kind(B, r):
    return int(table(B, MK_ROW, r)[R_EFFECT])


@njit(cache=True, nogil=True, error_model="numpy")
def effect_value(B, S, r, t):
    """battle.spell_effects.effect_value: the spell's value per enemy in contact with t,
    summed in unit order, never below 0."""
    st = S.ust
    if st[t, ST_STATUS] != HOLD or (spell_on(S.g, t) >= 0 and spell_on(S.g, t) != r):
        return 0.0
    values = table(B, MK_EFFECT, r * 256 + t)
    total = 0.0
    found = False
    for e in range(st.shape[0]):
        if B.ui[e, UI_SIDE] == B.ui[t, UI_SIDE] or st[e, ST_STATUS] != HOLD:
            continue
        if st[e, ST_CT] == t or (st[t, ST_CT] == e and st[t, ST_STATUS] == HOLD):
            total += values[e]
            found = True
    if not found:
        return 0.0
    return max(0.0, total)


# ---- values (battle.magic's one-step values) -----------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def p_dispel(B, dice, level, total):
    if dice <= 0:
        return 0.0
    return table(B, MK_DISPEL, dice * 16 + level)[min(max(total, 0), TOTALS - 1)]


@njit(cache=True, nogil=True, error_model="numpy")
def spell_value(B, S, r, t):
    """battle.magic.spell_value: what the spell of row r cast on t is worth in VP (a missile's
    wounds, a heal's wounds back, an augment's or hex's FB-B30 value)."""
    if effect_kind(B, r) != 0:  # FB-B30
        return effect_value(B, S, r, t)
    bodies = B.bodies
    heal = is_heal(B, r)
    room = S.wounds[t, 0] if heal else bodies[t, 0, B_MODELS] * bodies[t, 0, B_W] - S.wounds[t, 0]
    if room <= 0 or (heal and S.ust[t, ST_STATUS] != HOLD):
        return 0.0
    cum = table(B, MK_MISSILE, r * 256 + t)
    mean, prev = 0.0, 0.0
    for k in range(cum.shape[0]):
        mean += min(k, room) * (cum[k] - prev)
        prev = cum[k]
    total = 0
    for b in range(bodies.shape[1]):
        total += bodies[t, b, 0] * bodies[t, b, 1]
    return mean * (B.ui[t, UI_POINTS] / max(total, 1))


@njit(cache=True, nogil=True, error_model="numpy")
def p_goes_off(B, S, r, dice):
    reactive = 1 - int(table(B, MK_ROW, r)[R_SIDE])
    dd, level = dispel_dice_left(B, S), dispel_level(B, S, reactive)
    outcomes = table(B, MK_CAST, r * 16 + dice)
    p = 0.0
    for i in range(outcomes.shape[0] // 3):
        kind, total, q = int(outcomes[3 * i]), int(outcomes[3 * i + 1]), outcomes[3 * i + 2]
        if kind == IRRESISTIBLE:
            p += q
        elif kind != FAIL:
            p += q * (1.0 - p_dispel(B, dd, level, total))
    return p


@njit(cache=True, nogil=True, error_model="numpy")
def best_cast(B, S, r, value, dice_max):
    best = 0.0
    for d in range(1, dice_max + 1):
        v = p_goes_off(B, S, r, d) * value
        if d == 1 or v > best:
            best = v
    return best


@njit(cache=True, nogil=True, error_model="numpy")
def top_value(B, S, r, side):
    """The most the spell of row r does to one of its candidates (battle.magic.candidates)."""
    sides, nside = B.sides, B.nside
    s = side if is_heal(B, r) or effect_kind(B, r) == AUGMENT else 1 - side
    top = 0.0
    for i in range(nside[s]):
        t = sides[s, i]
        if on_the_table(S.ust, t):
            top = max(top, spell_value(B, S, r, t))
    return top


@njit(cache=True, nogil=True, error_model="numpy")
def other_row_open(B, S, r, row, side):
    g = S.g
    other = table(B, MK_ROW, r)
    k = int(other[R_CASTER])
    return r != row and int(other[R_SIDE]) == side and (g[G_MAGIC + M_TRIED] >> r) & 1 == 0 \
        and (g[G_MAGIC + M_DONE] >> k) & 1 == 0 and wizard_ready(B, S, k)


@njit(cache=True, nogil=True, error_model="numpy")
def rest_of_casting(B, S, row, power):
    return rest_of_casting_for(B, S, row, power, int(table(B, MK_ROW, row)[R_SIDE]))


@njit(cache=True, nogil=True, error_model="numpy")
def rest_of_casting_for(B, S, row, power, side):
    """battle.magic.rest_of_casting with its ``side``."""
    info = table(B, MK_INFO, 0)
    dice_max = min(power, int(info[I_MAXCAST]))
    if dice_max <= 0:
        return 0.0
    best = 0.0
    for r in range(int(info[I_ROWS])):
        if other_row_open(B, S, r, row, side):
            best = max(best, best_cast(B, S, r, top_value(B, S, r, side), dice_max))
    return best


@njit(cache=True, nogil=True, error_model="numpy")
def rest_of_dispelling(B, S, dice):
    info = table(B, MK_INFO, 0)
    row = S.g[G_MAGIC + M_ROW]
    side = int(table(B, MK_ROW, row)[R_SIDE])
    dice = min(dice, int(info[I_DISPEL_CAP]))
    if dice <= 0:
        return 0.0
    level = dispel_level(B, S, 1 - side)
    best = 0.0
    for r in range(int(info[I_ROWS])):
        if other_row_open(B, S, r, row, side):
            cv = int(table(B, MK_ROW, r)[R_CV])
            best = max(best, top_value(B, S, r, side) * p_dispel(B, dice, level, cv))
    return best


# ---- deciding ------------------------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def count(B, mode, n, kind, key):
    """This battle's decisions (the vocabulary's index; rollouts count nothing)."""
    if mode == 0 and n > 1 and has(B, kind, key):
        B.decisions[int(table(B, kind, key)[0])] += 1


@njit(cache=True, nogil=True, error_model="numpy")
def policy(B, side):
    """SCRIPTED, or not (greedy; a best response outside its rollouts' decisions)."""
    p = B.ri[R_POLICY_A] if side == 0 else B.ri[R_POLICY_B]
    return SCRIPTED if p == SCRIPTED else BEST_RESPONSE


@njit(cache=True, nogil=True, error_model="numpy")
def wants_rollouts(B, side, kind, n, mode):
    """FB-B12: a best response plays out a magic decision of at most MAXOPT options (more:
    greedy), as battle.policies.BestResponse does."""
    p = B.ri[R_POLICY_A] if side == 0 else B.ri[R_POLICY_B]
    return mode == 0 and p == BEST_RESPONSE and (B.ri[R_BR_KINDS] >> kind) & 1 == 1 \
        and 1 < n <= MAXOPT


@njit(cache=True, nogil=True, error_model="numpy")
def need(B, side, kind, u, n):
    b = B.need
    b[0], b[1], b[2], b[3] = side, kind, u, n
    return NEED


@njit(cache=True, nogil=True, error_model="numpy")
def magic_values(B, S, kind, n, out):
    """Greedy's values of a magic decision's options into out (the options of a cast in
    B.opt_i: OI_CODE the spell row, OI_TARGET the target); the decider is the caster's side
    for a cast and its dice, the other side for a dispel."""
    g = S.g
    if kind == K_CAST:
        out[0] = 0.0
        dice_max = power_dice_left(B, S)
        for i in range(1, n):
            r, t = B.opt_i[i, OI_CODE], B.opt_i[i, OI_TARGET]
            out[i] = best_cast(B, S, r, spell_value(B, S, r, t), dice_max)
        return OK
    row, t = g[G_MAGIC + M_ROW], g[G_MAGIC + M_TARGET]
    value = spell_value(B, S, row, t)
    if kind == K_DICE:
        for i in range(n):
            out[i] = p_goes_off(B, S, row, i + 1) * value \
                + rest_of_casting(B, S, row, g[G_MAGIC + M_POWER] - (i + 1))
        return OK
    side = int(table(B, MK_ROW, row)[R_SIDE])
    level = dispel_level(B, S, 1 - side)
    if g[G_MAGIC + M_POWER_DISPEL] == 1:  # FB-B31: power dice at the other side's spell
        for j in range(n):
            out[j] = p_dispel(B, j, level, g[G_MAGIC + M_TOTAL]) * value \
                + rest_of_casting_for(B, S, row, g[G_MAGIC + M_POWER] - j, 1 - side)
        return OK
    for j in range(n):
        out[j] = p_dispel(B, j, level, g[G_MAGIC + M_TOTAL]) * value \
            + rest_of_dispelling(B, S, g[G_MAGIC + M_DISPEL] - j)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def choose_cast(B, S, side, k, n, rows, targets, gaps):
    """Option 0 is no cast; option i ≥ 1 is rows[i] at targets[i]."""
    if n == 1:
        return 0
    u = int(table(B, MK_CASTER, k)[C_UNIT])
    if policy(B, side) == SCRIPTED:
        order = int(table(B, MK_ORDERS, u)[0])
        if order == NONE:
            return 0
        dice_max = power_dice_left(B, S)
        used = np.zeros(n, np.int64)
        for _ in range(1, n):  # options by (spell, gap): the first the pool can afford
            best = -1
            for i in range(1, n):
                if used[i] == 0 and (best < 0 or rows[i] < rows[best]
                                     or (rows[i] == rows[best] and gaps[i] < gaps[best])):
                    best = i
            used[best] = 1
            if order != ANY and targets[best] != order:
                continue
            if int(table(B, MK_ROW, rows[best])[R_SCRIPTED_DICE]) <= dice_max:
                return best
        return 0
    values = np.zeros(n)
    dice_max = power_dice_left(B, S)
    for i in range(1, n):
        values[i] = best_cast(B, S, rows[i], spell_value(B, S, rows[i], targets[i]), dice_max)
    return greedy_choice(values, n)  # magic_values's K_CAST, on the local options


@njit(cache=True, nogil=True, error_model="numpy")
def choose_dice(B, S, side, n):
    """Option i is i + 1 dice."""
    g = S.g
    row = g[G_MAGIC + M_ROW]
    if n == 1:
        return 0
    if policy(B, side) == SCRIPTED:
        want = int(table(B, MK_ROW, row)[R_SCRIPTED_DICE])
        return min(want, n) - 1
    values = np.zeros(n)
    magic_values(B, S, K_DICE, n, values)
    return greedy_choice(values, n)


@njit(cache=True, nogil=True, error_model="numpy")
def choose_dispel(B, S, side, n):
    """Option j is j dispel dice (0: no dispel); ``side`` is the dispelling side."""
    g = S.g
    t, total = g[G_MAGIC + M_TARGET], g[G_MAGIC + M_TOTAL]
    if n == 1:
        return 0
    level = dispel_level(B, S, side)
    if policy(B, side) == SCRIPTED:
        if int(table(B, MK_ORDERS, t)[1]) == 1:
            return 0
        for j in range(1, n):
            if p_dispel(B, j, level, total) >= SCRIPTED_DISPEL_CONFIDENCE:
                return j
        return n - 1
    values = np.zeros(n)
    magic_values(B, S, K_DISPEL, n, values)
    return greedy_choice(values, n)


# ---- the steps -----------------------------------------------------------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def magic_step(B, S, side, i, forced, mode):
    """Phase MAGIC, index i: 0 the pools, 1 a wizard's cast, 2 its dice, 3 the dispel;
    NEED when a best response plays the decision out (then again with ``forced``)."""
    st, g = S.ust, S.g
    if i == 0:
        for u in range(st.shape[0]):  # FB-G4: losses counted per phase from here
            st[u, ST_PSM] = st[u, ST_MODELS]
        if has(B, MK_INFO, 0) and not _start(B, S, side):
            _goto(g, MAGIC, 1)
        else:
            _goto(g, SHOOT, 0)
        return OK
    if i == 1:
        nxt = _cast_step(B, S, side, forced, mode)
    elif i == 2:
        nxt = _dice_step(B, S, side, forced, mode)
    else:
        nxt = _dispel_step(B, S, side, forced, mode)
    if nxt == NEED:
        return NEED
    if nxt == 0:
        panic_tests(B, S, 1 - side)  # FB-G4
        _goto(g, SHOOT, 0)
    else:
        _goto(g, MAGIC, nxt)
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _goto(g, phase, index):
    g[G_PHASE], g[G_INDEX] = phase, index


@njit(cache=True, nogil=True, error_model="numpy")
def _start(B, S, side):
    """The pools (MG-1..MG-3) when the side has a wizard who may cast; True: no phase."""
    info = table(B, MK_INFO, 0)
    g = S.g
    _new_phase(B, S)  # FB-B30/B23: the last player turn's augments and hexes end
    n = int(info[I_CASTERS])
    any_caster = False
    for k in range(n):
        c = table(B, MK_CASTER, k)
        if int(c[C_SIDE]) == side and wizard_ready(B, S, k) and not engaged(S.ust, int(c[C_UNIT])):
            any_caster = True
    if not any_caster:
        return True
    flow = table(B, MK_FLOW, channellers(B, S, side) * 64 + channellers(B, S, 1 - side))
    r = uniform(S.kstate)
    m = flow.shape[0] // 3
    k = 0
    while k < m - 1 and r >= flow[3 * k + 2]:
        k += 1
    for s in range(N_MAGIC):
        g[G_MAGIC + s] = 0
    g[G_MAGIC + M_POWER], g[G_MAGIC + M_DISPEL] = int(flow[3 * k]), int(flow[3 * k + 1])
    g[G_MAGIC + M_ROW], g[G_MAGIC + M_TARGET] = -1, -1
    done = 0
    for q in range(n):
        if int(table(B, MK_CASTER, q)[C_SIDE]) != side:
            done |= 1 << q
    g[G_MAGIC + M_DONE] = done
    tried = 0  # FB-B31: a spell in play is not cast again
    for u in range(min(S.ust.shape[0], MAX_UNITS)):
        if spell_on(g, u) >= 0:
            tried |= 1 << spell_on(g, u)
    g[G_MAGIC + M_TRIED] = tried
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def _new_phase(B, S):
    """battle.spell_effects.new_phase: spells end, but one that remains in play while its
    caster lives (on the table) and its unit is on the table."""
    g = S.g
    for u in range(min(S.ust.shape[0], MAX_UNITS)):
        row = spell_on(g, u)
        if row < 0:
            continue
        r = table(B, MK_ROW, row)
        c = table(B, MK_CASTER, int(r[R_CASTER]))
        caster = int(c[C_UNIT])
        if not (int(r[R_IN_PLAY]) == 1 and on_the_table(S.ust, caster)
                and body_alive(B.bodies, caster, int(c[C_BODY]), S.wounds)
                and on_the_table(S.ust, u)):
            g[G_SPELL + u] = 0


@njit(cache=True, nogil=True, error_model="numpy")
def _next_in_play(B, S, side):
    """battle.spell_effects.next_in_play: a unit under a spell of side's in play, untried."""
    g = S.g
    for u in range(min(S.ust.shape[0], MAX_UNITS)):
        row = spell_on(g, u)
        if row >= 0 and (g[G_MAGIC + M_IN_PLAY_TRIED] >> u) & 1 == 0 \
                and int(table(B, MK_ROW, row)[R_SIDE]) == side \
                and int(table(B, MK_ROW, row)[R_IN_PLAY]) == 1:
            return u
    return -1


@njit(cache=True, nogil=True, error_model="numpy")
def _in_play_dice(B, S, decider, t, n, forced, mode):
    """FB-B31: the dice (of n - 1 at most) ``decider`` puts on dispelling the spell in play on
    t — forced, its policy's, or -1 when its rollouts are needed (B.need set)."""
    g = S.g
    row = spell_on(g, t)
    g[G_MAGIC + M_ROW], g[G_MAGIC + M_TARGET] = row, t
    g[G_MAGIC + M_TOTAL] = int(table(B, MK_ROW, row)[R_CV])
    g[G_MAGIC + M_KIND] = PLAIN
    if forced >= 0:
        dice = forced
    elif wants_rollouts(B, decider, K_DISPEL, n, mode):
        need(B, decider, K_DISPEL, t, n)
        return -1
    else:
        dice = choose_dispel(B, S, decider, n)
    # power dice (FB-B31): the decider's second block of keys, labelled apart (magic.vocabulary)
    block = decider + 2 * g[G_MAGIC + M_POWER_DISPEL]
    count(B, mode, n, MK_VDISPEL, (block * 64 + t) * 16 + dice)
    return dice


@njit(cache=True, nogil=True, error_model="numpy")
def _dispel_in_play(B, S, side, t, forced, mode):
    """battle.magic.dispel_in_play: the other side's one attempt at the spell on t (1 or NEED)."""
    info = table(B, MK_INFO, 0)
    g = S.g
    n = dispel_dice_left(B, S) + 1
    dice = 0
    if n > 1:
        dice = _in_play_dice(B, S, 1 - side, t, n, forced, mode)
        if dice < 0:
            return NEED
    g[G_MAGIC + M_IN_PLAY_TRIED] |= 1 << t  # after the decision: a rollout replays the step
    if dice > 0:
        level = dispel_level(B, S, 1 - side)
        g[G_MAGIC + M_DISPEL] -= dice
        g[G_MAGIC + M_DISPEL_USED] += dice
        if uniform(S.kstate) < p_dispel(B, dice, level, g[G_MAGIC + M_TOTAL]):
            g[G_SPELL + t] = 0
        elif level > 0 and int(info[I_FAILED_DISPELLER_STOPS]) == 1:
            _dispeller_stops(B, S, side, level)
    return 1


@njit(cache=True, nogil=True, error_model="numpy")
def _power_dispel_in_play(B, S, side, t, forced, mode):
    """battle.magic.power_dispel_in_play: the active side's attempt at the other side's spell
    on t with power dice (1 or NEED)."""
    g = S.g
    n = min(power_dice_left(B, S), int(table(B, MK_INFO, 0)[I_DISPEL_CAP])) + 1  # as a dispel
    dice = 0
    if n > 1:
        g[G_MAGIC + M_POWER_DISPEL] = 1  # the decision's values read the power pool
        dice = _in_play_dice(B, S, side, t, n, forced, mode)
        if dice < 0:
            return NEED
        g[G_MAGIC + M_POWER_DISPEL] = 0
    g[G_MAGIC + M_IN_PLAY_TRIED] |= 1 << t  # after the decision: a rollout replays the step
    if dice > 0:
        g[G_MAGIC + M_POWER] -= dice
        g[G_MAGIC + M_POWER_USED] += dice
        if uniform(S.kstate) < p_dispel(B, dice, dispel_level(B, S, side),
                                        g[G_MAGIC + M_TOTAL]):
            g[G_SPELL + t] = 0
    return 1


@njit(cache=True, nogil=True, error_model="numpy")
def _dispeller_stops(B, S, side, level):
    """battle.magic._dispeller_stops (MG-6 wfb8): the failed dispeller dispels no more."""
    info = table(B, MK_INFO, 0)
    g = S.g
    for k in range(int(info[I_CASTERS])):
        c = table(B, MK_CASTER, k)
        if int(c[C_SIDE]) == 1 - side and int(c[C_LEVEL]) == level \
                and wizard_ready(B, S, k) and (g[G_MAGIC + M_NO_DISPEL] >> k) & 1 == 0:
            g[G_MAGIC + M_NO_DISPEL] |= 1 << k
            break


@njit(cache=True, nogil=True, error_model="numpy")
def _cast_step(B, S, side, forced, mode):
    """1: a wizard picked a spell (next: its dice, 2), or none (1); 0: the phase is over."""
    info = table(B, MK_INFO, 0)
    g = S.g
    t = _next_in_play(B, S, side)
    if t >= 0:  # FB-B31: first the other side may dispel each of this side's spells in play
        return _dispel_in_play(B, S, side, t, forced, mode)
    t = _next_in_play(B, S, 1 - side)
    if t >= 0:  # ... then this side each of the other side's, with power dice
        return _power_dispel_in_play(B, S, side, t, forced, mode)
    n_rows = int(info[I_ROWS])
    size = 1 + n_rows * B.ui.shape[0]
    rows = np.full(size, -1, np.int64)
    targets = np.full(size, -1, np.int64)
    gaps = np.zeros(size)
    found_t = np.zeros(B.ui.shape[0], np.int64)
    found_gap = np.zeros(B.ui.shape[0])
    for k in range(int(info[I_CASTERS])):
        if (g[G_MAGIC + M_DONE] >> k) & 1 == 1:
            continue
        u = int(table(B, MK_CASTER, k)[C_UNIT])
        n = 1
        if can_cast(B, S, k):
            for r in range(n_rows):
                row = table(B, MK_ROW, r)
                if int(row[R_CASTER]) != k or (g[G_MAGIC + M_TRIED] >> r) & 1 == 1:
                    continue
                if int(row[R_EFFECT]) != 0 or int(row[R_HEAL]) == 1:  # FB-B30, heals
                    m = targets_in_reach(B, S, u, row[R_RANGE], int(row[R_EFFECT]), found_t,
                                         found_gap)
                else:
                    m = missile_targets(B, S, u, row[R_RANGE], found_t, found_gap)
                for q in range(m):
                    rows[n], targets[n], gaps[n] = r, found_t[q], found_gap[q]
                    n += 1
        if n == 1:
            g[G_MAGIC + M_DONE] |= 1 << k
            continue
        if forced >= 0:
            choice = forced
        elif wants_rollouts(B, side, K_CAST, n, mode):
            for q in range(n):
                B.opt_i[q, OI_CODE], B.opt_i[q, OI_TARGET] = rows[q], targets[q]
            return need(B, side, K_CAST, u, n)
        else:
            choice = choose_cast(B, S, side, k, n, rows, targets, gaps)
        if choice == 0:
            count(B, mode, n, MK_VNOCAST, u)
            g[G_MAGIC + M_DONE] |= 1 << k
            return 1
        count(B, mode, n, MK_VCAST, u * 4096 + rows[choice] * 64 + targets[choice])
        g[G_MAGIC + M_ROW], g[G_MAGIC + M_TARGET] = rows[choice], targets[choice]
        return 2
    return 0


@njit(cache=True, nogil=True, error_model="numpy")
def _dice_step(B, S, side, forced, mode):
    """The dice and the cast roll (MG-4, MG-5): next 3 (a dispel) or 1."""
    info = table(B, MK_INFO, 0)
    g = S.g
    n = power_dice_left(B, S)
    row = g[G_MAGIC + M_ROW]
    if forced >= 0:
        choice = forced
    elif wants_rollouts(B, side, K_DICE, n, mode):
        return need(B, side, K_DICE, int(table(B, MK_ROW, row)[R_UNIT]), n)
    else:
        choice = choose_dice(B, S, side, n)
    dice = choice + 1
    caster = int(table(B, MK_ROW, row)[R_CASTER])
    count(B, mode, n, MK_VDICE, int(table(B, MK_ROW, row)[R_UNIT]) * 16 + dice)
    g[G_MAGIC + M_POWER] -= dice
    g[G_MAGIC + M_POWER_USED] += dice
    g[G_MAGIC + M_DICE] = dice
    g[G_MAGIC + M_TRIED] |= 1 << row
    outcomes = table(B, MK_CAST, row * 16 + dice)
    m = outcomes.shape[0] // 3
    r = uniform(S.kstate)
    acc = 0.0
    kind, total = int(outcomes[3 * (m - 1)]), int(outcomes[3 * (m - 1) + 1])
    for q in range(m):
        acc += outcomes[3 * q + 2]
        if r < acc:
            kind, total = int(outcomes[3 * q]), int(outcomes[3 * q + 1])
            break
    g[G_MAGIC + M_KIND], g[G_MAGIC + M_TOTAL] = kind, total
    if kind == FAIL:
        if int(info[I_FAILED_CASTER_STOPS]) == 1:
            g[G_MAGIC + M_DONE] |= 1 << caster
        return 1
    if kind == IRRESISTIBLE:
        _goes_off(B, S, row, g[G_MAGIC + M_TARGET])
        _miscast(B, S, caster, dice)
        return 1
    if dispel_dice_left(B, S) > 0:
        return 3
    _through(B, S)
    return 1


@njit(cache=True, nogil=True, error_model="numpy")
def _dispel_step(B, S, side, forced, mode):
    """The other side's dispel: next 1 (or NEED)."""
    info = table(B, MK_INFO, 0)
    g = S.g
    n = dispel_dice_left(B, S) + 1
    if forced >= 0:
        dice = forced
    elif wants_rollouts(B, 1 - side, K_DISPEL, n, mode):
        return need(B, 1 - side, K_DISPEL, g[G_MAGIC + M_TARGET], n)
    else:
        dice = choose_dispel(B, S, 1 - side, n)
    count(B, mode, n, MK_VDISPEL, ((1 - side) * 64 + g[G_MAGIC + M_TARGET]) * 16 + dice)
    if dice > 0:
        level = dispel_level(B, S, 1 - side)
        g[G_MAGIC + M_DISPEL] -= dice
        g[G_MAGIC + M_DISPEL_USED] += dice
        if uniform(S.kstate) < p_dispel(B, dice, level, g[G_MAGIC + M_TOTAL]):
            return 1
        if level > 0 and int(info[I_FAILED_DISPELLER_STOPS]) == 1:
            _dispeller_stops(B, S, side, level)
    _through(B, S)
    return 1


@njit(cache=True, nogil=True, error_model="numpy")
def _through(B, S):
    g = S.g
    row = g[G_MAGIC + M_ROW]
    _goes_off(B, S, row, g[G_MAGIC + M_TARGET])
    if g[G_MAGIC + M_KIND] == OVERWHELMING:
        _miscast(B, S, int(table(B, MK_ROW, row)[R_CASTER]), g[G_MAGIC + M_DICE])


@njit(cache=True, nogil=True, error_model="numpy")
def _miscast(B, S, k, dice):
    """Casting ends (MG-4), t9a1's dice used lost (MG-10), the row's played effects."""
    bodies, ui = B.bodies, B.ui
    st, wounds, g = S.ust, S.wounds, S.g
    g[G_MAGIC + M_DONE] |= 1 << k
    if int(table(B, MK_INFO, 0)[I_MISCAST_REMOVES]) == 1:
        g[G_MAGIC + M_POWER] = max(0, g[G_MAGIC + M_POWER] - dice)
    outcomes = table(B, MK_MISCAST, k)
    m = outcomes.shape[0] // 3
    r = uniform(S.kstate)
    w, lost = int(outcomes[3 * (m - 1)]), int(outcomes[3 * (m - 1) + 1])
    for q in range(m):
        if r < outcomes[3 * q + 2]:
            w, lost = int(outcomes[3 * q]), int(outcomes[3 * q + 1])
            break
    g[G_MAGIC + M_POWER] = max(0, g[G_MAGIC + M_POWER] - lost)
    c = table(B, MK_CASTER, k)
    u, b = int(c[C_UNIT]), int(c[C_BODY])
    if w > 0 and body_alive(bodies, u, b, wounds):
        wounds[u, b] = min(wounds[u, b] + w, bodies[u, b, B_MODELS] * bodies[u, b, B_W])
        st[u, ST_MODELS] = models_alive(bodies, ui, u, wounds)
        if not unit_alive(bodies, ui, u, wounds):
            st[u, ST_STATUS] = DEAD
            clear_contacts(st, u)


@njit(cache=True, nogil=True, error_model="numpy")
def _goes_off(B, S, row, t):
    bodies, ui = B.bodies, B.ui
    st, wounds = S.ust, S.wounds
    if effect_kind(B, row) != 0:  # FB-B30: on t for the rest of the player turn
        if st[t, ST_STATUS] == HOLD:
            S.g[G_SPELL + t] = row + 1
            S.g[G_MAGIC + M_IN_PLAY_TRIED] |= 1 << t  # FB-B31: no second dispel this phase
        return
    if is_heal(B, row):  # FB-B12: wounds back to the rank and file
        if st[t, ST_STATUS] != HOLD or wounds[t, 0] <= 0:
            return
        cum = table(B, MK_MISSILE, row * 256 + t)
        r = uniform(S.kstate)
        k = 0
        while k < cum.shape[0] - 1 and r >= cum[k]:
            k += 1
        if k > 0:
            wounds[t, 0] = max(0, wounds[t, 0] - k)
            st[t, ST_MODELS] = models_alive(bodies, ui, t, wounds)
        return
    if not on_the_table(st, t):
        return
    models, w = bodies[t, 0, B_MODELS], bodies[t, 0, B_W]
    if models - wounds[t, 0] // w <= 0:
        return
    cum = table(B, MK_MISSILE, row * 256 + t)
    r = uniform(S.kstate)
    k = 0
    while k < cum.shape[0] - 1 and r >= cum[k]:
        k += 1
    if k > 0:
        wounds[t, 0] = min(wounds[t, 0] + k, models * w)
        st[t, ST_MODELS] = models_alive(bodies, ui, t, wounds)
        if not unit_alive(bodies, ui, t, wounds):
            st[t, ST_STATUS] = DEAD
            clear_contacts(st, t)


__all__ = ["magic_step", "magic_values", "G_MAGIC", "N_MAGIC", "mcode", "TOTALS", "K_CAST"]
