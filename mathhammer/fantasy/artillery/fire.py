"""Flame cannons (FB-R6) and multi-barrel cannons (FB-R7), exact and Monte Carlo.

**Flame cannon.** Template rulesets (``artillery = "template"``: wfb8, t9a1 1.0-1.1,
8th "Firing a Fire Thrower"): the flame template's narrow end touches the muzzle,
``muzzle`` inches short of the unit's front, aimed along a file (or, ``facing =
"flank"``, a rank); the artillery die moves it that many inches straight on; every base
it touches is hit. MISFIRE → the black powder table. The geometry is fixed once the die
is known, so the exact engine enumerates the six faces. To-hit rulesets (T9A 1.2+
Flame Thrower): a D6, a natural 1 misfires (the table at the ruleset's modifier, −1);
otherwise each rank (each file from a flank), at most five, takes D3 hits, at most
its models, one per model. Flaming attacks: no Regeneration (FB-V2).

**Multi-barrel.** ``multi_barrel = "artillery_dice"`` (wfb8 organ fire): two artillery
dice, shots = the sum of their numbers, to hit with BS and the given modifiers (no
multiple-shots penalty); one MISFIRE → the other die's shots at −1 to hit; two → no
shots, the black powder table. ``artillery_dice = 3`` (Helblaster, low confidence): one
MISFIRE → half the others' sum rounded up; two → the table; three → 30 shots, then the
machine is removed. ``"multiple_shots"`` (T9A Volley Gun): Multiple Shots (X) that
ignore negative to-hit modifiers; a random X (nD6 + k): one natural 6 → −1 to hit, two
or more → no shots, the Misfire Table; a fixed X never misfires.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from mathhammer.fantasy.artillery.common import (
    Setup,
    add,
    cdf,
    empty_hists,
    mc_run,
    misfire_probs,
    misfire_slots,
    report,
    slain_of,
    wound_totals,
)
from mathhammer.fantasy.artillery.shot import volley_shots
from mathhammer.query import answer
from mathhammer.results import Report

_SIXTH = Fraction(1, 6)
D3_PMF = {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
MAX_RANKS = 5  # Penetrating: at most five ranks (files)
THIRTY = 30  # a Helblaster's three MISFIREs


# ---- FB-R6 flame cannon --------------------------------------------------------------------
def flame(setup: Setup, method: str, config, check: bool) -> Report:
    if setup.rules.artillery == "to_hit":
        return _rank_flame(setup, method, config, check)
    return _template_flame(setup, method, config, check)


def _template_flame(setup: Setup, method: str, config, check: bool) -> Report:
    shot, prof, wm = setup.shot, setup.profile, setup.rules.war_machines
    hit = setup.outcomes(prof.strength, prof.multiple_wounds)
    muzzle_y = -shot.muzzle
    line_x = setup.aim_x
    setup.info.update({
        "hits": f"S{prof.strength}, flaming (no Regeneration)" + (
            f", Multiple Wounds ({prof.multiple_wounds})" if prof.multiple_wounds else "")
        + "; every base the template touches",
        "template": f"flame, {wm.flame_template_length:g} in long, {wm.flame_template_width:g} in "
                    f"at its widest; the tip starts {shot.muzzle:g} in short of the "
                    f"{shot.facing} and moves the artillery die's inches straight on"})

    def hits_by_face() -> list[int]:
        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        idx = np.zeros(setup.models, np.int64)
        x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in setup.rects)
        return [int(k.flame_hits(x0, x1, y0, y1, float(line_x), muzzle_y + 2.0 * (f + 1),
                                 float(wm.flame_template_length), float(wm.flame_template_width),
                                 idx)) for f in range(5)]

    def exact() -> Report:
        hists = empty_hists(setup)
        for h in hists.values():
            h[0] += 1 / 6  # MISFIRE: no shot
        p_any = 0.0
        for hits in hits_by_face():
            hists["models_hit"][hits] += 1 / 6
            p_any += (hits > 0) / 6
            totals = wound_totals(hit, hits, setup)
            add(hists["wounds"], totals, 1 / 6)
            add(hists["models_slain"], slain_of(totals, setup), 1 / 6)
        probs = {**misfire_probs(setup, _SIXTH), "p_any_hit": p_any}
        return report(setup, "exact", probs, hists, None, None)

    def mc(cfg) -> Report:
        table = cdf(hit, len(hit))
        x0, x1, y0, y1 = (np.ascontiguousarray(r) for r in setup.rects)

        def run(k, state, n, counters, h):
            k.flame_trials(x0, x1, y0, y1, float(line_x), float(muzzle_y),
                           float(wm.flame_template_length), float(wm.flame_template_width),
                           table, np.int64(setup.w), setup.row_of_face, state, n, counters,
                           h["hit"], h["wounds"], h["models_slain"])

        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        return mc_run(setup, run, {**misfire_slots(setup, k), "p_any_hit": [k.C_ANY_HIT]},
                      config=cfg)

    setup.info["models hit by artillery face 2, 4, 6, 8, 10"] = ", ".join(map(str, hits_by_face()))
    return answer("fantasy.artillery", method=method, exact=exact, monte_carlo=mc, config=config,
                  check=check)


def line_models(setup: Setup) -> list[int]:
    """Models in each rank from the front (a flank shot: in each file from that flank),
    at most MAX_RANKS lines."""
    f = setup.unit.formation
    width, models = f.rank_width, f.models
    if setup.shot.facing == "flank":
        front = min(width, models)
        lines = [sum(1 for m in range(models) if m % width == file) for file in range(front)]
    else:
        lines = [min(width, models - r * width) for r in range(math.ceil(models / width))]
    return lines[:MAX_RANKS]


def hits_pmf(lines: list[int]) -> dict[int, Fraction]:
    """P(total hits): D3 per line, capped at the models in it (exact convolution)."""
    total = {0: Fraction(1)}
    for models in lines:
        nxt: dict[int, Fraction] = {}
        for t, p in total.items():
            for h, q in D3_PMF.items():
                key = t + min(h, models)
                nxt[key] = nxt.get(key, Fraction(0)) + p * q
        total = nxt
    return total


def _rank_flame(setup: Setup, method: str, config, check: bool) -> Report:
    prof = setup.profile
    hit = setup.outcomes(prof.strength, prof.multiple_wounds)
    lines = line_models(setup)
    where = "file" if setup.shot.facing == "flank" else "rank"
    setup.info.update({
        "hits": f"S{prof.strength}, flaming (no Regeneration)" + (
            f", Multiple Wounds ({prof.multiple_wounds})" if prof.multiple_wounds else "")
        + (" (short range)" if setup.shot.short_range else ""),
        "lines": f"D3 hits on each {where}, at most its models: {lines}"})
    p_fire = 1 - _SIXTH

    def exact() -> Report:
        hists = empty_hists(setup)
        for h in hists.values():
            h[0] += 1 / 6  # a natural 1: misfire
        for hits, p in hits_pmf(lines).items():
            q = float(p_fire * p)
            hists["models_hit"][hits] += q
            totals = wound_totals(hit, hits, setup)
            add(hists["wounds"], totals, q)
            add(hists["models_slain"], slain_of(totals, setup), q)
        probs = {**misfire_probs(setup, _SIXTH), "p_direct_hit": p_fire,
                 "p_any_hit": p_fire if lines else 0}
        return report(setup, "exact", probs, hists, None, None)

    def mc(cfg) -> Report:
        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        table = cdf(hit, len(hit))
        rank_models = np.array(lines or [0], dtype=np.int64)

        def run(k, state, n, counters, h):
            k.rank_flame_trials(rank_models, table, np.int64(setup.w), np.int64(setup.models),
                                np.int64(1), setup.row_of_face, state, n, counters, h["hit"],
                                h["wounds"], h["models_slain"])

        return mc_run(setup, run, {**misfire_slots(setup, k), "p_direct_hit": [k.C_DIRECT],
                                   "p_any_hit": [k.C_ANY_HIT]}, config=cfg)

    return answer("fantasy.artillery", method=method, exact=exact, monte_carlo=mc, config=config,
                  check=check)


# ---- FB-R7 multi-barrel cannons --------------------------------------------------------------
def volley_plan(setup: Setup) -> tuple[int, int, int, list[tuple[Fraction, int, int, int]],
                                       Fraction, Fraction]:
    """(mode, dice, plus, [(P, shots, worse, one)], P(misfire table), P(thirty shots)).

    ``worse`` 1: the shots are at −1 to hit; ``one`` 1: one die showed MISFIRE (one six
    for Multiple Shots). Exact enumeration of the artillery dice, or of the Multiple
    Shots dice with their sixes.
    """
    shot, wm = setup.shot, setup.rules.war_machines
    outcomes: dict[tuple[int, int, int], Fraction] = {}
    p_misfire = p_thirty = Fraction(0)
    if wm.multi_barrel == "artillery_dice":
        n = shot.artillery_dice
        mode, plus = 0, 0
        for faces in itertools.product(range(6), repeat=n):
            p = _SIXTH ** n
            misfires = faces.count(5)
            numbers = sum(2 * (f + 1) for f in faces if f != 5)
            if misfires == 3:
                p_thirty += p
                key = (THIRTY, 0, 0)
            elif misfires >= 2:
                p_misfire += p
                continue
            elif misfires == 1:
                key = (numbers, 1, 1) if n == 2 else ((numbers + 1) // 2, 0, 1)
            else:
                key = (numbers, 0, 0)
            outcomes[key] = outcomes.get(key, Fraction(0)) + p
        dice = n
    else:
        x = volley_shots(shot.shots or "2D6")
        if isinstance(x, int):
            mode, dice, plus = 2, 0, x
            outcomes[(x, 0, 0)] = Fraction(1)
        else:
            mode, (dice, plus) = 1, x
            for faces in itertools.product(range(1, 7), repeat=dice):
                p = _SIXTH ** dice
                sixes = faces.count(6)
                if sixes >= 2:
                    p_misfire += p
                    continue
                key = (sum(faces) + plus, int(sixes == 1), int(sixes == 1))
                outcomes[key] = outcomes.get(key, Fraction(0)) + p
    plan = [(p, shots, worse, one) for (shots, worse, one), p in sorted(outcomes.items())]
    return mode, dice, plus, plan, p_misfire, p_thirty


def volley_to_hit(setup: Setup):
    """The to-hit roll of a shot, normal and at −1 (FB-H2), as the ruleset plays it."""
    shot, rules = setup.shot, setup.rules
    modifier = shot.modifier
    if rules.war_machines.multi_barrel == "multiple_shots":
        modifier = max(0, modifier)  # T9A Volley Gun: ignores negative to-hit modifiers
    return rules.to_hit_shooting(shot.bs, modifier), rules.to_hit_shooting(shot.bs, modifier - 1)


def volley(setup: Setup, method: str, config, check: bool) -> Report:
    shot, prof, rules = setup.shot, setup.profile, setup.rules
    t9a = rules.war_machines.multi_barrel == "multiple_shots"
    if not t9a and shot.shots is not None:
        from mathhammer.errors import RulesError

        raise RulesError("‹shots›", f"{rules.name}'s multi-barrel cannon rolls artillery dice "
                         "for its shots (FB-R7)", shot.shots, "use ‹artillery_dice› 2 or 3")
    if t9a and shot.artillery_dice != 2:
        from mathhammer.errors import RulesError

        raise RulesError("‹artillery_dice›", f"{rules.name}'s volley gun rolls Multiple Shots "
                         "(FB-R7)", shot.artillery_dice, "use ‹shots› 2D6 (or 3D6, 6 ...)")
    hit = setup.outcomes(prof.strength, prof.multiple_wounds)
    mode, dice, plus, plan, p_misfire, p_thirty = volley_plan(setup)
    normal, worse = volley_to_hit(setup)
    p_hit = (normal.p_hit, worse.p_hit)
    most = max((s for _, s, _, _ in plan), default=0)
    one = "p_one_six" if t9a else "p_one_misfire_die"
    if t9a:
        how = f"Multiple Shots ({shot.shots or '2D6'}); negative to-hit modifiers ignored; one 6 " \
              "→ −1 to hit, two or more → no shots, the Misfire Table"
    elif shot.artillery_dice == 3:
        how = ("Helblaster: three artillery dice (low confidence): one MISFIRE → half the others' "
               "sum rounded up, two → the misfire table, three → 30 shots, then removed")
    else:
        how = ("organ fire: two artillery dice, shots = their sum; one MISFIRE → the other's "
               "shots at −1 to hit, two → no shots, the misfire table")
    setup.info.update({"shots": how, "to hit": f"BS {shot.bs}: {normal.p_hit} a shot "
                       f"({worse.p_hit} at −1); no multiple-shots penalty",
                       "hits": f"S{prof.strength}" + (f", armour piercing {prof.armour_piercing}"
                                                      if prof.armour_piercing else "")
                       + (f", Multiple Wounds ({prof.multiple_wounds})" if prof.multiple_wounds
                          else "")})

    def exact() -> Report:
        hists = empty_hists(setup, most + 1)
        for h in hists.values():
            h[0] += float(p_misfire)
        totals_of: dict[int, np.ndarray] = {}
        p_any = Fraction(0)
        for p, shots, w, _ in plan:
            ph = p_hit[w]
            for h in range(shots + 1):
                q = p * math.comb(shots, h) * ph**h * (1 - ph) ** (shots - h)
                if not q:
                    continue
                p_any += q if h else 0
                hists["hits"][h] += float(q)
                if h not in totals_of:
                    totals_of[h] = wound_totals(hit, h, setup)
                add(hists["wounds"], totals_of[h], float(q))
                add(hists["models_slain"], slain_of(totals_of[h], setup), float(q))
        probs = misfire_probs(setup, p_misfire)
        if p_thirty:  # the Helblaster's three MISFIREs: 30 shots, then it is removed
            probs["p_own_destroyed"] = probs.get("p_own_destroyed", Fraction(0)) + p_thirty
        probs[one] = sum((p for p, _, _, flagged in plan if flagged), Fraction(0))
        probs["p_fired"] = 1 - p_misfire
        if p_thirty:
            probs["p_thirty_shots"] = p_thirty
        probs["p_any_hit"] = p_any
        return report(setup, "exact", probs, hists, None, None)

    def mc(cfg) -> Report:
        from mathhammer import kernels

        k = kernels.load("mathhammer.fantasy.kernels.artillery")
        table = cdf(hit, len(hit))
        p_arr = np.array([float(p_hit[0]), float(p_hit[1])])

        def run(k, state, n, counters, h):
            k.volley_trials(np.int64(mode), np.int64(dice), np.int64(plus), p_arr, table,
                            np.int64(setup.w), np.int64(setup.models), setup.row_of_face, state,
                            n, counters, h["hit"], h["wounds"], h["models_slain"])

        names = misfire_slots(setup, k)
        names["p_own_destroyed"] = names.get("p_own_destroyed", []) + [k.C_EXTRA]
        names[one] = [k.C_DIRECT]
        names["p_fired"] = [k.C_BIG_HIT]
        if p_thirty:
            names["p_thirty_shots"] = [k.C_EXTRA]
        names["p_any_hit"] = [k.C_ANY_HIT]
        return mc_run(setup, run, names, hit_bins=most + 1, config=cfg)

    return answer("fantasy.artillery", method=method, exact=exact, monte_carlo=mc, config=config,
                  check=check)
