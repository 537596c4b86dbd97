"""``fb battle``: the generals (FB-B10), the two engines, Dask — paired where it can be."""

from __future__ import annotations

import math

import pytest

from mathhammer.fantasy.battle.compare import battle_difference
from mathhammer.fantasy.battle.report import battle


def test_the_kernel_and_the_reference_engine_agree():
    """The numba kernel and the Python step machine play the same rules: P(A wins) and
    P(B wins) of a scripted mirror-free battle agree within 5 se of their difference
    (independent runs, N = 300 each)."""
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    recipe = Recipe(load_list("wfb8_dwarfs"), load_list("wfb8_orcs"), None, "default", 3, "a",
                    "scripted", "scripted", 1, 1)
    n = 300
    kernel = run(recipe, n, 4)[0]["outcome"] / n
    reference_plan = build_plan(recipe)
    reference_plan.engine = "python"
    reference = run(recipe, n, 5, plan=reference_plan)[0]["outcome"] / n
    for k in (0, 2):
        se = math.sqrt((kernel[k] * (1 - kernel[k]) + reference[k] * (1 - reference[k])) / n)
        assert abs(kernel[k] - reference[k]) <= 5 * max(se, 1e-3), (kernel, reference)
    assert kernel[0] + kernel[2] > 0.2


def test_greedy_reports_its_first_decisions():
    report = battle("wfb8_empire", "wfb8_orcs", turns=2, n_trials=20, seed=2)
    first = report.info["first_decisions"]
    assert {f["side"] for f in first} == {"A", "B"}
    for entry in first:
        assert len(entry["options"]) >= 2
        assert all(o["se"] == 0.0 for o in entry["options"])  # exact one-step values
        assert entry["unit"] and entry["kind"] in ("charge", "reaction", "move", "shoot", "pursue")


def test_adding_a_unit_raises_the_chance_to_win(tmp_path):
    """Three dwarf units against the orcs win more often than two (paired on the same
    battle streams, greedy generals, N = 600 — 300 left it at 2.9 se once challenges were
    played, FB-B20): the gain is above 3 paired se."""
    lines = ['name = "Dwarfs"', 'game = "fantasy"', 'ruleset = "wfb8"', "points = 900", "",
             "[[units]]", 'profile = "wfb8/dwarf_warriors"', "count = 3"]
    three = tmp_path / "three.toml"
    three.write_text("\n".join(lines) + "\n")
    diff = battle_difference(str(three), "wfb8_orcs", list_a_y="wfb8_dwarfs", turns=4,
                             n_trials=600, seed=8)
    gain = diff["p_a_wins"]
    assert gain.value > 3 * gain.se, gain


@pytest.mark.slow
def test_best_response_is_never_worse_than_greedy_or_scripted():
    """Side A best-responds (8 rollouts) against greedy B; the same battles with A greedy, and
    with A scripted: A's mean VP margin is not lower (within 5 paired se), N = 100."""
    for other in ("greedy", "scripted"):
        diff = battle_difference("wfb8_empire", "wfb8_orcs", turns=6, n_trials=100, seed=3,
                                 policy_a=("best-response", other), rollouts=8)
        margin = diff["mean_vp_margin"]
        assert margin.value > -5 * margin.se, (other, margin)


def test_best_response_lists_the_values_of_its_first_decision():
    """Its first decision it played out (a volley of the handgunners here; moves stay greedy's
    and are not listed as its own), each option with its rollouts' mean and se."""
    report = battle("wfb8_empire", "wfb8_orcs", turns=2, n_trials=4, seed=1,
                    policy_a="best-response", rollouts=2)
    entry = next(f for f in report.info["first_decisions"] if f["side"] == "A")
    assert entry["policy"].startswith("best-response") and entry["kind"] != "move"
    assert len(entry["options"]) >= 2 and all("se" in o for o in entry["options"])


def test_the_same_answer_on_dask():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        kwargs = dict(turns=2, policy_a="scripted", policy_b="scripted", n_trials=60, seed=3)
        local = battle("wfb8_dwarfs", "wfb8_orcs", **kwargs)
        remote = battle("wfb8_dwarfs", "wfb8_orcs", scheduler=client, **kwargs)
        assert local.to_dict()["results"] == remote.to_dict()["results"]
    finally:
        client.close()
        cluster.close()


def test_the_answer_does_not_depend_on_the_tables_already_built():
    """The probe pass (a missing table: play on with a placeholder, build every table the
    battle asked for, play it again) gives the same battles as stopping at each miss, cold
    or after other battles built tables: greedy against a best response, same seed."""
    import numpy as np

    from mathhammer.fantasy.battle.compile import KernelBattle
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    recipe = Recipe(load_list("wfb8_empire"), load_list("wfb8_orcs"), None, "default", 3,
                    "roll-off", "best-response", "greedy", 2, 1)
    tallies = []
    for probing, warm_seed in ((False, None), (True, None), (True, 11)):
        plan = build_plan(recipe)
        plan.kernel = KernelBattle(plan, probing=probing)
        if warm_seed is not None:
            run(recipe, 3, warm_seed, plan=plan)
        tallies.append(run(recipe, 4, 5, plan=plan)[0])
    for other in tallies[1:]:
        for key, value in tallies[0].items():
            assert np.array_equal(other[key], value), key


def test_forgetting_the_fights_between_battles_keeps_the_answer(monkeypatch):
    """The memory bound (compile.MAX_FIGHT_BYTES) forgets every compiled fight between two
    battles; the next battle's probe pass asks for them again: the same battles, same seed."""
    import numpy as np

    from mathhammer.fantasy.battle import compile as fb_compile
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    recipe = Recipe(load_list("wfb8_empire"), load_list("wfb8_orcs"), None, "default", 3,
                    "roll-off", "best-response", "greedy", 2, 1)
    tallies, kernels = [], []
    for bound in (fb_compile.MAX_FIGHT_BYTES, 0):
        monkeypatch.setattr(fb_compile, "MAX_FIGHT_BYTES", bound)
        plan = build_plan(recipe)
        plan.kernel = fb_compile.KernelBattle(plan)
        run(recipe, 3, 11, plan=plan)
        tallies.append(run(recipe, 4, 5, plan=plan)[0])
        kernels.append(plan.kernel)
    assert kernels[0].forgotten == 0 and kernels[1].forgotten > 0
    for key, value in tallies[0].items():
        assert np.array_equal(tallies[1][key], value), key


def test_forgetting_keeps_the_fights_asked_for_again(monkeypatch):
    """Forgetting keeps the fights the battles came back to after an earlier forgetting
    (compile.HOT_FIGHT_SHARE of the bound): fewer fights are asked for again than when
    forgetting drops them all, and the battles are the same."""
    import numpy as np

    from mathhammer.fantasy.battle import compile as fb_compile
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    recipe = Recipe(load_list("wfb8_empire_battle"), load_list("wfb8_orcs_battle"), None,
                    "default", 6, "roll-off", "best-response", "greedy", 2, 1)
    monkeypatch.setattr(fb_compile, "MAX_FIGHT_BYTES", 2**18)
    tallies, kernels = [], []
    for share in (0.0, fb_compile.HOT_FIGHT_SHARE):
        monkeypatch.setattr(fb_compile, "HOT_FIGHT_SHARE", share)
        plan = build_plan(recipe)
        plan.kernel = fb_compile.KernelBattle(plan)
        tallies.append(run(recipe, 12, 5, plan=plan)[0])
        kernels.append(plan.kernel)
    dropped, kept = kernels
    assert dropped.forgotten > 1 and kept.forgotten > 1 and kept.fights_kept > 0
    # a kept fight is let go after HOT_FIGHT_SPELLS forgettings (nothing says it is used)
    assert all(0 <= spells <= fb_compile.HOT_FIGHT_SPELLS for _c, _e, spells in kept.entered)
    assert kept.fights_entered < dropped.fights_entered
    for key, value in tallies[0].items():
        assert np.array_equal(tallies[1][key], value), key


def test_a_battle_played_again_goes_on_from_its_last_step_before_the_miss(monkeypatch):
    """A battle that met a missing table is played again once the tables are built: from its
    last step before the first miss (compile.RESUME) or from its start — the same battles,
    same seed, probing or stopping at each miss."""
    import numpy as np

    from mathhammer.fantasy.battle import compile as fb_compile
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.lists import load_list

    recipe = Recipe(load_list("wfb8_empire"), load_list("wfb8_orcs"), None, "default", 3,
                    "roll-off", "best-response", "greedy", 2, 1)
    tallies = []
    for resume, probing in ((False, True), (True, True), (True, False)):
        monkeypatch.setattr(fb_compile, "RESUME", resume)
        plan = build_plan(recipe)
        plan.kernel = fb_compile.KernelBattle(plan, probing=probing)
        tallies.append(run(recipe, 4, 5, plan=plan)[0])
        if resume:
            assert plan.kernel.ck_at[0] >= 0  # the battles' states were saved as they went
    for other in tallies[1:]:
        for key, value in tallies[0].items():
            assert np.array_equal(other[key], value), key


def test_a_best_response_played_again_keeps_its_clean_rollouts(monkeypatch):
    """A best response played again after its tables are built keeps the rollouts that found
    every table (compile.KEEP_CLEAN_ROLLOUTS) and plays only those that met a placeholder:
    the same battles and first-decision values as playing every rollout again, fewer played."""
    import numpy as np

    from mathhammer.fantasy.battle import compile as fb_compile
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import Recipe, build_plan
    from mathhammer.fantasy.kernels.battle_actions import W_BR_KEY
    from mathhammer.fantasy.kernels.battle_play import BRK_KEPT, BRK_PLAYED
    from mathhammer.lists import load_list

    recipe = Recipe(load_list("wfb8_empire"), load_list("wfb8_orcs"), None, "default", 3,
                    "roll-off", "best-response", "greedy", 2, 1)
    # no fight forgotten between battles: a forgotten fight is asked again only by the
    # rollouts played again, which would change the passes (not the battles)
    monkeypatch.setattr(fb_compile, "MAX_FIGHT_BYTES", 2**40)
    tallies, firsts, counts = [], [], []
    for keep in (False, True):
        monkeypatch.setattr(fb_compile, "KEEP_CLEAN_ROLLOUTS", keep)
        plan = build_plan(recipe)
        plan.kernel = fb_compile.KernelBattle(plan)
        tallies.append(run(recipe, 4, 5, plan=plan)[0])
        firsts.append(plan.kernel.first_decisions(np.arange(8, dtype=np.uint64)))
        key = plan.kernel.W[W_BR_KEY]
        counts.append((int(key[BRK_PLAYED]), int(key[BRK_KEPT])))
    for key, value in tallies[0].items():
        assert np.array_equal(tallies[1][key], value), key
    assert np.array_equal(firsts[0], firsts[1])
    (played_off, kept_off), (played_on, kept_on) = counts
    assert kept_off == 0 and kept_on > 0
    assert played_on + kept_on == played_off  # the same rollouts asked for, fewer played


def test_no_rollout_is_kept_from_a_main_line_that_met_a_placeholder(monkeypatch):
    """Played again from its start (compile.RESUME off), a probe pass plays each battle on
    past its first placeholder: the best responses after it start from a state the real
    battle may not reach, so none keeps its rollouts — the same battles as keeping none."""
    from mathhammer.fantasy.battle import compile as fb_compile
    from mathhammer.fantasy.battle.distributed import run
    from mathhammer.fantasy.battle.runner import build_plan
    from tests.conftest import assert_same_tallies, empire_orcs

    monkeypatch.setattr(fb_compile, "RESUME", False)
    recipe = empire_orcs("best-response")

    def tallied(keep: bool) -> dict:
        monkeypatch.setattr(fb_compile, "KEEP_CLEAN_ROLLOUTS", keep)
        plan = build_plan(recipe)
        plan.kernel = fb_compile.KernelBattle(plan)
        return run(recipe, 4, 5, plan=plan)[0]

    assert_same_tallies(tallied(False), tallied(True))


def test_iterations_change_nothing_without_a_best_response():
    """‹iterations› is read only by a best response: greedy vs greedy with 3 iterations is the
    same battles, on the same engine (it once switched to the reference engine: another
    sample for the same seed)."""
    kwargs = dict(turns=1, n_trials=30, seed=2)
    one = battle("wfb8_empire", "wfb8_orcs", iterations=1, **kwargs).to_dict()
    three = battle("wfb8_empire", "wfb8_orcs", iterations=3, **kwargs).to_dict()
    assert one["results"] == three["results"]
    assert one["info"]["decisions"] == three["info"]["decisions"]
