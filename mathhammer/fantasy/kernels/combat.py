"""Close combat (FB-C1..C7, FB-K1..K4, FB-M1..M4, FB-P1): numbers in, counts out.

A fight is a set of *units* (up to 4 a side), each made of *bodies* — wound pools:
the rank and file (many models of W wounds), and single models (a champion, each
character, each ridden monster as a second part of its rider's model). *Groups* make
the attacks: a unit's front-rank rank and file, its supporting ranks, its rank ends
facing a flank or rear attacker, each single model, each mount. A group's attacks go
to the first living body of its preference list among the bodies of the enemy unit
it faces; the number of attacks that strike is decided at each Initiative step from
the models alive (FB-C3). What one group's ``n`` attacking models do to one body is a
categorical draw from an exact table compiled in Python
(:mod:`mathhammer.fantasy.combat.compile`): ``g_sum`` (cumulative, wounds caused by n
models) when wounds add up, else attack by attack from ``g_percdf`` (a Killing Blow
slay against rank and file of W > 1: a slay adds the wounds that model had left).

The per-round rules — who strikes, at whom, the combat score, break tests, pursuit —
are the plain jitted helpers below; the exact engine
(:mod:`mathhammer.fantasy.combat.exact`) calls the very same helpers (docs/design.md, rule 2).
``fight_round`` plays one round on a trial's state, so the whole-turn kernel
(:mod:`mathhammer.kernels.turn`) reuses it.

Array layouts (int64 unless stated; columns named by the constants below):
  u_int (U, NU)            per unit
  b_int (B, NB)            per body
  g_int (G, NG)            per group; g_key (G, 3) strike key per variant
  g_slot (G, TS)           body of each target slot (-1 unused)
  g_pref (G, 2, TS)        slot order: [0] normally, [1] when the group fights a challenge
  g_sum float64 (G, TS, 6, N, W)   cumulative P(n models cause w wounds); variant v
                                   (0 charged + fresh, 1 fresh, 2 later) x 2 + frenzied
                                   (or, from a battle, the pair of a typed list of (N, W) blocks
                                   and the index (G, TS, 6) into it: one copy of a block many
                                   fights share)
  g_fall (G, TS)           1: roll attack by attack from g_percdf
  g_percdf float64 (G, TS, 3, K)   per attack: k wounds (k < K-1), K-1 slain outright
  g_natt float64 (G, 6, A) cumulative attacks per model
  e_pair (E, 2)            engaged unit pairs
  chal (4,)                issuer body, other body, mode (0 none, 1 duel, 2 refused), overkill cap
  p_ld float64 (2, 41)     P(pass Ld test at value v - 20), [0] plain, [1] re-rolled
  p_caught float64 (U, 16) P(caught | pursuers' bit mask, bit j = enemy unit j of its side)
  p_instab float64 (13,)   2D6
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mathhammer.kernels.borrowed import item
from mathhammer.kernels.dice import d6, uniform
from mathhammer.kernels.dice import sample_cdf as _sample

# ---- per-unit columns -----------------------------------------------------------------------
(U_SIDE, U_WIDTH, U_RANK_MIN, U_MAX_RANK, U_AGAINST, U_FACE, U_CONTACT, U_SUPPORT, U_STUBBORN,
 U_UNBREAKABLE, U_UNSTABLE, U_DAEMONIC, U_STANDARD, U_MUSICIAN, U_BONUS, U_FRENZY, U_REROLL,
 U_BSB_CR, U_STEADFAST_RULE, U_GENERAL_LD, U_DISRUPT_MIN, U_DISRUPT_SF, U_SIDE_INDEX,
 U_FLANK_BONUS, U_REAR_BONUS, U_BSB_BONUS, U_STANDARD_BONUS, U_MUSICIAN_RULE) = range(28)
NU = 28
# ---- per-body columns ---------------------------------------------------------------------------
B_UNIT, B_MODELS, B_W, B_LD, B_SINGLE, B_RANKS, B_SLOTS, B_MODEL, B_BSB, B_GENERAL = range(10)
NB = 10
# ---- per-group columns ----------------------------------------------------------------------------
G_UNIT, G_BODY, G_COUNT, G_ENEMY, G_LO, G_N, G_ONCE, G_FRENZY, G_NSLOT, G_FACE = range(10)
NG = 10
COUNT_FRONT, COUNT_SUPPORT, COUNT_SIDE, COUNT_SINGLE = 0, 1, 2, 3
FACE_FRONT, FACE_FLANK, FACE_REAR = 0, 1, 2
# unit status
IN, DESTROYED, FLED, CAUGHT, PURSUED = 0, 1, 2, 3, 4
MAX_UNITS = 8
LD_OFFSET = 20
# round outcome array (per round): [diff (A - B after the musician), raw diff, score A, score B]
R_DIFF, R_RAW, R_SCORE_A, R_SCORE_B = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def alive(models, w, wounds):
    """FB-V4: whole models left after ``wounds`` wounds on ``models`` models of W ``w``."""
    left = models - wounds // w
    return left if left > 0 else 0


@njit(cache=True, nogil=True)
def ranks(models, width, rank_min):
    """Ranks of at least ``rank_min`` models, the first rank included (FB-C4/C5)."""
    if width < rank_min or models <= 0:
        return 0
    full = models // width
    count = full
    if models - full * width >= rank_min:
        count += 1
    return count


@njit(cache=True, nogil=True)
def body_alive(b_int, b, wounds):
    return alive(b_int[b, B_MODELS], b_int[b, B_W], wounds[b])


@njit(cache=True, nogil=True)
def unit_models(b_int, u, wounds, ranks_only):
    """Models of unit ``u`` alive (``ranks_only``: those that fill ranks, FB-K1)."""
    total = 0
    for b in range(b_int.shape[0]):
        if b_int[b, B_UNIT] == u and (ranks_only == 0 or b_int[b, B_RANKS] == 1):
            total += alive(b_int[b, B_MODELS], b_int[b, B_W], wounds[b])
    return total


@njit(cache=True, nogil=True)
def unit_alive(b_int, u, wounds):
    for b in range(b_int.shape[0]):
        if b_int[b, B_UNIT] == u and alive(b_int[b, B_MODELS], b_int[b, B_W], wounds[b]) > 0:
            return True
    return False


@njit(cache=True, nogil=True)
def front_geometry(u_int, b_int, u, rf_body, wounds_start):
    """(front rank-and-file in contact F0, supporting models S0, rows) at a round's start.

    Singles (champion, characters) stand in the front rank, in contact (FB-K1); the
    rank and file fill the rest of the front rank, then ranks behind (FB-C1).
    """
    slots = 0
    for b in range(b_int.shape[0]):
        if b_int[b, B_UNIT] == u and b_int[b, B_SINGLE] == 1 and b_int[b, B_SLOTS] > 0:
            if alive(b_int[b, B_MODELS], b_int[b, B_W], wounds_start[b]) > 0:
                slots += b_int[b, B_SLOTS]
    width = u_int[u, U_WIDTH]
    rf = 0 if rf_body < 0 else alive(b_int[rf_body, B_MODELS], b_int[rf_body, B_W],
                                     wounds_start[rf_body])
    room = width - slots
    if room < 0:
        room = 0
    in_front = rf if rf < room else room
    contact = u_int[u, U_CONTACT] - slots
    if contact < 0:
        contact = 0
    f0 = in_front if in_front < contact else contact
    behind = rf - in_front
    s0 = 0
    for _ in range(u_int[u, U_SUPPORT]):
        in_rank = behind if behind < width else width
        fights = in_rank if in_rank < u_int[u, U_CONTACT] else u_int[u, U_CONTACT]
        s0 += fights
        behind -= in_rank
    total = rf + slots
    rows = (total + width - 1) // width if width > 0 else 0
    return f0, s0, rows, total


@njit(cache=True, nogil=True)
def round_geometry(u_int, b_int, g_int, wounds_start, geo):
    """``geo[g] = (F0, S0, rows, total)`` of each rank-and-file group's unit at the round's
    start (:func:`front_geometry`), so the strike steps need not recount."""
    for g in range(g_int.shape[0]):
        if g_int[g, G_COUNT] == COUNT_SINGLE:
            continue
        f0, s0, rows, total = front_geometry(u_int, b_int, g_int[g, G_UNIT], g_int[g, G_BODY],
                                             wounds_start)
        geo[g, 0] = f0
        geo[g, 1] = s0
        geo[g, 2] = rows
        geo[g, 3] = total


@njit(cache=True, nogil=True)
def attackers(g, g_int, u_int, b_int, wounds_start, wounds, refused, geo):
    """FB-C1/C3/K1/M1: models of group ``g`` that strike now (slain models do not strike:
    the front rank first, then supporting ranks, then rank ends facing a flank or rear).
    ``geo`` holds the round's :func:`round_geometry`."""
    b = g_int[g, G_BODY]
    kind = g_int[g, G_COUNT]
    if kind == COUNT_SINGLE:
        if b == refused:
            return 0
        if alive(b_int[b, B_MODELS], b_int[b, B_W], wounds_start[b]) == 0:
            return 0
        return 1 if alive(b_int[b, B_MODELS], b_int[b, B_W], wounds[b]) > 0 else 0
    u = g_int[g, G_UNIT]
    f0, s0, rows, total = geo[g, 0], geo[g, 1], geo[g, 2], geo[g, 3]
    slain = (alive(b_int[b, B_MODELS], b_int[b, B_W], wounds_start[b])
             - alive(b_int[b, B_MODELS], b_int[b, B_W], wounds[b]))
    if kind == COUNT_FRONT:
        n = f0 - slain
    elif kind == COUNT_SUPPORT:
        extra = slain - f0
        n = s0 - (extra if extra > 0 else 0)
    else:  # rank ends facing a flank (one per rank behind the first) or the rear rank
        if g_int[g, G_FACE] == FACE_FLANK:
            k0 = rows - 1
        else:
            k0 = total - (rows - 1) * u_int[u, U_WIDTH] if rows >= 2 else 0
        if k0 > g_int[g, G_N]:
            k0 = g_int[g, G_N]
        extra = slain - f0 - s0
        n = k0 - (extra if extra > 0 else 0)
        return n if n > 0 else 0
    if n < 0:
        n = 0
    n -= g_int[g, G_LO]  # a slice of the front (models in contact with one enemy model)
    if n < 0:
        n = 0
    return n if n < g_int[g, G_N] else g_int[g, G_N]


@njit(cache=True, nogil=True)
def pick_slot(g, g_int, g_slot, g_pref, b_int, wounds, in_duel, duel_model_a, duel_model_b):
    """FB-K1/K3: the target slot of group ``g``: the first living body of its preference
    list; a duellist strikes only its opponent, nobody else strikes a duellist."""
    b_src = g_int[g, G_BODY]
    mine = b_int[b_src, B_MODEL]
    fighting = in_duel == 1 and (mine == duel_model_a or mine == duel_model_b)
    row = 1 if fighting else 0
    for k in range(g_int[g, G_NSLOT]):
        slot = g_pref[g, row, k]
        if slot < 0:
            break
        b = g_slot[g, slot]
        if alive(b_int[b, B_MODELS], b_int[b, B_W], wounds[b]) == 0:
            continue
        model = b_int[b, B_MODEL]
        target_duellist = in_duel == 1 and (model == duel_model_a or model == duel_model_b)
        if fighting != target_duellist:
            continue
        return slot
    return -1


@njit(cache=True, nogil=True)
def unit_ld(u, u_int, b_int, wounds, refused):
    """The unit's Leadership: its best living model (a refusing character lends none),
    or the general's from outside the unit (FB-K4)."""
    best = u_int[u, U_GENERAL_LD]
    side = u_int[u, U_SIDE]
    for b in range(b_int.shape[0]):
        if b == refused or b_int[b, B_LD] <= 0:
            continue
        mine = b_int[b, B_UNIT] == u
        general = b_int[b, B_GENERAL] == 1 and u_int[b_int[b, B_UNIT], U_SIDE] == side
        if not (mine or general):
            continue
        if alive(b_int[b, B_MODELS], b_int[b, B_W], wounds[b]) > 0 and b_int[b, B_LD] > best:
            best = b_int[b, B_LD]
    return best


@njit(cache=True, nogil=True)
def break_test(u, u_int, b_int, wounds, status, refused, lost_by, enemy_ranks, bsb_alive):
    """FB-C5/C6: (the Leadership losing unit u tests on, 1 if it may re-roll): its Ld less the
    lost-by, unless steadfast (more ranks than any enemy, not disrupted) or stubborn; the
    battle standard or the unit's own rule gives the re-roll. One rule for Monte Carlo and exact."""
    ld = unit_ld(u, u_int, b_int, wounds, refused)
    my_ranks = ranks(unit_models(b_int, u, wounds, 1), u_int[u, U_WIDTH], u_int[u, U_RANK_MIN])
    steadfast = u_int[u, U_STEADFAST_RULE] == 1 and my_ranks > enemy_ranks
    if steadfast and u_int[u, U_DISRUPT_SF] == 1 and disrupted(u, u_int, b_int, wounds, status):
        steadfast = False
    tested = ld if (steadfast or u_int[u, U_STUBBORN] == 1) else ld - lost_by
    if tested < -LD_OFFSET:
        tested = -LD_OFFSET
    return tested, 1 if (u_int[u, U_REROLL] == 1 or bsb_alive) else 0


@njit(cache=True, nogil=True)
def disrupted(u, u_int, b_int, wounds, status):
    """FB-M2: an enemy in the unit's flank or rear with enough ranks disrupts it."""
    need = u_int[u, U_DISRUPT_MIN]
    if need <= 0:
        return False
    for e in range(u_int.shape[0]):
        if status[e] != IN or u_int[e, U_AGAINST] != u or u_int[e, U_FACE] == FACE_FRONT:
            continue
        if ranks(unit_models(b_int, e, wounds, 1), u_int[e, U_WIDTH], u_int[e, U_RANK_MIN]) >= need:
            return True
    return False


@njit(cache=True, nogil=True)
def side_score(side, u_int, b_int, wounds, status, dealt):
    """FB-C4/M1: wounds caused + the best rank bonus among undisrupted units + standard +
    battle standard + flank / rear + stated bonuses, once per side."""
    best_ranks = 0
    standard = 0
    bsb = 0
    flank = 0
    rear = 0
    bonus = 0
    for u in range(u_int.shape[0]):
        if u_int[u, U_SIDE] != side or status[u] != IN:
            continue
        models = unit_models(b_int, u, wounds, 1)
        if models <= 0:
            continue
        if not disrupted(u, u_int, b_int, wounds, status):
            r = ranks(models, u_int[u, U_WIDTH], u_int[u, U_RANK_MIN]) - 1
            if r > u_int[u, U_MAX_RANK]:
                r = u_int[u, U_MAX_RANK]
            if r > best_ranks:
                best_ranks = r
        if u_int[u, U_STANDARD] == 1:
            standard = u_int[u, U_STANDARD_BONUS]
        if u_int[u, U_BSB_CR] == 1:
            bsb = u_int[u, U_BSB_BONUS]
        for b in range(b_int.shape[0]):
            if b_int[b, B_UNIT] == u and b_int[b, B_BSB] == 1 and body_alive(b_int, b, wounds) > 0:
                bsb = u_int[u, U_BSB_BONUS]
        against = u_int[u, U_AGAINST]
        if against >= 0 and status[against] == IN:
            if u_int[u, U_FACE] == FACE_FLANK:
                flank = u_int[u, U_FLANK_BONUS]
            elif u_int[u, U_FACE] == FACE_REAR:
                rear = u_int[u, U_REAR_BONUS]
        bonus += u_int[u, U_BONUS]
    return dealt + best_ranks + standard + bsb + flank + rear + bonus


@njit(cache=True, nogil=True)
def lose_wounds(u, loss, b_int, wounds):
    """FB-C5: combat-result wounds: rank and file first, then the single models in order."""
    for order in range(2):
        for b in range(b_int.shape[0]):
            if loss <= 0:
                return
            if b_int[b, B_UNIT] != u or b_int[b, B_SINGLE] != order:
                continue
            room = b_int[b, B_MODELS] * b_int[b, B_W] - wounds[b]
            take = loss if loss < room else room
            if take > 0:
                wounds[b] += take
                loss -= take


@njit(cache=True, nogil=True)
def engaged(u, v, e_pair):
    for k in range(e_pair.shape[0]):
        if (e_pair[k, 0] == u and e_pair[k, 1] == v) or (e_pair[k, 0] == v and e_pair[k, 1] == u):
            return True
    return False


@njit(cache=True, nogil=True)
def still_fighting(u, status, e_pair):
    """True while unit ``u`` is engaged with an enemy still in the fight."""
    if status[u] != IN:
        return False
    for k in range(e_pair.shape[0]):
        a, b = e_pair[k, 0], e_pair[k, 1]
        if (a == u and status[b] == IN) or (b == u and status[a] == IN):
            return True
    return False


@njit(cache=True, nogil=True)
def any_engagement(status, e_pair):
    for k in range(e_pair.shape[0]):
        if status[e_pair[k, 0]] == IN and status[e_pair[k, 1]] == IN:
            return True
    return False


@njit(cache=True, nogil=True)
def variant(u, fresh, charged):
    """Table variant of a unit's groups: 0 charged in the first round, 1 first round, 2 later."""
    if fresh[u] == 1:
        return 0 if charged[u] == 1 else 1
    return 2


@njit(cache=True, nogil=True)
def _strike(g, slot, vf, n, g_sum, g_fall, g_percdf, g_natt, running, w, cap, state):
    """Wounds ``n`` models of group ``g`` add to a body (before the cap of its room)."""
    if g_fall[g, slot] == 0 and n < g_sum.shape[3]:
        return _sample(g_sum[g, slot, vf, n], state)
    v = vf // 2
    slain_index = g_percdf.shape[3] - 1
    added = 0
    for _ in range(n):
        k_attacks = _sample(g_natt[g, vf], state)
        for _ in range(k_attacks):
            k = _sample(g_percdf[g, slot, v], state)
            if k == slain_index:
                added += w - (running + added) % w
            else:
                added += k
            if running + added >= cap:
                return added
    return added


_NO_ROWS = np.zeros((1, 1, 1, 0, 1))  # a wounds table with no rows: _strike rolls attacks


@njit(cache=True, nogil=True)
def _strike_blocks(g, slot, vf, n, blocks, index, g_fall, g_percdf, g_natt, running, w, cap,
                   state):
    """:func:`_strike` on a battle's wounds tables: ``blocks`` a typed list of the (N, W)
    blocks its fights share, ``index`` (G, TS, 6) the fight's into it."""
    block = item(blocks, index[g, slot, vf])
    if g_fall[g, slot] == 0 and n < block.shape[0]:
        return _sample(block[n], state)
    return _strike(g, slot, vf, n, _NO_ROWS, g_fall, g_percdf, g_natt, running, w, cap, state)


@njit(cache=True, nogil=True)
def round_arrays(n_u, n_b, n_g):
    """One chunk's state and scratch arrays of :func:`fight_round`, in its argument order
    (wounds .. out, then start .. small): allocated once per chunk, not per round."""
    return (np.zeros(n_b, np.int64), np.zeros(n_u, np.int64), np.zeros(n_u, np.int64),
            np.zeros(n_g, np.int64), np.zeros(n_u, np.int64), np.zeros(n_u, np.int64),
            np.zeros(2, np.int64), np.zeros(4, np.int64),
            np.zeros(n_b, np.int64), np.zeros(n_b, np.int64), np.zeros(n_g, np.int64),
            np.zeros(n_g, np.int64), np.zeros((n_g, 4), np.int64), np.zeros(8, np.int64))


@njit(cache=True, nogil=True)
def fight_round(u_int, b_int, g_int, g_key, g_slot, g_pref, g_sum, g_fall, g_percdf, g_natt,
                e_pair, chal, p_ld, p_caught, p_instab, state,
                wounds, status, frenzied, once_used, fresh, charged, duel, out,
                start, pending, keys, active, geo, small):
    """Play one round of every engagement on one trial's state (modified in place).

    ``duel`` (2,): [0] 1 while an accepted challenge goes on, [1] the refusing body or -1.
    ``out`` (4,) receives the round's [diff after the musician, raw diff, score A, score B].
    ``start``, ``pending`` (B,), ``keys``, ``active`` (G,), ``geo`` (G, 4), ``small`` (8,):
    scratch space (:func:`work_arrays`).
    """
    n_b = b_int.shape[0]
    n_g = g_int.shape[0]
    for b in range(n_b):
        start[b] = wounds[b]
        pending[b] = 0
    round_geometry(u_int, b_int, g_int, start, geo)
    dealt = small[0:2]
    overkill = small[2:4]
    for i in range(8):
        small[i] = 0
    model_a = -1
    model_b = -1
    in_duel = 0
    refused = duel[1]
    if chal[2] == 1 and duel[0] == 1:
        if body_alive(b_int, chal[0], wounds) > 0 and body_alive(b_int, chal[1], wounds) > 0:
            in_duel = 1
            model_a = b_int[chal[0], B_MODEL]
            model_b = b_int[chal[1], B_MODEL]
        else:
            duel[0] = 0
    if chal[2] == 2 and body_alive(b_int, chal[0], wounds) == 0:
        refused = -1  # nobody left to refuse
    # the strike keys of the groups that fight this round, highest first
    n_keys = 0
    for g in range(n_g):
        active[g] = 0
        u = g_int[g, G_UNIT]
        e = g_int[g, G_ENEMY]
        if status[u] != IN or status[e] != IN or not engaged(u, e, e_pair):
            continue
        if g_int[g, G_ONCE] == 1 and (once_used[g] == 1 or fresh[u] == 0):
            continue
        key = g_key[g, variant(u, fresh, charged)]
        if key < 0:  # no attacks in this variant (impact hits off the charge, ...)
            continue
        active[g] = 1
        seen = False
        for k in range(n_keys):
            if keys[k] == key:
                seen = True
        if not seen:
            keys[n_keys] = key
            n_keys += 1
    # insertion sort, descending
    for i in range(1, n_keys):
        x = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < x:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = x
    for step in range(n_keys):
        key = keys[step]
        for b in range(n_b):
            pending[b] = 0
        for g in range(n_g):
            if active[g] == 0:
                continue
            u = g_int[g, G_UNIT]
            v = variant(u, fresh, charged)
            if g_key[g, v] != key:
                continue
            n = attackers(g, g_int, u_int, b_int, start, wounds, refused, geo)
            if n <= 0:
                continue
            slot = pick_slot(g, g_int, g_slot, g_pref, b_int, wounds, in_duel, model_a, model_b)
            if slot < 0:
                continue
            if g_int[g, G_ONCE] == 1:
                once_used[g] = 1
            target = g_slot[g, slot]
            vf = 2 * v + (1 if (g_int[g, G_FRENZY] == 1 and frenzied[u] == 1) else 0)
            w = b_int[target, B_W]
            cap = b_int[target, B_MODELS] * w
            running = wounds[target] + pending[target]
            # g_sum: a fight's own (G, TS, 6, N, W) array, or a battle's (blocks, index) — a
            # typed list of the (N, W) blocks its fights share and the fight's (G, TS, 6) index
            # (one argument: fight_round's arity decides whether LLVM inlines it; a 31st argument
            # cost fb combat ~20%); chosen when numba types the round
            if isinstance(g_sum, tuple):
                added = _strike_blocks(g, slot, vf, n, g_sum[0], g_sum[1], g_fall, g_percdf,
                                       g_natt, running, w, cap, state)
            else:
                added = _strike(g, slot, vf, n, g_sum, g_fall, g_percdf, g_natt, running, w, cap,
                                state)
            room = cap - running
            took = added if added < room else room
            if took < 0:
                took = 0
            pending[target] += took
            side = u_int[u, U_SIDE]
            dealt[side] += took
            if in_duel == 1 and added > took and (b_int[target, B_MODEL] == model_a
                                                   or b_int[target, B_MODEL] == model_b):
                overkill[side] += added - took  # FB-K3: excess wounds in a challenge
        for b in range(n_b):
            wounds[b] += pending[b]
    # ---- FB-C4 combat result, summed per side
    for u in range(u_int.shape[0]):
        if status[u] == IN and not unit_alive(b_int, u, wounds):
            status[u] = DESTROYED
    scores = small[4:6]
    for side in range(2):
        extra = overkill[side] if overkill[side] < chal[3] else chal[3]
        scores[side] = side_score(side, u_int, b_int, wounds, status, dealt[side] + extra)
    raw = scores[0] - scores[1]
    diff = raw
    if diff == 0:  # FB-S3: the side with a musician wins a drawn round by 1
        mus = small[6:8]
        for u in range(u_int.shape[0]):
            if status[u] == IN and u_int[u, U_MUSICIAN] == 1 and u_int[u, U_MUSICIAN_RULE] == 1:
                mus[u_int[u, U_SIDE]] = 1
        if mus[0] > mus[1]:
            diff = 1
        elif mus[1] > mus[0]:
            diff = -1
    out[R_DIFF] = diff
    out[R_RAW] = raw
    out[R_SCORE_A] = scores[0]
    out[R_SCORE_B] = scores[1]
    for u in range(u_int.shape[0]):
        fresh[u] = 0
    if diff == 0:
        return
    loser = 1 if diff > 0 else 0
    lost_by = diff if diff > 0 else -diff
    # ---- FB-C5/M3: each unit of the losing side tests
    enemy_ranks = 0
    for e in range(u_int.shape[0]):
        if u_int[e, U_SIDE] != loser and status[e] == IN:
            r = ranks(unit_models(b_int, e, wounds, 1), u_int[e, U_WIDTH], u_int[e, U_RANK_MIN])
            if r > enemy_ranks:
                enemy_ranks = r
    bsb_alive = 0
    for b in range(n_b):
        if b_int[b, B_BSB] == 1 and u_int[b_int[b, B_UNIT], U_SIDE] == loser:
            if body_alive(b_int, b, wounds) > 0:
                bsb_alive = 1
    fled_any = False
    for u in range(u_int.shape[0]):
        if u_int[u, U_SIDE] != loser or status[u] != IN:
            continue
        if u_int[u, U_FRENZY] == 1:
            frenzied[u] = 0  # FB-S1: a beaten unit loses Frenzy
        if u_int[u, U_UNBREAKABLE] == 1:
            continue
        if u_int[u, U_UNSTABLE] == 1:
            lose_wounds(u, lost_by, b_int, wounds)
            if not unit_alive(b_int, u, wounds):
                status[u] = DESTROYED
            continue
        if u_int[u, U_DAEMONIC] == 1:
            loss = d6(state) + d6(state) + lost_by - unit_ld(u, u_int, b_int, wounds, refused)
            if loss > 0:
                lose_wounds(u, loss, b_int, wounds)
            if not unit_alive(b_int, u, wounds):
                status[u] = DESTROYED
            continue
        tested, reroll = break_test(u, u_int, b_int, wounds, status, refused, lost_by,
                                    enemy_ranks, bsb_alive == 1)
        if uniform(state) < p_ld[reroll, tested + LD_OFFSET]:
            continue
        status[u] = FLED
        fled_any = True
    if not fled_any:
        return
    # ---- FB-C6/M4: pursuit by the winners no longer held by another enemy
    winners_free = 0  # bit mask over units
    for w in range(u_int.shape[0]):
        if u_int[w, U_SIDE] != loser and status[w] == IN and not still_fighting(w, status, e_pair):
            winners_free |= 1 << w
    for u in range(u_int.shape[0]):
        if status[u] != FLED or u_int[u, U_SIDE] != loser:
            continue
        mask = 0
        for w in range(u_int.shape[0]):
            if (winners_free >> w) & 1 == 1 and engaged(u, w, e_pair):
                mask |= 1 << u_int[w, U_SIDE_INDEX]
        if mask == 0:
            continue
        if uniform(state) < p_caught[u, mask]:
            status[u] = CAUGHT
    for w in range(u_int.shape[0]):
        if (winners_free >> w) & 1 == 1:
            for u in range(u_int.shape[0]):
                if engaged(u, w, e_pair) and (status[u] == FLED or status[u] == CAUGHT):
                    status[w] = PURSUED
                    break


# ---- the combat query: many trials of up to ``max_rounds`` rounds -----------------------------
# counters
C_A_WINS, C_B_WINS, C_BOTH_STANDING, C_BOTH_OUT = 0, 1, 2, 3
C_R1_A, C_R1_TIE, C_R1_B, C_R1_SUM, C_R1_SQ = 4, 5, 6, 7, 8
N_SIDE_COUNTERS = 9
# per-unit counters (rows of unit_counts): destroyed (wounds or caught), broke, caught
UC_DESTROYED, UC_BROKE, UC_CAUGHT, UC_HOLDING = 0, 1, 2, 3
NUC = 4


@njit(cache=True, nogil=True)
def side_out(side, u_int, status):
    for u in range(u_int.shape[0]):
        if u_int[u, U_SIDE] == side and (status[u] == IN or status[u] == PURSUED):
            return False
    return True


@njit(cache=True, nogil=True)
def combat_trials(u_int, b_int, g_int, g_key, g_slot, g_pref, g_sum, g_fall, g_percdf, g_natt,
                  e_pair, chal, p_ld, p_caught, p_instab, charged0, max_rounds, state, n_trials,
                  counters, unit_counts, body_wounds, dealt_hist, taken_hist, left_a_hist,
                  left_b_hist, rounds_hist):
    """Simulate ``n_trials`` combats of up to ``max_rounds`` rounds (FB-C1..C7, K, M, P).

    charged0 (U,): units that charged. Counts are added to; ``body_wounds`` (B, W+1) is
    a histogram of the wounds on each body at the end; ``left_a/b`` count the models
    (ranks-filling) of unit 0 and of the first B unit (0 when destroyed or caught).
    """
    n_u = u_int.shape[0]
    n_b = b_int.shape[0]
    n_g = g_int.shape[0]
    (wounds, status, frenzied, once_used, fresh, charged, duel, out,
     start, pending, keys, active, geo, small) = round_arrays(n_u, n_b, n_g)
    first_b = 0
    for u in range(n_u):
        if u_int[u, U_SIDE] == 1:
            first_b = u
            break
    for _ in range(n_trials):
        for b in range(n_b):
            wounds[b] = 0
        for u in range(n_u):
            status[u] = IN
            frenzied[u] = u_int[u, U_FRENZY]
            fresh[u] = 1
            charged[u] = charged0[u]
        for g in range(n_g):
            once_used[g] = 0
        duel[0] = 1 if chal[2] == 1 else 0
        duel[1] = chal[1] if chal[2] == 2 else -1
        fought = 0
        for rnd in range(max_rounds):
            if not any_engagement(status, e_pair):
                break
            fought += 1
            fight_round(u_int, b_int, g_int, g_key, g_slot, g_pref, g_sum, g_fall, g_percdf, g_natt,
                        e_pair, chal, p_ld, p_caught, p_instab, state, wounds, status, frenzied,
                        once_used, fresh, charged, duel, out, start, pending, keys, active, geo, small)
            if rnd == 0:
                counters[C_R1_SUM] += out[R_RAW]
                counters[C_R1_SQ] += out[R_RAW] * out[R_RAW]
                if out[R_DIFF] > 0:
                    counters[C_R1_A] += 1
                elif out[R_DIFF] < 0:
                    counters[C_R1_B] += 1
                else:
                    counters[C_R1_TIE] += 1
            for u in range(n_u):
                charged[u] = 0
        a_out = side_out(0, u_int, status)
        b_out = side_out(1, u_int, status)
        if b_out and not a_out:
            counters[C_A_WINS] += 1
        elif a_out and not b_out:
            counters[C_B_WINS] += 1
        elif a_out and b_out:
            counters[C_BOTH_OUT] += 1
        else:
            counters[C_BOTH_STANDING] += 1
        for u in range(n_u):
            st = status[u]
            if st == DESTROYED or st == CAUGHT:
                unit_counts[u, UC_DESTROYED] += 1
            if st == FLED or st == CAUGHT:
                unit_counts[u, UC_BROKE] += 1
            if st == CAUGHT:
                unit_counts[u, UC_CAUGHT] += 1
            if st == IN or st == PURSUED:
                unit_counts[u, UC_HOLDING] += 1
        dealt = 0
        taken = 0
        for b in range(n_b):
            body_wounds[b, wounds[b]] += 1
            if u_int[b_int[b, B_UNIT], U_SIDE] == 1:
                dealt += wounds[b]
            else:
                taken += wounds[b]
        dealt_hist[dealt] += 1
        taken_hist[taken] += 1
        gone_a = status[0] == DESTROYED or status[0] == CAUGHT
        gone_b = status[first_b] == DESTROYED or status[first_b] == CAUGHT
        left_a_hist[0 if gone_a else unit_models(b_int, 0, wounds, 1)] += 1
        left_b_hist[0 if gone_b else unit_models(b_int, first_b, wounds, 1)] += 1
        rounds_hist[fought] += 1


@njit(cache=True, nogil=True)
def two_part_trials(n_cdf, step_cdf, width, state, n_trials, hist):
    """FB-P1/P2: shots at a two-part model. Each trial draws the number of shots from
    ``n_cdf``, each shot's (rider, monster) wounds from the flattened table ``step_cdf``
    (row = rider wounds, ``width`` columns = monster wounds), each part capped at its
    W (the table's last row / column). ``hist`` (rows x width) counts the end states."""
    rows = step_cdf.shape[0] // width
    for _ in range(n_trials):
        n = _sample(n_cdf, state)
        a = 0
        b = 0
        for _ in range(n):
            k = _sample(step_cdf, state)
            a += k // width
            b += k % width
            if a > rows - 1:
                a = rows - 1
            if b > width - 1:
                b = width - 1
        hist[a * width + b] += 1
