"""What every artillery engine shares (FB-R1..R7): the unit's geometry, one hit's wound
table, the misfire rows, and the report an engine returns (exact or Monte Carlo).

Geometry (FB-R5), in inches: a unit is a list of base rectangles ``x0 < x1``,
``y0 < y1``: files along x, the unit centred on x = 0, the front edge at y = 0, ranks
behind it (+y), the shooter at y < 0. A partial last rank stands in the leftmost files,
in line with the ranks in front (decision).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.fantasy.artillery.shot import (
    MM_PER_INCH,
    Profile,
    Shot,
    hit_spec,
    misfire_rows,
    misfire_table,
    row_of_face,
)
from mathhammer.fantasy.chain.core import chain_distribution, single_attack_outcomes
from mathhammer.fantasy.models import UnitProfile
from mathhammer.fantasy.rules.ruleset import Ruleset
from mathhammer.results import Distribution, Estimate, Report

LINE_WEAPONS = ("cannon", "bolt-thrower", "flame-cannon")  # shot along a file (or a rank)


def formation_rects(models: int, width: int, base_mm: tuple[int, int]) -> np.ndarray:
    """(4, models) float64 rows x0, x1, y0, y1 in inches, the unit centred on x = 0."""
    w, d = base_mm[0] / MM_PER_INCH, base_mm[1] / MM_PER_INCH
    out = np.zeros((4, models))
    left = -min(width, models) * w / 2.0
    for m in range(models):
        rank, file = divmod(m, width)  # a partial last rank fills files from the left
        out[:, m] = (left + file * w, left + (file + 1) * w, rank * d, (rank + 1) * d)
    return out


def flank_view(rects: np.ndarray, depth: float) -> np.ndarray:
    """The formation seen from its left flank: ranks become files, the flank edge y = 0."""
    x_min = rects[0].min()
    return np.stack([rects[2] - depth / 2.0, rects[3] - depth / 2.0,
                     rects[0] - x_min, rects[1] - x_min])


def aim_point(unit: UnitProfile, shot: Shot, weapon: str) -> tuple[float, float, float]:
    """(x, y, depth): the aim point (1-based file and rank, fractions allowed; default the
    centre, or the middle file's centre line for weapons shot along a line)."""
    f = unit.formation
    w, d = unit.base_mm[0] / MM_PER_INCH, unit.base_mm[1] / MM_PER_INCH
    front = min(f.rank_width, f.models)
    n_ranks = math.ceil(f.models / f.rank_width)
    file = shot.aim_file if shot.aim_file is not None else (front + 1) / 2.0
    rank = shot.aim_rank if shot.aim_rank is not None else (n_ranks + 1) / 2.0
    for flag, value, top in (("‹aim_file›", file, front), ("‹aim_rank›", rank, n_ranks)):
        if not 0.5 <= value <= top + 0.5:
            raise InputError(flag, f"must lie on the unit (1..{top})", value, f"use {flag} 1")
    free = weapon in ("stone-thrower", "template")
    if not free and shot.aim_file is None:
        file = float(math.ceil(file))  # a line through a base centre, not along a seam
    if not free and shot.aim_rank is None:
        rank = float(math.ceil(rank))
    return -front * w / 2.0 + (file - 0.5) * w, (rank - 0.5) * d, n_ranks * d


def file_models(rects: np.ndarray, line_x: float) -> int:
    return int(np.sum((rects[0] <= line_x) & (line_x <= rects[1])))


@dataclass
class Setup:
    """One shot, compiled: the unit, rules, the weapon's hits and where it is aimed."""

    weapon: str
    unit: UnitProfile
    rules: Ruleset
    shot: Shot
    profile: Profile
    rects: np.ndarray
    aim_x: float
    aim_y: float
    depth: float
    title: str
    info: dict = field(default_factory=dict)

    @property
    def models(self) -> int:
        return self.unit.formation.models

    @property
    def w(self) -> int:
        return self.unit.wounds

    @property
    def row_of_face(self) -> np.ndarray:
        rows, modifier = misfire_table(self.weapon, self.rules)
        return np.array(row_of_face(rows, modifier), dtype=np.int64)

    @property
    def row_keys(self) -> list[str]:
        return list(misfire_rows(self.weapon, self.rules))

    def outcomes(self, strength: int, mw: str | None, armour: bool = True) -> np.ndarray:
        """One hit's exact outcome table on a model: P(k wounds), then P(slain outright)."""
        u = self.unit
        spec = hit_spec(u.toughness, u.wounds, u.saves.armour, u.saves.ward,
                        u.saves.regeneration, strength, mw, self.profile.armour_piercing,
                        armour, self.profile.flaming)
        pmf, slain = single_attack_outcomes(spec, self.rules)
        return np.concatenate([pmf, [slain]])


def cdf(outcomes: np.ndarray, width: int) -> np.ndarray:
    """Cumulative table of an outcome table, padded to ``width`` (last = slain outright)."""
    pmf = np.zeros(width)
    pmf[: len(outcomes) - 1] = outcomes[:-1]
    pmf[-1] = outcomes[-1]
    cum = np.cumsum(pmf)
    cum[int(np.nonzero(pmf > 0)[0][-1]):] = 1.0
    return cum


def misfire_probs(setup: Setup, p_misfire: Fraction) -> dict[str, Fraction]:
    """P(misfire) and P(each misfire-table row), exact (the D6 of the table is fair)."""
    return {"p_misfire": p_misfire,
            **{k: p_misfire * v for k, v in misfire_rows(setup.weapon, setup.rules).items()}}


HISTOGRAMS = ("models_hit", "hits", "wounds", "models_slain")
#: the engines' histogram names as the report shows them (wounds left after every save)
REPORTED = {"wounds": "unsaved_wounds"}


def report(setup: Setup, method: str, probs: dict, hists: dict, n: int | None, seed) -> Report:
    """Exact (``n`` None: values are probabilities) or Monte Carlo (values are counts)."""
    results = {}
    for name, value in probs.items():
        results[name] = (Estimate.exact(float(value)) if n is None
                         else Estimate.proportion(int(value), n))
    dists = {REPORTED.get(name, name): (Distribution.exact(h) if n is None
                                        else Distribution.from_counts(h))
             for name, h in hists.items()}
    for name in HISTOGRAMS:
        shown = REPORTED.get(name, name)
        if shown in dists:
            results[f"mean_{shown}"] = dists[shown].mean_estimate()
    return Report("fantasy.artillery", method, results, dists, n_trials=n, seed=seed,
                  info=dict(setup.info), title=setup.title)


def mc_run(setup: Setup, run_kernel, names: dict[str, list[int]], hit_bins: int | None = None,
           config: MonteCarloConfig | None = None) -> Report:
    """Run an artillery kernel; ``names`` maps each result to the counter slots it adds.

    ``hit_bins``: the size of the hits histogram (volleys, whose hits can pass the models);
    None: models hit, at most the unit.
    """
    from mathhammer import kernels

    k = kernels.load("mathhammer.fantasy.kernels.artillery")
    models, w = setup.models, setup.w
    first = "models_hit" if hit_bins is None else "hits"
    size = models + 1 if hit_bins is None else hit_bins

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        counters = np.zeros(k.N_COUNTERS, np.int64)
        hists = {"hit": np.zeros(size, np.int64), "wounds": np.zeros(models * w + 1, np.int64),
                 "models_slain": np.zeros(models + 1, np.int64)}
        run_kernel(k, state, np.int64(n), counters, hists)
        return {"counters": counters, **hists}

    def probabilities(tally, n):
        return np.array([sum(tally["counters"][s] for s in slots) / n for slots in names.values()])

    run = simulate(run_chunk, config or MonteCarloConfig(), probabilities)
    t = run.tally
    probs = {name: sum(int(t["counters"][s]) for s in slots) for name, slots in names.items()}
    hists = {first: t["hit"], "wounds": t["wounds"], "models_slain": t["models_slain"]}
    return report(setup, "mc", probs, hists, run.n_trials, run.seed)


def misfire_slots(setup: Setup, k) -> dict[str, list[int]]:
    """Counter slots of p_misfire and each row (kernels.artillery C_MISFIRE, C_ROW0 + i)."""
    return {"p_misfire": [k.C_MISFIRE],
            **{key: [k.C_ROW0 + i] for i, key in enumerate(setup.row_keys)}}


def wound_totals(per_hit: np.ndarray, hits: int, setup: Setup) -> np.ndarray:
    """P(total wounds) of ``hits`` hits, capped at the unit's wounds (FB-V4)."""
    return chain_distribution(per_hit[:-1], float(per_hit[-1]), {hits: 1.0}, setup.w,
                              setup.models)


def add(hist: np.ndarray, dist: np.ndarray, p: float) -> None:
    hist[: len(dist)] += p * dist


def slain_of(wounds: np.ndarray, setup: Setup) -> np.ndarray:
    out = np.zeros(setup.models + 1)
    for t, p in enumerate(wounds):
        out[min(t // setup.w, setup.models)] += p
    return out


def empty_hists(setup: Setup, hits_size: int | None = None) -> dict[str, np.ndarray]:
    first = "models_hit" if hits_size is None else "hits"
    return {first: np.zeros((setup.models if hits_size is None else hits_size - 1) + 1),
            "wounds": np.zeros(setup.models * setup.w + 1),
            "models_slain": np.zeros(setup.models + 1)}


def stats_target(toughness: int, wounds: int = 1, armour: int | None = None,
                 ward: int | None = None, regeneration: int | None = None, base: str = "20mm",
                 models: int = 10, rank_width: int = 5, ruleset: str = "wfb8") -> UnitProfile:
    """A target unit from raw stats (no profile): only what a shot at it reads."""
    from mathhammer.fantasy.models import validate_unit

    saves = {k: v for k, v in (("armour", armour), ("ward", ward),
                               ("regeneration", regeneration)) if v is not None}
    name = f"T{toughness} W{wounds}" + (f" {armour}+" if armour else "") + (
        f" ward {ward}+" if ward else "") + (f" regeneration {regeneration}+" if regeneration else "")
    ruleset = ruleset if ruleset in ("basic", "wfb8", "t9a1") else "wfb8"
    return validate_unit({
        "id": "stats/target", "name": name, "ruleset": ruleset, "base": base,
        "stats": {"m": 4, "ws": 3, "bs": 3, "s": 3, "t": toughness, "w": wounds, "i": 3, "a": 1,
                  "ld": 7},
        "saves": saves, "formation": {"models": models, "rank_width": rank_width},
        "points": {"per_model": 0}}, "‹toughness›/‹wounds›/‹save›")
