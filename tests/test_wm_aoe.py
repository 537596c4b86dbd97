"""AOE, blast, deviation and spray (WM-D4..D7): geometry, hand values, MC vs exact, CLI.

Monte Carlo tests: N = 200 000 trials, fixed seed, tolerance 5 se from the EXACT value
computed before the run (for p = 0.5 a bias of ≥ 0.0056 is detected; for means
se = sd_exact / sqrt(N)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, RulesError
from mathhammer.warmachine import rules
from mathhammer.warmachine.aoe import (
    AoeSetup, TemplateModel, _resolve, aoe, aoe_exact, aoe_monte_carlo, base_radius,
    deviation_vectors, parse_model, spray_coverage,
)
from tests.conftest import cli_inprocess, run_json

N = 200_000
SEED = 97



def test_base_sizes_wm_d7():
    assert base_radius("small") == pytest.approx(15 / 25.4)
    assert base_radius("medium") == pytest.approx(20 / 25.4)
    assert base_radius("large") == pytest.approx(25 / 25.4)
    with pytest.raises(InputError):
        base_radius("huge")


def test_deviation_directions_wm_d5():
    dx, dy = deviation_vectors()
    assert (dx[0], dy[0]) == (1.0, 0.0)  # 1: straight on, away from the attacker
    assert dx[3] == pytest.approx(-1.0) and dy[3] == pytest.approx(0.0)  # 4: straight back
    assert dy[1] < 0 and dx[1] > 0  # 2: clockwise seen from above (to the attacker's right)
    assert np.allclose(np.hypot(dx, dy), 1.0)
    angles = np.degrees(np.arctan2(dy, dx)) % 360
    assert np.allclose(np.sort(angles), [0, 60, 120, 180, 240, 300])


def test_lone_target_hand_value():
    """Medium target alone, 3" AOE at 8": under the deviated template iff the deviation is
    ≤ 1.5 + 0.787 = 2.29", i.e. the d6 shows 1 or 2, whatever the direction."""
    setup = AoeSetup(stat=5, defense=13, armor=14, power=14, range=8.0)
    p = rules.hit_probability(2, 5, 13)
    r = aoe_exact(setup)
    assert r.results["p_direct_hit"].value == pytest.approx(p)
    assert r.results["p_damage_roll_target"].value == pytest.approx(p + (1 - p) * 2 / 6)
    full = rules.damage_pmf(2, 14, 14)
    blast = rules.damage_pmf(2, 7, 14)  # WM-D4: ceil(14 / 2)
    mean = p * float(full @ np.arange(len(full))) + (1 - p) / 3 * float(blast @ np.arange(len(blast)))
    assert r.results["mean_damage_target"].value == pytest.approx(mean)


def test_short_range_deviation_cap():
    """At 2" the deviation is capped at 1": the template always still covers the target."""
    r = aoe_exact(AoeSetup(stat=5, defense=13, armor=14, power=14, range=2.0))
    assert r.results["p_damage_roll_target"].value == pytest.approx(1.0)


def test_blast_pow_rounds_up():
    for power, blast in ((13, 7), (14, 7), (15, 8)):
        models = _resolve(AoeSetup(stat=5, defense=13, armor=14, power=power, range=8.0))
        assert models[0].blast[1] == blast


def test_beyond_rng_misses_and_deviates_from_rng_point():
    """Target at 14", RNG 10: automatic miss; the template starts 4" short of the target and
    deviates at most 5", so it covers the target (reach 2.29") only for deviations straight on
    of 2..5" (die 2..6 capped at 5): 5 of 36."""
    r = aoe_exact(AoeSetup(stat=5, defense=13, armor=14, power=14, range=14.0, rng=10.0))
    assert r.results["p_direct_hit"].value == 0.0
    # straight on (direction 1): centre at -4 + d; |d - 4| <= 2.287 -> d in {2,3,4,5} and die 6 -> 5
    assert r.results["p_damage_roll_target"].value == pytest.approx(5 / 36)


def test_neighbour_on_direct_hit():
    """A small model 1.5" from the target is under a 3" template on a direct hit (reach 2.09")."""
    setup = AoeSetup(stat=5, defense=2, armor=14, power=14, range=8.0,
                     models=(TemplateModel("g", 1.5, 0.0),))
    r = aoe_exact(setup)
    p = rules.hit_probability(2, 5, 2)  # 35/36
    assert r.results["p_direct_hit"].value == pytest.approx(p)
    assert r.results["p_damage_roll_g"].value >= p


def test_spray_coverage_cells():
    models = _resolve(AoeSetup(stat=5, defense=13, armor=14, power=12, range=5.0, spray=8.0,
                               models=(TemplateModel("on_axis", 2.5, 0.0),
                                       TemplateModel("beyond", 3.7, 0.0),
                                       TemplateModel("just_beyond", 3.55, 0.0),
                                       TemplateModel("wide", 2.0, 2.0),
                                       TemplateModel("edge", 2.8, 1.5),
                                       TemplateModel("behind", -6.0, 0.0))))
    under = spray_coverage(models, 5.0, 8.0, "template").tolist()
    # template x from -5 to 3, half width 0.25 -> 1.0; small base r = 0.59:
    # beyond is 0.70" past the far edge (out), just_beyond 0.55" (in); wide is 1.0" out at
    # x = 2 (half width 0.94); edge is 0.52" outside the side at x = 2.8 (in); behind is out
    assert under == [1, 1, 0, 1, 0, 1, 0]


def test_spray_independent_rolls_exact():
    setup = AoeSetup(stat=6, defense=13, armor=16, power=12, range=5.0, spray=8.0,
                     target_in_melee=True,
                     models=(TemplateModel("a", 1.0, 0.2, defense=11),))
    r = aoe_exact(setup)
    pt, pa = rules.hit_probability(2, 6, 13), rules.hit_probability(2, 6, 11)  # no -4 (WM-D6)
    assert r.results["p_direct_hit"].value == pytest.approx(pt)
    assert r.results["p_damage_roll_a"].value == pytest.approx(pa)
    assert r.results["mean_models_hit"].value == pytest.approx(pt + pa)
    count = r.distributions["models_hit"]
    assert count.p_eq(2).value == pytest.approx(pt * pa)


def test_bad_setups():
    with pytest.raises(RulesError):
        aoe(AoeSetup(stat=5, defense=13, armor=14, power=12, range=9.5, spray=8.0))
    with pytest.raises(InputError):
        aoe(AoeSetup(stat=5, defense=13, armor=14, power=12, range=0.0))
    with pytest.raises(RulesError):
        aoe(AoeSetup(stat=5, defense=13, armor=14, power=12, range=5.0, kind="melee"))
    with pytest.raises(InputError):
        parse_model("g1,1")
    with pytest.raises(InputError):
        parse_model("g1,1,2,small,foo=3")
    assert parse_model("g1, 1.5, -0.5, large, arm=14, boxes=1") == TemplateModel(
        "g1", 1.5, -0.5, "large", None, 14, 1)


MC_CASES = {
    "aoe 3 with neighbours": AoeSetup(
        stat=5, defense=13, armor=14, power=14, range=8.0, target_boxes=5,
        models=(TemplateModel("a", 1.5, 0.0, boxes=1, armor=12), TemplateModel("b", 2.5, 1.0),
                TemplateModel("c", -2.0, 0.3, "large"), TemplateModel("d", 0.5, -3.1))),
    "aoe 5 boosted, blast boosted, short range": AoeSetup(
        stat=6, defense=14, armor=16, power=15, range=5.0, aoe=5.0, boost_hit=True,
        boost_damage=True, boost_blast=True,
        models=(TemplateModel("a", 2.6, 0.0, "small"), TemplateModel("b", 0.0, 3.3, "medium"))),
    "beyond RNG": AoeSetup(stat=5, defense=12, armor=13, power=13, range=13.0, rng=10.0, aoe=4.0,
                           models=(TemplateModel("a", -3.0, 0.5),)),
    "spray 10 template": AoeSetup(stat=5, defense=13, armor=14, power=12, range=6.0, spray=10.0,
                         target_boxes=3, spray_shape="template",
                         models=(TemplateModel("a", 2.0, 0.3, defense=11, armor=12, boxes=1),
                                 TemplateModel("b", 3.5, 1.0), TemplateModel("c", 1.0, 3.0))),
}


MC_CASES.update({
    "spray 8 strip, two shots": AoeSetup(
        stat=5, defense=13, armor=14, power=12, range=6.0, spray=8.0, target_boxes=4, rof=2,
        models=(TemplateModel("a", 1.0, 0.3, defense=11, armor=12, boxes=1),
                TemplateModel("b", 1.8, 1.2, boxes=2))),
    "aoe 4 three shots, grunts": AoeSetup(
        stat=6, defense=12, armor=13, power=13, range=9.0, aoe=4.0, target_boxes=8, rof=3,
        models=(TemplateModel("a", 1.5, 0.0, boxes=1, armor=11), TemplateModel("b", -1.0, 1.5, boxes=1),
                TemplateModel("c", 0.3, -2.4, "medium", boxes=5))),
})


@pytest.mark.parametrize("name", list(MC_CASES))
def test_mc_agrees_with_exact(name):
    setup = MC_CASES[name]
    exact = aoe_exact(setup)
    mc = aoe_monte_carlo(setup, MonteCarloConfig(n_trials=N, seed=SEED, threads=1))
    for key, est in exact.results.items():
        value = est.value
        if key == "p_direct_hit":  # per shot: N × rof Bernoulli trials
            tol = 5 * math.sqrt(value * (1 - value) / (N * setup.rof))
        elif key.startswith("p_"):
            tol = 5 * math.sqrt(value * (1 - value) / N)
        else:
            dist_name = {"mean_models_hit": "models_hit",
                         "mean_models_destroyed": "models_destroyed"}.get(key) or \
                "damage_" + key[len("mean_damage_"):]
            tol = 5 * exact.distributions[dist_name].sd / math.sqrt(N)
        assert abs(mc.results[key].value - value) <= tol + 1e-12, (key, value, mc.results[key].value)


def test_cli_aoe_contract_and_errors():
    out = run_json("wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14",
                   "--range", "8", "--model", "g1,1.5,0,small,boxes=1", "--boxes", "5")
    res = out["results"]
    assert {"p_direct_hit", "mean_models_hit", "p_damage_roll_g1", "mean_damage_g1", "p_destroyed_g1",
            "p_destroyed_target"} <= set(res)
    assert "models_hit" in out["distributions"]
    proc = cli_inprocess("wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14",
                   "--range", "8", "--aoe", "3", "--spray", "8")
    assert proc.returncode == 2 and "--spray" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_mc_same_seed_any_thread_count():
    setup = MC_CASES["aoe 3 with neighbours"]
    one = aoe_monte_carlo(setup, MonteCarloConfig(n_trials=150_000, seed=3, threads=1))
    two = aoe_monte_carlo(setup, MonteCarloConfig(n_trials=150_000, seed=3, threads=2))
    assert one.to_dict() == two.to_dict()


def test_models_file(tmp_path):
    path = tmp_path / "squad.toml"
    path.write_text('[[models]]\nname = "a"\nx = 1.5\ny = 0\nbase = "small"\narm = 12\nboxes = 1\n'
                    '[[models]]\nname = "b"\nx = -1\ny = 1\n')
    out = run_json("wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14",
                   "--range", "8", "--models", str(path))
    assert {"p_damage_roll_a", "p_destroyed_a", "p_damage_roll_b"} <= set(out["results"])
    path.write_text('[[models]]\nname = "a"\nx = 1.5\n')
    proc = cli_inprocess("wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14", "--power", "14",
                   "--range", "8", "--models", str(path))
    assert proc.returncode == 2 and "models.0.y" in proc.stderr


def test_models_destroyed_distribution_and_chi_square():
    """Models destroyed after three AOE shots: exact distribution vs Monte Carlo (chi-square,
    p > 1e-6) and its mean equals the sum of the per-model P(destroyed)."""
    from tests.stats import chisquare

    setup = MC_CASES["aoe 4 three shots, grunts"]
    exact = aoe_exact(setup)
    dist = exact.distributions["models_destroyed"]
    per_model = sum(v.value for k, v in exact.results.items() if k.startswith("p_destroyed_"))
    assert dist.mean == pytest.approx(per_model, abs=1e-12)
    mc = aoe_monte_carlo(setup, MonteCarloConfig(n_trials=N, seed=SEED + 1, threads=1))
    got = mc.distributions["models_destroyed"]
    lo, hi = 0, len(setup.models) + 1
    expected = dist.aligned(lo, hi) * got.n_trials
    observed = got.aligned(lo, hi) * got.n_trials
    keep = expected > 0
    assert chisquare(observed[keep], expected[keep]).pvalue > 1e-6


def test_two_shots_lone_target_by_hand():
    """Lone target, two shots: P(at least one damage roll) = 1 − (1 − q)², q = p + (1 − p)/3."""
    setup = AoeSetup(stat=5, defense=13, armor=14, power=14, range=8.0, rof=2)
    p = rules.hit_probability(2, 5, 13)
    q = p + (1 - p) * 2 / 6
    r = aoe_exact(setup)
    assert r.results["p_damage_roll_target"].value == pytest.approx(1 - (1 - q) ** 2)
    one = aoe_exact(AoeSetup(stat=5, defense=13, armor=14, power=14, range=8.0))
    assert r.results["mean_damage_target"].value == pytest.approx(
        2 * one.results["mean_damage_target"].value)


def test_spray_strip_is_the_default_wm_d6():
    """Seed 000: a strip 1" wide. A small base (r 0.59") 1.05" off the axis touches the
    strip (half width 0.5) but not the printed template's narrow end (half width 0.25 + ...)."""
    models = _resolve(AoeSetup(stat=5, defense=13, armor=14, power=12, range=5.0, spray=8.0,
                               models=(TemplateModel("near_side", -4.0, 1.05),
                                       TemplateModel("far_wide", 2.8, 1.5),
                                       TemplateModel("far_end", 3.55, 0.0))))
    strip = spray_coverage(models, 5.0, 8.0, "strip").tolist()
    template = spray_coverage(models, 5.0, 8.0, "template").tolist()
    # strip: |y| ≤ 0.5 + 0.59 = 1.09 along x in [-5, 3]; far_wide is 1.5 off: out
    assert strip == [1, 1, 0, 1]
    assert template == [1, 0, 1, 1]


def test_lone_target_geometry_shared_with_the_duel():
    from mathhammer.warmachine.aoe import p_target_under_after_miss

    assert p_target_under_after_miss(3.0, "medium", 8.0) == pytest.approx(1 / 3)
    assert p_target_under_after_miss(3.0, "medium", 2.0) == pytest.approx(1.0)
    assert p_target_under_after_miss(3.0, "medium", 14.0, 10.0) == pytest.approx(5 / 36)


@pytest.mark.parametrize("row, key", [
    ('def = "12"', "def"), ("arm = [13]", "arm"), ('boxes = "x"', "boxes"), ("boxes = 1.5", "boxes"),
    ("def = true", "def"), ('x = "1.5"', "x"), ("x = 1e308", "x"), ("y = nan", "y"),
    ("colour = 1", "colour"), ('base = "huge"', "base"),
])
def test_models_file_typed_errors(tmp_path, row, key):
    """Issue 22: the models file goes through the schema: one line naming the key, exit 2,
    no traceback, no numpy warning."""
    path = tmp_path / "m.toml"
    base = {"name": '"a"', "x": "1.0", "y": "0.0"}
    k = row.split(" = ")[0]
    base[k] = row.split(" = ", 1)[1]
    path.write_text("[[models]]\n" + "\n".join(f"{a} = {b}" for a, b in base.items()) + "\n")
    proc = cli_inprocess("wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14",
                         "--power", "14", "--range", "8", "--models", str(path))
    assert proc.returncode == 2, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"models.0.{key}" in lines[0] and "Traceback" not in proc.stderr
    assert "Warning" not in proc.stderr


def test_models_file_not_a_table(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text("models = [1, 2]\n")
    proc = cli_inprocess("wm", "aoe", "--stat", "5", "--defense", "13", "--armor", "14",
                         "--power", "14", "--range", "8", "--models", str(path))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
