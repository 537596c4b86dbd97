"""The greedy general's one-step values inside the battle kernel (FB-B10).

The same values as :mod:`mathhammer.fantasy.battle.values` (its docstring): a combat's
value is looked up in the run's table of exact one-round values (built by Python on a
miss: :func:`mathhammer.fantasy.battle.values.combat_value`), a charge's reach comes from
the charge dice, a volley's mean from the shooting table, a move's from where it leaves the
unit (played on the state itself, the unit put back after). Every function returns
``(value, status)``.
"""

from __future__ import annotations

import math

from numba import njit

from mathhammer.fantasy.kernels.battle_actions import (
    OI_CODE,
    OI_COVER,
    OI_FACE,
    OI_SIDE,
    OI_TARGET,
    apply_move,
    shoot_options,
    shot_table,
)
from mathhammer.fantasy.kernels.battle_challenge import answer_options
from mathhammer.fantasy.kernels.battle_geometry import (
    BORROWING,
    EDGE,
    FRONT,
    apart,
    arc,
    centre,
    face_segment,
    radius,
    segment_distance,
)
from mathhammer.fantasy.kernels.battle_state import (
    F_MARCH_BLOCK,
    HOLD,
    K_ANSWER,
    MISS,
    MISS_CHALLENGE,
    MISS_VALUE,
    OK,
    R_BUCKETS,
    R_INSANE,
    R_MARCH_MULT,
    ST_CF,
    ST_CHARGED,
    ST_CT,
    ST_FRESH,
    ST_MARCHED,
    ST_MODELS,
    ST_MOVED,
    ST_STATUS,
    UI_LD,
    UI_M,
    UI_MACHINE,
    UI_MODELS,
    UI_POINTS,
    UI_SIDE,
    box,
    engaged,
    missed,
)
from mathhammer.fantasy.kernels.battle_tables import value_of
from mathhammer.kernels.borrowed import window

APPROACH = 0.5  # FB-B10: weight of the pull towards favoured pairings (values.py)
APPROACH_RANGE = 48.0  # inches at which the pull starts


@njit(**BORROWING)
def bucket(full, models, buckets):
    """FB-B10: the models a value is worked out for (rounded up to quarters of the unit)."""
    if full <= buckets or models <= 0:
        return models if models > 1 else 1
    step = full / buckets
    value = int(math.ceil(math.ceil(models / step) * step))
    return min(full, max(1, value))


@njit(**BORROWING)
def value_code(u, t, face, charged, mu, mt):
    return ((((u * 64 + t) * 4 + face) * 2 + charged) * 256 + mu) * 256 + mt


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def combat_value_at(table, u, t, face, charged, mu, mt):
    """(u's side's expected VP swing of one round of u against t, True) from the table of
    values (B.values: kernels.battle_tables.value_row), worked out for mu and mt models
    (:func:`bucket`); (0, False) when its value is not built yet (value_missed records it)."""
    return value_of(table, value_code(u, t, face, charged, mu, mt))


@njit(cache=True, nogil=True, error_model="numpy")
def value_missed(B, u, t, face, charged, mu, mt):
    """The value of the round of u against t is not built: recorded in B.miss; (0, OK) in a
    probe pass (the placeholder: a worthless round), else (0, MISS)."""
    miss = B.miss
    miss[:] = -1
    miss[0], miss[1], miss[2], miss[3] = MISS_VALUE, u, t, face
    miss[4], miss[5], miss[6] = charged, mu, mt
    if missed(B):
        return 0.0, OK
    return 0.0, MISS


@njit(cache=True, nogil=True, error_model="numpy")
def combat_value(B, S, u, t, face, charged):
    """u's side's expected VP swing of one round of u against t (a table lookup)."""
    ui, st, buckets = B.ui, S.ust, B.ri[R_BUCKETS]
    mu = bucket(ui[u, UI_MODELS], st[u, ST_MODELS], buckets)
    mt = bucket(ui[t, UI_MODELS], st[t, ST_MODELS], buckets)
    value, found = combat_value_at(B.values, u, t, face, charged, mu, mt)
    if not found:
        return value_missed(B, u, t, face, charged, mu, mt)
    return value, OK


@njit(cache=True, nogil=True, error_model="numpy")
def p_reach(B, u, gap):
    return p_reach_at(B.ch_range, B.ch_cum, B.ch_n, u, gap)


@njit(**BORROWING)
def p_reach_at(ch_range, ch_cum, ch_n, u, gap):
    """P(u's charge reaches ``gap``), on the charge arrays read once by the caller."""
    below = 0.0
    for k in range(ch_n[u]):
        if ch_range[u, k] >= gap - 1e-9:
            return 1.0 - below
        below = ch_cum[u, k]
    return 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def p_rally(B, u):
    """FB-T2: P(2D6 ≤ Ld), a double 1 passing with Insane Courage (no re-roll)."""
    ui, ri = B.ui, B.ri
    ld = ui[u, UI_LD]
    passes = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a + b <= ld or (a == 1 and b == 1 and ri[R_INSANE] == 1):
                passes += 1
    return passes / 36.0


@njit(cache=True, nogil=True, error_model="numpy")
def volley_value(B, S, u, t, gap, cover, stand_and_shoot):
    """Expected unsaved wounds × t's points per wound."""
    ui, bodies = B.ui, B.bodies
    index = shot_table(B, S, u, t, gap, cover, stand_and_shoot)
    if index == MISS:
        return 0.0, MISS
    if index < 0:
        return 0.0, OK
    cum = B.shot_list[index]
    room = bodies[t, 0, 0] * bodies[t, 0, 1] - S.wounds[t, 0]  # wounds the rank and file can take
    mean, prev = 0.0, 0.0
    last = cum.shape[0] - 2 if ui[u, UI_MACHINE] >= 1 else cum.shape[0]  # FB-WM2: misfires
    for k in range(last):
        mean += min(k, room) * (cum[k] - prev)
        prev = cum[k]
    total = 0
    for b in range(bodies.shape[1]):
        total += bodies[t, b, 0] * bodies[t, b, 1]
    return mean * ui[t, UI_POINTS] / max(total, 1), OK


@njit(cache=True, nogil=True, error_model="numpy")
def charge_value(B, S, u, t, face, gap):
    value, status = combat_value(B, S, u, t, face, 1)
    return p_reach(B, u, gap) * value, status


@njit(cache=True, nogil=True, error_model="numpy")
def reaction_value(B, S, charger, t, gap, face, code):
    """The charged unit's side's value of holding (0), fleeing (1), standing and shooting (2)."""
    ui, fl_val, fl_cum, fl_n = B.ui, B.fl_val, B.fl_cum, B.fl_n
    if code == 1:
        caught, prev = 0.0, 0.0
        for k in range(fl_n[t]):
            caught += (fl_cum[t, k] - prev) * p_reach(B, charger, gap + fl_val[t, k])
            prev = fl_cum[t, k]
        points = ui[t, UI_POINTS]
        return -(caught * points + (1 - caught) * points * (1 - p_rally(B, t))), OK
    value, status = combat_value(B, S, charger, t, face, 1)
    if status == MISS:
        return 0.0, MISS
    hold = -p_reach(B, charger, gap) * value
    if code == 2:
        extra, status = volley_value(B, S, t, charger, gap, 0, True)
        if status == MISS:
            return 0.0, MISS
        hold += extra
    return hold, OK


@njit(**BORROWING)
def _reach_at(ch_range, ch_cum, ch_n, ui, u, me, them, mx, my, tx, ty, r_me, r_them):
    """The chance u's charge reaches ``them`` from ``me`` (their middles and radii given):
    now when ``them`` is in u's front arc, else half the chance of a turn and a move later
    (FB-B10; values._reach)."""
    n = ch_n[u]
    move = ui[u, UI_M]
    # farther apart than its longest charge (the last: the rolls are sorted, plan.py's
    # _charge_table, as p_reach_at reads them) after a move: neither chance can be above 0
    if n == 0 or (move >= 0 and apart(mx - tx, my - ty, r_me, r_them,
                                      ch_range[u, n - 1] + move + 1e-9 + EDGE)):
        return 0.0
    face, fside = arc(them, mx, my)
    a0x, a0y, a1x, a1y, _a, _b, _c, _d = face_segment(me, FRONT, 1)
    c0x, c0y, c1x, c1y, _e, _f, _g, _h = face_segment(them,
                                                      face, fside)
    gap = segment_distance(a0x, a0y, a1x, a1y, c0x, c0y, c1x, c1y)
    f2, _s2 = arc(me, tx, ty)
    now = p_reach_at(ch_range, ch_cum, ch_n, u, gap) if f2 == FRONT else 0.0
    later = 0.5 * p_reach_at(ch_range, ch_cum, ch_n, u, gap - ui[u, UI_M])
    return max(now, later)


#: B.crf per enemy (enemies_of): 1 if it can be charged (holding, not in a combat), its box
#: (7), middle (2), radius, models' bucket
ENEMY_ITEMS = 12


@njit(cache=True, nogil=True, error_model="numpy")
def enemies_of(B, S, u):
    """What :func:`threat` reads of u's enemies, into B.crf once for all the moves a decision
    weighs: a move changes only u (apply_move), so each option's value reads the same."""
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    buckets, cache = B.ri[R_BUCKETS], B.crf
    e = 1 - ui[u, UI_SIDE]
    for i in range(nside[e]):
        t = sides[e, i]
        at = i * ENEMY_ITEMS
        if st[t, ST_STATUS] != HOLD or engaged(st, t):
            cache[at] = 0.0
            continue
        cache[at] = 1.0
        them = window(cache, at + 1, 7)
        box(ui, uf, pos, st, t, them)
        cache[at + 8], cache[at + 9] = centre(them)
        cache[at + 10] = radius(them[3], them[4])
        cache[at + 11] = bucket(ui[t, UI_MODELS], st[t, ST_MODELS], buckets)


@njit(cache=True, nogil=True, error_model="numpy")
def threat(B, S, u):
    """u's side's value of where u stands: the charges it threatens minus the enemy's, and
    the pull of the pairings it is favoured in (APPROACH; see values.threat). The enemies as
    :func:`enemies_of` left them in B.crf."""
    ui, uf, sides, nside = B.ui, B.uf, B.sides, B.nside
    pos, st = S.pos, S.ust
    me, cache = B.b1, B.crf  # the look-ahead's box (a move value's best_volley boxes afresh)
    # every array read once here (each read of a field is a reference count taken and
    # dropped)
    table, buckets = B.values, B.ri[R_BUCKETS]
    ch_range, ch_cum, ch_n = B.ch_range, B.ch_cum, B.ch_n
    box(ui, uf, pos, st, u, me)
    mx, my = centre(me)
    r_me = radius(me[3], me[4])
    total = 0.0
    e = 1 - ui[u, UI_SIDE]
    m_u = bucket(ui[u, UI_MODELS], st[u, ST_MODELS], buckets)  # once: the same for every t
    for i in range(nside[e]):
        at = i * ENEMY_ITEMS
        if cache[at] == 0.0:  # fleeing, gone or in a combat
            continue
        t = sides[e, i]
        them = window(cache, at + 1, 7)
        tx, ty = cache[at + 8], cache[at + 9]
        f_at, _s = arc(them, mx, my)
        m_t = int(cache[at + 11])
        gain, found = combat_value_at(table, u, t, f_at, 1, m_u, m_t)
        if not found:
            gain, status = value_missed(B, u, t, f_at, 1, m_u, m_t)
            if status == MISS:
                return 0.0, MISS
        f_me, _s = arc(me, tx, ty)
        loss, found = combat_value_at(table, t, u, f_me, 1, m_t, m_u)
        if not found:
            loss, status = value_missed(B, t, u, f_me, 1, m_t, m_u)
            if status == MISS:
                return 0.0, MISS
        dx, dy = tx - mx, ty - my
        if dx * dx + dy * dy < (APPROACH_RANGE + EDGE) * (APPROACH_RANGE + EDGE):  # else none
            closeness = 1.0 - math.hypot(dx, dy) / APPROACH_RANGE
            if closeness > 0:
                total += APPROACH * (gain - loss) / 2 * closeness
        r_them = cache[at + 10]
        if apart(mx - tx, my - ty, r_me, r_them, 30.0):
            continue
        if gain > 0:
            total += gain * _reach_at(ch_range, ch_cum, ch_n, ui, u, me, them, mx, my, tx, ty,
                                      r_me, r_them)
        if loss > 0:
            total -= loss * _reach_at(ch_range, ch_cum, ch_n, ui, t, them, me, tx, ty, mx, my,
                                      r_them, r_me)
    return total, OK


@njit(cache=True, nogil=True, error_model="numpy")
def best_volley(B, S, u):
    oi, of = B.opt2_i, B.opt2_f
    n = shoot_options(B, S, u, oi, of)
    best = 0.0
    for k in range(1, n):
        value, status = volley_value(B, S, u, oi[k, OI_TARGET], of[k, 0], oi[k, OI_COVER],
                                     False)
        if status == MISS:
            return 0.0, MISS
        if value > best:
            best = value
    return best, OK


@njit(cache=True, nogil=True, error_model="numpy")
def move_value(B, S, u, code, target):
    """Play the move on the state itself and value where it leaves the unit, then put the
    unit back: a move changes only its position and its moved / marched flags (apply_move),
    so this is the value of the move played on a copy of the state, without the copy."""
    ri, rf = B.ri, B.rf
    pos, st = S.pos, S.ust
    x, y, theta, cos, sin = pos[u, 0], pos[u, 1], pos[u, 2], pos[u, 3], pos[u, 4]
    moved, marched = st[u, ST_MOVED], st[u, ST_MARCHED]
    apply_move(B, S, u, code, target, rf[F_MARCH_BLOCK], ri[R_MARCH_MULT])
    value, status = threat(B, S, u)
    extra = 0.0
    if status != MISS:
        extra, status = best_volley(B, S, u)
    pos[u, 0], pos[u, 1], pos[u, 2], pos[u, 3], pos[u, 4] = x, y, theta, cos, sin
    st[u, ST_MOVED], st[u, ST_MARCHED] = moved, marched
    if status == MISS:
        return 0.0, MISS
    return value + extra, status


@njit(cache=True, nogil=True, error_model="numpy")
def option_values(B, S, kind, u, n, oi, of, out):
    """The greedy values of options 0..n-1 of a decision of ``kind`` into ``out``."""
    if kind >= 5:  # FB-B20: a challenge or its answer
        return challenge_values(B, S, kind, u, n, oi, out)
    if kind == 2:  # the enemies as every move's threat reads them
        enemies_of(B, S, u)
    for k in range(n):
        code, target = oi[k, OI_CODE], oi[k, OI_TARGET]
        status = OK
        value = 0.0
        if kind == 0:  # charge
            if code == 1:
                value, status = charge_value(B, S, u, target, oi[k, OI_FACE], of[k, 0])
        elif kind == 1:  # reaction: u is the charged unit, target the charger
            value, status = reaction_value(B, S, target, u, of[0, 0], oi[0, OI_FACE], code)
        elif kind == 2:  # move
            value, status = move_value(B, S, u, code, target)
        elif kind == 3:  # shoot
            if code == 1:
                value, status = volley_value(B, S, u, target, of[k, 0], oi[k, OI_COVER],
                                             False)
        else:  # pursue
            value = 1.0 if code == 0 else 0.0
        if status == MISS:
            return MISS
        out[k] = value
    return OK


@njit(**BORROWING)
def greedy_choice(values, n):
    """The best option; ties (and nothing better than option 0) go to the first listed."""
    best = 0
    for k in range(1, n):
        if values[k] > values[best] + 1e-12 and values[k] > values[0] + 1e-9:
            best = k
    return best


# ---- challenges (FB-B20; battle/challenges.py's greedy values) --------------------------------
@njit(cache=True, nogil=True, error_model="numpy")
def challenge_code(a, t, face, charged, ma, mt, ba, bt, issuer_is_a, mode):
    """A negative key (never a combat value's): the round of a against t with a challenge."""
    inner = ((ba * 12 + bt) * 2 + issuer_is_a) * 2 + (mode - 1)
    return -(value_code(a, t, face, charged, ma, mt) * 600 + inner) - 1


@njit(cache=True, nogil=True, error_model="numpy")
def _pair(S, u, v):
    """(a, b, face, a charged) of the fight of u and v (challenges._pair)."""
    st = S.ust
    u_on_v = st[u, ST_CT] == v
    v_on_u = st[v, ST_CT] == u
    v_charged = st[v, ST_CHARGED] == 1 and st[v, ST_FRESH] == 1
    if v_on_u and (not u_on_v or v_charged):
        return v, u, st[v, ST_CF], 1 if v_charged else 0
    face = st[u, ST_CF] if u_on_v else 0
    return u, v, face, 1 if (st[u, ST_CHARGED] == 1 and st[u, ST_FRESH] == 1) else 0


@njit(cache=True, nogil=True, error_model="numpy")
def challenge_value(B, S, u, b, v, vb, mode):
    """u's side's value of one round of u against v, u's body b challenging v's vb (mode 1
    accepted, 2 refused; 0 no challenge)."""
    ui, ri = B.ui, B.ri
    st = S.ust
    a, t, face, charged = _pair(S, u, v)
    sign = 1.0 if a == u else -1.0
    if mode == 0:
        value, status = combat_value(B, S, a, t, face, charged)
        return sign * value, status
    ma = bucket(ui[a, UI_MODELS], st[a, ST_MODELS], ri[R_BUCKETS])
    mt = bucket(ui[t, UI_MODELS], st[t, ST_MODELS], ri[R_BUCKETS])
    ba, bt = (b, vb) if a == u else (vb, b)
    issuer_is_a = 1 if a == u else 0
    code = challenge_code(a, t, face, charged, ma, mt, ba, bt, issuer_is_a, mode)
    value, found = value_of(B.values, code)
    if not found:
        miss = B.miss
        miss[:] = -1
        miss[0], miss[1], miss[2], miss[3], miss[4], miss[5] = MISS_CHALLENGE, a, t, face, charged, ma
        miss[6], miss[7], miss[8], miss[9], miss[10] = mt, ba, bt, issuer_is_a, mode
        if missed(B):
            return 0.0, OK
        return 0.0, MISS
    return sign * value, OK


@njit(cache=True, nogil=True, error_model="numpy")
def challenge_values(B, S, kind, u, n, oi, out):
    """Greedy's values of a challenge (worth its worst answer) or an answer (minus the
    issuer's value of it)."""
    if kind == K_ANSWER:
        for k in range(n):
            value, status = challenge_value(B, S, oi[k, OI_TARGET], oi[k, OI_FACE], u,
                                            oi[k, OI_SIDE], oi[k, OI_CODE])
            if status == MISS:
                return MISS
            out[k] = -value
        return OK
    answers = B.opt2_i
    for k in range(n):
        v = oi[k, OI_TARGET]
        if oi[k, OI_CODE] == 0:
            value, status = challenge_value(B, S, u, 0, v, 0, 0)
            if status == MISS:
                return MISS
            out[k] = value
            continue
        m = answer_options(B, S, u, oi[k, OI_FACE], v, answers)
        worst = 1e300
        for j in range(m):
            value, status = challenge_value(B, S, u, oi[k, OI_FACE], v, answers[j, OI_SIDE],
                                            answers[j, OI_CODE])
            if status == MISS:
                return MISS
            worst = min(worst, value)
        out[k] = worst
    return OK
