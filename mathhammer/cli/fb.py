"""`mathhammer fb …` commands.

``attack``, ``shoot``, ``break-test``, ``pursuit`` and ``test`` live here (thin
wrappers over :mod:`mathhammer.fantasy`); ``combat`` and ``artillery`` are registered
on the same group from :mod:`mathhammer.cli.fb_combat`.

Saves: ``--save 5`` means a 5+ armour save. ``--save 1`` is allowed (a natural 1
still fails, so before modifiers it acts as 2+, but it soaks one more point of
Strength). ``--save 7`` (or more) is an error: for no save, omit the flag. "5+"
is accepted as well as "5".
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer import trials
from mathhammer.cli._common import CommonOptions, emit, query_command

app = typer.Typer(no_args_is_help=True, help="Warhammer Fantasy / Ninth Age: attack chains, shooting, combats, tests, artillery.")

Flag = lambda name, text: typer.Option(name, help=text)  # noqa: E731
RulesetOpt = Annotated[str, typer.Option("--ruleset", help="basic, wfb8, t9a1 or a ruleset .toml file (house rules).")]
Save = Annotated[Optional[str], typer.Option("--save", help="Armour save: 5 means 5+ (1..6; omit for none).")]
Ward = Annotated[Optional[str], typer.Option("--ward", help="Ward save, never modified (e.g. 5 for 5+).")]
Regen = Annotated[Optional[str], typer.Option("--regeneration", help="Regeneration save, taken instead of the ward if better; lost to --flaming.")]
Reroll = Optional[str]
Ap = Annotated[int, typer.Option("--ap", help="Armour piercing: extra save modifier.")]
RerollHits = Annotated[Reroll, typer.Option("--reroll-hits", help="Re-roll to hit: failed, ones or successes.")]
RerollWounds = Annotated[Reroll, typer.Option("--reroll-wounds", help="Re-roll to wound: failed, ones or successes.")]
RerollArmour = Annotated[Reroll, typer.Option("--reroll-armour", help="Re-roll armour saves: failed, ones or successes.")]
RerollWard = Annotated[Reroll, typer.Option("--reroll-ward-save", help="Re-roll ward saves only: failed, ones or successes (Divine Attacks).")]
RerollRegen = Annotated[Reroll, typer.Option("--reroll-regeneration", help="Re-roll regeneration saves only: failed, ones or successes.")]
OldRerollWard = Annotated[Reroll, typer.Option("--reroll-ward", hidden=True, help="Renamed: --reroll-ward-save / --reroll-regeneration.")]
MultipleWounds = Annotated[Optional[str], typer.Option("--multiple-wounds", help="Multiple Wounds per unsaved wound: 2, D3, D6 ... (capped at --target-wounds).")]
TargetWounds = Annotated[int, typer.Option("--target-wounds", help="Target's Wounds characteristic W.")]
TargetModels = Annotated[Optional[int], typer.Option("--target-models", help="Models in the target unit (caps the wounds).")]
Flaming = Annotated[bool, Flag("--flaming", "Flaming attacks: no regeneration.")]
AtLeast = Annotated[Optional[int], typer.Option("--at-least", help="Also report P(wounds >= K).")]
MAX_COUNT = 1000  # attacks or shots in one query
ForP = Annotated[Optional[float], typer.Option("--for-p", help="Instead: the fewest attacks (shots) whose P(at least --at-least unsaved wounds, default 1) reaches this probability, and the curve around it.")]

#: library argument names → the flags a user typed (errors name the flag)
FLAG_NAMES = {
    "ws_attacker": "--ws", "ws_defender": "--target-ws", "bs": "--bs", "strength": "--strength",
    "toughness": "--toughness", "save": "--save", "ward": "--ward", "regeneration": "--regeneration",
    "armour_piercing": "--ap", "reroll_hits": "--reroll-hits", "reroll_wounds": "--reroll-wounds",
    "reroll_armour": "--reroll-armour", "reroll_ward_save": "--reroll-ward-save",
    "reroll_regeneration": "--reroll-regeneration",
    "multiple_wounds": "--multiple-wounds", "target_wounds": "--target-wounds",
    "killing_blow": "--killing-blow", "attacks": "--attacks", "hatred": "--hatred",
}


@contextmanager
def _flag_names(extra: dict[str, str] | None = None):
    """Re-label library errors with the command-line flag that caused them."""
    from mathhammer.errors import MathhammerError

    names = {**FLAG_NAMES, **(extra or {})}
    try:
        yield
    except MathhammerError as err:
        for name, flag in names.items():
            if err.where == name:
                err.where = flag
                break
        err.args = (err.one_line(),)
        raise


def _save(text: str | None, flag: str) -> int | None:
    """'5' or '5+' → 5; validated as a printed save 1..6 (7+ = omit the flag)."""
    from mathhammer.errors import InputError

    if text is None:
        return None
    from mathhammer.numbers import shown, whole_text

    raw = text.strip().rstrip("+")
    value = whole_text(raw) if raw.isdigit() else None  # a 5,000-digit value is no save either
    if value is None:
        raise InputError(flag, "must be a save score 1..6 (5 means 5+)", shown(text),
                         f"use e.g. {flag} 5")
    if value >= 7:
        raise InputError(flag, f"{value}+ is no save at all", text, f"omit {flag} for no save")
    if value < 1:
        raise InputError(flag, "must be a save score 1..6 (5 means 5+)", text, f"use e.g. {flag} 5")
    return value


def _dice(text: str | None, flag: str) -> str | None:
    """Dice text checked here so that a typo names the flag."""
    from mathhammer.dice import parse_dice
    from mathhammer.errors import DiceExpressionError, InputError

    if text is None:
        return None
    try:
        parse_dice(text)
    except DiceExpressionError as err:
        raise InputError(flag, f"is not dice text ({err.what})", text,
                         'use e.g. "D3", "2" or "3D6kh2"') from None
    return text


def renamed_reroll_ward(value: str | None) -> None:
    """``--reroll-ward`` re-rolled ward and regeneration saves alike: renamed (issue 17)."""
    from mathhammer.errors import InputError

    if value is not None:
        raise InputError("--reroll-ward", "was renamed: it re-rolled ward and regeneration "
                         "saves alike", value, f"use --reroll-ward-save {value} (ward saves) "
                         f"and/or --reroll-regeneration {value}")


def _wounding(save, ward, regeneration, ap, reroll_hits, reroll_wounds, reroll_armour,
              reroll_ward, reroll_regeneration, poison, killing_blow, multiple_wounds,
              target_wounds, flaming) -> dict:
    """The AttackSpec fields ``fb attack`` and ``fb shoot`` share: re-rolls, wounding, saves."""
    return dict(save=_save(save, "--save"), ward=_save(ward, "--ward"),
                regeneration=_save(regeneration, "--regeneration"), armour_piercing=ap,
                reroll_hits=reroll_hits, reroll_wounds=reroll_wounds,
                reroll_armour=reroll_armour, reroll_ward_save=reroll_ward,
                reroll_regeneration=reroll_regeneration, poison=poison,
                killing_blow=killing_blow,
                multiple_wounds=_dice(multiple_wounds, "--multiple-wounds"),
                target_wounds=target_wounds, flaming=flaming)


def _explain_chain(report, spec, rules, attacks, modifier_parts=None) -> None:
    """``--explain`` of an attack or shooting chain (FB-W1's t9a1 decision where it applies)."""
    from mathhammer.explain import attach
    from mathhammer.fantasy.explain import chain_decisions, explain_attack

    attach(report, explain_attack(spec, rules, attacks, modifier_parts),
           decisions=chain_decisions(rules))


def _given(text: str | None, flag: str) -> str:
    if text is None:
        from mathhammer.errors import InputError

        raise InputError(flag, "is required (or ask --for-p P for the number needed)", None,
                         f"add e.g. {flag} 10")
    return text


def _for_p(spec, rules, count: str | None, flag: str, at_least: int | None, for_p: float,
           command: str, models: int | None = None):
    """``--for-p``: the fewest attacks (shots) with P(at least K unsaved wounds) >= for_p,
    on the target's models (``--target-models`` or the profile's) like the plain query."""
    from mathhammer.errors import InputError
    from mathhammer.fantasy.chain.query import chain_for_p

    if count is not None:
        raise InputError(flag, "is what --for-p finds: leave it out", count, f"drop {flag}")
    k = 1 if at_least is None else at_least
    if isinstance(k, bool) or not 1 <= k <= MAX_COUNT:
        raise InputError("--at-least", f"must be 1..{MAX_COUNT} with --for-p", at_least, "use e.g. --at-least 3")
    unit = "shots" if flag == "--shots" else "attacks"
    return chain_for_p(spec, rules, for_p, at_least=k, models=models, max_attacks=MAX_COUNT,
                       command=command, unit=unit)


def _attacks(text: str, flag: str) -> int | str:
    from mathhammer.errors import InputError
    from mathhammer.numbers import shown, whole_text

    text = text.strip()
    if text.lstrip("+-").isdigit():  # "-1" is a count too (a bad one), not dice text
        value = whole_text(text)  # None for 5,000 digits or "²": not a count either
        if value is None or not 1 <= value <= MAX_COUNT:
            raise InputError(flag, f"must be 1..{MAX_COUNT}", shown(text), f"use e.g. {flag} 20")
        return value
    return _dice(text, flag)


@app.command("attack")
@query_command(ask=("attacks",), files=("target", "ruleset"))  # required unless --for-p
def attack_command(
    ws: Annotated[int, typer.Option("--ws", help="Attacker's Weapon Skill (1..10).")],
    strength: Annotated[int, typer.Option("--strength", help="Strength of the attacks (1..10).")],
    target_ws: Annotated[Optional[int], typer.Option("--target-ws", help="Defender's Weapon Skill (1..10); or --target.")] = None,
    toughness: Annotated[Optional[int], typer.Option("--toughness", help="Target's Toughness (1..10); or --target.")] = None,
    target: Annotated[Optional[str], typer.Option("--target", help="Target unit: profile id or unit TOML file; its WS, T, saves, W and models replace --target-ws, --toughness, --save, --ward, --regeneration, --target-wounds, --target-models (a war machine: its crew, FB-WM1).")] = None,
    attacks: Annotated[Optional[str], typer.Option("--attacks", help="Number of attacks (or dice text, e.g. 2D6); required unless --for-p.")] = None,
    save: Save = None,
    ward: Ward = None,
    regeneration: Regen = None,
    ap: Ap = 0,
    reroll_hits: RerollHits = None,
    reroll_wounds: RerollWounds = None,
    reroll_armour: RerollArmour = None,
    reroll_ward: RerollWard = None,
    reroll_regeneration: RerollRegen = None,
    old_reroll_ward: OldRerollWard = None,
    poison: Annotated[bool, Flag("--poison", "Poisoned attacks: a natural 6 to hit wounds automatically.")] = False,
    killing_blow: Annotated[bool, Flag("--killing-blow", "wfb8 Killing Blow (slay) / t9a1 Lethal Strike on a natural 6 to wound.")] = False,
    no_kb_troop: Annotated[bool, Flag("--kb-immune", "Target is not infantry, cavalry or war beast: wfb8 Killing Blow has no effect.")] = False,
    multiple_wounds: MultipleWounds = None,
    target_wounds: TargetWounds = 1,
    target_models: TargetModels = None,
    hatred: Annotated[bool, Flag("--hatred", "Hatred: re-roll failed hits (first round).")] = False,
    always_strikes_first: Annotated[bool, Flag("--always-strikes-first", "wfb8: re-roll misses when Initiative >= the enemy's (assumed if --initiative is not given); no re-roll in basic / t9a1.")] = False,
    initiative: Annotated[Optional[int], typer.Option("--initiative", help="Attacker's Initiative (for Always Strikes First).")] = None,
    target_initiative: Annotated[Optional[int], typer.Option("--target-initiative", help="Defender's Initiative.")] = None,
    flaming: Flaming = False,
    at_least: AtLeast = None,
    for_p: ForP = None,
    ruleset: RulesetOpt = "wfb8",
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Unsaved wounds of N close-combat attacks: hit, wound, armour, ward (FB-H1..FB-V4)."""
    from mathhammer.fantasy.chain.core import AttackSpec
    from mathhammer.fantasy.chain.query import (
        against_unit, chain_report, check_characteristics, profile_target,
    )
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    renamed_reroll_ward(old_reroll_ward)
    rules = load_ruleset(ruleset)
    unit = None
    if target is not None:
        unit, (toughness, save, ward, regeneration, target_wounds, target_models) = profile_target(
            target, rules, close_combat=True, target_ws=target_ws, toughness=toughness, save=save,
            ward=ward, regeneration=regeneration,
            target_wounds=target_wounds if target_wounds != 1 else None, target_models=target_models)
        target_ws = unit.stats.ws
    else:
        from mathhammer.errors import InputError

        for flag, value in (("--target-ws", target_ws), ("--toughness", toughness)):
            if value is None:
                raise InputError(flag, "needs a target: raw stats (--target-ws, --toughness) or "
                                 "--target ID", None, "add e.g. --target-ws 3 --toughness 4, or "
                                 "--target wfb8/orc_boyz")
    check_characteristics(rules, ws=ws, target_ws=target_ws, strength=strength, toughness=toughness,
                     initiative=initiative, target_initiative=target_initiative)
    with _flag_names():
        spec = AttackSpec(
            ws=ws, target_ws=target_ws, strength=strength, toughness=toughness,
            killing_blow_applies=not no_kb_troop, hatred=hatred,
            always_strikes_first=always_strikes_first, initiative=initiative,
            target_initiative=target_initiative, close_combat=True,
            **_wounding(save, ward, regeneration, ap, reroll_hits, reroll_wounds, reroll_armour,
                        reroll_ward, reroll_regeneration, poison, killing_blow,
                        multiple_wounds, target_wounds, flaming),
        )
        if unit is not None:
            spec = against_unit(spec, unit)
        if for_p is not None:
            emit(_for_p(spec, rules, attacks, "--attacks", at_least, for_p, "fantasy.attack",
                        target_models), opts)
            return
        n_attacks = _attacks(_given(attacks, "--attacks"), "--attacks")
        report = chain_report(spec, n_attacks, rules, at_least=at_least,
                              models=target_models, method=opts.method, config=opts.config(),
                              check=opts.check, target_unit=unit)
    if opts.explain:
        _explain_chain(report, spec, rules, n_attacks)
    emit(report, opts)


@app.command("shoot")
@query_command(files=("target", "ruleset"))
def shoot_command(
    bs: Annotated[int, typer.Option("--bs", help="Shooter's Ballistic Skill (1..10).")],
    strength: Annotated[int, typer.Option("--strength", help="Strength of the shots (1..10).")],
    shots: Annotated[Optional[str], typer.Option("--shots", help="Number of shots (or dice text, e.g. 2D6); required unless --for-p.")] = None,
    toughness: Annotated[Optional[int], typer.Option("--toughness", help="Target's Toughness (1..10); or --target.")] = None,
    target: Annotated[Optional[str], typer.Option("--target", help="Target unit: profile id or unit TOML file; its T, saves, W and models replace --toughness, --save, --ward, --regeneration, --target-wounds, --target-models (a ridden monster: hits allotted to rider and monster, FB-P2).")] = None,
    modifier: Annotated[int, typer.Option("--modifier", help="Any other to-hit modifier (e.g. -1).")] = 0,
    long_range: Annotated[bool, Flag("--long-range", "Long range (-1).")] = False,
    moving: Annotated[bool, Flag("--moving", "Moved and shooting (-1).")] = False,
    cover: Annotated[Optional[str], typer.Option("--cover", help="soft (-1) or hard (-2).")] = None,
    multiple_shots: Annotated[bool, Flag("--multiple-shots", "Multiple shots (-1).")] = False,
    stand_and_shoot: Annotated[bool, Flag("--stand-and-shoot", "Stand and shoot (-1).")] = False,
    large_target: Annotated[bool, Flag("--large-target", "Large target (+1 in basic only).")] = False,
    save: Save = None,
    ward: Ward = None,
    regeneration: Regen = None,
    ap: Ap = 0,
    reroll_hits: RerollHits = None,
    reroll_wounds: RerollWounds = None,
    reroll_armour: RerollArmour = None,
    reroll_ward: RerollWard = None,
    reroll_regeneration: RerollRegen = None,
    old_reroll_ward: OldRerollWard = None,
    poison: Annotated[bool, Flag("--poison", "Poisoned: a natural 6 to hit wounds (not on 7+ shots).")] = False,
    killing_blow: Annotated[bool, Flag("--killing-blow", "t9a1 Lethal Strike (wfb8 Killing Blow has no effect when shooting).")] = False,
    multiple_wounds: MultipleWounds = None,
    target_wounds: TargetWounds = 1,
    target_models: TargetModels = None,
    flaming: Flaming = False,
    at_least: AtLeast = None,
    for_p: ForP = None,
    ruleset: RulesetOpt = "wfb8",
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Unsaved wounds of N shots, with 7+/8+/9+ to hit and every modifier (FB-H2..FB-V4)."""
    from mathhammer.fantasy.chain.core import AttackSpec
    from mathhammer.fantasy.chain.query import (
        against_unit, check_characteristics, profile_target, shoot_report, shooting_modifier,
    )
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    renamed_reroll_ward(old_reroll_ward)
    rules = load_ruleset(ruleset)
    unit = None
    if target is not None:
        unit, (toughness, save, ward, regeneration, target_wounds, target_models) = profile_target(
            target, rules, toughness=toughness, save=save, ward=ward, regeneration=regeneration,
            target_wounds=target_wounds if target_wounds != 1 else None, target_models=target_models)
    elif toughness is None:
        from mathhammer.errors import InputError

        raise InputError("--toughness", "needs a target: --toughness (raw stats) or --target ID",
                         None, "add e.g. --toughness 3 --save 5, or --target wfb8/orc_boyz")
    check_characteristics(rules, bs=bs, strength=strength, toughness=toughness)
    total = shooting_modifier(rules, modifier, long_range, moving, cover, multiple_shots,
                              stand_and_shoot, large_target)
    with _flag_names():
        spec = AttackSpec(
            bs=bs, shooting_modifier=total, strength=strength, toughness=toughness,
            close_combat=False,
            **_wounding(save, ward, regeneration, ap, reroll_hits, reroll_wounds, reroll_armour,
                        reroll_ward, reroll_regeneration, poison, killing_blow,
                        multiple_wounds, target_wounds, flaming),
        )
        if unit is not None:
            spec = against_unit(spec, unit)
        if for_p is not None:
            emit(_for_p(spec, rules, shots, "--shots", at_least, for_p, "fantasy.shoot",
                        target_models), opts)
            return
        n_shots = _attacks(_given(shots, "--shots"), "--shots")
        if unit is not None and unit.ridden_monster is not None:
            from mathhammer.fantasy.combat.target import ridden_shooting

            report = ridden_shooting(spec, n_shots, unit, rules, method=opts.method,
                                     config=opts.config(), check=opts.check)
        else:
            report = shoot_report(spec, n_shots, rules, at_least=at_least,
                                  models=target_models, method=opts.method, config=opts.config(),
                                  check=opts.check, target_unit=unit)
    if opts.explain:
        from mathhammer.fantasy.explain import shooting_modifier_parts

        _explain_chain(report, spec, rules, n_shots, shooting_modifier_parts(
            rules, modifier, long_range, moving, cover, multiple_shots, stand_and_shoot,
            large_target))
    emit(report, opts)


@app.command("break-test")
@query_command(only=("format", "output", "quiet", "explain"), files=("ruleset",))
def break_test_command(
    ld: Annotated[int, typer.Option("--ld", help="The losing unit's Leadership.")],
    lost_by: Annotated[int, typer.Option("--lost-by", help="Combat result difference.")],
    steadfast: Annotated[bool, Flag("--steadfast", "More ranks than the enemy: unmodified Ld (wfb8, t9a1).")] = False,
    stubborn: Annotated[bool, Flag("--stubborn", "Stubborn: unmodified Ld.")] = False,
    unbreakable: Annotated[bool, Flag("--unbreakable", "Unbreakable: passes.")] = False,
    reroll: Annotated[bool, Flag("--reroll", "Re-roll a failed test (e.g. battle standard).")] = False,
    ruleset: RulesetOpt = "wfb8",
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """P(passing a break test): 2D6 <= Ld - difference (FB-C5, FB-T2)."""
    from mathhammer.fantasy.characteristic_tests import break_test_report

    report = break_test_report(ld, lost_by, ruleset, steadfast, stubborn, unbreakable, reroll)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.fantasy.explain import explain_break_test

        attach(report, explain_break_test(ld, lost_by, ruleset, steadfast, stubborn, unbreakable,
                                          reroll))
    emit(report, opts)


@app.command("pursuit")
@query_command(only=("format", "output", "quiet", "explain"))
def pursuit_command(
    flee: Annotated[str, typer.Option("--flee", help="Flee roll: 2D6, or 3D6kh2 for Swiftstride.")] = "2D6",
    pursue: Annotated[str, typer.Option("--pursue", help="Pursuit roll: 2D6, or 3D6kh2 for Swiftstride.")] = "2D6",
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """P(the fleeing unit is caught): pursuit >= flee (FB-C6)."""
    from mathhammer.fantasy.characteristic_tests import pursuit_report

    _dice(flee, "--flee")
    _dice(pursue, "--pursue")
    report = pursuit_report(flee, pursue)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.fantasy.explain import explain_pursuit

        attach(report, explain_pursuit(flee, pursue))
    emit(report, opts)


#: every probability to ±0.2 percentage points (95%); a test holds it equal to the engine's
TURN_TRIALS = trials.TURN

TURN_HELP = """Whole game turns: rally, charge, shooting and missiles, combat (FB-G5), by turn.

From a kind = "turn" scenario file, or without one from --unit-a (the charger), --unit-b
(the charged unit), --distance, and optionally --turns, --reaction and the rest; units
take characters as in fb combat (UNIT+CHARACTER[:general][:bsb]); --stand-and-shoot makes
stand-and-shoot the reaction unless --reaction says otherwise. E.g.

\b
  fb turn --unit-a wfb8/knights_of_the_realm --unit-b wfb8/orc_boyz --distance 14
  fb turn --unit-a wfb8/knights_of_the_realm --unit-b wfb8/orc_boyz --distance 14 \\
      --stand-and-shoot "shots=10,bs=3,strength=3" \\
      --fire "a:Crossbows:shots=10,bs=3,strength=4"

Monte Carlo by default, with enough trials for every probability to ±0.2 percentage
points (95%); --precision sets another target, --method exact sums every state.
"""

#: the library's parameter names, as this command spells them
_TURN_FLAGS = {"unit_a": "--unit-a", "unit_b": "--unit-b", "distance": "--distance",
               "reaction": "--reaction", "turns": "--turns", "models_a": "--models-a",
               "models_b": "--models-b", "width_a": "--width-a", "width_b": "--width-b",
               "edge": "--edge", "charge_turn": "--charge-turn",
               "stand_and_shoot": "--stand-and-shoot", "fire": "--fire", "ruleset": "--ruleset"}


@app.command("turn", help=TURN_HELP)
@query_command(trials=TURN_TRIALS, ask=("unit_a", "unit_b", "distance", "reaction", "turns"),
               files=("unit_a", "unit_b", "ruleset"))
def turn_command(
    scenario: Annotated[Optional[Path], typer.Argument(help='A kind = "turn" scenario file ([a] charges [b]); or leave out and give the units.')] = None,
    unit_a: Annotated[Optional[str], typer.Option("--unit-a", help="Unit A, the charger: a profile id or unit file.")] = None,
    unit_b: Annotated[Optional[str], typer.Option("--unit-b", help="Unit B, the charged unit.")] = None,
    distance: Annotated[Optional[float], typer.Option("--distance", help="Inches from A to B at the start.")] = None,
    reaction: Annotated[Optional[str], typer.Option("--reaction", help="hold (default), flee or stand-and-shoot (FB-G2).")] = None,
    turns: Annotated[Optional[int], typer.Option("--turns", help="Game turns, 1..8 (default 3).")] = None,
    models_a: Annotated[Optional[int], typer.Option("--models-a", help="Models in unit A (default: the profile's formation).")] = None,
    models_b: Annotated[Optional[int], typer.Option("--models-b", help="Models in unit B.")] = None,
    width_a: Annotated[Optional[int], typer.Option("--width-a", help="Rank width of unit A.")] = None,
    width_b: Annotated[Optional[int], typer.Option("--width-b", help="Rank width of unit B.")] = None,
    edge: Annotated[Optional[float], typer.Option("--edge", help="Inches from each unit to its own table edge at the start (default 12): a flight reaching it leaves the table (FB-G4).")] = None,
    charge_turn: Annotated[Optional[int], typer.Option("--charge-turn", help="A's first game turn that may charge (default 1).")] = None,
    stand_and_shoot: Annotated[Optional[str], typer.Option("--stand-and-shoot", help='B\'s shots at the charger with --reaction stand-and-shoot: "shots=10,bs=3,strength=3" (also armour_piercing, modifier, multiple_wounds).')] = None,
    fire: Annotated[Optional[list[str]], typer.Option("--fire", help='Shooting or a magic missile each turn, repeatable: "a:Crossbows:shots=10,bs=3,strength=4", or a missile "a:Fireball:shots=D6,strength=4,cast_dice=2,casting_value=5,level=1".')] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="Without a file: basic, wfb8, t9a1 or a ruleset file (default: the profiles' edition).")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    from mathhammer.errors import InputError

    given = {name: value for name, value in (
        ("unit_a", unit_a), ("unit_b", unit_b), ("distance", distance), ("reaction", reaction),
        ("turns", turns), ("models_a", models_a), ("models_b", models_b), ("width_a", width_a),
        ("width_b", width_b), ("edge", edge), ("charge_turn", charge_turn),
        ("stand_and_shoot", stand_and_shoot), ("fire", fire), ("ruleset", ruleset))
        if value not in (None, [])}
    if scenario is not None:
        if given:
            name = next(iter(given))
            raise InputError(_TURN_FLAGS[name], "describes turns without a file; the scenario "
                             "file gives its own", given[name], f"drop {scenario} or the options")
        from mathhammer.fantasy.scenario import run_turns
        from mathhammer.profiles import read_toml

        report = run_turns(read_toml(scenario), str(scenario), method=opts.method,
                           config=opts.config(), check=opts.check)
        emit(report, opts)
        return
    if not given:
        raise InputError("SCENARIO", "game turns need a scenario file or the units and the "
                         "distance", None, "e.g. fb turn profiles/scenarios/fantasy_turns_"
                         "knights_vs_orcs.toml, or --unit-a wfb8/knights_of_the_realm "
                         "--unit-b wfb8/orc_boyz --distance 14")
    for name in ("unit_a", "unit_b", "distance"):
        if name not in given:
            raise InputError(_TURN_FLAGS[name], "is needed without a scenario file", None,
                             "e.g. --unit-a wfb8/knights_of_the_realm --unit-b wfb8/orc_boyz "
                             "--distance 14")
    from mathhammer.fantasy.scenario import turn_from_options

    with _flag_names(_TURN_FLAGS):
        report = turn_from_options(
            unit_a, unit_b, distance=distance, turns=3 if turns is None else turns,
            reaction=reaction, models=(models_a, models_b), widths=(width_a, width_b),
            edge=12.0 if edge is None else edge, charge_turn=1 if charge_turn is None else charge_turn,
            stand_and_shoot=stand_and_shoot, fire=tuple(fire or ()), ruleset=ruleset,
            method=opts.method, config=opts.config(), check=opts.check)
    emit(report, opts)


@app.command("charge")
@query_command(only=("format", "output", "quiet", "explain"), files=("unit", "target", "ruleset"))
def charge_command(
    distance: Annotated[float, typer.Option("--distance", help="Inches from the charger to the charged unit.")],
    movement: Annotated[Optional[int], typer.Option("--movement", help="The charger's Movement M (or --unit; given with --unit, it overrides the profile's).")] = None,
    reaction: Annotated[str, typer.Option("--reaction", help="The charged unit's reaction: hold, stand-and-shoot or flee (FB-G2).")] = "hold",
    swiftstride: Annotated[Optional[bool], typer.Option("--swiftstride/--no-swiftstride", help="The charger has (not) Swiftstride: 3D6, the best two (FB-G1); overrides --unit's.")] = None,
    target_movement: Annotated[Optional[int], typer.Option("--target-movement", help="The charged unit's M: no stand and shoot at a charger starting within it (FB-G2); overrides --target's.")] = None,
    target_swiftstride: Annotated[Optional[bool], typer.Option("--target-swiftstride/--no-target-swiftstride", help="The fleeing unit has (not) Swiftstride: it flees 3D6, the best two; overrides --target's.")] = None,
    unit: Annotated[Optional[str], typer.Option("--unit", help="The charger's profile id or unit file: its M (its mount's M when mounted) and Swiftstride. --movement / --(no-)swiftstride given as well override it.")] = None,
    target: Annotated[Optional[str], typer.Option("--target", help="The charged unit's profile id or unit file: its M and Swiftstride (for --reaction flee / stand-and-shoot). --target-movement / --(no-)target-swiftstride override it.")] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="basic, wfb8, t9a1 or a ruleset .toml file (default: the profiles' edition, else wfb8).")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """P(a charge reaches), or catches a fleeing unit: M + 2D6 against the distance (FB-G1..G3)."""
    from mathhammer.fantasy.charge import charge_report, explain_charge

    report = charge_report(distance, movement, ruleset, swiftstride=swiftstride,
                           reaction=reaction, target_movement=target_movement,
                           target_swiftstride=target_swiftstride, unit=unit, target=target)
    if opts.explain:
        from mathhammer.explain import attach

        attach(report, explain_charge(report))
    emit(report, opts)


@app.command("test")
@query_command(only=("format", "output", "quiet", "explain"), files=("ruleset",))
def test_command(
    value: Annotated[Optional[int], typer.Option("--value", help="D6 characteristic test against this value (FB-T1).")] = None,
    ld: Annotated[Optional[int], typer.Option("--ld", help="2D6 Leadership test against this value (FB-T2).")] = None,
    magic_resistance: Annotated[Optional[int], typer.Option("--magic-resistance", help="basic: D20 magic resistance 1..4; wfb8/t9a1: ward bonus vs spells (FB-T3).")] = None,
    ward: Ward = None,
    reroll: Annotated[bool, Flag("--reroll", "Re-roll a failed test.")] = False,
    dangerous_terrain: Annotated[Optional[int], typer.Option("--dangerous-terrain", help="Dangerous terrain test for N models: models lost and wounds (FB-T4).")] = None,
    terrain_value: Annotated[int, typer.Option("--terrain-value", help="t9a1 Dangerous Terrain (X): a die at most X fails (wfb8/basic: a 1).")] = 1,
    height: Annotated[str, typer.Option("--height", help="Dangerous terrain: standard, large or gigantic (t9a1 rolls 1, 2 or 3 dice).")] = "standard",
    chariot: Annotated[bool, Flag("--chariot", "Dangerous terrain: the models are chariots (wfb8 D6 wounds, t9a1 +1 die).")] = False,
    wounds: Annotated[int, typer.Option("--wounds", help="Dangerous terrain: Wounds of each model.")] = 1,
    ruleset: RulesetOpt = "wfb8",
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """P(passing) a characteristic test (D6), a Leadership test (2D6), magic resistance, or a dangerous terrain test."""
    if dangerous_terrain is not None:
        if any(v is not None for v in (value, ld, magic_resistance)) or reroll:
            from mathhammer.errors import InputError

            raise InputError("--dangerous-terrain", "is its own test: leave out --value, --ld, "
                             "--magic-resistance and --reroll", dangerous_terrain,
                             "ask one test per command")
        from mathhammer.fantasy.terrain import dangerous_terrain as terrain_report
        from mathhammer.fantasy.terrain import explain_dangerous_terrain

        args = (dangerous_terrain, terrain_value, height, chariot, wounds, _save(ward, "--ward"), ruleset)
        report = terrain_report(*args)
        if opts.explain:
            from mathhammer.explain import attach

            attach(report, explain_dangerous_terrain(*args))
        emit(report, opts)
        return
    from mathhammer.fantasy.characteristic_tests import fantasy_test_report

    report = fantasy_test_report(value, ld, reroll, magic_resistance, _save(ward, "--ward"), ruleset)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.fantasy.explain import explain_test

        attach(report, explain_test(value, ld, reroll, magic_resistance, _save(ward, "--ward"),
                                    ruleset))
    emit(report, opts)
