"""``mathhammer rules [ID|PREFIX]``: the rules as implemented, from ``docs/rules.md``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer


def rules_command(
    rule: Annotated[Optional[str], typer.Argument(
        help="A rule id (WM-A3), or a prefix (WM, FB-C, MG) for every id starting so. "
             "None: the list of every id with its title.")] = None,
) -> None:
    """Print the rules as mathhammer plays them: the rule, its source, the project's decision."""
    from mathhammer.rulesdoc import find_rules, rules_path

    entries = find_rules(rule)
    if rule is None:  # the index: one line per id, by section
        section = None
        for entry in entries:
            if entry.section != section:
                section = entry.section
                print(f"{'' if entry is entries[0] else chr(10)}{section}")
            print(f"  {entry.rule_id:<7} {entry.title}")
        print(f"\n`mathhammer rules ID` prints one entry; the document: {rules_path()}")
        return
    print("\n".join(entry.plain() for entry in entries), end="")
