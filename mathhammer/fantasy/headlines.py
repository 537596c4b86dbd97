"""Headline sentences of the Fantasy reports (the answer first; docs/design.md).

Engines call the ``*_headline`` functions with what the report does not record; the
others are the adapter's :data:`BUILDERS`, which read the report alone."""

from __future__ import annotations

from collections.abc import Callable

from mathhammer.results import Report
from mathhammer.words import (SEP, brief_pct, first_result, method_words, num, pct, plural,
                              sentence, wins_apart)


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
        return sentence(f"{what}, {at_least} or more unsaved wounds",
                         pct(report.results["p_at_least"]), report, [mean, *extras])
    wounds = report.distributions["unsaved_wounds"]
    extras.insert(0, f"at least one {brief_pct(wounds.p_at_least(1))}")
    return sentence(f"{what}, mean unsaved wounds", num(report.results["mean_unsaved_wounds"]),
                     report,
                     extras)


def _fb_test(report: Report) -> str:
    """``Leadership test, Ld 8 (wfb8): passes 92.28% (exact)``."""
    title = report.title[:1].upper() + report.title[1:]
    verb = "the spell has no effect" if title.startswith("Magic resistance") else "passes"
    return sentence(f"{title}: {verb}", pct(report.results["p_pass"]), report)


def _fb_break_test(report: Report) -> str:
    """``Break test, Ld 8, lost by 3 (wfb8): holds 27.78% (exact) · breaks 72.22%``."""
    p = report.results["p_pass"]
    title = report.title[:1].upper() + report.title[1:]
    return (f"{title}: holds {pct(p)} ({method_words(report)}){SEP}"
            f"breaks {100 * (1 - p.value):.2f}%")


def _fb_pursuit(report: Report) -> str:
    """``Pursuit 3D6kh2 catches a unit fleeing 2D6: 72.42% (exact)``."""
    pursue, flee = report.info.get("pursue", "?"), report.info.get("flee", "?")
    return sentence(f"Pursuit {pursue} catches a unit fleeing {flee}",
                     pct(report.results["p_caught"]), report)


def fb_combat_headline(report: Report, name_a: str, name_b: str, rounds: int | None) -> str:
    """``Halberdiers against Orc Boyz within 3 rounds: win 55.43% ± 0.35, both standing …,
    lose …`` (win = every enemy unit broken or destroyed, lose = the other way round)."""
    win = first_result(report, "p_a_wins")
    draw, lose = first_result(report, "p_both_standing"), first_result(report, "p_b_wins")
    limit = (", until decided" if rounds is None else " in one round" if rounds == 1
             else f" within {rounds} rounds")
    main = f"win {pct(win)}" + (f", both standing {brief_pct(draw)}" if draw is not None else "") + (
        f", lose {brief_pct(lose)}" if lose is not None else "")
    out = first_result(report, "p_both_out")
    if out is not None and out.value > 0:
        main += f", both out {brief_pct(out)}"
    extras = []
    breaks, destroyed = first_result(report, "p_enemy_breaks"), first_result(report, "p_enemy_destroyed")
    if breaks is not None:
        extras.append(f"{name_b} broken {brief_pct(breaks)}")
    if destroyed is not None:
        extras.append(f"destroyed {brief_pct(destroyed)}")
    return sentence(f"{name_a} against {name_b}{limit}", main, report, extras)


def _fb_artillery(report: Report) -> str:
    """``One stone-thrower shot at Skeleton Warriors (40 models, wfb8) slays 2.20 models …``."""
    slain = report.results["mean_models_slain"]
    dist = report.distributions.get("models_slain")
    extras = []
    if dist is not None:
        extras.append(f"at least one slain {brief_pct(dist.p_at_least(1))}")
    misfire = first_result(report, "p_misfire")
    if misfire is not None and misfire.value > 0:
        extras.append(f"misfire {brief_pct(misfire)}")
    title = report.title[:1].upper() + report.title[1:]
    return sentence(f"{title}, models slain per shot", num(slain), report, extras)


#: headline builders that need nothing beyond the report, by report name
BUILDERS: dict[str, Callable[[Report], str]] = {
    "fantasy.test": _fb_test,
    "fantasy.break_test": _fb_break_test,
    "fantasy.pursuit": _fb_pursuit,
    "fantasy.artillery": _fb_artillery,
}


def fb_turn_headline(report: Report, names: tuple[str, str], turns: int) -> str:
    """One line (FB-G5): ``After 3 game turns, Orc Boyz: destroyed 13.08%, fled 4.2% (exact)
    · Knights of the Realm destroyed 28.8%, fled 1.4%`` — each unit's end off the table;
    holding and fleeing are in the turn-by-turn grid."""
    def at_end(side: int, status: str):
        return report.results[f"p_{status}[{names[side]}, turn {turns}]"]

    def ends(side: int, first: bool) -> str:
        destroyed = (pct if first else brief_pct)(at_end(side, "destroyed"))
        return f"destroyed {destroyed}, fled {brief_pct(at_end(side, 'fled'))}"

    return sentence(f"After {plural(turns, 'game turn')}, {names[1]}", ends(1, True), report,
                    [f"{names[0]} {ends(0, False)}"])


def side_names(names) -> tuple[str, str]:
    """The two lists' names as a battle's words say them: a list against itself is told
    apart by its side, ``Empire (A)`` and ``Empire (B)``."""
    a, b = names
    return (f"{a} (A)", f"{b} (B)") if a == b else (a, b)


def fb_battle_headline(report: Report, names: tuple[str, str]) -> str:
    """The answer first (issue 30): ``Empire beats Orcs 58.3% ± 0.4 (draw 9.1%), mean margin
    +212 ± 6 VP`` — the side more likely to win leads (a draw when a draw is likelier than
    either win); the margin is A − B."""
    r = report.results
    a, d, b, m = (r[k] for k in ("p_a_wins", "p_draw", "p_b_wins", "mean_vp_margin"))
    names = side_names(names)
    if d.value > max(a.value, b.value):  # "beats" only when a win is the likelier end
        lead = (f"{names[0]} and {names[1]} draw {brief_pct(d)} ({names[0]} wins "
                f"{100 * a.value:.1f}%, {names[1]} {100 * b.value:.1f}%)")
    elif a.value == b.value:
        lead = (f"{names[0]} and {names[1]} are even: each wins {brief_pct(a)} "
                f"(draw {100 * d.value:.1f}%)")
    elif not wins_apart(a.value, b.value, report.n_trials):
        lead = (f"{names[0]} and {names[1]} are level within the noise: {names[0]} wins "
                f"{brief_pct(a)}, {names[1]} {brief_pct(b)} (draw {100 * d.value:.1f}%)")
    else:
        winner, loser, p = ((names[0], names[1], a) if a.value > b.value
                            else (names[1], names[0], b))
        lead = f"{winner} beats {loser} {brief_pct(p)} (draw {100 * d.value:.1f}%)"
    return (f"{lead}, mean margin {margin_text(m)} VP "
            f"(A − B; Monte Carlo, {plural(report.n_trials or 0, 'battle')}, seed {report.seed})")


def margin_text(est) -> str:
    """A mean VP margin as the results table writes it: ``+212 ± 6``, decimals only where the
    se needs them (``+0.4 ± 0.2``: a se that is not 0 never reads '± 0')."""
    from mathhammer.results import plus_minus

    return plus_minus(est.value, est.se, signed=True)
