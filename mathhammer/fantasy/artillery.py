"""Artillery against a unit formation (FB-R1..R5): stone thrower, cannon, bolt thrower.

>>> artillery("stone-thrower", "wfb8/empire_halberdiers")   # doctest: +SKIP

* **Facing**: cannons and bolt throwers shoot at the front (along a file) or, with
  ``facing = "flank"``, along a rank (the aimed ``aim_rank``).
* **Formation** (FB-R5): ``models`` bases of ``base`` mm in ranks of ``rank_width``
  (files along x, the front edge at y = 0, ranks behind it); a partial last rank stands in
  the leftmost files, in line with the ranks in front (**decision**). Aim points are given as (file, rank), 1-based, fractions
  allowed; the default is the centre of the unit (templates) or the middle file.
* **Stone thrower** (FB-R2): artillery die (MISFIRE → misfire table) and scatter die
  (``ruleset.scatter_hit_faces`` HITs of 6; an arrow moves the template the artillery
  number in a uniform direction). Every base the template touches is hit; with
  ``ruleset.template_partial_hits`` a partly covered base is hit on 4+ (FB-R1). The
  base under the centre takes the big hit. Geometry → Monte Carlo only; p_misfire,
  the misfire table and p_direct_hit have exact values (``--check``).
* **Cannon** ``template`` rulesets (FB-R3): the ball lands ``short`` inches in front
  of the unit + the artillery die, bounces the artillery die again along the file;
  every base on the line is hit; a MISFIRE on the bounce hits the landing point
  only. Exact (36 dice outcomes) and Monte Carlo.
* **Cannon** ``artillery = "to_hit"`` (t9a1 1.2+, FB-R3): a BS roll, natural 1 =
  misfire; a hit hits one model per rank of the file, at most 5; the first hit
  uses the big profile. Exact and Monte Carlo.
* **Bolt thrower** (FB-R4): a BS roll; S6 on the first model of the file, S5 on the
  next while models die, …; no armour saves; D3 wounds per unsaved wound. Exact
  and Monte Carlo.
Misfire table (FB-R2): D6 1 destroyed, 2-3 disabled, 4-6 no shot this turn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.fantasy.chain import AttackSpec, chain_distribution, single_attack_outcomes
from mathhammer.fantasy.models import UnitProfile, load_unit, with_formation
from mathhammer.fantasy.rulesets import Ruleset, load_ruleset
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report

WEAPONS = ("stone-thrower", "cannon", "bolt-thrower")
TEMPLATES = {"small": 1.5, "large": 2.5}  # FB-R1: radius in inches (3" and 5" across)
MM_PER_INCH = 25.4
MISFIRE_TABLE = {"p_destroyed": Fraction(1, 6), "p_disabled": Fraction(2, 6),
                 "p_no_shot": Fraction(3, 6)}  # FB-R2, given a misfire
DEFAULTS = {  # strength, big strength, multiple wounds (of the big / every hit), template
    "stone-thrower": (3, 9, "D6"),  # wfb8: S3 (9), Multiple Wounds (D6) under the hole
    "cannon": (4, 10, "D6"),  # wfb8: S10, MW (D6) every hit; t9a1 to-hit: S4 [10] (low)
    "bolt-thrower": (6, 6, "D3"),  # FB-R4: S6 then one less per rank; D3 wounds
}


@dataclass(frozen=True)
class Shot:
    """What is fired and where (see :func:`artillery`)."""

    weapon: str
    template: str = "small"
    strength: int | None = None
    big_strength: int | None = None
    multiple_wounds: str | None = None
    armour_piercing: int = 0
    bs: int = 3
    modifier: int = 0
    aim_file: float | None = None
    aim_rank: float | None = None
    short: float = 4.0
    facing: str = "front"  # cannon / bolt thrower: shoot at the front or along a rank (flank)


def formation_rects(models: int, width: int, base_mm: tuple[int, int]) -> np.ndarray:
    """(4, models) float64 rows x0, x1, y0, y1 in inches, the unit centred on x = 0."""
    w, d = base_mm[0] / MM_PER_INCH, base_mm[1] / MM_PER_INCH
    out = np.zeros((4, models))
    left = -min(width, models) * w / 2.0
    for m in range(models):
        rank, file = divmod(m, width)  # a partial last rank fills files from the left
        out[:, m] = (left + file * w, left + (file + 1) * w, rank * d, (rank + 1) * d)
    return out


def _aim(unit: UnitProfile, shot: Shot) -> tuple[float, float, int]:
    f = unit.formation
    w, d = unit.base_mm[0] / MM_PER_INCH, unit.base_mm[1] / MM_PER_INCH
    front = min(f.rank_width, f.models)
    n_ranks = math.ceil(f.models / f.rank_width)
    file = shot.aim_file if shot.aim_file is not None else (front + 1) / 2.0
    rank = shot.aim_rank if shot.aim_rank is not None else (n_ranks + 1) / 2.0
    for flag, value, top in (("--aim-file", file, front), ("--aim-rank", rank, n_ranks)):
        if not 0.5 <= value <= top + 0.5:
            raise InputError(flag, f"must lie on the unit (1..{top})", value, f"use {flag} 1")
    if shot.weapon != "stone-thrower" and shot.aim_file is None:
        file = float(math.ceil(file))  # a line through a base centre, not along a seam
    if shot.weapon != "stone-thrower" and shot.aim_rank is None:
        rank = float(math.ceil(rank))
    return -front * w / 2.0 + (file - 0.5) * w, (rank - 0.5) * d, n_ranks * d


def flank_view(rects: np.ndarray, depth: float) -> np.ndarray:
    """The formation seen from its left flank: ranks become files, the flank edge y = 0."""
    x_min = rects[0].min()
    return np.stack([rects[2] - depth / 2.0, rects[3] - depth / 2.0,
                     rects[0] - x_min, rects[1] - x_min])


def hit_spec(unit: UnitProfile, strength: int, mw: str | None, ap: int,
             armour: bool = True) -> AttackSpec:
    """One artillery hit on a model of ``unit``: no to-hit roll, then wound and saves."""
    return AttackSpec(strength=strength, toughness=unit.toughness, auto_hit=True,
                      close_combat=False, save=unit.saves.armour if armour else None,
                      ward=unit.saves.ward, regeneration=unit.saves.regeneration,
                      armour_piercing=ap, multiple_wounds=mw, target_wounds=unit.wounds)


def _outcomes(rules: Ruleset, unit: UnitProfile, strength: int, mw: str | None, ap: int,
              armour: bool = True) -> np.ndarray:
    pmf, slain = single_attack_outcomes(hit_spec(unit, strength, mw, ap, armour), rules)
    return np.concatenate([pmf, [slain]])


def hit_strengths(weapon: str, shot: Shot) -> tuple[int, int, str]:
    """(strength, strength of the big hit, Multiple Wounds) after the shot's overrides."""
    s_small, s_big, mw = DEFAULTS[weapon]
    s_small = shot.strength or s_small
    s_big = shot.big_strength or (shot.strength if weapon != "stone-thrower" and shot.strength
                                  else s_big)
    return s_small, s_big, shot.multiple_wounds or mw


def uses_to_hit(weapon: str, rules: Ruleset) -> bool:
    """Bolt throwers, and cannons in rulesets with a to-hit roll, roll to hit (FB-R3/R4)."""
    return weapon == "bolt-thrower" or (weapon == "cannon" and rules.artillery == "to_hit")


def _cdf(outcomes: np.ndarray, width: int) -> np.ndarray:
    pmf = np.zeros(width)
    pmf[: len(outcomes) - 1] = outcomes[:-1]
    pmf[-1] = outcomes[-1]
    cum = np.cumsum(pmf)
    cum[int(np.nonzero(pmf > 0)[0][-1]):] = 1.0
    return cum


def _file_models(rects: np.ndarray, line_x: float) -> int:
    return int(np.sum((rects[0] <= line_x) & (line_x <= rects[1])))


# ---- the query ----------------------------------------------------------------------------
def artillery(weapon: str, target: str | UnitProfile, *, ruleset: str | Ruleset | None = None,
              models: int | None = None, rank_width: int | None = None, shot: Shot | None = None,
              method: str = "auto", config: MonteCarloConfig | None = None,
              check: bool = False, explain: bool = False, **shot_options) -> Report:
    """One artillery shot at ``target`` (profile id, unit file or profile).

    ``explain`` attaches the dice odds and each kind of hit's wound chain
    (:mod:`mathhammer.fantasy.artillery_explain`) under ``report.info["explain"]``.
    """
    if weapon not in WEAPONS:
        raise InputError("WEAPON", "unknown artillery piece", weapon, f"use one of {', '.join(WEAPONS)}")
    unit = target if isinstance(target, UnitProfile) else load_unit(target)
    unit = with_formation(unit, models=models, rank_width=rank_width)
    rules = load_ruleset(ruleset or unit.ruleset)
    shot = shot or Shot(weapon, **shot_options)
    if shot.template not in TEMPLATES:
        raise InputError("--template", "must be small or large", shot.template, "use --template large")
    s_small, s_big, mw = hit_strengths(weapon, shot)
    for flag, value in (("--strength", s_small), ("--big-strength", s_big)):
        rules.check_characteristic(value, flag)
    rects = formation_rects(unit.formation.models, unit.formation.rank_width, unit.base_mm)
    aim_x, aim_y, depth = _aim(unit, shot)
    if shot.facing not in ("front", "flank"):
        raise InputError("--facing", "must be front or flank", shot.facing, "use --facing flank")
    if shot.facing == "flank" and weapon != "stone-thrower":  # FB-R3/R4 along a rank
        rects = flank_view(rects, depth)
        aim_x = aim_y - depth / 2.0
    to_hit = uses_to_hit(weapon, rules)

    def done(report: Report) -> Report:
        if explain:
            from mathhammer.explain import attach
            from mathhammer.fantasy.artillery_explain import explain_artillery

            attach(report, explain_artillery(weapon, unit, rules, shot))
        return report

    title = f"{weapon} at {unit.name} ({unit.formation.models} models, {rules.name})"
    info = {"ruleset": rules.name, "target": unit.id, "formation":
            f"{unit.formation.models} models, {unit.formation.rank_width} wide, base {unit.base_mm} mm",
            "aim": f"x {aim_x:+.2f} in, y {aim_y:.2f} in behind the front edge"}
    if weapon == "stone-thrower":
        small = _outcomes(rules, unit, s_small, None, shot.armour_piercing)
        big = _outcomes(rules, unit, s_big, mw, shot.armour_piercing)
        info.update({"hits": f"S{s_small}; the base under the centre S{s_big}, Multiple Wounds ({mw})",
                     "template": f"{shot.template} ({2 * TEMPLATES[shot.template]:g} in)",
                     "scatter_hit_faces": rules.scatter_hit_faces,
                     "partial_hits_on_4": rules.template_partial_hits})

        def mc(cfg):
            return _template_mc(rects, aim_x, aim_y, TEMPLATES[shot.template], rules, small, big,
                                unit, cfg, title, info)

        def partial_exact():
            return _misfire_report(rules.scatter_hit_faces, title, info, True)

        if method == "exact":
            raise InputError("--method", "a scattered template needs Monte Carlo (only the "
                             "misfire and HIT odds are exact; see --check)", method, "use --method mc")
        return done(answer("fb artillery", method=method, exact=partial_exact if check else None,
                           monte_carlo=mc, config=config, check=check))
    if not to_hit:
        line_x = aim_x
        hit = _outcomes(rules, unit, s_big, mw, shot.armour_piercing)
        aim_y = -shot.short
        info.update({"hits": f"S{s_big}, Multiple Wounds ({mw}) on every model on the line",
                     "aim": f"line x {line_x:+.2f} in, {shot.short:g} in short of the {shot.facing}"})
        return done(answer("fb artillery", method=method,
                           exact=lambda: _bounce_exact(rects, line_x, aim_y, hit, unit, title, info),
                           monte_carlo=lambda cfg: _bounce_mc(rects, line_x, aim_y, hit, unit,
                                                              cfg, title, info),
                           config=config, check=check))
    # to-hit weapons: a line of models in the aimed file
    in_file = _file_models(rects, aim_x)
    shooting = rules.to_hit_shooting(shot.bs, shot.modifier)
    p_hit = float(shooting.p_hit)
    if weapon == "bolt-thrower":
        strengths = [s_small - j for j in range(min(in_file, s_small))]
        tables = [_outcomes(rules, unit, s, mw, shot.armour_piercing, armour=False) for s in strengths]
        stop, p_misfire = True, 0.0
        info["hits"] = (f"S{s_small}, then one less per rank while models die; no armour saves; "
                        f"Multiple Wounds ({mw})")
    else:  # t9a1 to-hit cannon: natural 1 misfires; one hit per rank, at most 5
        n = min(in_file, 5)
        tables = [_outcomes(rules, unit, s_big, mw, shot.armour_piercing)] + [
            _outcomes(rules, unit, s_small, None, shot.armour_piercing) for _ in range(n - 1)]
        stop, p_misfire = False, 1.0 / 6.0
        info["hits"] = f"first model S{s_big} Multiple Wounds ({mw}); S{s_small} on the others (max 5)"
    info["p_hit_roll"] = f"{shooting.p_hit} (BS {shot.bs}, modifier {shot.modifier:+d})"
    info["line"] = f"{in_file} models in the {'rank' if shot.facing == 'flank' else 'file'} aimed at"
    return done(answer("fb artillery", method=method,
                       exact=lambda: _line_exact(p_misfire, p_hit, tables, stop, unit, title, info),
                       monte_carlo=lambda cfg: _line_mc(p_misfire, p_hit, tables, stop, unit, cfg,
                                                        title, info),
                       config=config, check=check))


# ---- engines ------------------------------------------------------------------------------
RESULTS = ("p_misfire", "p_destroyed", "p_disabled", "p_no_shot", "p_direct_hit", "p_any_hit",
           "p_big_hit")
HISTOGRAMS = ("models_hit", "wounds", "models_slain")
#: the kernels' histogram names as the report shows them (wounds left after every save)
REPORTED = {"wounds": "unsaved_wounds"}


def _report(method: str, probs: dict, hists: dict, n: int | None, seed, title, info) -> Report:
    results = {}
    for name, value in probs.items():
        results[name] = (Estimate.exact(float(value)) if n is None
                         else Estimate.proportion(int(value), n))
    dists = {REPORTED.get(name, name): (Distribution.exact(h) if n is None
                                        else Distribution.from_counts(h))
             for name, h in hists.items()}
    for name in HISTOGRAMS:
        if REPORTED.get(name, name) in dists:
            shown = REPORTED.get(name, name)
            results[f"mean_{shown}"] = dists[shown].mean_estimate()
    return Report("fb artillery", method, results, dists, n_trials=n, seed=seed, info=dict(info),
                  title=title)


def _misfire_report(hit_faces: int, title, info, with_direct: bool) -> Report:
    """Exact values that need no geometry: misfire odds, the table, a HIT (FB-R2)."""
    p_mis = Fraction(1, 6)
    probs = {"p_misfire": p_mis, **{k: p_mis * v for k, v in MISFIRE_TABLE.items()}}
    if with_direct:
        probs["p_direct_hit"] = (1 - p_mis) * Fraction(hit_faces, 6)
    return _report("exact", probs, {}, None, None, title, info)


def _mc_run(run_kernel, n_models: int, w: int, config, title, info, names) -> Report:
    from mathhammer import kernels

    k = kernels.load("artillery")

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        counters = np.zeros(k.N_COUNTERS, np.int64)
        hists = {"models_hit": np.zeros(n_models + 1, np.int64),
                 "wounds": np.zeros(n_models * w + 1, np.int64),
                 "models_slain": np.zeros(n_models + 1, np.int64)}
        run_kernel(k, state, np.int64(n), counters, hists)
        return {"counters": counters, **hists}

    slots = {"p_misfire": k.C_MISFIRE, "p_destroyed": k.C_DESTROYED, "p_disabled": k.C_DISABLED,
             "p_no_shot": k.C_NO_SHOT, "p_direct_hit": k.C_DIRECT, "p_any_hit": k.C_ANY_HIT,
             "p_big_hit": k.C_BIG_HIT}

    def probabilities(tally, n):
        return np.array([tally["counters"][slots[name]] / n for name in names])

    run = simulate(run_chunk, config, probabilities)
    t = run.tally
    probs = {name: t["counters"][slots[name]] for name in names}
    return _report("mc", probs, {h: t[h] for h in HISTOGRAMS}, run.n_trials, run.seed, title, info)


def _template_mc(rects, aim_x, aim_y, radius, rules, small, big, unit, config, title, info):
    width = max(len(small), len(big))
    cdf_small, cdf_big = _cdf(small, width), _cdf(big, width)
    x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in rects)

    def run(k, state, n, counters, h):
        k.template_trials(x0, x1, y0, y1, float(aim_x), float(aim_y), float(radius),
                          np.int64(rules.scatter_hit_faces), np.int64(rules.template_partial_hits),
                          cdf_small, cdf_big, np.int64(unit.wounds), state, n, counters,
                          h["models_hit"], h["wounds"], h["models_slain"])

    return _mc_run(run, rects.shape[1], unit.wounds, config, title, info, RESULTS)


def _bounce_mc(rects, line_x, aim_y, hit, unit, config, title, info):
    cdf = _cdf(hit, len(hit))
    x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in rects)

    def run(k, state, n, counters, h):
        k.bounce_trials(x0, x1, y0, y1, float(line_x), float(aim_y), cdf, np.int64(unit.wounds),
                        state, n, counters, h["models_hit"], h["wounds"], h["models_slain"])

    return _mc_run(run, rects.shape[1], unit.wounds, config, title, info, RESULTS[:4] + ("p_any_hit",))


def _wound_totals(per_hit: np.ndarray, hits: int, unit: UnitProfile) -> np.ndarray:
    models = unit.formation.models
    return chain_distribution(per_hit[:-1], float(per_hit[-1]), {hits: 1.0}, unit.wounds, models)


def _add(hist: np.ndarray, dist: np.ndarray, p: float) -> None:
    hist[: len(dist)] += p * dist


def _slain(wounds: np.ndarray, unit: UnitProfile) -> np.ndarray:
    out = np.zeros(unit.formation.models + 1)
    for t, p in enumerate(wounds):
        out[min(t // unit.wounds, unit.formation.models)] += p
    return out


def _bounce_exact(rects, line_x, aim_y, hit, unit, title, info) -> Report:
    """FB-R3 by enumeration of the two artillery dice, with the kernel's line test."""
    from mathhammer import kernels

    k = kernels.load("artillery")
    models, w = unit.formation.models, unit.wounds
    hists = {"models_hit": np.zeros(models + 1), "wounds": np.zeros(models * w + 1),
             "models_slain": np.zeros(models + 1)}
    idx = np.zeros(models, np.int64)
    x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in rects)
    p_any = 0.0
    for first in range(6):
        for second in range(6):
            p = 1.0 / 36.0
            if first == 5:  # MISFIRE: no shot
                hists["models_hit"][0] += p
                hists["wounds"][0] += p
                hists["models_slain"][0] += p
                continue
            land = aim_y + 2.0 * (first + 1)
            end = land if second == 5 else land + 2.0 * (second + 1)
            hits = int(k.line_hits(x0, x1, y0, y1, float(line_x), land, end, idx))
            hists["models_hit"][hits] += p
            p_any += p * (hits > 0)
            totals = _wound_totals(hit, hits, unit)
            _add(hists["wounds"], totals, p)
            _add(hists["models_slain"], _slain(totals, unit), p)
    base = _misfire_report(0, title, info, False)
    probs = {name: est.value for name, est in base.results.items()}
    probs["p_any_hit"] = p_any
    return _report("exact", probs, hists, None, None, title, info)


def _line_exact(p_misfire, p_hit, tables, stop, unit, title, info) -> Report:
    """Bolt thrower / to-hit cannon: models hit in a line, exactly (FB-R3, FB-R4)."""
    models, w = unit.formation.models, unit.wounds
    hists = {"models_hit": np.zeros(models + 1), "wounds": np.zeros(models * w + 1),
             "models_slain": np.zeros(models + 1)}
    p_none = 1.0 - p_hit
    hists["models_hit"][0] += p_none
    hists["wounds"][0] += p_none
    hists["models_slain"][0] += p_none
    # running distribution of wounds over the models hit so far, for shots still going
    going = {0: p_hit}
    for j, table in enumerate(tables):
        per = table[:-1]  # shooting never slays outright (Killing Blow is melee, FB-W2)
        nxt: dict[int, float] = {}
        for total, p in going.items():
            for k_w, q in enumerate(per):
                if not q:
                    continue
                t2 = min(total + k_w, models * w)
                last = j == len(tables) - 1
                if stop and k_w < w or last:
                    hists["models_hit"][j + 1] += p * q
                    hists["wounds"][t2] += p * q
                    hists["models_slain"][min(t2 // w, models)] += p * q
                else:
                    nxt[t2] = nxt.get(t2, 0.0) + p * q
        going = nxt
    probs = {"p_misfire": p_misfire, **{k: p_misfire * float(v) for k, v in MISFIRE_TABLE.items()},
             "p_direct_hit": p_hit, "p_any_hit": p_hit if tables else 0.0}
    return _report("exact", probs, hists, None, None, title, info)


def _line_mc(p_misfire, p_hit, tables, stop, unit, config, title, info):
    width = max(len(t) for t in tables) if tables else 2
    cdfs = np.ascontiguousarray(np.array([_cdf(t, width) for t in tables] or [np.ones(width)]))

    def run(k, state, n, counters, h):
        k.penetrating_trials(float(p_misfire), float(p_hit), cdfs, np.int64(len(tables)),
                             np.int64(stop), np.int64(unit.wounds), np.int64(unit.formation.models),
                             state, n, counters, h["models_hit"], h["wounds"], h["models_slain"])

    return _mc_run(run, unit.formation.models, unit.wounds, config, title, info,
                   RESULTS[:6])


def artillery_from_entry(entry, unit: UnitProfile, rules: str, *, method: str,
                         config: MonteCarloConfig, check: bool) -> Report:
    """A scenario's ``[artillery]`` table (see :mod:`mathhammer.fantasy.scenario`)."""
    values = entry.model_dump()
    weapon = values.pop("weapon")
    return artillery(weapon, unit, ruleset=rules, shot=Shot(weapon, **values), method=method,
                     config=config, check=check)
