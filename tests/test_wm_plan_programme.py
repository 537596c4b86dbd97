"""WM-P1: ``wm plan``'s programme — who activates next decided after seeing the last
activation — against the plans fixed before the dice, and its exact values against Monte
Carlo of the same decisions."""

from __future__ import annotations

import math
import random

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.warmachine.duel import target_from_profile
from mathhammer.warmachine.effects import has_feat_effect
from mathhammer.warmachine.plan import _Builder, candidates, fixed_value, members_of, plan_turn

BATTLEGROUPS = {
    "khador": ["khador/sorscha", "khador/juggernaut", "khador/destroyer"],
    "cygnar": ["cygnar/stryker", "cygnar/ironclad", "cygnar/lancer", "cygnar/charger"],
    "cryx": ["cryx/deneghra", "cryx/slayer", "cryx/deathripper", "cryx/defiler"],
    "protectorate": ["protectorate/kreoss", "protectorate/crusader", "protectorate/repenter",
                     "protectorate/revenger"],
}
WARCASTERS = ["khador/sorscha", "cygnar/stryker", "cryx/deneghra", "protectorate/kreoss"]


def p(report) -> float:
    return report.results["p_destroyed"].value


def fixed_optimum(refs, target, upkeep=0) -> float:
    """The best plan fixed before the dice: every split, order, mode and feat solved."""
    members, caster = members_of(refs)
    builder = _Builder(members, caster, target, None, upkeep)
    budget = int(members[caster].prof.stats.focus) - upkeep
    return max(fixed_value(builder, plan, target, "destroy") for plan in
               candidates(members, caster, budget, has_feat_effect(members[caster].prof)))


def random_case(rng: random.Random, jacks: int):
    faction = rng.choice(sorted(BATTLEGROUPS))
    caster, *warjacks = BATTLEGROUPS[faction]
    refs = [caster] + rng.sample(warjacks, jacks)
    target = rng.choice([t for t in WARCASTERS if not t.startswith(faction)])
    tgt = target_from_profile(target, camped_focus=rng.randint(0, 3),
                              damaged=rng.randint(0, 8))
    return refs, tgt, rng.randint(0, 2)


@pytest.mark.parametrize("seed, jacks", [(1, 1), (2, 1), (3, 1), (4, 1), (5, 2)])
def test_the_plan_is_at_least_every_fixed_plan(seed, jacks):
    # a damage track: the programme's optimum is exact, and a plan fixed before the dice
    # is one of its policies — so it is never below the best fixed plan (1e-12)
    refs, tgt, upkeep = random_case(random.Random(seed), jacks)
    plan = plan_turn(refs, tgt, upkeep=upkeep, top=1)
    assert p(plan) >= fixed_optimum(refs, tgt, upkeep) - 1e-12, (refs, tgt.name)


def test_a_warcaster_alone_is_its_own_duel():
    from mathhammer.warmachine.duel import duel

    tgt = target_from_profile("cygnar/stryker", camped_focus=2)
    plan = plan_turn(["khador/sorscha"], tgt, top=1)
    best = max(p(duel("khador/sorscha", "cygnar/stryker", focus=6, camped_focus=2,
                      may_charge=True, feat=feat, method="exact")) for feat in (False, True))
    assert p(plan) == pytest.approx(best, abs=1e-12)


@pytest.fixture(scope="module")
def battle_box_plan():
    # four models: who goes second depends on what Stryker did (boxes left)
    return plan_turn(["cygnar/stryker", "cygnar/ironclad", "cygnar/lancer", "cygnar/charger"],
                     target_from_profile("khador/sorscha"), top=2)


def test_the_plan_reads_as_a_rule_with_how_often(battle_box_plan):
    lines = battle_box_plan.info["plan"]
    assert lines[0].startswith("focus: ") and lines[1].startswith("1. ")
    rule = [line for line in lines if " otherwise " in line]
    assert rule, lines  # somewhere the next model depends on the dice
    for line in rule:  # each choice's share adds up to the situation's
        total = float(line.split("(")[1].split("%")[0])
        shares = [float(part.split("(")[-1].split("%")[0]) for part in line.split("; ")]
        assert sum(shares) == pytest.approx(total, abs=0.02 * len(shares))
    assert "then as the dice fall" in battle_box_plan.headline


def test_the_adaptive_plan_agrees_with_monte_carlo(battle_box_plan):
    n = 40_000
    mc = plan_turn(["cygnar/stryker", "cygnar/ironclad", "cygnar/lancer", "cygnar/charger"],
                   target_from_profile("khador/sorscha"), top=1, method="mc",
                   config=MonteCarloConfig(n, seed=29, threads=1))
    assert mc.method == "mc" and mc.info["plan"] == battle_box_plan.info["plan"]
    v = p(battle_box_plan)
    assert abs(p(mc) - v) <= 5 * math.sqrt(v * (1 - v) / n)
    damage = battle_box_plan.results["mean_damage"].value
    sd = battle_box_plan.distributions["damage"].variance ** 0.5
    assert abs(mc.results["mean_damage"].value - damage) <= 5 * sd / math.sqrt(n)


@pytest.mark.slow
def test_deciding_after_each_activation_beats_every_fixed_plan(battle_box_plan):
    # 10,368 fixed plans: the best is below the plan that looks at the boxes left
    tgt = target_from_profile("khador/sorscha")
    refs = ["cygnar/stryker", "cygnar/ironclad", "cygnar/lancer", "cygnar/charger"]
    assert p(battle_box_plan) > fixed_optimum(refs, tgt) + 1e-4


@pytest.mark.parametrize("target, kw", [("cygnar/charger", {"arm_bonus": 4}),
                                        ("cryx/slayer", {"damaged": [0, 1, 2, 2, 1, 0]})])
def test_a_grid_plan_is_exact_and_never_below_its_box_model_value(target, kw):
    # crippled systems only help the attacker: the plan on the full grid is at least its
    # value on the box-count model; its exact values agree with a Monte Carlo of the same
    # decisions (--check: one search, both engines; 5 se from the exact p)
    tgt = target_from_profile(target, **kw)
    n = 30_000
    report = plan_turn(["khador/sorscha", "khador/destroyer"], tgt, top=1, check=True,
                       config=MonteCarloConfig(n, seed=7, threads=1))
    check = report.info["check"]
    exact = {k: v["exact"] for k, v in check.items() if k.startswith("p_")}
    assert exact["p_destroyed"] >= exact["p_destroyed_box_model"] - 1e-12
    for name, v in exact.items():
        if name == "p_destroyed_box_model":
            continue
        se = math.sqrt(max(v * (1 - v), 1e-6) / n)
        assert abs(report.results[name].value - v) <= 5 * se, name


def test_a_grid_plan_with_shared_row_slots_equals_one_row_each(monkeypatch):
    # issue 29 (≤ 400 MB): the grid pass keeps a row's values and mass only while they are
    # read; the answer is the one of a pass with a row each (to 1e-12)
    import numpy as np

    from mathhammer.warmachine import adaptive

    # a chain 0 -> 1 -> 2 -> 3: a row's slot is reused once its reader is solved, never
    # while it is read (row 2 is read when row 1 is solved)
    slot, n, reset = adaptive.value_slots(np.array([4, 0, 1, 2, 4]), 4,
                                          np.array([], dtype=np.int64))
    assert n == 3 and slot[1] == slot[3] and reset[1] == 1 and slot[1] != slot[2]
    slot, n, zero = adaptive.mass_slots(np.array([4, 0, 1, 2, 4]), 4,
                                        np.array([], dtype=np.int64))
    assert n == 2 and slot[0] != slot[1] != slot[2] and zero[:4].all()

    tgt = target_from_profile("cryx/slayer", damaged=[1, 2, 3, 3, 2, 1])
    refs = ["cryx/deneghra", "cryx/defiler"]  # a feat and spells
    shared = plan_turn(refs, tgt, top=1).to_dict()["results"]

    def one_each(first, rows, kept):
        return np.arange(rows + 1), rows + 1, np.zeros(rows + 1, dtype=np.int8)

    monkeypatch.setattr(adaptive, "value_slots", one_each)
    monkeypatch.setattr(adaptive, "mass_slots", one_each)
    dense = plan_turn(refs, tgt, top=1).to_dict()["results"]
    for name, v in dense.items():
        assert abs(shared[name]["value"] - v["value"]) <= 1e-12, name
