"""An answer's grids of figures: rows × columns, read from the report's own data.

A report keeps its figures flat (``results``: name → estimate) and, for some commands,
as matrices (``info.matrix``); a reader wants them as grids. Nothing here is written per
command — the grids come from two shapes of data any report may have:

* **labelled matrices** in ``info``: ``{title: {ROWS: [...], COLUMNS: [...], metric:
  [[...]], metric_se: [[...]]}}`` (``compare``'s ``info.matrix``: attackers × targets);
* **bracketed result names**: ``metric[row]`` (``score``'s
  ``points_destroyed_per_turn[Juggernaut]``) gives one grid of rows × metrics;
  ``metric[group, row]`` (``fb turn``'s ``p_holding[Orc Boyz, turn 2]``) one grid per
  group. Figures a labelled matrix already shows are not repeated.

Only real grids are made: at least two rows and two columns. Every cell keeps its
:class:`~mathhammer.results.Estimate` (value and standard error).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from mathhammer.results import Z95, Estimate, Report

#: ``metric[key]`` or ``metric[group, key]``
_BRACKETED = re.compile(r"(?P<metric>[^\[\]]+)\[(?P<key>[^\[\]]+)\]")


@dataclass(frozen=True)
class Table:
    """A grid of figures. ``cells[i][j]`` is row i, column j (None: undefined there);
    ``metrics[j]`` names the figure of column j (a result name or a matrix's metric)."""

    title: str  # "" for a grid of one-level names (its columns say what it holds)
    corner: str  # the first column's header: what the rows and columns are
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[Estimate | None, ...], ...]
    metrics: tuple[str, ...]

    def percent(self, column: int) -> bool:
        """Column ``column`` holds probabilities (shown as percentages)."""
        values = [row[column].value for row in self.cells if row[column] is not None]
        return _is_probability(self.metrics[column]) and all(0.0 <= v <= 1.0 for v in values)


def _is_probability(name: str) -> bool:
    return name.startswith("p_") or name.startswith("P(")


def report_tables(report: Report) -> list[Table]:
    """The grids of ``report``: its labelled matrices, then its bracketed results."""
    tables: list[Table] = []
    shown: set[str] = set()  # metrics a labelled matrix shows
    for value in report.info.values():
        for table, metric in _labelled(value, report.n_trials):
            tables.append(table)
            shown.add(metric)
    tables.extend(_bracketed(report, shown))
    return [t for t in tables if len(t.rows) >= 2 and len(t.columns) >= 2]


def _labelled(value, n_trials: int | None) -> list[tuple[Table, str]]:
    """``{title: {ROWS: [...], COLUMNS: [...], metric: [[...]] ...}}`` as (table, metric)."""
    if not isinstance(value, dict):
        return []
    out = []
    for title, block in value.items():
        if not isinstance(block, dict):
            return []
        labels = [k for k, v in block.items()
                  if isinstance(v, list) and v and all(isinstance(x, str) for x in v)]
        if len(labels) != 2:
            return []
        rows, columns = block[labels[0]], block[labels[1]]
        corner = f"{_singular(labels[0])} / {_singular(labels[1])}"
        for metric, grid in block.items():
            if metric in labels or metric.endswith("_se") or not _is_grid(grid, rows, columns):
                continue
            if all(x is None for row in grid for x in row):  # e.g. trials of exact cells only
                continue
            se = block.get(f"{metric}_se")
            se = se if _is_grid(se, rows, columns) else None
            cells = tuple(tuple(_estimate(grid[i][j], se[i][j] if se else None, n_trials)
                                for j in range(len(columns))) for i in range(len(rows)))
            out.append((Table(f"{title} {metric}", corner, tuple(rows), tuple(columns), cells,
                              (metric,) * len(columns)), metric))
    return out


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


def _is_grid(grid, rows, columns) -> bool:
    return (isinstance(grid, list) and len(grid) == len(rows) and all(
        isinstance(row, list) and len(row) == len(columns) and all(
            x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)) for x in row)
        for row in grid))


def _estimate(value, se, n_trials: int | None) -> Estimate | None:
    """A matrix cell; a standard error above 0 marks a Monte Carlo figure."""
    if value is None or math.isnan(value):
        return None
    se = 0.0 if se is None or math.isnan(se) else float(se)
    if se == 0.0:
        return Estimate.exact(float(value))
    return Estimate(float(value), se, (value - Z95 * se, value + Z95 * se), n_trials or 0)


def _bracketed(report: Report, shown: set[str]) -> list[Table]:
    """Grids of ``metric[key]`` / ``metric[group, key]`` results, in the report's order."""
    # group -> row -> metric -> estimate (group "" for one-level names)
    grids: dict[str, dict[str, dict[str, Estimate]]] = {}
    for name, est in report.results.items():
        found = _BRACKETED.fullmatch(name)
        if found is None or found["metric"] in shown:
            continue
        group, _, row = found["key"].rpartition(", ")
        grids.setdefault(group, {}).setdefault(row, {})[found["metric"]] = est
    tables = []
    for group, rows in grids.items():
        # metrics that share the same rows make one grid (p_slain[champion] is not a column
        # of p_broke[unit])
        families: dict[tuple[str, ...], list[str]] = {}
        metrics = list(dict.fromkeys(m for figures in rows.values() for m in figures))
        for metric in metrics:
            keys = tuple(r for r, figures in rows.items() if metric in figures)
            families.setdefault(keys, []).append(metric)
        for keys, columns in families.items():
            cells = tuple(tuple(rows[r].get(m) for m in columns) for r in keys)
            tables.append(Table(group, "", keys, tuple(columns), cells, tuple(columns)))
    return tables
