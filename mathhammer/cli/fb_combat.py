"""`mathhammer fb combat` and `mathhammer fb artillery` (registered on the fb group)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command
from mathhammer.cli.fb import app

COMBAT_TRIALS = 200_000  # default Monte Carlo size of a combat: ± 0.1 % on every probability


@query_command(trials=COMBAT_TRIALS)
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
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Close combat of two units, round after round (FB-C1..C7): win/draw/lose, breaks, pursuit.

    Results are for unit A: p_win, p_draw, p_lose, p_enemy_breaks, p_enemy_destroyed,
    p_caught, p_own_break, ...; distributions wounds_dealt, wounds_taken, models_left_a/b.
    """
    from mathhammer.fantasy.scenario import combat_from_options

    report = combat_from_options(
        unit_a, unit_b, rounds=rounds, charger=charger, ruleset=ruleset,
        models=(models_a, models_b), widths=(width_a, width_b), flank=flank, rear=rear,
        bonuses=(bonus_a, bonus_b), method=opts.method, config=opts.config(), check=opts.check)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.fantasy.explain import combat_decisions, combat_sides, explain_combat

        compiled = combat_sides(unit_a, unit_b, charger=charger, ruleset=ruleset,
                                models=(models_a, models_b), widths=(width_a, width_b),
                                flank=flank, rear=rear, bonuses=(bonus_a, bonus_b))
        attach(report, explain_combat(compiled), decisions=combat_decisions(compiled))
    emit(report, opts)


app.command("combat")(combat_command)


ARTILLERY_TRIALS = 200_000


@query_command(trials=ARTILLERY_TRIALS)
def artillery_command(
    weapon: Annotated[str, typer.Argument(help="stone-thrower, cannon or bolt-thrower.")],
    target: Annotated[str, typer.Argument(help="Target unit: profile id or unit TOML file (T, W, saves, base, formation).")],
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="basic, wfb8, t9a1 or a ruleset file (default: the target's edition). t9a1 files with artillery = \"to_hit\" fire cannons with a BS roll.")] = None,
    models: Annotated[Optional[int], typer.Option("--models", help="Models in the target unit.")] = None,
    width: Annotated[Optional[int], typer.Option("--width", help="Rank width of the target unit.")] = None,
    template: Annotated[str, typer.Option("--template", help="Stone thrower template: small (3 in) or large (5 in).")] = "small",
    strength: Annotated[Optional[int], typer.Option("--strength", help="S of a hit (stone thrower: the small hits; bolt thrower: the first model; default 3 / 10 / 6).")] = None,
    big_strength: Annotated[Optional[int], typer.Option("--big-strength", help="S of the model under the stone thrower's centre (default 9) / the to-hit cannon's first hit (10).")] = None,
    multiple_wounds: Annotated[Optional[str], typer.Option("--multiple-wounds", help="Multiple Wounds of the big hit / cannon / bolt (default D6, D6, D3).")] = None,
    ap: Annotated[int, typer.Option("--ap", help="Armour piercing on top of the strength modifier.")] = 0,
    bs: Annotated[int, typer.Option("--bs", help="Crew BS for bolt throwers and to-hit cannons.")] = 3,
    modifier: Annotated[int, typer.Option("--modifier", help="Sum of to-hit modifiers (e.g. -1 long range).")] = 0,
    aim_file: Annotated[Optional[float], typer.Option("--aim-file", help="File aimed at, 1 = left, fractions allowed (default: the middle).")] = None,
    aim_rank: Annotated[Optional[float], typer.Option("--aim-rank", help="Rank aimed at, 1 = front (template only; default: the middle).")] = None,
    facing: Annotated[str, typer.Option("--facing", help="Cannon / bolt thrower: front (along a file) or flank (along a rank, --aim-rank picks it).")] = "front",
    short: Annotated[float, typer.Option("--short", help="Cannon (template rulesets): inches short of the unit's front the shot is aimed (default 4).")] = 4.0,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """One artillery shot at a unit formation (FB-R1..R5): models hit, wounds, models slain, misfires."""
    from mathhammer.fantasy.artillery import Shot, artillery

    shot = Shot(weapon, template=template, strength=strength, big_strength=big_strength,
                multiple_wounds=multiple_wounds, armour_piercing=ap, bs=bs, modifier=modifier,
                aim_file=aim_file, aim_rank=aim_rank, short=short, facing=facing)
    report = artillery(weapon, target, ruleset=ruleset, models=models, rank_width=width, shot=shot,
                       method=opts.method, config=opts.config(), check=opts.check,
                       explain=opts.explain)
    emit(report, opts)


app.command("artillery")(artillery_command)
