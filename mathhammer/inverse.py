"""Inverse questions: the fewest attacks that reach a probability (``--for-p``).

"How many Winter-Guard-like shots kill a Lancer half the time?" The chance ``p(n)`` of
the outcome (P(destroyed), P(at least K unsaved wounds)) never falls as attacks are
added, so the answer is the first ``n`` with ``p(n) >= target``, found by evaluating the
exact engine for n = 1, 2, … (each evaluation is exact and cheap). The report gives that
``n``, its chance, and the curve around it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from mathhammer.errors import InputError
from mathhammer.results import Estimate, Report


def check_target(p: float, flag: str = "‹for_p›") -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p) or not 0 < p <= 1:
        raise InputError(flag, "must be a probability above 0 and at most 1", p, "use e.g. ‹for_p› 0.5")
    return float(p)


def fewest_attacks(chance: Callable[[int], float], target: float, max_attacks: int, *,
                   command: str, outcome: str, unit: str = "attacks", title: str = "") -> Report:
    """The smallest n in 1..max_attacks with ``chance(n) >= target``, and the curve near it."""
    target = check_target(target)
    seen: dict[int, float] = {}

    def at(n: int) -> float:
        if n not in seen:
            seen[n] = chance(n)
        return seen[n]

    hi = 1  # gallop: 1, 2, 4, ... until the chance reaches the target, then halve the gap
    while at(hi) < target - 1e-12 and hi < max_attacks:
        hi = min(2 * hi, max_attacks)
    if at(hi) < target - 1e-12:
        raise InputError("‹for_p›", f"even {max_attacks} {unit} reach only "
                         f"{100 * at(hi):.2f}% to {outcome}", target,
                         "ask for a lower probability or a stronger attack")
    lo = hi // 2  # at(lo) < target (or lo = 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(mid) >= target - 1e-12:
            hi = mid
        else:
            lo = mid
    found = hi
    curve = [(n, at(n)) for n in range(max(1, found - 3), min(found + 3, max_attacks) + 1)]
    p = at(found)
    shown = [f"{n} {unit}: {100 * v:.2f}%" + (" ◀" if n == found else "") for n, v in curve]
    before = f"; {found - 1} {unit}: {100 * at(found - 1):.2f}%" if found > 1 else ""
    headline = (f"{found} {unit} {outcome} at least {100 * target:g}% of the time: "
                f"{100 * p:.2f}% (exact){before}")
    return Report(command, "exact", {f"{unit}_needed": Estimate.count(found),
                                     "p_at_needed": Estimate.exact(p)},
                  info={"for_p": target, "outcome": outcome, "curve": shown,
                        "how": "the exact engine at n = 1, 2, 4, ... then halving the gap (the "
                               "chance never falls as attacks are added)"},
                  title=title or f"the fewest {unit} that {outcome}", headline=headline)


def least_level(levels: list[tuple[int, float]], target: float, *, command: str,
                outcome: str, who: str, unit: str = "focus", title: str = "",
                where: str = "‹for_p›", notes: list[str] | None = None) -> Report:
    """The smallest level (focus given to the attacker, ``wm duel --for-p``) whose chance
    reaches ``target``, from every level's exact chance (a scan: no monotonicity assumed),
    every level listed."""
    target = check_target(target, where)
    if not levels:
        raise InputError(where, f"no {unit} level can be played", target, "check the attacker")
    reached = [(n, p) for n, p in levels if p >= target - 1e-12]
    top_n, top_p = max(levels, key=lambda np_: np_[1])
    if not reached:
        raise InputError(where, f"even {top_n} {unit} reaches only {100 * top_p:.2f}% "
                         f"to {outcome}", target, "ask for a lower probability, add ‹then› "
                         "activations or pick a stronger attacker")
    found, p = reached[0]
    shown = [f"{n} {unit}: {100 * v:.2f}%" + (" ◀" if n == found else "") for n, v in levels]
    below = [(n, v) for n, v in levels if n < found]
    before = f"; {below[-1][0]} {unit}: {100 * below[-1][1]:.2f}%" if below else ""
    headline = (f"{who} needs {found} {unit} to {outcome} at least {100 * target:g}% of the "
                f"time: {100 * p:.2f}% (exact){before}")
    info = {"for_p": target, "outcome": outcome, "curve": shown,
            "how": f"the exact programme at every {unit} level (" + ", ".join(
                str(n) for n, _ in levels) + "); the least that reaches it"}
    if notes:
        info["note"] = "; ".join(notes)
    return Report(command, "exact", {f"{unit}_needed": Estimate.count(found),
                                     "p_at_needed": Estimate.exact(min(p, 1.0))},
                  info=info, title=title or f"the least {unit} that {outcome}",
                  headline=headline)
