"""``fb artillery --explain``: the dice of a shot, then each kind of hit's wound chain.

Built from the :class:`~mathhammer.fantasy.artillery.common.Setup` the engines run
(:func:`mathhammer.fantasy.artillery.query.compile_shot`): the dice odds are the exact values
the engines use (the ruleset's misfire table, scatter die and to-hit roll, the volley's
shot enumeration); each kind of hit is explained by
:func:`mathhammer.fantasy.explain.explain_attack` on the very spec the engine compiles.
Where a template lands is geometry, sampled by the Monte Carlo kernel, so those steps
carry no fraction.
"""

from __future__ import annotations

from fractions import Fraction

from mathhammer.explain import Step
from mathhammer.fantasy.artillery import fire as fire
from mathhammer.fantasy.artillery.common import Setup
from mathhammer.fantasy.artillery.shot import (
    TEMPLATES,
    hit_spec,
    misfire_rows,
    misfire_table,
    uses_to_hit,
)
from mathhammer.fantasy.explain import explain_attack

_MISFIRE = Fraction(1, 6)  # one face of six (DICE-3)


def _hit_chain(label: str, setup: Setup, strength: int, mw: str | None,
               armour: bool = True) -> list[Step]:
    u = setup.unit
    spec = hit_spec(u.toughness, u.wounds, u.saves.armour, u.saves.ward, u.saves.regeneration,
                    strength, mw, setup.profile.armour_piercing, armour, setup.profile.flaming)
    return [Step(f"{label} · {step.stage}", step.detail, step.p, step.rules)
            for step in explain_attack(spec, setup.rules) if step.stage != "to hit"]


def _misfire_steps(setup: Setup, what: str, p: Fraction = _MISFIRE) -> list[Step]:
    rows, modifier = misfire_table(setup.weapon, setup.rules)
    table = ", ".join(f"{r.key.replace('_', ' ')} {v}" for r, v in
                      zip(rows, misfire_rows(setup.weapon, setup.rules).values(), strict=True))
    roll = "D6" + (f" {modifier:+d}" if modifier else "")
    note = setup.rules.war_machines.misfire_note
    rule = "FB-R6" if setup.weapon == "flame-cannon" else (
        "FB-R7" if setup.weapon == "multi-barrel" else "FB-R2")
    return [Step("misfire", f"{what}; then the misfire table ({roll}): {table}"
                 + (f" — {note}" if note else "") + "; P(misfire)", p, ("DICE-3", rule))]


def explain_artillery(setup: Setup) -> list[Step]:
    """Stages of one shot, from the compiled setup the engines run."""
    weapon, rules, prof, shot = setup.weapon, setup.rules, setup.profile, setup.shot
    if weapon in ("stone-thrower", "template"):
        faces = rules.scatter_hit_faces
        if weapon == "stone-thrower":
            steps = _misfire_steps(setup, "the artillery die shows MISFIRE")
            hit_p = (1 - _MISFIRE) * Fraction(faces, 6)
            move = "the artillery die's number of inches"
        else:
            steps = []
            hit_p = Fraction(faces, 6)
            move = f"{shot.scatter} inches (no artillery die, no misfire)"
        steps.append(Step("scatter", f"the scatter die shows HIT on {faces} of 6 faces: the "
                          f"template stays on the aim point; otherwise it moves {move} the "
                          "arrow's way; P(" + ("no misfire and " if weapon == "stone-thrower"
                                               else "") + "HIT)", hit_p,
                          ("DICE-4", "FB-R2" if weapon == "stone-thrower" else "DICE-7")))
        radius = TEMPLATES[shot.template]
        touch = ("models partly under it are hit on a 4+" if rules.template_partial_hits
                 else "every model whose base it touches is hit")
        steps.append(Step("template", f"{shot.template}, {2 * radius:g}\" across: {touch}; "
                          "where it lands is sampled", None, ("FB-R1",)))
        small_mw = None if weapon == "stone-thrower" else prof.multiple_wounds
        steps += _hit_chain(f"S{prof.strength} hit", setup, prof.strength, small_mw)
        if weapon == "stone-thrower" or prof.big_strength != prof.strength:
            steps += _hit_chain(f"S{prof.big_strength} hit (the base under the centre)", setup,
                                prof.big_strength, prof.multiple_wounds)
        return steps
    if weapon == "flame-cannon":
        return _flame(setup)
    if weapon == "multi-barrel":
        return _volley(setup)
    if not uses_to_hit(weapon, rules):  # the bouncing cannon ball (FB-R3)
        steps = _misfire_steps(setup, "the first artillery die shows MISFIRE: no shot")
        steps.append(Step("bounce", f"aimed {shot.short:g}\" short: the ball lands the first "
                          "artillery die's inches further, then bounces the second die's inches "
                          "(MISFIRE on the second: it stops where it landed); every model on "
                          "the line is hit, and a landing exactly on the front edge reaches the "
                          "unit (decision); both dice are enumerated exactly", None, ("FB-R3",)))
        return steps + _hit_chain(f"S{prof.big_strength} hit", setup, prof.big_strength,
                                  prof.multiple_wounds)
    shooting = rules.to_hit_shooting(shot.bs, shot.modifier)
    steps = [Step("to hit", f"BS {shot.bs}, modifier {shot.modifier:+d}: P(hit)",
                  Fraction(shooting.p_hit), ("FB-H2",))]
    if weapon == "bolt-thrower":
        steps.append(Step("through the ranks", f"S{prof.strength} on the first model, then one "
                          "less per rank while models die; no armour saves", None, ("FB-R4",)))
        return steps + _hit_chain(f"S{prof.strength} hit (first model)", setup, prof.strength,
                                  prof.multiple_wounds, armour=False)
    steps = _misfire_steps(setup, "a natural 1 on the to-hit roll misfires") + steps
    steps.append(Step("through the ranks", f"the first model S{prof.big_strength}, then "
                      f"S{prof.strength} on one model per rank, at most 5", None, ("FB-R3",)))
    return (steps + _hit_chain(f"S{prof.big_strength} hit (first model)", setup,
                               prof.big_strength, prof.multiple_wounds)
            + _hit_chain(f"S{prof.strength} hit", setup, prof.strength, None))


def _flame(setup: Setup) -> list[Step]:
    prof, shot, wm = setup.profile, setup.shot, setup.rules.war_machines
    chain = _hit_chain(f"S{prof.strength} flaming hit", setup, prof.strength,
                       prof.multiple_wounds)
    if setup.rules.artillery == "to_hit":
        lines = fire.line_models(setup)
        hits = fire.hits_pmf(lines)
        mean = sum((h * p for h, p in hits.items()), Fraction(0))
        return _misfire_steps(setup, "a D6: a natural 1 misfires") + [
            Step("hits", f"D3 hits on each {'file' if shot.facing == 'flank' else 'rank'} (at "
                 f"most its models, at most {fire.MAX_RANKS} lines): models {lines} → mean "
                 f"{mean} hits when it fires" + (" (short range: the bracketed profile)"
                                                 if shot.short_range else ""), None, ("FB-R6",)),
        ] + chain
    return _misfire_steps(setup, "the artillery die shows MISFIRE: no shot") + [
        Step("template", f"the flame template ({wm.flame_template_length:g}\" long, "
             f"{wm.flame_template_width:g}\" at its widest) starts with its tip at the muzzle, "
             f"{shot.muzzle:g}\" short of the unit, and moves the artillery die's 2-10\" straight"
             f" on; every base it touches is hit: models hit by face 2, 4, 6, 8, 10 = "
             f"{setup.info.get('models hit by artillery face 2, 4, 6, 8, 10')}", None,
             ("FB-R1", "FB-R6")),
    ] + chain


def _volley(setup: Setup) -> list[Step]:
    prof, shot = setup.profile, setup.shot
    mode, dice, plus, plan, p_misfire, p_thirty = fire.volley_plan(setup)
    normal, worse = fire.volley_to_hit(setup)
    mean_shots = sum((p * s for p, s, _, _ in plan), Fraction(0))
    flagged = sum((p for p, _, _, one in plan if one), Fraction(0))
    if mode == 0:
        what = (f"{dice} artillery dice: shots = the sum of their numbers; one MISFIRE "
                + ("→ the other's shots at −1 to hit" if dice == 2 else
                   "→ half the others' sum, rounded up (low confidence)")
                + "; two → no shots, the misfire table"
                + ("; three → 30 shots, then the Helblaster is removed" if dice == 3 else ""))
        one_label = "one MISFIRE"
    elif mode == 1:
        what = (f"Multiple Shots ({dice}D6" + (f"+{plus}" if plus else "") + "): one natural 6 → "
                "−1 to hit, two or more → no shots")
        one_label = "one 6"
    else:
        what = f"Multiple Shots ({plus}): a fixed number never misfires"
        one_label = "one 6"
    steps = []
    if p_misfire:
        steps += _misfire_steps(setup, "no shots", p_misfire)
    steps += [
        Step("shots", f"{what}; mean shots {mean_shots} ({float(mean_shots):.3f}); "
             f"P({one_label})", flagged, ("FB-R7",)),
        Step("to hit", f"BS {shot.bs}" + (", negative modifiers ignored (Volley Gun)" if mode
                                          else f", modifier {shot.modifier:+d}")
             + f": {normal.p_hit} a shot, {worse.p_hit} at −1; no multiple-shots penalty; P(hit)",
             Fraction(normal.p_hit), ("FB-H2", "FB-R7")),
    ]
    if p_thirty:
        steps.append(Step("three MISFIREs", "30 shots, then the Helblaster is removed", p_thirty,
                          ("FB-R7",)))
    return steps + _hit_chain(f"S{prof.strength} hit", setup, prof.strength, prof.multiple_wounds)
