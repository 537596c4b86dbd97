"""Scenario file of a magic phase (``game = "magic"``), validated by pydantic (MG-8, MG-9).

See docs/guide/magic.md for the format; an example is
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
                           "see docs/guide/magic.md") from None


# ---- a phase from a few words (the CLI's --spell options, a web form) ----------------------
#: the single wizard's name when a phase is given by options rather than a file
WIZARD = "wizard"
#: the scenario field each option fills, for naming the option in an error line
_OPTION_OF = {("wizards", "level"): "level", ("dispel", "level"): "dispel_level",
              ("flow", "power_dice"): "power_dice", ("flow", "dispel_dice"): "dispel_dice",
              ("flow", "channelers"): "channelers",
              ("flow", "reactive_channelers"): "reactive_channelers",
              ("caster", "dice_rule"): "dice_rule", ("caster", "target"): "target"}


_OPTION_FIX = {"level": "a level 0..10", "dispel_level": "a level 0..10 (0: no wizard)",
               "power_dice": "both pools, power and dispel dice, each 0..12; or neither for "
               "the flow roll", "dispel_dice": "a pool of 0..12",
               "channelers": "0..30", "reactive_channelers": "0..30",
               "dice_rule": "fixed, target or optimal", "target": "a chance above 0, at most 1"}


def parse_spell(text: str, where: str = "spell") -> dict:
    """``NAME:CASTING_VALUE[:DICE][:bound]`` as a ``[[spells]]`` table (without its wizard).

    A bound spell's casting value is its power level (MG-7). The name may hold colons;
    the numbers are read from the right.
    """
    from mathhammer.errors import InputError

    fix = 'write NAME:CASTING_VALUE[:DICE][:bound], e.g. "Fireball:8:3" or "Burning blade:4:bound"'
    parts = str(text).split(":")
    bound = len(parts) > 1 and parts[-1].strip().lower() == "bound"
    if bound:
        parts.pop()
    numbers = []
    while len(parts) > 1 and len(numbers) < 2 and parts[-1].strip().isdecimal():
        if len(parts[-1].strip()) > 6:  # no casting value or dice count is that long
            raise InputError(where, "a casting value is 2..60 and DICE 1..12", text, fix)
        numbers.insert(0, int(parts.pop()))
    name = ":".join(parts).strip()
    if not numbers or not name:
        raise InputError(where, "needs a spell name and its casting value", text, fix)
    spell = {"name": name, "cv": numbers[0], "bound": bound}
    if len(numbers) == 2:
        spell["dice"] = numbers[1]
    return spell


def scenario_from_options(
    spells: list[str], *, level: int | None = None, dispel_level: int = 0,
    ruleset: str = "t9a1", power_dice: int | None = None, dispel_dice: int | None = None,
    channelers: int | None = None, reactive_channelers: int = 0,
    dice_rule: str | None = None, target: float | None = None,
) -> MagicScenario:
    """A phase with one casting wizard of ``level``: what the common case asks, no file.

    ``spells`` are :func:`parse_spell` texts, cast in this order (every priority 1).
    Dice rule: ``fixed`` when the spells give their dice, else ``dice_rule`` (default the
    scenario file's, ``target``). Pools roll the flow unless ``power_dice`` and
    ``dispel_dice`` are given. Errors name the parameter (``spell``, ``level`` …).
    """
    from mathhammer.errors import InputError

    if not spells:
        raise InputError("spell", "a phase needs at least one spell", None,
                         'e.g. "Fireball:8" with a wizard level, or a scenario file')
    tables = [parse_spell(text) for text in spells]
    with_dice = [t for t in tables if "dice" in t]
    if with_dice and dice_rule not in (None, "fixed"):
        raise InputError("spell", f"DICE is for the fixed dice rule, not {dice_rule}",
                         spells[tables.index(with_dice[0])],
                         "drop the :DICE parts, or the other dice rule")
    if with_dice and len(with_dice) < len(tables):
        missing = next(text for text, t in zip(spells, tables, strict=True) if "dice" not in t)
        raise InputError("spell", "give DICE for every spell or for none", missing,
                         "add :DICE to each spell, or drop them all for the target rule")
    rule = "fixed" if with_dice else (dice_rule or "target")
    if rule == "fixed" and not with_dice:
        raise InputError("dice_rule", "the fixed rule casts each spell with its own dice",
                         rule, 'add :DICE to each spell, e.g. "Fireball:8:3"')
    casters = [t for t in tables if not t["bound"]]
    if casters and level is None:
        raise InputError("level", "the casting wizard's level is needed for a wizard's spell",
                         None, "give it, e.g. 2 (or mark a bound spell NAME:LEVEL:bound)")
    for t in casters:
        t["wizard"] = WIZARD
    data: dict = {
        "game": "magic", "ruleset": ruleset,
        "name": _phase_name(tables, level, dispel_level),
        "flow": {"reactive_channelers": reactive_channelers},
        "caster": {"dice_rule": rule},
        "wizards": [{"name": WIZARD, "level": level}] if casters else [],
        "spells": tables, "dispel": {"level": dispel_level},
    }
    if channelers is not None:
        data["flow"]["channelers"] = channelers
    if power_dice is not None or dispel_dice is not None:
        data["flow"].update(power_dice=power_dice, dispel_dice=dispel_dice)
    if target is not None:
        data["caster"]["target"] = target
    try:
        return MagicScenario(**data)
    except ValidationError as err:
        raise _option_error(err, spells) from None


def _phase_name(tables: list[dict], level: int | None, dispel_level: int) -> str:
    names = ", ".join(t["name"] for t in tables)
    caster = f"level {level} wizard" if level is not None else "bound spells"
    return f"{names} ({caster} vs dispel level {dispel_level})"


def _option_error(err: ValidationError, spells: list[str]) -> Exception:
    """The first problem of a phase built from options, named by its option."""
    from mathhammer.errors import InputError

    problem = err.errors()[0]
    loc = [part for part in problem["loc"] if not isinstance(part, int)]
    message = problem["msg"].removeprefix("Value error, ")
    if loc and loc[0] == "spells" and isinstance(problem["loc"][1], int):
        i = problem["loc"][1]
        field = {"cv": "CASTING_VALUE", "dice": "DICE"}.get(loc[1], loc[1]) if len(loc) > 1 else ""
        return InputError("spell", f"spell {i + 1}{', ' + field if field else ''}: {message}",
                          spells[i], "CASTING_VALUE 2..60, DICE 1..12")
    option = _OPTION_OF.get(tuple(loc[:2]), "power_dice" if loc == ["flow"] else
                            loc[0] if loc else "spell")
    value = problem.get("input")
    return InputError(option, message, None if isinstance(value, dict) else value,
                      _OPTION_FIX.get(option, "see the help for the allowed values"))
