"""Meta files: the opposing lists a player expects to meet, with weights.

A meta file (``profiles/metas/<name>.toml``) names its game and ruleset and lists the
opposing army lists (bundled list names or list file paths) with their weights::

    name = "Mk II battle boxes"
    game = "warmachine"
    ruleset = "mk2"

    [[lists]]
    list = "cygnar_battlebox"
    weight = 2                # met twice as often as a weight-1 list

Weights are relative (they are normalised to sum to 1); every list must be of the
meta's game and ruleset.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.errors import InputError, ProfileError
from mathhammer.lists import ArmyList, find_bundled, load_list
from mathhammer.profiles import pydantic_errors, read_toml

MAX_META_LISTS = 12  # each list multiplies the cells to evaluate


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class MetaEntry(_Strict):
    list: str = Field(min_length=1, description="bundled list name or list file path")
    weight: float = Field(1.0, gt=0, le=1000, description="relative frequency of this list")


class MetaFile(_Strict):
    name: str = ""
    game: str
    ruleset: str
    lists: list[MetaEntry] = Field(min_length=1, max_length=MAX_META_LISTS)


@dataclass(frozen=True)
class Meta:
    name: str
    game: str
    ruleset: str
    lists: tuple[ArmyList, ...]
    weights: tuple[float, ...]  # normalised: sum to 1
    source: str = ""


def find_meta(ref: str | Path) -> Path:
    return find_bundled(ref, "metas", "meta")


def load_meta(ref: str | Path | Meta, data: dict | None = None) -> Meta:
    """Read and validate a meta: every list loads and is of the meta's game and ruleset.

    ``data``: the file's table, already read (``ref`` then only names it in messages).
    """
    if isinstance(ref, Meta):
        return ref
    path = Path(ref) if data is not None else find_meta(ref)
    where = str(path)
    try:
        spec = MetaFile.model_validate(read_toml(path) if data is None else data)
    except ValidationError as err:
        raise pydantic_errors(err, where) from None
    lists = []
    for i, entry in enumerate(spec.lists):
        army = load_list(entry.list)
        if (army.game, army.ruleset) != (spec.game, spec.ruleset):
            raise ProfileError(f"{where}: lists.{i}.list", f"is a {army.game} {army.ruleset} list in a "
                               f"{spec.game} {spec.ruleset} meta", entry.list,
                               f"use a {spec.game} {spec.ruleset} list")
        lists.append(army)
    total = sum(e.weight for e in spec.lists)
    return Meta(spec.name or path.stem, spec.game, spec.ruleset, tuple(lists),
                tuple(e.weight / total for e in spec.lists), where)


def list_and_meta(army: str | ArmyList, meta: str | Meta) -> tuple[ArmyList, Meta]:
    """A list and a meta, loaded, of the same game and ruleset (else one line at LIST)."""
    a = army if isinstance(army, ArmyList) else load_list(army)
    m = load_meta(meta)
    if (a.game, a.ruleset) != (m.game, m.ruleset):
        raise InputError("LIST", f"{a.name} is a {a.game} {a.ruleset} list but the meta {m.name} is "
                         f"{m.game} {m.ruleset}", a.source or a.name,
                         f"use a {m.game} {m.ruleset} meta")
    return a, m
