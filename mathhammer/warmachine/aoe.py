"""AOE, blast, deviation and spray attacks (WM-D4..D7): exact and geometric Monte Carlo.

Geometry, in inches. The intended target ("target") stands at the origin; the
attacker is on the negative x axis at ``range`` inches, so +x points straight away
from the attacker and +y to the attacker's left. Other models are given by their
centres in these coordinates and a base size (WM-D7: small 30 mm, medium 40 mm,
large 50 mm). A model is under a template when its base circle touches or overlaps
the template (circle of the AOE diameter, or the spray template).

AOE (WM-D4, WM-D5): one attack roll against the target. A hit is a direct hit: the
target takes a full-POW damage roll, every other model under the template centred on
it a blast roll at ceil(POW/2). A miss deviates d6 inches (capped at half the
distance from the attacker to the intended point) in d6 direction (1 = straight on,
then clockwise in 60° steps, 4 = back towards the attacker); every model under the
deviated template, the target included, takes a blast roll. A target beyond the
weapon's RNG is missed automatically and the deviation starts from the point at RNG
on the line to it, capped at RNG/2 (reference D6). Since the 36 deviation outcomes
are equally likely and the geometry is fixed, the exact engine enumerates them; the
Monte Carlo kernel throws real dice and measures distances, an independent check.

Spray (WM-D6): the template is fixed (no deviation); every model under it gets its own
attack roll (its own DEF, no target-in-melee penalty) and full-POW damage on a hit.
The template shape is approximated by a trapezoid along the attack line, starting at
the attacker (``range`` is measured from the template's narrow end): 0.5" wide at the
narrow end and 2" at the far end, 8" or 10" long (**low confidence**: the exact
outline of the Mk II spray template was not verified).
"""

from __future__ import annotations

import math

import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import RulesError
from mathhammer.query import answer
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.warmachine import rules
from mathhammer.warmachine.aoe_geometry import (  # noqa: F401 (re-exported)
    AOE_SIZES,
    BASE_MM,
    MAX_STAT,
    MM_PER_INCH,
    SPRAY_FAR_WIDTH,
    SPRAY_NEAR_WIDTH,
    SPRAY_SIZES,
    TOUCH_EPS,
    AoeSetup,
    TemplateModel,
    _aim,
    _Model,
    _resolve,
    _scenarios,
    base_radius,
    check_model,
    deviation_vectors,
    load_models,
    parse_model,
    spray_coverage,
)


def _with_miss(pmf: np.ndarray, p: float) -> np.ndarray:
    out = p * pmf
    out[0] += 1.0 - p
    return out


def _exact_per_model(setup: AoeSetup, models: list[_Model]):
    """Per model: (P(takes a damage roll), damage pmf); and the pmf of the number hit."""
    n = len(models)
    if setup.spray is not None:
        under = spray_coverage(models, setup.range, setup.spray)
        per_model, count = [], np.ones(1)
        for m, u in zip(models, under):
            p = rules.hit_probability(*m.attack) if u else 0.0
            per_model.append((p, _with_miss(rules.damage_pmf(*m.full), p)))
            count = np.convolve(count, [1.0 - p, p])
        return per_model, count
    full = [rules.damage_pmf(*m.full) for m in models]
    blast = [rules.damage_pmf(*m.blast) for m in models]
    width = [max(len(f), len(b)) for f, b in zip(full, blast)]
    pmfs = [np.zeros(w) for w in width]
    p_hit = np.zeros(n)
    count = np.zeros(n + 1)
    for prob, marks in _scenarios(setup, models):
        count[sum(1 for x in marks if x)] += prob
        for i, mark in enumerate(marks):
            if mark == 0:
                pmfs[i][0] += prob
            else:
                src = full[i] if mark == 2 else blast[i]
                pmfs[i][: len(src)] += prob * src
                p_hit[i] += prob
    return list(zip(p_hit.tolist(), pmfs)), count


def _results(models: list[_Model], p_target: Estimate, count: Distribution,
             hits: list[Estimate], dists: list[Distribution]) -> tuple[dict, dict]:
    results: dict[str, Estimate] = {"p_target_hit": p_target, "mean_models_hit": count.mean_estimate()}
    distributions = {"models_hit": count}
    for m, hit, dist in zip(models, hits, dists):
        results[f"p_hit_{m.name}"] = hit
        results[f"mean_damage_{m.name}"] = dist.mean_estimate()
        if m.boxes is not None:
            results[f"p_destroyed_{m.name}"] = dist.p_at_least(m.boxes)
        distributions[f"damage_{m.name}"] = dist
    return results, distributions


def aoe_exact(setup: AoeSetup) -> Report:
    models = _resolve(setup)
    per_model, count = _exact_per_model(setup, models)
    if setup.spray is not None:
        p_target = per_model[0][0]
    else:
        p_target = next((p for p, marks in _scenarios(setup, models) if marks[0] == 2), 0.0)
    results, dists = _results(models, Estimate.exact(p_target), Distribution.exact(count),
                              [Estimate.exact(p) for p, _ in per_model],
                              [Distribution.exact(pmf) for _, pmf in per_model])
    return Report("wm aoe", "exact", results, dists, title=_title(setup, models))


# --------------------------------------------------------------------------- Monte Carlo
def _flat(tables: list[np.ndarray], dtype):
    bounds = np.array([len(t) for t in tables], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(bounds)[:-1]]).astype(np.int64)
    return bounds, offsets, np.ascontiguousarray(np.concatenate(tables).astype(dtype))


def aoe_monte_carlo(setup: AoeSetup, config: MonteCarloConfig) -> Report:
    from mathhammer import kernels

    kern = kernels.load("aoe")
    models = _resolve(setup)
    n = len(models)
    full_tabs = [rules.damage_table(*m.full) for m in models]
    blast_tabs = [rules.damage_table(*m.blast) for m in models]
    width = max(int(t.max()) for t in full_tabs + blast_tabs) + 1
    fb, fo, ft = _flat(full_tabs, np.int64)
    spray = setup.spray is not None
    if spray:
        under = spray_coverage(models, setup.range, setup.spray)
        ab, ao, at = _flat([rules.attack_outcome_table(*m.attack) for m in models], np.int8)
    else:
        bb, bo, bt = _flat(blast_tabs, np.int64)
        aim_x, cap, auto_miss = _aim(setup)
        att = rules.attack_outcome_table(*models[0].attack)
        att = np.zeros_like(att) if auto_miss else att
        xs = np.array([m.x for m in models], dtype=np.float64)
        ys = np.array([m.y for m in models], dtype=np.float64)
        rs = np.array([m.radius for m in models], dtype=np.float64)
        dx, dy = deviation_vectors()

    def run_chunk(trials: int, state: np.ndarray) -> dict[str, np.ndarray]:
        hits = np.zeros(n, np.int64)
        hist = np.zeros((n, width), np.int64)
        count = np.zeros(n + 1, np.int64)
        direct = np.zeros(1, np.int64)
        if spray:
            kern.spray_mc(under, ab, ao, at, fb, fo, ft, state, np.int64(trials), hits, hist, count)
        else:
            kern.aoe_mc(xs, ys, rs, np.float64(setup.aoe / 2.0), np.float64(aim_x), np.float64(cap),
                        dx, dy, np.int64(len(att)), att, fb, fo, ft, bb, bo, bt, state,
                        np.int64(trials), hits, hist, count, direct)
        return {"hits": hits, "hist": hist, "count": count, "direct": direct}

    def probabilities(tally: dict[str, np.ndarray], trials: int) -> np.ndarray:
        return np.concatenate([tally["hits"] / trials, tally["direct"] / trials])

    run = simulate(run_chunk, config, probabilities)
    t, N = run.tally, run.n_trials
    target_hits = int(t["hits"][0]) if spray else int(t["direct"][0])
    results, dists = _results(
        models, Estimate.proportion(target_hits, N), Distribution.from_counts(t["count"]),
        [Estimate.proportion(int(h), N) for h in t["hits"]],
        [Distribution.from_counts(t["hist"][i]) for i in range(n)])
    return Report("wm aoe", "mc", results, dists, n_trials=N, seed=run.seed,
                  title=_title(setup, models))


def _title(setup: AoeSetup, models: list[_Model]) -> str:
    k, bonus, dfn, _ = models[0].attack
    what = f"SP{setup.spray:g} spray" if setup.spray is not None else f'{setup.aoe:g}" AOE'
    return (f"wm aoe: {what} {setup.kind} {k}d6+{bonus} vs DEF {dfn} at {setup.range:g}\", "
            f"POW {setup.power}, {len(models)} model(s)")


def aoe(setup: AoeSetup, *, method: str = "auto", config: MonteCarloConfig | None = None,
        check: bool = False, explain: bool = False) -> Report:
    """P(target hit), expected models hit and damage per model of one AOE or spray attack.

    >>> r = aoe(AoeSetup(stat=5, defense=13, armor=14, power=14, range=8.0))
    >>> round(r.results["p_target_hit"].value, 4)
    0.4167
    """
    models = _resolve(setup)
    if setup.spray is not None and not spray_coverage(models[:1], setup.range, setup.spray)[0]:
        raise RulesError("--range", f"the target is not under the SP{setup.spray:g} template",
                         setup.range, f"use --range {setup.spray:g} or less")
    report = answer("wm aoe", method=method, exact=lambda: aoe_exact(setup),
                    monte_carlo=lambda cfg: aoe_monte_carlo(setup, cfg), config=config, check=check)
    aim_x, cap, auto_miss = _aim(setup)
    if setup.spray is None:
        report.info["deviation"] = f"d6 inches, capped at {cap:g}\" (half the distance)"
        if auto_miss:
            report.info["note"] = "target beyond RNG: automatic miss, deviating from the point at RNG"
        report.info["blast_pow"] = math.ceil(setup.power / 2)
    else:
        report.info["spray_template"] = (f"{setup.spray:g}\" long, {SPRAY_NEAR_WIDTH:g}\"-"
                                         f"{SPRAY_FAR_WIDTH:g}\" wide (approximate, low confidence)")
    if explain:  # the exact working, with the rules and decisions (WM-D4) it follows
        from mathhammer.explain import attach
        from mathhammer.warmachine.explain import explain_aoe

        attach(report, explain_aoe(setup))
    return report
