"""Ninth Age army builder text exports.

The first line names the army and its points (``Orcs and Goblins, 2000 pts`` or
``2000 - Orcs and Goblins``); section headers in ``++ … ++`` or ``== … ==`` are skipped;
each unit is one line with its points at the start or the end and, for a unit, its size
in front of the name, then its options after commas::

    ++ Core ++
    170 - 20 Orcs, Shield, Musician, Standard Bearer, Champion
    20 Orcs, Shield, Champion - 170 pts
    Orc Chief, General, Shield [120]

Every option is kept by name; the game maps it onto the profile (command, equipment,
upgrades) or names it dropped (:meth:`mathhammer.game.Game.import_options`).

Fast on any line, as :mod:`mathhammer.warmachine.list_text`: whitespace is collapsed first, a digit run of
more than 15 digits is refused, the tail pattern is searched for in a line's last 64
characters and the head patterns are anchored.
"""

from __future__ import annotations

import re

from mathhammer.imports.model import (
    Entry, ParsedList, add_options, check_entries, check_line, read_number, search_tail, text_lines,
)

OPENERS, CLOSERS = ("++", "==", "--", "["), ("++", "==", "--", "]")
LEAD_POINTS = re.compile(r"([0-9]+) ?(?:pts?|points)? ?[-–:] ", re.I)
TAIL_POINTS = re.compile(r"(?: ?[-–] ?| ?[\[(] ?)(?<![0-9])([0-9]+) ?(?:pts?|points)? ?[\])]?$",
                         re.I)
SIZE = re.compile(r"([0-9]+) ?x? (?=[^0-9])")
FIRST_LINE_NUMBERS = re.compile(r"[0-9,]+ ?(?:pts?|points)?|[-–:]", re.I)


def option_words(text: str) -> str:
    """An option's name folded for matching: lower case words, a plural ``s`` dropped
    ("Great Weapons" and "great weapon" match)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in words)


def _section(line: str) -> bool:
    """``++ Core ++``, ``== Special ==``, ``[Rare]``: a header, not a unit."""
    return any(line.startswith(o) and line.endswith(c) and len(line) >= len(o) + len(c)
               for o in OPENERS for c in CLOSERS)


def parse(text: str, label: str, ruleset: str) -> ParsedList:
    lines = [(n, raw, " ".join(raw.split())) for n, raw in enumerate(text_lines(text, label), 1)]
    lines = [item for item in lines if item[2] and not item[2].startswith("#")]
    name, limit = "Imported list", None
    for number, _, line in lines:
        check_line(line, label, f"line {number}")
    if lines:
        number, _, first = lines[0]
        nums = re.findall(r"[0-9]+", first)
        words = FIRST_LINE_NUMBERS.sub(" ", first).strip()
        if nums and words and ("pts" in first.lower() or "points" in first.lower() or
                               LEAD_POINTS.match(first) or first.split()[0].isdigit()):
            limit = int(read_number(nums[0], label, f"line {number}", "the points limit"))
            name, lines = " ".join(words.split()), lines[1:]
    entries = []
    for number, raw, line in lines:
        if _section(line) or line.lower().startswith("total"):
            continue
        where = f"line {number}"
        points = None
        lead = LEAD_POINTS.match(line)
        if lead:
            points = int(read_number(lead.group(1), label, where, "the points"))
            line = line[lead.end():]
        tail = search_tail(TAIL_POINTS, line)
        if tail and tail.start() > 0:
            points = int(read_number(tail.group(1), label, where, "the points"))
            line = line[: tail.start()]
        parts = [p for p in map(str.strip, line.split(",")) if p]
        if not parts:
            continue
        head, options = parts[0], []
        models = None
        size = SIZE.match(head)
        if size:
            models = int(read_number(size.group(1), label, where, "the unit size"))
            head = head[size.end():].strip()
        add_options(options, parts[1:])  # every option: the game maps it or names it dropped
        entries.append(Entry(head, models=models, options=options, points=points, line=raw,
                             where=where))
        check_entries(entries, label)
    return ParsedList("fantasy", ruleset, name, limit, entries, "army builder text")
