"""`mathhammer wm …` commands: thin wrappers over ``mathhammer.warmachine``.

``attack`` and ``aoe`` live here; ``duel`` is appended at the end of the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer.cli._common import (
    Check, Format, Method, NTrials, OutputPath, PlotPath, Precision, Quiet, Seed, Threads,
    common_options, emit,
)

app = typer.Typer(no_args_is_help=True, help="Warmachine Mk II: attacks, duels with the warjack grid and focus policies, AOE.")

Flag = lambda name, text: typer.Option(name, help=text)  # noqa: E731


def attack_command(
    stat: Annotated[int, typer.Option("--stat", help="MAT (melee), RAT (ranged) or FOCUS (magic).")],
    defense: Annotated[int, typer.Option("--defense", help="Target's base DEF (at least 1).")],
    power: Annotated[int, typer.Option("--power", help="P+S for melee, POW for ranged and magic.")],
    armor: Annotated[int, typer.Option("--armor", help="Target's base ARM.")],
    kind: Annotated[str, typer.Option("--kind", help="melee, ranged or magic.")] = "melee",
    boost_hit: Annotated[bool, Flag("--boost-hit", "Boost every attack roll (+1 die).")] = False,
    boost_damage: Annotated[bool, Flag("--boost-damage", "Boost every damage roll (+1 die).")] = False,
    attacks: Annotated[int, typer.Option("--attacks", help="Number of identical attacks.")] = 1,
    modifier: Annotated[int, typer.Option("--modifier", help="Any other attack-roll modifier.")] = 0,
    crippled: Annotated[bool, Flag("--crippled", "The weapon's system is crippled: -1 die to hit and damage.")] = False,
    charge: Annotated[bool, Flag("--charge", "First attack is a charge attack: damage pre-boosted (WM-D3).")] = False,
    powerful_charge: Annotated[bool, Flag("--powerful-charge", "Powerful Charge: +2 to the charge attack roll.")] = False,
    free_strike: Annotated[bool, Flag("--free-strike", "One free strike: +2 to hit, damage pre-boosted.")] = False,
    knocked_down: Annotated[bool, Flag("--knocked-down", "Target knocked down: melee hits automatically, ranged/magic vs DEF 5.")] = False,
    stationary: Annotated[bool, Flag("--stationary", "Target stationary: as knocked down.")] = False,
    movement_crippled: Annotated[bool, Flag("--movement-crippled", "Target's movement system crippled: DEF 7.")] = False,
    back_strike: Annotated[bool, Flag("--back-strike", "+2 to hit; ignores the target's shield.")] = False,
    aim: Annotated[bool, Flag("--aim", "Aiming: +2 to hit (ranged).")] = False,
    target_in_melee: Annotated[bool, Flag("--target-in-melee", "-4 to hit (ranged and magic).")] = False,
    slam_larger_base: Annotated[bool, Flag("--slam-larger-base", "Slam against a larger base: -2 to hit.")] = False,
    cover: Annotated[bool, Flag("--cover", "Target in cover: +4 DEF vs ranged/magic.")] = False,
    concealment: Annotated[bool, Flag("--concealment", "Target in concealment: +2 DEF vs ranged/magic (not with cover).")] = False,
    elevated: Annotated[bool, Flag("--elevated", "Target elevated: +2 DEF vs ranged/magic.")] = False,
    def_bonus: Annotated[int, typer.Option("--def-bonus", help="DEF from spells or effects (e.g. 3 for Blur).")] = 0,
    shield: Annotated[bool, Flag("--shield", "Target has a shield: +2 ARM (not vs back strikes).")] = False,
    camped_focus: Annotated[int, typer.Option("--camped-focus", help="Warcaster's unspent focus: +1 ARM each.")] = 0,
    arm_bonus: Annotated[int, typer.Option("--arm-bonus", help="ARM from spells or feats (Arcane Shield 3, Invincibility 5).")] = 0,
    stealth_range: Annotated[Optional[float], typer.Option("--stealth-range", help="Target has Stealth; attacker this many inches away (ranged/magic miss beyond 5\").")] = None,
    extra_hit_die: Annotated[int, typer.Option("--extra-hit-die", help="Extra attack dice from effects.")] = 0,
    extra_damage_die: Annotated[int, typer.Option("--extra-damage-die", help="Extra damage dice (e.g. 1 for Weapon Master).")] = 0,
    boxes: Annotated[Optional[int], typer.Option("--boxes", help="Damage boxes left: also report P(destroyed).")] = None,
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
    """P(hit), damage distribution and P(destroyed) of n attacks (WM-A1..A8, WM-D1..D3)."""
    from mathhammer.warmachine.chain import attack

    opts = common_options(method=method, n_trials=n_trials, seed=seed, precision=precision,
                          threads=threads, format=format, plot=plot, output=output, check=check,
                          quiet=quiet)
    if opts.precision is not None and opts.method == "auto":
        opts.method = "mc"
    report = attack(
        stat, defense, power, armor, method=opts.method, config=opts.config(), check=opts.check,
        kind=kind, boost_hit=boost_hit, boost_damage=boost_damage, attacks=attacks,
        modifier=modifier, crippled=crippled, charge=charge, powerful_charge=powerful_charge,
        free_strike=free_strike, knocked_down=knocked_down, stationary=stationary,
        movement_crippled=movement_crippled, back_strike=back_strike, aim=aim,
        target_in_melee=target_in_melee, slam_larger_base=slam_larger_base, cover=cover,
        concealment=concealment, elevated=elevated, def_bonus=def_bonus, shield=shield,
        camped_focus=camped_focus, arm_bonus=arm_bonus, stealth_range=stealth_range,
        extra_hit_dice=extra_hit_die, extra_damage_dice=extra_damage_die, boxes=boxes)
    emit(report, opts)


app.command("attack")(attack_command)


# ---------------------------------------------------------------------------- aoe (below)
