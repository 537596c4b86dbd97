"""Report → text: a readable table, the JSON contract, or CSV. No rule logic."""

from __future__ import annotations

import csv
import io
import json
import math

from mathhammer.results import Distribution, Report

BAR_WIDTH = 30
MAX_ROWS = 60


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        return render_csv(report)
    return render_table(report)


def _pct(p: float) -> str:
    return f"{100.0 * p:7.2f}%"


def _bar(p: float) -> str:
    full = p * BAR_WIDTH
    whole = int(full)
    return "█" * whole + ("▌" if full - whole >= 0.5 else "")


def _is_probability(name: str) -> bool:
    return name.startswith("p_") or name.startswith("P(")


def render_table(report: Report) -> str:
    from mathhammer.headline import headline

    lines: list[str] = [headline(report)]
    title = report.title or report.command
    how = "exact" if report.method == "exact" else "Monte Carlo"
    lines.append(f"{title}  [{how}]")
    lines.append("")
    for name, dist in report.distributions.items():
        lines.extend(_distribution_table(name, dist))
        lines.append("")
    if report.results:
        width = max(len(n) for n in report.results)
        lines.append("results")
        for name, est in report.results.items():
            lines.append(f"  {name:<{width}}  {est.format(percent=_is_probability(name))}")
        lines.append("")
    for key, value in report.info.items():
        if key == "check":
            lines.append("check (Monte Carlo vs exact, z-scores; |z| < 3 expected):")
            for n, z in value.items():
                lines.append(f"  {n}: z = " + ("n/a (no variation in the sample)"
                                               if z is None else f"{z:+.2f}"))
        elif isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  {item}" for item in value)
        elif key != "exact":
            lines.append(f"{key}: {value}")
    lines.append(_footer(report))
    return "\n".join(lines).rstrip() + "\n"


def _distribution_table(name: str, dist: Distribution) -> list[str]:
    mc = not dist.is_exact
    head = f"  {'outcome':>7}  {'P(=)':>8}" + (f"  {'± se':>7}" if mc else "")
    head += f"  {'P(≥)':>8}  {'P(≤)':>8}"
    lines = [f"{name}", head]
    at_least, at_most = dist.at_least_curve(), dist.at_most_curve()
    se = dist.se
    rows = range(len(dist.probs))
    skipped = 0
    if len(dist.probs) > MAX_ROWS:  # show the bulk of the mass, say what was folded
        lo = dist.percentile(0.0005) - dist.offset
        hi = dist.percentile(0.9995) - dist.offset
        rows = range(lo, hi + 1)
        skipped = len(dist.probs) - len(rows)
    for i in rows:
        p = float(dist.probs[i])
        row = f"  {dist.offset + i:>7}  {_pct(p)}"
        if mc:
            row += f"  {100 * se[i]:6.2f}%"
        row += f"  {_pct(at_least[i])}  {_pct(at_most[i])}  {_bar(p)}"
        lines.append(row)
    if skipped:
        lines.append(f"  ({skipped} outcomes in the far tails not shown; --format csv lists all)")
    return lines


def _footer(report: Report) -> str:
    parts = []
    for name, dist in report.distributions.items():
        mean = f"{dist.mean:.4f}" + ("" if dist.is_exact else f" ± {dist.mean_se:.4f}")
        parts.append(f"{name}: mean {mean}, sd {dist.sd:.4f}")
    if report.method == "mc":
        parts.append(f"Monte Carlo: n_trials {report.n_trials:,}, seed {report.seed}; "
                     "± is one standard error, [..] a 95% interval")
    else:
        parts.append("exact")
    return " | ".join(parts)


def render_csv(report: Report) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["kind", "name", "outcome", "value", "se", "ci95_lo", "ci95_hi"])
    for name, est in report.results.items():
        writer.writerow(["result", name, "", _num(est.value), _num(est.se), _num(est.ci95[0]),
                         _num(est.ci95[1])])
    for name, dist in report.distributions.items():
        for k, p, s in zip(dist.outcomes, dist.probs, dist.se, strict=True):
            writer.writerow(["pmf", name, int(k), _num(p), _num(s), "", ""])
    return buf.getvalue()


def _num(x: float) -> str:
    return "" if math.isnan(x) else repr(float(x))
