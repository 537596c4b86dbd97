"""``mathhammer wm battle LIST_A LIST_B``: two battlegroups, turn after turn (issue 31).

Registered in :mod:`mathhammer.cli.wm`; the web page serves it like every query command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command

BATTLES = 2000  # mathhammer.warmachine.battle.query.DEFAULT_BATTLES (help needs no import)


@query_command(only=("n_trials", "seed", "format", "plot", "output", "quiet"),
               trials=BATTLES, files=("list_a", "list_b"))
def battle_command(
    list_a: Annotated[str, typer.Argument(help="Side A: a Warmachine list TOML file or bundled list (khador_battlebox): one warcaster and its warjacks.")],
    list_b: Annotated[str, typer.Argument(help="Side B: a Warmachine list TOML file or bundled list (cygnar_battlebox).")],
    turns: Annotated[int, typer.Option("--turns", help="Rounds to play, 1-20; a caster kill ends the battle earlier, otherwise destroyed points decide (WM-B10).")] = 5,
    deployment: Annotated[Optional[Path], typer.Option("--deployment", help='TOML file placing models: [a] and [b] tables of LABEL = [x, y] in inches on the 48" table; models it does not name keep the default lines 20" apart (WM-B1).')] = None,
    policy_a: Annotated[str, typer.Option("--policy-a", help="Who decides side A's posture, feat and focus: scripted, greedy or best-response (WM-B11).")] = "greedy",
    policy_b: Annotated[str, typer.Option("--policy-b", help="Who decides side B's: scripted, greedy or best-response.")] = "greedy",
    first: Annotated[str, typer.Option("--first", help="Who takes the first turn: a, b or roll-off (WM-B3).")] = "roll-off",
    rollouts: Annotated[int, typer.Option("--rollouts", help="best-response: rollouts of the rest of the battle per option (common random numbers).")] = 8,
    iterations: Annotated[int, typer.Option("--iterations", help="best-response: 2 or 3 answers the other side's best response (each iteration answers the last).")] = 1,
    plan: Annotated[str, typer.Option("--plan", help="The plan search (wm plan) for assassinations: auto (first turn of the game), exact (every assassination; slow for four-model battlegroups) or greedy (never) (WM-B13).")] = "auto",
    workers: Annotated[Optional[int], typer.Option("--workers", help="Worker processes (default: every core); the same answer for any count.")] = None,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="A Dask scheduler address (tcp://host:8786): the battles run there, the same answer.")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Two Warmachine battlegroups fight to the caster kill: P(A wins / B wins / undecided).

    Each turn the active side chooses its posture, feat and focus (camp or allocate); models
    move, charge, take free strikes and attack with wm duel's activations, damage staying on
    grids and tracks from turn to turn (WM-B1..B13). Prints the answer first, then per turn
    P(warcaster dead) and warjacks destroyed or crippled, each side's first-turn plan and —
    for a best-responding side — the value of each option it weighed at its first turn.
    """
    from mathhammer.warmachine.battle.query import wm_battle

    config = opts.config()
    report = wm_battle(list_a, list_b, turns=turns, deployment=deployment, policy_a=policy_a,
                       policy_b=policy_b, first=first, rollouts=rollouts, iterations=iterations, plan=plan,
                       n_trials=config.n_trials, seed=config.seed, workers=workers,
                       scheduler=scheduler, progress=config.progress)
    emit(report, opts)
