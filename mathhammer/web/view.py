"""Report → what a page shows: the headline, the results table, distributions, notes.

Values are formatted by the same helpers as the CLI's table view (``Estimate.format``,
the headline); the full text the CLI prints is shown as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ResultRow:
    name: str
    value: str
    se: str
    interval: str


@dataclass
class DistRow:
    outcome: str
    p_eq: str
    se: str
    p_at_least: str
    p_at_most: str
    bar: float  # percent width of the bar


@dataclass
class DistView:
    name: str
    summary: str
    rows: list[DistRow]
    folded: int
    exact: bool


@dataclass
class TableView:
    """A grid of the answer (:mod:`mathhammer.present.tables`) as the page shows it:
    each cell (value, "± se" or "")."""

    title: str
    corner: str
    columns: list[str]
    rows: list[tuple[str, list[tuple[str, str]]]]

    @property
    def mc(self) -> bool:
        """Some cell carries a standard error."""
        return any(se for _, cells in self.rows for _, se in cells)


@dataclass
class ReportView:
    headline: str
    title: str
    how: str
    results: list[ResultRow] = field(default_factory=list)
    distributions: list[DistView] = field(default_factory=list)
    notes: list[tuple[str, Any]] = field(default_factory=list)  # (key, text or list of lines)
    text: str = ""
    own_table: bool = False  # the command prints its own table (compare's matrices, a sweep)
    tables: list[TableView] = field(default_factory=list)  # grids: compare, score, fb turn ...


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _pct(p: float) -> str:
    return f"{100.0 * p:.2f}%"


def _is_probability(name: str) -> bool:
    return name.startswith("p_") or name.startswith("P(")


def build(report, table: str | None) -> ReportView:
    from mathhammer.present.headline import headline
    from mathhammer.present.render import render_table
    from mathhammer.present.tables import report_tables
    from mathhammer.results import InfoLines
    from mathhammer.words import method_words, plain

    view = ReportView(headline=headline(report), title=report.title or report.command,
                      how=method_words(report))
    for name, est in report.results.items():
        # a p_ name holds a probability; a figure outside [0, 1] under an older p_ name
        # (compare's per-100-points rates) is printed as the plain number it is
        percent = _is_probability(name) and 0.0 <= est.value <= 1.0
        scale, unit, digits = (100.0, "%", 2) if percent else (1.0, "", 4)
        value = f"{est.value * scale:.{digits}f}{unit}" if not est.whole else est.format()
        if est.is_exact:
            view.results.append(ResultRow(name, value, "", ""))
        else:
            lo, hi = est.ci95
            view.results.append(ResultRow(
                name, value, f"± {est.se * scale:.{digits}f}{unit}",
                f"[{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"))
    for name, dist in report.distributions.items():
        view.distributions.append(_distribution(_clean(name), dist))
    for key, value in report.info.items():
        if key == "exact":
            continue
        if key == "check":
            from mathhammer.query import check_lines

            head, *lines = check_lines(value)
            view.notes.append((head.rstrip(":"), [line.strip() for line in lines]))
        elif isinstance(value, InfoLines):  # records for the JSON, its lines for people
            view.notes.append((key, list(value.lines)))
        elif isinstance(value, (list, tuple)):
            if all(_scalar(item) for item in value):
                view.notes.append((key, [plain(item) for item in value]))
        elif isinstance(value, dict):
            if all(_scalar(v) for v in value.values()):  # nested data is for the JSON only
                view.notes.append((key, [f"{k}: {plain(v)}" for k, v in value.items()]))
        else:
            view.notes.append((key, plain(value)))
    view.tables = [_table(t) for t in report_tables(report)]
    view.text = table if table is not None else render_table(report)
    view.own_table = table is not None
    # names come from uploaded files: an escape sequence in one is shown as text, not kept
    # raw for a reader who copies the table into a terminal
    view.headline, view.title, view.text = (_clean(view.headline), _clean(view.title),
                                            _clean(view.text))
    view.notes = [(_clean(key), [_clean(v) for v in value] if isinstance(value, list)
                   else _clean(value)) for key, value in view.notes]
    view.results = [ResultRow(_clean(r.name), r.value, r.se, r.interval) for r in view.results]
    return view


def _table(table) -> TableView:
    """Cells as text: a probability in percent (value 1 decimal, se in points), other
    figures with 2 decimals; a Monte Carlo cell carries its standard error."""
    rows = []
    for label, cells in zip(table.rows, table.cells, strict=True):
        shown = []
        for j, est in enumerate(cells):
            if est is None:
                shown.append(("—", ""))
                continue
            scale, unit = (100.0, "%") if table.percent(j) else (1.0, "")
            se = est.se * scale
            shown.append((f"{est.value * scale:.{1 if unit else 2}f}{unit}",
                           "" if est.is_exact else f"± {se:.{2 if se >= 0.01 or se == 0 else 3}f}"))
        rows.append((_clean(label), shown))
    return TableView(_clean(table.title), _clean(table.corner),
                     [_breakable(_clean(c)) for c in table.columns], rows)


def _breakable(name: str):
    """A result name that may wrap after each ``_`` in a narrow column (markup, escaped)."""
    from markupsafe import Markup, escape

    return Markup("_<wbr>").join(escape(part) for part in name.split("_"))


def _clean(text: str) -> str:
    """Shown text: escapes for control characters, parameters as the command line's flags."""
    from mathhammer.present.flags import with_flags
    from mathhammer.web.commands import printable

    return "\n".join(printable(line) for line in with_flags(str(text)).split("\n"))


def _distribution(name: str, dist) -> DistView:
    """Rows as the CLI's table folds them (rare outcomes into ≤ k / a–b / ≥ k rows)."""
    import math

    from mathhammer.present.render import fold_rows

    mc = not dist.is_exact
    at_least, at_most = dist.at_least_curve(), dist.at_most_curve()
    rows = fold_rows(dist)
    sums = [float(dist.probs[a:b + 1].sum()) for _, a, b in rows]
    top = max(sums, default=0.0) or 1.0
    out = []
    for (label, a, b), p in zip(rows, sums, strict=True):
        se = math.sqrt(max(p * (1.0 - p), 0.0) / dist.n_trials) if mc else 0.0
        out.append(DistRow(label, _pct(p), f"± {100 * se:.2f}%" if mc else "",
                           _pct(float(at_least[a])), _pct(float(at_most[b])),
                           round(100 * p / top, 1)))
    mean = f"{dist.mean:.4f}" + ("" if dist.is_exact else f" ± {dist.mean_se:.4f}")
    folded = sum(1 for label, a, b in rows if a != b)
    return DistView(name, f"mean {mean}, sd {dist.sd:.4f}", out, folded, dist.is_exact)
