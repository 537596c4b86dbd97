"""Issue 12 part 1: the exact ``optimal`` is never beaten by a habit (WM-F5).

Over random duels of the bundled profiles — damaged targets, every focus level, charge
must / may / no, knocked-down or engaged targets — the exact value of ``optimal`` on the
full state is ≥ the exact value of every ``fixed`` variant (boost hit and/or damage,
``--buy`` caps) and of ``greedy`` (within 1e-9), for both objectives. The two cases the
issue reported are pinned. The default run draws 60 duels; ``make test-slow`` draws 600
more, fresh heavy grids included.
"""

from __future__ import annotations

import random

import pytest

from mathhammer.profiles import bundled_ids
from mathhammer.warmachine.activation import build_graph
from mathhammer.warmachine.duel import activation_from_profile, duel, target_from_profile
from mathhammer.warmachine.exact_policy import solve_full
from mathhammer.warmachine.models import load_warmachine
from mathhammer.warmachine.policy import OptionTables

PROFILES = [load_warmachine(i) for i in bundled_ids("warmachine")]
ATTACKERS = [p for p in PROFILES if any(w.kind == "melee" for w in p.weapons)]


def _case(rng: random.Random, heavy: bool):
    attacker = rng.choice(ATTACKERS)
    target = rng.choice(PROFILES)
    allowance = 3 if attacker.is_warjack else int(attacker.stats.focus)
    focus = rng.randint(0, allowance)
    charge = rng.choice(["no", "may", "must"] if focus or not attacker.is_warjack else ["no", "may"])
    if target.grid:
        heights = [len(c) for c in target.grid]
        left_max = sum(heights) if heavy else 10
        while True:  # random starting damage from the top of each column (WM-G7)
            damaged = [rng.randint(0, h) for h in heights]
            if 0 < sum(heights) - sum(damaged) <= left_max:
                break
    else:
        damaged = rng.randint(0, int(target.boxes) - 1) if heavy else rng.randint(
            max(0, int(target.boxes) - 12), int(target.boxes) - 1)
    return (attacker.id, target.id, focus, charge, damaged, rng.random() < 0.2,
            rng.random() < 0.2)


def _values(attacker, target, focus, charge, damaged, knocked, engaged, objective):
    base = load_warmachine(target).base
    spec = activation_from_profile(attacker, focus, charge, target_base=base)
    tgt = target_from_profile(target, damaged, knocked, engaged=engaged)
    graph = build_graph([spec])
    opts = OptionTables.build(graph, tgt)
    best = solve_full(graph, tgt, "optimal", objective, opts=opts).value
    habits = {}
    for bh, bd in ((False, False), (True, False), (False, True), (True, True)):
        habits[f"fixed bh={bh} bd={bd}"] = solve_full(graph, tgt, "fixed", objective, bh, bd,
                                                      opts=opts).value
    habits["greedy"] = solve_full(graph, tgt, "greedy", objective, opts=opts).value
    for buy in (0, 1):
        capped = activation_from_profile(attacker, focus, charge, target_base=base,
                                         max_bought=buy)
        g = build_graph([capped])
        habits[f"fixed buy={buy}"] = solve_full(g, tgt, "fixed", objective, True, False).value
        # a buy cap restricts the optimum too: the full optimum must beat it
        habits[f"optimal buy={buy}"] = solve_full(g, tgt, "optimal", objective).value
    return best, habits


def _check(case, objective):
    best, habits = _values(*case, objective)
    worse = {k: v for k, v in habits.items() if v > best + 1e-9}
    assert not worse, (case, objective, best, worse)


DEFAULT = [_case(random.Random(1000 + i), heavy=False) for i in range(60)]
SLOW = [_case(random.Random(5000 + i), heavy=True) for i in range(600)]


@pytest.mark.parametrize("case", DEFAULT, ids=lambda c: f"{c[0]}-{c[1]}-f{c[2]}-{c[3]}")
def test_optimal_beats_every_habit(case):
    _check(case, "destroy" if DEFAULT.index(case) % 3 else "damage")


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=lambda c: f"{c[0]}-{c[1]}-f{c[2]}-{c[3]}")
def test_optimal_beats_every_habit_many_more(case):
    _check(case, "destroy")
    _check(case, "damage")


def test_the_two_cases_the_issue_reported():
    """Exact, fresh Ironclad, no charge: fixed gave 48.66% against optimal 48.33%; damaged
    target, 1 focus: fixed --buy 1 gave 99.95% against optimal 99.53%."""
    kw = dict(method="exact")
    fresh_opt = duel("khador/juggernaut", "cygnar/ironclad", focus=3, **kw)
    fresh_fixed = duel("khador/juggernaut", "cygnar/ironclad", focus=3, policy="fixed", **kw)
    assert fresh_fixed.results["p_destroyed"].value == pytest.approx(0.48658, abs=5e-5)
    assert fresh_opt.results["p_destroyed"].value >= fresh_fixed.results["p_destroyed"].value
    hurt = dict(focus=1, damaged=[4, 5, 6, 6, 5, 0], **kw)
    opt = duel("khador/juggernaut", "cygnar/ironclad", **hurt)
    fixed = duel("khador/juggernaut", "cygnar/ironclad", policy="fixed", buy=1, **hurt)
    assert fixed.results["p_destroyed"].value == pytest.approx(0.99949, abs=5e-5)
    assert opt.results["p_destroyed"].value >= fixed.results["p_destroyed"].value
    # the decision that the box model got wrong: with M crippled the target is DEF 7, so
    # no boost beats boost hit — shown with the value of both alternatives
    line = next(x for x in opt.info["decision states"] if x.startswith("Ice Axe [focus 1"))
    assert "no boost 99.9" in line and "boost hit 99.53%" in line and line.endswith("→ no boost")
