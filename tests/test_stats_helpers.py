"""The test-only χ² and normal helpers against closed forms."""

import math

import pytest

from tests.stats import chi2_sf, chisquare, normal_ppf


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 10.0, 40.0, 200.0])
def test_chi2_sf_closed_forms(x):
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12, abs=1e-300)
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10, abs=1e-300)
    # dof 4: Q(2, x/2) = e^{-x/2} (1 + x/2)
    assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-10, abs=1e-300)


def test_chisquare_statistic_and_uniform_expectation():
    result = chisquare([10, 20, 30])
    assert result.statistic == pytest.approx(10.0)  # (100 + 0 + 100) / 20
    assert result.pvalue == pytest.approx(math.exp(-5.0))


def test_normal_ppf():
    assert normal_ppf(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
