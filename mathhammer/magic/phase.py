"""A whole magic phase (MG-1..MG-10) by Monte Carlo in the kernel; the exact engine
is :mod:`mathhammer.magic.exact`.

Both engines follow the same decision tables (the caster's dice plan, the
dispeller's dice plan, from :mod:`mathhammer.magic.compile`); the dice are rolled
in the kernel and enumerated exactly (via :func:`mathhammer.magic.rolls.cast_odds`,
checked face by face) in the exact engine.
"""

from __future__ import annotations

import numpy as np

from mathhammer.engine import MonteCarloConfig, padded_tallies, simulate
from mathhammer.magic.compile import POOLS, CompiledPhase
from mathhammer.magic.models import MagicScenario
from mathhammer.magic.rolls import flow_pools
from mathhammer.magic.rules import MagicRules
from mathhammer.results import Distribution, Estimate, Report
from mathhammer.words import plural


def describe(scenario: MagicScenario, compiled: CompiledPhase, rules_name: str) -> dict:
    order = [f"{i + 1}. {scenario.spells[i].name}" for i in compiled.order]
    d = scenario.dispel
    policy = {"all_out": "all-out", "threshold": f"threshold (priority ≥ {d.min_priority})",
              "keep_dice": f"keep {plural(d.keep, 'die')} (except priority ≥ {d.min_priority})"}[d.policy]
    info = {"ruleset": rules_name, "cast order (file numbers)": order,
            "caster dice rule": scenario.caster.dice_rule,
            "dispel policy": f"{policy}, fewest dice reaching {d.confidence:.0%}, level {d.level}"}
    if scenario.caster.dice_rule != "optimal":
        assert compiled.plan is not None
        info["dice per spell"] = {f"{i + 1}. {scenario.spells[i].name}": int(compiled.plan[r, 12].max())
                                  for r, i in enumerate(compiled.order)}
    return info


def initial_pools(scenario: MagicScenario, rules: MagicRules) -> dict[tuple[int, int], float]:
    fl = scenario.flow
    if fl.power_dice is not None:
        return {(fl.power_dice, fl.dispel_dice): 1.0}
    channelers = fl.channelers if fl.channelers is not None else len(scenario.wizards)
    joint = flow_pools(rules, channelers, fl.reactive_channelers, fl.extra_power, fl.extra_dispel,
                       where=("flow.extra_power", "flow.extra_dispel"))
    return {k: float(v) for k, v in joint.items() if v}


def in_play_results(scenario: MagicScenario, results: dict, dispelled, ended, part) -> None:
    """MG-8 results of the [[in_play]] spells, in file order (both engines).

    ``p_in_play_dispelled_<j>``: dispelled on every part; with ``p_caster_slain`` also
    ``p_in_play_ended_<j>`` (dispelled or its caster slain); with ``parts`` > 1 each part's
    ``p_in_play_dispelled_<j>_part_<k>``.
    """
    for k, ip in enumerate(scenario.in_play):
        results[f"p_in_play_dispelled_{k + 1}"] = dispelled(k)
        if ip.p_caster_slain:
            results[f"p_in_play_ended_{k + 1}"] = ended(k)
        if ip.parts > 1:
            for q in range(ip.parts):
                results[f"p_in_play_dispelled_{k + 1}_part_{q + 1}"] = part(k, q)


def optimal_value(scenario: MagicScenario, rules: MagicRules, compiled: CompiledPhase) -> float | None:
    """Exact expected weighted number of spells through under the optimal plan."""
    if compiled.value is None or scenario.in_play:
        return None
    return sum(p * compiled.value[0, pw, dp, 0, 0]
               for (pw, dp), p in initial_pools(scenario, rules).items())


# ---- Monte Carlo ------------------------------------------------------------------
def phase_monte_carlo(scenario: MagicScenario, rules: MagicRules, compiled: CompiledPhase,
                      config: MonteCarloConfig, rules_name: str) -> Report:
    from mathhammer import kernels

    km = kernels.load("mathhammer.magic.kernels")
    c = compiled
    s, j, r = len(c.order), len(scenario.in_play), len(c.row_names)

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        out = padded_tallies({"goes_off": s, "in_play_end": s, "through": s + 1,
                              "power_left": POOLS, "dispel_left": POOLS, "events": 3,
                              "rows": max(r, 1), "in_play": max(j, 1),
                              "in_play_ended": max(j, 1), "in_play_parts": (max(j, 1), 6),
                              "weights": 2})
        km.phase_kernel(c.rules_arr, c.flow_arr, c.spells_arr, c.plan, c.dispel_plan,
                        c.in_play_arr, c.in_play_plan, c.in_play_slain, c.retry_plan,
                        c.row_of_roll, state, np.int64(n), out["goes_off"], out["in_play_end"],
                        out["through"], out["power_left"], out["dispel_left"], out["events"],
                        out["rows"], out["in_play"], out["in_play_ended"], out["in_play_parts"],
                        out["weights"])
        return out

    def probabilities(tally: dict[str, np.ndarray], n: int) -> np.ndarray:
        return np.concatenate([tally["goes_off"], tally["events"][:1]]) / n

    run = simulate(run_chunk, config, probabilities)
    t, n = run.tally, run.n_trials
    results: dict[str, Estimate] = {}
    goes = {i: int(t["goes_off"][row]) for row, i in enumerate(c.order)}
    for i in range(s):
        results[f"p_goes_off_{i + 1}"] = Estimate.proportion(goes[i], n)
    results["p_miscast"] = Estimate.proportion(int(t["events"][0]), n)
    results["p_two_sixes_cast"] = Estimate.proportion(int(t["events"][1]), n)
    results["p_any_dispelled"] = Estimate.proportion(int(t["events"][2]), n)
    for row, i in enumerate(c.order):
        if scenario.spells[i].remains_in_play:
            results[f"p_in_play_end_{i + 1}"] = Estimate.proportion(int(t["in_play_end"][row]), n)
    for k, name in enumerate(c.row_names):
        results[f"p_miscast_row_{name.split()[0].replace('-', '_')}"] = Estimate.proportion(
            int(t["rows"][k]), n)
    in_play_results(scenario, results, lambda k: Estimate.proportion(int(t["in_play"][k]), n),
                    lambda k: Estimate.proportion(int(t["in_play_ended"][k]), n),
                    lambda k, part: Estimate.proportion(int(t["in_play_parts"][k, part]), n))
    results["expected_weight"] = Estimate.mean(t["weights"][0] / 1000.0, t["weights"][1] / 1e6, n)
    info = describe(scenario, c, rules_name)
    info["miscast rows"] = c.row_names
    best = optimal_value(scenario, rules, c)
    if best is not None:
        info["expected_weight, exact (optimal plan)"] = round(best, 6)
    return Report(
        "magic.phase", "mc", results,
        {"spells_through": Distribution.from_counts(t["through"]),
         "power_dice_left": Distribution.from_counts(t["power_left"]),
         "dispel_dice_left": Distribution.from_counts(t["dispel_left"])},
        n_trials=n, seed=run.seed, info=info, title=f"magic phase: {scenario.name or 'scenario'}",
    )
