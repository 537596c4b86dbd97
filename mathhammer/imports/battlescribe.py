"""BattleScribe rosters: ``.ros`` XML and ``.rosz`` (a zip holding one ``.ros``).

The parts read (BattleScribe's published roster schema): ``roster`` (``name``,
``gameSystemName``), ``costLimits/costLimit[@name="pts"]``, and under
``forces/force/selections`` each top-level ``selection`` of ``type`` unit or model: its
``name`` and ``number``; the models of a unit are its nested ``type="model"`` selections
(their ``number`` added up); nested selections named Champion, Musician or Standard
Bearer give the command; ``costs/cost[@name="pts"]`` on a selection and all it holds
add up to the unit's printed points. The XML is parsed with no DTD at all: a file that
declares a DOCTYPE or an ENTITY is refused (no entity expansion, no external files).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mathhammer.errors import InputError, InputFileError
from mathhammer.imports.model import Entry, ParsedList

ROS_LIMIT = 4_000_000  # unpacked roster XML; real ones are a few hundred kB at most


def _tag(el) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _children(el, tag: str):
    return [c for c in el if _tag(c) == tag]


def _points(sel) -> int:
    total = 0.0
    for costs in _children(sel, "costs"):
        for cost in _children(costs, "cost"):
            if cost.get("name", "").strip().lower() in ("pts", "points", "pc"):
                try:
                    total += float(cost.get("value", "0"))
                except ValueError:
                    pass
    for group in _children(sel, "selections"):
        for child in _children(group, "selection"):
            total += _points(child)
    return int(round(total))


def _game(system: str, game: str | None, ruleset: str | None) -> tuple[str, str]:
    text = system.lower()
    if game == "warmachine" or (game is None and ("warmachine" in text or "hordes" in text)):
        return "warmachine", "mk2"
    if ruleset in ("wfb8", "t9a1"):
        return "fantasy", ruleset
    if "9th age" in text or "ninth age" in text or "t9a" in text:
        return "fantasy", "t9a1"
    if "fantasy" in text or "warhammer" in text or game == "fantasy":
        return "fantasy", "wfb8"
    raise InputError("--game", f"the roster's game system {system!r} is not one mathhammer plays",
                     system, "add --game fantasy --ruleset wfb8 (or t9a1), or --game warmachine")


def parse_ros(data: bytes, label: str, game: str | None = None, ruleset: str | None = None) -> ParsedList:
    head = data[:4096].upper()
    if b"<!DOCTYPE" in head or b"<!ENTITY" in data.upper():
        raise InputFileError(label, "declares a DOCTYPE or an ENTITY, which a BattleScribe roster "
                             "never does (refused: entity expansion)", None,
                             "export the roster again from BattleScribe")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as err:
        raise InputFileError(label, f"is not well-formed XML ({err})", None,
                             "export the roster again (.ros or .rosz)") from None
    if _tag(root) != "roster":
        raise InputFileError(label, f"is XML but not a BattleScribe roster (root <{_tag(root)}>)", None,
                             "give a .ros or .rosz file")
    g, rs = _game(root.get("gameSystemName", ""), game, ruleset)
    limit = None
    for limits in _children(root, "costLimits"):
        for cl in _children(limits, "costLimit"):
            if cl.get("name", "").strip().lower() in ("pts", "points") and cl.get("value"):
                try:
                    limit = int(float(cl.get("value"))) or None
                except ValueError:
                    pass
    entries = []
    for forces in _children(root, "forces"):
        for force in _children(forces, "force"):
            for group in _children(force, "selections"):
                for sel in _children(group, "selection"):
                    entry = _entry(sel, g)
                    if entry is not None:
                        entries.append(entry)
    return ParsedList(g, rs, root.get("name") or "Imported roster", limit, entries, "BattleScribe roster")


def _entry(sel, game: str) -> Entry | None:
    kind = sel.get("type", "unit")
    name = (sel.get("name") or "").strip()
    if kind not in ("unit", "model") or not name:
        return None
    try:
        number = max(1, min(int(float(sel.get("number", "1"))), 200))
    except ValueError:
        number = 1
    models, options = 0, {}
    for group in _children(sel, "selections"):
        for child in _children(group, "selection"):
            child_name = (child.get("name") or "").strip().lower()
            if child.get("type") == "model":
                try:
                    models += max(0, min(int(float(child.get("number", "1"))), 200))
                except ValueError:
                    pass
            for word, key in (("champion", "champion"), ("musician", "musician"), ("standard", "standard")):
                if word in child_name:
                    options[key] = True
    line = f"{number} x {name}" if number > 1 else name
    if game == "warmachine":
        return Entry(name, count=number, points=_points(sel), line=line)
    size = models or (number if kind == "unit" and number > 1 else None)
    return Entry(name, models=size, options=options, points=_points(sel), line=line)


def parse_rosz(source, label: str, game: str | None = None, ruleset: str | None = None) -> ParsedList:
    from mathhammer.io import read_archive

    members = read_archive(source, label, max_members=8, max_unpacked=ROS_LIMIT)
    ros = [name for name in members if name.lower().endswith(".ros")]
    if len(ros) != 1:
        raise InputFileError(label, f"holds {len(ros)} .ros rosters (a .rosz holds exactly one)", None,
                             "export the roster again from BattleScribe")
    return parse_ros(members[ros[0]], f"{label}:{ros[0]}", game, ruleset)
