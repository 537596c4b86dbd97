"""The magic part of a ruleset (the ``[magic]`` table of a ruleset TOML file).

Values per ruleset come from RULES.md MG-1..MG-7: ``t9a1`` (seed 004) and ``wfb8``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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
