"""``--explain`` builders for the magic commands: each stage in the order the dice are rolled.

Every fraction comes from the enumeration the engine itself uses
(:mod:`mathhammer.magic.rolls`: ``pool_classes``, ``cast_odds``, ``dispel_probability``,
``flow_pools``, ``channel_extra``, ``miscast_rows``), so an explanation cannot drift from
the answer it explains. The builders return :class:`mathhammer.explain.Step` lists;
:func:`flow_decisions` names the conditional decision MG-1 (t9a1 flow worked out like
wfb8's) where it applies. Decisions of the ruleset files themselves (e.g. t9a1 lets a
failed dispeller try again) are shown as steps, with the file's wording.
"""

from __future__ import annotations

from fractions import Fraction

from mathhammer.explain import Step
from mathhammer.magic.rolls import (
    cast_odds,
    channel_extra,
    dispel_probability,
    flow_pools,
    marginals,
    miscast_rows,
    pool_classes,
)
from mathhammer.magic.rules import MagicRules
from mathhammer.words import plural


def ruleset_name(ruleset: str) -> str:
    """The ``name`` inside a ruleset (a copied t9a1 file is still ``t9a1``)."""
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    return str(getattr(load_ruleset(ruleset), "name", ruleset))


def flow_decisions(ruleset: str, flow_rolled: bool = True) -> tuple[str, ...]:
    """MG-1 holds where a t9a1 flow is rolled (the 1.x flux table is unverified)."""
    return ("MG-1",) if flow_rolled and ruleset_name(ruleset) == "t9a1" else ()


def mean_text(pmf: dict[int, Fraction]) -> str:
    mean = sum((k * p for k, p in pmf.items()), Fraction(0))
    if mean.denominator == 1:
        return f"mean {mean.numerator}"
    return f"mean {mean.numerator}/{mean.denominator} ≈ {float(mean):.4f}"


def _p_natural_at_least(n_dice: int, need: int) -> Fraction:
    """P(natural sum of ``n_dice`` D6 ≥ need), every number of sixes (MG-4)."""
    classes = pool_classes(n_dice)
    hit = sum(c for row in classes for total, c in enumerate(row) if total >= need)
    return Fraction(hit, 6**n_dice)


def _p_two_sixes(n_dice: int) -> Fraction:
    return Fraction(sum(pool_classes(n_dice)[2]), 6**n_dice)


def _need_text(n_dice: int, need: int, fail_at_most: int) -> str:
    need = max(need, fail_at_most + 1)
    if need <= n_dice:
        return f"any natural {n_dice}D6"
    if need > 6 * n_dice:
        return f"beyond {n_dice}D6 alone (only two or more 6s may still succeed)"
    return f"need {need}+ on {n_dice}D6"


# ---- MG-1..MG-3: magic flow -------------------------------------------------------------
def _channel_step(rules: MagicRules, side: str, channelers: int) -> Step:
    gain = channel_extra(rules, channelers)
    p_any = sum((p for k, p in gain.items() if k > 0), Fraction(0))
    if rules.channel == "d6_plus_channelers":
        need = rules.channel_target - channelers
        detail = (f"D6 + {channelers} channelers ≥ {rules.channel_target} adds a die → "
                  f"{'never' if need > 6 else f'{max(need, 1)}+ on the D6'}")
    elif rules.channel == "each_wizard_six":
        detail = f"{channelers} wizard(s) roll a D6 each, every 6 adds a die ({mean_text(gain)})"
    else:
        detail = "this ruleset has no channel roll"
    return Step(f"channel ({side})", detail + ", P(at least one die)", p_any, ("MG-2",))


def explain_flow(rules: MagicRules, channelers: int = 0, reactive_channelers: int = 0,
                 extra_power: int = 0, extra_dispel: int = 0) -> list[Step]:
    """2D6 flow → channel → other dice → caps → the pools (MG-1..MG-3)."""
    bare = rules.model_copy(update={"channel": "none", "max_extra_dice": None})
    power0, dispel0 = marginals(flow_pools(bare))
    joint = flow_pools(rules, channelers, reactive_channelers, extra_power, extra_dispel)
    power, dispel = marginals(joint)
    cap_extra = ("no limit on extra dice" if rules.max_extra_dice is None
                 else f"at most {rules.max_extra_dice} dice beyond the flow roll per player")
    steps = [
        Step("flow roll", f"2D6: power dice = the total ({mean_text(power0)}), dispel dice = "
             f"the higher die ({mean_text(dispel0)})", None, ("MG-1",)),
        _channel_step(rules, "active", channelers),
        _channel_step(rules, "reactive", reactive_channelers),
    ]
    if extra_power or extra_dispel:
        steps.append(Step("other dice", f"+{extra_power} power, +{extra_dispel} dispel "
                          "(count against the extra-dice limit with channel)", None, ("MG-3",)))
    steps += [
        Step("caps", f"{cap_extra}; at most {rules.max_pool} dice in a pool; "
             f"P(power pool at {rules.max_pool})", power.get(rules.max_pool, Fraction(0)),
             ("MG-3",)),
        Step("power dice", mean_text(power), None, ("MG-1", "MG-2", "MG-3")),
        Step("dispel dice", mean_text(dispel), None, ("MG-1", "MG-2", "MG-3")),
        Step("more power than dispel dice", "P(power > dispel)",
             sum((p for (a, d), p in joint.items() if a > d), Fraction(0)), ()),
    ]
    return steps


# ---- MG-4, MG-5, MG-7, MG-10: one casting attempt -------------------------------------------
def explain_cast(rules: MagicRules, n_dice: int, level: int, cv: int, modifier: int = 0,
                 bound: bool = False, dispel_dice: int | None = None,
                 dispel_level: int = 0) -> list[Step]:
    """Dice → two 6s? → total vs casting value → P(cast) → fail → (the dispel attempt →
    P(goes off)) → miscast and its rows."""
    odds = cast_odds(rules, n_dice, level, cv, modifier, bound)
    bonus = 0 if bound else level + modifier
    need = cv - bonus
    natural_need = max(need, rules.natural_fail_at_most + 1)
    op = rules.two_sixes == "overwhelming"
    if bound:
        total_rule = (f"bound spell: natural {n_dice}D6 ≥ power level {cv} "
                      "(no level, no modifiers) "
                      f"→ {_need_text(n_dice, need, rules.natural_fail_at_most)}")
    else:
        total_rule = (f"{n_dice}D6 + level {level}{f' + modifier {modifier}' if modifier else ''} "
                      f"≥ CV {cv} → {_need_text(n_dice, need, rules.natural_fail_at_most)}")
    if rules.natural_fail_at_most:
        total_rule += f"; a natural {rules.natural_fail_at_most} or less fails"
    steps = [
        Step("power dice", f"{plural(n_dice, 'die')} (this ruleset: 1-{rules.max_casting_dice} per attempt)",
             None, ("MG-4",)),
        Step("casting total", total_rule + f"; P(natural ≥ {natural_need})",
             _p_natural_at_least(n_dice, natural_need),
             ("MG-4", "MG-7") if bound else ("MG-4",)),
        Step("two or more natural 6s", _two_sixes_text(rules, n_dice, bound), odds.p_irresistible,
             ("MG-5", "MG-7") if bound else ("MG-5",)),
        Step("cast, fewer than two 6s" if not (bound and op) else "cast, dispellable",
             "total ≥ the casting value, dispellable" if not (bound and op) else
             "total ≥ the power level, or two or more 6s; dispellable",
             sum(odds.plain.values(), Fraction(0)), ("MG-4", "MG-7") if bound else ("MG-4",)),
    ]
    if op and odds.overwhelming:
        steps.append(Step("cast with overwhelming power", f"natural + {bonus} + D3 + {n_dice} "
                          f"≥ {cv}, dispellable", sum(odds.overwhelming.values(), Fraction(0)),
                          ("MG-5",)))
    if odds.p_irresistible_cast:
        steps.append(Step("cast by irresistible force", "whatever the total; cannot be dispelled",
                          odds.p_irresistible_cast, ("MG-5",)))
    steps.append(Step("P(cast)", "every way the spell goes off (before any dispel)", odds.p_cast,
                      ("MG-4", "MG-5")))
    fail_detail = "the total falls short"
    if rules.failed_caster_stops and not bound:
        fail_detail += "; a failed attempt ends this wizard's casting this phase"
    if bound:
        fail_detail += "; a bound spell never ends a wizard's casting"
    steps.append(Step("P(fail)", fail_detail, odds.p_fail, ("MG-7",) if bound else ("MG-4",)))
    if dispel_dice is None:
        steps += _miscast_steps(rules, odds.p_miscast_undispelled, n_dice, bound)
        return steps
    from mathhammer.magic.rolls import against_dispel

    met = against_dispel(rules, odds, dispel_dice, dispel_level)
    who = f"level {dispel_level}" if dispel_level else "no wizard (the army), level 0"
    steps.append(Step("dispel attempt", f"{dispel_dice}D6 + {who} against each dispellable "
                      "casting total above, a tie dispels"
                      + ("; a natural {} or less fails".format(rules.dispel_natural_fail_at_most)
                         if rules.dispel_natural_fail_at_most else "")
                      + ("; overwhelming power on the dispel roll too" if rules.op_on_dispel else "")
                      + "; P(a cast is dispelled)", met.p_dispelled, ("MG-6", "MG-5")))
    steps.append(Step("P(goes off)", "cast and not dispelled"
                      + (" (irresistible force cannot be dispelled)" if odds.p_irresistible_cast
                         else ""), met.p_goes_off, ("MG-4", "MG-5", "MG-6")))
    steps += _miscast_steps(rules, met.p_miscast, n_dice, bound)
    return steps


def _two_sixes_text(rules: MagicRules, n_dice: int, bound: bool) -> str:
    if n_dice < 2:
        return "impossible with one die"
    if rules.two_sixes == "irresistible":
        text = "irresistible force: cast, cannot be dispelled, then the wizard miscasts"
        if bound:
            return text.replace(", then the wizard miscasts", "; a bound spell never miscasts")
        return text
    if bound:
        text = ("a bound spell gets no overwhelming-power bonus and never miscasts; it is still "
                "cast whatever its total (decision), dispellable against its natural total")
        if n_dice >= 4:
            text += f"; with {n_dice} dice it is then lost for the rest of the game"
        return text
    return (f"overwhelming power: + D3 + {plural(n_dice, 'die')} used to the total; still dispellable, "
            "miscast only if not dispelled")


def _miscast_steps(rules: MagicRules, p_miscast: Fraction, n_dice: int, bound: bool) -> list[Step]:
    when = ("if not dispelled (overwhelming power)" if rules.two_sixes == "overwhelming"
            else "irresistible force")
    detail = "a bound spell never miscasts" if bound else f"two or more 6s and cast, {when}"
    steps = [Step("P(miscast)", detail, p_miscast, ("MG-5",))]
    if not p_miscast:
        return steps
    by_label = {row.low: row for row in rules.miscast_table}
    for label, p_row in miscast_rows(rules):
        row = by_label[int(label.split()[0].split("-")[0])]
        effect = row.effect or "effect not given"
        if row.confidence == "low":
            effect += " (low confidence: reported, not simulated)"
        joint = p_miscast * p_row
        steps.append(Step(f"miscast 2D6 {label}", f"{effect}; of all attempts "
                          f"{joint}; P(row | miscast)", p_row,
                          ("MG-10",)))
    if rules.miscast_removes_dice_used:
        steps.append(Step("miscast dice", f"a miscast also removes {plural(n_dice, 'die')} (the dice used) "
                          "from the pool", None, ("MG-10",)))
    return steps


# ---- MG-6 (and MG-5 on dispel rolls): one dispel attempt -----------------------------------------
def explain_dispel(rules: MagicRules, n_dice: int, level: int, against: int) -> list[Step]:
    """Dice → total vs the casting total (ties dispel) → overwhelming power → P(dispel)."""
    need = max(against - level, rules.dispel_natural_fail_at_most + 1)
    who = f"level {level}" if level else "no wizard (the army), level 0"
    rule = (f"{n_dice}D6 + {who} ≥ casting total {against} → "
            f"{_need_text(n_dice, against - level, rules.dispel_natural_fail_at_most)}; "
            "a tie dispels")
    if rules.dispel_natural_fail_at_most:
        rule += f"; a natural {rules.dispel_natural_fail_at_most} or less fails"
    steps = [Step("dispel total", rule + f"; P(natural ≥ {need})",
                  _p_natural_at_least(n_dice, need), ("MG-6",))]
    p = dispel_probability(rules, n_dice, level, against)
    if rules.op_on_dispel:
        plain = dispel_probability(rules.model_copy(update={"overwhelming_on_dispel": False}),
                                   n_dice, level, against)
        steps.append(Step("two or more natural 6s", f"overwhelming power: + D3 + {n_dice} to the "
                          f"dispel total; it adds {p - plain} to P(dispel)",
                          _p_two_sixes(n_dice), ("MG-5",)))
    else:
        steps.append(Step("two or more natural 6s", "no bonus on dispel rolls in this ruleset; "
                          "no automatic dispel", None, ("MG-5", "MG-6")))
    if rules.two_sixes == "irresistible":
        steps.append(Step("irresistible force", "a spell cast with two or more 6s cannot be "
                          "dispelled at all", None, ("MG-5",)))
    steps.append(Step("P(dispel)", f"against a dispellable casting total of {against}", p,
                      ("MG-6",)))
    if rules.failed_dispeller_stops:
        steps.append(Step("after a failure", "that wizard cannot dispel again this phase (the "
                          "army may, without a level)", None, ("MG-6",)))
    else:
        steps.append(Step("after a failure", "decision (ruleset file): the wizard may try again; "
                          "MG-6 names the stop for wfb8 only", None, ("MG-6",)))
    return steps



# ---- MG-8, MG-9: whole phases and the optimiser (policy, no fractions) --------------------------
def explain_phase(scenario) -> list[Step]:
    """How ``magic phase`` plays a scenario: pools, cast order and dice, dispel policy."""
    fl, caster, d = scenario.flow, scenario.caster, scenario.dispel
    if fl.power_dice is not None:
        pools = Step("pools", f"fixed: {fl.power_dice} power, {fl.dispel_dice} dispel dice "
                     "(no flow roll)", None, ("MG-3",))
    else:
        channelers = fl.channelers if fl.channelers is not None else len(scenario.wizards)
        pools = Step("pools", f"2D6 flow (see magic flow ‹explain›), channelers {channelers} vs "
                     f"{fl.reactive_channelers}, caps", None, ("MG-1", "MG-2", "MG-3"))
    rule = {"fixed": "each spell's own dice",
            "target": f"fewest dice whose P(cast) reaches {caster.target:.0%} "
                      "(or a spell's target)",
            "optimal": "dice chosen at each cast by exact dynamic programming "
                       "(max expected weight)"}
    policy = {"all_out": "tries every spell",
              "threshold": f"tries only spells with priority ≥ {d.min_priority}",
              "keep_dice": f"keeps {plural(d.keep, 'die')} except for priority ≥ {d.min_priority}"}
    miscast = "; so does a miscast (decision)" if caster.miscast_ends_casting else ""
    return [
        pools,
        Step("cast order", "by priority, highest first (ties: file order); a failed cast ends "
             "that wizard's casting" + miscast, None, ("MG-4", "MG-9")),
        Step("caster dice", rule[caster.dice_rule], None, ("MG-9",)),
        Step("dispeller", f"{policy[d.policy]}, fewest dice reaching {d.confidence:.0%}, level "
             f"{d.level}", None, ("MG-6", "MG-9")),
        Step("remains in play", _in_play_text(scenario), None, ("MG-8",)),
    ]


def _in_play_text(scenario) -> str:
    """MG-8 as played: the retries (seed 004 «повторяйте шаги 2 и 3»), slain casters,
    split units, a wizard's own spell barred while it is in play."""
    parts = [f"{len(scenario.in_play)} spell(s) in play from earlier turns, tried at the first "
             "step; after a failed attempt the dispeller tries again with the dice left while "
             "the policy gives dice (decision, seed 004 repeats steps 2 and 3); the caster's "
             "own attempts on the reactive player's spells: `attempts` (default 1)",
             "a later dispel must equal or beat the spell's casting value (its `value`)"]
    if scenario.dispel.retry_remains_in_play and any(s.remains_in_play for s in scenario.spells):
        parts.append("a remains-in-play spell cast now is dispelled again after the caster "
                     "passes, while dice and the policy allow, against its casting value")
    for ip in scenario.in_play:
        extra = []
        if ip.p_caster_slain:
            extra.append(f"its caster is slain with P = {ip.p_caster_slain:g}: it ends at once")
        if ip.parts > 1:
            extra.append(f"the unit split into {ip.parts} parts, each dispelled separately")
        if ip.spell:
            extra.append(f"{ip.spell!r} cannot be cast while it is in play")
        if extra:
            parts.append(f"{ip.name}: " + "; ".join(extra))
    return "; ".join(parts)


def explain_optimise(scenario, power: int | None, dispel: int | None) -> list[Step]:
    power = scenario.flow.power_dice if power is None else power
    dispel = scenario.flow.dispel_dice if dispel is None else dispel
    return [
        Step("pools", f"fixed: {power} power, {dispel} dispel dice (no flow roll)", None,
             ("MG-3",)),
        Step("splits", "every split of the power dice over the spells (at most the ruleset's "
             "dice per spell), each valued exactly against the dispel policy", None,
             ("MG-4", "MG-9")),
        Step("adaptive plan", "dice chosen as each spell is cast (never below the best split)",
             None, ("MG-9",)),
    ]
