"""Ninth Age army builder text exports.

The first line names the army and its points (``Orcs and Goblins, 2000 pts`` or
``2000 - Orcs and Goblins``); section headers in ``++ … ++`` or ``== … ==`` are skipped;
each unit is one line with its points at the start or the end and, for a unit, its size
in front of the name, then its options after commas::

    ++ Core ++
    170 - 20 Orcs, Shield, Musician, Standard Bearer, Champion
    20 Orcs, Shield, Champion - 170 pts
    Orc Chief, General, Shield [120]

Options named Champion, Musician and Standard Bearer become the unit's command.
"""

from __future__ import annotations

import re

from mathhammer.imports.model import Entry, ParsedList

SECTION = re.compile(r"^\s*(\+\+|==|--|\[).*?(\+\+|==|--|\])\s*$")
LEAD_POINTS = re.compile(r"^\s*(\d+)\s*(?:pts?|points)?\s*[-–:]\s+")
TAIL_POINTS = re.compile(r"\s*(?:[-–]\s*|\[|\()\s*(\d+)\s*(?:pts?|points)?\s*[\])]?\s*$", re.I)
SIZE = re.compile(r"^(\d+)\s*x?\s+(?=\D)")
COMMAND = {"champion": "champion", "musician": "musician", "standard bearer": "standard",
           "standard": "standard"}


def parse(text: str, label: str, ruleset: str) -> ParsedList:
    lines = [raw for raw in text.splitlines() if raw.strip() and not raw.strip().startswith("#")]
    name, limit = "Imported list", None
    if lines:
        first = lines[0].strip()
        nums = re.findall(r"\d+", first)
        words = re.sub(r"[\d,]+\s*(pts?|points)?|[-–:]", " ", first, flags=re.I).strip()
        if nums and words and ("pts" in first.lower() or "points" in first.lower() or
                               LEAD_POINTS.match(first) or first.split()[0].isdigit()):
            name, limit, lines = " ".join(words.split()), int(nums[0]), lines[1:]
    entries = []
    for raw in lines:
        line = raw.strip()
        if SECTION.match(line) or line.lower().startswith("total"):
            continue
        points = None
        lead = LEAD_POINTS.match(line)
        if lead:
            points, line = int(lead.group(1)), line[lead.end():]
        tail = TAIL_POINTS.search(line)
        if tail and tail.start() > 0:
            points, line = int(tail.group(1)), line[: tail.start()]
        parts = [p.strip() for p in line.split(",") if p.strip()]
        if not parts:
            continue
        head, options = parts[0], {}
        models = None
        size = SIZE.match(head)
        if size:
            models, head = int(size.group(1)), head[size.end():].strip()
        for opt in parts[1:]:
            key = COMMAND.get(opt.lower())
            if key:
                options[key] = True
        entries.append(Entry(head, models=models, options=options, points=points, line=raw))
    return ParsedList("fantasy", ruleset, name, limit, entries, "army builder text")
