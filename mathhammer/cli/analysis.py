"""``mathhammer compare LIST_A LIST_B`` and ``mathhammer sweep ATTACKER TARGET --vary ...``.

Thin: parse, call :func:`mathhammer.analysis.compare` / :func:`~mathhammer.analysis.sweep`,
render. ``--format json|csv`` use the shared report contract (see the docstrings of
:mod:`mathhammer.analysis.compare` and :mod:`mathhammer.analysis.sweep`); ``table``
prints the matrices / the sweep as text.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from mathhammer.cli._common import CommonOptions, deliver, query_command

NTrialsCell = Annotated[
    Optional[int],
    typer.Option("--n-trials", help="Monte Carlo trials per cell, fixed (default: adaptive, "
                                    "see --precision)."),
]
PrecisionCell = Annotated[
    Optional[float],
    typer.Option("--precision", help="Each Monte Carlo cell runs until its P(kill)'s 95% "
                                     "half-width is at most this (default 0.0075); --n-trials N "
                                     "runs N trials per cell instead."),
]
Scheduler = Annotated[
    Optional[str],
    typer.Option("--scheduler", help="Dask scheduler address (tcp://host:8786) to run the cells "
                                     "on a cluster; default: a local pool."),
]
Workers = Annotated[Optional[int], typer.Option("--workers", help="Local pool size (default: every core).")]
Policy = Annotated[
    str, typer.Option("--policy", help="Warmachine focus policy in melee: optimal, greedy or fixed.")
]
Rounds = Annotated[
    Optional[int],
    typer.Option("--rounds", help="Fantasy: combat rounds (default: until decided; 1 is exact)."),
]


def _emit(report, text_table: str, opts, plot_fn) -> None:
    from mathhammer.present import render as _render
    from mathhammer.present.flags import with_flags
    from mathhammer.present.headline import headline
    from mathhammer.present.host import HOST

    if HOST.get() is not None:  # `mathhammer serve`: the report, this table and the plot
        HOST.get().receive(report, text_table, plot_fn, opts.command)
        return
    if opts.brief:
        text = headline(report) + "\n"
    elif opts.format == "table":  # the answer first, then the matrices / the sweep
        text = headline(report) + "\n" + with_flags(text_table)
    else:
        text = _render.render(report, opts.format, command=opts.command)
    deliver(text, opts, plot_fn)  # --plot and --output all or nothing; stdout checked
    if report.method != "exact" and not opts.quiet and opts.format != "table":
        print(f"note: Monte Carlo cells, {report.info['trials']}, seed {report.seed}",
              file=sys.stderr)


def _cell_progress(opts: CommonOptions, n_trials: int | None, precision: float | None = None):
    """Cells done / planned on a terminal (the planned size first: cells x trials each)."""
    from mathhammer.cli._common import progress_bar
    from mathhammer.present.host import HOST

    if HOST.get() is not None:  # the server's own limits apply, as before
        return None
    if opts.quiet:
        return None
    from mathhammer.analysis.cells import DEFAULT_PRECISION

    if opts.method == "exact":
        trials = "exact cells"
    elif n_trials is not None:
        trials = f"cells x {n_trials:,} trials"
    else:
        trials = f"cells, each to ±{precision or DEFAULT_PRECISION:g}"
    return progress_bar(f"{trials}:", unit="cells")


def _pct(v: float) -> str:
    return "      —" if v is None or math.isnan(v) else f"{100 * v:6.1f}%"


def _num(v: float) -> str:
    return "      —" if v is None or math.isnan(v) else f"{v:7.2f}"


def _matrix_text(comparison, metric: str, direction: str, fmt,
                 columns: int | None = None) -> list[str]:
    """One matrix as text; wider than ``columns`` characters (a narrow terminal), its
    targets are split into blocks that fit, each repeating the attackers' names."""
    m = comparison.matrix(metric, direction)
    corner = "attacker / target"
    width = max(len(corner), *(len(str(a)) for a in m.index))
    cell = max(12, min(18, max(len(str(c)) for c in m.columns)))
    if columns is not None and 2 + width + len(m.columns) * (cell + 2) > columns:
        cell = 11  # narrow: shorter target names, more of them side by side
    cols = [str(c) if len(str(c)) <= cell else str(c)[: cell - 1] + "…" for c in m.columns]
    fit = len(cols) if columns is None else max(1, (columns - width - 2) // (cell + 2))
    values = m.to_numpy()
    lines = []
    for start in range(0, len(cols), fit):
        if start:
            lines.append("")
        lines.append(f"  {corner:<{width}}  " + "  ".join(f"{c:>{cell}}" for c in cols[start:start + fit]))
        for a, row in zip(m.index, values, strict=True):
            lines.append(f"  {a:<{width}}  " + "  ".join(f"{fmt(v):>{cell}}" for v in row[start:start + fit]))
    return lines


def compare_table(comparison, full: bool = False, columns: int | None = None) -> str:
    """The matrices as text; damage per 100 points only with ``full`` (the view stays short).
    ``columns``: the terminal's width, for a narrow one (a phone) the matrices wrap."""
    report = comparison.report
    lines = [report.title, "", comparison.list_a.summary(), comparison.list_b.summary(), ""]
    mc = report.method != "exact"
    for d in comparison.directions:
        for metric, label, fmt in (("p_kill", "P(kill)", _pct), ("mean_damage", "expected damage", _num),
                                   ("kills_per_100_points", "expected kills per 100 points", _num),
                                   ("mean_damage_per_100", "expected damage per 100 points", _num)):
            if metric == "mean_damage_per_100" and not full:
                continue
            lines.append(f"{d}  {label}")
            lines.extend(_matrix_text(comparison, metric, d, fmt, columns))
            lines.append("")
    lines.append(f"cell: {report.info['cell']}")
    lines.append(f"per 100 points: {report.info['per_100']}"
                 + ("" if full else "; --full adds expected damage per 100 points"))
    if mc:
        se = comparison.frame["p_kill_se"].max()
        lines.append(f"Monte Carlo cells: {report.info['trials']}, seed {report.seed}; "
                     f"largest P(kill) se {100 * se:.2f} pp (--format csv lists every se)")
    else:
        lines.append("exact")
    return "\n".join(lines) + "\n"


@query_command(only=("method", "seed", "format", "plot", "output", "quiet"),
               files=("list_a", "list_b"))
def compare_command(
    list_a: Annotated[str, typer.Argument(help="Army list TOML file, or a bundled list name.")],
    list_b: Annotated[str, typer.Argument(help="The opposing army list: a list TOML file or a bundled list name.")],
    targets: Annotated[Optional[str], typer.Option(
        "--targets", help="Only these targets: comma-separated unit labels or profile ids.")] = None,
    one_way: Annotated[bool, typer.Option("--one-way", help="Only A attacking B.")] = False,
    rounds: Rounds = None,
    policy: Policy = "optimal",
    opts: CommonOptions = None,  # filled in by @query_command
    n_trials: NTrialsCell = None,
    precision: PrecisionCell = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Every attacker x target cell of two army lists: P(kill), expected damage, per 100 points."""
    from mathhammer.analysis import compare
    from mathhammer.plots import save_comparison_plot

    opts.config()  # installs the first-compile notice on stderr
    chosen = None if targets is None else targets.split(",")
    result = compare(list_a, list_b, targets=chosen, method=opts.method, n_trials=n_trials,
                     seed=opts.seed, rounds=rounds, policy=policy, both_ways=not one_way, scheduler=scheduler,
                     workers=workers, progress=_cell_progress(opts, n_trials, precision),
                     precision=precision)
    _emit(result.report, compare_table(result, full=opts.full, columns=_terminal_columns(opts)),
          opts, lambda path: save_comparison_plot(result, Path(path)))


def _terminal_columns(opts) -> int | None:
    """The terminal's width when the table goes to one (a file or a pipe gets it whole)."""
    import shutil

    from mathhammer.cli._common import HOST

    if HOST.get() is not None or opts.output is not None or not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


def sweep_table(result) -> str:
    report = result.report
    v = result.vary
    lines = [report.title, "", report.info["vary"], f"P(kill) = {report.info['p_kill']}; "
             f"attacks: {report.info['how']}", ""]
    series = list(dict.fromkeys(result.frame["series"]))
    head = f"  {v.label:>6}" + "".join(f"  {('P(kill) ' + ('' if s == 'plain' else s))[:18]:>18}"
                                       for s in series)
    head += f"  {'step':>8}  {'mean damage':>11}"
    lines.append(head)
    plain = result.series("plain")
    marks = {b["to"]: b for b in result.breakpoints}
    prev = None
    for x in plain.index:
        row = f"  {x:>6}"
        for s in series:
            est = result.series(s).loc[x]
            text = f"{100 * est['p_kill']:.2f}%"
            if est["p_kill_se"] > 0:
                text += f" ±{100 * est['p_kill_se']:.2f}"
            row += f"  {text:>18}"
        step = "" if prev is None else f"{100 * (plain.loc[x, 'p_kill'] - prev):+.1f}pp"
        row += f"  {step:>8}  {plain.loc[x, 'mean_damage']:>11.3f}"
        if x in marks:
            row += "  ◀ breakpoint"
        lines.append(row)
        prev = plain.loc[x, "p_kill"]
    lines.append("")
    lines.append("breakpoints:")
    lines.extend(f"  {b}" for b in report.info["breakpoints"])
    if "worth" in report.info:
        lines.append("one more step vs the option:")
        lines.extend(f"  {w}" for w in report.info["worth"])
    if report.method != "exact":
        lines.append(f"Monte Carlo points: {report.info['trials']}, seed {report.seed}; "
                     "± is one standard error")
    else:
        lines.append("exact")
    return "\n".join(lines) + "\n"


@query_command(only=("method", "seed", "format", "plot", "output", "quiet"),
               files=("attacker", "target", "ruleset"))
def sweep_command(
    attacker: Annotated[str, typer.Argument(help="Attacker profile id or file (khador/juggernaut).")],
    target: Annotated[str, typer.Argument(help="Target profile id or file (cygnar/ironclad).")],
    vary: Annotated[str, typer.Option(
        "--vary", help="STAT=LO..HI, STAT=LO..HI:STEP or STAT=A,B,C; prefix attacker. or target. "
                       "(Warmachine def arm mat rat str focus attacks; Fantasy ws s t i a ld save "
                       "ward models).")],
    also: Annotated[Optional[str], typer.Option(
        "--also", help="Extra series with an option on: boost_hit, boost_damage, charge (the attacker charges) (comma list).")] = None,
    focus: Annotated[Optional[int], typer.Option("--focus", help="Warmachine: focus the attacker spends (buys attacks; 1 pays a warjack's charge); default 3 for a warjack, FOCUS for a warcaster.")] = None,
    mode: Annotated[Optional[str], typer.Option("--mode", help="Warmachine: melee or ranged weapons.")] = None,
    charge: Annotated[bool, typer.Option("--charge", help="The attacker charges (Warmachine: the first attack's damage pre-boosted, 1 focus for a warjack, WM-D3).")] = False,
    may_charge: Annotated[bool, typer.Option("--may-charge", help="Warmachine: the focus policy decides whether to charge.")] = False,
    ruleset: Annotated[Optional[str], typer.Option("--ruleset", help="Fantasy: basic, wfb8, t9a1 or a ruleset file (default: the attacker's).")] = None,
    threshold: Annotated[float, typer.Option("--threshold", help="Smallest P(kill) step that counts as a breakpoint.")] = 0.05,
    game: Annotated[Optional[str], typer.Option("--game", help="warmachine or fantasy (found from the profiles when omitted).")] = None,
    rounds: Rounds = None,
    policy: Policy = "optimal",
    opts: CommonOptions = None,  # filled in by @query_command
    n_trials: NTrialsCell = None,
    precision: PrecisionCell = None,
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Vary one stat of the attacker or the target and show where P(kill) jumps (breakpoints)."""
    from mathhammer.analysis import sweep
    from mathhammer.errors import InputError
    from mathhammer.plots import save_sweep_plot

    opts.config()
    if game not in (None, "warmachine", "fantasy"):
        raise InputError("--game", "must be warmachine or fantasy", game, "use --game warmachine")
    if mode not in (None, "melee", "ranged"):
        raise InputError("--mode", "must be melee or ranged", mode, "use --mode ranged")
    options = {k: v for k, v in (("focus", focus), ("mode", mode)) if v is not None}
    if charge and may_charge:
        raise InputError("--charge", "choose one: --charge (the attacker charges) or --may-charge "
                         "(the policy decides)", True, "drop one of them")
    if charge or may_charge:
        options["charge"] = "must" if charge else "may"
    extra = tuple(a.strip() for a in also.split(",") if a.strip()) if also else ()
    result = sweep(attacker, target, vary, game=game, attacker_options=options, also=extra,
                   ruleset=ruleset, method=opts.method, n_trials=n_trials, seed=opts.seed,
                   rounds=rounds, policy=policy, threshold=threshold, scheduler=scheduler, workers=workers,
                   progress=_cell_progress(opts, n_trials, precision), precision=precision)
    _emit(result.report, sweep_table(result), opts, lambda path: save_sweep_plot(result, Path(path)))
