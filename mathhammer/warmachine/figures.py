"""Answer charts of the Warmachine reports (``--plot``): a duel's P(destroyed) and the
systems crippled beside the damage done, an AOE's chance for each model. The chart's
title (the headline) and layout are set by :mod:`mathhammer.present.answer_plots`."""

from __future__ import annotations

import re

import numpy as np

from mathhammer.plots import (
    COLOURS,
    error_bars,
    first_result,
    how_words,
    panel_heights,
    plot_distribution,
    probability_bars,
    stacked_panels,
    wrap,
)

SYSTEMS = {"L": "left arm (L)", "R": "right arm (R)", "H": "head (H)", "A": "arc node (A)",
           "C": "cortex (C)", "M": "movement (M)"}


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
    heights = panel_heights(0.42 * len(labels) + 1.0) + ((2.8,) if damage is not None else ())
    fig, axes = stacked_panels(heights, width=9)
    probability_bars(axes[0], labels, ests,
                     colours=[COLOURS["lose"]] + [COLOURS["main"]] * (len(ests) - 1),
                     xlabel=f"probability ({how_words(report)})")
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
            wrap(line, 110) for line in shown) + (f"\n… {more} more (table view ‹full›)"
                                                 if more else "")
        fig.text(0.01, 0.0, text, fontsize=7.5, va="top", ha="left", family="monospace")
    return fig


def aoe_figure(report):
    """For each model: P(takes a damage roll) and P(destroyed), 95% intervals."""
    models = [name[len("damage_"):] for name in report.distributions if name.startswith("damage_")]
    hit = [first_result(report, f"p_hit_{m}", f"p_damage_roll_{m}", f"p_takes_damage_{m}") for m in models]
    dead = [first_result(report, f"p_destroyed_{m}") for m in models]
    fig, axes = stacked_panels(panel_heights(0.55 * len(models) * (2 if any(dead) else 1) + 1.2),
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
                xerr=error_bars(es), error_kw={"elinewidth": 1, "capsize": 3, "ecolor": "#333333"})
        for yy, e in present:
            ax.text(100 * e.value + 1.5, yy, f"{100 * e.value:.1f}%", va="center", fontsize=8)
    ax.set_yticks(y, [wrap(m, 20) for m in models])
    ax.set_xlim(0, 112)
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel(f"probability ({how_words(report)})")
    ax.legend(frameon=False, loc="lower right", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(wrap(report.title.removeprefix("wm aoe: "), 90), fontsize=10)
    return fig



def battle_figure(report):
    """wm battle: who wins, each warcaster's death turn by turn, warjacks destroyed."""
    from matplotlib.ticker import PercentFormatter

    r = report.results
    turns = sorted(int(k.rsplit("_", 1)[1]) for k in r if k.startswith("p_a_caster_dead_turn_"))
    jacks = [k for k in r if k.startswith("p_destroyed_")]
    fig, axes = stacked_panels(panel_heights(1.6, 2.6, 0.35 * len(jacks) + 0.8))
    outcome = [("A wins", r["p_a_wins"], COLOURS["win"]), ("undecided", r["p_draw"],
               COLOURS["draw"]), ("B wins", r["p_b_wins"], COLOURS["lose"])]
    left = 0.0
    ax = axes[0]
    for label, est, colour in outcome:
        width = 100 * est.value
        ax.barh(0, width, left=left, color=colour, height=0.5, label=label)
        if width >= 6:
            ax.text(left + width / 2, 0, f"{width:.1f}%", ha="center", va="center", fontsize=9,
                    color="white")
        left += width
    ax.set_yticks([])
    ax.set_xlim(0, 100)
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.legend(ncol=3, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=9)
    ax.set_xlabel(f"share of battles ({how_words(report)})")
    ax = axes[1]
    for side, colour in (("a", COLOURS["main"]), ("b", COLOURS["second"])):
        ests = [r[f"p_{side}_caster_dead_turn_{t}"] for t in turns]
        values = [100 * e.value for e in ests]
        ax.plot(turns, values, marker="o", color=colour,
                label=f"side {side.upper()}'s warcaster dead by the end of the turn")
        ax.fill_between(turns, [100 * e.ci95[0] for e in ests], [100 * e.ci95[1] for e in ests],
                        color=colour, alpha=0.2)
    ax.set_xticks(turns)
    ax.set_xlabel("turn (round)")
    ax.yaxis.set_major_formatter(PercentFormatter())
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=9)
    labels = [k[len("p_destroyed_"):].replace("_", " ", 1).upper()[:1] + k[len("p_destroyed_") + 1:]
              .replace("_", " ") for k in jacks]
    probability_bars(axes[2], labels, [r[k] for k in jacks], xlabel="destroyed by the end")
    return fig


#: report name -> its figure builder
FIGURES = {
    "warmachine.battle": battle_figure,
    "warmachine.duel": duel_figure,
    "warmachine.scenario": duel_figure,  # a Warmachine scenario: the same answer as a duel
    "warmachine.aoe": aoe_figure,
}
