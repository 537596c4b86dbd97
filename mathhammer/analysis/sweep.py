"""Breakpoint sweeps: vary one stat of the attacker or the target and watch P(kill).

``vary`` is ``STAT=LO..HI`` (step 1), ``STAT=LO..HI:STEP`` or ``STAT=A,B,C``; a stat
may be prefixed ``attacker.`` or ``target.``. Without a prefix, Warmachine ``def``
and ``arm`` and Fantasy ``t``, ``save`` and ``ward`` belong to the target, the others
to the attacker. Stats: Warmachine ``def arm mat rat str focus attacks``; Fantasy
``ws bs s t w i a attacks ld save ward models`` (``save = 7`` means no armour save).

Each point is a cell of :mod:`mathhammer.analysis.cells`. ``also`` adds series with
an attacker option switched on (Warmachine ``boost_hit``, ``boost_damage``,
``charge`` — the attacker charges, WM-D3; Fantasy ``charge``), which answers "what is
+1 MAT worth against a boost": at each value the report gives the gain of one more stat
point next to the gain of the option.

A **breakpoint** is a step between neighbouring values where P(kill) moves by at
least ``threshold`` (default 5 percentage points) and by more than the steps on
either side; for Monte Carlo points the move must also exceed 3 standard errors
of the difference. The largest move is always named.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from mathhammer import game as games
from mathhammer.analysis.cells import (
    DEFAULT_PRECISION,
    MAX_CELL_TRIALS,
    Cell,
    cell_seed,
    check_precision,
)
from mathhammer.analysis.pool import run_cells
from mathhammer.errors import InputError, OtherGameError, UnknownProfileError
from mathhammer.results import Estimate, Report

MAX_POINTS = 200
_VARY = re.compile(r"^\s*(?:(attacker|target)\.)?([a-z_]+)\s*=\s*(.+?)\s*$")
_RANGE = re.compile(r"^(-?\d+)\s*\.\.\s*(-?\d+)(?::(\d+))?$")


@dataclass(frozen=True)
class Vary:
    side: str  # "attacker" | "target"
    stat: str
    values: tuple[int, ...]

    @property
    def label(self) -> str:
        return self.stat.upper() if self.stat in ("def", "arm", "mat", "rat", "str", "ws", "bs") \
            else self.stat


def parse_vary(text: str, game: str) -> Vary:
    """``"def=10..18"`` → Vary("target", "def", (10, ..., 18)); errors name the fix."""
    m = _VARY.match(text or "")
    fix = "use e.g. ‹vary› def=10..18 or ‹vary› attacker.mat=5,6,7"
    if not m:
        raise InputError("‹vary›", "must be STAT=LO..HI or STAT=A,B,C", text, fix)
    side, stat, spec = m.groups()
    rules = games.get(game, "‹game›", lists=True)
    if stat not in rules.sweep_stats:
        raise InputError("‹vary›", f"{stat!r} is not a {game} stat this sweep can vary", stat,
                         f"use one of {', '.join(rules.sweep_stats)}")
    side = side or ("target" if stat in rules.sweep_target_stats else "attacker")
    r = _RANGE.match(spec)
    try:
        if r:
            lo, hi, step = int(r.group(1)), int(r.group(2)), int(r.group(3) or 1)
            if hi < lo or step < 1:
                raise ValueError
            values = tuple(range(lo, hi + 1, step))
        else:
            values = tuple(int(v) for v in spec.split(","))
    except ValueError:
        raise InputError("‹vary›", "needs whole numbers LO..HI with LO <= HI, or a comma list",
                         spec, fix) from None
    if len(values) < 2 or len(values) > MAX_POINTS or len(set(values)) != len(values):
        raise InputError("‹vary›", f"needs 2..{MAX_POINTS} distinct values", spec, fix)
    return Vary(side, stat, values)


def load_any(ref: Any, game: str | None = None) -> tuple[str, Any]:
    """(game, profile) from a profile object, id or file; the game is found when not given."""
    if hasattr(ref, "id"):
        return games.of_profile(ref).name, ref
    order = [game] if game else list(games.names(lists=True))
    last: Exception | None = None
    for g in order:
        try:
            return g, games.get(g, "‹game›", lists=True).load_profile(ref)
        except (UnknownProfileError, OtherGameError) as err:  # the next game's, maybe
            last = err
    raise last  # type: ignore[misc]


@dataclass
class Sweep:
    """The answer of :func:`sweep`: ``frame`` (series, value, p_kill, se, mean_damage, ...)."""

    frame: Any
    vary: Vary
    breakpoints: list[dict[str, Any]]
    report: Report

    def series(self, name: str = "plain"):
        return self.frame[self.frame["series"] == name].set_index("value")

    def _repr_html_(self) -> str:
        table = self.frame.pivot(index="value", columns="series", values="p_kill")
        notes = "<br>".join(self.report.info["breakpoints"])
        return (f"<h4>{self.report.title}</h4>"
                + table.to_html(float_format=lambda x: f"{x:.1%}") + f"<p>{notes}</p>")


def _option_value(stat: str, value: int):
    return None if stat == "save" and value == 7 else value


def sweep(attacker: Any, target: Any, vary: str | Vary, *, game: str | None = None,
          attacker_options: dict[str, Any] | None = None,
          target_options: dict[str, Any] | None = None, also: tuple[str, ...] | list[str] = (),
          ruleset: str | None = None, method: str = "auto", n_trials: int | None = None,
          seed: int | None = None, rounds: int | None = None, policy: str = "optimal",
          threshold: float = 0.05,
          scheduler: Any = None, workers: int | None = None, progress: Any = None,
          precision: float | None = None) -> Sweep:
    """P(kill) and expected damage of ``attacker`` vs ``target`` over a range of one stat.

    Args:
        attacker, target: profile ids, files or objects (same game).
        vary: ``"def=10..18"`` (see the module docstring) or a :class:`Vary`.
        attacker_options: cell options, e.g. ``{"focus": 3, "charge": "must"}``; Warmachine
            ``charge``: ``"must"`` the attacker charges (``--charge``), ``True`` or ``"may"``
            the policy decides (``--may-charge``).
        also: extra series with an attacker option switched on (``boost_hit`` ...).
        policy: Warmachine focus policy of melee activations (optimal, greedy, fixed); the
            ``boost_*`` series are the fixed policy boosting every roll.
        threshold: smallest P(kill) move that counts as a breakpoint.
        n_trials, precision: a Monte Carlo point runs exactly ``n_trials`` trials when
            given, else until its P(kill)'s 95% half-width is at most ``precision`` (default
            :data:`~mathhammer.analysis.cells.DEFAULT_PRECISION`). Not both.
        scheduler: None for the local pool, or a Dask address / Client.
    """
    from mathhammer.rng import resolve_seed

    game_a, att = load_any(attacker, game)
    game_t, tgt = load_any(target, game)
    if game_a != game_t:
        raise InputError("target", f"is a {game_t} profile but the attacker is {game_a}", tgt.id,
                         f"give a {game_a} target profile")
    game = game_a
    v = vary if isinstance(vary, Vary) else parse_vary(vary, game)
    if method not in ("auto", "exact", "mc"):
        raise InputError("‹method›", "must be exact, mc or auto", method, "use ‹method› mc")
    rules = games.get(game)
    for key in attacker_options or {}:
        if key not in rules.sweep_attacker_options:
            raise InputError(f"attacker option {key!r}", f"is not a {game} option", key,
                             f"use {', '.join(rules.sweep_attacker_options)}")
    for option in also:
        if option not in rules.sweep_also:
            raise InputError("‹also›", f"{option!r} is not a {game} option", option,
                             f"use one of {', '.join(rules.sweep_also)}")
    from mathhammer.analysis.cells import check_policy

    check_policy(policy)
    check_precision(precision, n_trials)
    if n_trials is None and precision is None:
        precision = DEFAULT_PRECISION
    trials = MAX_CELL_TRIALS if n_trials is None else n_trials
    if not 0 < threshold < 1:
        raise InputError("‹threshold›", "must be a probability between 0 and 1", threshold,
                         "use e.g. ‹threshold› 0.05")
    charge = (attacker_options or {}).get("charge")
    if charge not in (None, False, True, "must", "may", "no"):
        raise InputError("charge", 'must be "must" (charges), "may" (the policy decides) or '
                         "false", charge, 'use {"charge": "must"}')
    for value in v.values:
        rules.check_sweep_value(att if v.side == "attacker" else tgt, v.side, v.stat, value)
    if ruleset is not None and not rules.ruleset_files and ruleset not in rules.rulesets:
        raise InputError("‹ruleset›", f"chooses a Fantasy sweep's edition; a {game} sweep "
                         f"plays {', '.join(rules.rulesets)}", ruleset, "leave ‹ruleset› out")
    ruleset = ruleset or rules.default_ruleset(att)
    seed = resolve_seed(seed)
    base_a, base_t = dict(attacker_options or {}), dict(target_options or {})
    policy = rules.sweep_setup(att, tgt, attacker, target, base_a, base_t, also, policy)
    cells = []
    for series in ("plain", *also):
        for value in v.values:
            a_opts, t_opts = dict(base_a), dict(base_t)
            if series != "plain":
                a_opts[series] = rules.sweep_series_value(series)
            (a_opts if v.side == "attacker" else t_opts)[v.stat] = _option_value(v.stat, value)
            cells.append(Cell(game, att, tgt, a_opts, t_opts, ruleset=ruleset, method=method,
                              n_trials=trials, seed=cell_seed(seed, len(cells)), rounds=rounds,
                              policy=policy, key=(series, value), precision=precision))
    results = run_cells(cells, scheduler=scheduler, workers=workers, progress=progress)
    sweep_result = _assemble(rules, att, tgt, v, also, results, threshold, seed, precision)
    sweep_result.report.info.update(rules.sweep_info(policy))
    return sweep_result


def find_breakpoints(values, p, se, threshold: float) -> list[dict[str, Any]]:
    """Steps where P(kill) jumps (see the module docstring); sorted by value."""
    steps = [p[i + 1] - p[i] for i in range(len(p) - 1)]
    if not steps:
        return []
    biggest = max(range(len(steps)), key=lambda i: abs(steps[i]))
    out = []
    for i, d in enumerate(steps):
        noise = 3.0 * math.hypot(se[i], se[i + 1])
        left = abs(steps[i - 1]) if i > 0 else 0.0
        right = abs(steps[i + 1]) if i + 1 < len(steps) else 0.0
        local_max = abs(d) >= left and abs(d) >= right
        if abs(d) > noise and (i == biggest or (abs(d) >= threshold and local_max)):
            if abs(d) == 0.0:
                continue
            out.append({"from": int(values[i]), "to": int(values[i + 1]), "p_from": p[i],
                        "p_to": p[i + 1], "delta": d, "largest": i == biggest})
    return out


def _assemble(rules: games.Game, att, tgt, v: Vary, also, results, threshold, seed,
              precision: float | None = None) -> Sweep:
    import pandas as pd

    rows = [{"series": r.key[0], "value": r.key[1], "p_kill": r.p_kill.value,
             "p_kill_se": r.p_kill.se, "mean_damage": r.mean_damage.value,
             "mean_damage_se": r.mean_damage.se, "method": r.method, "seed": r.seed,
             "n_trials": r.n_trials, "how": r.note}
            for r in results]
    frame = pd.DataFrame(rows)
    plain = frame[frame["series"] == "plain"]
    bps = find_breakpoints(list(plain["value"]), list(plain["p_kill"]), list(plain["p_kill_se"]),
                           threshold)
    named: dict[str, Estimate] = {}
    for r in results:
        tag = f"{v.stat}={r.key[1]}" if r.key[0] == "plain" else f"{r.key[0]}, {v.stat}={r.key[1]}"
        named[f"p_kill[{tag}]"] = r.p_kill
        named[f"mean_damage[{tag}]"] = r.mean_damage
    methods = set(frame["method"])
    who = att.name if v.side == "attacker" else tgt.name
    kill = rules.kill_words
    info: dict[str, Any] = {
        "vary": f"{v.side} {who}: {v.label} over {', '.join(map(str, v.values))}",
        "p_kill": kill, "how": results[0].note,
        "breakpoints": [f"{v.label} {b['from']}→{b['to']}: P(kill) {b['p_from']:.1%} → "
                        f"{b['p_to']:.1%} ({100 * b['delta']:+.1f} pp)"
                        + (" — largest step" if b["largest"] else "") for b in bps] or
                       ["none: no step moves P(kill) by the threshold"],
    }
    if also:
        info["worth"] = _worth(frame, v, also)
    report = Report("sweep", methods.pop() if len(methods) == 1 else "mixed", named, {}, info=info,
                    title=f"sweep: {att.name} vs {tgt.name}, {v.side} {v.label} "
                          f"{v.values[0]}..{v.values[-1]}")
    mc = frame[frame["method"] == "mc"]
    if len(mc):
        from mathhammer.analysis.compare import trials_words

        report.n_trials = int(mc["n_trials"].max())
        report.seed = seed
        info["trials"] = trials_words(mc["n_trials"], precision)
    return Sweep(frame, v, bps, report)


def _worth(frame, v: Vary, also) -> list[str]:
    """At each value: the P(kill) gain of one more stat step next to each option's gain."""
    plain = frame[frame["series"] == "plain"].set_index("value")["p_kill"]
    values = list(plain.index)
    lines = []
    for option in also:
        alt = frame[frame["series"] == option].set_index("value")["p_kill"]
        for i, x in enumerate(values[:-1]):
            step = plain[values[i + 1]] - plain[x]
            gain = alt[x] - plain[x]
            lines.append(f"at {v.label} {x}: {v.label} {x}→{values[i + 1]} moves P(kill) "
                         f"{100 * step:+.1f} pp; {option} moves it {100 * gain:+.1f} pp")
    return lines
