"""matplotlib figures for the CLI's ``--plot`` and for notebooks: the shared pieces.

Every chart has a title, labelled axes, a percent scale and a legend; Monte Carlo
bars carry ±1.96 se error bars; names are wrapped, never cut. The figure of each
command's answer is built in :mod:`mathhammer.present.answer_plots`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def _pyplot():
    """pyplot with the user's backend (notebook, GUI, or matplotlib's headless Agg
    fallback). Files written for the CLI never go through pyplot (see new_figure)."""
    import matplotlib.pyplot as plt

    return plt


def wrap(text: str, width: int = 22) -> str:
    """``text`` on lines of at most ``width`` characters (a longer word keeps its line)."""
    import textwrap

    text = str(text).replace(" ± ", "\u00a0±\u00a0")  # keep a figure and its error on one line
    return "\n".join(textwrap.wrap(text, width, break_long_words=False,
                                    break_on_hyphens=False)) or text


def new_figure(n_rows: int = 1, height: float = 4.5):
    """A figure with ``n_rows`` axes for files: no pyplot, no GUI backend, thread-safe.

    Returns (figure, list of axes).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, height * n_rows), dpi=110)
    axes = fig.subplots(n_rows, 1, squeeze=False)[:, 0]
    return fig, list(axes)


def plot_distribution(dist, ax=None, title: str | None = None, xlabel: str = "outcome"):
    """Bars of P(=k) plus the "at least k" curve on a percent axis. Returns the Axes."""
    from matplotlib.ticker import PercentFormatter

    if ax is None:
        _, ax = _pyplot().subplots(figsize=(8, 4.5), dpi=110)
    k = dist.outcomes
    p = dist.probs * 100
    err = None if dist.is_exact else dist.se * 100 * 1.96
    ax.bar(k, p, color="#4C72B0", alpha=0.85, label="P(= k)", yerr=err,
           error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333333"})
    ax.step(k, dist.at_least_curve() * 100, where="mid", color="#DD8452", linewidth=2,
            label="P(≥ k), at least k")
    ax.set_ylim(0, 105)
    ax.yaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel(xlabel)
    ax.set_ylabel("probability")
    if len(k) <= 30:
        ax.set_xticks(k)
    ax.grid(axis="y", alpha=0.3)
    how = "exact" if dist.is_exact else f"Monte Carlo, n = {dist.n_trials:,}, bars ±95%"
    ax.set_title(f"{title or 'distribution'}\nmean {dist.mean:.2f}, sd {dist.sd:.2f} ({how})",
                 fontsize=11)
    ax.legend(loc="upper right", frameon=False)
    return ax


def save_figure(fig, path: Path, flag: str = "‹plot›") -> None:
    """Save a figure atomically (temp file + rename) in the format of its suffix."""
    import io

    from mathhammer.io import write_atomically

    buf = io.BytesIO()
    fig.savefig(buf, format=path.suffix.lstrip(".").lower() or "png", bbox_inches="tight")
    if "matplotlib.pyplot" in sys.modules:  # release a pyplot-managed figure
        sys.modules["matplotlib.pyplot"].close(fig)
    write_atomically(path, buf.getvalue(), flag)


__all__ = ["plot_distribution", "save_figure", "new_figure", "wrap", "np"]


# --------------------------------------------------------------------------- analysis (issue 6)
def plot_matrix(comparison, metric: str = "p_kill", direction: str = "A→B", ax=None):
    """Heatmap of an attacker × target matrix of a :class:`~mathhammer.analysis.Comparison`.

    Cells are coloured by ``metric`` (percent for P(kill)) and annotated with the
    value, the expected damage and, when the attacker has points, P(kill) per 100 points.
    """
    table = comparison.matrix(metric, direction)
    damage = comparison.matrix("mean_damage", direction)
    per100 = comparison.matrix("kills_per_100_points", direction)
    is_p = metric.startswith("p_kill") and not metric.endswith("per_100")
    values = table.to_numpy(dtype=float) * (100.0 if is_p else 1.0)
    n_rows, n_cols = values.shape
    texts = [[(f"{values[r, c]:.1f}%" if is_p else f"{values[r, c]:.2f}")
              + f"\n{damage.iat[r, c]:.1f} dmg"
              + (f"\n{per100.iat[r, c]:.2f} kills/100 pts"
                 if is_p and not np.isnan(per100.iat[r, c]) else "")
              for c in range(n_cols)] for r in range(n_rows)]
    ax = _heatmap(values, texts, ax, (1.9, 3.2, 0.9, 2.0), is_p,
                  "P(kill)" if is_p else metric.replace("_", " "))
    ax.set_xticks(range(n_cols), [wrap(t, 14) for t in table.columns])
    ax.set_yticks(range(n_rows), [wrap(a, 22) for a in table.index])
    ax.set_xlabel("target")
    ax.set_ylabel("attacker")
    lists = {"A→B": (comparison.list_a.name, comparison.list_b.name),
             "B→A": (comparison.list_b.name, comparison.list_a.name)}[direction]
    what = "P(kill)" if is_p else metric.replace("_", " ")
    ax.set_title(f"{lists[0]} attacking {lists[1]}: {what}", fontsize=11)
    return ax


def _heatmap(values, texts, ax, cell, percent: bool, colour_label: str):
    """Coloured cells with a colour bar and ``texts[r][c]`` written in each cell (None: none).

    ``cell`` = (inches per column, extra width, inches per row, extra height) for a new figure.
    """
    plt = _pyplot()
    from matplotlib.ticker import PercentFormatter

    n_rows, n_cols = values.shape
    if ax is None:
        w, extra_w, h, extra_h = cell
        _, ax = plt.subplots(figsize=(w * n_cols + extra_w, h * n_rows + extra_h), dpi=110)
    vmax = 100.0 if percent else max(float(np.nanmax(values)) if values.size else 1.0, 1e-9)
    image = ax.imshow(values, cmap="YlOrRd", vmin=0.0, vmax=vmax, aspect="auto")
    bar = ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.03)
    if percent:
        bar.ax.yaxis.set_major_formatter(PercentFormatter())
    bar.set_label(colour_label)
    for r in range(n_rows):
        for c in range(n_cols):
            if texts[r][c] is not None:  # white on dark cells
                ax.text(c, r, texts[r][c], ha="center", va="center", fontsize=8,
                        color="white" if values[r, c] > 0.6 * vmax else "#222222")
    return ax


def save_comparison_plot(comparison, path: Path) -> None:
    """Heatmaps of P(kill) for every direction of a comparison, one panel each."""
    plt = _pyplot()
    directions = comparison.directions
    shapes = [comparison.matrix("p_kill", d).shape for d in directions]
    width = max(1.9 * c + 3.2 for _, c in shapes)
    height = sum(0.9 * r + 2.0 for r, _ in shapes)
    fig, axes = plt.subplots(len(directions), 1, figsize=(width, height), dpi=110, squeeze=False,
                             gridspec_kw={"height_ratios": [r + 2 for r, _ in shapes]})
    for ax, d in zip(axes[:, 0], directions, strict=True):
        plot_matrix(comparison, "p_kill", d, ax=ax)
    report = comparison.report
    how = ("exact" if report.method == "exact" else
           f"{'some cells exact, ' if report.method == 'mixed' else ''}"
           f"Monte Carlo cells n = {report.n_trials:,} each")
    fig.suptitle(f"{comparison.list_a.name} vs {comparison.list_b.name} ({how})\n"
                 "each cell: P(kill), expected damage, expected kills per 100 points of attacker",
                 fontsize=10)
    fig.tight_layout()
    save_figure(fig, Path(path))


def plot_sweep(result, ax=None, metric: str = "p_kill"):
    """P(kill) (or expected damage) against the swept stat, one line per series, with
    ±95% bands for Monte Carlo points and the breakpoints marked."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    is_p = metric == "p_kill"
    scale = 100.0 if is_p else 1.0
    colours = ["#4C72B0", "#DD8452", "#55A868", "#C44E52"]
    for i, name in enumerate(dict.fromkeys(result.frame["series"])):
        s = result.series(name)
        x, y, se = s.index.to_numpy(), s[metric].to_numpy() * scale, s[f"{metric}_se"].to_numpy() * scale
        label = (result.report.info.get("policy", "as given") if name == "plain"
                 else {"boost_hit": "boost every attack roll", "boost_damage": "boost every damage roll",
                       "charge": "charging"}.get(name, name))
        ax.plot(x, y, marker="o", color=colours[i % 4], linewidth=2, label=label)
        if (se > 0).any():
            ax.fill_between(x, y - 1.96 * se, y + 1.96 * se, color=colours[i % 4], alpha=0.2)
    if is_p:
        for k, b in enumerate(result.breakpoints):
            mid = (b["from"] + b["to"]) / 2
            ax.axvline(mid, color="#C44E52", linestyle="--", linewidth=1.2,
                       label="breakpoint" if k == 0 else None)
            ax.annotate(f"{100 * b['delta']:+.0f} pp", (mid, (b["p_from"] + b["p_to"]) * 50),
                        xytext=(6, 0), textcoords="offset points", color="#C44E52", fontsize=9)
        ax.set_ylim(-2, 102)
        ax.yaxis.set_major_formatter(PercentFormatter())
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    v = result.vary
    ax.set_xlabel(f"{v.side} {v.label}")
    ax.set_ylabel("P(kill)" if is_p else metric.replace("_", " "))
    ax.grid(alpha=0.3)
    ax.legend(loc="best", frameon=False)
    ax.set_title(result.report.title.removeprefix("sweep: "), fontsize=11)
    return ax


def save_sweep_plot(result, path: Path) -> None:
    """P(kill) with breakpoints above, expected damage below."""
    plt = _pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7.5), dpi=110, sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    plot_sweep(result, ax=top)
    plot_sweep(result, ax=bottom, metric="mean_damage")
    bottom.set_title("expected damage" if result.vary else "", fontsize=10)
    top.set_xlabel("")
    report = result.report
    how = ("exact" if report.method == "exact" else
           f"Monte Carlo{' and exact' if report.method == 'mixed' else ''}, "
           f"n = {report.n_trials:,} per point, bands ±95%")
    fig.suptitle(f"P(kill) = {report.info.get('p_kill', 'P(kill)')}; {how}", fontsize=9, y=0.995)
    fig.tight_layout()
    save_figure(fig, Path(path))


def plot_table_heatmap(table, ax=None, title: str = "", percent: bool = True,
                       colour_label: str = "probability", xlabel: str = "", ylabel: str = "",
                       se=None):
    """Heatmap of any rows × columns DataFrame (notebooks): values annotated in each cell,
    ``± se`` under them when a same-shaped ``se`` frame is given (Monte Carlo)."""
    values = table.to_numpy(dtype=float) * (100.0 if percent else 1.0)
    n_rows, n_cols = values.shape
    texts = [[None] * n_cols for _ in range(n_rows)]
    for r in range(n_rows):
        for c in range(n_cols):
            v = values[r, c]
            if np.isnan(v):
                continue
            text = f"{v:.0f}%" if percent else f"{v:.2f}"
            if se is not None and float(se.iat[r, c]) > 0:
                s = float(se.iat[r, c]) * (100.0 if percent else 1.0)
                text += f"\n±{s:.1f}" if percent else f"\n±{s:.2f}"
            texts[r][c] = text
    ax = _heatmap(values, texts, ax, (1.5, 3.0, 0.6, 2.0), percent, colour_label)
    ax.set_xticks(range(n_cols), [wrap(t, 12) for t in table.columns], fontsize=9)
    ax.set_yticks(range(n_rows), [wrap(a, 22) for a in table.index])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    return ax


# ---------------------------------------------------------------------------- answer-chart pieces
#: (shared by every game's answer figures: :mod:`mathhammer.present.answer_plots`)
COLOURS = {"win": "#55A868", "draw": "#8C8C8C", "lose": "#C44E52", "main": "#4C72B0",
           "second": "#DD8452", "other": "#8172B2"}


def how_words(report) -> str:
    """``exact``, or the trials and what the whiskers mean."""
    if report.method == "exact":
        return "exact"
    return f"Monte Carlo, {report.n_trials:,} trials; whiskers: 95% intervals"


def error_bars(estimates) -> np.ndarray | None:
    """Asymmetric 95% (Wilson) error bars in percent, or None when every value is exact."""
    if all(e.is_exact for e in estimates):
        return None
    lo = [100 * (e.value - e.ci95[0]) for e in estimates]
    hi = [100 * (e.ci95[1] - e.value) for e in estimates]
    return np.array([lo, hi])


def probability_bars(ax, labels: Sequence[str], estimates, colours=None, label_width: int = 24,
                     xlabel: str = "probability"):
    """Horizontal bars of probabilities (percent), a value at each bar's end, 95% whiskers."""
    from matplotlib.ticker import PercentFormatter

    y = np.arange(len(labels))[::-1]
    values = [100 * e.value for e in estimates]
    ax.barh(y, values, color=colours or COLOURS["main"], xerr=error_bars(estimates),
            error_kw={"elinewidth": 1, "capsize": 3, "ecolor": "#333333"}, height=0.6)
    for yi, v in zip(y, values, strict=True):
        ax.text(min(v, 100) + 1.5, yi, f"{v:.1f}%", va="center", fontsize=9)
    ax.set_yticks(y, [wrap(name, label_width) for name in labels])
    ax.set_xlim(0, 112)
    ax.xaxis.set_major_formatter(PercentFormatter())
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return ax


def panel_heights(*rows: float) -> tuple:
    """Panel heights in inches, each at least 1.2."""
    return tuple(max(r, 1.2) for r in rows)


def stacked_panels(heights: Sequence[float], width: float = 8.5):
    """A figure of stacked panels of the given heights in inches (no pyplot)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, sum(heights) + 1.0), dpi=110)
    axes = fig.subplots(len(heights), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
    return fig, list(axes[:, 0])


def first_result(report, *names):
    """The first of ``names`` the report has among its results (None if none)."""
    for name in names:
        if name in report.results:
            return report.results[name]
    return None
