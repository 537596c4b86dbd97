"""The magic part of a ruleset (the ``[magic]`` table of a ruleset TOML file).

Values per ruleset are data, in the ruleset files (``fantasy/rules/*.toml``, docs/rules.md
MG-1..MG-7 and MG-10): ``t9a1`` (seed 004) and ``wfb8``. :func:`magic_rules` returns the
rules of a ruleset by name or path through the Fantasy ruleset loader.
"""

from __future__ import annotations

from mathhammer.errors import RulesError
from mathhammer.fantasy.rules.magic import MagicRules, MiscastRow  # noqa: F401 (re-exported)

#: rulesets with a magic phase: their bundled files carry the ``[magic]`` table (MG-1..MG-10)
MAGIC_RULESETS = ("wfb8", "t9a1")

NO_MAGIC = ("basic",)  # seed 001 has no magic phase (MG covers t9a1 and wfb8)


def magic_rules(ruleset: str = "t9a1") -> MagicRules:
    """The magic rules of a ruleset name (``t9a1``, ``wfb8``) or a ruleset TOML path.

    Reads ``load_ruleset(ruleset).magic`` (the ``[magic]`` table), the one source of these
    values (MG-10's miscast tables included). A file of your own that leaves keys out
    takes them from the bundled ruleset it names (``name = "t9a1"`` in a copied file keeps
    the t9a1 values, its miscast table too).
    """
    from mathhammer.fantasy.rules.ruleset import BUNDLED, load_ruleset

    if ruleset in NO_MAGIC:
        raise RulesError("‹ruleset›", "has no magic phase (MG-1..MG-10 cover t9a1 and wfb8)",
                         ruleset, "use ‹ruleset› t9a1 or ‹ruleset› wfb8")
    loaded = load_ruleset(ruleset)
    magic = loaded.magic
    name = getattr(loaded, "name", "")
    if name not in BUNDLED or ruleset == name:
        return magic
    base = load_ruleset(name).magic  # the bundled file this one copies
    rules = base.model_copy(update={key: getattr(magic, key) for key in magic.model_fields_set})
    if not rules.miscast_table:
        rules = rules.model_copy(update={"miscast_table": base.miscast_table})
    return rules
