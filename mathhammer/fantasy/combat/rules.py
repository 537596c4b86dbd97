"""The close-combat part of a ruleset: the ``[combat]`` table of a ruleset TOML file.

Equipment (FB-E1..E8), special rules (FB-S1..S7), characters and challenges
(FB-K1..K4), several units in one fight (FB-M1..M4), ridden monsters (FB-P1..P3) and
the charge (FB-G1..G4) are data here, one switch per rule, so a house-rules file can
change any of them. A ruleset file without a ``[combat]`` table gets the built-in
values below, which are ``wfb8``'s.

>>> from mathhammer.fantasy.rules.ruleset import load_ruleset
>>> gw = load_ruleset("wfb8").combat.equipment["great_weapon"]
>>> gw.strength_bonus, gw.strikes_last
(2, True)
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

Confidence = Literal["high", "medium", "low"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EquipmentEffect(_Frozen):
    """What one piece of kit does in close combat (every field defaults to "nothing")."""

    strength_bonus: int = Field(0, ge=0, le=5, description="+S every round (halberd, great weapon)")
    first_round_strength_bonus: int = Field(0, ge=0, le=5,
                                            description="+S in the first round of a combat (flail, choppa)")
    charge_strength_bonus: int = Field(0, ge=0, le=5, description="+S in a round the model charged (lance)")
    armour_piercing: int = Field(0, ge=0, le=6, description="extra armour save modifier")
    extra_attacks: int = Field(0, ge=0, le=5, description="+A (additional hand weapon)")
    extra_supporting_ranks: int = Field(0, ge=0, le=3, description="fights in more ranks (spear)")
    strikes_last: bool = Field(False, description="always strikes last (great weapon)")
    melee_armour_bonus: int = Field(0, ge=0, le=2,
                                    description="+armour save in close combat (hand weapon and shield)")
    parry: int | None = Field(None, ge=2, le=6,
                              description="enemies in front hit this model no better than X+ (t9a1 Parry)")


class Equipment(EquipmentEffect):
    """A piece of kit: its effect on foot, and on a mounted model if that differs."""

    rule: str = Field(pattern=r"^FB-E\d+$", description="the rule id in docs/rules.md")
    weapon: bool = Field(True, description="a close-combat weapon the model fights with")
    hand_weapon: bool = Field(False, description="counts as a hand weapon (choppa)")
    needs_hand_weapon: bool = Field(False, description="works only when the model fights with a "
                                                       "hand weapon (shield)")
    mounted: EquipmentEffect | None = Field(None, description="the effect on a mounted model")
    confidence: Confidence = "medium"

    def effect(self, mounted: bool) -> EquipmentEffect:
        return self.mounted if mounted and self.mounted is not None else self


#: the kit ids a profile may name (a ruleset that lacks one: the kit does nothing there)
EQUIPMENT_IDS = ("great_weapon", "halberd", "spear", "shield", "additional_hand_weapon", "lance",
                 "flail", "choppa")


def _wfb8_equipment() -> dict[str, Equipment]:
    return {
        "great_weapon": Equipment(rule="FB-E1", strength_bonus=2, strikes_last=True, confidence="high"),
        "halberd": Equipment(rule="FB-E2", strength_bonus=1),
        "spear": Equipment(rule="FB-E3", extra_supporting_ranks=1,
                           mounted=EquipmentEffect(charge_strength_bonus=1)),
        "shield": Equipment(rule="FB-E4", weapon=False, needs_hand_weapon=True, melee_armour_bonus=1,
                            mounted=EquipmentEffect()),
        "additional_hand_weapon": Equipment(rule="FB-E5", extra_attacks=1),
        "lance": Equipment(rule="FB-E6", charge_strength_bonus=0,
                           mounted=EquipmentEffect(charge_strength_bonus=2)),
        "flail": Equipment(rule="FB-E7", first_round_strength_bonus=2),
        "choppa": Equipment(rule="FB-E8", hand_weapon=True, first_round_strength_bonus=1),
    }


class CombatRules(_Frozen):
    """Close-combat switches of one ruleset (rule ids from docs/rules.md)."""

    equipment: dict[str, Equipment] = Field(default_factory=_wfb8_equipment)
    # ---- special rules (FB-S*) --------------------------------------------------------
    frenzy_attacks: int = Field(1, ge=0, le=3, description="FB-S1: Frenzy adds this many attacks")
    frenzy_lost_on_defeat: bool = Field(True, description="FB-S1: a unit that loses a round "
                                                          "loses Frenzy")
    musician_breaks_ties: bool = Field(True, description="FB-S3: a drawn round goes by 1 to the "
                                                         "side with a musician (if only one has)")
    impact_initiative: int = Field(10, ge=1, le=10, description="FB-S5: impact hits strike at this I")
    stomp_initiative: int = Field(0, ge=0, le=10, description="FB-S6: stomps strike at this I "
                                                              "(0 = after everyone)")
    stomp_targets: tuple[str, ...] = Field(("infantry", "war_beast", "swarm"),
                                           description="FB-S6: troop types a stomp hits")
    breath_combat_hits: str = Field("2D6", description="FB-S7: hits of a breath weapon in combat")
    breath_uses: int = Field(1, ge=0, le=5, description="FB-S7: breath weapon uses per game")
    # ---- characters and challenges (FB-K*) ----------------------------------------------
    overkill_cap: int = Field(5, ge=0, le=20, description="FB-K3: overkill counts up to this")
    refused_loses_leadership: bool = Field(True, description="FB-K3: a character who refuses a "
                                                             "challenge lends no Ld that round")
    general_range: bool = Field(True, description="FB-K4: units may use the general's Ld")
    battle_standard_reroll: bool = Field(True, description="FB-K4: a battle standard re-rolls "
                                                           "failed break tests")
    # ---- several units (FB-M*) ----------------------------------------------------------
    disrupt_min_ranks: int = Field(2, ge=0, le=10, description="FB-M2: a flank/rear enemy with "
                                                                "this many ranks disrupts (0: off)")
    disrupted_loses_steadfast: bool = Field(False, description="FB-M2: disrupted units are not "
                                                               "steadfast")
    # ---- ridden monsters (FB-P*) ---------------------------------------------------------
    ridden_shooting_rider_faces: int = Field(2, ge=0, le=6, description="FB-P2: a shooting hit on "
                                                                         "a ridden monster hits the "
                                                                         "rider on this many D6 faces")
    # ---- the charge (FB-G*) ---------------------------------------------------------------
    charge_dice: str = Field("2D6", description="FB-G1: the charge roll added to M")
    charge_movement_multiplier: int = Field(1, ge=0, le=3, description="FB-G1: M counts this often")
    swiftstride_dice: str = Field("3D6kh2", description="FB-G1/FB-C6: Swiftstride's roll")
    flee_dice: str = Field("2D6", description="FB-G2: a flee roll")
    failed_charge_moves: Literal["highest_die", "none", "half"] = Field(
        "highest_die", description="FB-G3: how far a failed charge moves")
    stand_and_shoot_min_distance: Literal["movement", "none"] = Field(
        "movement", description="FB-G2: no stand and shoot when the charger starts within its M")
    rally_below_quarter_needs_double_one: bool = Field(
        True, description="FB-G4: a unit below a quarter of its models rallies on a double 1 only")
    panic_fraction: float = Field(0.25, ge=0, le=1, description="FB-G4: shooting losses (share of "
                                                                "the models at the phase start) "
                                                                "that force a panic test; 0 = off")
    friend_panic_range: float = Field(0.0, ge=0, le=48, description="FB-G4/FB-B21: a friend "
                                      "broken or destroyed in combat within this many inches "
                                      "forces a panic test; 0 = off")
    confidence: dict[str, str] = Field(default_factory=dict,
                                       description="key -> the doubt (values from memory)")
    _hash: int | None = PrivateAttr(None)

    def __hash__(self) -> int:  # the tables are dicts: hash the validated content once
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(self.model_dump_json()))
        return self._hash

    @field_validator("equipment")
    @classmethod
    def _known(cls, table: dict[str, Equipment]) -> dict[str, Equipment]:
        for key in table:
            if key not in EQUIPMENT_IDS:
                raise ValueError(f"unknown equipment {key!r}; known: {', '.join(EQUIPMENT_IDS)}")
        return table

    @field_validator("charge_dice", "swiftstride_dice", "flee_dice", "breath_combat_hits")
    @classmethod
    def _dice(cls, text: str) -> str:
        from mathhammer.dice import checked_dice_text

        return checked_dice_text(text, 0, None, "must not go below 0")
