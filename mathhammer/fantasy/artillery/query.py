"""Artillery against a unit formation (FB-R1..R7): one shot, exact and Monte Carlo.

>>> artillery("stone-thrower", "wfb8/empire_halberdiers")   # doctest: +SKIP

Weapons (the ruleset names those it has, ``[war_machines] weapons``):

* **stone-thrower** (FB-R2): artillery die (MISFIRE → the stone-thrower misfire table)
  and scatter die (``scatter_hit_faces`` HITs of 6; an arrow moves the template the
  artillery number in a uniform direction). Every base the template touches is hit;
  with ``template_partial_hits`` a partly covered base on 4+ (FB-R1). The base under the
  centre takes the big hit. Geometry → Monte Carlo; p_misfire, the misfire rows and
  p_direct_hit are exact (``--check``).
* **template** (DICE-7): a round template that scatters by stated dice (``--scatter
  2D6``) with the ruleset's scatter die; no artillery die, no misfire.
* **cannon**, ``artillery = "template"`` (FB-R3): the ball lands ``short`` inches in front
  of the unit + the artillery die, bounces the artillery die again along the file; every
  base on the line is hit — a landing exactly on the front edge reaches the unit
  (decision); a MISFIRE on the bounce hits the landing point only. Exact (36 dice
  outcomes) and Monte Carlo. ``artillery = "to_hit"`` (t9a1 1.2+): a BS roll, natural 1 =
  misfire; one model per rank of the file, at most 5; the first hit uses the big profile.
* **bolt-thrower** (FB-R4): a BS roll; S6 on the first model of the file, S5 on the next
  while models die, …; no armour saves; D3 wounds per unsaved wound. Exact and MC.
* **flame-cannon** (FB-R6) and **multi-barrel** (FB-R7): :mod:`artillery_fire`.

Misfires roll on the ruleset's tables (``[war_machines]``): stone throwers on one,
black powder weapons (cannon, flame cannon, multi-barrel) on the other.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from mathhammer.engine import MonteCarloConfig
from mathhammer.errors import InputError
from mathhammer.fantasy.artillery import fire as artillery_fire
from mathhammer.fantasy.artillery.common import (
    LINE_WEAPONS,
    Setup,
    add,
    aim_point,
    cdf,
    empty_hists,
    file_models,
    flank_view,
    formation_rects,
    mc_run,
    misfire_probs,
    misfire_slots,
    report,
    slain_of,
    wound_totals,
)
from mathhammer.fantasy.artillery.shot import (
    ARTILLERY_FACES,
    TEMPLATES,
    ArtilleryEntry,
    Shot,
    check_weapon,
    misfire_table,
    uses_to_hit,
    volley_shots,
    weapon_profile,
)
from mathhammer.fantasy.models import UnitProfile, load_unit, with_formation
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset
from mathhammer.query import answer
from mathhammer.results import Report
from mathhammer.words import plural

__all__ = ["ArtilleryEntry", "Shot", "artillery", "artillery_from_entry", "formation_rects",
           "compile_shot"]

_MISFIRE = Fraction(1, 6)  # DICE-3: one face of six


def compile_shot(weapon: str, target: str | UnitProfile, *, ruleset: str | Ruleset | None = None,
                 models: int | None = None, rank_width: int | None = None,
                 shot: Shot | None = None, **shot_options) -> Setup:
    """Everything one shot needs: unit, rules, the weapon's hits, the aim (no dice yet)."""
    unit = target if isinstance(target, UnitProfile) else load_unit(target)
    unit = with_formation(unit, models=models, rank_width=rank_width)
    rules = load_ruleset(ruleset or unit.ruleset)
    check_weapon(weapon, rules)
    shot = shot or Shot(weapon, **shot_options)
    if shot.template not in TEMPLATES:
        raise InputError("‹template›", "must be small or large", shot.template, "use ‹template› large")
    if shot.facing not in ("front", "flank"):
        raise InputError("‹facing›", "must be front or flank", shot.facing, "use ‹facing› flank")
    for flag, value in (("‹muzzle›", shot.muzzle), ("‹short›", shot.short)):
        if not -30.0 <= value <= 60.0 or (flag == "‹muzzle›" and value < 0):
            raise InputError(flag, "must be a distance in inches on a table (0..60)", value,
                             f"use e.g. {flag} 4")
    if shot.shots is not None:  # never silently ignored
        if weapon != "multi-barrel":
            raise InputError("‹shots›", "sets a volley gun's Multiple Shots (multi-barrel "
                             "only)", shot.shots, f"drop ‹shots› for the {weapon}")
        volley_shots(shot.shots)
    profile = weapon_profile(weapon, shot, rules)
    rects = formation_rects(unit.formation.models, unit.formation.rank_width, unit.base_mm)
    aim_x, aim_y, depth = aim_point(unit, shot, weapon)
    if shot.facing == "flank" and weapon in LINE_WEAPONS:  # FB-R3/R4/R6 along a rank
        rects = flank_view(rects, depth)
        aim_x = aim_y - depth / 2.0
    title = f"{weapon} at {unit.name} ({plural(unit.formation.models, 'model')}, {rules.name})"
    info = {"ruleset": rules.name, "target": unit.id, "formation":
            f"{plural(unit.formation.models, 'model')}, {unit.formation.rank_width} wide, base {unit.base_mm} mm",
            "aim": f"x {aim_x:+.2f} in, y {aim_y:.2f} in behind the front edge"}
    if weapon not in ("bolt-thrower", "template"):
        rows, modifier = misfire_table(weapon, rules)
        info["misfire table (D6" + (f" {modifier:+d}" if modifier else "") + ")"] = [
            f"{r.low}-{r.high} {r.key}: {r.effect} ({r.confidence})" if r.low != r.high
            else f"{r.low} {r.key}: {r.effect} ({r.confidence})" for r in rows]
        if rules.war_machines.misfire_note:
            info["misfire note"] = rules.war_machines.misfire_note
    return Setup(weapon, unit, rules, shot, profile, rects, aim_x, aim_y, depth, title, info)


def artillery(weapon: str, target: str | UnitProfile, *, ruleset: str | Ruleset | None = None,
              models: int | None = None, rank_width: int | None = None, shot: Shot | None = None,
              method: str = "auto", config: MonteCarloConfig | None = None,
              check: bool = False, **shot_options) -> Report:
    """One artillery shot at ``target`` (profile id, unit file or profile).

    The ``--explain`` stages come from :func:`mathhammer.fantasy.artillery.explain.
    explain_artillery` on :func:`compile_shot`'s setup (the CLI attaches them).
    """
    setup = compile_shot(weapon, target, ruleset=ruleset, models=models, rank_width=rank_width,
                         shot=shot, **shot_options)
    if setup.unit.ridden_monster is not None:  # FB-R1/P2: rider and monster, each its own profile
        from mathhammer.fantasy.combat.target import ridden_artillery

        return ridden_artillery(setup, lambda s: _dispatch(s, method, config, check), method, config,
                                check)
    return _dispatch(setup, method, config, check)


def _dispatch(setup: Setup, method: str, config, check: bool) -> Report:
    weapon = setup.weapon
    if weapon in ("stone-thrower", "template"):
        return _template(setup, method, config, check)
    if weapon == "flame-cannon":
        return artillery_fire.flame(setup, method, config, check)
    if weapon == "multi-barrel":
        return artillery_fire.volley(setup, method, config, check)
    if not uses_to_hit(weapon, setup.rules):
        return _bounce(setup, method, config, check)
    return _line(setup, method, config, check)


# ---- round templates: stone thrower and scattering templates (FB-R1, FB-R2, DICE-7) -----------
def _template(setup: Setup, method: str, config, check: bool) -> Report:
    from mathhammer.dice import parse_dice

    shot, rules, prof = setup.shot, setup.rules, setup.profile
    small = setup.outcomes(prof.strength, None if setup.weapon == "stone-thrower" else
                           prof.multiple_wounds)
    big = setup.outcomes(prof.big_strength, prof.multiple_wounds)
    radius = TEMPLATES[shot.template]
    if setup.weapon == "stone-thrower":
        distances = np.array([*ARTILLERY_FACES, -1], dtype=np.int64)
        setup.info["hits"] = (f"S{prof.strength}; the base under the centre S{prof.big_strength},"
                              f" Multiple Wounds ({prof.multiple_wounds})")
        p_misfire = _MISFIRE
    else:
        expr = parse_dice(shot.scatter)
        if expr.min < 0 or expr.outcome_count > 1 << 16:
            raise InputError("‹scatter›", "must be dice text of 0 or more inches with at most "
                             "65536 outcomes", shot.scatter, 'use e.g. ‹scatter› 2D6')
        distances = expr.sampler().table.astype(np.int64)
        setup.info["scatter"] = f"{expr} inches on an arrow (DICE-7); no artillery die, no misfire"
        big_note = "" if prof.big_strength == prof.strength else (
            f"; the base under the centre S{prof.big_strength}")
        setup.info["hits"] = f"S{prof.strength}{big_note}" + (
            f", Multiple Wounds ({prof.multiple_wounds})" if prof.multiple_wounds else "")
        p_misfire = Fraction(0)
    setup.info.update({"template": f"{shot.template} ({2 * radius:g} in)",
                       "scatter_hit_faces": rules.scatter_hit_faces,
                       "partial_hits_on_4": rules.template_partial_hits})

    def mc(cfg):
        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        width = max(len(small), len(big))
        cdf_small, cdf_big = cdf(small, width), cdf(big, width)
        x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in setup.rects)

        def run(k, state, n, counters, h):
            k.template_trials(x0, x1, y0, y1, float(setup.aim_x), float(setup.aim_y),
                              float(radius), np.int64(rules.scatter_hit_faces),
                              np.int64(rules.template_partial_hits), cdf_small, cdf_big,
                              np.int64(setup.w), distances, setup.row_of_face, state, n,
                              counters, h["hit"], h["wounds"], h["models_slain"])

        names = misfire_slots(setup, k) if p_misfire else {}
        names.update({"p_direct_hit": [k.C_DIRECT], "p_any_hit": [k.C_ANY_HIT],
                      "p_big_hit": [k.C_BIG_HIT]})
        return mc_run(setup, run, names, config=cfg)

    def partial_exact():  # what needs no geometry: misfire and HIT odds
        probs = misfire_probs(setup, p_misfire) if p_misfire else {}
        probs["p_direct_hit"] = (1 - p_misfire) * Fraction(rules.scatter_hit_faces, 6)
        return report(setup, "exact", probs, {}, None, None)

    if method == "exact":
        raise InputError("‹method›", "a scattered template needs Monte Carlo (only the "
                         "misfire and HIT odds are exact; see ‹check›)", method, "use ‹method› mc")
    return answer("fantasy.artillery", method=method, exact=partial_exact if check else None,
                  monte_carlo=mc, config=config, check=check)


# ---- the bouncing cannon ball (FB-R3) ----------------------------------------------------------
def _bounce(setup: Setup, method: str, config, check: bool) -> Report:
    shot, prof = setup.shot, setup.profile
    hit = setup.outcomes(prof.big_strength, prof.multiple_wounds)
    line_x, aim_y = setup.aim_x, -shot.short
    setup.info.update({"hits": f"S{prof.big_strength}, Multiple Wounds ({prof.multiple_wounds}) "
                               "on every model on the line",
                       "aim": f"line x {line_x:+.2f} in, {shot.short:g} in short of the "
                              f"{shot.facing}; a landing exactly on the edge reaches the unit"})

    def exact() -> Report:
        """Both artillery dice enumerated, with the kernel's own line test."""
        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        hists = empty_hists(setup)
        idx = np.zeros(setup.models, np.int64)
        x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in setup.rects)
        p_any = 0.0
        for first in range(6):
            for second in range(6):
                p = 1.0 / 36.0
                if first == 5:  # MISFIRE: no shot
                    for h in hists.values():
                        h[0] += p
                    continue
                land = aim_y + 2.0 * (first + 1)
                end = land if second == 5 else land + 2.0 * (second + 1)
                hits = int(k.line_hits(x0, x1, y0, y1, float(line_x), land, end, idx))
                hists["models_hit"][hits] += p
                p_any += p * (hits > 0)
                totals = wound_totals(hit, hits, setup)
                add(hists["wounds"], totals, p)
                add(hists["models_slain"], slain_of(totals, setup), p)
        probs = misfire_probs(setup, _MISFIRE)
        probs["p_any_hit"] = p_any
        return report(setup, "exact", probs, hists, None, None)

    def mc(cfg) -> Report:
        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        table = cdf(hit, len(hit))
        x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in setup.rects)

        def run(k, state, n, counters, h):
            k.bounce_trials(x0, x1, y0, y1, float(line_x), float(aim_y), table,
                            np.int64(setup.w), setup.row_of_face, state, n, counters, h["hit"],
                            h["wounds"], h["models_slain"])

        return mc_run(setup, run, {**misfire_slots(setup, k), "p_any_hit": [k.C_ANY_HIT]},
                      config=cfg)

    return answer("fantasy.artillery", method=method, exact=exact, monte_carlo=mc, config=config,
                  check=check)


# ---- to-hit weapons along a line: bolt thrower, t9a1 to-hit cannon (FB-R3, FB-R4) ------------
def _line(setup: Setup, method: str, config, check: bool) -> Report:
    shot, rules, prof, unit = setup.shot, setup.rules, setup.profile, setup.unit
    in_file = file_models(setup.rects, setup.aim_x)
    shooting = rules.to_hit_shooting(shot.bs, shot.modifier)
    p_hit = float(shooting.p_hit)
    if setup.weapon == "bolt-thrower":
        strengths = [prof.strength - j for j in range(min(in_file, prof.strength))]
        tables = [setup.outcomes(s, prof.multiple_wounds, armour=False) for s in strengths]
        stop, p_misfire = True, Fraction(0)
        setup.info["hits"] = (f"S{prof.strength}, then one less per rank while models die; no "
                              f"armour saves; Multiple Wounds ({prof.multiple_wounds})")
    else:  # t9a1 to-hit cannon: natural 1 misfires; one hit per rank, at most 5
        n = min(in_file, 5)
        tables = [setup.outcomes(prof.big_strength, prof.multiple_wounds)] + [
            setup.outcomes(prof.strength, None) for _ in range(n - 1)]
        stop, p_misfire = False, _MISFIRE
        setup.info["hits"] = (f"first model S{prof.big_strength} Multiple Wounds "
                              f"({prof.multiple_wounds}); S{prof.strength} on the others (max 5)")
    setup.info["p_hit_roll"] = f"{shooting.p_hit} (BS {shot.bs}, modifier {shot.modifier:+d})"
    setup.info["line"] = f"{plural(in_file, 'model')} in the {'rank' if shot.facing == 'flank' else 'file'} aimed at"
    w, models = setup.w, setup.models

    def exact() -> Report:
        hists = empty_hists(setup)
        p_none = 1.0 - p_hit
        for h in hists.values():
            h[0] += p_none
        going = {0: p_hit}  # running wounds over the models hit so far, for shots going on
        for j, table in enumerate(tables):
            per = table[:-1]  # shooting never slays outright (Killing Blow is melee, FB-W2)
            nxt: dict[int, float] = {}
            for total, p in going.items():
                for k_w, q in enumerate(per):
                    if not q:
                        continue
                    t2 = min(total + k_w, models * w)
                    if stop and k_w < w or j == len(tables) - 1:
                        hists["models_hit"][j + 1] += p * q
                        hists["wounds"][t2] += p * q
                        hists["models_slain"][min(t2 // w, models)] += p * q
                    else:
                        nxt[t2] = nxt.get(t2, 0.0) + p * q
            going = nxt
        probs = misfire_probs(setup, p_misfire) if p_misfire else {}
        probs.update({"p_direct_hit": p_hit, "p_any_hit": p_hit if tables else 0.0})
        return report(setup, "exact", probs, hists, None, None)

    def mc(cfg) -> Report:
        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        width = max(len(t) for t in tables) if tables else 2
        cdfs = np.ascontiguousarray(np.array([cdf(t, width) for t in tables] or [np.ones(width)]))

        def run(k, state, n, counters, h):
            k.penetrating_trials(float(p_misfire), p_hit, cdfs, np.int64(len(tables)),
                                 np.int64(stop), np.int64(w), np.int64(models), setup.row_of_face,
                                 state, n, counters, h["hit"], h["wounds"], h["models_slain"])

        names = misfire_slots(setup, k) if p_misfire else {}
        names.update({"p_direct_hit": [k.C_DIRECT], "p_any_hit": [k.C_ANY_HIT]})
        return mc_run(setup, run, names, config=cfg)

    return answer("fantasy.artillery", method=method, exact=exact, monte_carlo=mc, config=config,
                  check=check)


def artillery_from_entry(entry: ArtilleryEntry, unit: UnitProfile, rules: str, *, method: str,
                         config: MonteCarloConfig, check: bool) -> Report:
    """A scenario's ``[artillery]`` table (see :mod:`mathhammer.fantasy.scenario`)."""
    return artillery(entry.weapon, unit, ruleset=rules, shot=entry.shot(), method=method,
                     config=config, check=check)
