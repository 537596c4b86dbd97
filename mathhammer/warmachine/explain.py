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
from mathhammer.warmachine.attack_setup import AttackSetup, AttackSpec, build_chain
from mathhammer.words import plural

_STAT = {"melee": "MAT", "ranged": "RAT", "magic": "FOCUS"}
_POWER = {"melee": "P+S", "ranged": "POW", "magic": "POW"}


def roll_fractions(k: int, bonus: int, defense: int, auto_hit: bool = False
                   ) -> tuple[Fraction, Fraction]:
    """Exact (P(hit), P(critical hit)) of k attack dice + bonus vs DEF, counting 6^k rolls."""
    counts = np.bincount(rules.attack_outcome_table(k, bonus, defense, auto_hit), minlength=3)
    return Fraction(int(counts[1] + counts[2]), 6**k), Fraction(int(counts[2]), 6**k)


def damage_roll_fractions(k: int, power: int, armor: int) -> tuple[Fraction, Fraction]:
    """Exact (P(damage > 0), E[damage]) of one damage roll of k dice + POW vs ARM."""
    table = rules.damage_table(k, power, armor)
    return Fraction(int((table > 0).sum()), 6**k), Fraction(int(table.sum()), 6**k)


def hit_fractions(spec: AttackSpec) -> tuple[Fraction, Fraction]:
    """Exact (P(hit), P(critical hit)) of one attack of a chain."""
    if spec.auto_miss:
        return Fraction(0), Fraction(0)
    return roll_fractions(spec.hit_dice, spec.bonus, spec.defense, spec.auto_hit)


def damage_fractions(spec: AttackSpec) -> tuple[Fraction, Fraction]:
    """Exact (P(damage > 0 | hit), E[damage | hit]) of one attack of a chain."""
    return damage_roll_fractions(spec.damage_dice, spec.power, spec.armor)


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
        why = (f"the target is {s.distance:g}\" away, beyond RNG {s.rng:g}\""
               if s.rng is not None and s.distance > s.rng
               else f"Stealth target {s.distance:g}\" away (more than 5\")")
        steps.append(Step(f"{label} to hit", f"{why}: ranged and magic attacks miss "
                          "automatically", p_hit, ("WM-A8",)))
        return steps
    if spec.auto_hit:
        state = ("knocked-down" if s.knocked_down else "stationary" if s.stationary
                 else "knocked-down or stationary")
        detail = (f"{roll}: hits automatically ({s.kind} vs a {state} target); the dice are "
                  "rolled for criticals only; P(hit)")
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
    dmg_roll = (f"{_dice_words(spec.damage_dice, s.boost_damage, pre, s, s.damage_dice_added)} "
                f"+ {_POWER[s.kind]} {spec.power} vs ARM {spec.armor}")
    need = spec.armor - spec.power + 1
    where = (f"deals damage on {need} or more on {spec.damage_dice}d6" if need > spec.damage_dice
             else "always deals damage")
    steps.append(Step(f"{label} damage", f"{dmg_roll}: {where}; damage = roll − ARM, at least 0; "
                      f"mean {e_dmg} per hit; P(damage > 0 | hit)", p_dmg,
                      ("WM-D1", "WM-D2") + (("WM-D3",) if pre else ())))
    steps.append(Step(f"{label} expected damage", f"P(hit) × mean per hit = {p_hit} × "
                      f"{e_dmg} = {p_hit * e_dmg}"))
    return steps



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
                          f"{mean_damage(specs)}; the distribution is their convolution"))
    if setup.boxes is not None:
        steps.append(Step("destroyed", f"P(total damage ≥ {plural(setup.boxes, 'box')}), read from the "
                          "damage distribution", None, ("WM-G6",)))
    return steps


# --------------------------------------------------------------------------- AOE and spray
def explain_aoe(setup) -> list[Step]:
    """The stages of ``wm aoe``: the attack roll, the deviations, each model's damage roll
    (per shot), then how several shots add up.

    Reads the exact engine's own resolution (:func:`aoe_geometry._resolve`) and geometry
    (:func:`aoe_geometry._scenarios`: the direct hit and the 36 equally likely deviations).
    """
    steps = _explain_one_shot(setup)
    if setup.rof > 1:
        steps.append(Step("shots", f"{setup.rof} shots at the same point, each its own attack "
                          "roll and deviation; each model's damage adds up over the shots, so "
                          f"P(at least one damage roll) = 1 − (1 − p)^{setup.rof} with p the "
                          "per-shot chance above; models destroyed follow every model's damage "
                          "jointly", None, ("WM-D4", "WM-D5")))
    return steps


def _explain_one_shot(setup) -> list[Step]:
    from mathhammer.warmachine import aoe_geometry as template

    models = template._resolve(setup)
    k, bonus, dfn, auto_hit = models[0].attack
    steps: list[Step] = []
    roll = f"{k}d6 + {_STAT[setup.kind]} {setup.stat}"
    mods = [w for on, w in ((setup.aim, "aiming +2"),
                            (setup.target_in_melee and setup.spray is None, "target in melee −4"))
            if on] + ([f"other {setup.modifier:+d}"] if setup.modifier else [])
    roll += (f" ({', '.join(mods)})" if mods else "")
    if setup.spray is not None:
        under = template.spray_coverage(models, setup.range, setup.spray, setup.spray_shape)
        for m, covered in zip(models, under):
            if not covered:
                steps.append(Step(m.name, "not under the spray template", Fraction(0), ("WM-D6",)))
                continue
            p_hit, _ = roll_fractions(*m.attack)
            p_dmg, e_dmg = damage_roll_fractions(*m.full)
            steps.append(Step(m.name, f"own attack roll {roll} vs DEF {m.attack[2]}, no "
                              f"target-in-melee penalty; P(hit)", p_hit, ("WM-D6", "WM-A1")))
            steps.append(Step(f"{m.name} damage", f"{m.full[0]}d6 + POW {m.full[1]} vs ARM "
                              f"{m.full[2]}: mean {e_dmg} per hit; expected "
                              f"{p_hit * e_dmg}; P(damage > 0 | hit)", p_dmg, ("WM-D1",)))
        return steps
    aim_x, cap, auto_miss = template._aim(setup)
    p_direct = Fraction(0) if auto_miss else roll_fractions(k, bonus, dfn, auto_hit)[0]
    if auto_miss:
        steps.append(Step("attack roll", f"the target is {setup.range:g}\" away, beyond RNG "
                          f"{setup.rng:g}\": a miss, deviating from the point at RNG", p_direct,
                          ("WM-D5",)))
    else:
        steps.append(Step("attack roll", f"{roll} vs DEF {dfn}: needs {dfn - bonus} or more on "
                          f"{k}d6; a hit is a direct hit on the target; P(direct hit)", p_direct,
                          ("WM-A1", "WM-D4")))
    steps.append(Step("deviation", f"on a miss: direction d6 (60° steps, 1 straight on) and "
                      f"d6 inches capped at {cap:g}\" (half the distance): 36 equal cases",
                      None, ("WM-D5",)))
    scenarios = template._scenarios(setup, models)
    direct_marks = scenarios[0][1] if p_direct > 0 else [0] * len(models)
    deviations = [marks for _, marks in scenarios[-36:]]
    blast_pow = models[0].blast[1]
    for i, m in enumerate(models):
        n_under = sum(1 for marks in deviations if marks[i])
        p_blast = (1 - p_direct) * Fraction(n_under, 36)
        _, e_full = damage_roll_fractions(*m.full)
        _, e_blast = damage_roll_fractions(*m.blast)
        if i == 0:
            expected = p_direct * e_full + p_blast * e_blast
            detail = (f"direct hit {p_direct} (full POW {m.full[1]}: {m.full[0]}d6 vs ARM "
                      f"{m.full[2]}, mean {e_full}); after a miss under the template in "
                      f"{n_under} of 36 deviations (blast POW {blast_pow}, mean {e_blast})")
            p_any = p_direct + p_blast
        else:
            p_any = p_blast + (p_direct if direct_marks[i] else 0)
            expected = p_any * e_blast
            detail = ((f"under the template on a direct hit; " if direct_marks[i] else
                       "not under it on a direct hit; ")
                      + f"after a miss in {n_under} of 36 deviations; blast POW {blast_pow}: "
                      f"{m.blast[0]}d6 vs ARM {m.blast[2]}, mean {e_blast}")
        steps.append(Step(m.name, f"{detail}; expected damage {expected}; "
                          "P(takes a damage roll)", p_any, ("WM-D4", "WM-D5")))
    return steps


# --------------------------------------------------------------------------- duels
def _exact(p: float, denominator: int = 6**6) -> Fraction:
    """A probability or mean the engine holds as a float, back to its exact fraction.

    Every figure of one roll has a denominator dividing 6^k (k ≤ 6 dice), and the float
    is within 1e-15 of it, so the nearest fraction with that bound is the exact value.
    """
    return Fraction(p).limit_denominator(denominator)


def start_situation(graph, target) -> tuple[int, int, int, int, int]:
    """(movement crippled, shield crippled, knocked down, engaged, effect flags) of the
    target as the chain starts: the indices the engine reads its option tables at for
    the first attack (WM-A4, WM-A6, WM-A7, WM-G4; a feat's entry knock-down and flags)."""
    root = graph.nodes[graph.roots[0] if graph.roots else 0]
    bits, mask = target.start_bits, target.shield_mask
    return (int(target.grid.crippled(bits, "M")), int(bool(mask) and bits & mask == mask),
            int(target.knocked_down or root.entry_knockdown), int(target.engaged),
            int(root.entry_flags))


def start_down_word(graph, target) -> str:
    """What the target is as the chain starts when it starts knocked down or stationary:
    "knocked down", "stationary" (``--stationary``, Icy Gaze) or both (WM-A4, WM-A7)."""
    root = graph.roots[0] if graph.roots else 0
    return graph.down_words(target.down_word if target.knocked_down else "")[root]


def start_numbers(graph, target) -> tuple[int, int, int, list[str]]:
    """(DEF vs melee, DEF vs ranged and magic, ARM, why) the engine plays against the
    target as the chain starts (:func:`start_situation`)."""
    mcrip, scrip, kd, eng, fl = start_situation(graph, target)
    d_def, d_rdef, d_arm = graph.flag_mods(fl)
    melee = target.defense_against("melee", bool(mcrip), bool(kd)) + d_def
    ranged = target.defense_against("ranged", bool(mcrip), bool(kd)) + d_def + d_rdef
    armor = target.armor_against(False, bool(scrip)) + d_arm
    why = []
    if mcrip:
        why.append("movement system crippled: DEF 7")
    if kd:
        why.append(f"{start_down_word(graph, target)}: melee attacks hit automatically, "
                   "ranged and magic vs DEF 5")
    if eng:
        why.append("engaged in melee: ranged and magic attacks −4")
    if target.def_bonus or target.ranged_def_bonus:
        why.append(f"buffs DEF {target.def_bonus:+d}"
                   + (f", vs ranged and magic {target.ranged_def_bonus:+d}"
                      if target.ranged_def_bonus else ""))
    on = [e.name for i, e in enumerate(graph.flags) if fl >> i & 1]
    if on:
        why.append("in effect from the start: " + ", ".join(on))
    if target.shield_mask:
        why.append("shield system crippled: no +2 ARM" if scrip else
                   "+2 ARM from its shield while the shield system works (Chain Weapon "
                   "ignores it)")
    return max(melee, 0), max(ranged, 0), armor, why


def target_words(graph, target) -> str:
    """The target as the engine plays it at the start: effective DEF and ARM with why."""
    mcrip, scrip, *_ = start_situation(graph, target)
    melee, ranged, armor, why = start_numbers(graph, target)
    later = []
    if "M" in target.grid.system_masks and not mcrip:
        later.append("DEF 7 once its movement system is crippled")
    if target.shield_mask and not scrip:
        later.append("no shield bonus once the shield system is crippled")
    return (f"{target.name}: base DEF {target.defense}, ARM {target.armor}; as the chain "
            f"starts DEF {melee} vs melee, {ranged} vs ranged and magic, ARM {armor}"
            + (f" ({'; '.join(why)})" if why else "")
            + (f"; later {', '.join(later)}" if later else "")
            + f"; {plural(target.grid.boxes_left(target.start_bits), 'box')} left")


def explain_duel(graph, target, opts, policy: str, report=None) -> list[Step]:
    """Each attack option of a duel as the policy sees it as the chain starts — P(hit),
    P(critical) and the mean damage per hit, unboosted / boosted, read from the engine's
    option tables at the target's starting situation (crippled movement, shield,
    knock-down, engaged, effects: :func:`start_situation`) — then the decisions with the
    value of every alternative."""
    mcrip, scrip, kd, eng, fl = start_situation(graph, target)
    steps = [Step("target", target_words(graph, target), None,
                  ("WM-A4", "WM-A6", "WM-A7", "WM-D2", "WM-G1", "WM-G4"))]
    seen = []
    for o, opt in enumerate(graph.options):
        if opt in seen:  # the same attack reached from another node of the activation
            continue
        seen.append(opt)
        stat = {"melee": "MAT", "ranged": "RAT", "magic": "FOCUS"}[opt.kind]
        power = "P+S" if opt.kind == "melee" else "POW"
        notes = [text for on, text in ((opt.pre_boosted, "damage pre-boosted"),
                                       (opt.crippled, "system crippled: −1 die"),
                                       (opt.auto_hit, "hits automatically"),
                                       (opt.knocks_down, f"a hit leaves it {opt.down_word}"),
                                       (opt.crit_knocks_down,
                                        f"a critical leaves it {opt.down_word}"),
                                       (opt.crit_amputation, "a critical cripples the systems it "
                                        "damages (Critical Amputation)"),
                                       (opt.ignores_shield, "ignores shields"),
                                       (opt.no_damage, "no damage roll")) if on]
        hit = [_exact(opts.p_hit[o, b, mcrip, kd, eng, fl]) for b in (0, 1)]
        crit = [_exact(opts.p_crit[o, b, mcrip, kd, eng, fl]) for b in (0, 1)]
        cells = np.arange(opts.pmf.shape[4])
        mean = [_exact(float(opts.pmf[o, scrip, b, fl] @ cells)) for b in (0, 1)]
        d_def, d_rdef, d_arm = graph.flag_mods(fl)
        defense = target.defense_against(opt.kind, bool(mcrip), bool(kd)) + d_def + (
            d_rdef if opt.kind != "melee" else 0)
        armor = target.armor_against(opt.ignores_shield, bool(scrip)) + d_arm
        boosts = ("" if opt.can_boost_hit else "; its attack roll cannot be boosted") + (
            "" if opt.can_boost_damage else "; its damage roll cannot be boosted")
        rules_cited: tuple[str, ...] = ("WM-A1", "WM-A5", "WM-D1")
        extra = ""
        if opt.in_melee == "always":
            extra += "; cast at the model it is fighting: −4 (target in melee)"
            rules_cited += ("WM-A6",)
        elif opt.in_melee == "engaged" and opt.kind != "melee" and not opt.spray and not eng:
            engaged = [_exact(opts.p_hit[o, b, mcrip, kd, 1, fl]) for b in (0, 1)]
            extra += (f"; at a target engaged in melee −4: P(hit) {engaged[0]}, boosted "
                      f"{engaged[1]}")
            rules_cited += ("WM-A6",)
        if opt.aoe > 0 and not opt.spray:
            extra += (f"; a miss deviates and still catches the target with a blast roll "
                      f"(POW {-(-opt.power // 2)}) with P {_exact(opts.p_under[o], 36)}")
            rules_cited += ("WM-D4", "WM-D5")
        if opts.auto_miss[o]:
            extra += "; out of range or a Stealth target beyond 5\": misses automatically"
            rules_cited += ("WM-A8",)
        steps.append(Step(opt.name, f"{stat} {opt.stat} vs DEF {max(defense, 0)}, {power} "
                          f"{opt.power} vs ARM {armor}"
                          + (f" ({', '.join(notes)})" if notes else "")
                          + f": P(hit) {hit[0]}, boosted {hit[1]}; P(critical) {crit[0]}, "
                          f"boosted {crit[1]}; mean damage per hit {mean[0]}, boosted "
                          f"{mean[1]}{boosts}{extra}", None, rules_cited))
    model = (report.info.get("model", "") if report is not None else "")
    steps.append(Step("policy", f"{policy}: {model}; every decision state below lists the value "
                      "of each alternative (the arrow is the choice)", None,
                      ("WM-F2", "WM-F5", "WM-G2", "WM-G4")))
    if report is not None:
        for line in report.info.get("decisions", [])[:12]:
            steps.append(Step("decision", line))
    return steps
