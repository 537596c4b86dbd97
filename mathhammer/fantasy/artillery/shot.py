"""What an artillery shot is (FB-R1..R8): the weapons, their defaults per ruleset, the
hits they make and the misfire tables — shared by the engines, ``--explain`` and
scenario files, with no engine code (so none of them imports another).

Weapons: ``stone-thrower`` (FB-R2), ``cannon`` (FB-R3), ``bolt-thrower`` (FB-R4),
``flame-cannon`` (FB-R6), ``multi-barrel`` (FB-R7: organ gun / Helblaster / volley gun)
and ``template`` (a template that scatters by stated dice, DICE-7). A ruleset names the
weapons it has (``[war_machines] weapons``); asking for another is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.chain.core import AttackSpec
from mathhammer.fantasy.rules.ruleset import MisfireRow, Ruleset
from mathhammer.numbers import shown, whole_text

WEAPONS = ("stone-thrower", "cannon", "bolt-thrower", "flame-cannon", "multi-barrel", "template")
TEMPLATES = {"small": 1.5, "large": 2.5}  # FB-R1: radius in inches (3" and 5" across)
MM_PER_INCH = 25.4
ARTILLERY_FACES = (2, 4, 6, 8, 10)  # DICE-3; the sixth face is MISFIRE
BLACK_POWDER = ("cannon", "flame-cannon", "multi-barrel")  # misfire on the black powder table


@dataclass(frozen=True)
class Shot:
    """What is fired and where (see :func:`mathhammer.fantasy.artillery.query.artillery`).

    ``None`` strengths / Multiple Wounds / shots take the weapon's defaults for the
    ruleset (:func:`weapon_profile`).
    """

    weapon: str
    template: str = "small"
    strength: int | None = None
    big_strength: int | None = None
    multiple_wounds: str | None = None
    armour_piercing: int | None = None
    bs: int = 3
    modifier: int = 0
    aim_file: float | None = None
    aim_rank: float | None = None
    short: float = 4.0
    facing: str = "front"  # cannon / bolt thrower / flame: along a file or (flank) a rank
    muzzle: float = 6.0  # flame template: inches from the muzzle to the unit's front edge
    scatter: str = "2D6"  # template: the scatter distance (DICE-7)
    short_range: bool = False  # t9a1 to-hit flame / volley gun: the {bracketed} values
    shots: str | None = None  # t9a1 volley gun: Multiple Shots (X)
    artillery_dice: int = 2  # wfb8 multi-barrel: 2 organ gun, 3 Helblaster


class ArtilleryEntry(BaseModel):
    """A scenario's ``[artillery]`` table: the keys of ``mathhammer fb artillery``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    weapon: Literal["stone-thrower", "cannon", "bolt-thrower", "flame-cannon", "multi-barrel",
                    "template"]
    template: Literal["small", "large"] = "small"
    strength: int | None = Field(None, ge=1, le=10)
    big_strength: int | None = Field(None, ge=1, le=10)
    multiple_wounds: str | None = None
    armour_piercing: int | None = Field(None, ge=0, le=6)
    bs: int = Field(3, ge=0, le=10)
    modifier: int = Field(0, ge=-10, le=10)
    aim_file: float | None = None
    aim_rank: float | None = None
    short: float = Field(4.0, ge=-30, le=60)
    facing: Literal["front", "flank"] = "front"
    muzzle: float = Field(6.0, ge=0, le=30)
    scatter: str = "2D6"
    short_range: bool = False
    shots: str | None = None
    artillery_dice: int = Field(2, ge=2, le=3)

    def shot(self) -> Shot:
        return Shot(**self.model_dump())


@dataclass(frozen=True)
class Profile:
    """A weapon's hits after the ruleset's defaults and the shot's overrides."""

    strength: int  # the hit (stone thrower / template: the models only touched)
    big_strength: int  # stone thrower: the base under the centre; cannon, bolt: every hit
    multiple_wounds: str | None  # of the big hit (stone thrower), of every hit otherwise
    armour_piercing: int
    flaming: bool = False


def check_weapon(weapon: str, rules: Ruleset) -> None:
    """One line naming the weapon and the ruleset when the ruleset lacks it."""
    if weapon not in WEAPONS:
        raise InputError("WEAPON", "unknown artillery piece", weapon,
                         f"use one of {', '.join(WEAPONS)}")
    if weapon not in rules.war_machines.weapons:
        raise RulesError("WEAPON", f"ruleset {rules.name} has no {weapon} "
                         f"(it has {', '.join(rules.war_machines.weapons)})", weapon,
                         "use ‹ruleset› wfb8 or t9a1")


def uses_to_hit(weapon: str, rules: Ruleset) -> bool:
    """Bolt throwers, and cannons in rulesets with a to-hit roll, roll to hit (FB-R3/R4)."""
    return weapon == "bolt-thrower" or (weapon == "cannon" and rules.artillery == "to_hit")


def weapon_profile(weapon: str, shot: Shot, rules: Ruleset) -> Profile:
    """The hits of ``weapon`` under ``rules`` (research notes; low-confidence values are
    marked in docs/rules.md FB-R6/FB-R7), after the shot's own overrides."""
    to_hit = rules.artillery == "to_hit"
    ap = shot.armour_piercing
    if weapon == "stone-thrower":  # wfb8: S3 (9), Multiple Wounds (D6) under the hole
        p = Profile(shot.strength or 3, shot.big_strength or 9, shot.multiple_wounds or "D6",
                    ap or 0)
    elif weapon == "cannon":  # wfb8: S10, MW (D6) every hit; t9a1 to-hit: S4 [10] (low)
        if to_hit:
            p = Profile(shot.strength or 4, shot.big_strength or 10,
                        shot.multiple_wounds or "D6", ap or 0)
        else:
            s = shot.big_strength or shot.strength or 10
            p = Profile(s, s, shot.multiple_wounds or "D6", ap or 0)
    elif weapon == "bolt-thrower":  # FB-R4: S6, then one less per rank; D3 wounds
        s = shot.strength or 6
        p = Profile(s, s, shot.multiple_wounds or "D3", ap or 0)
    elif weapon == "flame-cannon":
        if to_hit:  # T9A 1.3 Flame Thrower: S4 {5}, {Multiple Wounds (D3)} at short range
            s = (shot.big_strength or 5) if shot.short_range else (shot.strength or 4)
            mw = shot.multiple_wounds or ("D3" if shot.short_range else None)
            p = Profile(s, s, mw, ap or 0, True)
        else:  # 8th fire thrower: S5, flaming, every model under the template
            s = shot.strength or 5
            p = Profile(s, s, shot.multiple_wounds, ap or 0, True)
    elif weapon == "multi-barrel":  # 8th organ gun / Helblaster: S5, armour piercing
        s = shot.strength or 5
        p = Profile(s, s, shot.multiple_wounds, 1 if ap is None else ap)
    else:  # template: S3, the base under the centre --big-strength (default the same)
        s = shot.strength or 3
        p = Profile(s, shot.big_strength or s, shot.multiple_wounds, ap or 0)
    for flag, value in (("‹strength›", p.strength), ("‹big_strength›", p.big_strength)):
        rules.check_characteristic(value, flag)
    return p


def hit_spec(toughness: int, wounds: int, armour: int | None, ward: int | None,
             regeneration: int | None, strength: int, mw: str | None, ap: int,
             use_armour: bool = True, flaming: bool = False) -> AttackSpec:
    """One artillery hit on a model: no to-hit roll, then wound and saves (FB-W1..V3)."""
    return AttackSpec(strength=strength, toughness=toughness, auto_hit=True,
                      close_combat=False, save=armour if use_armour else None, ward=ward,
                      regeneration=regeneration, armour_piercing=ap, multiple_wounds=mw,
                      target_wounds=wounds, flaming=flaming)


# ---- misfires (FB-R2, FB-R3, FB-R6, FB-R7) -------------------------------------------------
def misfire_table(weapon: str, rules: Ruleset) -> tuple[tuple[MisfireRow, ...], int]:
    """(rows, modifier to the D6) of the misfire table ``weapon`` rolls on."""
    wm = rules.war_machines
    rows = wm.black_powder_misfire if weapon in BLACK_POWDER else wm.stone_thrower_misfire
    return rows, (wm.flame_misfire_modifier if weapon == "flame-cannon" else 0)


def row_of_face(rows: tuple[MisfireRow, ...], modifier: int) -> list[int]:
    """Index of the row each D6 face 1..6 lands on after ``modifier`` (clamped to the
    table: a result below the first row counts as the first row)."""
    out = []
    for face in range(1, 7):
        value = min(max(face + modifier, rows[0].low), rows[-1].high)
        out.append(next(i for i, r in enumerate(rows) if r.low <= value <= r.high))
    return out


def misfire_rows(weapon: str, rules: Ruleset) -> dict[str, Fraction]:
    """P(each row | misfire), keyed ``p_<row key>`` (e.g. ``p_own_destroyed``)."""
    rows, modifier = misfire_table(weapon, rules)
    out = {f"p_{r.key}": Fraction(0) for r in rows}
    for index in row_of_face(rows, modifier):
        out[f"p_{rows[index].key}"] += Fraction(1, 6)
    return out


# ---- Multiple Shots text of a t9a1 volley gun ----------------------------------------------
SHOTS_TEXT = re.compile(r"^\s*(\d*)\s*[dD]\s*6\s*(?:\+\s*(\d+))?\s*$")


def volley_shots(text: str) -> tuple[int, int] | int:
    """``"2D6"`` → (2, 0), ``"3D6+1"`` → (3, 1), ``"6"`` → 6 (a fixed X never misfires)."""
    text = str(text).strip()
    if text.isdigit():
        value = whole_text(text)  # None for "²" or 5,000 digits: no count of shots either
        if value is None or not 1 <= value <= 40:
            raise InputError("‹shots›", "a volley gun fires 1..40 shots", shown(text),
                             "use e.g. ‹shots› 2D6")
        return value
    match = SHOTS_TEXT.match(text)
    if not match:
        raise InputError("‹shots›", "a volley gun's Multiple Shots are nD6 (+k) or a number "
                         "(its sixes decide misfires)", text, "use e.g. ‹shots› 2D6 or ‹shots› 3D6")
    dice, plus = whole_text(match.group(1) or "1"), whole_text(match.group(2) or "0")
    if dice is None or not 1 <= dice <= 6:
        raise InputError("‹shots›", "at most 6 dice of shots", shown(text), "use e.g. ‹shots› 2D6")
    if plus is None or plus > 40:
        raise InputError("‹shots›", "adds at most +40 shots", shown(text), "use e.g. ‹shots› 3D6+1")
    return dice, plus
