"""Layouts of the battle kernel's arrays, and the small helpers every phase uses.

Static arrays (built once per run by :mod:`mathhammer.fantasy.battle.compile`):
  ui int64 (U, NUI)        per unit (columns UI_*)
  uf float64 (U, NUF)      per unit: base width and depth (inches), weapon range
  bodies int64 (U, MAXB, 4)  per wound pool: models, W, counted in the ranks (0/1), role
  ch_range, ch_move, ch_cum float64 (U, K); ch_n int64 (U)  the charge roll (FB-G1/G3)
  fl_val, fl_cum (U, K); fl_n (U)                            flee / pursuit dice (FB-C6)
  sides int64 (2, U); nside int64 (2)                        units of each side, in order
  ri int64 (NRI), rf float64 (NRF)                           rules and settings (R_*, F_*)
  terrain float64 (N, 6): centre x, y, width, depth, blocks sight, cover (0/1/2)
  orders int64 (U, NORDERS)  scripted orders (O_*)
  vocab int64 (U, NKINDS)    where each unit's decisions are counted (kinds K_*)

Per battle (one set per battle in play; best-response rollouts copy it):
  pos float64 (U, 5)         middle of the front edge, facing, its cosine and sine
  st int64 (U, NST)          status and per-turn flags (ST_*)
  wounds int64 (U, MAXB)
  g int64 (NG)               program counter and pending work (G_*); gap float64 (1,)
  comb int64 (U, U + 1)      this phase's combats: count, members
  purs int64 (U, 16)         pursuits waiting: broken unit, chasers, choices, enemies
  hist int64 (T, U)          statuses at the end of each game turn
  kstate uint64 (8)          the battle's random stream (kernels.dice)
"""

from __future__ import annotations

import math

import numpy as np
from numba import errors, njit, types
from numba.experimental import structref
from numba.extending import intrinsic, models, register_model

from mathhammer.fantasy.kernels.battle_geometry import BORROWING
from mathhammer.kernels.borrowed import _same_value, _Uncounted, borrowed
from mathhammer.kernels.dice import uniform

# ---- unit statuses (reported) and per-unit static columns ----------------------------------
HOLD, FLEE, FLED, DEAD = 0, 1, 2, 3
(UI_SIDE, UI_MODELS, UI_WIDTH, UI_M, UI_LD, UI_LARGE, UI_UNBREAKABLE, UI_POINTS, UI_NB,
 UI_GENERAL, UI_BSB, UI_STANDARD, UI_NOCHARGE, UI_RANGED, UI_MOVE_OR_FIRE, UI_GENERAL_BODY,
 UI_BSB_BODY, UI_MACHINE, UI_SIDE_INDEX, UI_FRENZY) = range(20)
NUI = 20
UF_BASE_W, UF_BASE_D, UF_RANGE = range(3)
NUF = 3
B_MODELS, B_W, B_COUNTS, B_ROLE = range(4)  # B_ROLE: ROLE_* (FB-B20 challenges)
ROLE_RANK_AND_FILE, ROLE_CHAMPION, ROLE_CHARACTER, ROLE_MOUNT = range(4)
# ---- per-unit state columns ------------------------------------------------------------------
(ST_STATUS, ST_MODELS, ST_CT, ST_CF, ST_CS, ST_FRESH, ST_CHARGED, ST_MOVED, ST_MARCHED,
 ST_FRENZIED, ST_BREATH, ST_STDLOST, ST_REACTED, ST_HOLDTURN, ST_PSM) = range(15)
ST_SILENCED = 15  # FB-WM2: the last game turn a misfire keeps a war machine from firing
# FB-B20: a challenge (battle/challenges.py's duel: body, foe unit, foe body, mode 0 none)
ST_DUEL_BODY, ST_DUEL_FOE, ST_DUEL_FB, ST_DUEL_MODE = range(16, 20)
ST_PURSUIT = 20  # FB-B22: reached an enemy in a pursuit or overrun: charged in the next turn
NST = 21
# ---- globals of one battle ---------------------------------------------------------------------
(G_TURN, G_SEAT, G_PHASE, G_INDEX, G_FIRST, G_DONE, G_PU, G_PT, G_PFACE, G_PSIDE, G_NCOMB,
 G_NPURS) = range(12)
# FB-B20: the challenge decisions of the combat in hand (stage 0 none, 1 the other side
# issues, 2 the answer to G_CU's body G_CB at unit G_CV)
G_CSTAGE, G_CU, G_CB, G_CV = range(12, 16)
NG = 16
G_EXTRA = 16 + 64  # slots after the globals: the magic phase's (kernels.battle_magic.G_MAGIC),
# then each unit's augment or hex this turn (kernels.battle_spells.G_SPELL, FB-B30)
# ---- rules and settings ------------------------------------------------------------------------
(R_INSANE, R_RALLY_DOUBLE_ONE, R_GENERAL_ON, R_BSB_ON, R_SAS_MOVEMENT, R_SHOOT_RANKS,
 R_MARCH_MULT, R_TURNS, R_FIRST, R_POLICY_A, R_POLICY_B, R_ROLLOUTS, R_HALF_FAILED,
 R_MOD_LONG, R_MOD_MOVING, R_MOD_SAS, R_MOD_SOFT, R_MOD_HARD, R_MOD_LARGE, R_MAX_MARGIN,
 R_STANDARD_BONUS, R_GENERAL_BONUS, R_BSB_BONUS, R_BUCKETS, R_N_UNITS, R_BR_KINDS,
 R_RESTRAIN_TEST) = range(27)
NRI = 27
(F_TABLE_W, F_TABLE_D, F_MARCH_BLOCK, F_GENERAL_RANGE, F_BSB_RANGE, F_PANIC, F_DESTROYED,
 F_FLEEING_END, F_BELOW_QUARTER, F_DRAW_LIMIT) = range(10)
F_FRIEND_PANIC = 10  # FB-B21: friend broken or destroyed within this range: a panic test
NRF = 11
# ---- scripted orders -----------------------------------------------------------------------
O_CHARGE, O_REACTION, O_MOVE, O_SHOOT, O_PURSUE, O_CHALLENGE, O_ANSWER = range(7)
NORDERS = 7
ANY, NONE = -1, -2  # charge / shoot orders: the first (nearest) allowed, or none
# ---- decision kinds and policies ---------------------------------------------------------------
K_CHARGE, K_REACTION, K_MOVE, K_SHOOT, K_PURSUE, K_CHALLENGE, K_ANSWER = range(7)
NKINDS = 7
SCRIPTED, GREEDY, BEST_RESPONSE = range(3)
# ---- step results ------------------------------------------------------------------------------
OK, NEED, MISS = 0, -2, -3
MISS_FIGHT, MISS_VALUE, MISS_SHOT, MISS_CHALLENGE = 1, 2, 3, 4
# the probe pass (B.probe): on, misses queued, queue overflowed, this battle used a placeholder
P_ON, P_COUNT, P_OVERFLOW, P_TAINTED = range(4)
MAXQ = 1024  # misses one probe pass queues (rows of B.probe_q, each a copy of B.miss)
MAXB = 12  # wound pools per unit
MAXOPT = 16
GAP = 1.0  # FB-B5: 1" from an enemy after a normal move


# ---- the two structures every kernel function takes -----------------------------------------
# One object each (a numba StructRef): a function call passes one pointer, where a tuple of
# sixty arrays was copied field by field into every call (most of a step's time). Their array
# fields are borrowed views (:func:`borrowed`) of the arrays in their last field, ``keep``,
# which owns them: reading a field takes no reference count (an atomic add and subtract per
# read, a tenth of a best-response battle's time), and the structure keeps its memory alive.


@structref.register
class StateType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class State(structref.StructRefProxy):
    """One battle in play (see the module docstring)."""


STATE_FIELDS = ("pos", "ust", "wounds", "g", "gap", "comb", "purs", "hist", "kstate", "keep")
structref.define_proxy(State, StateType, list(STATE_FIELDS))


@structref.register
class BattleType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Battle(structref.StructRefProxy):
    """Everything a battle reads: the static arrays, the deployment, the tables, scratch."""


STATIC_FIELDS = ("ui", "uf", "bodies", "ch_range", "ch_move", "ch_cum", "ch_n", "fl_val",
                 "fl_cum", "fl_n", "sides", "nside", "ri", "rf", "terrain", "orders", "vocab")
DEPLOYMENT_FIELDS = ("pos0", "contact0", "fresh0")
# fg_block: each fight's index (G, TS, 6) into ``blocks``, the battle's one copy of each
# (N, W) block of wounds tables (kernels.combat.fight_round's g_sum: the pair (blocks, index))
TABLE_FIELDS = ("fu_int", "fb_int", "fg_int", "fg_key", "fg_slot", "fg_pref", "fg_block",
                "fg_fall", "fg_percdf", "fg_natt", "fe_pair", "fchal", "fp_ld", "fp_caught",
                "fp_instab", "f_order", "f_first", "f_once", "fights", "arrangements", "values",
                "shot_list", "shot_dict", "blocks")
SCRATCH_FIELDS = ("cp", "cq", "b1", "b2", "b3", "opt_i", "opt_f", "vals", "miss", "decisions",
                  "opt2_i", "opt2_f", "sr", "need", "first", "probe", "probe_q", "br_key",
                  "br_val", "cr", "crf")
BATTLE_FIELDS = STATIC_FIELDS + DEPLOYMENT_FIELDS + TABLE_FIELDS + SCRATCH_FIELDS + ("keep",)
structref.define_proxy(Battle, BattleType, list(BATTLE_FIELDS))


# The kernels take the two structures borrowed (:func:`borrow`): the entry points that Python
# calls (kernels.battle_play) hold the owned structures for the whole call, and pass on handles
# of the same layout that numba counts no references to — each call of a function with B and S
# had taken and dropped both counts (atomic adds: a fifth of a best-response battle's time).
class BorrowedStateType(StateType):
    """A :class:`StateType` handle that owns nothing (see :func:`borrow`)."""


class BorrowedBattleType(BattleType):
    """A :class:`BattleType` handle that owns nothing; its ``sr`` is a borrowed State too."""


class _BorrowedStructModel(_Uncounted, models.StructRefModel):
    """A structure's pointer, uncounted."""


register_model(BorrowedStateType)(_BorrowedStructModel)
register_model(BorrowedBattleType)(_BorrowedStructModel)


def _borrowed_type(typ):
    if isinstance(typ, (BorrowedStateType, BorrowedBattleType)):
        return typ
    if isinstance(typ, StateType):
        return BorrowedStateType(list(typ.field_dict.items()))
    if isinstance(typ, BattleType):
        return BorrowedBattleType([(name, _borrowed_type(t) if isinstance(t, StateType) else t)
                                   for name, t in typ.field_dict.items()])
    raise errors.TypingError(f"only a Battle or a State is borrowed, not {typ}")


@intrinsic
def borrow(typingctx, struct):
    """A handle of a Battle or State that owns nothing: only while the caller holds the
    structure itself (an entry point's argument), never stored or returned."""
    return _borrowed_type(struct)(struct), _same_value


def new_state(n_units: int, turns: int) -> State:
    """Zeroed arrays of one battle (see the module docstring)."""
    return make_state(np.zeros((n_units, 5)), np.zeros((n_units, NST), np.int64),
                      np.zeros((n_units, MAXB), np.int64), np.zeros(NG + G_EXTRA, np.int64),
                      np.zeros(1),
                      np.zeros((n_units, n_units + 1), np.int64),
                      np.zeros((n_units, 16), np.int64), np.zeros((turns, n_units), np.int64),
                      np.zeros(8, np.uint64))


@njit(cache=True)
def make_state(pos, st, wounds, g, gap, comb, purs, hist, kstate):
    return State(borrowed(pos), borrowed(st), borrowed(wounds), borrowed(g), borrowed(gap),
                 borrowed(comb), borrowed(purs), borrowed(hist), borrowed(kstate),
                 (pos, st, wounds, g, gap, comb, purs, hist, kstate))


@njit(**BORROWING)
def _copy1(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(**BORROWING)
def _copy2(dst, src):
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(cache=True, nogil=True, error_model="numpy")
def copy_state(src, dst):
    """dst = src, array by array (plain loops: numba's broadcast assignment ``a[...] = b``
    cost more than the copying on arrays this small)."""
    _copy2(dst.pos, src.pos)
    _copy2(dst.ust, src.ust)
    _copy2(dst.wounds, src.wounds)
    _copy1(dst.g, src.g)
    _copy1(dst.gap, src.gap)
    _copy2(dst.comb, src.comb)
    _copy2(dst.purs, src.purs)
    _copy2(dst.hist, src.hist)
    _copy1(dst.kstate, src.kstate)


@njit(**BORROWING)
def footprint(ui, uf, u, models):
    """FB-B1: (frontage, depth) in inches with ``models`` left (a war machine: its base)."""
    if ui[u, UI_MACHINE] >= 1:  # 1 a war machine, 2 one whose piece rolls to hit (FB-WM2)
        return uf[u, UF_BASE_W], uf[u, UF_BASE_D]
    n = models if models > 1 else 1
    width = ui[u, UI_WIDTH]
    files = n if n < width else width
    ranks = (n + width - 1) // width
    return files * uf[u, UF_BASE_W], ranks * uf[u, UF_BASE_D]


@njit(**BORROWING)
def box(ui, uf, pos, st, u, out):
    """out (7,): the unit's rectangle now (kernels.battle_geometry)."""
    w, d = footprint(ui, uf, u, st[u, ST_MODELS])
    out[0], out[1], out[2], out[3], out[4] = pos[u, 0], pos[u, 1], pos[u, 2], w, d
    out[5], out[6] = pos[u, 3], pos[u, 4]


@njit(**BORROWING)
def unit_centre(ui, uf, pos, st, u):
    w, d = footprint(ui, uf, u, st[u, ST_MODELS])
    return pos[u, 0] - pos[u, 3] * d / 2, pos[u, 1] - pos[u, 4] * d / 2


@njit(**BORROWING)
def face_to(pos, u, theta):
    """Set unit u's facing (and the cosine and sine kept with it)."""
    pos[u, 2], pos[u, 3], pos[u, 4] = theta, math.cos(theta), math.sin(theta)


@njit(**BORROWING)
def models_alive(bodies, ui, u, wounds):
    total = 0
    for b in range(ui[u, UI_NB]):
        if bodies[u, b, B_COUNTS] == 1:
            left = bodies[u, b, B_MODELS] - wounds[u, b] // bodies[u, b, B_W]
            if left > 0:
                total += left
    return total


@njit(**BORROWING)
def unit_alive(bodies, ui, u, wounds):
    for b in range(ui[u, UI_NB]):
        if wounds[u, b] < bodies[u, b, B_MODELS] * bodies[u, b, B_W]:
            return True
    return False


@njit(**BORROWING)
def body_alive(bodies, u, b, wounds):
    return wounds[u, b] < bodies[u, b, B_MODELS] * bodies[u, b, B_W]


@njit(**BORROWING)
def on_the_table(st, u):
    return st[u, ST_STATUS] == HOLD or st[u, ST_STATUS] == FLEE


@njit(**BORROWING)
def engaged(st, u):
    """In a combat: its front touches an enemy, or an enemy's front touches it."""
    if st[u, ST_STATUS] != HOLD:
        return False
    t = st[u, ST_CT]
    if t >= 0 and st[t, ST_STATUS] == HOLD:
        return True
    for v in range(st.shape[0]):
        if st[v, ST_CT] == u and st[v, ST_STATUS] == HOLD:
            return True
    return False


@njit(**BORROWING)
def clear_contacts(st, u):
    st[u, ST_CT] = -1
    for v in range(st.shape[0]):
        if st[v, ST_CT] == u:
            st[v, ST_CT] = -1


@njit(**BORROWING)
def tidy_contacts(st):
    for u in range(st.shape[0]):
        t = st[u, ST_CT]
        if t >= 0 and (st[u, ST_STATUS] != HOLD or st[t, ST_STATUS] != HOLD):
            st[u, ST_CT] = -1


@njit(cache=True, nogil=True, error_model="numpy")
def sample(values, cum, n, kstate):
    """A draw from a table of (value, cumulative probability) of n entries."""
    r = uniform(kstate)
    for i in range(n):
        if r < cum[i]:
            return values[i]
    return values[n - 1]


@njit(cache=True, nogil=True, error_model="numpy")
def splitmix(x):
    x = (x + np.uint64(0x9E3779B97F4A7C15))
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31)), x


@njit(cache=True, nogil=True, error_model="numpy")
def seed_stream(words, index, out):
    """A stream of its own for battle (or rollout) ``index`` of the stream ``words``: four
    splitmix64 outputs of the words and the index (never all zero)."""
    x = words[0] ^ (words[1] * np.uint64(0x9E3779B97F4A7C15)) ^ words[2] ^ \
        (words[3] << np.uint64(1)) ^ (np.uint64(index) * np.uint64(0xD1B54A32D192ED03))
    for i in range(4):
        z, x = splitmix(x)
        out[i] = z
    if out[0] == 0 and out[1] == 0 and out[2] == 0 and out[3] == 0:
        out[0] = np.uint64(1)
    for i in range(4, 8):
        out[i] = np.uint64(0)


@njit(cache=True, nogil=True, error_model="numpy")
def missed(B):
    """A table is missing (``B.miss`` says which). Probing (``B.probe``), the miss is queued
    once and the battle plays on with a placeholder — it is marked tainted, never counted, and
    played again once every queued table is built — so one pass finds the misses of the whole
    battle, rollouts included (True); else the caller stops with MISS (False)."""
    probe, queue, miss = B.probe, B.probe_q, B.miss
    if probe[P_ON] == 0:
        return False
    probe[P_TAINTED] = 1
    for k in range(probe[P_COUNT]):
        same = True
        for i in range(queue.shape[1]):
            if queue[k, i] != miss[i]:
                same = False
                break
        if same:
            return True
    if probe[P_COUNT] < queue.shape[0]:
        queue[probe[P_COUNT], :] = miss
        probe[P_COUNT] += 1
    else:  # the rest waits for the next pass
        probe[P_OVERFLOW] = 1
    return True


@njit(cache=True)
def make_battle(ui, uf, bodies, ch_range, ch_move, ch_cum, ch_n, fl_val, fl_cum, fl_n, sides,
               nside, ri, rf, terrain, orders, vocab, pos0, contact0, fresh0, fu_int, fb_int,
               fg_int, fg_key, fg_slot, fg_pref, fg_block, fg_fall, fg_percdf, fg_natt, fe_pair,
               fchal, fp_ld, fp_caught, fp_instab, f_order, f_first, f_once, fights,
               arrangements, values, shot_list, shot_dict, blocks, cp, cq, b1, b2, b3, opt_i, opt_f,
               vals, miss, decisions, opt2_i, opt2_f, sr, need, first, probe, probe_q, br_key,
               br_val, cr, crf):
    """The Battle of these fields (a cached constructor: no compile per run)."""
    b = borrowed
    keep = (ui, uf, bodies, ch_range, ch_move, ch_cum, ch_n, fl_val, fl_cum, fl_n, sides, nside,
            ri, rf, terrain, orders, vocab, pos0, contact0, fresh0, values, cp, cq, b1, b2, b3,
            opt_i, opt_f, vals, miss, decisions, opt2_i, opt2_f, need, first, probe, probe_q,
            br_key, br_val, cr, crf)
    return Battle(b(ui), b(uf), b(bodies), b(ch_range), b(ch_move), b(ch_cum), b(ch_n),
                  b(fl_val), b(fl_cum), b(fl_n), b(sides), b(nside), b(ri), b(rf), b(terrain),
                  b(orders), b(vocab), b(pos0), b(contact0), b(fresh0),
                  fu_int, fb_int, fg_int, fg_key, fg_slot, fg_pref, fg_block, fg_fall,
                  fg_percdf, fg_natt, fe_pair, fchal, fp_ld, fp_caught, fp_instab, f_order,
                  f_first, f_once, fights, arrangements, b(values), shot_list, shot_dict, blocks,
                  b(cp),
                  b(cq), b(b1), b(b2), b(b3), b(opt_i), b(opt_f), b(vals), b(miss),
                  b(decisions), b(opt2_i), b(opt2_f), sr, b(need), b(first), b(probe),
                  b(probe_q), b(br_key), b(br_val), b(cr), b(crf), keep)
