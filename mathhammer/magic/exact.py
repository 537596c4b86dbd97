"""The exact magic phase (MG-1..MG-10): forward propagation of the phase state.

State: (power dice, dispel dice, wizards that stopped casting, dispeller failed,
spells through, any miscast, remains-in-play spells through, in-play spells of earlier
turns still in play that bar a spell of the same wizard (MG-8)). Every roll is taken
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
from mathhammer.magic.phase import describe, in_play_results, initial_pools
from mathhammer.magic.rolls import dispel_probability
from mathhammer.magic.rules import MagicRules
from mathhammer.results import Distribution, Estimate, Report

State = tuple[int, int, int, int, int, int, int, int]
MAX_RETRIES = 12  # each dispel attempt uses at least one die of a pool of at most 12
MAX_STATES = 400_000  # a few seconds of pure Python per spell


def _accumulate(states: dict[State, float], key: State, p: float) -> None:
    if p:
        states[key] = states.get(key, 0.0) + p


def _in_play_part(ip, j, c, rules, work, level, stops):
    """One part of in-play spell ``j``: dispel attempts until it goes (MG-8).

    ``work`` maps (state, every part so far dispelled) → probability; returns the same
    map after this part, and P(this part dispelled).
    """
    live = {(key, ok, False): q for (key, ok), q in work.items()}
    for _attempt in range(ip.max_attempts):
        nxt: dict = {}
        for (key, ok, gone), q in live.items():
            pw, dp, mask, f, cnt, mis, rip, blk = key
            if gone:
                _accumulate(nxt, (key, ok, True), q)
                continue
            if ip.owner == "reactive":  # the caster dispels with power dice
                k = min(ip.dice, pw)
                if k <= 0:
                    _accumulate(nxt, (key, ok, False), q)
                    continue
                pd = float(dispel_probability(rules, k, ip.level, ip.value))
                after = (pw - k, dp, mask, f, cnt, mis, rip, blk)
                _accumulate(nxt, (after, ok, True), q * pd)
                _accumulate(nxt, (after, ok, False), q * (1 - pd))
                continue
            k = min(int(c.in_play_plan[j, f, dp]), dp)
            if k <= 0:
                _accumulate(nxt, (key, ok, False), q)
                continue
            pd = c.p_dispel[f if level > 0 else 1, k, ip.value]
            _accumulate(nxt, ((pw, dp - k, mask, f, cnt, mis, rip, blk), ok, True), q * pd)
            f2 = 1 if stops else f
            _accumulate(nxt, ((pw, dp - k, mask, f2, cnt, mis, rip, blk), ok, False), q * (1 - pd))
        live = nxt
    out: dict = {}
    p_part = 0.0
    for (key, ok, gone), q in live.items():
        p_part += q * gone
        _accumulate(out, (key, ok and gone), q)
    return out, p_part


def _in_play_step(scenario, rules, c, states, stops):
    """MG-8: the spells in play from earlier turns, at the first step.

    A slain caster ends the spell (no dice spent); otherwise each part of a split unit
    is dispelled separately, retried while the dispeller has dice and the plan (or the
    entry's ``attempts``) allows. A spell still in play bars the linked spell.
    """
    n = len(scenario.in_play)
    dispelled, ended = np.zeros(n), np.zeros(n)
    parts = np.zeros((max(n, 1), 6))
    for j, ip in enumerate(scenario.in_play):
        nxt: dict[State, float] = {}
        work: dict = {}
        slain = ip.p_caster_slain
        for key, q in states.items():
            if slain:
                ended[j] += q * slain
                _accumulate(nxt, key, q * slain)
            if slain < 1:
                _accumulate(work, (key, True), q * (1 - slain))
        for part in range(ip.parts):
            work, parts[j, part] = _in_play_part(ip, j, c, rules, work, scenario.dispel.level,
                                                 stops)
        for (key, ok), q in work.items():
            if ok:
                dispelled[j] += q
                ended[j] += q
            elif ip.spell is not None:
                key = key[:7] + (key[7] | (1 << j),)
            _accumulate(nxt, key, q)
        states = nxt
    return states, dispelled, ended, parts


def _cast_step(row, c, rules, scenario, states, goes, stops):
    """The row-th spell cast: the caster's plan, the cast roll, the dispel policy."""
    maxcast, cap = rules.max_casting_dice, rules.dispel_dice_cap
    wiz, _, _, bound, rip_spell, _, _, barred_by = (int(x) for x in c.spells_arr[row])
    lost_on_fail = rules.failed_caster_stops and not bound
    removes = rules.miscast_removes_dice_used and not bound
    ends = scenario.caster.miscast_ends_casting and not bound
    lvl_full = scenario.dispel.level
    nxt: dict[State, float] = {}
    for (pw, dp, mask, f, cnt, mis, rip, blk), q in states.items():
        n = min(int(c.plan[row, pw, dp, mask, f]), pw, maxcast)
        barred = barred_by >= 0 and (blk >> barred_by) & 1
        if (wiz >= 0 and (mask >> wiz) & 1) or n <= 0 or barred:
            _accumulate(nxt, (pw, dp, mask, f, cnt, mis, rip, blk), q)
            continue
        left = pw - n
        lost = mask | (1 << wiz) if wiz >= 0 else mask
        rip_through = rip | (rip_spell << row)
        _accumulate(nxt, (left, dp, lost if lost_on_fail else mask, f, cnt, mis, rip, blk), q * c.p_fail[row, n])
        mis_left = max(0, left - n) if removes else left
        mis_mask = lost if ends else mask
        p_irr = c.p_irr[row, n]
        if p_irr:  # wfb8 irresistible force: through, miscast unless bound (MG-5)
            goes[row] += q * p_irr
            _accumulate(nxt, (mis_left, dp, mis_mask, f, cnt + 1, mis or int(not bound), rip_through, blk),
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
                    _accumulate(nxt, (ok_left, dp, ok_mask, f, cnt + 1, ok_mis, rip_through, blk), q * p)
                    continue
                pd = c.p_dispel[f if lvl_full > 0 else 1, k, t]
                _accumulate(nxt, (left, dp - k, mask, f, cnt, mis, rip, blk), q * p * pd)
                goes[row] += q * p * (1.0 - pd)
                _accumulate(nxt, (ok_left, dp - k, ok_mask, 1 if stops else f, cnt + 1, ok_mis,
                                  rip_through, blk), q * p * (1.0 - pd))
    return nxt


def _retry_step(row, c, rules, scenario, states, in_play_end, stops):
    """MG-8: after the caster passes, dispel attempts against a remains-in-play spell
    that went off (against its casting value), again while dice and the plan allow."""
    cv = int(c.spells_arr[row, 2])
    level_state = (lambda f: f) if scenario.dispel.level > 0 else (lambda f: 1)
    live: dict = {}
    for key, q in states.items():
        _accumulate(live, (key, bool((key[6] >> row) & 1)), q)
    for _attempt in range(MAX_RETRIES):
        nxt: dict = {}
        for (key, still), q in live.items():
            pw, dp, mask, f, cnt, mis, rip, blk = key
            k = min(int(c.retry_plan[row, f, dp]), dp, rules.dispel_dice_cap) if still else 0
            if k <= 0:
                _accumulate(nxt, (key, still), q)
                continue
            pd = c.p_dispel[level_state(f), k, cv]
            _accumulate(nxt, ((pw, dp - k, mask, f, cnt, mis, rip, blk), False), q * pd)
            f2 = 1 if stops else f
            _accumulate(nxt, ((pw, dp - k, mask, f2, cnt, mis, rip, blk), True), q * (1 - pd))
        live = nxt
    out: dict[State, float] = {}
    for (key, still), q in live.items():
        in_play_end[row] += q * still
        _accumulate(out, key, q)
    return out


def phase_exact(scenario: MagicScenario, rules: MagicRules, compiled: CompiledPhase,
                rules_name: str) -> Report:
    """Exact P(each spell goes off), P(miscast) and the dice-left distributions."""
    from mathhammer.magic.compile import _t_range

    c = compiled
    if c.t_range is None:
        c.t_range = _t_range(c)
    s = len(c.order)
    stops = rules.failed_dispeller_stops and scenario.dispel.level > 0
    states: dict[State, float] = {(pw, dp, 0, 0, 0, 0, 0, 0): p
                                  for (pw, dp), p in initial_pools(scenario, rules).items()}
    states, dispelled, ended, parts = _in_play_step(scenario, rules, c, states, stops)
    goes = np.zeros(s)
    for row in range(s):
        states = _cast_step(row, c, rules, scenario, states, goes, stops)
        if len(states) > MAX_STATES:
            raise InputError("‹method› exact", f"the phase has too many states for the exact "
                             f"engine (over {MAX_STATES:,} after spell {row + 1} cast)",
                             None, "use ‹method› mc (the default)")
    in_play_end = np.zeros(s)
    for row in range(s):
        if scenario.spells[c.order[row]].remains_in_play:
            if scenario.dispel.retry_remains_in_play:
                states = _retry_step(row, c, rules, scenario, states, in_play_end, stops)
            else:
                in_play_end[row] = goes[row]
    through, power_left, dispel_left = np.zeros(s + 1), np.zeros(POOLS), np.zeros(POOLS)
    p_mis = 0.0
    for (pw, dp, _mask, _f, cnt, mis, _rip, _blk), q in states.items():
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
    in_play_results(scenario, results, lambda k: Estimate.exact(float(dispelled[k])),
                    lambda k: Estimate.exact(float(ended[k])),
                    lambda k, q: Estimate.exact(float(parts[k, q])))
    weight = sum(scenario.spells[i].weight * goes[by_file[i]] for i in range(s))
    results["expected_weight"] = Estimate.exact(float(weight))
    return Report(
        "magic.phase", "exact", results,
        {"spells_through": Distribution.exact(through),
         "power_dice_left": Distribution.exact(power_left),
         "dispel_dice_left": Distribution.exact(dispel_left)},
        info=describe(scenario, c, rules_name), title=f"magic phase: {scenario.name or 'scenario'}",
    )
