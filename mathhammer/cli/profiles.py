"""`mathhammer profiles list|show|validate|schema`."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, help="Bundled and user profiles: list, show, validate, schema.")
