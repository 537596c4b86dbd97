"""BattleScribe rosters: ``.ros`` XML and ``.rosz`` (a zip holding one ``.ros``).

The parts read (BattleScribe's published roster schema): ``roster`` (``name``,
``gameSystemName``), ``costLimits/costLimit[@name="pts"]``, and under
``forces/force/selections`` each top-level ``selection`` of ``type`` unit or model: its
``name`` and ``number``; the models of a unit are its nested ``type="model"`` selections
(their ``number`` added up); every other nested selection, at any depth, is an option
by name (the game maps it onto the profile or names it dropped);
``costs/cost[@name="pts"]`` on a selection and all it holds add up to the unit's printed
points. New Recruit's JSON export is the same tree (:mod:`.newrecruit`).

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
from mathhammer.imports.model import Entry, ParsedList, add_option, check_entries, display, read_number

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


class XmlNode:
    """A roster element read the BattleScribe way (the JSON export has the same parts:
    :class:`mathhammer.imports.newrecruit.JsonNode`)."""

    def __init__(self, el) -> None:
        self.el = el

    def attr(self, key: str) -> str | None:
        return self.el.get(key)

    def costs(self, group: str = "costs", item: str = "cost") -> list[tuple[str, str]]:
        return [(cost.get("name", ""), cost.get("value", "0"))
                for costs in _children(self.el, group) for cost in _children(costs, item)]

    def selections(self) -> list[XmlNode]:
        return [XmlNode(c) for group in _children(self.el, "selections")
                for c in _children(group, "selection")]

    def forces(self) -> list[XmlNode]:
        return [XmlNode(c) for group in _children(self.el, "forces") for c in _children(group, "force")]


POINT_COSTS = ("pts", "points", "pc")


def _points(sel, label: str) -> float:
    """The points of a selection and everything nested in it (a stack: any depth)."""
    total, stack = 0.0, [sel]
    while stack:
        node = stack.pop()
        for name, value in node.costs():
            if str(name).strip().lower() in POINT_COSTS:
                total += read_number(value, label, f"selection '{display(sel.attr('name') or '?')}'",
                                     "a cost", whole=False)
        stack.extend(node.selections())
    return total


def _game(system: str, game: str | None, ruleset: str | None) -> tuple[str, str]:
    """(game, ruleset) of a roster: the first game that claims its game system."""
    text = system.lower()
    for name in games.names(lists=True):
        claimed = games.get(name).roster_ruleset(text, game, ruleset)
        if claimed is not None:
            return name, claimed
    raise InputError("‹game›", f"the roster's game system '{display(system)}' is not one "
                     "mathhammer plays", None,
                     "add ‹game› fantasy ‹ruleset› wfb8 (or t9a1), or ‹game› warmachine")


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
    return read_roster(XmlNode(root), label, game, ruleset, "BattleScribe roster")


def read_roster(root, label: str, game: str | None, ruleset: str | None, fmt: str) -> ParsedList:
    """The entries of a roster tree (XML or JSON nodes): each top-level selection of a force
    that is a unit or a model, with its models, options and printed points."""
    g, rs = _game(root.attr("gameSystemName") or "", game, ruleset)
    limit = None
    for name, value in root.costs("costLimits", "costLimit"):
        if str(name).strip().lower() in ("pts", "points") and value:
            points = read_number(value, label, "costLimit", "the points limit", whole=False)
            limit = int(points) if points >= 1 else None  # BattleScribe writes -1 for none
    entries = []
    for force in root.forces():
        for sel in force.selections():
            entry = _entry(sel, g, label, len(entries) + 1)
            if entry is not None:
                entries.append(entry)
                check_entries(entries, label)
    return ParsedList(g, rs, root.attr("name") or "Imported roster", limit, entries, fmt)


def _count(sel, label: str, name: str) -> int:
    return int(read_number(sel.attr("number") or "1", label, f"selection '{display(name)}'",
                           "its number"))


def _entry(sel, game: str, label: str, index: int) -> Entry | None:
    kind = sel.attr("type") or "unit"
    name = (sel.attr("name") or "").strip()
    if kind not in ("unit", "model") or not name:
        return None
    number = _count(sel, label, name)
    models, model_selections, options = 0, 0, []
    for child in sel.selections():
        if child.attr("type") == "model":
            models += _count(child, label, child.attr("name") or name)
            model_selections += 1
    stack = list(reversed(sel.selections()))  # every upgrade at any depth, in roster order
    while stack:
        node = stack.pop()
        if node.attr("type") != "model" and (node.attr("name") or "").strip():
            add_option(options, node.attr("name"))
        stack.extend(reversed(node.selections()))
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
