"""Deployment (FB-B2, FB-B6): the default lines, or a deployment file with terrain and orders.

Default: each list stands in one line, in list order from its own left, the two front
edges ``deployment_gap`` apart and centred on the table (A's front at y = 12", B's at
y = 36" on a 72" × 48" table), ``unit_spacing`` between neighbours. The lines mirror each
other through the table's centre, so the same list on both sides meets itself.

A deployment file (TOML) places units, adds terrain and gives scripted orders::

    [[a]]                    # one table per unit placed; [[b]] for list B
    unit = "Halberdiers"     # the unit's label (a list name, "X (2)" for a second copy)
    x = 30.0                 # the middle of its front edge, inches from the left edge
    y = 12.0                 # ... and from A's table edge
    facing = 0               # degrees clockwise from B's edge (default: A 0, B 180)
    charge = "Orc Boyz"      # scripted orders: a unit label, "any" or "none"
    reaction = "hold"        # hold, flee or stand-and-shoot
    move = "advance"         # advance, hold or retreat
    shoot = "nearest"        # nearest, a unit label or none
    pursue = true
    cast = "nearest"         # FB-B12, a unit with a wizard: its missiles' target, or none
    dispel = "all"           # FB-B12: spells at this unit are dispelled (all) or not (none)
    challenge = "none"       # FB-B20: a character or champion of the unit, "any" or "none"
    answer = "accept"        # accept or refuse a challenge

    [[terrain]]
    name = "wood"
    x = 36.0                 # centre, inches
    y = 24.0
    width = 6.0              # along x
    depth = 4.0              # along y
    blocks_sight = true      # FB-B6: units behind it cannot be seen
    cover = "soft"           # FB-B6: none, soft or hard for shots that cross it

Units the file does not place keep their default positions. A unit off the table, two
units overlapping, an unknown label, a unit placed twice: one error line each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.errors import InputError, ProfileError
from mathhammer.fantasy.battle.table import TOUCHING, Box, on_table, overlaps


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Placement(_Strict):
    unit: str = Field(min_length=1)
    x: float | None = Field(None, ge=-1000, le=1000)
    y: float | None = Field(None, ge=-1000, le=1000)
    facing: float | None = Field(None, ge=-360, le=360)
    charge: str | None = Field(None, min_length=1)
    reaction: Literal["hold", "flee", "stand-and-shoot"] | None = None
    move: Literal["advance", "hold", "retreat"] | None = None
    shoot: str | None = Field(None, min_length=1)
    pursue: bool | None = None
    cast: str | None = Field(None, min_length=1, description="FB-B12: the wizards' target")
    dispel: Literal["all", "none"] | None = Field(None, description="FB-B12: spells at it")
    challenge: str | None = Field(None, min_length=1)  # FB-B20: a character/champion, any, none
    answer: Literal["accept", "refuse"] | None = None


class Terrain(_Strict):
    name: str = Field("terrain", min_length=1)
    x: float = Field(ge=-1000, le=1000)
    y: float = Field(ge=-1000, le=1000)
    width: float = Field(gt=0, le=200)
    depth: float = Field(gt=0, le=200)
    blocks_sight: bool = False
    cover: Literal["none", "soft", "hard"] = "none"


class DeploymentFile(_Strict):
    # optional: marked so, `mathhammer profiles validate` knows the file for a deployment
    game: Literal["fantasy"] | None = None
    kind: Literal["deployment"] | None = None
    name: str = ""
    a: tuple[Placement, ...] = ()
    b: tuple[Placement, ...] = ()
    terrain: tuple[Terrain, ...] = Field((), max_length=20)


@dataclass(frozen=True)
class Deployment:
    """Where each unit starts (front midpoint, facing in radians), the terrain, the orders."""

    positions: tuple[tuple[float, float, float], ...]
    terrain: tuple[Terrain, ...]
    orders: tuple[dict, ...]  # per unit: the scripted orders given (keys absent = default)
    source: str = "default lines (FB-B2)"


def facing_theta(degrees: float) -> float:
    """Degrees clockwise from B's edge (+y) → radians counter-clockwise from +x."""
    return math.pi / 2 - math.radians(degrees)


def default_positions(units, rules, placed=frozenset()) -> list[tuple[float, float, float]]:
    """FB-B2: both lines centred, in list order from each side's own left. A line wider than
    the table is refused unless every unit of that side is in ``placed`` (its x and y given
    by a deployment file)."""
    br = rules.battle
    out: list[tuple[float, float, float] | None] = [None] * len(units)
    front_y = ((br.table_depth - br.deployment_gap) / 2, (br.table_depth + br.deployment_gap) / 2)
    for side in (0, 1):
        mine = [u for u in units if u.side == side]
        widths = [u.footprint(u.models)[0] for u in mine]
        total = sum(widths) + br.unit_spacing * (len(mine) - 1)
        if total > br.table_width and any(u.index not in placed for u in mine):
            raise InputError(f"list {'AB'[side]}", f"its line is {total:.1f}\" wide, wider than "
                             f"the {br.table_width:g}\" table (FB-B2)", round(total, 1),
                             "place the units with ‹deployment› FILE (two lines, say)")
        at = (br.table_width - total) / 2
        for u, w in zip(mine, widths):
            x = at + w / 2 if side == 0 else br.table_width - at - w / 2
            out[u.index] = (x, front_y[side], math.pi / 2 if side == 0 else -math.pi / 2)
            at += w + br.unit_spacing
    return out  # type: ignore[return-value]


def load_deployment(data: dict | None, units, rules, source: str = "‹deployment›") -> Deployment:
    """The deployment of ``units``: the default lines, changed by a parsed file when given."""
    orders: list[dict] = [{} for _ in units]
    if data is None:
        deployment = Deployment(tuple(default_positions(units, rules)), (), tuple(orders))
        check_positions(units, deployment, rules, source)
        return deployment
    try:
        spec = DeploymentFile.model_validate(data)
    except ValidationError as err:
        from mathhammer.profiles import pydantic_errors

        raise pydantic_errors(err, source) from None
    labels = {(u.side, u.label): u.index for u in units}
    placed = frozenset(labels[(side, p.unit)] for side, ps in ((0, spec.a), (1, spec.b))
                       for p in ps if p.x is not None and p.y is not None
                       and (side, p.unit) in labels)
    positions = default_positions(units, rules, placed)
    for side, placements in ((0, spec.a), (1, spec.b)):
        mine = {u.label: u for u in units if u.side == side}
        seen: set[str] = set()
        for i, p in enumerate(placements):
            where = f"{source}: {'ab'[side]}[{i}]"
            unit = mine.get(p.unit)
            if unit is None:
                raise ProfileError(f"{where}.unit", f"names no unit of list {'AB'[side]}", p.unit,
                                   f"use one of {', '.join(mine)}")
            if p.unit in seen:
                raise ProfileError(f"{where}.unit", "is placed twice", p.unit,
                                   "keep one [[" + "ab"[side] + "]] table per unit")
            seen.add(p.unit)
            x, y, theta = positions[unit.index]
            if p.facing is not None:
                theta = facing_theta(p.facing)
            positions[unit.index] = (x if p.x is None else p.x, y if p.y is None else p.y, theta)
            orders[unit.index] = {k: v for k, v in p.model_dump().items()
                                  if k in ("charge", "reaction", "move", "shoot", "pursue", "cast",
                                           "dispel", "challenge", "answer")
                                  and v is not None}
            _check_order_targets(orders[unit.index], units, side, where)
            _check_challenger(orders[unit.index], unit, where)
    br = rules.battle
    for i, t in enumerate(spec.terrain):
        if not (0 <= t.x <= br.table_width and 0 <= t.y <= br.table_depth):
            raise ProfileError(f"{source}: terrain[{i}]", "its centre is off the table",
                               (t.x, t.y), f"use x in 0..{br.table_width:g}, y in "
                               f"0..{br.table_depth:g}")
    deployment = Deployment(tuple(positions), spec.terrain, tuple(orders),
                            spec.name or source)
    check_positions(units, deployment, rules, source)
    return deployment


def _check_order_targets(orders: dict, units, side: int, where: str) -> None:
    enemies = [u.label for u in units if u.side != side]
    for key in ("charge", "shoot", "cast"):
        target = orders.get(key)
        if target is not None and target not in ("any", "none", "nearest") and target not in enemies:
            raise ProfileError(f"{where}.{key}", "names no enemy unit", target,
                               f"use \"any\", \"none\" or one of {', '.join(enemies)}")


def _check_challenger(orders: dict, unit, where: str) -> None:
    """FB-B20: a scripted challenge names a character or champion of the unit."""
    name = orders.get("challenge")
    able = [b[0] for b in unit.bodies if b[1] in ("character", "champion")]
    if name is not None and name not in ("any", "none") and name not in able:
        raise ProfileError(f"{where}.challenge", "names no character or champion of the unit",
                           name, "use \"any\", \"none\"" + (f" or one of {', '.join(able)}"
                                                              if able else ""))


def unit_box(unit, x: float, y: float, theta: float, models: int | None = None) -> Box:
    width, depth = unit.footprint(unit.models if models is None else models)
    return Box(x, y, theta, width, depth)


def check_positions(units, deployment: Deployment, rules, source: str) -> None:
    """Every unit on the table and no two overlapping (one line for the first problem)."""
    br = rules.battle
    boxes = [unit_box(u, *deployment.positions[u.index]) for u in units]
    for u, box in zip(units, boxes):
        if not on_table(box, br.table_width, br.table_depth):
            x, y = min(box.corners(), key=lambda c: min(c[0], br.table_width - c[0], c[1],
                                                         br.table_depth - c[1]))
            raise ProfileError(f"{source}: {'ab'[u.side]} unit {u.label!r}",
                               f"is off the {br.table_width:g}\" x {br.table_depth:g}\" table "
                               f"(a corner at {x:.1f}, {y:.1f})", (round(x, 1), round(y, 1)),
                               "move it so that its whole footprint is on the table")
    for i, (u, p) in enumerate(zip(units, boxes)):
        for v, q in zip(units[i + 1:], boxes[i + 1:]):
            if overlaps(p, q):
                raise ProfileError(f"{source}: {'ab'[u.side]} unit {u.label!r}",
                                   f"overlaps {'ab'[v.side]} unit {v.label!r}", None,
                                   "move one of them: units may touch, not overlap (a gap "
                                   f"of up to {TOUCHING:g}\" still touches)")
