"""A rider and its mount as targets (FB-P1, FB-P2, FB-R1): shooting, artillery, templates.

A model whose ``[[mounts]]`` entry has its own T and W (a ridden monster) is two parts.
Shooting and other single hits are allotted by a D6: the rider on the top
``ruleset.combat.ridden_shooting_rider_faces`` faces, the monster otherwise (FB-P2).
A template that covers the model hits **both** parts, each with its own Toughness,
saves and Wounds (seed 001 «и персонаж и монстр оба попали», FB-R1); a stone
thrower's heavy centre hit goes to one part, allotted like a shot, and the other part
takes the template's normal hit (**decision**, after the 7th-edition wording).

Every wound distribution here is exact for the hits given: a shot's outcome on a part
is :func:`mathhammer.fantasy.chain.core.single_attack_outcomes` of the part's profile, and
the two parts are combined by a 2-D convolution capped at each part's W.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mathhammer.errors import InputError
from mathhammer.fantasy.chain.core import (
    AttackSpec,
    attacks_pmf,
    hit_probability,
    single_attack_outcomes,
)
from mathhammer.fantasy.models import KILLING_BLOW_TROOPS, UnitProfile
from mathhammer.fantasy.rules.ruleset import Ruleset
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.words import plural

TEMPLATE_WEAPONS = ("stone-thrower", "template", "flame-cannon")
ALLOTTED_WEAPONS = ("cannon", "bolt-thrower")


@dataclass(frozen=True)
class Part:
    """One part of a target model: its name, defence and wounds."""

    name: str
    t: int
    w: int
    armour: int | None
    ward: int | None
    regeneration: int | None
    troop_type: str


def effective_armour(unit: UnitProfile, best: int = 1) -> int | None:
    """FB-P1: the rider's armour improved by its mount's ``rider_armour_bonus``."""
    bonus = unit.mounts[0].rider_armour_bonus if unit.mounts else 0
    save = unit.saves.armour
    if not bonus:
        return save
    return max(best, (7 if save is None else save) - bonus)


def target_parts(unit: UnitProfile, rules: Ruleset | None = None,
                 close_combat: bool = False) -> tuple[Part, ...]:
    """The rider (with its mount's armour bonus) and, for a ridden monster, the monster.

    A war machine (FB-WM1) is one part: the machine's T against shooting, the crew's in
    close combat, the crew's saves; Wounds 1 per crewman (wfb8: its Wounds are the crew
    left) or the machine's W (t9a1: one model)."""
    best = rules.caps.best_armour_save if rules is not None else 1
    if unit.machine is not None:
        by_machine = rules is not None and rules.war_machines.target_wounds == "machine"
        return (Part(unit.machine.name if not close_combat else f"{unit.name} crew",
                     unit.stats.t if close_combat else unit.machine.t,
                     unit.machine.w if by_machine else 1, unit.saves.armour, unit.saves.ward,
                     unit.saves.regeneration, unit.troop_type),)
    rider = Part(unit.name, unit.stats.t, unit.stats.w, effective_armour(unit, best), unit.saves.ward,
                 unit.saves.regeneration, unit.troop_type)
    m = unit.ridden_monster
    if m is None:
        return (rider,)
    return (rider, Part(m.name, m.t, m.w, m.saves.armour, m.saves.ward, m.saves.regeneration,
                        m.troop_type))


def target_models(unit: UnitProfile, rules: Ruleset) -> int:
    """Models that carry the wounds: a t9a1 war machine is one model (FB-WM1)."""
    if unit.machine is not None and rules.war_machines.target_wounds == "machine":
        return 1
    return unit.formation.models


def war_machine_words(unit: UnitProfile, rules: Ruleset, close_combat: bool) -> str:
    """What FB-WM1 did with a war machine target, for the report."""
    m = unit.machine
    tough = (f"the crew's T{unit.stats.t} (close combat)" if close_combat
             else f"{m.name}'s T{m.t} (shooting)")
    wounds = (f"W{m.w} of the machine, one model" if rules.war_machines.target_wounds == "machine"
              else f"its Wounds are the {unit.formation.models} crew, one each")
    party = (f"; at most {rules.war_machines.assault_party} models fight it" if close_combat
             else "")
    return (f"war machine (FB-WM1): {tough}, the crew's saves, {wounds}{party}; poison does "
            "not wound it automatically")


def _on(spec: AttackSpec, part: Part) -> AttackSpec:
    return replace(spec, toughness=part.t, save=part.armour,
                   ward=part.ward, regeneration=part.regeneration, target_wounds=part.w,
                   killing_blow_applies=part.troop_type in KILLING_BLOW_TROOPS)


def _part_pmf(spec: AttackSpec, part: Part, rules: Ruleset) -> np.ndarray:
    """P(k wounds) on one part from one attack, a slay counted as the part's W; capped."""
    pmf, slay = single_attack_outcomes(_on(spec, part), rules)
    out = np.zeros(part.w + 1)
    for k, p in enumerate(pmf):
        out[min(k, part.w)] += p
    out[part.w] += slay
    return out


def _grid(rider: np.ndarray, mount: np.ndarray) -> np.ndarray:
    return np.outer(rider, mount)


def _add_capped(total: np.ndarray, step: np.ndarray) -> np.ndarray:
    """2-D convolution of wound distributions, each axis capped at its part's W."""
    wr, wm = total.shape[0] - 1, total.shape[1] - 1
    out = np.zeros_like(total)
    for a in range(wr + 1):
        for b in range(wm + 1):
            p = total[a, b]
            if p == 0.0:
                continue
            for c in range(step.shape[0]):
                row = step[c]
                if not row.any():
                    continue
                ra = min(a + c, wr)
                for d in np.nonzero(row)[0]:
                    out[ra, min(b + d, wm)] += p * row[d]
    return out


def shot_grid(spec: AttackSpec, parts: tuple[Part, Part], rules: Ruleset) -> np.ndarray:
    """One shot at a ridden monster: allotted (FB-P2), then the part's own chain."""
    q = rules.combat.ridden_shooting_rider_faces / 6.0
    rider, mount = parts
    grid = np.zeros((rider.w + 1, mount.w + 1))
    grid[:, 0] += q * _part_pmf(spec, rider, rules)
    grid[0, :] += (1.0 - q) * _part_pmf(spec, mount, rules)
    return grid


def ridden_shooting(spec: AttackSpec, shots: int | str, unit: UnitProfile, rules: Ruleset, *,
                    method: str = "auto", config=None, check: bool = False,
                    command: str = "fantasy.shoot") -> Report:
    """``fb shoot`` at a ridden monster: the wounds on each part (FB-P1/P2), exact or MC."""
    from mathhammer.query import answer

    parts = target_parts(unit, rules)
    if len(parts) != 2:
        raise InputError("‹target›", "is not a ridden monster", unit.id, "use a rider + monster profile")
    step = shot_grid(spec, parts, rules)
    n_pmf = attacks_pmf(shots)
    p_hit = float(hit_probability(replace(spec, toughness=parts[0].t), rules))
    title = f"{plural(shots, 'shot')} at S{spec.strength} at {unit.name} ({rules.name})"
    info = {"ruleset": rules.name, "target": f"{unit.id}: {_parts_text(parts)}",
            "allotment": f"each hit: {parts[0].name} on "
                         f"{rules.combat.ridden_shooting_rider_faces} D6 face(s), {parts[1].name} "
                         "otherwise (FB-P2)"}

    def exact() -> Report:
        total = np.zeros_like(step)
        current = np.zeros_like(step)
        current[0, 0] = 1.0
        for n in range(max(n_pmf) + 1):
            if n_pmf.get(n):
                total += n_pmf[n] * current
            current = _add_capped(current, step)
        return _report(command, "exact", total, None, None, parts, p_hit, title, info)

    def monte_carlo(cfg) -> Report:
        from mathhammer import kernels
        from mathhammer.engine import simulate

        k = kernels.load("mathhammer.fantasy.kernels.combat")
        flat = step.ravel()
        cdf = np.cumsum(flat)
        cdf[int(np.nonzero(flat > 0)[0][-1]):] = 1.0
        counts = np.zeros(max(n_pmf) + 1)
        for n, p in n_pmf.items():
            counts[n] = p
        n_cdf = np.cumsum(counts)
        n_cdf[int(np.nonzero(counts > 0)[0][-1]):] = 1.0
        shape = step.shape

        def run_chunk(n: int, state):
            hist = np.zeros(shape[0] * shape[1], np.int64)
            k.two_part_trials(n_cdf, cdf, np.int64(shape[1]), state, np.int64(n), hist)
            return {"hist": hist}

        run = simulate(run_chunk, cfg)
        return _report(command, "mc", run.tally["hist"].reshape(shape), run.n_trials, run.seed, parts,
                       p_hit, title, info)

    return answer(command, method=method, exact=exact, monte_carlo=monte_carlo, config=config,
                  check=check)


def _parts_text(parts) -> str:
    def one(p: Part) -> str:
        saves = [f"{v}+ {k}" for k, v in (("armour", p.armour), ("ward", p.ward),
                                           ("regeneration", p.regeneration)) if v]
        return f"{p.name} T{p.t} W{p.w}" + (f" ({', '.join(saves)})" if saves else "")
    return "; ".join(one(p) for p in parts)


def _report(command: str, method: str, grid: np.ndarray, n: int | None, seed, parts, p_hit,
            title: str, info: dict, extra: dict | None = None) -> Report:
    """Wounds on each part and P(slain) from a 2-D (rider, monster) table: probabilities
    (exact) or counts (Monte Carlo)."""
    rider, mount = parts
    results: dict[str, Estimate] = dict(extra or {})

    def prob(mask_total) -> Estimate:
        if n is None:
            return Estimate.exact(min(1.0, max(0.0, float(mask_total))))
        return Estimate.proportion(int(round(mask_total)), n)

    results[f"p_slain[{rider.name}]"] = prob(grid[rider.w, :].sum())
    results[f"p_slain[{mount.name}]"] = prob(grid[:, mount.w].sum())
    results["p_model_destroyed"] = prob(grid[rider.w, mount.w])
    if p_hit is not None:
        results["p_hit"] = Estimate.exact(p_hit)
    dists = {}
    for name, axis in (("wounds_on_rider", 1), ("wounds_on_mount", 0)):
        marginal = grid.sum(axis=axis)
        dists[name] = (Distribution.exact(marginal) if n is None
                       else Distribution.from_counts(np.rint(marginal).astype(np.int64)))
    results["mean_wounds_on_rider"] = dists["wounds_on_rider"].mean_estimate()
    results["mean_wounds_on_mount"] = dists["wounds_on_mount"].mean_estimate()
    info = {**info, "wounds_on_rider": rider.name, "wounds_on_mount": mount.name}
    report = Report(command, method, results, dists, n_trials=n, seed=seed, info=info, title=title)
    from mathhammer.words import method_words, pct

    report.headline = (f"{title[0].upper()}{title[1:]}: {rider.name} slain "
                       f"{pct(results[f'p_slain[{rider.name}]'])}, {mount.name} slain "
                       f"{pct(results[f'p_slain[{mount.name}]'])} ({method_words(report)})")
    return report


# ---- artillery (FB-R1): both parts under a template --------------------------------------------
def ridden_artillery(setup, run_rider_only, method: str, config, check: bool) -> Report:
    """An artillery shot at a ridden monster (a single two-part model).

    ``run_rider_only(setup)`` runs the artillery engine on the model as one body; its
    ``p_any_hit`` / ``p_big_hit`` give where the shot lands; the parts' wounds follow
    exactly from FB-R1 (a template: both parts) or FB-P2 (a single hit: allotted).
    Under Monte Carlo the landing events are the engine's own counts and each event's
    wounds are drawn from their exact table (a seeded NumPy stream of the same run).
    """
    weapon, rules, prof = setup.weapon, setup.rules, setup.profile
    if weapon not in TEMPLATE_WEAPONS + ALLOTTED_WEAPONS:
        raise InputError("WEAPON", f"a {weapon} at a ridden monster is not played yet (FB-R1 covers "
                         "templates, cannons and bolt throwers)", weapon,
                         "fire fb shoot ‹target› at it for volleys")
    base = run_rider_only(setup)
    parts = target_parts(setup.unit, rules)
    armour = weapon != "bolt-thrower"
    spec = AttackSpec(strength=prof.big_strength, toughness=parts[0].t, auto_hit=True, close_combat=False,
                      armour_piercing=prof.armour_piercing, multiple_wounds=prof.multiple_wounds,
                      flaming=prof.flaming, target_wounds=parts[0].w)

    def pmf(part: Part, strength: int, mw: str | None) -> np.ndarray:
        s = replace(spec, strength=strength, multiple_wounds=mw)
        return _part_pmf(s, part, rules) if armour else _no_armour(s, part, rules)

    rider, mount = parts
    q = rules.combat.ridden_shooting_rider_faces / 6.0
    results = base.results
    p_any = results["p_any_hit"].value if "p_any_hit" in results else 0.0
    p_big = results["p_big_hit"].value if "p_big_hit" in results else 0.0
    events = []  # (probability, grid of (rider, mount) wounds)
    if weapon in TEMPLATE_WEAPONS:
        small_mw = None if weapon == "stone-thrower" else prof.multiple_wounds
        small_r, small_m = pmf(rider, prof.strength, small_mw), pmf(mount, prof.strength, small_mw)
        big_r, big_m = pmf(rider, prof.big_strength, prof.multiple_wounds), pmf(mount, prof.big_strength,
                                                                                  prof.multiple_wounds)
        both_small = _grid(small_r, small_m)
        big_event = q * _grid(big_r, small_m) + (1 - q) * _grid(small_r, big_m)
        if weapon != "stone-thrower" and prof.big_strength == prof.strength:
            p_big = 0.0
        events = [(p_any - p_big, both_small), (p_big, big_event)]
        rule = "FB-R1: both parts under the template, each on its own profile"
    else:
        hit = q * _grid(pmf(rider, prof.big_strength, prof.multiple_wounds), np.eye(1, mount.w + 1)[0]) + \
            (1 - q) * _grid(np.eye(1, rider.w + 1)[0], pmf(mount, prof.big_strength, prof.multiple_wounds))
        events = [(p_any, hit)]
        rule = "FB-P2: a single hit, allotted by a D6"
    none = np.zeros((rider.w + 1, mount.w + 1))
    none[0, 0] = 1.0
    p_none = 1.0 - sum(p for p, _ in events)
    info = {**base.info, "target": f"{setup.unit.id}: {_parts_text(parts)}", "ridden monster": rule}
    extra = {name: est for name, est in results.items() if name.startswith("p_")}
    if base.method == "exact":
        grid = p_none * none + sum(p * g for p, g in events)
        report = _report("fantasy.artillery", "exact", grid, None, None, parts, None, setup.title, info, extra)
    else:
        n = base.n_trials
        rng = np.random.default_rng([base.seed or 0, 1913])
        grid = np.zeros_like(none)
        remaining = n
        for p, g in events:
            count = int(round(p * n))
            remaining -= count
            grid += rng.multinomial(count, g.ravel() / g.sum()).reshape(g.shape)
        grid[0, 0] += remaining
        report = _report("fantasy.artillery", "mc", grid, n, base.seed, parts, None, setup.title, info, extra)
    return report


def _no_armour(spec: AttackSpec, part: Part, rules: Ruleset) -> np.ndarray:
    """FB-R4: a bolt thrower allows no armour save."""
    pmf, slay = single_attack_outcomes(replace(_on(spec, part), save=None), rules)
    out = np.zeros(part.w + 1)
    for k, p in enumerate(pmf):
        out[min(k, part.w)] += p
    out[part.w] += slay
    return out
