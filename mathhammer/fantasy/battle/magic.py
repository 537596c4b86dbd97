"""The magic phase of a battle (FB-B3 step 5, FB-B12): pools, channel, casts, dispels, missiles.

The rules are the magic engine's (MG-1..MG-10, :mod:`mathhammer.magic.rolls`, exact tables);
the battle adds who casts what at whom (FB-B12). For the side whose turn it is, one step at a
time, every decision taken before that step's dice:

* **start** — when that side has a wizard able to cast (a character with a ``[wizard]``
  table, alive, its unit on the table and not fleeing): the flow and channel give both pools
  (MG-1..MG-3: :func:`~mathhammer.magic.rolls.flow_pools`, one draw from the exact joint
  table; channellers are the wizards of each side on the table and not fleeing);
* **cast** — the casting side's wizards in list order: a wizard picks one of its spells not
  yet tried this phase and a target (a magic missile: an enemy unit on the table, not in
  combat, in the wizard's unit's front arc, in sight and within the spell's range; a wizard
  whose unit is in combat or fleeing casts none), or no cast (it is done for the phase);
* **cast dice** — how many power dice (1 up to the ruleset's maximum, the pool and the
  phase's cap); the cast is rolled from :func:`~mathhammer.magic.rolls.cast_odds` (MG-4,
  MG-5: a failure ends that wizard's casting; wfb8 irresistible force goes off undispellable);
* **dispel** — the other side, for the unit the spell targets: no dispel or 1 up to its
  dice (MG-6; the level of its best wizard on the table that may still dispel);
* a spell that goes off hits the target: the spell's hits at its Strength through the wound
  chain onto the rank and file (as shooting, FB-B6: a character in the unit is not hit); a
  heal (``kind = "heal"``: a friendly unit holding, within range, short of wounds) gives
  back the wounds ``restores`` rolls to its rank and file;
  a unit that lost a quarter of its models in the phase tests for panic (FB-G4);
* an augment or hex (FB-B30, :mod:`.spell_effects`) changes a unit in combat for the player
  turn, or while it remains in play (FB-B31): the reactive side's dispel attempts at the
  active side's spells in play come first in its phase (:func:`dispel_in_play`), then the
  active side's at the reactive side's, with power dice (:func:`power_dispel_in_play`).

A miscast (MG-5: wfb8 irresistible force, t9a1 overwhelming power not dispelled) ends the
wizard's casting for the phase (MG-4 decision) and in t9a1 removes the dice used from the
pool (MG-10); the table's row plays what its data gives (``caster_hit_strength``: a hit on
the wizard; ``power_lost``: dice lost: wfb8's Detonation); other effects are not played.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mathhammer.fantasy.battle import spell_effects
from mathhammer.fantasy.battle.actions import (
    Option,
    clear_contacts,
    draw_index,
    enemies_within,
    land_wounds,
    seen,
)
from mathhammer.fantasy.battle.combat_values import vp_per_wound
from mathhammer.fantasy.battle.state import DEAD, HOLD, BattleState
from mathhammer.fantasy.battle.table import distance

CAST, CAST_DICE, DISPEL = "cast", "cast dice", "dispel"
HEAL = "heal"  # a spell's kind: a healing augment on a friendly unit (FB-B12)
MAGIC_KINDS = (CAST, CAST_DICE, DISPEL)
#: MG-9's "target" dice rule, the scripted caster's default: the fewest dice reaching this
SCRIPTED_CAST_TARGET = 0.75
#: the scripted dispeller's default (MG-9 all-out): the fewest dice reaching this, else all
SCRIPTED_DISPEL_CONFIDENCE = 0.85
FAIL, PLAIN, OVERWHELMING, IRRESISTIBLE = range(4)
# the battle's magic state (state.magic, a flat list: a copy is one list copy)
(M_POWER, M_DISPEL, M_POWER_USED, M_DISPEL_USED, M_ROW, M_TARGET, M_DICE, M_KIND, M_TOTAL,
 M_TRIED, M_DONE, M_NO_DISPEL, M_IN_PLAY_TRIED, M_POWER_DISPEL) = range(14)


@dataclass(frozen=True)
class Caster:
    """A wizard of the battle: the unit it is in and its wound pool there."""

    unit: int
    body: int
    side: int
    name: str
    level: int
    spells: tuple  # models.Spell
    profile: object = None  # the wizard's UnitProfile (its miscast hits, FB-B12)


@dataclass(frozen=True)
class SpellRow:
    """One spell of one wizard (rows in list order, each wizard's spells in file order)."""

    caster: int  # index in MagicPlan.casters
    spell: object  # models.Spell
    side: int
    unit: int


class MagicPlan:
    """The wizards and spells of a plan, and the exact tables the phase samples (cached)."""

    def __init__(self, plan):
        self.plan = plan
        rules = plan.rules
        self.rules = rules.magic
        casters: list[Caster] = []
        for u, unit in enumerate(plan.units):
            names = [b[0] for b in unit.bodies]
            members = [unit.profile] if unit.profile.role == "character" else []
            members += [c.profile for c in unit.combat_side.characters]
            taken: set[int] = set()
            for profile in members:
                # two characters of one name in a unit: their bodies in the same order
                body = next((i for i, name in enumerate(names)
                             if name == profile.name and i not in taken), 0)
                taken.add(body)
                if profile.wizard is not None:
                    casters.append(Caster(u, body, unit.side, profile.name,
                                          profile.wizard.level, profile.wizard.spells, profile))
        from mathhammer.magic.rules import NO_MAGIC

        self.played = bool(casters) and getattr(rules, "name", "") not in NO_MAGIC
        self.casters = tuple(casters) if self.played else ()
        self.rows = tuple(SpellRow(k, spell, c.side, c.unit)
                          for k, c in enumerate(self.casters) for spell in c.spells)
        self.flow_cache: dict = {}
        self.missile_cache: dict = {}
        self.miscast_cache: dict = {}

    # ---- exact tables ------------------------------------------------------------------------
    def flow_table(self, channel_active: int, channel_reactive: int):
        """((power, dispel) pairs, cumulative probabilities): MG-1..MG-3, exact."""
        key = (channel_active, channel_reactive)
        table = self.flow_cache.get(key)
        if table is None:
            from mathhammer.magic.rolls import flow_pools

            joint = flow_pools(self.rules, channel_active, channel_reactive)
            pairs = sorted(k for k, p in joint.items() if p)
            cum = np.cumsum([float(joint[k]) for k in pairs])
            cum[-1] = 1.0
            table = self.flow_cache[key] = (tuple(pairs), tuple(float(c) for c in cum))
        return table

    def cast_table(self, row: int, dice: int):
        """The cast's outcomes (kind, total, probability) with ``dice`` power dice (MG-4, MG-5)."""
        return _cast_outcomes(self.rules, dice, self.casters[self.rows[row].caster].level,
                              self.rows[row].spell.cv)

    def missile_cdf(self, row: int, t: int) -> tuple:
        """Cumulative P(k unsaved wounds) of the spell of ``row`` at unit t's rank and file
        (a heal: P(k wounds restored))."""
        spell = self.rows[row].spell
        if spell.kind == HEAL:
            key = ("heal", spell.restores)
        else:
            key = (spell.hits, spell.strength, spell.armour_piercing, spell.flaming, t)
        table = self.missile_cache.get(key)
        if table is None:
            table = self.missile_cache[key] = (heal_cdf(spell) if spell.kind == HEAL
                                               else missile_cdf(self.plan, spell, t))
        return table

    def miscast_table(self, k: int) -> tuple:
        """The miscast's effects on caster k played (FB-B12): ((wounds on the wizard, power
        dice lost), cumulative probability), exact — the 2D6 row (MG-10) with its
        ``caster_hit_strength`` through the wound chain and its ``power_lost`` dice."""
        table = self.miscast_cache.get(k)
        if table is None:
            table = self.miscast_cache[k] = miscast_outcomes(self.plan, self.casters[k])
        return table

    @cached_property
    def dispel_cap(self) -> int:
        return self.rules.dispel_dice_cap


def _cast_outcomes(rules, dice: int, level: int, cv: int) -> tuple:
    from mathhammer.magic.rolls import cast_odds

    odds = cast_odds(rules, dice, level, cv)
    out = [(FAIL, 0, float(odds.p_fail))]
    out += [(PLAIN, t, float(p)) for t, p in sorted(odds.plain.items())]
    out += [(OVERWHELMING, t, float(p)) for t, p in sorted(odds.overwhelming.items())]
    out.append((IRRESISTIBLE, 0, float(odds.p_irresistible_cast)))
    return tuple(o for o in out if o[2] > 0)


def miscast_outcomes(plan, caster: Caster) -> tuple:
    from mathhammer.dice import parse_dice
    from mathhammer.fantasy.chain.core import AttackSpec, single_attack_outcomes
    from mathhammer.fantasy.combat.target import target_parts

    joint: dict[tuple[int, int], float] = {}
    for total in range(2, 13):
        p_roll = (6 - abs(total - 7)) / 36
        row = next((r for r in plan.rules.magic.miscast_table if r.low <= total <= r.high), None)
        wounds = {0: 1.0}
        if row is not None and row.caster_hit_strength:
            part = target_parts(caster.profile, plan.rules)[0]
            spec = AttackSpec(strength=row.caster_hit_strength, toughness=part.t, auto_hit=True,
                              close_combat=False, save=part.armour, ward=part.ward,
                              regeneration=part.regeneration, target_wounds=part.w)
            per_hit, p_slay = single_attack_outcomes(spec, plan.rules)
            wounds = {w: float(q) for w, q in enumerate(per_hit) if q}
            if p_slay:
                wounds[part.w] = wounds.get(part.w, 0.0) + float(p_slay)
        lost = {0: 1.0}
        if row is not None and row.power_lost:
            lost = {d: float(q) for d, q in parse_dice(row.power_lost).pmf().items()}
        for w, pw in wounds.items():
            for d, pd in lost.items():
                joint[(w, d)] = joint.get((w, d), 0.0) + p_roll * pw * pd
    keys = sorted(k for k, q in joint.items() if q > 0)
    cum = np.cumsum([joint[k] for k in keys])
    cum[-1] = 1.0
    return tuple((w, d, float(c)) for (w, d), c in zip(keys, cum, strict=True))


def p_dispel(rules, dice: int, level: int, total: int) -> float:
    from mathhammer.magic.rolls import dispel_probability

    return float(dispel_probability(rules, dice, level, total)) if dice > 0 else 0.0


def heal_cdf(spell) -> tuple:
    from mathhammer.dice import parse_dice

    pmf = parse_dice(spell.restores).pmf()
    cum = np.cumsum([float(pmf.get(k, 0)) for k in range(max(pmf) + 1)])
    cum[-1] = 1.0
    return tuple(float(c) for c in cum)


def missile_cdf(plan, spell, t: int) -> tuple:
    """The spell's automatic hits through the wound chain (saves, ward, regeneration)."""
    from mathhammer.dice import parse_dice
    from mathhammer.fantasy.chain.core import AttackSpec, chain_distribution, single_attack_outcomes
    from mathhammer.fantasy.combat.target import target_parts

    part = target_parts(plan.units[t].profile, plan.rules)[0]
    spec = AttackSpec(strength=spell.strength, toughness=part.t, auto_hit=True,
                      close_combat=False, save=part.armour, ward=part.ward,
                      regeneration=part.regeneration, armour_piercing=spell.armour_piercing,
                      flaming=spell.flaming, target_wounds=part.w)
    per_attack, p_slay = single_attack_outcomes(spec, plan.rules)
    hits = {k: float(p) for k, p in parse_dice(spell.hits).pmf().items()}
    wounds = chain_distribution(np.asarray(per_attack, float), float(p_slay), hits, part.w)
    cum = np.cumsum(wounds)
    cum[-1] = 1.0
    return tuple(float(c) for c in cum)


def magic_of(plan) -> MagicPlan:
    magic = getattr(plan, "magic", None)
    if magic is None:
        magic = plan.magic = MagicPlan(plan)
    return magic


# ---- who may cast, dispel and channel ------------------------------------------------------------
def wizard_ready(plan, state: BattleState, c: Caster) -> bool:
    """Alive, its unit on the table and not fleeing (MG-2's channellers, FB-B12's dispellers)."""
    return state.status[c.unit] == HOLD and plan.body_alive(c.unit, c.body, state.wounds[c.unit])


def channellers(plan, state: BattleState, side: int) -> int:
    return sum(1 for c in magic_of(plan).casters if c.side == side and wizard_ready(plan, state, c))


def dispel_level(plan, state: BattleState, side: int) -> int:
    """MG-6: the level of the side's best wizard that may still dispel (0: the army)."""
    m = state.magic
    return max((c.level for k, c in enumerate(magic_of(plan).casters)
                if c.side == side and wizard_ready(plan, state, c) and not m[M_NO_DISPEL][k]),
               default=0)


def dispel_dice_left(plan, state: BattleState) -> int:
    mp = magic_of(plan)
    m = state.magic
    return max(0, min(m[M_DISPEL], mp.dispel_cap, mp.rules.max_dispel_used - m[M_DISPEL_USED]))


def power_dice_left(plan, state: BattleState) -> int:
    mp = magic_of(plan)
    m = state.magic
    return max(0, min(m[M_POWER], mp.rules.max_casting_dice,
                      mp.rules.max_power_used - m[M_POWER_USED]))


def can_cast(plan, state: BattleState, k: int) -> bool:
    """A wizard casts while alive, its unit holding and not in combat, and not done."""
    c = magic_of(plan).casters[k]
    return (not state.magic[M_DONE][k] and wizard_ready(plan, state, c)
            and not state.engaged(c.unit) and power_dice_left(plan, state) > 0)


def missile_targets(plan, state: BattleState, u: int, reach: float) -> list[tuple[int, float]]:
    """Enemies a magic missile from unit u may target: on the table, not in combat, in its
    front arc, in sight, within ``reach`` (FB-B12; as shooting's FB-B6 without cover)."""
    me = state.box(plan, u)
    eye = me.point(0.0, 0.0)
    out = []
    for t, target, gap in enemies_within(plan, state, u, reach):
        centre = target.centre()
        if not (me.in_front_arc(*centre) or any(me.in_front_arc(*c) for c in target.corners())):
            continue
        if seen(plan, state, u, t, eye, centre)[0]:
            out.append((t, gap))
    return out


def heal_targets(plan, state: BattleState, u: int, reach: float) -> list[tuple[int, float]]:
    """Friendly units a heal from unit u may target: holding, within ``reach``, their rank
    and file short of wounds (FB-B12: an augment needs no line of sight or arc)."""
    me = state.box(plan, u)
    out = []
    for t in plan.sides[plan.units[u].side]:
        if state.status[t] != HOLD or state.wounds[t][0] <= 0:
            continue
        gap = 0.0 if t == u else distance(me, state.box(plan, t))
        if gap <= reach:
            out.append((t, gap))
    return out


def spell_targets(plan, state: BattleState, u: int, spell) -> list[tuple[int, float]]:
    if spell_effects.is_effect(spell):  # FB-B30
        return spell_effects.effect_targets(plan, state, u, spell)
    if spell.kind == HEAL:
        return heal_targets(plan, state, u, spell.range)
    return missile_targets(plan, state, u, spell.range)


def candidates(plan, row) -> tuple[int, ...]:
    """The units a row's spell may ever target: the enemy's (missile, hex) or its own side's
    (heal, augment)."""
    own = row.spell.kind in (HEAL, spell_effects.AUGMENT)
    return plan.sides[row.side] if own else plan.sides[1 - row.side]


# ---- the options of each decision ----------------------------------------------------------------
def cast_options(plan, state: BattleState, k: int) -> list[Option]:
    """No cast, then each spell not yet tried this phase at each target it may take."""
    mp = magic_of(plan)
    c = mp.casters[k]
    out = [Option(CAST, c.unit, "no cast")]
    if not can_cast(plan, state, k):
        return out
    for r, row in enumerate(mp.rows):
        if row.caster != k or state.magic[M_TRIED][r]:
            continue
        for t, gap in spell_targets(plan, state, c.unit, row.spell):
            out.append(Option(CAST, c.unit, f"{row.spell.name} at {plan.units[t].label}", t,
                              (r, gap)))
    return out


def dice_options(plan, state: BattleState) -> list[Option]:
    m = state.magic
    unit = magic_of(plan).rows[m[M_ROW]].unit
    return [Option(CAST_DICE, unit, plural_dice(d), m[M_TARGET], d)
            for d in range(1, power_dice_left(plan, state) + 1)]


def dispel_options(plan, state: BattleState) -> list[Option]:
    t = state.magic[M_TARGET]
    out = [Option(DISPEL, t, "no dispel", None, 0)]
    out += [Option(DISPEL, t, f"dispel with {plural_dice(j)}", None, j)
            for j in range(1, dispel_dice_left(plan, state) + 1)]
    return out


def plural_dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


#: FB-B31: the active side's choices at the other side's spell in play, paid in power dice
#: (a dispel with dispel dice keeps FB-B12's labels: the report tells the two apart)
NO_POWER_DISPEL = "no dispel with power dice"


def power_dispel_label(n: int) -> str:
    return f"dispel with {n} power {'die' if n == 1 else 'dice'}"


def dispel_dice_of(label: str) -> tuple[bool, int]:
    """(paid in power dice, dice) of a dispel decision's label."""
    if label in ("no dispel", NO_POWER_DISPEL):
        return label == NO_POWER_DISPEL, 0
    return label.endswith(("power die", "power dice")), int(label.split()[2])


def vocabulary(plan) -> list[tuple]:
    """The (side, kind, unit, label) keys the magic phase may record (runner.vocabulary)."""
    mp = magic_of(plan)
    keys: list[tuple] = []
    if not mp.played:
        return keys
    cap = mp.rules.max_casting_dice
    casting_sides = {c.side for c in mp.casters}
    for k, c in enumerate(mp.casters):
        if any(c2.unit == c.unit for c2 in mp.casters[:k]):
            continue
        keys.append((c.side, CAST, c.unit, "no cast"))
        for row in mp.rows:
            if row.unit == c.unit:
                keys += [(c.side, CAST, c.unit, f"{row.spell.name} at {plan.units[t].label}")
                         for t in candidates(plan, row)]
        keys += [(c.side, CAST_DICE, c.unit, plural_dice(d)) for d in range(1, cap + 1)]
    for side in sorted(casting_sides):
        in_play = any(row.spell.remains_in_play and mp.casters[row.caster].side == side
                      for row in mp.rows)
        for t in range(len(plan.units)):  # a missile's target, or a heal's own unit
            keys.append((1 - side, DISPEL, t, "no dispel"))
            keys += [(1 - side, DISPEL, t, f"dispel with {plural_dice(j)}")
                     for j in range(1, mp.dispel_cap + 1)]
            if in_play:  # FB-B31: at this side's spells in play, the other side's power dice
                keys.append((1 - side, DISPEL, t, NO_POWER_DISPEL))
                keys += [(1 - side, DISPEL, t, power_dispel_label(j))
                         for j in range(1, mp.dispel_cap + 1)]
    return list(dict.fromkeys(keys))  # two wizards of a unit with one spell: one key


# ---- the one-step values (FB-B10, FB-B12) --------------------------------------------------------
def spell_value(plan, state: BattleState, row: int, t: int) -> float:
    """What the spell of ``row`` cast on t is worth in VP: a missile's expected unsaved wounds
    on t's rank and file (capped at what is left), as a volley's (values.volley_value); a
    heal's wounds back; an augment's or hex's: FB-B30's value."""
    if spell_effects.is_effect(magic_of(plan).rows[row].spell):
        return spell_effects.effect_value(plan, state, row, t)
    _n, _r, models, w = plan.units[t].bodies[0]
    heal = magic_of(plan).rows[row].spell.kind == HEAL
    room = state.wounds[t][0] if heal else models * w - state.wounds[t][0]
    if room <= 0 or (heal and state.status[t] != HOLD):
        return 0.0
    cum = magic_of(plan).missile_cdf(row, t)
    mean, prev = 0.0, 0.0
    for k, c in enumerate(cum):
        mean += min(k, room) * (c - prev)
        prev = c
    return mean * vp_per_wound(plan, t)


def p_goes_off(plan, state: BattleState, row: int, dice: int) -> float:
    """P(cast and not dispelled) against the other side's strongest answer one step ahead:
    one attempt with every dispel die it may use, at its level (MG-6)."""
    mp = magic_of(plan)
    reactive = 1 - mp.rows[row].side
    dd, level = dispel_dice_left(plan, state), dispel_level(plan, state, reactive)
    p = 0.0
    for kind, total, q in mp.cast_table(row, dice):
        if kind == IRRESISTIBLE:
            p += q
        elif kind != FAIL:
            p += q * (1.0 - p_dispel(mp.rules, dd, level, total))
    return p


def best_cast(plan, state: BattleState, row: int, value: float, dice_max: int) -> float:
    return max((p_goes_off(plan, state, row, d) * value for d in range(1, dice_max + 1)),
               default=0.0)


def rest_of_casting(plan, state: BattleState, row: int, power: int,
                    side: int | None = None) -> float:
    """One cast further: the best of the side's other spells still to try (their caster not
    done) with at most ``power`` dice, each at the enemy it does most to (range and sight
    left out) — what the dice kept are worth (FB-B12). The side is the row's, or ``side``
    (FB-B31: power dice kept by a dispel of the other side's spell in play)."""
    mp = magic_of(plan)
    side = mp.rows[row].side if side is None else side
    dice_max = min(power, mp.rules.max_casting_dice)
    if dice_max <= 0:
        return 0.0
    best = 0.0
    for r, other in enumerate(mp.rows):
        if r == row or other.side != side or state.magic[M_TRIED][r] \
                or state.magic[M_DONE][other.caster] \
                or not wizard_ready(plan, state, mp.casters[other.caster]):
            continue
        top = max((spell_value(plan, state, r, t) for t in candidates(plan, other)
                   if state.on_table(t)), default=0.0)
        best = max(best, best_cast(plan, state, r, top, dice_max))
    return best


def rest_of_dispelling(plan, state: BattleState, dice: int) -> float:
    """The dispel dice kept: the best of the caster's side's other spells still to try, at
    the enemy it does most to, cast at its casting value and dispelled with them."""
    mp = magic_of(plan)
    m = state.magic
    row = m[M_ROW]
    side = mp.rows[row].side
    dice = min(dice, mp.dispel_cap)
    if dice <= 0:
        return 0.0
    level = dispel_level(plan, state, 1 - side)
    best = 0.0
    for r, other in enumerate(mp.rows):
        if r == row or other.side != side or m[M_TRIED][r] or m[M_DONE][other.caster] \
                or not wizard_ready(plan, state, mp.casters[other.caster]):
            continue
        top = max((spell_value(plan, state, r, t) for t in candidates(plan, other)
                   if state.on_table(t)), default=0.0)
        best = max(best, top * p_dispel(mp.rules, dice, level, other.spell.cv))
    return best


def option_values(plan, state: BattleState, kind: str, options: list[Option]) -> list[float]:
    """Greedy's exact one-step values of a magic decision (FB-B12), VP for the decider."""
    mp = magic_of(plan)
    m = state.magic
    if kind == CAST:
        values = [0.0]
        dice_max = power_dice_left(plan, state)
        for o in options[1:]:
            r = o.extra[0]
            values.append(best_cast(plan, state, r, spell_value(plan, state, r, o.target),
                                    dice_max))
        return values
    if kind == CAST_DICE:
        r, t = m[M_ROW], m[M_TARGET]
        value = spell_value(plan, state, r, t)
        return [p_goes_off(plan, state, r, o.extra) * value
                + rest_of_casting(plan, state, r, m[M_POWER] - o.extra) for o in options]
    # DISPEL: the VP the dispel saves, plus what the dice kept are worth
    r, t, total = m[M_ROW], m[M_TARGET], m[M_TOTAL]
    value = spell_value(plan, state, r, t)
    level = dispel_level(plan, state, 1 - mp.rows[r].side)
    if m[M_POWER_DISPEL]:  # FB-B31: power dice at the other side's spell in play
        return [p_dispel(mp.rules, o.extra, level, total) * value
                + rest_of_casting(plan, state, r, m[M_POWER] - o.extra, 1 - mp.rows[r].side)
                for o in options]
    return [p_dispel(mp.rules, o.extra, level, total) * value
            + rest_of_dispelling(plan, state, m[M_DISPEL] - o.extra) for o in options]


def scripted_choice(plan, state: BattleState, kind: str, options: list[Option]) -> int:
    """FB-B12's scripted orders: ``cast`` (an enemy label, "nearest" / "any", "none") and
    ``dispel`` ("all" / "none") of a unit; by default the first spell at the nearest target,
    when the pool holds the dice MG-9's target rule asks (the fewest reaching 75% to cast),
    with those dice; a dispel with the fewest dice reaching 85%, else every die (MG-9)."""
    mp = magic_of(plan)
    orders = plan.deployment.orders[options[0].unit]
    if kind == CAST:
        order = orders.get("cast", "nearest")
        if order == "none" or len(options) == 1:
            return 0
        dice_max = power_dice_left(plan, state)
        enemy = None if order in ("nearest", "any") else next(
            t for t in plan.sides[1 - plan.units[options[0].unit].side]
            if plan.units[t].label == order)
        for i, o in sorted(enumerate(options[1:], start=1),
                           key=lambda io: (io[1].extra[0], io[1].extra[1])):
            if enemy is not None and o.target != enemy:
                continue
            if scripted_dice(plan, o.extra[0]) <= dice_max:
                return i
        return 0
    if kind == CAST_DICE:
        want = scripted_dice(plan, state.magic[M_ROW])
        return min(want, len(options)) - 1
    if orders.get("dispel", "all") == "none" or len(options) == 1:
        return 0
    m = state.magic
    level = dispel_level(plan, state, 1 - mp.rows[m[M_ROW]].side)
    for i, o in enumerate(options[1:], start=1):
        if p_dispel(mp.rules, o.extra, level, m[M_TOTAL]) >= SCRIPTED_DISPEL_CONFIDENCE:
            return i
    return len(options) - 1


def scripted_dice(plan, row: int) -> int:
    """MG-9's target rule: the fewest dice whose P(cast) reaches 75%, else the most."""
    mp = magic_of(plan)
    top = mp.rules.max_casting_dice
    for d in range(1, top + 1):
        if sum(q for kind, _t, q in mp.cast_table(row, d) if kind != FAIL) \
                >= SCRIPTED_CAST_TARGET - 1e-12:
            return d
    return top


# ---- the steps (phases.py calls them; each returns True when the phase is over) ------------------
def start(plan, state: BattleState, side: int) -> bool:
    """Roll the pools when the side has a wizard who may cast; else the phase is over."""
    mp = magic_of(plan)
    spell_effects.new_phase(plan, state)  # FB-B30/B23: last turn's augments and hexes end
    n = len(mp.casters)
    if not any(c.side == side and wizard_ready(plan, state, c) and not state.engaged(c.unit)
               for c in mp.casters):
        state.magic = None
        return True
    pairs, cum = mp.flow_table(channellers(plan, state, side), channellers(plan, state, 1 - side))
    power, dispel = pairs[draw_index(cum, state.rng)]
    done = tuple(c.side != side for c in mp.casters)
    in_play = spell_effects.rows_in_play(state)  # FB-B31: not cast again while in play
    tried = tuple(r in in_play for r in range(len(mp.rows)))
    state.magic = [power, dispel, 0, 0, -1, -1, 0, FAIL, 0, tried, done, (False,) * n,
                   (False,) * len(plan.units), False]
    return False


def cast_step(plan, state: BattleState, side: int, forced, decide) -> str:
    """The next wizard able to cast picks a spell and target (or none): "dice", "next" or
    "over"."""
    mp = magic_of(plan)
    m = state.magic
    t = spell_effects.next_in_play(plan, state, side, m[M_IN_PLAY_TRIED])
    if t >= 0:  # FB-B31: first the other side may dispel each of this side's spells in play
        dispel_in_play(plan, state, side, t, forced, decide)
        return "next"
    t = spell_effects.next_in_play(plan, state, 1 - side, m[M_IN_PLAY_TRIED])
    if t >= 0:  # ... then this side each of the other side's, with power dice
        power_dispel_in_play(plan, state, side, t, forced, decide)
        return "next"
    for k in range(len(mp.casters)):
        if m[M_DONE][k]:
            continue
        options = cast_options(plan, state, k)
        if len(options) == 1:
            _done(state, k)
            continue
        choice = decide(plan, state, side, options, forced)
        if choice.target is None:
            _done(state, k)
            return "next"
        m[M_ROW], m[M_TARGET] = choice.extra[0], choice.target
        return "dice"
    return "over"


def dice_step(plan, state: BattleState, side: int, forced, decide) -> str:
    """The caster's dice, then the cast roll (MG-4, MG-5): "dispel" or "next"."""
    mp = magic_of(plan)
    m = state.magic
    choice = decide(plan, state, side, dice_options(plan, state), forced)
    dice, row = choice.extra, m[M_ROW]
    m[M_POWER] -= dice
    m[M_POWER_USED] += dice
    m[M_DICE] = dice
    tried = list(m[M_TRIED])
    tried[row] = True
    m[M_TRIED] = tuple(tried)
    r = state.rng.random()
    outcomes = mp.cast_table(row, dice)
    acc = 0.0
    kind, total = outcomes[-1][0], outcomes[-1][1]
    for o_kind, o_total, q in outcomes:
        acc += q
        if r < acc:
            kind, total = o_kind, o_total
            break
    m[M_KIND], m[M_TOTAL] = kind, total
    caster = mp.rows[row].caster
    if kind == FAIL:
        if mp.rules.failed_caster_stops:  # MG-4: a failed attempt ends its casting
            _done(state, caster)
        return "next"
    if kind == IRRESISTIBLE:  # MG-5 wfb8: it goes off, cannot be dispelled; a miscast
        _goes_off(plan, state, row, m[M_TARGET])
        _miscast(plan, state, caster, dice)
        return "next"
    if dispel_dice_left(plan, state) > 0:
        return "dispel"
    _through(plan, state)
    return "next"


def dispel_step(plan, state: BattleState, side: int, forced, decide) -> None:
    """The other side's dispel (MG-6), then the spell goes off unless dispelled."""
    mp = magic_of(plan)
    m = state.magic
    choice = decide(plan, state, 1 - side, dispel_options(plan, state), forced)
    dice = choice.extra
    if dice:
        level = dispel_level(plan, state, 1 - side)
        m[M_DISPEL] -= dice
        m[M_DISPEL_USED] += dice
        if state.rng.random() < p_dispel(mp.rules, dice, level, m[M_TOTAL]):
            return  # dispelled: a t9a1 overwhelming cast dispelled is no miscast (MG-5)
        if level and mp.rules.failed_dispeller_stops:  # MG-6 wfb8: that wizard dispels no more
            _dispeller_stops(plan, state, side, level)
    _through(plan, state)


def dispel_in_play(plan, state: BattleState, side: int, t: int, forced, decide) -> None:
    """FB-B31: the other side's one attempt this phase at the spell in play on t, with its
    dispel dice (MG-6, against the spell's casting value: MG-8)."""
    mp = magic_of(plan)
    m = state.magic
    dice = 0
    if dispel_dice_left(plan, state) > 0:
        row = state.spell_on[t]
        m[M_ROW], m[M_TARGET], m[M_TOTAL], m[M_KIND] = row, t, mp.rows[row].spell.cv, PLAIN
        dice = decide(plan, state, 1 - side, dispel_options(plan, state), forced).extra
    tried = list(m[M_IN_PLAY_TRIED])  # after the decision: a rollout replays this step
    tried[t] = True
    m[M_IN_PLAY_TRIED] = tuple(tried)
    if not dice:
        return
    level = dispel_level(plan, state, 1 - side)
    m[M_DISPEL] -= dice
    m[M_DISPEL_USED] += dice
    if state.rng.random() < p_dispel(mp.rules, dice, level, m[M_TOTAL]):
        state.spell_on[t] = -1
    elif level and mp.rules.failed_dispeller_stops:  # MG-6 wfb8
        _dispeller_stops(plan, state, side, level)


def power_dispel_in_play(plan, state: BattleState, side: int, t: int, forced, decide) -> None:
    """FB-B31: the active side's one attempt this phase at the other side's spell in play on
    t, with power dice (none, or 1 up to what it may still use) at the level of its best
    wizard, against the spell's casting value (MG-8)."""
    mp = magic_of(plan)
    m = state.magic
    dice = 0
    top = min(power_dice_left(plan, state), mp.dispel_cap)  # a dispel's dice, however paid
    if top > 0:
        row = state.spell_on[t]
        m[M_ROW], m[M_TARGET], m[M_TOTAL], m[M_KIND] = row, t, mp.rows[row].spell.cv, PLAIN
        m[M_POWER_DISPEL] = True
        options = [Option(DISPEL, t, NO_POWER_DISPEL, None, 0)]
        options += [Option(DISPEL, t, power_dispel_label(j), None, j) for j in range(1, top + 1)]
        dice = decide(plan, state, side, options, forced).extra
        m[M_POWER_DISPEL] = False
    tried = list(m[M_IN_PLAY_TRIED])  # after the decision: a rollout replays this step
    tried[t] = True
    m[M_IN_PLAY_TRIED] = tuple(tried)
    if not dice:
        return
    m[M_POWER] -= dice
    m[M_POWER_USED] += dice
    if state.rng.random() < p_dispel(mp.rules, dice, dispel_level(plan, state, side),
                                     m[M_TOTAL]):
        state.spell_on[t] = -1


def _dispeller_stops(plan, state: BattleState, side: int, level: int) -> None:
    """MG-6 (wfb8): the wizard of ``1 - side`` at ``level`` who failed a dispel (the first
    such still able to) dispels no more this phase."""
    mp = magic_of(plan)
    m = state.magic
    best = next(k for k, c in enumerate(mp.casters) if c.side == 1 - side
                and c.level == level and wizard_ready(plan, state, c) and not m[M_NO_DISPEL][k])
    flags = list(m[M_NO_DISPEL])
    flags[best] = True
    m[M_NO_DISPEL] = tuple(flags)


def _through(plan, state: BattleState) -> None:
    m = state.magic
    row = m[M_ROW]
    _goes_off(plan, state, row, m[M_TARGET])
    if m[M_KIND] == OVERWHELMING:  # MG-5 t9a1: overwhelming power not dispelled miscasts
        _miscast(plan, state, magic_of(plan).rows[row].caster, m[M_DICE])


def _done(state: BattleState, k: int) -> None:
    done = list(state.magic[M_DONE])
    done[k] = True
    state.magic[M_DONE] = tuple(done)


def _miscast(plan, state: BattleState, k: int, dice: int) -> None:
    """MG-4 decision: casting ends; MG-10 t9a1: the dice used leave the pool too; then the
    table's row, its effects a battle plays (FB-B12: a hit on the wizard, power dice lost)."""
    mp = magic_of(plan)
    _done(state, k)
    if mp.rules.miscast_removes_dice_used:
        state.magic[M_POWER] = max(0, state.magic[M_POWER] - dice)
    table = mp.miscast_table(k)
    r = state.rng.random()
    wounds, lost = table[-1][0], table[-1][1]
    for w, d, c in table:
        if r < c:
            wounds, lost = w, d
            break
    state.magic[M_POWER] = max(0, state.magic[M_POWER] - lost)
    c = mp.casters[k]
    if wounds and plan.body_alive(c.unit, c.body, state.wounds[c.unit]):
        _n, _r, models, w = plan.units[c.unit].bodies[c.body]
        state.set_wounds(plan, c.unit, c.body, min(state.wounds[c.unit][c.body] + wounds,
                                                   models * w))
        if not plan.unit_alive(c.unit, state.wounds[c.unit]):
            state.status[c.unit] = DEAD
            clear_contacts(state, c.unit)


def _goes_off(plan, state: BattleState, row: int, t: int) -> int:
    """The missile's unsaved wounds on t's rank and file, drawn from the chain's table (a
    heal: the wounds restored to them; an augment or hex: on t for the turn, FB-B30)."""
    spell = magic_of(plan).rows[row].spell
    if spell_effects.is_effect(spell):
        spell_effects.goes_off(state, row, t)
        tried = list(state.magic[M_IN_PLAY_TRIED])  # FB-B31: no second dispel this phase
        tried[t] = True
        state.magic[M_IN_PLAY_TRIED] = tuple(tried)
        return 0
    if spell.kind == HEAL:
        return _heal(plan, state, row, t)
    if not state.on_table(t):
        return 0
    _n, _r, models, w = plan.units[t].bodies[0]
    if models - state.wounds[t][0] // w <= 0:
        return 0
    return land_wounds(plan, state, t, draw_index(magic_of(plan).missile_cdf(row, t), state.rng))


def _heal(plan, state: BattleState, row: int, t: int) -> int:
    if state.status[t] != HOLD or state.wounds[t][0] <= 0:
        return 0
    k = draw_index(magic_of(plan).missile_cdf(row, t), state.rng)
    if k:
        state.set_wounds(plan, t, 0, max(0, state.wounds[t][0] - k))
    return k


__all__ = ["MAGIC_KINDS", "magic_of", "option_values", "scripted_choice", "vocabulary"]


# ---- the kernel's tables (kernels.battle_magic) --------------------------------------------------
def kernel_tables(plan, shot_list, shot_dict) -> None:
    """Every table the kernel's magic phase reads, built now (they are few and static), into
    the shooting tables' list under the magic codes (kernels.battle_magic.mcode)."""
    from mathhammer.fantasy.kernels import battle_magic as km
    from mathhammer.fantasy.kernels.battle_state import ANY, NONE

    mp = magic_of(plan)
    if not mp.played:
        return
    if len(mp.rows) > 60 or len(plan.units) > 60:
        from mathhammer.errors import InputError

        raise InputError("list", "a battle takes at most 60 spells and 60 units with magic",
                         len(mp.rows), "play fewer wizards or units")

    def put(kind: int, key: int, values) -> None:
        shot_list.append(np.ascontiguousarray(np.asarray(values, np.float64).ravel()))
        shot_dict[int(km.mcode(kind, key))] = len(shot_list) - 1

    rules = mp.rules
    maxcast = rules.max_casting_dice
    put(km.MK_INFO, 0, [len(mp.casters), len(mp.rows), maxcast, mp.dispel_cap,
                        rules.max_power_used, rules.max_dispel_used,
                        int(rules.failed_caster_stops), int(rules.failed_dispeller_stops),
                        int(rules.miscast_removes_dice_used), 1])
    for k, c in enumerate(mp.casters):
        put(km.MK_CASTER, k, [c.unit, c.body, c.side, c.level])
        put(km.MK_MISCAST, k, mp.miscast_table(k))
    counts = [sum(1 for c in mp.casters if c.side == s) for s in (0, 1)]
    for ca in range(max(counts) + 1):
        for cr in range(max(counts) + 1):
            pairs, cum = mp.flow_table(ca, cr)
            put(km.MK_FLOW, ca * 64 + cr, [(p, d, c) for (p, d), c in zip(pairs, cum, strict=True)])
    levels = sorted({0} | {c.level for c in mp.casters})
    for dice in range(1, mp.dispel_cap + 1):
        for level in levels:
            put(km.MK_DISPEL, dice * 16 + level,
                [p_dispel(rules, dice, level, total) for total in range(km.TOTALS)])
    for r, row in enumerate(mp.rows):
        effect = {spell_effects.AUGMENT: 1, spell_effects.HEX: 2}.get(row.spell.kind, 0)
        put(km.MK_ROW, r, [row.caster, row.unit, row.side, row.spell.cv, row.spell.range,
                           scripted_dice(plan, r), int(row.spell.kind == HEAL), effect,
                           int(row.spell.remains_in_play)])
        for d in range(1, maxcast + 1):
            put(km.MK_CAST, r * 16 + d, [(kind, total, q) for kind, total, q in
                                         mp.cast_table(r, d)])
        for t in candidates(plan, row):
            if effect:  # FB-B30: what the spell on t is worth against each enemy
                put(km.MK_EFFECT, r * 256 + t, spell_effects.effect_values(plan, r, t))
            else:
                put(km.MK_MISSILE, r * 256 + t, mp.missile_cdf(r, t))
    vocab = plan.vocabulary
    for (side, kind, u, label), index in vocab.items():
        if kind == CAST and label == "no cast":
            put(km.MK_VNOCAST, u, [index])
        elif kind == CAST:
            for r, row in enumerate(mp.rows):
                if row.unit == u and label.startswith(f"{row.spell.name} at "):
                    for t in candidates(plan, row):
                        if plan.units[t].label == label[len(row.spell.name) + 4:]:
                            put(km.MK_VCAST, u * 4096 + r * 64 + t, [index])
        elif kind == CAST_DICE:
            put(km.MK_VDICE, u * 16 + int(label.split()[0]), [index])
        elif kind == DISPEL:  # power dice: the deciding side's second key block
            power, j = dispel_dice_of(label)
            put(km.MK_VDISPEL, ((side + 2 * power) * 64 + u) * 16 + j, [index])
    for u, unit in enumerate(plan.units):
        orders = plan.deployment.orders[u]
        cast = orders.get("cast", "nearest")
        target = ANY if cast in ("nearest", "any") else NONE if cast == "none" else next(
            t for t in plan.sides[1 - unit.side] if plan.units[t].label == cast)
        put(km.MK_ORDERS, u, [target, int(orders.get("dispel", "all") == "none")])
