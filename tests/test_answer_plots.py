"""--plot draws the answer (issue 15 part 3): the headline on top, names whole, axes in words."""

from __future__ import annotations

import re

import pytest

from mathhammer.present.answer_plots import report_figure
from mathhammer.engine import MonteCarloConfig
from mathhammer.present.headline import headline

SMALL = MonteCarloConfig(n_trials=2000, seed=3)


def _texts(fig) -> list[str]:
    out = []
    for ax in fig.axes:
        out += [ax.get_xlabel(), ax.get_ylabel(), ax.get_title()]
        out += [t.get_text() for t in ax.get_yticklabels() + ax.get_xticklabels()]
        if ax.get_legend() is not None:
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return [t for t in out if t]


def _check(report, must_show: tuple[str, ...] = ()):
    fig = report_figure(report)
    title = fig._suptitle.get_text()
    assert " ".join(title.split()) == " ".join(headline(report).replace(" ± ", "\u00a0±\u00a0").split())
    texts = _texts(fig)
    flat = " ".join(" ".join(texts).split())
    assert "…" not in flat  # wrapped, never cut
    assert not [t for t in texts if re.search(r"\b[a-z]+_[a-z_]+\b", t)], texts  # words, no keys
    for name in must_show:
        assert name in flat, (name, flat)
    return fig, flat


def test_combat_shows_win_draw_lose_and_who_breaks():
    from mathhammer.fantasy.combat.fight import combat

    report = combat("wfb8/knights_of_the_realm", "wfb8/empire_halberdiers", rounds=1, charger="a")
    fig, flat = _check(report, ("Knights of the Realm breaks", "Halberdiers destroyed",
                                "first round, on combat result"))
    assert fig.get_size_inches()[1] * fig.dpi < 1200  # not five stacked panels


def test_magic_phase_shows_each_spell_with_intervals():
    from mathhammer.magic.scenario import run_scenario
    from mathhammer.profiles import profiles_root, read_toml

    path = profiles_root() / "scenarios" / "magic_t9a1_four_spells.toml"
    report = run_scenario(read_toml(path), str(path), config=SMALL)
    fig, flat = _check(report, ("Fireball", "Bound: Burning blade", "any miscast"))
    assert "95% intervals" in flat


def test_duel_shows_destroyed_and_crippled_systems():
    from mathhammer.warmachine.duel import duel

    report = duel("khador/juggernaut", "cygnar/ironclad", focus=1, method="exact")
    _check(report, ("target destroyed", "cortex (C) crippled", "damage (boxes marked)"))


def test_aoe_shows_every_model():
    from mathhammer.warmachine.aoe import AoeSetup, aoe, parse_model

    setup = AoeSetup(stat=5, defense=13, armor=14, power=14, range=8.0, target_boxes=5,
                     models=(parse_model("grunt1,1.5,0,small,arm=13,boxes=1"),))
    _check(aoe(setup), ("target", "grunt1", "destroyed", "takes a damage roll"))


def test_artillery_and_other_commands_draw_words():
    from mathhammer.fantasy.artillery.query import artillery
    from mathhammer.roll import roll

    _check(artillery("bolt-thrower", "wfb8/knights_of_the_realm"), ("models slain",))
    _check(roll("2D6+3", at_least=10), ("total rolled",))


def test_every_answer_figure_is_registered_for_a_query_command():
    """Each game's figures are keyed by its own report names (``warmachine.duel``)."""
    from mathhammer.fantasy.figures import FIGURES as FANTASY
    from mathhammer.magic.figures import FIGURES as MAGIC
    from mathhammer.warmachine.figures import FIGURES as WARMACHINE

    for prefix, figures in (("fantasy.", FANTASY), ("magic.", MAGIC), ("warmachine.", WARMACHINE)):
        assert figures and all(name.startswith(prefix) for name in figures), figures


def test_heatmap_labels_wrap_long_names():
    import pandas as pd

    from mathhammer.plots import plot_table_heatmap

    name = "Commander Coleman Stryker of the Cygnar army"
    table = pd.DataFrame([[0.5]], index=[name], columns=[name])
    ax = plot_table_heatmap(table)
    labels = [t.get_text() for t in ax.get_yticklabels() + ax.get_xticklabels()]
    assert all(" ".join(label.split()) == name for label in labels)
