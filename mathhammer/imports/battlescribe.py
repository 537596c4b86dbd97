"""BattleScribe rosters: ``.ros`` XML and ``.rosz`` (a zip holding one ``.ros``).

The parts read (BattleScribe's published roster schema): ``roster`` (``name``,
``gameSystemName``), ``costLimits/costLimit[@name="pts"]``, and under
``forces/force/selections`` each top-level ``selection`` of ``type`` unit or model: its
``name`` and ``number``; the models of a unit are its nested ``type="model"`` selections
(their ``number`` added up); nested selections named Champion, Musician or Standard
Bearer give the command; ``costs/cost[@name="pts"]`` on a selection and all it holds
add up to the unit's printed points.

Safety: the bytes are decoded first (byte-order mark, else the XML declaration's
encoding, else UTF-8; UTF-16 and UTF-32 are recognised by their zero bytes too), and a
document whose decoded text holds ``<!DOCTYPE`` or ``<!ENTITY`` anywhere is refused
before parsing: no DTD, no entity expansion, no external files, whatever the encoding.
Every number is checked (:func:`~mathhammer.imports.model.read_number`); nested
selections are walked with a stack, never by recursion, so any depth is safe.
"""

from __future__ import annotations

import codecs
import re
import xml.etree.ElementTree as ET

from mathhammer import game as games
from mathhammer.errors import InputError, InputFileError
from mathhammer.imports.model import Entry, ParsedList, check_entries, display, read_number

ROS_LIMIT = 4_000_000  # unpacked roster XML; real ones are a few hundred kB at most
_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"),
         (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_DECLARED = re.compile(rb"<\?xml[^>]{0,200}?encoding\s{0,20}=\s{0,20}[\"']([A-Za-z0-9._-]{1,40})[\"']")
_FORBIDDEN = ("<!DOCTYPE", "<!ENTITY")


def _tag(el) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _children(el, tag: str):
    return [c for c in el if _tag(c) == tag]


def _single_byte(codec: str) -> bool:
    """UTF-8 and the ASCII-based single-byte encodings a roster may declare (never a codec
    such as punycode whose decoder is slow or not a text encoding at all)."""
    return codec in ("utf-8", "ascii") or codec.startswith(("iso8859-", "cp125", "latin"))


def _encoding(data: bytes, label: str) -> tuple[str, int]:
    """(codec, bytes of byte-order mark to skip) of an XML document."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    head = data[:4]
    if len(head) == 4 and head[:3] == b"\0\0\0" and head[3]:
        return "utf-32-be", 0
    if len(head) == 4 and head[0] and head[1:] == b"\0\0\0":
        return "utf-32-le", 0
    if len(head) >= 2 and not head[0] and head[1]:
        return "utf-16-be", 0
    if len(head) >= 2 and head[0] and not head[1]:
        return "utf-16-le", 0
    declared = _DECLARED.match(data[:300])
    if not declared:
        return "utf-8", 0
    name = declared.group(1).decode("ascii")
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        codec = ""
    if not _single_byte(codec):
        raise InputFileError(label, f"declares the encoding {name!r}, which a roster is not "
                             "written in here", None,
                             "export the roster again (BattleScribe writes UTF-8)")
    return codec, 0


def roster_text(data: bytes, label: str) -> str:
    """The XML decoded, and checked to declare no DOCTYPE or ENTITY anywhere."""
    codec, skip = _encoding(data, label)
    try:
        text = data[skip:].decode(codec)
    except UnicodeDecodeError as err:
        raise InputFileError(label, f"is not valid {codec} text: bytes at offset "
                             f"{err.start + skip} do not decode", None,
                             "export the roster again from BattleScribe") from None
    upper = text.upper()
    if any(word in upper for word in _FORBIDDEN):
        raise InputFileError(label, "declares a DOCTYPE or an ENTITY, which a BattleScribe roster "
                             "never does (refused: entity expansion)", None,
                             "export the roster again from BattleScribe")
    return text


def _points(sel, label: str) -> float:
    """The points of a selection and everything nested in it (a stack: any depth)."""
    total, stack = 0.0, [sel]
    while stack:
        node = stack.pop()
        for costs in _children(node, "costs"):
            for cost in _children(costs, "cost"):
                if cost.get("name", "").strip().lower() in ("pts", "points", "pc"):
                    total += read_number(cost.get("value", "0"), label,
                                         f"selection '{display(sel.get('name') or '?')}'",
                                         "a cost", whole=False)
        for group in _children(node, "selections"):
            stack.extend(_children(group, "selection"))
    return total


def _game(system: str, game: str | None, ruleset: str | None) -> tuple[str, str]:
    """(game, ruleset) of a roster: the first game that claims its game system."""
    text = system.lower()
    for name in games.names(lists=True):
        claimed = games.get(name).roster_ruleset(text, game, ruleset)
        if claimed is not None:
            return name, claimed
    raise InputError("--game", f"the roster's game system '{display(system)}' is not one "
                     "mathhammer plays", None,
                     "add --game fantasy --ruleset wfb8 (or t9a1), or --game warmachine")


def parse_ros(data: bytes, label: str, game: str | None = None, ruleset: str | None = None) -> ParsedList:
    text = roster_text(data, label)
    try:
        root = ET.fromstring(text)  # text: the declared encoding is already applied
    except ET.ParseError as err:
        raise InputFileError(label, f"is not well-formed XML ({err})", None,
                             "export the roster again (.ros or .rosz)") from None
    if _tag(root) != "roster":
        raise InputFileError(label, f"is XML but not a BattleScribe roster (root <{display(_tag(root))}>)",
                             None, "give a .ros or .rosz file")
    g, rs = _game(root.get("gameSystemName", ""), game, ruleset)
    limit = None
    for limits in _children(root, "costLimits"):
        for cl in _children(limits, "costLimit"):
            if cl.get("name", "").strip().lower() in ("pts", "points") and cl.get("value"):
                value = read_number(cl.get("value"), label, "costLimit", "the points limit",
                                    whole=False)
                limit = int(value) if value >= 1 else None  # BattleScribe writes -1 for none
    entries = []
    for forces in _children(root, "forces"):
        for force in _children(forces, "force"):
            for group in _children(force, "selections"):
                for sel in _children(group, "selection"):
                    entry = _entry(sel, g, label, len(entries) + 1)
                    if entry is not None:
                        entries.append(entry)
                        check_entries(entries, label)
    return ParsedList(g, rs, root.get("name") or "Imported roster", limit, entries, "BattleScribe roster")


def _count(sel, label: str, name: str) -> int:
    return int(read_number(sel.get("number", "1"), label, f"selection '{display(name)}'",
                           "its number"))


def _entry(sel, game: str, label: str, index: int) -> Entry | None:
    kind = sel.get("type", "unit")
    name = (sel.get("name") or "").strip()
    if kind not in ("unit", "model") or not name:
        return None
    number = _count(sel, label, name)
    models, model_selections, options = 0, 0, {}
    for group in _children(sel, "selections"):
        for child in _children(group, "selection"):
            child_name = (child.get("name") or "").strip().lower()
            if child.get("type") == "model":
                models += _count(child, label, child.get("name") or name)
                model_selections += 1
            for word, key in (("champion", "champion"), ("musician", "musician"), ("standard", "standard")):
                if word in child_name:
                    options[key] = True
    line = f"{number} x {name}" if number != 1 else name
    size = models if model_selections else (number if kind == "unit" and number != 1 else None)
    return games.get(game).roster_entry(name, number, size, options, round(_points(sel, label)),
                                        line, f"selection {index}")


def parse_rosz(source, label: str, game: str | None = None, ruleset: str | None = None) -> ParsedList:
    from mathhammer.io import read_archive

    members = read_archive(source, label, max_members=8, max_unpacked=ROS_LIMIT)
    ros = [name for name in members if name.lower().endswith(".ros")]
    if len(ros) != 1:
        raise InputFileError(label, f"holds {len(ros)} .ros rosters (a .rosz holds exactly one)", None,
                             "export the roster again from BattleScribe")
    return parse_ros(members[ros[0]], f"{label}:{ros[0]}", game, ruleset)
