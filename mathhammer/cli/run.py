"""``mathhammer run SCENARIO.toml``: version-controllable scenario files.

The file's ``game`` key picks the game, whose adapter plays the file
(:meth:`mathhammer.game.Game.run_scenario`). The JSON's ``command`` is the engine that
answered (``magic.phase``, ``fantasy.combat``, ``warmachine.scenario`` ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command


@query_command
def run_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (kind and format: docs/guide/fantasy.md, magic.md, warmachine.md).")],
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Run a scenario file (game = "warmachine" | "fantasy" | "magic")."""
    from mathhammer import game as games
    from mathhammer.errors import ProfileError
    from mathhammer.profiles import read_toml

    data = read_toml(scenario)
    game = data.get("game")
    if not isinstance(game, str) or game not in games.names():  # game = [] is unhashable
        raise ProfileError(f"{scenario}: game", "must name the engine", game,
                           "add game = " + ", ".join(f'"{n}"' for n in games.names()[:-1])
                           + f' or "{games.names()[-1]}"')
    report = games.get(game).run_scenario(data, str(scenario), method=opts.method,
                                          config=opts.config(), check=opts.check,
                                          n_trials=opts.n_trials)
    opts.command = None  # the JSON names the engine that answered, not "run"
    emit(report, opts)
