"""Pick an engine for a query: exact, Monte Carlo, auto, or both with ``check``."""

from __future__ import annotations

import math
from collections.abc import Callable

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError
from mathhammer.results import Estimate, Report

METHODS = ("auto", "exact", "mc")


def answer(
    command: str,
    *,
    method: str,
    exact: Callable[[], Report] | None,
    monte_carlo: Callable[[MonteCarloConfig], Report] | None,
    config: MonteCarloConfig | None = None,
    check: bool = False,
) -> Report:
    """Run ``exact`` and/or ``monte_carlo`` as ``method`` asks.

    ``auto`` prefers the exact engine when the query has one. With ``check`` both
    run and the Monte Carlo report carries ``info["check"]``: the z-score of every
    result against the exact value and the largest per-outcome |z| of every
    distribution.
    """
    if method not in METHODS:
        raise InputError("--method", "must be exact, mc or auto", method, "use --method auto")
    config = config or MonteCarloConfig()
    if check:
        if exact is None or monte_carlo is None:
            raise InputError("--check", f"needs both engines; {command} has only one",
                             True, "drop --check")
        return with_check(exact(), monte_carlo(config))
    if method == "exact" or (method == "auto" and exact is not None):
        if exact is None:
            raise InputError("--method", f"exact is not available for {command}", method,
                             "use --method mc")
        return exact()
    if monte_carlo is None:
        raise InputError("--method", f"mc is not available for {command}", method,
                         "use --method exact")
    return monte_carlo(config)


def _z_score(name: str, est: Estimate, reference: float) -> float | None:
    """z of a Monte Carlo estimate against the exact value; None when undefined.

    A sample with no variation (every trial a success, or none) has se 0; for a
    probability the exact value's own binomial se sqrt(p(1-p)/N) stands in.
    """
    if est.se > 0:
        return round(est.z_against(reference), 3)
    if est.value == reference:
        return 0.0
    if name.startswith("p_") and est.n_trials and 0.0 < reference < 1.0:
        se = math.sqrt(reference * (1.0 - reference) / est.n_trials)
        return round((est.value - reference) / se, 3)
    return None


def with_check(exact: Report, mc: Report) -> Report:
    """Attach z-scores of ``mc`` against ``exact`` to the Monte Carlo report.

    A z-score that is undefined (no variation in the sample and a different
    exact value) is None, shown as "n/a" and written as JSON null.
    """
    z: dict[str, float | None] = {}
    for name, est in mc.results.items():
        if name in exact.results:
            z[name] = _z_score(name, est, exact.results[name].value)
    for name, dist in mc.distributions.items():
        if name in exact.distributions:
            z[f"{name} (max |z| per outcome)"] = round(dist.max_abs_z(exact.distributions[name]), 3)
            ref = exact.distributions[name].mean
            if dist.mean_se:
                z[f"{name} mean"] = round((dist.mean - ref) / dist.mean_se, 3)
            else:
                z[f"{name} mean"] = 0.0 if dist.mean == ref else None
    mc.info["check"] = z
    mc.info["exact"] = {name: est.value for name, est in exact.results.items()}
    return mc
