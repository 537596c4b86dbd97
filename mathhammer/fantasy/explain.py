"""``--explain`` for the Fantasy commands: each stage, the rule lookup, the exact chance.

Every number comes from the code the engines run: the needed scores from the
:class:`~mathhammer.fantasy.rules.ruleset.Ruleset` lookups that
:func:`~mathhammer.fantasy.chain.core.compile_spec` calls, the chances by pushing the
compiled stage tables through :func:`~mathhammer.fantasy.chain.core._stage` (the exact
engine's own step), tests and pursuit from :mod:`mathhammer.fantasy.characteristic_tests`. So the
product of the attack-chain stage fractions IS the engine's P(unsaved wound) per
attack (``tests/test_explain_fantasy.py`` checks it spec by spec).

>>> from mathhammer.fantasy.chain.core import AttackSpec
>>> spec = AttackSpec(ws=4, target_ws=3, strength=4, toughness=4, save=5)
>>> [s.line() for s in explain_attack(spec, "wfb8")][0]
'to hit: WS 4 vs WS 3 → 3+ (WS chart) → 2/3 = 66.67% [FB-H1]'
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from mathhammer.explain import Step
from mathhammer.fantasy.chain import core as chain
from mathhammer.fantasy import characteristic_tests as fb_tests
from mathhammer.fantasy.chain.core import AttackSpec, compile_spec
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset
from mathhammer.words import plural

MINUS = "−"


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else (f"{MINUS}{-n}" if n < 0 else "0")


def chain_decisions(rules: Ruleset | str) -> tuple[str, ...]:
    """The conditional decisions an attack chain under ``rules`` rests on (FB-W1 in t9a1)."""
    return ("FB-W1",) if load_ruleset(rules).name == "t9a1" else ()


def _needed_from_row(row) -> int | None:
    """The lowest face that passes in a compiled 'out' row (0 = stopped), None if none."""
    passing = [f for f in range(1, 7) if int(row[f]) == 0]
    return passing[0] if passing else None


def _reroll_text(mode: str | None, why: str = "") -> str:
    if mode is None:
        return ""
    what = {"failed": "failed rolls", "successes": "successes (forced)", "ones": "1s"}[mode]
    return f"; re-roll {what}{' (' + why + ')' if why else ''}"


def shooting_modifier_parts(rules: Ruleset | str, modifier: int = 0, long_range: bool = False,
                            moving: bool = False, cover: str | None = None,
                            multiple_shots: bool = False, stand_and_shoot: bool = False,
                            large_target: bool = False) -> list[tuple[str, int]]:
    """Each FB-H2 modifier that applies, valued by the ruleset (same call as the query)."""
    from mathhammer.fantasy.chain.query import shooting_modifier

    rules = load_ruleset(rules)
    parts = []
    for label, flag, on in (("long range", "long_range", long_range), ("moving", "moving", moving),
                            ("multiple shots", "multiple_shots", multiple_shots),
                            ("stand and shoot", "stand_and_shoot", stand_and_shoot),
                            ("large target", "large_target", large_target)):
        if on:
            parts.append((label, shooting_modifier(rules, **{flag: True})))
    if cover is not None:
        parts.append((f"{cover} cover", shooting_modifier(rules, cover=cover)))
    if modifier:
        parts.append(("other", modifier))
    return parts


def _hit_step(spec: AttackSpec, rules: Ruleset, p_hit: Fraction, p_poison: Fraction,
              modifier_parts: list[tuple[str, int]] | None) -> Step:
    mode = chain._hit_mode(spec, rules)
    reasons = []
    if spec.hatred:
        reasons.append("Hatred")
    if chain._hit_mode(replace(spec, hatred=False, reroll_hits=None), rules) == "failed":
        reasons.append("Always Strikes First, I ≥ enemy I")
    reroll = _reroll_text(mode, ", ".join(reasons))
    ids: tuple[str, ...]  # the docs/rules.md ids this step cites
    if spec.auto_hit:
        return Step("to hit", "hits automatically", p_hit, ("FB-H1",))
    if spec.hit_on_at_most is not None:
        return Step("roll", f"a natural {spec.hit_on_at_most} or less on a D6 (no re-roll)", p_hit,
                    ())
    if spec.bs is not None:
        shot = rules.to_hit_shooting(spec.bs, spec.shooting_modifier)
        if spec.bs == 0 and not shot.possible:
            return Step("to hit", "BS 0: this ruleset's models with BS 0 cannot shoot", p_hit,
                        ("FB-V0", "FB-H2"))
        parts = modifier_parts if modifier_parts is not None else (
            [("modifiers", spec.shooting_modifier)] if spec.shooting_modifier else [])
        mods = "".join(f" {MINUS} ({label} {_signed(v)})" for label, v in parts)
        text = f"{rules.charts.shooting_base} {MINUS} BS {spec.bs}{mods} = {shot.nominal}+"
        if not shot.possible:
            text += ": cannot hit"
        elif shot.hopeless:
            text += f": a 6, then {shot.second}+ on a second D6" + (
                " (poison does not apply)" if spec.poison else "")
            if mode == "ones":
                text += "; a 1 on either die re-rolls the whole procedure (decision)"
        elif shot.nominal < shot.first:
            text += f" → {shot.first}+ (a natural 1 always misses)"
        ids = ("FB-H2",)
    elif spec.hit_on is not None:
        text, ids = f"fixed {spec.hit_on}+", ("FB-H1",)
    else:
        needed = rules.to_hit_melee(spec.ws, spec.target_ws)
        if needed is None:
            return Step("to hit", f"WS {spec.ws} vs WS 0: a WS 0 model is hit automatically "
                        "(no roll, so no poisoned 6s or re-rolls)", p_hit, ("FB-V0", "FB-H1"))
        text, ids = f"WS {spec.ws} vs WS {spec.target_ws} → {needed}+ (WS chart)", ("FB-H1",)
        if spec.ws == 0:
            text = (f"WS 0 vs WS {spec.target_ws} → " + (f"{needed}+" if needed <= 6 else
                    "cannot hit") + f" (a WS 0 attacker, {rules.name})")
            ids = ("FB-V0", "FB-H1")
    if spec.always_strikes_first and not rules.always_strikes_first_reroll:
        text += f"; Always Strikes First: no re-roll in {rules.name}"
    if mode is not None:
        text += reroll
        ids += ("FB-H3", "DICE-5")
    if p_poison:
        share = fraction_share(p_poison, p_hit)
        text += f"; poison: natural 6s ({share} of hits) wound automatically"
        ids += ("FB-W2",)
    return Step("to hit", text, p_hit, ids)


def fraction_share(part: Fraction, whole: Fraction) -> str:
    """``part/whole`` as an exact fraction (``0`` when the whole is 0)."""
    share = part / whole if whole else Fraction(0)
    return str(share)


def _cond(after: Fraction, before: Fraction) -> Fraction | None:
    return after / before if before else None


def _unreached(before: Fraction) -> str:
    return "" if before else " (no attack gets this far)"


def explain_attack(spec: AttackSpec, rules: Ruleset | str = "wfb8",
                   attacks: int | str | None = None,
                   modifier_parts: list[tuple[str, int]] | None = None) -> list[Step]:
    """The hit → wound → armour → ward → Multiple Wounds chain of one attack, stage by stage.

    Each step's ``p`` is the chance of getting through that stage given the ones
    before, so the product of the four is the engine's P(unsaved wound) per attack.
    """
    rules = load_ruleset(rules)
    t = compile_spec(spec, rules)
    kb = rules.killing_blow if spec.killing_blow else None
    slay = kb == "slay" and spec.is_melee and spec.killing_blow_applies
    lethal = kb == "lethal_strike"

    hit = chain._stage([Fraction(1)], t.hit_rr, t.hit_out, 3, 36 if t.hopeless else 6)
    wound = chain._stage(hit, t.wound_rr, t.wound_out, 4)
    armour = chain._stage(wound, t.armour_rr, t.armour_out, 4)
    final = chain._stage(armour, t.ward_rr, t.ward_out, 3)
    p_hit, p_wound, p_unsaved, p_through = 1 - hit[0], 1 - wound[0], 1 - armour[0], 1 - final[0]
    steps = [_hit_step(spec, rules, p_hit, hit[2], modifier_parts)]

    # ---- to wound (FB-W1, FB-W2)
    needed = rules.to_wound(spec.strength, spec.toughness)
    text = f"S {spec.strength} vs T {spec.toughness} → " + (
        f"{needed}+" if needed is not None else "cannot wound")
    if spec.wounds_automatically:
        text = "wounds automatically (no roll to wound)"
    else:
        text += _reroll_text(chain._check_reroll(spec.reroll_wounds, "reroll_wounds"))
    ids: tuple[str, ...] = ("FB-W1",)
    if hit[2]:
        text += "; poisoned 6s wound automatically (no roll" + (
            ", so even where S cannot wound T: decision)" if needed is None else ")")
        ids += ("FB-W2",)
    if spec.killing_blow:
        ids += ("FB-W2",) if "FB-W2" not in ids else ()
        if slay:
            text += (f"; natural 6 = Killing Blow ({fraction_share(wound[2], p_wound)} of wounds): "
                     "no armour save, no regeneration (decision: Regeneration is not taken "
                     "against it), slays if the ward fails")
        elif lethal:
            text += (f"; natural 6 = Lethal Strike ({fraction_share(wound[2], p_wound)} of wounds)"
                     ": "
                     "Armour Piercing (6), no regeneration")
        elif kb == "slay":
            text += ("; Killing Blow: no effect " + ("when shooting" if not spec.is_melee
                                                     else "on this troop type"))
    steps.append(Step("to wound", text + _unreached(p_hit), _cond(p_wound, p_hit), ids))

    # ---- armour (FB-V1)
    normal = rules.armour_needed(spec.save, spec.strength, spec.armour_piercing)
    if spec.save is None:
        text = "no armour save"
    else:
        mod = rules.save_modifier(spec.strength)
        text = f"save {spec.save}+, S {spec.strength} → " + (
            f"{MINUS}{mod}" if mod else "no modifier")
        if spec.armour_piercing:
            text += f", AP {MINUS}{spec.armour_piercing}"
        text += " → " + (f"{normal}+" if normal is not None else "no save")
        if wound[2] and lethal:
            six = rules.armour_needed(spec.save, spec.strength, spec.armour_piercing + 6)
            text += "; Lethal Strike 6s: " + (f"{six}+" if six is not None else "no save")
        if wound[2] and slay:
            text += "; Killing Blow 6s: no save"
    text += _reroll_text(chain._check_reroll(spec.reroll_armour, "reroll_armour"))
    steps.append(Step("armour", text + "; P(no save)" + _unreached(p_wound),
                      _cond(p_unsaved, p_wound), ("FB-V1",)))

    # ---- ward / regeneration (FB-V2)
    taken = _needed_from_row(t.ward_out[1])
    offered = []
    if spec.ward is not None:
        offered.append(f"ward {spec.ward}+")
    if spec.regeneration is not None:
        offered.append(f"regeneration {spec.regeneration}+"
                       + (" (lost: flaming)" if spec.flaming else ""))
    if not offered:
        text = "no ward or regeneration save"
    else:
        _, _, which = chain.special_save(spec, spec.regeneration is not None and not spec.flaming)
        text = ", ".join(offered) + f" → takes {which}" + (f" {taken}+" if taken else "")
        if spec.regeneration is not None and not spec.flaming and (slay or lethal) and wound[2]:
            six = _needed_from_row(t.ward_out[2])
            text += "; on natural-6 wounds no regeneration → " + (
                f"ward {six}+" if six else "no save")
    ward_rr = chain._check_reroll(spec.reroll_ward_save, "reroll_ward_save")
    regen_rr = chain._check_reroll(spec.reroll_regeneration, "reroll_regeneration")
    if ward_rr and spec.ward is not None:
        text += _reroll_text(ward_rr).replace("; re-roll", "; ward: re-roll")
    if regen_rr and spec.regeneration is not None:
        text += _reroll_text(regen_rr).replace("; re-roll", "; regeneration: re-roll")
    if (ward_rr or regen_rr) and spec.ward is not None and spec.regeneration is not None:
        text += " (the better one is taken with its own re-roll counted)"
    steps.append(Step("ward/regeneration", text + "; P(not saved)" + _unreached(p_unsaved),
                      _cond(p_through, p_unsaved), ("FB-V2",)))

    # ---- Multiple Wounds (FB-V3) and the per-attack answer
    each = t.wounds_each
    if spec.multiple_wounds:
        mean_each = sum((k * p for k, p in enumerate(each)), Fraction(0))
        shares = [(k, p) for k, p in enumerate(each) if p]
        spread = (f"always {shares[0][0]} wound(s)" if len(shares) == 1 else
                  "P(k wounds) " + ", ".join(f"{k}: {p}" for k, p in shares)
                  + f" (mean {mean_each})")
        steps.append(Step("multiple wounds", f"{spec.multiple_wounds} per unsaved wound, capped at "
                          f"W {spec.target_wounds}: {spread}", None, ("FB-V3",)))
    else:
        mean_each = Fraction(1)
    steps.append(Step("per attack", "P(unsaved wound" + (" or Killing Blow slay)" if final[2]
                                                         else ")"), p_through))
    if slay and final[2]:
        steps.append(Step("per attack", "P(slain outright by Killing Blow)", final[2], ("FB-W2",)))
    if attacks is not None:
        attacks_text = str(attacks)
        expr = chain.parse_dice(attacks_text)
        mean_attacks = sum((k * p for k, p in expr.pmf().items()), Fraction(0))
        mean = mean_attacks * final[1] * mean_each
        many = plural(attacks_text, "attack") + (
            "" if attacks_text.isdigit() else f" (mean {mean_attacks})")
        text = (f"{many} × {final[1] * mean_each} wounds each = {mean} "
                f"({float(mean):.4f}) unsaved wounds")
        if slay and final[2]:
            text += " + Killing Blow slays (each: the wounds the model had left)"
        steps.append(Step("mean over the attacks", text, None, ("FB-V4",)))
    return steps


# ---- tests, break tests, pursuit -----------------------------------------------------------
def explain_leadership(tested: int, rules: Ruleset, reroll: bool) -> list[Step]:
    """2D6 ≤ tested (FB-T2), Insane Courage per ruleset, one re-roll of a failure (DICE-5)."""
    plain = fb_tests.leadership_test(tested, rules, False, where="‹ld›")
    text = f"2D6 ≤ {tested}"
    if rules.insane_courage:
        text += " (a double 1 always passes: Insane Courage)"
    else:
        text += (f" (decision: no automatic pass or fail in {rules.name} — seed 001's «так же "
                 "как тест на характеристику» names the comparison, not the D6 test's 1s and 6s)")
    steps = [Step("leadership", text, plain, ("FB-T2",))]
    if reroll:
        steps.append(Step("re-roll", "a failed test is re-rolled once: p + (1 − p)·p",
                          fb_tests.leadership_test(tested, rules, True, where="‹ld›"), ("DICE-5",)))
    return steps


def explain_break_test(ld: int, lost_by: int, rules: Ruleset | str = "wfb8",
                       steadfast: bool = False, stubborn: bool = False,
                       unbreakable: bool = False, reroll: bool = False) -> list[Step]:
    rules = load_ruleset(rules)
    p = fb_tests.break_test(ld, lost_by, rules, steadfast, stubborn, unbreakable, reroll)
    if unbreakable:
        return [Step("break test", "Unbreakable: passes without a roll", p, ("FB-C5",))]
    if steadfast or stubborn:
        why = " and ".join(w for w, on in (("Steadfast", steadfast), ("Stubborn", stubborn)) if on)
        tested, text = ld, f"{why}: unmodified Ld {ld} (lost by {lost_by} ignored)"
    else:
        tested = max(ld - lost_by, -fb_tests.LD_LIMIT)
        text = f"Ld {ld} {MINUS} lost by {lost_by} = {tested}"
    steps = [Step("break test", text, None, ("FB-C5",))]
    steps += explain_leadership(tested, rules, reroll)
    steps.append(Step("break test", "P(pass)", p))
    return steps


def explain_test(value: int | None = None, ld: int | None = None, reroll: bool = False,
                 magic_resistance_value: int | None = None, ward: int | None = None,
                 rules: Ruleset | str = "wfb8") -> list[Step]:
    rules = load_ruleset(rules)
    if value is not None:
        plain = fb_tests.characteristic_test(value, "‹value›", rules)
        if value == 0 and rules.zero.tests_fail:
            steps = [Step("characteristic test", f"a characteristic of 0 fails every test "
                          f"({rules.name}; not even a 1 passes)", plain, ("FB-V0", "FB-T1"))]
        else:
            text = f"D6 ≤ {value} (a 1 always passes, a 6 always fails)"
            if value == 0:
                text += f"; {rules.name} has no rule of its own for 0 (decision: FB-T1 as written)"
            steps = [Step("characteristic test", text, plain,
                          ("FB-V0", "FB-T1") if value == 0 else ("FB-T1",))]
        if reroll:
            steps.append(Step("re-roll", "a failed test is re-rolled once: p + (1 − p)·p",
                              fb_tests._reroll_failed(plain, True), ("DICE-5",)))
        return steps
    if ld is not None:
        if ld == 0 and rules.zero.tests_fail:
            return [Step("leadership", f"a Leadership of 0 fails every test ({rules.name}; not "
                         "even a double 1)", Fraction(0), ("FB-V0", "FB-T2"))]
        return explain_leadership(ld, rules, reroll)
    if magic_resistance_value is None:
        return []
    p = fb_tests.magic_resistance(magic_resistance_value, rules, ward)
    if rules.magic_resistance == "d20_ignore":
        text = ("MR 4: cannot be targeted" if magic_resistance_value == 4 else
                f"D20 ≤ 5 × MR {magic_resistance_value} = {5 * magic_resistance_value}: "
                "the spell has no effect")
    else:
        base = f"ward {ward}+" if ward is not None else "no ward (7+)"
        text = (f"{base} improved by MR {magic_resistance_value} against spell damage "
                "(a natural 1 fails)")
    return [Step("magic resistance", text, p, ("FB-T3",))]


def explain_pursuit(flee: str = "2D6", pursue: str = "2D6") -> list[Step]:
    from mathhammer.dice import parse_dice

    def mean(text: str) -> Fraction:
        return sum((k * p for k, p in parse_dice(text).pmf().items()), Fraction(0))

    p = fb_tests.pursuit(flee, pursue)
    def roll(text: str) -> str:
        swift = " = Swiftstride: 3D6, the highest two" if text.strip().lower() == "3d6kh2" else ""
        return f"{text}{swift} (mean {float(mean(text)):.4g})"

    return [
        Step("flee", roll(flee), None, ("FB-C6",)),
        Step("pursue", roll(pursue), None, ("FB-C6",)),
        Step("caught", f"pursuit {pursue} ≥ flee {flee} (a tie catches)", p, ("FB-C6",)),
    ]


# ---- fb combat / fb challenge: mathhammer.fantasy.combat.explain ---------------------------
