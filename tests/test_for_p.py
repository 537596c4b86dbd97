"""`--for-p` (issue 12 part 7): the fewest attacks whose chance reaches the target is the
first n with p(n) >= target — checked against the engines called at n and n - 1."""

from __future__ import annotations

import json

import pytest

from mathhammer.fantasy.chain import AttackSpec
from mathhammer.fantasy.chain_query import chain_report
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
    from mathhammer.fantasy.chain_query import chain_for_p

    spec = AttackSpec(ws=4, target_ws=2, strength=7, toughness=2, close_combat=True)
    with pytest.raises(InputError, match="can never happen"):
        chain_for_p(spec, "wfb8", 0.2, at_least=4, models=1)
    report = chain_for_p(spec, "wfb8", 0.2, at_least=1, models=1)
    assert report.results["attacks_needed"].value == 1
