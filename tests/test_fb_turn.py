"""``fb turn`` (FB-G5): whole game turns, checked against the engines they are built from."""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import ProfileError
from mathhammer.fantasy.scenario import run_scenario
from mathhammer.profiles import read_toml
from tests.conftest import cli_result

PATH = "profiles/scenarios/fantasy_turns_knights_vs_orcs.toml"


def one_turn(**turn):
    data = copy.deepcopy(read_toml(PATH))
    data["turn"] = {"turns": 1, "distance": 14, **turn}
    data["a"]["models"], data["b"]["models"] = 5, 10
    return data


def run(data, method="exact", **cfg):
    return run_scenario(data, PATH, method=method, config=MonteCarloConfig(**cfg), check=False)


def test_one_game_turn_is_a_charge_then_two_combat_rounds():
    # no shooting: after game turn 1 the orcs are destroyed only if the charge reached
    # (8 + 2D6 >= 14) and two rounds of combat (A's turn, B's turn) destroyed them
    from mathhammer.fantasy.combat import combat, make_side

    import itertools

    report = run(one_turn())
    # the knights' horses: M8 and Swiftstride (3D6, the best two), FB-G1
    reach = Fraction(sum(1 for r in itertools.product(range(1, 7), repeat=3)
                         if 8 + sum(sorted(r)[1:]) >= 14), 216)
    a = make_side("wfb8/knights_of_the_realm", where="a", models=5, rank_width=4)
    b = make_side("wfb8/orc_boyz", where="b", models=10, rank_width=5)
    fight = combat(a, b, rounds=2, charger="a", method="exact")
    want = float(reach) * fight.results["p_enemy_destroyed"].value  # destroyed or caught
    assert report.results["p_destroyed[Orc Boyz, turn 1]"].value == pytest.approx(want, abs=1e-9)


def test_a_fleeing_target_is_caught_as_fb_charge_says():
    from mathhammer.fantasy.charge import charge_outcome
    from mathhammer.fantasy.rulesets import load_ruleset

    report = run(one_turn(reaction="flee", edge=40))
    caught = charge_outcome(14, 8, load_ruleset("wfb8"), swiftstride=True,
                            reaction="flee")["p_caught"]
    assert report.results["p_destroyed[Orc Boyz, turn 1]"].value == pytest.approx(float(caught))
    # not caught: it is fleeing (40" from the edge, one rally test in its own turn)
    assert report.results["p_fled[Orc Boyz, turn 1]"].value == 0.0


def test_monte_carlo_agrees_with_exact():
    data = one_turn()
    data["turn"]["turns"] = 2
    data["turn"]["fire"] = read_toml(PATH)["turn"]["fire"]
    exact = run(data)
    n = 20_000
    mc = run(data, method="mc", n_trials=n, seed=4)
    for name, est in exact.results.items():
        se = math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
        assert abs(mc.results[name].value - est.value) <= 5 * se + 1e-12, name
    assert mc.results["p_holding[Orc Boyz, turn 2]"].se > 0


def test_the_bundled_scenario_prints_per_turn_outcomes_with_errors():
    code, out, err = cli_result("fb", "turn", PATH, "--n-trials", "3000", "--seed", "1")
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("After 3 game turns, Orc Boyz: holding") and "±" in first
    assert "p_destroyed[Knights of the Realm, turn 2]" in out


@pytest.mark.parametrize("change, what", [
    (lambda d: d.pop("turn"), "turn"),
    (lambda d: d["turn"].update(reaction="stand-and-shoot"), "stand_and_shoot"),
    (lambda d: d["turn"]["fire"][0].pop("bs"), "fire[0]"),
    (lambda d: d["turn"].update(turns=9), "turns"),
])
def test_bad_scenarios_are_one_error(change, what):
    data = copy.deepcopy(read_toml(PATH))
    change(data)
    with pytest.raises(ProfileError, match=what.replace("[", r"\[").replace("]", r"\]")):
        run(data)
