"""``roll``: the distribution of a dice expression, exact or by Monte Carlo (DICE-2)."""

from __future__ import annotations

import sys
import types

import numpy as np

from mathhammer.dice import DiceExpr, parse_dice
from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.words import SEP, method_words, num, pct


def _summarise(dist: Distribution, at_least: int | None, at_most: int | None) -> dict[str, Estimate]:
    results = {"mean": dist.mean_estimate()}
    if at_least is not None:
        results["p_at_least"] = dist.p_at_least(at_least)
    if at_most is not None:
        results["p_at_most"] = dist.p_at_most(at_most)
    return results


def roll_exact(expr: DiceExpr, at_least: int | None = None, at_most: int | None = None) -> Report:
    dist = expr.distribution()
    results = {"mean": Estimate.exact(expr.mean)}
    # from the exact Fractions, rounded once: 21/36 is float(21/36), not a float sum
    if at_least is not None:
        results["p_at_least"] = Estimate.exact(float(expr.probability_at_least(at_least)))
    if at_most is not None:
        results["p_at_most"] = Estimate.exact(float(expr.probability_at_most(at_most)))
    return Report("roll", "exact", results, {"roll": dist}, title=f"roll {expr}")


def roll_monte_carlo(
    expr: DiceExpr, config: MonteCarloConfig, at_least: int | None = None,
    at_most: int | None = None,
) -> Report:
    from mathhammer import kernels  # numba only when Monte Carlo is asked for

    rolls = kernels.load("mathhammer.kernels.rolls")

    sampler = expr.sampler()
    width = expr.max - expr.min + 1

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        hist = np.zeros(width, dtype=np.int64)
        if sampler.kind == "table":
            rolls.roll_table(sampler.table, np.int64(expr.min), state, np.int64(n), hist)
        elif sampler.kind == "search":
            # search yields indices into the support, which starts at the minimum
            rolls.roll_search(sampler.table, np.uint64(sampler.outcome_count), state,
                              np.int64(n), hist)
        else:
            rolls.roll_program(sampler.program, np.int64(expr.min), state, np.int64(n), hist)
        return {"hist": hist}

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        counts = tally["hist"]
        probs = [counts / n]
        if at_least is not None:
            probs.append([counts[max(0, at_least - expr.min):].sum() / n])
        if at_most is not None:
            probs.append([counts[: max(0, at_most - expr.min + 1)].sum() / n])
        return np.concatenate([np.ravel(p) for p in probs])

    run = simulate(run_chunk, config, probabilities)
    dist = Distribution.from_counts(run.tally["hist"], expr.min)
    return Report("roll", "mc", _summarise(dist, at_least, at_most), {"roll": dist},
                  n_trials=run.n_trials, seed=run.seed, title=f"roll {expr}")


def roll(
    expression: str | DiceExpr,
    at_least: int | None = None,
    at_most: int | None = None,
    method: str = "auto",
    config: MonteCarloConfig | None = None,
    check: bool = False,
    explain: bool = False,
) -> Report:
    """Distribution of a dice expression.

    Args:
        expression: dice text such as ``"2D6+3"`` or a parsed :class:`DiceExpr`.
        at_least, at_most: also report P(total ≥ k) / P(total ≤ k).
        method: "exact", "mc" or "auto" (exact whenever the expression is small
            enough to enumerate, see :attr:`DiceExpr.exact_feasible`).
        config: Monte Carlo settings (trials, seed, threads, precision).
        check: run both engines and attach z-scores under ``report.info["check"]``.
        explain: attach the exact working under ``report.info["explain"]`` (when the
            expression can be enumerated).
    """
    expr = parse_dice(expression) if isinstance(expression, str) else expression
    report = answer(
        "roll",
        method=method,
        # auto leaves expressions too large to enumerate (e.g. 30D1000) to Monte Carlo;
        # asking for exact (or --check) on them raises the DiceExpressionError saying why
        exact=None if method == "auto" and not check and not expr.exact_feasible
        else (lambda: roll_exact(expr, at_least, at_most)),
        monte_carlo=lambda cfg: roll_monte_carlo(expr, cfg, at_least, at_most),
        config=config,
        check=check,
    )

    report.headline = roll_headline(report, str(expr), at_least, at_most)
    if explain:
        from mathhammer.explain import attach

        attach(report, explain_roll(expr, at_least, at_most))
    return report


def explain_roll(expr: DiceExpr, at_least: int | None = None,
                 at_most: int | None = None) -> list:
    """How ``roll`` reads an expression, with its exact mean and tail fractions (DICE-1/2)."""
    import re
    from fractions import Fraction

    from mathhammer.explain import Step

    read = f"{expr} is read as {expr.describe()}"
    if re.search(r"D3(?!\d)", expr.describe()):
        read += "; a D3 is a D6 read 1-2 → 1, 3-4 → 2, 5-6 → 3"
    steps = [Step("expression", read, None, ("DICE-1", "DICE-2"))]
    if not expr.exact_feasible:
        steps.append(Step("exact", f"{expr} is too large to enumerate (about "
                          f"{expr.exact_cost:.1e} operations); Monte Carlo answers"))
        return steps
    steps.append(Step("outcomes", f"{expr.outcome_count:,} equally likely rolls, totals "
                      f"{expr.min}..{expr.max}; mean {expr.exact_mean}"))
    if at_least is not None:
        steps.append(Step(f"P(total ≥ {at_least})", "rolls reaching it / all rolls",
                          Fraction(expr.probability_at_least(at_least))))
    if at_most is not None:
        steps.append(Step(f"P(total ≤ {at_most})", "rolls at or below it / all rolls",
                          Fraction(expr.probability_at_most(at_most))))
    return steps



class _CallableModule(types.ModuleType):
    """``mathhammer.roll`` names both this module and the function above.

    Importing the submodule (the CLI and every test do) binds the package
    attribute ``mathhammer.roll`` to the module, shadowing the lazily exported
    function; making the module callable keeps ``mh.roll("2D6+3")`` working either way.
    """

    def __call__(self, *args, **kwargs) -> Report:
        return roll(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule


def roll_headline(report: Report, expression: str, at_least: int | None,
                  at_most: int | None) -> str:
    """``2D6+3 rolls 10 or more: 58.33% (exact) · mean 10.00``."""
    dist = report.distributions["roll"]
    mean = f"mean {num(report.results['mean'])}"
    asked = []
    if at_least is not None:
        asked.append(f"{at_least} or more: {pct(report.results['p_at_least'])}")
    if at_most is not None:
        asked.append(f"{at_most} or less: {pct(report.results['p_at_most'])}")
    if asked:
        return f"{expression} rolls {', '.join(asked)} ({method_words(report)}){SEP}{mean}"
    lo, hi = dist.percentile(0.05), dist.percentile(0.95)
    return (f"{expression} averages {num(report.results['mean'])} ({method_words(report)})"
            f"{SEP}sd {dist.sd:.2f}, 90% of rolls from {lo} to {hi}")
