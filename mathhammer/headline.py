"""The headline: one sentence that answers the question a report was asked.

Every table view prints it first and ``--brief`` prints nothing else. A report
builder that knows its question sets ``Report.headline`` itself; for the rest,
:func:`headline` writes a plain sentence from the report's first result so no
command is ever without one.
"""

from __future__ import annotations

from mathhammer.results import Estimate, Report


def headline(report: Report) -> str:
    """The report's own headline, or one built from its first probability (or result)."""
    if report.headline:
        return report.headline
    subject = report.title or report.command
    if not report.results:
        if report.distributions:
            name, dist = next(iter(report.distributions.items()))
            mean = f"{dist.mean:.3f}" + ("" if dist.is_exact else f" ± {dist.mean_se:.3f}")
            return f"{subject}: mean {name} {mean} ({method_words(report)})"
        return f"{subject} ({method_words(report)})"
    name = next((n for n in report.results if n.startswith("p_")), next(iter(report.results)))
    return f"{subject}: {name} {figure(report.results[name], name.startswith('p_'))} ({method_words(report)})"


def figure(est: Estimate, percent: bool) -> str:
    """A value as a player reads it: 48.33% or 25.40, with ``± se`` when simulated."""
    if percent:
        text = f"{100 * est.value:.2f}%"
        return text if est.is_exact else f"{text} ± {100 * est.se:.2f}"
    text = f"{est.value:.2f}"
    return text if est.is_exact else f"{text} ± {est.se:.2f}"


def method_words(report: Report) -> str:
    if report.method == "exact":
        return "exact"
    n = f"{report.n_trials:,}" if report.n_trials else "?"
    return f"Monte Carlo, {n} trials, seed {report.seed}"
