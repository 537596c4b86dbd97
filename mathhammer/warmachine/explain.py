"""``wm attack --explain``: each roll of an attack chain with its exact fraction.

The numbers come from the same tables the engines read (``rules.attack_outcome_table``,
``rules.damage_table``, :func:`chain.build_chain`), counted over every face
combination, so the explanation cannot drift from the answer; the words say which
flag moved which number (WM-A1..A8, WM-D1..D3).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from mathhammer.explain import Step
from mathhammer.warmachine import rules
from mathhammer.warmachine.chain import AttackSetup, AttackSpec, build_chain

_STAT = {"melee": "MAT", "ranged": "RAT", "magic": "FOCUS"}
_POWER = {"melee": "P+S", "ranged": "POW", "magic": "POW"}


def hit_fractions(spec: AttackSpec) -> tuple[Fraction, Fraction]:
    """Exact (P(hit), P(critical hit)) of one attack roll, by counting its 6^k rolls."""
    if spec.auto_miss:
        return Fraction(0), Fraction(0)
    table = rules.attack_outcome_table(spec.hit_dice, spec.bonus, spec.defense, spec.auto_hit)
    counts = np.bincount(table, minlength=3)
    total = 6**spec.hit_dice
    return Fraction(int(counts[1] + counts[2]), total), Fraction(int(counts[2]), total)


def damage_fractions(spec: AttackSpec) -> tuple[Fraction, Fraction]:
    """Exact (P(damage > 0 | hit), E[damage | hit]) of one damage roll."""
    table = rules.damage_table(spec.damage_dice, spec.power, spec.armor)
    total = 6**spec.damage_dice
    return Fraction(int((table > 0).sum()), total), Fraction(int(table.sum()), total)


def mean_damage(specs: list[AttackSpec]) -> Fraction:
    """Exact expected total damage of a chain: sum of P(hit) × E[damage | hit]."""
    return sum((hit_fractions(s)[0] * damage_fractions(s)[1] for s in specs), Fraction(0))


def _defense_words(s: AttackSetup) -> str:
    reasons = []
    if s.movement_crippled:
        reasons.append("movement crippled: DEF 7")
    if s.kind != "melee":
        if s.knocked_down or s.stationary:
            reasons.append(("knocked down" if s.knocked_down else "stationary") + ": DEF 5")
        if s.cover:
            reasons.append("cover +4")
        elif s.concealment:
            reasons.append("concealment +2")
        if s.elevated:
            reasons.append("elevated +2")
    if s.def_bonus:
        reasons.append(f"spells/effects {s.def_bonus:+d}")
    return f"base DEF {s.defense}" + (f" ({'; '.join(reasons)})" if reasons else "")


def _armor_words(s: AttackSetup) -> str:
    reasons = []
    if s.shield:
        reasons.append("shield ignored by the back strike" if s.back_strike else "shield +2")
    if s.camped_focus:
        reasons.append(f"camped focus +{s.camped_focus}")
    if s.arm_bonus:
        reasons.append(f"spells/feats {s.arm_bonus:+d}")
    return f"base ARM {s.armor}" + (f" ({'; '.join(reasons)})" if reasons else "")


def _modifier_words(s: AttackSetup, first: bool) -> list[str]:
    words = []
    for on, text in ((s.aim, "aiming +2"), (s.back_strike, "back strike +2"),
                     (s.free_strike, "free strike +2"), (s.target_in_melee, "target in melee −4"),
                     (s.powerful_charge and first, "powerful charge +2"),
                     (s.slam_larger_base, "slam vs larger base −2")):
        if on:
            words.append(text)
    if s.modifier:
        words.append(f"other {s.modifier:+d}")
    return words


def _dice_words(k: int, boosted: bool, pre_boosted: bool, s: AttackSetup, extra: int) -> str:
    why = []
    if pre_boosted:
        why.append("pre-boosted +1")
    elif boosted:
        why.append("boosted +1")
    if s.crippled:
        why.append("weapon crippled −1")
    if extra:
        why.append(f"extra dice {extra:+d}")
    return f"{k}d6" + (f" ({', '.join(why)})" if why else "")


def _attack_steps(s: AttackSetup, spec: AttackSpec, label: str, first: bool) -> list[Step]:
    stat = _STAT[s.kind]
    p_hit, p_crit = hit_fractions(spec)
    mods = _modifier_words(s, first)
    roll = (f"{_dice_words(spec.hit_dice, s.boost_hit, False, s, s.extra_hit_dice)} + {stat} "
            f"{s.stat}" + (f" ({', '.join(mods)})" if mods else "") + f" vs DEF {spec.defense}")
    steps = []
    if spec.auto_miss:
        steps.append(Step(f"{label} to hit", f"Stealth target {s.stealth_range}\" away (more than "
                          "5\"): ranged and magic attacks miss automatically", p_hit, ("WM-A8",)))
        return steps
    if spec.auto_hit:
        detail = (f"{roll}: hits automatically ({s.kind} vs a knocked-down or stationary "
                  "target); the dice are rolled for criticals only; P(hit)")
        steps.append(Step(f"{label} to hit", detail, p_hit, ("WM-A4",)))
    else:
        need = spec.defense - spec.bonus
        k = spec.hit_dice
        detail = (f"{roll}: needs {need} or more on {k}d6; all 1s miss"
                  + ("; all 6s hit whatever the DEF" if k >= 2 else "") + "; P(hit)")
        steps.append(Step(f"{label} to hit", detail, p_hit,
                          ("WM-A1", "WM-A2") + (("WM-A3",) if k >= 2 else ()) + (("WM-A6",) if mods else ())))
    steps.append(Step(f"{label} critical", "a hit with at least two dice showing the same "
                      "number; P(critical hit)",
                      p_crit, ("WM-A5",)))
    pre = (s.charge and first) or s.free_strike
    p_dmg, e_dmg = damage_fractions(spec)
    dmg_roll = (f"{_dice_words(spec.damage_dice, s.boost_damage, pre, s, s.extra_damage_dice)} "
                f"+ {_POWER[s.kind]} {spec.power} vs ARM {spec.armor}")
    need = spec.armor - spec.power + 1
    where = (f"deals damage on {need} or more on {spec.damage_dice}d6" if need > spec.damage_dice
             else "always deals damage")
    steps.append(Step(f"{label} damage", f"{dmg_roll}: {where}; damage = roll − ARM, at least 0; "
                      f"mean {_frac(e_dmg)} per hit; P(damage > 0 | hit)", p_dmg,
                      ("WM-D1", "WM-D2") + (("WM-D3",) if pre else ())))
    steps.append(Step(f"{label} expected damage", f"P(hit) × mean per hit = {_frac(p_hit)} × "
                      f"{_frac(e_dmg)} = {_frac(p_hit * e_dmg)}"))
    return steps


def _frac(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def explain_attack(setup: AttackSetup) -> list[Step]:
    """The stages of ``wm attack`` for ``setup``: target, each distinct attack, the total."""
    specs = build_chain(setup)
    first = specs[0]
    steps = [Step("target", f"{_defense_words(setup)} → effective DEF {first.defense}; "
                  f"{_armor_words(setup)} → effective ARM {first.armor}", None,
                  ("WM-A7", "WM-D2"))]
    n = len(specs)
    if n > 1 and specs[0] != specs[1]:  # a charge: the first attack differs from the rest
        steps += _attack_steps(setup, specs[0], "attack 1 (charge)", True)
        steps += _attack_steps(setup, specs[1], f"attacks 2..{n}" if n > 2 else "attack 2", False)
    else:
        steps += _attack_steps(setup, first, "each attack" if n > 1 else "attack", True)
    if n > 1:
        steps.append(Step("total", f"{n} independent attacks: expected damage "
                          f"{_frac(mean_damage(specs))}; the distribution is their convolution"))
    if setup.boxes is not None:
        steps.append(Step("destroyed", f"P(total damage ≥ {setup.boxes} boxes), read from the "
                          "damage distribution", None, ("WM-G6",)))
    return steps
