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
        raise InputError("‹method›", "must be exact, mc or auto", method, "use ‹method› auto")
    if check:
        if exact is None or monte_carlo is None:
            raise InputError("‹check›", f"needs both engines; {command} has only one",
                             True, "drop ‹check›")
        return with_check(exact(), monte_carlo(config or MonteCarloConfig()))
    if method == "exact" or (method == "auto" and exact is not None):
        if exact is None:
            raise InputError("‹method›", f"exact is not available for {command}", method,
                             "use ‹method› mc")
        return exact()
    if monte_carlo is None:
        raise InputError("‹method›", f"mc is not available for {command}", method,
                         "use ‹method› exact")
    return monte_carlo(config or MonteCarloConfig())  # built only when it is used


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


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def check_entry(exact: float, monte_carlo: float, se: float, z: float | None) -> dict:
    """One ``--check`` line: ``{"exact", "monte_carlo", "se", "z"}`` (each key says what it
    holds; a z-score never sits under a result's own name, where a ``p_*`` key would then
    hold a number outside [0, 1])."""
    return {"exact": _finite(exact), "monte_carlo": _finite(monte_carlo), "se": _finite(se),
            "z": _finite(z)}


def with_check(exact: Report, mc: Report) -> Report:
    """Attach the comparison of ``mc`` with ``exact`` to the Monte Carlo report.

    ``info["check"][name]`` is :func:`check_entry` for every result both engines give;
    for every distribution, ``info["check"]["<name> (distribution)"]`` compares the means
    and adds ``max_abs_z_per_outcome``. A z-score that is undefined (no variation in the
    sample and a different exact value) is None, shown as "n/a" and written as JSON null.
    """
    exact.drop_empty()
    mc.drop_empty()
    check: dict[str, dict] = {}
    for name, est in mc.results.items():
        if name in exact.results:
            ref = exact.results[name].value
            check[name] = check_entry(ref, est.value, est.se, _z_score(name, est, ref))
    for name, dist in mc.distributions.items():
        if name in exact.distributions:
            ref = exact.distributions[name].mean
            if dist.mean_se:
                z = round((dist.mean - ref) / dist.mean_se, 3)
            else:
                z = 0.0 if dist.mean == ref else None
            entry = check_entry(ref, dist.mean, dist.mean_se, z)
            entry["of"] = "mean"
            entry["max_abs_z_per_outcome"] = _finite(
                round(dist.max_abs_z(exact.distributions[name]), 3))
            check[f"{name} (distribution)"] = entry
    mc.info["check"] = check
    mc.info["exact"] = {name: est.value for name, est in exact.results.items()}
    return mc


def check_lines(check: dict) -> list[str]:
    """The ``--check`` block of the table view: exact, Monte Carlo ± se, z per line."""
    lines = ["check (Monte Carlo vs exact; |z| < 3 expected):"]
    for name, entry in check.items():
        if not isinstance(entry, dict):  # an older shape: a bare z-score
            lines.append(f"  {name}: z = " + ("n/a" if entry is None else f"{entry:+.2f}"))
            continue
        percent = name.startswith("p_")
        show = (lambda v: "n/a" if v is None else f"{100 * v:.2f}%") if percent else \
            (lambda v: "n/a" if v is None else f"{v:.4g}")
        se = entry.get("se")
        se_text = "" if se is None else (f" ± {100 * se:.2f}%" if percent else f" ± {se:.2g}")
        z = entry.get("z")
        z_text = "n/a (no variation in the sample)" if z is None else f"{z:+.2f}"
        what = " mean" if entry.get("of") == "mean" else ""
        line = (f"  {name}:{what} exact {show(entry.get('exact'))}, Monte Carlo "
                f"{show(entry.get('monte_carlo'))}{se_text}, z = {z_text}")
        if entry.get("max_abs_z_per_outcome") is not None:
            line += f"; max |z| per outcome {entry['max_abs_z_per_outcome']:.2f}"
        lines.append(line)
    return lines
