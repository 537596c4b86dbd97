"""``fb battle --plot``: the answer chart — win / draw / lose, the VP margin, each unit's fate
by game turn. Registered in :data:`mathhammer.fantasy.figures.FIGURES`; built on matplotlib's object API (no pyplot), like the other answer figures."""

from __future__ import annotations

import numpy as np

WIN, DRAW, LOSE = "#55A868", "#8C8C8C", "#C44E52"


def battle_figure(report):
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter


    from mathhammer.fantasy.headlines import margin_text, side_names
    from mathhammer.words import plural

    r = report.results
    names = report.title.split(" (")[0].split(" vs ")
    a, b = side_names((names + ["A", "B"])[:2])
    fig = Figure(figsize=(9.0, 9.5), dpi=110)
    axes = fig.subplots(3, 1, gridspec_kw={"height_ratios": [1.0, 2.2, 2.6]})
    ax = axes[0]
    left = 0.0
    for key, colour, label in (("p_a_wins", WIN, f"{a} wins"), ("p_draw", DRAW, "draw"),
                               ("p_b_wins", LOSE, f"{b} wins")):
        est = r[key]
        width = 100 * est.value
        ax.barh(0, width, left=left, color=colour, height=0.5, label=label)
        if width >= 6:  # the text's own 95% interval (Wilson: 100% of 20 is not ± 0)
            lo, hi = (100 * x for x in est.ci95)
            ax.text(left + width / 2, 0, f"{width:.1f}%\n{lo:.1f}–{hi:.1f}", ha="center",
                    va="center", color="white", fontsize=8)
        left += width
    ax.set_xlim(0, 100)
    ax.set_yticks([])
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.legend(ncol=3, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=9)
    ax.set_xlabel(f"share of battles (Monte Carlo, {plural(report.n_trials, 'battle')}; "
                  "under each share its 95% interval)")
    margin = report.distributions["vp_margin"]
    ax = axes[1]
    outcomes, probs = np.asarray(margin.outcomes, float), np.asarray(margin.probs)
    width = max(1, int(np.ceil((outcomes[-1] - outcomes[0] + 1) / 40)))
    # bins of whole VP centred on their values (a bin of width 1 is one margin, 0 on the line)
    start = np.floor(outcomes[0] / width) * width - 0.5
    bins = np.arange(start, outcomes[-1] + width + 0.5, width)
    # each bin stacked by outcome (FB-B9): a bin may hold wins, draws and losses
    limit = report.draw_limit_vp  # set by battle.report.build_report, as every battle report
    bottom = np.zeros(len(bins) - 1)
    for colour, label, mask in ((LOSE, f"{b} wins", outcomes < -limit),
                                (DRAW, "draw", np.abs(outcomes) <= limit),
                                (WIN, f"{a} wins", outcomes > limit)):
        part, edges = np.histogram(outcomes[mask], bins=bins, weights=probs[mask])
        if part.any():
            ax.bar(edges[:-1], 100 * part, width=width, bottom=100 * bottom, align="edge",
                   color=colour, label=label)
        bottom += part
    ax.axvline(0, color="#333333", linewidth=0.8)
    # margins come in half VP and are shown to the nearest VP: a bin at the draw band's very
    # edge may hold a half-VP win or loss in its draw colour
    ax.set_xlabel(f"victory points, {a} minus {b} (to the nearest VP)")
    ax.set_ylabel("share of battles")
    ax.yaxis.set_major_formatter(PercentFormatter())
    mean = r["mean_vp_margin"]
    ax.set_title(f"the margin: mean {margin_text(mean)} VP"  # as the headline
                 + (f" (a draw within {limit:g} VP)" if limit else ""), fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    ax = axes[2]
    fates = report.info["fate by turn"]
    turns = list(range(1, sum(1 for k in fates[0] if k.startswith("turn_") and
                              not k.endswith("_se")) + 1))
    for row in fates:
        unit = row["unit"]
        gone = [100 * row[f"turn_{t}"] for t in turns]
        ax.plot(turns, gone, marker="o", linestyle="-" if unit.startswith("A:") else "--",
                label=unit)
    ax.set_xticks(turns)
    ax.set_ylim(0, 100)
    ax.yaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel("game turn")
    ax.set_ylabel("destroyed or fled")
    ax.set_title("each unit's fate by the end of each game turn (A solid, B dashed)", fontsize=10)
    ax.legend(fontsize=7, ncol=2, frameon=False)
    ax.grid(alpha=0.3)
    return fig  # titled with the headline by mathhammer.present.answer_plots

