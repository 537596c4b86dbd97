"""Numbers in words: how a report's figures read in a sentence.

A probability reads ``48.33%`` when exact and ``48.83% ± 0.35`` when simulated, a mean
``25.40`` or ``25.47 ± 0.04``, the method ``exact`` or ``Monte Carlo, 200,000 trials,
seed 1``. Engines build their report's headline sentence with these (each game's
``headlines`` module), and :mod:`mathhammer.present.headline` falls back on them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mathhammer.results import Estimate, Report, se_place

SEP = " · "


def figure(est: Estimate, percent: bool) -> str:
    """A value as a player reads it: 48.33% or 25.40, with ``± se`` when simulated."""
    if percent:
        text = f"{100 * est.value:.2f}%"
        return text if est.is_exact else f"{text} ± {100 * est.se:.2f}{_interval(est, 100, 2)}"
    text = f"{est.value:.2f}"
    return text if est.is_exact else f"{text} ± {est.se:.2f}{_interval(est, 1, 2)}"


def _interval(est: Estimate, scale: float, digits: int) -> str:
    """`` (95% 51.0–100.0)`` when a simulated figure's se is 0 (every trial alike: 4 battles
    all won) — a zero se is no claim of certainty, its 95% interval says how sure; else ''."""
    low, high = est.ci95
    if est.se > 0 or est.is_exact or low == high:
        return ""
    return f" (95% {scale * low:.{digits}f}–{scale * high:.{digits}f})"


def pct(est: Estimate) -> str:
    """A probability: ``48.33%`` exact, ``48.83% ± 0.35`` simulated."""
    return figure(est, True)


def brief_pct(est: Estimate) -> str:
    """A secondary probability, one decimal: ``7.4%`` exact, ``7.5% ± 0.1`` simulated."""
    return _with_se(100 * est.value, 100 * est.se, 1, est.is_exact, "%") + _interval(est, 100, 1)


def num(est: Estimate, digits: int = 2) -> str:
    """A mean: ``25.40`` exact, ``25.47 ± 0.04`` simulated (the error keeps a digit)."""
    return _with_se(est.value, est.se, digits, est.is_exact, "")


def _with_se(value: float, se: float, digits: int, exact: bool, unit: str) -> str:
    if exact:
        return f"{value:.{digits}f}{unit}"
    while 0 < se and round(se, digits) == 0 and digits < 4:  # never "± 0.0"
        digits += 1
    return f"{value:.{digits}f}{unit} ± {se:.{digits}f}"


def rounded(value: float, se: float | None, signed: bool = False, exact_digits: int = 2) -> str:
    """``value ± se`` with no more digits than the se supports: the se to one significant
    digit (two when it starts with a 1) and the value to the same place, e.g. ``-73 ± 2``,
    ``31.7 ± 1.5``, ``1230 ± 20``; an exact figure (se 0 or None) keeps ``exact_digits``."""
    if se is None or not math.isfinite(se) or se <= 0:
        place, tail = exact_digits, ""
    else:
        place = min(se_place(se), 6)  # a float-noise se (1e-12) is no reason for 12 decimals
        tail = f" ± {_at(se, place)}" if round(se, place) > 0 else f" ± {se:.0e}"
    text = _at(value, place)
    if float(text) == 0:
        text = text.lstrip("-")  # never "-0"
    elif signed and value > 0:
        text = "+" + text
    return text + tail


def _at(x: float, place: int) -> str:
    """``x`` rounded to ``place`` decimals (a negative place rounds to tens, hundreds...)."""
    return f"{round(x, place):.{max(place, 0)}f}" if place > 0 else f"{round(x, place):.0f}"


def method_words(report: Report) -> str:
    """``exact`` or ``Monte Carlo, 200,000 trials, seed 1``."""
    if report.method == "exact":
        return "exact"
    n = plural(report.n_trials, "trial") if report.n_trials else "? trials"
    label = "Monte Carlo" if report.method == "mc" else f"{report.method}: Monte Carlo"
    return f"{label}, {n}{'' if report.seed is None else f', seed {report.seed}'}"


def words(name: str) -> str:
    """A result key in words: ``p_goes_off_1`` → ``P(goes off 1)``, ``mean_damage`` → ``mean damage``."""
    if name.startswith("p_"):
        return f"P({name[2:].replace('_', ' ')})"
    return name.replace("_", " ")


#: plurals that are not the noun + "s"
IRREGULAR = {"die": "dice", "box": "boxes", "entry": "entries", "strength": "strength"}


def plural(n: int | str, noun: str) -> str:
    """A count and its noun agreeing: ``1 model``, ``20 models``, ``1 die``, ``3 dice``,
    ``1 box``, ``1,000 trials`` (the last word of a longer noun: ``2 melee attacks``)."""
    text = f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else str(n)
    if text == "1":
        return f"{text} {noun}"
    head, _, last = noun.rpartition(" ")
    return f"{text} {head + ' ' if head else ''}{_many(last)}"


def _many(word: str) -> str:
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("x", "s", "ch", "sh")) else "s")


def sentence(statement: str, main: str, report: Report, extras: Sequence[str] = ()) -> str:
    text = f"{statement}: {main} ({method_words(report)})"
    extras = [e for e in extras if e]
    return text + (SEP + ", ".join(extras) if extras else "")


def first_result(report: Report, *names: str) -> Estimate | None:
    """The first of ``names`` the report has (keys are being renamed; accept either)."""
    for name in names:
        if name in report.results:
            return report.results[name]
    return None


def number_text(value: Any) -> str:
    """A stat as printed: ``-`` for none, ``3`` for 3.0."""
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def plain(value: Any) -> str:
    """A note's value as a player reads it, never a Python repr: ``yes``/``no`` for a
    switch, ``none`` for nothing, ``3`` for 3.0, a list as ``a, b``, a mapping as
    ``key: value; ...`` (issue 28 item 15)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, float):
        return number_text(value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(plain(v) for v in value)
    return str(value)


def text_table(header: tuple, rows: list[tuple], indent: str = "  ") -> list[str]:
    """Lines of a plain-text table, columns aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    return [
        indent + "  ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)).rstrip()
        for line in (header, *rows)
    ]


def wins_apart(a: float, b: float, n: int | None) -> bool:
    """P(A wins) and P(B wins) of n battles are more than 2 se of their difference apart (one
    battle's A-win minus B-win has variance a + b - (a - b)²): only then does a headline say
    one side "beats" the other. Exact figures (n None) are apart when they differ."""
    if not n:
        return a != b
    return abs(a - b) > 2 * math.sqrt(max(a + b - (a - b) ** 2, 0.0) / n)
