"""Pick an engine for a query: exact, Monte Carlo, auto, or both with ``check``."""

from __future__ import annotations

from collections.abc import Callable

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError
from mathhammer.results import Report

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


def with_check(exact: Report, mc: Report) -> Report:
    """Attach z-scores of ``mc`` against ``exact`` to the Monte Carlo report."""
    z: dict[str, float] = {}
    for name, est in mc.results.items():
        if name in exact.results:
            z[name] = round(est.z_against(exact.results[name].value), 3)
    for name, dist in mc.distributions.items():
        if name in exact.distributions:
            z[f"{name} (max |z| per outcome)"] = round(dist.max_abs_z(exact.distributions[name]), 3)
            ref = exact.distributions[name].mean
            z[f"{name} mean"] = round((dist.mean - ref) / dist.mean_se, 3) if dist.mean_se else 0.0
    mc.info["check"] = z
    mc.info["exact"] = {name: est.value for name, est in exact.results.items()}
    return mc
