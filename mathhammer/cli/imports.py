"""``mathhammer import FILE [-o list.toml]``: a list file from a list builder's export.

Thin: :func:`mathhammer.imports.import_file` parses and matches; this writes the list
file (standard output by default, ``-o`` through the safe writer) or, with ``--format
json``, the shared report. The headline comes first either way: the list file opens
with it as a comment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer


def import_command(
    export: Annotated[Path, typer.Argument(help="The export: Mk II list text, Ninth Age army builder text, a BattleScribe .ros / .rosz roster, or a New Recruit .json roster.")],
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write the list file here (atomically; - for standard output, the default).")] = None,
    game: Annotated[Optional[str], typer.Option("--game", help="warmachine or fantasy (default: read from the file).")] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="mk2, wfb8 or t9a1 (default: the roster's game system; text exports t9a1).")] = None,
    format: Annotated[str, typer.Option("--format", help="toml (the list file) or json (the report).")] = "toml",
    brief: Annotated[bool, typer.Option("--brief", help="Print only the headline: one line with the answer.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No notes on stderr.")] = False,
) -> None:
    """Convert a list builder's export into a mathhammer list file (names matched to bundled profiles)."""
    import sys

    from mathhammer.errors import InputError
    from mathhammer.imports import import_file
    from mathhammer.io import write_atomically
    from mathhammer.present import render as _render

    if format not in ("toml", "json"):
        raise InputError("--format", "must be toml or json", format, "use --format json")
    if brief and format == "json":
        raise InputError("--brief", "prints the headline only; it does not go with --format json",
                         format, "drop --brief or --format json")
    report, text = import_file(export, game=game, ruleset=ruleset)
    if brief:
        payload = report.headline + "\n"
    elif format == "json":
        payload = _render.render(report, "json")
    else:
        payload = f"# {report.headline}\n" + text
    write_atomically(output or "-", payload)
    if output not in (None, "-") and not quiet:
        print(report.headline, file=sys.stderr)
