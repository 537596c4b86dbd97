"""Scenario + rules → the flat arrays the magic kernels take (the one place that knows both).

Also the decision tables of both sides (MG-9): the caster's dice per spell (fixed,
target, or the exact optimum from :func:`optimal_plan`) and the dispeller's dice per
(spell, failed flag, dice left, casting total).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mathhammer.errors import RulesError
from mathhammer.magic.models import MagicScenario
from mathhammer.magic.rolls import D3_FACES, cast_odds, check_extra_dice, pool_classes
from mathhammer.magic.rules import MagicRules

T_LEN = 128  # casting totals 0..127 (the largest possible total is below 100)
POOLS = 13
MAX_DICE = 12


@dataclass
class CompiledPhase:
    rules_arr: np.ndarray
    flow_arr: np.ndarray
    spells_arr: np.ndarray  # cast order
    order: list[int]  # order[i] = file index of the i-th spell cast
    weights: np.ndarray  # cast order
    p_fail: np.ndarray
    p_irr: np.ndarray
    p_plain: np.ndarray
    p_op: np.ndarray
    p_dispel: np.ndarray  # [level state, k, total]
    dispel_plan: np.ndarray
    in_play_arr: np.ndarray  # int64 [J, IP_SIZE] (kernels.magic IP_*)
    in_play_plan: np.ndarray
    in_play_slain: np.ndarray  # float64 [J]: chance each in-play spell's caster is slain (MG-8)
    retry_plan: np.ndarray
    row_of_roll: np.ndarray
    row_names: list[str]
    n_masks: int
    plan: np.ndarray | None = None
    value: np.ndarray | None = None
    t_range: np.ndarray | None = None  # totals with non-zero cast odds, for the DP


def rules_array(rules: MagicRules, miscast_ends: bool) -> np.ndarray:
    return np.array([
        rules.max_casting_dice, rules.max_pool, rules.max_power_used, rules.max_dispel_used,
        -1 if rules.max_extra_dice is None else rules.max_extra_dice,
        {"none": 0, "d6_plus_channelers": 1, "each_wizard_six": 2}[rules.channel],
        rules.channel_target, rules.natural_fail_at_most,
        0 if rules.two_sixes == "irresistible" else 1, rules.dispel_natural_fail_at_most,
        int(rules.failed_dispeller_stops), int(rules.failed_caster_stops), int(rules.op_on_dispel),
        int(rules.miscast_removes_dice_used), int(miscast_ends), rules.dispel_dice_cap,
    ], dtype=np.int64)


def dispel_success_table(rules: MagicRules, level: int) -> np.ndarray:
    """P(dispel total ≥ t) for k = 0..12 dice and t = 0..T_LEN-1, as floats (MG-5, MG-6)."""
    table = np.zeros((MAX_DICE + 1, T_LEN))
    for k in range(1, MAX_DICE + 1):
        totals = np.zeros(T_LEN + 40)
        classes = pool_classes(k)
        for sixes in range(3):
            for natural, count in enumerate(classes[sixes]):
                if not count or natural <= rules.dispel_natural_fail_at_most:
                    continue
                p = count / 6.0**k
                if sixes == 2 and rules.op_on_dispel:
                    for d3 in D3_FACES:
                        totals[natural + level + d3 + k] += p / 6
                else:
                    totals[natural + level] += p
        survival = np.cumsum(totals[::-1])[::-1]  # P(total ≥ t)
        table[k] = survival[:T_LEN]
    return table


def cast_tables(rules: MagicRules, spells, maxcast: int):
    """Exact cast outcomes of each spell with n = 1..maxcast dice, as float arrays."""
    s = len(spells)
    p_fail = np.zeros((s, MAX_DICE + 1))
    p_irr = np.zeros((s, MAX_DICE + 1))
    p_plain = np.zeros((s, MAX_DICE + 1, T_LEN))
    p_op = np.zeros((s, MAX_DICE + 1, T_LEN))
    for i, (bonus, cv, bound) in enumerate(spells):
        for n in range(1, maxcast + 1):
            odds = cast_odds(rules, n, bonus, cv, 0, bound)
            p_fail[i, n] = float(odds.p_fail)
            p_irr[i, n] = float(odds.p_irresistible_cast)
            for t, p in odds.plain.items():
                p_plain[i, n, min(t, T_LEN - 1)] += float(p)
            for t, p in odds.overwhelming.items():
                p_op[i, n, min(t, T_LEN - 1)] += float(p)
    return p_fail, p_irr, p_plain, p_op


def dispel_dice_table(p_dispel: np.ndarray, priority: int, scenario: MagicScenario,
                      cap: int, against: np.ndarray | None = None) -> np.ndarray:
    """Dispeller's dice [failed flag, dice left, casting total] for one spell (MG-9).

    all_out: every spell; threshold: priority ≥ min_priority only; keep_dice: never
    below ``keep`` dice unless priority ≥ min_priority. The attempt uses the fewest
    dice whose chance reaches ``confidence``, else every die it may use (none when even
    that cannot succeed).
    """
    pol = scenario.dispel
    out = np.zeros((2, POOLS, T_LEN), dtype=np.int8)
    if pol.policy == "threshold" and priority < pol.min_priority:
        return out
    for f in range(2):
        lvl_state = f if pol.level > 0 else 1
        for d in range(POOLS):
            usable = min(d, cap)
            if pol.policy == "keep_dice" and priority < pol.min_priority:
                usable = min(usable, d - pol.keep)
            if usable <= 0:
                continue
            chances = p_dispel[lvl_state, 1:usable + 1, :]  # [k-1, t]
            reach = chances >= pol.confidence - 1e-12
            first = np.where(reach.any(axis=0), reach.argmax(axis=0) + 1, usable)
            first[chances[usable - 1] <= 0.0] = 0
            out[f, d] = first
    return out


def compile_phase(scenario: MagicScenario, rules: MagicRules) -> CompiledPhase:
    order = sorted(range(len(scenario.spells)), key=lambda i: (-scenario.spells[i].priority, i))
    # a wizard's "stopped casting" bit only matters for its later spells: wizards with a
    # single spell get none, which keeps the DP state small
    casts = [sp.wizard for sp in scenario.spells if not sp.bound]
    tracked = [w.name for w in scenario.wizards if casts.count(w.name) >= 2]
    wiz_index = {name: j for j, name in enumerate(tracked)}
    levels = {w.name: w.level for w in scenario.wizards}
    maxcast = rules.max_casting_dice
    spells_arr = np.zeros((len(order), 8), dtype=np.int64)
    barred_by = {ip.spell: j for j, ip in enumerate(scenario.in_play) if ip.spell is not None}
    specs = []
    for row, i in enumerate(order):
        sp = scenario.spells[i]
        if sp.dice is not None and sp.dice > maxcast:
            raise RulesError(f"spells[{i + 1}].dice", f"a casting attempt uses 1 to {maxcast} dice "
                             "in this ruleset (MG-4)", sp.dice, f"use 1..{maxcast} dice")
        bonus = 0 if sp.bound else levels[sp.wizard] + sp.modifier
        spells_arr[row] = [-1 if sp.bound else wiz_index.get(sp.wizard, -1), bonus, sp.cv, int(sp.bound),
                           int(sp.remains_in_play), i, round(sp.weight * 1000),
                           barred_by.get(sp.name, -1)]
        specs.append((bonus, sp.cv, sp.bound))
    p_fail, p_irr, p_plain, p_op = cast_tables(rules, specs, maxcast)
    lvl = scenario.dispel.level
    p_dispel = np.stack([dispel_success_table(rules, lvl), dispel_success_table(rules, 0)])
    cap = rules.dispel_dice_cap
    prio = [scenario.spells[i].priority for i in order]
    dispel_plan = np.stack([dispel_dice_table(p_dispel, pr, scenario, cap) for pr in prio])
    # dice against a remains-in-play spell after the caster passes: its casting value
    retry_plan = np.zeros((len(order), 2, POOLS), dtype=np.int8)
    if scenario.dispel.retry_remains_in_play:
        for row, i in enumerate(order):
            if scenario.spells[i].remains_in_play:
                retry_plan[row] = dispel_plan[row][:, :, scenario.spells[i].cv]
    in_play_arr = np.zeros((len(scenario.in_play), 6), dtype=np.int64)
    in_play_plan = np.zeros((len(scenario.in_play), 2, POOLS), dtype=np.int8)
    in_play_slain = np.array([ip.p_caster_slain for ip in scenario.in_play], dtype=np.float64)
    for j, ip in enumerate(scenario.in_play):
        in_play_arr[j] = [0 if ip.owner == "active" else 1, ip.value, ip.dice, ip.level,
                          ip.max_attempts, ip.parts]
        if ip.owner == "active":
            in_play_plan[j] = dispel_dice_table(p_dispel, ip.priority, scenario, cap)[:, :, ip.value]
    fl = scenario.flow
    if fl.power_dice is None:  # the extra dice count only on a rolled flow (MG-3)
        check_extra_dice(rules, fl.extra_power, fl.extra_dispel,
                         ("flow.extra_power", "flow.extra_dispel"))
    channelers = fl.channelers if fl.channelers is not None else len(scenario.wizards)
    flow_arr = np.array([
        -1 if fl.power_dice is None else fl.power_dice,
        -1 if fl.dispel_dice is None else fl.dispel_dice,
        channelers, fl.reactive_channelers, fl.extra_power, fl.extra_dispel, lvl,
    ], dtype=np.int64)
    row_of_roll = np.full(13, -1, dtype=np.int64)
    names = []
    for r, mrow in enumerate(rules.miscast_table):
        row_of_roll[mrow.low:mrow.high + 1] = r
        names.append(f"{mrow.low}-{mrow.high} {mrow.name}" if mrow.low != mrow.high
                     else f"{mrow.low} {mrow.name}")
    compiled = CompiledPhase(
        rules_array(rules, scenario.caster.miscast_ends_casting), flow_arr, spells_arr, order,
        np.array([scenario.spells[i].weight for i in order], dtype=np.float64),
        p_fail, p_irr, p_plain, p_op, p_dispel, dispel_plan, in_play_arr, in_play_plan,
        in_play_slain, retry_plan, row_of_roll, names, 1 << len(tracked),
    )
    compiled.plan = caster_plan(scenario, rules, compiled)
    return compiled


def _fewest_dice(compiled: CompiledPhase, row: int, target: float, maxcast: int) -> int:
    p_cast = 1.0 - compiled.p_fail[row, 1:maxcast + 1]
    ok = np.nonzero(p_cast >= target - 1e-12)[0]
    return int(ok[0]) + 1 if len(ok) else maxcast


def caster_plan(scenario: MagicScenario, rules: MagicRules, compiled: CompiledPhase) -> np.ndarray:
    """plan[i, power, dispel, mask, flag]: dice for the i-th spell cast (0 = skip), MG-9."""
    s = len(compiled.order)
    rule = scenario.caster.dice_rule
    if rule == "optimal":
        return optimal_plan(compiled, scenario)
    plan = np.zeros((s, POOLS, POOLS, compiled.n_masks, 2), dtype=np.int8)
    for row, i in enumerate(compiled.order):
        sp = scenario.spells[i]
        if rule == "fixed":
            n = sp.dice
        else:
            n = _fewest_dice(compiled, row, sp.target or scenario.caster.target,
                             rules.max_casting_dice)
        plan[row] = static_plan(compiled, [0] * row + [n])[row]
    return plan


def _t_range(compiled: CompiledPhase) -> np.ndarray:
    live = (compiled.p_plain + compiled.p_op) > 0
    out = np.zeros(live.shape[:2] + (2,), dtype=np.int64)
    for i, n in zip(*np.nonzero(live.any(axis=2)), strict=True):
        idx = np.nonzero(live[i, n])[0]
        out[i, n] = (idx[0], idx[-1] + 1)
    return out


def run_dp(compiled: CompiledPhase, scenario: MagicScenario, plan: np.ndarray | None = None):
    """Backward induction (MG-9): the optimal plan and its value, or, given ``plan``,
    that plan's exact value. Returns (value[i, P, D, mask, flag], plan)."""
    from mathhammer import kernels

    km = kernels.load("mathhammer.magic.kernels")
    s = len(compiled.order)
    value = np.zeros((s + 1, POOLS, POOLS, compiled.n_masks, 2), dtype=np.float64)
    evaluate = plan is not None
    if plan is None:
        plan = np.zeros((s, POOLS, POOLS, compiled.n_masks, 2), dtype=np.int8)
    if compiled.t_range is None:
        compiled.t_range = _t_range(compiled)
    km.optimal_plan(compiled.spells_arr, compiled.p_fail, compiled.p_irr, compiled.p_plain,
                    compiled.p_op, compiled.t_range,
                    compiled.dispel_plan, compiled.p_dispel, compiled.rules_arr,
                    np.int64(scenario.dispel.level), compiled.weights, value, plan,
                    np.int64(int(evaluate)))
    return value, plan


def optimal_plan(compiled: CompiledPhase, scenario: MagicScenario) -> np.ndarray:
    """The dice-budget optimiser (MG-9): exact backward induction in the kernel."""
    value, plan = run_dp(compiled, scenario)
    compiled.value = value
    return plan


def static_plan(compiled: CompiledPhase, dice: list[int]) -> np.ndarray:
    """The plan table of a fixed split: dice[row] for the row-th spell cast (0 = never),
    cast only while that many power dice are left (README decision)."""
    plan = np.zeros((len(compiled.order), POOLS, POOLS, compiled.n_masks, 2), dtype=np.int8)
    for row, n in enumerate(dice):
        if n > 0:
            plan[row, n:] = n
    return plan
