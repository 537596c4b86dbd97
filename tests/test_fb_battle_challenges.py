"""Challenges in a battle's combats (FB-K3, FB-B20): both engines, against ``fb combat``.

Monte Carlo against exact: 5 standard errors of the exact p at the run's N (never a tuned
seed); kernel against reference: 5 se of the difference of two independent runs.
"""

from __future__ import annotations

import math

from mathhammer.fantasy.battle.report import battle
from tests.test_fb_battle import one_unit_list, within

WITH_CHAMPION = dict(models=10, champion=True, standard=True, musician=True)


def _lists(tmp_path):
    a = one_unit_list(tmp_path, "halberdiers", "wfb8/empire_halberdiers", **WITH_CHAMPION)
    b = one_unit_list(tmp_path, "orcs", "wfb8/orc_boyz", **WITH_CHAMPION)
    return a, b


def _contact(a_orders: dict, b_orders: dict) -> dict:
    return {"a": [{"unit": "Halberdiers", "x": 36.0, "y": 24.0, **a_orders}],
            "b": [{"unit": "Orc Boyz", "x": 36.0, "y": 24.0, **b_orders}]}


def _exact(challenge):
    from mathhammer.fantasy.combat.fight import combat, make_side

    r = combat(make_side("wfb8/empire_halberdiers", where="a", **WITH_CHAMPION),
               make_side("wfb8/orc_boyz", where="b", **WITH_CHAMPION), rounds=2,
               method="exact", challenge=challenge).results
    return r["p_enemy_destroyed"].value, r["p_own_destroyed"].value


def test_a_refused_challenge_changes_the_combat_as_fb_combat_says(tmp_path):
    """Champions in units placed in contact, one game turn, A first: A's champion challenges,
    B's refuses (scripted orders). Both rounds are fb combat's two exact rounds with the
    refusal (the refusing champion does not fight, FB-K3), N = 3000, and the answer is
    clearly not the one without a challenge (more than 5 se away)."""
    from mathhammer.fantasy.combat.fight import ChallengeSpec

    a, b = _lists(tmp_path)
    n = 3000
    report = battle(a, b, turns=1, first="a", policy_a="scripted", policy_b="scripted",
                    deployment=_contact({"challenge": "any"}, {"answer": "refuse"}),
                    n_trials=n, seed=21)
    r = report.results
    refused = _exact(ChallengeSpec("a", response="refuse"))
    plain = _exact(None)
    got = (r["p_destroyed[B:Orc Boyz]"].value, r["p_destroyed[A:Halberdiers]"].value)
    for mc, p, q in zip(got, refused, plain, strict=True):
        assert within(mc, p, n), (got, refused)
        assert not within(q, p, n), (refused, plain)  # the rule matters in this set-up
    assert any("refuse 100%" in line for line in report.info["decisions"].lines), \
        report.info["decisions"].lines


def test_an_accepted_challenge_fights_as_fb_combat(tmp_path):
    """The same, B's champion accepts (the default answer): fb combat's exact two rounds with
    the duel (overkill counting), N = 3000."""
    from mathhammer.fantasy.combat.fight import ChallengeSpec

    a, b = _lists(tmp_path)
    n = 3000
    report = battle(a, b, turns=1, first="a", policy_a="scripted", policy_b="scripted",
                    deployment=_contact({"challenge": "Halberdiers champion"}, {}),
                    n_trials=n, seed=22)
    r = report.results
    exact = _exact(ChallengeSpec("a"))
    got = (r["p_destroyed[B:Orc Boyz]"].value, r["p_destroyed[A:Halberdiers]"].value)
    for mc, p in zip(got, exact, strict=True):
        assert within(mc, p, n), (got, exact)


def test_the_kernel_and_the_reference_engine_agree_on_challenges(tmp_path):
    """Greedy generals over two game turns with champions in contact (challenge and answer
    decisions every round without a duel): the kernel and the Python step machine agree on
    P(A wins), P(B wins) and how often a challenge is issued, within 5 se (N = 300 each)."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    a, b = _lists(tmp_path)
    recipe = Recipe(load_list(a), load_list(b), _contact({}, {}), "test", 2, "a", "greedy",
                    "greedy", 1, 1)
    n = 300
    plans = [build_plan(recipe), build_plan(recipe)]
    plans[1].engine = "python"
    tallies = [run(recipe, n, 4 + k, plan=plan)[0] for k, plan in enumerate(plans)]
    kernel, reference = (t["outcome"] / n for t in tallies)
    for k in (0, 2):
        se = math.sqrt((kernel[k] * (1 - kernel[k]) + reference[k] * (1 - reference[k])) / n)
        assert abs(kernel[k] - reference[k]) <= 5 * max(se, 1e-3), (kernel, reference)
    issued = [sum(int(t["decisions"][i]) for key, i in plans[0].vocabulary.items()
                  if key[1] == "challenge" and key[3] != "no challenge") for t in tallies]
    answered = [sum(int(t["decisions"][i]) for key, i in plans[0].vocabulary.items()
                    if key[1] == "answer") for t in tallies]
    assert issued[0] > 0 and answered[0] > 0  # the new decisions are taken
    rate = [x / n for x in issued]
    se = math.sqrt((rate[0] + rate[1]) / n)  # Poisson-like counts per battle
    assert abs(rate[0] - rate[1]) <= 5 * max(se, 1e-3), rate


def test_best_response_plays_challenge_decisions(tmp_path):
    """A best-response general takes the challenge decisions too (rollouts), in both engines,
    and the report lists them."""
    a, b = _lists(tmp_path)
    for engine_iterations in (1, 2):  # 1: the kernel; 2: the reference engine
        report = battle(a, b, turns=1, first="a", policy_a="best-response", policy_b="greedy",
                        deployment=_contact({}, {}), n_trials=10, seed=3, rollouts=2,
                        iterations=engine_iterations)
        lines = report.info["decisions"].lines
        assert any(": challenge (" in line for line in lines), lines


def test_a_reference_best_response_replays_the_decision_it_weighs(tmp_path, monkeypatch):
    """The reference engine's best response (iterations 2) copies the state from inside the
    decision and replays the step with each option forced: the forced decision must be the
    one weighed. B goes first and challenges, so A's best response weighs its answers (and
    the other side's issue stage); the stage used to be cleared before the decision, and the
    replay forced the answer's index onto B's challenge (a wrong option, or an IndexError)."""
    from mathhammer.fantasy.battle import actions, phases, policies

    weighed: list[str] = []  # the decisions best responses are weighing, innermost last
    replaying: list[str | None] = []  # a forced step's decision, until it is met
    pairs: list[tuple[str, str]] = []
    decide, choose, step = actions.decide, policies.BestResponse.choose, phases.step

    def checked_decide(plan, state, side, options, forced):
        if forced is not None and replaying and replaying[-1] is not None:
            pairs.append((replaying[-1], options[0].kind))
            replaying[-1] = None  # greedy's own look-ahead decisions come later
        return decide(plan, state, side, options, forced)

    def recorded_choose(self, state, side, kind, options):
        weighed.append(kind)
        try:
            return choose(self, state, side, kind, options)
        finally:
            weighed.pop()

    def checked_step(plan, state, forced=None):
        replaying.append(weighed[-1] if forced is not None and weighed else None)
        try:
            return step(plan, state, forced)
        finally:
            replaying.pop()

    monkeypatch.setattr(actions, "decide", checked_decide)
    monkeypatch.setattr(policies.BestResponse, "choose", recorded_choose)
    monkeypatch.setattr(phases, "step", checked_step)
    a, b = _lists(tmp_path)
    battle(a, b, turns=1, first="b", policy_a="best-response", policy_b="greedy",
           deployment=_contact({}, {"challenge": "any"}), n_trials=6, seed=5, rollouts=1,
           iterations=2)
    assert ("answer", "answer") in pairs, pairs  # the case that went wrong is played
    assert all(w == k for w, k in pairs), [p for p in pairs if p[0] != p[1]]


def test_a_pairing_compiled_once_gives_each_challenge_its_own_value(tmp_path, monkeypatch):
    """Greedy's challenge values (FB-B10, FB-B20) compile a pairing once for all its
    challenges (combat_values._challenge_fight: only the challenge row differs): every value
    equals the one from compiling the fight with that very challenge, bit for bit, whatever
    the order they are asked in."""
    from mathhammer.fantasy.battle import combat_values
    from mathhammer.fantasy.battle.challenge_values import exact_challenge_value
    from mathhammer.fantasy.battle.challenges import able_bodies
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.fantasy.combat.fight import compile_fight
    from mathhammer.lists import load_list

    a, b = _lists(tmp_path)
    recipe = Recipe(load_list(a), load_list(b), _contact({}, {}), "test", 2, "a", "greedy",
                    "greedy", 1, 1)
    plan = build_plan(recipe)
    ba, bt = able_bodies(plan, 0)[0], able_bodies(plan, 1)[0]
    full = plan.units[0].models
    cases = [(charged, ma, issuer, mode) for ma in (full, full // 2) for charged in (0, 1)
             for issuer in (1, 0) for mode in (1, 2)]

    def values_of(p):
        return [exact_challenge_value(p, 0, 1, 0, bool(charged), ma, plan.units[1].models,
                                      ba, bt, issuer, mode) for charged, ma, issuer, mode in cases]

    shared = values_of(plan)
    assert len(plan._pairing_fights) == 4  # one compile a (charged, size) pairing

    def compiled_with_the_challenge(p, _pairing, sides, charged, challenge):
        return compile_fight((sides[0],), (sides[1],), charger="a" if charged else None,
                             ruleset=p.rules, challenge=challenge)

    monkeypatch.setattr(combat_values, "_challenge_fight", compiled_with_the_challenge)
    assert values_of(build_plan(recipe)) == shared
    assert len(set(shared)) > 1  # the challenges' values differ: the row is not lost
