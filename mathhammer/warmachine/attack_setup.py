"""Attacks as numbers: a player's description (:class:`AttackSetup`) resolved through the
rules into :class:`AttackSpec` per attack (WM-A1..A8, WM-D1..D3).

The chain engines (:mod:`mathhammer.warmachine.chain`), the explanations
(:mod:`mathhammer.warmachine.explain`) and the scenario files all read these; the one
validation of :meth:`AttackSetup.validate` serves the CLI, scenario files and the library.

>>> spec = AttackSpec(hit_dice=2, bonus=6, defense=13, damage_dice=2, power=12, armor=18)
>>> round(spec.p_hit, 5), round(float(spec.pmf() @ range(7)), 5)
(0.58333, 0.90741)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine import limits, rules

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

    def __post_init__(self) -> None:
        # the engines' tables have 6^dice entries and index by these numbers: a library
        # call with 10^30 dice or an ARM beyond a C long must be one line, not a crash
        for name, value, low, high in (
                ("hit_dice", self.hit_dice, 1, 6), ("damage_dice", self.damage_dice, 1, 6),
                ("bonus", self.bonus, -100, 100), ("defense", self.defense, -100, 100),
                ("power", self.power, -100, 100), ("armor", self.armor, -100, 100)):
            if type(value) is int and low <= value <= high:  # the common case, cheaply
                continue
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                    or not low <= value <= high:
                raise InputError(f"AttackSpec.{name}", f"must be a whole number {low}..{high}",
                                 value, f"use e.g. {name}={max(low, 2)}")

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

        The table of :func:`mathhammer.warmachine.kernels.chain.single_attack_fused`: one
        index in [0, 6^(k_hit + k_damage)) is a whole attack, damage 0 on a miss.
        """
        if self.hit_dice + self.damage_dice > FUSED_MAX_DICE:
            return None
        outcome = self.hit_table().astype(np.int64)
        damage = self.damage_table()
        joint = (damage[:, None] * (outcome[None, :] > 0)) << 2 | outcome[None, :]
        return np.ascontiguousarray(joint.reshape(-1).astype(np.int16))


# --------------------------------------------------------------------------- building chains
class _ParamNames(dict):
    """AttackSetup field -> the parameter an error names (``‹kind›``; a front end spells it
    its own way, the command line as ``--kind``, :mod:`mathhammer.present.flags`)."""

    def __missing__(self, field: str) -> str:
        return f"‹{field}›"


CLI_NAMES = _ParamNames()


def use(name: str, value) -> str:
    """A fix in the user's own spelling: ``use ‹kind› melee`` or ``set kind = "melee"``."""
    if name.startswith("‹"):
        return f"use {name} {value}"
    key = name.rsplit(".", 1)[-1]
    return f"set {key} = {value!r}".replace("'", '"')


@dataclass(frozen=True)
class AttackSetup:
    """A player's description of n identical attacks (the ``wm attack`` flags).

    ``charge`` pre-boosts the first attack's damage (WM-D3, melee only) and lets
    ``powerful_charge`` add +2 to that attack; ``free_strike`` is one melee attack
    at +2 with pre-boosted damage, never boosted (WM-A9). ``distance`` is how far the
    target is: a ranged or magic attack beyond ``rng`` misses, and so does one at a
    ``stealth`` target from more than 5" (WM-A8). See
    :mod:`mathhammer.warmachine.rules` for the other flags.
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
    stealth_range: float | None = None  # older spelling of stealth + distance
    extra_hit_dice: int = 0
    extra_damage_dice: int = 0
    boxes: int | None = None
    stealth: bool = False
    distance: float | None = None
    rng: float | None = None
    weapon_master: bool = False

    def __post_init__(self) -> None:
        if self.stealth_range is not None and self.distance is None:
            object.__setattr__(self, "stealth", True)
            object.__setattr__(self, "distance", self.stealth_range)

    @property
    def damage_dice_added(self) -> int:
        """Damage dice added by effects: ``extra_damage_dice`` + Weapon Master (WM-D1)."""
        return self.extra_damage_dice + int(self.weapon_master)

    def validate(self, names: dict[str, str] | None = None) -> AttackSetup:
        """Every check of ``wm attack`` — the same for the CLI, scenario files and the library.

        ``names`` maps a field to how the user typed it (a flag, or ``file: attacks[0].stat``),
        so an error names what was typed, never a derived number.
        """
        n = _ParamNames(names or {})
        rules.check_kind(self.kind, n["kind"])
        for field, value in (("stat", self.stat), ("defense", self.defense),
                             ("power", self.power), ("armor", self.armor),
                             ("attacks", self.attacks), ("modifier", self.modifier),
                             ("def_bonus", self.def_bonus), ("arm_bonus", self.arm_bonus),
                             ("camped_focus", self.camped_focus)):
            low, high, _ = limits.LIMITS[field]
            if type(value) is not int or not low <= value <= high:  # the common case is cheap
                limits.check(field, value, n[field])
        if self.boxes is not None:
            limits.check("boxes", self.boxes, n["boxes"])
        low, high, _ = limits.LIMITS["extra_dice"]
        for field, value in (("extra_hit_dice", self.extra_hit_dice),
                             ("extra_damage_dice", self.extra_damage_dice)):
            if type(value) is not int or not low <= value <= high:
                limits.check("extra_dice", value, n[field])
        if self.weapon_master and self.extra_damage_dice >= 3:
            raise InputError(f"{n['extra_damage_dice']} with {n['weapon_master']}",
                             "Weapon Master adds one damage die and at most 3 dice may be added "
                             "in all (WM-D1)", self.extra_damage_dice,
                             f"use {n['extra_damage_dice']} 2 with {n['weapon_master']}")
        limits.check_distance(self.stealth_range, n["stealth_range"])
        limits.check_distance(self.distance, n["distance"])
        limits.check_distance(self.rng, n["rng"])
        if self.kind == "melee":
            for field in ("distance", "rng"):
                if getattr(self, field) is not None:
                    raise RulesError(n[field], "range and distance matter for ranged and magic "
                                     "attacks only (WM-A8)", getattr(self, field),
                                     f"drop {n[field]} or use a ranged kind")
            if self.stealth:
                raise RulesError(n["stealth"], "Stealth stops ranged and magic attacks only "
                                 "(WM-A8)", True, f"drop {n['stealth']}")
        if self.stealth and self.distance is None:
            raise InputError(n["stealth"], "Stealth depends on the distance: give it", None,
                             f"add {n['distance']} 6")
        for field, kinds, rule in (("aim", ("ranged",), "WM-A6"),
                                   ("free_strike", ("melee",), "WM-A6"),
                                   ("powerful_charge", ("melee",), "WM-A6"),
                                   ("slam_larger_base", ("melee",), "WM-A6"),
                                   ("target_in_melee", ("ranged", "magic"), "WM-A6")):
            if getattr(self, field) and self.kind not in kinds:
                raise RulesError(n[field], f"applies to {' and '.join(kinds)} attacks only "
                                 f"({rule})", self.kind, f"drop {n[field]}")
        if self.charge and self.kind != "melee":
            raise RulesError(n["charge"], "a charge attack is a melee attack (WM-D3)", self.kind,
                             use(n["kind"], "melee"))
        if self.powerful_charge and not self.charge:
            raise RulesError(n["powerful_charge"], "applies to a charge attack only (WM-A6)", True,
                             f"add {n['charge']}")
        if self.free_strike and (self.attacks != 1 or self.charge):
            raise RulesError(n["free_strike"], "a free strike is one attack, not a charge",
                             self.attacks, f"use {n['attacks']} 1 without {n['charge']}")
        if self.free_strike and self.boost_hit:
            raise RulesError(n["boost_hit"], "a free strike is made in the enemy's activation and "
                             "focus is spent only in the model's own, so it cannot be boosted "
                             "(WM-A9)", True, f"drop {n['boost_hit']}")
        if self.free_strike and self.boost_damage:
            raise RulesError(n["boost_damage"], "a free strike's damage is already boosted and "
                             "focus cannot be spent outside the model's activation (WM-D3, WM-A9)",
                             True, f"drop {n['boost_damage']}")
        if self.charge and self.boost_damage and self.attacks == 1:
            raise RulesError(n["boost_damage"], "the charge attack's damage roll is already "
                             "boosted and cannot be boosted again (WM-D3); with one attack there "
                             "is no other roll to boost", True,
                             f"drop {n['boost_damage']} or make more attacks")
        base_def = rules.effective_defense(
            self.defense, self.kind, concealment=self.concealment, cover=self.cover,
            elevated=self.elevated, spell_bonus=self.def_bonus)
        if base_def < 1:
            raise InputError(f"{n['defense']} with {n['def_bonus']}", "the target's DEF falls "
                             f"below 1 ({self.defense} {self.def_bonus:+d}); DEF below 1 is not "
                             "allowed (WM-A7)", self.def_bonus,
                             f"use a {n['def_bonus']} of {1 - self.defense} or more")
        return self

    @property
    def auto_miss(self) -> bool:
        """Out of range, or a Stealth target from more than 5" (WM-A8)."""
        if self.kind == "melee" or self.distance is None:
            return False
        beyond = self.rng is not None and self.distance > self.rng
        return beyond or rules.stealth_miss(self.kind, self.stealth, self.distance)


def build_chain(setup: AttackSetup) -> list[AttackSpec]:
    """Resolve a setup into per-attack specs through the rules (WM-A1..A8, WM-D1..D3)."""
    s = setup.validate()
    defense = rules.effective_defense(
        s.defense, s.kind, movement_crippled=s.movement_crippled, knocked_down=s.knocked_down,
        stationary=s.stationary, concealment=s.concealment, cover=s.cover, elevated=s.elevated,
        spell_bonus=s.def_bonus)
    auto_hit = rules.is_automatic_hit(s.kind, knocked_down=s.knocked_down, stationary=s.stationary)
    auto_miss = s.auto_miss
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
                                            s.damage_dice_added),
        power=s.power, armor=armor)
    specs = [plain] * s.attacks
    if s.charge:  # WM-D3: the first attack after the charge has pre-boosted damage
        specs[0] = replace(
            plain, bonus=plain.bonus + (2 if s.powerful_charge else 0),
            damage_dice=rules.damage_dice_count(s.boost_damage, True, s.crippled,
                                                s.damage_dice_added))
    return specs
