"""List tuning on whole battles (issue 32 parts 1, 3): score/diff/tune with ``model = "battle"``.

A toy game of roll-offs plays battles through the same shared code, so its P(win) is checked
against the exact roll-off odds (5 se from the exact p before the run, TU-B1); the Warmachine
tests play wm battle's battles: a list against itself differs by exactly 0 ± 0, the shooter's
removal lowers P(win), the local pool and a Dask cluster give the same battles, and tune's
best list is never worse than the input (paired)."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from pydantic import Field

from mathhammer import game as games
from mathhammer.errors import InputError
from mathhammer.lists import ListUnit, load_list
from mathhammer.tuning import diff_lists, load_meta, score_list
from mathhammer.tuning import battles as tb
from mathhammer.tuning.tune import tune_list
from tests.conftest import cli_result


# ------------------------------------------------------------------ a toy game with battles
def roll_off(a: int, b: int) -> tuple[Fraction, Fraction]:
    """P(a d6 beat b d6) and P(a tie), by enumeration."""
    win = tie = 0
    for faces in product(range(1, 7), repeat=a + b):
        d = sum(faces[:a]) - sum(faces[a:])
        win += d > 0
        tie += d == 0
    n = 6 ** (a + b)
    return Fraction(win, n), Fraction(tie, n)


class Pool:
    def __init__(self, id, dice, points):
        self.id, self.name, self.dice, self.points = id, id.split("/")[1].title(), dice, points


POOLS = {p.id: p for p in (Pool("duel/pair", 2, 10), Pool("duel/trio", 3, 15))}


class Duel(games.Game):
    """A battle is one roll-off of all of a list's dice against all of the other's."""

    name = "duel"
    rulesets = ("classic",)
    entry_fields = {"bonus": (int, Field(0, ge=0, le=2))}

    def load_profile(self, ref):
        return POOLS[ref]

    def owns(self, profile):
        return isinstance(profile, Pool)

    def list_unit(self, key, entry, profile, ruleset, label):
        return ListUnit(label, profile, entry.count, profile.points, {})

    def has_battles(self):
        return True

    def play_battles(self, army_a, army_b, *, seed, start, count, policy_a="greedy",
                     policy_b="greedy", turns=None):
        dice = [sum(u.profile.dice * u.count for u in x.units) for x in (army_a, army_b)]
        result, margin = np.zeros(count, np.int8), np.zeros(count)
        for k in range(count):
            rng = np.random.default_rng([seed, start + k])
            d = int(rng.integers(1, 7, dice[0]).sum()) - int(rng.integers(1, 7, dice[1]).sum())
            result[k], margin[k] = np.sign(d), d
        return result, margin


@pytest.fixture
def duel(tmp_path):
    games.register(Duel())
    for name, units in {"duel_a": "duel/pair", "duel_b": "duel/trio"}.items():
        (tmp_path / f"{name}.toml").write_text(
            f'name = "{name}"\ngame = "duel"\nruleset = "classic"\npoints = 40\n'
            f'[[units]]\nprofile = "{units}"\n')
    (tmp_path / "meta.toml").write_text(
        f'game = "duel"\nruleset = "classic"\n[[lists]]\nlist = "{tmp_path / "duel_b.toml"}"\n')
    yield tmp_path
    games.unregister("duel")


def test_score_on_battles_of_a_toy_game_meets_the_exact_odds(duel):
    """TU-B1 through the shared code only: P(win) and P(draw) within 5 se of the exact roll-off."""
    n = 4000
    p_win, p_tie = (float(x) for x in roll_off(2, 3))
    report = score_list(str(duel / "duel_a.toml"), str(duel / "meta.toml"), n_battles=n, seed=5,
                        workers=1)
    assert report.command == "tuning.battles"  # the default where the game has battles
    for key, p in (("p_win", p_win), ("p_draw", p_tie)):
        se = math.sqrt(p * (1 - p) / n)  # from the exact p, before the run
        assert abs(report.results[key].value - p) < 5 * se, key
    # the VP margin is the mean of 2d6 − 3d6: −3.5 exactly, se from the exact variance
    se_margin = math.sqrt(5 * 35 / 12 / n)
    assert abs(report.results["mean_vp_margin"].value + 3.5) < 5 * se_margin


def test_a_toy_list_against_itself_differs_by_exactly_zero(duel):
    same = diff_lists(str(duel / "duel_a.toml"), str(duel / "duel_a.toml"), str(duel / "meta.toml"),
                      n_battles=200, seed=1, workers=1)
    for name in tb.FIGURES:
        e = same.results[f"delta_{name}[B-A]"]
        assert (e.value, e.se) == (0.0, 0.0), name


# ------------------------------------------------------------------ Warmachine battles
def test_wm_diff_of_a_list_with_itself_is_exactly_zero_on_battles():
    report = diff_lists("khador_battlebox", "khador_battlebox", "mk2_battleboxes", n_battles=20,
                        seed=3, workers=1)
    assert report.command == "tuning.battles.diff"
    for name in tb.FIGURES:
        e = report.results[f"delta_{name}[B-A]"]
        assert (e.value, e.se) == (0.0, 0.0), name
    assert "the same" in report.headline


def test_removing_the_shooter_lowers_p_win_on_battles():
    """The Charger (Dual Cannon, RNG 12) of the Cygnar battle box against the Khador lists:
    the list without it, on the same dice battle by battle, wins less often (by > 2 paired se)."""
    army = load_list("cygnar_battlebox")
    fewer = tb.replace(army, units=tuple(u for u in army.units if u.profile_id != "cygnar/charger"))
    report = diff_lists(army, fewer, "mk2_khador_mirror", n_battles=60, seed=11, workers=1)
    d = report.results["delta_p_win[B-A]"]
    assert d.value < -2 * d.se, (d.value, d.se)


@pytest.mark.slow  # ~70 s on a loaded 2-core machine: two fb battle plans are built first
def test_removing_the_handgunners_lowers_p_win_on_fantasy_battles(tmp_path):
    """fb battle's battles (TU-B1): the Empire battle line without its two units of Handgunners,
    against the Orc battle line on the same dice battle by battle, wins less often (by > 2
    paired se) — the shooting the battles play is worth something. 100 battles: the
    difference is ~0.24, its paired se ~0.07 (30 battles left it within 2 se)."""
    if not games.get("fantasy").has_battles():
        pytest.skip("this build has no Fantasy battles")
    army = load_list("wfb8_empire_battle")
    fewer = tb.replace(army, units=tuple(u for u in army.units
                                         if u.profile_id != "wfb8/empire_handgunners"))
    meta = tmp_path / "orcs.toml"
    meta.write_text('name = "orcs"\ngame = "fantasy"\nruleset = "wfb8"\n'
                    '[[lists]]\nlist = "wfb8_orcs_battle"\n')
    report = diff_lists(army, fewer, str(meta), n_battles=100, seed=11, workers=1)
    d = report.results["delta_p_win[B-A]"]
    assert d.value < -2 * d.se, (d.value, d.se)


def test_per_unit_contribution_is_the_paired_difference_without_it():
    report = score_list("cygnar_battlebox", "mk2_khador_mirror", n_battles=20, seed=2,
                        per_unit=True, workers=1)
    army = load_list("cygnar_battlebox")
    fewer = tb.replace(army, units=tuple(u for u in army.units if u.profile_id != "cygnar/charger"))
    d = diff_lists(fewer, army, "mk2_khador_mirror", n_battles=20, seed=2, workers=1)
    assert report.results["contribution_p_win[Charger]"].value == d.results["delta_p_win[B-A]"].value
    assert any("cannot fight without it" in row for row in report.info["contributions"])


def test_local_pool_and_dask_play_the_same_battles():
    distributed = pytest.importorskip("distributed")
    army, meta = load_list("khador_battlebox"), load_meta("mk2_battleboxes")
    books = []
    inline = tb.Book(meta, 9, runner=tb.Runner(workers=1))
    inline.fill([army], 60)
    books.append(inline)
    pool = tb.Runner(workers=2)
    pool.pool_from = 0  # a pool even for a few battles
    try:
        book = tb.Book(meta, 9, runner=pool)
        book.fill([army], 30)
        book.fill([army], 60)  # the book extends: battles 30..59 only
        books.append(book)
        # one job is cut over this process and a helper (tb._split): the same battles
        job = ("warmachine", tb._canonical(army), meta.lists[0], book.seeds[0], 0, 60, "greedy",
               "greedy", None)
        [cut] = pool.run([job])
        assert pool._pool is not None
        assert np.array_equal(cut[0], inline.outcomes(army, 0, 60)[0])
        assert np.array_equal(cut[1], inline.outcomes(army, 0, 60)[1])
    finally:
        pool.close()
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        book = tb.Book(meta, 9, runner=tb.Runner(scheduler=client))
        book.fill([army], 60)
        books.append(book)
    finally:
        client.close()
        cluster.close()
    for i in range(len(meta.lists)):
        first = books[0].outcomes(army, i, 60)
        for other in books[1:]:
            got = other.outcomes(army, i, 60)
            assert np.array_equal(first[0], got[0]) and np.array_equal(first[1], got[1])


def test_a_cut_job_plays_each_of_its_battles_once():
    job = ("g", "army", "enemy", 5, 30, 45, "greedy", "greedy", None)
    pieces, owner = tb._split([job, job[:4] + (0, 12) + job[6:]], 3)
    assert owner == [0, 0, 0, 1]  # 12 battles: no piece under tb.SMALLEST
    assert [(p[4], p[5]) for p in pieces] == [(30, 15), (45, 15), (60, 15), (0, 12)]
    assert all(p[:4] == job[:4] and p[6:] == job[6:] for p in pieces)


def test_tune_on_battles_is_never_worse_than_the_input_and_prints_a_clean_table():
    report = tune_list("khador_battlebox", "khador_battlebox", "mk2_battleboxes", max_lists=12,
                       n_battles=40, seed=4, workers=1, top=3)
    ranked = report.info["ranked"]
    best = ranked[0]
    assert best["gain"] >= 0.0  # the input is a candidate, ranked by its paired gain
    assert report.results["delta_expected_result[#1-input]"].value >= 0.0
    from mathhammer.present.render import info_table_lines

    lines = info_table_lines(ranked)
    text = "\n".join(lines)
    assert not re.search(r"\{'|np\.|\d\.\d{5,}|e-\d", text), text  # no reprs, no float noise
    # greedy battles choose focus themselves and never read a listed charge (WM-B11): no
    # candidate is named by a change its battles do not play
    assert not re.search(r"focus|charge", " ".join(c["changes"] for c in ranked)), ranked
    for value, se in re.findall(r"([+-]?\d+(?:\.\d+)?) ± (\d+(?:\.\d+)?)", text):
        digits = len(se.split(".")[1]) if "." in se else 0
        assert (len(value.split(".")[1]) if "." in value else 0) == digits, (value, se)


# ------------------------------------------------------------------ choosing the model
def test_model_is_checked_and_cells_stay_available():
    with pytest.raises(InputError, match="must be battle or cells"):
        score_list("khador_battlebox", "mk2_battleboxes", model="war")
    cells = score_list("khador_battlebox", "mk2_battleboxes", model="cells", method="mc", n_trials=200, seed=1)
    assert "points_destroyed_per_turn" in cells.results


def test_a_fantasy_list_without_the_battle_engine_scores_on_cells_or_says_why():
    fantasy = games.get("fantasy")
    if fantasy.has_battles():
        pytest.skip("this build has Fantasy battles")
    report = score_list("wfb8_empire", "wfb8_infantry", n_trials=200, seed=1)
    assert report.command == "score"  # cells, the default without battles
    code, _, err = cli_result("score", "wfb8_empire", "--meta", "wfb8_infantry", "--model", "battle")
    assert code == 2
    assert err.count("\n") == 1 and "Fantasy battles are not available" in err
    assert "--model cells" in err


def test_bad_battle_options_are_one_line():
    for args, where in ((["--battles", "3"], "--battles"), (["--battle-policy", "wild"], "--battle-policy"),
                        (["--turns", "0"], "--turns")):
        code, _, err = cli_result("score", "khador_battlebox", "--meta", "mk2_battleboxes", *args)
        assert code == 2, args
        assert err.count("\n") == 1 and where in err, err


def test_a_shooting_unit_scores_points_destroyed_on_cells():
    """TU-C1: Warmachine cells play the list's mode and count boxes marked, so the Charger's
    ranged activation (its Dual Cannon: chip damage on heavy warjacks, rarely a kill)
    destroys more than 0 points against the Khador lists."""
    report = score_list("cygnar_battlebox", "mk2_khador_mirror", model="cells", method="mc", n_trials=500,
                        seed=1)
    e = report.results["points_destroyed_per_turn[Charger]"]
    assert e.value > 5 * e.se > 0


def test_a_fantasy_shooting_unit_scores_its_volleys_on_cells():
    """TU-C1: the Handgunners (a [ranged] handgun, shooting-only in score) fire one exact
    volley per target: expected models slain / the target's models x its points, more than 0."""
    from fractions import Fraction as F

    report = score_list("wfb8_empire_gunline", "wfb8_infantry", model="cells", n_trials=200, seed=1)
    e = report.results["points_destroyed_per_turn[Handgunners]"]
    assert e.value > 0 and e.se == 0  # every volley is exact (auto: exact where it can)
    # one volley by hand: 10 handguns (two ranks of 5), BS3 hits on 4+, S4 vs T4 wounds on 4+,
    # the Orc Boyz' 5+ (light armour, shield) less 1 for S4 and 1 for armour piercing: no save;
    # 2.5 of 20 Orc Boyz slain on average
    rows = [r for r in report.info["p_kill"] if r.startswith("Handgunners → Orc Boyz mob: Orc Boyz")]
    assert rows and f"share destroyed {100 * float(F(10, 4) / 20):.1f}%" in rows[0], rows


def test_cell_settings_on_battles_are_refused_in_one_line():
    """--n-trials, --precision and --rounds size cells: on battles (the default model) they
    are refused with one line naming --battles or --turns, never silently ignored."""
    lists = {"score": ["khador_battlebox"], "diff": ["khador_battlebox", "khador_battlebox"],
             "tune": ["khador_battlebox", "--options", "khador_battlebox"]}
    cases = [(["--n-trials", "2000"], "--battles"), (["--precision", "0.01"], "--battles"),
             (["--rounds", "1"], "--turns"), (["--method", "exact"], "--model cells")]
    for command, args in lists.items():
        for extra, fix in cases:
            if command == "tune" and extra[0] == "--precision":
                continue  # tune takes no --precision at all
            code, out, err = cli_result(command, *args, "--meta", "mk2_battleboxes", *extra)
            assert code == 2, (command, extra, out)
            assert err.count("\n") == 1 and extra[0] in err and fix in err, err
    for command in lists:  # and each option's help says so
        code, out, _ = cli_result(command, "--help")
        assert "On battles: refused; use --battles." in " ".join(out.split()), command


def test_max_lists_caps_the_lists_played_on_battles():
    """Issue 32: --max-lists counts distinct lists (the input included); the screening round
    plays no more than the cap leaves (it used to finish a round of 10 for a cap of 4)."""
    report = tune_list("khador_battlebox", "khador_battlebox", "mk2_battleboxes", max_lists=4,
                       n_battles=40, seed=4, workers=1, top=3)
    assert report.info["lists_evaluated"] <= 4
    assert len(report.info["ranked"]) <= 4
    meta = load_meta("mk2_battleboxes")
    assert report.info["battles_played"] <= 4 * 40 * len(meta.lists)  # nothing played past the cap


def test_fb_battle_plays_a_count_of_two_as_two_entries_of_one():
    """tune merges equal entries (`merge_equal_entries`): that changes no battle, because fb
    battle plays an entry of count 2 as the two units two entries of one would be (same
    labels, same order once the book sorts the entries), battle by battle on the same dice."""
    if not games.get("fantasy").has_battles():
        pytest.skip("this build has no Fantasy battles")
    base = {"name": "x", "game": "fantasy", "ruleset": "wfb8", "points": 1100}
    captain = {"profile": "wfb8/empire_captain", "joins": "Halberdiers", "general": True}
    one = load_list({**base, "units": [{"profile": "wfb8/empire_halberdiers", "count": 2},
                                       {"profile": "wfb8/empire_handgunners"}, captain]})
    two = load_list({**base, "units": [{"profile": "wfb8/empire_halberdiers"},
                                       {"profile": "wfb8/empire_handgunners"},
                                       {"profile": "wfb8/empire_halberdiers", "models": 20},
                                       captain]})
    fantasy, enemy = games.get("fantasy"), load_list("wfb8_orcs_battle")
    a = fantasy.play_battles(tb._canonical(one), enemy, seed=5, start=0, count=8)
    b = fantasy.play_battles(tb._canonical(two), enemy, seed=5, start=0, count=8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert len(set(a[1])) > 1  # battles that differ: the dice matter, so equality means something


@pytest.mark.slow  # ~1 min on 2 busy cores: each Dask thread builds its own fb battle kernel
def test_fantasy_score_on_battles_is_the_same_on_dask(tmp_path):
    """Issue 32 (speed): the Dask path equals the local path for the same seed — `score` of
    a Fantasy list on fb battles, 60 battles (two blocks of the book, on two threads of one
    Dask worker: each thread builds its own battle kernel), every figure and se identical."""
    distributed = pytest.importorskip("distributed")
    if not games.get("fantasy").has_battles():
        pytest.skip("this build has no Fantasy battles")
    meta = tmp_path / "orcs.toml"
    meta.write_text('name = "orcs"\ngame = "fantasy"\nruleset = "wfb8"\n'
                    '[[lists]]\nlist = "wfb8_orcs_battle"\n')
    kw = dict(n_battles=60, seed=13, turns=2)
    local = score_list("wfb8_empire_battle", str(meta), workers=1, **kw)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        remote = score_list("wfb8_empire_battle", str(meta), scheduler=client, **kw)
    finally:
        client.close()
        cluster.close()
    values = {k: (e.value, e.se) for k, e in local.results.items()}
    assert values == {k: (e.value, e.se) for k, e in remote.results.items()}
    assert local.results["p_win"].se > 0  # Monte Carlo battles, not a constant


def test_a_list_whose_only_damage_is_a_war_machine_scores_on_cells(tmp_path):
    """TU-C1: a lone Great Cannon (`[machine] fires = "cannon"`) fires one shot a turn on
    cells by the artillery engine: more than 0 points destroyed, exactly fb artillery's
    expected models slain over the target's models x its points; a charge at the cannon
    counts it when it is destroyed (FB-WM1), so the list also loses points."""
    from mathhammer.fantasy.artillery.query import artillery
    from mathhammer.fantasy.artillery.shot import Shot

    (tmp_path / "cannon.toml").write_text(
        'name = "a lone cannon"\ngame = "fantasy"\nruleset = "wfb8"\npoints = 120\n'
        '[[units]]\nprofile = "wfb8/empire_great_cannon"\n')
    (tmp_path / "orcs.toml").write_text(
        'name = "orcs"\ngame = "fantasy"\nruleset = "wfb8"\n[[lists]]\nlist = "wfb8_orcs"\n')
    report = score_list(str(tmp_path / "cannon.toml"), str(tmp_path / "orcs.toml"),
                        model="cells", seed=1)
    destroyed = report.results["points_destroyed_per_turn"]
    assert destroyed.value > 0 and destroyed.se == 0  # every cannon shot is exact
    assert report.results["points_lost_per_turn"].value > 0
    orcs = load_list("wfb8_orcs")
    shot = artillery("cannon", "wfb8/orc_boyz", ruleset="wfb8", shot=Shot("cannon", bs=3),
                     method="exact").results["mean_models_slain"].value
    by_hand = 0.0
    n = sum(u.count for u in orcs.units)
    for u in orcs.units:
        one = artillery("cannon", u.profile, ruleset="wfb8", shot=Shot("cannon", bs=3),
                        method="exact").results["mean_models_slain"].value
        by_hand += u.count / n * one / u.profile.formation.models * u.points
    assert shot > 0
    assert destroyed.value == pytest.approx(by_hand, rel=1e-9)
