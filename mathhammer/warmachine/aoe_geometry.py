"""AOE and spray geometry (WM-D4..D7): models, templates, deviations, who is under what.

In inches: the intended target stands at the origin, the attacker on the negative x
axis at ``range`` inches (+x straight away from the attacker, +y to its left). The
exact and Monte Carlo engines of :mod:`mathhammer.warmachine.aoe` and the
explanations of :mod:`mathhammer.warmachine.explain` read the same geometry here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine import rules

BASE_MM = {"small": 30.0, "medium": 40.0, "large": 50.0}  # WM-D7
MM_PER_INCH = 25.4
AOE_SIZES = (3.0, 4.0, 5.0)
SPRAY_SIZES = (8.0, 10.0)
SPRAY_NEAR_WIDTH = 0.5  # low confidence, see module doc
SPRAY_FAR_WIDTH = 2.0  # low confidence
TOUCH_EPS = 1e-9  # same tolerance as kernels/aoe.py: touching bases count as under

MAX_STAT = 1000  # any stat, DEF, ARM or POW beyond this is a typo, not a model


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


_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


def parse_model(text: str, where: str = "--model") -> TemplateModel:
    """``NAME,X,Y[,BASE][,def=N][,arm=N][,boxes=N]``, e.g. ``grunt1,1.5,-0.5,small,arm=14``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    fix = 'use e.g. --model "grunt1,1.5,-0.5,small,arm=14,boxes=1"'
    if len(parts) < 3:
        raise InputError(where, "needs NAME,X,Y at least", text, fix)
    name = parts[0]
    try:
        x, y = float(parts[1]), float(parts[2])
    except ValueError:
        raise InputError(where, "X and Y must be numbers (inches)", text, fix) from None
    kwargs: dict = {}
    for part in parts[3:]:
        if "=" not in part:
            kwargs["base"] = part
            continue
        key, _, value = part.partition("=")
        key = {"def": "defense", "arm": "armor"}.get(key.strip().lower(), key.strip().lower())
        if key not in ("defense", "armor", "boxes", "base"):
            raise InputError(where, f"unknown key {key!r} (def, arm, boxes, base)", text, fix)
        try:
            kwargs[key] = value.strip() if key == "base" else int(value)
        except ValueError:
            raise InputError(where, f"{key} must be a whole number", text, fix) from None
    return check_model(TemplateModel(name, x, y, **kwargs), where)


def check_model(model: TemplateModel, where: str) -> TemplateModel:
    if not _NAME.match(model.name) or model.name == "target":
        raise InputError(where, "model names start with a letter, use letters, digits, _ or -, "
                         "and are not 'target'", model.name, "use a name like jack1")
    base_radius(model.base, where)
    for key in ("defense", "boxes"):
        value = getattr(model, key)
        if value is not None and value < 1:
            raise InputError(where, f"{key} must be at least 1", value, f"give {key} 1 or more")
    if model.armor is not None and model.armor < 0:
        raise InputError(where, "armor must be 0 or more", model.armor, "give arm 0 or more")
    if not (math.isfinite(model.x) and math.isfinite(model.y)):
        raise InputError(where, "coordinates must be finite", (model.x, model.y),
                         "give x and y in inches, e.g. x = 2, y = 0")
    return model


def load_models(path: str) -> list[TemplateModel]:
    """``[[models]]`` tables with name, x, y and optional base, def, arm, boxes."""
    from mathhammer.profiles import read_toml

    data = read_toml(path, "--models")
    rows = data.get("models")
    if not isinstance(rows, list) or not rows:
        raise InputError(f"--models {path}", "needs a list of [[models]] tables", None,
                         'add [[models]] name = "grunt1" x = 1.5 y = 0 base = "small"')
    out = []
    for i, row in enumerate(rows):
        where = f"--models {path}: models[{i}]"
        unknown = set(row) - {"name", "x", "y", "base", "def", "arm", "boxes"}
        if unknown or not {"name", "x", "y"} <= set(row):
            raise InputError(where, "keys are name, x, y (required), base, def, arm, boxes",
                             sorted(row), "give at least name, x and y")
        try:
            model = TemplateModel(str(row["name"]), float(row["x"]), float(row["y"]),
                                  str(row.get("base", "small")), row.get("def"), row.get("arm"),
                                  row.get("boxes"))
        except (TypeError, ValueError):
            raise InputError(where, "x and y must be numbers", row,
                             "give x and y in inches, e.g. x = 2, y = 0") from None
        out.append(check_model(model, where))
    return out


@dataclass(frozen=True)
class AoeSetup:
    """A template attack at ``target`` (at the origin) with other models around it."""

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

    def validate(self) -> AoeSetup:
        rules.check_kind(self.kind)
        if self.kind == "melee":
            raise RulesError("--kind", "AOE and spray attacks are ranged or magic", self.kind,
                             "use --kind ranged")
        for flag, value, low in (("--stat", self.stat, 0), ("--defense", self.defense, 1),
                                 ("--armor", self.armor, 0), ("--power", self.power, 0)):
            if value < low:
                raise InputError(flag, f"must be at least {low}", value, f"use e.g. {flag} {max(low, 1)}")
            if value > MAX_STAT:  # huge ints overflow the int64 roll tables
                raise InputError(flag, f"must be at most {MAX_STAT}", value, f"use e.g. {flag} {max(low, 1)}")
        for flag, value in (("--modifier", self.modifier), ("--boxes", self.target_boxes or 0)):
            if abs(value) > MAX_STAT:  # 2**63 overflowed the int64 roll tables
                raise InputError(flag, f"must be between -{MAX_STAT} and {MAX_STAT}", value,
                                 f"use e.g. {flag} 2")
        if not math.isfinite(self.range) or self.range <= 0:
            raise InputError("--range", "must be a distance above 0 inches", self.range,
                             "use e.g. --range 8")
        if self.rng is not None and self.rng <= 0:
            raise InputError("--rng", "must be above 0 inches", self.rng, "use e.g. --rng 10")
        if self.spray is not None:
            if self.spray not in SPRAY_SIZES:
                raise InputError("--spray", "spray templates are 8 or 10 inches", self.spray,
                                 "use --spray 8")
        elif self.aoe not in AOE_SIZES:
            raise InputError("--aoe", "AOE templates are 3, 4 or 5 inches", self.aoe, "use --aoe 3")
        if self.target_boxes is not None and self.target_boxes < 1:
            raise InputError("--boxes", "must be at least 1", self.target_boxes, "use e.g. --boxes 5")
        base_radius(self.target_base, "--target-base")
        names = [m.name for m in self.models]
        if len(set(names)) != len(names):
            raise InputError("--model", "model names must be unique", names,
                             "give each model its own name")
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


def _aim(setup: AoeSetup) -> tuple[float, float, bool]:
    """(x of the intended point, deviation cap, automatic miss) — WM-D5 and reference D6."""
    if setup.rng is not None and setup.range > setup.rng:
        return setup.rng - setup.range, setup.rng / 2.0, True
    return 0.0, setup.range / 2.0, False


def spray_coverage(models: list[_Model], range_: float, length: float) -> np.ndarray:
    """int8 per model: 1 when its base touches the spray trapezoid (fixed geometry)."""
    x0, x1 = -range_, -range_ + length
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
    dir_x, dir_y = deviation_vectors()
    for direction in range(6):
        for die in range(1, 7):
            dist = min(float(die), cap)
            cx, cy = aim_x + dist * dir_x[direction], dist * dir_y[direction]
            out.append(((1.0 - p_direct) / 36.0,
                        [int(_under(m, cx, cy, radius)) for m in models]))
    return out
