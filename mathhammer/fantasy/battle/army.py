"""Two army lists become the battle's units (FB-B1, FB-K1, FB-K4): the static part of a battle.

Every list entry of ``count`` N becomes N units (labels made unique: ``Halberdiers``,
``Halberdiers (2)``); a character with ``joins = "<label>"`` fights inside that unit
(FB-K1), any other character is a unit of one model. Each unit keeps what the phases
read again and again: its footprint in inches (FB-B1: files × base width by ranks × base
depth), Movement, Leadership, flee dice, its bodies (rank and file, champion, characters,
ridden monsters: the combat engine's wound pools) and its points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mathhammer.errors import InputError, MathhammerError, ProfileError
from mathhammer.fantasy.combat.compile import Character, Side, _bodies_of, check_characters
from mathhammer.lists import ArmyList

MM_PER_INCH = 25.4
LARGE_TYPES = ("monster",)  # FB-B6: seen over other units, and seen behind them


@dataclass(frozen=True)
class BattleUnit:
    """One unit of the battle (static). ``bodies`` are (name, role, models, W) per wound pool,
    in the combat engine's order; body 0 is the rank and file."""

    index: int
    side: int  # 0 = list A, 1 = list B
    label: str
    combat_side: Side  # the profile with its formation and joined characters
    points: int
    models: int  # rank and file + champion at the start
    width: int  # rank width
    base: tuple[float, float]  # inches: width, depth
    movement: int
    ld: int
    flee_dice: str
    large: bool
    bodies: tuple[tuple[str, str, int, int], ...]
    general: bool  # the army's general is (or fights in) this unit
    battle_standard: bool
    standard: bool
    ranged: object | None  # RangedWeapon of the unit's profile
    # FB-WM2: a war machine's own profile (its [machine]: Toughness against shooting, the piece
    # it fires); ``combat_side`` then holds its crew, who fight (FB-WM1) and carry its wounds
    war_machine: object | None = None

    @property
    def shot_profile(self):
        """The profile shooting and artillery wound: a war machine's own (FB-WM1: its T)."""
        return self.war_machine if self.war_machine is not None else self.profile

    @property
    def fires(self) -> str | None:
        """FB-WM2: the artillery piece this unit fires (a war machine with ``fires``)."""
        return self.war_machine.machine.fires if self.war_machine is not None else None

    @property
    def profile(self):
        return self.combat_side.unit

    @property
    def name(self) -> str:
        return self.label

    def footprint(self, models: int) -> tuple[float, float]:
        """FB-B1: (frontage, depth) in inches with ``models`` left (at least one model)."""
        if self.war_machine is not None:  # FB-B1: a war machine is its base
            return self.base
        n = max(1, models)
        files = min(n, self.width)
        ranks = math.ceil(n / self.width)
        return files * self.base[0], ranks * self.base[1]


def battle_units(army_a: ArmyList, army_b: ArmyList, rules) -> tuple[BattleUnit, ...]:
    """The units of both lists, A's first, in list order (FB-B2 deploys them in this order);
    the lists passed :func:`check_armies` (before their ruleset was loaded)."""
    units: list[BattleUnit] = []
    for side, army in enumerate((army_a, army_b)):
        units += _side_units(army, side, len(units), rules)
    return tuple(units)


def fantasy_list(army: ArmyList, where: str) -> ArmyList:
    """``army``, refused in one line when it is a list of the other game."""
    from mathhammer.lists import of_game

    return of_game(army, "fantasy", where, army.name, "a Fantasy battle plays two fantasy lists",
                   "use a fantasy list (e.g. wfb8_empire); two Warmachine lists battle in "
                   "`mathhammer wm battle`")


def check_armies(army_a: ArmyList, army_b: ArmyList) -> None:
    """Two Fantasy lists of one ruleset (checked before the ruleset is loaded: a Warmachine
    list has no Fantasy ruleset to name)."""
    for side, army in enumerate((army_a, army_b)):
        fantasy_list(army, _where(army, side))
    if army_a.ruleset != army_b.ruleset:
        raise InputError(_where(army_b, 1),
                         f"is a {army_b.ruleset} list, list A is {army_a.ruleset}: one battle "
                         "plays one ruleset", army_b.ruleset,
                         f"use two {army_a.ruleset} lists")


def _where(army: ArmyList, side: int) -> str:
    """A list as an error names it: its side and where it came from."""
    return f"list {'AB'[side]} ({army.source or army.name})"


def _side_units(army: ArmyList, side: int, first: int, rules) -> list[BattleUnit]:
    general = _general_label(army)
    joined: dict[str, list] = {}
    for entry in army.units:
        host = entry.options.get("joins")
        if host is not None:
            joined.setdefault(host, []).append(entry)
    out: list[BattleUnit] = []
    # an entry's first unit keeps the entry's label (joins and deployment files name it);
    # its other units take the next free number of the name: Halberdiers (3) beside an entry
    # the list labelled Halberdiers (2), never Halberdiers (2) twice or Halberdiers (2) (2)
    taken = {entry.label for entry in army.units}
    for entry in army.units:
        if entry.options.get("joins") is not None:
            continue
        for copy in range(entry.count):
            label = entry.label if copy == 0 else _next_free(entry.label, taken)
            # a character joins the first unit of an entry of several (FB-K1)
            characters = tuple(Character(c.profile, c.label == general,
                                         c.profile.formation.battle_standard)
                               for c in joined.get(entry.label, ()) if copy == 0)
            lone = entry.profile.role == "character"
            if lone:  # FB-K1: a character on its own is a unit of one model
                characters = ()
            elif characters:  # at the start, not when the first combat is compiled
                _check_joined(army, side, label, entry.profile, characters, rules)
            out.append(_unit(first + len(out), side, label, entry, characters,
                             lone and entry.label == general, rules))
    labels = [u.label for u in out]
    if len(set(labels)) != len(labels):  # entries the list itself labelled alike (its names)
        raise ProfileError(f"list {'AB'[side]}", "two units end up with the same label",
                           labels, "give the entries distinct name = \"...\"")
    return out


def _next_free(label: str, taken: set[str]) -> str:
    """``Name (n)`` with the smallest n >= 2 not taken (Name: the label without its number);
    marked taken."""
    import re

    match = re.fullmatch(r"(.*) \((\d+)\)", label)
    base = match.group(1) if match else label
    n = 2
    while f"{base} ({n})" in taken:
        n += 1
    taken.add(f"{base} ({n})")
    return f"{base} ({n})"


def _check_joined(army: ArmyList, side: int, label: str, profile, characters, rules) -> None:
    """The characters joining ``label`` may (the combat engine's checks, named by the list)."""
    where = f"{_where(army, side)}: unit {label}"
    names = ", ".join(c.profile.name for c in characters)
    if profile.machine is not None:
        raise ProfileError(where, "is a war machine: it takes no characters (FB-WM1)", names,
                           f"point the joins of {names} at a unit of rank and file, or drop it")
    check_characters(Side(profile, characters=characters), where, rules)


def _general_label(army: ArmyList) -> str | None:
    """FB-K4: the character marked ``general``, else the first of the highest Leadership."""
    characters = [u for u in army.units if u.profile.role == "character"]
    marked = [u.label for u in characters if u.options.get("general")]
    if marked:
        return marked[0]
    if not characters:
        return None
    return max(characters, key=lambda u: u.profile.stats.ld).label


EXACT_PIECES = ("cannon", "bolt-thrower", "flame-cannon", "multi-barrel")  # FB-WM2


def _check_piece(machine, label: str, side: int, rules) -> None:
    """FB-WM2: the battle draws a piece's shot from fb artillery's exact answer; a scattered
    template (stone thrower) has none, and the ruleset must have the piece."""
    from mathhammer.fantasy.artillery.shot import check_weapon

    fires = machine.machine.fires
    if fires is None:
        return
    where = f"list {'AB'[side]}: {label} ({machine.id})"
    if fires not in EXACT_PIECES:
        raise ProfileError(where, f"fires a {fires}, whose scattered template has no exact "
                           "table for a battle to draw from (FB-WM2)", fires,
                           f"give it one of {', '.join(EXACT_PIECES)}, or drop [machine] fires")
    try:
        check_weapon(fires, rules)
    except MathhammerError as err:
        raise ProfileError(where, f"fires a {fires}, which ruleset {rules.name} does not have",
                           fires, "use a piece the ruleset has (see `mathhammer fb artillery --help`)") from err


def crew_profile(machine):
    """FB-WM2: the crew of a war machine as the combat engine's unit: the crew's stat line and
    saves, one model per crewman, their frontage the machine's base (FB-WM1: the crew fight)."""
    crew = machine.formation.models
    width_mm, depth_mm = machine.base_mm
    return machine.model_copy(update={
        "machine": None, "troop_type": "infantry",
        "base": (max(1, round(width_mm / crew)), depth_mm)})


def _unit(index: int, side: int, label: str, entry, characters, lone_general: bool,
          rules) -> BattleUnit:
    profile = entry.profile
    war_machine = profile if profile.machine is not None else None
    if war_machine is not None:
        _check_piece(war_machine, label, side, rules)
        profile = crew_profile(war_machine)
    combat_side = Side(profile, characters=characters)
    bodies = _bodies_of(0, combat_side, rules, [], [-1])
    f = profile.formation
    points = profile.unit_points() + sum(c.profile.unit_points() for c in characters)
    ld = max([profile.stats.ld] + [c.profile.stats.ld for c in characters])
    swift = profile.has("Swiftstride")
    flee = rules.combat.swiftstride_dice if swift else rules.combat.flee_dice
    w_mm, d_mm = (war_machine or profile).base_mm
    large = profile.troop_type in LARGE_TYPES or profile.ridden_monster is not None
    general = lone_general or any(c.general for c in characters)
    bsb = any(c.battle_standard for c in characters) or f.battle_standard
    return BattleUnit(index, side, label, combat_side, points, f.models, f.rank_width,
                      (w_mm / MM_PER_INCH, d_mm / MM_PER_INCH),
                      0 if war_machine is not None else profile.movement,  # FB-WM2: it stays
                      ld, flee, large, tuple((b.name, b.role, b.models, b.w) for b in bodies),
                      general, bsb, f.standard, profile.ranged, war_machine)
