"""Flame cannons (FB-R6), multi-barrel cannons (FB-R7), scattering templates (DICE-7),
misfire tables per ruleset, the cannon's front-edge rule and targets from raw stats.

Hand computations in exact fractions; Monte Carlo within 5 standard errors of the exact
p (N = 200 000: ± 0.0042 at p = 1/6) and means within 5 of their standard errors.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.artillery.query import artillery, compile_shot
from mathhammer.fantasy.artillery.fire import hits_pmf, line_models, volley_plan
from mathhammer.fantasy.models import validate_unit
from mathhammer.fantasy.rules.ruleset import RULESETS_DIR
from tests.conftest import cli_inprocess, run_json

N = 200_000
CFG = MonteCarloConfig(n_trials=N, seed=19, threads=1)
INCH = 20 / 25.4  # a 20 mm base in inches


def target(models=20, width=5, t=3, w=1, armour=None, regeneration=None, ruleset="wfb8"):
    saves = {k: v for k, v in (("armour", armour), ("regeneration", regeneration)) if v}
    return validate_unit({
        "id": "test/target", "name": "Target", "ruleset": ruleset, "base": "20mm",
        "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": t, "w": w, "i": 3, "a": 1, "ld": 7},
        "saves": saves, "formation": {"models": models, "rank_width": width},
        "points": {"per_model": 5}}, "test target")


def to_hit_t9a(tmp_path: Path) -> str:
    """t9a1 as T9A 1.2+: artillery = "to_hit" (flame throwers by ranks)."""
    text = (RULESETS_DIR / "t9a1.toml").read_text().replace('artillery = "template"',
                                                           'artillery = "to_hit"')
    path = tmp_path / "t9a12.toml"
    path.write_text(text)
    return str(path)


def close(est, p: float, n: int = N) -> None:
    assert abs(est.value - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12, (est.value, p)


def mean_close(mc_est, exact_value: float) -> None:
    assert abs(mc_est.value - exact_value) <= 5 * mc_est.se + 1e-12, (mc_est.value, exact_value)


def engines_agree(exact, mc) -> None:
    for name, est in exact.results.items():
        if name.startswith("p_"):
            close(mc.results[name], est.value)
        elif name.startswith("mean_"):
            mean_close(mc.results[name], est.value)
    for name, dist in exact.distributions.items():
        assert mc.distributions[name].max_abs_z(dist) < 6, name


# ---- FB-R6: flame template (wfb8, t9a1 1.0-1.1) ------------------------------------------------
def test_flame_template_moves_the_artillery_die_along_a_file():
    """One file of ten 20 mm bases (0.787" deep each, 7.87" in all); muzzle 2" short.
    Face 2: tip on the front edge, the 8" template covers all ten; face 4: tip 2" in,
    ranks from the 3rd (its back edge 2.36") on: 8; face 6: from the 6th (4.72"): 5;
    face 8: from the 8th (6.30"): 3; face 10: the tip 8" in, past the last (7.87"): 0."""
    unit = target(10, 1)
    setup_hits = artillery("flame-cannon", unit, muzzle=2).info[
        "models hit by artillery face 2, 4, 6, 8, 10"]
    assert setup_hits == "10, 8, 5, 3, 0"
    r = artillery("flame-cannon", unit, muzzle=2).results
    # S5 v T3: 2+ (5/6), no save; mean wounds = (10 + 8 + 5 + 3) / 6 × 5/6
    assert r["mean_unsaved_wounds"].value == pytest.approx(26 / 6 * 5 / 6, abs=1e-9)
    assert r["mean_models_hit"].value == pytest.approx(26 / 6, abs=1e-9)
    assert r["p_misfire"].value == pytest.approx(1 / 6, abs=1e-12)  # the artillery die's
    assert r["p_own_destroyed"].value == pytest.approx(1 / 18, abs=1e-12)  # black powder 1-2


@pytest.mark.parametrize("muzzle, side_files_hit", [(2.86, False), (2.89, True), (3.0, True),
                                                    (2.5, False)])
def test_flame_template_widens_from_its_tip(muzzle, side_files_hit):
    """One rank of three 20 mm bases; face 2 puts the tip u = muzzle − 2 in front of it.
    The template (8" long, 3" wide end) widens by 1.4595/6.1538 = 0.2372 per inch from the
    tip (tangent points of a 1.5" circle 6.5" away), so a side base (inner edge 0.3937")
    is touched at its back edge when u + 0.787 ≥ 0.3937 / 0.2372, i.e. u ≥ 0.873."""
    r = 1.5
    d = 8.0 - r
    sin_a = math.sqrt(1 - (r / d) ** 2)
    slope = r * sin_a / (d - r * r / d)
    u_min = (INCH / 2) / slope - INCH
    assert u_min == pytest.approx(0.873, abs=1e-3)
    hits = artillery("flame-cannon", target(3, 3), muzzle=muzzle).info[
        "models hit by artillery face 2, 4, 6, 8, 10"]
    assert hits == ("3" if side_files_hit else "1") + ", 0, 0, 0, 0"


def test_flame_is_flaming_no_regeneration():
    """FB-V2: a flaming hit allows no Regeneration: S5 v T3 with regeneration 4+ still 5/6."""
    unit = target(10, 1, regeneration=4)
    r = artillery("flame-cannon", unit, muzzle=2).results
    assert r["mean_unsaved_wounds"].value == pytest.approx(26 / 6 * 5 / 6, abs=1e-9)


def test_flame_template_engines_agree():
    unit = target(25, 5, t=4, armour=5)
    engines_agree(artillery("flame-cannon", unit, method="exact"),
                  artillery("flame-cannon", unit, method="mc", config=CFG))


def test_flame_in_a_ruleset_without_it_is_one_line():
    out = cli_inprocess("fb", "artillery", "flame-cannon", "wfb8/orc_boyz", "--ruleset", "basic")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "ruleset basic has no flame-cannon" in out.stderr


# ---- FB-R6: T9A 1.2+ Flame Thrower by ranks -----------------------------------------------------
def test_t9a_flame_thrower_d3_hits_per_rank(tmp_path):
    """12 models 5 wide: ranks 5, 5, 2; D3 hits each, the last at most 2: mean hits when it
    fires 2 + 2 + (1/3 + 2·2/3) = 17/3; a natural 1 misfires (1/6), then the Misfire Table
    at −1: faces 1-3 → 1-2 destroyed (1/2), 4-5 → jammed (1/3), 6 → malfunction (1/6)."""
    rules = to_hit_t9a(tmp_path)
    unit = target(12, 5, ruleset="t9a1")
    setup = compile_shot("flame-cannon", unit, ruleset=rules)
    assert line_models(setup) == [5, 5, 2]
    pmf = hits_pmf([5, 5, 2])
    assert sum(h * p for h, p in pmf.items()) == Fraction(17, 3)
    r = artillery("flame-cannon", unit, ruleset=rules).results
    assert r["mean_models_hit"].value == pytest.approx(5 / 6 * 17 / 3, abs=1e-9)
    assert r["p_own_destroyed"].value == pytest.approx(1 / 12, abs=1e-12)
    assert r["p_jammed"].value == pytest.approx(1 / 18, abs=1e-12)
    assert r["p_malfunction"].value == pytest.approx(1 / 36, abs=1e-12)
    # S4 v T3: 3+ (2/3); short range S5: 2+ (5/6) and Multiple Wounds (D3) on W1 = 1 wound
    assert r["mean_unsaved_wounds"].value == pytest.approx(5 / 6 * 17 / 3 * 2 / 3, abs=1e-9)
    near = artillery("flame-cannon", unit, ruleset=rules, short_range=True).results
    assert near["mean_unsaved_wounds"].value == pytest.approx(5 / 6 * 17 / 3 * 5 / 6, abs=1e-9)
    engines_agree(artillery("flame-cannon", target(23, 4, t=4, w=2, ruleset="t9a1"),
                            ruleset=rules, method="exact"),
                  artillery("flame-cannon", target(23, 4, t=4, w=2, ruleset="t9a1"),
                            ruleset=rules, method="mc", config=CFG))


# ---- FB-R7: multi-barrel cannons ----------------------------------------------------------------
def test_organ_gun_by_hand():
    """wfb8 organ fire: two artillery dice. Both MISFIRE 1/36 (the black powder table);
    one MISFIRE 10/36: the other die's shots (mean 6) at −1 (BS 3: 5+, 1/3); otherwise the
    sum (mean 12) at 4+ (1/2). Mean hits 25/36·12·1/2 + 10/36·6·1/3 = 170/36."""
    unit = target(20, 5)
    r = artillery("multi-barrel", unit).results
    assert r["p_misfire"].value == pytest.approx(1 / 36, abs=1e-12)
    assert r["p_own_destroyed"].value == pytest.approx(1 / 108, abs=1e-12)
    assert r["p_one_misfire_die"].value == pytest.approx(10 / 36, abs=1e-12)
    assert r["mean_hits"].value == pytest.approx(170 / 36, abs=1e-9)
    # S5 AP1 v T3, no save: 2+
    assert r["mean_unsaved_wounds"].value == pytest.approx(170 / 36 * 5 / 6, abs=1e-9)


def test_helblaster_three_dice():
    """Three artillery dice (low confidence): two MISFIREs 15/216 → the table; three 1/216 →
    30 shots and the machine removed: P(own destroyed) = 15/216 · 1/3 + 1/216 = 1/36."""
    r = artillery("multi-barrel", target(), artillery_dice=3).results
    assert r["p_misfire"].value == pytest.approx(15 / 216, abs=1e-12)
    assert r["p_thirty_shots"].value == pytest.approx(1 / 216, abs=1e-12)
    assert r["p_own_destroyed"].value == pytest.approx(1 / 36, abs=1e-12)


def test_t9a_volley_gun_by_hand():
    """Multiple Shots (2D6): two 6s (1/36) misfire; one 6 (10/36) fires 6 + D6-but-6 (mean 9)
    at −1; no 6 (25/36) fires mean 6. Negative modifiers are ignored: −2 changes nothing.
    BS 3: 1/2, at −1 1/3 → mean hits 25/36·6/2 + 10/36·9/3 = 105/36."""
    unit = target(20, 5, ruleset="t9a1")
    r = artillery("multi-barrel", unit, modifier=-2).results
    assert r["p_misfire"].value == pytest.approx(1 / 36, abs=1e-12)
    assert r["p_one_six"].value == pytest.approx(10 / 36, abs=1e-12)
    assert r["mean_hits"].value == pytest.approx(105 / 36, abs=1e-9)
    fixed = artillery("multi-barrel", unit, shots="6").results
    assert fixed["p_misfire"].value == 0 and fixed["mean_hits"].value == pytest.approx(3.0)
    _, _, _, plan, p_mis, _ = volley_plan(compile_shot("multi-barrel", unit, shots="3D6"))
    assert p_mis == Fraction(16, 216)  # two or more 6s on 3D6: 15 + 1


@pytest.mark.parametrize("unit, kwargs", [
    (target(20, 5, t=4, armour=4), {}), (target(10, 5, t=4, w=3), {"artillery_dice": 3}),
    (target(15, 5, ruleset="t9a1"), {"shots": "3D6"})])
def test_multi_barrel_engines_agree(unit, kwargs):
    engines_agree(artillery("multi-barrel", unit, method="exact", **kwargs),
                  artillery("multi-barrel", unit, method="mc", config=CFG, **kwargs))


def test_multi_barrel_bad_input():
    with pytest.raises(RulesError, match="shots"):
        artillery("multi-barrel", target(), shots="2D6")  # wfb8 rolls artillery dice
    with pytest.raises(RulesError, match="artillery_dice"):
        artillery("multi-barrel", target(ruleset="t9a1"), artillery_dice=3)
    with pytest.raises(InputError, match="shots"):
        artillery("multi-barrel", target(ruleset="t9a1"), shots="2D8")


# ---- DICE-7: a template that scatters by stated dice -------------------------------------------
def test_template_scatters_by_its_dice():
    """No artillery die: no misfire; P(HIT) = the scatter die's (wfb8 2/6)."""
    r = artillery("template", target(), scatter="D6", method="mc", config=CFG, check=True)
    assert "p_misfire" not in r.results
    close(r.results["p_direct_hit"], 1 / 3)
    assert r.info["exact"]["p_direct_hit"] == pytest.approx(1 / 3)
    with pytest.raises(InputError, match="scatter"):
        artillery("template", target(), scatter="D6-4")


# ---- misfire tables, the front edge, targets from raw stats -------------------------------------
def test_misfire_tables_per_ruleset_and_weapon():
    """wfb8: stone thrower 1 / 2-3 / 4-6, black powder (cannon) 1-2 / 3-4 / 5-6; basic says
    it plays 8th's tables because seed 001 names only the face (issue 21 item 10)."""
    stone = artillery("stone-thrower", target(), method="mc", config=MonteCarloConfig(
        n_trials=1000, seed=1), check=True).info["exact"]
    assert stone["p_own_destroyed"] == pytest.approx(1 / 36)
    cannon = artillery("cannon", target()).results
    assert cannon["p_own_destroyed"].value == pytest.approx(2 / 36, abs=1e-12)
    assert cannon["p_malfunction"].value == pytest.approx(2 / 36, abs=1e-12)
    basic = artillery("cannon", target(ruleset="basic"), ruleset="basic")
    assert "seed 001 names the MISFIRE face only" in basic.info["misfire note"]


def test_cannon_landing_on_the_front_edge_reaches_the_unit():
    """FB-R3 (issue 21 item 15): aimed 4" short, the line ends exactly on the front edge in
    two of the 36 dice outcomes — a first die of 4 with the ball stuck (a MISFIRE bounce),
    and 2 then a bounce of 2 — and reaches the front model; at 4.01" it stops just short.
    One file of ten: the difference is 2/36 of one model."""
    unit = target(10, 1)
    a = artillery("cannon", unit, short=4.0).results["mean_models_hit"].value
    b = artillery("cannon", unit, short=4.01).results["mean_models_hit"].value
    assert a - b == pytest.approx(2 / 36, abs=1e-12)
    # by hand: ranks k touched when 0.787k <= end and landing <= 0.787(k+1)
    total = Fraction(0)
    for first in (2, 4, 6, 8, 10):
        land = first - 4
        for bounce in (0, 2, 4, 6, 8, 10):  # 0: MISFIRE on the bounce, stuck
            end = land + bounce
            hits = sum(1 for k in range(10) if k * INCH <= end and land <= (k + 1) * INCH)
            total += Fraction(hits, 36)
    assert a == pytest.approx(float(total), abs=1e-12)
    halberdiers = artillery("cannon", "wfb8/empire_halberdiers").results
    assert halberdiers["mean_models_hit"].value == pytest.approx(47 / 36, abs=1e-12)


def test_target_from_raw_stats_and_the_renamed_key():
    """fb artillery takes a profile id, --target ID, or raw stats; p_destroyed is now
    p_own_destroyed (the machine's own loss)."""
    data = run_json("fb", "artillery", "cannon", "--toughness", "3", "--save", "5",
                    "--models", "20", "--width", "5")
    same = run_json("fb", "artillery", "cannon", "--target", "wfb8/empire_halberdiers")
    assert data["results"]["mean_models_hit"]["value"] == pytest.approx(47 / 36, abs=1e-12)
    assert "p_own_destroyed" in same["results"] and "p_destroyed" not in same["results"]
    for args, flag in ((("fb", "artillery", "cannon"), "TARGET"),
                       (("fb", "artillery", "cannon", "wfb8/orc_boyz", "--toughness", "4"),
                        "--toughness"),
                       (("fb", "artillery", "cannon", "wfb8/orc_boyz", "--target",
                         "wfb8/orc_boyz"), "--target")):
        out = cli_inprocess(*args)
        assert out.returncode == 2 and flag in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
