"""`mathhammer wm …` commands: thin wrappers over ``mathhammer.warmachine``.

``attack`` and ``aoe`` live here; ``duel`` is appended at the end of the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, emit, query_command

app = typer.Typer(no_args_is_help=True, help="Warmachine Mk II: attacks, duels with the warjack grid and focus policies, AOE.")

Flag = lambda name, text: typer.Option(name, help=text)  # noqa: E731


@query_command(files=("grid",))
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
    distance: Annotated[Optional[float], typer.Option("--distance", help="Inches to the target: a ranged or magic attack beyond --rng, or at a --stealth target from more than 5\", misses (WM-A8).")] = None,
    rng: Annotated[Optional[float], typer.Option("--rng", help="The weapon's or spell's RNG in inches (with --distance).")] = None,
    stealth: Annotated[bool, Flag("--stealth", "Target has Stealth: ranged and magic attacks from more than 5\" (--distance) miss.")] = False,
    stealth_range: Annotated[Optional[float], typer.Option("--stealth-range", help="Shorthand for --stealth --distance D.")] = None,
    extra_hit_die: Annotated[int, typer.Option("--extra-hit-die", help="Extra attack dice from effects.")] = 0,
    extra_damage_die: Annotated[int, typer.Option("--extra-damage-die", help="Extra damage dice from effects.")] = 0,
    weapon_master: Annotated[bool, Flag("--weapon-master", "Weapon Master: +1 damage die (WM-D1).")] = False,
    boxes: Annotated[Optional[int], typer.Option("--boxes", help="Damage boxes left: also report P(destroyed).")] = None,
    for_p: Annotated[Optional[float], typer.Option("--for-p", help="Instead: the fewest attacks whose P(destroyed) (with --boxes) — or P(a system crippled), with --cripple and --grid — reaches this probability, and the curve around it.")] = None,
    cripple: Annotated[Optional[str], typer.Option("--cripple", help="With --for-p and --grid: the goal is crippling this system (L R H A C M, or left, right, head, arc, cortex, movement) instead of destroying (WM-G3).")] = None,
    grid: Annotated[Optional[str], typer.Option("--grid", help='With --for-p --cripple: the target\'s damage grid, a profile id or TOML path (cygnar/ironclad) or six columns "--L,--LLM,---MM,---CC,--RRC,--R"; the attacks mark it from a d6 column each (WM-G2), a crippled M sets DEF 7 for the next attacks and, with --shield and a profile, a crippled shield system drops the +2 ARM (WM-G4).')] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """P(hit), damage distribution and P(destroyed) of n attacks (WM-A1..A8, WM-D1..D3)."""
    import functools

    from mathhammer.warmachine.chain import attack

    if opts.precision is not None and opts.method == "auto":
        opts.method = "mc"
    query = functools.partial(
        attack, stat, defense, power, armor, check=opts.check, kind=kind, boost_hit=boost_hit,
        boost_damage=boost_damage,
        modifier=modifier, crippled=crippled, charge=charge, powerful_charge=powerful_charge,
        free_strike=free_strike, knocked_down=knocked_down, stationary=stationary,
        movement_crippled=movement_crippled, back_strike=back_strike, aim=aim,
        target_in_melee=target_in_melee, slam_larger_base=slam_larger_base, cover=cover,
        concealment=concealment, elevated=elevated, def_bonus=def_bonus, shield=shield,
        camped_focus=camped_focus, arm_bonus=arm_bonus, stealth_range=stealth_range,
        stealth=stealth, distance=distance, rng=rng, weapon_master=weapon_master,
        extra_hit_dice=extra_hit_die, extra_damage_dice=extra_damage_die, boxes=boxes)
    from mathhammer.errors import InputError

    if (cripple is not None or grid is not None) and for_p is None:
        raise InputError("--cripple" if cripple is not None else "--grid", "goes with --for-p: "
                         "the fewest attacks that cripple a system", cripple or grid,
                         "add --for-p 0.5, or ask wm duel for P(crippled)")
    if for_p is not None and (cripple is not None or grid is not None):
        from mathhammer.warmachine.chain import attacks_to_cripple

        if cripple is None or grid is None:
            raise InputError("--grid" if grid is None else "--cripple", "--for-p --cripple asks "
                             "for a system crippled on a damage grid: give both --cripple and "
                             "--grid", cripple or grid,
                             "add e.g. --cripple M --grid cygnar/ironclad")
        if attacks != 1:
            raise InputError("--attacks", "is what --for-p finds: leave it out", attacks, "drop --attacks")
        # the same flags the chain gets (query's keywords), less the engine's
        flags = {k: v for k, v in query.keywords.items() if k != "check"}
        report = attacks_to_cripple(stat, defense, power, armor, system=cripple, grid=grid,
                                    for_p=for_p, **flags)
    elif for_p is not None:
        from mathhammer.inverse import fewest_attacks
        from mathhammer.warmachine import limits

        if boxes is None:
            raise InputError("--for-p", "asks for P(destroyed): give the target's --boxes", for_p,
                             "add e.g. --boxes 26")
        if attacks != 1:
            raise InputError("--attacks", "is what --for-p finds: leave it out", attacks, "drop --attacks")
        report = fewest_attacks(
            lambda n: query(method="exact", attacks=n).results["p_destroyed"].value, for_p,
            limits.LIMITS["attacks"][1], command="warmachine.attack", outcome=f"destroy {boxes} boxes")
    else:
        report = query(method=opts.method, config=opts.config(), attacks=attacks,
                       explain=opts.explain)
    emit(report, opts)


app.command("attack")(attack_command)


# ---------------------------------------------------------------------------- aoe (below)
@query_command
def aoe_command(
    stat: Annotated[int, typer.Option("--stat", help="RAT (ranged) or FOCUS (magic).")],
    defense: Annotated[int, typer.Option("--defense", help="Target's base DEF (other models default to it).")],
    armor: Annotated[int, typer.Option("--armor", help="Target's base ARM (other models default to it).")],
    power: Annotated[int, typer.Option("--power", help="POW; blast damage uses ceil(POW/2).")],
    range_: Annotated[float, typer.Option("--range", help="Inches from the attacker to the target's centre (spray: from the template's narrow end).")],
    aoe_size: Annotated[Optional[float], typer.Option("--aoe", help="AOE template diameter: 3, 4 or 5 (default 3).")] = None,
    spray: Annotated[Optional[float], typer.Option("--spray", help="Spray template instead of an AOE: 8 or 10.")] = None,
    rng: Annotated[Optional[float], typer.Option("--rng", help="Weapon RNG: a target beyond it is missed and the shot deviates from the point at RNG.")] = None,
    kind: Annotated[str, typer.Option("--kind", help="ranged or magic.")] = "ranged",
    boost_hit: Annotated[bool, Flag("--boost-hit", "Boost the attack roll(s).")] = False,
    boost_damage: Annotated[bool, Flag("--boost-damage", "Boost full-POW damage rolls (direct hit, spray).")] = False,
    boost_blast: Annotated[bool, Flag("--boost-blast", "Boost every blast damage roll (1 focus each).")] = False,
    modifier: Annotated[int, typer.Option("--modifier", help="Any other attack-roll modifier.")] = 0,
    aim: Annotated[bool, Flag("--aim", "Aiming: +2 to hit.")] = False,
    target_in_melee: Annotated[bool, Flag("--target-in-melee", "-4 to hit (not for spray).")] = False,
    knocked_down: Annotated[bool, Flag("--knocked-down", "Target knocked down: DEF 5.")] = False,
    stationary: Annotated[bool, Flag("--stationary", "Target stationary: DEF 5.")] = False,
    cover: Annotated[bool, Flag("--cover", "Target in cover: +4 DEF.")] = False,
    concealment: Annotated[bool, Flag("--concealment", "Target in concealment: +2 DEF.")] = False,
    elevated: Annotated[bool, Flag("--elevated", "Target elevated: +2 DEF.")] = False,
    def_bonus: Annotated[int, typer.Option("--def-bonus", help="Target DEF from spells or effects.")] = 0,
    arm_bonus: Annotated[int, typer.Option("--arm-bonus", help="Target ARM from spells or feats.")] = 0,
    target_base: Annotated[str, typer.Option("--target-base", help="small, medium or large (30/40/50 mm).")] = "medium",
    boxes: Annotated[Optional[int], typer.Option("--boxes", help="Damage boxes of the target (and default for other models): report P(destroyed).")] = None,
    model: Annotated[Optional[list[str]], typer.Option("--model", help='Another model: "NAME,X,Y[,BASE][,def=N][,arm=N][,boxes=N]" in inches from the target, +X away from the attacker. Repeatable.')] = None,
    models_file: Annotated[Optional[Path], typer.Option("--models", help="TOML file with [[models]] name, x, y, base, def, arm, boxes.")] = None,
    rof: Annotated[int, typer.Option("--rof", help="Shots at the same point (a weapon's ROF or bought shots), each its own attack roll and deviation.")] = 1,
    spray_shape: Annotated[str, typer.Option("--spray-shape", help="strip: seed 000's strip 1\" wide (default); template: the printed Mk II spray template.")] = "strip",
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """AOE or spray shots: P(direct hit), models hit and destroyed, damage per model (WM-D4..D7)."""
    from mathhammer.errors import InputError
    from mathhammer.warmachine.aoe import AoeSetup, aoe, load_models, parse_model

    if opts.precision is not None and opts.method == "auto":
        opts.method = "mc"
    if spray is not None and aoe_size is not None:
        raise InputError("--spray", "a weapon has either an AOE or a spray template", spray,
                         "drop --aoe or --spray")
    others = [parse_model(text) for text in (model or [])]
    if models_file is not None:
        others += load_models(str(models_file))
    setup = AoeSetup(
        stat=stat, defense=defense, armor=armor, power=power, range=range_, kind=kind,
        aoe=aoe_size if aoe_size is not None else 3.0, spray=spray, rng=rng, boost_hit=boost_hit,
        boost_damage=boost_damage, boost_blast=boost_blast, modifier=modifier, aim=aim,
        target_in_melee=target_in_melee, knocked_down=knocked_down, stationary=stationary,
        cover=cover, concealment=concealment, elevated=elevated, def_bonus=def_bonus,
        arm_bonus=arm_bonus, target_base=target_base, target_boxes=boxes, models=tuple(others),
        rof=rof, spray_shape=spray_shape)
    report = aoe(setup, method=opts.method, config=opts.config(), check=opts.check,
                 explain=opts.explain)
    emit(report, opts)


app.command("aoe")(aoe_command)


# ---------------------------------------------------------------------------- duel (appended by WM-grid)
def _parse_damaged(text: Optional[str], flag: str = "--damaged"):
    """--damaged "0,2,0,0,1,0" (marked boxes per grid column) or "5" (a track)."""
    from mathhammer.errors import InputError

    if text is None:
        return None
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise InputError(flag, "must be whole numbers separated by commas", text,
                         'use --damaged "0,2,0,0,1,0" (grid) or --damaged 5 (track)') from None
    return values[0] if len(values) == 1 else values


@query_command(files=("attacker", "target"))
def duel_command(
    attacker: Annotated[str, typer.Argument(help="Attacking profile id (khador/juggernaut) or TOML path.")],
    target: Annotated[str, typer.Argument(help="Target profile id (cygnar/ironclad) or TOML path.")],
    focus: Annotated[Optional[int], typer.Option("--focus", help="Focus for the attacker: a warjack 0-3 (default 3), a warcaster up to its FOCUS (default FOCUS).")] = None,
    charge: Annotated[bool, Flag("--charge", "The attacker charges (an error says why when it cannot): the first attack's damage is pre-boosted (WM-D3); a warjack pays 1 focus.")] = False,
    may_charge: Annotated[bool, Flag("--may-charge", "The policy decides whether to charge (or slam); the output says what it chose.")] = False,
    policy: Annotated[str, typer.Option("--policy", help="fixed, greedy or optimal (WM-F5).")] = "optimal",
    objective: Annotated[str, typer.Option("--objective", help="optimal policy maximises P(destroy), expected damage or P(system X crippled): destroy | damage | cripple:X (X a system letter, e.g. cripple:M).")] = "destroy",
    boost_hit: Annotated[bool, Flag("--boost-hit", "fixed policy: boost every attack roll while focus lasts.")] = False,
    boost_damage: Annotated[bool, Flag("--boost-damage", "fixed policy: boost every damage roll while focus lasts.")] = False,
    buy: Annotated[Optional[int], typer.Option("--buy", help="At most N bought attacks or casts; the fixed policy keeps focus for them before boosting.")] = None,
    no_power_attacks: Annotated[bool, Flag("--no-power-attacks", "Do not consider head-butt and slam.")] = False,
    then: Annotated[Optional[list[str]], typer.Option("--then", help='A follow-up activation against the same target: "ID[:FOCUS][:charge|may-charge|no-charge|ranged]" (without a suffix it charges or shoots like the first). Repeatable (WM-S1).')] = None,
    damaged: Annotated[Optional[str], typer.Option("--damaged", help='Target starting damage: "0,2,0,0,1,0" marked boxes per column, or N for a track (WM-G7).')] = None,
    knocked_down: Annotated[bool, Flag("--knocked-down", "Target starts knocked down: melee attacks hit automatically.")] = False,
    camped_focus: Annotated[int, typer.Option("--camped-focus", help="Target warcaster's unspent focus: +1 ARM each (WM-D2).")] = 0,
    ranged: Annotated[bool, Flag("--ranged", "Shoot instead of fighting in melee: each ranged weapon once, bought shots up to ROF (WM-F2, WM-F3).")] = False,
    aim: Annotated[bool, Flag("--aim", "With --ranged: aiming, +2 to every ranged attack roll (WM-A6).")] = False,
    attacker_damaged: Annotated[Optional[str], typer.Option("--attacker-damaged", help='Attacker starting damage per column, "0,0,0,0,4,3": crippled weapons lose a die, crippled C leaves no focus, crippled M no charge (WM-G4).')] = None,
    target_in_melee: Annotated[bool, Flag("--target-in-melee", "The target is already engaged by another model: ranged and magic attacks at it take -4 (WM-A6); melee attacks in the chain engage it anyway.")] = False,
    distance: Annotated[Optional[float], typer.Option("--distance", help="Inches to the target for ranged activations: beyond a weapon's or spell's RNG it misses, a Stealth target beyond 5\" too (WM-A8); a missed AOE deviates at most half of it (WM-D5).")] = None,
    arm_bonus: Annotated[int, typer.Option("--arm-bonus", help="Target ARM from spells or feats (Arcane Shield 3, Invincibility 5).")] = 0,
    def_bonus: Annotated[int, typer.Option("--def-bonus", help="Target DEF from spells or effects (every attack).")] = 0,
    stationary: Annotated[bool, Flag("--stationary", "Target stationary: melee hits automatically, ranged/magic vs DEF 5 (WM-A4, WM-A7).")] = False,
    upkeep: Annotated[int, typer.Option("--upkeep", help="Spells the warcaster upkeeps: 1 focus each, paid before its activation (WM-F1).")] = 0,
    shake_knockdown: Annotated[bool, Flag("--shake-knockdown", "The warcaster pays 1 focus to shake knock-down or stationary (WM-F1).")] = False,
    cripple: Annotated[Optional[str], typer.Option("--cripple", help='Target starts with these systems crippled, e.g. "L,M" (letters L R H A C M, or left, right, head, arc, cortex, movement): every box of the system and every box above it in its columns is marked (damage fills columns from the top), on top of --damaged (WM-G3, WM-G7).')] = None,
    attacker_cripple: Annotated[Optional[str], typer.Option("--attacker-cripple", help='Attacker starts with these systems crippled, e.g. "L" (a crippled arm loses a die, WM-G4); marks the boxes above them in their columns too (WM-G7).')] = None,
    feat: Annotated[bool, Flag("--feat", "The chain's warcaster uses its feat as it activates: Icy Gaze, Menoth's Wrath, The Withering (WM-E2).")] = False,
    target_effect: Annotated[Optional[list[str]], typer.Option("--target-effect", help='A friendly buff on the target from its faction\'s profiles: "Arcane Shield", "Invincibility", "Blur", "Defender\'s Ward" (WM-E4). Repeatable.')] = None,
    for_p: Annotated[Optional[float], typer.Option("--for-p", help="Instead: the least focus for the attacker (the first activation) whose exact chance of the --objective (destroy, or cripple:X) reaches this probability under the policy, every focus level listed (WM-F1).")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Attacker's activation(s) vs a target on its full damage grid, under a focus policy.

    P(destroyed), P(each system crippled), damage. The policy is solved exactly on the
    full state (grid, focus, node, knock-down, target engaged); the decision states list
    the value of every alternative (WM-F1..F5, WM-G1..G4, WM-S1, WM-S2).
    """
    from mathhammer.warmachine.duel import duel

    report = duel(attacker, target, focus=focus, charge=charge, may_charge=may_charge, policy=policy,
                  objective=objective, boost_hit=boost_hit, boost_damage=boost_damage,
                  power_attacks=not no_power_attacks, then=then, damaged=_parse_damaged(damaged),
                  knocked_down=knocked_down, camped_focus=camped_focus, ranged=ranged, aim=aim,
                  attacker_damaged=_parse_damaged(attacker_damaged, "--attacker-damaged"), buy=buy,
                  target_in_melee=target_in_melee, distance=distance, arm_bonus=arm_bonus,
                  def_bonus=def_bonus, stationary=stationary, upkeep=upkeep,
                  shake=shake_knockdown, cripple=cripple, attacker_cripple=attacker_cripple,
                  feat=feat, target_effects=target_effect, method=opts.method,
                  config=opts.config(), check=opts.check, explain=opts.explain, for_p=for_p)
    emit(report, opts)


app.command("duel")(duel_command)


# ---------------------------------------------------------------------------- plan
@query_command(files=("attackers", "target"))
def plan_command(
    attackers: Annotated[Optional[list[str]], typer.Argument(help="The battlegroup: one warcaster and its warjacks (profile ids or TOML paths), e.g. khador/sorscha khador/juggernaut khador/destroyer.")] = None,
    target: Annotated[str, typer.Option("--target", help="The model to kill: profile id (cygnar/stryker) or TOML path.")] = "",
    from_list: Annotated[Optional[Path], typer.Option("--list", help="Take the battlegroup from a list file (its warcaster and that warcaster's warjacks).")] = None,
    camped_focus: Annotated[int, typer.Option("--camped-focus", help="Target warcaster's unspent focus: +1 ARM each (WM-D2).")] = 0,
    damaged: Annotated[Optional[str], typer.Option("--damaged", help='Target starting damage: "0,2,0,0,1,0" per grid column, or N for a track (WM-G7).')] = None,
    cripple: Annotated[Optional[str], typer.Option("--cripple", help='Target starts with these systems crippled, e.g. "L,M": the system\'s boxes and every box above them in their columns are marked (WM-G3, WM-G7).')] = None,
    arm_bonus: Annotated[int, typer.Option("--arm-bonus", help="Target ARM from spells or feats not in its profiles.")] = 0,
    def_bonus: Annotated[int, typer.Option("--def-bonus", help="Target DEF from spells or effects (every attack).")] = 0,
    knocked_down: Annotated[bool, Flag("--knocked-down", "Target starts knocked down (WM-A4, WM-A7).")] = False,
    stationary: Annotated[bool, Flag("--stationary", "Target starts stationary (WM-A4, WM-A7).")] = False,
    target_in_melee: Annotated[bool, Flag("--target-in-melee", "The target is engaged by another model: ranged and magic attacks take -4 (WM-A6).")] = False,
    target_effect: Annotated[Optional[list[str]], typer.Option("--target-effect", help='A friendly buff on the target: "Arcane Shield", "Invincibility" (WM-E4). Repeatable.')] = None,
    objective: Annotated[str, typer.Option("--objective", help="destroy (maximise P(destroyed)) or damage (expected boxes).")] = "destroy",
    top: Annotated[int, typer.Option("--top", help="How many runner-up plans to list with their values.")] = 3,
    upkeep: Annotated[int, typer.Option("--upkeep", help="Spells the warcaster upkeeps: 1 focus each, out of the focus to split (WM-F1).")] = 0,
    distance: Annotated[Optional[float], typer.Option("--distance", help="Inches to the target for models that shoot or cast from range (WM-A8); melee models are assumed to reach it.")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """The best plan for a warcaster and its warjacks to kill one model this turn (WM-P1).

    Searches focus split, activation order, melee or ranged per model and the feat; each
    activation plays the optimal policy (boosts, bought attacks, spells, charge) against
    the target as the earlier ones left it. Prints the best plan's steps and P(destroyed),
    then the runners-up with their values.
    """
    from mathhammer.warmachine.plan import plan

    report = plan(attackers or [], target, from_list=from_list,
                           camped_focus=camped_focus, damaged=_parse_damaged(damaged),
                           cripple=cripple, arm_bonus=arm_bonus, def_bonus=def_bonus,
                           knocked_down=knocked_down, stationary=stationary,
                           target_in_melee=target_in_melee, target_effects=target_effect,
                           objective=objective, top=top, upkeep=upkeep, distance=distance,
                           method=opts.method, config=opts.config(), check=opts.check,
                           explain=opts.explain)
    emit(report, opts)


app.command("plan")(plan_command)


# ---------------------------------------------------------------------------- battle (issue 31)
from mathhammer.cli.wm_battle import battle_command  # noqa: E402

app.command("battle")(battle_command)
