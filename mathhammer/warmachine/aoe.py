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
Its shape is seed 000's by default: a strip 1" wide and 8" (or 10") long from the
front of the attacker's base (``range`` is measured from that front edge). The
printed Mk II template is an option (``spray_shape="template"``), approximated by a
trapezoid 0.5" wide at the attacker and 2" at the far end (**low confidence**: the
exact outline was not verified).

Several shots (``rof``, e.g. a ROF 2 weapon or bought shots) fire at the same point
independently; each model's damage adds up. The exact engine follows every model's
state (untouched, or damage taken up to its boxes) jointly, so the number of models
destroyed is exact too.
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
    MAX_JOINT_STATES,
    MAX_MODELS,
    MAX_ROF,
    MM_PER_INCH,
    SPRAY_FAR_WIDTH,
    SPRAY_NEAR_WIDTH,
    SPRAY_SHAPES,
    SPRAY_SIZES,
    SPRAY_STRIP_WIDTH,
    TOUCH_EPS,
    AoeSetup,
    ModelRow,
    ModelsFile,
    TemplateModel,
    _aim,
    _Model,
    _resolve,
    _scenarios,
    _under,
    aim_point,
    base_radius,
    deviation_cases,
    deviation_vectors,
    load_models,
    p_target_under_after_miss,
    parse_model,
    spray_coverage,
)


def _shot_cases(setup: AoeSetup, models: list[_Model]):
    """One shot as cases (probability, per model (P(damage roll), damage pmf | roll))."""
    full = [rules.damage_pmf(*m.full) for m in models]
    if setup.spray is not None:
        under = spray_coverage(models, setup.range, setup.spray, setup.spray_shape)
        rolls = [(rules.hit_probability(*m.attack) if u else 0.0, f)
                 for m, u, f in zip(models, under, full)]
        return [(1.0, rolls)]
    blast = [rules.damage_pmf(*m.blast) for m in models]
    return [(prob, [(0.0, full[i]) if mark == 0 else (1.0, full[i] if mark == 2 else blast[i])
                    for i, mark in enumerate(marks)])
            for prob, marks in _scenarios(setup, models)]


def _with_miss(pmf: np.ndarray, p: float) -> np.ndarray:
    out = p * pmf
    out[0] += 1.0 - p
    return out


def _joint(cases, caps: list[int], rof: int) -> np.ndarray | None:
    """Joint distribution over models of (0 untouched, 1 + damage capped at boxes) after
    ``rof`` shots; None when it would exceed MAX_JOINT_STATES."""
    shape = tuple(c + 2 for c in caps)
    if math.prod(shape) > MAX_JOINT_STATES:
        return None
    joint = np.zeros(shape)
    joint[(0,) * len(shape)] = 1.0
    for _ in range(rof):
        new = np.zeros(shape)
        for prob, rolls in cases:
            part = joint
            for axis, ((p_roll, pmf), cap) in enumerate(zip(rolls, caps)):
                if p_roll <= 0.0:
                    continue
                step = np.zeros((cap + 2, cap + 2))
                step[np.arange(cap + 2), np.arange(cap + 2)] = 1.0 - p_roll
                for old in range(cap + 2):
                    taken = max(old - 1, 0)
                    for d, q in enumerate(pmf):
                        if q > 0:
                            step[old, 1 + min(taken + d, cap)] += p_roll * q
                part = np.moveaxis(np.tensordot(part, step, axes=([axis], [0])), -1, axis)
            new += prob * part
        joint = new
    return joint


def _count_pmf(joint: np.ndarray, hit: bool, caps: list[int], counted: list[bool]) -> np.ndarray:
    """pmf of the number of models hit (state ≥ 1) or destroyed (state = 1 + cap, counted)."""
    n = len(caps)
    total = np.zeros(n + 1)
    grids = np.indices(joint.shape)
    counts = np.zeros(joint.shape, dtype=np.int64)
    for axis in range(n):
        if hit:
            counts += grids[axis] >= 1
        elif counted[axis]:
            counts += grids[axis] == 1 + caps[axis]
    np.add.at(total, counts.ravel(), joint.ravel())
    return total


def _results(models: list[_Model], p_direct: Estimate, count: Distribution,
             rolls: list[Estimate], dists: list[Distribution],
             destroyed: Distribution | None) -> tuple[dict, dict]:
    results: dict[str, Estimate] = {"p_direct_hit": p_direct,
                                    "mean_models_hit": count.mean_estimate()}
    distributions = {"models_hit": count}
    if destroyed is not None:
        results["mean_models_destroyed"] = destroyed.mean_estimate()
        distributions["models_destroyed"] = destroyed
    for m, roll, dist in zip(models, rolls, dists):
        results[f"p_damage_roll_{m.name}"] = roll
        results[f"mean_damage_{m.name}"] = dist.mean_estimate()
        if m.boxes is not None:
            results[f"p_destroyed_{m.name}"] = dist.p_at_least(m.boxes)
        distributions[f"damage_{m.name}"] = dist
    return results, distributions


def aoe_exact(setup: AoeSetup) -> Report:
    """Exact answer: the direct hit and the 36 deviations (or each model's spray roll),
    ``rof`` independent shots, every model's state followed jointly."""
    from mathhammer.errors import InputError as _Input

    models = _resolve(setup)
    cases = _shot_cases(setup, models)
    per_shot = []
    for i in range(len(models)):
        p_roll = sum(prob * rolls[i][0] for prob, rolls in cases)
        width = max(len(rolls[i][1]) for _, rolls in cases)
        pmf = np.zeros(width)
        for prob, rolls in cases:
            pmf[: len(rolls[i][1])] += prob * rolls[i][0] * rolls[i][1]
        pmf[0] += 1.0 - p_roll
        per_shot.append((p_roll, pmf))
    totals = []
    for _, pmf in per_shot:
        total = np.ones(1)
        for _ in range(setup.rof):
            total = np.convolve(total, pmf)
        totals.append(total)
    caps = [m.boxes or 0 for m in models]
    joint = _joint(cases, caps, setup.rof)
    if joint is None:
        raise _Input("‹method›", f"the exact engine follows every model's damage jointly; "
                     f"{len(models)} models with these boxes need more than "
                     f"{MAX_JOINT_STATES:,} states", "exact", "use ‹method› mc")
    counted = [m.boxes is not None for m in models]
    count = Distribution.exact(_count_pmf(joint, True, caps, counted))
    destroyed = (Distribution.exact(_count_pmf(joint, False, caps, counted))
                 if any(counted) else None)
    if setup.spray is not None:
        p_direct = per_shot[0][0]
    else:
        p_direct = next((p for p, marks in _scenarios(setup, models) if marks[0] == 2), 0.0)
    rolls = [Estimate.exact(1.0 - (1.0 - p) ** setup.rof) for p, _ in per_shot]
    results, dists = _results(models, Estimate.exact(p_direct), count, rolls,
                              [Distribution.exact(t) for t in totals], destroyed)
    return Report("warmachine.aoe", "exact", results, dists, title=_title(setup, models))


# --------------------------------------------------------------------------- Monte Carlo
def _flat(tables: list[np.ndarray], dtype):
    bounds = np.array([len(t) for t in tables], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(bounds)[:-1]]).astype(np.int64)
    return bounds, offsets, np.ascontiguousarray(np.concatenate(tables).astype(dtype))


def aoe_monte_carlo(setup: AoeSetup, config: MonteCarloConfig) -> Report:
    from mathhammer import kernels

    kern = kernels.load("mathhammer.warmachine.kernels.aoe")
    models = _resolve(setup)
    n = len(models)
    full_tabs = [rules.damage_table(*m.full) for m in models]
    blast_tabs = [rules.damage_table(*m.blast) for m in models]
    width = setup.rof * max(int(t.max()) for t in full_tabs + blast_tabs) + 1
    fb, fo, ft = _flat(full_tabs, np.int64)
    boxes = np.array([m.boxes or 0 for m in models], dtype=np.int64)
    shots = np.int64(setup.rof)
    spray = setup.spray is not None
    if spray:
        under = spray_coverage(models, setup.range, setup.spray, setup.spray_shape)
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
        dead = np.zeros(n + 1, np.int64)
        direct = np.zeros(1, np.int64)
        if spray:
            kern.spray_mc(under, ab, ao, at, fb, fo, ft, boxes, shots, state, np.int64(trials),
                          hits, hist, count, dead, direct)
        else:
            kern.aoe_mc(xs, ys, rs, np.float64(setup.aoe / 2.0), np.float64(aim_x),
                        np.float64(cap), dx, dy, np.int64(len(att)), att, fb, fo, ft, bb, bo, bt,
                        boxes, shots, state, np.int64(trials), hits, hist, count, dead, direct)
        return {"hits": hits, "hist": hist, "count": count, "dead": dead, "direct": direct}

    def probabilities(tally: dict[str, np.ndarray], trials: int) -> np.ndarray:
        return np.concatenate([tally["hits"] / trials, tally["direct"] / (trials * setup.rof)])

    run = simulate(run_chunk, config, probabilities)
    t, N = run.tally, run.n_trials
    # per shot: shots are independent and alike, so N × rof Bernoulli trials
    direct = Estimate.proportion(int(t["direct"][0]), N * setup.rof)
    destroyed = Distribution.from_counts(t["dead"]) if boxes.any() else None
    results, dists = _results(
        models, direct, Distribution.from_counts(t["count"]),
        [Estimate.proportion(int(h), N) for h in t["hits"]],
        [Distribution.from_counts(t["hist"][i]) for i in range(n)], destroyed)
    return Report("warmachine.aoe", "mc", results, dists, n_trials=N, seed=run.seed,
                  title=_title(setup, models))


def _title(setup: AoeSetup, models: list[_Model]) -> str:
    k, bonus, dfn, _ = models[0].attack
    what = (f"SP{setup.spray:g} spray ({setup.spray_shape})" if setup.spray is not None
            else f'{setup.aoe:g}" AOE')
    shots = f"{setup.rof} shots, " if setup.rof > 1 else ""
    return (f"wm aoe: {what} {setup.kind} {k}d6+{bonus} vs DEF {dfn} at {setup.range:g}\", "
            f"{shots}POW {setup.power}, {len(models)} model(s)")


def aoe(setup: AoeSetup, *, method: str = "auto", config: MonteCarloConfig | None = None,
        check: bool = False, explain: bool = False) -> Report:
    """P(direct hit), models hit and destroyed, and damage per model of AOE or spray shots.

    >>> r = aoe(AoeSetup(stat=5, defense=13, armor=14, power=14, range=8.0))
    >>> round(r.results["p_direct_hit"].value, 4)
    0.4167
    """
    models = _resolve(setup)
    if setup.spray is not None and not spray_coverage(models[:1], setup.range, setup.spray,
                                                      setup.spray_shape)[0]:
        raise RulesError("‹range›", f"the target is not under the SP{setup.spray:g} spray",
                         setup.range, f"use ‹range› {setup.spray:g} or less")
    report = answer("warmachine.aoe", method=method, exact=lambda: aoe_exact(setup),
                    monte_carlo=lambda cfg: aoe_monte_carlo(setup, cfg), config=config, check=check)
    aim_x, cap, auto_miss = _aim(setup)
    if setup.spray is None:
        report.info["deviation"] = f"d6 inches, capped at {cap:g}\" (half the distance)"
        if auto_miss:
            report.info["note"] = "target beyond RNG: automatic miss, deviating from the point at RNG"
        report.info["blast_pow"] = math.ceil(setup.power / 2)
    elif setup.spray_shape == "strip":
        report.info["spray_template"] = (f"a strip {SPRAY_STRIP_WIDTH:g}\" wide and "
                                         f"{setup.spray:g}\" long from the attacker (seed 000)")
    else:
        report.info["spray_template"] = (f"the printed template: {setup.spray:g}\" long, "
                                         f"{SPRAY_NEAR_WIDTH:g}\"-{SPRAY_FAR_WIDTH:g}\" wide "
                                         "(approximate, low confidence)")
    if setup.rof > 1:
        report.info["shots"] = (f"{setup.rof} shots at the same point, each its own attack roll "
                                "and deviation; damage adds up per model")
    report.headline = aoe_headline(report, setup)
    if explain:  # the exact working, with the rules and decisions (WM-D4) it follows
        from mathhammer.explain import attach
        from mathhammer.warmachine.explain import explain_aoe

        attach(report, explain_aoe(setup))
    return report


def aoe_headline(report: Report, setup: AoeSetup) -> str:
    """``2 shots of a 3" AOE at 8" destroy the target: 59.62% (exact) · direct hit …``."""
    from mathhammer.words import SEP, brief_pct, method_words, num, pct

    what = (f"SP{setup.spray:g} spray" if setup.spray is not None else f'{setup.aoe:g}" AOE')
    shot = f"{setup.rof} shots of a {what}" if setup.rof > 1 else f"a {what}"
    verb = "destroy" if setup.rof > 1 else "destroys"
    r = report.results
    direct = ("the target's own roll hits" if setup.spray is not None else "direct hit")
    direct += f" {brief_pct(r['p_direct_hit'])}" + (" per shot" if setup.rof > 1 else "")
    hit = f"{num(r['mean_models_hit'])} models take a damage roll"
    if "p_destroyed_target" in r:
        extras = [direct]
        if setup.models:
            extras.append(f"{num(r['mean_models_destroyed'])} models destroyed")
        extras.append(hit)
        return (f"{shot[0].upper()}{shot[1:]} at {setup.range:g}\" {verb} the target: "
                f"{pct(r['p_destroyed_target'])} ({method_words(report)}){SEP}"
                + ", ".join(extras))
    main = "hits the target" if setup.spray is not None else "hits the target directly"
    per = " per shot" if setup.rof > 1 else ""
    return (f"{what} at {setup.range:g}\" {main}{per}: {pct(r['p_direct_hit'])} "
            f"({method_words(report)}){SEP}{hit}")
