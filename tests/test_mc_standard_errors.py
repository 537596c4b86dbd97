"""Every Monte Carlo figure in every command's JSON carries the se of its own estimator
(issue 17 part 3).

The commands are discovered from the Typer app: every leaf command that takes
``--seed`` is run from its harness invocation (``BASE_ARGS``) plus the variants
below, with ``--method mc`` where it has one. Two checks:

1. **Formula** (one run per invocation). Each figure's ``se`` and ``ci95`` are
   recomputed from the estimator the figure is, to rounding:

   - exact: se 0, ci95 [v, v];
   - a proportion of m trials (binomial): se = √(v(1−v)/m), ci95 = Wilson(v, m),
     v·m a whole number; m = ``n_trials`` unless the figure is declared
     conditional (``CONDITIONAL``: a proportion of the trials where something
     happened, m < n_trials);
   - a mean: ci95 = v ± 1.96·se; where a distribution of the report has the same
     mean, se = that distribution's mean_se;
   - a figure simulated × an exact factor: value, se and ci95 all c × another
     figure of the report (``SCALED``: which figures are, and where the docs say so).

   A ``p_`` figure must be a binomial proportion of ``n_trials`` (or exact) unless it
   is declared, so no figure carries an interval of another kind without saying it.
   Distributions: every P(=k) a proportion of one m, mean_se = sd/√m from the pmf.
   Commands without ``--seed`` are exact: every se is 0.

2. **Sampling** (R = 60 seeds of each invocation). The spread of each figure
   across seeds must match the se it reports: (R−1)·s²/mean(se²) ~ χ²(R−1),
   two-sided p > 1e-6, so a reported se is flagged when the figure really varies
   1.47× more, or 0.58× as much, as it says (the 1e-6 quantiles of √(χ²(59)/59));
   an se computed for another estimator is typically off by 2× or more. Checked:
   every result, every distribution's mean and most likely outcome, where the
   spread is near normal at N trials (0.01 < p < 0.99). The queries that take
   seconds for 60 runs (``SLOW_TO_SAMPLE``) are sampled in ``make test-slow``.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache

import numpy as np
import pytest

from mathhammer.results import Z95, wilson_interval
from tests.stats import chi2_sf
from tests.test_reliability_harness import (
    BASE_ARGS,
    SKIP_COMMANDS,
    _patch_get_command,
    commands,
    option_specs,
    run_inprocess,
)

N = 4000  # trials per run: ≥ 40 expected events where 0.01 < p < 0.99, so spreads are near normal
P = BASE_ARGS["run"][0].rsplit("/scenarios/", 1)[0]  # the bundled profiles folder

#: more invocations of a command, so that more of its figures are covered
VARIANTS: dict[str, list[list[str]]] = {
    "roll": [["3D6kh2+D3", "--at-least", "10", "--at-most", "6"]],
    "run": [[f"{P}/scenarios/fantasy_halberdiers_vs_orcs.toml"],
            [f"{P}/scenarios/magic_t9a1_four_spells.toml"],
            [f"{P}/scenarios/fantasy_stone_thrower.toml"]],
    "wm attack": [["--stat", "6", "--defense", "13", "--power", "12", "--armor", "16",
                   "--attacks", "3", "--boost-damage"]],
    "fb attack": [["--attacks", "10", "--ws", "4", "--target-ws", "3", "--strength", "5",
                   "--toughness", "4", "--save", "5", "--at-least", "3"]],
    "magic cast": [["--dice", "4", "--cv", "9", "--ruleset", "wfb8"]],
    "magic phase": [[f"{P}/scenarios/magic_t9a1_four_spells.toml"]],
}

#: proportions of the trials where something happened (m < n_trials), and where the
#: documentation says so
CONDITIONAL: dict[str, str] = {
    r"p_hit_\d+": "wm duel: P(hit) of the i-th attack, given that it is made (docs/guide/warmachine.md, wm duel)",
}

#: figures that are another figure of the report times an exact factor
SCALED: dict[str, str] = {
    r"p_miscast_row_.*": "magic cast: p_miscast × the exact chance of the 2D6 row (MG-10)",
    r"(kills_per_100_points|mean_damage_per_100)\[.*\]": "compare: the figure × 100 / the "
                                                          "attacker's points (docs/guide/lists.md, compare)",
}

#: sampled over seeds only in the slow run: 60 runs of these take seconds
SLOW_TO_SAMPLE = {"compare", "sweep", "score", "diff", "tune", "fb combat", "fb challenge", "run",
                  "wm plan", "fb turn", "fb battle", "wm battle"}
REPEATS = 60


@cache
def _command_options() -> dict[str, set[str]]:
    _patch_get_command()
    return {name: {spec["name"] for spec in option_specs(cmd)}
            for name, cmd in commands().items() if name not in SKIP_COMMANDS}


def _invocations(seeded: bool) -> list[tuple[str, list[str]]]:
    """(command, argv without --seed/--format) of every command with (or without) --seed."""
    out = []
    for name, opts in sorted(_command_options().items()):
        if ("--seed" in opts) != seeded or "--format" not in opts:
            continue  # (commands without --format print text, not reports)
        for args in [BASE_ARGS[name], *VARIANTS.get(name, [])]:
            argv = name.split() + list(args)
            if seeded:
                if "--method" in opts:
                    argv += ["--method", "mc"]
                if "--n-trials" in opts:
                    argv += ["--n-trials", str(N)]
            out.append((name, argv))
    return out


def _json(argv: list[str], seed: int | None = None) -> dict:
    full = argv + ([] if seed is None else ["--seed", str(seed)]) + ["--format", "json"]
    code, out, err = run_inprocess(full, timeout=120)
    assert code == 0, f"mathhammer {' '.join(full)}: {err}"
    return json.loads(out)


def _close(a: float, b: float, rel: float = 1e-9) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-15


def _declared(table: dict[str, str], key: str) -> str | None:
    return next((why for pattern, why in table.items() if re.fullmatch(pattern, key)), None)


# ---------------------------------------------------------------------------------
# the estimators


def binomial_count(value: float, se: float, ci95: list[float], n: int) -> int | None:
    """The m for which (value, se, ci95) is a proportion of m trials, or None."""
    if 0.0 < value < 1.0:
        if se <= 0.0:
            return None
        m = round(value * (1.0 - value) / (se * se))
    else:  # p = 0 or 1: se is 0 whatever m is; the Wilson interval's width gives m
        width = ci95[1] - ci95[0]
        if se != 0.0 or not 0.0 < width < 1.0:
            return None
        m = round(Z95 * Z95 * (1.0 - width) / width)
    if not 1 <= m <= n or abs(value * m - round(value * m)) > 1e-6 * max(m, 1):
        return None
    lo, hi = wilson_interval(value, m)
    if _close(se, math.sqrt(value * (1.0 - value) / m)) and _close(lo, ci95[0]) \
            and _close(hi, ci95[1]):
        return m
    return None


def is_normal_mean(value: float, se: float, ci95: list[float]) -> bool:
    return se > 0.0 and _close(ci95[0], value - Z95 * se) and _close(ci95[1], value + Z95 * se)


def scaled_from(key: str, est: dict, results: dict) -> str | None:
    """Another figure of which ``est`` is a constant multiple (value, se and ci95), or None."""
    for other, base in results.items():
        if other == key or base["ci95"][1] <= 0.0 or base["ci95"][1] == base["ci95"][0]:
            continue  # the factor is read off the interval's top (> 0 even at p = 0)
        c = est["ci95"][1] / base["ci95"][1]
        if c > 0.0 and _close(est["value"], c * base["value"]) \
                and _close(est["se"], c * base["se"]) \
                and _close(est["ci95"][0], c * base["ci95"][0]):
            return other
    return None


def distribution_count(dist: dict, n: int) -> int:
    """The m of a Monte Carlo distribution: every P(=k) must be a proportion of it."""
    counts = set()
    for k, p in dist["pmf"].items():
        se = dist["se"][k]
        if 0.0 < p < 1.0:
            m = round(p * (1.0 - p) / (se * se))
            counts.add(m)
            assert abs(p * m - round(p * m)) <= 1e-6 * m, (k, p, m)
            assert _close(se, math.sqrt(p * (1.0 - p) / m)), (k, p, se, m)
    assert len(counts) <= 1, f"P(=k) of one distribution over different trial counts: {counts}"
    m = counts.pop() if counts else n
    assert 1 <= m <= n
    outcomes = np.array([int(k) for k in dist["pmf"]], dtype=np.float64)
    probs = np.array(list(dist["pmf"].values()))
    mean = float(np.dot(outcomes, probs))
    sd = math.sqrt(max(float(np.dot((outcomes - mean) ** 2, probs)), 0.0))
    assert _close(dist["mean_se"], sd / math.sqrt(m), rel=1e-6), (dist["mean_se"], sd, m)
    return m


def classify(key: str, est: dict, report: dict) -> str:
    """The estimator whose se and interval ``est`` carries (AssertionError when none)."""
    n, v, se, ci = report["n_trials"], est["value"], est["se"], est["ci95"]
    if se == 0.0 and ci == [v, v]:  # exact inside a Monte Carlo report (fb shoot p_hit)
        return "exact"
    m = binomial_count(v, se, ci, n)
    if m == n:
        return "binomial"
    if m is not None and _declared(CONDITIONAL, key):
        return "binomial, conditional"
    if _declared(SCALED, key) and scaled_from(key, est, report["results"]):
        return "scaled"
    assert not key.startswith("p_"), (
        f"{key} = {v} ± {se} {ci}: a p_ figure that is not a proportion of the "
        f"{n} trials; declare its estimator (CONDITIONAL / SCALED) and say it in the README")
    for dist in report["distributions"].values():
        if _close(dist["mean"], v) and dist["mean_se"] > 0:
            assert _close(se, dist["mean_se"]), (key, se, dist["mean_se"])
            assert is_normal_mean(v, se, ci), (key, v, se, ci)
            return "mean of a distribution"
    assert is_normal_mean(v, se, ci) or m is not None, (
        f"{key} = {v} ± {se} {ci}: neither a proportion nor a mean ± 1.96 se")
    return "mean"


# ---------------------------------------------------------------------------------
# 1. formula


@pytest.mark.parametrize("name, argv", _invocations(seeded=True),
                         ids=lambda x: x if isinstance(x, str) else None)
def test_every_monte_carlo_figure_carries_its_estimators_se(name, argv):
    report = _json(argv, seed=7)
    assert report["method"] == "mc" and report["n_trials"] == N, (
        f"{name}: --method mc --n-trials {N} gave {report['method']} {report['n_trials']}")
    kinds = {key: classify(key, est, report) for key, est in report["results"].items()}
    assert any(kind != "exact" for kind in kinds.values()), f"{name}: no simulated figure"
    for dist in report["distributions"].values():
        distribution_count(dist, N)


@pytest.mark.parametrize("name, argv", _invocations(seeded=False),
                         ids=lambda x: x if isinstance(x, str) else None)
def test_commands_without_a_seed_are_exact(name, argv):
    try:
        report = _json(argv)
    except json.JSONDecodeError:
        pytest.skip(f"{name} prints no report")
    if "results" not in report:
        pytest.skip(f"{name} prints no report")
    assert report["n_trials"] is None
    for key, est in report["results"].items():
        assert est["se"] == 0.0 and est["ci95"] == [est["value"], est["value"]], key


def test_every_seeded_command_is_walked():
    """A command added with --seed is covered the day it lands (through BASE_ARGS)."""
    seeded = {name for name, opts in _command_options().items() if "--seed" in opts}
    assert seeded == {name for name, _ in _invocations(seeded=True)}
    assert {"roll", "wm attack", "fb combat", "magic phase", "magic cast"} <= seeded
    assert set(VARIANTS) <= seeded and SLOW_TO_SAMPLE <= seeded


# ---------------------------------------------------------------------------------
# 2. sampling


def _spread_check(argv: list[str], repeats: int) -> list[str]:
    """Figures whose spread over ``repeats`` seeds disagrees with their reported se."""
    values: dict[str, list[float]] = {}
    ses: dict[str, list[float]] = {}
    modes: dict[str, str] = {}  # each distribution's most likely outcome in the first run
    for seed in range(1, repeats + 1):
        report = _json(argv, seed=seed)
        figures = {k: (e["value"], e["se"]) for k, e in report["results"].items()}
        for d, dist in report["distributions"].items():
            figures[f"{d}.mean"] = (dist["mean"], dist["mean_se"])
            mode = modes.setdefault(d, max(dist["pmf"], key=dist["pmf"].get))
            if mode in dist["pmf"]:
                figures[f"{d}.P(={mode})"] = (dist["pmf"][mode], dist["se"][mode])
        for key, (value, se) in figures.items():
            values.setdefault(key, []).append(value)
            ses.setdefault(key, []).append(se)
    bad = []
    for key, vals in values.items():
        v, s = np.array(vals), np.array(ses[key])
        if len(v) < repeats or not (s > 0).all():
            continue  # exact, or not in every run (a conditional figure that can be absent)
        if (key.startswith("p_") or ".P(=" in key) and not 0.01 < v.mean() < 0.99:
            continue  # too few events at N trials for the spread to be near normal
        statistic = (repeats - 1) * v.var(ddof=1) / float(np.mean(s * s))
        upper = chi2_sf(statistic, repeats - 1)
        p = 2.0 * min(upper, 1.0 - upper)
        if p < 1e-6:
            bad.append(f"{key}: spread {v.std(ddof=1):.3g} over {repeats} seeds vs reported "
                       f"se {math.sqrt(float(np.mean(s * s))):.3g} (p = {p:.1e})")
    return bad


@pytest.mark.parametrize("name, argv",
                         [i for i in _invocations(seeded=True) if i[0] not in SLOW_TO_SAMPLE],
                         ids=lambda x: x if isinstance(x, str) else None)
def test_reported_se_matches_the_spread_over_seeds(name, argv):
    assert _spread_check(argv, REPEATS) == []


@pytest.mark.slow
@pytest.mark.parametrize("name, argv",
                         [i for i in _invocations(seeded=True) if i[0] in SLOW_TO_SAMPLE],
                         ids=lambda x: x if isinstance(x, str) else None)
def test_reported_se_matches_the_spread_over_seeds_slow_queries(name, argv):
    assert _spread_check(argv, REPEATS) == []
