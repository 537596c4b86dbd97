"""What a parser reads from an export: entries as the builder printed them, every number
checked for type and size as it is read (:func:`read_number`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mathhammer.errors import InputFileError, printable
from mathhammer.numbers import decimal_text, shown

MAX_ENTRIES = 200  # a list longer than this is not an army list
MAX_LINES = 5_000  # lines of a text export, blank ones too (a real one has a few dozen)
MAX_OPTIONS = 100  # distinct options of one entry kept (a real unit has a dozen at most)

#: a line break in a text export: what builders write (not \x85, \u2028 or a form feed,
#: which stay in their line and are read as spaces)
LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: a digit run this long is no count, size or points value (checked on each line of a
#: text export first, so a tail pattern never meets a longer number)
LONG_NUMBER = re.compile(r"[0-9]{16,}")
#: a points or count tail is under 40 characters with its (at most 15) digits: a tail
#: pattern is searched for in this many last characters of a line, whatever its length
TAIL_WINDOW = 64
#: no count, unit size, cost or points limit in an army list comes near this; a larger
#: value (``1e30``, a 5,000-digit count) is refused rather than clamped
IMPORT_MAX = 1_000_000


@dataclass
class Entry:
    """One line of an export: what the builder printed."""

    name: str
    count: int = 1            # copies of this entry (Warmachine) or 1 (Fantasy units)
    models: int | None = None  # Fantasy unit size
    options: list = field(default_factory=list)  # every option printed for it, by name
    points: int | None = None
    line: str = ""
    where: str = ""           # "line 4" or "selection 2", for the report of changes


@dataclass
class ParsedList:
    game: str
    ruleset: str
    name: str
    points_limit: int | None
    entries: list[Entry]
    source_format: str


def display(text: str, limit: int = 60) -> str:
    """A name from an export as it may be echoed: one line, no control characters (they
    show as escapes such as ``\\x1b``), the tail cut when long."""
    text = printable(" ".join(text.split()))
    return text if len(text) <= limit else f"{text[:limit - 3]}..."


def read_number(text: str, label: str, where: str, what: str, *, whole: bool = True) -> float:
    """A number the export prints, checked before use: finite decimal notation, whole if
    ``whole``, at most :data:`IMPORT_MAX` in size. Anything else is one line naming the
    file, the place and the value.

    Raises:
        InputFileError
    """
    value = decimal_text(text)
    kind = "a whole number" if whole else "a number"
    fix = "export the list again from the builder, or correct that value"
    digits = text.strip().lstrip("+-")
    too_long = value is None and digits.isascii() and digits.isdigit()  # 5,000 digits
    if not too_long and (value is None or (whole and not value.is_integer())):
        raise InputFileError(f"{label}: {where}", f"{what} is not {kind}", shown(text), fix)
    if too_long or abs(value) > IMPORT_MAX:
        raise InputFileError(f"{label}: {where}", f"{what} is far beyond any army list (at most "
                             f"{IMPORT_MAX:,})", shown(text), fix)
    return value


def check_line(line: str, label: str, where: str) -> None:
    """A text export's line holds no digit run of more than 15 digits (one line if it does)."""
    long = LONG_NUMBER.search(line)
    if long:
        read_number(long.group(), label, where, "a number")  # raises: far beyond any list


def search_tail(pattern: re.Pattern, line: str) -> re.Match | None:
    """``pattern`` (anchored with ``$``, at most ~40 characters long once
    :func:`check_line` has run) searched for in the end of ``line`` only: the same match
    as a search of the whole line, at a cost that does not grow with the line."""
    return pattern.search(line, max(0, len(line) - TAIL_WINDOW))


def add_option(options: list, name: str) -> None:
    """An option named once per entry (a roster repeats a shield under every model)."""
    add_options(options, (name,))


def add_options(options: list, names) -> None:
    """Each of ``names`` added as :func:`add_option` would, in one pass: a line of a
    hundred thousand commas costs one set lookup an option, not a scan of the kept ones."""
    seen = {o.lower() for o in options}
    for name in dict.fromkeys(names):  # a repeated name reads as its first
        if len(options) >= MAX_OPTIONS:
            return  # nothing past the bound is kept
        name = " ".join(str(name).split())
        if name and name.lower() not in seen:
            seen.add(name.lower())
            options.append(name)


def check_entries(entries: list, label: str) -> None:
    """Stop reading at the first entry past :data:`MAX_ENTRIES` (a 1 MB file of entries
    is refused at once, not after reading it all)."""
    if len(entries) > MAX_ENTRIES:
        raise InputFileError(label, f"has more than {MAX_ENTRIES} entries", None,
                             "give one army list")


def text_lines(text: str, label: str) -> list[str]:
    """The lines of a text export, at most :data:`MAX_LINES` of them (one line if more):
    the work per line is bounded, and so is the number of lines."""
    lines = LINE_BREAK.split(text)
    if len(lines) > MAX_LINES:
        raise InputFileError(label, f"has {len(lines):,} lines, above the limit of {MAX_LINES:,} "
                             "for a list export", None, "give one army list")
    return lines
