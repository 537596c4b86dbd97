"""Answer charts of the magic reports (``--plot``): P(each spell goes off) and the
spells that go off in a phase. The chart's title (the headline) and layout are set by
:mod:`mathhammer.present.answer_plots`."""

from __future__ import annotations

import re

from mathhammer.plots import (
    COLOURS,
    how_words,
    panel_heights,
    plot_distribution,
    probability_bars,
    stacked_panels,
)


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
    heights = panel_heights(0.45 * len(labels) + 1.0) + ((2.6,) if through is not None else ())
    fig, axes = stacked_panels(heights)
    probability_bars(axes[0], labels, ests, colours=colours, xlabel=f"probability ({how_words(report)})")
    axes[0].set_title("each spell: P(cast and not dispelled), in the caster's file order",
                      fontsize=10)
    if through is not None:
        plot_distribution(through, ax=axes[1], title="spells that go off in the phase",
                          xlabel="spells that go off")
    return fig


#: report name -> its figure builder
FIGURES = {
    "magic.phase": magic_phase_figure,
}
