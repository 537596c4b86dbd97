"""``fb artillery --explain``: the dice of a shot, then each kind of hit's wound chain.

The dice odds are the exact values the engines use (:func:`artillery._misfire_report`,
the ruleset's scatter die and to-hit roll); each kind of hit is explained by
:func:`mathhammer.fantasy.explain.explain_attack` on the very
:class:`~mathhammer.fantasy.chain.AttackSpec` the engine compiles
(:func:`artillery.hit_spec`). Where the template lands is geometry, sampled by the
Monte Carlo kernel, so those steps carry no fraction.
"""

from __future__ import annotations

from fractions import Fraction

from mathhammer.explain import Step
from mathhammer.fantasy import artillery as art
from mathhammer.fantasy.explain import explain_attack
from mathhammer.fantasy.models import UnitProfile
from mathhammer.fantasy.rulesets import Ruleset

_MISFIRE = Fraction(1, 6)  # one face of six (DICE-3)


def _hit_chain(label: str, unit: UnitProfile, rules: Ruleset, strength: int, mw: str | None,
               ap: int, armour: bool = True) -> list[Step]:
    spec = art.hit_spec(unit, strength, mw, ap, armour)
    return [Step(f"{label} · {step.stage}", step.detail, step.p, step.rules)
            for step in explain_attack(spec, rules) if step.stage != "to hit"]


def _misfire_steps(what: str) -> list[Step]:
    table = ", ".join(f"{name[2:].replace('_', ' ')} {value.numerator}/{value.denominator}"
                      for name, value in art.MISFIRE_TABLE.items())
    return [Step("misfire", f"{what}; then the misfire table: {table}; P(misfire)", _MISFIRE,
                 ("DICE-3", "FB-R2"))]


def explain_artillery(weapon: str, unit: UnitProfile, rules: Ruleset, shot: art.Shot) -> list[Step]:
    """Stages of one shot of ``weapon`` at ``unit`` under ``rules``."""
    s_small, s_big, mw = art.hit_strengths(weapon, shot)
    ap = shot.armour_piercing
    if weapon == "stone-thrower":
        faces = rules.scatter_hit_faces
        steps = _misfire_steps("the artillery die shows MISFIRE")
        steps.append(Step("scatter", f"the scatter die shows HIT on {faces} of 6 faces: the "
                          "template stays on the aim point; otherwise it moves the artillery "
                          "die's number of inches the arrow's way; P(no misfire and HIT)",
                          (1 - _MISFIRE) * Fraction(faces, 6), ("DICE-4", "FB-R2")))
        radius = art.TEMPLATES[shot.template]
        touch = ("models partly under it are hit on a 4+" if rules.template_partial_hits
                 else "every model whose base it touches is hit")
        steps.append(Step("template", f"{shot.template}, {2 * radius:g}\" across: {touch}; "
                          "where it lands is sampled", None, ("FB-R1",)))
        steps += _hit_chain(f"S{s_small} hit", unit, rules, s_small, None, ap)
        steps += _hit_chain(f"S{s_big} hit (the base under the centre)", unit, rules, s_big, mw, ap)
        return steps
    if not art.uses_to_hit(weapon, rules):  # the bouncing cannon ball (FB-R3)
        steps = _misfire_steps("the first artillery die shows MISFIRE: no shot")
        steps.append(Step("bounce", f"aimed {shot.short:g}\" short: the ball lands the first "
                          "artillery die's inches further, then bounces the second die's inches "
                          "(MISFIRE on the second: it stops where it landed); every model on "
                          "the line is hit; both dice are enumerated exactly", None, ("FB-R3",)))
        return steps + _hit_chain(f"S{s_big} hit", unit, rules, s_big, mw, ap)
    shooting = rules.to_hit_shooting(shot.bs, shot.modifier)
    steps = [Step("to hit", f"BS {shot.bs}, modifier {shot.modifier:+d}: P(hit)",
                  Fraction(shooting.p_hit), ("FB-H2",))]
    if weapon == "bolt-thrower":
        steps.append(Step("through the ranks", f"S{s_small} on the first model, then one less "
                          "per rank while models die; no armour saves", None, ("FB-R4",)))
        return steps + _hit_chain(f"S{s_small} hit (first model)", unit, rules, s_small, mw, ap,
                                  armour=False)
    steps = [Step("misfire", "a natural 1 on the to-hit roll misfires", _MISFIRE, ("FB-R3",))] + steps
    steps.append(Step("through the ranks", f"the first model S{s_big}, then S{s_small} on one "
                      "model per rank, at most 5", None, ("FB-R3",)))
    return (steps + _hit_chain(f"S{s_big} hit (first model)", unit, rules, s_big, mw, ap)
            + _hit_chain(f"S{s_small} hit", unit, rules, s_small, None, ap))
