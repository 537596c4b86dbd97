"""Exact battle tables shared between plans by content (issue 32, fantasy/battle/shared_tables.py):
a plan that reuses another plan's tables plays the very same battles as one that builds its own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer import game as games
from mathhammer.fantasy.battle import shared_tables
from mathhammer.lists import load_list

SMALL = {"models": 10, "champion": False, "standard": True, "musician": True}


def _list(name: str, *profiles: str):
    return load_list({"name": name, "game": "fantasy", "ruleset": "wfb8", "points": 2000,
                      "units": [{"profile": p, **SMALL} for p in profiles]})


@pytest.fixture(autouse=True)
def _fresh_store():
    """Other tests' plans and tables are left as they were found: none."""
    import mathhammer.fantasy.game as fantasy_game

    yield
    fantasy_game._thread_plans().clear()
    shared_tables.clear()


def _play(share: bool, monkeypatch, armies, enemy):
    import mathhammer.fantasy.game as fantasy_game

    monkeypatch.setenv("MATHHAMMER_SHARED_TABLES", "1" if share else "0")
    fantasy_game._thread_plans().clear()
    shared_tables.clear()
    fantasy = games.get("fantasy")
    out = [fantasy.play_battles(army, enemy, seed=3, start=0, count=3) for army in armies]
    return out, shared_tables.stats()


def test_a_plan_reusing_anothers_tables_plays_the_same_battles(monkeypatch):
    """The second list shares the Halberdiers with the first (and the first's two are one
    unit twice): with the store on, plans take those tables from it (hits), and every battle's result and margin are bit-identical
    to plans that build their own."""
    one = _list("one", "wfb8/empire_halberdiers", "wfb8/empire_halberdiers")
    two = _list("two", "wfb8/empire_halberdiers", "wfb8/empire_handgunners")
    enemy = _list("orcs", "wfb8/orc_boyz")
    own, off = _play(False, monkeypatch, (one, two), enemy)
    shared, on = _play(True, monkeypatch, (one, two), enemy)
    assert off["tables"] == 0 and on["hits"] > 0 and on["built"] > 0
    for (r0, m0), (r1, m1) in zip(own, shared, strict=True):
        assert np.array_equal(r0, r1) and np.array_equal(m0, m1)


def test_a_units_signature_is_what_it_is_not_where_it_stands():
    """Equal units at other places (index, side, label) share tables; another unit does not."""
    from dataclasses import replace

    from mathhammer.fantasy.battle.army import battle_units
    from mathhammer.fantasy.rules.ruleset import load_ruleset

    army = _list("one", "wfb8/empire_halberdiers", "wfb8/empire_halberdiers",
                 "wfb8/empire_handgunners")
    units = battle_units(army, army, load_ruleset("wfb8"))
    sig = [shared_tables.unit_signature(u) for u in units]
    assert sig[0] == sig[1] == sig[3] == sig[4]  # the second copy, and the other side's
    assert sig[2] != sig[0]
    assert shared_tables.unit_signature(replace(units[0], points=units[0].points + 1)) != sig[0]


SIGNATURES = """
import pickle, sys
from mathhammer.fantasy.battle import shared_tables
from mathhammer.fantasy.battle.army import battle_units
from mathhammer.fantasy.rules.ruleset import load_ruleset
from mathhammer.lists import load_list
army, enemy = (load_list(name) for name in ("wfb8_empire_battle", "wfb8_orcs_battle"))
if sys.argv[1] == "pickled":  # as a pool's worker receives them
    army, enemy = pickle.loads(pickle.dumps((army, enemy)))
rules = load_ruleset("wfb8")
units = battle_units(army, enemy, rules)
print(shared_tables.rules_signature(rules).hex(),
      *(shared_tables.unit_signature(u).hex() for u in units))
"""


def test_signatures_are_the_same_in_every_process():
    """Issue 32: a table carried to another process is found there only if its key is the same:
    a list unpickled in a pool's worker (other objects, another str hash salt) gets the same
    unit and ruleset signatures (a plain pickle's bytes differed: memo, set order)."""
    import os
    import subprocess
    import sys

    def signatures(how: str, salt: str) -> list[str]:
        env = {**os.environ, "PYTHONHASHSEED": salt}
        done = subprocess.run([sys.executable, "-c", SIGNATURES, how], env=env, check=True,
                              capture_output=True, text=True)
        return done.stdout.split()

    here = signatures("loaded", "1")
    assert len(here) == 13 and len(set(here[1:])) > 2  # units that differ, differ
    assert signatures("pickled", "2") == here


def test_small_tables_travel_between_processes_and_fights_stay():
    """A pool's worker hands back the values it built (once), not its compiled fights; another
    process takes them as its own."""
    shared_tables.clear()
    shared_tables.carried_in({})  # a worker: from now on it records what it builds
    value = ("value", b"rules", b"unit", b"target", 0, 1, 10, 10)
    shared_tables.put(value, 0.25, 8)
    shared_tables.put(("fight", b"rules", 1, ()), ("arrays",), 1000)
    out = shared_tables.carried_out()
    assert out == {value: 0.25}
    assert shared_tables.carried_out() == {}
    shared_tables.clear()
    shared_tables.carried_in(out)
    assert shared_tables.get(value) == 0.25


def test_the_kernels_empty_fight_containers_take_the_arrays_compile_makes():
    """kernels.battle_tables.empty_tables types its first 15 lists by hand: each must hold the
    dtype and rank compile.DTYPES / NDIMS give that fight array, or a filled table fails to
    type-check (or converts) the first time a fight is appended."""
    from mathhammer.fantasy.battle.compile import DTYPES, NDIMS, empty_tables

    items = [t._list_type.item_type for t in empty_tables()[:len(DTYPES)]]
    assert [(np.dtype(str(i.dtype)), i.ndim) for i in items] == \
        [(np.dtype(d), n) for d, n in zip(DTYPES, NDIMS, strict=True)]


def test_a_fight_is_entered_once_under_each_of_its_codes_and_shares_its_arrays():
    """kernels.battle_tables.add_fight (compile._fight's one call for a fight and its like
    fights): a code already entered is skipped, an arrangement keeps its first fight, every
    entry reads the same 15 arrays and gets its own unit order."""
    from mathhammer.fantasy.battle.compile import DTYPES, NDIMS, empty_tables
    from mathhammer.fantasy.kernels import battle_actions as ka
    from mathhammer.fantasy.kernels import battle_tables as kt

    T = empty_tables()
    arrays = tuple(np.zeros((2,) * n, d) for d, n in zip(DTYPES, NDIMS, strict=True))
    first, once = np.array([0, 3], np.int64), np.array([-1, -1], np.int64)

    def codes(*values):
        return np.array(values, np.int64)

    kt.add_fight(*T[:ka.T_VALUES], arrays, np.array([[0, 4]], np.int64), codes(11), codes(7),
                 first, once)
    # the like fights: 11 again (skipped), 12 under arrangement 7 (taken), 13 under 8, and
    # 13 once more in the same call (skipped: entered a row earlier)
    kt.add_fight(*T[:ka.T_VALUES], arrays,
                 np.array([[0, 4], [1, 4], [2, 5], [3, 5]], np.int64), codes(11, 12, 13, 13),
                 codes(7, 7, 8, 9), first, once)
    assert kt.size(T[ka.T_ORDER]) == 3
    assert [T[ka.T_FIGHTS][c] for c in (11, 12, 13)] == [0, 1, 2]
    assert dict(T[ka.T_ARRANGEMENTS]) == {7: 0, 8: 2}
    assert [list(T[ka.T_ORDER][i]) for i in range(3)] == [[0, 4], [1, 4], [2, 5]]
    for i in range(ka.T_ORDER):
        assert all(np.shares_memory(T[i][e], arrays[i]) for e in range(3))
    # each entry's first bodies and once-groups are its own copies
    T[ka.T_FIRST][0][0], T[ka.T_ONCE][0][0] = 9, 9
    assert T[ka.T_FIRST][1][0] == 0 and first[0] == 0
    assert T[ka.T_ONCE][1][0] == -1 and once[0] == -1


def test_a_forgotten_fight_comes_back_unpacked_and_plays_the_same(monkeypatch):
    """Compiled fights are kept packed (shared_tables.pack, lossless): a plan that forgets its
    fights before every battle (compile.MAX_FIGHT_BYTES -1) takes them back from the store
    without compiling one again, and plays the very battles of a plan that never forgets."""
    from mathhammer.fantasy.battle import compile as battle_compile
    from mathhammer.fantasy.battle.runner import Recipe, build_plan, run_chunk
    from mathhammer.rng import chunk_state

    armies = (_list("a", "wfb8/empire_halberdiers"), _list("b", "wfb8/orc_boyz"))
    recipe = Recipe(*armies, None, "default", 6, "a", "greedy", "greedy", 8, 1)
    monkeypatch.setenv("MATHHAMMER_SHARED_TABLES", "1")
    shared_tables.clear()
    kept = run_chunk(build_plan(recipe), 6, chunk_state(5, 0))
    fights = [v for k, (v, _n) in shared_tables._TABLES.items() if k[0] == "fight"]
    assert fights and all(isinstance(v, bytes) for v in fights)
    arrays, _first, _once = shared_tables.unpack(fights[0])
    wounds = battle_compile.WOUNDS_TABLES  # kept as its distinct blocks and their index
    assert all(isinstance(a, np.ndarray) for i, (_key, a) in enumerate(arrays) if i != wounds)
    assert all(isinstance(a, np.ndarray) for a in arrays[wounds][1])
    built = shared_tables.stats()["built"]
    monkeypatch.setattr(battle_compile, "MAX_FIGHT_BYTES", -1)  # forget before every battle
    plan = build_plan(recipe)
    forgetful = run_chunk(plan, 6, chunk_state(5, 0))
    assert plan.kernel.forgotten > 0
    assert shared_tables.stats()["built"] == built  # every fight unpacked, none compiled
    for key in kept:
        assert np.array_equal(kept[key], forgetful[key]), key


@pytest.mark.parametrize("policy", ["greedy", "best-response"])
def test_a_table_entered_for_like_units_plays_the_same_battles(monkeypatch, policy):
    """A table built for one unit is entered for its like units (the same contents: two
    Halberdiers, two Boyz): the kernel then asks for fewer tables, and every battle is the
    same as when each pair's tables are looked up when asked (compile.ENTER_ALIKE off)."""
    from mathhammer.fantasy.battle import compile as battle_compile
    from mathhammer.fantasy.battle.runner import Recipe, build_plan, run_chunk
    from mathhammer.rng import chunk_state

    armies = (_list("a", "wfb8/empire_halberdiers", "wfb8/empire_halberdiers"),
              _list("b", "wfb8/orc_boyz", "wfb8/orc_boyz"))
    recipe = Recipe(*armies, None, "default", 6, "roll-off", policy, "greedy", 2, 1)
    runs = {}
    for alike in (False, True):
        monkeypatch.setattr(battle_compile, "ENTER_ALIKE", alike)
        shared_tables.clear()
        plan = build_plan(recipe)
        runs[alike] = run_chunk(plan, 4, chunk_state(7, 0)), plan.kernel.misses
    (off, asked_off), (on, asked_on) = runs[False], runs[True]
    assert asked_on < asked_off
    for key in off:
        assert np.array_equal(off[key], on[key]), key


def test_a_runs_workers_read_each_others_tables_from_its_folder(tmp_path):
    """fb battle's worker processes write what they build to the run's folder and read what
    another wrote (shared_tables.share_through): the very table, a fight's packed bytes too;
    a key that only shares a file name with another is not taken; no folder, no file."""
    key = ("value", b"a unit", b"another", 2, True)
    table = np.arange(5.0)
    try:
        shared_tables.share_through(str(tmp_path))
        assert shared_tables.put(key, table, table.nbytes) is table
        assert len(list(tmp_path.iterdir())) == 1
        shared_tables.clear()  # another process: nothing in memory
        read = shared_tables.get(key)
        assert np.array_equal(read, table) and shared_tables.stats()["read"] == 1
        fight = ("fight", b"rules", 1, ((b"unit", 0, 0, True),))
        blob = shared_tables.pack((table, 3))
        shared_tables.put(fight, blob, len(blob))
        shared_tables.clear()
        assert shared_tables.get(fight) == blob
        other = ("value", b"a unit", b"someone else", 2, True)
        mine = Path(shared_tables._path(key))
        Path(shared_tables._path(other)).write_bytes(mine.read_bytes())  # digests collide
        assert shared_tables.get(other) is None
    finally:
        shared_tables.share_through(None)
    shared_tables.clear()
    assert shared_tables.get(key) is None  # the folder is no longer read
    shared_tables.put(("value", b"x"), table, table.nbytes)
    assert len(list(tmp_path.iterdir())) == 3  # nor written
    shared_tables.clear()


def test_a_battle_on_two_workers_is_the_same_sharing_tables_or_not(monkeypatch, tmp_path):
    """Two worker processes sharing their tables through the run's folder play the battles
    they play building their own; the workers wrote tables there (this process did not), and
    the folder is gone after the run."""
    import tempfile

    from mathhammer.fantasy.battle import distributed
    from tests.conftest import assert_same_tallies, empire_orcs

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the run's folder goes here
    held = []

    class Folder(tempfile.TemporaryDirectory):
        def cleanup(self):
            held.append(len(list(Path(self.name).iterdir())))
            super().cleanup()

    monkeypatch.setattr(tempfile, "TemporaryDirectory", Folder)
    recipe = empire_orcs("greedy")

    def tallied(share: bool) -> dict:
        monkeypatch.setattr(distributed, "WORKERS_SHARE_TABLES", share)
        shared_tables.clear()
        return distributed.run(recipe, 150, 4, workers=2)[0]

    assert_same_tallies(tallied(False), tallied(True))
    assert len(held) == 1 and held[0] > 0  # one folder (sharing on), tables written to it
    assert list(tmp_path.iterdir()) == [] and shared_tables._FOLDER[0] is None
