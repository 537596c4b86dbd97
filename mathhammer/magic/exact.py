"""The exact magic phase (MG-1..MG-10): forward propagation of the phase state.

State: (power dice, dispel dice, wizards that stopped casting, dispeller failed,
spells through, any miscast, remains-in-play spells through). Every roll is taken
from the exact single-roll tables of :mod:`mathhammer.magic.compile` (built from
:func:`mathhammer.magic.rolls.cast_odds`, checked face by face), and every decision
from the same plan tables the Monte Carlo kernel reads. Miscast-table rows are
reported by the Monte Carlo engine only.
"""

from __future__ import annotations

import numpy as np

from mathhammer.errors import InputError
from mathhammer.magic.compile import POOLS, CompiledPhase
from mathhammer.magic.models import MagicScenario
from mathhammer.magic.phase import describe, initial_pools
from mathhammer.magic.rolls import dispel_probability
from mathhammer.magic.rules import MagicRules
from mathhammer.results import Distribution, Estimate, Report

State = tuple[int, int, int, int, int, int, int]
MAX_STATES = 400_000  # a few seconds of pure Python per spell


def _accumulate(states: dict[State, float], key: State, p: float) -> None:
    if p:
        states[key] = states.get(key, 0.0) + p


def _in_play_step(scenario, rules, c, states, stops):
    """MG-8: one dispel attempt against each [[in_play]] spell at the first step."""
    dispelled = np.zeros(len(scenario.in_play))
    lvl_full = scenario.dispel.level
    for j, ip in enumerate(scenario.in_play):
        nxt: dict[State, float] = {}
        for (pw, dp, mask, f, cnt, mis, rip), q in states.items():
            if ip.owner == "reactive":  # the caster dispels with power dice
                k = min(ip.dice, pw)
                if k <= 0:
                    _accumulate(nxt, (pw, dp, mask, f, cnt, mis, rip), q)
                    continue
                dispelled[j] += q * float(dispel_probability(rules, k, ip.level, ip.value))
                _accumulate(nxt, (pw - k, dp, mask, f, cnt, mis, rip), q)
                continue
            k = min(int(c.in_play_plan[j, f, dp]), dp)
            if k <= 0:
                _accumulate(nxt, (pw, dp, mask, f, cnt, mis, rip), q)
                continue
            pd = c.p_dispel[f if lvl_full > 0 else 1, k, ip.value]
            dispelled[j] += q * pd
            _accumulate(nxt, (pw, dp - k, mask, f, cnt, mis, rip), q * pd)
            _accumulate(nxt, (pw, dp - k, mask, 1 if stops else f, cnt, mis, rip), q * (1 - pd))
        states = nxt
    return states, dispelled


def _cast_step(row, c, rules, scenario, states, goes, stops):
    """The row-th spell cast: the caster's plan, the cast roll, the dispel policy."""
    maxcast, cap = rules.max_casting_dice, rules.dispel_dice_cap
    wiz, _, _, bound, rip_spell, _, _ = (int(x) for x in c.spells_arr[row])
    lost_on_fail = rules.failed_caster_stops and not bound
    removes = rules.miscast_removes_dice_used and not bound
    ends = scenario.caster.miscast_ends_casting and not bound
    lvl_full = scenario.dispel.level
    nxt: dict[State, float] = {}
    for (pw, dp, mask, f, cnt, mis, rip), q in states.items():
        n = min(int(c.plan[row, pw, dp, mask, f]), pw, maxcast)
        if (wiz >= 0 and (mask >> wiz) & 1) or n <= 0:
            _accumulate(nxt, (pw, dp, mask, f, cnt, mis, rip), q)
            continue
        left = pw - n
        lost = mask | (1 << wiz) if wiz >= 0 else mask
        rip_through = rip | (rip_spell << row)
        _accumulate(nxt, (left, dp, lost if lost_on_fail else mask, f, cnt, mis, rip), q * c.p_fail[row, n])
        mis_left = max(0, left - n) if removes else left
        mis_mask = lost if ends else mask
        p_irr = c.p_irr[row, n]
        if p_irr:  # wfb8 irresistible force: through, miscast unless bound (MG-5)
            goes[row] += q * p_irr
            _accumulate(nxt, (mis_left, dp, mis_mask, f, cnt + 1, mis or int(not bound), rip_through),
                        q * p_irr)
        lo, hi = c.t_range[row, n] if c.t_range is not None else (0, c.p_plain.shape[2])
        for t in range(lo, hi):
            for kind, p in ((0, c.p_plain[row, n, t]), (1, c.p_op[row, n, t])):
                if not p:
                    continue
                ok_left, ok_mask, ok_mis = (left, mask, mis) if kind == 0 else (mis_left, mis_mask, 1)
                k = min(int(c.dispel_plan[row, f, dp, t]), dp, cap)
                if k <= 0:
                    goes[row] += q * p
                    _accumulate(nxt, (ok_left, dp, ok_mask, f, cnt + 1, ok_mis, rip_through), q * p)
                    continue
                pd = c.p_dispel[f if lvl_full > 0 else 1, k, t]
                _accumulate(nxt, (left, dp - k, mask, f, cnt, mis, rip), q * p * pd)
                goes[row] += q * p * (1.0 - pd)
                _accumulate(nxt, (ok_left, dp - k, ok_mask, 1 if stops else f, cnt + 1, ok_mis,
                                  rip_through), q * p * (1.0 - pd))
    return nxt


def _retry_step(row, c, rules, scenario, states, in_play_end, stops):
    """MG-8: after the caster passes, one more dispel attempt against a remains-in-play
    spell that went off (against its casting value)."""
    cv = int(c.spells_arr[row, 2])
    nxt: dict[State, float] = {}
    for (pw, dp, mask, f, cnt, mis, rip), q in states.items():
        if not (rip >> row) & 1:
            _accumulate(nxt, (pw, dp, mask, f, cnt, mis, rip), q)
            continue
        k = min(int(c.retry_plan[row, f, dp]), dp, rules.dispel_dice_cap)
        if k <= 0:
            in_play_end[row] += q
            _accumulate(nxt, (pw, dp, mask, f, cnt, mis, rip), q)
            continue
        pd = c.p_dispel[f if scenario.dispel.level > 0 else 1, k, cv]
        in_play_end[row] += q * (1 - pd)
        _accumulate(nxt, (pw, dp - k, mask, f, cnt, mis, rip), q * pd)
        _accumulate(nxt, (pw, dp - k, mask, 1 if stops else f, cnt, mis, rip), q * (1 - pd))
    return nxt


def phase_exact(scenario: MagicScenario, rules: MagicRules, compiled: CompiledPhase,
                rules_name: str) -> Report:
    """Exact P(each spell goes off), P(miscast) and the dice-left distributions."""
    from mathhammer.magic.compile import _t_range

    c = compiled
    if c.t_range is None:
        c.t_range = _t_range(c)
    s = len(c.order)
    stops = rules.failed_dispeller_stops and scenario.dispel.level > 0
    states: dict[State, float] = {(pw, dp, 0, 0, 0, 0, 0): p
                                  for (pw, dp), p in initial_pools(scenario, rules).items()}
    states, dispelled = _in_play_step(scenario, rules, c, states, stops)
    goes = np.zeros(s)
    for row in range(s):
        states = _cast_step(row, c, rules, scenario, states, goes, stops)
        if len(states) > MAX_STATES:
            raise InputError("--method exact", f"the phase has too many states for the exact "
                             f"engine (over {MAX_STATES:,} after spell {row + 1} cast)",
                             None, "use --method mc (the default)")
    in_play_end = np.zeros(s)
    for row in range(s):
        if scenario.spells[c.order[row]].remains_in_play:
            if scenario.dispel.retry_remains_in_play:
                states = _retry_step(row, c, rules, scenario, states, in_play_end, stops)
            else:
                in_play_end[row] = goes[row]
    through, power_left, dispel_left = np.zeros(s + 1), np.zeros(POOLS), np.zeros(POOLS)
    p_mis = 0.0
    for (pw, dp, _mask, _f, cnt, mis, _rip), q in states.items():
        through[cnt] += q
        power_left[pw] += q
        dispel_left[dp] += q
        p_mis += q * mis
    by_file = {i: row for row, i in enumerate(c.order)}
    results: dict[str, Estimate] = {}
    for i in range(s):
        results[f"p_goes_off_{i + 1}"] = Estimate.exact(float(goes[by_file[i]]))
    results["p_miscast"] = Estimate.exact(p_mis)
    for i in range(s):
        if scenario.spells[i].remains_in_play:
            results[f"p_in_play_end_{i + 1}"] = Estimate.exact(float(in_play_end[by_file[i]]))
    for j in range(len(scenario.in_play)):
        results[f"p_in_play_dispelled_{j + 1}"] = Estimate.exact(float(dispelled[j]))
    weight = sum(scenario.spells[i].weight * goes[by_file[i]] for i in range(s))
    results["expected_weight"] = Estimate.exact(float(weight))
    return Report(
        "magic phase", "exact", results,
        {"spells_through": Distribution.exact(through),
         "power_dice_left": Distribution.exact(power_left),
         "dispel_dice_left": Distribution.exact(dispel_left)},
        info=describe(scenario, c, rules_name), title=f"magic phase: {scenario.name or 'scenario'}",
    )
