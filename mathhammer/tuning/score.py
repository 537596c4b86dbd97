"""A list's score against a meta, and the paired difference of two lists.

**The score** (docs/guide/lists.md, "List tuning"): each turn, every unit of your list attacks one
enemy unit, picked at random from the list you are facing (a unit's chance of being
picked is its share of that list's entries, counts included); the meta says how often
you face each list. ``points_destroyed_per_turn`` is the expected enemy points this
destroys per game turn: the sum over your units (× their count) of the share of the
target the cell destroys × the target's points (TU-C1: boxes marked or models slain over
the target's, or P(kill) where a cell counts whole targets: a Fantasy close combat),
averaged over targets and meta lists. ``points_lost_per_turn`` is the
same with the meta's lists attacking yours (your exposure), and ``net_points_per_turn``
their difference. A Mk II warcaster costs no points; as a target it is worth its
warjack points (what its list would lose with it). The cells are ``compare``'s (one
activation, one close combat, or a Fantasy shooter's volley, :mod:`mathhammer.analysis.cells`).

**Standard errors and pairing.** Every cell is keyed by what it plays (attacker and
target profiles with their options) and seeded from that key, so the same cell gets the
same random numbers in every list and every run with the same seed: a cell that two
lists share gives both the same number and cancels exactly in their difference. A
figure is a weighted sum of cells, so its se is √Σ (weight × cell se)²; a difference's
*paired* se uses the difference of the weights per cell (shared cells drop out), its
*independent* se what two separate runs would give (√(se_A² + se_B²)).
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from mathhammer import game as games
from mathhammer.analysis.cells import (
    DEFAULT_PRECISION,
    MAX_CELL_TRIALS,
    Cell,
    CellResult,
    cell_seed,
    check_policy,
    check_precision,
)
from mathhammer.errors import InputError
from mathhammer.lists import ArmyList, ListUnit
from mathhammer.results import Z95, Estimate, Report
from mathhammer.trials import (
    SCORE_CELL as DEFAULT_TRIALS,  # tune's final scoring (score: adaptive cells)
)
from mathhammer.tuning.meta import Meta, list_and_meta

MAX_CELLS = 2_000  # a query past this is a typo (a 50-unit list against a 12-list meta)


def unit_value(unit: ListUnit) -> int:
    """Points a target is worth, by its game (a Mk II warcaster: its warjack points)."""
    return games.of_profile(unit.profile).unit_value(unit)


def _attack_options(unit: ListUnit) -> dict[str, Any]:
    """The entry's options and what its game plays as the unit's turn (TU-C1: a shooter shoots)."""
    return {**unit.options, **games.of_profile(unit.profile).score_options(unit)}


def _key(attacker: ListUnit, target: ListUnit) -> str:
    """What a cell plays, in text: equal texts are the same question (and the same seed)."""
    def side(u: ListUnit, options: dict[str, Any]) -> str:
        listed = sorted((k, v) for k, v in options.items() if k != "ref")
        return f"{u.profile_id}{listed}{games.of_profile(u.profile).cell_key(u)}"
    return side(attacker, _attack_options(attacker)) + " → " + side(target, target.options)


def points_share(result: CellResult) -> Estimate:
    """The expected share of the target's points a cell destroys (TU-C1): its mean damage in
    boxes or models slain over the target's, or P(kill) where the cell counts whole targets."""
    if result.damage_share is None:
        return result.p_kill
    d, s = result.mean_damage, result.damage_share
    return Estimate(d.value * s, d.se * s, (d.ci95[0] * s, d.ci95[1] * s), d.n_trials)


def _seed_for(seed: int, key: str) -> int:
    return cell_seed(seed, int(hashlib.sha256(key.encode()).hexdigest()[:12], 16))


@dataclass
class Ledger:
    """A figure as weights on cells: value = Σ w·share, variance = Σ (w·se)² (:func:`points_share`)."""

    weights: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add(self, key: str, weight: float) -> None:
        self.weights[key] += weight

    def estimate(self, results: dict[str, CellResult], minus: Ledger | None = None) -> Estimate:
        keys = set(self.weights) | set(minus.weights if minus else ())
        value = var = 0.0
        trials = None  # the cells' Monte Carlo size (one per run), None when every cell is exact
        for k in keys:
            w = self.weights.get(k, 0.0) - (minus.weights.get(k, 0.0) if minus else 0.0)
            share = points_share(results[k])
            value += w * share.value
            var += (w * share.se) ** 2
            if results[k].method == "mc":
                trials = results[k].n_trials
        return _estimate(value, math.sqrt(var), trials)

    def independent_se(self, results: dict[str, CellResult], other: Ledger) -> float:
        return math.sqrt(self.estimate(results).se ** 2 + other.estimate(results).se ** 2)


def _estimate(value: float, se: float, trials: int | None) -> Estimate:
    if trials is None:
        return Estimate.exact(value)
    return Estimate(value, se, (value - Z95 * se, value + Z95 * se), trials)


@dataclass
class ScoreTable:
    """The ledgers of one list against a meta (per unit and whole list) and their cells."""

    army: ArmyList
    destroyed: dict[str, Ledger]  # by unit label
    lost: dict[str, Ledger]       # by unit label: that unit's points lost
    cells: dict[str, Cell]
    p_kill: dict[str, dict[str, str]]  # unit label -> "list: target" -> cell key
    _net: Ledger | None = field(default=None, repr=False)

    def total(self, which: str) -> Ledger:
        out = Ledger()
        for ledger in getattr(self, which).values():
            for k, w in ledger.weights.items():
                out.add(k, w)
        return out

    def net(self) -> Ledger:
        """Destroyed minus lost; built once (tune asks for it at every comparison)."""
        if self._net is None:
            self._net = self.total("destroyed")
            for k, w in self.total("lost").weights.items():
                self._net.add(k, -w)
        return self._net


def _shares(army: ArmyList) -> list[tuple[ListUnit, float]]:
    n = sum(u.count for u in army.units)
    return [(u, u.count / n) for u in army.units]


def build_table(army: ArmyList, meta: Meta, *, method: str, n_trials: int, seed: int,
                rounds: int | None, policy: str, precision: float | None = None) -> ScoreTable:
    """Every cell the score needs, with the weights that turn them into points per turn
    (``precision``: adaptive cells with at most ``n_trials`` trials, see
    :mod:`mathhammer.analysis.cells`)."""
    cells: dict[str, Cell] = {}

    def cell(att: ListUnit, tgt: ListUnit) -> str:
        key = _key(att, tgt)
        if key not in cells:
            cells[key] = Cell(meta.game, att.profile, tgt.profile, _attack_options(att), dict(tgt.options),
                              ruleset=meta.ruleset, method=method, n_trials=n_trials,
                              seed=_seed_for(seed, key), rounds=rounds, policy=policy, key=(key,),
                              precision=precision)
        return key

    destroyed = {u.label: Ledger() for u in army.units}
    lost = {u.label: Ledger() for u in army.units}
    p_kill: dict[str, dict[str, str]] = {u.label: {} for u in army.units}
    for enemy, weight in zip(meta.lists, meta.weights, strict=True):
        for u in army.units:
            for t, share in _shares(enemy):
                key = cell(u, t)
                destroyed[u.label].add(key, u.count * weight * share * unit_value(t))
                p_kill[u.label][f"{enemy.name}: {t.label}"] = key
        for v in enemy.units:
            for t, share in _shares(army):
                lost[t.label].add(cell(v, t), v.count * weight * share * unit_value(t))
    if len(cells) > MAX_CELLS:
        raise InputError("meta", f"needs {len(cells):,} cells, above the limit of {MAX_CELLS:,}",
                         meta.name, "use a smaller list or fewer meta lists")
    return ScoreTable(army, destroyed, lost, cells, p_kill)


def _check(method: str, policy: str, n_trials: int | None) -> int:
    if method not in ("auto", "exact", "mc"):
        raise InputError("‹method›", "must be exact, mc or auto", method, "use ‹method› mc")
    check_policy(policy)
    if n_trials is None:
        return DEFAULT_TRIALS
    if isinstance(n_trials, bool) or not isinstance(n_trials, int) or not 100 <= n_trials <= 10_000_000:
        raise InputError("‹n_trials›", "must be a whole number from 100 to 10,000,000", n_trials,
                         "use e.g. ‹n_trials› 20000")
    return n_trials


def _cell_trials(method: str, policy: str, n_trials: int | None,
                 precision: float | None) -> tuple[int, float | None]:
    """(trials, precision) of the cells of score and diff: fixed ``n_trials`` when given,
    else adaptive to ``precision`` (default :data:`DEFAULT_PRECISION`)."""
    check_precision(precision, n_trials)
    if n_trials is not None:
        return _check(method, policy, n_trials), None
    _check(method, policy, None)
    return MAX_CELL_TRIALS, precision if precision is not None else DEFAULT_PRECISION


def _trials_text(results: dict[str, CellResult], precision: float | None) -> str:
    from mathhammer.analysis.compare import trials_words

    return trials_words([r.n_trials for r in results.values() if r.method == "mc"], precision)


def _run(cells: dict[str, Cell], scheduler: Any, workers: int | None, progress: Any
         ) -> dict[str, CellResult]:
    from mathhammer.analysis.pool import run_cells

    keys = list(cells)
    return dict(zip(keys, run_cells([cells[k] for k in keys], scheduler=scheduler, workers=workers,
                                    progress=progress), strict=True))


def _method(results: dict[str, CellResult]) -> str:
    methods = {r.method for r in results.values()}
    return methods.pop() if len(methods) == 1 else "mixed"


def _fmt(e: Estimate) -> str:
    return f"{e.value:.2f}" + (f" ± {e.se:.2f}" if e.se > 0 else "")


def _how(report: Report) -> str:
    if report.method == "exact":
        return "exact"
    trials = report.info["trials"]
    return f"Monte Carlo cells, {trials}" if report.method == "mc" else \
        f"exact and Monte Carlo cells, {trials}"


def score_list(army: str | ArmyList, meta: str | Meta, *, method: str = "auto",
               n_trials: int | None = None, seed: int | None = None, rounds: int | None = None,
               policy: str = "optimal", scheduler: Any = None, workers: int | None = None,
               progress: Any = None, precision: float | None = None, model: str | None = None,
               n_battles: int | None = None, battle_policy: str | None = None,
               meta_policy: str | None = None, turns: int | None = None,
               per_unit: bool = False) -> Report:
    """``mathhammer score LIST --meta META``: on battles (``model = "battle"``, the default
    where the game has them: :func:`mathhammer.tuning.battles.score_battles`), else points
    destroyed and lost per turn on cells (module doc).

    A Monte Carlo cell runs ``n_trials`` trials when given, else until its P(kill)'s 95%
    half-width is at most ``precision`` (default 0.0075); not both."""
    from mathhammer.rng import resolve_seed
    from mathhammer.tuning.battles import refuse_cell_settings, resolve_model, score_battles

    a, m = list_and_meta(army, meta)
    if resolve_model(model, m.game) == "battle":
        refuse_cell_settings(n_trials=n_trials, precision=precision, rounds=rounds, method=method)
        return score_battles(a, m, n_battles=n_battles, seed=seed, policy=battle_policy,
                             meta_policy=meta_policy, turns=turns, per_unit=per_unit,
                             scheduler=scheduler, workers=workers, progress=progress)
    trials, precision = _cell_trials(method, policy, n_trials, precision)
    seed = resolve_seed(seed)
    table = build_table(a, m, method=method, n_trials=trials, seed=seed, rounds=rounds, policy=policy,
                        precision=precision)
    results = _run(table.cells, scheduler, workers, progress)
    figures = {
        "points_destroyed_per_turn": table.total("destroyed").estimate(results),
        "points_lost_per_turn": table.total("lost").estimate(results),
        "net_points_per_turn": table.net().estimate(results),
    }
    for u in a.units:
        figures[f"points_destroyed_per_turn[{u.label}]"] = table.destroyed[u.label].estimate(results)
        figures[f"points_lost_per_turn[{u.label}]"] = table.lost[u.label].estimate(results)
    report = Report("score", _method(results), figures, {}, info=_info(table, m, results, seed, policy),
                    title=f"score: {a.name} against the meta {m.name} ({a.game}, {a.ruleset})")
    if report.method != "exact":
        report.n_trials = max(r.n_trials for r in results.values() if r.method == "mc")
        report.seed = seed
        report.info["trials"] = _trials_text(results, precision)
    d, lost = figures["points_destroyed_per_turn"], figures["points_lost_per_turn"]
    report.headline = (f"{a.name} destroys {_fmt(d)} points per turn against the meta {m.name}; "
                       f"it loses {_fmt(lost)} ({_how(report)})")
    return report


def _meta_text(meta: Meta) -> str:
    return "; ".join(f"{lst.name} ({100 * w:.0f}%)" for lst, w in zip(meta.lists, meta.weights, strict=True))


def _info(table: ScoreTable, meta: Meta, results: dict[str, CellResult], seed: int,
          policy: str) -> dict[str, Any]:
    rows = []
    for label, targets in table.p_kill.items():
        for name, key in targets.items():
            e, share = results[key].p_kill, points_share(results[key])
            rows.append(f"{label} → {name}: P(kill) {100 * e.value:.1f}%"
                        + (f" ± {100 * e.se:.1f}" if e.se > 0 else "")
                        + ("" if results[key].damage_share is None else
                           f", share destroyed {100 * share.value:.1f}%"
                           + (f" ± {100 * share.se:.1f}" if share.se > 0 else "")))
    return {
        "list": table.army.summary(),
        "meta": _meta_text(meta),
        "score": "each unit attacks one enemy unit per turn, picked at random from the list "
                 "faced; points = the share of the target destroyed x its points (boxes marked or "
                 "models slain over the target's; a close combat: P(breaks or destroyed)) (a Mk II "
                 "warcaster: its warjack points); TU-C1, docs/guide/lists.md, List tuning",
        "cell": games.get(meta.game).cell_words(policy, for_score=True),
        "cells": len(table.cells),
        "seeds": f"each cell's seed comes from run seed {seed} and what the cell plays, so lists "
                 "that share a cell share its random numbers",
        "p_kill": rows,
    }


def diff_lists(list_a: str | ArmyList, list_b: str | ArmyList, meta: str | Meta, *,
               method: str = "auto", n_trials: int | None = None, seed: int | None = None,
               rounds: int | None = None, policy: str = "optimal", scheduler: Any = None,
               workers: int | None = None, progress: Any = None,
               precision: float | None = None, model: str | None = None,
               n_battles: int | None = None, battle_policy: str | None = None,
               meta_policy: str | None = None, turns: int | None = None) -> Report:
    """``mathhammer diff A B --meta META``: B − A per figure, with its paired se — on
    battles (:func:`mathhammer.tuning.battles.diff_battles`: the same dice battle by
    battle), or on cells as in :func:`score_list` (a cell both lists play is one cell, so
    it cancels exactly)."""
    from mathhammer.rng import resolve_seed
    from mathhammer.tuning.battles import diff_battles, refuse_cell_settings, resolve_model

    a, m = list_and_meta(list_a, meta)
    b, _ = list_and_meta(list_b, m)
    if resolve_model(model, m.game) == "battle":
        refuse_cell_settings(n_trials=n_trials, precision=precision, rounds=rounds, method=method)
        return diff_battles(a, b, m, n_battles=n_battles, seed=seed, policy=battle_policy,
                            meta_policy=meta_policy, turns=turns, scheduler=scheduler,
                            workers=workers, progress=progress)
    trials, precision = _cell_trials(method, policy, n_trials, precision)
    seed = resolve_seed(seed)
    kw = dict(method=method, n_trials=trials, seed=seed, rounds=rounds, policy=policy,
              precision=precision)
    ta, tb = build_table(a, m, **kw), build_table(b, m, **kw)
    cells = {**ta.cells, **tb.cells}  # a shared cell is one cell: one answer for both lists
    results = _run(cells, scheduler, workers, progress)
    figures: dict[str, Estimate] = {}
    reductions = []
    for name, la, lb in (("points_destroyed_per_turn", ta.total("destroyed"), tb.total("destroyed")),
                         ("points_lost_per_turn", ta.total("lost"), tb.total("lost")),
                         ("net_points_per_turn", ta.net(), tb.net())):
        figures[f"{name}[A]"] = la.estimate(results)
        figures[f"{name}[B]"] = lb.estimate(results)
        paired = lb.estimate(results, minus=la)
        figures[f"{name}[B-A]"] = paired
        indep = lb.independent_se(results, la)
        if indep > 0:
            ratio = (indep / paired.se) ** 2 if paired.se > 0 else math.inf
            reductions.append(f"{name}: paired se {paired.se:.4f} vs independent {indep:.4f}"
                              + (f" (variance / {ratio:.1f})" if math.isfinite(ratio)
                                 else " (the difference has no Monte Carlo error)"))
    for u in a.units:
        figures[f"points_destroyed_per_turn[A:{u.label}]"] = ta.destroyed[u.label].estimate(results)
    for u in b.units:
        figures[f"points_destroyed_per_turn[B:{u.label}]"] = tb.destroyed[u.label].estimate(results)
    info = {"list_a": a.summary(), "list_b": b.summary(),
            "meta": _meta_text(m),
            "pairing": "common random numbers: a cell both lists play is evaluated once (same seed, "
                       "same answer) and cancels in B − A; the paired se counts only the cells the "
                       "lists do not share",
            "variance_reduction": reductions or ["every cell is exact: no Monte Carlo error"],
            "cells": len(cells), "shared_cells": len(set(ta.cells) & set(tb.cells))}
    report = Report("diff", _method(results), figures, {}, info=info,
                    title=f"diff: {b.name} − {a.name} against the meta {m.name}")
    if report.method != "exact":
        report.n_trials = max(r.n_trials for r in results.values() if r.method == "mc")
        report.seed = seed
        report.info["trials"] = _trials_text(results, precision)
    net = figures["net_points_per_turn[B-A]"]
    z = abs(net.value) / net.se if net.se > 0 else math.inf
    verdict = ("the same" if net.value == 0 else
               "better" if net.value > 0 else "worse") if net.value == 0 or z >= 2 else \
        "not resolvably different (|difference| < 2 se)"
    report.headline = (f"{b.name} vs {a.name} against {m.name}: net {net.value:+.2f}"
                       + (f" ± {net.se:.2f}" if net.se > 0 else "")
                       + f" points per turn (paired) — B is {verdict} ({_how(report)})")
    return report
