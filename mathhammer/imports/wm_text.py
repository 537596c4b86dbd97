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
"""

from __future__ import annotations

import re

from mathhammer.imports.model import Entry, ParsedList

HEADER = re.compile(r"^\s*(system|faction|casters?|points|tiers?|theme|army|list)\s*:\s*(.*)$", re.I)
BULLET = re.compile(r"^[\s\-*•·>]+")
COUNT = re.compile(r"^(\d+)\s*x\s+|\s+x\s*(\d+)$", re.I)
POINTS = re.compile(r"(?:\s+-\s*|\s*\()?\s*(?:PC|WJ|pts?|points)?\s*:?\s*\+?\*?(\d+)\s*(?:pts?|points)?\)?\s*$",
                    re.I)


def parse(text: str, label: str) -> ParsedList:
    name, limit, entries = "Imported Mk II list", None, []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head = HEADER.match(line)
        if head:
            key, value = head.group(1).lower(), head.group(2).strip()
            if key == "faction" and value:
                name = f"{value} (imported)"
            elif key in ("points",):
                nums = re.findall(r"\d+", value)
                limit = int(nums[-1]) if nums else None
            elif key in ("army", "list") and value:
                name = value
            continue
        body = BULLET.sub("", line).strip()
        count = 1
        c = COUNT.search(body)
        if c:
            count = int(c.group(1) or c.group(2))
            body = COUNT.sub("", body).strip()
        points = None
        p = POINTS.search(body)
        if p and p.start() > 0:
            # a warcaster's "WJ: +5" is the warjack points it brings, not a cost
            points = None if re.search(r"\bWJ\b", p.group(0), re.I) else int(p.group(1))
            body = body[: p.start()].strip(" -–:")
        if body and not body.lower().startswith(("total", "wj points")):
            entries.append(Entry(body, count=min(count, 50), points=points, line=raw))
    return ParsedList("warmachine", "mk2", name, limit, entries, "Mk II list text")
