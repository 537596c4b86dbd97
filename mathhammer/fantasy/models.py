"""Fantasy unit profiles (PR-1..3): pydantic models, validation and loading.

A profile is a TOML file under ``profiles/fantasy/<ruleset>/<name>.toml`` (id
``wfb8/empire_halberdiers``) or any user file with the same keys. It describes one
model type (stat line, saves, melee weapon, special rules, mounts) and the unit it
forms by default (models, rank width, command). The close-combat engine
(:mod:`mathhammer.fantasy.combat`) and the artillery engine read these objects; an
inline unit file for ``mathhammer fb combat`` is simply a profile file.

Special rules listed in ``special_rules`` must be ones the engine models
(:data:`MODELLED_RULES`); anything else goes to ``notes`` (shown, not simulated), so a
typo is an error naming its key instead of a rule that silently does nothing.

>>> unit = load_unit("wfb8/empire_halberdiers")          # doctest: +SKIP
>>> unit.stats.ws, unit.saves.armour, unit.formation.models  # doctest: +SKIP
(3, 6, 20)
"""

from __future__ import annotations

import difflib
import re
from typing import Literal

from pydantic import (BaseModel, ConfigDict, Field, ValidationError, field_validator,
                      model_validator)

from mathhammer.profiles import find_profile, read_toml, register_model

Confidence = Literal["high", "medium", "low"]
TroopType = Literal["infantry", "cavalry", "war_beast", "monstrous_infantry",
                    "monstrous_cavalry", "monster", "war_machine", "swarm", "chariot"]

#: rules the combat engine acts on (FB-C2, FB-C5, FB-C6, FB-H3, FB-W2, FB-V2)
MODELLED_RULES = {
    "Always Strikes First": "FB-C2/FB-H3: strikes before Initiative order; wfb8 re-rolls misses if I >= enemy I",
    "Always Strikes Last": "FB-C2: strikes after everyone else",
    "Hatred": "FB-H3: re-roll failed to-hit rolls in the first round",
    "Stubborn": "FB-C5: break tests on unmodified Ld",
    "Unbreakable": "FB-C5: never breaks",
    "Unstable": "FB-C5: on a lost combat loses wounds equal to the difference (t9a1 rule; wfb8 Undead)",
    "Daemonic Instability": "FB-C5: on a lost combat loses 2D6 + difference - Ld wounds if positive",
    "Swiftstride": "FB-C6: flee and pursue 3D6, keep the highest 2",
    "Killing Blow": "FB-W2: natural 6 to wound slays (wfb8) / Lethal Strike (t9a1)",
    "Poisoned Attacks": "FB-W2: natural 6 to hit wounds automatically",
    "Flaming Attacks": "FB-V2: switches off the enemy's Regeneration",
    "Frenzy": "FB-S1: +Attacks per the ruleset, lost after losing a round (Berserk Rage's "
              "compulsory moves not modelled)",
    "Devastating Charge": "+1 Attack in a round the unit charged",
}

#: where a profile names kit: ``equipment = ["halberd"]`` (FB-E1..E8, effects per ruleset)
from mathhammer.fantasy.combat_rules import EQUIPMENT_IDS  # noqa: E402

_BASE_TEXT = re.compile(r"^(\d{2,3})(?:mm|x(\d{2,3}))$")


def parse_base(base) -> tuple[int, int]:
    """Base size in mm (FB-R5): "20mm" (square), "25x50" (width x depth) or [w, d]."""
    if isinstance(base, str):
        match = _BASE_TEXT.match(base.strip())
        if not match:
            raise ValueError(f'unknown base {base!r}; use "20mm", "25x50" or [width, depth] in mm')
        w = int(match.group(1))
        return (w, int(match.group(2) or w))
    w, d = base
    return (int(w), int(d))


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Stats(_Frozen):
    """M WS BS S T W I A Ld. S, T, I, Ld are 1..10 (T 11 is an error); WS and BS 0
    play the ruleset's FB-V0 rule (WS 0 is hit automatically, BS 0 cannot shoot);
    A 0 means no attacks."""

    m: int = Field(ge=0, le=20)
    ws: int = Field(ge=0, le=10)
    bs: int = Field(ge=0, le=10)
    s: int = Field(ge=1, le=10)
    t: int = Field(ge=1, le=10)
    w: int = Field(ge=1, le=20)
    i: int = Field(ge=1, le=10)
    a: int = Field(ge=0, le=10)
    ld: int = Field(ge=2, le=10)


class Saves(_Frozen):
    """Saves as printed: ``armour = 5`` is a 5+ save (1..6; 1+ allowed, a natural 1
    still fails). Omit a key for no save; 7 or more is an error, not "no save"."""

    armour: int | None = Field(None, ge=1, le=6, description="armour save X+ (FB-V1)")
    ward: int | None = Field(None, ge=2, le=6, description="ward save X+ (FB-V2)")
    regeneration: int | None = Field(None, ge=2, le=6, description="regeneration X+ (FB-V2)")


class Weapon(_Frozen):
    """The melee weapon a model fights with (reference §3d; kit effects FB-C1/C2)."""

    name: str = Field("hand weapon", min_length=1)
    strength_bonus: int = Field(0, ge=0, le=5, description="halberd +1, great weapon +2")
    charge_strength_bonus: int = Field(0, ge=0, le=5, description="lance +2 in a round the model charged")
    armour_piercing: int = Field(0, ge=0, le=6, description="extra armour save modifier (FB-V1)")
    extra_attacks: int = Field(0, ge=0, le=5, description="additional / paired weapons +1")
    extra_supporting_ranks: int = Field(0, ge=0, le=3, description="spear: fights in an extra rank (FB-C1)")
    strikes_last: bool = Field(False, description="great weapon in wfb8 (FB-C2)")
    melee_armour_bonus: int = Field(0, ge=0, le=2,
                                    description="wfb8 hand weapon and shield: +1 armour in close combat")
    multiple_wounds: str | None = Field(None, description='dice text, e.g. "D3" (FB-V3)')
    confidence: Confidence | None = None

    @field_validator("multiple_wounds")
    @classmethod
    def _dice(cls, text: str | None) -> str | None:
        if text is None:
            return None
        from mathhammer.dice import parse_dice
        from mathhammer.errors import DiceExpressionError

        try:
            expr = parse_dice(text)
        except DiceExpressionError as err:
            raise ValueError(err.what) from None
        if expr.min < 1:
            raise ValueError("multiple wounds must be at least 1")
        return text


def _check_equipment(items: tuple[str, ...]) -> tuple[str, ...]:
    for item in items:
        if item not in EQUIPMENT_IDS:
            close = difflib.get_close_matches(item, list(EQUIPMENT_IDS), n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"unknown equipment {item!r}; {hint}known: {', '.join(EQUIPMENT_IDS)}")
    if len(set(items)) != len(items):
        raise ValueError("an item is listed twice")
    return items


def _check_rules(rules: tuple[str, ...]) -> tuple[str, ...]:
    for rule in rules:
        if rule not in MODELLED_RULES:
            close = difflib.get_close_matches(rule, list(MODELLED_RULES), n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"unknown special rule {rule!r}; {hint}the engine models "
                             f"{', '.join(MODELLED_RULES)}; put other rules in notes")
    return rules


def _check_hits(text: str | None) -> str | None:
    """Dice text of a number of automatic hits (impact hits, stomp): 0..20."""
    if text is None:
        return None
    from mathhammer.dice import parse_dice
    from mathhammer.errors import DiceExpressionError

    try:
        expr = parse_dice(str(text))
    except DiceExpressionError as err:
        raise ValueError(err.what) from None
    if expr.min < 0 or expr.max > 20:
        raise ValueError("must stay within 0..20 hits")
    return str(text)


class BreathWeapon(_Frozen):
    """FB-S7: a breath weapon, used once per game (``ruleset.combat.breath_uses``)."""

    strength: int = Field(ge=1, le=10)
    armour_piercing: int = Field(0, ge=0, le=6)
    flaming: bool = False
    confidence: Confidence | None = None


class Mount(_Frozen):
    """The mount of a model: a horse that only fights (``t``/``w`` omitted; the rider gets
    ``rider_armour_bonus``), or a ridden monster with its own T, W and saves (FB-P1):
    then the model has two parts, each attacked, wounded and slain on its own."""

    name: str = Field(min_length=1)
    m: int | None = Field(None, ge=0, le=20, description="the model moves at its mount's M "
                                                       "(charges, flights: FB-G1)")
    ws: int = Field(ge=1, le=10)
    s: int = Field(ge=1, le=10)
    i: int = Field(ge=1, le=10)
    a: int = Field(ge=0, le=10)
    t: int | None = Field(None, ge=1, le=10, description="FB-P1: a ridden monster's own T")
    w: int | None = Field(None, ge=1, le=20, description="FB-P1: a ridden monster's own W")
    ld: int | None = Field(None, ge=2, le=10, description="the monster's Ld once its rider is slain")
    saves: Saves = Saves()
    rider_armour_bonus: int = Field(0, ge=0, le=3, description="FB-P1: improves the rider's armour")
    troop_type: TroopType = "monster"
    weapon: Weapon = Weapon(name="claws and teeth")
    equipment: tuple[str, ...] = ()
    special_rules: tuple[str, ...] = ()
    impact_hits: str | None = Field(None, description="FB-S5: impact hits on the charge (dice)")
    stomp: str | None = Field(None, description='FB-S6: stomp hits ("1"; thunderstomp "D6")')
    breath_weapon: BreathWeapon | None = None
    confidence: Confidence | None = None

    _equipment = field_validator("equipment")(classmethod(lambda cls, v: _check_equipment(v)))
    _rules = field_validator("special_rules")(classmethod(lambda cls, v: _check_rules(v)))
    _hits = field_validator("impact_hits", "stomp")(classmethod(lambda cls, v: _check_hits(v)))

    @property
    def is_part(self) -> bool:
        """A ridden monster (own T and W): a second part of the model (FB-P1)."""
        return self.t is not None

    @model_validator(mode="after")
    def _t_and_w(self) -> Mount:
        if (self.t is None) != (self.w is None):
            raise ValueError("a ridden monster needs both t and w (omit both for a mount that "
                             "only fights)")
        return self


class RangedWeapon(_Frozen):
    """The unit's missile weapon, fired in a battle's shooting phase and as a stand and
    shoot reaction (``fb battle``: FB-B6, FB-H2, FB-G2); ``fb shoot`` takes the same numbers
    as flags."""

    name: str = Field(min_length=1)
    range: float = Field(ge=1, le=120, description="inches; beyond half of it: long range (FB-H2)")
    strength: int = Field(ge=1, le=10)
    shots: str = Field("1", description='shots per model: "1", "2", "D3"')
    armour_piercing: int = Field(0, ge=0, le=6)
    multiple_wounds: str | None = Field(None, description='dice text, e.g. "D3" (FB-V3)')
    move_or_fire: bool = Field(False, description="cannot shoot in a turn the unit moved")
    confidence: Confidence | None = None

    _shots = field_validator("shots")(classmethod(lambda cls, v: _check_hits(v)))

    @field_validator("multiple_wounds")
    @classmethod
    def _wounds(cls, text: str | None) -> str | None:
        checked = _check_hits(text)  # dice text of 0..20
        if checked is not None:
            from mathhammer.dice import parse_dice

            if parse_dice(checked).min < 1:
                raise ValueError("multiple wounds must be at least 1")
        return checked


class Champion(_Frozen):
    """FB-K2: a champion's own stat line; keys left out are the unit's (A + the unit's
    ``champion_extra_attacks``)."""

    name: str | None = None
    ws: int | None = Field(None, ge=1, le=10)
    bs: int | None = Field(None, ge=0, le=10)
    s: int | None = Field(None, ge=1, le=10)
    w: int | None = Field(None, ge=1, le=10)
    i: int | None = Field(None, ge=1, le=10)
    a: int | None = Field(None, ge=0, le=10)
    ld: int | None = Field(None, ge=2, le=10)


class Formation(_Frozen):
    """The default unit: models, rank width, command (FB-C1, FB-C4, FB-R5)."""

    models: int = Field(ge=1, le=200)
    rank_width: int = Field(ge=1, le=40)
    champion: bool = False
    standard: bool = False
    musician: bool = False
    battle_standard: bool = Field(False, description="a battle standard bearer in the unit (FB-C4)")


class Points(_Frozen):
    per_model: int = Field(ge=0)
    champion: int = Field(0, ge=0)
    standard: int = Field(0, ge=0)
    musician: int = Field(0, ge=0)
    confidence: Confidence | None = None


class Machine(_Frozen):
    """FB-WM1: a war machine's own profile; its crew is the unit's stat line and formation."""

    name: str = Field(min_length=1, description="the machine, e.g. Great Cannon")
    t: int = Field(ge=1, le=10, description="Toughness against shooting and magic (FB-WM1)")
    w: int = Field(ge=1, le=20, description="Wounds (t9a1; in wfb8 the crew count is its Wounds)")


class UnitProfile(_Frozen):
    """One fantasy unit profile (see README "Fantasy unit files")."""

    schema_version: Literal[1] = 1
    game: Literal["fantasy"] = "fantasy"
    id: str = Field(pattern=r"^[a-z0-9_\-]+(/[a-z0-9_\-]+)*$")
    name: str = Field(min_length=1)
    ruleset: Literal["basic", "wfb8", "t9a1"] = Field(description="the edition the numbers are for")
    army: str = ""
    troop_type: TroopType = "infantry"
    base: str | tuple[int, int] = Field("20mm", description='"20mm", "25x50" ... or [width, depth] in mm')
    confidence: Confidence = "medium"
    sources: tuple[str, ...] = ()
    stats: Stats
    saves: Saves = Saves()
    weapon: Weapon = Weapon()
    role: Literal["unit", "character"] = Field("unit", description="FB-K1: a character is one "
                                                                   "model that may join a unit")
    level: Literal["lord", "hero"] | None = Field(None, description="FB-K1: a character's slot")
    equipment: tuple[str, ...] = Field((), description="kit ids, effects per ruleset (FB-E1..E8)")
    mounts: tuple[Mount, ...] = ()
    special_rules: tuple[str, ...] = ()
    impact_hits: str | None = Field(None, description="FB-S5: impact hits on the charge (dice)")
    stomp: str | None = Field(None, description='FB-S6: stomp hits ("1"; thunderstomp "D6")')
    breath_weapon: BreathWeapon | None = None
    machine: Machine | None = Field(None, description="FB-WM1: a war machine's machine (crew = "
                                                      "the stat line and formation)")
    ranged: RangedWeapon | None = Field(None, description="the missile weapon a battle fires "
                                                          "(FB-B6)")
    notes: tuple[str, ...] = Field((), description="rules the engine does not simulate (shown only)")
    aliases: tuple[str, ...] = Field((), max_length=12, description="other names list builders print (mathhammer import)")
    champion_extra_attacks: int = Field(1, ge=0, le=5)
    champion: Champion | None = Field(None, description="FB-K2: the champion's own stat line")
    formation: Formation
    points: Points
    low_confidence: dict[str, str] = Field(default_factory=dict,
                                           description="key path -> the doubt (PR-2)")

    @field_validator("base")
    @classmethod
    def _base(cls, base):
        w, d = parse_base(base)
        if not (10 <= w <= 200 and 10 <= d <= 200):
            raise ValueError("base width and depth are 10..200 mm")
        return base if isinstance(base, str) else (w, d)

    @field_validator("special_rules")
    @classmethod
    def _known_rules(cls, rules: tuple[str, ...]) -> tuple[str, ...]:
        return _check_rules(rules)

    _equipment = field_validator("equipment")(classmethod(lambda cls, v: _check_equipment(v)))
    _hits = field_validator("impact_hits", "stomp")(classmethod(lambda cls, v: _check_hits(v)))

    @model_validator(mode="before")
    @classmethod
    def _replaced_keys(cls, data):
        if isinstance(data, dict):
            for key in ("defence_t", "defence_w"):
                if key in data:
                    raise ValueError(f"{key} was replaced by a rider + mount model (FB-P1): give "
                                     "the monster's t and w (and saves) on its [[mounts]] entry")
        return data

    @model_validator(mode="after")
    def _single_models(self) -> UnitProfile:
        if self.role == "character" and self.formation.models != 1:
            raise ValueError("a character is a single model: formation.models must be 1")
        parts = [m for m in self.mounts if m.is_part]
        if parts and self.formation.models != 1:
            raise ValueError(f"{parts[0].name} has its own t and w (a ridden monster, FB-P1): "
                             "such a model is a single model, formation.models must be 1")
        if len(parts) > 1:
            raise ValueError("at most one ridden monster per model")
        if self.troop_type in ("cavalry", "monstrous_cavalry") and not self.mounts:
            raise ValueError(f"a {self.troop_type.replace('_', ' ')} model is a rider and its mount "
                             "(FB-P1): add a [[mounts]] entry (name, ws, s, i, a)")
        if (self.troop_type == "war_machine") != (self.machine is not None):
            raise ValueError("a war machine (troop_type = \"war_machine\") and a [machine] table "
                             "(name, t, w) go together (FB-WM1)")
        if self.level is not None and self.role != "character":
            raise ValueError('level (lord / hero) is for role = "character" profiles')
        return self

    # ---- derived values ---------------------------------------------------------------
    @property
    def base_mm(self) -> tuple[int, int]:
        return parse_base(self.base)

    @property
    def toughness(self) -> int:
        """The rider's (the model's own) T; a ridden monster's is on its mount (FB-P1)."""
        return self.stats.t

    @property
    def wounds(self) -> int:
        return self.stats.w

    @property
    def movement(self) -> int:
        """The model's M: a mounted model moves at its mount's M when the mount gives one."""
        mount = next((m.m for m in self.mounts if m.m is not None), None)
        return self.stats.m if mount is None else mount

    @property
    def ridden_monster(self) -> Mount | None:
        """The mount that is a second part of this model (own T, W), if any (FB-P1)."""
        return next((m for m in self.mounts if m.is_part), None)

    @property
    def mounted(self) -> bool:
        """Riding anything (cavalry, chariot crew, a monster): mounted kit effects apply."""
        return bool(self.mounts) or self.troop_type in ("cavalry", "monstrous_cavalry", "chariot")

    def has(self, rule: str) -> bool:
        return rule in self.special_rules

    def unit_points(self, formation: Formation | None = None) -> int:
        f = formation or self.formation
        p = self.points
        return (p.per_model * f.models + p.champion * f.champion + p.standard * f.standard
                + p.musician * f.musician)


def validate_unit(data: dict, source: str) -> UnitProfile:
    """Validate a parsed TOML dict; every error of the file in one ProfileError."""
    try:
        return UnitProfile.model_validate(data)
    except ValidationError as err:
        from mathhammer.profiles import pydantic_errors

        raise pydantic_errors(err, source) from None


register_model("fantasy", validate_unit)


def load_unit(ref: str) -> UnitProfile:
    """A unit by profile id (``wfb8/empire_halberdiers``, or ``empire_halberdiers``
    when unambiguous) or by the path of a TOML unit file."""
    path = find_profile("fantasy", ref)
    return validate_unit(read_toml(path), str(path))


def with_formation(unit: UnitProfile, **changes) -> UnitProfile:
    """A copy of ``unit`` with formation fields changed (models, rank_width, command)."""
    values = {k: v for k, v in changes.items() if v is not None}
    if not values:
        return unit
    try:
        formation = Formation.model_validate({**unit.formation.model_dump(), **values})
    except ValidationError as err:
        from mathhammer.profiles import pydantic_errors

        raise pydantic_errors(err, f"{unit.id}: formation") from None
    return unit.model_copy(update={"formation": formation})

