"""The ``[magic]`` table of a ruleset file, as data (MG-1..MG-10).

:class:`mathhammer.fantasy.rules.ruleset.Ruleset` reads the table into :class:`MagicRules`;
the magic engine (:mod:`mathhammer.magic.rules`) fills the keys a file leaves out with
its built-in values per ruleset. The model sits here, below both, so that neither
imports the other.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class MiscastRow(BaseModel):
    """One row of a miscast table keyed by a 2D6 roll (MG-10).

    ``effect`` is text: effects whose wording is unverified are reported as
    P(row), never simulated (``confidence = "low"`` marks them).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: int = Field(ge=2, le=12)
    high: int = Field(ge=2, le=12)
    name: str
    effect: str = ""
    confidence: Literal["high", "medium", "low"] = "low"
    # the parts of the effect a battle plays (FB-B12); the rest of ``effect`` is not played
    caster_hit_strength: int | None = Field(None, ge=1, le=10, description="FB-B12: the "
                                            "caster takes one hit of this Strength")
    power_lost: str | None = Field(None, description='FB-B12: power dice lost ("D6")')

    @field_validator("power_lost")
    @classmethod
    def _dice(cls, text: str | None) -> str | None:
        if text is None:
            return None
        from mathhammer.dice import checked_dice_text

        return checked_dice_text(text, 0, 12, "power dice lost must stay within 0..12")


class MagicRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_casting_dice: int = Field(6, ge=1, le=12, description="MG-4: t9a1 5, wfb8 6")
    max_pool: int = Field(12, ge=1, description="MG-3: dice in a pool")
    max_power_used: int = Field(12, ge=1, description="MG-3: power dice used in one phase")
    max_dispel_used: int = Field(12, ge=1, description="MG-3: dispel dice used in one phase")
    max_extra_dice: int | None = Field(
        None, ge=0, description="MG-3: t9a1 2 dice beyond the flow roll per player; None = no cap"
    )
    channel: Literal["d6_plus_channelers", "each_wizard_six", "none"] = Field(
        "none", description="MG-2: t9a1 D6 + channelers ≥ 7; wfb8 each wizard's 6"
    )
    channel_target: int = Field(7, description="MG-2: t9a1 target for D6 + channelers")
    natural_fail_at_most: int = Field(0, ge=0, description="MG-4: wfb8 a natural 2 or less fails")
    two_sixes: Literal["irresistible", "overwhelming"] = Field(
        "irresistible", description="MG-5: wfb8 irresistible force, t9a1 overwhelming power"
    )
    dispel_natural_fail_at_most: int = Field(0, ge=0, description="MG-6: wfb8 natural 1 or 2 fails")
    failed_dispeller_stops: bool = Field(True, description="MG-6: a wizard who fails cannot dispel again")
    failed_caster_stops: bool = Field(True, description="MG-4: a failed attempt ends that wizard's casting")
    # ---- added by the magic engine (defaults keep older [magic] tables valid) ----
    max_dispel_dice: int | None = Field(
        None, ge=1, le=12, description="MG-6: dice in one dispel attempt; None = the pool cap"
    )
    overwhelming_on_dispel: bool | None = Field(
        None, description="MG-5: t9a1 OP also on dispel rolls; None = true with two_sixes = overwhelming"
    )
    miscast_removes_dice_used: bool = Field(
        False, description="MG-10: t9a1 1.0 removes as many dice as were used from the pool"
    )
    miscast_table: tuple[MiscastRow, ...] = Field(
        (), description="MG-10: rows keyed by 2D6; empty = the built-in table of the ruleset"
    )

    @property
    def dispel_dice_cap(self) -> int:
        return min(self.max_dispel_dice or self.max_pool, self.max_pool)

    @property
    def op_on_dispel(self) -> bool:
        if self.overwhelming_on_dispel is None:
            return self.two_sixes == "overwhelming"
        return self.overwhelming_on_dispel
