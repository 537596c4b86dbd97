"""``fb turn`` (FB-G5): whole game turns, checked against the engines they are built from."""

from __future__ import annotations

import copy
import json
import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
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
    from mathhammer.fantasy.combat.fight import combat, make_side

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
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    report = run(one_turn(reaction="flee", edge=40))
    caught = charge_outcome(14, 8, load_ruleset("wfb8"), swiftstride=True,
                            reaction="flee")["p_caught"]
    assert report.results["p_destroyed[Orc Boyz, turn 1]"].value == pytest.approx(float(caught))
    # not caught: it is fleeing (40" from the edge, one rally test in its own turn)
    assert report.results["p_fled[Orc Boyz, turn 1]"].value == 0.0


ORC_BOWS = {"name": "Orc bows", "side": "b", "shots": "10", "bs": 3, "strength": 3}


def test_monte_carlo_agrees_with_exact():
    # both sides shoot and cast: panic tests and flights of either unit (FB-G4)
    data = one_turn()
    data["turn"]["turns"] = 2
    data["turn"]["fire"] = read_toml(PATH)["turn"]["fire"] + [{**ORC_BOWS, "modifier": -1}]
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
    assert first.startswith("After 3 game turns, Orc Boyz: destroyed") and "±" in first
    assert "p_destroyed[Knights of the Realm, turn 2]" in out


@pytest.mark.parametrize("change, what", [
    (lambda d: d.pop("turn"), "turn"),
    (lambda d: d["turn"].pop("stand_and_shoot"), "stand_and_shoot"),
    (lambda d: d["turn"].update(reaction="hold"), "stand_and_shoot"),
    (lambda d: d["turn"]["stand_and_shoot"].update(side="a"), "stand_and_shoot"),
    (lambda d: d["turn"]["fire"][0].pop("bs"), "fire[0]"),
    (lambda d: d["turn"].update(turns=9), "turns"),
])
def test_bad_scenarios_are_one_error(change, what):
    data = copy.deepcopy(read_toml(PATH))
    change(data)
    with pytest.raises(ProfileError, match=what.replace("[", r"\[").replace("]", r"\]")):
        run(data)


# ---- stand and shoot (FB-G2, FB-H2) ------------------------------------------------------

def pmf_of(dist) -> dict[int, float]:
    return dict(zip(dist.outcomes.tolist(), dist.probs.tolist()))


def sas_turn(distance, turns=1, **turn):
    return one_turn(distance=distance, turns=turns, reaction="stand-and-shoot",
                    stand_and_shoot=dict(ORC_BOWS), **turn)


def test_stand_and_shoot_hits_are_the_fb_shoot_chain_with_its_modifier():
    # from 30" the knights (M8, 3D6kh2) never reach: the orcs' shots are all that happens
    # in game turn 1, so the knights left are 5 less the fb shoot --stand-and-shoot wounds
    report = run(sas_turn(30))
    code, out, err = cli_result("fb", "shoot", "--bs", "3", "--strength", "3", "--shots", "10",
                                "--target", "wfb8/knights_of_the_realm", "--stand-and-shoot",
                                "--method", "exact", "--format", "json")
    assert code == 0, err
    shot = json.loads(out)
    assert shot["info"]["to_hit_modifier"] == -1
    pmf = {int(k): v for k, v in shot["distributions"]["unsaved_wounds"]["pmf"].items()}
    left = pmf_of(report.distributions["models_left_a"])
    for k in range(5):
        assert left.get(5 - k, 0.0) == pytest.approx(pmf.get(k, 0.0), abs=1e-12), k
    assert left.get(0, 0.0) == pytest.approx(sum(v for k, v in pmf.items() if k >= 5), abs=1e-12)
    assert report.results["p_destroyed[Orc Boyz, turn 1]"].value == 0.0


def test_stand_and_shoot_within_the_charged_units_movement_is_a_hold():
    # the orcs' M is 4: a charger starting 4" away cannot be shot at (FB-G2)
    held, shot = run(one_turn(distance=4)), run(sas_turn(4))
    assert shot.results == held.results
    assert run(sas_turn(5)).results != held.results


def test_a_ruleset_without_the_movement_bar_stands_and_shoots_inside_m(tmp_path):
    from tests.conftest import ROOT

    text = (ROOT / "mathhammer/fantasy/rules/wfb8.toml").read_text(encoding="utf-8")
    path = tmp_path / "house.toml"
    path.write_text(text.replace('stand_and_shoot_min_distance = "movement"',
                                 'stand_and_shoot_min_distance = "none"'), encoding="utf-8")
    held, shot = one_turn(distance=4), sas_turn(4)
    held["ruleset"] = shot["ruleset"] = str(path)
    assert run(shot).results["p_destroyed[Knights of the Realm, turn 1]"].value > \
        run(held).results["p_destroyed[Knights of the Realm, turn 1]"].value


def test_stand_and_shoot_exact_and_monte_carlo_agree_and_run_as_a_scenario_file(tmp_path):
    data = sas_turn(12, turns=2, fire=read_toml(PATH)["turn"]["fire"])
    exact = run(data)
    n = 20_000
    mc = run(data, method="mc", n_trials=n, seed=7)
    for name, est in exact.results.items():
        se = math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
        assert abs(mc.results[name].value - est.value) <= 5 * se + 1e-12, name
    # the same scenario through `mathhammer run` (fb turn --method mc: the bundled-scenario
    # test, which stands and shoots too): no traceback, the same numbers
    path = tmp_path / "sas.toml"
    small = {"models = 8": "models = 5", "models = 20": "models = 10", "turns = 3": "turns = 2",
             "distance = 14": "distance = 12"}
    text = PATH_TEXT
    for old, new in small.items():
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    code, out, err = cli_result("run", path, "--method", "exact", "--format", "json")
    assert code == 0, err
    got = json.loads(out)["results"]
    for name, est in exact.results.items():
        assert got[name]["value"] == pytest.approx(est.value, abs=1e-12), name


PATH_TEXT = open(PATH, encoding="utf-8").read()


# ---- panic: one test a phase on the phase's losses (FB-G4) --------------------------------

MEN = {"schema_version": 1, "game": "fantasy", "id": "test/men", "name": "Men", "ruleset": "wfb8",
       "troop_type": "infantry", "points": {"per_model": 5},
       "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": 3, "w": 1, "i": 3, "a": 1, "ld": 7}}


def one_shot(name, **extra):
    # BS 3 (4+) and S 3 against T 3 (4+), no save: one model slain with probability 1/4
    return {"name": name, "side": "a", "shots": "1", "bs": 3, "strength": 3, **extra}


def shot_at(models, fire, turns=1):
    data = one_turn(distance=40, charge_turn=2, turns=turns, fire=fire)
    data["b"] = {"profile": {**MEN, "formation": {"models": models, "rank_width": 4}}}
    return data


def two_d6():
    return [a + b for a in range(1, 7) for b in range(1, 7)]


def panic_then_rally(p_test):
    """Fractions: P(fleeing), P(fled) of B at the end of game turn 1 when B (Ld 7, 12" from
    its edge) takes a panic test with probability ``p_test`` in A's turn: a failed test flees
    2D6 at once; in B's turn it rallies on Ld 7 or flees 2D6 more (FB-G4)."""
    fail = 1 - Fraction(sum(r <= 7 for r in two_d6()), 36)
    fleeing = fled = Fraction(0)
    for f1 in two_d6():
        if f1 >= 12:
            fled += Fraction(1, 36)
            continue
        for f2 in two_d6():
            if f1 + f2 >= 12:
                fled += fail * Fraction(1, 36 * 36)
            else:
                fleeing += fail * Fraction(1, 36 * 36)
    return p_test * fail * fleeing, p_test * fail * fled


def test_two_entries_whose_losses_reach_a_quarter_together_cause_one_panic_test():
    # 8 models: each shot slays one with 1/4; one alone is 1/8 (then 1/7), both are 2/8
    report = run(shot_at(8, [one_shot("Crossbows"), one_shot("Archers")]))
    fleeing, fled = panic_then_rally(Fraction(1, 16))
    r = report.results
    assert r["p_fleeing[Men, turn 1]"].value == pytest.approx(float(fleeing), abs=1e-12)
    assert r["p_fled[Men, turn 1]"].value == pytest.approx(float(fled), abs=1e-12)
    assert r["p_holding[Men, turn 1]"].value == pytest.approx(float(1 - fleeing - fled), abs=1e-12)
    assert fleeing > 0 and fled > 0


@pytest.mark.parametrize("models, fire", [
    (9, [one_shot("Crossbows"), one_shot("Archers")]),  # 2 of 9 is below a quarter
    (8, [one_shot("Crossbows"),  # a magic phase and a shooting phase: 1 of 8 in each
         {"name": "Bolt", "side": "a", "shots": "1", "strength": 3, "cast_dice": 2,
          "casting_value": 5, "level": 1}]),
])
def test_losses_below_a_quarter_in_each_phase_cause_no_panic_test(models, fire):
    report = run(shot_at(models, fire))
    assert report.results["p_holding[Men, turn 1]"].value == 1.0
    assert pmf_of(report.distributions["models_left_b"])[models - 2] > 0  # two slain happens


# ---- flights: every flight counts, a rallied unit keeps its place (FB-G4) -----------------

def test_flee_rally_flee_again_leaves_the_table_when_the_flights_reach_the_edge():
    # B flees each charge (FB-G2); from 40" the knights never catch it. Game turn 1: B flees
    # f1; B's turn: it rallies (Ld 7) or flees f2 more. Game turn 2: a rallied B is charged
    # again and flees f3 from where it stood; B's turn: it rallies or flees f4 more. It is
    # off the table when its flights reach 12".
    report = run(one_turn(distance=40, turns=2, reaction="flee"))
    rally = Fraction(sum(r <= 7 for r in two_d6()), 36)
    dice = {f: Fraction(sum(r == f for r in two_d6()), 36) for f in range(2, 13)}
    end = defaultdict(Fraction)  # B after its turn 2: "rallied", "fleeing" or "fled"

    def flee(p, fled, then):
        for f, q in dice.items():
            if fled + f >= 12:
                end["fled"] += p * q
            else:
                then(p * q, fled + f)

    def still_fleeing(p, fled):
        end["fleeing"] += p

    def b_turn_2(p, fled):  # B is fleeing: it rallies where it stands, or flees on
        end["rallied"] += p * rally
        flee(p * (1 - rally), fled, still_fleeing)

    def b_turn_1(p, fled):
        flee(p * rally, fled, b_turn_2)  # rallied, charged again in turn 2: flees again
        flee(p * (1 - rally), fled, b_turn_2)  # flees on; not charged while fleeing

    flee(Fraction(1), 0, b_turn_1)
    r = report.results
    for status, key in (("fled", "fled"), ("fleeing", "fleeing"), ("holding", "rallied")):
        assert r[f"p_{status}[Orc Boyz, turn 2]"].value == pytest.approx(float(end[key]),
                                                                          abs=1e-12), status
    assert sum(end.values()) == 1


def turns_for(**turn):
    from mathhammer.fantasy.combat.fight import make_side
    from mathhammer.fantasy.combat.turn import Turns, TurnEntry
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    a = make_side("wfb8/knights_of_the_realm", where="a", models=5, rank_width=5, charged=True)
    b = make_side("wfb8/orc_boyz", where="b", models=10, rank_width=5)
    return Turns(a, b, load_ruleset("wfb8"), TurnEntry(**turn))


def test_a_unit_that_fled_9_of_12_rallies_in_place_and_a_flight_of_4_takes_it_off():
    from mathhammer.fantasy.combat.turn import FLEE, GONE, HOLD

    tr = turns_for(distance=40, edge=12, reaction="flee", turns=2)
    fled_9 = tr.start()._replace(units=(HOLD, FLEE), room=(12.0, 3.0))
    rally = Fraction(21, 36)
    after = defaultdict(float)
    for p, s in tr.rally(fled_9, 1):
        after[s.units[1], s.room[1]] += p
    assert after[HOLD, 3.0] == pytest.approx(float(rally))  # rallied where it stopped
    assert after[FLEE, 1.0] == pytest.approx(float((1 - rally) / 36))  # a 2: 1" left
    assert after[GONE, math.inf] == pytest.approx(float((1 - rally) * 35 / 36))
    rallied = tr.start()._replace(room=(12.0, 3.0))
    gone = sum(p for p, s in tr.charge(rallied, 2) if s.units[1] == GONE)
    assert gone == pytest.approx(35 / 36)  # flees 2D6 from 3" to its edge: a 3 or more


def test_a_broken_unit_flees_from_the_combat_and_its_flight_counts():
    # 1" to the edge: a unit that breaks and gets away flees off the table at once
    from mathhammer.fantasy.combat.fight import combat, make_side

    report = run(one_turn(distance=1, edge=1))
    a = make_side("wfb8/knights_of_the_realm", where="a", models=5, rank_width=4)
    b = make_side("wfb8/orc_boyz", where="b", models=10, rank_width=5)
    fight = combat(a, b, rounds=2, charger="a", method="exact").results
    r = report.results
    escaped = fight["p_enemy_breaks"].value - fight["p_caught"].value
    assert r["p_fled[Orc Boyz, turn 1]"].value == pytest.approx(escaped, abs=1e-9)
    assert r["p_fleeing[Orc Boyz, turn 1]"].value == 0.0
    # the knights charged 1": 2" from their edge, a flight of 2 or more takes them off
    own = fight["p_own_break"].value - fight["p_own_caught"].value
    assert r["p_fled[Knights of the Realm, turn 1]"].value == pytest.approx(own, abs=1e-9)
    assert escaped > 0.05


def test_the_flee_roll_of_an_escaped_unit_is_the_roll_given_the_pursuit_fell_short():
    tr = turns_for(distance=10)
    # orcs flee 2D6, the knights pursue 3D6 keeping the best two (FB-C6)
    swift = [sum(sorted((a, b, c))[1:]) for a in range(1, 7) for b in range(1, 7)
             for c in range(1, 7)]
    weight = {f: Fraction(sum(r == f for r in two_d6()), 36)
              * Fraction(sum(x < f for x in swift), 216) for f in range(2, 13)}
    total = sum(weight.values())
    got = tr._escape_pmf(1, chased=True)
    for f, w in weight.items():
        assert got.get(f, 0.0) == pytest.approx(float(w / total), abs=1e-12), f
    caught = 1 - total  # the combat engine's own pursuit table says the same
    mask = 1 << int(tr.t.u_int[0, tr.k.U_SIDE_INDEX])
    assert tr.t.p_caught[tr.first_b, mask] == pytest.approx(float(caught), abs=1e-12)
    assert tr._escape_pmf(1, chased=False) == pytest.approx(tr.flee_pmf[1])


# ---- fb turn without a file (issue 28 item 14) --------------------------------------------

def test_options_play_the_same_turns_as_the_scenario_file_they_describe(tmp_path):
    # the bundled scenario's units, smaller, as options and as a file: the same exact answer
    from mathhammer.fantasy.scenario import turn_from_options

    data = sas_turn(12, turns=2, fire=read_toml(PATH)["turn"]["fire"])
    from_file = run(data)
    args = ["--unit-a", "wfb8/knights_of_the_realm", "--unit-b", "wfb8/orc_boyz",
            "--distance", "12", "--turns", "2", "--reaction", "stand-and-shoot",
            "--models-a", "5", "--models-b", "10", "--width-a", "4", "--width-b", "5",
            "--stand-and-shoot", "shots=10, bs=3, strength=3",
            "--fire", "a:Crossbows:shots=10,bs=3,strength=4",
            "--fire", "a:Fireball:shots=D6,strength=4,cast_dice=2,casting_value=5,level=1"]
    code, out, err = cli_result("fb", "turn", *args, "--method", "exact", "--format", "json")
    assert code == 0, err
    got = json.loads(out)["results"]
    assert got.keys() == from_file.results.keys()
    for name, est in from_file.results.items():
        assert got[name]["value"] == pytest.approx(est.value, abs=1e-12), name
    library = turn_from_options("wfb8/knights_of_the_realm", "wfb8/orc_boyz", distance=12, turns=2,
                                reaction="stand-and-shoot", models=(5, 10), widths=(4, 5),
                                stand_and_shoot="shots=10,bs=3,strength=3",
                                fire=("a:Crossbows:shots=10,bs=3,strength=4",
                                      "a:Fireball:shots=D6,strength=4,cast_dice=2,"
                                      "casting_value=5,level=1"), method="exact")
    assert {k: v.value for k, v in library.results.items()} == pytest.approx(
        {k: v.value for k, v in from_file.results.items()}, abs=1e-12)
    assert library.command == "fb turn"


def test_the_headline_is_one_short_line():
    code, out, err = cli_result("fb", "turn", "--unit-a", "wfb8/knights_of_the_realm",
                                "--unit-b", "wfb8/orc_boyz", "--distance", "14", "--turns", "1",
                                "--models-a", "5", "--models-b", "10", "--method", "exact",
                                "--brief")
    assert code == 0, err
    line = out.strip()
    assert "\n" not in line and len(line) <= 120, line
    assert line.startswith("After 1 game turn, Orc Boyz: destroyed ") and "(exact)" in line


def test_the_same_profile_on_both_sides_keeps_the_two_units_apart():
    from mathhammer.fantasy.scenario import turn_from_options

    report = turn_from_options("wfb8/orc_boyz", "wfb8/orc_boyz", distance=6, turns=1,
                               models=(10, 10), method="exact")
    a = sum(report.results[f"p_{s}[Orc Boyz (A), turn 1]"].value for s in
            ("holding", "fleeing", "fled", "destroyed"))
    b = sum(report.results[f"p_{s}[Orc Boyz (B), turn 1]"].value for s in
            ("holding", "fleeing", "fled", "destroyed"))
    assert a == pytest.approx(1.0) and b == pytest.approx(1.0)


UNITS = ["--unit-a", "wfb8/knights_of_the_realm", "--unit-b", "wfb8/orc_boyz"]


@pytest.mark.parametrize("args, flag", [
    ([], "SCENARIO"),
    (["--unit-a", "wfb8/knights_of_the_realm", "--distance", "9"], "--unit-b"),
    (UNITS, "--distance"),
    (UNITS + ["--distance", "100"], "--distance"),
    (UNITS + ["--distance", "9", "--reaction", "run"], "--reaction"),
    (UNITS + ["--distance", "9", "--turns", "9"], "--turns"),
    (UNITS + ["--distance", "9", "--models-b", "0"], "--models-b"),
    (UNITS + ["--distance", "9", "--reaction", "stand-and-shoot"], "--stand-and-shoot"),
    (UNITS + ["--distance", "9", "--reaction", "hold", "--stand-and-shoot", "shots=3,bs=3,strength=3"],
     "--stand-and-shoot"),
    (UNITS + ["--distance", "9", "--fire", "Crossbows"], "--fire"),
    (UNITS + ["--distance", "9", "--fire", "a:X:shots=10,bs=3"], "--fire"),
    (UNITS + ["--distance", "9", "--fire", "a:X:shots=10,bs=3,strength=4,range=24"], "--fire"),
    (UNITS + ["--distance", "9", "--fire", "a:X:shots=10,strength=4,cast_dice=2"], "--fire"),
    ([PATH, "--distance", "9"], "--distance"),
])
def test_bad_options_are_one_line_naming_the_option(args, flag):
    code, out, err = cli_result("fb", "turn", *args, "--n-trials", "100")
    assert code == 2 and out == ""
    assert err.startswith(f"error: {flag}: ") and len(err.strip().splitlines()) == 1, err


# ---- turns in arrays (issue 29 part 5) ------------------------------------------------------

def compiled(data):
    from pathlib import Path

    from mathhammer.fantasy.combat.turn import Turns, TurnEntry
    from mathhammer.fantasy.rules.ruleset import load_ruleset
    from mathhammer.fantasy.scenario import UnitEntry, _side

    a = _side(UnitEntry(**data["a"]), "a", Path(PATH).parent, True)
    b = _side(UnitEntry(**data["b"]), "b", Path(PATH).parent, False)
    return Turns(a, b, load_ruleset(data.get("ruleset") or "wfb8"), TurnEntry(**data["turn"]))


def house_rules(tmp_path):
    from tests.conftest import ROOT

    text = (ROOT / "mathhammer/fantasy/rules/wfb8.toml").read_text(encoding="utf-8")
    path = tmp_path / "house.toml"
    path.write_text(text.replace('stand_and_shoot_min_distance = "movement"',
                                 'stand_and_shoot_min_distance = "none"'), encoding="utf-8")
    return str(path)


def both_shoot(turns):
    data = one_turn(turns=turns, distance=12)
    data["turn"]["fire"] = read_toml(PATH)["turn"]["fire"] + [{**ORC_BOWS, "modifier": -1}]
    return data


def smaller(data):
    data["a"]["models"], data["b"]["models"] = 4, 8  # the state-by-state sum is slow
    return data


SCENARIOS = {
    "stand and shoot, crossbows and a missile, 2 turns": lambda tmp: smaller(sas_turn(
        12, turns=2, fire=read_toml(PATH)["turn"]["fire"])),
    "both sides shoot: panic and flights of either unit, 2 turns": lambda tmp: smaller(
        both_shoot(2)),
    "flee, rally, flee again, 3 turns": lambda tmp: one_turn(distance=10, turns=3,
                                                             reaction="flee", edge=14),
    "panic of a small unit, charge from turn 2": lambda tmp: shot_at(
        8, [one_shot("Crossbows"), one_shot("Archers")], turns=2),
    "stand and shoot inside M by house rule, a 1-inch edge": lambda tmp: {
        **sas_turn(4, turns=2, edge=1), "ruleset": house_rules(tmp)},
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_array_sum_equals_the_state_by_state_sum(name, tmp_path):
    from mathhammer.fantasy.combat.turn import exact_by_states, models_left_by_states
    from mathhammer.fantasy.combat.turn_arrays import exact_turns

    data = SCENARIOS[name](tmp_path)
    old, final = exact_by_states(compiled(data))
    new, summed = exact_turns(compiled(data))
    assert len(old) == len(new) == data["turn"]["turns"]
    for turn, (a, b) in enumerate(zip(old, new, strict=True), start=1):
        assert np.abs(a - b).max() <= 1e-12, (turn, a, b)
    left = models_left_by_states(compiled(data), final)
    for side in (0, 1):
        want = pmf_of(left[f"models_left_{'ab'[side]}"])
        got = dict(enumerate(summed.models_left(side).tolist()))
        assert want and all(abs(got[k] - v) <= 1e-12 for k, v in want.items())
        assert sum(v for k, v in got.items() if k not in want) <= 1e-12
    # the same states, forgotten rooms and all, but later rounds of a fight are one here
    assert 0 < summed.P.size <= len(final)
    assert old[-1][1].min() >= 0 and abs(old[-1].sum() - 2) < 1e-12


def test_monte_carlo_is_the_same_on_one_thread_or_two():
    data = both_shoot(2)
    one = run(data, method="mc", n_trials=150_000, seed=11, threads=1)
    two = run(data, method="mc", n_trials=150_000, seed=11, threads=2)
    assert {k: v.value for k, v in one.results.items()} == {k: v.value for k, v in two.results.items()}
    assert (one.distributions["models_left_b"].probs == two.distributions["models_left_b"].probs).all()


def test_default_trials_come_from_the_precision_target():
    from mathhammer.cli.fb import TURN_TRIALS
    from mathhammer.engine import trials_for_precision, wilson_halfwidth
    from mathhammer.fantasy.combat.turn import DEFAULT_PRECISION, DEFAULT_TRIALS

    assert TURN_TRIALS == DEFAULT_TRIALS == trials_for_precision(DEFAULT_PRECISION)
    assert wilson_halfwidth(np.array([0.5]), DEFAULT_TRIALS)[0] <= DEFAULT_PRECISION
    assert wilson_halfwidth(np.array([0.5]), DEFAULT_TRIALS - 1)[0] > DEFAULT_PRECISION
    data = one_turn(distance=30)  # out of reach: one fast turn
    report = run(data, method="mc", seed=1, n_trials_is_default=True)
    assert report.n_trials == DEFAULT_TRIALS
    assert run(data, method="mc", seed=1, n_trials=5000).n_trials == 5000
    # an asked precision sizes the run the same way: every interval within it
    asked = run(data, method="mc", seed=1, precision=0.01, n_trials_is_default=True)
    assert asked.n_trials == trials_for_precision(0.01)
    p = np.array([est.value for est in asked.results.values()])
    assert wilson_halfwidth(p, asked.n_trials).max() <= 0.01
    assert "as asked" in asked.info["trials"] and "the default" in report.info["trials"]


@pytest.mark.parametrize("fraction, at_start, need", [
    (0.25, 8, 2), (0.25, 9, 3), (0.3, 10, 3), (0.25, 1, 1), (0.0, 10, 2**40)])
def test_the_panic_threshold_is_the_fraction_rule(fraction, at_start, need):
    from types import SimpleNamespace

    from mathhammer.fantasy.combat.turn_arrays import panic_threshold

    rules = SimpleNamespace(combat=SimpleNamespace(panic_fraction=fraction))
    assert panic_threshold(rules, at_start) == need


@pytest.mark.parametrize("name", ["flee, rally, flee again, 3 turns",
                                  "panic of a small unit, charge from turn 2",
                                  "stand and shoot inside M by house rule, a 1-inch edge"])
def test_the_numba_walk_agrees_with_the_exact_sum(name, tmp_path):
    # the walk rolls its own dice (flee reactions caught or off the table, rallies, panic
    # tests, break flights): each figure within 5 se of the exact one, se from the exact p
    data = SCENARIOS[name](tmp_path)
    exact = run(data)
    n = 20_000
    mc = run(data, method="mc", n_trials=n, seed=5)
    for key, est in exact.results.items():
        se = math.sqrt(max(est.value * (1 - est.value), 1e-12) / n)
        assert abs(mc.results[key].value - est.value) <= 5 * se + 1e-12, key
    for dist in ("models_left_a", "models_left_b"):
        want, got = pmf_of(exact.distributions[dist]), pmf_of(mc.distributions[dist])
        for k in set(want) | set(got):
            p = want.get(k, 0.0)
            assert abs(got.get(k, 0.0) - p) <= 5 * math.sqrt(max(p * (1 - p), 1e-12) / n) + 1e-12
