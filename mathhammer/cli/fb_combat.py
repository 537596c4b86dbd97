"""`mathhammer fb combat` and `fb challenge` (registered on the fb group; `fb artillery` lives in cli/fb_artillery.py)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mathhammer import trials
from mathhammer.cli._common import CommonOptions, emit, query_command
from mathhammer.cli.fb import app

COMBAT_TRIALS = trials.COMBAT


@query_command(trials=COMBAT_TRIALS, files=("unit_a", "unit_b", "ruleset"))
def combat_command(
    unit_a: Annotated[str, typer.Argument(help="Unit A: profile id (wfb8/empire_halberdiers) or a unit TOML file; join characters with +: wfb8/empire_halberdiers+wfb8/empire_captain[:general][:bsb].")],
    unit_b: Annotated[str, typer.Argument(help="Unit B: profile id or unit TOML file, + characters.")],
    rounds: Annotated[Optional[int], typer.Option("--rounds", help="Stop after N rounds (default: until a unit breaks or dies, at most 25). --rounds 1 has an exact engine.")] = None,
    charger: Annotated[Optional[str], typer.Option("--charger", help="a or b: that unit charged (lances, impact hits, Devastating Charge, the ruleset's chargers_strike_first).")] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="basic, wfb8, t9a1 or a ruleset file (default: the profiles' edition).")] = None,
    models_a: Annotated[Optional[int], typer.Option("--models-a", help="Models in unit A (default: the profile's formation).")] = None,
    models_b: Annotated[Optional[int], typer.Option("--models-b", help="Models in unit B.")] = None,
    width_a: Annotated[Optional[int], typer.Option("--width-a", help="Rank width of unit A.")] = None,
    width_b: Annotated[Optional[int], typer.Option("--width-b", help="Rank width of unit B.")] = None,
    champion_a: Annotated[Optional[bool], typer.Option("--champion-a/--no-champion-a", help="Unit A has / has no champion (default: the profile's formation).")] = None,
    champion_b: Annotated[Optional[bool], typer.Option("--champion-b/--no-champion-b", help="Unit B has / has no champion.")] = None,
    flank: Annotated[Optional[str], typer.Option("--flank", help="a or b: that unit fights in the enemy's flank (+1).")] = None,
    rear: Annotated[Optional[str], typer.Option("--rear", help="a or b: that unit fights in the enemy's rear (+2).")] = None,
    bonus_a: Annotated[int, typer.Option("--bonus-a", help="Extra combat result for A (high ground...).")] = 0,
    bonus_b: Annotated[int, typer.Option("--bonus-b", help="Extra combat result for B.")] = 0,
    target_a: Annotated[Optional[str], typer.Option("--target-a", help="A's models in contact attack this B character or champion (by name) instead of the rank and file (FB-K1).")] = None,
    target_b: Annotated[Optional[str], typer.Option("--target-b", help="B's models in contact attack this A character or champion.")] = None,
    attack_mount: Annotated[Optional[str], typer.Option("--attack-mount", help="a or b: that side's attacks on a ridden monster go to the monster, not its rider (FB-P1).")] = None,
    challenge: Annotated[Optional[str], typer.Option("--challenge", help="a or b[:NAME]: that side issues a challenge (with its first character, else champion, or NAME) before round 1 (FB-K3).")] = None,
    response: Annotated[str, typer.Option("--response", help="accept or refuse the challenge (a refusing character does not fight while the challenger lives).")] = "accept",
    acceptor: Annotated[Optional[str], typer.Option("--acceptor", help="Who accepts (or, with --response refuse, who refuses) the challenge (default: the side's first character, else its champion).")] = None,
    general_ld_a: Annotated[Optional[int], typer.Option("--general-ld-a", "--general-ld", help="Leadership of A's general outside the fight (Inspiring Presence, FB-K4).")] = None,
    general_ld_b: Annotated[Optional[int], typer.Option("--general-ld-b", help="Leadership of B's general outside the fight.")] = None,
    bsb: Annotated[Optional[str], typer.Option("--bsb", help="a or b: a battle standard within range of that side re-rolls its failed break tests (FB-K4).")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """Close combat, round after round (FB-C1..C7), with characters, champions, challenges.

    Results: p_a_wins, p_b_wins, p_both_standing, p_both_out; the first round alone
    p_a_wins_round_1, p_round_1_tied, p_b_wins_round_1, mean_round_1_score_a_minus_b;
    p_enemy_breaks, p_enemy_destroyed, p_caught, p_own_break, ...; p_slain[NAME] for
    champions and characters; distributions wounds_dealt, wounds_taken, models_left_a/b.
    Several units a side: a scenario file (mathhammer run).
    """
    from mathhammer.fantasy.scenario import combat_from_options

    fight = dict(champions=(champion_a, champion_b), targets=(target_a, target_b),
                 attack_mount=attack_mount, challenge=challenge, response=response, other=acceptor,
                 general_ld=(general_ld_a, general_ld_b), bsb=bsb)
    flags = dict(charger=charger, ruleset=ruleset, models=(models_a, models_b), widths=(width_a, width_b),
                 flank=flank, rear=rear, bonuses=(bonus_a, bonus_b))
    report = combat_from_options(unit_a, unit_b, rounds=rounds, method=opts.method,
                                 config=opts.config(), check=opts.check, **flags, **fight)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.fantasy.combat.explain import explain_from_options

        steps, decisions = explain_from_options(unit_a, unit_b, **flags, **fight)
        attach(report, steps, decisions=decisions)
    emit(report, opts)


app.command("combat")(combat_command)

CHALLENGE_TRIALS = trials.CHALLENGE


@query_command(trials=CHALLENGE_TRIALS, files=("model_a", "model_b", "ruleset"))
def challenge_command(
    model_a: Annotated[str, typer.Argument(help="Model A: a profile id (wfb8/empire_captain), a TOML file, or inline stats:ws=6,s=4,t=4,w=3,i=6,a=4,save=3,ward=5.")],
    model_b: Annotated[str, typer.Argument(help="Model B, the same way.")],
    rounds: Annotated[Optional[int], typer.Option("--rounds", help="Rounds at most (default: until one falls, at most 25).")] = None,
    charger: Annotated[Optional[str], typer.Option("--charger", help="a or b: that model charged (lance, impact hits, the ruleset's chargers_strike_first).")] = None,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="basic, wfb8, t9a1 or a ruleset file (default: the profiles' edition; inline stats: wfb8).")] = None,
    attack_mount: Annotated[Optional[str], typer.Option("--attack-mount", help="a or b: that side strikes the enemy's ridden monster instead of its rider.")] = None,
    opts: CommonOptions = None,  # filled in by @query_command
) -> None:
    """A challenge: two single models fight until one falls (FB-K3, FB-C2, FB-C3).

    Results: p_a_wins, p_b_wins, p_both_standing (after the last round), p_both_fall;
    distributions wounds_on_a, wounds_on_b, rounds. Exact by default.
    Inline stats keys: ws s t w i a ld save ward regeneration ap mw name troop, and the
    switches kb poison hatred asf asl flaming frenzy great_weapon halberd lance flail
    shield additional_hand_weapon spear choppa.
    """
    from mathhammer.fantasy.combat.challenge import challenge

    report = challenge(model_a, model_b, rounds=rounds, charger=charger, ruleset=ruleset,
                       method=opts.method, config=opts.config(), check=opts.check,
                       attack_mount=attack_mount)
    if opts.explain:
        from mathhammer.explain import attach
        from mathhammer.fantasy.combat.explain import explain_challenge

        attach(report, explain_challenge(model_a, model_b, charger=charger, ruleset=ruleset,
                                         attack_mount=attack_mount))
    emit(report, opts)


app.command("challenge")(challenge_command)
