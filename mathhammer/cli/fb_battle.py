"""`mathhammer fb battle LIST_A LIST_B`: two army lists over whole game turns (registered on
the fb group; the library call is :func:`mathhammer.fantasy.battle.report.battle`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command
from mathhammer.cli.fb import app

from mathhammer.trials import BATTLE as BATTLE_TRIALS


@query_command(only=("method", "n_trials", "seed", "format", "plot", "output", "quiet"),
               trials=BATTLE_TRIALS, files=("list_a", "list_b"))
def battle_command(
    list_a: Annotated[str, typer.Argument(help="List A: a bundled list name (wfb8_empire) or a list TOML file.")],
    list_b: Annotated[str, typer.Argument(help="List B: a bundled list name or a list TOML file (the same ruleset as A).")],
    turns: Annotated[int, typer.Option("--turns", help="Game turns (each: the first player's turn, then the other's).")] = 6,
    deployment: Annotated[Optional[Path], typer.Option("--deployment", help="A deployment TOML: unit places, terrain, scripted orders (default: two lines 24\" apart, FB-B2).")] = None,
    policy_a: Annotated[str, typer.Option("--policy-a", help="Who decides for A: scripted, greedy or best-response (FB-B10).")] = "greedy",
    policy_b: Annotated[str, typer.Option("--policy-b", help="Who decides for B: scripted, greedy or best-response.")] = "greedy",
    first: Annotated[str, typer.Option("--first", help="Who plays first: a, b or roll-off (each battle).")] = "roll-off",
    rollouts: Annotated[int, typer.Option("--rollouts", help="best-response: rollouts of the rest of the battle per option (common random numbers).")] = 8,
    iterations: Annotated[int, typer.Option("--iterations", help="best-response: 2 or 3 answers the other side's best response (each iteration answers the last; played by the Python reference engine, some hundred times slower: a few battles).")] = 1,
    workers: Annotated[int, typer.Option("--workers", help="Worker processes; the same answer for any count.")] = 1,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="A Dask scheduler address (tcp://host:8786): the battles run there, the same answer.")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Two army lists fight a whole battle, every phase, both generals deciding (FB-B1..B10).

    Results: p_a_wins, p_draw, p_b_wins, mean_vp_margin (A - B), and per unit at the end
    p_destroyed / p_fled / p_fleeing[A:<unit>]; distributions vp_margin and
    models_left[A:<unit>]; info: each unit destroyed or fled by each game turn, the
    decisions each side took and the values of the first decisions. Monte Carlo: one trial
    is one battle.
    """
    from mathhammer.engine import monte_carlo_only
    from mathhammer.fantasy.battle.report import battle

    monte_carlo_only("a battle", opts.method)
    report = battle(list_a, list_b, turns=turns, deployment=deployment, policy_a=policy_a,
                    policy_b=policy_b, first=first, n_trials=opts.config().n_trials,
                    seed=opts.seed, workers=workers, scheduler=scheduler, rollouts=rollouts,
                    iterations=iterations, progress=opts.config().progress)
    emit(report, opts)


app.command("battle")(battle_command)
