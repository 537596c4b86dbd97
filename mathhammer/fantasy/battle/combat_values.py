"""A pairing's exact one-round combat value (FB-B10), below the battle's phases.

What the greedy general's values (:mod:`.values`) and the spells' values (:mod:`.spell_effects`,
read by the magic phase) are built on: u's side's expected VP from one round of u against t by
the combat engine's exact round, played by its jitted copy. It reads the plan's units only —
no battle state and no phase — so the magic phase may value a spell by it without importing
the phases that play the battle.
"""

from __future__ import annotations

from dataclasses import replace

from mathhammer.fantasy.battle.table import FACE_NAMES


def vp_per_wound(plan, u: int) -> float:
    total = sum(models * w for _n, _r, models, w in plan.units[u].bodies)
    return plan.units[u].points / max(total, 1)


def p_rally(plan, u: int) -> float:
    from mathhammer.fantasy.characteristic_tests import leadership_test

    return float(leadership_test(plan.units[u].ld, plan.rules))


def exact_round_value(plan, u, t, face, charged, models_u, models_t, challenge=None) -> float:
    from mathhammer.fantasy.combat.exact import exact_available, one_round_exact
    from mathhammer.fantasy.kernels import combat as k

    sides = []
    for v, position, models in ((u, FACE_NAMES[face], models_u), (t, "front", models_t)):
        side = plan.units[v].combat_side
        unit = _resized(plan, v, models) if models != side.unit.formation.models else side.unit
        sides.append(replace(side, unit=unit, position=position))
    if challenge is None:  # the pairing's fight, kept for its challenges' values too
        c, tables = _pairing_fight(plan, (u, t, face, charged, models_u, models_t), sides, charged)
    else:  # FB-B20: a challenge's value
        c, tables = _challenge_fight(plan, (u, t, face, charged, models_u, models_t), sides,
                                     charged, challenge)
    if exact_available(c, tables, 1) is not None:
        return 0.0  # a Killing Blow against multi-wound models: no exact round (then neutral)
    tally = one_round_exact(c, tables)  # the Python engine's round, jitted (~15x less CPU)
    uc = tally["unit_counts"]
    first_b = len(c.sides[0])
    value = 0.0
    for v, row, sign in ((t, first_b, 1.0), (u, 0, -1.0)):
        points = plan.units[v].points
        destroyed = uc[row, k.UC_DESTROYED]
        fled = uc[row, k.UC_BROKE] - uc[row, k.UC_CAUGHT]
        value += sign * points * (destroyed + fled * (1.0 - p_rally(plan, v)))
    dealt = float((tally["wounds_dealt"] * range(len(tally["wounds_dealt"]))).sum())
    taken = float((tally["wounds_taken"] * range(len(tally["wounds_taken"]))).sum())
    value += dealt * vp_per_wound(plan, t) * uc[first_b, k.UC_HOLDING]
    value -= taken * vp_per_wound(plan, u) * uc[0, k.UC_HOLDING]
    return float(value)


def _resized(plan, v: int, models: int):
    """Unit v's profile at ``models`` models (a size step: few a unit), validated once."""
    from mathhammer.fantasy.models import with_formation

    kept = plan.__dict__.setdefault("_resized", {})
    unit = kept.get((v, models))
    if unit is None:
        unit = kept[(v, models)] = with_formation(plan.units[v].combat_side.unit, models=models)
    return unit


#: pairings whose compiled fight is kept for their values and challenges' (see _pairing_fight)
PAIRING_FIGHTS_KEPT = 16


def _pairing_fight(plan, pairing: tuple, sides: list, charged: bool):
    """The pairing's fight without a challenge, compiled once and kept (the last
    ``PAIRING_FIGHTS_KEPT``): its value and each of its challenges' read it. Tables for
    one round from the start only (all a value reads)."""
    from collections import OrderedDict

    from mathhammer.fantasy.combat.fight import compile_fight

    kept = plan.__dict__.setdefault("_pairing_fights", OrderedDict())
    base = kept.get(pairing)
    if base is None:
        base = kept[pairing] = compile_fight((sides[0],), (sides[1],),
                                             charger="a" if charged else None, ruleset=plan.rules,
                                             first_round_only=True)
        if len(kept) > PAIRING_FIGHTS_KEPT:
            kept.popitem(last=False)
    else:
        kept.move_to_end(pairing)
    return base


def _challenge_fight(plan, pairing: tuple, sides: list, charged: bool, challenge):
    """The fight of a pairing with a challenge (FB-B20): its tables are the pairing's own but
    for the challenge row (compile_combat's ``challenge``, arrays' ``chal``), so the fight is
    compiled once for all the challenges of a pairing — each model, accepted or refused, which
    one probe pass asks for together — and copied with that row (~1/4 of a value's cost)."""
    import numpy as np

    from mathhammer.fantasy.combat.compile import _challenge

    c0, tables0 = _pairing_fight(plan, pairing, sides, charged)
    c = replace(c0, challenge=_challenge(challenge, c0.units, c0.bodies, c0.faces,
                                         c0.unit_sides, c0.rules))
    tables = replace(tables0, chal=np.array(c.challenge, np.int64))
    # the exact round's memo of what follows the blows (exact._after_strikes) reads no
    # challenge row — its key holds the refused model and the overkill — so it serves them all
    tables.__dict__["_after_strikes"] = tables0.__dict__.setdefault("_after_strikes", {})
    return c, tables
