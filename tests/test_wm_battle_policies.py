"""Who decides in a Warmachine battle (WM-B11, issue 31 part 4).

* best-response is never worse than greedy or scripted for the side that uses it: the same battles
  (the same dice streams: the runner draws the policies' seed whatever the policy) played
  both ways, the paired difference of the scores (win 1, undecided ½) at least −5 se;
* the camping choice made by best-response (best-responding on the focus choice only) is
  never worse than never camping (greedy never camps), paired the same way;
* scripted follows the list file; the report shows the options weighed at the first turn
  with their values ± se.
"""

from __future__ import annotations

import json
import math
import random

from tests.conftest import ROOT, cli_inprocess

CLOSE = str(ROOT / "tests" / "data" / "wm_battle" / "close.toml")


def _paired(options_a: tuple, n: int, turns: int = 2,
            baseline: str = "greedy") -> tuple[float, float, int]:
    from mathhammer.warmachine.battle.runner import BattleSpec, build, play_battle

    base = dict(list_a="khador_battlebox", list_b="cygnar_battlebox", turns=turns,
                deployment=CLOSE, rollouts=6)
    tried, t_pols = build(BattleSpec(policy_a="best-response", options_a=options_a, **base))
    plain, p_pols = build(BattleSpec(policy_a=baseline, **base))

    def score(state) -> float:
        return 1.0 if state.winner == 0 else 0.5 if state.winner == 2 else 0.0

    diffs = []
    for k in range(n):
        diffs.append(score(play_battle(tried, t_pols, random.Random(k)))
                     - score(play_battle(plain, p_pols, random.Random(k))))
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    return mean, sd / math.sqrt(n), sum(1 for d in diffs if d)


def test_best_response_is_never_worse_than_greedy():
    """N = 60 paired battles of 2 rounds, lines 10" apart (the choices matter at once)."""
    mean, se, differ = _paired((), 60)
    assert differ > 0  # the choices changed something: the test can fail
    assert mean >= -5 * max(se, 1.0 / 60)


def test_best_response_is_never_worse_than_scripted():
    """The same, against the list's script. N = 40 paired battles."""
    mean, se, differ = _paired((), 40, baseline="scripted")
    assert differ > 0
    assert mean >= -5 * max(se, 1.0 / 40)


def test_camping_chosen_by_best_response_is_never_worse_than_never_camping():
    """Best-response on the focus choice only (allocate, camp, run hot, as listed) against
    greedy, which never camps. N = 80 paired battles."""
    mean, se, _ = _paired((("kinds", ("focus",)),), 80)
    assert mean >= -5 * max(se, 1.0 / 80)


def test_scripted_allocates_as_the_list_says():
    from mathhammer.warmachine.battle.runner import BattleSpec, build
    from mathhammer.warmachine.battle.turn import decide_turn, start_turn

    battle, policies = build(BattleSpec("khador_battlebox", "cygnar_battlebox", 2,
                                        first="a", deployment=CLOSE, policy_a="scripted"))
    state = battle.new_state(0)
    start_turn(battle, state)
    decide_turn(battle, state, policies)
    assert state.plan["focus"] == "as listed"
    script = battle.sides[0].list_script
    for j, focus in state.plan["give"].items():
        assert focus == script[j]["focus"]
    caster = battle.sides[0].caster
    assert state.models[caster].focus == 6 - sum(state.plan["give"].values())


def test_the_first_turn_decisions_are_shown_with_their_values():
    done = cli_inprocess("wm", "battle", "khador_battlebox", "cygnar_battlebox", "--turns", "2",
                         "--deployment", CLOSE, "--policy-a", "best-response", "--rollouts",
                         "4", "--first", "a", "--n-trials", "6", "--seed", "2", "--workers", "1",
                         "--format", "json", "--quiet")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)["info"]
    lines = info["decisions at the first turn"]
    assert any(line.startswith("A moving first, posture (") for line in lines)
    assert all("±" in line and "%" in line for line in lines)
    assert info["sides"][0].endswith("policy best-response (4 rollouts per option)")


def test_an_iteration_answers_the_answer():
    """``--iterations 2`` (as fb battle): the other side in the rollouts is a best response to
    this side's greedy continuation; 3 answers that one in turn (WM-B11)."""
    from mathhammer.warmachine.battle.policies import Greedy
    from mathhammer.warmachine.battle.response import BestResponse
    from mathhammer.warmachine.battle.runner import BattleSpec, build

    _, policies = build(BattleSpec("khador_battlebox", "cygnar_battlebox", 2, deployment=CLOSE,
                                   policy_a="best-response", rollouts=2, iterations=3))
    answer = policies[0].opponent
    assert isinstance(answer, BestResponse) and answer.side == 1 and answer.iterations == 2
    assert isinstance(answer.opponent, BestResponse) and answer.opponent.side == 0
    assert isinstance(answer.opponent.opponent, Greedy)
    _, plain = build(BattleSpec("khador_battlebox", "cygnar_battlebox", 2, deployment=CLOSE,
                                policy_a="best-response", rollouts=2))
    assert not isinstance(plain[0].opponent, BestResponse)
    done = cli_inprocess("wm", "battle", "khador_battlebox", "cygnar_battlebox", "--turns", "1",
                         "--deployment", CLOSE, "--policy-a", "best-response", "--rollouts",
                         "2", "--iterations", "2", "--n-trials", "2", "--seed", "3",
                         "--workers", "1", "--format", "json", "--quiet")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["info"]["sides"][0].endswith("2 iterations)")
