"""Headline sentences of the magic reports (the answer first; docs/design.md).

The phase engine calls :func:`magic_phase_headline` with the spells' names; the others
are the adapter's :data:`BUILDERS`, which read the report alone."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mathhammer.results import Report
from mathhammer.words import brief_pct, first_result, num, pct, plural, sentence


def _magic_flow(report: Report) -> str:
    """``Magic flow (t9a1, channelers 2 vs 1): 7.32 power dice against 4.64 dispel dice …``."""
    title = report.title[:1].upper() + report.title[1:]
    power, dispel = report.results["mean_power_dice"], report.results["mean_dispel_dice"]
    more = first_result(report, "p_more_power_than_dispel")
    return sentence(f"{title}, on average", f"{num(power)} power dice against {num(dispel)} "
                     "dispel dice", report,
                     [f"more power than dispel dice {brief_pct(more)}" if more else ""])


def _magic_cast(report: Report) -> str:
    """``3 dice at level 2 cast a casting value 9 spell (wfb8): 90.74% (exact) · …``."""
    m = re.match(r"cast (\d+) di(?:c?e), (bound spell|level (\d+)), casting value (\d+) (\(.*?\))(.*)$",
                 report.title)
    statement = report.title
    against = ""
    if m:
        dice, kind, level, value, rules, against = m.groups()
        rest = f" {rules}"
        who = "1 die" if dice == "1" else f"{dice} dice"
        if kind == "bound spell":
            statement = f"{who} cast{'s' if dice == '1' else ''} a bound spell of power level {value}{rest}"
        else:
            statement = (f"{who} at level {level} cast{'s' if dice == '1' else ''} a "
                         f"casting value {value} spell{rest}")
    irresistible = report.info.get("ruleset") == "wfb8"
    extras = []
    two_sixes = first_result(report, "p_two_sixes")
    if two_sixes is not None and two_sixes.value > 0:
        extras.append(f"{'irresistible' if irresistible else 'overwhelming power'} "
                      f"{brief_pct(two_sixes)}")
    miscast = first_result(report, "p_miscast")
    if miscast is not None and miscast.value > 0:
        extras.append(f"miscast {brief_pct(miscast)}")
    goes = first_result(report, "p_goes_off")
    if goes is not None:  # MG-6: one line for the cast met by a dispel attempt
        extras[:0] = [f"cast {brief_pct(report.results['p_cast'])}",
                      f"dispelled {brief_pct(report.results['p_dispelled'])}"]
        return sentence(f"{statement}{against}, the spell goes off", pct(goes), report, extras)
    return sentence(statement, pct(report.results["p_cast"]), report, extras)


def _magic_dispel(report: Report) -> str:
    """``3 dispel dice at level 1 beat a casting total of 12 (t9a1): 50.00% (exact)``."""
    m = re.match(r"dispel (\d+) di(?:c?e), level (\d+), against (\d+)(.*)$", report.title)
    statement = report.title
    if m:
        dice, level, total, rest = m.groups()
        who = ("1 dispel die" if dice == "1" else f"{dice} dispel dice") + (
            "" if level == "0" else f" at level {level}")
        statement = f"{who} {'beats' if dice == '1' else 'beat'} a casting total of {total}{rest}"
    return sentence(statement, pct(report.results["p_dispel"]), report)


def magic_phase_headline(report: Report, spell_names: Sequence[str]) -> str:
    """``Each spell goes off: Fireball 63.70% ± 0.34, Hex 57.22% … (Monte Carlo …) · …``."""
    parts = []
    for i, name in enumerate(spell_names, start=1):
        est = report.results.get(f"p_goes_off_{i}")
        if est is not None:
            parts.append(f"{name} {pct(est) if i == 1 else brief_pct(est)}")
    extras = []
    miscast = first_result(report, "p_miscast")
    if miscast is not None:
        extras.append(f"miscast {brief_pct(miscast)}")
    through = report.distributions.get("spells_through")
    if through is not None:
        extras.append(f"mean {num(through.mean_estimate())} spells through")
    return sentence("Each spell goes off", ", ".join(parts), report, extras)


def _magic_optimise(report: Report) -> str:
    """``Best split of 9 power dice against 5 dispel dice: Fireball 2, Hex 5 … (exact) · …``."""
    split = report.info.get("best split (file order)", {})
    dice = ", ".join(f"{re.sub(r'^[0-9]+[.] ', '', name)} {n}" for name, n in split.items())
    pools = report.info.get("pools", "")
    m = re.match(r"(\d+) power di(?:c?e) vs (\d+) dispel di(?:c?e)", pools)
    statement = (f"Best split of {plural(m.group(1), 'power die')} against "
                 f"{plural(m.group(2), 'dispel die')}" if m else "Best split of the power dice")
    best = report.results["expected_weight_best_split"]
    adaptive = report.results["expected_weight_adaptive"]
    return sentence(statement, dice or "none", report,
                     [f"expected weight through {best.value:.3f}",
                      f"deciding as each spell is cast {adaptive.value:.3f}"])


#: headline builders that need nothing beyond the report, by report name
BUILDERS: dict[str, Callable[[Report], str]] = {
    "magic.flow": _magic_flow,
    "magic.cast": _magic_cast,
    "magic.dispel": _magic_dispel,
    "magic.optimise": _magic_optimise,
}
