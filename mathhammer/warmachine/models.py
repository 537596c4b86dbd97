"""Warmachine Mk II profiles: pydantic models, consistency checks and loading (PR-1..3).

The schema is the one agreed in ``notes/wm_schema.md``: a TOML file per model under
``profiles/warmachine/<faction>/<name>.toml``. Field checks (types, ranges, unknown
keys) come from pydantic; the cross-field checks of PR-3 (P+S = POW + STR, six grid
columns of ``-LRHACM``, a damage track for every model, weapon locations that exist
on the grid) live in :func:`consistency_problems`, which works on the raw TOML dict so
that a file's type errors and its consistency errors are reported together, sorted
by key path.

>>> from mathhammer.warmachine.models import load_warmachine
>>> jug = load_warmachine("khador/juggernaut")     # doctest: +SKIP
>>> jug.stats.arm, jug.grid_columns[0]             # doctest: +SKIP
(20, '---L')
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from mathhammer.errors import ProfileError
from mathhammer.profiles import load_profile, natural_key, register_model

GRID_LETTERS = "-LRHACM"  # WM-G1: blank hull box, arms, head, arc node, cortex, movement
SYSTEM_LETTERS = "LRHACM"
N_COLUMNS = 6
WEAPON_LOCATIONS = ("L", "R", "H", "-")
_SPRAY = re.compile(r"^SP\d{1,2}$")  # WM-D6: "SP8", "SP10"
_ID = r"^[a-z0-9_\-]+/[a-z0-9_\-]+$"

Confidence = Literal["high", "medium", "low"]
# strict scalars: TOML `true` is not the number 1, and 2.5 is not a stat (issue 8: wrong types)
Int = Annotated[int, Strict()]
Num = Annotated[float, Strict()]
Bool = Annotated[bool, Strict()]


class _Frozen(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False
    )


class Stats(_Frozen):
    """The stat line. ``def`` and ``str`` are Python names, so they are ``def_``/``str_``
    in Python and ``def``/``str`` in TOML; :attr:`defense` and :attr:`strength` read them."""

    spd: Int = Field(ge=0, le=15, description="SPD, inches")
    str_: Int = Field(alias="str", ge=0, le=20, description="STR")
    mat: Int = Field(ge=0, le=12, description="MAT, melee attack skill")
    rat: Int = Field(ge=0, le=12, description="RAT, ranged attack skill")
    def_: Int = Field(alias="def", ge=1, le=25, description="DEF (PR-3: DEF 0 is impossible)")
    arm: Int = Field(ge=1, le=30, description="ARM")
    cmd: Int | None = Field(None, ge=0, le=12, description="CMD, optional")
    focus: Int | None = Field(None, ge=1, le=12, description="FOCUS, warcasters only")

    @property
    def defense(self) -> int:
        return self.def_

    @property
    def strength(self) -> int:
        return self.str_


class Weapon(_Frozen):
    """One weapon line. Melee damage adds ``pow_plus_str`` (= POW + STR, PR-3), ranged adds
    ``pow`` (WM-D1); ``location`` is the grid system whose crippling costs a die (WM-G4)."""

    name: str = Field(min_length=1)
    kind: Literal["melee", "ranged"]
    rng: Annotated[float, Strict(), Field(ge=0, le=100)] | str = Field(
        description='inches, or "SP8"/"SP10" for a spray (WM-D6)'
    )
    pow: Int | None = Field(
        None, ge=0, le=25, description="POW; omit for weapons without a damage roll"
    )
    pow_plus_str: Int | None = Field(None, ge=0, le=40, description="melee only: POW + STR (PR-3)")
    location: Literal["L", "R", "H", "-"] = Field(
        "-", description='grid system of the weapon (WM-G4); "-" for casters and solos'
    )
    rof: Int = Field(1, ge=1, le=10, description="ranged: attacks allowed (WM-F2)")
    aoe: Num = Field(0.0, ge=0, le=10, description="template diameter in inches, 0 = none (WM-D4)")
    rules: tuple[str, ...] = ()
    confidence: Confidence | None = None

    @property
    def is_spray(self) -> bool:
        return isinstance(self.rng, str)

    @property
    def spray_length(self) -> int | None:
        return int(self.rng[2:]) if isinstance(self.rng, str) else None

    @property
    def damage_power(self) -> int | None:
        """The number added to the damage dice: P+S for melee, POW otherwise (WM-D1)."""
        return self.pow_plus_str if self.kind == "melee" else self.pow

    def has_rule(self, keyword: str) -> bool:
        """True if any rule starts with ``keyword`` (case-insensitive)."""
        key = keyword.lower()
        return any(rule.lower().startswith(key) for rule in self.rules)


class Spell(_Frozen):
    """One spell: magic attack 2d6 + FOCUS, damage 2d6 + ``pow`` when offensive (WM-F4)."""

    name: str = Field(min_length=1)
    cost: Int = Field(ge=0, le=10)
    rng: Annotated[float, Strict(), Field(ge=0, le=100)] | Literal["SELF", "CTRL"] | str = Field(
        description='inches, "SELF", "CTRL" or a spray "SP8"'
    )
    aoe: Annotated[float, Strict(), Field(ge=0, le=10)] | Literal["CTRL"] = Field(
        0.0, description='inches, 0 = none, or "CTRL"'
    )
    pow: Int | None = Field(None, ge=0, le=25, description="omit for spells without a damage roll")
    upkeep: Bool = False
    offensive: Bool = False
    effect: str = ""
    confidence: Confidence | None = None


class EffectData(_Frozen):
    """A feat's or spell's effect the engine plays (WM-E1..WM-E4).

    ``on = "enemy"``: a feat hits the attacked model when the warcaster uses it (WM-E2), an
    offensive spell when its magic attack hits (WM-E3). ``on = "friendly"``: a buff on the
    caster's side — on the attacked model when it is the buffed one (WM-E4), and the attack
    modifiers on the attackers activating after a feat (WM-E2).
    """

    name: str = Field(min_length=1, description="the feat's name, or one of this profile's spells")
    source: Literal["feat", "spell"]
    on: Literal["enemy", "friendly"]
    rule: str = Field(pattern=r"^WM-E[1-4]$", description="the rule id that plays it")
    defense: Int = Field(0, alias="def", ge=-10, le=10, description="DEF against every attack")
    ranged_defense: Int = Field(0, alias="ranged_def", ge=-10, le=10,
                                description="DEF against ranged and magic attacks only")
    armor: Int = Field(0, alias="arm", ge=-10, le=10, description="ARM")
    knock_down: Bool = Field(False, description="the model is knocked down (WM-A4, WM-A7)")
    stationary: Bool = Field(False, description="the model is stationary for a round (as knocked "
                                                "down for attack rolls, WM-A4, WM-A7)")
    unless_immune: str = Field("", description='an immunity that stops it, e.g. "Cold"')
    mat: Int = Field(0, ge=-5, le=5, description="friendly: attackers' MAT")
    rat: Int = Field(0, ge=-5, le=5, description="friendly: attackers' RAT")
    strength: Int = Field(0, alias="str", ge=-5, le=5, description="friendly: attackers' STR "
                                                                 "(melee damage)")
    power: Int = Field(0, alias="pow", ge=-5, le=5, description="friendly: attackers' POW")
    not_played: str = Field("", description="what of the text the engine does not play")

    @property
    def target_mods(self) -> tuple[int, int, int]:
        """(DEF, ranged DEF, ARM) it puts on the model it affects."""
        return self.defense, self.ranged_defense, self.armor

    @property
    def attack_mods(self) -> tuple[int, int, int, int]:
        return self.mat, self.rat, self.strength, self.power

    @property
    def knocks_down(self) -> bool:
        return self.knock_down or self.stationary


class WarmachineProfile(_Frozen):
    """A Warmachine Mk II model: a warjack (six-column ``grid``) or a warcaster/solo
    (``boxes``), with its stat line, weapons, spells and recorded doubts (PR-1..3)."""

    schema_version: Literal[1]
    game: Literal["warmachine"]
    id: str = Field(pattern=_ID, description="<faction>/<name>, e.g. khador/juggernaut")
    name: str = Field(min_length=1)
    faction: str = Field(min_length=1)
    aliases: tuple[str, ...] = Field((), max_length=12, description="other names list builders print (mathhammer import)")
    kind: Literal["warjack", "warcaster", "solo"]
    size: Literal["light", "heavy"] | None = Field(None, description="warjacks only")
    base: Literal["small", "medium", "large"] = Field(description="WM-D7: 30/40/50 mm")
    points: Int = Field(ge=0, le=100)
    warjack_points: Int | None = Field(None, ge=0, le=20, description="warcasters only (WJ +N)")
    confidence: Confidence = "medium"
    sources: tuple[str, ...] = ()
    special_rules: tuple[str, ...] = ()
    feat: str = ""
    stats: Stats
    grid: tuple[str, ...] | None = Field(
        None, description="warjacks: six columns top to bottom, letters from -LRHACM (WM-G1)"
    )
    boxes: Int | None = Field(
        None, ge=1, le=100, description="warcasters/solos: damage track (WM-G6)"
    )
    low_confidence: dict[str, str] = Field(
        default_factory=dict, description="key path -> the doubt (PR-2)"
    )
    weapons: tuple[Weapon, ...] = Field((), max_length=12,
                                        description="at most 12 (no Mk II model has more than 4)")
    spells: tuple[Spell, ...] = Field((), max_length=16, description="at most 16")
    effects: tuple[EffectData, ...] = Field((), max_length=24,
                                            description="feat and spell effects the engine plays")

    @model_validator(mode="after")
    def _consistent(self) -> WarmachineProfile:
        problems = consistency_problems(self.model_dump(by_alias=True))
        if problems:
            raise ValueError("; ".join(f"{key}: {text}" for key, text in problems))
        return self

    @property
    def is_warjack(self) -> bool:
        return self.kind == "warjack"

    @property
    def grid_columns(self) -> list[str]:
        return list(self.grid or ())

    def weapon(self, name: str) -> Weapon:
        for weapon in self.weapons:
            if weapon.name.lower() == name.lower():
                return weapon
        raise ProfileError(
            f"{self.id}: weapons",
            "has no such weapon",
            name,
            f"use one of {', '.join(w.name for w in self.weapons)}",
        )

    def doubt(self, key_path: str) -> str | None:
        """The low-confidence note for a key path (``stats.mat``), if any (PR-2)."""
        return self.low_confidence.get(key_path)


def draw_grid(columns: list[str] | tuple[str, ...]) -> list[str]:
    """The grid as text rows under a ``1 2 3 4 5 6`` header, columns top-aligned.

    A column string lists only existing boxes top to bottom, so a shorter column
    shows blanks below its last box. ``-`` is a hull box, letters are systems.

    >>> draw_grid(["-L", "-LM", "M", "C", "RC", "R"])
    ['1 2 3 4 5 6', '- - M C R R', 'L L     C  ', '  M        ']
    """
    height = max((len(c) for c in columns), default=0)
    rows = [" ".join(str(i + 1) for i in range(len(columns)))]
    for r in range(height):
        rows.append(" ".join(c[r] if r < len(c) else " " for c in columns))
    return rows


# --------------------------------------------------------------------------- checks


def consistency_problems(data: Any) -> list[tuple[str, str]]:
    """PR-3 cross-field checks on a raw profile dict; ``[(key path, message)]``.

    Values of the wrong type are skipped here: pydantic reports those.
    """
    if not isinstance(data, dict):
        return []
    problems: list[tuple[str, str]] = []
    kind = data.get("kind")
    stats: dict = data["stats"] if isinstance(data.get("stats"), dict) else {}
    grid = data.get("grid")
    problems += _grid_problems(grid)
    problems += _track_problems(data, kind, stats)
    letters = (
        "".join(c for c in grid if isinstance(c, str)) if isinstance(grid, list | tuple) else ""
    )
    weapons = data.get("weapons")
    if isinstance(weapons, list | tuple):
        for i, weapon in enumerate(weapons):
            if isinstance(weapon, dict):
                problems += _weapon_problems(f"weapons.{i}", weapon, stats, kind, letters)
    spells = data.get("spells")
    if isinstance(spells, list | tuple):
        for i, spell in enumerate(spells):
            rng = spell.get("rng") if isinstance(spell, dict) else None
            if isinstance(rng, str) and rng not in ("SELF", "CTRL") and not _SPRAY.match(rng):
                problems.append(
                    (f"spells.{i}.rng", f"must be {_UNION_FIELDS['rng']['spells']} (got {rng!r})")
                )
    ident, faction = data.get("id"), data.get("faction")
    if (
        isinstance(ident, str)
        and isinstance(faction, str)
        and "/" in ident
        and ident.split("/")[0] != faction
    ):
        problems.append(
            ("faction", f"must match the id's first part {ident.split('/')[0]!r} (got {faction!r})")
        )
    problems += _low_confidence_problems(data)
    problems += _effect_problems(data)
    return problems


def _effect_problems(data: dict) -> list[tuple[str, str]]:
    """WM-E1: an effect names this profile's feat or one of its spells, and does something."""
    effects = data.get("effects")
    if not isinstance(effects, list | tuple):
        return []
    problems = []
    spell_list = data.get("spells") if isinstance(data.get("spells"), list | tuple) else []
    spells = {s.get("name"): s for s in spell_list
              if isinstance(s, dict) and isinstance(s.get("name"), str)}
    feat = data.get("feat") if isinstance(data.get("feat"), str) else ""
    mods = ("def", "ranged_def", "arm", "mat", "rat", "str", "pow")
    for i, e in enumerate(effects):
        if not isinstance(e, dict):
            continue
        key, name, on = f"effects.{i}", e.get("name"), e.get("on")
        if not isinstance(name, str):
            continue  # a name of the wrong type: pydantic reports it
        if e.get("source") == "feat":
            if data.get("kind") != "warcaster":
                problems.append((f"{key}.source", "only warcasters have a feat"))
            elif isinstance(name, str) and not feat.lower().startswith(name.lower()):
                problems.append((f"{key}.name", f"must be the feat's name, the start of "
                                 f"feat = {feat[:40]!r} (got {name!r})"))
        elif e.get("source") == "spell":
            spell = spells.get(name)
            if spell is None:  # noqa: SIM114
                problems.append((f"{key}.name", f"must be one of the spells "
                                 f"({', '.join(map(str, spells)) or 'none'}) (got {name!r})"))
            elif on == "enemy" and spell.get("offensive") is not True:
                problems.append((f"{key}.on", f"{name} is not offensive: an enemy effect comes "
                                 "from an offensive spell's hit (WM-E3)"))
        if on == "enemy" and any(e.get(k) for k in ("mat", "rat", "str", "pow")):
            problems.append((key, "attack modifiers (mat, rat, str, pow) belong to friendly "
                             "effects: the attacked model does not attack here"))
        if not (any(e.get(k) for k in mods) or e.get("knock_down") or e.get("stationary")):
            problems.append((key, "does nothing the engine plays: give def, ranged_def, arm, "
                             "mat, rat, str, pow, knock_down or stationary"))
    return problems


def _grid_problems(grid: Any) -> list[tuple[str, str]]:
    if not isinstance(grid, list | tuple) or not all(isinstance(c, str) for c in grid):
        return []  # absent or wrongly typed: reported elsewhere
    problems = []
    if len(grid) != N_COLUMNS:
        problems.append(("grid", f"must have exactly {N_COLUMNS} columns (got {len(grid)})"))
    for i, column in enumerate(grid):
        bad = sorted({c for c in column if c not in GRID_LETTERS})
        if bad:
            problems.append(
                (
                    f"grid.{i}",
                    f"column {i + 1} has letter(s) {''.join(bad)!r}; "
                    f"allowed: {', '.join(GRID_LETTERS)} (got {column!r})",
                )
            )
    if grid and sum(len(c) for c in grid) == 0:
        problems.append(("grid", "has no boxes; each column is a string of boxes such as '--LL'"))
    return problems


def _track_problems(data: dict, kind: Any, stats: dict) -> list[tuple[str, str]]:
    """A warjack has a grid and a size; a warcaster or solo has damage boxes (WM-G6)."""
    problems = []
    has_grid, has_boxes = data.get("grid") is not None, data.get("boxes") is not None
    if kind == "warjack":
        if not has_grid:
            problems.append(("grid", "a warjack needs a damage grid of six columns"))
        if has_boxes:
            problems.append(("boxes", "a warjack has a grid, not a damage track; remove boxes"))
        if data.get("size") is None:
            problems.append(("size", 'a warjack needs size = "light" or "heavy"'))
    elif kind in ("warcaster", "solo"):
        if has_grid:
            problems.append(("grid", f"only warjacks have a grid; a {kind} uses boxes = N"))
        if not has_boxes:
            problems.append(("boxes", f"a {kind} needs its damage boxes, e.g. boxes = 17"))
        if data.get("size") is not None:
            problems.append(("size", f"only warjacks have a size (got {data['size']!r})"))
    if kind == "warcaster":
        if stats and stats.get("focus") is None:
            problems.append(("stats.focus", "a warcaster needs its FOCUS stat"))
    elif kind in ("warjack", "solo"):
        points = _as_int(data.get("points"))
        if points == 0:  # PR-4: only a warcaster is free (it brings warjack points instead)
            problems.append(("points", f"a {kind} priced 0: in Mk II only a warcaster costs no "
                             "points (PR-4); give its point cost"))
        if stats.get("focus") is not None:
            problems.append(("stats.focus", f"only warcasters have FOCUS (got {stats['focus']!r})"))
        if data.get("warjack_points") is not None:
            problems.append(
                (
                    "warjack_points",
                    f"only warcasters have warjack points (got {data['warjack_points']!r})",
                )
            )
        if data.get("feat"):
            problems.append(("feat", "only warcasters have a feat"))
    return problems


def _as_int(value: Any) -> int | None:
    """``value`` if it is a real int (not a bool), else None: wrong types are pydantic's job."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _weapon_problems(
    key: str, weapon: dict, stats: dict, kind: Any, grid_letters: str
) -> list[tuple[str, str]]:
    problems = []
    if "p_plus_s" in weapon:  # renamed: a p_ name reads as a probability (issue 22)
        problems.append((f"{key}.p_plus_s", "was renamed pow_plus_str (P+S = POW + STR)"))
    pow_, pps, strength = (
        _as_int(weapon.get("pow")),
        _as_int(weapon.get("pow_plus_str")),
        _as_int(stats.get("str")),
    )
    if weapon.get("kind") == "melee":
        if pow_ is not None and weapon.get("pow_plus_str") is None and "p_plus_s" not in weapon:
            problems.append(
                (
                    f"{key}.pow_plus_str",
                    f"a melee weapon with POW needs P+S (POW {pow_} + STR {stats.get('str')})",
                )
            )
        if pow_ is not None and pps is not None and strength is not None and pps != pow_ + strength:
            problems.append(
                (
                    f"{key}.pow_plus_str",
                    f"must equal POW + STR = {pow_} + {strength} = {pow_ + strength} (got {pps})",
                )
            )
        if weapon.get("rof", 1) != 1:
            problems.append((f"{key}.rof", "only ranged weapons have ROF"))
    elif weapon.get("kind") == "ranged" and pps is not None:
        problems.append((f"{key}.pow_plus_str", f"only melee weapons have P+S (got {pps!r})"))
    rng = weapon.get("rng")
    if isinstance(rng, str) and not _SPRAY.match(rng):
        problems.append((f"{key}.rng", f"must be {_UNION_FIELDS['rng']['weapons']} (got {rng!r})"))
    location = weapon.get("location", "-")
    if location in ("L", "R", "H"):
        if kind in ("warcaster", "solo"):
            problems.append(
                (f"{key}.location", f'a {kind} has no grid systems; use "-" (got {location!r})')
            )
        elif grid_letters and location not in grid_letters:
            problems.append(
                (
                    f"{key}.location",
                    f"system {location!r} is not on the grid "
                    f"(grid letters: {''.join(sorted(set(grid_letters) - {'-'}))})",
                )
            )
    return problems


def _low_confidence_problems(data: dict) -> list[tuple[str, str]]:
    notes = data.get("low_confidence")
    if not isinstance(notes, dict):
        return []
    problems = []
    for path in notes:
        if resolve_key_path(data, path) is _MISSING:
            problems.append(
                (
                    f"low_confidence.{path}",
                    'names no key of this profile; use a path like "stats.mat" or "weapons.0.pow"',
                )
            )
        elif not isinstance(notes[path], str) or not notes[path].strip():
            problems.append((f"low_confidence.{path}", "needs a note naming the doubt (PR-2)"))
    return problems


_MISSING = object()


def resolve_key_path(data: Any, path: str) -> Any:
    """Follow ``weapons.0.pow`` (or ``weapons.Ice Axe.pow``) through a raw profile dict."""
    node = data
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list | tuple):
            if part.isdecimal() and len(part) <= 9 and int(part) < len(node):  # not "²", not 5,000 digits
                node = node[int(part)]
            else:
                named = [x for x in node if isinstance(x, dict) and x.get("name") == part]
                if not named:
                    return _MISSING
                node = named[0]
        else:
            return _MISSING
    return node


# --------------------------------------------------------------------------- loading

_UNION_FIELDS = {
    "rng": {
        "weapons": 'inches from 0 to 100 or a spray like "SP8"',
        "spells": 'inches from 0 to 100, "SELF", "CTRL" or a spray like "SP8"',
    },
    "aoe": {"spells": 'inches from 0 to 10 or "CTRL"'},
}


def _pydantic_problems(err: ValidationError) -> list[tuple[str, str]]:
    problems = []
    for e in err.errors():
        if not e["loc"] and e["type"] == "value_error":
            continue  # the after-validator's consistency errors: recomputed from the raw dict
        loc = e["loc"]
        if len(loc) > 3 and loc[0] in ("weapons", "spells") and loc[2] in _UNION_FIELDS:
            # one line for the field, not one per branch of its type union
            key = ".".join(str(p) for p in loc[:3])
            problems.append(
                (key, f"must be {_UNION_FIELDS[loc[2]][loc[0]]} (got {e.get('input')!r})")
            )
            continue
        key = ".".join(str(p) for p in loc) or "(top level)"
        if e["type"] == "extra_forbidden":
            problems.append((key, f"unknown key; allowed here: {_allowed_keys(e['loc'][:-1])}"))
            continue
        if e["type"] == "missing":
            problems.append((key, "is required but missing"))
            continue
        value = e.get("input")
        shown = "" if isinstance(value, dict | list) else f" (got {value!r})"
        problems.append((key, f"{e['msg']}{shown}"))
    return problems


def _allowed_keys(loc: tuple) -> str:
    """The keys the model accepts at ``loc`` (a pydantic error location without its last part)."""
    model: Any = WarmachineProfile
    for part in loc:
        if isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        if field is None:
            return "see `mathhammer profiles schema --game warmachine`"
        inner = field.annotation
        for candidate in (inner, *getattr(inner, "__args__", ())):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                model = candidate
                break
    return ", ".join(f.alias or n for n, f in model.model_fields.items())


def validate_warmachine(data: dict, source: str) -> WarmachineProfile:
    """Validate a raw profile dict; every problem of the file in one ProfileError.

    Raises:
        ProfileError: ``<source>: <key>: <what> (got <value>); <key>: ...`` sorted by key path.
    """
    try:
        return WarmachineProfile.model_validate(data)
    except ValidationError as err:
        problems = _pydantic_problems(err) + consistency_problems(data)
    unique = sorted(set(problems), key=lambda item: (natural_key(item[0]), item[1]))
    what = "; ".join(f"{key}: {text}" for key, text in unique)
    error = ProfileError(source, what, None, "see `mathhammer profiles schema --game warmachine`")
    setattr(error, "problems", unique)  # [(key path, message)] for `profiles validate`  # noqa: B010
    raise error


def load_warmachine(ref: str) -> WarmachineProfile:
    """A bundled profile by id (``khador/juggernaut``) or a TOML file path.

    Raises:
        UnknownProfileError: no such id (names the closest ids).
        ProfileError: the file is invalid (every problem at once).
    """
    return load_profile("warmachine", ref)


register_model("warmachine", validate_warmachine, WarmachineProfile)
