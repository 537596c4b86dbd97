"""Army lists: TOML files of units by profile id, with options, counts and a points limit.

A list file names its game, its ruleset and a points limit, then one ``[[units]]``
table per entry::

    name = "Khador battle box"
    game = "warmachine"          # or "fantasy"
    ruleset = "mk2"              # warmachine: mk2; fantasy: basic, wfb8 or t9a1
    points = 15                  # the points limit

    [[units]]
    profile = "khador/sorscha"   # a bundled id or a profile file path
    focus = 2                    # warmachine: focus this model spends on its own attacks

    [[units]]
    profile = "khador/juggernaut"
    focus = 3                    # allocated by the warcaster, at most 3 (WM-F1)
    charge = true                # charges (1 focus for a warjack, WM-F2)

Entry keys: ``profile`` (required), ``count`` (default 1), ``name`` (a label),
and per game — Warmachine: ``focus``, ``mode`` ("melee" / "ranged"), ``charge``;
Fantasy: ``models``, ``rank_width``, ``champion``, ``standard``, ``musician``,
``charge``, and for a character ``joins = "<label>"`` (it fights in that unit — the first
one of an entry with ``count`` above 1: FB-K1),
``general = true`` and ``battle_standard = true`` (FB-K4). A character that joins
another character, a missing label, a joining entry with ``count`` above 1, or two
generals are errors. Unknown keys are errors.

Points (checked by :func:`load_list`): a Fantasy unit costs its models plus command
(:meth:`UnitProfile.unit_points`); a Mk II warcaster costs nothing and brings
``warjack_points`` that only warjacks can use, so the list total is
``solos + max(0, warjacks - warjack points)``. Warjacks need a warcaster; the focus
given to warjacks and spent by warcasters cannot exceed the warcasters' FOCUS.

>>> army = load_list("khador_battlebox")         # doctest: +SKIP
>>> army.total_points, army.points_limit         # doctest: +SKIP
(9, 15)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.errors import InputError, ProfileError, RulesError, UnknownProfileError
from mathhammer.profiles import profiles_root, pydantic_errors, read_toml

GAMES_RULESETS = {"warmachine": ("mk2",), "fantasy": ("basic", "wfb8", "t9a1")}
MAX_WARJACK_FOCUS = 3  # WM-F1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class UnitEntry(_Strict):
    """One ``[[units]]`` table (options of both games; the wrong game's are rejected)."""

    profile: str = Field(min_length=1, description="profile id or file path")
    count: int = Field(1, ge=1, le=50)
    name: str = ""
    # warmachine
    focus: int | None = Field(None, ge=0, le=12, description="focus the model spends (WM-F1, WM-F2)")
    mode: Literal["melee", "ranged"] | None = Field(None, description="WM-F3: melee or ranged weapons")
    # both
    charge: bool = False
    # fantasy
    models: int | None = Field(None, ge=1, le=200)
    rank_width: int | None = Field(None, ge=1, le=40)
    champion: bool | None = None
    standard: bool | None = None
    musician: bool | None = None
    joins: str | None = Field(None, min_length=1, description="a character: the label of the "
                                                              "unit it fights in (FB-K1)")
    general: bool | None = Field(None, description="a character: the army's general (FB-K4)")
    battle_standard: bool | None = Field(None, description="a character: the battle standard "
                                                           "bearer (FB-K4)")


class ListFile(_Strict):
    name: str = ""
    game: Literal["warmachine", "fantasy"]
    ruleset: str
    points: int = Field(ge=1, le=100_000, description="the points limit")
    units: list[UnitEntry] = Field(default_factory=list)


_WM_ONLY = ("focus", "mode")
_FB_ONLY = ("models", "rank_width", "champion", "standard", "musician", "joins", "general",
            "battle_standard")


@dataclass(frozen=True)
class ListUnit:
    """A validated list entry: its profile object, options and the points of one copy.

    ``label`` is unique within the list (used as a matrix row / column name).
    """

    label: str
    profile: Any
    count: int
    points: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def profile_id(self) -> str:
        return self.profile.id

    @property
    def kind(self) -> str:
        """warjack / warcaster / solo for Warmachine, the troop type for Fantasy."""
        return getattr(self.profile, "kind", None) or getattr(self.profile, "troop_type", "unit")


@dataclass(frozen=True)
class ArmyList:
    name: str
    game: str
    ruleset: str
    points_limit: int
    units: tuple[ListUnit, ...]
    total_points: int
    source: str = ""

    def unit(self, label: str) -> ListUnit:
        for u in self.units:
            if u.label == label or u.profile_id == label:
                return u
        raise InputError(f"{self.source or self.name}", "has no such unit", label,
                         f"use one of {', '.join(u.label for u in self.units)}")

    def summary(self) -> str:
        parts = [f"{u.count} x {u.label} ({u.points} pts)" if u.count > 1 else
                 f"{u.label} ({u.points} pts)" for u in self.units]
        return f"{self.name}: {self.total_points}/{self.points_limit} pts: " + ", ".join(parts)


def bundled_lists() -> list[str]:
    root = profiles_root() / "lists"
    return sorted(p.stem for p in root.glob("*.toml")) if root.is_dir() else []


def _is_file(path: Path) -> bool:
    """Exists and is not a folder, never raising (the bounded reader judges the rest)."""
    from mathhammer.io import names_a_file

    return names_a_file(path)


def find_bundled(ref: str | Path, folder: str, what: str) -> Path:
    """A file path, or the name of a bundled file under ``profiles/<folder>/`` (lists, metas,
    options); a miss is one line listing the bundled names."""
    path = Path(ref)
    if _is_file(path):
        return path
    bundled = profiles_root() / folder / f"{path.stem}.toml"
    if path.suffix in ("", ".toml") and _is_file(bundled) and path.parent == Path("."):
        return bundled
    names = sorted(p.stem for p in (profiles_root() / folder).glob("*.toml"))
    hint = f"bundled {folder}: {', '.join(names)}" if names else "check the path"
    raise ProfileError(f"{what} {str(ref)!r}", "file not found", None, hint)


def find_list(ref: str | Path) -> Path:
    """A list file path, or the name of a bundled list under ``profiles/lists/``."""
    return find_bundled(ref, "lists", "list")


def load_list(ref: str | Path | dict, source: str | None = None) -> ArmyList:
    """Read, validate and price an army list (a path, a bundled list name, or a dict).

    Raises:
        ProfileError: malformed file (every key problem at once), unknown unit
            (names the entry and the closest ids), a profile of another edition.
        RulesError: over the points limit, warjacks without a warcaster, too much focus.
    """
    if isinstance(ref, dict):
        data, where = ref, source or "list"
    else:
        path = find_list(ref)
        data, where = read_toml(path), source or str(path)
    try:
        spec = ListFile.model_validate(data)
    except ValidationError as err:
        raise pydantic_errors(err, where) from None
    if spec.ruleset not in GAMES_RULESETS[spec.game]:
        raise ProfileError(f"{where}: ruleset", f"is not a {spec.game} ruleset", spec.ruleset,
                           f"use one of {', '.join(GAMES_RULESETS[spec.game])}")
    if not spec.units:
        raise ProfileError(f"{where}: units", "the list has no units", None,
                           'add [[units]] tables with profile = "<id>"')
    units = [_entry(spec, i, e, where) for i, e in enumerate(spec.units)]
    units = _unique_labels(units)
    if spec.game == "fantasy":
        _check_characters(units, where)
    total = (_warmachine_points(units, where) if spec.game == "warmachine"
             else sum(u.points * u.count for u in units))
    if total > spec.points:
        detail = ", ".join(f"{u.label} {u.points * u.count}" for u in units)
        raise RulesError(f"{where}: points", f"the list costs {total} points, over its limit of "
                         f"{spec.points} ({detail})", total,
                         "remove units or raise points = N")
    return ArmyList(spec.name or Path(where).stem, spec.game, spec.ruleset, spec.points,
                    tuple(units), total, where)


def _entry(spec: ListFile, i: int, entry: UnitEntry, where: str) -> ListUnit:
    key = f"{where}: units.{i}"
    wrong = _FB_ONLY if spec.game == "warmachine" else _WM_ONLY
    for option in wrong:
        if getattr(entry, option) is not None:
            raise ProfileError(f"{key}.{option}", f"is not a {spec.game} option",
                               getattr(entry, option),
                               f"remove it; {spec.game} entries take "
                               f"{', '.join((_WM_ONLY if spec.game == 'warmachine' else _FB_ONLY))}")
    try:
        if spec.game == "warmachine":
            from mathhammer.warmachine.models import load_warmachine

            profile = load_warmachine(entry.profile)
        else:
            from mathhammer.fantasy.models import load_unit

            profile = load_unit(entry.profile)
    except UnknownProfileError as err:
        raise UnknownProfileError(f"{key}.profile", f"unknown unit {entry.profile!r}", None,
                                  err.fix) from None
    except ProfileError as err:
        raise ProfileError(f"{key}.profile", f"profile {entry.profile!r} is invalid: {err.what}",
                           None, err.fix) from None
    label = entry.name or profile.name
    if spec.game == "warmachine":
        return _warmachine_entry(key, entry, profile, label)
    if profile.ruleset != spec.ruleset and spec.ruleset != "basic":
        raise ProfileError(f"{key}.profile", f"is a {profile.ruleset} unit in a {spec.ruleset} list",
                           entry.profile, f"use a profiles/fantasy/{spec.ruleset}/ unit")
    from mathhammer.fantasy.models import with_formation

    unit = with_formation(profile, models=entry.models, rank_width=entry.rank_width,
                          champion=entry.champion, standard=entry.standard, musician=entry.musician)
    roles = {"joins": entry.joins, "general": entry.general, "battle_standard": entry.battle_standard}
    for option, value in roles.items():
        if value is not None and unit.role != "character":
            raise ProfileError(f"{key}.{option}", f"{unit.name} is not a character "
                               '(role = "character"): only a character takes it', value,
                               f"remove {option}, or use a character profile")
    if entry.joins is not None and entry.count != 1:
        raise ProfileError(f"{key}.count", "a character that joins a unit is one model",
                           entry.count, "use count = 1 (one entry per character)")
    options = {"charge": entry.charge, **{k: v for k, v in roles.items() if v}}
    return ListUnit(label, unit, entry.count, unit.unit_points(), options)


def _warmachine_entry(key: str, entry: UnitEntry, profile, label: str) -> ListUnit:
    focus = entry.focus or 0
    if profile.kind == "warjack" and focus > MAX_WARJACK_FOCUS:
        raise RulesError(f"{key}.focus", "a warjack is allocated at most 3 focus (WM-F1)", focus,
                         "use focus = 3 or less")
    if profile.kind == "warcaster" and focus > (profile.stats.focus or 0):
        raise RulesError(f"{key}.focus", f"more than {profile.name}'s FOCUS {profile.stats.focus}",
                         focus, f"use focus = {profile.stats.focus} or less")
    if profile.kind == "solo" and focus:
        raise RulesError(f"{key}.focus", "a solo has no focus (WM-F1)", focus, "remove focus")
    if entry.charge and profile.kind == "warjack" and focus < 1:
        raise RulesError(f"{key}.charge", "a warjack spends 1 focus to charge (WM-F2)", focus,
                         "give it focus = 1 or more")
    kinds = {w.kind for w in profile.weapons if w.damage_power is not None}
    mode = entry.mode or ("melee" if "melee" in kinds else "ranged")
    if mode not in kinds:
        raise ProfileError(f"{key}.mode", f"{profile.name} has no {mode} weapon with a damage roll",
                           mode, f"use mode = {sorted(kinds)[0]!r}" if kinds else "pick another unit")
    if entry.charge and mode != "melee":
        raise RulesError(f"{key}.charge", "a charge ends in melee: no ranged attacks after it (WM-F3)",
                         mode, 'use mode = "melee" or drop charge')
    return ListUnit(label, profile, entry.count, profile.points,
                    {"focus": focus, "mode": mode, "charge": entry.charge, "ref": entry.profile})


def _warmachine_points(units: list[ListUnit], where: str) -> int:
    """Mk II pricing: warjack points pay for warjacks only; focus fits the casters' FOCUS."""
    jacks = sum(u.points * u.count for u in units if u.kind == "warjack")
    others = sum(u.points * u.count for u in units if u.kind != "warjack")
    casters = [u for u in units if u.kind == "warcaster"]
    if jacks and not casters:
        raise RulesError(f"{where}: units", "warjacks need a warcaster to control them (WM-F1)",
                         None, "add a warcaster entry")
    bonus = sum((u.profile.warjack_points or 0) * u.count for u in casters)
    focus_pool = sum((u.profile.stats.focus or 0) * u.count for u in casters)
    focus_used = sum(u.options["focus"] * u.count for u in units)
    if focus_used > focus_pool:
        raise RulesError(f"{where}: focus", f"{focus_used} focus spent or allocated, but the "
                         f"warcasters have FOCUS {focus_pool} (WM-F1)", focus_used,
                         "lower the focus = N of some entries")
    return others + max(0, jacks - bonus)


def _unique_labels(units: list[ListUnit]) -> list[ListUnit]:
    seen: dict[str, int] = {}
    out = []
    for u in units:
        seen[u.label] = seen.get(u.label, 0) + 1
        label = u.label if seen[u.label] == 1 else f"{u.label} ({seen[u.label]})"
        out.append(ListUnit(label, u.profile, u.count, u.points, u.options))
    return out


def _check_characters(units: list[ListUnit], where: str) -> None:
    """FB-K1/K4: ``joins`` names a unit (not a character) of the list; one general, one
    battle standard bearer."""
    labels = {u.label: u for u in units}
    for i, u in enumerate(units):
        target = u.options.get("joins")
        if target is None:
            continue
        host = labels.get(target)
        if host is None:
            raise ProfileError(f"{where}: units.{i}.joins", "names no unit of the list", target,
                               f"use one of {', '.join(x.label for x in units if x is not u)}")
        if host.profile.role == "character":
            raise ProfileError(f"{where}: units.{i}.joins", "a character joins a unit, not "
                               "another character (FB-K1)", target,
                               "join a unit of rank and file")
    for option in ("general", "battle_standard"):
        marked = [u.label for u in units if u.options.get(option)]
        if len(marked) > 1:
            raise ProfileError(f"{where}: units", f"two characters are marked {option} "
                               f"({', '.join(marked)})", marked, f"mark one {option} = true")
