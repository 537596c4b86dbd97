"""Magic phase kernels (MG-1..MG-10): the whole phase by Monte Carlo, and the exact
dynamic programme behind the "optimal" dice rule.

Inputs are flat arrays built by :mod:`mathhammer.magic.compile` (no models here).

``rules`` int64[RULE_SIZE] (indices R_*): max casting dice, pool cap, power/dispel
dice used caps, extra-dice cap (-1 none), channel mode (0 none, 1 t9a1 D6+n, 2 wfb8
each wizard's 6), channel target, natural fail ≤, two sixes (0 irresistible, 1
overwhelming), dispel natural fail ≤, failed dispeller stops, failed caster stops,
OP on dispel, miscast removes dice used, miscast ends the wizard's casting,
dispel dice cap.

``spells`` int64[S, SP_SIZE] in cast order (indices SP_*): the wizard's bit in the
lost-casting mask (-1 for bound spells and for wizards with a single spell, whose
lost focus can never matter),
level + modifier, casting value, bound, remains in play, file index, weight × 1000,
the in-play entry that bars it while in play (MG-8; -1 none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.dice import d3, d6, uniform

(R_MAXCAST, R_POOL, R_PUSED, R_DUSED, R_EXTRA, R_CHANNEL, R_CHTARGET, R_NATFAIL, R_TWOSIX,
 R_DNATFAIL, R_DSTOPS, R_CSTOPS, R_OPDISPEL, R_MISREMOVE, R_MISENDS, R_DCAP) = range(16)
RULE_SIZE = 16
(F_FIXED_P, F_FIXED_D, F_CH_A, F_CH_R, F_EXTRA_P, F_EXTRA_D, F_DLEVEL) = range(7)
FLOW_SIZE = 7
SP_WIZ, SP_BONUS, SP_CV, SP_BOUND, SP_RIP, SP_FILE, SP_WQ, SP_BARRED = range(8)
SP_SIZE = 8
# in-play spells (owner 0 active, 1 reactive); attempts per part; parts of a split unit
IP_OWNER, IP_VALUE, IP_DICE, IP_LEVEL, IP_ATTEMPTS, IP_PARTS = range(6)
IP_SIZE = 6
MAX_RETRIES = 12  # every dispel attempt uses at least one die of a pool of at most 12
POOLS = 13  # pool sizes 0..12


@njit(cache=True, nogil=True)
def roll_pool(state, n):
    """Natural sum and number of sixes of ``n`` D6 (packed: sum * 16 + min(sixes, 15))."""
    total = 0
    sixes = 0
    for _ in range(n):
        f = d6(state)
        total += f
        sixes += f == 6
    return total * 16 + min(sixes, 15)


@njit(cache=True, nogil=True)
def resolve_cast(natural, sixes, n, bonus, cv, bound, natfail, twosix, d3_face):
    """Outcome of a casting roll (MG-4, MG-5, MG-7); pure, tested against rolls.cast_odds.

    Returns (code, total): code 0 failed, 1 cast (dispellable), 2 irresistible (wfb8,
    undispellable), 3 overwhelming (t9a1, dispellable, miscast if through).
    """
    if natural <= natfail:
        return 0, natural
    if sixes >= 2 and twosix == 0:
        return 2, natural
    if sixes >= 2 and bound == 1:  # t9a1 bound spell: no bonus, still cast (MG-7)
        return 1, natural
    if sixes >= 2:
        total = natural + bonus + d3_face + n
        return (3 if total >= cv else 0), total
    total = natural + (0 if bound == 1 else bonus)
    return (1 if total >= cv else 0), total


@njit(cache=True, nogil=True)
def resolve_dispel(natural, sixes, k, level, against, dnatfail, op, d3_face):
    """True when a dispel roll beats ``against`` (MG-6, MG-5 on dispels); pure."""
    if natural <= dnatfail:
        return False
    total = natural + level
    if op == 1 and sixes >= 2:
        total += d3_face + k
    return total >= against


@njit(cache=True, nogil=True)
def _dispel_in_play(j, in_play, in_play_plan, rules, dlevel, state, pools):
    """Dispel attempts on one part of in-play spell ``j`` (MG-8): True when it goes.

    ``pools`` int64[5]: power, dispel, power used, dispel used, dispeller-failed flag
    (updated). The reactive player's spells are dispelled by the caster with IP_DICE
    power dice and IP_LEVEL; the active player's by the dispel plan, retried with the
    dice left until it goes, the plan gives no dice or IP_ATTEMPTS tries are made.
    """
    for _a in range(in_play[j, IP_ATTEMPTS]):
        if in_play[j, IP_OWNER] == 1:  # the reactive player's: the caster dispels
            k = min(in_play[j, IP_DICE], pools[0], rules[R_PUSED] - pools[2])
            if k <= 0:
                return False
            packed = roll_pool(state, k)
            pools[0] -= k
            pools[2] += k
            if resolve_dispel(packed >> 4, packed & 15, k, in_play[j, IP_LEVEL],
                              in_play[j, IP_VALUE], rules[R_DNATFAIL], rules[R_OPDISPEL],
                              d3(state)):
                return True
            continue
        k = min(np.int64(in_play_plan[j, pools[4], pools[1]]), pools[1],
                rules[R_DUSED] - pools[3])
        if k <= 0:
            return False
        packed = roll_pool(state, k)
        pools[1] -= k
        pools[3] += k
        lvl = dlevel if pools[4] == 0 else 0
        if resolve_dispel(packed >> 4, packed & 15, k, lvl, in_play[j, IP_VALUE],
                          rules[R_DNATFAIL], rules[R_OPDISPEL], d3(state)):
            return True
        if rules[R_DSTOPS] == 1 and lvl > 0:
            pools[4] = 1
    return False


@njit(cache=True, nogil=True)
def phase_kernel(rules, flow, spells, plan, dispel_plan, in_play, in_play_plan, in_play_slain,
                 retry_plan, row_of_roll, state, n_trials, goes_off, in_play_end, through_hist,
                 power_left, dispel_left, events, row_hits, in_play_dispelled, in_play_ended,
                 in_play_parts, weight_sums):
    """Simulate ``n_trials`` magic phases (MG-1..MG-10); add to the int64 counters.

    plan int8[S, 13, 13, M, 2]: power dice for spell i given (power, dispel, lost-
    casting mask, dispeller-failed flag), 0 = do not cast. dispel_plan int8[S, 2, 13,
    T]: dispel dice against spell i given (flag, dispel dice, casting total).
    in_play int64[J, IP_SIZE], in_play_plan int8[J, 2, 13]: dispel dice against in-
    play spells of the active player (reactive-owned ones use their IP_DICE);
    in_play_slain float64[J]: chance the spell's caster is slain (it ends, MG-8).
    retry_plan int8[S, 2, 13]: dispel dice against a remains-in-play spell that went
    off, tried after the caster passes while dice and the plan allow (0 = no retry).
    row_of_roll int64[13]: miscast row of a 2D6.
    events[0]: any miscast, [1]: any two-sixes cast, [2]: any spell dispelled.
    in_play_dispelled[j]: every part dispelled; in_play_ended[j]: dispelled or caster
    slain; in_play_parts int64[J, 6]: each part dispelled.
    weight_sums[0..1]: sum and sum of squares of the weighted spells through (×1000).
    """
    n_spells = spells.shape[0]
    n_rows = row_hits.shape[0]
    t_max = dispel_plan.shape[3] - 1
    dlevel = flow[F_DLEVEL]
    pools = np.zeros(5, np.int64)
    for _ in range(n_trials):
        # MG-1..MG-3, written out here: a helper taking arrays cost an atomic incref and
        # decref of each per trial (numba's reference counting, left in place around
        # branches), a third of the kernel's time
        power = flow[F_FIXED_P]
        dispel = flow[F_FIXED_D]
        if power < 0:
            a = d6(state)
            b = d6(state)
            gain_a = flow[F_EXTRA_P]
            gain_r = flow[F_EXTRA_D]
            if rules[R_CHANNEL] == 1:  # MG-2 t9a1: one D6 + channelers, target+ gives a die
                gain_a += d6(state) + flow[F_CH_A] >= rules[R_CHTARGET]
                gain_r += d6(state) + flow[F_CH_R] >= rules[R_CHTARGET]
            elif rules[R_CHANNEL] == 2:  # MG-2 wfb8: each wizard's 6 gives a die
                for _ in range(flow[F_CH_A]):
                    gain_a += d6(state) == 6
                for _ in range(flow[F_CH_R]):
                    gain_r += d6(state) == 6
            if rules[R_EXTRA] >= 0:  # MG-3 t9a1: at most 2 dice beyond the flow roll
                gain_a = min(gain_a, rules[R_EXTRA])
                gain_r = min(gain_r, rules[R_EXTRA])
            power = min(a + b + gain_a, rules[R_POOL])
            dispel = min(max(a, b) + gain_r, rules[R_POOL])
        p_used = 0
        d_used = 0
        failed = 0
        mask = 0
        count = 0
        wsum = 0
        misc = 0
        two6 = 0
        any_dispelled = 0
        rows = 0
        through_bits = 0
        barred = 0  # in-play entries still in play (bars their linked spell, MG-8)
        # MG-8: remains-in-play spells from earlier turns, at the first step
        pools[0] = power
        pools[1] = dispel
        pools[2] = 0
        pools[3] = 0
        pools[4] = 0
        for j in range(in_play.shape[0]):
            if in_play_slain[j] > 0.0 and uniform(state) < in_play_slain[j]:
                in_play_ended[j] += 1  # its caster is slain: it ends, no dice spent
                continue
            all_gone = True
            for part in range(in_play[j, IP_PARTS]):
                if _dispel_in_play(j, in_play, in_play_plan, rules, dlevel, state, pools):
                    in_play_parts[j, part] += 1
                else:
                    all_gone = False
            if all_gone:
                in_play_dispelled[j] += 1
                in_play_ended[j] += 1
            else:
                barred |= 1 << j
        power = pools[0]
        dispel = pools[1]
        p_used = pools[2]
        d_used = pools[3]
        failed = pools[4]
        # MG-4..MG-7: the caster's spells in priority order
        for i in range(n_spells):
            wiz = spells[i, SP_WIZ]
            if wiz >= 0 and (mask >> wiz) & 1:
                continue  # lost focus / miscast: this wizard casts no more
            if spells[i, SP_BARRED] >= 0 and (barred >> spells[i, SP_BARRED]) & 1:
                continue  # MG-8: the same wizard's spell is still in play
            n = min(np.int64(plan[i, power, dispel, mask, failed]), power,
                    rules[R_PUSED] - p_used, rules[R_MAXCAST])
            if n <= 0:
                continue
            packed = roll_pool(state, n)
            power -= n
            p_used += n
            bound = spells[i, SP_BOUND]
            code, total = resolve_cast(packed >> 4, packed & 15, n, spells[i, SP_BONUS],
                                       spells[i, SP_CV], bound, rules[R_NATFAIL],
                                       rules[R_TWOSIX], d3(state))
            if code == 0:
                if wiz >= 0 and rules[R_CSTOPS] == 1:
                    mask |= 1 << wiz
                continue
            if (packed & 15) >= 2:
                two6 = 1
            through = True
            if code != 2:
                k = min(np.int64(dispel_plan[i, failed, dispel, min(total, t_max)]), dispel,
                        rules[R_DUSED] - d_used, rules[R_DCAP])
                if k > 0:
                    dp = roll_pool(state, k)
                    dispel -= k
                    d_used += k
                    lvl = dlevel if failed == 0 else 0
                    if resolve_dispel(dp >> 4, dp & 15, k, lvl, total, rules[R_DNATFAIL],
                                      rules[R_OPDISPEL], d3(state)):
                        through = False
                        any_dispelled = 1
                    elif rules[R_DSTOPS] == 1 and lvl > 0:
                        failed = 1
            if not through:
                continue
            goes_off[i] += 1
            through_bits |= 1 << i
            count += 1
            wsum += spells[i, SP_WQ]
            if (code == 2 or code == 3) and bound == 0:  # MG-5 / MG-10 miscast
                misc = 1
                row = row_of_roll[d6(state) + d6(state)]
                if row >= 0:
                    rows |= 1 << row
                if rules[R_MISREMOVE] == 1:
                    power = max(0, power - n)
                if rules[R_MISENDS] == 1 and wiz >= 0:
                    mask |= 1 << wiz
        # MG-8: a remains-in-play spell that went off may be dispelled at later steps,
        # again and again while the dispeller has dice and the plan gives some
        for i in range(n_spells):
            if (through_bits >> i) & 1 == 0 or spells[i, SP_RIP] == 0:
                continue
            still = True
            for _a in range(MAX_RETRIES):
                k = min(np.int64(retry_plan[i, failed, dispel]), dispel,
                        rules[R_DUSED] - d_used, rules[R_DCAP])
                if k <= 0:
                    break
                dp = roll_pool(state, k)
                dispel -= k
                d_used += k
                lvl = dlevel if failed == 0 else 0
                if resolve_dispel(dp >> 4, dp & 15, k, lvl, spells[i, SP_CV], rules[R_DNATFAIL],
                                  rules[R_OPDISPEL], d3(state)):
                    still = False
                    break
                if rules[R_DSTOPS] == 1 and lvl > 0:
                    failed = 1
            if still:
                in_play_end[i] += 1
        through_hist[count] += 1
        power_left[power] += 1
        dispel_left[dispel] += 1
        events[0] += misc
        events[1] += two6
        events[2] += any_dispelled
        for r in range(n_rows):
            row_hits[r] += (rows >> r) & 1
        weight_sums[0] += wsum
        weight_sums[1] += wsum * wsum


@njit(cache=True, nogil=True)
def _cast_value(i, n, power, dispel, mask, f, spells, p_fail, p_irr, p_plain, p_op, t_range,
                dispel_plan, p_dispel, rules, dlevel, w, value):
    """Expected weighted spells through from spell i on, casting it with n dice now."""
    wiz = spells[i, SP_WIZ]
    bound = spells[i, SP_BOUND]
    lost = (mask | (1 << wiz)) if wiz >= 0 else mask
    left = power - n
    fail_mask = lost if (bound == 0 and rules[R_CSTOPS] == 1) else mask
    ev = p_fail[i, n] * value[i + 1, left, dispel, fail_mask, f]
    mis_left = max(0, left - n) if (rules[R_MISREMOVE] == 1 and bound == 0) else left
    mis_mask = lost if (rules[R_MISENDS] == 1 and bound == 0) else mask
    ev += p_irr[i, n] * (w + value[i + 1, mis_left, dispel, mis_mask, f])
    lvl_state = f if dlevel > 0 else 1
    f2 = 1 if (rules[R_DSTOPS] == 1 and dlevel > 0) else f
    for t in range(t_range[i, n, 0], t_range[i, n, 1]):
        for kind in range(2):
            p = p_plain[i, n, t] if kind == 0 else p_op[i, n, t]
            if p == 0.0:
                continue
            ok_left = left if kind == 0 else mis_left
            ok_mask = mask if kind == 0 else mis_mask
            k = min(np.int64(dispel_plan[i, f, dispel, t]), dispel, rules[R_DCAP])
            if k <= 0:
                ev += p * (w + value[i + 1, ok_left, dispel, ok_mask, f])
                continue
            pd = p_dispel[lvl_state, k, t]
            ev += p * (pd * value[i + 1, left, dispel - k, mask, f]
                       + (1.0 - pd) * (w + value[i + 1, ok_left, dispel - k, ok_mask, f2]))
    return ev


@njit(cache=True, nogil=True)
def optimal_plan(spells, p_fail, p_irr, p_plain, p_op, t_range, dispel_plan, p_dispel,
                 rules, dlevel, weights, value, plan, evaluate):
    """Backward induction over (spell, power, dispel, lost mask, dispeller failed) (MG-9).

    evaluate = 0: value[i, P, D, mask, f] = the largest expected weighted number of
    spells i..S-1 that go off, choosing the dice of each spell when it is cast,
    against the dispeller's plan; plan[i, ...] receives the best dice (0 = skip).
    evaluate = 1: value of the given ``plan`` (policy evaluation; plan is read).
    p_fail/p_irr float64[S, 13]; p_plain/p_op float64[S, 13, T]: the exact cast
    outcome of spell i with n dice (t9a1 p_op totals include D3 + dice; p_irr is
    wfb8 irresistible). p_dispel float64[2, 13, T]: dispel success with k dice for
    level state 0 (full level) and 1 (failed wizard: no level). t_range int64[S, 13, 2]:
    the totals [lo, hi) where p_plain or p_op of (spell, dice) is not zero.
    """
    n_spells = spells.shape[0]
    n_masks = value.shape[3]
    maxcast = rules[R_MAXCAST]
    for i in range(n_spells - 1, -1, -1):
        wiz = spells[i, SP_WIZ]
        w = weights[i]
        for power in range(POOLS):
            for dispel in range(POOLS):
                for mask in range(n_masks):
                    for f in range(2):
                        skip = value[i + 1, power, dispel, mask, f]
                        if wiz >= 0 and (mask >> wiz) & 1 == 1:
                            value[i, power, dispel, mask, f] = skip
                            continue
                        if evaluate == 1:
                            n = min(np.int64(plan[i, power, dispel, mask, f]), power, maxcast)
                            value[i, power, dispel, mask, f] = skip if n <= 0 else _cast_value(
                                i, n, power, dispel, mask, f, spells, p_fail, p_irr, p_plain,
                                p_op, t_range, dispel_plan, p_dispel, rules, dlevel, w, value)
                            continue
                        best = skip
                        best_n = 0
                        for n in range(1, min(power, maxcast) + 1):
                            ev = _cast_value(i, n, power, dispel, mask, f, spells, p_fail, p_irr,
                                             p_plain, p_op, t_range, dispel_plan, p_dispel,
                                             rules, dlevel,
                                             w, value)
                            if ev > best + 1e-12:
                                best = ev
                                best_n = n
                        value[i, power, dispel, mask, f] = best
                        plan[i, power, dispel, mask, f] = best_n


@njit(cache=True, nogil=True)
def cast_trials(n, bonus, cv, bound, natfail, twosix, state, n_trials, codes, plain_hist,
                op_hist, two_sixes):
    """``n_trials`` casting rolls (MG-4, MG-5, MG-7): codes[resolve code] += 1, totals of
    dispellable casts without two 6s in plain_hist, overwhelming totals in op_hist,
    two_sixes[0] += rolls with two or more natural 6s."""
    t_max = plain_hist.shape[0] - 1
    for _ in range(n_trials):
        packed = roll_pool(state, n)
        sixes = packed & 15
        code, total = resolve_cast(packed >> 4, sixes, n, bonus, cv, bound, natfail, twosix,
                                   d3(state))
        codes[code] += 1
        two_sixes[0] += sixes >= 2
        if code == 1:
            plain_hist[min(total, t_max)] += 1
        elif code == 3:
            op_hist[min(total, t_max)] += 1


@njit(cache=True, nogil=True)
def dispel_trials(k, level, against, dnatfail, op, state, n_trials, hits):
    """``n_trials`` dispel rolls (MG-6, MG-5): hits[0] += successes."""
    for _ in range(n_trials):
        packed = roll_pool(state, k)
        hits[0] += resolve_dispel(packed >> 4, packed & 15, k, level, against, dnatfail, op,
                                  d3(state))
