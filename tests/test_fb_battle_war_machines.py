"""``fb battle`` with war machines (FB-WM2): the piece fires in the shooting phase by the
artillery engine's exact answer, is shot at with its own Toughness, and its crew fight."""

from __future__ import annotations

import math

import pytest

from mathhammer.fantasy.battle.report import battle
from tests.test_fb_battle import one_unit_list
from tests.test_fb_battle_phases import unbreakable_orcs

CANNON_LIST = "profiles/lists/wfb8_empire_cannon.toml"


def cannon_at_orcs(tmp_path, engine: str, n: int, seed: int, turns: int = 1,
                   machine: str = "wfb8/empire_great_cannon", gap: float = 20.0):
    """A Great Cannon 20" in front of ten Unbreakable Orc Boyz (5 wide) who hold and never
    charge; one game turn, A first: only the cannon acts. The orcs' models left."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    a = one_unit_list(tmp_path, "cannon", machine)
    b = one_unit_list(tmp_path, "orcs", unbreakable_orcs(tmp_path), models=10, champion=False)
    deployment = {"a": [{"unit": "Great Cannon", "x": 36.0, "y": 4.0}],
                  "b": [{"unit": "Orc Boyz", "x": 36.0, "y": 4.0 + gap, "facing": 180,
                         "move": "hold", "charge": "none"}]}
    recipe = Recipe(load_list(a), load_list(b), deployment, "given", turns, "a", "scripted",
                    "scripted", 1, 1)
    plan = build_plan(recipe)
    plan.engine = engine
    tally = run(recipe, n, seed, plan=plan)[0]
    return plan, tally


def test_a_cannon_alone_is_the_artillery_engine(tmp_path):
    """FB-WM2: one turn in which only a Great Cannon fires (at ten orcs 20" away, along the
    middle file, 4" short): the orcs slain follow fb artillery cannon's exact distribution —
    the mean and P(none slain) within 5 se (se from the exact answer), and P(the cannon
    destroyed by its own misfire) the same way, on both engines."""
    from mathhammer.fantasy.artillery.query import artillery

    n = 2000
    for engine, seed in (("kernel", 31), ("python", 32)):
        plan, tally = cannon_at_orcs(tmp_path, engine, n, seed)
        orc = next(u.index for u in plan.units if u.label == "Orc Boyz")
        shot = artillery("cannon", "wfb8/orc_boyz", models=10, rank_width=plan.units[orc].width,
                         ruleset="wfb8", method="exact")
        exact = shot.distributions["models_slain"]
        slain = {exact.offset + k: float(p) for k, p in enumerate(exact.probs)}
        mean = sum(k * p for k, p in slain.items())
        var = sum((k - mean) ** 2 * p for k, p in slain.items())
        p_none = slain.get(0, 0.0)
        observed = {m: int(c) for m, c in enumerate(tally["models_left"][orc]) if c}
        assert sum(observed.values()) == n
        got_mean = sum((10 - m) * c for m, c in observed.items()) / n
        got_none = observed.get(10, 0) / n
        assert abs(got_mean - mean) <= 5 * math.sqrt(var / n), (engine, got_mean, mean)
        se_none = math.sqrt(p_none * (1 - p_none) / n)
        assert abs(got_none - p_none) <= 5 * se_none, (engine, got_none, p_none)
        cannon = next(u.index for u in plan.units if u.label == "Great Cannon")
        blown = shot.results["p_own_destroyed"].value  # FB-WM2: its misfire destroys it
        got_blown = tally["status"][-1, cannon, 3] / n
        assert abs(got_blown - blown) <= 5 * math.sqrt(blown * (1 - blown) / n), (engine, got_blown)
    assert 0.05 < p_none < 0.95 and mean > 0.3  # the test can fail: the cannon matters


def test_a_bolt_thrower_rolls_to_hit_at_long_range(tmp_path):
    """FB-WM2: a piece that rolls to hit takes FB-H2's long range: a bolt thrower (the Great
    Cannon's machine firing one, BS3 crew, range 48) 30" from ten orcs: the orcs slain follow
    fb artillery bolt-thrower's exact answer at −1 to hit (the mean within 5 se), both engines."""
    from mathhammer.fantasy.artillery.query import artillery
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "fantasy/wfb8/empire_great_cannon.toml").read_text()
    text = text.replace('fires = "cannon"', 'fires = "bolt-thrower"')
    text = text.replace('id = "wfb8/empire_great_cannon"', 'id = "test/bolt_thrower"')
    machine = tmp_path / "bolt_thrower.toml"
    machine.write_text(text)
    n = 2000
    for engine, seed in (("kernel", 81), ("python", 82)):
        plan, tally = cannon_at_orcs(tmp_path, engine, n, seed, machine=str(machine), gap=30.0)
        orc = next(u.index for u in plan.units if u.label == "Orc Boyz")
        exact = artillery("bolt-thrower", "wfb8/orc_boyz", models=10, bs=3, modifier=-1,
                          rank_width=plan.units[orc].width, ruleset="wfb8",
                          method="exact").distributions["models_slain"]
        slain = {exact.offset + k: float(p) for k, p in enumerate(exact.probs)}
        mean = sum(k * p for k, p in slain.items())
        sd = math.sqrt(sum((k - mean) ** 2 * p for k, p in slain.items()))
        got = sum((10 - m) * c for m, c in enumerate(tally["models_left"][orc])) / n
        assert abs(got - mean) <= 5 * sd / math.sqrt(n), (engine, got, mean)
        at_short = artillery("bolt-thrower", "wfb8/orc_boyz", models=10, bs=3, modifier=0,
                             rank_width=plan.units[orc].width, ruleset="wfb8", method="exact")
        assert at_short.results["mean_models_slain"].value - mean > 5 * sd / math.sqrt(n)


def test_a_misfire_silences_or_destroys_the_cannon(tmp_path):
    """FB-WM2: over two game turns the cannon fires in the second unless its first shot
    misfired on "cannot shoot this turn or next" or "destroyed" (wfb8 black powder rows 3-4
    and 1-2 of a misfire, 1/6 each): shots per battle = 1 + (1 - 2/18), within 5 se."""
    from fractions import Fraction

    from mathhammer.fantasy.artillery.query import artillery

    shot = artillery("cannon", "wfb8/orc_boyz", models=10, rank_width=5, ruleset="wfb8",
                     method="exact")
    quiet = shot.results["p_own_destroyed"].value + shot.results["p_malfunction"].value
    assert abs(quiet - float(Fraction(2, 18))) < 1e-12
    p_second = 1 - quiet
    n = 2000
    for engine, seed in (("kernel", 71), ("python", 72)):
        plan, tally = cannon_at_orcs(tmp_path, engine, n, seed, turns=2)
        shots = sum(tally["decisions"][i] for (_s, kind, u, label), i in plan.vocabulary.items()
                    if kind == "shoot" and label.startswith("shoot "))
        se = math.sqrt(p_second * (1 - p_second) / n)
        assert abs(shots / n - (1 + p_second)) <= 5 * se, (engine, shots / n, 1 + p_second)


def play(recipe, engine: str, n: int, seed: int):
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import build_plan

    plan = build_plan(recipe)
    plan.engine = engine
    return plan, run(recipe, n, seed, plan=plan)[0]


def agree(a: float, b: float, n: int) -> bool:
    """Two independent proportions of n trials each: within 5 se of their difference."""
    se = math.sqrt((a * (1 - a) + b * (1 - b)) / n)
    return abs(a - b) <= 5 * max(se, 1e-3)


@pytest.mark.parametrize("policy", ["scripted", pytest.param("greedy", marks=pytest.mark.slow)])
def test_the_kernel_and_the_reference_engine_agree_with_a_cannon(policy):
    """The cannon list against the orcs, three game turns, scripted (greedy: slow) generals:
    the numba kernel and the Python step machine give the same P(A wins), P(B wins) and
    P(each orc unit destroyed) within 5 se of their difference (independent runs, N = 300),
    and the cannon fires in both (FB-WM2)."""
    from mathhammer.fantasy.battle.runner import Recipe
    from mathhammer.lists import load_list

    n = 300
    recipe = Recipe(load_list(CANNON_LIST), load_list("wfb8_orcs"), None, "default", 3, "a",
                    policy, policy, 1, 1)
    (plan, kernel), (_, reference) = (play(recipe, "kernel", n, 41),
                                      play(recipe, "python", n, 42))
    for k in (0, 2):
        a, b = kernel["outcome"][k] / n, reference["outcome"][k] / n
        assert agree(a, b, n), (policy, k, a, b)
    for u in plan.sides[1]:
        a, b = (t["status"][-1, u, 3] / n for t in (kernel, reference))
        assert agree(a, b, n), (policy, plan.units[u].label, a, b)
    cannon = next(u.index for u in plan.units if u.label == "Great Cannon")
    for tally in (kernel, reference):
        shots = sum(tally["decisions"][i] for (_s, kind, u, label), i in
                    plan.vocabulary.items() if u == cannon and label.startswith("shoot "))
        assert shots > n / 2, (policy, shots)


def unbreakable_cannon(tmp_path) -> str:
    """The Great Cannon whose crew never panic: the wounds shot at it stay on the table."""
    from mathhammer.profiles import profiles_root

    text = (profiles_root() / "fantasy/wfb8/empire_great_cannon.toml").read_text()
    text = text.replace('special_rules = []', 'special_rules = ["Unbreakable"]')
    text = text.replace('id = "wfb8/empire_great_cannon"', 'id = "test/unbreakable_cannon"')
    path = tmp_path / "unbreakable_cannon.toml"
    path.write_text(text)
    return str(path)


def test_shooting_at_a_war_machine_uses_its_toughness(tmp_path):
    """FB-WM1 in a battle: ten handgunners shoot a Great Cannon 20" away (long range); the
    crew lost follow fb shoot's exact chain at the machine's T7 (not the crew's T3), one
    wound per crewman: the mean within 5 se, on both engines."""
    from mathhammer.fantasy.battle.runner import Recipe
    from mathhammer.fantasy.chain.core import AttackSpec, chain_exact
    from mathhammer.lists import load_list

    a = one_unit_list(tmp_path, "gunners", "wfb8/empire_handgunners")
    b = one_unit_list(tmp_path, "cannon", unbreakable_cannon(tmp_path))
    deployment = {"a": [{"unit": "Handgunners", "x": 36.0, "y": 4.0, "move": "hold"}],
                  "b": [{"unit": "Great Cannon", "x": 36.0, "y": 24.0, "facing": 180,
                         "shoot": "none"}]}
    recipe = Recipe(load_list(a), load_list(b), deployment, "given", 1, "a", "scripted",
                    "scripted", 1, 1)
    spec = AttackSpec(bs=3, shooting_modifier=-1, strength=4, toughness=7, save=None,
                      armour_piercing=1, close_combat=False)
    slain = [float(p) for p in chain_exact(spec, 10, "wfb8", models=3).slain]
    mean = sum(k * p for k, p in enumerate(slain))
    sd = math.sqrt(sum((k - mean) ** 2 * p for k, p in enumerate(slain)))
    n = 2000
    for engine, seed in (("kernel", 51), ("python", 52)):
        plan, tally = play(recipe, engine, n, seed)
        cannon = next(u.index for u in plan.units if u.label == "Great Cannon")
        got = sum((3 - m) * c for m, c in enumerate(tally["models_left"][cannon])) / n
        assert abs(got - mean) <= 5 * sd / math.sqrt(n), (engine, got, mean)
    assert mean > 0.05  # S4 wounds T7 on a 6: the test can fail


def test_a_war_machine_fights_as_its_crew(tmp_path):
    """FB-WM2: Orc Boyz start in contact with a Great Cannon; one game turn: the crew fight
    (no error), both engines give the same P(cannon destroyed or fled) within 5 se, and the
    orcs win it often (three T3 crew against a unit)."""
    from mathhammer.fantasy.battle.runner import Recipe
    from mathhammer.lists import load_list

    a = one_unit_list(tmp_path, "cannon", "wfb8/empire_great_cannon")
    b = one_unit_list(tmp_path, "orcs", "wfb8/orc_boyz", models=10, champion=False)
    deployment = {"a": [{"unit": "Great Cannon", "x": 36.0, "y": 24.0}],
                  "b": [{"unit": "Orc Boyz", "x": 36.0, "y": 24.0}]}
    recipe = Recipe(load_list(a), load_list(b), deployment, "given", 1, "a", "scripted",
                    "scripted", 1, 1)
    n = 400
    gone = []
    for engine, seed in (("kernel", 61), ("python", 62)):
        plan, tally = play(recipe, engine, n, seed)
        cannon = next(u.index for u in plan.units if u.label == "Great Cannon")
        gone.append(tally["models_left"][cannon][0] / n)
    assert agree(gone[0], gone[1], n), gone
    assert gone[0] > 0.3, gone


def test_a_machine_firing_a_scattered_template_is_one_line(tmp_path):
    """FB-WM2: a stone thrower has no exact table to draw a battle's shot from: refused in one
    line naming the unit, the piece and the fix, exit 2."""
    from mathhammer.profiles import profiles_root
    from tests.conftest import cli_result

    text = (profiles_root() / "fantasy/wfb8/empire_great_cannon.toml").read_text()
    text = text.replace('fires = "cannon"', 'fires = "stone-thrower"')
    text = text.replace('id = "wfb8/empire_great_cannon"', 'id = "test/stone_thrower"')
    profile = tmp_path / "stone_thrower.toml"
    profile.write_text(text)
    code, out, err = cli_result("fb", "battle", one_unit_list(tmp_path, "st", str(profile)),
                                "wfb8_orcs", "--n-trials", "5", "--quiet")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1, err
    assert "stone-thrower" in lines[0] and "Great Cannon" in lines[0] and "fix" in lines[0]
