"""`mathhammer wm …` commands."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, help="Warmachine Mk II: attacks, duels with the warjack grid and focus policies, AOE.")
