"""Exact single rolls of the magic phase: flow and channel, casting, dispelling.

Every answer is an exact enumeration. A pool of ``n`` D6 is summarised by the
integer count of its 6^n face combinations per (natural sum, number of sixes capped
at 2), which is all the rules look at (MG-4..MG-6); the D3 of overwhelming power is
enumerated on top (MG-5). Probabilities are :class:`fractions.Fraction`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from mathhammer.errors import InputError, RulesError
from mathhammer.magic.rules import MagicRules

D3_FACES = (1, 1, 2, 2, 3, 3)  # DICE-1


@lru_cache(maxsize=None)
def pool_classes(n_dice: int) -> tuple[tuple[int, ...], ...]:
    """``counts[s][total]``: face combinations of ``n_dice`` D6 with natural ``total``
    and ``s`` sixes (s = 2 means two or more). Sums over everything to 6**n_dice."""
    size = 6 * n_dice + 1
    counts = [[0] * size for _ in range(3)]
    counts[0][0] = 1
    for _ in range(n_dice):
        nxt = [[0] * size for _ in range(3)]
        for s in range(3):
            for total, c in enumerate(counts[s]):
                if c:
                    for face in range(1, 7):
                        s2 = min(2, s + (face == 6))
                        nxt[s2][total + face] += c
        counts = nxt
    return tuple(tuple(row) for row in counts)


# ---- MG-1..MG-3: flow and channel ---------------------------------------------------
MAX_CHANNELERS = 30  # models with Channel / wizards on one side (as in scenario files)


def channel_extra(rules: MagicRules, channelers: int, where: str = "‹channelers›"
                  ) -> dict[int, Fraction]:
    """Dice one player gains by channelling (MG-2), before the caps."""
    if channelers < 0:
        raise InputError(where, "must be 0 or more", channelers, f"use e.g. {where} 2")
    if channelers > MAX_CHANNELERS:  # wfb8's exact binomial over a million wizards never ended
        raise InputError(where, f"must be at most {MAX_CHANNELERS} (wizards / models with "
                         "Channel on one side)", channelers, f"use e.g. {where} 2")
    if rules.channel == "d6_plus_channelers":
        hits = sum(1 for face in range(1, 7) if face + channelers >= rules.channel_target)
        return {0: Fraction(6 - hits, 6), 1: Fraction(hits, 6)} if hits else {0: Fraction(1)}
    if rules.channel == "each_wizard_six":  # binomial(channelers, 1/6)
        from math import comb

        return {k: Fraction(comb(channelers, k) * 5 ** (channelers - k), 6**channelers)
                for k in range(channelers + 1)}
    return {0: Fraction(1)}


def capped_pool(rules: MagicRules, flow_dice: int, extra: int) -> int:
    """MG-3: the extra-dice limit (t9a1 2 per player), then the pool cap of 12."""
    if rules.max_extra_dice is not None:
        extra = min(extra, rules.max_extra_dice)
    return min(flow_dice + extra, rules.max_pool)


def check_extra_dice(rules: MagicRules, extra_power: int, extra_dispel: int,
                     where: tuple[str, str] = ("‹extra_power›", "‹extra_dispel›")) -> None:
    """MG-3: 0..12 dice from other sources; beyond the extra-dice limit is an error, never
    silently cut to it (they could never all be used)."""
    for flag, extra in zip(where, (extra_power, extra_dispel), strict=True):
        if not 0 <= extra <= 12:
            raise InputError(flag, "must be 0..12 dice", extra, "use e.g. 1")
        cap = rules.max_extra_dice
        if cap is not None and extra > cap:  # MG-3: never silently cut to the cap
            raise RulesError(flag, f"at most {cap} dice beyond the flow roll per player and "
                             f"phase in this ruleset (MG-3), so {extra} can never all be used",
                             extra, f"use {cap} or fewer (channel counts against it too)")


def flow_pools(
    rules: MagicRules, channelers: int = 0, reactive_channelers: int = 0,
    extra_power: int = 0, extra_dispel: int = 0,
    where: tuple[str, str] = ("‹extra_power›", "‹extra_dispel›"),
) -> dict[tuple[int, int], Fraction]:
    """Joint pmf of (power dice, dispel dice) after flow, channel and caps (MG-1..MG-3).

    ``extra_power`` / ``extra_dispel`` are dice from other sources (items), counted
    against the extra-dice limit together with channel; more than the limit is an error
    (they could never all be used). ``where`` names them in errors.
    """
    check_extra_dice(rules, extra_power, extra_dispel, where)
    if reactive_channelers < 0:
        raise InputError("‹reactive_channelers›", "must be 0 or more", reactive_channelers,
                         "use e.g. ‹reactive_channelers› 1")
    gain_a = channel_extra(rules, channelers)
    gain_r = channel_extra(rules, reactive_channelers, "‹reactive_channelers›")
    out: dict[tuple[int, int], Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            for ea, pa in gain_a.items():
                for er, pr in gain_r.items():
                    key = (capped_pool(rules, a + b, ea + extra_power),
                           capped_pool(rules, max(a, b), er + extra_dispel))
                    out[key] = out.get(key, Fraction(0)) + Fraction(1, 36) * pa * pr
    return out


def marginals(joint: dict[tuple[int, int], Fraction]) -> tuple[dict[int, Fraction], dict[int, Fraction]]:
    power: dict[int, Fraction] = {}
    dispel: dict[int, Fraction] = {}
    for (p, d), prob in joint.items():
        power[p] = power.get(p, Fraction(0)) + prob
        dispel[d] = dispel.get(d, Fraction(0)) + prob
    return power, dispel


# ---- MG-4, MG-5, MG-7: casting -------------------------------------------------------
def check_cast_input(rules: MagicRules, n_dice: int, level: int, cv: int, where: str = "‹dice›",
                     modifier: int = 0) -> None:
    if not 1 <= n_dice <= rules.max_casting_dice:
        raise RulesError(where, f"a casting attempt uses 1 to {rules.max_casting_dice} dice "
                         "in this ruleset (MG-4)", n_dice, f"use 1..{rules.max_casting_dice} dice")
    if not 2 <= cv <= 1000:  # a huge cv overflowed the int64 outcome table
        raise InputError("‹cv›" if where == "‹dice›" else where.replace("dice", "cv"),
                         "a casting value must be 2..1000", cv, "use e.g. ‹cv› 7")
    if not 0 <= level <= 10:
        raise InputError("‹level›", "a wizard level must be 0..10", level, "use e.g. ‹level› 2")
    if abs(modifier) > 100:  # 2**63 overflowed the int64 outcome range of the report
        raise InputError("‹modifier›", "a casting modifier must be between -100 and 100",
                         modifier, "use e.g. ‹modifier› 1")


@dataclass
class CastOdds:
    """Exact odds of one casting attempt (everything a dispeller or a phase needs)."""

    n_dice: int
    p_fail: Fraction = Fraction(0)
    p_irresistible: Fraction = Fraction(0)  # two or more natural 6s (MG-5)
    p_irresistible_cast: Fraction = Fraction(0)  # wfb8: cast, cannot be dispelled
    #: casts without two sixes: total -> probability (dispellable)
    plain: dict[int, Fraction] = field(default_factory=dict)
    #: t9a1 overwhelming-power casts: total (with D3 + dice) -> probability (dispellable)
    overwhelming: dict[int, Fraction] = field(default_factory=dict)
    #: bound spells in wfb8 with two sixes: cast irresistibly but never miscast
    miscast_when_through: bool = True
    #: t9a1 bound spells with two or more 6s on 4+ dice: cast, then lost for the game (MG-7)
    p_bound_lost: Fraction = Fraction(0)

    @property
    def p_cast(self) -> Fraction:
        return self.p_irresistible_cast + sum(self.plain.values()) + sum(self.overwhelming.values())

    @property
    def p_miscast_undispelled(self) -> Fraction:
        """P(miscast) when nobody dispels (MG-5: t9a1 miscasts only if not dispelled)."""
        if not self.miscast_when_through:
            return Fraction(0)
        return self.p_irresistible_cast + sum(self.overwhelming.values())


@lru_cache(maxsize=4096)
def cast_odds(rules: MagicRules, n_dice: int, level: int, cv: int, modifier: int = 0,
              bound: bool = False) -> CastOdds:
    """Exact outcome of casting with ``n_dice`` power dice (MG-4, MG-5, MG-7).

    Casting total = natural sum + level + modifier (bound spells: no level, no
    modifier, MG-7). A natural sum ≤ ``natural_fail_at_most`` fails (wfb8). Two or
    more natural 6s: wfb8 irresistible (cast, undispellable, miscast; bound spells
    never miscast); t9a1 overwhelming power adds D3 + dice used and miscasts only if
    not dispelled; a t9a1 bound spell gets no bonus and never miscasts but is still
    cast whatever its total (dispellable against its natural total), and with 4 or more
    dice it is lost for the rest of the game (``p_bound_lost``).
    """
    classes = pool_classes(n_dice)
    denom = 6**n_dice
    odds = CastOdds(n_dice=n_dice, miscast_when_through=not bound)
    bonus = 0 if bound else level + modifier
    for sixes in range(3):
        for natural, count in enumerate(classes[sixes]):
            if not count:
                continue
            p = Fraction(count, denom)
            if sixes == 2:
                odds.p_irresistible += p
            if natural <= rules.natural_fail_at_most:
                odds.p_fail += p
                continue
            if sixes == 2 and rules.two_sixes == "irresistible":
                odds.p_irresistible_cast += p
                continue
            if sixes == 2 and bound:  # t9a1 bound spell: no bonus, no miscast, still cast
                odds.plain[natural] = odds.plain.get(natural, Fraction(0)) + p
                if n_dice >= 4:  # ... and lost for the rest of the game (MG-7)
                    odds.p_bound_lost += p
                continue
            if sixes == 2:  # overwhelming power: + D3 + dice used
                for d3 in D3_FACES:
                    total = natural + bonus + d3 + n_dice
                    if total >= cv:
                        odds.overwhelming[total] = odds.overwhelming.get(total, 0) + p / 6
                    else:
                        odds.p_fail += p / 6
                continue
            total = natural + bonus
            if total >= cv:
                odds.plain[total] = odds.plain.get(total, Fraction(0)) + p
            else:
                odds.p_fail += p
    return odds


# ---- MG-6: dispelling -----------------------------------------------------------------
def check_dispel_input(rules: MagicRules, n_dice: int, level: int) -> None:
    cap = rules.dispel_dice_cap
    if not 1 <= n_dice <= cap:
        raise RulesError("‹dice›", f"a dispel attempt uses 1 to {cap} dice in this ruleset (MG-3, MG-6)",
                         n_dice, f"use 1..{cap} dice")
    if not 0 <= level <= 10:
        raise InputError("‹level›", "a wizard level must be 0..10", level, "use e.g. ‹level› 2")


@lru_cache(maxsize=65536)
def dispel_probability(rules: MagicRules, n_dice: int, level: int, against: int) -> Fraction:
    """P(dispel total ≥ ``against``) with ``n_dice`` dispel dice (MG-6).

    Dispel total = natural sum + the dispelling wizard's level (0 for the army); a
    natural total ≤ ``dispel_natural_fail_at_most`` fails (wfb8); t9a1 overwhelming
    power adds D3 + dice used on two or more natural 6s (MG-5).
    """
    classes = pool_classes(n_dice)
    hit = Fraction(0)
    for sixes in range(3):
        for natural, count in enumerate(classes[sixes]):
            if not count or natural <= rules.dispel_natural_fail_at_most:
                continue
            p = Fraction(count, 6**n_dice)
            if sixes == 2 and rules.op_on_dispel:
                hit += p * Fraction(sum(natural + level + d3 + n_dice >= against for d3 in D3_FACES), 6)
            elif natural + level >= against:
                hit += p
    return hit


def check_dispel_attempt(rules: MagicRules, dispel_dice: int | None, dispel_level: int) -> None:
    """``magic cast --dispel-dice N --dispel-level L``: a dispel attempt's dice and level."""
    if dispel_dice is None:
        if dispel_level:
            raise InputError("‹dispel_level›", "is the dispelling wizard's level: it goes with "
                             "‹dispel_dice›", dispel_level, "add e.g. ‹dispel_dice› 3")
        return
    cap = rules.dispel_dice_cap
    if isinstance(dispel_dice, bool) or not 1 <= dispel_dice <= cap:
        raise RulesError("‹dispel_dice›", f"a dispel attempt uses 1 to {cap} dice in this "
                         "ruleset (MG-3, MG-6)", dispel_dice, f"use 1..{cap} dice")
    if isinstance(dispel_level, bool) or not 0 <= dispel_level <= 10:
        raise InputError("‹dispel_level›", "a wizard level must be 0..10 (0 = the army)",
                         dispel_level, "use e.g. ‹dispel_level› 2")


@dataclass(frozen=True)
class AgainstDispel:
    """One cast met by one dispel attempt (MG-4..MG-6), exact."""

    p_goes_off: Fraction  # cast and not dispelled (irresistible force included)
    p_dispelled: Fraction  # cast, then dispelled
    p_miscast: Fraction  # MG-5: wfb8 irresistible force; t9a1 overwhelming power not dispelled


def against_dispel(rules: MagicRules, odds: CastOdds, dispel_dice: int,
                   dispel_level: int = 0) -> AgainstDispel:
    """The cast ``odds`` against ``dispel_dice`` dice of a level ``dispel_level`` dispeller:
    every dispellable total meets :func:`dispel_probability` (the magic phase's own table)."""
    goes = odds.p_irresistible_cast
    miscast = odds.p_irresistible_cast if odds.miscast_when_through else Fraction(0)
    for totals, miscasts in ((odds.plain, False), (odds.overwhelming, odds.miscast_when_through)):
        for total, p in totals.items():
            through = p * (1 - dispel_probability(rules, dispel_dice, dispel_level, total))
            goes += through
            if miscasts:
                miscast += through
    return AgainstDispel(goes, odds.p_cast - goes, miscast)


def miscast_rows(rules: MagicRules) -> list[tuple[str, Fraction]]:
    """P(each miscast-table row) given a miscast: the 2D6 roll by row (MG-10)."""
    two_d6 = {t: Fraction(6 - abs(t - 7), 36) for t in range(2, 13)}
    return [(f"{row.low}-{row.high} {row.name}" if row.low != row.high else f"{row.low} {row.name}",
             sum((two_d6[t] for t in range(row.low, row.high + 1)), Fraction(0)))
            for row in rules.miscast_table]
