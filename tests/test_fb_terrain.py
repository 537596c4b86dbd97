"""Dangerous terrain tests (FB-T4, issue 19 part 4): hand computations per ruleset and a
plain simulation of the dice beside the exact engine."""

from __future__ import annotations

from fractions import Fraction as F
from math import comb

import numpy as np
import pytest

from mathhammer.errors import InputError
from mathhammer.fantasy.terrain import dangerous_terrain


def frac(report, key):
    return F(report.info[f"{key}_fraction"])


def test_wfb8_one_die_a_one_wounds_no_armour():
    """FB-T4 wfb8: 10 models, each lost on a 1: P(none lost) = (5/6)^10, mean 10/6."""
    r = dangerous_terrain(10, rules="wfb8")
    assert frac(r, "p_any_model_lost") == 1 - F(5, 6) ** 10
    assert r.results["mean_models_lost"].value == pytest.approx(10 / 6, abs=1e-12)
    lost = r.distributions["models_lost"].pmf
    for k in range(11):
        assert lost[k] == pytest.approx(comb(10, k) * (1 / 6) ** k * (5 / 6) ** (10 - k), abs=1e-12)


def test_a_ward_saves_each_wound():
    """FB-T4 + FB-V2: a 4+ ward halves the chance a model is lost: 1/6 * 1/2."""
    r = dangerous_terrain(3, ward=4, rules="wfb8")
    assert frac(r, "p_model_lost") == F(1, 12)
    assert frac(r, "p_any_model_lost") == 1 - F(11, 12) ** 3


def test_wfb8_chariot_takes_d6_wounds():
    """FB-T4 wfb8: a W4 chariot is lost on a 1 then 4+ on the D6: 1/6 * 1/2."""
    r = dangerous_terrain(1, chariot=True, wounds=4, rules="wfb8")
    assert frac(r, "p_model_lost") == F(1, 12)
    # mean wounds: 1/6 * E[min(D6, 4)] = 1/6 * (1+2+3+4+4+4)/6
    assert r.results["mean_unsaved_wounds"].value == pytest.approx(float(F(1, 6) * F(18, 6)), abs=1e-12)


def test_t9a1_dice_by_height_and_the_value():
    """FB-T4 t9a1: a large W3 model rolls 2 dice, each <= 2 wounds: it can lose at most 2."""
    r = dangerous_terrain(4, value=2, height="large", wounds=3, rules="t9a1")
    assert frac(r, "p_model_lost") == 0
    assert r.results["mean_unsaved_wounds"].value == pytest.approx(4 * 2 / 3, abs=1e-12)
    gigantic = dangerous_terrain(1, value=2, height="gigantic", wounds=3, rules="t9a1")
    assert frac(gigantic, "p_model_lost") == F(1, 27)  # three dice, each <= 2
    chariot = dangerous_terrain(1, value=1, chariot=True, wounds=2, rules="t9a1")
    assert frac(chariot, "p_model_lost") == F(1, 36)  # a standard chariot: 1 + 1 dice


def test_the_exact_engine_agrees_with_a_simulation_of_the_dice():
    """t9a1, large W2 models, Dangerous Terrain (3), 5+ ward: dice thrown one by one."""
    n, trials = 6, 200_000
    r = dangerous_terrain(n, value=3, height="large", wounds=2, ward=5, rules="t9a1")
    rng = np.random.default_rng(20261203)
    fails = rng.integers(1, 7, size=(trials, n, 2)) <= 3
    saved = rng.integers(1, 7, size=(trials, n, 2)) >= 5
    lost = ((fails & ~saved).sum(axis=2) >= 2).sum(axis=1)
    p = r.results["p_any_model_lost"].value
    se = (p * (1 - p) / trials) ** 0.5
    assert abs((lost > 0).mean() - p) < 5 * se
    mean = r.results["mean_models_lost"].value
    se_mean = lost.std() / trials ** 0.5
    assert abs(lost.mean() - mean) < 5 * se_mean


@pytest.mark.parametrize("kwargs", [dict(models=0), dict(models=5, value=2, rules="wfb8"),
                                    dict(models=5, wounds=0), dict(models=5, height="huge"),
                                    dict(models=5, value=7, rules="t9a1")])
def test_bad_input_is_one_input_error(kwargs):
    with pytest.raises(InputError):
        dangerous_terrain(**kwargs)
