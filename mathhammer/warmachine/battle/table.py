"""The table: 48" × 48", open ground, base-edge distances, straight-line moves (WM-B1, WM-B2).

Positions are base centres in inches, (0, 0) a corner; side A deploys at the low-y edge and
faces +y, side B at the high-y edge. Every distance the rules read (melee range, charge
range, control area, weapon and spell range) is measured base edge to base edge: the
distance between centres less both radii, never below 0 (WM-B2).
"""

from __future__ import annotations

import math
from pathlib import Path

from mathhammer.errors import InputError

TABLE = 48.0  # inches, square (WM-B1)
FRONT_LINE = (14.0, 34.0)  # y of each side's warjack line: 20" apart (WM-B1)
CASTER_BEHIND = 4.0  # the warcaster stands this far behind its line
SPACING = 4.0  # between neighbouring models of a line, centre to centre
MAX_COORD = 1e6  # a coordinate beyond this is a typo: said before the table check


def gap(ax: float, ay: float, ar: float, bx: float, by: float, br: float) -> float:
    """Base edge to base edge (WM-B2); 0 when the bases touch or overlap."""
    return max(0.0, math.hypot(bx - ax, by - ay) - ar - br)


def approach(x: float, y: float, r: float, tx: float, ty: float, tr: float, max_move: float,
             want_gap: float) -> tuple[float, float, float]:
    """Move straight toward the model at (tx, ty) until the edge gap is ``want_gap`` or
    ``max_move`` inches are used; returns (x, y, inches moved)."""
    d = math.hypot(tx - x, ty - y)
    need = d - r - tr - want_gap
    if need <= 0 or d == 0:
        return x, y, 0.0
    step = min(max_move, need)
    return x + (tx - x) * step / d, y + (ty - y) * step / d, step


def retreat(x: float, y: float, r: float, fx: float, fy: float, max_move: float,
            side: int) -> tuple[float, float, float]:
    """Move straight away from the point (fx, fy), at most ``max_move``, staying on the table;
    a model against its own table edge slides along it toward its own side's corner-free
    middle. Returns (x, y, inches moved)."""
    dx, dy = x - fx, y - fy
    d = math.hypot(dx, dy)
    if d == 0:
        dx, dy, d = 0.0, (-1.0 if side == 0 else 1.0), 1.0
    nx = min(max(x + dx / d * max_move, r), TABLE - r)
    ny = min(max(y + dy / d * max_move, r), TABLE - r)
    moved = math.hypot(nx - x, ny - y)
    if moved > max_move:  # clamping never lengthens a move, but say so if rounding did
        nx, ny, moved = x, y, 0.0
    return nx, ny, moved


def on_table(x: float, y: float, r: float) -> bool:
    return r <= x <= TABLE - r and r <= y <= TABLE - r


def default_positions(models, sides) -> list[tuple[float, float]]:
    """WM-B1: each side's warjacks (and solos) on a line across the middle of the table,
    4" apart; its warcaster 4" behind the middle of the line; the two lines 20" apart."""
    pos: list[tuple[float, float]] = [(0.0, 0.0)] * len(models)
    for s, side in enumerate(sides):
        line = FRONT_LINE[s]
        behind = line - CASTER_BEHIND if s == 0 else line + CASTER_BEHIND
        pos[side.caster] = (TABLE / 2, behind)
        others = [m for m in side.members if m != side.caster]
        width = SPACING * (len(others) - 1)
        for k, m in enumerate(others):
            pos[m] = (TABLE / 2 - width / 2 + SPACING * k, line)
    return pos


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(where, "must be a number of inches", value, "use e.g. [24, 10]")
    if abs(value) > MAX_COORD:
        raise InputError(where, f"is off the {TABLE:g}\" table", value,
                         f"use 0..{TABLE:g} inches")
    return float(value)


def read_deployment(data: dict, models, sides, where: str) -> list[tuple[float, float]]:
    """Positions from a deployment table ``{"a": {LABEL: [x, y]}, "b": {...}}``: the models it
    names are placed, the others keep the default (WM-B1). Off the table, overlapping
    bases or an unknown label is one line naming the key."""
    pos = default_positions(models, sides)
    if not isinstance(data, dict):
        raise InputError(where, "must be a table with [a] and/or [b]", type(data).__name__,
                         'write [a] then "Juggernaut" = [22, 14]')
    unknown = sorted(set(data) - {"a", "b"})
    if unknown:
        raise InputError(f"{where}: {unknown[0]}", "is not a side: the file has [a] and [b] "
                         "tables only", unknown[0], 'use [a] and [b]')
    for s, key in enumerate(("a", "b")):
        table = data.get(key, {})
        if not isinstance(table, dict):
            raise InputError(f"{where}: {key}", "must be a table of LABEL = [x, y]", table,
                             '[a] then "Juggernaut" = [22, 14]')
        members = {models[m].label: m for m in sides[s].members}
        by_ref: dict[str, list[int]] = {}
        for m in sides[s].members:
            by_ref.setdefault(models[m].ref, []).append(m)
        for label, xy in table.items():
            if label in members:
                m = members[label]
            elif len(by_ref.get(label, [])) == 1:
                m = by_ref[label][0]
            else:
                raise InputError(f"{where}: {key}.{label}", f"is not a model of side "
                                 f"{key.upper()}", label, "use one of: " + ", ".join(members))
            if not isinstance(xy, list) or len(xy) != 2:
                raise InputError(f"{where}: {key}.{label}", "must be [x, y] in inches", xy,
                                 "use e.g. [24, 10]")
            pos[m] = (_number(xy[0], f"{where}: {key}.{label}[0]"),
                      _number(xy[1], f"{where}: {key}.{label}[1]"))
    check_positions(pos, models, where)
    return pos


def check_positions(pos, models, where: str) -> None:
    """Every base fully on the table and no two bases overlapping (WM-B1)."""
    for m, (x, y) in zip(models, pos):
        if not on_table(x, y, m.radius):
            raise InputError(f"{where}: {'ab'[m.side]}.{m.label}", f"puts the base off the "
                             f"{TABLE:g}\" × {TABLE:g}\" table", [x, y],
                             f"keep x and y within {m.radius:.2f}..{TABLE - m.radius:.2f}")
    for i, a in enumerate(models):
        for b in models[i + 1:]:
            (ax, ay), (bx, by) = pos[a.index], pos[b.index]
            if math.hypot(bx - ax, by - ay) < a.radius + b.radius - 1e-9:
                raise InputError(f"{where}: {'ab'[b.side]}.{b.label}", f"overlaps the base of "
                                 f"{a.label}", [bx, by], "move the two models apart")


def load_deployment(path, models, sides, where: str | None = None) -> list[tuple[float, float]]:
    """The positions of a deployment file; ``where``: the scenario key that named it (its
    errors say that key and the file's name), else the ‹deployment› flag."""
    from mathhammer.errors import within
    from mathhammer.profiles import read_toml

    if where is None:
        return read_deployment(read_toml(path), models, sides, "‹deployment› " + str(path))
    return read_deployment(within(where, read_toml, path), models, sides,
                           f"{where} {Path(path).name}")
