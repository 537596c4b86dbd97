"""`--for-p` (issue 12 part 7): the fewest attacks whose chance reaches the target is the
first n with p(n) >= target — checked against the engines called at n and n - 1."""

from __future__ import annotations

import json

import pytest

from mathhammer.fantasy.chain.core import AttackSpec
from mathhammer.fantasy.chain.query import chain_report
from mathhammer.warmachine.chain import attack
from tests.conftest import cli_result




@pytest.mark.parametrize("target", [0.25, 0.5, 0.9])
def test_wm_attack_for_p_is_the_first_count_that_reaches_it(target):
    """A Winter-Guard-like gun (RAT 5, POW 10) at a Lancer-like target (DEF 12, ARM 16, 26 boxes)."""
    args = ["--stat", "5", "--defense", "12", "--power", "10", "--armor", "16", "--kind", "ranged",
            "--boxes", "26"]
    code, out, _ = cli_result("wm", "attack", *args, "--for-p", str(target), "--format", "json")
    assert code == 0
    n = int(json.loads(out)["results"]["attacks_needed"]["value"])

    def p(k):
        return attack(5, 12, 10, 16, kind="ranged", boxes=26, attacks=k, method="exact").results[
            "p_destroyed"].value
    assert p(n) >= target > p(n - 1)


@pytest.mark.parametrize("command, k, target", [("attack", 1, 0.9), ("attack", 4, 0.5), ("shoot", 3, 0.75)])
def test_fb_for_p_is_the_first_count_that_reaches_it(command, k, target):
    if command == "attack":
        argv = ["fb", "attack", "--ws", "4", "--target-ws", "3", "--strength", "4", "--toughness", "4",
                "--save", "5"]
        spec = AttackSpec(ws=4, target_ws=3, strength=4, toughness=4, save=5, close_combat=True)
    else:
        argv = ["fb", "shoot", "--bs", "3", "--strength", "4", "--toughness", "3", "--save", "6"]
        spec = AttackSpec(bs=3, strength=4, toughness=3, save=6, close_combat=False)
    code, out, _ = cli_result(*argv, "--at-least", str(k), "--for-p", str(target), "--format", "json")
    assert code == 0
    results = json.loads(out)["results"]
    n = int(results[f"{'attacks' if command == 'attack' else 'shots'}_needed"]["value"])

    def p(m):
        return chain_report(spec, m, "wfb8", at_least=k, method="exact").results["p_at_least"].value
    assert p(n) >= target > p(n - 1)


@pytest.mark.parametrize("argv, flag", [
    (["wm", "attack", "--stat", "5", "--defense", "12", "--power", "10", "--armor", "16", "--for-p", "0.5"],
     "--boxes"),
    (["wm", "attack", "--stat", "5", "--defense", "12", "--power", "10", "--armor", "30", "--boxes", "26",
      "--for-p", "0.9"], "even 100 attacks"),
    (["fb", "attack", "--attacks", "3", "--ws", "4", "--target-ws", "3", "--strength", "4", "--toughness",
      "4", "--for-p", "0.5"], "--attacks"),
    (["fb", "shoot", "--bs", "3", "--strength", "4", "--toughness", "3", "--for-p", "0"], "--for-p"),
    (["fb", "shoot", "--bs", "3", "--strength", "4", "--toughness", "3"], "--shots"),
])
def test_bad_for_p_questions_are_one_line(argv, flag):
    code, out, err = cli_result(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err


def test_fb_for_p_plays_the_target_models_like_the_plain_query():
    """Issue 28 item 2: 3 models of W2 cap the wounds at 6; --for-p finds the first n that
    reaches P on those models, checked against the plain query with --target-models."""
    argv = ["fb", "attack", "--ws", "4", "--target-ws", "2", "--strength", "7", "--toughness", "2",
            "--regeneration", "5", "--target-models", "3", "--target-wounds", "2", "--at-least", "5"]
    code, out, _ = cli_result(*argv, "--for-p", "0.5", "--format", "json")
    assert code == 0
    n = int(json.loads(out)["results"]["attacks_needed"]["value"])
    spec = AttackSpec(ws=4, target_ws=2, strength=7, toughness=2, regeneration=5, target_wounds=2,
                      close_combat=True)

    def p(m):
        return chain_report(spec, m, "wfb8", at_least=5, models=3, method="exact").results[
            "p_at_least"].value
    assert p(n) >= 0.5 > p(n - 1)


@pytest.mark.parametrize("command", ["attack", "shoot"])
def test_fb_for_p_refuses_a_count_the_target_cannot_take(command):
    """Issue 28 item 2: one W1 model never takes 4 wounds: one line, exit 2, no answer."""
    if command == "attack":
        argv = ["fb", "attack", "--ws", "4", "--target-ws", "2", "--strength", "7", "--toughness", "2",
                "--regeneration", "5"]
    else:
        argv = ["fb", "shoot", "--bs", "4", "--strength", "7", "--toughness", "2"]
    code, out, err = cli_result(*argv, "--target-models", "1", "--for-p", "0.203", "--at-least", "4")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--at-least" in err and "1 model of W1" in err


def test_fb_for_p_library_refuses_too():
    from mathhammer.errors import InputError
    from mathhammer.fantasy.chain.query import chain_for_p

    spec = AttackSpec(ws=4, target_ws=2, strength=7, toughness=2, close_combat=True)
    with pytest.raises(InputError, match="can never happen"):
        chain_for_p(spec, "wfb8", 0.2, at_least=4, models=1)
    report = chain_for_p(spec, "wfb8", 0.2, at_least=1, models=1)
    assert report.results["attacks_needed"].value == 1


# ------------------------------------------------------------------ issue 28 item 13: crippling
def _sequence_cripple(n, system, grid_ref, stat, power, armor, defense, kind="melee", charge=False,
                      shield=False):
    """P(system crippled) after n attacks by the fixed-sequence engine (an independent
    programme: its own outcome tables per target situation, WM-G2..G4)."""
    from mathhammer.warmachine.duel import target_from_profile
    from mathhammer.warmachine.sequence import AttackStep, run_sequence

    prof_target = target_from_profile(grid_ref)
    target = type(prof_target)(defense, armor, prof_target.grid,
                               shield_mask=prof_target.shield_mask if shield else 0)
    steps = [AttackStep(kind, stat, power, pre_boosted=charge and i == 0) for i in range(n)]
    return run_sequence(steps, target, method="exact").results[f"p_crippled_{system}"].value


@pytest.mark.parametrize("target, system, grid, extra", [
    (0.5, "M", "cygnar/ironclad", []),
    (0.9, "L", "cygnar/ironclad", ["--charge"]),
    (0.3, "C", "khador/juggernaut", []),
    (0.6, "left", "cygnar/lancer", ["--shield"]),  # the shield arm: +2 ARM until crippled
])
def test_wm_attack_for_p_cripple_is_the_first_count_that_reaches_it(target, system, grid, extra):
    stat, power, defense = 6, 17, 12
    armor = 16 if grid == "cygnar/lancer" else 18
    code, out, err = cli_result("wm", "attack", "--stat", stat, "--defense", defense, "--power",
                                power, "--armor", armor, *extra, "--for-p", target, "--cripple",
                                system, "--grid", grid, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    n = int(data["results"]["attacks_needed"]["value"])
    letter = {"left": "L"}.get(system, system)
    kw = dict(charge="--charge" in extra, shield="--shield" in extra)
    # --shield: ARM 16 + 2 while the shield system stands (the sequence target adds it)
    p_n = _sequence_cripple(n, letter, grid, stat, power, armor, defense, **kw)
    assert data["results"]["p_at_needed"]["value"] == pytest.approx(p_n, abs=1e-12)
    assert p_n >= target
    if n > 1:
        assert _sequence_cripple(n - 1, letter, grid, stat, power, armor, defense, **kw) < target


@pytest.mark.parametrize("argv, flag", [
    (["--cripple", "M", "--grid", "cygnar/ironclad"], "--cripple: goes with --for-p"),
    (["--for-p", "0.5", "--cripple", "M"], "--grid"),
    (["--for-p", "0.5", "--cripple", "M", "--grid", "cygnar/ironclad", "--boxes", "30"], "--boxes"),
    (["--for-p", "0.5", "--cripple", "H", "--grid", "cygnar/ironclad"], "no head (H)"),
    (["--for-p", "0.5", "--cripple", "M", "--grid", "cygnar/stryker"], "damage track"),
    (["--for-p", "0.5", "--cripple", "Q", "--grid", "cygnar/ironclad"], "by its letter"),
])
def test_wm_attack_for_p_cripple_bad_questions_are_one_line(argv, flag):
    code, out, err = cli_result("wm", "attack", "--stat", "6", "--defense", "12", "--power", "17",
                                "--armor", "18", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err, err


@pytest.mark.parametrize("objective, kw", [
    ("destroy", dict(damaged=[3, 4, 5, 5, 4, 0])),
    ("cripple:M", {}),
    ("cripple:cortex", dict(charge=True)),
])
def test_wm_duel_for_p_is_the_least_focus_that_reaches_it(objective, kw):
    """Every focus level is the duel's own exact value; the answer is the least level whose
    chance reaches the target (and the level below it does not)."""
    from mathhammer.warmachine.duel import duel

    def p(f):
        r = duel("khador/juggernaut", "cygnar/ironclad", focus=f, objective=objective,
                 method="exact", **kw)
        key = "p_destroyed" if objective == "destroy" else \
            f"p_crippled_{'C' if 'cortex' in objective else objective[-1]}"
        return r.results[key].value

    lowest = 1 if kw.get("charge") else 0  # a warjack's charge needs 1 focus (WM-F2)
    values = {f: p(f) for f in range(lowest, 4)}
    target = (values[lowest] + values[3]) / 2
    report = duel("khador/juggernaut", "cygnar/ironclad", for_p=target, objective=objective, **kw)
    found = int(report.results["focus_needed"].value)
    assert values[found] >= target and all(values[f] < target for f in values if f < found)
    assert report.results["p_at_needed"].value == pytest.approx(values[found], abs=1e-12)
    assert len(report.info["curve"]) == len(values)


@pytest.mark.parametrize("extra, flag", [
    (["--for-p", "0.5", "--focus", "2"], "--focus"),
    (["--for-p", "0.5", "--objective", "damage"], "--objective"),
    (["--for-p", "0.999"], "even 3 focus"),
    (["--for-p", "0.5", "--objective", "cripple:H"], "no head"),
    (["--for-p", "0.5", "--method", "mc"], "--method"),
])
def test_wm_duel_for_p_bad_questions_are_one_line(extra, flag):
    code, out, err = cli_result("wm", "duel", "khador/juggernaut", "cygnar/ironclad", *extra)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err, err


def test_cripple_objective_maximises_p_crippled_and_mc_agrees():
    """``--objective cripple:M``: the policy maximises P(M crippled) — at least the destroy
    policy's and the fixed habit's P(M crippled); its Monte Carlo run plays the same table
    (5 se from the exact p, computed before the run)."""
    import math

    from mathhammer.engine import MonteCarloConfig
    from mathhammer.warmachine.duel import duel

    kw = dict(focus=1, damaged=[0, 2, 3, 0, 0, 0])
    goal = duel("khador/juggernaut", "cygnar/ironclad", objective="cripple:M", method="exact", **kw)
    kill = duel("khador/juggernaut", "cygnar/ironclad", method="exact", **kw)
    fixed = duel("khador/juggernaut", "cygnar/ironclad", objective="cripple:M", policy="fixed",
                 boost_hit=True, method="exact", **kw)
    p = goal.results["p_crippled_M"].value
    assert p >= kill.results["p_crippled_M"].value - 1e-12
    assert p >= fixed.results["p_crippled_M"].value - 1e-12
    assert goal.headline.startswith("Juggernaut cripples Ironclad's M: ")
    n = 100_000
    tol = 5 * math.sqrt(p * (1 - p) / n)
    mc = duel("khador/juggernaut", "cygnar/ironclad", objective="cripple:M", method="mc",
              config=MonteCarloConfig(n, seed=13), **kw)
    assert abs(mc.results["p_crippled_M"].value - p) <= tol
