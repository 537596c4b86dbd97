"""Close combat (FB-C1..C7): hand-derived exact cases, exact engine vs Monte Carlo.

Monte Carlo tolerances are 5 standard errors computed from the exact p before the
run (never tuned): with N = 200 000 trials a probability near 0.5 is checked to
± 0.0056, so an error of about 0.6 % in any reported probability is detected.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.fantasy.combat.fight import Side, combat, make_side
from mathhammer.fantasy.models import load_unit, validate_unit

N = 200_000


def unit(**changes) -> object:
    """A plain one-model W1 unit (WS3 S3 T3 I3 A1 Ld7, no save), changed as asked."""
    data = {
        "id": "test/unit", "name": changes.pop("name", "Test"), "ruleset": "wfb8",
        "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": 3, "w": 1, "i": 3, "a": 1, "ld": 7},
        "formation": {"models": 1, "rank_width": 1}, "points": {"per_model": 5},
        "champion_extra_attacks": 1,
    }
    for key in ("stats", "formation", "saves", "weapon"):
        if key in changes:
            data[key] = {**data.get(key, {}), **changes.pop(key)}
    data.update(changes)
    return validate_unit(data, "test unit")


def exact(a, b, **kw):
    return combat(a, b, rounds=1, method="exact", **kw)


def mc(a, b, n=N, **kw):
    return combat(a, b, method="mc", config=MonteCarloConfig(n_trials=n, seed=20261202, threads=1), **kw)


def test_duel_strike_order_and_casualties_by_hand():
    """FB-C2/C3: I5 strikes first (1/4 kill); the I3 model strikes back only if alive."""
    a = unit(name="fast", stats={"i": 5})
    b = unit(name="slow")
    r = exact(a, b).results
    p_kill = Fraction(1, 2) * Fraction(1, 2)  # 4+ to hit (WS3 v WS3), 4+ to wound (S3 v T3)
    assert r["p_a_wins"].value == pytest.approx(float(p_kill))
    assert r["p_b_wins"].value == pytest.approx(float((1 - p_kill) * p_kill))
    assert r["p_both_standing"].value == pytest.approx(float((1 - p_kill) ** 2))
    assert r["p_enemy_destroyed"].value == pytest.approx(float(p_kill))


def test_equal_initiative_is_simultaneous():
    """FB-C2: equal I: both strike, both can die (both out)."""
    r = exact(unit(), unit()).results
    assert r["p_both_out"].value == pytest.approx(1 / 16)
    assert r["p_both_standing"].value == pytest.approx(9 / 16)
    assert r["p_a_wins"].value == pytest.approx(3 / 16)
    assert r["p_own_destroyed"].value == pytest.approx(1 / 4)


def test_basic_strike_order_is_initiative_even_on_the_charge(tmp_path):
    """FB-C2 (seed audit 2026-12): seed 001 strikes by Initiative only, charging or not.

    The seed's example: a WS3 S3 T3 W1 A1 I1 model charges an I5 one, one round. The
    I5 model strikes first (1/2 to hit x 1/2 to wound = 1/4); the charger strikes back
    only if alive: P(enemy destroyed) = 3/4 x 1/4 = 3/16, P(own destroyed) = 1/4.
    """
    a = unit(name="charger", stats={"i": 1}, ruleset="basic")
    b = unit(name="fast", stats={"i": 5}, ruleset="basic")
    for charger in ("a", None):
        r = exact(a, b, charger=charger, ruleset="basic").results
        assert r["p_enemy_destroyed"].value == pytest.approx(3 / 16, abs=1e-12)
        assert r["p_own_destroyed"].value == pytest.approx(1 / 4, abs=1e-12)
    # the switch stays data: a house copy of basic with chargers_strike_first = true
    from mathhammer.fantasy.rules.ruleset import RULESETS_DIR

    text = (RULESETS_DIR / "basic.toml").read_text().replace(
        "chargers_strike_first = false", "chargers_strike_first = true")
    house = tmp_path / "house.toml"
    house.write_text(text)
    r = exact(a, b, charger="a", ruleset=str(house)).results
    assert r["p_enemy_destroyed"].value == pytest.approx(1 / 4, abs=1e-12)
    assert r["p_own_destroyed"].value == pytest.approx(3 / 16, abs=1e-12)


def test_break_test_and_pursuit_by_hand():
    """FB-C4/C5/C6: nobody can wound (S1 v T10); A scores ranks +3 and standard +1.

    B (one model, Ld 7) tests Ld 7 - 4 = 3: passes on 2D6 <= 3 (3/36, the double 1
    included); a broken B is caught when 2D6 >= 2D6: (1 + 146/1296) / 2.
    """
    a = unit(name="block", stats={"s": 1, "t": 10}, formation={"models": 20, "rank_width": 5, "standard": True})
    b = unit(name="target", stats={"t": 10, "s": 1})
    r = exact(a, b).results
    p_break = Fraction(33, 36)
    p_caught = (1 + Fraction(146, 1296)) / 2
    assert r["mean_round_1_score_a_minus_b"].value == 4
    assert r["p_enemy_breaks"].value == pytest.approx(float(p_break))
    assert r["p_caught"].value == pytest.approx(float(p_break * p_caught))
    assert r["p_a_wins"].value == pytest.approx(float(p_break))


def test_old_result_names_are_refused_with_a_pointer():
    r = exact(unit(), unit()).results
    for old, new in (("p_win", "p_a_wins"), ("p_win_first_round", "p_a_wins_round_1"),
                     ("mean_combat_result", "mean_round_1_score_a_minus_b")):
        with pytest.raises(KeyError, match=new):
            r[old]


def test_steadfast_stubborn_unbreakable_unstable_daemonic():
    """FB-C5 variants on the same deterministic 4-point loss."""
    a = unit(name="block", stats={"s": 1, "t": 10}, formation={"models": 20, "rank_width": 5, "standard": True})
    ld7 = Fraction(21, 36)  # 2D6 <= 7
    stubborn = unit(stats={"t": 10, "s": 1}, special_rules=["Stubborn"])
    assert exact(a, stubborn).results["p_enemy_breaks"].value == pytest.approx(float(1 - ld7))
    deep = unit(stats={"t": 10, "s": 1}, formation={"models": 30, "rank_width": 5})
    r = exact(a, deep).results  # 6 ranks against 4: steadfast, tests Ld 7 (A scores 4 - 3 = 1 more)
    assert r["p_enemy_breaks"].value == pytest.approx(float(1 - ld7))
    unbreakable = unit(stats={"t": 10, "s": 1}, special_rules=["Unbreakable"])
    assert exact(a, unbreakable).results["p_enemy_breaks"].value == 0
    unstable = unit(stats={"t": 10, "s": 1}, formation={"models": 10, "rank_width": 10},
                    special_rules=["Unstable"])
    r = exact(a, unstable, ruleset="t9a1")
    assert r.distributions["models_left_b"].pmf == {6: 1.0}  # loses by 4: 4 wounds, no test
    r = exact(a, unstable)  # wfb8: Undead are Unstable too (decision in wfb8.toml)
    assert r.distributions["models_left_b"].pmf == {6: 1.0}
    r = exact(a, unstable, ruleset="basic")  # basic: unstable = "none": a break test on Ld 7 - 4
    assert r.results["p_enemy_breaks"].value == pytest.approx(33 / 36)
    assert "Unstable not used" in r.info["notes"]
    daemons = unit(stats={"t": 10, "s": 1, "ld": 8}, formation={"models": 10, "rank_width": 10},
                   special_rules=["Daemonic Instability"])
    r = exact(a, daemons, ruleset="t9a1")  # loses 2D6 + 4 - 8 wounds if positive
    lost = {v: 0.0 for v in range(9)}
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            lost[max(0, d1 + d2 - 4)] += 1 / 36
    for left, p in r.distributions["models_left_b"].pmf.items():
        assert p == pytest.approx(lost[10 - left])


def _assert_within_5se(mc_report, exact_report):
    for name, est in exact_report.results.items():
        p = est.value
        got = mc_report.results[name].value
        if name.startswith("p_"):
            se = math.sqrt(p * (1 - p) / N)
            assert abs(got - p) <= 5 * se + 1e-12, (name, got, p)
        else:
            se = mc_report.results[name].se
            assert abs(got - p) <= 5 * se + 1e-9, (name, got, p, se)


MATCHUPS = [
    ("wfb8/empire_halberdiers", "wfb8/orc_boyz", None, "wfb8"),
    ("wfb8/high_elf_swordmasters", "wfb8/chaos_warriors", "b", "wfb8"),
    ("wfb8/knights_of_the_realm", "wfb8/empire_halberdiers", "a", "wfb8"),
    ("wfb8/skeleton_warriors", "wfb8/dwarf_warriors", None, "wfb8"),
    ("wfb8/orc_giant", "wfb8/high_elf_spearmen", "a", "wfb8"),
    ("t9a1/wdg_warriors", "t9a1/vc_skeletons", "a", "t9a1"),
]


@pytest.mark.parametrize("a, b, charger, rules", MATCHUPS)
def test_one_round_monte_carlo_matches_exact(a, b, charger, rules):
    """Every probability within 5 SE of the exact first round (N = 200 000)."""
    ex = exact(a, b, charger=charger, ruleset=rules)
    run = mc(a, b, rounds=1, charger=charger, ruleset=rules)
    _assert_within_5se(run, ex)
    for name, dist in ex.distributions.items():
        assert run.distributions[name].max_abs_z(dist) < 6, name


def test_killing_blow_one_round_mc_matches_exact():
    """FB-W2 slay in combat (wfb8), W1 infantry targets: exact vs MC."""
    a = make_side(load_unit("wfb8/dwarf_warriors"), where="a")
    kb = a.unit.model_copy(update={"special_rules": ("Killing Blow",)})
    ex = exact(Side(kb), "wfb8/empire_halberdiers")
    _assert_within_5se(mc(Side(kb), "wfb8/empire_halberdiers", rounds=1), ex)


def test_more_rounds_only_help_to_decide():
    """FB-C7: the chance of a decision grows with the round limit; undecided shrinks."""
    one = mc("wfb8/empire_halberdiers", "wfb8/orc_boyz", n=50_000, rounds=1).results
    three = mc("wfb8/empire_halberdiers", "wfb8/orc_boyz", n=50_000, rounds=3).results
    assert three["p_both_standing"].value < one["p_both_standing"].value
    total = sum(three[k].value for k in ("p_a_wins", "p_b_wins", "p_both_standing", "p_both_out"))
    assert total == pytest.approx(1.0)


def test_same_seed_same_answer_any_threads():
    cfg1 = MonteCarloConfig(n_trials=100_000, seed=5, threads=1)
    cfg2 = MonteCarloConfig(n_trials=100_000, seed=5, threads=2)
    r1 = combat("wfb8/chaos_warriors", "wfb8/dwarf_ironbreakers", rounds=3, method="mc", config=cfg1)
    r2 = combat("wfb8/chaos_warriors", "wfb8/dwarf_ironbreakers", rounds=3, method="mc", config=cfg2)
    assert r1.to_dict()["results"] == r2.to_dict()["results"]


def test_exact_refuses_large_several_rounds():
    """41 x 41 wound states per round is past MAX_STATES: one clear error naming --method."""
    from mathhammer.errors import InputError

    big_a = make_side("wfb8/orc_boyz", where="a", models=40)
    big_b = make_side("wfb8/orc_boyz", where="b", models=40)
    with pytest.raises(InputError, match="method"):
        combat(big_a, big_b, rounds=2, method="exact")
    assert combat(big_a, big_b, rounds=1, method="exact").method == "exact"


SMALL = [
    # (A, B, charger, ruleset, models A, width A, models B, width B, rounds)
    ("wfb8/skeleton_warriors", "wfb8/dwarf_warriors", None, "wfb8", 12, 4, 8, 4, 3),
    ("wfb8/knights_of_the_realm", "wfb8/empire_halberdiers", "a", "wfb8", 5, 5, 15, 5, 3),
    ("wfb8/empire_halberdiers", "wfb8/orc_boyz", "b", "wfb8", 15, 5, 12, 4, 4),
    ("wfb8/orc_giant", "wfb8/high_elf_spearmen", "a", "wfb8", 1, 1, 15, 5, 2),
]


@pytest.mark.parametrize("a, b, charger, rules, ma, wa, mb, wb, rounds", SMALL)
def test_several_rounds_monte_carlo_matches_exact(a, b, charger, rules, ma, wa, mb, wb, rounds):
    """FB-C7: carried casualties, later-round profiles (no lance, no charge), ranks and
    steadfast after losses, instability: exact Markov chain vs MC (5 SE, N = 200 000)."""
    side_a = make_side(a, where="a", models=ma, rank_width=wa, charged=charger == "a")
    side_b = make_side(b, where="b", models=mb, rank_width=wb, charged=charger == "b")
    ex = combat(side_a, side_b, rounds=rounds, ruleset=rules, method="exact")
    run = combat(side_a, side_b, rounds=rounds, ruleset=rules, method="mc",
                 config=MonteCarloConfig(n_trials=N, seed=99, threads=1))
    _assert_within_5se(run, ex)
    for name, dist in ex.distributions.items():
        assert run.distributions[name].max_abs_z(dist) < 6, name


def test_supporting_ranks_per_ruleset():
    """FB-C1/E3: wfb8 one supporting rank (+ a spear's rank), one attack each; basic none;
    cavalry no supporting attacks (decision); the lance +2 S on the charge (FB-E6)."""
    from mathhammer.fantasy.combat.fight import compile_fight

    foe = make_side("wfb8/empire_halberdiers", where="b")
    spears = make_side("wfb8/high_elf_spearmen", where="a")
    assert compile_fight(spears, foe, ruleset="wfb8")[0].support == [3, 1]  # spear + Martial Prowess
    assert compile_fight(spears, foe, ruleset="basic")[0].support == [0, 0]
    knights = make_side("wfb8/knights_of_the_realm", where="a")
    c, _ = compile_fight(knights, foe, ruleset="wfb8")
    assert c.support[0] == 0
    assert [g.name for g in c.groups if g.unit == 0] == [
        "Knights of the Realm", "Bretonnian Warhorse", "Knights of the Realm champion",
        "Knights of the Realm champion's Bretonnian Warhorse"]  # FB-C1: the champion's mount too
    c, tables = compile_fight(make_side("wfb8/knights_of_the_realm", where="a", charged=True), foe,
                              ruleset="wfb8")
    # lance: S3+2 on the charge vs T3: WS4 v WS3 3+, wounds 2+, the 6+ save is gone
    assert tables.per_attack[0, 0, 0][0][1] == pytest.approx(2 / 3 * 5 / 6)
    # later rounds S3: 3+, 4+, then the halberdier's 6+ save
    assert tables.per_attack[0, 0, 2][0][1] == pytest.approx(2 / 3 * 1 / 2 * 5 / 6)


def test_the_cavalry_champions_mount_strikes_too():
    """Issue 28 item 5, FB-C1: 10 Knights of the Realm, 5 wide, charge 20 Orc Boyz for one
    round. Five front models in contact: 4 knights (A1) and the champion (A2), each on a
    warhorse (A1). The knights (I3) strike before the orcs (I2), so no attacker is lost first:
    knight and champion attacks WS4 vs WS3 3+ (2/3), lance S5 vs T4 3+ (2/3), the orcs' 4+
    save at -2 → 6+ (5/6): 10/27 each; a horse WS3 vs WS3 4+ (1/2), S3 vs T4 5+ (1/3), 4+ save
    (1/2): 1/12 each. Mean wounds dealt = 6 x 10/27 + 5 x 1/12 (4 horses gave 2.5556)."""
    knights = make_side("wfb8/knights_of_the_realm", where="a", models=10, rank_width=5)
    report = combat(knights, "wfb8/orc_boyz", rounds=1, charger="a", method="exact")
    want = 6 * Fraction(10, 27) + 5 * Fraction(1, 12)
    assert report.results["mean_wounds_dealt"].value == pytest.approx(float(want), abs=1e-12)
