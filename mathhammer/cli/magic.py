"""`mathhammer magic …` commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command

app = typer.Typer(no_args_is_help=True, help="Magic phase: flow, casting, dispelling, whole phases.")

Ruleset = Annotated[str, typer.Option("--ruleset", help="t9a1 (seed 004, default), wfb8, or a ruleset .toml path.")]


@app.command("flow")
@query_command(only=("format", "plot", "output", "quiet", "explain"))
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
@query_command
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
@query_command(only=("method", "n_trials", "seed", "precision", "threads", "check", "format", "output", "quiet", "explain"))
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


PHASE_HELP = """A whole magic phase from a scenario TOML (MG-1..MG-10); Monte Carlo by default.

Prints p_goes_off_<i> for every spell in file order (1-based), p_miscast, and the
distributions spells_through, power_dice_left, dispel_dice_left.

Caster dice rules (scenario `dice_rule`): "fixed" (each spell's `dice`), "target"
(fewest dice whose chance to cast reaches `target`), "optimal" (the dice for each
spell chosen when it is cast, by exact dynamic programming, to maximise the
expected total `weight` of spells that go off against the dispel policy).
Spells are cast in order of `priority`, highest first (ties: file order).

Dispel policies (scenario `[dispel] policy`): "all_out" (try every spell), "threshold"
(only spells with priority >= `min_priority`), "keep_dice" (never go below `keep`
dice, except for spells with priority >= `min_priority`). Each attempt uses the
fewest dice whose chance reaches `confidence` (default 0.85), else all it may use.
--method exact computes the phase exactly (small scenarios); --check runs both.
"""


@app.command("phase", help=PHASE_HELP)
@query_command
def phase_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (see README, profiles/scenarios/magic_*.toml).")],
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    from mathhammer.magic.scenario import run_scenario
    from mathhammer.profiles import read_toml

    data = read_toml(scenario)
    report = run_scenario(data, str(scenario), method=opts.method, config=opts.config(),
                          check=opts.check)
    if opts.explain:  # the policies played, no fractions (a phase is path dependent)
        from mathhammer.explain import attach
        from mathhammer.magic.explain import explain_phase, flow_decisions
        from mathhammer.magic.models import load_scenario

        model = load_scenario(data, str(scenario))
        attach(report, explain_phase(model), decisions=flow_decisions(
            model.ruleset, flow_rolled=model.flow.power_dice is None))
    emit(report, opts)


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
