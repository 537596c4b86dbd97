"""Rulesets as data: ``basic`` (seed 001), ``wfb8`` (Warhammer 8th), ``t9a1`` (Ninth Age 1.x).

A ruleset is a TOML file validated by :class:`Ruleset` (pydantic, ``extra="forbid"``,
frozen): the charts (FB-H1 melee to-hit, FB-W1 to-wound, FB-V1 save modifiers,
FB-H2 shooting), the switches that differ between editions, a few caps, and the
``[magic]`` table read by the magic engine (:class:`mathhammer.fantasy.rules.magic.MagicRules`).
Copy a bundled file (``mathhammer/fantasy/rules/wfb8.toml``), edit it, and pass
its path wherever a ruleset name is accepted.

>>> rules = load_ruleset("wfb8")
>>> rules.to_hit_melee(4, 3), rules.to_wound(3, 4), rules.armour_needed(5, 4, 0)
(3, 5, 6)
>>> rules.to_hit_shooting(1, -2).second  # 8+: a 6, then 5+
5
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mathhammer.errors import InputError, ProfileError
from mathhammer.fantasy.battle.rules import BattleRules
from mathhammer.fantasy.combat.rules import CombatRules
from mathhammer.fantasy.rules.magic import MagicRules

BUNDLED = ("basic", "wfb8", "t9a1")
RULESETS_DIR = Path(__file__).resolve().parent  # the bundled files sit beside this module

CANNOT_WOUND = "N"
CHART_SIZE = 10  # characteristics run 1..10


class Charts(BaseModel):
    """The dice charts of a ruleset (rows and columns are characteristics 1..10)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    melee_to_hit: tuple[tuple[int, ...], ...] = Field(
        description="FB-H1: [attacker WS - 1][defender WS - 1] -> needed D6 score (2..6)")
    to_wound: tuple[tuple[int | Literal["N"], ...], ...] = Field(
        description='FB-W1: [S - 1][T - 1] -> needed D6 score (2..6) or "N" (cannot wound)')
    save_modifier_by_strength: tuple[int, ...] = Field(
        description="FB-V1: [S - 1] -> added to the armour save needed")
    shooting_base: int = Field(7, ge=2, le=12, description="FB-H2: needed = base - BS - modifiers")
    hopeless_second_roll: tuple[int, ...] = Field(
        (4, 5, 6), description="FB-H2: needing 7+, 8+, ...: a 6 then a second D6 of at least this")

    @field_validator("melee_to_hit", "to_wound")
    @classmethod
    def _square(cls, chart: tuple[tuple, ...]) -> tuple[tuple, ...]:
        if len(chart) != CHART_SIZE or any(len(row) != CHART_SIZE for row in chart):
            raise ValueError(f"must be {CHART_SIZE} rows of {CHART_SIZE} cells")
        for row in chart:
            for cell in row:
                if cell != CANNOT_WOUND and not 2 <= cell <= 6:
                    raise ValueError(f"cells are D6 scores 2..6 (a natural 1 always fails), got {cell}")
        return chart

    @field_validator("save_modifier_by_strength")
    @classmethod
    def _ten(cls, mods: tuple[int, ...]) -> tuple[int, ...]:
        if len(mods) != CHART_SIZE or any(m < 0 for m in mods):
            raise ValueError(f"must be {CHART_SIZE} non-negative numbers (S 1..10)")
        return mods

    @field_validator("hopeless_second_roll")
    @classmethod
    def _second(cls, rolls: tuple[int, ...]) -> tuple[int, ...]:
        if any(not 2 <= r <= 6 for r in rolls):
            raise ValueError("second-roll scores are 2..6")
        return rolls


class ShootingModifiers(BaseModel):
    """FB-H2: modifiers added to the shooting to-hit roll (negative = harder)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    long_range: int = -1
    moving: int = -1
    stand_and_shoot: int = -1
    soft_cover: int = -1
    hard_cover: int = -2
    multiple_shots: int = -1


class DangerousTerrain(BaseModel):
    """FB-T4: a dangerous terrain test (seed 004 «Опасный ландшафт»); never an armour save."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fails: Literal["on_a_one", "at_most_x"] = Field(
        "on_a_one", description="a die fails on a 1 (wfb8) or on at most X, the terrain's value (t9a1)")
    dice_standard: int = Field(1, ge=1, le=6, description="D6 rolled by a standard-height model")
    dice_large: int = Field(1, ge=1, le=6, description="D6 rolled by a large model (t9a1: 2)")
    dice_gigantic: int = Field(1, ge=1, le=6, description="D6 rolled by a gigantic model (t9a1: 3)")
    chariot_extra_dice: int = Field(0, ge=0, le=3, description="more dice for a chariot (t9a1: +1)")
    chariot_wounds: Literal["1", "D6"] = Field("1", description="wounds per failed die of a chariot (wfb8: D6)")
    confidence: str = "medium"


class ZeroValue(BaseModel):
    """FB-V0: what a characteristic of 0 does (seed 004 «Значение равное 0»)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tests_fail: bool = Field(True, description="a test against a characteristic of 0 fails")
    ws0_is_hit_automatically: bool = Field(
        True, description="close-combat attacks against a WS 0 model hit without a roll")
    ws0_hits_on: int = Field(6, ge=2, le=7, description="D6 a WS 0 attacker needs (7: never)")
    bs0_cannot_shoot: bool = Field(True, description="a BS 0 model makes no shooting attacks")


class MisfireRow(BaseModel):
    """One row of a war machine's misfire table, by the D6 (after any modifier)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: int = Field(ge=-5, le=12)
    high: int = Field(ge=-5, le=12)
    key: str = Field(pattern=r"^[a-z][a-z_]*$", description="result key: p_<key>")
    effect: str = ""
    confidence: Literal["high", "medium", "low"] = "low"


_STONE = (MisfireRow(low=1, high=1, key="own_destroyed", effect="the war machine is destroyed",
                     confidence="medium"),
          MisfireRow(low=2, high=3, key="disabled", effect="cannot shoot this turn or next",
                     confidence="medium"),
          MisfireRow(low=4, high=6, key="no_shot", effect="cannot shoot this turn",
                     confidence="medium"))
_POWDER = (MisfireRow(low=1, high=2, key="own_destroyed", effect="the war machine is destroyed",
                      confidence="medium"),
           MisfireRow(low=3, high=4, key="malfunction", effect="cannot shoot this turn or next",
                      confidence="medium"),
           MisfireRow(low=5, high=6, key="no_shot", effect="cannot shoot this turn",
                      confidence="medium"))


class WarMachines(BaseModel):
    """FB-R2..R8: which war machines a ruleset has, their misfire tables, the flame template."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    weapons: tuple[str, ...] = Field(
        ("stone-thrower", "cannon", "bolt-thrower", "flame-cannon", "multi-barrel", "template"),
        description="the artillery pieces this ruleset has (fb artillery WEAPON)")
    stone_thrower_misfire: tuple[MisfireRow, ...] = Field(_STONE, min_length=1)
    black_powder_misfire: tuple[MisfireRow, ...] = Field(_POWDER, min_length=1)
    multi_barrel: Literal["artillery_dice", "multiple_shots"] = Field(
        "artillery_dice", description="FB-R7: 8th organ fire (artillery dice) or T9A Multiple Shots")
    flame_misfire_modifier: int = Field(0, ge=-3, le=3, description="t9a1: flame throwers -1")
    flame_template_length: float = Field(8.0, gt=0, le=20, description="FB-R1: inches")
    flame_template_width: float = Field(3.0, gt=0, le=10, description="FB-R1: widest, inches")
    misfire_note: str = ""
    target_wounds: Literal["crew", "machine"] = Field(
        "crew", description="FB-WM1: a war machine's Wounds are its crew left (8th) or the "
                            "machine's W (T9A 1.x)")
    assault_party: int = Field(6, ge=1, le=20, description="FB-WM1: models that may fight a war "
                                                           "machine in close combat")

    @field_validator("stone_thrower_misfire", "black_powder_misfire")
    @classmethod
    def _rows_cover_the_die(cls, rows: tuple[MisfireRow, ...]) -> tuple[MisfireRow, ...]:
        for a, b in zip(rows, rows[1:]):
            if b.low != a.high + 1:
                raise ValueError("rows must follow each other without gaps (high + 1 = next low)")
        if any(r.low > r.high for r in rows):
            raise ValueError("a row's low must not exceed its high")
        keys = [r.key for r in rows]
        if len(set(keys)) != len(keys):
            raise ValueError("row keys must differ")
        return rows


class Caps(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_characteristic: int = Field(10, ge=1, le=10, description="largest WS/BS/S/T/I/Ld allowed")
    best_armour_save: int = Field(1, ge=1, le=6, description="armour cannot improve past this")


@dataclass(frozen=True)
class ShootingToHit:
    """FB-H2 result: what a shot needs.

    Attributes:
        nominal: 7 - BS - modifiers (may be ≤ 1 or ≥ 7).
        first: the D6 score needed (2..6): a natural 1 always misses; 6 for hopeless shots.
        second: for 7+/8+/9+, the second D6 needed after a 6; None otherwise.
        possible: False when the shot cannot hit at all (10+ in the bundled charts).
    """

    nominal: int
    first: int
    second: int | None
    possible: bool

    @property
    def hopeless(self) -> bool:
        return self.second is not None

    @property
    def p_hit(self) -> Fraction:
        """Chance of one shot hitting, without re-rolls."""
        if not self.possible:
            return Fraction(0)
        p = Fraction(7 - self.first, 6)
        if self.second is not None:
            p *= Fraction(7 - self.second, 6)
        return p


class Ruleset(BaseModel):
    """One edition's rules as data (see the module docstring and the bundled TOML files)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    title: str = ""
    insane_courage: bool = Field(description="FB-T2: a double 1 always passes Ld")
    steadfast: bool = Field(description="FB-C5: more ranks -> unmodified Ld")
    large_target_modifier: int = Field(description="FB-H2: to-hit bonus against large targets")
    scatter_hit_faces: int = Field(ge=0, le=6, description="DICE-4: HIT faces of the scatter die")
    template_partial_hits: bool = Field(description="FB-R1: partly covered models hit on 4+")
    magic_resistance: Literal["d20_ignore", "ward_bonus"] = Field(description="FB-T3")
    supporting_ranks: int = Field(ge=0, le=10, description="FB-C1: ranks behind the front that attack")
    chargers_strike_first: bool = Field(description="FB-C2: chargers strike first in round one")
    always_strikes_first_reroll: bool = Field(description="FB-H3: ASF re-rolls misses if I >= enemy I")
    max_rank_bonus: int = Field(3, ge=0, description="FB-C4")
    rank_width: int = Field(5, ge=1, description="FB-C4: models needed for a rank to count")
    standard_bonus: int = Field(1, ge=0, description="FB-C4")
    battle_standard_bonus: int = Field(ge=0, description="FB-C4")
    flank_bonus: int = Field(1, ge=0, description="FB-C4")
    rear_bonus: int = Field(2, ge=0, description="FB-C4")
    killing_blow: Literal["slay", "lethal_strike"] | None = Field(
        description='FB-W2: "slay" (wfb8), "lethal_strike" (t9a1) or "none"')
    artillery: Literal["template", "to_hit"] = Field(description="FB-R3")
    unstable: Literal["none", "lose_wounds"] = Field(
        "none", description="FB-C5: Unstable / Daemonic Instability lose wounds instead of testing")
    regeneration_default: int = Field(4, ge=2, le=6, description="FB-V2: Regeneration without a value")
    charts: Charts
    shooting_modifiers: ShootingModifiers = ShootingModifiers()
    caps: Caps = Caps()
    zero: ZeroValue = ZeroValue()
    dangerous_terrain: DangerousTerrain = DangerousTerrain()
    war_machines: WarMachines = WarMachines()
    magic: MagicRules = MagicRules()
    combat: CombatRules = CombatRules()  # FB-E/S/K/M/P/G: close-combat data (combat_rules.py)
    battle: BattleRules = BattleRules()  # FB-B1..B9: whole battles (fantasy/battle/rules.py)

    def __hash__(self) -> int:
        # every per-spec cache is keyed by its ruleset: hashing all the charts at each
        # lookup cost more than the lookup saved. Equal rulesets have equal names, so this
        # agrees with ==; a user's edited copy under the same name merely collides.
        return hash((Ruleset, self.name, self.title))

    @field_validator("killing_blow", mode="before")
    @classmethod
    def _none_word(cls, value):
        return None if value in ("none", None) else value

    @model_validator(mode="after")
    def _charts_cover_caps(self) -> Ruleset:
        if self.caps.max_characteristic > CHART_SIZE:
            raise ValueError("caps.max_characteristic is larger than the charts")
        return self

    # ---- characteristic checks ----------------------------------------------------------
    def instability_words(self, rule: str = "Unstable") -> str:
        """FB-C5: what a lost combat does to an ``Unstable`` / ``Daemonic Instability`` unit,
        read from this ruleset's ``unstable`` key (every text that says so comes from here)."""
        setting = f'ruleset {self.name}: unstable = "{self.unstable}", FB-C5'
        if self.unstable != "lose_wounds":
            return f"{rule} not used: a lost combat means a break test ({setting})"
        loss = ("2D6 + difference − Ld wounds, if positive" if rule == "Daemonic Instability"
                else "wounds equal to the difference")
        return f"{rule}: no break test, a lost combat loses {loss} ({setting})"

    def check_characteristic(self, value: int, where: str, low: int = 1) -> int:
        """Raise InputError naming ``where`` unless ``low <= value <= max_characteristic``."""
        top = self.caps.max_characteristic
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= top:
            raise InputError(where, f"is not a possible characteristic in {self.name} "
                             f"(allowed {low}..{top})", value, f"use a value from {low} to {top}")
        return value

    # ---- charts -------------------------------------------------------------------------
    def to_hit_melee(self, ws_attacker: int, ws_defender: int) -> int | None:
        """FB-H1: D6 score needed to hit in close combat (natural 1 always misses).

        FB-V0: None when the defender has WS 0 and is hit automatically; 7 when a WS 0
        attacker cannot hit at all; a WS 0 attacker otherwise needs ``zero.ws0_hits_on``.
        """
        self.check_characteristic(ws_attacker, "ws_attacker", low=0)
        self.check_characteristic(ws_defender, "ws_defender", low=0)
        if ws_defender == 0 and self.zero.ws0_is_hit_automatically:
            return None
        if ws_attacker == 0 or ws_defender == 0:
            return self.zero.ws0_hits_on if ws_attacker == 0 else min(
                self.charts.melee_to_hit[ws_attacker - 1])  # a WS 0 defender rolled for: best cell
        return self.charts.melee_to_hit[ws_attacker - 1][ws_defender - 1]

    def to_hit_shooting(self, bs: int, modifiers: int = 0) -> ShootingToHit:
        """FB-H2: needed = base - BS - modifiers; ≤1 still misses on a 1; 7+/8+/9+ procedure.

        FB-V0: a BS 0 model cannot shoot where ``zero.bs0_cannot_shoot`` (never hits).
        """
        self.check_characteristic(bs, "bs", low=0)
        nominal = self.charts.shooting_base - bs - modifiers
        if bs == 0 and self.zero.bs0_cannot_shoot:
            return ShootingToHit(nominal, 7, None, False)
        if nominal <= 6:
            return ShootingToHit(nominal, max(2, nominal), None, True)
        steps = self.charts.hopeless_second_roll
        index = nominal - 7
        if index < len(steps):
            return ShootingToHit(nominal, 6, steps[index], True)
        return ShootingToHit(nominal, 6, None, False)

    def to_wound(self, strength: int, toughness: int) -> int | None:
        """FB-W1: D6 score needed to wound, or None when S cannot wound T."""
        self.check_characteristic(strength, "strength")
        self.check_characteristic(toughness, "toughness")
        cell = self.charts.to_wound[strength - 1][toughness - 1]
        return None if cell == CANNOT_WOUND else int(cell)

    def save_modifier(self, strength: int) -> int:
        """FB-V1: how much a hit of ``strength`` worsens the armour save."""
        self.check_characteristic(strength, "strength")
        return self.charts.save_modifier_by_strength[strength - 1]

    def armour_needed(self, save: int | None, strength: int, armour_piercing: int = 0) -> int | None:
        """FB-V1: D6 score needed for the armour save, or None when there is no save.

        ``save`` is the printed save (5 means 5+); 1+ is allowed (a natural 1 still
        fails, so it acts as 2+ before modifiers); the result is None past 6.
        """
        if save is None:
            return None
        self.check_save(save, "save")
        if armour_piercing < 0:
            raise InputError("armour_piercing", "cannot be negative", armour_piercing, "use 0 or more")
        needed = max(save, self.caps.best_armour_save) + self.save_modifier(strength) + armour_piercing
        if needed > 6:
            return None
        return max(2, needed)  # a natural 1 always fails

    def check_save(self, save: int, where: str) -> int:
        """A printed save is 1..6 (1+ allowed; a natural 1 fails anyway); 7+ is no save."""
        if isinstance(save, bool) or not isinstance(save, int) or not 1 <= save <= 6:
            fix = ("omit the flag for no save" if isinstance(save, int) and save >= 7
                   else "use 1..6, e.g. 5 for a 5+ save")
            raise InputError(where, "must be a save of 1..6 (5 means 5+)", save, fix)
        return save


def _validate(data: dict, source: str) -> Ruleset:
    try:
        return Ruleset.model_validate(data)
    except ValidationError as err:
        from mathhammer.profiles import pydantic_errors

        found = pydantic_errors(err, source)
        raise ProfileError(source, found.what, None,
                           f"compare with the bundled {RULESETS_DIR / 'wfb8.toml'}") from None


@lru_cache(maxsize=32)
def _load_path(path: str, mtime_ns: int) -> Ruleset:
    from mathhammer.profiles import read_toml

    return _validate(read_toml(path), path)


@lru_cache(maxsize=None)
def _bundled_path(name: str) -> str:
    return str((RULESETS_DIR / f"{name}.toml").resolve())


def _is_file(path: Path) -> bool:
    """Exists and is not a folder, never raising (the bounded reader judges the rest)."""
    from mathhammer.io import names_a_file

    return names_a_file(path)


def default_ruleset(ruleset: str | None, *units) -> str:
    """The ruleset asked for, else the edition of the profiles (wfb8 when they differ)."""
    if ruleset is not None:
        return ruleset
    editions = {u.ruleset for u in units}
    return editions.pop() if len(editions) == 1 else "wfb8"


def load_ruleset(name_or_path: str | Path | Ruleset = "wfb8", where: str = "‹ruleset›") -> Ruleset:
    """A bundled ruleset by name (``basic``, ``wfb8``, ``t9a1``) or a user TOML file.

    Raises:
        ProfileError: an unknown name (the message lists the bundled ones), a missing
            file, or a file that does not validate (every bad key named).
    """
    if isinstance(name_or_path, Ruleset):
        return name_or_path
    text = str(name_or_path)
    if text in BUNDLED:  # resolved once: every exact query names its ruleset
        resolved = _bundled_path(text)
        return _load_path(resolved, os.stat(resolved).st_mtime_ns)
    else:
        try:
            path = Path(text).expanduser()
        except RuntimeError:  # "~user" of no known user (or no home folder)
            raise ProfileError(where, "names the home folder of an unknown user", text,
                               "write the path out in full") from None
        if not (path.suffix == ".toml" or _is_file(path)):
            raise ProfileError(where, "unknown ruleset", text,
                               f"use one of {', '.join(BUNDLED)} or the path of a ruleset .toml file")
        if not _is_file(path):
            raise ProfileError(where, "ruleset file not found", text,
                               f"check the path, or use one of {', '.join(BUNDLED)}")
    resolved = path.resolve()
    return _load_path(str(resolved), resolved.stat().st_mtime_ns)
