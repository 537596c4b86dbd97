"""Report → text: a readable table, the JSON contract, or CSV. No rule logic."""

from __future__ import annotations

import io
import math

from mathhammer.errors import printable
from mathhammer.present.flags import flag, with_flags
from mathhammer.results import Distribution, InfoLines, InfoTable, Report, plus_minus, se_digits

BAR_WIDTH = 30
#: the table view of a README example stays within this many lines without --full
MAX_LINES = 60
#: outcomes rarer than this (0.05%) fold into ≤ k / a–b / ≥ k rows in the table view
FOLD_BELOW = 0.0005
#: at most this many rows per distribution table (ranges merge beyond it)
MAX_TABLE_ROWS = 40
#: a list in the notes (a duel's decision table) shows this many items without --full
MAX_LIST_ITEMS = 8


def render(report: Report, fmt: str, full: bool = False, command: str | None = None) -> str:
    """The report as the command line prints it: parameters named as its flags; JSON's
    ``command`` is ``command`` (as typed, ``wm duel``) when given, else the report's name."""
    if fmt == "json":
        import json  # here: a table needs neither json nor csv (start-up)

        data = report.to_dict(flag)
        if command:
            data["command"] = command
        return json.dumps(data, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        return with_flags(render_csv(report))
    return render_table(report, full=full)


def _pct(p: float) -> str:
    return f"{100.0 * p:7.2f}%"


def _bar(p: float) -> str:
    full = p * BAR_WIDTH
    whole = int(full)
    return "█" * whole + ("▌" if full - whole >= 0.5 else "")


def _is_probability(name: str) -> bool:
    return name.startswith("p_") or name.startswith("P(")


def render_table(report: Report, full: bool = False) -> str:
    """The answer first: headline, the results, the distributions, the notes, the footer.

    Without ``full`` the view stays within :data:`MAX_LINES` where it can: rare outcomes
    (P below :data:`FOLD_BELOW`) fold into ``≤ k`` / ``a–b`` / ``≥ k`` rows, a long
    list in the notes shows its first :data:`MAX_LIST_ITEMS` items, and a distribution
    whose table no longer fits is summarised on one line (``--full`` prints all of it).
    """
    from mathhammer.present.headline import headline

    title = report.title or report.command
    how = "exact" if report.method == "exact" else "Monte Carlo"
    top = [headline(report), f"{title}  [{how}]", ""]
    if report.results:
        width = max(len(n) for n in report.results)
        top.append("results")
        for name, est in report.results.items():
            top.append(f"  {name:<{width}}  {est.format(percent=_is_probability(name))}")
        top.append("")
    notes = _info_lines(report, full)
    tables = {name: _distribution_table(name, dist, fold=not full)
              for name, dist in report.distributions.items()}
    left = MAX_LINES - len(top) - len(notes) - 1 - 2 * len(tables)  # footer; a line + gap each
    middle: list[str] = []
    summarised: set[str] = set()
    for name, dist in report.distributions.items():
        table = tables[name]
        if full or len(table) - 1 <= left:
            if middle and middle[-1]:
                middle.append("")
            middle.extend(table + [""])
            left -= len(table) - 1
        else:
            middle.append(_distribution_summary(name, dist))
            summarised.add(name)
    if middle and middle[-1]:
        middle.append("")
    footer = [_footer(report, skip=summarised)]
    lines = top + middle + notes + footer
    # names from user files reach the terminal here: no control character gets through;
    # parameters the engines name (‹focus›) read as the command line's flags
    text = "\n".join(printable(line) for line in with_flags("\n".join(lines)).split("\n"))
    return text.rstrip() + "\n"


def _info_lines(report: Report, full: bool) -> list[str]:
    from mathhammer.words import plain

    lines: list[str] = []
    for key, value in report.info.items():
        if key == "check":
            from mathhammer.query import check_lines

            lines.extend(check_lines(value))
        elif isinstance(value, InfoTable):
            lines.append(f"{key}:")
            lines.extend(info_table_lines(value))
        elif isinstance(value, list):  # an InfoLines shows its lines, not its records
            items = value.lines if isinstance(value, InfoLines) else [plain(v) for v in value]
            lines.append(f"{key}:")
            whole = full or key == "explain" or len(items) <= MAX_LIST_ITEMS + 1  # asked for
            shown = items if whole else items[:MAX_LIST_ITEMS]
            lines.extend(f"  {item}" for item in shown)
            if len(shown) < len(items):
                lines.append(f"  … {len(items) - len(shown)} more (‹full› lists every one)")
        elif isinstance(value, dict):  # one line a key: never a Python dict on the screen
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {plain(v)}" for k, v in value.items())
        elif key != "exact":
            lines.append(f"{key}: {plain(value)}")
    return lines


def info_table_lines(table: InfoTable) -> list[str]:
    """An :class:`InfoTable` as aligned text, each figure rounded to its standard error
    (:func:`mathhammer.words.rounded`): no Python repr, no digit the se does not support."""
    from mathhammer.words import rounded, text_table

    def cell(row: dict, col) -> str:
        value = row.get(col.key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "-" if value is None else str(value)
        if col.se is None and isinstance(value, int):
            return f"{value:+d}" if col.signed else str(value)
        se = row.get(col.se) if col.se else None
        return rounded(col.scale * float(value), None if se is None else col.scale * se,
                       signed=col.signed)

    header = tuple(col.heading for col in table.columns)
    return text_table(header, [tuple(cell(row, col) for col in table.columns) for row in table])


def _distribution_summary(name: str, dist: Distribution) -> str:
    """One line for a distribution whose table did not fit: mean, median, 90% range."""
    mean = _mean_text(dist, 2)
    lo, mid, hi = dist.percentile(0.05), dist.percentile(0.5), dist.percentile(0.95)
    return (f"{name}: mean {mean}, median {mid}, 90% from {lo} to {hi} "
            "(‹full› for every outcome)")


def _mean_place(dist: Distribution, exact_digits: int) -> int:
    """Decimals for a distribution's mean and sd: an exact one's ``exact_digits``, a Monte
    Carlo one's no more than its se supports (results.se_digits)."""
    if dist.is_exact:
        return exact_digits
    if not dist.mean_se > 0:
        return 0  # every sample the same value: an integer outcome
    return se_digits(dist.mean_se, exact_digits)


def _mean_text(dist: Distribution, exact_digits: int) -> str:
    """``7.2 ± 0.3`` (Monte Carlo, to its se; a constant sample ``20 ± 0``) or ``7.1944`` (exact)."""
    place = _mean_place(dist, exact_digits)
    if dist.is_exact:
        return f"{dist.mean:.{place}f}"
    if not dist.mean_se > 0:
        return f"{dist.mean:g} ± 0"
    # as the results table writes a mean (Estimate.format): never rounded to tens, so that
    # one answer never shows a figure two ways ("-6 ± 21" above, "-10 ± 20" here)
    return plus_minus(dist.mean, dist.mean_se)


def fold_rows(dist: Distribution, below: float = FOLD_BELOW,
              max_rows: int = MAX_TABLE_ROWS) -> list[tuple[str, int, int]]:
    """Table rows as (label, first index, last index) into ``dist.probs``.

    Runs of outcomes each below ``below`` fold into one row: ``≤ k`` at the bottom,
    ``≥ k`` at the top, ``a–b`` in between (a lone rare outcome inside stays a row).
    If more than ``max_rows`` remain, neighbouring rows merge into equal ranges.
    """
    probs = dist.probs
    n = len(probs)
    rare = probs < below
    if rare.all():  # every outcome is rare (a very wide distribution): ranges only
        rare[:] = False
    rows: list[tuple[str, int, int]] = []
    i = 0
    while i < n:
        j = i
        if rare[i]:
            while j + 1 < n and rare[j + 1]:
                j += 1
        rows.append(("", i, j))
        i = j + 1
    if len(rows) > max_rows:
        per = -(-len(rows) // max_rows)
        rows = [("", rows[k][1], rows[min(k + per, len(rows)) - 1][2])
                for k in range(0, len(rows), per)]
    labelled = []
    for k, (_, a, b) in enumerate(rows):
        lo, hi = dist.offset + a, dist.offset + b
        if a == b:
            label = f"{lo}"
        elif k == 0 and rare[a]:
            label = f"≤ {hi}"
        elif k == len(rows) - 1 and rare[b]:
            label = f"≥ {lo}"
        else:
            label = f"{lo}–{hi}"
        labelled.append((label, a, b))
    return labelled


_SEEN = math.ulp(0.0)  # a Monte Carlo outcome's share is 0 or at least 1/n


def _distribution_table(name: str, dist: Distribution, fold: bool = True) -> list[str]:
    mc = not dist.is_exact
    at_least, at_most = dist.at_least_curve(), dist.at_most_curve()
    if fold:
        rows = fold_rows(dist)
    elif mc:  # every outcome a trial gave is a row; a run of values none gave, one row
        rows = fold_rows(dist, below=_SEEN, max_rows=len(dist.probs))
    else:
        rows = [(str(dist.offset + i), i, i) for i in range(len(dist.probs))]
    width = max(7, *(len(label) for label, _, _ in rows))
    head = f"  {'outcome':>{width}}  {'P(=)':>8}" + (f"  {'± se':>7}" if mc else "")
    head += f"  {'P(≥)':>8}  {'P(≤)':>8}"
    lines = [f"{name}", head]
    for label, a, b in rows:
        p = float(dist.probs[a : b + 1].sum())
        row = f"  {label:>{width}}  {_pct(p)}"
        if mc:
            se = math.sqrt(max(p * (1.0 - p), 0.0) / dist.n_trials)
            row += f"  {100 * se:6.2f}%"
        row += f"  {_pct(at_least[a])}  {_pct(at_most[b])}  {_bar(p)}"
        lines.append(row.rstrip())
    return lines


def _footer(report: Report, skip: set[str] = frozenset()) -> str:
    parts = []
    for name, dist in report.distributions.items():
        if name in skip:  # its summary line already gives the mean
            continue
        parts.append(f"{name}: mean {_mean_text(dist, 4)}, sd {dist.sd:.{_mean_place(dist, 4)}f}")
    if report.method == "mc":
        parts.append(f"Monte Carlo: n_trials {report.n_trials:,}, seed {report.seed}; "
                     "± is one standard error, [..] a 95% interval")
    else:
        parts.append("exact")
    return " | ".join(parts)


def render_csv(report: Report) -> str:
    import csv

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
