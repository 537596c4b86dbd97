"""Exact close combat for fights small enough to enumerate (FB-C1..C7, K, M, P).

A Markov chain over the fight's state (wounds on every body, each unit's status,
Frenzy, a breath weapon used, a challenge going on) between rounds; inside a round
the strike steps in order, each group's wounds the exact table the Monte Carlo kernel
samples (:mod:`mathhammer.fantasy.combat.arrays`). Who strikes, at whom, the combat
score, break tests and pursuit are the kernel's own jitted helpers
(:mod:`mathhammer.fantasy.kernels.combat`), so the two engines differ only in sampling.

Limits: a Killing Blow against rank and file of W > 1 makes the wounds of n attacks
depend on the wounds already on the unit, so such fights are Monte Carlo only; after
the first round the start states must stay below :data:`MAX_STATES`.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from mathhammer.errors import InputError

MAX_STATES = 1500  # body wound combinations of a later round; beyond this Monte Carlo is faster


def exact_available(c, tables, rounds: int = 1) -> str | None:
    """None when the exact engine applies, else the reason it does not."""
    if tables.g_fall.any():
        return "a Killing Blow against multi-wound rank and file"
    if rounds > 1:
        size = 1
        for body in c.bodies:
            size *= body.models * body.w + 1
        if size > MAX_STATES:
            return f"{rounds} rounds of units this large (exact: one round, or smaller units)"
    return None


def combat_exact(c, tables, rounds: int) -> dict:
    """Probabilities of every tally the Monte Carlo kernel counts (same names and shapes)."""
    from mathhammer.fantasy.kernels import combat as k

    reason = exact_available(c, tables, rounds)
    if reason is not None:
        raise InputError("‹method›", f"exact is not available for {reason}", "exact", "use ‹method› mc")
    t = tables
    u_int, b_int, g_int = t.u_int, t.b_int, t.g_int
    n_u, n_b, n_g = u_int.shape[0], b_int.shape[0], len(c.groups)
    caps = [int(b_int[b, k.B_MODELS] * b_int[b, k.B_W]) for b in range(n_b)]
    first_b = next(u for u in range(n_u) if u_int[u, k.U_SIDE] == 1)
    tally = _empty_tally(c, t, rounds)

    chal = t.chal
    start_status = tuple([k.IN] * n_u)
    start = (tuple([0] * n_b), start_status, tuple(int(x) for x in u_int[:, k.U_FRENZY]),
             tuple([0] * n_g), 1 if chal[2] == 1 else 0)
    going: dict = {start: 1.0}
    for rnd in range(rounds):
        after: dict = defaultdict(float)
        for state, p in going.items():
            wounds, status, frenzied, once, duel0 = state
            status_arr = np.array(status, np.int64)
            if not k.any_engagement(status_arr, t.e_pair):
                _settle(tally, c, t, state, p, rnd, first_b)
                continue
            for (w2, st2, fr2, once2, duel2, diff, raw), q in _round(c, t, state, rnd).items():
                if rnd == 0:
                    tally["r1_sum"] += p * q * raw
                    tally["r1_sq"] += p * q * raw * raw
                    tally["counters"][k.C_R1_A if diff > 0 else k.C_R1_B if diff < 0 else k.C_R1_TIE] += p * q
                after[(w2, st2, fr2, once2, duel2)] += p * q
        going = after
    for state, p in going.items():
        _settle(tally, c, t, state, p, rounds, first_b)
    return tally


def _empty_tally(c, t, rounds: int) -> dict:
    from mathhammer.fantasy.kernels import combat as k

    n_u, n_b = t.u_int.shape[0], t.b_int.shape[0]
    caps = [int(t.b_int[b, k.B_MODELS] * t.b_int[b, k.B_W]) for b in range(n_b)]
    side_cap = [sum(caps[b] for b in range(n_b) if t.u_int[t.b_int[b, k.B_UNIT], k.U_SIDE] == s) for s in (0, 1)]
    first_b = next(u for u in range(n_u) if t.u_int[u, k.U_SIDE] == 1)
    models = [sum(int(t.b_int[b, k.B_MODELS]) for b in range(n_b)
                  if t.b_int[b, k.B_UNIT] == u and t.b_int[b, k.B_RANKS] == 1) for u in (0, first_b)]
    return {"counters": np.zeros(k.N_SIDE_COUNTERS), "r1_sum": 0.0, "r1_sq": 0.0,
            "unit_counts": np.zeros((n_u, k.NUC)), "body_wounds": np.zeros((n_b, max(caps) + 1)),
            "wounds_dealt": np.zeros(side_cap[1] + 1), "wounds_taken": np.zeros(side_cap[0] + 1),
            "models_left_a": np.zeros(models[0] + 1), "models_left_b": np.zeros(models[1] + 1),
            "rounds": np.zeros(rounds + 1)}


def _settle(tally: dict, c, t, state, p: float, fought: int, first_b: int) -> None:
    """Book a finished fight (probability p) exactly as the kernel's tallies do."""
    from mathhammer.fantasy.kernels import combat as k

    wounds, status, *_ = state
    u_int, b_int = t.u_int, t.b_int
    st = np.array(status, np.int64)
    w = np.array(wounds, np.int64)
    a_out = k.side_out(0, u_int, st)
    b_out = k.side_out(1, u_int, st)
    cnt = tally["counters"]
    if b_out and not a_out:
        cnt[k.C_A_WINS] += p
    elif a_out and not b_out:
        cnt[k.C_B_WINS] += p
    elif a_out and b_out:
        cnt[k.C_BOTH_OUT] += p
    else:
        cnt[k.C_BOTH_STANDING] += p
    uc = tally["unit_counts"]
    for u, s in enumerate(status):
        if s in (k.DESTROYED, k.CAUGHT):
            uc[u, k.UC_DESTROYED] += p
        if s in (k.FLED, k.CAUGHT):
            uc[u, k.UC_BROKE] += p
        if s == k.CAUGHT:
            uc[u, k.UC_CAUGHT] += p
        if s in (k.IN, k.PURSUED):
            uc[u, k.UC_HOLDING] += p
    dealt = taken = 0
    for b, wb in enumerate(wounds):
        tally["body_wounds"][b, wb] += p
        if u_int[b_int[b, k.B_UNIT], k.U_SIDE] == 1:
            dealt += wb
        else:
            taken += wb
    tally["wounds_dealt"][dealt] += p
    tally["wounds_taken"][taken] += p
    gone_a = status[0] in (k.DESTROYED, k.CAUGHT)
    gone_b = status[first_b] in (k.DESTROYED, k.CAUGHT)
    tally["models_left_a"][0 if gone_a else k.unit_models(b_int, 0, w, 1)] += p
    tally["models_left_b"][0 if gone_b else k.unit_models(b_int, first_b, w, 1)] += p
    tally["rounds"][fought] += p


def _round(c, t, state, rnd: int) -> dict:
    """Distribution of (wounds, status, frenzied, once, duel, diff, raw diff) after one round."""
    from mathhammer.fantasy.kernels import combat as k

    wounds0, status, frenzied, once, duel0 = state
    u_int, b_int, g_int, chal = t.u_int, t.b_int, t.g_int, t.chal
    n_u, n_b, n_g = u_int.shape[0], b_int.shape[0], len(c.groups)
    status_arr = np.array(status, np.int64)
    fresh = np.array([1 if rnd == 0 else 0] * n_u, np.int64)
    charged = t.charged if rnd == 0 else np.zeros(n_u, np.int64)
    start = np.array(wounds0, np.int64)
    in_duel, model_a, model_b = 0, -1, -1
    refused = int(chal[1]) if chal[2] == 2 else -1
    duel = duel0
    if chal[2] == 1 and duel0 == 1:
        if k.body_alive(b_int, chal[0], start) > 0 and k.body_alive(b_int, chal[1], start) > 0:
            in_duel, model_a, model_b = 1, int(b_int[chal[0], k.B_MODEL]), int(b_int[chal[1], k.B_MODEL])
        else:
            duel = 0
    if chal[2] == 2 and k.body_alive(b_int, chal[0], start) == 0:
        refused = -1
    active = []
    for g in range(n_g):
        u, e = int(g_int[g, k.G_UNIT]), int(g_int[g, k.G_ENEMY])
        if status[u] != k.IN or status[e] != k.IN or not k.engaged(u, e, t.e_pair):
            continue
        if g_int[g, k.G_ONCE] == 1 and (once[g] == 1 or fresh[u] == 0):
            continue
        if t.g_key[g, k.variant(u, fresh, charged)] < 0:
            continue
        active.append(g)
    keys = sorted({int(t.g_key[g, k.variant(int(g_int[g, k.G_UNIT]), fresh, charged)]) for g in active},
                  reverse=True)
    caps = [int(b_int[b, k.B_MODELS] * b_int[b, k.B_W]) for b in range(n_b)]
    overkill_cap = int(chal[3])
    geo = np.zeros((max(n_g, 1), 4), np.int64)
    k.round_geometry(u_int, b_int, g_int, start, geo)
    # inner states: (wounds, overkill A, overkill B, once) -> p
    inner: dict = {(tuple(wounds0), 0, 0, tuple(once)): 1.0}
    for key in keys:
        nxt: dict = defaultdict(float)
        for (wounds, ok_a, ok_b, once_now), p in inner.items():
            w_arr = np.array(wounds, np.int64)
            per_body: dict[int, np.ndarray] = {}
            once_new = list(once_now)
            for g in active:
                u = int(g_int[g, k.G_UNIT])
                v = k.variant(u, fresh, charged)
                if t.g_key[g, v] != key:
                    continue
                n = int(k.attackers(g, g_int, u_int, b_int, start, w_arr, refused, geo))
                if n <= 0:
                    continue
                slot = int(k.pick_slot(g, g_int, t.g_slot, t.g_pref, b_int, w_arr, in_duel, model_a, model_b))
                if slot < 0:
                    continue
                if g_int[g, k.G_ONCE] == 1:
                    once_new[g] = 1
                fr = 1 if (g_int[g, k.G_FRENZY] == 1 and frenzied[u] == 1) else 0
                dist = np.asarray(t.sum_pmf[g, slot, 2 * v + fr, n], float)
                target = int(t.g_slot[g, slot])
                per_body[target] = dist if target not in per_body else np.convolve(per_body[target], dist)
            # product over the bodies struck in this step
            outcomes = [((), 0, 0, 1.0)]
            for b, dist in per_body.items():
                room = caps[b] - wounds[b]
                duel_target = in_duel == 1 and int(b_int[b, k.B_MODEL]) in (model_a, model_b)
                side = 1 - int(u_int[b_int[b, k.B_UNIT], k.U_SIDE])  # the side that struck it
                grown = []
                for added, q in enumerate(dist):
                    if q == 0.0:
                        continue
                    took = min(added, room)
                    extra = added - took if duel_target else 0
                    grown.append((took, extra, q))
                outcomes = [(prev + ((b, took),), oa + (extra if side == 0 else 0),
                             ob + (extra if side == 1 else 0), pq * q)
                            for prev, oa, ob, pq in outcomes for took, extra, q in grown]
            once_t = tuple(once_new)
            for changes, oa, ob, q in outcomes:
                w2 = list(wounds)
                for b, took in changes:
                    w2[b] += took
                nxt[(tuple(w2), ok_a + oa, ok_b + ob, once_t)] += p * q
        inner = nxt
    results: dict = defaultdict(float)
    for (wounds, ok_a, ok_b, once_t), p in inner.items():
        for out, q in _after_strikes(c, t, start, wounds, ok_a, ok_b, overkill_cap, status, frenzied,
                                     refused).items():
            w2, st2, fr2, diff, raw = out
            results[(w2, st2, fr2, once_t, duel, diff, raw)] += p * q
    return results


def _after_strikes(c, t, start, wounds, ok_a, ok_b, cap, status, frenzied, refused) -> dict:
    """FB-C4/C5/C6, M2..M4: score, musician, tests of each losing unit, pursuit.

    The start of the round counts only through the wounds each side dealt, so the answer
    is kept per (wounds, dealt, ...) on the fight's tables: rounds from other starts that
    end in the same place (the later rounds, ``fb turn``'s many fights) ask it again."""
    sides = t.__dict__.get("_body_sides")
    if sides is None:
        from mathhammer.fantasy.kernels import combat as k

        sides = t.__dict__["_body_sides"] = tuple(
            int(t.u_int[t.b_int[b, k.B_UNIT], k.U_SIDE]) for b in range(t.b_int.shape[0]))
    dealt = [0, 0]
    for b, side in enumerate(sides):
        dealt[1 - side] += int(wounds[b] - start[b])
    memo = t.__dict__.setdefault("_after_strikes", {})
    key = (wounds, dealt[0], dealt[1], ok_a, ok_b, cap, status, frenzied, refused)
    out = memo.get(key)
    if out is None:
        out = memo[key] = _after_strikes_of(c, t, dealt, wounds, ok_a, ok_b, cap, status,
                                            frenzied, refused)
    return out


def _after_strikes_of(c, t, dealt, wounds, ok_a, ok_b, cap, status, frenzied, refused) -> dict:
    from mathhammer.fantasy.kernels import combat as k

    u_int, b_int = t.u_int, t.b_int
    n_u, n_b = u_int.shape[0], b_int.shape[0]
    w = np.array(wounds, np.int64)
    st = np.array(status, np.int64)
    for u in range(n_u):
        if st[u] == k.IN and not k.unit_alive(b_int, u, w):
            st[u] = k.DESTROYED
    scores = [int(k.side_score(s, u_int, b_int, w, st, dealt[s] + min((ok_a, ok_b)[s], cap))) for s in (0, 1)]
    raw = scores[0] - scores[1]
    diff = raw
    if diff == 0:
        mus = [0, 0]
        for u in range(n_u):
            if st[u] == k.IN and u_int[u, k.U_MUSICIAN] == 1 and u_int[u, k.U_MUSICIAN_RULE] == 1:
                mus[int(u_int[u, k.U_SIDE])] = 1
        diff = (1 if mus[0] > mus[1] else -1 if mus[1] > mus[0] else 0)
    fr = list(frenzied)
    if diff == 0:
        return {(tuple(int(x) for x in w), tuple(int(x) for x in st), tuple(fr), diff, raw): 1.0}
    loser = 1 if diff > 0 else 0
    lost_by = abs(diff)
    enemy_ranks = 0
    for e in range(n_u):
        if u_int[e, k.U_SIDE] != loser and st[e] == k.IN:
            enemy_ranks = max(enemy_ranks, int(k.ranks(k.unit_models(b_int, e, w, 1), u_int[e, k.U_WIDTH],
                                                        u_int[e, k.U_RANK_MIN])))
    bsb_alive = any(b_int[b, k.B_BSB] == 1 and u_int[b_int[b, k.B_UNIT], k.U_SIDE] == loser
                    and k.body_alive(b_int, b, w) > 0 for b in range(n_b))
    # branch over each losing unit's test, in unit order (as the kernel draws them)
    branches = [(w, st, 1.0)]
    for u in range(n_u):
        if u_int[u, k.U_SIDE] != loser:
            continue
        nxt = []
        for wb, sb, p in branches:
            if sb[u] != k.IN:
                nxt.append((wb, sb, p))
                continue
            if u_int[u, k.U_FRENZY] == 1:
                fr[u] = 0
            if u_int[u, k.U_UNBREAKABLE] == 1:
                nxt.append((wb, sb, p))
                continue
            if u_int[u, k.U_UNSTABLE] == 1 or u_int[u, k.U_DAEMONIC] == 1:
                if u_int[u, k.U_UNSTABLE] == 1:
                    losses = {lost_by: 1.0}
                else:
                    ld = int(k.unit_ld(u, u_int, b_int, wb, refused))
                    losses = defaultdict(float)
                    for roll, q in enumerate(t.p_instab):
                        if q:
                            losses[roll + lost_by - ld] += q
                for loss, q in losses.items():
                    w2 = wb.copy()
                    s2 = sb.copy()
                    if loss > 0:
                        k.lose_wounds(u, loss, b_int, w2)
                    if not k.unit_alive(b_int, u, w2):
                        s2[u] = k.DESTROYED
                    nxt.append((w2, s2, p * q))
                continue
            ld = int(k.unit_ld(u, u_int, b_int, wb, refused))
            mine = int(k.ranks(k.unit_models(b_int, u, wb, 1), u_int[u, k.U_WIDTH], u_int[u, k.U_RANK_MIN]))
            steadfast = u_int[u, k.U_STEADFAST_RULE] == 1 and mine > enemy_ranks
            if steadfast and u_int[u, k.U_DISRUPT_SF] == 1 and k.disrupted(u, u_int, b_int, wb, sb):
                steadfast = False
            tested = ld if (steadfast or u_int[u, k.U_STUBBORN] == 1) else ld - lost_by
            tested = max(tested, -k.LD_OFFSET)
            reroll = 1 if (u_int[u, k.U_REROLL] == 1 or bsb_alive) else 0
            pp = float(t.p_ld[reroll, tested + k.LD_OFFSET])
            if pp > 0:
                nxt.append((wb, sb, p * pp))
            if pp < 1:
                s2 = sb.copy()
                s2[u] = k.FLED
                nxt.append((wb, s2, p * (1 - pp)))
        branches = nxt
    out: dict = defaultdict(float)
    for wb, sb, p in branches:
        for s_final, q in _pursuit(t, sb, loser).items():
            out[(tuple(int(x) for x in wb), s_final, tuple(fr), diff, raw)] += p * q
    return out


def _pursuit(t, st, loser: int) -> dict:
    from mathhammer.fantasy.kernels import combat as k

    u_int, e_pair = t.u_int, t.e_pair
    n_u = u_int.shape[0]
    if not any(st[u] == k.FLED for u in range(n_u)):
        return {tuple(int(x) for x in st): 1.0}
    free = [u_int[w, k.U_SIDE] != loser and st[w] == k.IN and not k.still_fighting(w, st, e_pair)
            for w in range(n_u)]
    branches = [(st.copy(), 1.0)]
    for u in range(n_u):
        if st[u] != k.FLED or u_int[u, k.U_SIDE] != loser:
            continue
        mask = 0
        for w in range(n_u):
            if free[w] and k.engaged(u, w, e_pair):
                mask |= 1 << int(u_int[w, k.U_SIDE_INDEX])
        if mask == 0:
            continue
        pc = float(t.p_caught[u, mask])
        nxt = []
        for sb, p in branches:
            if pc > 0:
                s2 = sb.copy()
                s2[u] = k.CAUGHT
                nxt.append((s2, p * pc))
            if pc < 1:
                nxt.append((sb, p * (1 - pc)))
        branches = nxt
    out: dict = defaultdict(float)
    for sb, p in branches:
        for w in range(n_u):
            if free[w]:
                for u in range(n_u):
                    if k.engaged(u, w, e_pair) and sb[u] in (k.FLED, k.CAUGHT):
                        sb[w] = k.PURSUED
                        break
        out[tuple(int(x) for x in sb)] += p
    return out


def one_round_exact(c, tables) -> dict:
    """combat_exact(c, tables, 1) in one jitted call (:mod:`mathhammer.fantasy.kernels.combat_exact`):
    the same tallies to float rounding (~1e-15); the greedy values' exact round (FB-B10).
    Falls back to the Python engine when a state's code would not fit in 64 bits."""
    from mathhammer.fantasy.kernels import combat as k
    from mathhammer.fantasy.kernels.combat_exact import one_round

    reason = exact_available(c, tables, 1)
    if reason is not None:
        raise InputError("‹method›", f"exact is not available for {reason}", "exact", "use ‹method› mc")
    t = tables
    size = max(int(t.chal[3]), 0) + 1
    size *= size
    for b in range(t.b_int.shape[0]):
        size *= int(t.b_int[b, k.B_MODELS] * t.b_int[b, k.B_W]) + 1
    if size >= 2 ** 62:
        return combat_exact(c, tables, 1)
    tally = _empty_tally(c, t, 1)
    r1 = np.zeros(2)
    one_round(t.u_int, t.b_int, t.g_int, t.g_key, t.g_slot, t.g_pref, t.g_sum, t.e_pair, t.chal,
              t.p_ld, t.p_caught, t.p_instab, t.charged, tally["counters"], r1,
              tally["unit_counts"], tally["body_wounds"], tally["wounds_dealt"],
              tally["wounds_taken"], tally["models_left_a"], tally["models_left_b"],
              tally["rounds"])
    tally["r1_sum"], tally["r1_sq"] = float(r1[0]), float(r1[1])
    return tally
