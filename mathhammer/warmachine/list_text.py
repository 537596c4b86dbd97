"""Warmachine Mk II list text, as list builders and forums print it.

Header lines ``System: Warmachine``, ``Faction: Khador``, ``Casters: 1/1``,
``Points: 35/35`` (any of them may be missing); then one model per line, the
warcaster first with its warjack points and its battlegroup indented or bulleted under
it::

    Kommander Sorscha - WJ: +5
    -  Juggernaut - PC: 7
    *  Destroyer (9 pts)
    2x Ironclad - PC: 7

Points may be written ``PC: 7``, ``- 7``, ``(7pts)``, ``7 pts``; a count ``2x`` or ``x2``.

Fast on any line: each line's whitespace is collapsed to single spaces first, so every
quantifier below but a digit run matches a few characters at most; a digit run of more
than 15 digits is refused before any pattern runs; the tail patterns are searched for in
the last 64 characters only (:func:`~mathhammer.imports.model.search_tail`) and the
head patterns are anchored. No pattern backtracks over a long run of anything.
"""

from __future__ import annotations

import re

from mathhammer.imports.model import (
    Entry, ParsedList, check_entries, check_line, read_number, search_tail, text_lines,
)

HEADER = re.compile(r"(system|faction|casters?|points|tiers?|theme|army|list) ?: ?(.*)", re.I)
BULLET = re.compile(r"[\s\-*•·>]+")
LEAD_COUNT = re.compile(r"([0-9]+) ?x (?=\S)", re.I)
TAIL_COUNT = re.compile(r" x ?([0-9]+)$", re.I)
POINTS = re.compile(
    r"(?: - ?| ?\( ?| )?"                      # " - ", " (" or a space before the points
    r"(?:(PC|WJ|pts?|points) ?:? ?)?"          # a label: "PC: ", "WJ: "
    r"\+?\*?(?<![0-9])([0-9]+)"                # the number, read from its first digit
    r" ?(?:pts?|points)? ?\)?$", re.I)


def parse(text: str, label: str) -> ParsedList:
    name, limit, entries = "Imported Mk II list", None, []
    for number, raw in enumerate(text_lines(text, label), 1):
        line = " ".join(raw.split())
        if not line or line.startswith("#"):
            continue
        where = f"line {number}"
        check_line(line, label, where)
        head = HEADER.match(line)
        if head:
            key, value = head.group(1).lower(), head.group(2).strip()
            if key == "faction" and value:
                name = f"{value} (imported)"
            elif key == "points":
                nums = re.findall(r"[0-9]+", value)
                limit = (int(read_number(nums[-1], label, where, "the points limit"))
                         if nums else None)
            elif key in ("army", "list") and value:
                name = value
            continue
        bullet = BULLET.match(line)
        body = line[bullet.end():] if bullet else line
        count = 1
        c = LEAD_COUNT.match(body) or search_tail(TAIL_COUNT, body)
        if c:
            count = int(read_number(c.group(1), label, where, "the count"))
            body = (body[c.end():] if c.start() == 0 else body[: c.start()]).strip()
        points = None
        p = search_tail(POINTS, body)
        if p and p.start() > 0:
            # a warcaster's "WJ: +5" is the warjack points it brings, not a cost
            value = int(read_number(p.group(2), label, where, "the points"))
            points = None if (p.group(1) or "").upper() == "WJ" else value
            body = body[: p.start()].strip(" -–:")
        if body and not body.lower().startswith(("total", "wj points")):
            entries.append(Entry(body, count=count, points=points, line=raw, where=where))
            check_entries(entries, label)
    return ParsedList("warmachine", "mk2", name, limit, entries, "Mk II list text")
