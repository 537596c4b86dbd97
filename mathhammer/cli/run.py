"""``mathhammer run SCENARIO.toml``: version-controllable scenario files.

The file's ``game`` key picks the engine: ``mathhammer.<game>.scenario.run_scenario``
receives the parsed TOML, its path and the Monte Carlo settings and returns a Report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command

SCENARIO_GAMES = {"warmachine": "warmachine", "fantasy": "fantasy", "magic": "magic"}
#: ``kind = "battle"`` files, by game: the module whose ``run_battle_scenario`` plays them
BATTLE_GAMES = {"warmachine": "mathhammer.warmachine.battle.query"}


@query_command
def run_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (see README).")],
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Run a scenario file (game = "warmachine" | "fantasy" | "magic")."""
    import importlib

    from mathhammer.errors import ProfileError
    from mathhammer.profiles import read_toml

    data = read_toml(scenario)
    game = data.get("game")
    if not isinstance(game, str) or game not in SCENARIO_GAMES:  # game = [] is unhashable
        raise ProfileError(f"{scenario}: game", "must name the engine", game,
                           'add game = "warmachine", "fantasy" or "magic"')
    if data.get("kind") == "battle" and game in BATTLE_GAMES:
        battle = importlib.import_module(BATTLE_GAMES[game])
        report = battle.run_battle_scenario(data, str(scenario), method=opts.method,
                                            config=opts.config(), n_trials=opts.n_trials)
        emit(report, opts)
        return
    module = importlib.import_module(f"mathhammer.{SCENARIO_GAMES[game]}.scenario")
    report = module.run_scenario(data, str(scenario), method=opts.method, config=opts.config(),
                                 check=opts.check)
    emit(report, opts)
