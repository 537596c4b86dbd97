"""The magic part of a ruleset (the ``[magic]`` table of a ruleset TOML file).

Values per ruleset come from RULES.md MG-1..MG-7 and MG-10: ``t9a1`` (seed 004) and
``wfb8``. :func:`magic_rules` returns the rules of a ruleset by name or path: the
Fantasy ruleset loader's ``ruleset.magic`` when it is available, else the ``[magic]``
table of the ruleset TOML laid over this module's built-in values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mathhammer.errors import RulesError


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


# ---- built-in values (used when a ruleset file or key is missing) -------------------
_WFB8_MISCAST = (  # MG-10; names and ranges medium-high, effects other than 7 unverified
    MiscastRow(low=2, high=4, name="Dimensional Cascade", effect="large template on the wizard (unverified)"),
    MiscastRow(low=5, high=6, name="Calamitous Detonation", effect="small template on the wizard (unverified)"),
    MiscastRow(low=7, high=7, name="Detonation", confidence="high",
               effect="wizard and models in base contact take a S10 hit; lose D6 power dice"),
    MiscastRow(low=8, high=9, name="Magical Feedback", effect="unverified"),
    MiscastRow(low=10, high=12, name="Power Drain", effect="wizard loses D3 levels (unverified)"),
)
_T9A1_MISCAST = (  # MG-10: T9A 1.0 table (high for 1.0; 1.2/1.3 changed it, unverified)
    MiscastRow(low=2, high=4, name="Breach in the Veil", confidence="high",
               effect="5\" template hits (S = dice+2, AP1); 5 dice: caster removed, 4 dice: on 1-3"),
    MiscastRow(low=5, high=6, name="Calamitous Detonation", confidence="high",
               effect="3\" template hits; the caster takes one hit"),
    MiscastRow(low=7, high=7, name="Witch Fire", confidence="high",
               effect="caster's unit takes (dice used) hits, at most one on the caster"),
    MiscastRow(low=8, high=9, name="Sorcerous Backlash", confidence="high",
               effect="the caster and every friendly wizard take a hit"),
    MiscastRow(low=10, high=12, name="Amnesia", confidence="medium",
               effect="caster loses wizard levels (dice used - 2, or 2) and their spells"),
)

BUILTIN: dict[str, dict] = {
    "wfb8": dict(max_casting_dice=6, channel="each_wizard_six", natural_fail_at_most=2,
                 two_sixes="irresistible", dispel_natural_fail_at_most=2,
                 failed_dispeller_stops=True, miscast_table=_WFB8_MISCAST),
    # failed_dispeller_stops: MG-6 names it for wfb8 only (decision: off in t9a1)
    "t9a1": dict(max_casting_dice=5, max_extra_dice=2, channel="d6_plus_channelers",
                 channel_target=7, two_sixes="overwhelming", natural_fail_at_most=0,
                 dispel_natural_fail_at_most=0, failed_dispeller_stops=False,
                 miscast_removes_dice_used=True, miscast_table=_T9A1_MISCAST),
}
MAGIC_RULESETS = tuple(BUILTIN)

_RULESET_DIR = Path(__file__).resolve().parents[1] / "fantasy" / "rulesets"


def _from_fantasy_loader(name: str) -> MagicRules | None:
    """``load_ruleset(name).magic`` once the Fantasy ruleset loader exists."""
    try:
        from mathhammer.fantasy.rulesets import load_ruleset  # type: ignore[attr-defined]
    except ImportError:
        return None
    magic = getattr(load_ruleset(name), "magic", None)
    if not isinstance(magic, MagicRules):
        return None
    # keys the file sets win; keys it leaves out take this module's per-ruleset values
    # (the class defaults are wfb8-flavoured and would be wrong for t9a1)
    explicit = magic.model_dump(include=set(magic.model_fields_set))
    return MagicRules(**{**BUILTIN.get(name, {}), **explicit})


def _toml_magic_table(path: Path) -> dict | None:
    from mathhammer.profiles import read_toml

    if not path.is_file():
        return None
    table = read_toml(path).get("magic")
    return dict(table) if isinstance(table, dict) else None


def magic_rules(ruleset: str = "t9a1") -> MagicRules:
    """The magic rules of a ruleset name (``t9a1``, ``wfb8``) or a ruleset TOML path.

    Values missing from the file fall back to this module's built-in values for that
    ruleset, so a minimal ``[magic]`` table (or none) still gives the full rules; an
    empty miscast table is replaced by the built-in one (MG-10).
    """
    as_path = Path(ruleset)
    is_path = ruleset.endswith(".toml") or as_path.suffix == ".toml"
    name = as_path.stem if is_path else ruleset
    rules: MagicRules | None = None
    if not is_path and name in BUILTIN:
        try:
            rules = _from_fantasy_loader(name)
        except Exception:  # noqa: BLE001 - their loader failing must not stop magic
            rules = None
    if rules is None:
        table = _toml_magic_table(as_path if is_path else _RULESET_DIR / f"{name}.toml")
        if table is None and name not in BUILTIN:
            raise RulesError("--ruleset", "has no magic phase (no [magic] table)", ruleset,
                             "use --ruleset t9a1 or --ruleset wfb8")
        merged = {**BUILTIN.get(name, {}), **(table or {})}
        try:
            rules = MagicRules(**merged)
        except ValidationError as err:
            from mathhammer.profiles import pydantic_errors

            raise pydantic_errors(err, f"ruleset {ruleset}: [magic]") from None
    if not rules.miscast_table and name in BUILTIN:
        rules = rules.model_copy(update={"miscast_table": BUILTIN[name]["miscast_table"]})
    return rules
