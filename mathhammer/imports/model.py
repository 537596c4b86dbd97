"""What a parser reads from an export: entries as the builder printed them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Entry:
    """One line of an export: what the builder printed."""

    name: str
    count: int = 1            # copies of this entry (Warmachine) or 1 (Fantasy units)
    models: int | None = None  # Fantasy unit size
    options: dict = field(default_factory=dict)  # champion / standard / musician
    points: int | None = None
    line: str = ""


@dataclass
class ParsedList:
    game: str
    ruleset: str
    name: str
    points_limit: int | None
    entries: list[Entry]
    source_format: str
