"""Greedy's values of challenges (FB-B10, FB-B20): one exact round of the two units with the
challenge issued and accepted or refused, by the combat engine (:mod:`.values`). Apart from
:mod:`.challenges` so that the turn sequence's modules never import the values' modules."""

from __future__ import annotations

from mathhammer.fantasy.battle.actions import Option
from mathhammer.fantasy.battle.challenges import answer_options
from mathhammer.fantasy.battle.state import BattleState


def _pair(state: BattleState, u: int, v: int):
    """(unit a, unit b, face of b that a touches, a charged) for the fight of u and v, a the
    one whose contact is the other (the charger first when both touch fronts)."""
    cu, cv = state.contact[u], state.contact[v]
    u_on_v = cu is not None and cu[0] == v
    v_on_u = cv is not None and cv[0] == u
    if v_on_u and (not u_on_v or (state.charged[v] and state.fresh[v])):
        return v, u, cv[1], bool(state.charged[v] and state.fresh[v])
    face = cu[1] if u_on_v else 0
    return u, v, face, bool(state.charged[u] and state.fresh[u])


def challenge_value(plan, state: BattleState, u: int, b: int, v: int, vb: int, mode: int) -> float:
    """u's side's value of one round of u against v with u's model b challenging v's vb
    (mode 1 accepted, 2 refused, vb stepping back; 0: no challenge)."""
    from mathhammer.fantasy.battle.values import bucket, combat_value

    a, t, face, charged = _pair(state, u, v)
    sign = 1.0 if a == u else -1.0
    if mode == 0:
        return sign * combat_value(plan, state, a, t, face, charged)
    ma, mt = bucket(plan, a, state.models[a]), bucket(plan, t, state.models[t])
    ba, bt = (b, vb) if a == u else (vb, b)
    key = ("challenge", a, t, face, charged, ma, mt, ba, bt, int(a == u), mode)
    value = plan.value_cache.get(key)
    if value is None:
        value = plan.value_cache[key] = exact_challenge_value(plan, a, t, face, charged, ma, mt,
                                                              ba, bt, int(a == u), mode)
    return sign * value


def exact_challenge_value(plan, a, t, face, charged, ma, mt, ba, bt, issuer_is_a, mode) -> float:
    """a's side's value of one exact round of a (on t's ``face``) against t, with the
    challenge of ``ba`` (a's body) and ``bt`` (t's) — the issuer a's when ``issuer_is_a``."""
    from mathhammer.fantasy.battle.combat_values import exact_round_value
    from mathhammer.fantasy.combat.fight import ChallengeSpec

    names_a, names_t = plan.units[a].bodies, plan.units[t].bodies
    if issuer_is_a:
        spec = ChallengeSpec("a", names_a[ba][0], "accept" if mode == 1 else "refuse",
                             names_t[bt][0])
    else:
        spec = ChallengeSpec("b", names_t[bt][0], "accept" if mode == 1 else "refuse",
                             names_a[ba][0])
    return exact_round_value(plan, a, t, face, charged, ma, mt, challenge=spec)


def greedy_values(plan, state: BattleState, kind: str, options: list[Option]) -> list[float]:
    """The deciding side's values: a challenge option is worth its worst answer; an answer
    is worth minus the issuer's value of it."""
    if kind == "answer":
        u = options[0].target
        return [-challenge_value(plan, state, u, o.extra[0], o.unit, o.extra[1], o.extra[2])
                for o in options]
    out = []
    for o in options:
        if o.extra is None:
            out.append(challenge_value(plan, state, o.unit, 0, o.target, 0, 0))
            continue
        answers = answer_options(plan, state, o.unit, o.extra[0], o.target)
        out.append(min(challenge_value(plan, state, o.unit, o.extra[0], o.target, x.extra[1],
                                       x.extra[2]) for x in answers))
    return out
