"""A whole magic phase (MG-1..MG-10): Monte Carlo in the kernel, exact by forward
propagation of the phase state for scenarios without remains-in-play retries.

Both engines follow the same decision tables (the caster's dice plan, the
dispeller's dice plan, from :mod:`mathhammer.magic.compile`); the dice are rolled
in the kernel and enumerated exactly (via :func:`mathhammer.magic.rolls.cast_odds`,
checked face by face) in :func:`phase_exact`.
"""

from __future__ import annotations


import numpy as np

from mathhammer.engine import MonteCarloConfig, simulate
from mathhammer.errors import InputError
from mathhammer.magic.compile import POOLS, CompiledPhase
from mathhammer.magic.models import MagicScenario
from mathhammer.magic.rolls import flow_pools
from mathhammer.magic.rules import MagicRules
from mathhammer.results import Distribution, Estimate, Report


def _describe(scenario: MagicScenario, compiled: CompiledPhase, rules_name: str) -> dict:
    order = [f"{i + 1}. {scenario.spells[i].name}" for i in compiled.order]
    d = scenario.dispel
    policy = {"all_out": "all-out", "threshold": f"threshold (priority ≥ {d.min_priority})",
              "keep_dice": f"keep {d.keep} dice (except priority ≥ {d.min_priority})"}[d.policy]
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
    joint = flow_pools(rules, channelers, fl.reactive_channelers, fl.extra_power, fl.extra_dispel)
    return {k: float(v) for k, v in joint.items() if v}


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

    km = kernels.load("magic")
    c = compiled
    s, j, r = len(c.order), len(scenario.in_play), len(c.row_names)

    def run_chunk(n: int, state: np.ndarray) -> dict[str, np.ndarray]:
        out = {"goes_off": np.zeros(s, np.int64), "in_play_end": np.zeros(s, np.int64),
               "through": np.zeros(s + 1, np.int64), "power_left": np.zeros(POOLS, np.int64),
               "dispel_left": np.zeros(POOLS, np.int64), "events": np.zeros(3, np.int64),
               "rows": np.zeros(max(r, 1), np.int64), "in_play": np.zeros(max(j, 1), np.int64),
               "weights": np.zeros(2, np.int64)}
        km.phase_kernel(c.rules_arr, c.flow_arr, c.spells_arr, c.plan, c.dispel_plan,
                        c.in_play_arr, c.in_play_plan, c.retry_plan, c.row_of_roll, state,
                        np.int64(n), out["goes_off"], out["in_play_end"], out["through"],
                        out["power_left"], out["dispel_left"], out["events"], out["rows"],
                        out["in_play"], out["weights"])
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
    for k in range(j):
        results[f"p_in_play_dispelled_{k + 1}"] = Estimate.proportion(int(t["in_play"][k]), n)
    results["expected_weight"] = Estimate.mean(t["weights"][0] / 1000.0, t["weights"][1] / 1e6, n)
    info = _describe(scenario, c, rules_name)
    info["miscast rows"] = c.row_names
    best = optimal_value(scenario, rules, c)
    if best is not None:
        info["expected_weight, exact (optimal plan)"] = round(best, 6)
    return Report(
        "magic phase", "mc", results,
        {"spells_through": Distribution.from_counts(t["through"]),
         "power_dice_left": Distribution.from_counts(t["power_left"]),
         "dispel_dice_left": Distribution.from_counts(t["dispel_left"])},
        n_trials=n, seed=run.seed, info=info, title=f"magic phase: {scenario.name or 'scenario'}",
    )


# ---- exact --------------------------------------------------------------------------
def exact_available(scenario: MagicScenario) -> str | None:
    """None when :func:`phase_exact` can answer, else the reason it cannot."""
    if scenario.in_play:
        return "in_play spells (remains in play from earlier turns)"
    if scenario.dispel.retry_remains_in_play and any(s.remains_in_play for s in scenario.spells):
        return "retries against remains-in-play spells (set retry_remains_in_play = false)"
    return None


def phase_exact(scenario: MagicScenario, rules: MagicRules, compiled: CompiledPhase,
                rules_name: str) -> Report:
    """Exact phase by propagating P(power, dispel, lost mask, flag, through, miscast)."""
    reason = exact_available(scenario)
    if reason is not None:
        raise InputError("--method exact", f"no exact engine for {reason}", None, "use --method mc")
    c = compiled
    maxcast = rules.max_casting_dice
    cap = rules.dispel_dice_cap
    lost_on_fail = rules.failed_caster_stops
    stops = rules.failed_dispeller_stops and scenario.dispel.level > 0
    removes = rules.miscast_removes_dice_used
    ends = scenario.caster.miscast_ends_casting
    s = len(c.order)
    # state: (power, dispel, lost mask, dispeller failed, spells through, miscast) -> P
    states: dict[tuple, float] = {(pw, dp, 0, 0, 0, 0): p
                                  for (pw, dp), p in initial_pools(scenario, rules).items()}
    goes = np.zeros(s)
    nonzero = {}
    for row in range(s):
        for n in range(1, maxcast + 1):
            nonzero[row, n] = [(t, c.p_plain[row, n, t], c.p_op[row, n, t])
                               for t in np.nonzero(c.p_plain[row, n] + c.p_op[row, n])[0]]
    for row in range(s):
        wiz, _, _, bound, _, _, _ = (int(x) for x in c.spells_arr[row])
        nxt: dict[tuple, float] = {}

        def add(key: tuple, p: float) -> None:
            nxt[key] = nxt.get(key, 0.0) + p

        for (pw, dp, mask, f, cnt, mis), q in states.items():
            n = min(int(c.plan[row, pw, dp, mask, f]), pw, maxcast)
            if (wiz >= 0 and (mask >> wiz) & 1) or n <= 0:
                add((pw, dp, mask, f, cnt, mis), q)
                continue
            left = pw - n
            lost = mask | (1 << wiz) if wiz >= 0 else mask
            add((left, dp, lost if (lost_on_fail and not bound) else mask, f, cnt, mis),
                q * c.p_fail[row, n])
            mis_left = max(0, left - n) if (removes and not bound) else left
            mis_mask = lost if (ends and not bound) else mask
            p_irr = c.p_irr[row, n]
            if p_irr:
                goes[row] += q * p_irr
                add((mis_left, dp, mis_mask, f, cnt + 1, mis or int(not bound)), q * p_irr)
            for t, p_plain, p_op in nonzero[row, n]:
                for kind, p in ((0, p_plain), (1, p_op)):
                    if not p:
                        continue
                    ok = (left, mask, mis) if kind == 0 else (mis_left, mis_mask, 1)
                    k = min(int(c.dispel_plan[row, f, dp, t]), dp, cap)
                    if k <= 0:
                        goes[row] += q * p
                        add((ok[0], dp, ok[1], f, cnt + 1, ok[2]), q * p)
                        continue
                    pd = c.p_dispel[f if scenario.dispel.level > 0 else 1, k, t]
                    add((left, dp - k, mask, f, cnt, mis), q * p * pd)
                    goes[row] += q * p * (1.0 - pd)
                    add((ok[0], dp - k, ok[1], 1 if stops else f, cnt + 1, ok[2]),
                        q * p * (1.0 - pd))
        states = nxt
    through = np.zeros(s + 1)
    power_left = np.zeros(POOLS)
    dispel_left = np.zeros(POOLS)
    p_mis = 0.0
    for (pw, dp, _mask, _f, cnt, mis), q in states.items():
        through[cnt] += q
        power_left[pw] += q
        dispel_left[dp] += q
        p_mis += q * mis
    results: dict[str, Estimate] = {}
    by_file = {i: goes[row] for row, i in enumerate(c.order)}
    for i in range(s):
        results[f"p_goes_off_{i + 1}"] = Estimate.exact(float(by_file[i]))
    results["p_miscast"] = Estimate.exact(p_mis)
    weights = np.array([scenario.spells[i].weight for i in range(s)])
    results["expected_weight"] = Estimate.exact(float(sum(weights[i] * by_file[i] for i in range(s))))
    return Report(
        "magic phase", "exact", results,
        {"spells_through": Distribution.exact(through),
         "power_dice_left": Distribution.exact(power_left),
         "dispel_dice_left": Distribution.exact(dispel_left)},
        info=_describe(scenario, c, rules_name), title=f"magic phase: {scenario.name or 'scenario'}",
    )
