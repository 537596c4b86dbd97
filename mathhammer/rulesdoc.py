"""The rules document (``docs/rules.md``) as data: one :class:`RuleEntry` per rule id.

``mathhammer rules`` prints entries from here and a test holds the document to every
id the code cites. The document ships in the wheel as ``mathhammer/_docs/rules.md``;
a source checkout reads ``docs/rules.md`` beside the package.

>>> entry = rule_entry("WM-A3")
>>> entry.title
'all sixes hit'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mathhammer.errors import InputError

#: a rule id as the code and the output cite it: WM-A3, FB-C5, MG-10, DICE-4, PR-2, TU-B1
RULE_ID = re.compile(r"\b(?:WM|FB|MG|DICE|PR|TU)-[A-Z]*[0-9]+\b")
_SECTION = re.compile(r"^## (\S+) — (.+)$")
_ENTRY = re.compile(r"^### (\S+) — (.+)$")


@dataclass(frozen=True)
class RuleEntry:
    """One rule: its id, a short title, its section and the entry's text (markdown)."""

    rule_id: str
    title: str
    section: str
    text: str

    def plain(self) -> str:
        """The entry for a terminal: heading line, then the paragraphs without markup."""
        body = self.text.replace("**", "").replace("`", "")
        return f"{self.rule_id} — {self.title}\n{body}".rstrip() + "\n"


def rules_path() -> Path:
    """``docs/rules.md`` of a source checkout, or the wheel's copy."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "docs" / "rules.md", here / "_docs" / "rules.md"):
        if candidate.is_file():
            return candidate
    raise InputError("rules", "the rules document is missing from this installation", str(here),
                     "reinstall mathhammer")


@lru_cache(maxsize=1)
def rule_entries() -> tuple[RuleEntry, ...]:
    """Every entry of the document, in document order."""
    return parse_rules(rules_path().read_text(encoding="utf-8"))


def parse_rules(text: str) -> tuple[RuleEntry, ...]:
    """Entries from the document's text: ``## PREFIX — title`` sections of ``### ID — title``."""
    entries: list[RuleEntry] = []
    section, current, body = "", None, []

    def close() -> None:
        if current is not None:
            entries.append(RuleEntry(current[0], current[1], section, _tidy(body)))

    for line in text.splitlines():
        if m := _SECTION.match(line):
            close()
            section, current, body = m.group(1), None, []
        elif m := _ENTRY.match(line):
            close()
            current, body = (m.group(1), m.group(2)), []
        elif current is not None:
            if line.startswith("-----"):  # the rule between sections
                continue
            body.append(line)
    close()
    return tuple(entries)


def _tidy(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n")


def rule_entry(rule_id: str) -> RuleEntry:
    """The entry of one id (case-insensitive); an unknown id names the nearest ones."""
    found = find_rules(rule_id)
    if len(found) == 1 and found[0].rule_id == rule_id.upper():
        return found[0]
    raise InputError("rule id", "is not in the rules document", rule_id, _suggest(rule_id))


def find_rules(query: str | None = None) -> tuple[RuleEntry, ...]:
    """One id (``WM-A3``), or every id starting with a prefix (``WM``, ``FB-C``, ``mg``).

    An exact id wins over a prefix, so ``MG-1`` is MG-1 alone, not MG-10 too. No query:
    every entry. Nothing matching is an error naming the nearest ids.
    """
    entries = rule_entries()
    if not query:
        return entries
    key = query.strip().upper()
    exact = tuple(e for e in entries if e.rule_id == key)
    if exact:
        return exact
    found = tuple(e for e in entries if e.rule_id.startswith(key))
    if not found:
        raise InputError("rule id", "matches no rule in the rules document", query,
                         _suggest(query))
    return found


def _suggest(query: str) -> str:
    import difflib

    ids = [e.rule_id for e in rule_entries()]
    near = difflib.get_close_matches(query.strip().upper(), ids, n=3, cutoff=0.5)
    prefixes = sorted({e.section for e in rule_entries()})
    if near:
        return "did you mean " + ", ".join(near) + "? (`mathhammer rules` lists every id)"
    return "give an id such as WM-A3 or a prefix: " + ", ".join(prefixes)


def cited_ids(text: str) -> set[str]:
    """Every rule id cited in ``text``."""
    return set(RULE_ID.findall(text))
