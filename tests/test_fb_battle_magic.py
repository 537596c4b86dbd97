"""``fb battle``'s magic phase (FB-B12): wizards as data, the phase against the magic engine."""

from __future__ import annotations

import math

import numpy as np
import pytest

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


def fireball_slain() -> np.ndarray:
    """P(k of ten Orc Boyz slain) by one Fireball that goes off: D6 automatic S4 flaming hits
    against T4, 5+ armour (the chain's exact answer, wfb8)."""
    from mathhammer.fantasy.chain.core import AttackSpec, chain_exact

    spec = AttackSpec(strength=4, toughness=4, auto_hit=True, close_combat=False, save=5,
                      flaming=True)
    slain = np.zeros(11)
    for hits in range(1, 7):
        per = chain_exact(spec, hits, "wfb8", models=10).slain
        slain[: len(per)] += np.asarray(per, float) / 6
    return slain


def test_a_magic_only_battle_is_the_magic_engine_times_the_chain(tmp_path):
    """A lone level 2 Battle Wizard casts Fireball (cv 5, D6 S4 hits) at ten Orc Boyz 20"
    away in A's turn of one game turn; the orcs never dispel (their order) and cannot reach.
    The scripted caster uses MG-9's target rule (the fewest dice whose P(cast) reaches 75%,
    from the magic engine's exact cast_odds); the flow always gives that many (2D6 ≥ 2).
    Models the orcs lose = P(cast) × the chain's D6 auto-hits at S4 vs T4 5+ (capped at
    ten): the mean within 5 se of the exact mean, se from the exact variance (N = 3000), on
    the kernel and on the reference engine."""
    from mathhammer.magic.rolls import cast_odds
    from mathhammer.magic.rules import magic_rules

    rules = magic_rules("wfb8")
    dice = next(d for d in range(1, 7) if cast_odds(rules, d, 2, 5).p_cast >= 0.75)
    assert dice == 2
    p_cast = float(cast_odds(rules, dice, 2, 5).p_cast)
    slain, lost = fireball_slain(), np.arange(11)
    mean = p_cast * float(slain @ lost)
    var = p_cast * float(slain @ lost**2) - mean**2
    a, b, deployment = lone_wizard_at_orcs(tmp_path)
    n = 3000
    report = battle(a, b, turns=1, first="a", deployment=deployment, policy_a="scripted",
                    policy_b="scripted", n_trials=n, seed=5)  # the kernel (the default)
    left = report.distributions["models_left[B:Orc Boyz]"].pmf
    observed = sum((10 - k) * p for k, p in left.items())
    assert abs(observed - mean) <= 5 * math.sqrt(var / n), (observed, mean)
    decisions = " ".join(report.info["decisions"].lines)
    assert "Fireball at Orc Boyz" in decisions and "2 dice 100%" in decisions, decisions
    # ... and the reference engine, the Python step machine (its own stream)
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    recipe = Recipe(load_list(a), load_list(b), deployment, "test", 1, "a", "scripted",
                    "scripted", 1, 1)
    plan = build_plan(recipe)
    plan.engine = "python"
    tally = run(recipe, n, 6, plan=plan)[0]
    orcs = [u.label for u in plan.units].index("Orc Boyz")
    observed = float(tally["models_left"][orcs][:11] @ (10 - np.arange(11))) / n
    assert abs(observed - mean) <= 5 * math.sqrt(var / n), (observed, mean)


def test_greedy_wizards_cast_and_dispel_in_a_battle():
    """The bundled lists with wizards: both sides cast their missiles, dispel, and the
    report says the magic phase is played (FB-B11)."""
    report = battle("wfb8_empire_magic", "wfb8_orcs_magic", turns=2, n_trials=10, seed=4)
    decisions = " ".join(report.info["decisions"].lines)
    for words in ("cast (", "Fireball at", "Gaze of Mork at", "dispel ("):
        assert words in decisions, decisions
    assert "magic missiles, heals, and augments and hexes" in report.info["not_played"]


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


def win_stats() -> dict:
    """P(A wins) and P(B wins) from a tally, each with its one-battle variance p(1 - p), as
    _engines_agree's ``stats`` entries."""
    out = {}
    for k, name in ((0, "A wins"), (2, "B wins")):
        out[name] = (lambda t, k=k: t["outcome"][k] / t["outcome"].sum(),
                     lambda t, k=k: (p := t["outcome"][k] / t["outcome"].sum()) * (1 - p))
    return out


def _engines_agree(recipe, n: int, stats) -> dict:
    """Independent runs of the kernel and the Python step machine: every statistic (a mean
    per battle, with its se from the runs) within 5 se of their difference."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import build_plan

    kernel = run(recipe, n, 4)[0]
    plan = build_plan(recipe)
    plan.engine = "python"
    reference = run(recipe, n, 5, plan=plan)[0]
    means = {}
    for name, (mean_of, var_of) in stats(plan).items():
        a, b = mean_of(kernel), mean_of(reference)
        se = math.sqrt((var_of(kernel) + var_of(reference)) / n)
        assert abs(a - b) <= 5 * max(se, 1e-3), (name, a, b, se)
        means[name] = (a, b)
    return means


HEAL_SPELL = ('\n[[wizard.spells]]\nname = "Mending"\nkind = "heal"\ncv = 6\nrange = 18\n'
              'restores = "D3+1"\n')


def _two_wizards(tmp_path, ruleset: str, heal: bool = False):
    """Lists of a wizard and a unit a side, 20" apart (t9a1: the wfb8 wizards copied; with
    ``heal``, A's wizard also knows a healing augment, a test spell)."""
    from mathhammer.fantasy.battle.runner import Recipe
    from mathhammer.lists import load_list
    from mathhammer.profiles import profiles_root

    wizards = []
    for name in ("empire_battle_wizard", "orc_shaman"):
        if ruleset == "wfb8" and not (heal and name == "empire_battle_wizard"):
            wizards.append(f"wfb8/{name}")
            continue
        text = (profiles_root() / f"fantasy/wfb8/{name}.toml").read_text()
        if heal and name == "empire_battle_wizard":
            head, _sep, tail = text.partition("[formation]")
            text = head + HEAL_SPELL + "\n[formation]" + tail
        path = tmp_path / f"{name}.toml"
        path.write_text(text.replace('ruleset = "wfb8"', f'ruleset = "{ruleset}"')
                        .replace(f'id = "wfb8/{name}"', f'id = "test/{name}"'))
        wizards.append(str(path))
    units = {"wfb8": ("wfb8/empire_halberdiers", "wfb8/orc_boyz"),
             "t9a1": ("t9a1/eos_heavy_infantry", "t9a1/og_orcs")}[ruleset]
    texts = []
    for side in (0, 1):
        texts.append("\n".join([f'name = "{"AB"[side]}"', 'game = "fantasy"',
                                 f'ruleset = "{ruleset}"', "points = 3000", "", "[[units]]",
                                 f'profile = "{wizards[side]}"', "", "[[units]]",
                                 f'profile = "{units[side]}"']) + "\n")
    for side, text in enumerate(texts):
        (tmp_path / f"{'ab'[side]}.toml").write_text(text)
    lists = [load_list(str(tmp_path / f"{x}.toml")) for x in "ab"]
    labels = [[u.label for u in army.units] for army in lists]
    deployment = {"a": [{"unit": labels[0][0], "x": 30.0, "y": 4.0, "move": "hold"},
                        {"unit": labels[0][1], "x": 46.0, "y": 4.0, "move": "hold"}],
                  "b": [{"unit": labels[1][0], "x": 30.0, "y": 24.0, "facing": 180},
                        {"unit": labels[1][1], "x": 46.0, "y": 24.0, "facing": 180}]}
    return Recipe(lists[0], lists[1], deployment, "test", 1, "a", "greedy", "greedy", 1, 1)


@pytest.mark.parametrize("ruleset, policy_a, n, heal", [
    ("wfb8", "greedy", 400, False), ("t9a1", "greedy", 400, False), ("wfb8", "greedy", 300, True),
    pytest.param("wfb8", "best-response", 200, False, marks=pytest.mark.slow)])
def test_the_kernel_and_the_reference_engine_agree_on_magic(tmp_path, ruleset, policy_a, n,
                                                             heal):
    """Wizards on both sides (a Battle Wizard and an Orc Shaman, level 2, each with a
    unit beside it, 20" apart; in t9a1 the same wizards copied, overwhelming power and the
    dice lost to a miscast; and A's general a best response, 4 rollouts, playing its magic
    decisions out; and A's wizard with a healing augment too, three game turns), one game
    turn: P(A wins), P(B wins), the casts and dispels a battle,
    and P(each wizard alive) agree between the numba kernel and the Python step machine
    (independent runs, N each, 5 se)."""
    from dataclasses import replace

    recipe = replace(_two_wizards(tmp_path, ruleset, heal), policy_a=policy_a, rollouts=4,
                     turns=3 if heal else 1)

    def stats(plan):
        vocab = plan.vocabulary
        out = win_stats()
        for kind in ("cast", "cast dice", "dispel"):
            idx = [i for (_s, kd, _u, _l), i in vocab.items() if kd == kind]
            out[kind] = (lambda t, idx=idx: t["decisions"][idx].sum() / t["outcome"].sum(),
                         lambda t, idx=idx: 1.0)  # at most one a battle per side: var ≤ 1
        idx = [i for (_s, kd, _u, label), i in vocab.items()
               if kd == "cast" and label.startswith("Mending at")]
        out["heals"] = (lambda t: t["decisions"][idx].sum() / t["outcome"].sum(),
                        lambda t: 2.0)  # at most 2 a battle (3 turns, one each): var ≤ 2
        for u in (plan.sides[0][0], plan.sides[1][0]):  # each the other's likeliest target
            label = plan.units[u].label
            out[label] = (lambda t, u=u: t["models_left"][u][1] / t["outcome"].sum(),
                          lambda t, u=u: (p := t["models_left"][u][1] / t["outcome"].sum())
                          * (1 - p))
        return out

    means = _engines_agree(recipe, n, stats)
    assert min(means["cast"]) > 1.0 and min(means["dispel"]) > 0.5, means  # both cast, dispel
    assert (min(means["heals"]) > 0.1) == heal, means  # the heal is cast when it is known
    assert max(means["Orc Shaman"]) < 0.95 and max(means["Battle Wizard"]) < 0.95, means


def test_a_wizard_on_cells_casts_its_magic_missile():
    """TU-C1 (FB-B12): a wizard's cell is its first missile: P(cast) with MG-9's target-rule
    dice (exact cast_odds) × the chain's expected models slain, exact."""
    from types import SimpleNamespace

    from mathhammer.fantasy.chain.core import AttackSpec, chain_exact
    from mathhammer.fantasy.game import GAME, missile_cell
    from mathhammer.fantasy.models import load_unit
    from mathhammer.lists import load_list
    from mathhammer.magic.rolls import cast_odds
    from mathhammer.magic.rules import magic_rules

    wizard = load_unit("wfb8/orc_shaman")
    halberdiers = load_unit("wfb8/empire_halberdiers")
    army = load_list("wfb8_orcs_magic")
    shaman = next(u for u in army.units if u.profile.id == "wfb8/orc_shaman")
    assert GAME.score_options(shaman) == {"casts": True}
    cell = SimpleNamespace(key=("shaman", "halberdiers"), ruleset="wfb8", method="exact")
    result = missile_cell(cell, wizard, halberdiers)
    rules = magic_rules("wfb8")
    dice = next(d for d in range(1, 7) if cast_odds(rules, d, 2, 7).p_cast >= 0.75)
    spec = AttackSpec(strength=4, toughness=3, auto_hit=True, close_combat=False, save=6)
    models = halberdiers.formation.models
    mean = sum(float(chain_exact(spec, h, "wfb8", models=models).mean_wounds) for h in
               range(1, 7)) / 6
    expected = float(cast_odds(rules, dice, 2, 7).p_cast) * mean
    assert abs(result.mean_damage.value - expected) < 1e-9, (result.mean_damage, expected)
    assert result.damage_share == 1.0 / models


def test_a_wfb8_miscast_detonation_hits_the_wizard():
    """FB-B12, MG-10: a wfb8 miscast rolls 7 (6/36) for Detonation: one Strength 10 hit on the
    Battle Wizard (T3, no save: wounds on 2+ in wfb8, 5/6) and D6 power dice lost; every
    other row plays nothing. The battle's table of (wounds, dice lost) is that, exactly."""
    from mathhammer.fantasy.battle.magic import magic_of
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    plan = build_plan(Recipe(load_list("wfb8_empire_magic"), load_list("wfb8_orcs"), None,
                             "default", 1, "a", "greedy", "greedy", 1, 1))
    table = magic_of(plan).miscast_table(0)
    prev, pmf = 0.0, {}
    for wounds, lost, c in table:
        pmf[(wounds, lost)] = c - prev
        prev = c
    assert abs(pmf[(0, 0)] - 30 / 36) < 1e-12
    for d in range(1, 7):
        assert abs(pmf[(1, d)] - 6 / 36 * 5 / 6 / 6) < 1e-12
        assert abs(pmf[(0, d)] - 6 / 36 * 1 / 6 / 6) < 1e-12
    assert abs(sum(pmf.values()) - 1.0) < 1e-12


def test_a_dispelled_missile_is_the_magic_engines_whole_phase(tmp_path):
    """The same one-turn set-up with the orcs dispelling (scripted: MG-9's all-out, the
    fewest dice reaching 85%, else every die): P(the missile goes off) is the magic
    engine's exact phase (`magic phase`: the flow, the wizard's channel, the target dice
    rule, the all-out dispel, level 0), and the orcs' mean models lost is it × the chain's,
    within 5 se (N = 3000, the kernel)."""
    from mathhammer.magic.models import scenario_from_options
    from mathhammer.magic.scenario import run_phase

    phase = run_phase(scenario_from_options(["Fireball:5"], level=2, ruleset="wfb8"),
                      method="exact")
    p_off = phase.results["p_goes_off_1"].value
    assert 0.1 < p_off < 0.4
    slain, lost = fireball_slain(), np.arange(11)
    mean = p_off * float(slain @ lost)
    var = p_off * float(slain @ lost**2) - mean**2
    a, b, deployment = lone_wizard_at_orcs(tmp_path)
    del deployment["b"][0]["dispel"]
    n = 3000
    report = battle(a, b, turns=1, first="a", deployment=deployment, policy_a="scripted",
                    policy_b="scripted", n_trials=n, seed=9)
    left = report.distributions["models_left[B:Orc Boyz]"].pmf
    observed = sum((10 - k) * p for k, p in left.items())
    assert abs(observed - mean) <= 5 * math.sqrt(var / n), (observed, mean)


def test_a_spell_needs_the_fields_of_its_kind(tmp_path):
    """A heal without restores, or a missile with restores: one line naming the spell."""
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "fantasy/wfb8/empire_battle_wizard.toml").read_text()
    bad = tmp_path / "bad_heal.toml"
    bad.write_text(text.replace('id = "wfb8/empire_battle_wizard"', 'id = "test/bad_heal"')
                   .replace('kind = "missile"', 'kind = "heal"'))
    code, out, err = cli_result("profiles", "validate", str(bad))
    assert code == 2 and "Fireball" in err and "restores" in err, err
