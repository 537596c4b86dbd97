"""Attacker × target matrices of two army lists: P(kill), expected damage, per 100 points.

:func:`compare` pits every unit of list A against every unit of list B and back
(one cell per pair, see :mod:`mathhammer.analysis.cells` for what a cell means in
each game) and returns a :class:`Comparison`: a long pandas DataFrame, pivoted
matrices and a :class:`~mathhammer.results.Report` for the CLI.

JSON contract (``mathhammer compare ... --format json``): the shared report shape;
``results`` holds ``p_kill[A:<attacker>→B:<target>]``, ``mean_damage[...]``,
``kills_per_100_points[...]`` and ``mean_damage_per_100[...]`` (the per-100 keys are
absent for a 0-point attacker such as a Mk II warcaster), each ``{value, se,
ci95}``; ``info.matrix`` holds, per direction (``A→B``, ``B→A``), the attacker and
target labels and the row-major matrices ``p_kill``, ``mean_damage``,
``kills_per_100_points``, ``mean_damage_per_100``, each with its ``<metric>_se`` (null
where undefined), and ``n_trials``: each cell's Monte Carlo trials (null for an exact cell).
"""

from __future__ import annotations

from dataclasses import dataclass
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
from mathhammer.analysis.pool import run_cells
from mathhammer.errors import InputError
from mathhammer.lists import ArmyList, ListUnit, load_list
from mathhammer.results import Estimate, Report

METRICS = ("p_kill", "mean_damage", "kills_per_100_points", "mean_damage_per_100")


@dataclass
class Comparison:
    """The answer of :func:`compare`. ``frame`` has one row per (direction, attacker, target)."""

    frame: Any  # pandas.DataFrame
    report: Report
    list_a: ArmyList
    list_b: ArmyList

    def matrix(self, metric: str = "p_kill", direction: str = "A→B"):
        """attackers × targets DataFrame of one metric, in list order."""
        sub = self.frame[self.frame["direction"] == direction]
        table = sub.pivot(index="attacker", columns="target", values=metric)
        return table.loc[list(dict.fromkeys(sub["attacker"])), list(dict.fromkeys(sub["target"]))]

    def efficiency(self, direction: str = "A→B"):
        """Per attacker: points, mean P(kill) and mean damage over the targets, and whether
        it is on the **Pareto front** (no other attacker is at most as expensive and at least
        as deadly, strictly better in one). 0-point models are left out."""
        sub = self.frame[(self.frame["direction"] == direction) & (self.frame["attacker_points"] > 0)]
        table = sub.groupby("attacker", sort=False).agg(
            points=("attacker_points", "first"), mean_p_kill=("p_kill", "mean"),
            mean_damage=("mean_damage", "mean"), kills_per_100=("kills_per_100_points", "mean"))
        pts, kill = table["points"].to_numpy(), table["mean_p_kill"].to_numpy()
        table["pareto"] = [
            not any(pts[j] <= pts[i] and kill[j] >= kill[i] and (pts[j] < pts[i] or kill[j] > kill[i])
                    for j in range(len(pts)) if j != i)
            for i in range(len(pts))]
        return table

    @property
    def directions(self) -> list[str]:
        return list(dict.fromkeys(self.frame["direction"]))

    def _repr_html_(self) -> str:
        parts = [f"<h4>{self.report.title}</h4>"]
        for d in self.directions:
            parts.append(f"<h5>P(kill), {d}</h5>")
            parts.append(self.matrix("p_kill", d).to_html(float_format=lambda x: f"{x:.1%}"))
        return "\n".join(parts)


def _per_100(est: Estimate, points: int) -> Estimate | None:
    if points <= 0:
        return None
    scale = 100.0 / points
    return Estimate(est.value * scale, est.se * scale, (est.ci95[0] * scale, est.ci95[1] * scale),
                    est.n_trials)


def _pick_targets(units: tuple[ListUnit, ...], targets: list[str] | None) -> list[ListUnit]:
    if targets is None:
        return list(units)
    return [u for u in units if u.label in targets or u.profile_id in targets
            or u.profile_id.split("/")[-1] in targets]


def compare(list_a: str | ArmyList, list_b: str | ArmyList, *, targets: list[str] | None = None,
            method: str = "auto", n_trials: int | None = None, seed: int | None = None,
            rounds: int | None = None, policy: str = "optimal", both_ways: bool = True,
            scheduler: Any = None, workers: int | None = None, progress: Any = None,
            precision: float | None = None) -> Comparison:
    """Every attacker × target cell of two lists (A→B, and B→A unless ``both_ways=False``).

    Args:
        targets: only these targets (labels or profile ids, from either list); an empty
            selection is an error.
        method: auto (exact where the engine has it), exact or mc.
        n_trials, precision: a Monte Carlo cell runs exactly ``n_trials`` trials when
            given; otherwise until its P(kill)'s 95% half-width is at most ``precision``
            (default :data:`~mathhammer.analysis.cells.DEFAULT_PRECISION`), see
            :mod:`mathhammer.analysis.cells`. Not both.
        seed: the run's seed (cell i gets :func:`cell_seed` (seed, i), so any scheduler
            gives the same numbers).
        rounds: Fantasy combat rounds (None = until decided; 1 has an exact engine).
        policy: Warmachine focus policy of melee activations: optimal, greedy or fixed.
        scheduler: None for the local pool, or a Dask address / Client.
    """
    from mathhammer.rng import resolve_seed

    a = list_a if isinstance(list_a, ArmyList) else load_list(list_a)
    b = list_b if isinstance(list_b, ArmyList) else load_list(list_b)
    if a.game != b.game:
        raise InputError("lists", f"{a.name} is {a.game} but {b.name} is {b.game}", None,
                         "compare two lists of the same game")
    if method not in ("auto", "exact", "mc"):
        raise InputError("‹method›", "must be exact, mc or auto", method, "use ‹method› mc")
    check_policy(policy)
    check_precision(precision, n_trials)
    if n_trials is None and precision is None:
        precision = DEFAULT_PRECISION
    trials = MAX_CELL_TRIALS if n_trials is None else n_trials
    if targets is not None:
        targets = [t.strip() for t in targets if t.strip()]
        known = {x for u in a.units + b.units for x in (u.label, u.profile_id, u.profile_id.split("/")[-1])}
        unknown = [t for t in targets if t not in known]
        if unknown or not targets:
            raise InputError("‹targets›", "the target set is empty" if not targets else
                             f"names no unit of either list: {', '.join(unknown)}",
                             ",".join(targets), "use labels or ids from: " +
                             ", ".join(u.label for u in a.units + b.units))
    pairs = [("A→B", a, b, "A", "B")] + ([("B→A", b, a, "B", "A")] if both_ways else [])
    seed = resolve_seed(seed)
    cells: list[Cell] = []
    meta: list[tuple[str, ListUnit, ListUnit, str]] = []
    for direction, att, tgt, sa, sb in pairs:
        for t in _pick_targets(tgt.units, targets):
            for u in att.units:
                key = (direction, u.label, t.label)
                cells.append(Cell(a.game, u.profile, t.profile, dict(u.options), dict(t.options),
                                  ruleset=a.ruleset, method=method, n_trials=trials,
                                  seed=cell_seed(seed, len(cells)), rounds=rounds,
                                  policy=policy, key=key, precision=precision))
                meta.append((direction, u, t, f"{sa}:{u.label}→{sb}:{t.label}"))
    if not cells:
        raise InputError("‹targets›", "the target set is empty: no unit of the other list is selected",
                         ",".join(targets or []), "drop ‹targets› or name units of the lists")
    results = run_cells(cells, scheduler=scheduler, workers=workers, progress=progress)
    return _assemble(a, b, cells, meta, results, seed, policy, precision)


def _assemble(a: ArmyList, b: ArmyList, cells: list[Cell], meta, results: list[CellResult],
              seed: int, policy: str, precision: float | None = None) -> Comparison:
    import pandas as pd

    rows, named = [], {}
    for (direction, u, t, name), res in zip(meta, results, strict=True):
        per_kill, per_dmg = _per_100(res.p_kill, u.points), _per_100(res.mean_damage, u.points)
        rows.append({
            "direction": direction, "attacker": u.label, "target": t.label,
            "attacker_id": u.profile_id, "target_id": t.profile_id, "attacker_points": u.points,
            "p_kill": res.p_kill.value, "p_kill_se": res.p_kill.se,
            "mean_damage": res.mean_damage.value, "mean_damage_se": res.mean_damage.se,
            "kills_per_100_points": per_kill.value if per_kill else float("nan"),
            "kills_per_100_points_se": per_kill.se if per_kill else float("nan"),
            "mean_damage_per_100": per_dmg.value if per_dmg else float("nan"),
            "mean_damage_per_100_se": per_dmg.se if per_dmg else float("nan"),
            "method": res.method, "n_trials": res.n_trials, "seed": res.seed, "how": res.note,
        })
        named[f"p_kill[{name}]"] = res.p_kill
        named[f"mean_damage[{name}]"] = res.mean_damage
        if per_kill is not None and per_dmg is not None:
            named[f"kills_per_100_points[{name}]"] = per_kill
            named[f"mean_damage_per_100[{name}]"] = per_dmg
    frame = pd.DataFrame(rows)
    methods = set(frame["method"])
    method = methods.pop() if len(methods) == 1 else "mixed"
    mc = frame[frame["method"] == "mc"]
    info: dict[str, Any] = {
        "list_a": a.summary(), "list_b": b.summary(),
        "cell": games.get(a.game).cell_words(policy),
        "per_100": "value x 100 / attacker points (one model or unit); empty for 0-point models",
    }
    comparison = Comparison(frame, Report("compare", method, named, {}, info=info), a, b)
    info["matrix"] = {d: _matrix_info(comparison, d) for d in comparison.directions}
    report = comparison.report
    report.title = f"compare: {a.name} vs {b.name} ({a.game}, {a.ruleset})"
    if len(mc):
        report.n_trials = int(mc["n_trials"].max())
        report.seed = seed
        info["seeds"] = f"cell i of the run seeded {seed} uses cell_seed({seed}, i)"
        info["trials"] = trials_words(mc["n_trials"], precision)
    return comparison


def trials_words(counts, precision: float | None) -> str:
    """How many trials the Monte Carlo cells ran, in words (fixed, or adaptive and a range)."""
    low, high = int(min(counts)), int(max(counts))
    if precision is None:
        return f"{high:,} trials each"
    spread = f"{low:,}" if low == high else f"{low:,} to {high:,}"
    return f"each until its P(kill) has a 95% half-width of at most {precision:g} ({spread} trials)"


def _matrix_info(c: Comparison, direction: str) -> dict[str, Any]:
    import math

    out: dict[str, Any] = {}
    for metric in (name for m in METRICS for name in (m, f"{m}_se")):
        m = c.matrix(metric, direction)
        out.setdefault("attackers", list(m.index))
        out.setdefault("targets", list(m.columns))
        out[metric] = [[None if math.isnan(v) else float(v) for v in row] for row in m.to_numpy()]
    # each cell's Monte Carlo trials (adaptive cells differ); null for an exact cell
    trials = c.matrix("n_trials", direction).to_numpy()
    kinds = c.matrix("method", direction).to_numpy()
    out["n_trials"] = [[int(n) if k == "mc" else None for n, k in zip(row, kind, strict=True)]
                       for row, kind in zip(trials, kinds, strict=True)]
    return out
