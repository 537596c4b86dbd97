"""matplotlib figures for the CLI's ``--plot`` and for notebooks.

Every chart has a title, labelled axes, a percent scale and a legend; Monte Carlo
bars carry ±1.96 se error bars.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def plot_distribution(dist, ax=None, title: str | None = None, xlabel: str = "outcome"):
    """Bars of P(=k) plus the "at least k" curve on a percent axis. Returns the Axes."""
    plt = _pyplot()
    from matplotlib.ticker import PercentFormatter

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
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


def save_figure(fig, path: Path, flag: str = "--plot") -> None:
    """Save a figure atomically (temp file + rename) in the format of its suffix."""
    import io

    from mathhammer.cli._common import write_atomically

    buf = io.BytesIO()
    fig.savefig(buf, format=path.suffix.lstrip(".").lower() or "png", bbox_inches="tight")
    _pyplot().close(fig)
    write_atomically(path, buf.getvalue(), flag)


def save_report_plot(report, path: Path) -> None:
    """One panel per distribution of a report, written atomically to ``path``."""
    plt = _pyplot()
    dists = list(report.distributions.items())
    if not dists:
        from mathhammer.errors import InputError

        raise InputError("--plot", f"{report.command} has no distribution to plot", str(path),
                         "drop --plot")
    fig, axes = plt.subplots(len(dists), 1, figsize=(8, 4.5 * len(dists)), dpi=110, squeeze=False)
    for ax, (name, dist) in zip(axes[:, 0], dists, strict=True):
        plot_distribution(dist, ax=ax, title=f"{report.title or report.command}: {name}",
                          xlabel=name.replace("_", " "))
    fig.tight_layout()
    save_figure(fig, Path(path))


__all__ = ["plot_distribution", "save_figure", "save_report_plot", "np"]
