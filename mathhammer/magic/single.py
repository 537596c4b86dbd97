"""Reports of single magic rolls: ``magic flow``, ``magic cast``, ``magic dispel``.

All exact (MG-1..MG-7, MG-10); see :mod:`mathhammer.magic.rolls` for the enumeration.
"""

from __future__ import annotations

from fractions import Fraction

from mathhammer.magic.rolls import (
    cast_odds, check_cast_input, check_dispel_input, dispel_probability, flow_pools, marginals,
    miscast_rows,
)
from mathhammer.magic.rules import magic_rules
from mathhammer.results import Distribution, Estimate, Report


def _dist(pmf: dict[int, Fraction]) -> Distribution:
    return Distribution.from_mapping({k: float(v) for k, v in pmf.items()})


def flow(ruleset: str = "t9a1", channelers: int = 0, reactive_channelers: int = 0,
         extra_power: int = 0, extra_dispel: int = 0) -> Report:
    """Power and dispel dice after the flow roll, channel and caps (MG-1..MG-3)."""
    rules = magic_rules(ruleset)
    joint = flow_pools(rules, channelers, reactive_channelers, extra_power, extra_dispel)
    power, dispel = marginals(joint)
    p_more = sum((p for (a, d), p in joint.items() if a > d), Fraction(0))
    return Report(
        "magic flow", "exact",
        results={"mean_power_dice": Estimate.exact(float(sum(k * p for k, p in power.items()))),
                 "mean_dispel_dice": Estimate.exact(float(sum(k * p for k, p in dispel.items()))),
                 "p_more_power_than_dispel": Estimate.exact(float(p_more))},
        distributions={"power_dice": _dist(power), "dispel_dice": _dist(dispel)},
        info={"ruleset": ruleset, "channel": rules.channel,
              "caps": f"pool {rules.max_pool}, extra dice "
                      f"{'no limit' if rules.max_extra_dice is None else rules.max_extra_dice}"},
        title=f"magic flow ({ruleset}, channelers {channelers} vs {reactive_channelers})",
    )


def cast(n_dice: int, level: int, cv: int, ruleset: str = "t9a1", modifier: int = 0,
         bound: bool = False) -> Report:
    """One casting attempt (MG-4, MG-5, MG-7) and its miscast-table rows (MG-10).

    ``p_miscast`` assumes the spell is not dispelled (t9a1 miscasts only then).
    ``casting_total`` is the total of the casts without two natural 6s, given that
    such a cast happened; t9a1's ``overwhelming_total`` is the total with the D3 +
    dice bonus of the two-sixes casts.
    """
    rules = magic_rules(ruleset)
    check_cast_input(rules, n_dice, level, cv)
    odds = cast_odds(rules, n_dice, level, cv, modifier, bound)
    results = {
        "p_cast": Estimate.exact(float(odds.p_cast)),
        "p_irresistible": Estimate.exact(float(odds.p_irresistible)),
        "p_miscast": Estimate.exact(float(odds.p_miscast_undispelled)),
        "p_fail": Estimate.exact(float(odds.p_fail)),
    }
    if rules.two_sixes == "overwhelming":
        results["p_overwhelming_cast"] = Estimate.exact(float(sum(odds.overwhelming.values())))
    rows = {}
    for label, p_row in miscast_rows(rules):
        key = "p_miscast_row_" + label.split()[0].replace("-", "_")
        results[key] = Estimate.exact(float(odds.p_miscast_undispelled * p_row))
        rows[key] = label
    distributions = {}
    if odds.plain:
        distributions["casting_total"] = _dist(odds.plain)
    if odds.overwhelming:
        distributions["overwhelming_total"] = _dist(odds.overwhelming)
    info = {"ruleset": ruleset, "miscast rows (2D6, effects as data)": rows,
            "note": "casting_total: casts without two natural 6s, given such a cast; "
                    "p_miscast: if not dispelled"}
    kind = "bound spell" if bound else f"level {level}"
    return Report("magic cast", "exact", results, distributions, info=info,
                  title=f"cast {n_dice} dice, {kind}, casting value {cv} ({ruleset})")


def dispel(n_dice: int, level: int, against: int, ruleset: str = "t9a1") -> Report:
    """One dispel attempt against a casting total (MG-6, MG-5 on dispel rolls)."""
    rules = magic_rules(ruleset)
    check_dispel_input(rules, n_dice, level)
    p = dispel_probability(rules, n_dice, level, against)
    results = {"p_dispel": Estimate.exact(float(p))}
    if rules.op_on_dispel:
        from mathhammer.magic.rolls import pool_classes

        p_two = Fraction(sum(pool_classes(n_dice)[2]), 6**n_dice)
        results["p_overwhelming"] = Estimate.exact(float(p_two))
    return Report("magic dispel", "exact", results, info={"ruleset": ruleset},
                  title=f"dispel {n_dice} dice, level {level}, against {against} ({ruleset})")
