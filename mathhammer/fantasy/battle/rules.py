"""The ``[battle]`` table of a ruleset: what a whole battle needs beyond the single engines.

Table size, deployment, marching, the general's and battle standard's range, which ranks
shoot, and how victory points are scored and a winner named (FB-B1..FB-B9). Validated
like the rest of a ruleset (pydantic, ``extra="forbid"``); the bundled rulesets give every
value with its confidence. Only pydantic is imported here: :mod:`mathhammer.fantasy.rules.ruleset`
reads this model.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr


class BattleRules(BaseModel):
    """FB-B1..FB-B9: the battle's geometry, sequence and scoring as data."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table_width: float = Field(72.0, ge=12, le=200, description="FB-B1: inches, left to right")
    table_depth: float = Field(48.0, ge=12, le=200, description="FB-B1: inches, A's edge to B's")
    deployment_gap: float = Field(24.0, ge=0, le=100, description="FB-B2: inches between the two lines")
    unit_spacing: float = Field(2.0, ge=0, le=20, description="FB-B2: inches between units of a line")
    march_multiplier: int = Field(2, ge=1, le=4, description="FB-B5: a march moves M times this")
    march_block: float = Field(8.0, ge=0, le=24, description="FB-B5: no march with an enemy this near")
    general_range: float = Field(12.0, ge=0, le=48, description="FB-B8: the general lends Ld this far")
    battle_standard_range: float = Field(12.0, ge=0, le=48, description="FB-B8: re-rolls this far")
    shooting_ranks: int = Field(2, ge=1, le=10, description="FB-B6: ranks whose models shoot")
    restrain_test: bool = Field(False, description="FB-B7: a winner restrains only by passing a "
                                "Leadership test; failed, it pursues")
    destroyed: float = Field(1.0, ge=0, le=1, description="FB-B9: share of its points a destroyed "
                                                           "or fled unit gives")
    fleeing_at_end: float = Field(1.0, ge=0, le=1, description="FB-B9: share a unit fleeing at "
                                                                "the end gives")
    below_quarter: float = Field(0.0, ge=0, le=1, description="FB-B9: share a unit below a quarter "
                                                               "of its models gives")
    general_bonus: int = Field(0, ge=0, le=1000, description="FB-B9: VP for the slain or fled general")
    battle_standard_bonus: int = Field(0, ge=0, le=1000, description="FB-B9: VP for the battle standard")
    standard_bonus: int = Field(0, ge=0, le=1000, description="FB-B9: VP per standard of a unit "
                                                               "destroyed or broken in combat")
    draw_margin: int = Field(0, ge=0, le=10_000, description="FB-B9: a VP margin at most this is a draw")
    draw_margin_share: float = Field(0.0, ge=0, le=1, description="FB-B9: ... or at most this share "
                                                                   "of the points limit")
    confidence: dict[str, str] = Field(default_factory=dict, description="key -> source and doubt")
    _hash: int | None = PrivateAttr(None)

    def __hash__(self) -> int:  # a dict inside: hash the validated content once (as CombatRules)
        if self._hash is None:
            object.__setattr__(self, "_hash", hash(self.model_dump_json()))
        return self._hash

    def draw_limit(self, points_limit: int) -> float:
        """The largest VP margin that is still a draw for a game of ``points_limit``."""
        return max(float(self.draw_margin), self.draw_margin_share * points_limit)
