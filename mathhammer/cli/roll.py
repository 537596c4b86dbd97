"""``mathhammer roll EXPR``: the distribution of a dice expression."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command


@query_command
def roll_command(
    expression: Annotated[str, typer.Argument(help='Dice text: "2D6+3", "D3", "3D6kh2", "D6*4", "D6+D3".')],
    at_least: Annotated[Optional[int], typer.Option("--at-least", help="Also report P(total ≥ K).")] = None,
    at_most: Annotated[Optional[int], typer.Option("--at-most", help="Also report P(total ≤ K).")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Distribution of a dice expression: P(=k), P(≥k), P(≤k), mean and sd (DICE-2)."""
    from mathhammer.roll import roll

    report = roll(expression, at_least=at_least, at_most=at_most, method=opts.method,
                  config=opts.config(), check=opts.check, explain=opts.explain)
    emit(report, opts)
