"""``game = "fantasy"`` scenario files for ``mathhammer run``, and the option handling
shared with ``mathhammer fb combat`` / ``fb artillery``.

A combat scenario::

    game = "fantasy"
    kind = "combat"            # combat | artillery
    ruleset = "wfb8"           # optional: default = the profiles' edition
    rounds = 3                 # optional: default until decided
    charger = "a"              # optional

    [a]
    unit = "wfb8/empire_halberdiers"   # a profile id or a unit file (relative to this file)
    models = 30                        # optional formation overrides
    rank_width = 6
    position = "front"                 # front | flank | rear (where A fights from)
    bonus = 0

    [b.profile]                        # or a whole unit profile inline (see profiles/fantasy)
    ...

An artillery scenario has ``kind = "artillery"``, a ``[target]`` table like ``[a]``
and an ``[artillery]`` table with the keys of ``mathhammer fb artillery`` (see README).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, ProfileError
from mathhammer.results import Report


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class UnitEntry(_Frozen):
    unit: str | None = Field(None, description="profile id or unit file")
    profile: dict | None = Field(None, description="an inline unit profile")
    models: int | None = Field(None, ge=1, le=200)
    rank_width: int | None = Field(None, ge=1, le=40)
    champion: bool | None = None
    standard: bool | None = None
    musician: bool | None = None
    battle_standard: bool | None = None
    position: Literal["front", "flank", "rear"] = "front"
    bonus: int = Field(0, ge=-10, le=20)


class ArtilleryEntry(_Frozen):
    weapon: Literal["stone-thrower", "cannon", "bolt-thrower"]
    template: Literal["small", "large"] = "small"
    strength: int | None = Field(None, ge=1, le=10)
    big_strength: int | None = Field(None, ge=1, le=10)
    multiple_wounds: str | None = None
    armour_piercing: int = Field(0, ge=0, le=6)
    bs: int = Field(3, ge=1, le=10)
    modifier: int = 0
    aim_file: float | None = None
    aim_rank: float | None = None
    short: float = Field(4.0, ge=-30, le=60)
    facing: Literal["front", "flank"] = "front"


class Scenario(_Frozen):
    game: Literal["fantasy"]
    kind: Literal["combat", "artillery"] = "combat"
    title: str = ""
    ruleset: str | None = None
    rounds: int | None = Field(None, ge=1, le=100)
    charger: Literal["a", "b"] | None = None
    a: UnitEntry | None = None
    b: UnitEntry | None = None
    target: UnitEntry | None = None
    artillery: ArtilleryEntry | None = None


def _unit(entry: UnitEntry, where: str, base_dir: Path):
    from mathhammer.fantasy.models import load_unit, validate_unit

    if (entry.unit is None) == (entry.profile is None):
        raise ProfileError(where, "needs exactly one of unit (id or file) and profile (inline)",
                           None, 'add unit = "wfb8/empire_halberdiers"')
    if entry.profile is not None:
        return validate_unit(entry.profile, f"{where}.profile")
    ref = entry.unit
    local = base_dir / ref
    if ref.endswith(".toml") and local.is_file():
        ref = str(local)
    return load_unit(ref)


def _side(entry: UnitEntry, where: str, base_dir: Path, charged: bool):
    from mathhammer.fantasy.combat import make_side

    unit = _unit(entry, where, base_dir)
    command = {k: getattr(entry, k) for k in ("champion", "standard", "musician", "battle_standard")}
    return make_side(unit, where=where, models=entry.models, rank_width=entry.rank_width,
                     charged=charged, position=entry.position, bonus=entry.bonus, **command)


def default_ruleset(ruleset: str | None, *units) -> str:
    """The ruleset asked for, else the edition of the profiles (wfb8 when they differ)."""
    if ruleset is not None:
        return ruleset
    editions = {u.ruleset for u in units}
    return editions.pop() if len(editions) == 1 else "wfb8"


def combat_from_options(unit_a: str, unit_b: str, *, rounds, charger, ruleset, models, widths,
                        flank, rear, bonuses, method, config, check) -> Report:
    """``mathhammer fb combat``: flags → sides → :func:`mathhammer.fantasy.combat.combat`."""
    from mathhammer.fantasy.combat import combat

    sides, rules = sides_from_options(unit_a, unit_b, charger=charger, ruleset=ruleset,
                                      models=models, widths=widths, flank=flank, rear=rear,
                                      bonuses=bonuses)
    return combat(sides[0], sides[1], rounds=rounds, ruleset=rules, method=method,
                  config=config, check=check)


def sides_from_options(unit_a: str, unit_b: str, *, charger=None, ruleset=None,
                       models=(None, None), widths=(None, None), flank=None, rear=None,
                       bonuses=(0, 0)) -> tuple[list, str]:
    """The two combat sides the ``fb combat`` flags describe, and the ruleset name."""
    from mathhammer.fantasy.combat import make_side

    for flag, value in (("--flank", flank), ("--rear", rear), ("--charger", charger)):
        if value not in (None, "a", "b"):
            raise InputError(flag, "must be a or b", value, f"use {flag} a")
    if flank is not None and flank == rear:
        raise InputError("--rear", "a unit cannot fight in both the flank and the rear", rear,
                         "give one of --flank / --rear")
    sides = []
    for i, (label, ref) in enumerate((("a", unit_a), ("b", unit_b))):
        position = "flank" if flank == label else "rear" if rear == label else "front"
        sides.append(make_side(ref, where=f"UNIT_{label.upper()}", models=models[i],
                               rank_width=widths[i], charged=charger == label,
                               position=position, bonus=bonuses[i]))
    return sides, default_ruleset(ruleset, sides[0].unit, sides[1].unit)


def run_scenario(data: dict, source: str, *, method: str, config: MonteCarloConfig,
                 check: bool) -> Report:
    """Run a ``game = "fantasy"`` scenario file (see the module docstring)."""
    from mathhammer.profiles import pydantic_errors

    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as err:
        raise pydantic_errors(err, source) from None
    base_dir = Path(source).resolve().parent
    if scenario.kind == "combat":
        if scenario.a is None or scenario.b is None:
            raise ProfileError(f"{source}: {'a' if scenario.a is None else 'b'}",
                               "a combat needs the tables [a] and [b]", None,
                               'add [a] unit = "wfb8/empire_halberdiers"')
        from mathhammer.fantasy.combat import combat

        a = _side(scenario.a, f"{source}: a", base_dir, scenario.charger == "a")
        b = _side(scenario.b, f"{source}: b", base_dir, scenario.charger == "b")
        rules = default_ruleset(scenario.ruleset, a.unit, b.unit)
        report = combat(a, b, rounds=scenario.rounds, ruleset=rules, method=method,
                        config=config, check=check)
    else:
        if scenario.target is None or scenario.artillery is None:
            raise ProfileError(f"{source}: {'target' if scenario.target is None else 'artillery'}",
                               "an artillery scenario needs [target] and [artillery]", None,
                               'add [artillery] weapon = "stone-thrower"')
        from mathhammer.fantasy.artillery import artillery_from_entry

        target = _side(scenario.target, f"{source}: target", base_dir, False)
        rules = default_ruleset(scenario.ruleset, target.unit)
        report = artillery_from_entry(scenario.artillery, target.unit, rules, method=method,
                                      config=config, check=check)
    if scenario.title:
        report.title = scenario.title
    report.info["scenario"] = source
    return report
