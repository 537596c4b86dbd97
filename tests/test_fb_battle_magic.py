"""``fb battle``'s magic phase (FB-B12): wizards as data, the phase against the magic engine."""

from __future__ import annotations

import math

import numpy as np

from mathhammer.fantasy.battle.report import battle
from tests.conftest import cli_result
from tests.test_fb_battle import one_unit_list
from tests.test_fb_battle_phases import unbreakable_orcs


def lone_wizard_at_orcs(tmp_path):
    a = one_unit_list(tmp_path, "wizard", "wfb8/empire_battle_wizard")
    b = one_unit_list(tmp_path, "orcs", unbreakable_orcs(tmp_path), models=10, champion=False)
    deployment = {"a": [{"unit": "Battle Wizard", "x": 36.0, "y": 4.0, "move": "hold",
                         "charge": "none"}],
                  "b": [{"unit": "Orc Boyz", "x": 36.0, "y": 24.0, "facing": 180,
                         "move": "hold", "charge": "none", "dispel": "none"}]}
    return a, b, deployment


def test_a_magic_only_battle_is_the_magic_engine_times_the_chain(tmp_path):
    """A lone level 2 Battle Wizard casts Fireball (cv 5, D6 S4 hits) at ten Orc Boyz 20"
    away in A's turn of one game turn; the orcs never dispel (their order) and cannot reach.
    The scripted caster uses MG-9's target rule (the fewest dice whose P(cast) reaches 75%,
    from the magic engine's exact cast_odds); the flow always gives that many (2D6 ≥ 2).
    Models the orcs lose = P(cast) × the chain's D6 auto-hits at S4 vs T4 5+ (capped at
    ten): the mean within 5 se of the exact mean, se from the exact variance (N = 3000)."""
    from mathhammer.fantasy.chain.core import AttackSpec, chain_exact
    from mathhammer.magic.rolls import cast_odds
    from mathhammer.magic.rules import magic_rules

    rules = magic_rules("wfb8")
    dice = next(d for d in range(1, 7) if cast_odds(rules, d, 2, 5).p_cast >= 0.75)
    assert dice == 2
    p_cast = float(cast_odds(rules, dice, 2, 5).p_cast)
    spec = AttackSpec(strength=4, toughness=4, auto_hit=True, close_combat=False, save=5,
                      flaming=True)
    slain = np.zeros(11)
    for hits in range(1, 7):
        per = chain_exact(spec, hits, "wfb8", models=10).slain
        slain[: len(per)] += np.asarray(per, float) / 6
    lost = np.arange(11)
    mean = p_cast * float(slain @ lost)
    var = p_cast * float(slain @ lost**2) - mean**2
    a, b, deployment = lone_wizard_at_orcs(tmp_path)
    n = 3000
    report = battle(a, b, turns=1, first="a", deployment=deployment, policy_a="scripted",
                    policy_b="scripted", n_trials=n, seed=5)
    left = report.distributions["models_left[B:Orc Boyz]"].pmf
    observed = sum((10 - k) * p for k, p in left.items())
    assert abs(observed - mean) <= 5 * math.sqrt(var / n), (observed, mean)
    decisions = " ".join(report.info["decisions"])
    assert "Fireball at Orc Boyz" in decisions and "2 dice 100%" in decisions, decisions


def test_greedy_wizards_cast_and_dispel_in_a_battle():
    """The bundled lists with wizards: both sides cast their missiles, dispel, and the
    report says the magic phase is played (FB-B11)."""
    report = battle("wfb8_empire_magic", "wfb8_orcs_magic", turns=2, n_trials=10, seed=4)
    decisions = " ".join(report.info["decisions"])
    for words in ("cast (", "Fireball at", "Gaze of Mork at", "dispel ("):
        assert words in decisions, decisions
    assert "magic missiles are played" in report.info["not_played"]


def test_a_bad_spell_is_one_line(tmp_path):
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "fantasy/wfb8/empire_battle_wizard.toml").read_text()
    bad = tmp_path / "bad_wizard.toml"
    bad.write_text(text.replace('id = "wfb8/empire_battle_wizard"', 'id = "test/bad_wizard"')
                   .replace("cv = 5", "cv = 1"))
    a = one_unit_list(tmp_path, "wizard", str(bad))
    code, out, err = cli_result("fb", "battle", a, "wfb8_orcs", "--n-trials", "5", "--quiet")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1, err
    assert "wizard.spells" in lines[0] and "cv" in lines[0], err


def test_a_wizard_table_is_for_characters(tmp_path):
    from mathhammer.errors import MathhammerError
    from mathhammer.fantasy.models import load_unit
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "fantasy/wfb8/orc_boyz.toml").read_text()
    text += '\n[wizard]\nlevel = 1\n[[wizard.spells]]\nname = "x"\ncv = 5\nrange = 12\n' \
            'hits = "D6"\nstrength = 4\n'
    path = tmp_path / "wizard_boyz.toml"
    path.write_text(text.replace('id = "wfb8/orc_boyz"', 'id = "test/wizard_boyz"'))
    try:
        load_unit(str(path))
    except MathhammerError as err:
        assert "character" in str(err)
    else:  # pragma: no cover - the test fails
        raise AssertionError("a unit with a [wizard] table loaded")
