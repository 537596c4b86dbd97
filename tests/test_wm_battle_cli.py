"""``mathhammer wm battle`` and ``run`` with ``kind = "battle"`` as a player meets them
(issue 31 parts 1, 3, 5): the answer first, the JSON keys, bad input in one line, the same
answer on one worker, two worker processes and Dask."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, cli_inprocess, ctrl_c_while_workers_run

DATA = ROOT / "tests" / "data" / "wm_battle"
SMALL = ["--n-trials", "40", "--seed", "5", "--quiet"]


def test_the_answer_comes_first_and_json_has_the_three_outcomes():
    done = cli_inprocess("wm", "battle", "khador_battlebox", "cygnar_battlebox", "--turns", "3",
                         *SMALL)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert (" beats " in first or "level within the noise" in first or " even: " in first) \
        and "±" in first and "caster kill by turn 3" in first  # which one: the test below
    assert "first-turn plans:" in done.stdout and "not_played:" in done.stdout
    done = cli_inprocess("wm", "battle", "khador_battlebox", "cygnar_battlebox", "--turns", "3",
                         *SMALL, "--format", "json")
    data = json.loads(done.stdout)
    results = data["results"]
    total = sum(results[k]["value"] for k in ("p_a_wins", "p_draw", "p_b_wins"))
    assert total == pytest.approx(1.0)
    assert data["n_trials"] == 40 and data["seed"] == 5
    for key, est in results.items():
        if key.startswith("p_"):
            assert 0.0 <= est["value"] <= 1.0, key
    assert {"p_a_caster_dead", "p_b_caster_dead", "p_destroyed_b_ironclad", "p_caster_kill"} \
        <= set(results)
    by_turn = data["info"]["by turn"]
    assert len(by_turn) == 3 and by_turn[2].startswith("turn 3: warcaster dead A ")



@pytest.mark.parametrize("wins, words", [((60, 30, 10), "A box beats B box 60.0% ± 4.9"),
                                         ((30, 60, 10), "B box beats A box 60.0% ± 4.9"),
                                         ((45, 45, 10), "are even: each wins 45.0%"),
                                         ((40, 35, 25), "level within the noise: A box wins")])
def test_the_headline_says_beats_only_past_the_noise(wins, words):
    """100 battles: 60 v 30 is 3.3 se of the difference apart, a win; 40 v 35 is 0.6 se, no
    side beats the other; equal wins are even."""
    from mathhammer.results import Estimate, Report
    from mathhammer.warmachine.battle.report import headline

    n = 100
    results = {k: Estimate.proportion(x, n) for k, x in zip(("p_a_wins", "p_b_wins", "p_draw"),
                                                             wins, strict=True)}
    results["p_caster_kill"] = Estimate.proportion(wins[0] + wins[1], n)
    report = Report("warmachine.battle", "mc", results, {}, n_trials=n, seed=1)
    text = headline(report, ("A box", "B box"), 3)
    assert words in text and f"undecided {wins[2]:.1f}%" in text
    assert (" beats " in text) == (words.endswith("± 4.9")), text

@pytest.mark.parametrize("argv, where", [
    (["wfb8_empire", "cygnar_battlebox"], "LIST_A"),
    (["khador_battlebox", "cygnar_battlebox", "--turns", "0"], "--turns"),
    (["khador_battlebox", "cygnar_battlebox", "--policy-a", "clever"], "--policy-a"),
    (["khador_battlebox", "cygnar_battlebox", "--first", "c"], "--first"),
    (["khador_battlebox", "cygnar_battlebox", "--iterations", "0"], "--iterations"),
    (["khador_battlebox", "cygnar_battlebox", "--iterations", "4"], "--iterations"),
    (["khador_battlebox", "cygnar_battlebox", "--rollouts", "0"], "--rollouts"),
    (["khador_battlebox", "cygnar_battlebox", "--plan", "best"], "--plan"),
    (["khador_battlebox", "cygnar_battlebox", "--n-trials", "0"], "--n-trials"),
    (["khador_battlebox", "no_such_list"], "list"),
])
def test_bad_input_is_one_line_exit_2(argv, where):
    done = cli_inprocess("wm", "battle", *argv, "--n-trials", "10", "--workers", "1") \
        if "--n-trials" not in argv else cli_inprocess("wm", "battle", *argv, "--workers", "1")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: ") and where in lines[0], lines
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_two_warcasters_and_a_deployment_off_the_table_are_one_line(tmp_path):
    two = tmp_path / "two.toml"
    two.write_text('name = "two"\ngame = "warmachine"\nruleset = "mk2"\npoints = 15\n'
                   '[[units]]\nprofile = "cygnar/stryker"\ncount = 2\n', encoding="utf-8")
    done = cli_inprocess("wm", "battle", "khador_battlebox", str(two), *SMALL)
    assert done.returncode == 2 and "exactly one warcaster" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    off = tmp_path / "off.toml"
    off.write_text('[a]\nJuggernaut = [60, 10]\n', encoding="utf-8")
    done = cli_inprocess("wm", "battle", "khador_battlebox", "cygnar_battlebox",
                         "--deployment", str(off), *SMALL)
    assert done.returncode == 2 and "off the 48" in done.stderr and "a.Juggernaut" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_run_plays_a_battle_scenario(tmp_path):
    scenario = tmp_path / "battle.toml"
    scenario.write_text('game = "warmachine"\nkind = "battle"\nlist_a = "khador_battlebox"\n'
                        'list_b = "cygnar_battlebox"\nturns = 2\nfirst = "a"\n', encoding="utf-8")
    done = cli_inprocess("run", str(scenario), *SMALL, "--format", "json")
    assert done.returncode == 0, done.stderr
    via_run = json.loads(done.stdout)["results"]
    done = cli_inprocess("wm", "battle", "khador_battlebox", "cygnar_battlebox", "--turns", "2",
                         "--first", "a", *SMALL, "--format", "json")
    assert json.loads(done.stdout)["results"] == via_run
    scenario.write_text('game = "warmachine"\nkind = "battle"\nlist_a = "khador_battlebox"\n'
                        'list_b = "cygnar_battlebox"\nturns = 0\n', encoding="utf-8")
    done = cli_inprocess("run", str(scenario), *SMALL)
    assert done.returncode == 2 and "--turns" in done.stderr


def test_same_seed_same_answer_on_one_and_two_worker_processes():
    from mathhammer.warmachine.battle.runner import BattleSpec, run

    spec = BattleSpec("khador_battlebox", "cygnar_battlebox", turns=2)
    one = run(spec, 200, seed=11, workers=1)
    two = run(spec, 200, seed=11, workers=2)
    assert (one.wins == two.wins).all() and (one.destroyed == two.destroyed).all()
    assert (one.caster_dead == two.caster_dead).all() and one.plans == two.plans


def test_same_seed_same_answer_on_dask():
    distributed = pytest.importorskip("distributed")
    from mathhammer.warmachine.battle.runner import BattleSpec, run

    spec = BattleSpec("khador_battlebox", "cygnar_battlebox", turns=2)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        remote = run(spec, 140, seed=12, scheduler=client)
    finally:
        client.close()
        cluster.close()
    local = run(spec, 140, seed=12, workers=1)
    assert (local.wins == remote.wins).all() and (local.destroyed == remote.destroyed).all()
    assert local.plans == remote.plans


def test_plot_draws_the_answer():
    """--plot: who wins, each warcaster's death turn by turn, warjacks destroyed; the headline
    on top, words (no result keys) on the axes."""
    from mathhammer.present.answer_plots import report_figure
    from mathhammer.present.headline import headline
    from mathhammer.warmachine.battle.query import wm_battle

    report = wm_battle("khador_battlebox", "cygnar_battlebox", turns=3, n_trials=30, seed=4,
                       workers=1)
    fig = report_figure(report)
    title = " ".join(fig._suptitle.get_text().split())
    assert title == " ".join(headline(report).replace(" ± ", "\u00a0±\u00a0").split())
    texts = " ".join(t.get_text() for ax in fig.axes for t in ax.get_yticklabels())
    assert "A juggernaut" in texts and "_" not in texts


def test_ctrl_c_stops_a_battle_run_and_its_worker_processes():
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) during a two-worker run:
    one line, exit 130, at once, and no worker process left behind (the forkserver's
    workers, its resource tracker and the forkserver itself: five processes in the group)."""
    ctrl_c_while_workers_run(["wm", "battle", "khador_battlebox", "cygnar_battlebox",
                              "--n-trials", "1000000", "--seed", "1", "--workers", "2"], 5)
