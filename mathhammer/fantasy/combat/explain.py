"""``--explain`` for ``fb combat`` and ``fb challenge``: the fight as the engines compiled it.

Every line reads the compiled combat (:mod:`mathhammer.fantasy.combat.compile`): the
strike order, each unit's bodies (rank and file, champion, characters, ridden
monsters) with the save they take in combat, the kit and special rules that changed a
number (their rule ids), each attacking group's first-round chain against its first
target (the exact stage fractions of :func:`mathhammer.fantasy.explain.explain_attack`,
i.e. the engine's own per-attack table), then the challenge, combat result, break
tests and pursuit.
"""

from __future__ import annotations

from mathhammer.explain import Step
from mathhammer.fantasy import characteristic_tests as fb_tests
from mathhammer.fantasy.combat.compile import (
    COUNT_FRONT_,
    COUNT_SIDE_,
    COUNT_SINGLE_,
    COUNT_SUPPORT_,
    POSITIONS,
    CompiledCombat,
    _attacks_pmf,
    attack_spec,
    key_text,
)
from mathhammer.fantasy.rules.ruleset import load_ruleset
from mathhammer.words import plural

KIT_WORDS = {
    "strength_bonus": "+{} S", "first_round_strength_bonus": "+{} S in the first round",
    "charge_strength_bonus": "+{} S on the charge", "armour_piercing": "armour piercing {}",
    "extra_attacks": "+{} A", "extra_supporting_ranks": "fights in {} more rank(s)",
    "melee_armour_bonus": "+{} armour in close combat", "parry": "enemies in front hit on {}+ at best",
}


def fight_from_options(unit_a: str, unit_b: str, **flags) -> CompiledCombat:
    """The compiled fight ``fb combat`` runs, from the same flags."""
    from mathhammer.fantasy.combat.fight import compile_fight
    from mathhammer.fantasy.scenario import sides_from_options

    sides, rules, extra = sides_from_options(unit_a, unit_b, **flags)
    c, _ = compile_fight(sides[0], sides[1], ruleset=load_ruleset(rules), **extra)
    return c


def explain_from_options(unit_a: str, unit_b: str, **flags) -> tuple[list[Step], tuple[str, ...]]:
    """``fb combat --explain``: the steps and decisions of the fight the same flags play —
    the compiled combat, or the war machine fight (FB-WM1) where B is a war machine."""
    from mathhammer.fantasy.combat.fight import compile_fight, war_machine_fight_of
    from mathhammer.fantasy.scenario import sides_from_options

    sides, rules, extra = sides_from_options(unit_a, unit_b, **flags)
    fight = war_machine_fight_of(sides[0], sides[1], ruleset=load_ruleset(rules), **extra)
    if fight is not None:
        from mathhammer.fantasy.explain import chain_decisions

        return explain_war_machine(fight), chain_decisions(fight.rules)
    c, _ = compile_fight(sides[0], sides[1], ruleset=load_ruleset(rules), **extra)
    return explain_combat(c), combat_decisions(c)


def explain_war_machine(f) -> list[Step]:
    """FB-WM1: the war machine fight as :mod:`mathhammer.fantasy.combat.war_machine` plays it —
    the same :class:`Fight`, its attack specs, strike order and break tests."""
    from mathhammer.fantasy.explain import explain_attack
    from mathhammer.fantasy.combat.war_machine import (
        NOT_PLAYED, _break_pass, _instability_losses, _spec_crew_on_unit, _spec_unit_on_crew,
        _unit_holds)

    unit, machine, rules = f.unit, f.machine, f.rules
    crew_wounds = rules.war_machines.target_wounds != "machine"
    steps = [Step("war machine", f"{machine.name}: {f.crew} crew; {f.machine_wounds} wound(s) "
                  "destroy it (" + ("each unsaved wound slays a crewman" if crew_wounds else
                                    "the machine's W on one model") + "); close combat against "
                  f"the crew's WS{machine.stats.ws} T{machine.stats.t}", None, ("FB-WM1",))]
    party = f.party(f.models)
    steps.append(Step("assault party", f"{party} of {f.models} {unit.name} fight (at most "
                      f"{rules.war_machines.assault_party} models' worth), no supporting ranks; "
                      "those slain before they strike do not strike, nobody steps up until the "
                      f"next round; {NOT_PLAYED}", None, ("FB-WM1", "FB-C1", "FB-C3")))
    order = []
    for charged, label in ((True, "round 1 (the unit charged)"), (False, "later rounds")):
        ui, ci = f.initiatives(charged)
        first = ("the unit strikes first" if ui > ci else "the crew strike first" if ci > ui
                 else "both strike together")
        order.append(f"{label}: {first}")
    steps.append(Step("strike order", f"{unit.name} I{unit.stats.i} vs crew I{machine.stats.i}"
                      + (", chargers first in round 1" if rules.chargers_strike_first else "")
                      + ": " + "; ".join(order), None, ("FB-C2", "FB-C3")))
    for label, who, spec in (
            (f"A {unit.name}", f"{unit.stats.a} attack(s) per model of the party → the crew",
             _spec_unit_on_crew(f)),
            (f"B {machine.name} crew", f"{machine.stats.a} attack(s) per crewman "
             + ("left" if rules.war_machines.target_wounds != "machine" else "while it stands")
             + f" → {unit.name}", _spec_crew_on_unit(f))):
        steps.append(Step(label, who, None, ("FB-C1", "FB-WM1")))
        for step in explain_attack(spec, rules):
            steps.append(Step(f"  {step.stage}", step.detail, step.p, step.rules))
    bonus = (f"+ the rank bonus (ranks of ≥ {rules.rank_width} behind the first, max "
             f"+{rules.max_rank_bonus})" + (f" + standard +{rules.standard_bonus}" if f.standard else ""))
    steps.append(Step("combat result", f"{unit.name}: wounds caused {bonus}; the machine: wounds "
                      "caused (no ranks, no standard); a drawn round "
                      + ("goes to the musician" if f.musician and rules.combat.musician_breaks_ties
                         else "is a draw"), None, ("FB-C4", "FB-S3", "FB-WM1")))
    chances = ", ".join(f"lost by {d}: {_fraction(_break_pass(machine.stats.ld, d, rules, False))}"
                        for d in (1, 2, 3))
    steps.append(Step("machine if it loses", f"break test on the crew's Ld {machine.stats.ld} − "
                      f"difference; failed, it is destroyed. P(pass) {chances}", None,
                      ("FB-C5", "FB-T2", "FB-WM1")))
    unstable = next((r for r in ("Unstable", "Daemonic Instability") if unit.has(r)), None)
    if unstable and _instability_losses(f, 1) is not None:
        text = rules.instability_words(unstable)
    elif unit.has("Unbreakable"):
        text = "Unbreakable: no break test"
    else:
        how = ("Stubborn: unmodified Ld" if unit.has("Stubborn") else
               f"Ld {unit.stats.ld} − difference"
               + ("; Steadfast (unmodified Ld) with one rank of "
                  f"{rules.rank_width} models, the machine having none" if rules.steadfast else ""))
        chances = ", ".join(f"lost by {d}: {_fraction(_unit_holds(f, d, f.models))}" for d in (1, 2, 3))
        text = (f"break test, {how}; it flees unpursued. P(pass) with {plural(f.models, 'model')} "
                f"{chances}")
    steps.append(Step(f"{unit.name} if it loses", text, None, ("FB-C5", "FB-T2", "FB-WM1")))
    return steps


def _fraction(p: float) -> str:
    """A 2D6 chance the engine holds as a float, shown as its 36ths (exact for a Ld test)."""
    from fractions import Fraction

    return str(Fraction(p).limit_denominator(36 * 36))


def combat_decisions(c: CompiledCombat) -> tuple[str, ...]:
    """Decisions in play: FB-W1 under t9a1, FB-C5 for wfb8 instability, the kit of basic."""
    from mathhammer.fantasy.explain import chain_decisions

    out = list(chain_decisions(c.rules))
    if c.rules.name == "wfb8" and c.rules.unstable == "lose_wounds" and any(
            s.unit.has(r) for s in c.units for r in ("Unstable", "Daemonic Instability")):
        out.append("FB-C5")
    return tuple(out)


def _kit_text(effect) -> str:
    parts = []
    for key, words in KIT_WORDS.items():
        value = getattr(effect, key)
        if value:
            parts.append(words.format(value))
    if effect.strikes_last:
        parts.append("strikes last")
    return ", ".join(parts) or "no effect here"


def _kit_steps(c: CompiledCombat) -> list[Step]:
    steps = []
    table = c.rules.combat.equipment
    seen = set()
    for side in c.units:
        for p in [side.unit] + [ch.profile for ch in side.characters] + list(side.unit.mounts):
            for item in getattr(p, "equipment", ()):
                if (p.name, item) in seen:
                    continue
                seen.add((p.name, item))
                if item not in table:
                    steps.append(Step(f"kit: {p.name}", f"{item.replace('_', ' ')}: not in {c.rules.name}, "
                                      "no effect"))
                    continue
                eq = table[item]
                mounted = getattr(p, "mounted", False)
                effect = eq.effect(mounted)
                text = f"{item.replace('_', ' ')}: {_kit_text(effect)}"
                if eq.needs_hand_weapon:
                    text += " (with a hand weapon only)"
                steps.append(Step(f"kit: {p.name}", text, None, (eq.rule,)))
            for rule, rid, words in (("Frenzy", "FB-S1", f"+{c.rules.combat.frenzy_attacks} A until the "
                                      "unit loses a round"), ("Hatred", "FB-H3", "re-rolls misses in "
                                                              "the first round")):
                if rule in getattr(p, "special_rules", ()) and (p.name, rule) not in seen:
                    seen.add((p.name, rule))
                    steps.append(Step(f"rule: {p.name}", f"{rule}: {words}", None, (rid,)))
    return steps


def _body_text(c: CompiledCombat, b: int) -> str:
    body = c.bodies[b]
    save = f"{body.armour}+ armour in combat" if body.armour else "no armour"
    extra = [save]
    if body.ward:
        extra.append(f"{body.ward}+ ward")
    if body.regeneration:
        extra.append(f"{body.regeneration}+ regeneration")
    what = (f"{body.models} rank and file" if body.role == "rank and file" and body.models > 1
            else f"{body.name} ({body.role})")
    return f"{what}: WS{body.ws} T{body.t} W{body.w} I{body.i}, " + ", ".join(extra)


def explain_combat(c: CompiledCombat) -> list[Step]:
    rules = c.rules
    steps = [Step("strike order, round 1", _order(c), None, ("FB-C2", "FB-C3"))]
    for u, side in enumerate(c.units):
        label = c.labels[u]
        against, face = c.faces[u]
        mine = [b for b, body in enumerate(c.bodies) if body.unit == u]
        ids = ["FB-C1"]
        if any(c.bodies[b].role in ("champion", "character") for b in mine):
            ids.append("FB-K1")
        if any(c.bodies[b].role == "mount" for b in mine):
            ids.append("FB-P1")
        where = ("front free" if against is None else
                 f"fights the {POSITIONS[face]} of {c.labels[against]}")
        steps.append(Step(f"unit {label}", f"{side.unit.name} ({where}; {c.contact[u]} in contact"
                          + (f", {c.support[u]} supporting rank(s)" if c.support[u] else "") + "): "
                          + "; ".join(_body_text(c, b) for b in mine), None, tuple(ids)))
        if len(c.units) > 2 and face:
            steps.append(Step(f"unit {label}", f"in the {POSITIONS[face]}: +{rules.flank_bonus if face == 1 else rules.rear_bonus} "
                              f"combat result; disrupts the enemy's ranks with {rules.combat.disrupt_min_ranks}+ ranks",
                              None, ("FB-M1", "FB-M2")))
    steps += _kit_steps(c)
    for g in c.groups:
        v = 0 if c.units[g.unit].charged else 1
        if g.keys[v] < 0:
            continue
        target = g.slots[g.pref[0][0]]
        body = c.bodies[target]
        from_front = c.faces[g.enemy][0] == g.unit or g.count == COUNT_SIDE_
        spec = attack_spec(g.attacker, body, v, rules, body.asf, from_front)
        pmf = _attacks_pmf(g.attacker, v, "Frenzy" in g.attacker.rules, c.units[g.unit].charged, rules,
                           g.count == COUNT_SUPPORT_)
        attacks = next(iter(pmf)) if len(pmf) == 1 else g.attacker.auto_dice
        who = {COUNT_FRONT_: "per front model in contact", COUNT_SUPPORT_: "per supporting model",
               COUNT_SIDE_: "per model facing the attacker", COUNT_SINGLE_: ""}[g.count]
        ids = {"impact": ("FB-S5",), "stomp": ("FB-S6",), "breath": ("FB-S7",)}.get(g.attacker.auto, ("FB-C1",))
        text = f"{attacks} {'hit' if g.attacker.auto else 'attack'}(s) {who}".rstrip() + f" → {body.name}"
        if spec is None:
            steps.append(Step(f"{c.labels[g.unit]} {g.name}", text + ": no effect on this troop type", None, ids))
            continue
        steps.append(Step(f"{c.labels[g.unit]} {g.name}", text + f" ({key_text(g.keys[v])})", None, ids))
        from mathhammer.fantasy.explain import explain_attack

        for step in explain_attack(spec, rules):
            steps.append(Step(f"  {step.stage}", step.detail, step.p, step.rules))
    steps += _challenge_steps(c)
    steps += _resolution_steps(c)
    return steps


def _order(c: CompiledCombat) -> str:
    from mathhammer.fantasy.combat.fight import strike_order_text

    return strike_order_text(c)


def _challenge_steps(c: CompiledCombat) -> list[Step]:
    issuer, other, mode, cap = c.challenge
    if not mode:
        return []
    a, b = c.bodies[issuer].name, c.bodies[other].name
    if mode == 1:
        text = (f"{a} challenges, {b} accepts: they strike only each other, nobody else strikes them "
                f"until one falls; wounds beyond the loser's count for the combat result up to +{cap}")
    else:
        text = (f"{a} challenges, {b} refuses: {b} does not fight"
                + (" and lends no Leadership" if c.rules.combat.refused_loses_leadership else "")
                + f" while {a} lives")
    return [Step("challenge", text, None, ("FB-K3",))]


def _resolution_steps(c: CompiledCombat) -> list[Step]:
    rules = c.rules
    steps = [Step("combat result", f"per side: wounds caused + the best rank bonus (ranks of ≥ "
                  f"{rules.rank_width} behind the first, max +{rules.max_rank_bonus}, none while "
                  f"disrupted) + standard +{rules.standard_bonus} + battle standard "
                  f"+{rules.battle_standard_bonus} + flank +{rules.flank_bonus} / rear +{rules.rear_bonus} "
                  "+ stated bonuses; a drawn round "
                  + ("goes by 1 to the side with a musician" if rules.combat.musician_breaks_ties
                     else "is a draw (no musician rule)"), None,
                  ("FB-C4", "FB-S3") + (("FB-M1",) if len(c.units) > 2 else ()))]
    for s, label in ((0, "A"), (1, "B")):
        gen = [ch.profile.name for side in c.sides[s] for ch in side.characters if ch.general]
        bsb = [ch.profile.name for side in c.sides[s] for ch in side.characters if ch.battle_standard]
        parts = []
        if gen:
            parts.append(f"general {gen[0]} (Ld {next(ch.profile.stats.ld for side in c.sides[s] for ch in side.characters if ch.general)}) lends his Ld while alive")
        if c.general_ld[s]:
            parts.append(f"a general outside the fight lends Ld {c.general_ld[s]}")
        if bsb:
            parts.append(f"battle standard {bsb[0]}: +{rules.battle_standard_bonus} combat result and "
                         "re-rolled break tests while alive")
        if c.reroll[s]:
            parts.append("a battle standard within range re-rolls failed break tests")
        if parts:
            steps.append(Step(f"side {label}", "; ".join(parts), None, ("FB-K4",)))
    for u, side in enumerate(c.units):
        unit = side.unit
        label = c.labels[u]
        if unit.has("Unbreakable"):
            steps.append(Step(f"{label} if it loses", "Unbreakable: no break test", None, ("FB-C5",)))
            continue
        unstable = [r for r in ("Unstable", "Daemonic Instability") if unit.has(r)]
        if unstable and rules.unstable == "lose_wounds":
            steps.append(Step(f"{label} if it loses", rules.instability_words(unstable[0]),
                              None, ("FB-C5",)))
            continue
        ld = max([unit.stats.ld] + [ch.profile.stats.ld for ch in side.characters])
        stubborn = unit.has("Stubborn") or any(ch.profile.has("Stubborn") for ch in side.characters)
        chances = ", ".join(f"lost by {d}: " + str(fb_tests.break_test(ld, d, rules, stubborn=stubborn))
                            for d in (1, 2, 3))
        how = ("Stubborn: unmodified Ld" if stubborn else f"Ld {ld} (best in the unit) − difference"
               + ("; Steadfast (more ranks than every enemy unit) → unmodified" if rules.steadfast else ""))
        steps.append(Step(f"{label} if it loses", f"break test, {how}; P(pass, no re-roll) {chances}", None,
                          ("FB-C5", "FB-T2") + (("FB-M3",) if len(c.units) > 2 else ())))
    flee = rules.combat.flee_dice
    steps.append(Step("pursuit", f"a broken unit flees {flee} (Swiftstride {rules.combat.swiftstride_dice}); "
                      "each winner no longer fighting another unit pursues; caught when any pursuit ≥ "
                      "the flee roll", fb_tests.pursuit(flee, flee), ("FB-C6",)
                      + (("FB-M4",) if len(c.units) > 2 else ())))
    return steps


def explain_challenge(model_a: str, model_b: str, *, charger=None, ruleset=None,
                      attack_mount=None) -> list[Step]:
    """The duel as compiled: strike order and each model's chain against the other."""
    from mathhammer.fantasy.combat.fight import compile_fight
    from mathhammer.fantasy.combat.challenge import _duel_side, load_model
    from mathhammer.fantasy.explain import explain_attack

    name = ruleset
    a = load_model(model_a, "a", name)
    b = load_model(model_b, "b", name)
    rules = load_ruleset(name or (a.ruleset if a.ruleset == b.ruleset else "wfb8"))
    c, _ = compile_fight(_duel_side(a, charger == "a", attack_mount == "b"),
                         _duel_side(b, charger == "b", attack_mount == "a"), ruleset=rules)
    steps = [Step("strike order, round 1", _order(c), None, ("FB-C2", "FB-C3"))]
    steps += _kit_steps(c)
    for g in c.groups:
        v = 0 if c.units[g.unit].charged else 1
        if g.keys[v] < 0:
            continue
        body = c.bodies[g.slots[g.pref[0][0]]]
        spec = attack_spec(g.attacker, body, v, rules, body.asf, True)
        if spec is None:
            continue
        pmf = _attacks_pmf(g.attacker, v, "Frenzy" in g.attacker.rules, c.units[g.unit].charged, rules, False)
        attacks = next(iter(pmf)) if len(pmf) == 1 else g.attacker.auto_dice
        steps.append(Step(f"{'AB'[g.unit]} {g.name}", f"{attacks} attack(s) → {body.name}", None, ("FB-K3",)))
        for step in explain_attack(spec, rules, attacks):
            steps.append(Step(f"  {step.stage}", step.detail, step.p, step.rules))
    steps.append(Step("the duel", "rounds repeat until a model falls (both fall only when they strike "
                      "in the same step); wounds carry over between rounds", None, ("FB-K3", "FB-C7")))
    return steps
