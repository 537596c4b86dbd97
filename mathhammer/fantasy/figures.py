"""Answer charts of the Fantasy reports (``--plot``): a combat's win / draw / lose and who
breaks, what one artillery shot does. The chart's title (the headline) and layout are
set by :mod:`mathhammer.present.answer_plots`."""

from __future__ import annotations

import numpy as np

from mathhammer.plots import (
    COLOURS,
    first_result,
    how_words,
    panel_heights,
    plot_distribution,
    probability_bars,
    stacked_panels,
    wrap,
)


def _unit_names(report) -> tuple[str, str] | None:
    """(A, B) of a combat report, from its title "A vs B (ruleset, …)"."""
    if report is None or report.command != "fantasy.combat":
        return None
    a, sep, rest = report.title.partition(" vs ")
    b = rest.split(" (")[0]  # "Orc Boyz (wfb8, 3 round(s))"
    return (a, b) if sep and a and b else None


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
    fates = [(label, est) for label, names in fates if (est := first_result(report, *names)) is not None]
    rounds = report.distributions.get("rounds")
    if rounds is not None and rounds.min == rounds.max:
        rounds = None  # one round fought: nothing to show
    fig, axes = stacked_panels(panel_heights(2.6, 0.45 * len(fates) + 0.8) + ((2.4,) if rounds else ()))
    ax = axes[0]
    from matplotlib.ticker import PercentFormatter

    rows = [(label, [first_result(report, n) for n in names]) for label, names in outcome_rows]
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
    return fig


# ---------------------------------------------------------------------------- magic phase


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
    heights = panel_heights(0.42 * len(bars) + 1.0) + ((2.8,) if slain is not None else ())
    fig, axes = stacked_panels(heights)
    colours = [COLOURS["win"] if not label.startswith("misfire") else COLOURS["lose"]
               for label, _ in bars]
    probability_bars(axes[0], [label for label, _ in bars], [e for _, e in bars],
                     colours=colours, label_width=30, xlabel=f"probability ({how_words(report)})")
    axes[0].set_title("one shot", fontsize=10)
    if slain is not None:
        plot_distribution(slain, ax=axes[1], title="models slain by the shot",
                          xlabel="models slain")
    return fig


def battle_figure(report):
    """``fb battle``: win / draw / lose, the VP margin, each unit's fate by game turn."""
    from mathhammer.fantasy.battle.figure import battle_figure as draw

    return draw(report)


#: report name -> its figure builder
FIGURES = {
    "fantasy.artillery": artillery_figure,
    "fantasy.battle": battle_figure,
    "fantasy.combat": combat_figure,
}
