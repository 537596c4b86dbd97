"""`mathhammer magic …` commands."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command

app = typer.Typer(no_args_is_help=True, help="Magic phase: flow, casting, dispelling, whole phases.")

Ruleset = Annotated[str, typer.Option("--ruleset", help="t9a1 (seed 004, default), wfb8, or a ruleset .toml path.")]


@app.command("flow")
@query_command(only=("format", "plot", "output", "quiet", "explain"), files=("ruleset",))
def flow_command(
    ruleset: Ruleset = "t9a1",
    channelers: Annotated[int, typer.Option("--channelers", help="Active player's models with Channel (every wizard).")] = 0,
    reactive_channelers: Annotated[int, typer.Option("--reactive-channelers", help="Reactive player's models with Channel.")] = 0,
    extra_power: Annotated[int, typer.Option("--extra-power", help="Power dice from other sources (count against the t9a1 +2 limit).")] = 0,
    extra_dispel: Annotated[int, typer.Option("--extra-dispel", help="Dispel dice from other sources.")] = 0,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Power and dispel dice after the flow roll, channel and caps (MG-1..MG-3), exact.

    Power = the 2D6 total, dispel = the higher die. t9a1: each side rolls D6 + channelers,
    7+ adds a die, at most 2 extra dice per side; wfb8: each wizard's 6 adds a die.
    Pools are capped at 12.
    """
    from mathhammer.magic.single import flow

    report = flow(ruleset, channelers, reactive_channelers, extra_power, extra_dispel)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.magic.explain import explain_flow, flow_decisions
        from mathhammer.magic.rules import magic_rules

        attach(report, explain_flow(magic_rules(ruleset), channelers, reactive_channelers,
                                    extra_power, extra_dispel), decisions=flow_decisions(ruleset))
    emit(report, opts)


@app.command("cast")
@query_command(files=("ruleset",))
def cast_command(
    dice: Annotated[int, typer.Option("--dice", help="Power dice used (t9a1 1-5, wfb8 1-6).")],
    cv: Annotated[int, typer.Option("--cv", help="Casting value (bound spells: the power level), at least 2.")],
    level: Annotated[int, typer.Option("--level", help="Wizard level (ignored for --bound).")] = 0,
    ruleset: Ruleset = "t9a1",
    modifier: Annotated[int, typer.Option("--modifier", help="Other casting modifiers.")] = 0,
    bound: Annotated[bool, typer.Option("--bound", help="Bound spell: no level, no overwhelming bonus, never miscasts (MG-7).")] = False,
    dispel_dice: Annotated[Optional[int], typer.Option("--dispel-dice", help="Against one dispel attempt with N dice: adds p_goes_off (cast and not dispelled) and p_dispelled (MG-6).")] = None,
    dispel_level: Annotated[int, typer.Option("--dispel-level", help="Level of the dispelling wizard, added to the dispel roll (0 = the army; with --dispel-dice).")] = 0,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """One casting attempt (exact by default; --method mc / --check): p_cast, p_two_sixes, p_miscast, casting_total (MG-4, MG-5, MG-10).

    p_cast counts every way the spell is cast (irresistible / overwhelming included);
    p_two_sixes = two or more natural 6s (wfb8 irresistible force, t9a1 overwhelming power); p_miscast assumes it is not dispelled
    (with --dispel-dice: with that attempt);
    casting_total = totals of the casts without two 6s (given such a cast).
    --dispel-dice N [--dispel-level L]: p_goes_off = P(cast and not dispelled) by N dice (irresistible force cannot be dispelled).
    """
    from mathhammer.magic.single import cast

    if opts.precision is not None and opts.method == "auto":
        opts.method = "mc"
    report = cast(dice, level, cv, ruleset, modifier, bound, method=opts.method,
                  config=opts.config(), check=opts.check, dispel_dice=dispel_dice,
                  dispel_level=dispel_level)
    if opts.explain:  # exact fractions even when the answer was Monte Carlo
        from mathhammer.explain import attach
        from mathhammer.magic.explain import explain_cast
        from mathhammer.magic.rules import magic_rules

        attach(report, explain_cast(magic_rules(ruleset), dice, level, cv, modifier, bound,
                                    dispel_dice, dispel_level))
    emit(report, opts)


@app.command("dispel")
@query_command(only=("method", "n_trials", "seed", "precision", "threads", "check", "format", "output", "quiet", "explain"),
               files=("ruleset",))
def dispel_command(
    dice: Annotated[int, typer.Option("--dice", help="Dispel dice used.")],
    against: Annotated[int, typer.Option("--against", help="The casting total to equal or beat.")],
    level: Annotated[int, typer.Option("--level", help="Level of the dispelling wizard (0 = the army).")] = 0,
    ruleset: Ruleset = "t9a1",
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """One dispel attempt: p_dispel (MG-6; t9a1 overwhelming power on dispels, MG-5). Exact by default."""
    from mathhammer.magic.single import dispel

    if opts.precision is not None and opts.method == "auto":
        opts.method = "mc"
    report = dispel(dice, level, against, ruleset, method=opts.method, config=opts.config(),
                    check=opts.check)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.magic.explain import explain_dispel
        from mathhammer.magic.rules import magic_rules

        attach(report, explain_dispel(magic_rules(ruleset), dice, level, against))
    emit(report, opts)


PHASE_HELP = """A whole magic phase (MG-1..MG-10), from a scenario TOML or from --spell
options; Monte Carlo by default.

Prints p_goes_off_<i> for every spell in file (or --spell) order (1-based), p_miscast,
and the distributions spells_through, power_dice_left, dispel_dice_left.

Without a file: one wizard of --level casts the --spell spells in the order given
against a dispeller of --dispel-level, e.g.

\b
  magic phase --spell "Fireball:8" --spell "Hex:11" --level 2 --dispel-level 1

The pools come from the flow roll (channelers: the wizard, --reactive-channelers 0)
unless --power-dice and --dispel-dice fix them; every other key takes the scenario
file's default.

Caster dice rules (scenario `dice_rule`, or --dice-rule): "fixed" (each spell's `dice`;
with --spell "NAME:CV:DICE"), "target" (fewest dice whose chance to cast reaches
`target`), "optimal" (the dice for each spell chosen when it is cast, by exact dynamic
programming, to maximise the expected total `weight` of spells that go off against the
dispel policy). Spells are cast in order of `priority`, highest first (ties: file order).

Dispel policies (scenario `[dispel] policy`): "all_out" (try every spell), "threshold"
(only spells with priority >= `min_priority`), "keep_dice" (never go below `keep`
dice, except for spells with priority >= `min_priority`). Each attempt uses the
fewest dice whose chance reaches `confidence` (default 0.85), else all it may use.
--method exact computes the phase exactly (small scenarios); --check runs both.
"""

#: the library's parameter names in error lines, as the command line spells them
_PHASE_OPTIONS = ("spell", "level", "dispel_level", "power_dice", "dispel_dice", "ruleset",
                  "dice_rule", "target", "channelers", "reactive_channelers")


@app.command("phase", help=PHASE_HELP)
@query_command(files=("ruleset",))
def phase_command(
    scenario: Annotated[Optional[Path], typer.Argument(help="Scenario TOML file (see docs/guide/magic.md, profiles/scenarios/magic_*.toml); leave out to give the spells as --spell options.")] = None,
    spell: Annotated[Optional[list[str]], typer.Option("--spell", help='A spell of the phase without a file: "NAME:CASTING_VALUE[:DICE][:bound]" (a bound spell\'s value is its power level; DICE for the fixed dice rule, on every spell or none). Repeatable; cast in the order given.')] = None,
    level: Annotated[Optional[int], typer.Option("--level", help="With --spell: the casting wizard's level (0-10).")] = None,
    dispel_level: Annotated[Optional[int], typer.Option("--dispel-level", help="With --spell: the dispelling wizard's level (0 = the army, no wizard; default 0).")] = None,
    power_dice: Annotated[Optional[int], typer.Option("--power-dice", help="With --spell: a fixed pool of power dice instead of the flow roll (with --dispel-dice).")] = None,
    dispel_dice: Annotated[Optional[int], typer.Option("--dispel-dice", help="With --spell: a fixed pool of dispel dice (with --power-dice).")] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="With --spell: t9a1 (seed 004, default), wfb8, or a ruleset .toml path.")] = None,
    dice_rule: Annotated[Optional[str], typer.Option("--dice-rule", help="With --spell: target (default; fewest dice reaching --target) or optimal; fixed when the spells give DICE.")] = None,
    target: Annotated[Optional[float], typer.Option("--target", help="With --spell and the target rule: the chance to cast each spell should reach (default 0.75).")] = None,
    channelers: Annotated[Optional[int], typer.Option("--channelers", help="With --spell: the caster's models with Channel (default: 1, the wizard; 0 for bound spells only).")] = None,
    reactive_channelers: Annotated[Optional[int], typer.Option("--reactive-channelers", help="With --spell: the reactive player's models with Channel (default 0).")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    from mathhammer.errors import InputError
    from mathhammer.magic.models import load_scenario, scenario_from_options
    from mathhammer.magic.scenario import run_phase

    given = {name: value for name, value in zip(_PHASE_OPTIONS, (
        spell, level, dispel_level, power_dice, dispel_dice, ruleset, dice_rule, target,
        channelers, reactive_channelers), strict=True) if value not in (None, [])}
    if scenario is not None:
        if given:
            name = next(iter(given))
            raise InputError(_flag(name), "builds a phase without a file; the scenario file "
                             "gives its own", given[name], f"drop {scenario} or the options")
        from mathhammer.profiles import read_toml

        model = load_scenario(read_toml(scenario), str(scenario))
    elif not spell:
        raise InputError("SCENARIO", "a phase needs a scenario file or its spells", None,
                         'e.g. magic phase profiles/scenarios/magic_t9a1_four_spells.toml, '
                         'or --spell "Fireball:8" --level 2')
    else:
        with _option_names():
            model = scenario_from_options(
                spell, level=level, dispel_level=dispel_level or 0,
                ruleset=ruleset or "t9a1", power_dice=power_dice, dispel_dice=dispel_dice,
                channelers=channelers, reactive_channelers=reactive_channelers or 0,
                dice_rule=dice_rule, target=target)
    with _option_names() if scenario is None else contextlib.nullcontext():
        report = run_phase(model, method=opts.method, config=opts.config(), check=opts.check)
    if opts.explain:  # the policies played, no fractions (a phase is path dependent)
        from mathhammer.explain import attach
        from mathhammer.magic.explain import explain_phase, flow_decisions

        attach(report, explain_phase(model), decisions=flow_decisions(
            model.ruleset, flow_rolled=model.flow.power_dice is None))
    emit(report, opts)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


@contextlib.contextmanager
def _option_names():
    """A library error about a phase parameter names the option that set it."""
    from mathhammer.errors import MathhammerError

    try:
        yield
    except MathhammerError as err:
        if err.where in _PHASE_OPTIONS:
            err.where = _flag(err.where)
            err.args = (err.one_line(),)
        raise


@app.command("optimise")
@query_command(only=("format", "output", "quiet", "explain"))
def optimise_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (as for magic phase).")],
    power: Annotated[Optional[int], typer.Option("--power", help="Power dice to split (default: the scenario's power_dice).")] = None,
    dispel: Annotated[Optional[int], typer.Option("--dispel", help="Dispel dice of the opponent (default: the scenario's dispel_dice).")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Dice-budget optimiser (MG-9), exact: the split of the power dice over the spells that
    maximises the expected total weight of spells that go off against the scenario's
    dispel policy; also the value of choosing dice as each spell is cast ("optimal" rule)
    and of the scenario's own dice rule. Remains-in-play spells from [[in_play]] are ignored.
    """
    from mathhammer.magic.models import load_scenario
    from mathhammer.magic.optimise import optimise
    from mathhammer.profiles import read_toml

    model = load_scenario(read_toml(scenario), str(scenario))
    report = optimise(model, power, dispel)
    if opts.explain:  # fixed pools: no flow roll, so no MG-1
        from mathhammer.explain import attach
        from mathhammer.magic.explain import explain_optimise

        attach(report, explain_optimise(model, power, dispel))
    emit(report, opts)
