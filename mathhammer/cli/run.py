"""``mathhammer run SCENARIO.toml``: version-controllable scenario files.

The file's ``game`` key picks the engine: ``mathhammer.<game>.scenario.run_scenario``
receives the parsed TOML, its path and the Monte Carlo settings and returns a Report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mathhammer.cli._common import (
    Check, Format, Method, NTrials, OutputPath, PlotPath, Precision, Quiet, Seed, Threads,
    common_options, emit,
)

SCENARIO_GAMES = {"warmachine": "warmachine", "fantasy": "fantasy", "magic": "magic"}


def run_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (see README).")],
    method: Method = "auto",
    n_trials: NTrials = None,
    seed: Seed = None,
    precision: Precision = None,
    threads: Threads = None,
    format: Format = "table",
    plot: PlotPath = None,
    output: OutputPath = None,
    check: Check = False,
    quiet: Quiet = False,
) -> None:
    """Run a scenario file (game = "warmachine" | "fantasy" | "magic")."""
    import importlib

    from mathhammer.errors import ProfileError
    from mathhammer.profiles import read_toml

    opts = common_options(method=method, n_trials=n_trials, seed=seed, precision=precision,
                          threads=threads, format=format, plot=plot, output=output, check=check,
                          quiet=quiet)
    data = read_toml(scenario)
    game = data.get("game")
    if game not in SCENARIO_GAMES:
        raise ProfileError(f"{scenario}: game", "must name the engine", game,
                           'add game = "warmachine", "fantasy" or "magic"')
    module = importlib.import_module(f"mathhammer.{SCENARIO_GAMES[game]}.scenario")
    report = module.run_scenario(data, str(scenario), method=opts.method, config=opts.config(),
                                 check=opts.check)
    emit(report, opts)
