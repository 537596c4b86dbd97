"""``fb battle``: the phases against the engines they use, the table's geometry, bad input."""

from __future__ import annotations

import math

import pytest

from mathhammer.fantasy.battle.report import battle
from tests.conftest import cli_result
from tests.stats import chisquare
from tests.test_fb_battle import one_unit_list


def to_toml(tables: dict) -> str:
    """Arrays of tables of plain values (all a deployment file needs)."""
    lines = []
    for key, rows in tables.items():
        for row in rows:
            lines.append(f"[[{key}]]")
            for k, v in row.items():
                lines.append(f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"')
    return "\n".join(lines).replace("True", "true").replace("False", "false") + "\n"


def unbreakable_orcs(tmp_path) -> str:
    """Orc Boyz that never panic (FB-B6), ten of them: the shooting's wounds stay on the table."""
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "fantasy/wfb8/orc_boyz.toml").read_text()
    text = text.replace('special_rules = []', 'special_rules = ["Unbreakable"]')
    text = text.replace('id = "wfb8/orc_boyz"', 'id = "test/unbreakable_orcs"')
    path = tmp_path / "unbreakable_orcs.toml"
    path.write_text(text)
    return str(path)


def test_a_shooting_only_battle_is_the_fb_shoot_chain(tmp_path):
    """Ten handgunners (two ranks of five) shoot ten Orc Boyz 20" away — long range, no move —
    in A's turn of one game turn; the orcs cannot reach (M4 + 2D6 < 20 + 1"? no: they are
    ordered to hold). The models the orcs lose are fb shoot's exact distribution for 10 shots
    at BS3, long range, S4 armour piercing 1, T4, 5+ (chi-square, p > 1e-6, N = 3000)."""
    from mathhammer.fantasy.chain.core import AttackSpec, chain_exact

    a = one_unit_list(tmp_path, "gunners", "wfb8/empire_handgunners")
    b = one_unit_list(tmp_path, "orcs", unbreakable_orcs(tmp_path), models=10, champion=False)
    deployment = {"a": [{"unit": "Handgunners", "x": 36.0, "y": 4.0, "move": "hold"}],
                  "b": [{"unit": "Orc Boyz", "x": 36.0, "y": 24.0, "facing": 180,
                         "move": "hold", "charge": "none"}]}
    n = 3000
    report = battle(a, b, turns=1, first="a", deployment=deployment, policy_a="scripted",
                    policy_b="scripted", n_trials=n, seed=21)
    left = report.distributions["models_left[B:Orc Boyz]"].pmf
    spec = AttackSpec(bs=3, shooting_modifier=-1, strength=4, toughness=4, save=5,
                      armour_piercing=1, close_combat=False)
    slain = chain_exact(spec, 10, "wfb8", models=10).slain
    expected = {10 - k: float(p) for k, p in enumerate(slain)}
    cells = sorted(k for k, p in expected.items() if p * n >= 5)  # pool the rare tail
    observed = [left.get(k, 0.0) * n for k in cells] + [
        n * sum(p for k, p in left.items() if k not in cells)]
    wanted = [expected[k] * n for k in cells] + [
        n * sum(p for k, p in expected.items() if k not in cells)]
    assert chisquare(observed, wanted).pvalue > 1e-6, (left, expected)


@pytest.mark.parametrize("args, words", [
    (["wfb8_empire", "wfb8_orcs", "--turns", "0"], "--turns"),
    (["wfb8_empire", "t9a1_orcs"], "t9a1"),
    (["wfb8_empire", "wfb8_orcs", "--policy-a", "clever"], "--policy-a"),
    (["wfb8_empire", "no_such_list"], "file not found"),
    (["wfb8_empire", "wfb8_orcs", "--method", "exact"], "Monte Carlo"),
    (["wfb8_empire", "cygnar_battlebox"], "warmachine"),
    (["cygnar_battlebox", "wfb8_orcs"], "cygnar_battlebox.toml): is a warmachine list"),
    (["wfb8_empire", "wfb8_orcs", "--method", "exact"], "use --method mc, or leave it out"),
])
def test_bad_input_is_one_line(args, words):
    code, out, err = cli_result("fb", "battle", *args, "--n-trials", "5", "--quiet")
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], err


def test_a_list_naming_an_unknown_unit_is_one_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "Bad"\ngame = "fantasy"\nruleset = "wfb8"\npoints = 500\n\n'
                    '[[units]]\nprofile = "wfb8/no_such_unit"\n')
    code, out, err = cli_result("fb", "battle", str(path), "wfb8_orcs", "--n-trials", "5",
                                "--quiet")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and "no_such_unit" in lines[0], err


@pytest.mark.parametrize("host, label, character, words", [
    # FB-WM1: a war machine takes no characters (its crew fight alone)
    ("wfb8/empire_great_cannon", "Great Cannon", "wfb8/empire_battle_wizard",
     "unit Great Cannon: is a war machine: it takes no characters"),
    # a character of another army: named by the list that has it, before any battle
    ("wfb8/empire_halberdiers", "Halberdiers", "wfb8/chaos_lord",
     "unit Halberdiers character wfb8/chaos_lord: is from Warriors of Chaos"),
])
def test_a_character_a_unit_may_not_take_is_one_line_naming_the_list(tmp_path, host, label,
                                                                      character, words):
    path = tmp_path / "joined.toml"
    path.write_text('name = "Bad"\ngame = "fantasy"\nruleset = "wfb8"\npoints = 2000\n\n'
                    f'[[units]]\nprofile = "{host}"\n\n'
                    f'[[units]]\nprofile = "{character}"\njoins = "{label}"\n')
    code, out, err = cli_result("fb", "battle", str(path), "wfb8_orcs", "--n-trials", "5",
                                "--quiet")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1, err
    assert f"list A ({path}): {words}" in lines[0], err


@pytest.mark.parametrize("placements, words", [
    ({"a": [{"unit": "Halberdiers", "x": 1.0, "y": 12.0}]}, "off the"),
    ({"a": [{"unit": "Halberdiers", "x": 36.0}, {"unit": "Handgunners", "x": 37.0}]}, "overlaps"),
    ({"a": [{"unit": "Pikemen", "x": 36.0}]}, "names no unit"),
    ({"a": [{"unit": "Halberdiers"}, {"unit": "Halberdiers"}]}, "placed twice"),
    ({"b": [{"unit": "Orc Boyz", "charge": "Pikemen"}]}, "names no enemy"),
    ({"terrain": [{"x": 100.0, "y": 10.0, "width": 4.0, "depth": 4.0}]}, "off the table"),
])
def test_bad_deployment_is_one_line(tmp_path, placements, words):
    path = tmp_path / "deploy.toml"
    path.write_text(to_toml(placements))
    code, out, err = cli_result("fb", "battle", "wfb8_empire", "wfb8_orcs", "--deployment", path,
                                "--n-trials", "5", "--quiet")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and words in lines[0], err



def test_a_line_too_wide_may_be_placed_by_hand_up_to_the_engines_unit_count(tmp_path):
    """33 units of ten Orc Boyz a side: the default lines are far wider than the table (one
    line, exit 2, naming --deployment); placed in three rows each by a deployment file they
    are accepted, and the 66 units are then refused as more than the engine's 64."""
    horde = tmp_path / "horde.toml"
    horde.write_text('name = "Horde"\ngame = "fantasy"\nruleset = "wfb8"\npoints = 20000\n\n'
                     '[[units]]\nprofile = "wfb8/orc_boyz"\nmodels = 10\ncount = 33\n')
    code, out, err = cli_result("fb", "battle", horde, horde, "--n-trials", "5", "--quiet")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and "--deployment" in lines[0], err

    rows = {side: [{"unit": "Orc Boyz" if i == 0 else f"Orc Boyz ({i + 1})",
                    "x": 3.5 + 6.5 * (i % 11), "y": y0 + 5.0 * (i // 11), "facing": facing}
                   for i in range(33)] for side, y0, facing in (("a", 3.0, 0), ("b", 33.0, 180))}
    deployment = tmp_path / "rows.toml"
    deployment.write_text(to_toml(rows))
    code, out, err = cli_result("fb", "battle", horde, horde, "--deployment", deployment,
                                "--n-trials", "5", "--quiet")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and "66 units" in lines[0], err

def test_arcs_and_distances():
    """FB-B4: the 45° lines from the corners; distances between rectangles."""
    from mathhammer.fantasy.battle.table import FLANK, FRONT, LEFT, REAR, RIGHT, Box, distance

    box = Box(10.0, 10.0, math.pi / 2, 4.0, 2.0)  # front edge y = 10, x 8..12, facing +y
    assert box.arc(10.0, 15.0) == (FRONT, LEFT) or box.arc(10.0, 15.0)[0] == FRONT
    assert box.arc(14.9, 13.0)[0] == FRONT  # 2.9 beside the corner, 3 ahead: inside the 45°
    assert box.arc(15.1, 13.0) == (FLANK, RIGHT)
    assert box.arc(4.0, 9.0) == (FLANK, LEFT)
    assert box.arc(10.0, 5.0)[0] == REAR
    other = Box(10.0, 15.0, -math.pi / 2, 4.0, 2.0)  # facing it, fronts 5" apart
    assert distance(box, other) == pytest.approx(5.0)
    corner = Box(16.0, 14.0, math.pi / 2, 2.0, 2.0)  # its corner (15, 12) vs (12, 10)
    assert distance(box, corner) == pytest.approx(math.hypot(3.0, 2.0))


def test_marching_is_barred_near_an_enemy():
    """FB-B5: an enemy within 8" stops the march (M, not 2M)."""
    from mathhammer.fantasy.battle.actions import advance_towards, enemy_within
    from mathhammer.fantasy.battle.runner import Recipe, build_plan, new_battle
    from mathhammer.lists import load_list
    from mathhammer.rng import chunk_state

    recipe = Recipe(load_list("wfb8_dwarfs"), load_list("wfb8_dwarfs"),
                    {"a": [{"unit": "Dwarf Warriors", "x": 20.0, "y": 12.0}],
                     "b": [{"unit": "Dwarf Warriors", "x": 20.0, "y": 26.0}]},
                    "test", 1, "a", "scripted", "scripted", 1, 1)
    plan = build_plan(recipe)
    state = new_battle(plan, chunk_state(1, 0))
    a0, b0 = plan.sides[0][0], plan.sides[1][0]
    assert not enemy_within(plan, state, a0, 8.0)  # 14" apart
    state.place(b0, 20.0, 19.0, -math.pi / 2)  # now 7" apart
    assert enemy_within(plan, state, a0, 8.0)
    moved = advance_towards(plan, state, a0, (20.0, 40.0), plan.units[a0].movement)
    assert moved == pytest.approx(3.0)  # M3, straight ahead, stops 1" short? 7 - 3 = 4 >= 1


def test_restraining_takes_a_leadership_test_where_the_ruleset_says(tmp_path):
    """FB-B7: the halberdiers are ordered to restrain. In wfb8 (restrain_test) a failed
    Leadership test makes them pursue anyway, so the broken orcs are caught and destroyed more
    often than with the test switched off (the same battles otherwise, N = 2000 each; the
    difference above 3 se of the two proportions)."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list
    from tests.test_fb_battle import SMALL, in_contact, one_unit_list

    a = one_unit_list(tmp_path, "halberdiers", "wfb8/empire_halberdiers", **SMALL)
    b = one_unit_list(tmp_path, "orcs", "wfb8/orc_boyz", **SMALL)
    deployment = in_contact("Halberdiers", "Orc Boyz")
    deployment["a"][0]["pursue"] = False
    recipe = Recipe(load_list(a), load_list(b), deployment, "test", 1, "a", "scripted",
                    "scripted", 1, 1)
    n = 2000
    destroyed = []
    for test in (True, False):
        plan = build_plan(recipe)
        assert plan.rules.battle.restrain_test  # wfb8's data
        plan.rules = plan.rules.model_copy(update={"battle": plan.rules.battle.model_copy(
            update={"restrain_test": test})})
        tally = run(recipe, n, 13, plan=plan)[0]
        destroyed.append(tally["status"][0, 1, 3] / n)  # turn 1, unit B, destroyed
    with_test, without = destroyed
    se = math.sqrt(with_test * (1 - with_test) / n + without * (1 - without) / n)
    assert with_test - without > 3 * se, (with_test, without, se)


@pytest.mark.parametrize("entries, labels", [
    ([("Halberdiers", 2), ("Halberdiers", 1)],
     ["Halberdiers", "Halberdiers (3)", "Halberdiers (2)"]),
    ([("Halberdiers", 1), ("Halberdiers", 1), ("Halberdiers", 2)],
     ["Halberdiers", "Halberdiers (2)", "Halberdiers (3)", "Halberdiers (4)"]),
    ([("Halberdiers", 3)], ["Halberdiers", "Halberdiers (2)", "Halberdiers (3)"]),
])
def test_every_unit_of_a_list_gets_its_own_label(entries, labels):
    """An entry's first unit keeps the list's label (joins and deployment files name it), its
    other units the next free number: a count of 2 before a second entry of the same profile
    was refused ("two units end up with the same label") for labels the tool made itself."""
    from mathhammer.fantasy.battle.army import battle_units
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.lists import load_list

    army = load_list({"name": "Twins", "game": "fantasy", "ruleset": "wfb8", "points": 3000,
                      "units": [{"profile": "wfb8/empire_halberdiers", "count": count}
                                for _name, count in entries]})
    enemy = load_list("wfb8_orcs")
    units = battle_units(army, enemy, load_ruleset("wfb8"))
    assert [u.label for u in units if u.side == 0] == labels
