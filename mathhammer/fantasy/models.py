"""Fantasy unit profiles (PR-1..3): pydantic models, validation and loading.

A profile is a TOML file under ``profiles/fantasy/<ruleset>/<name>.toml`` (id
``wfb8/empire_halberdiers``) or any user file with the same keys. It describes one
model type (stat line, saves, melee weapon, special rules, mounts) and the unit it
forms by default (models, rank width, command). The close-combat engine
(:mod:`mathhammer.fantasy.combat.fight`) and the artillery engine read these objects; an
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
from typing import Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, ValidationError, field_validator, model_serializer,
                      model_validator)

from mathhammer.profiles import read_profile, register_model

Confidence = Literal["high", "medium", "low"]
#: troop types wfb8 Killing Blow slays (FB-W2); against others it has no effect
KILLING_BLOW_TROOPS = ("infantry", "cavalry", "war_beast")
TroopType = Literal["infantry", "cavalry", "war_beast", "monstrous_infantry",
                    "monstrous_cavalry", "monster", "war_machine", "swarm", "chariot"]

#: rules the combat engine acts on (FB-C2, FB-C5, FB-C6, FB-H3, FB-W2, FB-V2)
MODELLED_RULES = {
    "Always Strikes First": "FB-C2/FB-H3: strikes before Initiative order; wfb8 re-rolls misses if I >= enemy I",
    "Always Strikes Last": "FB-C2: strikes after everyone else",
    "Hatred": "FB-H3: re-roll failed to-hit rolls in the first round",
    "Stubborn": "FB-C5: break tests on unmodified Ld",
    "Unbreakable": "FB-C5: never breaks",
    "Unstable": "FB-C5: where the ruleset has unstable = \"lose_wounds\", a lost combat costs "
                "wounds equal to the difference instead of a break test",
    "Daemonic Instability": "FB-C5: where the ruleset has unstable = \"lose_wounds\", a lost combat "
                            "costs 2D6 + difference - Ld wounds if positive",
    "Swiftstride": "FB-C6: flee and pursue 3D6, keep the highest 2",
    "Killing Blow": "FB-W2: natural 6 to wound slays (wfb8) / Lethal Strike (t9a1)",
    "Poisoned Attacks": "FB-W2: natural 6 to hit wounds automatically",
    "Flaming Attacks": "FB-V2: switches off the enemy's Regeneration",
    "Frenzy": "FB-S1: +Attacks per the ruleset, lost after losing a round (Berserk Rage's "
              "compulsory moves not modelled)",
    "Devastating Charge": "+1 Attack in a round the unit charged",
}

#: where a profile names kit: ``equipment = ["halberd"]`` (FB-E1..E8, effects per ruleset)
from mathhammer.fantasy.combat.rules import EQUIPMENT_IDS  # noqa: E402
from mathhammer.words import plural  # noqa: E402

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
        from mathhammer.dice import checked_dice_text

        return checked_dice_text(text, 1, None, "multiple wounds must be at least 1")


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
    from mathhammer.dice import checked_dice_text

    return checked_dice_text(text, 0, 20, "must stay within 0..20 hits")


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


class Spell(_Frozen):
    """One spell a wizard casts in a battle's magic phase (FB-B12): a magic missile — the
    ``hits`` automatic hits at ``strength`` on one enemy unit in the caster's front arc, in
    sight and within ``range``, wounded and saved as shooting is (the wound chain); or a
    healing augment (``kind = "heal"``) — ``restores`` wounds back to the rank and file of a
    friendly unit within ``range`` (models it lost return, never beyond its start); or an
    augment / a hex (``kind = "augment"`` / ``"hex"``, FB-B30) — ``modifiers`` added to the
    close-combat characteristics of a friendly / an enemy unit in combat for the player turn."""

    name: str = Field(min_length=1)
    kind: Literal["missile", "heal", "augment", "hex"] = Field("missile", description="FB-B12")
    cv: int = Field(ge=2, le=30, description="casting value (MG-4)")
    range: float = Field(ge=1, le=72, description="inches")
    hits: str | None = Field(None, description='a missile\'s automatic hits: "D6", "2D6", "3"')
    strength: int | None = Field(None, ge=1, le=10, description="a missile's Strength")
    restores: str | None = Field(None, description='a heal\'s wounds restored: "D3+1"')
    armour_piercing: int = Field(0, ge=0, le=6)
    flaming: bool = Field(False, description="FB-V2: switches off Regeneration")
    modifiers: dict[Literal["ws", "s", "t", "i", "a"], int] | None = Field(
        None, description='FB-B30: an augment\'s or hex\'s changes, e.g. { ws = -1, t = -1 }')
    remains_in_play: bool = Field(False, description="FB-B31: an augment or hex that stays "
                                  "until dispelled or its caster is slain")
    confidence: Confidence | None = None

    _hits = field_validator("hits", "restores")(classmethod(lambda cls, v: _check_hits(v)))

    @model_validator(mode="after")
    def _kind_fields(self) -> Spell:
        if self.kind == "missile" and (self.hits is None or self.strength is None):
            raise ValueError(f"spell {self.name!r}: a missile needs hits and strength")
        if self.kind == "heal" and self.restores is None:
            raise ValueError(f'spell {self.name!r}: a heal needs restores (e.g. "D3+1")')
        if self.kind == "heal" and (self.hits is not None or self.strength is not None):
            raise ValueError(f"spell {self.name!r}: a heal has restores, not hits or strength")
        if self.kind == "missile" and self.restores is not None:
            raise ValueError(f"spell {self.name!r}: restores is for kind = \"heal\"")
        effect = self.kind in ("augment", "hex")
        article = "an" if self.kind == "augment" else "a"
        if effect and (self.hits is not None or self.strength is not None
                       or self.restores is not None):
            raise ValueError(f"spell {self.name!r}: {article} {self.kind} has modifiers, not hits, "
                             "strength or restores")
        if effect and (not self.modifiers or not all(self.modifiers.values())):
            raise ValueError(f"spell {self.name!r}: {article} {self.kind} needs modifiers, each "
                             "not 0 (e.g. modifiers = { ws = -1 })")
        if not effect and self.modifiers is not None:
            raise ValueError(f"spell {self.name!r}: modifiers are for kind = \"augment\" or "
                             '"hex"')
        if self.remains_in_play and not effect:
            raise ValueError(f"spell {self.name!r}: remains_in_play is for an augment or hex "
                             "(FB-B31)")
        if effect and any(abs(v) > 9 for v in self.modifiers.values()):
            raise ValueError(f"spell {self.name!r}: a modifier must be within -9..9")
        return self


class Wizard(_Frozen):
    """FB-B12: a character who casts (MG-4: ``level`` adds to the casting total and, when
    it dispels, to the dispel total) and channels (MG-2)."""

    level: int = Field(ge=1, le=4)
    lore: str = ""
    spells: tuple[Spell, ...] = Field(min_length=1, max_length=6)
    confidence: Confidence | None = None

    @model_validator(mode="after")
    def _unique(self) -> Wizard:
        names = [s.name for s in self.spells]
        if len(set(names)) != len(names):
            raise ValueError(f"spell names must be unique, got {names}")
        return self


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


#: the parts of a unit that carry points (PR-4), as keys of ``points.free``; a mount or an
#: item is named ``mounts.<mount name>`` / ``equipment.<item>`` (or ``mounts`` /
#: ``equipment`` for every one not priced in ``points.mounts`` / ``points.upgrades``)
PRICED_PARTS = ("per_model", "champion", "standard", "musician", "battle_standard", "mounts",
                "equipment")
COMMAND_WORDS = {"champion": "the champion", "standard": "the standard bearer",
                 "musician": "the musician", "battle_standard": "the battle standard"}


class Points(_Frozen):
    """What the unit costs (PR-4): ``unit`` (a fixed part; T9A books price a unit as a
    fixed part plus a price per model) + ``per_model`` x models, each model's ``upgrades``
    and ``mounts``, and the command it fields. A part priced 0 must name in ``free`` the
    rule that makes it free, or the profile is refused (a forgotten price is not 0)."""

    per_model: int = Field(ge=0, le=5000)
    unit: int = Field(0, ge=-5000, le=5000, description="the unit's fixed part (T9A: the unit costs "
                                                         "unit + per_model x models)")
    min_models: int | None = Field(None, ge=1, le=200, description="the smallest unit the army "
                                                                  "book sells")
    max_models: int | None = Field(None, ge=1, le=200, description="the largest unit the army "
                                                                  "book sells")
    champion: int = Field(0, ge=0, le=1000)
    standard: int = Field(0, ge=0, le=1000)
    musician: int = Field(0, ge=0, le=1000)
    battle_standard: int = Field(0, ge=0, le=1000, description="the battle standard bearer upgrade")
    upgrades: dict[str, int] = Field(default_factory=dict, description="army-book options the "
                                     "profile carries, points per model: kit in equipment or in its "
                                     "saves (\"heavy armour\"), magic items")
    mounts: dict[str, int] = Field(default_factory=dict, description="mount name -> its points")
    kit_options: dict[str, int] = Field(default_factory=dict, description="equipment the army "
                                        "book lets a list buy for the unit and it does not carry "
                                        "yet, points per model (a kit id, FB-E1..E8); a list entry "
                                        "buys one with buys = \"<id>\"")
    free: dict[str, str] = Field(default_factory=dict, description="part -> the rule that makes it "
                                 "free (a unit's own kit, a champion the book includes)")
    confidence: Confidence | None = None

    @field_validator("kit_options")
    @classmethod
    def _kit_ids(cls, table: dict[str, int]) -> dict[str, int]:
        _check_equipment(tuple(table))
        return cls._priced(table)

    @field_validator("upgrades", "mounts")
    @classmethod
    def _priced(cls, table: dict[str, int]) -> dict[str, int]:
        for name, points in table.items():
            if isinstance(points, bool) or not isinstance(points, int) or not 1 <= points <= 5000:
                raise ValueError(f"{name!r} costs {points!r}: give 1..5000 points, or name the rule "
                                 "that makes it free under points.free")
        return table

    @field_validator("free")
    @classmethod
    def _reasons(cls, table: dict[str, str]) -> dict[str, str]:
        for part, why in table.items():
            if part.split(".", 1)[0] not in PRICED_PARTS or part in ("mounts.", "equipment."):
                raise ValueError(f"unknown part {part!r}; free parts are {', '.join(PRICED_PARTS)}, "
                                 "mounts.<name>, equipment.<item>")
            if len(why.strip()) < 8:
                raise ValueError(f"{part}: say which rule makes it free (got {why!r})")
        return table

    @model_serializer(mode="wrap")
    def _shown(self, handler) -> dict[str, Any]:
        """Parts left at their default (no fixed part, no command price) are not shown: a
        card never prints a 0-point champion the unit cannot have."""
        data = handler(self)
        if isinstance(data, dict):
            for name, spec in type(self).model_fields.items():
                if name != "per_model" and name in data and data[name] == spec.get_default(
                        call_default_factory=True) and not (name in self.free
                                                            and name in COMMAND_WORDS):
                    del data[name]
        return data

    def per_model_total(self) -> int:
        """What each model costs: itself, its upgrades and its mounts."""
        return self.per_model + sum(self.upgrades.values()) + sum(self.mounts.values())


class Machine(_Frozen):
    """FB-WM1: a war machine's own profile; its crew is the unit's stat line and formation."""

    name: str = Field(min_length=1, description="the machine, e.g. Great Cannon")
    t: int = Field(ge=1, le=10, description="Toughness against shooting and magic (FB-WM1)")
    w: int = Field(ge=1, le=20, description="Wounds (t9a1; in wfb8 the crew count is its Wounds)")
    fires: Literal["stone-thrower", "cannon", "bolt-thrower", "flame-cannon", "multi-barrel"] | None = \
        Field(None, description="FB-WM2: the artillery piece it fires in fb battle (fb artillery "
                                "WEAPON); none: it only stands and fights")
    range: int | None = Field(None, ge=1, le=120, description="FB-WM2: the piece's range in inches")

    @model_validator(mode="after")
    def _a_piece_has_a_range(self):
        if self.fires is not None and self.range is None:
            raise ValueError(f"a machine that fires a {self.fires} needs its range = inches")
        return self


class UnitProfile(_Frozen):
    """One fantasy unit profile (see docs/guide/fantasy.md, unit files)."""

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
    wizard: Wizard | None = Field(None, description="FB-B12: a character's wizard level and "
                                                    "spells (the battle's magic phase)")
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
        if self.wizard is not None and self.role != "character":
            raise ValueError('a [wizard] table is for role = "character" profiles (FB-B12)')
        if self.level is not None and self.role != "character":
            raise ValueError('level (lord / hero) is for role = "character" profiles')
        self._priced_parts_exist()
        return self

    def _priced_parts_exist(self) -> None:
        """PR-4: a price names a part the profile has (a typo is not a free upgrade)."""
        p = self.points
        mounts = {m.name for m in self.mounts}
        for name in p.mounts:
            if name not in mounts:
                raise ValueError(f"points.mounts: {name!r} is not one of the profile's mounts "
                                 f"({', '.join(sorted(mounts)) or 'it has none'})")
        for name in p.upgrades:
            if "_" in name and name not in self.equipment:
                raise ValueError(f"points.upgrades: {name!r} is neither an item of its equipment "
                                 f"({', '.join(self.equipment) or 'none'}) nor an upgrade named in "
                                 'words ("heavy armour")')
        for item in p.kit_options:
            if item in self.equipment:  # its armour and weapon already count it: not sold twice
                raise ValueError(f"points.kit_options: {item!r} is already in its equipment; "
                                 "sell only kit the model does not carry")
        for part in p.free:
            head, _, item = part.partition(".")
            if head == "mounts" and item and item not in mounts:
                raise ValueError(f"points.free: {part!r} names no mount of the profile")
            if head == "equipment" and item and item not in self.equipment:
                raise ValueError(f"points.free: {part!r} names no item of its equipment")

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
        """The unit's price (PR-4): its fixed part, each model with its upgrades and mounts,
        and the command of ``formation`` (the profile's own by default)."""
        f = formation or self.formation
        p = self.points
        return (p.unit + p.per_model_total() * f.models + p.champion * f.champion
                + p.standard * f.standard + p.musician * f.musician
                + p.battle_standard * f.battle_standard)

    def unpriced(self, formation: Formation | None = None) -> list[tuple[str, str, str]]:
        """``[(key path, what, its key in points.free)]``: the parts of the unit in ``formation`` priced 0 without a
        rule in ``points.free`` making them free (PR-4); empty when everything is priced."""
        f = formation or self.formation
        p = self.points
        out = []
        if p.per_model == 0 and p.unit <= 0 and "per_model" not in p.free:
            out.append(("points.per_model", f"{self.name} is priced 0 points", "per_model"))
        elif p.per_model == 0 and "per_model" not in p.free:
            out.append(("points.per_model", f"{self.name}'s models are priced 0 points each",
                        "per_model"))
        for part, words in COMMAND_WORDS.items():
            if getattr(f, part) and getattr(p, part) == 0 and part not in p.free:
                out.append((f"points.{part}", f"{words} of {self.name} is priced 0 points", part))
        for mount in self.mounts:
            if (mount.name not in p.mounts and "mounts" not in p.free
                    and f"mounts.{mount.name}" not in p.free):
                out.append(("points.mounts", f"the mount {mount.name} of {self.name} has no price",
                            f"mounts.{mount.name}"))
        for item in self.equipment:
            if item not in p.upgrades and "equipment" not in p.free and f"equipment.{item}" not in p.free:
                out.append(("points.upgrades", f"the {item.replace('_', ' ')} of {self.name} has no "
                            "price", f"equipment.{item}"))
        return out

    def size_problem(self, models: int) -> str | None:
        """Why a unit of ``models`` is not one the army book sells, or None."""
        low, high = self.points.min_models, self.points.max_models
        if (low is not None and models < low) or (high is not None and models > high):
            sold = (f"{low} to {high}" if low and high else f"at least {low}" if low
                    else f"at most {high}")
            return f"{self.name} come in units of {plural(sold, 'model')} (its army book)"
        return None


def validate_unit(data: dict, source: str) -> UnitProfile:
    """Validate a parsed TOML dict; every error of the file in one ProfileError. Prices are
    checked where a unit is bought (:func:`check_prices`: `profiles validate`, the list
    loader), so a what-if unit of your own still fights in ``fb`` commands unpriced."""
    try:
        return UnitProfile.model_validate(data)
    except ValidationError as err:
        from mathhammer.profiles import pydantic_errors

        raise pydantic_errors(err, source) from None


def check_prices(unit: UnitProfile, source: str, formation: Formation | None = None) -> None:
    """PR-4: every part of the unit (in ``formation``) carries points or a rule making it
    free; the smallest unit sold costs more than 0; the unit is a size the book sells.

    Raises:
        ProfileError: one line naming the key path and the part.
    """
    from mathhammer.errors import ProfileError

    problems = unit.unpriced(formation)
    if problems:
        key, what, part = problems[0]
        more = f" (and {len(problems) - 1} more unpriced)" if len(problems) > 1 else ""
        raise ProfileError(f"{source}: {key}", what + more, None,
                           "give its points from the army book, or name the rule that makes it "
                           f'free: points.free = {{ "{part}" = "why" }}')
    p = unit.points
    if p.min_models is not None and p.max_models is not None and p.min_models > p.max_models:
        raise ProfileError(f"{source}: points.min_models", f"is above max_models {p.max_models}",
                           p.min_models, "use min_models <= max_models")
    smallest = p.min_models or 1
    if p.unit + p.per_model_total() * smallest <= 0 and "per_model" not in p.free:
        raise ProfileError(f"{source}: points.unit", f"the smallest unit ({smallest} models) costs "
                           f"{p.unit + p.per_model_total() * smallest} points", p.unit,
                           "give min_models (the smallest unit the army book sells) or the book's "
                           "fixed part")
    models = (formation or unit.formation).models
    size = unit.size_problem(models)
    if size:
        raise ProfileError(f"{source}: formation.models", size, models,
                           f"use {p.min_models or 1}..{p.max_models or 200} models")


register_model("fantasy", validate_unit)


def load_unit(ref: str) -> UnitProfile:
    """A unit by profile id (``wfb8/empire_halberdiers``, or ``empire_halberdiers``
    when unambiguous) or by the path of a TOML unit file."""
    path, data = read_profile("fantasy", ref)
    return validate_unit(data, str(path))


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

