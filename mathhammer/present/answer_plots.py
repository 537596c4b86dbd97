"""``--plot``: a chart of the answer to the question a command was asked.

Each query command's figure answers its question first: a combat's win / draw / lose
(and who breaks or is destroyed), a magic phase's chance that each spell goes off, a
duel's P(destroyed) and crippled systems beside the damage it does, an AOE's chance
for each model. Commands without a figure of their own get their distributions
(:func:`distributions_figure`). Every figure carries the headline sentence as its
title, names wrapped (never cut), axes in words, percent scales and — for Monte
Carlo — 95% intervals. Each game draws its own reports' figures (its adapter's
:meth:`~mathhammer.game.Game.figure`); this module titles them and draws the rest.
Files are written by :func:`mathhammer.plots.save_figure`.
"""

from __future__ import annotations

from pathlib import Path

from mathhammer import game as games
from mathhammer.plots import new_figure, plot_distribution, save_figure, wrap

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
    """The figure ``--plot`` draws for ``report``: its game's, else its distributions; titled
    with the headline."""
    for name in games.names():
        try:
            fig = games.get(name).figure(report)
        except (KeyError, ValueError, IndexError):  # a report of an unexpected shape
            fig = None
        if fig is not None:
            _title(fig, report)
            fig.tight_layout()
            return fig
    return distributions_figure(report)


def words(name: str, report=None) -> str:
    """A distribution name in words."""
    if name.startswith("damage_"):
        return f"damage to {name[len('damage_'):]} (boxes)"
    return DISTRIBUTION_WORDS.get(name, name.replace("_", " "))


def _headline(report) -> str:
    from mathhammer.present.headline import headline

    return headline(report)


def _title(fig, report, width: int = 95) -> None:
    fig.suptitle(wrap(_headline(report), width), fontsize=10, x=0.01, ha="left")


# ---------------------------------------------------------------------------- distributions
def distributions_figure(report):
    """One panel per distribution: P(= k) bars and the P(≥ k) curve, axes in words."""
    dists = list(report.distributions.items())
    if not dists:
        from mathhammer.errors import InputError

        raise InputError("‹plot›", f"{report.command} has no chart to draw", "‹plot›",
                         "drop ‹plot›")
    fig, axes = new_figure(len(dists), height=3.6)
    for ax, (name, dist) in zip(axes, dists, strict=True):
        plot_distribution(dist, ax=ax, title=wrap(words(name, report), 70),
                          xlabel=words(name, report))
    _title(fig, report)
    fig.tight_layout()
    return fig


__all__ = ["save_report_plot", "report_figure", "distributions_figure", "words"]
