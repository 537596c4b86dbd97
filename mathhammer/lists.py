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
``battle_standard``, ``charge``, and for a character ``joins = "<label>"`` (it fights in
that unit, the first of an entry of several: FB-K1) and ``general = true`` (FB-K4).
Unknown keys are errors.

Points (checked by :func:`load_list`): a Fantasy unit costs its models plus command
(:meth:`UnitProfile.unit_points`); a unit priced 0 is refused unless a rule makes it
free (PR-4, :meth:`mathhammer.game.Game.free_by_rule`); a Mk II warcaster costs nothing and brings
``warjack_points`` that only warjacks can use, so the list total is
``solos + max(0, warjacks - warjack points)``. Warjacks need a warcaster; the focus
given to warjacks and spent by warcasters cannot exceed the warcasters' FOCUS.

>>> army = load_list("khador_battlebox")         # doctest: +SKIP
>>> army.total_points, army.points_limit         # doctest: +SKIP
(9, 15)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from mathhammer import game as games
from mathhammer.errors import InputError, ProfileError, RulesError, UnknownProfileError
from mathhammer.profiles import profiles_root, pydantic_errors, read_toml


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class BaseEntry(_Strict):
    """The keys every ``[[units]]`` table may have; each game adds its own options
    (:attr:`mathhammer.game.Game.entry_fields`)."""

    profile: str = Field(min_length=1, description="profile id or file path")
    count: int = Field(1, ge=1, le=50)
    name: str = ""


_MODELS: dict[tuple[str, ...], tuple[type[BaseModel], type[BaseModel]]] = {}


def file_models() -> tuple[type[BaseModel], type[BaseModel]]:
    """(entry model, list file model) over the registered games: an entry accepts every
    game's options (the wrong game's are refused by name in :func:`_entry`), a list names
    one of the games."""
    names = games.names(lists=True)
    if names not in _MODELS:
        entry = create_model("UnitEntry", __base__=BaseEntry, **games.list_fields("entry_fields"))
        listfile = create_model(
            "ListFile", __base__=_Strict, name=(str, ""), game=(Literal[names], ...),  # type: ignore[valid-type]
            ruleset=(str, ...),
            points=(int, Field(ge=1, le=100_000, description="the points limit")),
            units=(list[entry], Field(default_factory=list)))  # type: ignore[valid-type]
        _MODELS[names] = (entry, listfile)
    return _MODELS[names]


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
    if os.path.exists(path):  # a folder, a FIFO: the reader refuses it by what it is
        return path
    names = sorted(p.stem for p in (profiles_root() / folder).glob("*.toml"))
    raise ProfileError(f"{what} {str(ref)!r}", "file not found", None,
                       _bundled_hint(path.stem, names, folder))


def _bundled_hint(stem: str, names: list[str], folder: str) -> str:
    """The bundled names closest to ``stem`` (all of them when few): a fix line stays short."""
    import difflib

    if not names:
        return "check the path"
    if len(names) <= 12:
        return f"bundled {folder}: {', '.join(names)}"
    close = difflib.get_close_matches(stem, names, n=6, cutoff=0.3)
    shown = f"the closest: {', '.join(close)}" if close else f"e.g. {', '.join(names[:6])}"
    return f"check the path, or use one of the {len(names)} bundled {folder}, {shown}"


def find_list(ref: str | Path) -> Path:
    """A list file path, or the name of a bundled list under ``profiles/lists/``."""
    return find_bundled(ref, "lists", "list")


def of_game(army: ArmyList, game: str, where: str, got: Any, needs: str, fix: str) -> ArmyList:
    """``army``, refused in one line at ``where`` when it is a list of another game than
    ``game`` (``needs``: what the command needs instead)."""
    if army.game != game:
        raise InputError(where, f"is a {army.game} list; {needs}", got, fix)
    return army


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
        spec = file_models()[1].model_validate(data)
    except ValidationError as err:
        raise pydantic_errors(err, where) from None
    game = games.get(spec.game)
    if spec.ruleset not in game.rulesets:
        raise ProfileError(f"{where}: ruleset", f"is not a {spec.game} ruleset", spec.ruleset,
                           f"use one of {', '.join(game.rulesets)}")
    if not spec.units:
        raise ProfileError(f"{where}: units", "the list has no units", None,
                           'add [[units]] tables with profile = "<id>"')
    units = [_entry(game, spec, i, e, where) for i, e in enumerate(spec.units)]
    units = _unique_labels(units)
    total = game.list_points(units, where)
    if total > spec.points:
        detail = ", ".join(f"{u.label} {u.points * u.count}" for u in units)
        raise RulesError(f"{where}: points", f"the list costs {total} points, over its limit of "
                         f"{spec.points} ({detail})", total,
                         "remove units or raise points = N")
    return ArmyList(spec.name or Path(where).stem, spec.game, spec.ruleset, spec.points,
                    tuple(units), total, where)


def _entry(game: games.Game, spec: Any, i: int, entry: Any, where: str) -> ListUnit:
    key = f"{where}: units.{i}"
    wrong = [k for k in type(entry).model_fields
             if k in entry.model_fields_set and k not in BaseEntry.model_fields
             and k not in game.entry_fields]
    if wrong:  # another game's option: name what this game's entries take instead
        others = {k for name in games.names(lists=True) if name != spec.game
                  for k in games.get(name).entry_fields}
        own = ", ".join(k for k in game.entry_fields if k not in others)
        raise ProfileError(f"{key}.{wrong[0]}", f"is not a {spec.game} option",
                           getattr(entry, wrong[0]), f"remove it; {spec.game} entries take {own}")
    try:
        profile = game.load_profile(entry.profile)
    except UnknownProfileError as err:
        raise UnknownProfileError(f"{key}.profile", f"unknown unit {entry.profile!r}", None,
                                  err.fix) from None
    except ProfileError as err:
        inner = str(err.where).rsplit(": ", 1)[-1] if ": " in str(err.where) else ""
        inner = f"{inner}: " if re.fullmatch(r"[A-Za-z0-9_.]+", inner) else ""  # the key in it
        raise ProfileError(f"{key}.profile", f"profile {entry.profile!r} is invalid: {inner}"
                           f"{err.what}", None, err.fix) from None
    unit = game.list_unit(key, entry, profile, spec.ruleset, entry.name or profile.name)
    if unit.points <= 0 and game.free_by_rule(unit) is None:  # PR-4: a forgotten price is not 0
        raise ProfileError(f"{key}.profile", f"{unit.label} is priced {unit.points} points and no "
                           "rule makes it free", entry.profile,
                           "give the profile its points from the army book")
    return unit


def _unique_labels(units: list[ListUnit]) -> list[ListUnit]:
    seen: dict[str, int] = {}
    out = []
    for u in units:
        seen[u.label] = seen.get(u.label, 0) + 1
        label = u.label if seen[u.label] == 1 else f"{u.label} ({seen[u.label]})"
        out.append(ListUnit(label, u.profile, u.count, u.points, u.options))
    return out
