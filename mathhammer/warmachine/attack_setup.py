"""Attacks as numbers: a player's description (:class:`AttackSetup`) resolved through the
rules into :class:`AttackSpec` per attack (WM-A1..A8, WM-D1..D3).

The chain engines (:mod:`mathhammer.warmachine.chain`) and the explanations
(:mod:`mathhammer.warmachine.explain`) both read these; neither imports the other's
engine.

>>> spec = AttackSpec(hit_dice=2, bonus=6, defense=13, damage_dice=2, power=12, armor=18)
>>> round(spec.p_hit, 5), round(float(spec.pmf() @ range(7)), 5)
(0.58333, 0.90741)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine import rules

MAX_STAT = 1000  # any stat, DEF, ARM or POW beyond this is a typo, not a model


FUSED_MAX_DICE = 7  # 6^7 int16 entries = 560 KB: the fused one-attack table still fits in L2


@dataclass(frozen=True)
class AttackSpec:
    """One attack, fully resolved to numbers.

    Attributes:
        hit_dice: attack dice k (WM-A1, 1..6).
        bonus: stat + attack modifiers.
        defense: effective DEF (WM-A7).
        auto_hit: hits automatically, dice still rolled for criticals (WM-A4).
        auto_miss: misses automatically (stealth beyond 5", WM-A8).
        damage_dice: damage dice k (WM-D1, WM-D3), 1..6.
        power: POW or P+S.
        armor: effective ARM (WM-D2).
    """

    hit_dice: int = 2
    bonus: int = 0
    defense: int = 12
    auto_hit: bool = False
    auto_miss: bool = False
    damage_dice: int = 2
    power: int = 12
    armor: int = 18

    def outcome_probs(self) -> tuple[float, float, float]:
        """(P(miss), P(non-critical hit), P(critical hit))."""
        return rules.attack_outcome_probs(self.hit_dice, self.bonus, self.defense,
                                          self.auto_hit, self.auto_miss)

    @property
    def p_hit(self) -> float:
        return 1.0 - self.outcome_probs()[0]

    @property
    def p_critical(self) -> float:
        return self.outcome_probs()[2]

    def damage_pmf(self) -> np.ndarray:
        """P(damage = d | hit)."""
        return rules.damage_pmf(self.damage_dice, self.power, self.armor)

    def pmf(self) -> np.ndarray:
        """Unconditional P(damage = d) of this attack: a miss deals 0."""
        p_hit = self.p_hit
        out = p_hit * self.damage_pmf()
        out[0] += 1.0 - p_hit
        return out

    def hit_table(self) -> np.ndarray:
        """Kernel lookup table: 0 / 1 / 2 per attack roll index."""
        if self.auto_miss:
            return np.zeros(6**self.hit_dice, dtype=np.int8)
        return rules.attack_outcome_table(self.hit_dice, self.bonus, self.defense, self.auto_hit)

    def damage_table(self) -> np.ndarray:
        return rules.damage_table(self.damage_dice, self.power, self.armor)

    def fused_table(self) -> np.ndarray | None:
        """int16 ``damage << 2 | outcome`` per joint index ``a + 6^k_hit * d`` (None if too big).

        The table of :func:`mathhammer.kernels.warmachine.single_attack_fused`: one
        index in [0, 6^(k_hit + k_damage)) is a whole attack, damage 0 on a miss.
        """
        if self.hit_dice + self.damage_dice > FUSED_MAX_DICE:
            return None
        outcome = self.hit_table().astype(np.int64)
        damage = self.damage_table()
        joint = (damage[:, None] * (outcome[None, :] > 0)) << 2 | outcome[None, :]
        return np.ascontiguousarray(joint.reshape(-1).astype(np.int16))


# --------------------------------------------------------------------------- building chains
@dataclass(frozen=True)
class AttackSetup:
    """A player's description of n identical attacks (the ``wm attack`` flags).

    ``charge`` pre-boosts the first attack's damage (WM-D3, melee only) and lets
    ``powerful_charge`` add +2 to that attack; ``free_strike`` is one melee attack
    at +2 with pre-boosted damage. See :mod:`mathhammer.warmachine.rules` for the
    other flags.
    """

    stat: int
    defense: int
    power: int
    armor: int
    kind: str = "melee"
    boost_hit: bool = False
    boost_damage: bool = False
    attacks: int = 1
    modifier: int = 0
    crippled: bool = False
    charge: bool = False
    powerful_charge: bool = False
    free_strike: bool = False
    knocked_down: bool = False
    stationary: bool = False
    movement_crippled: bool = False
    back_strike: bool = False
    aim: bool = False
    target_in_melee: bool = False
    slam_larger_base: bool = False
    cover: bool = False
    concealment: bool = False
    elevated: bool = False
    def_bonus: int = 0
    shield: bool = False
    camped_focus: int = 0
    arm_bonus: int = 0
    stealth_range: float | None = None
    extra_hit_dice: int = 0
    extra_damage_dice: int = 0
    boxes: int | None = None

    def validate(self) -> AttackSetup:
        rules.check_kind(self.kind)
        if self.attacks > 100:
            raise InputError("--attacks", "at most 100 attacks per chain", self.attacks,
                             "use e.g. --attacks 3")
        for flag, value, low in (("--stat", self.stat, 0), ("--defense", self.defense, 1),
                                 ("--power", self.power, 0), ("--armor", self.armor, 0),
                                 ("--attacks", self.attacks, 1), ("--camped-focus", self.camped_focus, 0)):
            if value < low:
                raise InputError(flag, f"must be at least {low}", value,
                                 f"use e.g. {flag} {max(low, 1)}")
            if value > MAX_STAT:  # huge ints overflow the int64 roll tables
                raise InputError(flag, f"must be at most {MAX_STAT}", value,
                                 f"use e.g. {flag} {max(low, 1)}")
        if self.boxes is not None and self.boxes < 1:
            raise InputError("--boxes", "must be at least 1", self.boxes, "use e.g. --boxes 17")
        for flag, value in (("--modifier", self.modifier), ("--boxes", self.boxes or 0)):
            if abs(value) > MAX_STAT:  # 2**63 overflowed the int64 roll tables
                raise InputError(flag, f"must be between -{MAX_STAT} and {MAX_STAT}", value,
                                 f"use e.g. {flag} 2")
        if self.charge and self.kind != "melee":
            raise RulesError("--charge", "a charge attack is a melee attack (WM-D3)", self.kind,
                             "use --kind melee")
        if self.powerful_charge and not self.charge:
            raise RulesError("--powerful-charge", "applies to a charge attack only (WM-A6)", True,
                             "add --charge")
        if self.free_strike and (self.attacks != 1 or self.charge):
            raise RulesError("--free-strike", "a free strike is one attack, not a charge", self.attacks,
                             "use --attacks 1 without --charge")
        if self.stealth_range is not None and self.stealth_range < 0:
            raise InputError("--stealth-range", "must be 0 or more inches", self.stealth_range,
                             "use e.g. --stealth-range 6")
        for flag, value in (("--extra-hit-die", self.extra_hit_dice),
                            ("--extra-damage-die", self.extra_damage_dice)):
            if not 0 <= value <= 3:
                raise InputError(flag, "must be between 0 and 3", value, f"use e.g. {flag} 1")
        return self


def build_chain(setup: AttackSetup) -> list[AttackSpec]:
    """Resolve a setup into per-attack specs through the rules (WM-A1..A8, WM-D1..D3)."""
    s = setup.validate()
    defense = rules.effective_defense(
        s.defense, s.kind, movement_crippled=s.movement_crippled, knocked_down=s.knocked_down,
        stationary=s.stationary, concealment=s.concealment, cover=s.cover, elevated=s.elevated,
        spell_bonus=s.def_bonus)
    auto_hit = rules.is_automatic_hit(s.kind, knocked_down=s.knocked_down, stationary=s.stationary)
    auto_miss = rules.stealth_miss(s.kind, s.stealth_range is not None, s.stealth_range)
    armor = rules.effective_armor(s.armor, shield=s.shield, back_strike=s.back_strike,
                                  camped_focus=s.camped_focus, spell_bonus=s.arm_bonus)
    base_mod = rules.attack_modifier(
        s.kind, aiming=s.aim, back_strike=s.back_strike, free_strike=s.free_strike,
        target_in_melee=s.target_in_melee, slam_larger_base=s.slam_larger_base)
    hit_dice = rules.dice_count(s.boost_hit, s.crippled, s.extra_hit_dice)
    plain = AttackSpec(
        hit_dice=hit_dice, bonus=s.stat + s.modifier + base_mod, defense=defense,
        auto_hit=auto_hit, auto_miss=auto_miss,
        damage_dice=rules.damage_dice_count(s.boost_damage, s.free_strike, s.crippled,
                                            s.extra_damage_dice),
        power=s.power, armor=armor)
    specs = [plain] * s.attacks
    if s.charge:  # WM-D3: the first attack after the charge has pre-boosted damage
        specs[0] = replace(
            plain, bonus=plain.bonus + (2 if s.powerful_charge else 0),
            damage_dice=rules.damage_dice_count(s.boost_damage, True, s.crippled,
                                                s.extra_damage_dice))
    return specs
