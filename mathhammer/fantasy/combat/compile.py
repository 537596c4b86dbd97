"""Compile a close combat (profiles, characters, kit, the ruleset) into kernel numbers.

The one place where combat profiles become flat numbers (docs/design.md, rule 1). A fight is
units (``Side``), each with its characters; each unit becomes *bodies* (wound pools)
and *groups* (attacking models), described in :mod:`mathhammer.fantasy.kernels.combat`.

Decisions taken here (each documented in docs/rules.md under its id):

* FB-K1: a unit's champion and characters stand in its front rank, in contact with
  the enemy its front faces; each takes ceil(base width / the unit's base width)
  places. Enemy models attack the rank and file unless their side's ``target`` names
  a character or champion: then ceil(that model's base width / the attacker's base
  width) front models (and every single model of the side) strike it; attacks go to
  the next body (rank and file, champion, characters, in that order) once their target
  is dead, decided at each Initiative step.
* FB-P1: a rider on a ridden monster is two bodies of one model; attacks on it go to
  the rider unless the side's ``attack_mount`` says the monster.
* FB-M1: a unit's front fights the enemy it faces (``against``, ``position`` = the
  enemy's face it touches); a flanked unit fights a flank attacker with one model per
  rank behind the first, a rear attacker with its rear rank; supporting ranks fight
  to the front only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from mathhammer.errors import InputError, ProfileError
from mathhammer.fantasy.chain.core import AttackSpec
from mathhammer.fantasy.combat.rules import EquipmentEffect
from mathhammer.fantasy.models import KILLING_BLOW_TROOPS, Mount, UnitProfile
from mathhammer.fantasy.rules.ruleset import Ruleset

POSITIONS = ("front", "flank", "rear")
SUPPORTING_TYPES = ("infantry", "monstrous_infantry", "swarm")
MAX_UNITS_PER_SIDE = 4
MAX_CHARACTERS = 4  # per unit
NO_ATTACKS = -1  # strike key of a group that makes no attacks in a variant
VARIANTS = ("charged, first round", "first round", "later rounds")


@dataclass(frozen=True)
class Character:
    """FB-K1/K4: a character with a unit: its profile, and general / battle standard."""

    profile: UnitProfile
    general: bool = False
    battle_standard: bool = False


@dataclass(frozen=True)
class Side:
    """One unit in a combat: a profile, its formation and its situation.

    ``position`` is the face of the enemy unit ``against`` (index among the enemy's
    units) that this unit's front touches (FB-M1); ``target`` names an enemy character
    or champion its models in contact attack (FB-K1); ``attack_mount`` sends attacks
    on a ridden monster to the monster instead of its rider (FB-P1).
    """

    unit: UnitProfile
    charged: bool = False
    position: str = "front"
    bonus: int = 0
    reroll_break: bool | None = None  # None: a battle standard in range re-rolls (FB-K4)
    characters: tuple[Character, ...] = ()
    against: int | None = None
    target: str | None = None
    attack_mount: bool = False

    @property
    def models(self) -> int:
        return self.unit.formation.models


@dataclass(frozen=True)
class ChallengeSpec:
    """FB-K3: ``side`` issues a challenge with ``issuer`` (a character or champion name,
    None = the first one); the other side accepts with ``other`` or refuses (``other``
    = the character who steps back)."""

    side: str
    issuer: str | None = None
    response: str = "accept"
    other: str | None = None


@dataclass
class Body:
    unit: int
    name: str
    role: str  # rank and file | champion | character | mount
    models: int
    w: int
    t: int
    ws: int
    i: int
    armour: int | None
    ward: int | None
    regeneration: int | None
    troop_type: str
    ld: int
    single: bool
    ranks: bool
    slots: int
    model: int
    base_w: int
    parry: int | None = None
    asf: bool = False
    bsb: bool = False
    general: bool = False
    challenger: bool = False  # may issue or accept a challenge


@dataclass
class Attacker:
    """The attack profile of a group: stats, kit, special rules."""

    name: str
    ws: int
    s: int
    i: int
    a: int
    weapon_ap: int
    multiple_wounds: str | None
    kit: tuple[EquipmentEffect, ...]
    rules: tuple[str, ...]
    base_w: int
    auto: str | None = None  # impact | stomp | breath
    auto_dice: str | None = None
    flaming: bool = False


@dataclass
class Group:
    unit: int
    body: int
    count: int  # kernels.combat COUNT_*
    enemy: int
    attacker: Attacker
    lo: int = 0
    n: int = 1000
    once: bool = False
    face: int = 0
    slots: list[int] = field(default_factory=list)
    pref: tuple[list[int], list[int]] = ((), ())
    keys: tuple[int, int, int] = (0, 0, 0)
    name: str = ""


@dataclass
class CompiledCombat:
    sides: tuple[tuple[Side, ...], tuple[Side, ...]]
    rules: Ruleset
    units: list[Side]
    labels: list[str]
    bodies: list[Body]
    groups: list[Group]
    pairs: list[tuple[int, int]]
    challenge: tuple[int, int, int, int]
    general_ld: tuple[int, int]
    reroll: tuple[bool, bool]
    notes: list[str] = field(default_factory=list)
    contact: list[int] = field(default_factory=list)
    support: list[int] = field(default_factory=list)
    faces: list[tuple[int | None, int]] = field(default_factory=list)

    @property
    def unit_sides(self) -> list[int]:
        return [0] * len(self.sides[0]) + [1] * len(self.sides[1])


# ---- kit and keys -------------------------------------------------------------------------------
def kit_effects(profile: UnitProfile | Mount, rules: Ruleset, mounted: bool, notes: list[str],
                who: str) -> tuple[EquipmentEffect, ...]:
    """The effects of a model's kit under ``rules`` (FB-E1..E8); the profile's [weapon] is
    one more effect. Kit the ruleset lacks does nothing (a note says so)."""
    table = rules.combat.equipment
    effects = []
    weapons = []
    for item in profile.equipment:
        if item not in table:
            notes.append(f"{who}: {item.replace('_', ' ')} has no effect in {rules.name}")
            continue
        eq = table[item]
        weapons.append(eq)
        effects.append((eq, eq.effect(mounted)))
    fights_with_hand_weapon = not any(eq.weapon and not eq.hand_weapon for eq in weapons)
    out = []
    for eq, effect in effects:
        if eq.needs_hand_weapon and not fights_with_hand_weapon:
            continue
        out.append(effect)
    w = profile.weapon
    out.append(EquipmentEffect(strength_bonus=w.strength_bonus, charge_strength_bonus=w.charge_strength_bonus,
                               armour_piercing=w.armour_piercing, extra_attacks=w.extra_attacks,
                               extra_supporting_ranks=w.extra_supporting_ranks,
                               strikes_last=w.strikes_last, melee_armour_bonus=w.melee_armour_bonus))
    return tuple(out)


def strike_key(i: int, asf: bool, strikes_last: bool, charged_first: bool, tier: int | None = None) -> int:
    """FB-C2 order as one integer (higher strikes first): stomps after everyone, then
    strikes-last, then Initiative, then Always Strikes First, impact hits before all;
    with ``chargers_strike_first`` the chargers' blows come before the rest."""
    if asf and strikes_last:  # the two cancel out: Initiative order
        asf = strikes_last = False
    if tier is None:
        tier = 3 if asf else (1 if strikes_last else 2)
    key = tier * 16 + i
    return key + (6 * 16 if charged_first else 0)


def key_text(key: int) -> str:
    if key < 0:
        return "no attacks"
    charged = key >= 96
    key %= 96
    tier, i = divmod(key, 16)
    word = {0: "stomp", 1: "strikes last", 2: f"I{i}", 3: "ASF", 5: "impact"}.get(tier, f"I{i}")
    return ("charged, " if charged else "") + word


# ---- bodies --------------------------------------------------------------------------------------
def _armour(profile: UnitProfile, rules: Ruleset, kit: tuple[EquipmentEffect, ...],
            mount: Mount | None) -> int | None:
    """FB-P1/E4: the save a model takes in close combat: own armour, improved by its
    mount's ``rider_armour_bonus`` and the kit's close-combat bonus (best 1+)."""
    bonus = (mount.rider_armour_bonus if mount is not None else 0) + sum(e.melee_armour_bonus for e in kit)
    save = profile.saves.armour
    if save is None:
        if bonus <= 0:
            return None
        save = 7
    return max(rules.caps.best_armour_save, save - bonus)


def _rider_mount(profile: UnitProfile) -> Mount | None:
    """The mount that lends the rider its armour bonus (a horse or the ridden monster)."""
    return profile.mounts[0] if profile.mounts else None


def _slots(model_base: int, unit_base: int) -> int:
    return max(1, math.ceil(model_base / unit_base))


def _bodies_of(u: int, side: Side, rules: Ruleset, notes: list[str], model_ids: list[int]) -> list[Body]:
    unit = side.unit
    out: list[Body] = []
    mounted = unit.mounted
    kit = kit_effects(unit, rules, mounted, notes, unit.name)
    parry = min((e.parry for e in kit if e.parry), default=None)
    f = unit.formation
    champion = f.champion and f.models >= 2
    rf_models = f.models - (1 if champion else 0)
    unit_w = unit.base_mm[0]
    asf = unit.has("Always Strikes First")

    def new_model() -> int:
        model_ids[0] += 1
        return model_ids[0]

    rf_model = new_model()
    out.append(Body(u, unit.name, "rank and file", rf_models, unit.stats.w, unit.stats.t, unit.stats.ws,
                    unit.stats.i, _armour(unit, rules, kit, _rider_mount(unit)), unit.saves.ward,
                    unit.saves.regeneration, unit.troop_type, unit.stats.ld, False, True, 0, rf_model,
                    unit_w, parry, asf, bsb=False, challenger=unit.role == "character"))
    monster = unit.ridden_monster
    if monster is not None:
        out.append(_monster_body(u, monster, unit, rf_model, unit_w))
    if champion:
        c = unit.champion
        name = (c.name if c and c.name else f"{unit.name} champion")
        stat = lambda key, default: getattr(c, key) if c and getattr(c, key) is not None else default  # noqa: E731
        out.append(Body(u, name, "champion", 1, stat("w", unit.stats.w), unit.stats.t, stat("ws", unit.stats.ws),
                        stat("i", unit.stats.i), _armour(unit, rules, kit, _rider_mount(unit)),
                        unit.saves.ward, unit.saves.regeneration, unit.troop_type, stat("ld", unit.stats.ld),
                        True, True, 1, new_model(), unit_w, parry, asf, challenger=True))
    for ch in side.characters:
        p = ch.profile
        ckit = kit_effects(p, rules, p.mounted, notes, p.name)
        model = new_model()
        out.append(Body(u, p.name, "character", 1, p.stats.w, p.stats.t, p.stats.ws, p.stats.i,
                        _armour(p, rules, ckit, _rider_mount(p)), p.saves.ward, p.saves.regeneration,
                        p.troop_type, p.stats.ld, True, True, _slots(p.base_mm[0], unit_w), model,
                        p.base_mm[0], min((e.parry for e in ckit if e.parry), default=None),
                        p.has("Always Strikes First"), bsb=ch.battle_standard, general=ch.general,
                        challenger=True))
        if p.ridden_monster is not None:
            out.append(_monster_body(u, p.ridden_monster, p, model, p.base_mm[0]))
    return out


def _monster_body(u: int, m: Mount, rider: UnitProfile, model: int, base_w: int) -> Body:
    return Body(u, m.name, "mount", 1, m.w, m.t, m.ws, m.i, m.saves.armour, m.saves.ward,
                m.saves.regeneration, m.troop_type, m.ld or 0, True, False, 0, model, base_w,
                asf="Always Strikes First" in m.special_rules)


# ---- groups --------------------------------------------------------------------------------------
def _attacker(profile: UnitProfile | Mount, stats, name: str, rules: Ruleset, mounted: bool,
              notes: list[str], base_w: int, rules_extra: tuple[str, ...] = ()) -> Attacker:
    kit = kit_effects(profile, rules, mounted, notes, name)
    return Attacker(name, stats.ws, stats.s, stats.i, stats.a, 0, profile.weapon.multiple_wounds, kit,
                    tuple(profile.special_rules) + rules_extra, base_w)


@dataclass(frozen=True)
class _Stats:
    ws: int
    s: int
    i: int
    a: int


def _auto_groups(u: int, body: int, count: int, enemy: int, owner, s: int, name: str,
                 base_w: int, rules: Ruleset) -> list[Group]:
    """FB-S5/S6/S7: impact hits, stomps and a breath weapon as automatic-hit groups."""
    out = []
    if owner.impact_hits:
        out.append(Group(u, body, count, enemy, Attacker(f"{name} impact hits", 10, s, 10, 0, 0, None, (), (),
                                                         base_w, "impact", owner.impact_hits)))
    if owner.stomp:
        out.append(Group(u, body, count, enemy, Attacker(f"{name} stomp", 10, s, 0, 0, 0, None, (), (),
                                                         base_w, "stomp", owner.stomp)))
    if owner.breath_weapon is not None:
        bw = owner.breath_weapon
        out.append(Group(u, body, COUNT_SINGLE_, enemy,
                         Attacker(f"{name} breath weapon", 10, bw.strength, 10, 0, bw.armour_piercing, None,
                                  (), (), base_w, "breath", rules.combat.breath_combat_hits, bw.flaming),
                         once=True))
    return out


COUNT_FRONT_, COUNT_SUPPORT_, COUNT_SIDE_, COUNT_SINGLE_ = 0, 1, 2, 3


def _groups_of(u: int, side: Side, bodies: list[Body], enemy_front: int, rules: Ruleset,
               notes: list[str], support_ranks: int) -> list[Group]:
    """The attack groups of unit ``u`` towards the unit its front faces (``enemy_front``;
    its singles fight that unit too)."""
    unit = side.unit
    mine = [b for b, body in enumerate(bodies) if body.unit == u]
    rf = mine[0]
    base_w = unit.base_mm[0]
    groups: list[Group] = []
    rf_att = _attacker(unit, unit.stats, unit.name, rules, unit.mounted, notes, base_w)
    if bodies[rf].models > 0 and unit.stats.a > 0:
        groups.append(Group(u, rf, COUNT_FRONT_, enemy_front, rf_att, name=unit.name))
    if support_ranks > 0 and bodies[rf].models > unit.formation.rank_width:
        sup = replace(rf_att, a=1, name=f"{unit.name} supporting")
        groups.append(Group(u, rf, COUNT_SUPPORT_, enemy_front, sup, name=sup.name))
    for m in unit.mounts:
        mb = rf if not m.is_part else next(b for b in mine if bodies[b].role == "mount" and bodies[b].model == bodies[rf].model)
        count = COUNT_SINGLE_ if m.is_part else COUNT_FRONT_
        if m.a > 0:
            att = _attacker(m, _Stats(m.ws, m.s, m.i, m.a), m.name, rules, False, notes, base_w)
            groups.append(Group(u, mb, count, enemy_front, att, name=m.name))
        groups += _auto_groups(u, mb, count, enemy_front, m, m.s, m.name, base_w, rules)
    groups += _auto_groups(u, rf, COUNT_FRONT_, enemy_front, unit, unit.stats.s, unit.name, base_w, rules)
    for b in mine:
        body = bodies[b]
        if body.role == "champion":
            c = unit.champion
            a = c.a if c and c.a is not None else unit.stats.a + unit.champion_extra_attacks
            s = c.s if c and c.s is not None else unit.stats.s
            att = _attacker(unit, _Stats(body.ws, s, body.i, a), body.name, rules, unit.mounted, notes, base_w)
            if a > 0:
                groups.append(Group(u, b, COUNT_SINGLE_, enemy_front, att, name=body.name))
            # FB-C1: the champion is a front model: its mount strikes (and the model's and the
            # mount's automatic hits land) as for every front model, while the champion lives
            groups += _auto_groups(u, b, COUNT_SINGLE_, enemy_front, unit, unit.stats.s, body.name, base_w, rules)
            for m in unit.mounts:
                if m.is_part:  # a ridden monster is its own body of the rank and file's model
                    continue
                name = f"{body.name}'s {m.name}"
                if m.a > 0:
                    matt = _attacker(m, _Stats(m.ws, m.s, m.i, m.a), name, rules, False, notes, base_w)
                    groups.append(Group(u, b, COUNT_SINGLE_, enemy_front, matt, name=name))
                groups += _auto_groups(u, b, COUNT_SINGLE_, enemy_front, m, m.s, name, base_w, rules)
    for ch in side.characters:
        p = ch.profile
        rider = next(b for b in mine if bodies[b].role == "character" and bodies[b].name == p.name)
        cw = p.base_mm[0]
        if p.stats.a > 0:
            att = _attacker(p, p.stats, p.name, rules, p.mounted, notes, cw)
            groups.append(Group(u, rider, COUNT_SINGLE_, enemy_front, att, name=p.name))
        groups += _auto_groups(u, rider, COUNT_SINGLE_, enemy_front, p, p.stats.s, p.name, cw, rules)
        for m in p.mounts:
            mb = rider if not m.is_part else next(
                b for b in mine if bodies[b].role == "mount" and bodies[b].model == bodies[rider].model)
            if m.a > 0:
                att = _attacker(m, _Stats(m.ws, m.s, m.i, m.a), m.name, rules, False, notes, cw)
                groups.append(Group(u, mb, COUNT_SINGLE_, enemy_front, att, name=m.name))
            groups += _auto_groups(u, mb, COUNT_SINGLE_, enemy_front, m, m.s, m.name, cw, rules)
    return groups


# ---- attack specs ------------------------------------------------------------------------------
def _attacks_pmf(att: Attacker, variant: int, frenzied: bool, charged: bool, rules: Ruleset,
                 support: bool) -> dict[int, float]:
    """Attacks one model of a group makes in a variant (0 charged + first round, 1 first
    round, 2 later rounds): A + kit + Frenzy + Devastating Charge; automatic hits by dice."""
    from mathhammer.fantasy.chain.core import attacks_pmf

    if att.auto == "impact":
        return attacks_pmf(att.auto_dice) if variant == 0 else {0: 1.0}
    if att.auto == "stomp":
        return attacks_pmf(att.auto_dice)
    if att.auto == "breath":
        return attacks_pmf(att.auto_dice) if variant in (0, 1) else {0: 1.0}
    if support:
        return {1: 1.0}
    extra = sum(e.extra_attacks for e in att.kit)
    if frenzied and "Frenzy" in att.rules:
        extra += rules.combat.frenzy_attacks
    if variant == 0 and "Devastating Charge" in att.rules:
        extra += 1
    return {att.a + extra: 1.0}


def attack_spec(att: Attacker, target: Body, variant: int, rules: Ruleset, target_asf: bool,
                from_front: bool) -> AttackSpec | None:
    """The exact one-attack profile of ``att`` against ``target`` in a variant, or None
    when the attack cannot affect it (a stomp against a troop type it spares)."""
    top = rules.caps.max_characteristic
    first = variant in (0, 1)
    charging = variant == 0
    if att.auto is not None:
        if att.auto == "stomp" and target.troop_type not in rules.combat.stomp_targets:
            return None
        s = min(att.s, top)
        return AttackSpec(strength=s, toughness=target.t, auto_hit=True, close_combat=True, save=target.armour,
                          ward=target.ward, regeneration=target.regeneration, armour_piercing=att.weapon_ap,
                          target_wounds=target.w, flaming=att.flaming)
    s = att.s + sum(e.strength_bonus for e in att.kit)
    if first:
        s += sum(e.first_round_strength_bonus for e in att.kit)
    if charging:
        s += sum(e.charge_strength_bonus for e in att.kit)
    s = min(max(s, 1), top)
    ap = min(att.weapon_ap + sum(e.armour_piercing for e in att.kit), 6)  # the kit holds [weapon]
    asf = "Always Strikes First" in att.rules and not any(e.strikes_last for e in att.kit)
    ws, target_ws = min(att.ws, top), min(target.ws, top)
    way = {"ws": ws, "target_ws": target_ws}
    needed = rules.to_hit_melee(ws, target_ws)
    if target.parry and from_front and needed is not None and target.parry > needed:
        way = {"hit_on": target.parry}  # t9a1 Parry (FB-E4): no better than X+ from the front
    return AttackSpec(
        strength=s, toughness=target.t, **way, close_combat=True, save=target.armour,
        ward=target.ward, regeneration=target.regeneration, armour_piercing=ap,
        poison="Poisoned Attacks" in att.rules,
        killing_blow="Killing Blow" in att.rules and rules.killing_blow is not None,
        killing_blow_applies=target.troop_type in KILLING_BLOW_TROOPS, multiple_wounds=att.multiple_wounds,
        target_wounds=target.w, flaming="Flaming Attacks" in att.rules,
        hatred=first and "Hatred" in att.rules, always_strikes_first=asf, initiative=att.i,
        target_initiative=target.i, target_always_strikes_first=target_asf)


def attack_spec_key(att: Attacker, target: Body, from_front: bool) -> tuple:
    """Everything :func:`attack_spec` reads of the attacker and the target (with the target's
    Always Strikes First and the face): equal keys, equal specs in every variant and ruleset
    (tests/test_fb_combat_tables.py changes each field and checks)."""
    return (att.auto, att.s, att.weapon_ap, att.flaming, att.kit, att.rules, att.ws, att.i,
            att.multiple_wounds, target.troop_type, target.t, target.armour, target.ward,
            target.regeneration, target.w, target.ws, target.parry, target.i, target.asf,
            from_front)


def _group_keys(g: Group, rules: Ruleset, charged: bool) -> tuple[int, int, int]:
    att = g.attacker
    keys = []
    for v in range(3):
        charged_first = v == 0 and charged and rules.chargers_strike_first
        if att.auto == "impact":
            keys.append(strike_key(rules.combat.impact_initiative, False, False, charged_first, tier=5)
                        if v == 0 else NO_ATTACKS)
        elif att.auto == "stomp":
            si = rules.combat.stomp_initiative
            keys.append(strike_key(si, False, False, charged_first, tier=0 if si == 0 else 2))
        elif att.auto == "breath":
            keys.append(strike_key(att.i, False, False, charged_first) if v in (0, 1) else NO_ATTACKS)
        else:
            asf = "Always Strikes First" in att.rules
            last = any(e.strikes_last for e in att.kit) or "Always Strikes Last" in att.rules
            keys.append(strike_key(att.i, asf, last, charged_first))
    return (keys[0], keys[1], keys[2])


# ---- the whole fight ----------------------------------------------------------------------------
def check_characters(side: Side, where: str, rules: Ruleset) -> None:
    unit = side.unit
    if len(side.characters) > MAX_CHARACTERS:
        raise InputError(where, f"at most {MAX_CHARACTERS} characters join one unit",
                         len(side.characters), "drop some characters")
    names = [unit.name] + [c.profile.name for c in side.characters]
    for ch in side.characters:
        p = ch.profile
        if p.role != "character":
            raise ProfileError(f"{where} character {p.id}", 'is not a character (role = "character")',
                               p.role, "join a character profile, e.g. wfb8/empire_captain")
        if p.ruleset != unit.ruleset:
            raise ProfileError(f"{where} character {p.id}", f"is a {p.ruleset} profile joining a "
                               f"{unit.ruleset} unit ({unit.id})", p.ruleset,
                               f"use a {unit.ruleset} character")
        if p.army and unit.army and p.army != unit.army:
            raise ProfileError(f"{where} character {p.id}", f"is from {p.army}, the unit "
                               f"{unit.id} from {unit.army}", p.army,
                               f"join a character from {unit.army} here, or this one to a "
                               f"unit from {p.army}")
        if unit.role == "character":
            raise ProfileError(f"{where} character {p.id}", f"cannot join {unit.id}: it is itself a "
                               "character, not a unit", unit.id, "join a unit of rank and file")
    if len(set(names)) != len(names):
        raise InputError(where, "two models of one unit share a name (challenges and targets "
                         "name them)", names, "give each character a different profile")


def _validate(sides: tuple[tuple[Side, ...], tuple[Side, ...]], rules: Ruleset,
              general_ld: tuple[int | None, int | None]) -> None:
    for s, units in enumerate(sides):
        label = "ab"[s]
        if not 1 <= len(units) <= MAX_UNITS_PER_SIDE:
            raise InputError(f"side {label.upper()}", f"takes 1..{MAX_UNITS_PER_SIDE} units",
                             len(units), "split the fight")
        machines = [side.unit for side in units if side.unit.machine is not None]
        if machines:  # FB-WM1 has its own engine (fantasy.war_machine_combat)
            raise InputError(f"side {label.upper()}", f"{machines[0].name} is a war machine: "
                             "it fights one charging unit on its own (FB-WM1)", machines[0].id,
                             f"fight it as fb combat UNIT {machines[0].id}")
        generals = [c.profile.name for side in units for c in side.characters if c.general]
        bsbs = [c.profile.name for side in units for c in side.characters if c.battle_standard]
        if len(generals) > 1:
            raise InputError(f"side {label.upper()}", "has two generals", generals,
                             "mark one character general = true")
        if generals and general_ld[s] is not None:
            raise InputError(f"‹general_ld›-{label}", f"side {label.upper()} already has its general "
                             f"({generals[0]}) in the fight", general_ld[s],
                             f"drop ‹general_ld›-{label} or the character's general flag")
        if len(bsbs) > 1:
            raise InputError(f"side {label.upper()}", "has two battle standard bearers", bsbs,
                             "mark one character battle_standard = true")
        for i, side in enumerate(units):
            where = f"unit {label.upper()}{i + 1 if len(units) > 1 else ''}"
            if side.position not in POSITIONS:
                raise InputError(f"{where} position", "must be front, flank or rear", side.position,
                                 "use front, flank or rear")
            check_characters(side, where, rules)
        if general_ld[s] is not None and not 2 <= general_ld[s] <= 10:
            raise InputError(f"‹general_ld›-{label}", "must be a Leadership of 2..10", general_ld[s],
                             "use e.g. ‹general_ld_a› 9")


def _resolve_faces(sides) -> list[tuple[int | None, int]]:
    """(global index of the enemy unit the front faces or None, face 0/1/2) per unit (FB-M1)."""
    n_a = len(sides[0])
    units = list(sides[0]) + list(sides[1])
    offset = (0, n_a)
    against: list[int | None] = []
    faces = []
    for s, group in enumerate(sides):
        for side in group:
            other = offset[1 - s]
            n_other = len(sides[1 - s])
            idx = side.against
            if idx is not None and not 0 <= idx < n_other:
                raise InputError(f"unit {'AB'[s]} against", f"there are {n_other} enemy units",
                                 idx + 1, f"use 1..{n_other}")
            against.append(None if idx is None else other + idx)
            faces.append(POSITIONS.index(side.position))
    # defaults: side A fronts face B's first unit; a B unit faces whoever faces its front
    for u in range(len(units)):
        if against[u] is not None:
            continue
        if u < n_a:
            against[u] = n_a
            continue
        facing = [v for v in range(n_a) if against[v] == u and faces[v] == 0]
        if facing:
            against[u] = facing[0]
        elif not any(against[v] == u for v in range(n_a)):
            against[u] = 0
    for u in range(len(units)):
        v = against[u]
        if v is not None and faces[u] == 0:
            if against[v] is None and faces[v] == 0:
                against[v] = u
            if against[v] != u or faces[v] != 0:
                raise InputError(f"unit {_label(u, n_a, sides)}", f"fights the front of unit "
                                 f"{_label(v, n_a, sides)}, whose front faces another unit", None,
                                 "give one of them position = \"flank\" or \"rear\"")
    for v in range(len(units)):
        taken = [faces[u] for u in range(len(units)) if against[u] == v]
        if taken.count(0) > 1 or taken.count(1) > 2 or taken.count(2) > 1:
            raise InputError(f"unit {_label(v, n_a, sides)}", "is fought by more units than it has "
                             "faces (one front, two flanks, one rear)", None,
                             "change a position or against")
    return list(zip(against, faces))


def _label(u: int, n_a: int, sides) -> str:
    s, i = (0, u) if u < n_a else (1, u - n_a)
    return f"{'AB'[s]}{i + 1}" if len(sides[s]) > 1 else "AB"[s]


def _frontage(side: Side, face: int) -> float:
    """mm of a unit's face: front/rear = its front rank's width, flank = its depth."""
    u = side.unit
    models = u.formation.models + sum(1 for _ in side.characters)
    width = min(u.formation.rank_width, models)
    if face == 1:
        rows = math.ceil(models / u.formation.rank_width)
        return rows * u.base_mm[1]
    return width * u.base_mm[0]


def compile_combat(sides_a, sides_b, rules: Ruleset, *, challenge: ChallengeSpec | None = None,
                   general_ld: tuple[int | None, int | None] = (None, None),
                   bsb: tuple[bool, bool] = (False, False)) -> CompiledCombat:
    """Everything the engines need: bodies, groups with their target lists and keys."""
    sides = (tuple(sides_a), tuple(sides_b))
    _validate(sides, rules, general_ld)
    notes: list[str] = []
    units = list(sides[0]) + list(sides[1])
    n_a = len(sides[0])
    unit_side = [0] * n_a + [1] * len(sides[1])
    labels = [_label(u, n_a, sides) for u in range(len(units))]
    for side in units:
        for p in [side.unit] + [c.profile for c in side.characters]:
            if p.ruleset != rules.name:
                notes.append(f"{p.id} is a {p.ruleset} profile, used under {rules.name}")
            if "Killing Blow" in p.special_rules and rules.killing_blow is None:
                notes.append(f"{p.name}: Killing Blow ignored, ruleset {rules.name} has none")
        for rule in ("Unstable", "Daemonic Instability"):
            if side.unit.has(rule):  # FB-C5: said either way, so "broken 0%" is explained
                notes.append(f"{side.unit.id}: {rules.instability_words(rule)}")
    faces = _resolve_faces(sides)
    model_ids = [-1]
    bodies: list[Body] = []
    for u, side in enumerate(units):
        bodies += _bodies_of(u, side, rules, notes, model_ids)
    groups: list[Group] = []
    pairs = sorted({tuple(sorted((u, v))) for u, (v, _) in enumerate(faces) if v is not None})
    for u, side in enumerate(units):
        against, face = faces[u]
        flankers = [e for e, (v, f) in enumerate(faces) if v == u and f != 0]
        enemy_front = against if against is not None else flankers[0]
        unit = side.unit
        fights_in_ranks = rules.supporting_ranks > 0 and unit.troop_type in SUPPORTING_TYPES
        kit = kit_effects(unit, rules, unit.mounted, [], unit.name)
        support = (rules.supporting_ranks + sum(e.extra_supporting_ranks for e in kit)
                   if fights_in_ranks and against is not None else 0)
        mine = _groups_of(u, side, bodies, enemy_front, rules, notes, support)
        if against is None:  # a free front: its rank and file fight only from the sides
            mine = [g for g in mine if g.count != COUNT_FRONT_ and g.count != COUNT_SUPPORT_]
        groups += mine
        rf = next(b for b, body in enumerate(bodies) if body.unit == u)
        for e in flankers:
            f = faces[e][1]
            cap = math.ceil(_frontage(units[e], 0) / (unit.base_mm[1] if f == 1 else unit.base_mm[0]))
            att = _attacker(unit, unit.stats, f"{unit.name} ({'flank' if f == 1 else 'rear'})", rules,
                            unit.mounted, notes, unit.base_mm[0])
            if bodies[rf].models > 0 and unit.stats.a > 0:
                groups.append(Group(u, rf, COUNT_SIDE_, e, att, n=cap, face=f, name=att.name))
    for u, side in enumerate(units):
        if side.attack_mount and not any(b.role == "mount" and unit_side[b.unit] != unit_side[u]
                                         for b in bodies):
            raise InputError("‹attack_mount›", f"side {'AB'[unit_side[u]]} attacks mounts, but the "
                             "enemy has no ridden monster (FB-P1)", "ab"[unit_side[u]],
                             "drop ‹attack_mount›, or fight a rider on a monster")
    groups = _target_groups(groups, units, bodies, faces, rules)
    c = CompiledCombat(sides, rules, units, labels, bodies, groups, pairs,
                       _challenge(challenge, units, bodies, faces, unit_side, rules),
                       tuple(g if g is not None and rules.combat.general_range else 0 for g in general_ld),
                       bsb, notes)
    c.contact = [_contact(units, faces, u) for u in range(len(units))]
    c.support = []
    for u, side in enumerate(units):
        unit = side.unit
        kit = kit_effects(unit, rules, unit.mounted, [], unit.name)
        fights = rules.supporting_ranks > 0 and unit.troop_type in SUPPORTING_TYPES and faces[u][0] is not None
        c.support.append(rules.supporting_ranks + sum(e.extra_supporting_ranks for e in kit) if fights else 0)
    c.faces = faces
    return c


def _contact(units: list[Side], faces, u: int) -> int:
    """FB-C1/M1: models' widths of u's front touching the enemy face it fights
    (units centred on each other, **decision**)."""
    against, face = faces[u]
    if against is None:
        return 0
    me = units[u].unit
    return max(1, min(me.formation.rank_width,
                      math.ceil(_frontage(units[against], face) / me.base_mm[0])))


def _target_groups(groups: list[Group], units: list[Side], bodies: list[Body], faces,
                   rules: Ruleset) -> list[Group]:
    """Target lists (FB-K1/P1): slots = the bodies of the enemy unit; a side's ``target``
    model first for its single models and a front slice of ceil(base ratio) models."""
    out = []
    for g in groups:
        side = units[g.unit]
        enemy_bodies = [b for b, body in enumerate(bodies) if body.unit == g.enemy]
        order = _default_order(enemy_bodies, bodies, side.attack_mount)
        named = None
        if side.target is not None:
            named = next((b for b in enemy_bodies if bodies[b].name == side.target
                          and bodies[b].role in ("champion", "character")), None)
            if named is None:
                choices = [bodies[b].name for b in enemy_bodies if bodies[b].role in ("champion", "character")]
                raise InputError("target", f"no champion or character {side.target!r} in the enemy "
                                 f"unit", side.target,
                                 f"use one of {', '.join(choices)}" if choices else "drop it")
        base = dict(g.__dict__)
        if named is not None and g.count == COUNT_SINGLE_:
            g = Group(**{**base, "slots": enemy_bodies,
                         "pref": _prefs(enemy_bodies, _first(order, named, bodies, side.attack_mount), bodies,
                                        side.attack_mount)})
            out.append(g)
        elif named is not None and g.count == COUNT_FRONT_ and g.attacker.auto is None and bodies[g.body].role == "rank and file":
            m = _slots(bodies[named].base_w, g.attacker.base_w)
            first = _first(order, named, bodies, side.attack_mount)
            out.append(Group(**{**base, "lo": 0, "n": m, "slots": enemy_bodies,
                                "pref": _prefs(enemy_bodies, first, bodies, side.attack_mount),
                                "name": f"{g.name} (at {bodies[named].name})"}))
            out.append(Group(**{**base, "lo": m, "slots": enemy_bodies,
                                "pref": _prefs(enemy_bodies, order, bodies, side.attack_mount)}))
        else:
            out.append(Group(**{**base, "slots": enemy_bodies,
                                "pref": _prefs(enemy_bodies, order, bodies, side.attack_mount)}))
    for g in out:
        g.keys = _group_keys(g, rules, units[g.unit].charged)
        if not g.name:
            g.name = g.attacker.name
    return out


def _default_order(enemy_bodies: list[int], bodies: list[Body], attack_mount: bool) -> list[int]:
    """Rank and file, champion, characters; a rider before its monster (FB-P1) unless the
    side attacks mounts."""
    rank = {"rank and file": 0, "champion": 1, "character": 2, "mount": 3}
    order = sorted(enemy_bodies, key=lambda b: (rank[bodies[b].role] if bodies[b].role != "mount"
                                                 else rank[bodies[_rider_of(b, bodies)].role], b))
    return _mount_first(order, bodies) if attack_mount else order


def _rider_of(b: int, bodies: list[Body]) -> int:
    return next(r for r, body in enumerate(bodies) if body.model == bodies[b].model and body.role != "mount")


def _mount_first(order: list[int], bodies: list[Body]) -> list[int]:
    out = list(order)
    for b in order:
        if bodies[b].role == "mount":
            rider = _rider_of(b, bodies)
            out.remove(b)
            out.insert(out.index(rider), b)
    return out


def _first(order: list[int], named: int, bodies: list[Body], attack_mount: bool) -> list[int]:
    model = [b for b in order if bodies[b].model == bodies[named].model]
    rest = [b for b in order if b not in model]
    return model + rest


def _prefs(slots: list[int], order: list[int], bodies: list[Body], attack_mount: bool):
    """Slot orders: normal, and in a challenge (the same order: the opponent is picked out
    of it by the kernel's duel filter)."""
    row = [slots.index(b) for b in order]
    return (row, list(row))


def _challenge(spec: ChallengeSpec | None, units: list[Side], bodies: list[Body], faces,
               unit_side: list[int], rules: Ruleset) -> tuple[int, int, int, int]:
    """FB-K3: (issuer body, other body, mode 1 accepted / 2 refused, overkill cap)."""
    cap = rules.combat.overkill_cap
    if spec is None:
        return (-1, -1, 0, cap)
    if spec.side not in ("a", "b"):
        raise InputError("‹challenge›", "must be a or b (the side that issues it)", spec.side,
                         "use ‹challenge› a")
    if spec.response not in ("accept", "refuse"):
        raise InputError("‹response›", "must be accept or refuse", spec.response, "use ‹response› accept")
    s = "ab".index(spec.side)

    def pick(side: int, name: str | None, flag: str) -> int:
        able = [b for b, body in enumerate(bodies) if unit_side[body.unit] == side and body.challenger]
        able.sort(key=lambda b: (bodies[b].role != "character", b))
        if not able:
            raise InputError(flag, f"side {'AB'[side]} has no character or champion to "
                             f"{'issue' if side == s else 'answer'} a challenge", None,
                             "add a character (UNIT+CHARACTER) or a champion (‹champion_a›/b)")
        if name is None:
            return able[0]
        for b in able:
            if bodies[b].name == name:
                return b
        raise InputError(flag, f"no character or champion {name!r} on side {'AB'[side]}", name,
                         f"use one of {', '.join(bodies[b].name for b in able)}")

    issuer = pick(s, spec.issuer, "‹challenge›")
    other = pick(1 - s, spec.other, "‹acceptor›" if spec.response == "accept" else "‹refuser›")
    u, v = bodies[issuer].unit, bodies[other].unit
    if not (faces[u][0] == v or faces[v][0] == u):
        raise InputError("‹challenge›", f"{bodies[issuer].name} and {bodies[other].name} are in units "
                         "that do not fight each other", None, "challenge a model of the unit it fights")
    if spec.response == "refuse" and bodies[other].role == "rank and file":
        raise InputError("‹refuser›", f"{bodies[other].name} is alone: a lone model cannot refuse "
                         "(it has no unit to step back into)", bodies[other].name, "use ‹response› accept")
    return (issuer, other, 1 if spec.response == "accept" else 2, cap)
