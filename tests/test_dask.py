"""The Dask path gives the same answers as the local pool for the same seed.

Every cell carries its own seed (cell_seed(seed, i)) and runs its Monte Carlo on one
thread, so where a cell runs cannot change its numbers: the test compares every
number of a Monte Carlo comparison and sweep, local pool vs a Dask LocalCluster.
"""

from __future__ import annotations

import pytest

distributed = pytest.importorskip("distributed")

from mathhammer.analysis import compare, sweep  # noqa: E402
from mathhammer.errors import InputError  # noqa: E402

COLUMNS = ["p_kill", "p_kill_se", "mean_damage", "mean_damage_se", "seed", "n_trials"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_compare_on_dask_equals_local(client):
    kw = dict(rounds=1, method="mc", n_trials=4_000, seed=123, both_ways=True)
    local = compare("wfb8_empire", "wfb8_greenskins_and_undead", **kw).frame
    remote = compare("wfb8_empire", "wfb8_greenskins_and_undead", scheduler=client, **kw).frame
    assert set(local["method"]) == {"mc"}
    assert local[COLUMNS].equals(remote[COLUMNS])
    assert (local["p_kill"] > 0).any()  # a real comparison, not an all-zero table


def test_adaptive_compare_on_dask_equals_local(client):
    """Issue 29 part 6: adaptive cells grow batch by batch from their own seeds."""
    kw = dict(rounds=2, method="mc", precision=0.008, seed=5, both_ways=False)
    local = compare("wfb8_empire", "wfb8_greenskins_and_undead", **kw).frame
    remote = compare("wfb8_empire", "wfb8_greenskins_and_undead", scheduler=client, **kw).frame
    assert local[COLUMNS].equals(remote[COLUMNS])
    assert local["n_trials"].max() > local["n_trials"].min()  # some cells did run on


def test_sweep_on_dask_by_address_equals_local(client):
    kw = dict(attacker_options={"focus": 3, "charge": True}, method="mc", n_trials=4_000, seed=9)
    local = sweep("khador/juggernaut", "cygnar/ironclad", "def=11..14", **kw)
    remote = sweep("khador/juggernaut", "cygnar/ironclad", "def=11..14",
                   scheduler=client.scheduler.address, **kw)
    assert local.frame[COLUMNS].equals(remote.frame[COLUMNS])
    assert local.breakpoints == remote.breakpoints


def test_score_diff_and_tune_on_dask_equal_local(client):
    """Issue 14: the list-tuning commands run their cells on the cluster with the same seeds."""
    from mathhammer.tuning import diff_lists, score_list
    from mathhammer.tuning.tune import tune_list

    def values(report):
        return {k: (v.value, v.se) for k, v in report.results.items()}

    kw = dict(method="mc", n_trials=1000, seed=21, model="cells")  # battles: test_tuning_battles
    assert values(score_list("wfb8_empire", "wfb8_infantry", **kw)) == values(
        score_list("wfb8_empire", "wfb8_infantry", scheduler=client, **kw))
    assert values(diff_lists("wfb8_empire", "wfb8_empire_gunline", "wfb8_infantry", **kw)) == values(
        diff_lists("wfb8_empire", "wfb8_empire_gunline", "wfb8_infantry", scheduler=client, **kw))
    tkw = dict(seed=4, n_trials=500, max_lists=15, budget_seconds=600, model="cells")
    local = tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", **tkw)
    remote = tune_list("wfb8_empire", "wfb8_empire", "wfb8_infantry", scheduler=client, **tkw)
    assert local.info["ranked"] == remote.info["ranked"]


def test_bad_scheduler_address_is_one_clear_error():
    with pytest.raises(InputError, match="Dask scheduler address"):
        sweep("khador/juggernaut", "cygnar/ironclad", "def=11..12", scheduler="nowhere")


def test_cli_scheduler_address_gives_the_local_answer():
    """`mathhammer sweep --scheduler tcp://...` (a separate process) against the same sweep on
    the local pool (in this process): identical JSON results for the same seed."""
    import json

    from tests.conftest import cli_inprocess, run_cli

    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       protocol="tcp", dashboard_address=None)
    try:
        args = ["sweep", "khador/juggernaut", "cygnar/ironclad", "--vary", "def=12..13",
                "--focus", "2", "--method", "mc", "--n-trials", "3000", "--seed", "4",
                "--format", "json"]
        remote = run_cli(*args, "--scheduler", cluster.scheduler_address)
        local = cli_inprocess(*args)
    finally:
        cluster.close()
    assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
    assert json.loads(remote.stdout)["results"] == json.loads(local.stdout)["results"]
