"""Scenario file of a magic phase (``game = "magic"``), validated by pydantic (MG-8, MG-9).

See the README section "Magic phase" for the format; an example is
``profiles/scenarios/magic_t9a1_four_spells.toml``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mathhammer.errors import ProfileError

MAX_WIZARDS = 8


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Flow(_Strict):
    """How the pools are made: rolled (MG-1..MG-3) unless both pools are given."""

    channelers: int | None = Field(None, ge=0, le=30, description="default: the wizards listed")
    reactive_channelers: int = Field(0, ge=0, le=30)
    extra_power: int = Field(0, ge=0, le=12)
    extra_dispel: int = Field(0, ge=0, le=12)
    power_dice: int | None = Field(None, ge=0, le=12, description="fixed pool instead of the flow")
    dispel_dice: int | None = Field(None, ge=0, le=12)

    @model_validator(mode="after")
    def _both_or_neither(self) -> Flow:
        if (self.power_dice is None) != (self.dispel_dice is None):
            raise ValueError("give both power_dice and dispel_dice (fixed pools) or neither")
        return self


class Wizard(_Strict):
    name: str
    level: int = Field(ge=0, le=10)


class Spell(_Strict):
    name: str
    cv: int = Field(ge=2, le=60, description="casting value; a bound spell's power level")
    wizard: str | None = Field(None, description="name of a [[wizards]] entry; none for bound")
    bound: bool = False
    priority: int = 1
    weight: float = Field(1.0, ge=0.0, le=1000.0)
    dice: int | None = Field(None, ge=1, le=12, description="dice for dice_rule = fixed")
    target: float | None = Field(None, gt=0.0, le=1.0, description="per-spell target chance")
    modifier: int = Field(0, ge=-20, le=20)
    remains_in_play: bool = False

    @model_validator(mode="after")
    def _caster(self) -> Spell:
        if self.bound and self.wizard is not None:
            raise ValueError("a bound spell has no wizard (MG-7); drop wizard or bound")
        if self.bound and self.modifier:
            raise ValueError(f"a bound spell takes no casting modifiers (MG-7), got modifier = "
                             f"{self.modifier}; drop modifier or bound")
        if not self.bound and self.wizard is None:
            raise ValueError("name the casting wizard (wizard = \"...\") or set bound = true")
        return self


class Caster(_Strict):
    dice_rule: Literal["fixed", "target", "optimal"] = "target"
    target: float = Field(0.75, gt=0.0, le=1.0)
    miscast_ends_casting: bool = Field(
        True, description="decision: a wizard who miscasts casts no more this phase")


class Dispel(_Strict):
    policy: Literal["all_out", "threshold", "keep_dice"] = "all_out"
    level: int = Field(0, ge=0, le=10, description="level of the dispelling wizard; 0 = none")
    min_priority: int = 1
    keep: int = Field(0, ge=0, le=12)
    confidence: float = Field(0.85, gt=0.0, le=1.0)
    retry_remains_in_play: bool = Field(
        True, description="try again to dispel remains-in-play spells after the caster passes")


class InPlay(_Strict):
    """A remains-in-play spell from an earlier turn (MG-8)."""

    name: str
    owner: Literal["active", "reactive"]
    value: int = Field(ge=2, le=60, description="the dispel value to equal or beat")
    priority: int = 1
    dice: int = Field(0, ge=0, le=12, description="owner reactive: power dice the caster uses")
    level: int = Field(0, ge=0, le=10, description="owner reactive: the caster's dispel level")
    attempts: int | None = Field(
        None, ge=1, le=12, description="MG-8: dispel attempts on each part; default: owner "
        "active, until dispelled or the dispel policy gives no dice; owner reactive, 1")
    p_caster_slain: float = Field(
        0.0, ge=0.0, le=1.0, description="MG-8: chance its caster has been slain: the spell "
        "ends at the first step, no dice spent")
    parts: int = Field(1, ge=1, le=6, description="MG-8: the unit split into this many parts; "
                       "each keeps the spell and is dispelled separately")
    spell: str | None = Field(None, description="MG-8, owner active: the [[spells]] entry of "
                              "the same wizard; it cannot be cast while this is in play")

    @property
    def max_attempts(self) -> int:
        """MG-8 decision: the reactive player retries with dice left (each try uses ≥ 1 die)."""
        if self.attempts is not None:
            return self.attempts
        return 12 if self.owner == "active" else 1

    @model_validator(mode="after")
    def _link(self) -> InPlay:
        if self.spell is not None and self.owner != "active":
            raise ValueError(f"in_play {self.name!r}: spell = names the active player's own spell "
                             "(owner = \"active\"); drop spell")
        if self.spell is not None and self.p_caster_slain:
            raise ValueError(f"in_play {self.name!r}: a slain caster casts nothing this phase; "
                             "drop p_caster_slain or spell")
        return self


class MagicScenario(_Strict):
    schema_version: int = 1
    game: Literal["magic"] = "magic"
    name: str = ""
    ruleset: str = "t9a1"
    flow: Flow = Flow()
    caster: Caster = Caster()
    wizards: list[Wizard] = Field(default_factory=list, max_length=MAX_WIZARDS)
    spells: list[Spell] = Field(min_length=1, max_length=16)
    dispel: Dispel = Dispel()
    in_play: list[InPlay] = Field(default_factory=list, max_length=8)

    @model_validator(mode="after")
    def _references(self) -> MagicScenario:
        names = [w.name for w in self.wizards]
        if len(set(names)) != len(names):
            raise ValueError("wizard names must be unique")
        for i, spell in enumerate(self.spells, start=1):
            if spell.wizard is not None and spell.wizard not in names:
                raise ValueError(f"spell {i} ({spell.name}) names wizard {spell.wizard!r}, "
                                 f"not in [[wizards]] {names}")
            if self.caster.dice_rule == "fixed" and spell.dice is None:
                raise ValueError(f"spell {i} ({spell.name}) needs dice = N for dice_rule = fixed")
        spell_names = [sp.name for sp in self.spells]
        linked = [ip.spell for ip in self.in_play if ip.spell is not None]
        for name in linked:
            if name not in spell_names:
                raise ValueError(f"in_play spell = {name!r} is not a [[spells]] name {spell_names}")
            if self.spells[spell_names.index(name)].bound:
                raise ValueError(f"in_play spell = {name!r} is a bound spell; only a wizard's "
                                 "spell is barred while in play (MG-8)")
        if len(set(linked)) != len(linked):
            raise ValueError("two in_play entries name the same spell")
        return self


def load_scenario(data: dict, source: str) -> MagicScenario:
    """Validate a parsed scenario; every error of the file in one :class:`ProfileError`."""
    if not data.get("spells"):
        raise ProfileError(f"{source}: spells", "the spell list is empty or missing", None,
                           'add [[spells]] entries: name = "...", cv = 7, wizard = "..."')
    try:
        return MagicScenario(**data)
    except ValidationError as err:
        from mathhammer.profiles import pydantic_errors

        raise pydantic_errors(err, source) from None
    except TypeError as err:  # e.g. spells given as a table instead of a list
        raise ProfileError(source, f"malformed scenario ({err})", None,
                           "see the README section Magic phase") from None
