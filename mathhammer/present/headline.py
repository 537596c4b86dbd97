"""The headline: one sentence that answers the question a report was asked.

Every table view prints it first and ``--brief`` prints nothing else. The sentence
is written the way a player asks the question — "Juggernaut destroys Ironclad:
48.33% (exact) · mean damage 25.4 boxes" — with the main figure first, then the
method, then the figures a player reads next.

Where it comes from, in order (:func:`headline_source` says which one answered):

1. ``Report.headline``, set by the library function that built the report (it knows
   the question: the threshold asked for, the names of the units);
2. a builder that reads the report's own results, title and info: the shared
   commands' in :data:`BUILDERS` here, each game's from its adapter
   (:meth:`mathhammer.game.Game.headline_builders`);
3. a plain sentence from the first probability (or result), so no command is ever
   without one — a new command should not rely on it (a test walks every command).

The numbers-in-words pieces are :mod:`mathhammer.words`; the sentences an engine writes
itself live with the engine (``<game>/headlines.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from mathhammer import game as games
from mathhammer.errors import printable
from mathhammer.present.flags import with_flags
from mathhammer.results import Report
from mathhammer.words import SEP, figure, method_words, words

__all__ = ["SEP", "headline", "headline_source", "fallback", "builder_for", "method_words"]


def headline(report: Report) -> str:
    """The report's headline sentence (see the module docstring for where it comes from),
    any control character from a name shown as an escape and parameters as the command
    line's flags."""
    return printable(with_flags(_headline(report)))


def _headline(report: Report) -> str:
    if report.headline:
        return report.headline
    builder = builder_for(report.command)
    if builder is not None:
        try:
            return builder(report)
        except (KeyError, ValueError, IndexError):  # a report of an unexpected shape
            pass
    return fallback(report)


def headline_source(report: Report) -> str:
    """``"report"``, ``"command"`` or ``"fallback"``: which of the three wrote the headline."""
    if report.headline:
        return "report"
    builder = builder_for(report.command)
    if builder is not None:
        try:
            builder(report)
            return "command"
        except (KeyError, ValueError, IndexError):
            pass
    return "fallback"


def fallback(report: Report) -> str:
    """A plain sentence from the report's first probability (or first result)."""
    subject = report.title or report.command
    if not report.results:
        if report.distributions:
            name, dist = next(iter(report.distributions.items()))
            mean = f"{dist.mean:.3f}" + ("" if dist.is_exact else f" ± {dist.mean_se:.3f}")
            return f"{subject}: mean {words(name)} {mean} ({method_words(report)})"
        return f"{subject} ({method_words(report)})"
    name = next((n for n in report.results if n.startswith("p_")), next(iter(report.results)))
    value = figure(report.results[name], name.startswith("p_"))
    return f"{subject}: {words(name)} {value} ({method_words(report)})"


def _compare(report: Report) -> str:
    """``Khador battle box vs Cygnar battle box: best attack Juggernaut → Charger 72.0% …``."""
    matrices = report.info.get("matrix", {})
    names = [report.info.get(k, "").split(":")[0] for k in ("list_a", "list_b")]
    parts = []
    for direction, label in (("A→B", "best attack"), ("B→A", "best reply")):
        m = matrices.get(direction)
        if not m:
            continue
        best = None
        for r, attacker in enumerate(m["attackers"]):
            for c, target in enumerate(m["targets"]):
                p = m["p_kill"][r][c]
                if p is not None and (best is None or p > best[0]):
                    best = (p, attacker, target, m["p_kill_se"][r][c])
        if best is not None:
            se = "" if not best[3] else f" ± {100 * best[3]:.1f}"
            parts.append(f"{label} {best[1]} → {best[2]} P(kill) {100 * best[0]:.1f}%{se}")
    subject = " vs ".join(n for n in names if n) or "compare"
    how = "exact" if report.method == "exact" else (
        f"Monte Carlo cells, {report.n_trials:,} trials each" if report.n_trials else "Monte Carlo")
    return f"{subject}: {'; '.join(parts) or 'no cell'} ({how})"


def _sweep(report: Report) -> str:
    """``Juggernaut vs Ironclad, target DEF 10..18: P(kill) 76.7% → 7.9%; largest step …``."""
    subject = report.title.removeprefix("sweep: ")
    plain = [(k, e) for k, e in report.results.items() if k.startswith("p_kill[") and ", " not in k]
    span = ""
    if plain:
        span = f"P(kill) {100 * plain[0][1].value:.1f}% → {100 * plain[-1][1].value:.1f}%"
        se = max(e.se for _, e in plain)
        span += f" (each ± {100 * se:.1f} pp or less)" if se > 0 else ""
    steps = report.info.get("breakpoints") or []
    largest = next((b for b in steps if "largest" in b), steps[0] if steps else "")
    largest = largest.replace(" — largest step", "")
    how = "exact" if report.method == "exact" else (
        f"Monte Carlo, {report.n_trials:,} trials per point" if report.n_trials else "Monte Carlo")
    tail = f"; largest step {largest}" if largest else "; no breakpoint"
    return f"{subject}: {span}{tail} ({how})"


#: headline builders of the shared commands, by report name
BUILDERS: dict[str, Callable[[Report], str]] = {
    "compare": _compare,
    "sweep": _sweep,
}


def builder_for(name: str) -> Callable[[Report], str] | None:
    """The builder of report ``name``: a shared command's, or a game's (its adapter)."""
    if name in BUILDERS:
        return BUILDERS[name]
    for game_name in games.names():
        builder = games.get(game_name).headline_builders().get(name)
        if builder is not None:
            return builder
    return None
