"""The magic part of a ruleset (the ``[magic]`` table of a ruleset TOML file).

Values per ruleset come from docs/rules.md MG-1..MG-7 and MG-10: ``t9a1`` (seed 004) and
``wfb8``. :func:`magic_rules` returns the rules of a ruleset by name or path through
the Fantasy ruleset loader (``load_ruleset(name).magic``), with this module's
built-in values for keys a file leaves out.
"""

from __future__ import annotations

from mathhammer.errors import RulesError
from mathhammer.fantasy.rulesets_magic import MagicRules, MiscastRow  # noqa: F401 (re-exported)

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

NO_MAGIC = ("basic",)  # seed 001 has no magic phase (MG covers t9a1 and wfb8)


def magic_rules(ruleset: str = "t9a1") -> MagicRules:
    """The magic rules of a ruleset name (``t9a1``, ``wfb8``) or a ruleset TOML path.

    Reads ``load_ruleset(ruleset).magic`` (the ``[magic]`` table). Keys the file sets
    win; keys it leaves out take this module's values for the ruleset named in the
    file (``name = "t9a1"`` in a copied file keeps the t9a1 values), and an empty
    miscast table is the built-in one (MG-10).
    """
    from mathhammer.fantasy.rulesets import load_ruleset

    if ruleset in NO_MAGIC:
        raise RulesError("‹ruleset›", "has no magic phase (MG-1..MG-10 cover t9a1 and wfb8)",
                         ruleset, "use ‹ruleset› t9a1 or ‹ruleset› wfb8")
    loaded = load_ruleset(ruleset)
    magic = loaded.magic
    base = BUILTIN.get(getattr(loaded, "name", ""), {})
    explicit = {key: getattr(magic, key) for key in magic.model_fields_set}
    rules = MagicRules(**{**base, **explicit})
    if not rules.miscast_table and base:
        rules = rules.model_copy(update={"miscast_table": base["miscast_table"]})
    return rules
