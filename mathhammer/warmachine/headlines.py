"""Headline sentences of the Warmachine reports (the answer first; docs/design.md).

Engines call the ``*_headline`` functions with what the report does not record; the
others are the adapter's :data:`BUILDERS`, which read the report alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mathhammer.results import Report
from mathhammer.words import brief_pct, first_result, num, pct, plural, sentence


def wm_attack_headline(report: Report, attacks: int, kind: str, defense: int, armor: int,
                       boxes: int | None) -> str:
    """``3 melee attacks at DEF 12 ARM 18 destroy 15 boxes: 80.54% (exact) · …``."""
    results = report.results
    who = f"{plural(attacks, kind + ' attack')} at DEF {defense} ARM {armor}"
    hits = f"{num(results['mean_hits'])} hits" if attacks > 1 else ""
    damage = f"mean damage {num(results['mean_damage'])}"
    p_hit = results["p_hit"]
    if boxes is not None:
        first = "each hits" if attacks == 1 else "the first hits"
        return sentence(f"{who} {'destroys' if attacks == 1 else 'destroy'} "
                        + plural(boxes, "box"),
                        pct(results["p_destroyed"]), report,
                        [f"{first} {brief_pct(p_hit)}", hits, damage])
    if attacks == 1:
        return sentence(f"{who} hits", pct(p_hit), report, [damage])
    return sentence(f"{who}, the first hits", pct(p_hit), report, [hits, damage])


def wm_duel_headline(report: Report, attackers: Sequence[str], target: str,
                     objective: str = "destroy") -> str:
    """``Juggernaut destroys Ironclad: 48.33% (exact) · mean damage 25.4 boxes``."""
    who = " then ".join(dict.fromkeys(attackers)) if len(attackers) > 1 else attackers[0]
    verb = "destroys" if len(attackers) == 1 else "destroy"
    destroyed, damage = report.results["p_destroyed"], report.results["mean_damage"]
    boxes = f"mean damage {num(damage, 1)} boxes"
    if objective == "damage":
        return sentence(f"{who} against {target}, mean damage", f"{num(damage, 1)} boxes",
                         report, [f"destroyed {brief_pct(destroyed)}"])
    if objective.startswith("cripple:") and f"p_crippled_{objective[8:]}" in report.results:
        system = objective[8:]
        verb = "cripples" if len(attackers) == 1 else "cripple"
        return sentence(f"{who} {verb} {target}'s {system}",
                        pct(report.results[f"p_crippled_{system}"]), report,
                        [f"destroyed {brief_pct(destroyed)}", boxes])
    return sentence(f"{who} {verb} {target}", pct(destroyed), report, [boxes])


def wm_plan_headline(report: Report, target: str, objective: str, plan: str,
                     best: bool = True) -> str:
    """``Best plan destroys Stryker: 97.12% (exact) · Sorscha (feat, 0, melee) first, …``;
    ``Plan …`` when the search does not prove that no plan does better (a grid, WM-P1)."""
    what = "Best plan" if best else "Plan"
    if objective == "damage":
        return sentence(f"{what} against {target}, mean damage",
                         f"{num(report.results['mean_damage'], 1)} boxes", report, [plan])
    return sentence(f"{what} destroys {target}", pct(report.results["p_destroyed"]),
                     report, [plan])


def _wm_aoe(report: Report) -> str:
    """``3" AOE at 8": direct hit on the target 41.67% (exact) · target destroyed …``."""
    spray = " spray " in f" {report.title} " or report.title.startswith("wm aoe: SP")
    main = first_result(report, "p_target_hit", "p_direct_hit", "p_hit_target")
    shape = report.title.removeprefix("wm aoe: ").split(",")[0]
    statement = f"{shape} {'hits the target' if spray else 'hits the target directly'}"
    extras = []
    destroyed = first_result(report, "p_destroyed_target")
    if destroyed is not None:
        extras.append(f"target destroyed {brief_pct(destroyed)}")
    models = first_result(report, "mean_models_hit")
    if models is not None:
        extras.append(f"{num(models)} models take a damage roll")
    return sentence(statement, pct(main), report, extras)


def _wm_run(report: Report) -> str:
    """A Warmachine scenario: ``<title>: target destroyed 56.28% (exact) · mean damage …``."""
    subject = report.title or "scenario"
    return sentence(f"{subject} — target destroyed", pct(report.results["p_destroyed"]), report,
                     [f"mean damage {num(report.results['mean_damage'], 1)} boxes"])


#: headline builders that need nothing beyond the report, by report name
BUILDERS: dict[str, Callable[[Report], str]] = {
    "warmachine.aoe": _wm_aoe,
    "warmachine.scenario": _wm_run,
    "warmachine.sequence": _wm_run,
}
