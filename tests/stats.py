"""Small statistics for the tests, so the test environment needs no scipy.

scipy is kept out of every environment: numba imports ``scipy.linalg`` on its
first kernel call whenever scipy is installed (~0.3 s), which would make the tested
start-up differ from a user's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np


def _gamma_lower_series(a: float, x: float) -> float:
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_upper_fraction(a: float, x: float) -> float:
    # Lentz's continued fraction for Q(a, x), valid for x > a + 1
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(statistic: float, dof: int) -> float:
    """P(χ²_dof ≥ statistic): the regularised upper incomplete gamma Q(dof/2, statistic/2)."""
    if statistic <= 0:
        return 1.0
    a, x = dof / 2.0, statistic / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _gamma_lower_series(a, x))
    return _gamma_upper_fraction(a, x)


@dataclass(frozen=True)
class ChiSquare:
    statistic: float
    pvalue: float


def chisquare(observed, expected=None) -> ChiSquare:
    """Pearson's goodness-of-fit test (as scipy.stats.chisquare, dof = cells − 1)."""
    obs = np.asarray(observed, dtype=np.float64)
    exp = np.full_like(obs, obs.mean()) if expected is None else np.asarray(expected, np.float64)
    stat = float(np.sum((obs - exp) ** 2 / exp))
    return ChiSquare(stat, chi2_sf(stat, len(obs) - 1))


def normal_ppf(q: float) -> float:
    return NormalDist().inv_cdf(q)
