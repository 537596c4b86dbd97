"""Dangerous terrain tests (FB-T4, seed 004 «Опасный ландшафт»), exactly.

Each model rolls its own dice; a failed die wounds it (a chariot in ``wfb8`` takes D6
wounds) with no armour save, only a ward (or Regeneration) save. Wounds stay on the
model that failed, so a unit's losses are a sum of independent models: one model's
wound distribution, capped at its Wounds, convolved N times.

>>> from fractions import Fraction
>>> dangerous_terrain(6, rules="wfb8").results["p_any_model_lost"].value == 1 - (5 / 6) ** 6
True
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from mathhammer.errors import InputError
from mathhammer.explain import Step
from mathhammer.fantasy.rules.ruleset import Ruleset, load_ruleset
from mathhammer.fantasy.characteristic_tests import whole_number
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.words import plural

MAX_MODELS = 1000  # a unit larger than this is a typo
MAX_WOUNDS = 20
HEIGHTS = ("standard", "large", "gigantic")


def _binomial(n: int, p: Fraction) -> list[Fraction]:
    from math import comb

    return [comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


def _convolve(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def _save_pass(ward: int | None) -> Fraction:
    return Fraction(0) if ward is None else Fraction(7 - ward, 6)


def terrain_setup(rules: Ruleset, value: int, height: str, chariot: bool) -> tuple[int, Fraction, list[Fraction]]:
    """(dice per model, P(a die fails), wounds per failed die) under the ruleset's FB-T4 data."""
    data = rules.dangerous_terrain
    dice = getattr(data, f"dice_{height}") + (data.chariot_extra_dice if chariot else 0)
    fail = Fraction(1, 6) if data.fails == "on_a_one" else Fraction(value, 6)
    per_fail = [Fraction(0)] + [Fraction(1, 6)] * 6 if chariot and data.chariot_wounds == "D6" \
        else [Fraction(0), Fraction(1)]
    return dice, fail, per_fail


def model_wounds(dice: int, fail: Fraction, per_fail: list[Fraction], ward: int | None,
                 wounds: int) -> list[Fraction]:
    """One model's unsaved wounds, capped at its Wounds: P(0), P(1) … P(wounds)."""
    saved = _save_pass(ward)
    per_die = [1 - fail] + [Fraction(0)] * (len(per_fail) - 1)  # one die: 0 unless it fails
    per_die = [per_die[k] + fail * per_fail[k] for k in range(len(per_fail))]
    total = [Fraction(1)]
    for _ in range(dice):
        total = _convolve(total, per_die)
    unsaved = [Fraction(0)] * len(total)  # each wound saved on its own by the ward
    for k, pk in enumerate(total):
        for u, pu in enumerate(_binomial(k, 1 - saved)):
            unsaved[u] += pk * pu
    capped = unsaved[:wounds] + [sum(unsaved[wounds:], Fraction(0))]
    return capped + [Fraction(0)] * (wounds + 1 - len(capped))


def dangerous_terrain(models: int, value: int = 1, height: str = "standard", chariot: bool = False,
                      wounds: int = 1, ward: int | None = None,
                      rules: Ruleset | str = "wfb8") -> Report:
    """``fb test --dangerous-terrain N``: models lost and wounds suffered (FB-T4), exact."""
    rules = load_ruleset(rules)
    whole_number(models, "‹dangerous_terrain›", 1, MAX_MODELS, "give the number of models testing, e.g. 10")
    whole_number(value, "‹terrain_value›", 1, 6, "use the terrain's value in brackets, e.g. 1 or 2")
    whole_number(wounds, "‹wounds›", 1, MAX_WOUNDS, "use the Wounds of one model, e.g. 1")
    if ward is not None:
        whole_number(ward, "‹ward›", 2, 6, "use e.g. ‹ward› 5 for a 5+ ward save")
    if height not in HEIGHTS:
        raise InputError("‹height›", "must be standard, large or gigantic", height, "use ‹height› large")
    data = rules.dangerous_terrain
    if value != 1 and data.fails == "on_a_one":
        raise InputError("‹terrain_value›", f"{rules.name} dangerous terrain fails on a 1 only (FB-T4)",
                         value, "leave ‹terrain_value› out, or use ‹ruleset› t9a1")
    dice, fail, per_fail = terrain_setup(rules, value, height, chariot)
    one = model_wounds(dice, fail, per_fail, ward, wounds)
    p_lost = one[wounds]
    lost = _binomial(models, p_lost)
    total = [Fraction(1)]
    for _ in range(models):
        total = _convolve(total, one)
    mean_wounds = sum(k * p for k, p in enumerate(total))
    p_any = 1 - lost[0]
    results = {
        "p_any_model_lost": Estimate.exact(float(p_any)),
        "mean_models_lost": Estimate.exact(float(models * p_lost)),
        "mean_unsaved_wounds": Estimate.exact(float(mean_wounds)),
        "p_model_lost": Estimate.exact(float(p_lost)),
    }
    dists = {"models_lost": Distribution.exact(np.array([float(p) for p in lost]))}
    if wounds > 1:  # with one wound each the wounds are the models lost
        dists["unsaved_wounds"] = Distribution.exact(np.array([float(p) for p in total]))
    what = f"{models} {'chariot' if chariot else height} model{'s' if models != 1 else ''}"
    test = "a 1 fails" if data.fails == "on_a_one" else f"each die at most {value} fails"
    info = {"rule": f"FB-T4: {dice} D6 per model, {test}; no armour save"
                    + (f", ward {ward}+" if ward else "") + f" ({rules.name}, confidence {data.confidence})",
            "ruleset": rules.name, "p_any_model_lost_fraction": str(p_any),
            "p_model_lost_fraction": str(p_lost)}
    headline = (f"Dangerous terrain, {what} ({rules.name}): at least one lost {100 * float(p_any):.2f}% "
                f"(exact) · {float(models * p_lost):.2f} models lost on average"
                + (f", {float(mean_wounds):.2f} wounds" if wounds > 1 else ""))
    return Report("fantasy.test", "exact", results, dists, info=info,
                  title=f"dangerous terrain, {what} ({rules.name})", headline=headline)


def explain_dangerous_terrain(models: int, value: int = 1, height: str = "standard",
                              chariot: bool = False, wounds: int = 1, ward: int | None = None,
                              rules: Ruleset | str = "wfb8") -> list[Step]:
    rules = load_ruleset(rules)
    dice, fail, per_fail = terrain_setup(rules, value, height, chariot)
    one = model_wounds(dice, fail, per_fail, ward, wounds)
    data = rules.dangerous_terrain
    face = "a 1" if data.fails == "on_a_one" else f"at most {value}"
    steps = [Step("dice", f"{dice} D6 per {'chariot' if chariot else height} model ({rules.name}, "
                  f"confidence {data.confidence}); a die fails on {face}", fail, ("FB-T4",)),
             Step("wounds", "a failed die: " + ("D6 wounds (a chariot)" if len(per_fail) > 2 else
                                              "1 wound") + "; no armour save", None, ("FB-T4",))]
    if ward is not None:
        steps.append(Step("ward", f"each wound saved on {ward}+; P(not saved)", 1 - _save_pass(ward),
                          ("FB-V2",)))
    steps.append(Step("model lost", f"a model with {wounds} wound{'s' if wounds > 1 else ''} is lost "
                      f"when its unsaved wounds reach it", one[wounds], ("FB-T4",)))
    steps.append(Step("unit", f"{plural(models, 'model')} test independently: P(at least one lost)",
                      1 - (1 - one[wounds]) ** models, ("FB-T4",)))
    return steps
