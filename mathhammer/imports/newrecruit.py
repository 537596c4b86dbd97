"""New Recruit's JSON roster export: BattleScribe's roster structure written as JSON.

The parts read are those of the XML roster (:mod:`.battlescribe`), as JSON::

    {"roster": {"name": "...", "gameSystemName": "...",
                "costLimits": [{"name": "pts", "value": 900}],
                "forces": [{"name": "...", "selections": [
                    {"name": "Orcs", "type": "unit", "number": 1,
                     "costs": [{"name": "pts", "value": 240}],
                     "selections": [{"name": "Orc", "type": "model", "number": 20}, ...]}]}]}}

Safety, as for XML: the file is read through the bounded reader (at most
:data:`JSON_LIMIT` bytes), its nesting is measured before ``json`` sees it (no parser
recursion: a file nested deeper than :data:`MAX_DEPTH` is one line), every number stays
text until :func:`~mathhammer.imports.model.read_number` checks it (``NaN``,
``Infinity``, ``1e400`` and 5,000-digit integers are one line, not a float), a value of
the wrong kind where an object, a list or a name belongs is one line naming where, and
the tree is walked with stacks.
"""

from __future__ import annotations

import json
import re

from mathhammer.errors import InputFileError
from mathhammer.imports.battlescribe import read_roster
from mathhammer.imports.model import ParsedList, display

JSON_LIMIT = 4_000_000  # bytes; an export with every rule's text is a few hundred kB
MAX_DEPTH = 200  # brackets deep; a roster's tree is some 20 levels
#: a JSON string, its closing quote optional so a match never fails and rescans: linear
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"?', re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_FIX = "export the roster again from New Recruit (JSON)"


def depth(text: str) -> int:
    """How deep the brackets of ``text`` nest, strings skipped (linear, no recursion)."""
    import numpy as np

    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    if not brackets:
        return 0
    steps = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    level = np.cumsum(np.where((steps == ord("[")) | (steps == ord("{")), 1, -1))
    return int(level.max())


def _refuse_constant(name: str) -> None:
    raise ValueError(name)


def parse_json(text: str, label: str, game: str | None = None, ruleset: str | None = None) -> ParsedList:
    levels = depth(text)
    if levels > MAX_DEPTH:
        raise InputFileError(label, f"nests {levels:,} levels deep, beyond any roster (at most "
                             f"{MAX_DEPTH})", None, _FIX)
    try:  # numbers stay text (read_number checks each); NaN and Infinity are no JSON
        data = json.loads(text, parse_int=str, parse_float=str, parse_constant=_refuse_constant)
    except ValueError as err:
        what = (f"holds {err}, which is not a JSON number" if str(err) in ("NaN", "Infinity", "-Infinity")
                else f"is not valid JSON ({_reason(err)})")
        raise InputFileError(label, what, None, _FIX) from None
    except RecursionError:  # a backstop: the depth check comes first
        raise InputFileError(label, "nests too deep for a roster", None, _FIX) from None
    roster = data.get("roster") if isinstance(data, dict) else None
    if not isinstance(roster, dict):
        raise InputFileError(label, "is JSON but not a roster export (no \"roster\" object at "
                             "the top)", None, "export the roster from New Recruit as JSON")
    return read_roster(JsonNode(roster, label, "roster"), label, game, ruleset, "New Recruit JSON roster")


def _reason(err: ValueError) -> str:
    if isinstance(err, json.JSONDecodeError):
        return f"{err.msg} at line {err.lineno}, column {err.colno}"
    return display(str(err))


class JsonNode:
    """A roster object of the JSON export with the accessors of
    :class:`~mathhammer.imports.battlescribe.XmlNode`; a part of the wrong kind is one
    line naming where it is."""

    def __init__(self, data: dict, label: str, where: str) -> None:
        self.data, self.label, self.where = data, label, where

    def _bad(self, key: str, what: str) -> InputFileError:
        return InputFileError(f"{self.label}: {self.where}.{key}", f"is not {what}",
                              display(json.dumps(self.data.get(key))[:60]), _FIX)

    def attr(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._bad(key, "a name or a number")
        return str(value)  # never reached with parse_int/parse_float=str; kept for safety

    def _list(self, key: str) -> list:
        value = self.data.get(key, [])
        if not isinstance(value, list):
            raise self._bad(key, "a list")
        return value

    def _objects(self, key: str) -> list[JsonNode]:
        out = []
        for i, item in enumerate(self._list(key)):
            if not isinstance(item, dict):
                raise self._bad(f"{key}", f"a list of objects (item {i})")
            out.append(JsonNode(item, self.label, f"{self.where}.{key}[{i}]"))
        return out

    def costs(self, group: str = "costs", item: str = "cost") -> list[tuple[str, str]]:
        return [(c.attr("name") or "", c.attr("value") or "0") for c in self._objects(group)]

    def selections(self) -> list[JsonNode]:
        return self._objects("selections")

    def forces(self) -> list[JsonNode]:
        return self._objects("forces")
