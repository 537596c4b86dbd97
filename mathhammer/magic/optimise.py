"""The dice-budget optimiser (MG-9): ``mathhammer magic optimise SCENARIO.toml``.

For given pools (power P, dispel D) and the scenario's dispel policy it reports, all
exact (backward induction over the phase state, :func:`mathhammer.magic.compile.run_dp`):

* the best fixed split of the power dice over the spells (every split with at most
  the ruleset's dice per spell and at most P dice in all is evaluated), with the
  chance of each spell going off for it;
* the value of deciding the dice of each spell when it is cast (the "optimal" dice
  rule of ``magic phase``), which is never below the best split;
* the value of the scenario's own dice rule.
"""

from __future__ import annotations

import itertools

from mathhammer.errors import InputError
from mathhammer.magic.models import MagicScenario
from mathhammer.magic.rules import magic_rules
from mathhammer.results import Estimate, Report
from mathhammer.words import plural

MAX_SPLITS = 60_000


def _with(scenario: MagicScenario, **updates) -> MagicScenario:
    data = scenario.model_dump()
    for key, value in updates.items():
        data[key] = {**data[key], **value}
    return MagicScenario(**data)


def optimise(scenario: MagicScenario, power: int | None = None, dispel: int | None = None) -> Report:
    """Best dice split and adaptive plan for fixed pools (exact)."""
    from mathhammer.magic.compile import compile_phase, run_dp, static_plan
    from mathhammer.magic.exact import phase_exact

    power = scenario.flow.power_dice if power is None else power
    dispel = scenario.flow.dispel_dice if dispel is None else dispel
    if power is None or dispel is None:
        raise InputError("‹power›/‹dispel›", "the optimiser needs the pools", None,
                         "give ‹power› 9 ‹dispel› 5 or power_dice/dispel_dice in [flow]")
    for flag, n in (("‹power›", power), ("‹dispel›", dispel)):
        if not 0 <= n <= 12:
            raise InputError(flag, "a pool holds 0 to 12 dice (MG-3)", n, f"use e.g. {flag} 6")
    rules = magic_rules(scenario.ruleset)
    fixed = _with(scenario, flow={"power_dice": power, "dispel_dice": dispel})
    adaptive = compile_phase(_with(fixed, caster={"dice_rule": "optimal"}), rules)
    assert adaptive.value is not None
    adaptive_value = float(adaptive.value[0, power, dispel, 0, 0])
    own = compile_phase(fixed, rules)
    own_value = float(run_dp(own, fixed, own.plan)[0][0, power, dispel, 0, 0])

    maxcast = rules.max_casting_dice
    choices = [range(0, maxcast + 1)] * len(adaptive.order)
    n_splits = (maxcast + 1) ** len(adaptive.order)
    if n_splits > MAX_SPLITS:
        raise InputError("spells", f"too many dice splits to try ({n_splits:,})",
                         len(adaptive.order), "optimise at most 5 spells at a time")
    best_value, best_split = -1.0, None
    for split in itertools.product(*choices):
        if sum(split) > power:
            continue
        value = float(run_dp(adaptive, fixed, static_plan(adaptive, list(split)))[0][0, power, dispel, 0, 0])
        if value > best_value + 1e-12:
            best_value, best_split = value, split
    assert best_split is not None
    dice_by_file = {i: best_split[row] for row, i in enumerate(adaptive.order)}
    # the best split as a fixed-dice scenario, solved exactly for P(each spell goes off)
    as_fixed = fixed.model_dump()
    as_fixed["caster"] = {**as_fixed["caster"], "dice_rule": "fixed"}
    as_fixed["spells"] = [{**sp, "dice": max(1, dice_by_file[i])} for i, sp in enumerate(as_fixed["spells"])]
    results: dict[str, Estimate] = {
        "expected_weight_best_split": Estimate.exact(best_value),
        "expected_weight_adaptive": Estimate.exact(adaptive_value),
        f"expected_weight_{scenario.caster.dice_rule}_rule": Estimate.exact(own_value),
    }
    for i in range(len(scenario.spells)):
        results[f"dice_{i + 1}"] = Estimate.count(dice_by_file[i])
    info = {"ruleset": scenario.ruleset, "pools": f"{plural(power, 'power die')} vs {plural(dispel, 'dispel die')}",
            "best split (file order)": {f"{i + 1}. {sp.name}": dice_by_file[i]
                                        for i, sp in enumerate(scenario.spells)},
            "note": "dice 0 = do not cast; adaptive = dice chosen as each spell is cast"}
    # [[in_play]] spells are left out here, as in the values above
    split_scenario = MagicScenario(**{**as_fixed, "in_play": []})
    compiled = compile_phase(split_scenario, rules)
    compiled.plan = static_plan(compiled, [best_split[row] for row in range(len(compiled.order))])
    detail = phase_exact(split_scenario, rules, compiled, scenario.ruleset)
    for i in range(len(scenario.spells)):
        results[f"p_goes_off_{i + 1}"] = detail.results[f"p_goes_off_{i + 1}"]
    results["p_miscast"] = detail.results["p_miscast"]
    return Report("magic.optimise", "exact", results, info=info,
                  title=f"dice budget: {scenario.name or 'scenario'}, {plural(power, 'power die')} "
                        f"vs {plural(dispel, 'dispel die')}")
