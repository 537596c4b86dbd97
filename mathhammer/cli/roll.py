"""``mathhammer roll EXPR``: the distribution of a dice expression."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer.cli._common import (
    Check, Format, Method, NTrials, OutputPath, PlotPath, Precision, Quiet, Seed, Threads,
    common_options, emit,
)


def roll_command(
    expression: Annotated[str, typer.Argument(help='Dice text: "2D6+3", "D3", "3D6kh2", "D6*4", "D6+D3".')],
    at_least: Annotated[Optional[int], typer.Option("--at-least", help="Also report P(total ≥ K).")] = None,
    at_most: Annotated[Optional[int], typer.Option("--at-most", help="Also report P(total ≤ K).")] = None,
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
    """Distribution of a dice expression: P(=k), P(≥k), P(≤k), mean and sd (DICE-2)."""
    from mathhammer.roll import roll

    opts = common_options(method=method, n_trials=n_trials, seed=seed, precision=precision,
                          threads=threads, format=format, plot=plot, output=output, check=check,
                          quiet=quiet)
    if opts.precision is not None and opts.method == "auto":
        opts.method = "mc"  # asking for a precision only makes sense for Monte Carlo
    report = roll(expression, at_least=at_least, at_most=at_most, method=opts.method,
                  config=opts.config(), check=opts.check)
    emit(report, opts)
