"""`mathhammer fb artillery WEAPON [TARGET]` (registered on the fb group)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer import trials
from mathhammer.cli._common import CommonOptions, emit, query_command
from mathhammer.cli.fb import _save, app

ARTILLERY_TRIALS = trials.ARTILLERY
WEAPON_HELP = ("stone-thrower, cannon, bolt-thrower, flame-cannon, multi-barrel (organ gun / "
               "Helblaster / volley gun) or template (a template that scatters by --scatter dice).")


def _target(target: str | None, target_opt: str | None, toughness: int | None,
            wounds: int | None, save: str | None, ward: str | None, regeneration: str | None,
            base: str | None, models: int | None, width: int | None, ruleset: str | None):
    """A profile id / unit file (positional or --target), or a unit from raw stats."""
    from mathhammer.errors import InputError

    if target is not None and target_opt is not None:
        raise InputError("--target", "the target is given twice (argument and --target)",
                         target_opt, "drop one of them")
    ref = target or target_opt
    raw = {"--toughness": toughness, "--wounds": wounds, "--save": save, "--ward": ward,
           "--regeneration": regeneration, "--base": base}
    given = [flag for flag, value in raw.items() if value is not None]
    if ref is not None:
        if given:
            raise InputError(given[0], "takes the target's stats from its profile already",
                             raw[given[0]], f"drop {given[0]}, or drop the profile for raw stats")
        return ref
    if toughness is None:
        raise InputError("TARGET", "needs a target: a profile id / unit file, or raw stats",
                         None, "add e.g. wfb8/empire_halberdiers, or --toughness 3 --save 5")
    from mathhammer.fantasy.artillery.common import stats_target
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    rules = load_ruleset(ruleset or "wfb8")
    rules.check_characteristic(toughness, "--toughness")
    if wounds is not None and not 1 <= wounds <= 20:
        raise InputError("--wounds", "must be 1..20", wounds, "use e.g. --wounds 1")
    return stats_target(toughness, wounds or 1, _save(save, "--save"), _save(ward, "--ward"),
                        _save(regeneration, "--regeneration"), base or "20mm", models or 10,
                        width or 5, rules.name)


@query_command(trials=ARTILLERY_TRIALS, files=("target", "target_opt", "ruleset"))
def artillery_command(
    weapon: Annotated[str, typer.Argument(help=WEAPON_HELP)],
    target: Annotated[Optional[str], typer.Argument(help="Target unit: profile id or unit TOML file (or --target, or raw stats --toughness ...).")] = None,
    target_opt: Annotated[Optional[str], typer.Option("--target", help="Target unit profile id or unit TOML file (same as the argument).")] = None,
    toughness: Annotated[Optional[int], typer.Option("--toughness", help="Raw-stats target: Toughness (instead of a profile).")] = None,
    wounds: Annotated[Optional[int], typer.Option("--wounds", help="Raw-stats target: Wounds per model (default 1).")] = None,
    save: Annotated[Optional[str], typer.Option("--save", help="Raw-stats target: armour save, 5 means 5+.")] = None,
    ward: Annotated[Optional[str], typer.Option("--ward", help="Raw-stats target: ward save.")] = None,
    regeneration: Annotated[Optional[str], typer.Option("--regeneration", help="Raw-stats target: regeneration save.")] = None,
    base: Annotated[Optional[str], typer.Option("--base", help='Raw-stats target: base, "20mm", "25mm", "25x50" (default 20mm).')] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="basic, wfb8, t9a1 or a ruleset file (default: the target's edition; wfb8 for raw stats). t9a1 files with artillery = \"to_hit\" fire cannons and flame cannons as T9A 1.2+.")] = None,
    models: Annotated[Optional[int], typer.Option("--models", help="Models in the target unit (raw stats: default 10).")] = None,
    width: Annotated[Optional[int], typer.Option("--width", help="Rank width of the target unit (raw stats: default 5).")] = None,
    template: Annotated[str, typer.Option("--template", help="Stone thrower / template: small (3 in) or large (5 in).")] = "small",
    strength: Annotated[Optional[int], typer.Option("--strength", help="S of a hit (stone thrower / template: the models only touched; bolt thrower: the first model). Defaults per weapon and ruleset (docs/guide/fantasy.md).")] = None,
    big_strength: Annotated[Optional[int], typer.Option("--big-strength", help="S of the model under a template's centre (stone thrower 9) / a to-hit cannon's first hit (10) / a t9a1 flame thrower at short range (5).")] = None,
    multiple_wounds: Annotated[Optional[str], typer.Option("--multiple-wounds", help="Multiple Wounds of the big hit / cannon / bolt (defaults D6, D6, D3).")] = None,
    ap: Annotated[Optional[int], typer.Option("--ap", help="Armour piercing on top of the strength modifier (multi-barrel default 1, else 0).")] = None,
    bs: Annotated[int, typer.Option("--bs", help="Crew BS for bolt throwers, to-hit cannons and multi-barrel cannons.")] = 3,
    modifier: Annotated[int, typer.Option("--modifier", help="Sum of to-hit modifiers (e.g. -1 long range); a t9a1 volley gun ignores negative ones.")] = 0,
    aim_file: Annotated[Optional[float], typer.Option("--aim-file", help="File aimed at, 1 = left, fractions allowed (default: the middle).")] = None,
    aim_rank: Annotated[Optional[float], typer.Option("--aim-rank", help="Rank aimed at, 1 = front (templates; a flank shot's rank; default: the middle).")] = None,
    facing: Annotated[str, typer.Option("--facing", help="Cannon / bolt thrower / flame cannon: front (along a file) or flank (along a rank, --aim-rank picks it).")] = "front",
    short: Annotated[float, typer.Option("--short", help="Cannon (template rulesets): inches short of the unit's front the shot is aimed (default 4); landing exactly on the edge reaches the unit.")] = 4.0,
    muzzle: Annotated[float, typer.Option("--muzzle", help="Flame cannon (template rulesets): inches from the muzzle to the unit's front (default 6).")] = 6.0,
    scatter: Annotated[str, typer.Option("--scatter", help="Template: the scatter distance as dice text (DICE-7, default 2D6).")] = "2D6",
    short_range: Annotated[bool, typer.Option("--short-range", help="t9a1 1.2+ flame thrower: the {bracketed} short-range profile (S5, Multiple Wounds D3).")] = False,
    shots: Annotated[Optional[str], typer.Option("--shots", help="t9a1 volley gun: Multiple Shots X (nD6+k or a number; default 2D6).")] = None,
    artillery_dice: Annotated[int, typer.Option("--artillery-dice", help="wfb8 multi-barrel: 2 (organ gun) or 3 (Helblaster, low confidence).")] = 2,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """One artillery shot at a unit formation (FB-R1..R7): models hit, wounds, models slain, misfires.

    The machine's own misfire loss is p_own_destroyed; the other misfire rows follow the
    ruleset's table (p_disabled / p_malfunction / p_no_shot / p_jammed).
    """
    from mathhammer.errors import InputError
    from mathhammer.fantasy.artillery.query import Shot, artillery, compile_shot

    if artillery_dice not in (2, 3):
        raise InputError("--artillery-dice", "a multi-barrel cannon rolls 2 or 3 artillery dice",
                         artillery_dice, "use --artillery-dice 2 (organ gun) or 3 (Helblaster)")
    unit = _target(target, target_opt, toughness, wounds, save, ward, regeneration, base,
                   models, width, ruleset)
    raw = not isinstance(unit, str)
    shot = Shot(weapon, template=template, strength=strength, big_strength=big_strength,
                multiple_wounds=multiple_wounds, armour_piercing=ap, bs=bs, modifier=modifier,
                aim_file=aim_file, aim_rank=aim_rank, short=short, facing=facing, muzzle=muzzle,
                scatter=scatter, short_range=short_range, shots=shots,
                artillery_dice=artillery_dice)
    sizes = dict(models=None if raw else models, rank_width=None if raw else width)
    report = artillery(weapon, unit, ruleset=ruleset, shot=shot, method=opts.method,
                       config=opts.config(), check=opts.check, **sizes)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.fantasy.artillery.explain import explain_artillery

        setup = compile_shot(weapon, unit, ruleset=ruleset, shot=shot, **sizes)
        setup.info = report.info  # the engine filled in what it found (e.g. models per face)
        attach(report, explain_artillery(setup))
    emit(report, opts)


app.command("artillery")(artillery_command)
