"""Artillery and templates (FB-R1..R5): hand geometry, exact values, exact vs Monte Carlo.

Monte Carlo tolerance: 5 standard errors from the exact p before the run. With
N = 200 000 a probability of 1/6 is checked to ± 0.0042 (an error of 2.5 % of it).
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError, RulesError
from mathhammer.fantasy.artillery.query import artillery, formation_rects
from mathhammer.fantasy.models import validate_unit
from mathhammer.fantasy.rules.ruleset import RULESETS_DIR

N = 200_000
CFG = MonteCarloConfig(n_trials=N, seed=7, threads=1)


def target(models=20, width=5, t=3, w=1, armour=None, ward=None, base="20mm"):
    saves = {k: v for k, v in (("armour", armour), ("ward", ward)) if v is not None}
    return validate_unit({
        "id": "test/target", "name": "Target", "ruleset": "wfb8", "base": base,
        "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": t, "w": w, "i": 3, "a": 1, "ld": 7},
        "saves": saves, "formation": {"models": models, "rank_width": width},
        "points": {"per_model": 5}}, "test target")


def ruleset_file(tmp_path: Path, **changes) -> str:
    """A copy of wfb8.toml with some top-level switches changed."""
    lines = (RULESETS_DIR / "wfb8.toml").read_text().splitlines()
    out = []
    for line in lines:
        key = line.split("=")[0].strip()
        if key in changes:
            value = changes[key]
            line = f"{key} = " + (f'"{value}"' if isinstance(value, str) else
                                  str(value).lower() if isinstance(value, bool) else str(value))
        out.append(line)
    path = tmp_path / "house.toml"
    path.write_text("\n".join(out).replace('name = "wfb8"', 'name = "house"'))
    return str(path)


def within_5se(mc_value, p, n=N):
    return abs(mc_value - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12


def support(dist) -> set[int]:
    return {k for k, p in dist.pmf.items() if p > 0}


def test_formation_geometry():
    """FB-R5: 7 models 5 wide = 5 + a rank of 2 in the two left files; 20 mm = 20/25.4 in."""
    r = formation_rects(7, 5, (20, 20))
    w = 20 / 25.4
    assert r[0, 0] == pytest.approx(-2.5 * w) and r[1, 4] == pytest.approx(2.5 * w)
    assert r[0, 5] == pytest.approx(-2.5 * w) and r[1, 6] == pytest.approx(-0.5 * w)
    assert r[2, 5] == pytest.approx(w) and r[3, 6] == pytest.approx(2 * w)


def test_stone_thrower_misfire_table_and_hit_odds():
    """FB-R2 with wfb8's two HIT faces: exact values, and MC within 5 SE."""
    rep = artillery("stone-thrower", target(), method="mc", config=CFG)
    expected = {"p_misfire": Fraction(1, 6), "p_own_destroyed": Fraction(1, 36),
                "p_disabled": Fraction(2, 36), "p_no_shot": Fraction(3, 36),
                "p_direct_hit": Fraction(5, 6) * Fraction(2, 6)}
    for name, p in expected.items():
        assert within_5se(rep.results[name].value, float(p)), name
    checked = artillery("stone-thrower", target(), method="mc", config=CFG, check=True)
    assert checked.info["exact"]["p_direct_hit"] == pytest.approx(5 / 18)


def test_template_coverage_by_hand(tmp_path):
    """FB-R1: a 10 x 4 block of 20 mm bases, small template (r 1.5") on its centre:
    the four middle files lie within 1.5" (the next file starts 1.575" out), all 4
    ranks within reach: 16 models. With 6 HIT faces every shot that does not
    misfire lands on the aim point, so models hit = {0: 1/6, 16: 5/6}."""
    rules = ruleset_file(tmp_path, scatter_hit_faces=6)
    rep = artillery("stone-thrower", target(40, 10), ruleset=rules, method="mc",
                    config=MonteCarloConfig(n_trials=20_000, seed=1, threads=1))
    assert support(rep.distributions["models_hit"]) == {0, 16}
    assert within_5se(rep.distributions["models_hit"].pmf[16], 5 / 6, 20_000)
    large = artillery("stone-thrower", target(40, 10), ruleset=rules, template="large",
                      method="mc", config=MonteCarloConfig(n_trials=20_000, seed=1, threads=1))
    # r 2.5": files with inner edge <= 2.5 (0, .787, 1.575, 2.36): 8 files x 4 ranks,
    # corner check: dx 2.36, dy .787 -> 2.49 <= 2.5
    assert support(large.distributions["models_hit"]) == {0, 32}


def test_partial_hits_switch(tmp_path):
    """FB-R1 6th/7th style: partly covered bases hit on 4+; fully covered always."""
    rules = ruleset_file(tmp_path, scatter_hit_faces=6, template_partial_hits=True)
    rep = artillery("stone-thrower", target(40, 10), ruleset=rules, method="mc",
                    config=MonteCarloConfig(n_trials=40_000, seed=3, threads=1))
    mean = rep.distributions["models_hit"].mean
    # by hand: a base is fully covered when its far corner is within 1.5"; the 16
    # touched bases: middle 2 files x middle 2 ranks: far corner (.787, .787) -> 1.11 in;
    # middle files x outer ranks: (.787, 1.575) -> 1.76 out; so 4 full + 12 partial
    expected = 5 / 6 * (4 + 12 * 0.5)
    se = rep.distributions["models_hit"].mean_se
    assert abs(mean - expected) <= 5 * se


def test_bolt_thrower_by_hand():
    """FB-R4: one file of 3 T3 models; BS3 hits on 4+; S6, S5 wound on 2+, S4 on 3+;
    no armour (the 2+ save is ignored); each model slain continues the bolt."""
    unit = target(3, 1, armour=2)
    rep = artillery("bolt-thrower", unit, method="exact")
    hit = Fraction(1, 2)
    s6 = s5 = Fraction(5, 6)
    s4 = Fraction(4, 6)
    slain = {0: 1 - hit + hit * (1 - s6), 1: hit * s6 * (1 - s5), 2: hit * s6 * s5 * (1 - s4),
             3: hit * s6 * s5 * s4}
    for k, p in slain.items():
        assert rep.distributions["models_slain"].pmf.get(k, 0) == pytest.approx(float(p))


@pytest.mark.parametrize("weapon, unit, rules", [
    ("bolt-thrower", target(25, 5, t=4, w=3, ward=6), None),
    ("cannon", target(20, 5, armour=4), None),
    ("cannon", target(12, 3, t=4, w=3, base="40mm"), None),
    ("cannon", target(20, 5, t=4, w=2, armour=5), "to_hit"),
])
def test_exact_vs_monte_carlo(weapon, unit, rules, tmp_path):
    """Cannon (bounce and t9a1 to-hit) and bolt thrower: every probability within 5 SE,
    every outcome of the distributions within |z| < 6."""
    ruleset = ruleset_file(tmp_path, artillery="to_hit") if rules else None
    ex = artillery(weapon, unit, ruleset=ruleset, method="exact")
    mc = artillery(weapon, unit, ruleset=ruleset, method="mc", config=CFG)
    for name, est in ex.results.items():
        if name.startswith("p_"):
            assert within_5se(mc.results[name].value, est.value), name
    for name, dist in ex.distributions.items():
        assert mc.distributions[name].max_abs_z(dist) < 6, name
        assert abs(mc.distributions[name].mean - dist.mean) <= 5 * mc.distributions[name].mean_se + 1e-12


def test_cannon_line_by_hand():
    """FB-R3: one file of 10 models, aimed at the front edge (short 0): landing 2"..10"
    behind it; bounce 2..10 or stuck. Landing 2" and bounce 2" touches bases 3..6
    (y from 1.575 to 4.72): 4 models."""
    from mathhammer import kernels

    k = kernels.load("mathhammer.fantasy.kernels.artillery")
    r = formation_rects(10, 1, (20, 20))
    idx = np.zeros(10, np.int64)
    assert k.line_hits(*(np.ascontiguousarray(x) for x in r), 0.0, 2.0, 4.0, idx) == 4
    assert k.line_hits(*(np.ascontiguousarray(x) for x in r), 0.0, 10.0, 12.0, idx) == 0
    rep = artillery("cannon", target(10, 1), short=0.0, method="exact")
    assert rep.results["p_misfire"].value == pytest.approx(1 / 6)


def test_bad_input_names_flag():
    with pytest.raises(InputError, match="WEAPON"):
        artillery("catapult", target())
    with pytest.raises(RulesError, match="ruleset basic has no flame-cannon"):
        artillery("flame-cannon", target(), ruleset="basic")
    with pytest.raises(InputError, match="aim_file"):
        artillery("cannon", target(), aim_file=9)
    with pytest.raises(InputError, match="template"):
        artillery("stone-thrower", target(), template="huge")
    with pytest.raises(InputError, match="method"):
        artillery("stone-thrower", target(), method="exact")


def test_flank_shots_run_along_a_rank():
    """Facing flank: a bolt thrower meets the 5 models of a rank instead of the 4 of the
    middle file; the rank is the aimed one (the short last rank of 22 models has 2)."""
    unit = target(22, 5)
    front = artillery("bolt-thrower", unit, method="exact")
    flank = artillery("bolt-thrower", unit, facing="flank", aim_rank=2, method="exact")
    last = artillery("bolt-thrower", unit, facing="flank", aim_rank=5, method="exact")
    assert front.info["line"].startswith("4 models in the file")  # middle file: no 5th rank
    assert flank.info["line"].startswith("5 models in the rank")
    assert last.info["line"].startswith("2 models in the rank")
    assert max(last.distributions["models_slain"].pmf) == 2
    with pytest.raises(InputError, match="facing"):
        artillery("cannon", unit, facing="rear")
