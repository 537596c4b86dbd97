"""The hit → wound → armour → ward chain of Warhammer Fantasy / Ninth Age attacks.

Per-attack API (used by close combat, shooting and artillery)::

    spec = AttackSpec(ws=4, target_ws=3, strength=4, toughness=3, save=5,
                      reroll_hits="failed", multiple_wounds="D3", target_wounds=3)
    wounds_pmf, p_slain_outright = single_attack_outcomes(spec, load_ruleset("wfb8"))

``wounds_pmf[k]`` is the exact probability that ONE attack causes ``k`` unsaved wounds
(after Multiple Wounds, each wound's X capped at the target's W: FB-V3) without
slaying outright; ``p_slain_outright`` is the probability that a Killing Blow
(``wfb8``, FB-W2) slays the model whatever its wounds. ``wounds_pmf.sum() +
p_slain_outright == 1``. Exact rationals: :func:`single_attack_fractions`.

The stages and what they do (rule ids from docs/rules.md):

* to hit — melee by the WS chart (FB-H1), shooting by 7 − BS − modifiers with the
  7+/8+/9+ procedure (FB-H2; a re-roll re-rolls the whole procedure), a fixed
  ``hit_on`` score or ``auto_hit``. Natural 1 always misses. Re-rolls: ``failed``,
  ``successes`` (forced re-roll of hits) or ``ones``; Hatred and the ``wfb8``
  Always Strikes First re-roll mean ``failed`` (FB-H3). Poison: an unmodified 6
  wounds automatically, not when 7+ was needed (FB-W2).
* to wound — S vs T chart, "cannot wound" cells (FB-W1). A natural 6 triggers
  Killing Blow (``wfb8``: melee only, target troop type allowed, no armour, no
  regeneration, a ward stops it, a failed ward slays) or Lethal Strike (``t9a1``:
  that wound gets Armour Piercing (6) and no Regeneration). Auto-wounds never do.
* armour — save + max(0, S − 3) + armour piercing; past 6 no save (FB-V1).
* ward / regeneration — the better of the two that may be taken; regeneration is
  lost to flaming attacks, Killing Blow and Lethal Strike sixes (FB-V2).
* Multiple Wounds (dice text, rolled per unsaved wound, capped at W; FB-V3).

Each stage is compiled into two small tables per incoming class — which first
faces are re-rolled, and the outgoing class of the final face — so the exact
engine (here) and the Monte Carlo kernel (:mod:`mathhammer.fantasy.kernels.chain`) read
the same rule tables (docs/design.md, rule 2). Class codes: hit 0 miss / 1 hit / 2 poison
six; wound and armour 0 none / 1 wound / 2 natural-six wound / 3 automatic wound;
final 0 nothing / 1 unsaved wound / 2 slain outright.

N attacks (:func:`chain_exact`): total wounds T by convolution; a Killing Blow slay
adds the wounds the current model has left (W − T mod W), so models slain =
T // W (FB-V4), capped at the unit's models when given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np

from mathhammer.dice import DiceExpr, parse_dice, pmf_power
from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset

REROLLS = ("failed", "successes", "ones")
FACES = range(1, 7)
MAX_WOUND_OUTCOMES = 64  # Multiple Wounds above this per wound are not a real profile


@dataclass(frozen=True)
class AttackSpec:
    """One attack's profile against one target (all fields plain values; hashable).

    Exactly one way to hit: ``ws`` + ``target_ws`` (melee), ``bs`` (shooting, with
    ``shooting_modifier`` = the sum of FB-H2 modifiers), ``hit_on`` (fixed 2..6),
    ``hit_on_at_most`` (a natural roll ≤ X "hits": dangerous terrain) or ``auto_hit``. Saves are printed values (5 = 5+), None = none. ``killing_blow``
    means the ruleset's version (slay / lethal strike; an error where it has none).
    """

    strength: int
    toughness: int
    ws: int | None = None
    target_ws: int | None = None
    bs: int | None = None
    shooting_modifier: int = 0
    hit_on: int | None = None
    auto_hit: bool = False
    hit_on_at_most: int | None = None  # a "hit" on a natural roll ≤ X (dangerous terrain)
    wounds_automatically: bool = False  # no roll to wound (dangerous terrain, FB-W2 poison alike)
    close_combat: bool | None = None  # None: True for ws / hit_on, False for bs
    save: int | None = None
    ward: int | None = None
    regeneration: int | None = None
    armour_piercing: int = 0
    reroll_hits: str | None = None
    reroll_wounds: str | None = None
    reroll_armour: str | None = None
    reroll_ward_save: str | None = None  # re-rolls the ward save only (FB-V2; Divine Attacks)
    reroll_regeneration: str | None = None  # re-rolls the regeneration save only
    poison: bool = False
    killing_blow: bool = False
    killing_blow_applies: bool = True  # wfb8: target is infantry, cavalry or war beast
    multiple_wounds: str | None = None
    target_wounds: int = 1
    flaming: bool = False
    hatred: bool = False
    always_strikes_first: bool = False
    initiative: int | None = None
    target_initiative: int | None = None
    target_always_strikes_first: bool = False

    @property
    def is_melee(self) -> bool:
        if self.close_combat is not None:
            return self.close_combat
        return self.bs is None and not (self.auto_hit and self.ws is None and self.hit_on is None)


@dataclass(frozen=True)
class StageTables:
    """The compiled rule tables of one spec (see the module docstring).

    Face-indexed tables have 7 columns (index 0 unused) per incoming class; the hit
    stage of a hopeless shot is indexed by the pair (first, second) as 6·(f−1)+(s−1).
    """

    hopeless: bool
    hit_rr: np.ndarray  # int64 (36,) or (7,): 1 = re-roll this first roll
    hit_out: np.ndarray  # int64 same shape: hit class of the final roll
    hit_has_reroll: bool
    wound_rr: np.ndarray  # int64 (3, 7) by hit class
    wound_out: np.ndarray  # int64 (3, 7) -> wound class
    armour_rr: np.ndarray  # int64 (4, 7) by wound class
    armour_out: np.ndarray  # int64 (4, 7) -> wound class if unsaved, else 0
    ward_rr: np.ndarray  # int64 (4, 7)
    ward_out: np.ndarray  # int64 (4, 7) -> final class
    wounds_each: tuple[Fraction, ...]  # P(X = k), k = 0..cap, per unsaved wound (FB-V3)
    rerolls: tuple[bool, bool, bool, bool] = field(default=(False,) * 4)


def _check_reroll(mode: str | None, where: str) -> str | None:
    if mode in (None, "none"):
        return None
    if mode not in REROLLS:
        raise InputError(where, "unknown re-roll", mode, "use failed, successes or ones")
    return mode


def _rr_row(success_faces: set[int], mode: str | None) -> list[int]:
    """Which first faces are re-rolled (DICE-5; a die is re-rolled at most once)."""
    row = [0] * 7
    for f in FACES:
        ok = f in success_faces
        row[f] = int(mode == "failed" and not ok or mode == "successes" and ok
                     or mode == "ones" and f == 1)
    return row


def _pass_chance(needed: int, mode: str | None) -> Fraction:
    """P(passing a save of ``needed``+ with its re-roll ``mode``) (DICE-5)."""
    faces = _save_faces(needed)
    row = _rr_row(faces, mode)
    again = Fraction(sum(row), 6) * Fraction(len(faces), 6)
    return Fraction(sum(1 for f in faces if not row[f]), 6) + again


def special_save(spec: AttackSpec, regen_allowed: bool) -> tuple[int | None, str | None, str]:
    """FB-V2: the save a model takes after armour — (needed, re-roll mode, "ward" /
    "regeneration" / "none"): the better of the two, counting each one's own re-roll."""
    options = [(v, _check_reroll(m, w), name) for v, m, w, name in (
        (spec.ward, spec.reroll_ward_save, "reroll_ward_save", "ward"),
        (spec.regeneration if regen_allowed else None, spec.reroll_regeneration,
         "reroll_regeneration", "regeneration")) if v]
    if len(options) < 2:
        return options[0] if options else (None, None, "none")
    return max(options, key=lambda o: _pass_chance(o[0], o[1]), default=(None, None, "none"))


def _save_faces(needed: int | None) -> set[int]:
    return set() if needed is None else {f for f in FACES if f >= needed and f != 1}


def _hit_mode(spec: AttackSpec, rules: Ruleset) -> str | None:
    mode = _check_reroll(spec.reroll_hits, "reroll_hits")
    asf = (spec.always_strikes_first and rules.always_strikes_first_reroll
           and not spec.target_always_strikes_first
           and (spec.initiative is None or spec.target_initiative is None
                or spec.initiative >= spec.target_initiative))
    if spec.hatred or asf:  # FB-H3: re-roll misses; "failed" covers "ones"
        if mode == "successes":
            raise InputError("reroll_hits", "forced re-rolls of hits cannot combine with "
                             "Hatred / Always Strikes First", mode, "drop one of them")
        mode = "failed"
    return mode


def _hit_stage(spec: AttackSpec, rules: Ruleset) -> tuple[bool, list[int], list[int], str | None]:
    ways = [spec.ws is not None or spec.target_ws is not None, spec.bs is not None,
            spec.hit_on is not None, spec.auto_hit, spec.hit_on_at_most is not None]
    if sum(ways) != 1:
        raise InputError("attack", "give exactly one way to hit: ws + target_ws, bs, hit_on, "
                         "hit_on_at_most or auto_hit", None, "e.g. ‹ws› 4 ‹target_ws› 3")
    mode = _hit_mode(spec, rules)
    if spec.hatred and spec.bs is not None:
        raise InputError("hatred", "applies to close combat only", True, "drop it for shooting")
    poison_face = 6 if spec.poison else 7
    if spec.auto_hit:
        return False, [0] * 7, [0] + [1] * 6, None
    if spec.hit_on_at_most is not None:  # e.g. dangerous terrain: a natural 1 (no re-roll)
        if not 1 <= spec.hit_on_at_most <= 6:
            raise InputError("hit_on_at_most", "must be a D6 score 1..6", spec.hit_on_at_most,
                             "use e.g. 1")
        return False, [0] * 7, [0] + [int(f <= spec.hit_on_at_most) for f in FACES], None
    if spec.bs is not None:
        shot = rules.to_hit_shooting(spec.bs, spec.shooting_modifier)
        if shot.hopeless:  # FB-H2: a 6, then a second D6; poison never applies
            out = [int(f == 6 and s >= shot.second) for f in FACES for s in FACES]
            # decision: "re-roll 1s" re-rolls the procedure on a 1 on either die it rolled
            # (the second die is rolled only after a 6); index k = 6·(first − 1) + second − 1
            ones = [k // 6 == 0 or (k // 6 == 5 and k % 6 == 0) for k in range(36)]
            rr = [int(mode == "failed" and not o or mode == "successes" and o
                      or mode == "ones" and ones[k]) for k, o in enumerate(out)]
            return True, rr, out, mode
        needed = shot.first if shot.possible else 7
    elif spec.hit_on is not None:
        if not 2 <= spec.hit_on <= 6:
            raise InputError("hit_on", "must be a D6 score 2..6", spec.hit_on, "use e.g. 4")
        needed = spec.hit_on
    else:
        if spec.ws is None or spec.target_ws is None:
            raise InputError("target_ws" if spec.target_ws is None else "ws",
                             "melee needs both WS values", None, "give ‹ws› and ‹target_ws›")
        needed = rules.to_hit_melee(spec.ws, spec.target_ws)
        if needed is None:  # FB-V0: a WS 0 defender is hit automatically (no roll, no poison)
            return False, [0] * 7, [0] + [1] * 6, None
    hits = _save_faces(needed)
    out = [0] + [0 if f not in hits else (2 if f >= poison_face else 1) for f in FACES]
    return False, _rr_row(hits, mode), out, mode


def _multiple_wounds(spec: AttackSpec) -> tuple[Fraction, ...]:
    cap = spec.target_wounds
    if spec.multiple_wounds in (None, ""):
        pmf = {1: Fraction(1)}
    else:
        expr: DiceExpr = parse_dice(spec.multiple_wounds)
        if expr.min < 1:
            raise InputError("multiple_wounds", "must give at least 1 wound", spec.multiple_wounds,
                             'use e.g. "D3" or "2"')
        if expr.outcome_count > (1 << 16):
            raise InputError("multiple_wounds", "has too many outcomes to roll per wound",
                             spec.multiple_wounds, 'use e.g. "D6" or "2D6"')
        pmf = expr.pmf()
    top = min(max(pmf), cap)
    if top > MAX_WOUND_OUTCOMES:
        raise InputError("multiple_wounds", f"above {MAX_WOUND_OUTCOMES} wounds per wound",
                         spec.multiple_wounds, "give the target's W with ‹target_wounds›")
    probs = [Fraction(0)] * (top + 1)
    for k, p in pmf.items():
        probs[min(k, cap)] += p  # FB-V3: capped at the W characteristic
    return tuple(probs)


@lru_cache(maxsize=4096)
def compile_spec(spec: AttackSpec, rules: Ruleset) -> StageTables:
    """Turn a spec and a ruleset into the stage tables both engines read."""
    if not 1 <= spec.target_wounds <= 100:
        raise InputError("target_wounds", "must be 1..100", spec.target_wounds, "use e.g. 3")
    if spec.armour_piercing < 0:
        raise InputError("armour_piercing", "cannot be negative", spec.armour_piercing, "use 0 or more")
    for value, where in ((spec.ward, "ward"), (spec.regeneration, "regeneration")):
        if value is not None:
            rules.check_save(value, where)
    kb = rules.killing_blow if spec.killing_blow else None
    if spec.killing_blow and kb is None:
        raise RulesError("killing_blow", f"ruleset {rules.name} has no Killing Blow or Lethal "
                         "Strike", True, "use ‹ruleset› wfb8 (slay) or t9a1 (lethal strike)")
    slay = kb == "slay" and spec.is_melee and spec.killing_blow_applies  # FB-W2, wfb8
    lethal = kb == "lethal_strike"

    hopeless, hit_rr, hit_out, hit_mode = _hit_stage(spec, rules)
    modes = [_check_reroll(m, w) for m, w in ((spec.reroll_wounds, "reroll_wounds"),
                                             (spec.reroll_armour, "reroll_armour"),
                                             (spec.reroll_ward_save, "reroll_ward_save"),
                                             (spec.reroll_regeneration, "reroll_regeneration"))]
    wound_mode, armour_mode, ward_mode, regen_mode = modes

    wound_needed = rules.to_wound(spec.strength, spec.toughness)
    wounds = _save_faces(wound_needed)
    # tables are built as lists and made arrays once (row-by-row numpy writes cost more
    # than the rules themselves); the kernels and the exact engine read the arrays
    wound_rr = [[0] * 7 for _ in range(3)]
    wound_out = [[0] * 7 for _ in range(3)]
    wound_rr[1] = _rr_row(wounds, wound_mode)
    wound_out[1] = [0] + [0 if f not in wounds else (2 if f == 6 else 1) for f in FACES]
    # FB-W2: a poisoned 6 wounds automatically, the die ignored: no roll to wound is made,
    # so it wounds even where the S v T chart says "cannot wound" (decision)
    wound_out[2] = [0] + [3] * 6
    if spec.wounds_automatically:
        wound_rr[1] = [0] * 7
        wound_out[1] = [0] + [3] * 6

    armour_rr = [[0] * 7 for _ in range(4)]
    armour_out = [[0] * 7 for _ in range(4)]
    ward_rr = [[0] * 7 for _ in range(4)]
    ward_out = [[0] * 7 for _ in range(4)]
    rules.check_characteristic(spec.toughness, "toughness")
    armour_saves: dict[int, set[int]] = {}  # by armour piercing: classes 1 and 3 share one
    special_saves: dict[bool, tuple[set[int], list[int]]] = {}  # by "regeneration allowed"
    for c in (1, 2, 3):
        six = c == 2
        if six and slay:
            saves = set()  # Killing Blow: no armour save
        else:
            extra = 6 if six and lethal else 0  # Lethal Strike: Armour Piercing (6)
            if extra not in armour_saves:
                armour_saves[extra] = _save_faces(rules.armour_needed(
                    spec.save, spec.strength, spec.armour_piercing + extra))
            saves = armour_saves[extra]
        armour_rr[c] = _rr_row(saves, armour_mode)
        armour_out[c] = [0] + [0 if f in saves else c for f in FACES]
        # FB-V2: the better of ward and (allowed) regeneration; a ward stops a KB slay
        regen_allowed = spec.regeneration is not None and not spec.flaming and not (
            six and (slay or lethal))
        if regen_allowed not in special_saves:
            special, special_mode, _ = special_save(spec, regen_allowed)
            passes = _save_faces(special)
            special_saves[regen_allowed] = passes, _rr_row(passes, special_mode)
        passes, ward_rr[c] = special_saves[regen_allowed]
        final = 2 if six and slay else 1
        ward_out[c] = [0] + [0 if f in passes else final for f in FACES]
    wound_rr, wound_out, armour_rr, armour_out, ward_rr, ward_out = (
        np.array(table, np.int64)
        for table in (wound_rr, wound_out, armour_rr, armour_out, ward_rr, ward_out))
    return StageTables(
        hopeless=hopeless, hit_rr=np.array(hit_rr, np.int64), hit_out=np.array(hit_out, np.int64),
        hit_has_reroll=hit_mode is not None, wound_rr=wound_rr, wound_out=wound_out,
        armour_rr=armour_rr, armour_out=armour_out, ward_rr=ward_rr, ward_out=ward_out,
        wounds_each=_multiple_wounds(spec),
        rerolls=(hit_mode is not None, wound_mode is not None, armour_mode is not None,
                 ward_mode is not None or regen_mode is not None),
    )


def _stage(p_in: list[Fraction], rr: np.ndarray, out: np.ndarray, n_out: int,
           sides: int = 6) -> list[Fraction]:
    """Push a class distribution through one die stage with its re-roll (DICE-5)."""
    result = [Fraction(0)] * n_out
    first = 1 if sides == 6 else 0
    for c, pc in enumerate(p_in):
        if not pc:
            continue
        rr_row = rr[c] if rr.ndim == 2 else rr
        out_row = out[c] if out.ndim == 2 else out
        faces = range(first, first + sides)
        p_reroll = Fraction(sum(int(rr_row[f]) for f in faces), sides)
        for f in faces:
            p_face = Fraction(1 - int(rr_row[f]), sides) + p_reroll * Fraction(1, sides)
            result[int(out_row[f])] += pc * p_face
    return result


def single_attack_fractions(spec: AttackSpec, rules: Ruleset | str = "wfb8"
                            ) -> tuple[list[Fraction], Fraction]:
    """Exact rationals of :func:`single_attack_outcomes`."""
    pmf, slain = _single_attack_cached(spec, load_ruleset(rules))
    return list(pmf), slain


def _stage_counts(p_in: list[int], rr: np.ndarray, out: np.ndarray, n_out: int,
                  sides: int = 6) -> list[int]:
    """:func:`_stage` on whole numbers: numerators over the input's denominator × sides².

    A face is final with chance (1 − rr)/s + (R/s)(1/s) = (s(1 − rr) + R)/s², R the
    re-rolled faces (DICE-5), so every stage stays an exact integer count.
    """
    result = [0] * n_out
    rr_rows, out_rows = rr.tolist(), out.tolist()
    lo = 1 if sides == 6 else 0
    for c, pc in enumerate(p_in):
        if not pc:
            continue
        rr_row = rr_rows[c] if rr.ndim == 2 else rr_rows
        out_row = out_rows[c] if out.ndim == 2 else out_rows
        faces = rr_row[lo:lo + sides]
        again = sum(faces)
        for f, rerolled in enumerate(faces, lo):
            result[out_row[f]] += pc * (sides * (1 - rerolled) + again)
    return result


def _final_counts(t: StageTables) -> tuple[list[int], int]:
    """(numerators of the final classes 0 nothing / 1 unsaved wound / 2 slain, denominator)."""
    sides = 36 if t.hopeless else 6
    hit = _stage_counts([1], t.hit_rr, t.hit_out, 3, sides)
    wound = _stage_counts(hit, t.wound_rr, t.wound_out, 4)
    armour = _stage_counts(wound, t.armour_rr, t.armour_out, 4)
    return _stage_counts(armour, t.ward_rr, t.ward_out, 3), sides * sides * 36 ** 3


@lru_cache(maxsize=4096)
def _single_attack_cached(spec: AttackSpec, rules: Ruleset) -> tuple[tuple[Fraction, ...], Fraction]:
    t = compile_spec(spec, rules)
    counts, den = _final_counts(t)
    final = [Fraction(c, den) for c in counts]
    pmf = [final[0]] + [Fraction(0)] * (len(t.wounds_each) - 1)
    for k, pk in enumerate(t.wounds_each):
        pmf[k] += final[1] * pk
    return tuple(pmf), final[2]


def hit_probability(spec: AttackSpec, rules: Ruleset | str = "wfb8") -> Fraction:
    """Exact chance that one attack hits, re-rolls and the 7+ procedure included."""
    t = compile_spec(spec, load_ruleset(rules))
    sides = 36 if t.hopeless else 6
    miss = _stage_counts([1], t.hit_rr, t.hit_out, 3, sides)[0]
    return 1 - Fraction(miss, sides * sides)


@lru_cache(maxsize=4096)
def _single_attack_floats(spec: AttackSpec, rules: Ruleset) -> tuple[np.ndarray, float]:
    """:func:`single_attack_outcomes` from whole-number counts: each entry is the exact
    rational rounded once (as ``float(Fraction)``), without Fraction arithmetic."""
    t = compile_spec(spec, rules)
    (nothing, unsaved, slain), den = _final_counts(t)
    pmf = [0.0] * len(t.wounds_each)
    for k, pk in enumerate(t.wounds_each):
        if pk:  # (nothing·[k = 0] + unsaved·pk) / den, one rounding
            num = unsaved * pk.numerator + (nothing * pk.denominator if k == 0 else 0)
            pmf[k] = num / (den * pk.denominator)
    if not t.wounds_each[0]:
        pmf[0] = nothing / den
    out = np.array(pmf)
    out.setflags(write=False)
    return out, slain / den


def single_attack_outcomes(spec: AttackSpec, rules: Ruleset | str = "wfb8"
                           ) -> tuple[np.ndarray, float]:
    """(P(k unsaved wounds, not slain outright) for k = 0..cap, P(slain outright))."""
    pmf, slain = _single_attack_floats(spec, load_ruleset(rules))
    return pmf.copy(), slain


@dataclass(frozen=True)
class ChainResult:
    """Exact distribution of N attacks: total wounds T and models slain T // W (FB-V4)."""

    wounds: np.ndarray  # P(T = t), t = 0..
    slain: np.ndarray  # P(models slain = m)
    target_wounds: int
    p_slain_outright_each: float

    @property
    def mean_wounds(self) -> float:
        return float(np.dot(np.arange(len(self.wounds)), self.wounds))


def chain_distribution(per_attack: np.ndarray, p_slay: float, attacks_pmf: dict[int, float],
                       target_wounds: int = 1, models: int | None = None) -> np.ndarray:
    """P(total wounds = t) after a random number of attacks (exact, float)."""
    W = target_wounds
    cap = models * W if models is not None else None
    if not p_slay and len(attacks_pmf) == 1:  # a fixed count: powers by squaring
        (n_fixed, weight), = attacks_pmf.items()
        total = weight * pmf_power(per_attack, n_fixed, cap)
        nz = np.nonzero(total)[0]
        return total[: nz[-1] + 1] if len(nz) else total[:1]
    n_max = max(attacks_pmf)
    step = max(len(per_attack) - 1, W if p_slay else 0)  # most wounds one attack adds
    total = np.zeros(n_max * step + 1)
    dist = np.zeros(1)
    dist[0] = 1.0
    for n in range(n_max + 1):
        w = attacks_pmf.get(n, 0.0)
        if w:
            total[: len(dist)] += w * dist
        if n == n_max:
            break
        nxt = np.convolve(dist, per_attack)
        if p_slay:
            t = np.arange(len(dist))
            nxt = np.concatenate([nxt, np.zeros(W)])
            np.add.at(nxt, t + (W - t % W), p_slay * dist)
        nxt = nxt[: (n + 1) * step + 1]
        if cap is not None and len(nxt) > cap + 1:
            nxt[cap] += nxt[cap + 1:].sum()
            nxt = nxt[: cap + 1]
        dist = nxt
    if cap is not None and len(total) > cap + 1:
        total[cap] += total[cap + 1:].sum()
        total = total[: cap + 1]
    nz = np.nonzero(total)[0]
    return total[: nz[-1] + 1] if len(nz) else total[:1]


def slain_from_wounds(wounds: np.ndarray, target_wounds: int) -> np.ndarray:
    """FB-V4: whole models lost = T // W."""
    slain = np.bincount(np.arange(len(wounds)) // target_wounds, weights=wounds,
                        minlength=len(wounds) // target_wounds + 1)
    return slain


MAX_ATTACKS = 1000


def attack_counts(attacks: int | str, where: str = "attacks") -> dict[int, Fraction]:
    """The exact distribution of the number of attacks, validated: the one check every
    engine (exact, Monte Carlo, library calls) goes through before a kernel sees a size.

    A fixed count is 1..1000; dice text (``"2D6"``) must stay within 0..1000 and be
    able to give at least one attack. A negative count once reached the Monte Carlo
    kernel unchecked and wrote past its array (issue 22).
    """
    if isinstance(attacks, bool):
        raise InputError(where, "must be a number of attacks", attacks, f"use e.g. {where} 20")
    if isinstance(attacks, (int, np.integer)):
        if not 1 <= attacks <= MAX_ATTACKS:
            raise InputError(where, f"must be 1..{MAX_ATTACKS}", int(attacks),
                             f"use e.g. {where} 20")
        return {int(attacks): Fraction(1)}
    text = str(attacks).strip()
    try:
        return attack_counts(int(text), where)  # "20", "-1", "+3"
    except ValueError:
        pass
    expr = parse_dice(text)
    if expr.min < 0 or expr.max > MAX_ATTACKS:
        raise InputError(where, f"must stay within 0..{MAX_ATTACKS}", text, 'use e.g. "2D6"')
    if expr.max < 1:
        raise InputError(where, "never gives an attack", text, 'use e.g. "2D6"')
    return dict(expr.pmf())


def attacks_pmf(attacks: int | str, where: str = "attacks") -> dict[int, float]:
    """Number of attacks: a whole number or dice text (e.g. "2D6" random attacks)."""
    return {k: float(p) for k, p in attack_counts(attacks, where).items()}


def chain_exact(spec: AttackSpec, attacks: int | str, rules: Ruleset | str = "wfb8",
                models: int | None = None) -> ChainResult:
    """Exact distribution of the wounds and models slain by ``attacks`` attacks."""
    rules = load_ruleset(rules)
    per_attack, p_slay = single_attack_outcomes(spec, rules)
    wounds = chain_distribution(per_attack, p_slay, attacks_pmf(attacks), spec.target_wounds, models)
    return ChainResult(wounds, slain_from_wounds(wounds, spec.target_wounds), spec.target_wounds,
                       p_slay)
