"""``--plot``: a chart of the answer to the question a command was asked.

Each query command's figure answers its question first: a combat's win / draw / lose
(and who breaks or is destroyed), a magic phase's chance that each spell goes off, a
duel's P(destroyed) and crippled systems beside the damage it does, an AOE's chance
for each model. Commands without a figure of their own get their distributions
(:func:`distributions_figure`). Every figure carries the headline sentence as its
title, names wrapped (never cut), axes in words, percent scales and — for Monte
Carlo — 95% intervals. Files are written by :func:`mathhammer.plots.save_figure`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from mathhammer.plots import new_figure, plot_distribution, save_figure, wrap

COLOURS = {"win": "#55A868", "draw": "#8C8C8C", "lose": "#C44E52", "main": "#4C72B0",
           "second": "#DD8452", "other": "#8172B2"}
SYSTEMS = {"L": "left arm (L)", "R": "right arm (R)", "H": "head (H)", "A": "arc node (A)",
           "C": "cortex (C)", "M": "movement (M)"}

#: distribution names in words (axis labels); ``damage_<model>`` is handled below
DISTRIBUTION_WORDS = {
    "roll": "total rolled", "damage": "damage (boxes marked)", "unsaved_wounds": "unsaved wounds",
    "models_hit": "models hit", "models_slain": "models slain",
    "wounds_dealt": "wounds dealt by unit A", "wounds_taken": "wounds taken by unit A",
    "models_left_a": "models left in unit A", "models_left_b": "models left in unit B",
    "rounds": "rounds fought", "spells_through": "spells that go off",
    "power_dice_left": "power dice left at the end",
    "dispel_dice_left": "dispel dice left at the end",
    "casting_total": "casting total", "overwhelming_total": "casting total with overwhelming power",
    "power_dice": "power dice", "dispel_dice": "dispel dice",
}


def save_report_plot(report, path: Path) -> None:
    """The command's answer figure (or its distributions), written atomically to ``path``."""
    save_figure(report_figure(report), Path(path))


def report_figure(report):
    """The figure ``--plot`` draws for ``report``."""
    builder = FIGURES.get(report.command)
    if builder is not None:
        try:
            return builder(report)
        except (KeyError, ValueError, IndexError):  # a report of an unexpected shape
            pass
    return distributions_figure(report)


# ---------------------------------------------------------------------------- shared pieces
def words(name: str, report=None) -> str:
    """A distribution name in words, with unit names where the report has them."""
    if name.startswith("damage_"):
        return f"damage to {name[len('damage_'):]} (boxes)"
    text = DISTRIBUTION_WORDS.get(name, name.replace("_", " "))
    units = _unit_names(report) if report is not None else None
    if units is not None:
        text = text.replace("unit A", units[0]).replace("unit B", units[1])
    return text


def _unit_names(report) -> tuple[str, str] | None:
    """(A, B) of a combat report, from its title "A vs B (ruleset, …)"."""
    if report is None or report.command != "fb combat":
        return None
    a, sep, rest = report.title.partition(" vs ")
    b = rest.split(" (")[0]  # "Orc Boyz (wfb8, 3 round(s))"
    return (a, b) if sep and a and b else None


def _headline(report) -> str:
    from mathhammer.headline import headline

    return headline(report)


def _title(fig, report, width: int = 95) -> None:
    fig.suptitle(wrap(_headline(report), width), fontsize=10, x=0.01, ha="left")


def _how(report) -> str:
    if report.method == "exact":
        return "exact"
    return f"Monte Carlo, {report.n_trials:,} trials; whiskers: 95% intervals"


def _errors(estimates) -> np.ndarray | None:
    """Asymmetric 95% (Wilson) error bars in percent, or None when every value is exact."""
    if all(e.is_exact for e in estimates):
        return None
    lo = [100 * (e.value - e.ci95[0]) for e in estimates]
    hi = [100 * (e.ci95[1] - e.value) for e in estimates]
    return np.array([lo, hi])


def probability_bars(ax, labels: Sequence[str], estimates, colours=None, label_width: int = 24,
                     xlabel: str = "probability"):
    """Horizontal bars of probabilities (percent), a value at each bar's end, 95% whiskers."""
    from matplotlib.ticker import PercentFormatter

    y = np.arange(len(labels))[::-1]
    values = [100 * e.value for e in estimates]
    ax.barh(y, values, color=colours or COLOURS["main"], xerr=_errors(estimates),
            error_kw={"elinewidth": 1, "capsize": 3, "ecolor": "#333333"}, height=0.6)
    for yi, v in zip(y, values, strict=True):
        ax.text(min(v, 100) + 1.5, yi, f"{v:.1f}%", va="center", fontsize=9)
    ax.set_yticks(y, [wrap(name, label_width) for name in labels])
    ax.set_xlim(0, 112)
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def _panel_heights(*rows: float) -> tuple:
    return tuple(max(r, 1.2) for r in rows)


def _figure(heights: Sequence[float], width: float = 8.5):
    """A figure of stacked panels of the given heights in inches (no pyplot)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, sum(heights) + 1.0), dpi=110)
    axes = fig.subplots(len(heights), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
    return fig, list(axes[:, 0])


def _get(report, *names):
    for name in names:
        if name in report.results:
            return report.results[name]
    return None


# ---------------------------------------------------------------------------- distributions
def distributions_figure(report):
    """One panel per distribution: P(= k) bars and the P(≥ k) curve, axes in words."""
    dists = list(report.distributions.items())
    if not dists:
        from mathhammer.errors import InputError

        raise InputError("--plot", f"{report.command} has no chart to draw", "--plot",
                         "drop --plot")
    fig, axes = new_figure(len(dists), height=3.6)
    for ax, (name, dist) in zip(axes, dists, strict=True):
        plot_distribution(dist, ax=ax, title=wrap(words(name, report), 70),
                          xlabel=words(name, report))
    _title(fig, report)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- close combat
def combat_figure(report):
    """Win / draw / lose in the first round and by the end, who breaks, when it ends."""
    a, b = _unit_names(report) or ("unit A", "unit B")
    # two different questions: who wins the first round on combat result, and who wins
    # the fight (the enemy broken or destroyed, oneself not)
    outcome_rows = [("first round,\non combat result",
                     ("p_a_wins_round_1", "p_round_1_tied", "p_b_wins_round_1")),
                    ("the fight: enemy\nbroken or destroyed",
                     ("p_a_wins", "p_both_standing", "p_b_wins", "p_both_out"))]
    fates = [(f"{b} breaks", ("p_enemy_breaks",)), (f"{b} destroyed", ("p_enemy_destroyed",)),
             (f"{a} breaks", ("p_own_break", "p_own_breaks")),
             (f"{a} destroyed", ("p_own_destroyed",))]
    fates = [(label, est) for label, names in fates if (est := _get(report, *names)) is not None]
    rounds = report.distributions.get("rounds")
    if rounds is not None and rounds.min == rounds.max:
        rounds = None  # one round fought: nothing to show
    fig, axes = _figure(_panel_heights(2.6, 0.45 * len(fates) + 0.8) + ((2.4,) if rounds else ()))
    ax = axes[0]
    from matplotlib.ticker import PercentFormatter

    rows = [(label, [_get(report, n) for n in names]) for label, names in outcome_rows]
    rows = [(label, ests) for label, ests in rows if all(e is not None for e in ests[:3])]
    kinds = (("win", f"{a} wins"), ("draw", "neither (tied, both standing)"),
             ("lose", f"{b} wins"), ("out", "both out"))
    shown: set[str] = set()
    y = np.arange(len(rows))[::-1]
    for (label, ests), yi in zip(rows, y, strict=True):
        left = 0.0
        for est, (kind, legend) in zip(ests, kinds, strict=False):
            if est is None or (kind == "out" and est.value == 0):
                continue
            width = 100 * est.value
            ax.barh(yi, width, left=left, color=COLOURS.get(kind, "#222222"), height=0.55,
                    label=None if kind in shown else legend)
            shown.add(kind)
            if width >= 6:
                text = f"{width:.1f}%" + ("" if est.is_exact else f"\n±{196 * est.se:.1f}")
                ax.text(left + width / 2, yi, text, ha="center", va="center", fontsize=8,
                        color="white")
            left += width
    ax.set_yticks(y, [label for label, _ in rows])
    ax.set_xlim(0, 100)
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel("share of combats (" + ("exact" if report.method == "exact" else
                  f"Monte Carlo, {report.n_trials:,} trials; ± = 95% interval") + ")")
    ax.legend(ncol=3, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=9)
    ax.set_title(wrap(f"{a} against {b}: how it ends for {a}", 80), fontsize=10, pad=22)
    probability_bars(axes[1], [label for label, _ in fates], [e for _, e in fates],
                     colours=[COLOURS["win"], COLOURS["win"], COLOURS["lose"], COLOURS["lose"]][
                         : len(fates)],
                     xlabel="probability")
    axes[1].set_title("who breaks (fails the break test) and who is destroyed (wiped out or "
                      "caught fleeing)", fontsize=10)
    if rounds is not None:
        plot_distribution(rounds, ax=axes[2], title="rounds fought", xlabel="rounds fought")
    _title(fig, report)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- magic phase
def spell_names(report) -> list[str]:
    """Spell names by file number, from the report's cast order ("2. Hex …")."""
    names: dict[int, str] = {}
    for line in report.info.get("cast order (file numbers)", []):
        m = re.match(r"(\d+)\. (.+)$", str(line))
        if m:
            names[int(m.group(1))] = m.group(2)
    n = sum(1 for k in report.results if re.fullmatch(r"p_goes_off_\d+", k))
    return [names.get(i, f"spell {i}") for i in range(1, n + 1)]


def magic_phase_figure(report):
    """P(each spell goes off) with 95% intervals, P(miscast), and the spells that go off."""
    names = spell_names(report)
    ests = [report.results[f"p_goes_off_{i}"] for i in range(1, len(names) + 1)]
    labels = list(names)
    colours = [COLOURS["main"]] * len(ests)
    for label, key in (("any miscast", "p_miscast"), ("any spell dispelled", "p_any_dispelled")):
        if key in report.results:
            labels.append(label)
            ests.append(report.results[key])
            colours.append(COLOURS["lose"] if key == "p_miscast" else COLOURS["draw"])
    through = report.distributions.get("spells_through")
    heights = _panel_heights(0.45 * len(labels) + 1.0) + ((2.6,) if through is not None else ())
    fig, axes = _figure(heights)
    probability_bars(axes[0], labels, ests, colours=colours, xlabel=f"probability ({_how(report)})")
    axes[0].set_title("each spell: P(cast and not dispelled), in the caster's file order",
                      fontsize=10)
    if through is not None:
        plot_distribution(through, ax=axes[1], title="spells that go off in the phase",
                          xlabel="spells that go off")
    _title(fig, report)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- Warmachine
def duel_figure(report):
    """P(destroyed) and each system crippled, the damage done, and the policy's decisions."""
    labels, ests = ["target destroyed"], [report.results["p_destroyed"]]
    for key, est in report.results.items():
        m = re.fullmatch(r"p_crippled_([A-Z])", key)
        if m:
            labels.append(f"{SYSTEMS.get(m.group(1), m.group(1))} crippled")
            ests.append(est)
    damage = report.distributions.get("damage")
    decisions = [str(d) for d in report.info.get("decisions", [])]
    heights = _panel_heights(0.42 * len(labels) + 1.0) + ((2.8,) if damage is not None else ())
    fig, axes = _figure(heights, width=9)
    probability_bars(axes[0], labels, ests,
                     colours=[COLOURS["lose"]] + [COLOURS["main"]] * (len(ests) - 1),
                     xlabel=f"probability ({_how(report)})")
    policy = report.info.get("policy")
    axes[0].set_title(wrap(f"after the activation(s){f', policy {policy}' if policy else ''}",
                           90), fontsize=10)
    if damage is not None:
        plot_distribution(damage, ax=axes[1], title="damage boxes marked on the target",
                          xlabel="damage (boxes marked)")
    if decisions:  # the opening and the boost choices say most; the buy steps repeat
        ranked = sorted(decisions, key=lambda d: (0 if "opening" in d else 1 if "boost" in d
                                                  and "no boost" not in d.split(": ", 1)[-1][:9]
                                                  else 2))
        shown = ranked[:6]
        more = len(decisions) - len(shown)
        text = "the policy's decisions (the opening and the boosts first):\n" + "\n".join(
            wrap(line, 110) for line in shown) + (f"\n… {more} more (table view --full)"
                                                 if more else "")
        fig.text(0.01, 0.0, text, fontsize=7.5, va="top", ha="left", family="monospace")
    _title(fig, report)
    fig.tight_layout()
    return fig


def aoe_figure(report):
    """For each model: P(takes a damage roll) and P(destroyed), 95% intervals."""
    models = [name[len("damage_"):] for name in report.distributions if name.startswith("damage_")]
    hit = [_get(report, f"p_hit_{m}", f"p_damage_roll_{m}", f"p_takes_damage_{m}") for m in models]
    dead = [_get(report, f"p_destroyed_{m}") for m in models]
    fig, axes = _figure(_panel_heights(0.55 * len(models) * (2 if any(dead) else 1) + 1.2),
                        width=9)
    ax = axes[0]
    from matplotlib.ticker import PercentFormatter

    y = np.arange(len(models))[::-1].astype(float)
    series = [("takes a damage roll", hit, COLOURS["main"])]
    if any(d is not None for d in dead):
        series.append(("destroyed", dead, COLOURS["lose"]))
    h = 0.7 / len(series)
    for k, (label, ests, colour) in enumerate(series):
        yk = y + (len(series) - 1) * h / 2 - k * h
        present = [(yy, e) for yy, e in zip(yk, ests, strict=True) if e is not None]
        if not present:
            continue
        ys, es = zip(*present, strict=True)
        ax.barh(ys, [100 * e.value for e in es], height=h * 0.9, color=colour, label=label,
                xerr=_errors(es), error_kw={"elinewidth": 1, "capsize": 3, "ecolor": "#333333"})
        for yy, e in present:
            ax.text(100 * e.value + 1.5, yy, f"{100 * e.value:.1f}%", va="center", fontsize=8)
    ax.set_yticks(y, [wrap(m, 20) for m in models])
    ax.set_xlim(0, 112)
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel(f"probability ({_how(report)})")
    ax.legend(frameon=False, loc="lower right", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(wrap(report.title.removeprefix("wm aoe: "), 90), fontsize=10)
    _title(fig, report)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- artillery
ARTILLERY_BARS = (("p_any_hit", "any model hit"), ("p_direct_hit", "a direct hit (HIT on the "
                  "scatter die)"), ("p_big_hit", "a model under the centre"),
                  ("p_misfire", "misfire"), ("p_destroyed", "misfire: the war machine destroyed"),
                  ("p_own_destroyed", "misfire: the war machine destroyed"),
                  ("p_disabled", "misfire: disabled"), ("p_no_shot", "misfire: no shot"))


def artillery_figure(report):
    """What one shot does: hit, misfire and the models slain."""
    bars = [(label, report.results[key]) for key, label in ARTILLERY_BARS
            if key in report.results and report.results[key].value > 0]
    slain = report.distributions.get("models_slain") or report.distributions.get("unsaved_wounds")
    if slain is not None:
        bars.insert(0, ("at least one model slain", slain.p_at_least(1)))
    heights = _panel_heights(0.42 * len(bars) + 1.0) + ((2.8,) if slain is not None else ())
    fig, axes = _figure(heights)
    colours = [COLOURS["win"] if not label.startswith("misfire") else COLOURS["lose"]
               for label, _ in bars]
    probability_bars(axes[0], [label for label, _ in bars], [e for _, e in bars],
                     colours=colours, label_width=30, xlabel=f"probability ({_how(report)})")
    axes[0].set_title("one shot", fontsize=10)
    if slain is not None:
        plot_distribution(slain, ax=axes[1], title="models slain by the shot",
                          xlabel="models slain")
    _title(fig, report)
    fig.tight_layout()
    return fig


def battle_figure(report):
    """``fb battle``: win / draw / lose, the VP margin, each unit's fate by turn."""
    from mathhammer.fantasy.battle.figure import battle_figure as draw

    return draw(report)


FIGURES: dict[str, Callable] = {
    "fb artillery": artillery_figure,
    "fb battle": battle_figure,
    "fb combat": combat_figure,
    "magic phase": magic_phase_figure,
    "wm duel": duel_figure,
    "run": duel_figure,  # a Warmachine scenario: the same answer as a duel
    "wm aoe": aoe_figure,
}

__all__ = ["save_report_plot", "report_figure", "distributions_figure", "combat_figure",
           "magic_phase_figure", "duel_figure", "aoe_figure", "probability_bars", "words",
           "textwrap"]
