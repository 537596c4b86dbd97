"""The headline: one sentence that answers the question a report was asked.

Every table view prints it first and ``--brief`` prints nothing else. The sentence
is written the way a player asks the question — "Juggernaut destroys Ironclad:
48.33% (exact) · mean damage 25.4 boxes" — with the main figure first, then the
method, then the figures a player reads next.

Where it comes from, in order (:func:`headline_source` says which one answered):

1. ``Report.headline``, set by the library function that built the report (it knows
   the question: the threshold asked for, the names of the units);
2. the builder of the report's command in :data:`BUILDERS`, which reads the report's
   own results, title and info;
3. a plain sentence from the first probability (or result), so no command is ever
   without one — a new command should not rely on it (a test walks every command).

The ``*_headline`` functions below are what report builders call; each takes the
finished report plus what the report itself does not record.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mathhammer.results import Estimate, Report

SEP = " · "


# ---------------------------------------------------------------------------- the public API
def headline(report: Report) -> str:
    """The report's headline sentence (see the module docstring for where it comes from)."""
    if report.headline:
        return report.headline
    builder = BUILDERS.get(report.command)
    if builder is not None:
        try:
            return builder(report)
        except (KeyError, ValueError, IndexError):  # a report of an unexpected shape
            pass
    return fallback(report)


def headline_source(report: Report) -> str:
    """``"report"``, ``"command"`` or ``"fallback"``: which of the three wrote the headline."""
    if report.headline:
        return "report"
    builder = BUILDERS.get(report.command)
    if builder is not None:
        try:
            builder(report)
            return "command"
        except (KeyError, ValueError, IndexError):
            pass
    return "fallback"


def fallback(report: Report) -> str:
    """A plain sentence from the report's first probability (or first result)."""
    subject = report.title or report.command
    if not report.results:
        if report.distributions:
            name, dist = next(iter(report.distributions.items()))
            mean = f"{dist.mean:.3f}" + ("" if dist.is_exact else f" ± {dist.mean_se:.3f}")
            return f"{subject}: mean {words(name)} {mean} ({method_words(report)})"
        return f"{subject} ({method_words(report)})"
    name = next((n for n in report.results if n.startswith("p_")), next(iter(report.results)))
    value = figure(report.results[name], name.startswith("p_"))
    return f"{subject}: {words(name)} {value} ({method_words(report)})"


# ---------------------------------------------------------------------------- figures and words
def figure(est: Estimate, percent: bool) -> str:
    """A value as a player reads it: 48.33% or 25.40, with ``± se`` when simulated."""
    if percent:
        text = f"{100 * est.value:.2f}%"
        return text if est.is_exact else f"{text} ± {100 * est.se:.2f}"
    text = f"{est.value:.2f}"
    return text if est.is_exact else f"{text} ± {est.se:.2f}"


def pct(est: Estimate) -> str:
    """A probability: ``48.33%`` exact, ``48.83% ± 0.35`` simulated."""
    return figure(est, True)


def brief_pct(est: Estimate) -> str:
    """A secondary probability, one decimal: ``7.4%`` exact, ``7.5% ± 0.1`` simulated."""
    return _with_se(100 * est.value, 100 * est.se, 1, est.is_exact, "%")


def num(est: Estimate, digits: int = 2) -> str:
    """A mean: ``25.40`` exact, ``25.47 ± 0.04`` simulated (the error keeps a digit)."""
    return _with_se(est.value, est.se, digits, est.is_exact, "")


def _with_se(value: float, se: float, digits: int, exact: bool, unit: str) -> str:
    if exact:
        return f"{value:.{digits}f}{unit}"
    while 0 < se and round(se, digits) == 0 and digits < 4:  # never "± 0.0"
        digits += 1
    return f"{value:.{digits}f}{unit} ± {se:.{digits}f}"


def method_words(report: Report) -> str:
    """``exact`` or ``Monte Carlo, 200,000 trials, seed 1``."""
    if report.method == "exact":
        return "exact"
    n = f"{report.n_trials:,}" if report.n_trials else "?"
    label = "Monte Carlo" if report.method == "mc" else f"{report.method}: Monte Carlo"
    return f"{label}, {n} trials{'' if report.seed is None else f', seed {report.seed}'}"


def words(name: str) -> str:
    """A result key in words: ``p_goes_off_1`` → ``P(goes off 1)``, ``mean_damage`` → ``mean damage``."""
    if name.startswith("p_"):
        return f"P({name[2:].replace('_', ' ')})"
    return name.replace("_", " ")


def plural(n: int | str, noun: str) -> str:
    return f"{n} {noun}" + ("" if str(n) == "1" else "s")


def _sentence(statement: str, main: str, report: Report, extras: Sequence[str] = ()) -> str:
    text = f"{statement}: {main} ({method_words(report)})"
    extras = [e for e in extras if e]
    return text + (SEP + ", ".join(extras) if extras else "")


def _get(report: Report, *names: str) -> Estimate | None:
    """The first of ``names`` the report has (keys are being renamed; accept either)."""
    for name in names:
        if name in report.results:
            return report.results[name]
    return None


# ---------------------------------------------------------------------------- dice
def roll_headline(report: Report, expression: str, at_least: int | None,
                  at_most: int | None) -> str:
    """``2D6+3 rolls 10 or more: 58.33% (exact) · mean 10.00``."""
    dist = report.distributions["roll"]
    mean = f"mean {num(report.results['mean'])}"
    asked = []
    if at_least is not None:
        asked.append(f"{at_least} or more: {pct(report.results['p_at_least'])}")
    if at_most is not None:
        asked.append(f"{at_most} or less: {pct(report.results['p_at_most'])}")
    if asked:
        return f"{expression} rolls {', '.join(asked)} ({method_words(report)}){SEP}{mean}"
    lo, hi = dist.percentile(0.05), dist.percentile(0.95)
    return (f"{expression} averages {num(report.results['mean'])} ({method_words(report)})"
            f"{SEP}sd {dist.sd:.2f}, 90% of rolls from {lo} to {hi}")


# ---------------------------------------------------------------------------- Warmachine
def wm_attack_headline(report: Report, attacks: int, kind: str, defense: int, armor: int,
                       boxes: int | None) -> str:
    """``3 melee attacks at DEF 12 ARM 18 destroy 15 boxes: 80.54% (exact) · …``."""
    who = f"{plural(attacks, kind + ' attack')} at DEF {defense} ARM {armor}"
    hits = f"{num(report.results['mean_hits'])} hits" if attacks > 1 else ""
    damage = f"mean damage {num(report.results['mean_damage'])}"
    p_hit = report.results["p_hit"]
    if boxes is not None:
        first = "each hits" if attacks == 1 else "the first hits"
        return _sentence(f"{who} {'destroys' if attacks == 1 else 'destroy'} "
                         f"{plural(boxes, 'box')}".replace("boxs", "boxes"),
                         pct(report.results["p_destroyed"]), report,
                         [f"{first} {brief_pct(p_hit)}", hits, damage])
    if attacks == 1:
        return _sentence(f"{who} hits", pct(p_hit), report, [damage])
    return _sentence(f"{who}, the first hits", pct(p_hit), report, [hits, damage])


def wm_duel_headline(report: Report, attackers: Sequence[str], target: str,
                     objective: str = "destroy") -> str:
    """``Juggernaut destroys Ironclad: 48.33% (exact) · mean damage 25.4 boxes``."""
    who = " then ".join(dict.fromkeys(attackers)) if len(attackers) > 1 else attackers[0]
    verb = "destroys" if len(attackers) == 1 else "destroy"
    destroyed, damage = report.results["p_destroyed"], report.results["mean_damage"]
    boxes = f"mean damage {num(damage, 1)} boxes"
    if objective == "damage":
        return _sentence(f"{who} against {target}, mean damage", f"{num(damage, 1)} boxes",
                         report, [f"destroyed {brief_pct(destroyed)}"])
    if objective.startswith("cripple:") and f"p_crippled_{objective[8:]}" in report.results:
        system = objective[8:]
        verb = "cripples" if len(attackers) == 1 else "cripple"
        return _sentence(f"{who} {verb} {target}'s {system}",
                         pct(report.results[f"p_crippled_{system}"]), report,
                         [f"destroyed {brief_pct(destroyed)}", boxes])
    return _sentence(f"{who} {verb} {target}", pct(destroyed), report, [boxes])


def wm_plan_headline(report: Report, target: str, objective: str, plan: str) -> str:
    """``Best plan destroys Stryker: 97.12% (exact) · Sorscha (feat, 0, melee) → …``."""
    if objective == "damage":
        return _sentence(f"Best plan against {target}, mean damage",
                         f"{num(report.results['mean_damage'], 1)} boxes", report, [plan])
    return _sentence(f"Best plan destroys {target}", pct(report.results["p_destroyed"]),
                     report, [plan])


def _wm_aoe(report: Report) -> str:
    """``3" AOE at 8": direct hit on the target 41.67% (exact) · target destroyed …``."""
    spray = " spray " in f" {report.title} " or report.title.startswith("wm aoe: SP")
    main = _get(report, "p_target_hit", "p_direct_hit", "p_hit_target")
    shape = report.title.removeprefix("wm aoe: ").split(",")[0]
    statement = f"{shape} {'hits the target' if spray else 'hits the target directly'}"
    extras = []
    destroyed = _get(report, "p_destroyed_target")
    if destroyed is not None:
        extras.append(f"target destroyed {brief_pct(destroyed)}")
    models = _get(report, "mean_models_hit")
    if models is not None:
        extras.append(f"{num(models)} models take a damage roll")
    return _sentence(statement, pct(main), report, extras)


def _wm_run(report: Report) -> str:
    """A Warmachine scenario: ``<title>: target destroyed 56.28% (exact) · mean damage …``."""
    subject = report.title or "scenario"
    return _sentence(f"{subject} — target destroyed", pct(report.results["p_destroyed"]), report,
                     [f"mean damage {num(report.results['mean_damage'], 1)} boxes"])


# ---------------------------------------------------------------------------- Fantasy
def fb_chain_headline(report: Report, attacks: int | str, shooting: bool,
                      at_least: int | None) -> str:
    """``10 attacks, S4 vs T3: 3 or more unsaved wounds 78.01% (exact) · mean 3.70 wounds``."""
    title = report.title.split(": ", 1)[-1]  # "10 x S4 vs T3 (wfb8)"
    what = title.replace(f"{attacks} x ", f"{plural(attacks, 'shot' if shooting else 'attack')}, ", 1)
    mean = f"mean {num(report.results['mean_unsaved_wounds'])} unsaved wounds"
    extras = []
    if shooting:
        extras.append(f"each shot hits {brief_pct(report.results['p_hit'])}")
    if "mean_models_slain" in report.results:
        extras.append(f"mean {num(report.results['mean_models_slain'])} models slain")
    if at_least is not None:
        return _sentence(f"{what}, {at_least} or more unsaved wounds",
                         pct(report.results["p_at_least"]), report, [mean, *extras])
    wounds = report.distributions["unsaved_wounds"]
    extras.insert(0, f"at least one {brief_pct(wounds.p_at_least(1))}")
    return _sentence(f"{what}, mean unsaved wounds", num(report.results["mean_unsaved_wounds"]),
                     report,
                     extras)


def _fb_test(report: Report) -> str:
    """``Leadership test, Ld 8 (wfb8): passes 92.28% (exact)``."""
    title = report.title[:1].upper() + report.title[1:]
    verb = "the spell has no effect" if title.startswith("Magic resistance") else "passes"
    return _sentence(f"{title}: {verb}", pct(report.results["p_pass"]), report)


def _fb_break_test(report: Report) -> str:
    """``Break test, Ld 8, lost by 3 (wfb8): holds 27.78% (exact) · breaks 72.22%``."""
    p = report.results["p_pass"]
    title = report.title[:1].upper() + report.title[1:]
    return (f"{title}: holds {pct(p)} ({method_words(report)}){SEP}"
            f"breaks {100 * (1 - p.value):.2f}%")


def _fb_pursuit(report: Report) -> str:
    """``Pursuit 3D6kh2 catches a unit fleeing 2D6: 72.42% (exact)``."""
    pursue, flee = report.info.get("pursue", "?"), report.info.get("flee", "?")
    return _sentence(f"Pursuit {pursue} catches a unit fleeing {flee}",
                     pct(report.results["p_caught"]), report)


def fb_combat_headline(report: Report, name_a: str, name_b: str, rounds: int | None) -> str:
    """``Halberdiers against Orc Boyz within 3 rounds: win 55.43% ± 0.35, both standing …,
    lose …`` (win = every enemy unit broken or destroyed, lose = the other way round)."""
    win = _get(report, "p_a_wins")
    draw, lose = _get(report, "p_both_standing"), _get(report, "p_b_wins")
    limit = (", until decided" if rounds is None else " in one round" if rounds == 1
             else f" within {rounds} rounds")
    main = f"win {pct(win)}" + (f", both standing {brief_pct(draw)}" if draw is not None else "") + (
        f", lose {brief_pct(lose)}" if lose is not None else "")
    out = _get(report, "p_both_out")
    if out is not None and out.value > 0:
        main += f", both out {brief_pct(out)}"
    extras = []
    breaks, destroyed = _get(report, "p_enemy_breaks"), _get(report, "p_enemy_destroyed")
    if breaks is not None:
        extras.append(f"{name_b} broken {brief_pct(breaks)}")
    if destroyed is not None:
        extras.append(f"destroyed {brief_pct(destroyed)}")
    return _sentence(f"{name_a} against {name_b}{limit}", main, report, extras)


def _fb_artillery(report: Report) -> str:
    """``One stone-thrower shot at Skeleton Warriors (40 models, wfb8) slays 2.20 models …``."""
    slain = report.results["mean_models_slain"]
    dist = report.distributions.get("models_slain")
    extras = []
    if dist is not None:
        extras.append(f"at least one slain {brief_pct(dist.p_at_least(1))}")
    misfire = _get(report, "p_misfire")
    if misfire is not None and misfire.value > 0:
        extras.append(f"misfire {brief_pct(misfire)}")
    title = report.title[:1].upper() + report.title[1:]
    return _sentence(f"{title}, models slain per shot", num(slain), report, extras)


# ---------------------------------------------------------------------------- magic
def _magic_flow(report: Report) -> str:
    """``Magic flow (t9a1, channelers 2 vs 1): 7.32 power dice against 4.64 dispel dice …``."""
    title = report.title[:1].upper() + report.title[1:]
    power, dispel = report.results["mean_power_dice"], report.results["mean_dispel_dice"]
    more = _get(report, "p_more_power_than_dispel")
    return _sentence(f"{title}, on average", f"{num(power)} power dice against {num(dispel)} "
                     "dispel dice", report,
                     [f"more power than dispel dice {brief_pct(more)}" if more else ""])


def _magic_cast(report: Report) -> str:
    """``3 dice at level 2 cast a casting value 9 spell (wfb8): 90.74% (exact) · …``."""
    m = re.match(r"cast (\d+) dice, (bound spell|level (\d+)), casting value (\d+)(.*)$",
                 report.title)
    statement = report.title
    if m:
        dice, kind, level, value, rest = m.groups()
        who = "1 die" if dice == "1" else f"{dice} dice"
        if kind == "bound spell":
            statement = f"{who} cast{'s' if dice == '1' else ''} a bound spell of power level {value}{rest}"
        else:
            statement = (f"{who} at level {level} cast{'s' if dice == '1' else ''} a "
                         f"casting value {value} spell{rest}")
    irresistible = report.info.get("ruleset") == "wfb8"
    extras = []
    two_sixes = _get(report, "p_two_sixes")
    if two_sixes is not None and two_sixes.value > 0:
        extras.append(f"{'irresistible' if irresistible else 'overwhelming power'} "
                      f"{brief_pct(two_sixes)}")
    miscast = _get(report, "p_miscast")
    if miscast is not None and miscast.value > 0:
        extras.append(f"miscast {brief_pct(miscast)}")
    return _sentence(statement, pct(report.results["p_cast"]), report, extras)


def _magic_dispel(report: Report) -> str:
    """``3 dispel dice at level 1 beat a casting total of 12 (t9a1): 50.00% (exact)``."""
    m = re.match(r"dispel (\d+) dice, level (\d+), against (\d+)(.*)$", report.title)
    statement = report.title
    if m:
        dice, level, total, rest = m.groups()
        who = ("1 dispel die" if dice == "1" else f"{dice} dispel dice") + (
            "" if level == "0" else f" at level {level}")
        statement = f"{who} {'beats' if dice == '1' else 'beat'} a casting total of {total}{rest}"
    return _sentence(statement, pct(report.results["p_dispel"]), report)


def magic_phase_headline(report: Report, spell_names: Sequence[str]) -> str:
    """``Each spell goes off: Fireball 63.70% ± 0.34, Hex 57.22% … (Monte Carlo …) · …``."""
    parts = []
    for i, name in enumerate(spell_names, start=1):
        est = report.results.get(f"p_goes_off_{i}")
        if est is not None:
            parts.append(f"{name} {pct(est) if i == 1 else brief_pct(est)}")
    extras = []
    miscast = _get(report, "p_miscast")
    if miscast is not None:
        extras.append(f"miscast {brief_pct(miscast)}")
    through = report.distributions.get("spells_through")
    if through is not None:
        extras.append(f"mean {num(through.mean_estimate())} spells through")
    return _sentence("Each spell goes off", ", ".join(parts), report, extras)


def _magic_optimise(report: Report) -> str:
    """``Best split of 9 power dice against 5 dispel dice: Fireball 2, Hex 5 … (exact) · …``."""
    split = report.info.get("best split (file order)", {})
    dice = ", ".join(f"{re.sub(r'^[0-9]+[.] ', '', name)} {n}" for name, n in split.items())
    pools = report.info.get("pools", "")
    m = re.match(r"(\d+) power dice vs (\d+) dispel dice", pools)
    statement = (f"Best split of {m.group(1)} power dice against {m.group(2)} dispel dice"
                 if m else "Best split of the power dice")
    best = report.results["expected_weight_best_split"]
    adaptive = report.results["expected_weight_adaptive"]
    return _sentence(statement, dice or "none", report,
                     [f"expected weight through {best.value:.3f}",
                      f"deciding as each spell is cast {adaptive.value:.3f}"])


# ---------------------------------------------------------------------------- analysis
def _compare(report: Report) -> str:
    """``Khador battle box vs Cygnar battle box: best attack Juggernaut → Charger 72.0% …``."""
    matrices = report.info.get("matrix", {})
    names = [report.info.get(k, "").split(":")[0] for k in ("list_a", "list_b")]
    parts = []
    for direction, label in (("A→B", "best attack"), ("B→A", "best reply")):
        m = matrices.get(direction)
        if not m:
            continue
        best = None
        for r, attacker in enumerate(m["attackers"]):
            for c, target in enumerate(m["targets"]):
                p = m["p_kill"][r][c]
                if p is not None and (best is None or p > best[0]):
                    best = (p, attacker, target, m["p_kill_se"][r][c])
        if best is not None:
            se = "" if not best[3] else f" ± {100 * best[3]:.1f}"
            parts.append(f"{label} {best[1]} → {best[2]} P(kill) {100 * best[0]:.1f}%{se}")
    subject = " vs ".join(n for n in names if n) or "compare"
    how = "exact" if report.method == "exact" else (
        f"Monte Carlo cells, {report.n_trials:,} trials each" if report.n_trials else "Monte Carlo")
    return f"{subject}: {'; '.join(parts) or 'no cell'} ({how})"


def _sweep(report: Report) -> str:
    """``Juggernaut vs Ironclad, target DEF 10..18: P(kill) 76.7% → 7.9%; largest step …``."""
    subject = report.title.removeprefix("sweep: ")
    plain = [(k, e) for k, e in report.results.items() if k.startswith("p_kill[") and ", " not in k]
    span = ""
    if plain:
        span = f"P(kill) {100 * plain[0][1].value:.1f}% → {100 * plain[-1][1].value:.1f}%"
        se = max(e.se for _, e in plain)
        span += f" (each ± {100 * se:.1f} pp or less)" if se > 0 else ""
    steps = report.info.get("breakpoints") or []
    largest = next((b for b in steps if "largest" in b), steps[0] if steps else "")
    largest = largest.replace(" — largest step", "")
    how = "exact" if report.method == "exact" else (
        f"Monte Carlo, {report.n_trials:,} trials per point" if report.n_trials else "Monte Carlo")
    tail = f"; largest step {largest}" if largest else "; no breakpoint"
    return f"{subject}: {span}{tail} ({how})"


#: headline builders that need nothing beyond the report, by command
BUILDERS: dict[str, Callable[[Report], str]] = {
    "wm aoe": _wm_aoe,
    "run": _wm_run,
    "sequence": _wm_run,
    "fb test": _fb_test,
    "fb break-test": _fb_break_test,
    "fb pursuit": _fb_pursuit,
    "fb artillery": _fb_artillery,
    "magic flow": _magic_flow,
    "magic cast": _magic_cast,
    "magic dispel": _magic_dispel,
    "magic optimise": _magic_optimise,
    "compare": _compare,
    "sweep": _sweep,
}
