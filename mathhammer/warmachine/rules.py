"""Warmachine Mk II per-roll rules: pure functions of dice already rolled (WM-A*, WM-D1..D3).

Everything here is deterministic and game-exact; randomness lives in the kernels and
the exact engines enumerate every face combination through the same functions, so
the rules are written once:

* :func:`attack_roll_outcome` decides hit / critical for given dice (WM-A2..A5);
* :func:`dice_count` / :func:`damage_dice_count` give k (WM-A1, WM-D1, WM-D3);
* :func:`attack_modifier`, :func:`effective_defense`, :func:`is_automatic_hit`,
  :func:`stealth_miss` and :func:`effective_armor` turn situations into numbers
  (WM-A4, WM-A6..A8, WM-D2);
* :func:`roll_tables`, :func:`hit_probability`, :func:`p_critical`,
  :func:`attack_outcome_probs` and :func:`damage_pmf` are exact float pmfs built by
  enumerating all 6^k rolls (k ≤ 6), used by the exact chain and as kernel lookup
  tables (index i ↔ dice = base-6 digits of i, least significant first).

Decisions (documented in docs/guide/warmachine.md):

* An automatic hit (WM-A4) hits even when every die shows 1: the dice are rolled only
  to decide criticals, so WM-A2 does not apply to it.
* DEF is at least 1 and at most 30 as an input (0 or less is rejected): no Mk II model
  has DEF below 5, and 7 / 5 are the floors the rules set.
* Cover and concealment do not stack: a target with both gets cover (+4).
* Knocked down / stationary against ranged and magic: base DEF becomes 5, then
  cover, concealment, elevation and spells still apply (WM-A7 order).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import numpy as np

from mathhammer.errors import InputError, RulesError

Kind = Literal["melee", "ranged", "magic"]
KINDS: tuple[str, ...] = ("melee", "ranged", "magic")
MAX_DICE = 6  # 6^6 = 46 656 rolls: enumeration and lookup tables stay small
STEALTH_RANGE = 5.0  # inches (WM-A8)


MAX_BONUS = 1000  # bonuses and camped focus beyond this are typos, not models

def check_kind(kind: str, where: str = "‹kind›") -> str:
    if kind not in KINDS:
        raise InputError(where, "must be melee, ranged or magic", kind, "use ‹kind› ranged")
    return kind


# --------------------------------------------------------------------------- dice counts
def dice_count(boosted: bool = False, crippled: bool = False, extra: int = 0) -> int:
    """Number of attack (or damage) dice k (WM-A1): 2, +1 boosted, −1 crippled, +extra; ≥ 1.

    >>> dice_count(), dice_count(boosted=True), dice_count(crippled=True, extra=-5)
    (2, 3, 1)
    """
    return max(1, 2 + int(bool(boosted)) - int(bool(crippled)) + int(extra))


def damage_dice_count(
    boosted: bool = False, pre_boosted: bool = False, crippled: bool = False, extra: int = 0
) -> int:
    """Damage dice k (WM-D1, WM-D3): a pre-boosted roll (charge, free strike) is not boosted again.

    >>> damage_dice_count(boosted=True, pre_boosted=True)
    3
    """
    return dice_count(boosted or pre_boosted, crippled, extra)


# --------------------------------------------------------------------------- one attack roll
def attack_roll_outcome(
    dice: tuple[int, ...], bonus: int, defense: int, auto_hit: bool = False
) -> tuple[bool, bool]:
    """(hit, critical) of one attack roll with the given faces (WM-A1..A5).

    Args:
        dice: the faces rolled, each 1..6, at least one die.
        bonus: stat + attack modifiers (MAT/RAT/FOCUS + WM-A6 modifiers).
        defense: the target's effective DEF (WM-A7).
        auto_hit: the attack hits automatically (WM-A4); the dice only decide criticals.

    Rules: all 1s miss, also with one die (WM-A2); all 6s with k ≥ 2 hit whatever
    the DEF (WM-A3); otherwise hit when sum + bonus ≥ DEF (WM-A1); an automatic hit
    always hits (decision, see module doc); critical = hit and two dice equal (WM-A5).

    >>> attack_roll_outcome((6, 6), 0, 20)
    (True, True)
    >>> attack_roll_outcome((1, 1), 20, 2)
    (False, False)
    """
    k = len(dice)
    if k < 1:
        raise InputError("dice", "an attack roll needs at least one die", dice)
    if auto_hit:
        hit = True
    elif all(face == 1 for face in dice):
        hit = False
    elif k >= 2 and all(face == 6 for face in dice):
        hit = True
    else:
        hit = sum(dice) + bonus >= defense
    critical = hit and len(set(dice)) < k
    return hit, critical


def damage_dealt(dice: tuple[int, ...], power: int, armor: int) -> int:
    """max(0, sum + POW − ARM) (WM-D1)."""
    return max(0, sum(dice) + power - armor)


# --------------------------------------------------------------------------- modifiers
def attack_modifier(
    kind: str,
    *,
    aiming: bool = False,
    back_strike: bool = False,
    free_strike: bool = False,
    target_in_melee: bool = False,
    powerful_charge: bool = False,
    slam_larger_base: bool = False,
    spray: bool = False,
) -> int:
    """Sum of the WM-A6 attack-roll modifiers; a combination the rules forbid is a RulesError.

    aiming +2 (ranged), back strike +2, free strike +2 (melee), target in melee −4
    (ranged and magic, not spray), powerful charge +2 (melee), slam against a larger
    base −2 (melee).

    >>> attack_modifier("ranged", aiming=True, target_in_melee=True)
    -2
    """
    check_kind(kind)
    if aiming and kind != "ranged":
        raise RulesError("‹aim›", "aiming only helps ranged attacks (WM-A6)", kind, "drop ‹aim›")
    for flag, on in (("‹free_strike›", free_strike), ("‹powerful_charge›", powerful_charge),
                     ("‹slam_larger_base›", slam_larger_base)):
        if on and kind != "melee":
            raise RulesError(flag, "applies to melee attacks only (WM-A6)", kind,
                             f"use ‹kind› melee or drop {flag}")
    if spray and kind != "ranged":
        raise RulesError("spray", "spray weapons make ranged attacks (WM-D6)", kind)
    total = 2 * int(aiming) + 2 * int(back_strike) + 2 * int(free_strike)
    total += 2 * int(powerful_charge) - 2 * int(slam_larger_base)
    if target_in_melee:
        if kind == "melee":
            raise RulesError("‹target_in_melee›", "only ranged and magic attacks take −4 (WM-A6)",
                             kind, "drop ‹target_in_melee›")
        if not spray:  # WM-D6: spray attacks ignore the target-in-melee penalty
            total -= 4
    return total


def effective_defense(
    base_def: int,
    kind: str,
    *,
    movement_crippled: bool = False,
    knocked_down: bool = False,
    stationary: bool = False,
    concealment: bool = False,
    cover: bool = False,
    elevated: bool = False,
    spell_bonus: int = 0,
) -> int:
    """The DEF an attack roll must reach (WM-A7).

    Base DEF; 7 when the movement system is crippled; then for ranged and magic
    attacks only: 5 when knocked down or stationary, +4 cover or else +2
    concealment (they do not stack), +2 elevated. ``spell_bonus`` (e.g. Blur +3 vs
    ranged/magic) is added for every kind: the caller knows what the spell covers.
    Melee attacks against a knocked-down or stationary target hit automatically
    instead (:func:`is_automatic_hit`). Never below 0.

    >>> effective_defense(13, "ranged", knocked_down=True, cover=True)
    9
    >>> effective_defense(13, "melee", movement_crippled=True, cover=True)
    7
    """
    check_kind(kind)
    if abs(spell_bonus) > MAX_BONUS:  # 2**63 overflowed the int64 roll table
        raise InputError("‹def_bonus›", f"must be between -{MAX_BONUS} and {MAX_BONUS}",
                         spell_bonus, "use e.g. ‹def_bonus› 2")
    defense = 7 if movement_crippled else int(base_def)
    if kind != "melee":
        if knocked_down or stationary:
            defense = 5
        defense += 4 if cover else (2 if concealment else 0)
        defense += 2 if elevated else 0
    return max(0, defense + int(spell_bonus))


def is_automatic_hit(kind: str, *, knocked_down: bool = False, stationary: bool = False,
                     sustained: bool = False) -> bool:
    """WM-A4: melee vs a knocked-down or stationary target, or a Sustained Attack follow-up."""
    check_kind(kind)
    return (kind == "melee" and (knocked_down or stationary)) or bool(sustained)


def stealth_miss(kind: str, stealth: bool, distance: float | None) -> bool:
    """WM-A8: ranged and magic attacks at a Stealth target from more than 5" miss automatically."""
    check_kind(kind)
    return bool(stealth) and kind != "melee" and distance is not None and distance > STEALTH_RANGE


def effective_armor(
    base_arm: int,
    *,
    shield: bool = False,
    shield_crippled: bool = False,
    back_strike: bool = False,
    camped_focus: int = 0,
    spell_bonus: int = 0,
    feat_bonus: int = 0,
) -> int:
    """Effective ARM (WM-D2): base + shield 2 (not vs back strikes, lost when its system is
    crippled) + 1 per camped focus + spells (Arcane Shield +3) + feats (Invincibility +5).

    >>> effective_armor(18, shield=True, camped_focus=2, spell_bonus=3)
    25
    >>> effective_armor(18, shield=True, back_strike=True)
    18
    """
    if camped_focus < 0:
        raise InputError("‹camped_focus›", "must be 0 or more", camped_focus, "use ‹camped_focus› 2")
    for flag, value in (("‹camped_focus›", camped_focus), ("‹arm_bonus›", spell_bonus)):
        if abs(value) > MAX_BONUS:  # 2**63 overflowed the int64 damage table
            raise InputError(flag, f"must be between -{MAX_BONUS} and {MAX_BONUS}", value,
                             f"use e.g. {flag} 2")
    shield_counts = shield and not shield_crippled and not back_strike
    return int(base_arm) + 2 * int(shield_counts) + int(camped_focus) + int(spell_bonus) + int(feat_bonus)


# --------------------------------------------------------------------------- exact tables
def _check_k(k: int) -> int:
    if not 1 <= k <= MAX_DICE:
        raise InputError("dice", f"between 1 and {MAX_DICE} dice per roll are supported", k)
    return int(k)


@lru_cache(maxsize=None)
def _faces(k: int) -> np.ndarray:
    """int8 array (6^k, k): row i = the faces of roll index i (base-6 digits, LSB first)."""
    idx = np.arange(6**k, dtype=np.int64)
    faces = np.empty((6**k, k), dtype=np.int8)
    for j in range(k):
        faces[:, j] = (idx // 6**j) % 6 + 1
    faces.setflags(write=False)
    return faces


def faces_of_index(index: int, k: int) -> tuple[int, ...]:
    """The dice of roll index ``index`` in [0, 6^k): base-6 digits + 1, least significant first."""
    return tuple(int((index // 6**j) % 6) + 1 for j in range(k))


@lru_cache(maxsize=256)
def roll_tables(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(sums, all_ones, all_sixes, has_pair) for every roll index of k dice (read-only arrays)."""
    faces = _faces(_check_k(k)).astype(np.int64)
    sums = faces.sum(axis=1)
    all_ones = (faces == 1).all(axis=1)
    all_sixes = (faces == 6).all(axis=1) & (k >= 2)
    srt = np.sort(faces, axis=1)
    has_pair = (np.diff(srt, axis=1) == 0).any(axis=1) if k >= 2 else np.zeros(6**k, bool)
    for arr in (sums, all_ones, all_sixes, has_pair):
        arr.setflags(write=False)
    return sums, all_ones, all_sixes, has_pair


def attack_outcome_table(k: int, bonus: int, defense: int, auto_hit: bool = False) -> np.ndarray:
    """int8 per roll index: 0 miss, 1 hit, 2 critical hit — the vectorised attack_roll_outcome."""
    sums, all_ones, all_sixes, has_pair = roll_tables(k)
    if auto_hit:
        hit = np.ones(sums.shape, dtype=bool)
    else:
        hit = ~all_ones & (all_sixes | (sums + bonus >= defense))
    return (hit.astype(np.int8) + (hit & has_pair).astype(np.int8)).astype(np.int8)


@lru_cache(maxsize=None)
def _outcome_counts(k: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(hits[t], crits[t], critical rolls of all) among the 6^k rolls of k dice, when a hit
    needs a sum ≥ k + t, t = 0..5k + 1 (t = 5k + 1: only all 6s hit) — the counts of
    :func:`attack_outcome_table` for every DEF − bonus at once, so a new attack costs a
    lookup instead of a pass over the 6^k rolls."""
    sums, all_ones, all_sixes, has_pair = roll_tables(k)
    rolled = ~all_ones  # WM-A2: all 1s miss whatever the sum
    hits = np.bincount(sums[rolled] - k, minlength=5 * k + 1)[::-1].cumsum()[::-1]
    crits = np.bincount(sums[rolled & has_pair] - k, minlength=5 * k + 1)[::-1].cumsum()[::-1]
    six = int(all_sixes.any())  # WM-A3: all 6s (k ≥ 2) hit, and are a pair, at any DEF
    return (tuple(int(h) for h in hits) + (six,), tuple(int(c) for c in crits) + (six,),
            int(has_pair.sum()))


@lru_cache(maxsize=4096)  # a query asks for the same roll's p_hit, crit and pmf
def attack_outcome_probs(k: int, bonus: int, defense: int, auto_hit: bool = False,
                         auto_miss: bool = False) -> tuple[float, float, float]:
    """Exact (P(miss), P(non-critical hit), P(critical hit)) of one attack roll."""
    if auto_miss:
        return 1.0, 0.0, 0.0
    rolls = 6 ** _check_k(k)
    hits, crits, pairs = _outcome_counts(k)
    if auto_hit:  # WM-A4: every roll hits; the dice decide criticals only
        hit, crit = rolls, pairs
    else:
        t = min(max(int(defense) - int(bonus) - k, 0), 5 * k + 1)
        hit, crit = hits[t], crits[t]
    return (rolls - hit) / rolls, (hit - crit) / rolls, crit / rolls


def hit_probability(k: int, bonus: int, defense: int, auto_hit: bool = False) -> float:
    """Exact P(hit) of one attack roll of k dice + bonus vs DEF (WM-A1..A4).

    >>> round(hit_probability(2, 6, 13), 5)
    0.58333
    """
    p_miss, _, _ = attack_outcome_probs(k, bonus, defense, auto_hit)
    return 1.0 - p_miss


def p_critical(k: int, bonus: int, defense: int, auto_hit: bool = False) -> float:
    """Exact P(critical hit) (WM-A5)."""
    return attack_outcome_probs(k, bonus, defense, auto_hit)[2]


def damage_table(k: int, power: int, armor: int) -> np.ndarray:
    """int64 damage dealt per roll index of k damage dice (WM-D1)."""
    sums = roll_tables(k)[0]
    return np.maximum(0, sums + (int(power) - int(armor))).astype(np.int64)


@lru_cache(maxsize=None)
def _sum_probs(k: int) -> tuple[np.ndarray, list[float]]:
    """P(the k dice sum to s), s = 0..6k (read-only), and P(they sum to less than s): each the
    count of rolls divided by 6^k once, as a pass over the rolls would give them."""
    counts = np.bincount(roll_tables(k)[0], minlength=6 * k + 1).astype(np.float64)
    probs = counts / float(6**k)
    probs.setflags(write=False)
    return probs, [c / float(6**k) for c in [0.0] + np.cumsum(counts).tolist()]


@lru_cache(maxsize=4096)  # every attack of a chain asks for the same roll
def damage_pmf(k: int, power: int, armor: int) -> np.ndarray:
    """Exact P(damage = d) for d = 0..max(0, 6k + POW − ARM), one damage roll (WM-D1).

    The returned array is shared (cached) and read-only.

    >>> damage_pmf(2, 12, 24).tolist()  # 2d6+12 vs ARM 24: only a 12 does 0 → always 0
    [1.0]
    >>> round(float(damage_pmf(2, 12, 18) @ range(7)), 5)
    1.55556
    """
    probs, below = _sum_probs(_check_k(k))
    shift = int(power) - int(armor)  # damage = max(0, sum + shift)
    if 6 * k + shift <= 0:
        pmf = np.ones(1)
    else:
        first = max(k, 1 - shift)  # the smallest sum that deals damage
        pmf = np.zeros(6 * k + shift + 1)
        pmf[0] = below[first]
        pmf[first + shift:] = probs[first:]
    pmf.setflags(write=False)
    return pmf
