"""`mathhammer fb combat` and `mathhammer fb artillery` (registered on the fb group)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer.cli._common import (
    Check, Format, Method, NTrials, OutputPath, PlotPath, Precision, Quiet, Seed, Threads,
    common_options, emit,
)
from mathhammer.cli.fb import app

COMBAT_TRIALS = 200_000  # default Monte Carlo size of a combat: ± 0.1 % on every probability


def _default_trials(opts, n_trials: int | None, default: int):
    if n_trials is None and opts.precision is None:
        opts.n_trials = default
    return opts


def combat_command(
    unit_a: Annotated[str, typer.Argument(help="Unit A: profile id (wfb8/empire_halberdiers) or a unit TOML file.")],
    unit_b: Annotated[str, typer.Argument(help="Unit B: profile id or unit TOML file.")],
    rounds: Annotated[Optional[int], typer.Option("--rounds", help="Stop after N rounds (default: until a unit breaks or dies, at most 25). --rounds 1 has an exact engine.")] = None,
    charger: Annotated[Optional[str], typer.Option("--charger", help="a or b: that unit charged (lances, Devastating Charge, basic strike order).")] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="basic, wfb8, t9a1 or a ruleset file (default: the profiles' edition).")] = None,
    models_a: Annotated[Optional[int], typer.Option("--models-a", help="Models in unit A (default: the profile's formation).")] = None,
    models_b: Annotated[Optional[int], typer.Option("--models-b", help="Models in unit B.")] = None,
    width_a: Annotated[Optional[int], typer.Option("--width-a", help="Rank width of unit A.")] = None,
    width_b: Annotated[Optional[int], typer.Option("--width-b", help="Rank width of unit B.")] = None,
    flank: Annotated[Optional[str], typer.Option("--flank", help="a or b: that unit fights in the enemy's flank (+1).")] = None,
    rear: Annotated[Optional[str], typer.Option("--rear", help="a or b: that unit fights in the enemy's rear (+2).")] = None,
    bonus_a: Annotated[int, typer.Option("--bonus-a", help="Extra combat result for A (high ground, overkill...).")] = 0,
    bonus_b: Annotated[int, typer.Option("--bonus-b", help="Extra combat result for B.")] = 0,
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
    """Close combat of two units, round after round (FB-C1..C7): win/draw/lose, breaks, pursuit.

    Results are for unit A: p_win, p_draw, p_lose, p_enemy_breaks, p_enemy_destroyed,
    p_caught, p_own_break, ...; distributions wounds_dealt, wounds_taken, models_left_a/b.
    """
    from mathhammer.fantasy.scenario import combat_from_options

    opts = common_options(method=method, n_trials=n_trials, seed=seed, precision=precision,
                          threads=threads, format=format, plot=plot, output=output, check=check,
                          quiet=quiet)
    _default_trials(opts, n_trials, COMBAT_TRIALS)
    report = combat_from_options(
        unit_a, unit_b, rounds=rounds, charger=charger, ruleset=ruleset,
        models=(models_a, models_b), widths=(width_a, width_b), flank=flank, rear=rear,
        bonuses=(bonus_a, bonus_b), method=opts.method, config=opts.config(), check=opts.check)
    emit(report, opts)


app.command("combat")(combat_command)
