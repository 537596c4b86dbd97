"""Augments and hexes in a battle (FB-B30): a spell that changes a unit's characteristics.

A spell of ``kind = "augment"`` (a friendly unit) or ``"hex"`` (an enemy unit) carries
``modifiers`` — added to the close-combat characteristics WS, S, T, I, A of the target's
rank and file, champion and characters (each kept within its range: WS and A 0..10, S, T, I
1..10) for the rest of the player turn: the combat phase that follows fights the unit with
its modified profile. A unit carries one such spell at a time. Its targets: units of the
spell's side holding and in combat (the only phase it changes this turn), within range of
the wizard's unit (no arc or sight: FB-B30's reading).

The fight tables are keyed by the units' contents, so a modified unit is a new content:
:mod:`.fights` adds each unit's spell to its arrangement's key; the kernel adds it to the
fight's code (:func:`mathhammer.fantasy.kernels.battle_spells.effects_code`) and to the
miss row (:data:`mathhammer.fantasy.kernels.battle_spells.MISS_EFFECTS`), from which
:class:`~.compile.KernelBattle` compiles the modified sides. Greedy values a spell on t by
the exact one-round combat value (values.py) of t against each enemy in contact with it,
with and without the modifiers (:func:`effect_values`, once per plan).
"""

from __future__ import annotations

from dataclasses import replace

from mathhammer.fantasy.battle.state import HOLD

AUGMENT, HEX = "augment", "hex"
EFFECT_KINDS = (AUGMENT, HEX)
#: each characteristic's range after a modifier (models.Stats)
LIMITS = {"ws": (0, 10), "s": (1, 10), "t": (1, 10), "i": (1, 10), "a": (0, 10)}


def _magic(plan):
    """The plan's magic (magic.magic_of built it before any spell could go off; read here
    without importing the magic phase, which imports this module)."""
    return plan.magic


def is_effect(spell) -> bool:
    return spell.kind in EFFECT_KINDS


def _clamp(key: str, value: int) -> int:
    low, high = LIMITS[key]
    return max(low, min(high, value))


def modified_profile(profile, modifiers: dict):
    """The profile with the modifiers added to its stat line and its champion's own keys."""
    stats = profile.stats.model_copy(update={k: _clamp(k, getattr(profile.stats, k) + v)
                                             for k, v in modifiers.items()})
    update = {"stats": stats}
    champion = getattr(profile, "champion", None)
    if champion is not None:
        own = {k: _clamp(k, getattr(champion, k) + v) for k, v in modifiers.items()
               if getattr(champion, k, None) is not None}
        if own:
            update["champion"] = champion.model_copy(update=own)
    return profile.model_copy(update=update)


def modified_side(side, modifiers: dict):
    """A combat side (combat.compile.Side) under the spell: its unit and its characters."""
    return replace(side, unit=modified_profile(side.unit, modifiers),
                   characters=tuple(replace(c, profile=modified_profile(c.profile, modifiers))
                                    for c in side.characters))


def effect_side(plan, u: int, row: int):
    """Unit u's combat side under spell ``row`` of the plan's magic (cached in the plan)."""
    cache = plan.__dict__.setdefault("_effect_sides", {})
    side = cache.get((u, row))
    if side is None:
        spell = _magic(plan).rows[row].spell
        side = cache[(u, row)] = modified_side(plan.units[u].combat_side, dict(spell.modifiers))
    return side


def modifiers_key(plan, row: int) -> tuple:
    """What a compiled fight of a unit under spell ``row`` depends on beyond the unit."""
    if row < 0:
        return ()
    return tuple(sorted(_magic(plan).rows[row].spell.modifiers.items()))


def side_in_fight(plan, state, u: int):
    """Unit u's combat side as the combat phase fights it (its spell this turn, if any)."""
    row = state.spell_on[u]
    return plan.units[u].combat_side if row < 0 else effect_side(plan, u, row)


def effect_values(plan, row: int, t: int) -> tuple[float, ...]:
    """Per enemy e of t: what the spell of ``row`` on t is worth to the caster's side in VP
    if t fights e — the exact one-round combat value of t against e's front (both at full
    strength, nobody charging; combat_values.exact_round_value) with the modifiers, less
    without; a hex's the negative. Zero for units that are not t's enemies. Cached in the plan."""
    from mathhammer.fantasy.battle.combat_values import exact_round_value
    from mathhammer.fantasy.battle.table import FRONT

    cache = plan.__dict__.setdefault("_effect_values", {})
    key = (row, t)
    values = cache.get(key)
    if values is not None:
        return values
    mp = _magic(plan)
    spell = mp.rows[row].spell
    sign = 1.0 if spell.kind == AUGMENT else -1.0
    units = list(plan.units)
    units[t] = replace(units[t], combat_side=effect_side(plan, t, row))
    modified = _PlanView(plan, tuple(units))
    out = []
    for e, unit in enumerate(plan.units):
        if unit.side == plan.units[t].side:
            out.append(0.0)
            continue
        plain = exact_round_value(plan, t, e, FRONT, False, plan.units[t].models, unit.models)
        under = exact_round_value(modified, t, e, FRONT, False, plan.units[t].models,
                                  unit.models)
        out.append(sign * (under - plain))
    values = cache[key] = tuple(out)
    return values


class _PlanView:
    """The plan as combat_values.exact_round_value reads it (units and rules), with other
    units."""

    def __init__(self, plan, units):
        self.units = units
        self.rules = plan.rules


def effect_value(plan, state, row: int, t: int) -> float:
    """Greedy's value of the spell on t now (FB-B30): the sum of :func:`effect_values` over
    the enemies in contact with t (in unit order), never below 0; 0 when t is not holding in
    a combat or carries another spell (its own: what keeping it is worth, FB-B31)."""
    if state.status[t] != HOLD or state.spell_on[t] not in (-1, row):
        return 0.0
    enemies = sorted(state.enemies_in_contact(t))
    if not enemies:
        return 0.0
    values = effect_values(plan, row, t)
    total = 0.0
    for e in enemies:
        total += values[e]
    return max(0.0, total)


def effect_targets(plan, state, u: int, spell) -> list[tuple[int, float]]:
    """Units a spell from unit u may target (FB-B30): the wizard's side (augment) or the
    enemy's (hex), holding, in combat, carrying no spell yet, within range (0 for u)."""
    from mathhammer.fantasy.battle.table import distance

    side = plan.units[u].side if spell.kind == AUGMENT else 1 - plan.units[u].side
    me = state.box(plan, u)
    out = []
    for t in plan.sides[side]:
        if state.status[t] != HOLD or state.spell_on[t] >= 0 or not state.engaged(t):
            continue
        gap = 0.0 if t == u else distance(me, state.box(plan, t))
        if gap <= spell.range:
            out.append((t, gap))
    return out


def new_phase(plan, state) -> None:
    """A new magic phase: last turn's spells are over (FB-B30: for the player turn), but one
    that remains in play while its caster lives (FB-B31: a slain caster's ends now) and its
    unit is on the table."""
    mp = _magic(plan)
    for t, row in enumerate(state.spell_on):
        if row < 0:
            continue
        c = mp.casters[mp.rows[row].caster]
        # slain: wounded to death, or his unit caught or fled off the table; a spell on a unit
        # no longer on the table ends too (nothing left to dispel)
        if not (mp.rows[row].spell.remains_in_play and state.on_table(c.unit)
                and plan.body_alive(c.unit, c.body, state.wounds[c.unit])
                and state.on_table(t)):
            state.spell_on[t] = -1


def rows_in_play(state) -> set[int]:
    return {row for row in state.spell_on if row >= 0}


def next_in_play(plan, state, side: int, tried) -> int:
    """FB-B31: the next unit (in unit order) carrying a spell of ``side``'s that remains in
    play, from an earlier phase, that the other side has not tried to dispel this phase
    (a spell cast this phase is marked tried: its dispel was at its cast), or -1."""
    rows = _magic(plan).rows
    for t, row in enumerate(state.spell_on):
        if row >= 0 and not tried[t] and rows[row].side == side \
                and rows[row].spell.remains_in_play:
            return t
    return -1


def goes_off(state, row: int, t: int) -> None:
    if state.status[t] == HOLD:
        state.spell_on[t] = row
