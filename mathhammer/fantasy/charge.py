"""The charge and its reactions (FB-G1..G3), exact: ``mathhammer fb charge``.

Charge range = M × ``charge_movement_multiplier`` + ``charge_dice`` (FB-G1); it reaches when
the range is at least the distance. Reactions (FB-G2): *hold* and *stand and shoot* leave
the distance as it is (stand and shoot is barred when the charger starts within the
charged unit's Movement, ``stand_and_shoot_min_distance``); *flee* moves the charged unit
``flee_dice`` straight away, and the charger catches — and destroys — it when its range
covers the distance plus the flight; otherwise the charge fails and the charger moves
``failed_charge_moves`` (FB-G3). All sums are over the dice's exact distributions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from mathhammer.dice import parse_dice
from mathhammer.errors import InputError
from mathhammer.explain import Step
from mathhammer.results import Distribution, Estimate, Report

REACTIONS = ("hold", "stand-and-shoot", "flee")
MAX_INCHES = 100


def _inches(value, flag: str, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value \
            or not low <= value <= MAX_INCHES:
        raise InputError(flag, f"must be inches from {low:g} to {MAX_INCHES}", value,
                         f"use e.g. {flag} 8")
    return float(value)


def charge_dice(rules, swiftstride: bool) -> str:
    return rules.combat.swiftstride_dice if swiftstride else rules.combat.charge_dice


def range_pmf(movement: int, rules, swiftstride: bool) -> dict[int, Fraction]:
    """FB-G1: the exact distribution of the charge range in inches."""
    base = movement * rules.combat.charge_movement_multiplier
    return {base + k: p for k, p in parse_dice(charge_dice(rules, swiftstride)).pmf().items()}


def charge_rolls(movement: int, rules, swiftstride: bool = False) -> list[tuple[float, int, float]]:
    """Every charge roll as (probability, range, move if it fails): FB-G1's range and FB-G3's
    failed move (the highest die; -1 for "half the distance", a ruleset without dice)."""
    import itertools

    base = movement * rules.combat.charge_movement_multiplier
    text = charge_dice(rules, swiftstride).strip().upper()
    if text == "0":
        return [(1.0, base, -1.0)]
    n, keep = {"2D6": (2, 2), "3D6KH2": (3, 2)}.get(text, (0, 0))
    if not n:
        raise InputError("ruleset combat.charge_dice", "the charge roll is played for 2D6 or "
                         "3D6kh2", text, 'use charge_dice = "2D6"')
    highest = rules.combat.failed_charge_moves == "highest_die"
    return [(1 / 6**n, base + sum(sorted(dice)[-keep:]), float(max(dice)) if highest else -1.0)
            for dice in itertools.product(range(1, 7), repeat=n)]


def charge_outcome(distance: float, movement: int, rules, *, swiftstride: bool = False,
                   reaction: str = "hold", target_swiftstride: bool = False
                   ) -> dict[str, Fraction]:
    """P(the charge reaches), and with ``flee`` P(the fleeing unit is caught) (FB-G1, G2)."""
    rng = range_pmf(movement, rules, swiftstride)
    reach = sum((p for r, p in rng.items() if r >= distance), Fraction(0))
    out = {"p_reach": reach}
    if reaction == "flee":
        flee = parse_dice(rules.combat.swiftstride_dice if target_swiftstride
                          else rules.combat.flee_dice).pmf()
        caught = sum((pr * pf for r, pr in rng.items() for f, pf in flee.items()
                      if r >= distance + f), Fraction(0))
        out = {"p_caught": caught, "p_charge_fails": 1 - caught}
    return out


def swiftstride_of(unit) -> bool:
    """FB-G1/FB-C6: the model has Swiftstride (on the unit or on its mount)."""
    return unit.has("Swiftstride") or any("Swiftstride" in m.special_rules for m in unit.mounts)


def _movement_words(unit) -> str:
    mount = next((m for m in unit.mounts if m.m is not None), None)
    words = f"M{unit.movement}" + (f" ({mount.name}'s)" if mount is not None else "")
    return words + (", Swiftstride" if swiftstride_of(unit) else "")


def _load(ref, where: str):
    from mathhammer.fantasy.models import UnitProfile, load_unit

    if isinstance(ref, UnitProfile):
        return ref
    unit = load_unit(ref)
    if unit.machine is not None:
        raise InputError(where, f"{unit.name} is a war machine: it neither charges nor flees "
                         "(FB-WM1)", ref, "give a unit profile")
    return unit


def charge_report(distance: float, movement: int | None = None, ruleset=None, *,
                  swiftstride: bool | None = None, reaction: str = "hold",
                  target_movement: int | None = None, target_swiftstride: bool | None = None,
                  unit=None, target=None) -> Report:
    """``fb charge``: the exact answer, the range distribution, what the reaction allows.

    ``unit`` / ``target`` (a profile id, unit file or profile) give the charger's and the
    charged unit's M (a mount's M where it has one) and Swiftstride; a number or switch given
    as well overrides the profile's (and the report says so). ``ruleset`` defaults to the
    profiles' edition, else wfb8.
    """
    from mathhammer.fantasy.rules.ruleset import default_ruleset, load_ruleset
    from mathhammer.fantasy.characteristic_tests import whole_number

    profiles: dict[str, str] = {}
    loaded = []
    typed_swiftstride, typed_target_swiftstride = bool(swiftstride), bool(target_swiftstride)
    if unit is not None:
        unit = _load(unit, "‹unit›")
        loaded.append(unit)
        profiles["unit"] = f"{unit.id}: {_movement_words(unit)}"
        if movement is not None and movement != unit.movement:
            profiles["unit"] += f"; ‹movement› {movement} overrides its M{unit.movement}"
        if swiftstride is not None and swiftstride != swiftstride_of(unit):
            profiles["unit"] += f"; --{'' if swiftstride else 'no-'}swiftstride overrides it"
        movement = unit.movement if movement is None else movement
        swiftstride = swiftstride_of(unit) if swiftstride is None else swiftstride
    if target is not None:
        target = _load(target, "‹target›")
        loaded.append(target)
        profiles["target"] = f"{target.id}: {_movement_words(target)}"
        if target_movement is not None and target_movement != target.movement:
            profiles["target"] += (f"; ‹target_movement› {target_movement} overrides its "
                                   f"M{target.movement}")
        if target_swiftstride is not None and target_swiftstride != swiftstride_of(target):
            profiles["target"] += (f"; --{'' if target_swiftstride else 'no-'}target-swiftstride "
                                   "overrides it")
        target_movement = target.movement if target_movement is None else target_movement
        target_swiftstride = (swiftstride_of(target) if target_swiftstride is None
                              else target_swiftstride)
    if movement is None:
        raise InputError("‹movement›", "is needed: the charger's M (or ‹unit› PROFILE)", None,
                         "add e.g. ‹movement› 4, or ‹unit› wfb8/knights_of_the_realm")
    swiftstride, target_swiftstride = bool(swiftstride), bool(target_swiftstride)
    rules = load_ruleset(default_ruleset(ruleset, *loaded))
    for profile in loaded:
        if profile.ruleset != rules.name and rules.name in ("basic", "wfb8", "t9a1"):
            flag = "‹unit›" if profile is unit else "‹target›"
            raise InputError(flag, f"is a {profile.ruleset} profile, but the ruleset is "
                             f"{rules.name}", profile.id, f"use ‹ruleset› {profile.ruleset}")
    distance = _inches(distance, "‹distance›", 0.0)
    movement = whole_number(movement, "‹movement›", 0, 20, "use e.g. ‹movement› 4")
    if reaction not in REACTIONS:
        raise InputError("‹reaction›", f"must be one of {', '.join(REACTIONS)}", reaction,
                         "use ‹reaction› hold")
    if target_movement is not None:
        target_movement = whole_number(target_movement, "‹target_movement›", 0, 20,
                                       "use e.g. ‹target_movement› 4")
    if swiftstride and not typed_swiftstride and rules.combat.charge_dice.strip() == "0":
        swiftstride = False  # the profile's Swiftstride: no charge roll for it to change here
    dice = charge_dice(rules, swiftstride)
    if swiftstride and rules.combat.charge_dice.strip() == "0":
        raise InputError("‹swiftstride›", f"{rules.name} has no charge roll (range = "
                         f"{rules.combat.charge_movement_multiplier} x M, FB-G1): Swiftstride "
                         "changes nothing", True, "drop ‹swiftstride›")
    if typed_target_swiftstride and reaction != "flee":
        raise InputError("‹target_swiftstride›", "changes the flight only: it goes with "
                         "‹reaction› flee", True, "add ‹reaction› flee or drop it")
    info: dict = {**profiles, "ruleset": rules.name,
                  "charge range": f"{movement} x {rules.combat.charge_movement_multiplier} + "
                                  f"{dice} (FB-G1)"}
    # FB-G2: a ruleset with stand_and_shoot_min_distance = "none" lets it shoot at any distance
    barred_within_m = rules.combat.stand_and_shoot_min_distance == "movement"
    if reaction == "stand-and-shoot" and barred_within_m:
        if target_movement is None:
            raise InputError("‹target_movement›", "is needed with ‹reaction› stand-and-shoot: a "
                             "charger starting within the charged unit's Movement cannot be shot "
                             "at (FB-G2)", None, "add e.g. ‹target_movement› 4")
        if distance <= target_movement:
            raise InputError("‹reaction›", f"a charger {distance:g}\" away starts within the "
                             f"charged unit's Movement {target_movement}: no stand and shoot "
                             "(FB-G2)", reaction, "use ‹reaction› hold or flee")
    if reaction == "stand-and-shoot":
        info["stand and shoot"] = ("allowed: the shots land before the charge — ask fb shoot "
                                   "‹stand_and_shoot› for them (FB-G2, FB-H2)")
    outcome = charge_outcome(distance, movement, rules, swiftstride=swiftstride,
                             reaction=reaction, target_swiftstride=target_swiftstride)
    results = {k: Estimate.exact(float(v)) for k, v in outcome.items()}
    for k, v in outcome.items():
        info[f"{k}_fraction"] = str(v)
    rng = range_pmf(movement, rules, swiftstride)
    lo = min(rng)
    probs = np.zeros(max(rng) - lo + 1)
    for r, p in rng.items():
        probs[r - lo] = float(p)
    dist = Distribution.exact(probs, offset=lo)
    results["mean_charge_range"] = dist.mean_estimate()
    failed = rules.combat.failed_charge_moves
    info["failed charge"] = ("moves the highest D6 of the charge roll towards the target (FB-G3)"
                             if failed == "highest_die" else
                             "moves half the distance towards the target (FB-G3)"
                             if failed == "half" else f"moves: {failed} (FB-G3)")
    if reaction == "flee":
        flee = rules.combat.swiftstride_dice if target_swiftstride else rules.combat.flee_dice
        info["flee"] = (f"the charged unit flees {flee} straight away; caught when the range "
                        f"covers {distance:g}\" + the flight, and destroyed (FB-G2)")
    title = (f"charge of {distance:g}\" with M{movement} ({movement} x "
             f"{rules.combat.charge_movement_multiplier} + {dice}, {rules.name}), {reaction}")
    report = Report("fantasy.charge", "exact", results, {"charge_range": dist}, info=info, title=title)
    from mathhammer.words import pct

    if reaction == "flee":
        report.headline = (f"Charge of {distance:g}\" at a fleeing unit catches it: "
                           f"{pct(results['p_caught'])} (exact) · the charge fails "
                           f"{pct(results['p_charge_fails'])}")
    else:
        report.headline = (f"Charge of {distance:g}\" with M{movement} reaches: "
                           f"{pct(results['p_reach'])} (exact) · mean range "
                           f"{dist.mean:.2f}\"")
    return report


def explain_charge(report: Report) -> list[Step]:
    """The working of ``fb charge``: the range, then the reaction."""
    steps = [Step(label, report.info[key], None, (rule,)) for key, label, rule in
             (("unit", "charger (profile)", "FB-G1"), ("target", "charged unit (profile)", "FB-G2"))
             if key in report.info]
    steps.append(Step("charge range", report.info["charge range"], None, ("FB-G1",)))
    if "p_reach_fraction" in report.info:
        steps.append(Step("reaches", f"range ≥ distance ({report.title.split(' with')[0]})",
                          Fraction(report.info["p_reach_fraction"]), ("FB-G1",)))
    else:
        steps.append(Step("caught", report.info["flee"],
                          Fraction(report.info["p_caught_fraction"]), ("FB-G2",)))
    steps.append(Step("failed charge", report.info["failed charge"], None, ("FB-G3",)))
    return steps
