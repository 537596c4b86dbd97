"""AOE and spray geometry (WM-D4..D7): models, templates, deviations, who is under what.

In inches: the intended target stands at the origin, the attacker on the negative x
axis at ``range`` inches (+x straight away from the attacker, +y to its left). The
exact and Monte Carlo engines of :mod:`mathhammer.warmachine.aoe`, the duel engine (a
missed AOE still catching its target, :func:`p_target_under_after_miss`) and the
explanations of :mod:`mathhammer.warmachine.explain` read the same geometry here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.errors import InputError, ProfileError, RulesError
from mathhammer.profiles import pydantic_errors
from mathhammer.warmachine import limits, rules
from mathhammer.warmachine.limits import DISTANCE_MAX, LIMITS

BASE_MM = {"small": 30.0, "medium": 40.0, "large": 50.0}  # WM-D7
MM_PER_INCH = 25.4
AOE_SIZES = (3.0, 4.0, 5.0)
SPRAY_SIZES = (8.0, 10.0)
SPRAY_NEAR_WIDTH = 0.5  # printed template: low confidence, see module doc
SPRAY_FAR_WIDTH = 2.0  # printed template: low confidence
SPRAY_STRIP_WIDTH = 1.0  # seed 000: a strip 1" wide (WM-D6)
SPRAY_SHAPES = ("strip", "template")
MAX_MODELS = 60  # models around the target in one query (file or flags)
MAX_ROF = 10
MAX_JOINT_STATES = 200_000  # joint per-model states of the exact engine
TOUCH_EPS = 1e-9  # same tolerance as kernels/aoe.py: touching bases count as under



def base_radius(base: str, where: str = "base") -> float:
    """Base radius in inches (WM-D7)."""
    if base not in BASE_MM:
        raise InputError(where, "base must be small, medium or large", base, "use small")
    return BASE_MM[base] / 2.0 / MM_PER_INCH


def deviation_vectors() -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of deviation directions 1..6: 1 straight on (+x), then clockwise."""
    angles = -np.arange(6) * (math.pi / 3.0)
    dx, dy = np.cos(angles), np.sin(angles)
    dx[np.abs(dx) < 1e-15] = 0.0
    dy[np.abs(dy) < 1e-15] = 0.0
    return np.ascontiguousarray(dx), np.ascontiguousarray(dy)


@dataclass(frozen=True)
class TemplateModel:
    """One model near the target. ``defense`` / ``armor`` / ``boxes`` default to the target's."""

    name: str
    x: float
    y: float
    base: str = "small"
    defense: int | None = None
    armor: int | None = None
    boxes: int | None = None


_NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,39}$"


class ModelRow(BaseModel):
    """One model of ``--model`` or a ``--models`` file: strict types, bounded values."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(pattern=_NAME, description="starts with a letter; letters, digits, _ -")
    x: float = Field(ge=-DISTANCE_MAX, le=DISTANCE_MAX, description="inches, +x away from the attacker")
    y: float = Field(ge=-DISTANCE_MAX, le=DISTANCE_MAX, description="inches, +y to the attacker's left")
    base: Literal["small", "medium", "large"] = "small"
    def_: int | None = Field(None, alias="def", ge=LIMITS["defense"][0], le=LIMITS["defense"][1])
    arm: int | None = Field(None, ge=LIMITS["armor"][0], le=LIMITS["armor"][1])
    boxes: int | None = Field(None, ge=LIMITS["boxes"][0], le=LIMITS["boxes"][1])

    def template_model(self) -> TemplateModel:
        return TemplateModel(self.name, self.x, self.y, self.base, self.def_, self.arm, self.boxes)


class ModelsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    models: list[ModelRow] = Field(min_length=1, max_length=MAX_MODELS)


MODELS_FIX = ('a model has name, x, y (inches, |x|, |y| ≤ 1000) and may have base = '
              '"small"|"medium"|"large", def, arm, boxes (whole numbers)')


def _schema_error(err: ValidationError, where: str) -> ProfileError:
    """Every problem of a models table in one line, with the fix for models (issue 22)."""
    found = pydantic_errors(err, where)
    error = ProfileError(where, found.what, None, MODELS_FIX)
    setattr(error, "problems", getattr(found, "problems", []))  # noqa: B010
    return error


def _row(data: dict, where: str) -> TemplateModel:
    try:
        row = ModelRow.model_validate(data)
    except ValidationError as err:
        raise _schema_error(err, where) from None
    if row.name == "target":
        raise InputError(f"{where}: name", "'target' is the attacked model's own name",
                         row.name, "use a name like jack1")
    return row.template_model()


def parse_model(text: str, where: str = "‹model›") -> TemplateModel:
    """``NAME,X,Y[,BASE][,def=N][,arm=N][,boxes=N]``, e.g. ``grunt1,1.5,-0.5,small,arm=14``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    fix = 'use e.g. ‹model› "grunt1,1.5,-0.5,small,arm=14,boxes=1"'
    if len(parts) < 3:
        raise InputError(where, "needs NAME,X,Y at least", text, fix)
    data: dict = {"name": parts[0]}
    try:
        data["x"], data["y"] = float(parts[1]), float(parts[2])
    except ValueError:
        raise InputError(where, "X and Y must be numbers (inches)", text, fix) from None
    for part in parts[3:]:
        if "=" not in part:
            data["base"] = part
            continue
        key, _, value = part.partition("=")
        key = key.strip().lower()
        if key not in ("def", "arm", "boxes", "base"):
            raise InputError(where, f"unknown key {key!r} (def, arm, boxes, base)", text, fix)
        try:
            data[key] = value.strip() if key == "base" else int(value)
        except ValueError:
            raise InputError(where, f"{key} must be a whole number", text, fix) from None
    return _row(data, f"{where} {parts[0]}")


def load_models(path: str) -> list[TemplateModel]:
    """``[[models]]`` tables (name, x, y; optional base, def, arm, boxes), validated by
    the same schema machinery as every other file: one line naming each bad key."""
    from mathhammer.profiles import read_toml

    where = f"‹models› {path}"
    data = read_toml(path, where)
    try:
        parsed = ModelsFile.model_validate(data)
    except ValidationError as err:
        raise _schema_error(err, where) from None
    return [_row(row.model_dump(by_alias=True), f"{where}: models[{i}]")
            for i, row in enumerate(parsed.models)]


@dataclass(frozen=True)
class AoeSetup:
    """Template attacks at ``target`` (at the origin) with other models around it.

    ``range`` is the distance from the attacker to the target (for a spray, from the
    front of the attacker's base); ``rof`` shots are fired at the same point.
    """

    stat: int
    defense: int
    armor: int
    power: int
    range: float
    kind: str = "ranged"
    aoe: float | None = 3.0
    spray: float | None = None
    rng: float | None = None
    boost_hit: bool = False
    boost_damage: bool = False
    boost_blast: bool = False
    modifier: int = 0
    aim: bool = False
    target_in_melee: bool = False
    knocked_down: bool = False
    stationary: bool = False
    cover: bool = False
    concealment: bool = False
    elevated: bool = False
    def_bonus: int = 0
    arm_bonus: int = 0
    target_base: str = "medium"
    target_boxes: int | None = None
    models: tuple[TemplateModel, ...] = field(default_factory=tuple)
    rof: int = 1
    spray_shape: str = "strip"

    def validate(self) -> AoeSetup:
        rules.check_kind(self.kind)
        if self.kind == "melee":
            raise RulesError("‹kind›", "AOE and spray attacks are ranged or magic", self.kind,
                             "use ‹kind› ranged")
        for flag, name, value in (("‹stat›", "stat", self.stat), ("‹defense›", "defense", self.defense),
                                  ("‹armor›", "armor", self.armor), ("‹power›", "power", self.power),
                                  ("‹modifier›", "modifier", self.modifier),
                                  ("‹def_bonus›", "def_bonus", self.def_bonus),
                                  ("‹arm_bonus›", "arm_bonus", self.arm_bonus)):
            limits.check(name, value, flag)
        if self.target_boxes is not None:
            limits.check("boxes", self.target_boxes, "‹boxes›")
        if isinstance(self.rof, bool) or not isinstance(self.rof, int) or not 1 <= self.rof <= MAX_ROF:
            raise InputError("‹rof›", f"must be a whole number of shots from 1 to {MAX_ROF}",
                             self.rof, "use e.g. ‹rof› 2")
        if not isinstance(self.range, int | float) or not math.isfinite(self.range) or self.range <= 0:
            raise InputError("‹range›", "must be a distance above 0 inches", self.range,
                             "use e.g. ‹range› 8")
        limits.check_distance(self.range, "‹range›")
        limits.check_distance(self.rng, "‹rng›")
        if self.rng is not None and self.rng <= 0:
            raise InputError("‹rng›", "must be above 0 inches", self.rng, "use e.g. ‹rng› 10")
        if self.spray is not None:
            if self.spray not in SPRAY_SIZES:
                raise InputError("‹spray›", "spray templates are 8 or 10 inches", self.spray,
                                 "use ‹spray› 8")
        elif self.aoe not in AOE_SIZES:
            raise InputError("‹aoe›", "AOE templates are 3, 4 or 5 inches", self.aoe, "use ‹aoe› 3")
        if self.spray_shape not in SPRAY_SHAPES:
            raise InputError("‹spray_shape›", "must be strip (seed 000) or template (the printed "
                             "Mk II template)", self.spray_shape, "use ‹spray_shape› strip")
        base_radius(self.target_base, "‹target_base›")
        if len(self.models) > MAX_MODELS:
            raise InputError("‹model›", f"at most {MAX_MODELS} models around the target",
                             len(self.models), "give fewer models")
        names = [m.name for m in self.models]
        if len(set(names)) != len(names):
            raise InputError("‹model›", "model names must be unique", names,
                             "give each model its own name")
        defense = rules.effective_defense(self.defense, self.kind, cover=self.cover,
                                          concealment=self.concealment, elevated=self.elevated,
                                          spell_bonus=self.def_bonus)
        if defense < 1:
            raise InputError("‹defense› with ‹def_bonus›", f"the target's DEF falls below 1 "
                             f"({self.defense} {self.def_bonus:+d}); DEF below 1 is not allowed "
                             "(WM-A7)", self.def_bonus, f"use a ‹def_bonus› of {1 - self.defense} or more")
        return self


@dataclass(frozen=True)
class _Model:
    name: str
    x: float
    y: float
    radius: float
    attack: tuple[int, int, int, bool]  # (k, bonus, DEF, auto_hit) for spray / direct rolls
    full: tuple[int, int, int]  # (k, POW, ARM)
    blast: tuple[int, int, int]
    boxes: int | None


def _resolve(setup: AoeSetup) -> list[_Model]:
    s = setup.validate()
    k_hit = rules.dice_count(s.boost_hit)
    mod = rules.attack_modifier(s.kind, aiming=s.aim, target_in_melee=s.target_in_melee,
                                spray=s.spray is not None)
    target_def = rules.effective_defense(s.defense, s.kind, knocked_down=s.knocked_down,
                                         stationary=s.stationary, concealment=s.concealment,
                                         cover=s.cover, elevated=s.elevated, spell_bonus=s.def_bonus)
    target_arm = rules.effective_armor(s.armor, spell_bonus=s.arm_bonus)
    k_full = rules.dice_count(s.boost_damage)
    k_blast = rules.dice_count(s.boost_blast)
    blast_pow = math.ceil(s.power / 2)  # WM-D4: half POW rounded up
    bonus = s.stat + s.modifier + mod
    out = [_Model("target", 0.0, 0.0, base_radius(s.target_base), (k_hit, bonus, target_def, False),
                  (k_full, s.power, target_arm), (k_blast, blast_pow, target_arm), s.target_boxes)]
    for m in s.models:
        arm = m.armor if m.armor is not None else s.armor
        dfn = m.defense if m.defense is not None else s.defense
        out.append(_Model(m.name, m.x, m.y, base_radius(m.base), (k_hit, bonus, dfn, False),
                          (k_full, s.power, arm), (k_blast, blast_pow, arm),
                          m.boxes if m.boxes is not None else s.target_boxes))
    return out


def aim_point(distance: float, rng: float | None) -> tuple[float, float, bool]:
    """(x of the intended point, deviation cap, automatic miss) — WM-D5 and WM-A8.

    The target is at the origin and the attacker ``distance`` inches behind it; a target
    beyond RNG is missed and the shot deviates from the point at RNG, at most RNG/2.
    """
    if rng is not None and distance > rng:
        return rng - distance, rng / 2.0, True
    return 0.0, distance / 2.0, False


def _aim(setup: AoeSetup) -> tuple[float, float, bool]:
    return aim_point(setup.range, setup.rng)


def deviation_cases(aoe: float, aim_x: float, cap: float) -> list[tuple[float, float]]:
    """Template centres after the 36 equally likely deviations (WM-D5): d6 direction, d6
    inches capped at ``cap``, from the intended point ``(aim_x, 0)``."""
    dir_x, dir_y = deviation_vectors()
    return [(aim_x + min(float(die), cap) * dir_x[d], min(float(die), cap) * dir_y[d])
            for d in range(6) for die in range(1, 7)]


def p_target_under_after_miss(aoe: float, target_base: str, distance: float,
                              rng: float | None = None) -> float:
    """P(the deviated template still covers the lone target | the attack missed) (WM-D4, WM-D5).

    The geometry of ``wm aoe`` for one model: the duel and chain engines read it so both
    play a missed AOE the same way (seed audit 2026-12).

    >>> round(p_target_under_after_miss(3.0, "medium", 8.0), 6)  # d6 of 1 or 2: 12 of 36
    0.333333
    """
    aim_x, cap, _ = aim_point(distance, rng)
    reach = (base_radius(target_base) + aoe / 2.0) ** 2 + TOUCH_EPS
    under = sum(1 for cx, cy in deviation_cases(aoe, aim_x, cap) if cx * cx + cy * cy <= reach)
    return under / 36.0


def spray_coverage(models: list[_Model], range_: float, length: float,
                   shape: str = "strip") -> np.ndarray:
    """int8 per model: 1 when its base touches the spray (fixed geometry, WM-D6).

    ``strip``: seed 000's strip 1" wide; ``template``: the printed template's trapezoid.
    """
    x0, x1 = -range_, -range_ + length
    if shape == "strip":
        h0 = h1 = SPRAY_STRIP_WIDTH / 2
    else:
        h0, h1 = SPRAY_NEAR_WIDTH / 2, SPRAY_FAR_WIDTH / 2
    corners = [(x0, -h0), (x1, -h1), (x1, h1), (x0, h0)]
    out = np.zeros(len(models), dtype=np.int8)
    for i, m in enumerate(models):
        out[i] = _distance_to_convex(m.x, m.y, corners) <= m.radius + TOUCH_EPS
    return out


def _distance_to_convex(px: float, py: float, corners: list[tuple[float, float]]) -> float:
    inside = True
    best = math.inf
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
        ex, ey = bx - ax, by - ay
        if ex * (py - ay) - ey * (px - ax) < 0:  # counter-clockwise polygon: right of an edge
            inside = False
        t = max(0.0, min(1.0, ((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey)))
        best = min(best, math.hypot(px - ax - t * ex, py - ay - t * ey))
    return 0.0 if inside else best


# --------------------------------------------------------------------------- exact engine
def _under(m: _Model, cx: float, cy: float, radius: float) -> bool:
    dx, dy = m.x - cx, m.y - cy
    return dx * dx + dy * dy <= (m.radius + radius) ** 2 + TOUCH_EPS


def _scenarios(setup: AoeSetup, models: list[_Model]) -> list[tuple[float, list[int]]]:
    """AOE outcomes as (probability, per-model 0 none / 1 blast / 2 direct) — 1 + 36 cases."""
    radius = setup.aoe / 2.0
    aim_x, cap, auto_miss = _aim(setup)
    k, bonus, dfn, auto_hit = models[0].attack
    p_direct = 0.0 if auto_miss else rules.hit_probability(k, bonus, dfn, auto_hit)
    out = []
    if p_direct > 0:
        out.append((p_direct, [2] + [int(_under(m, aim_x, 0.0, radius)) for m in models[1:]]))
    for cx, cy in deviation_cases(setup.aoe, aim_x, cap):
        out.append(((1.0 - p_direct) / 36.0, [int(_under(m, cx, cy, radius)) for m in models]))
    return out
