"""``mathhammer roll-off`` (DICE-6) and ``mathhammer scatter DICE`` (DICE-4, DICE-7)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command


@query_command
def roll_off_command(
    bonus_a: Annotated[int, typer.Option("--bonus-a", help="Added to player A's D6 (e.g. 1).")] = 0,
    bonus_b: Annotated[int, typer.Option("--bonus-b", help="Added to player B's D6.")] = 0,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """A roll-off: both roll a D6 (+ bonus), higher wins, ties roll again (DICE-6).

    Results p_a_wins, p_b_wins, mean_rolls; distribution rolls. +1 for A gives 21/31.
    """
    from mathhammer.dicegames import roll_off

    report = roll_off(bonus_a, bonus_b, method=opts.method, config=opts.config(),
                      check=opts.check, explain=opts.explain)
    emit(report, opts)


@query_command(files=("ruleset",))
def scatter_command(
    distance: Annotated[str, typer.Argument(help='Scatter distance in inches as dice text: "2D6", "D6", "D6*2", "3".')] = "2D6",
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="Scatter die of this ruleset: basic (1 HIT face, seed 001), wfb8 or t9a1 (2 HIT faces), or a ruleset file (default wfb8).")] = None,
    hit_faces: Annotated[Optional[int], typer.Option("--hit-faces", help="HIT faces of the scatter die, 0..6 (instead of --ruleset).")] = None,
    from_inches: Annotated[Optional[float], typer.Option("--from-inches", help="Also report p_within: P(the object ends at most R inches from the aim point), e.g. 1.5 for a 3 in template still over its aim.")] = None,
    target_offset: Annotated[float, typer.Option("--target-offset", help="With --from-inches: measure from a point this many inches from the aim point instead.")] = 0.0,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Scatter by any dice (DICE-7): P(HIT), the distance moved, P(ending within R inches).

    The scatter die shows HIT on the ruleset's HIT faces (the object stays); otherwise the
    object moves the dice total in inches in a uniform direction.
    """
    from mathhammer.dicegames import scatter

    if hit_faces is not None and ruleset is not None:
        from mathhammer.errors import InputError

        raise InputError("--hit-faces", "gives the scatter die itself; --ruleset would too",
                         hit_faces, "drop one of --hit-faces and --ruleset")
    report = scatter(distance, ruleset=ruleset, hit_faces=hit_faces, within=from_inches,
                     offset=target_offset, method=opts.method, config=opts.config(),
                     check=opts.check, explain=opts.explain)
    emit(report, opts)
